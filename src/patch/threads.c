/* SPDX-License-Identifier: Apache-2.0 */
/* Whether stopped threads are inside bytes about to change. */
#include "patch.h"

struct td_range td_patch_busy_range(const struct td_patch *p)
{
    return (struct td_range){ p->addr + 1, p->addr + p->covered };
}

static long inside(const struct td_range *r, size_t nr, uint64_t ip)
{
    for (size_t i = 0; i < nr; i++)
        if (ip >= r[i].lo && ip < r[i].hi)
            return (long)i;
    return -1;
}

long td_threads_inside(const struct td_range *ranges, size_t nranges, const struct td_thread_ip *threads,
                       size_t nthreads, size_t *range, int *restart)
{
    for (size_t t = 0; t < nthreads; t++) {
        long r = inside(ranges, nranges, threads[t].ip);
        int rs = 0;
        if (r < 0 && threads[t].in_syscall) {
            r = inside(ranges, nranges, threads[t].ip - 2);
            rs = 1;
        }
        if (r >= 0) {
            if (range)
                *range = (size_t)r;
            if (restart)
                *restart = rs;
            return (long)t;
        }
    }
    return -1;
}
