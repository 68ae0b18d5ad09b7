/* SPDX-License-Identifier: Apache-2.0 */
/* 8 threads x 20,000 calls: every call appears exactly once. Each call
 * fails on purpose so that its line shows the address of its own
 * out-parameter, which names the call; run.sh compares sorted lines. */
#include <pthread.h>

#include "tests.h"

enum { T = 8, N = 20000 };
static CUdevice slots[T][N];

static void *worker(void *arg)
{
    CUdevice *s = arg;
    for (int i = 0; i < N; i++)
        if (cuDeviceGet(&s[i], 4242) != CUDA_ERROR_INVALID_DEVICE)
            abort();
    return NULL;
}

int main(void)
{
    MUST(cuInit(0), CUDA_SUCCESS);
    line("cuInit(0) = CUDA_SUCCESS");
    pthread_t th[T];
    for (int t = 0; t < T; t++)
        pthread_create(&th[t], NULL, worker, slots[t]);
    for (int t = 0; t < T; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < T; t++)
        for (int i = 0; i < N; i++)
            line("cuDeviceGet(%p, 4242) = CUDA_ERROR_INVALID_DEVICE (101)", (void *)&slots[t][i]);
    exited(0);
    return 0;
}
