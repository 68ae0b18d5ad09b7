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

int64_t hl_vec_bytes(int64_t n, int64_t inc, size_t elem)
{
    if (n <= 0)
        return 0;
    /* inc 0: every element is the first */
    uint64_t a = inc < 0 ? (uint64_t)0 - (uint64_t)inc : (uint64_t)inc;
    if ((uint64_t)(n - 1) > (uint64_t)INT64_MAX / (a ? a : 1) / elem)
        return -1;
    uint64_t span = (uint64_t)(n - 1) * a + 1;
    if (span > (uint64_t)INT64_MAX / elem)
        return -1;
    return (int64_t)(span * elem);
}

int64_t hl_mat_bytes(int64_t rows, int64_t cols, int64_t ld, size_t elem)
{
    if (rows <= 0 || cols <= 0)
        return 0;
    if (ld < rows)
        return -1;
    if ((uint64_t)(cols - 1) > (uint64_t)INT64_MAX / (uint64_t)ld / elem)
        return -1;
    uint64_t span = (uint64_t)(cols - 1) * (uint64_t)ld + (uint64_t)rows;
    if (span > (uint64_t)INT64_MAX / elem)
        return -1;
    return (int64_t)(span * elem);
}

int64_t hl_batch_bytes(int64_t one, int64_t batch, int64_t stride, size_t elem)
{
    if (one <= 0 || batch <= 0)
        return 0;
    if (stride < 0)
        return -1;
    if ((uint64_t)(batch - 1) > (uint64_t)INT64_MAX / elem / (stride ? (uint64_t)stride : 1))
        return -1;
    uint64_t last = (uint64_t)(batch - 1) * (uint64_t)stride * elem;
    if (last > (uint64_t)INT64_MAX - (uint64_t)one)
        return -1;
    return (int64_t)(last + (uint64_t)one);
}
