/* SPDX-License-Identifier: Apache-2.0 */
/* Jobs: a library operation queued on the caller's stream as a host
 * function, holding the memory it touches until it has run. */
#include "hostlib.h"

#include <stdlib.h>

#include "emuhost.h"

void *hl_job_new(size_t size, void (*run)(struct hl_job *j))
{
    struct hl_job *j = calloc(1, size);
    if (j) {
        j->run = run;
        j->holds = j->inline_holds;
        j->capholds = HL_JOB_HOLDS;
    }
    return j;
}

int hl_job_hold(struct hl_job *j, const void *p, size_t bytes)
{
    const struct td_emuhost *t = hl_emuhost();
    if (!p || !t)
        return -1;
    if (bytes == 0)
        return 0;
    if (j->nholds == j->capholds) {
        int cap = j->capholds * 2;
        void **n = malloc((size_t)cap * sizeof *n);
        if (!n)
            return -1;
        for (int i = 0; i < j->nholds; i++)
            n[i] = j->holds[i];
        if (j->holds != j->inline_holds)
            free(j->holds);
        j->holds = n;
        j->capholds = cap;
    }
    void *tok;
    if (t->hold((CUdeviceptr)(uintptr_t)p, bytes, &tok) != CUDA_SUCCESS)
        return -1;
    j->holds[j->nholds++] = tok;
    return 0;
}

void hl_job_free(struct hl_job *j)
{
    if (!j)
        return;
    const struct td_emuhost *t = hl_emuhost();
    for (int i = 0; i < j->nholds; i++)
        t->release(j->holds[i]);
    if (j->holds != j->inline_holds)
        free(j->holds);
    if (j->fini)
        j->fini(j);
    if (j->wait)
        sem_destroy(&j->done);
    free(j);
}

static void CUDAAPI job_main(void *arg)
{
    struct hl_job *j = arg;
    j->run(j);
    if (j->wait)
        sem_post(&j->done);   /* the caller frees it */
    else
        hl_job_free(j);
}

enum hl_submit_status hl_job_submit(struct hl_job *j, CUstream s, int wait)
{
    /* a captured host function would run at every replay of the graph,
     * long after the ranges it holds were released */
    CUstreamCaptureStatus cs = CU_STREAM_CAPTURE_STATUS_NONE;
    if (cuStreamIsCapturing(s, &cs) == CUDA_SUCCESS && cs != CU_STREAM_CAPTURE_STATUS_NONE) {
        hl_job_free(j);
        return HL_CAPTURING;
    }
    if (wait && sem_init(&j->done, 0, 0) == 0)
        j->wait = 1;
    else if (wait) {
        hl_job_free(j);
        return HL_SUBMIT_FAILED;
    }
    /* from here a job that is not waited for belongs to the stream: it may
     * have run and been freed by the time cuLaunchHostFunc returns */
    if (cuLaunchHostFunc(s, job_main, j) != CUDA_SUCCESS) {
        hl_job_free(j);
        return HL_SUBMIT_FAILED;
    }
    if (wait) {
        while (sem_wait(&j->done) != 0)
            ;
        hl_job_free(j);
    }
    return HL_SUBMITTED;
}
