/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers for the end-to-end test programs. Each program makes driver
 * calls and prints, on stdout, the exact lines tdtrace must print for
 * them; tests/e2e/run.sh runs it under tdtrace and diffs the two. */
#ifndef TD_E2E_TESTS_H
#define TD_E2E_TESTS_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "td_api.h"

/* LeakSanitizer cannot work in a ptraced process: a sanitizer build of
 * these programs (make check) turns it off in them, even after env -i */
__attribute__((visibility("default"), used)) const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "detect_leaks=0";
}

/* an expected trace line */
__attribute__((format(printf, 1, 2))) static inline void line(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
}

/* a byte count as tdtrace prints it: 4 KiB when exact, 1000 B, 1000000 B (976.6 KiB) */
static inline const char *size_text(unsigned long long v)
{
    static char b[4][64];
    static int k;
    static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
    k = (k + 1) % 4;
    int u = 0;
    while (u < 6 && v >= (1ULL << (10 * (u + 1))) && !(v & ((1ULL << (10 * (u + 1))) - 1)))
        u++;
    if (u || v < 1024) {
        snprintf(b[k], sizeof(b[k]), "%llu %s", v >> (10 * u), unit[u]);
        return b[k];
    }
    int j = 0;
    while (j < 6 && v >= (1ULL << (10 * (j + 1))))
        j++;
    snprintf(b[k], sizeof(b[k]), "%llu B (%.1f %s)", v, (double)v / (double)(1ULL << (10 * j)), unit[j]);
    return b[k];
}

/* the test cannot run here: exit 77 (skip) with the reason on stderr */
static inline void skip(const char *why)
{
    fprintf(stderr, "skip: %s\n", why);
    exit(77);
}

#define MUST(call, want)                                                                 \
    do {                                                                                 \
        CUresult r_ = (call);                                                            \
        if (r_ != (want)) {                                                              \
            fprintf(stderr, "%s:%d: %s = %d, want %d\n", __FILE__, __LINE__, #call, r_,  \
                    (int)(want));                                                        \
            exit(99);                                                                    \
        }                                                                                \
    } while (0)

/* the UUID of the TOOLS_TLS export table */
static const CUuuid tools_tls = { { 0x42, (char)0xd8, 0x5a, (char)0x81, 0x23, (char)0xf6, (char)0xcb, 0x47,
                                    (char)0x82, (char)0x98, (char)0xf6, (char)0xe7, (char)0x8a, 0x3a,
                                    (char)0xec, (char)0xdc } };

static inline void exited(int code)
{
    line("+++ exited with %d +++", code);
    fflush(stdout);
}

#endif
