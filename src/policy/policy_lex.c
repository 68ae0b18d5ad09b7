/* SPDX-License-Identifier: Apache-2.0 */
/* Policy text into statements: a line is split into words at blanks; '#'
 * at the start of a word begins a comment; "#@ FILE:LINE" gives the origin
 * of the next statement. The first word names the statement
 * (policy_stmt.c). And reading a policy file. */
#include "policy_int.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int is_blank(int c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

/* "#@ FILE:LINE": the origin of the next statement; anything else is a comment */
static void origin(struct pol_state *ps, char *s, const char **ofile, int *oline)
{
    while (is_blank((unsigned char)*s))
        s++;
    size_t len = strlen(s);
    while (len && is_blank((unsigned char)s[len - 1]))
        s[--len] = 0;
    char *colon = strrchr(s, ':');
    if (!colon || colon == s || !colon[1])
        return;
    long v = 0;
    for (char *q = colon + 1; *q; q++) {
        if (!isdigit((unsigned char)*q) || v > 100000000)
            return;
        v = v * 10 + (*q - '0');
    }
    *colon = 0;
    const char *f = td_pol_intern(ps->p, s);
    if (f) {
        *ofile = f;
        *oline = (int)v;
    }
}

int td_policy_parse(const char *text, size_t len, const char *file,
                    struct td_policy **out, struct td_policy_error *err)
{
    struct pol_state ps;
    memset(&ps, 0, sizeof ps);
    struct pol_tok t[POL_MAX_WORDS];
    char *buf = NULL;
    size_t cap = 0;
    const char *ofile = NULL;
    int oline = 0;

    *out = NULL;
    if (err)
        memset(err, 0, sizeof *err);
    ps.err = err;
    ps.efile = file ? file : "<policy>";
    if (!(ps.p = td_policy_defaults()) || !(ps.file = td_pol_intern(ps.p, ps.efile))) {
        td_pol_oom(&ps);
        td_policy_free(ps.p);
        return -1;
    }
    ps.efile = ps.file;
    if (!text)
        len = 0;
    size_t pos = 0;
    int rc = 0;
    while (rc == 0 && pos < len) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
        ps.eline++;
        if (n + 1 > cap) {
            char *nb = realloc(buf, n + 1);
            if (!nb) {
                rc = td_pol_oom(&ps);
                break;
            }
            buf = nb;
            cap = n + 1;
        }
        memcpy(buf, text + pos, n);
        buf[n] = 0;
        pos += n + 1;

        if (buf[0] == '#' && buf[1] == '@') {
            origin(&ps, buf + 2, &ofile, &oline);
            continue;
        }
        int nt = 0;
        for (size_t i = 0; i < n && rc == 0;) {
            unsigned char c = (unsigned char)buf[i];
            if (is_blank(c)) {
                i++;
                continue;
            }
            if (c == '#')
                break;
            if (nt == POL_MAX_WORDS) {
                rc = perr(&ps, (int)i + 1, "too many words (at most %d)", POL_MAX_WORDS);
                break;
            }
            t[nt].s = buf + i;
            t[nt++].col = (int)i + 1;
            for (; i < n && !is_blank((unsigned char)buf[i]); i++) {
                c = (unsigned char)buf[i];
                if (c < 0x20 || c == 0x7f) {
                    rc = perr(&ps, (int)i + 1, "invalid character 0x%02x", c);
                    break;
                }
            }
            if (i < n)
                buf[i++] = 0;
        }
        if (rc < 0 || nt == 0)
            continue;
        ps.file = ofile ? ofile : ps.efile;
        ps.line = ofile ? oline : ps.eline;
        ofile = NULL;
        rc = td_pol_statement(&ps, t, nt);
    }
    free(buf);
    if (rc == 0)
        rc = td_pol_finish(&ps);
    if (rc < 0) {
        td_policy_free(ps.p);
        return -1;
    }
    *out = ps.p;
    return 0;
}

int td_policy_load(const char *path, struct td_policy **out, struct td_policy_error *err)
{
    struct td_policy_error dummy;
    if (!err)
        err = &dummy;
    memset(err, 0, sizeof *err);
    *out = NULL;
    snprintf(err->file, sizeof err->file, "%s", path);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0) {
        snprintf(err->msg, sizeof err->msg, "%s", strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        snprintf(err->msg, sizeof err->msg, "%s", strerror(EISDIR));
        close(fd);
        return -1;
    }
    char *buf = malloc(TD_POLICY_MAX_SIZE + 1);
    if (!buf) {
        snprintf(err->msg, sizeof err->msg, "out of memory");
        close(fd);
        return -1;
    }
    size_t len = 0;
    for (;;) {
        ssize_t r = read(fd, buf + len, TD_POLICY_MAX_SIZE + 1 - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            snprintf(err->msg, sizeof err->msg, "%s", strerror(errno));
            free(buf);
            close(fd);
            return -1;
        }
        if (r == 0)
            break;
        len += (size_t)r;
        if (len > TD_POLICY_MAX_SIZE) {
            snprintf(err->msg, sizeof err->msg, "file too large (more than %d bytes)", TD_POLICY_MAX_SIZE);
            free(buf);
            close(fd);
            return -1;
        }
    }
    close(fd);
    int rc = td_policy_parse(buf, len, path, out, err);
    free(buf);
    return rc;
}

