/* SPDX-License-Identifier: Apache-2.0 */
/* Jobs: a library operation queued on the caller's stream as a host
 * function, holding the memory it touches until it has run; or, on a
 * stream being captured, recorded into the graph as a host node that the
 * graph owns (hostlib.h). */
#include "hostlib.h"

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "emuhost.h"

/* what a captured job keeps besides the job (no parentheses in what: the
 * trace takes a name with them for a C++ signature) */
struct hl_capture {
    pthread_mutex_t run;            /* one run at a time */
    char what[128];                 /* for a fault report: "cuBLAS (OpenBLAS level 3)" */
};

static __thread const char *refusal;

const char *hl_capture_refusal(void)
{
    return refusal ? refusal : "the stream is being captured into a graph";
}

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
        if (j->capholds > (1 << 24))
            return -1;
        int cap = j->capholds * 2;
        struct hl_hold *n = malloc((size_t)cap * sizeof *n);
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
    j->holds[j->nholds++] = (struct hl_hold){ tok, p, bytes };
    return 0;
}

static void release_all(struct hl_job *j)
{
    const struct td_emuhost *t = hl_emuhost();
    for (int i = 0; i < j->nholds; i++)
        if (j->holds[i].tok) {
            t->release(j->holds[i].tok);
            j->holds[i].tok = NULL;
        }
}

void hl_job_free(struct hl_job *j)
{
    if (!j)
        return;
    release_all(j);
    if (j->holds != j->inline_holds)
        free(j->holds);
    if (j->fini)
        j->fini(j);
    if (j->wait)
        sem_destroy(&j->done);
    if (j->cap) {
        pthread_mutex_destroy(&j->cap->run);
        free(j->cap);
    }
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

/* ---- capture ------------------------------------------------------------- */

/* the emulator's fault entry, when its table has one */
static CUresult (*fault_entry(void))(const char *, const char *, CUdeviceptr, size_t)
{
    const struct td_emuhost *t = hl_emuhost();
    if (!t || t->size < offsetof(struct td_emuhost, fault) + sizeof t->fault)
        return NULL;
    return t->fault;
}

/* a run of a captured job (a host node, at each launch of the graph):
 * the ranges again, the library's check, the work */
static void CUDAAPI job_replay(void *arg)
{
    struct hl_job *j = arg;
    const struct td_emuhost *t = hl_emuhost();
    pthread_mutex_lock(&j->cap->run);
    int i = 0;
    for (; i < j->nholds; i++) {
        void *tok = NULL;
        if (t->hold((CUdeviceptr)(uintptr_t)j->holds[i].p, j->holds[i].len, &tok) != CUDA_SUCCESS)
            break;
        j->holds[i].tok = tok;
    }
    const char *bad = NULL;
    if (i == j->nholds && j->check)
        bad = j->check(j->check_arg);
    if (i == j->nholds && !bad) {
        j->run(j);
    } else {
        CUresult (*f)(const char *, const char *, CUdeviceptr, size_t) = fault_entry();
        if (f)
            f(j->cap->what, bad, bad ? 0 : (CUdeviceptr)(uintptr_t)j->holds[i].p, bad ? 0 : j->holds[i].len);
    }
    release_all(j);
    pthread_mutex_unlock(&j->cap->run);
}

/* the user object's destructor: the last graph or executable graph
 * holding the job went */
static void CUDAAPI job_gone(void *arg)
{
    hl_job_free(arg);
}

static enum hl_submit_status refuse(struct hl_job *j, const char *why)
{
    refusal = why;
    hl_note(why);
    hl_job_free(j);
    return HL_CAPTURING;
}

static enum hl_submit_status capture(struct hl_job *j, CUstream s, int wait)
{
    if (!j->capture)
        return refuse(j, "not captured: this operation cannot be recorded into a graph (refused)");
    if (wait)
        return refuse(j, "not captured: the call returns its result in host memory, so it waits for its work, "
                         "which a stream being captured cannot do (refused)");
    if (!fault_entry())
        return refuse(j, "not captured: the emulator has no fault entry in its host-access table (refused)");
    CUstreamCaptureStatus cs = CU_STREAM_CAPTURE_STATUS_NONE;
    CUgraph g = NULL;
    if (cuStreamGetCaptureInfo_v2(s, &cs, NULL, &g, NULL, NULL) != CUDA_SUCCESS || !g) {
        hl_job_free(j);
        return HL_SUBMIT_FAILED;   /* an invalidated capture: the driver's error then */
    }
    if (cs != CU_STREAM_CAPTURE_STATUS_ACTIVE) {
        hl_job_free(j);
        return HL_SUBMIT_FAILED;
    }
    j->cap = calloc(1, sizeof *j->cap);
    if (!j->cap || pthread_mutex_init(&j->cap->run, NULL) != 0) {
        free(j->cap);
        j->cap = NULL;
        hl_job_free(j);
        return HL_SUBMIT_FAILED;
    }
    const char *ran = hl_note_peek();
    snprintf(j->cap->what, sizeof j->cap->what, "%s%s%s%s", j->capture, ran ? " [" : "", ran ? ran : "",
             ran ? "]" : "");
    for (char *c = j->cap->what; *c; c++) /* "host loop (CSR SpMV)" */
        if (*c == '(' || *c == ')')
            *c = *c == '(' ? '[' : ']';
    /* validated at the call; held again at each run, not meanwhile */
    release_all(j);
    CUuserObject u;
    if (cuUserObjectCreate(&u, j, job_gone, 1, CU_USER_OBJECT_NO_DESTRUCTOR_SYNC) != CUDA_SUCCESS) {
        hl_job_free(j);
        return HL_SUBMIT_FAILED;
    }
    /* the graph holds the job from here (the reference moves to it) */
    if (cuGraphRetainUserObject(g, u, 1, CU_GRAPH_USER_OBJECT_MOVE) != CUDA_SUCCESS) {
        cuUserObjectRelease(u, 1);
        return HL_SUBMIT_FAILED;
    }
    if (cuLaunchHostFunc(s, job_replay, j) != CUDA_SUCCESS)
        return HL_SUBMIT_FAILED;   /* the graph frees the job */
    hl_note_captured();
    return HL_SUBMITTED;
}

int hl_capturing(CUstream s)
{
    CUstreamCaptureStatus cs = CU_STREAM_CAPTURE_STATUS_NONE;
    return cuStreamIsCapturing(s, &cs) == CUDA_SUCCESS && cs != CU_STREAM_CAPTURE_STATUS_NONE;
}

enum hl_submit_status hl_job_submit(struct hl_job *j, CUstream s, int wait)
{
    if (hl_capturing(s))
        return capture(j, s, wait);
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
