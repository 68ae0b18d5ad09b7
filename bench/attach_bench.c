/* SPDX-License-Identifier: Apache-2.0 */
/* For bench/attach.sh: a program tdtrace -p attaches to. One thread calls
 * cuCtxGetCurrent through a pointer obtained with cuGetProcAddress before
 * any attach, as fast as it can; another reads the clock in a tight loop
 * and keeps every gap longer than 50 us between two reads (the time its
 * threads were stopped, or the machine ran something else). At the file
 * STOP it prints the gaps, "gap START_NS LENGTH_NS" (CLOCK_REALTIME). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "td_api.h"

static atomic_int stop;
static CUresult (*get_current)(CUcontext *);
static struct { long long at, len; } gaps[4096];
static int ngaps;

static long long now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *caller(void *arg)
{
    CUcontext c;
    (void)arg;
    while (!atomic_load_explicit(&stop, memory_order_relaxed))
        get_current(&c);
    return NULL;
}

static void *ticker(void *arg)
{
    (void)arg;
    long long last = now();
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        long long t = now();
        if (t - last > 50000 && ngaps < 4096) {
            gaps[ngaps].at = last;
            gaps[ngaps++].len = t - last;
        }
        last = t;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    CUdevice dev;
    CUcontext ctx;
    CUdriverProcAddressQueryResult q;
    if (argc != 3 || cuInit(0) || cuDeviceGet(&dev, 0) || cuCtxCreate_v2(&ctx, 0, dev) ||
        cuGetProcAddress_v2("cuCtxGetCurrent", (void **)&get_current, 12000, 0, &q))
        return 2;
    pthread_t a, b;
    pthread_create(&a, NULL, caller, NULL);
    pthread_create(&b, NULL, ticker, NULL);
    FILE *f = fopen(argv[1], "w");
    if (!f || fputs("ready\n", f) < 0 || fclose(f))
        return 2;
    while (access(argv[2], F_OK) != 0)
        usleep(2000);
    atomic_store(&stop, 1);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    for (int i = 0; i < ngaps; i++)
        printf("gap %lld %lld\n", gaps[i].at, gaps[i].len);
    return 0;
}
