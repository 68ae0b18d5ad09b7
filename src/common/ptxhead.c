/* SPDX-License-Identifier: Apache-2.0 */
/* The header of PTX text (ptxhead.h). Everything in it comes from the
 * program: bounded by len and the first NUL, numbers by their digits. */
#include "ptxhead.h"

#include <string.h>

/* white space and comments from p; where the next token starts */
static const char *skip_space(const char *p, const char *end)
{
    while (p < end) {
        if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\f' || *p == '\v') {
            p++;
        } else if (p + 1 < end && p[0] == '/' && p[1] == '/') {
            while (p < end && *p != '\n')
                p++;
        } else if (p + 1 < end && p[0] == '/' && p[1] == '*') {
            p += 2;
            while (p + 1 < end && !(p[0] == '*' && p[1] == '/'))
                p++;
            p = p + 1 < end ? p + 2 : end;
        } else {
            break;
        }
    }
    return p;
}

static int ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* the directive w at p, as a whole word */
static int word_is(const char *p, const char *end, const char *w)
{
    size_t n = strlen(w);
    return (size_t)(end - p) >= n && memcmp(p, w, n) == 0 && ((size_t)(end - p) == n || !ident_char(p[n]));
}

/* a decimal number of 1-4 digits at *pp; -1 if none or longer */
static long number(const char **pp, const char *end)
{
    const char *p = *pp;
    long v = 0;
    int nd = 0;
    while (p < end && *p >= '0' && *p <= '9' && nd < 5) {
        v = v * 10 + (*p++ - '0');
        nd++;
    }
    if (nd == 0 || nd > 4)
        return -1;
    *pp = p;
    return v;
}

int td_ptx_head(const char *text, size_t len, struct td_ptx_head *out)
{
    memset(out, 0, sizeof *out);
    if (!text)
        return 0;
    const char *p = text, *end = text + strnlen(text, len);
    for (;;) {
        p = skip_space(p, end);
        if (word_is(p, end, ".version")) {
            p = skip_space(p + 8, end);
            long major = number(&p, end);
            if (major < 0 || p >= end || *p++ != '.')
                return -1;
            long minor = number(&p, end);
            if (minor < 0)
                return -1;
            out->major = (unsigned)major;
            out->minor = (unsigned)minor;
            out->has_version = 1;
        } else if (word_is(p, end, ".target")) {
            p = skip_space(p + 7, end);
            if (end - p < 4 || memcmp(p, "sm_", 3) != 0)
                return -1;
            p += 3;
            long arch = number(&p, end);
            if (arch <= 0)
                return -1;
            char v = p < end && (*p == 'a' || *p == 'f') ? *p++ : 0;
            if (p < end && ident_char(*p))
                return -1;
            if (!out->has_target) { /* the first target names the architecture */
                out->arch = (unsigned)arch;
                out->variant = v;
                out->has_target = 1;
            }
        } else if (!word_is(p, end, ".address_size")) {
            return 0; /* the header ends */
        }
        while (p < end && *p != '\n') /* the rest of the directive's line */
            p++;
    }
}
