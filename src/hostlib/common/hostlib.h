/* SPDX-License-Identifier: Apache-2.0 */
/* Shared pieces of the host implementations of NVIDIA's libraries
 * (src/hostlib/LIB): reaching the emulated GPU, running work as a stream
 * operation, validating device memory, handle registries, conversions.
 *
 * Model. On the emulated GPU device memory is host memory. A library call
 * validates its arguments and every device range it will touch (bounds
 * included) on the caller's thread, then queues a job on the caller's CUDA
 * stream with cuLaunchHostFunc: the stream's worker runs it in FIFO order
 * with the program's kernels, copies and events. Each validated range is
 * held (the emulator's host-access table, include/tdtrace/emuhost.h) until
 * the job has run, so a cuMemFree meanwhile cannot pull memory from under
 * it. A job never fails: everything it could fail on was checked before it
 * was queued. (A job recorded into a graph being captured is the exception:
 * it checks its ranges again at each launch, job.c below.) */
#ifndef TD_HOSTLIB_H
#define TD_HOSTLIB_H

#include <semaphore.h>
#include <stddef.h>
#include <stdint.h>

#include "cuda.h"
#include "td_api.h"

#define HL_EXPORT __attribute__((visibility("default")))

/* ---- device.c: the emulated GPU -------------------------------------- */
enum hl_init_status {
    HL_OK = 0,
    HL_NO_DRIVER,      /* cuInit or the context failed */
    HL_NO_EMULATOR,    /* a driver whose device memory is not host memory */
};
/* Initialises the driver and finds the emulator's host-access table; no
 * context is made. */
enum hl_init_status hl_emulator(void);
/* hl_emulator, then makes sure the calling thread has a current context
 * (the primary context of device 0 when it has none, as the runtime
 * would). */
enum hl_init_status hl_init(void);
/* A list of n devices (cuBLAS-XT's, several-GPU cuFFT's): HL_DEVS_OK, or
 * what is wrong with it */
enum hl_devs { HL_DEVS_OK, HL_DEVS_NO_DRIVER, HL_DEVS_BAD_COUNT, HL_DEVS_BAD_DEVICE };
/* n in [1, max], each an ordinal of the emulated driver, none twice */
enum hl_devs hl_check_devices(int n, const int *ids, int max);
/* The emulator's host-access table once hl_emulator found it (job.c). */
struct td_emuhost;
const struct td_emuhost *hl_emuhost(void);

/* ---- note.c: what the call ran, for tdtrace -e lib= ------------------- */
/* says what runs the call in progress on this thread (a string constant:
 * "OpenBLAS sgemm"); tdtrace_host_note (exported) reads and clears it */
void hl_note(const char *what);
/* the note set so far on this thread (not cleared), or NULL */
const char *hl_note_peek(void);
/* the call in progress was recorded into a graph being captured: the note
 * says so ("captured into a graph: OpenBLAS sgemm") */
void hl_note_captured(void);

/* ---- job.c: work queued on a stream ---------------------------------- */
/* Capture. On a stream being captured into a graph (cudaStreamBeginCapture)
 * a job whose library allows it (capture set) becomes a host node of the
 * graph, as NVIDIA's libraries record their kernels: the graph owns the job
 * through a user object (cuUserObjectCreate, cuGraphRetainUserObject), so it
 * lives as long as the graph and every executable graph made from it, and
 * is freed when the last of them goes. Its ranges were validated at the
 * call and are not held meanwhile (the program may free and reallocate
 * between launches): each run holds them again first, and one that is gone
 * is reported as a kernel's invalid access is and faults the context
 * (sticky CUDA_ERROR_ILLEGAL_ADDRESS, emuhost.h's fault); the job does not
 * run then. Runs of one captured job are serialised (two executable graphs
 * of one graph may run at once). A blocking job (wait) cannot be captured:
 * its result would be needed before the graph ran. */
