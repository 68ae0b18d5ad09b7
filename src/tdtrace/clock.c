/* SPDX-License-Identifier: Apache-2.0 */
/* Record times: on x86-64 with an invariant TSC the shim records raw TSC
 * ticks (a few ns, where clock_gettime can cost 30), and tdtrace turns them
 * into CLOCK_MONOTONIC nanoseconds with a ratio it measures over the run:
 * from a sample taken at start to the latest one (taken before each batch
 * of records is read). */
#include <stdint.h>
#include <time.h>

#include "clock.h"

static int tsc;
static uint64_t tsc0, ns0, tsc1, ns1;
static double ratio; /* ns per tick, from (tsc0, ns0) to (tsc1, ns1) */

static uint64_t mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#if defined(__x86_64__)
#include <cpuid.h>
static uint64_t rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return (uint64_t)hi << 32 | lo;
}

static int invariant_tsc(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000000, &a, &b, &c, &d) || a < 0x80000007)
        return 0;
    __get_cpuid(0x80000007, &a, &b, &c, &d);
    return (d >> 8) & 1;
}
#else
static uint64_t rdtsc(void)
{
    return 0;
}

static int invariant_tsc(void)
{
    return 0;
}
#endif

int td_clock_init(void)
{
    tsc = invariant_tsc();
    if (tsc) {
        tsc0 = rdtsc();
        ns0 = mono();
        /* the ratio comes from td_clock_sample, before any record is
         * converted (no waiting here: start-up stays fast) */
    }
    return tsc;
}

void td_clock_sample(void)
{
    if (tsc) {
        uint64_t t = rdtsc(), n = mono();
        if (t > tsc0 && n > ns0) {
            tsc1 = t;
            ns1 = n;
            ratio = (double)(ns1 - ns0) / (double)(tsc1 - tsc0);
        }
    }
}

uint64_t td_clock_ns(uint64_t stamp)
{
    if (!tsc || tsc1 <= tsc0)
        return stamp;
    /* whole seconds' worth of ticks in integers, the rest in double */
    int64_t dt = (int64_t)(stamp - tsc0);
    return (uint64_t)((int64_t)ns0 + (int64_t)((double)dt * ratio));
}
