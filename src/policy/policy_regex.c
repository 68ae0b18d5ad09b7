/* SPDX-License-Identifier: Apache-2.0 */
/* Bounded regular expressions: the one way tdtrace compiles a regular
 * expression a user gave it (policy files, --check-policy, -e trace=/RE).
 * glibc's regcomp recurses once per nested group and expands counted
 * repetitions, so 50,000 nested parentheses overflow its stack and
 * "(a{255}){255}{255}" takes all memory; the pattern is measured first. */
#include "policy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* a count in {m,n}: digits; -1 if none */
static long count(const char **p)
{
    long v = -1;
    while (**p >= '0' && **p <= '9') {
        v = (v < 0 ? 0 : v) * 10 + (**p - '0');
        if (v > 100000)
            v = 100000;
        (*p)++;
    }
    return v;
}

int td_regex_check(const char *re, char *err, size_t n)
{
    size_t len = strlen(re);
    if (len > TD_REGEX_MAX_LEN) {
        snprintf(err, n, "regular expression longer than %d characters", TD_REGEX_MAX_LEN);
        return -1;
    }
    /* size[d]: the states the group open at depth d makes so far; last:
     * those of the last atom or group, which a repetition multiplies */
    double size[TD_REGEX_MAX_DEPTH + 1] = { 0 }, last = 0;
    int depth = 0;
    for (const char *p = re; *p;) {
        char c = *p++;
        switch (c) {
        case '\\':
            if (*p)
                p++;
            last = 1;
            size[depth] += 1;
            break;
        case '[': /* a bracket expression is one atom */
            if (*p == '^')
                p++;
            if (*p == ']')
                p++;
            while (*p && *p != ']') {
                if (*p == '[' && (p[1] == ':' || p[1] == '=' || p[1] == '.')) {
                    const char *e = strstr(p + 2, p[1] == ':' ? ":]" : p[1] == '=' ? "=]" : ".]");
                    p = e ? e + 2 : p + strlen(p);
                } else {
                    p++;
                }
            }
            if (*p)
                p++;
            last = 1;
            size[depth] += 1;
            break;
        case '(':
            if (depth == TD_REGEX_MAX_DEPTH) {
                snprintf(err, n, "regular expression nests deeper than %d groups", TD_REGEX_MAX_DEPTH);
                return -1;
            }
            size[++depth] = 0;
            break;
        case ')':
            if (depth > 0) {
                last = size[depth] + 1;
                size[--depth] += last;
            }
            break;
        case '{': {
            long m = count(&p), k = m;
            if (*p == ',') {
                p++;
                long x = count(&p);
                k = x >= 0 ? x : m + 1;
            }
            if (*p == '}')
                p++;
            if (k > 1) {
                size[depth] += last * (double)(k - 1);
                last *= (double)k;
            }
            break;
        }
        case '*': case '+': case '?':
            size[depth] += 1;
            break;
        default:
            last = 1;
            size[depth] += 1;
            break;
        }
        if (size[depth] > TD_REGEX_MAX_STATES || last > TD_REGEX_MAX_STATES) {
            snprintf(err, n, "regular expression too large once its repetitions are expanded "
                     "(more than %d states)", TD_REGEX_MAX_STATES);
            return -1;
        }
    }
    return 0;
}

int td_regex_compile(regex_t *out, const char *re, int cflags, char *err, size_t n)
{
    if (td_regex_check(re, err, n) < 0)
        return -1;
    int e = regcomp(out, re, cflags);
    if (e) {
        char buf[128];
        regerror(e, out, buf, sizeof buf);
        snprintf(err, n, "invalid regular expression '%.*s': %s", 200, re, buf);
        return -1;
    }
    return 0;
}
