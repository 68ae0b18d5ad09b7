/* SPDX-License-Identifier: Apache-2.0 */
/* cuFFT on the host (FFTW): what plan.c (handles, plans, sizes, settings)
 * and exec.c (FFTW plans and execution on the stream) share.
 *
 * A cuFFT plan keeps its transform (rank, sizes, batch, layout, type); the
 * FFTW plans are made at execution, when the placement (in or out of
 * place) and the arrays' alignment are known, and kept for the next call
 * with the same ones. FFTW plans with FFTW_ESTIMATE, which never touches
 * the arrays, so planning on the device pointers at the call is safe
 * while the stream's earlier work may still write them. */
#ifndef TD_HOSTLIB_FFT_H
#define TD_HOSTLIB_FFT_H

#include <stdint.h>

#include "cufft_api.h"
#include "hostlib.h"

enum fft_kind { FK_C2C, FK_R2C, FK_C2R };
enum fft_prec { FP_F16, FP_BF16, FP_F32, FP_F64 };   /* storage; F16 and BF16 execute in float */

/* one side (input or output) of the data layout, in elements of that
 * side's type (real or complex) */
struct fft_side {
    int64_t n[3];        /* logical sizes of this side (complex side: last n/2 + 1) */
    int64_t embed[3];
    int64_t stride, dist;
};

struct fft_var;

/* An LTO callback of a plan (callback.c): the program's device function
 * linked with a trampoline kernel into a module of the emulated GPU. */
enum fft_cb_dir { FCB_LOAD, FCB_STORE };
struct fft_cb {
    int set;
    int type;                         /* cufftXtCallbackType */
    CUcontext ctx;                    /* the module's */
    CUmodule mod;
    CUfunction fn;                    /* the trampoline */
    void *info;                       /* caller_info[0] */
};

struct fft_plan {
    int made;
    enum fft_kind kind;
    enum fft_prec prec;
    int rank;
    int64_t n[3];
    int64_t batch;
    int advanced;                     /* inembed/onembed given */
    int64_t inembed[3], onembed[3], istride, idist, ostride, odist;
    CUstream stream;
    void *work;
    int auto_alloc;
    long long patient_jit, host_threads;
    struct fft_var *vars;             /* FFTW plans made for it (exec.c) */
    int ngpus, gpus[16];              /* cufftXtSetGPUs (xt.c); 0: one device */
    struct fft_cb cb[2];              /* by enum fft_cb_dir */
    size_t cbshared[2];               /* cufftXtSetCallbackSharedSize */
    CUcontext tmpctx;                 /* the callbacks' scratch arrays (callback.c) */
    void *tmp[2];
    size_t tmplen[2];
};

/* the live plan with this handle (made or not), or NULL */
struct fft_plan *fft_plan_get(cufftHandle h);

/* the layout of both sides for one execution */
void fft_sides(const struct fft_plan *p, int inplace, struct fft_side *in, struct fft_side *out);
/* bytes one side spans from its first element, or -1 on overflow */
int64_t fft_span(const struct fft_plan *p, const struct fft_side *s, size_t elem);
size_t fft_elem(const struct fft_plan *p, int complex_side);
/* fft_sides, and the bytes each side spans (bytes[0] the input's): 0, or
 * -1 when a span overflows */
int fft_extents(const struct fft_plan *p, int inplace, struct fft_side *in, struct fft_side *out, int64_t bytes[2]);

/* runs a transform of plan p on its stream (exec.c): the status to return */
cufftResult fft_exec(struct fft_plan *p, void *in, void *out, int sign);
/* fftw.c: an FFTW plan for these arrays, referenced for the caller (NULL
 * if FFTW cannot plan the layout or memory ran out); a reference dropped;
 * a transform run */
struct fft_var *fft_var_get(struct fft_plan *p, int inplace, void *in, void *out, int sign);
void fft_var_unref(struct fft_var *v);
void fft_var_execute(const struct fft_var *v, void *in, void *out);
/* drops the FFTW plans of a plan being destroyed (those still queued stay
 * until their work has run) */
void fft_drop_vars(struct fft_plan *p);

/* callback.c: LTO callbacks on the emulated GPU.
 * The callback of that type made into a module of the current context
 * (NVIDIA's NVRTC compiles a trampoline kernel, NVIDIA's nvJitLink links it
 * with the program's LTO-IR into PTX): the status to return. */
cufftResult fft_cb_build(struct fft_cb *cb, int type, const char *name, const void *fatbin, size_t size);
/* unloads a callback's module */
void fft_cb_clear(struct fft_cb *cb);
/* the direction of a callback type, or -1 */
int fft_cb_dir_of(int type);
/* whether plan p (described) can take the callbacks set on it: 0, or the
 * status to return */
cufftResult fft_cb_fits(const struct fft_plan *p);
/* device scratch of at least bytes for side `which` (0 in, 1 out), kept by
 * the plan; NULL if it cannot be had */
void *fft_cb_tmp(struct fft_plan *p, int which, size_t bytes);
/* the scratch a made plan's callbacks need, for either placement, had now
 * (not at execution, which may be in stream capture): 0, or the status */
cufftResult fft_cb_prepare(struct fft_plan *p);
/* queues the callback of direction dir on the plan's stream over every
 * element of side s: a load reads data into tmp, a store writes tmp to
 * data; 0, or -1 if the driver refused */
int fft_cb_launch(struct fft_plan *p, int dir, void *data, void *tmp, const struct fft_side *s);
/* what a plan being destroyed holds for its callbacks */
void fft_cb_drop(struct fft_plan *p);

#endif
