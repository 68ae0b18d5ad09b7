/* SPDX-License-Identifier: Apache-2.0 */
/* A thread that starts 2000 threads which end at once, as the emulator's
 * stream worker does for each kernel launch: a thread gone before tdtrace
 * looks at its clone event is still a thread, not a new process (no
 * "forked" line, no [pid N] prefixes). */
#include <pthread.h>

#include "tests.h"

static void *nothing(void *arg)
{
    return arg;
}

/* as the emulator's stream worker: a thread that starts threads and joins them */
static void *worker(void *arg)
{
    for (int i = 0; i < 2000; i++) {
        pthread_t t;
        if (pthread_create(&t, NULL, nothing, NULL) != 0 || pthread_join(t, NULL) != 0)
            abort();
    }
    return arg;
}

int main(void)
{
    MUST(cuInit(0), CUDA_SUCCESS);
    line("cuInit(0) = CUDA_SUCCESS");
    pthread_t w;
    if (pthread_create(&w, NULL, worker, NULL) != 0 || pthread_join(w, NULL) != 0)
        return 1;
    exited(0);
    return 0;
}