#define HL_JOB_HOLDS 8
struct hl_hold {
    void *tok;                      /* the emulator's reference, or NULL */
    const void *p;
    size_t len;
};
struct hl_job {
    void (*run)(struct hl_job *j);  /* the computation (stream worker) */
    void (*fini)(struct hl_job *j); /* frees what the job owns, or NULL */
    int nholds, capholds;
    struct hl_hold *holds;          /* held ranges */
    struct hl_hold inline_holds[HL_JOB_HOLDS];
    int wait;                       /* the caller waits for it */
    sem_t done;
    /* capture: the library's name ("cuBLAS") when it allows the job to be
     * recorded into a graph being captured; NULL refuses */
    const char *capture;
    /* capture: what a run checks after holding its ranges (the indices of
     * a sparse matrix that the call could not read yet), arg its argument
     * (inside the job); NULL when nothing. Nonzero: the run is reported as
     * a fault naming why (a constant string) */
    const char *(*check)(const void *arg);
    const void *check_arg;
    struct hl_capture *cap;         /* capture's state, NULL until then */
};
/* A zeroed job of size bytes (>= sizeof(struct hl_job)), or NULL. */
void *hl_job_new(size_t size, void (*run)(struct hl_job *j));
/* Validates that [p, p+bytes) lies in one allocation the emulator knows
 * and holds it until the job has run. bytes 0 holds nothing (an empty
 * operand is never touched). -1 for a NULL pointer, a pointer the emulator
 * does not know, a range past its allocation, or no memory. */
int hl_job_hold(struct hl_job *j, const void *p, size_t bytes);
/* Frees a job that was not submitted (releases what it holds). */
void hl_job_free(struct hl_job *j);
enum hl_submit_status {
    HL_SUBMITTED = 0,   /* queued, or recorded into the graph being captured */
    HL_SUBMIT_FAILED,   /* the driver refused (bad stream, no memory) */
    HL_CAPTURING,       /* the stream is being captured and the job cannot be
                         * (hl_capture_refusal says why) */
};
/* Queues j on stream s (wait: returns when it has run), or records it into
 * the graph s is being captured into. The job belongs to the stream (or
 * the graph) from here, also on error. */
enum hl_submit_status hl_job_submit(struct hl_job *j, CUstream s, int wait);
/* Why the last HL_CAPTURING on this thread was refused (a constant). */
const char *hl_capture_refusal(void);
/* 1 when s is being captured into a graph (for calls that must refuse
 * before they queue anything: they read device memory at the call) */
int hl_capturing(CUstream s);

/* ---- extent.c: bytes an operand spans, or -1 on overflow -------------- */
/* a vector of n elements of size elem with increment inc (either sign) */
int64_t hl_vec_bytes(int64_t n, int64_t inc, size_t elem);
/* a column-major rows x cols matrix with leading dimension ld */
int64_t hl_mat_bytes(int64_t rows, int64_t cols, int64_t ld, size_t elem);
/* batch matrices stride elements apart, each of bytes one */
int64_t hl_batch_bytes(int64_t one, int64_t batch, int64_t stride, size_t elem);

/* ---- handles.c: registries of live handles -------------------------- */
/* The handles a library gave out, each with its kind (a library's own
 * small integer), so that a stale, made-up or wrong-kind handle is an
 * error, never dereferenced. */
int hl_handle_add(const void *h, int kind);        /* 0, or -1 without memory */
int hl_handle_live(const void *h, int kind);       /* 1 if h is live with that kind */
int hl_handle_remove(const void *h, int kind);     /* 1 if it was (removed now) */
/* a new handle: size zeroed bytes, live with that kind; NULL without memory */
void *hl_handle_new(size_t size, int kind);
/* removes and frees h: 1 if it was live with that kind, else 0 (h untouched) */
int hl_handle_free(void *h, int kind);

/* ---- convert.c: reduced-precision types ----------------------------- */
/* IEEE binary16 and bfloat16 from float, round to nearest even (NaN kept
 * quiet, overflow to infinity), and back (exact). */
uint16_t hl_f2h(float f);
float hl_h2f(uint16_t h);
uint16_t hl_f2bf(float f);
float hl_bf2f(uint16_t b);
/* float rounded to TF32 (10 mantissa bits), to nearest with ties away from
 * zero as cvt.rna.tf32.f32 */
float hl_tf32(float f);

#endif
