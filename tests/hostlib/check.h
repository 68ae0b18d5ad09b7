/* SPDX-License-Identifier: Apache-2.0 */
/* Shared by the host-library test programs (C, built against tdtrace's own
 * declarations): counting checks, driver calls that must succeed, random
 * data, tolerances. Each program prints "ok NAME" / "FAIL NAME: why" and
 * ends with "LIB: N passed, N failed". */
#ifndef TD_HOSTLIB_CHECK_H
#define TD_HOSTLIB_CHECK_H

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda.h"
#include "td_api.h"

static int n_pass, n_fail;
static char cur[128];

#define DRV(call) do { CUresult r_ = (call); if (r_ != CUDA_SUCCESS) { \
    printf("FAIL %s: %s = %d (%s:%d)\n", cur, #call, (int)r_, __FILE__, __LINE__); exit(1); } } while (0)

static int cur_bad;
static void begin(const char *name)
{
    snprintf(cur, sizeof cur, "%s", name);
    cur_bad = 0;
}
__attribute__((format(printf, 1, 2))) static void bad(const char *fmt, ...)
{
    va_list ap;
    if (!cur_bad)
        printf("FAIL %s: ", cur);
    else
        printf("     %s: ", cur);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    cur_bad++;
}
static void end(void)
{
    if (cur_bad) {
        n_fail++;
    } else {
        n_pass++;
        printf("ok   %s\n", cur);
    }
}
/* status check: got must be want */
#define ST(call, want) do { int g_ = (int)(call); if (g_ != (int)(want)) \
    bad("%s = %d, expected %d (line %d)", #call, g_, (int)(want), __LINE__); } while (0)

static uint64_t rng = 88172645463325252ull;
__attribute__((unused)) static double urand(void) /* in [-1, 1) */
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 4503599627370496.0 - 1.0;
}

/* device memory the test frees at exit */
__attribute__((unused)) static void *dalloc(size_t bytes)
{
    CUdeviceptr p;
    DRV(cuMemAlloc_v2(&p, bytes));
    return (void *)(uintptr_t)p;
}

/* |got - want| <= tol * (1 + |want|) over n values; reports the first miss */
__attribute__((unused)) static int close_d(const char *what, const double *got, const double *want, size_t n, double tol)
{
    for (size_t i = 0; i < n; i++) {
        if (!(fabs(got[i] - want[i]) <= tol * (1 + fabs(want[i])))) {
            bad("%s[%zu] = %.9g, expected %.9g (tolerance %g)", what, i, got[i], want[i], tol);
            return 0;
        }
    }
    return 1;
}

__attribute__((unused)) static int summary(const char *lib)
{
    printf("%s: %d passed, %d failed\n", lib, n_pass, n_fail);
    return n_fail ? 1 : 0;
}

#endif
