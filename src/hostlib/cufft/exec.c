/* SPDX-License-Identifier: Apache-2.0 */
/* Executing cuFFT plans on FFTW, queued on the plan's stream.
 *
 * A plan's layout maps onto FFTW's guru64 interface as it is: each
 * dimension d has stride stride * prod_{j>d} embed_j, the batch is one
 * "howmany" dimension with the distance. cuFFT's directions are FFTW's
 * signs (CUFFT_FORWARD -1, CUFFT_INVERSE +1) and neither normalises.
 * The FFTW plans are made and kept by fftw.c. Half and bfloat16 data are
 * converted to float scratch arrays (the whole span, gaps included, so a
 * strided output keeps what lies between its elements), transformed in
 * float and rounded back once, to nearest even. */
#include "fft.h"

#include <fftw3.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ---- the job ------------------------------------------------------------- */
struct fj {
    struct hl_job h;
    struct fft_var *v;
    void *in, *out;             /* device arrays */
    enum fft_prec prec;
    size_t nin, nout;           /* half/bfloat16: scalars each side spans */
    float *sin, *sout;          /* their float copies (sout == sin in place) */
};

static void to_float(enum fft_prec pr, const uint16_t *src, float *dst, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = pr == FP_F16 ? hl_h2f(src[i]) : hl_bf2f(src[i]);
}

static void from_float(enum fft_prec pr, const float *src, uint16_t *dst, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = pr == FP_F16 ? hl_f2h(src[i]) : hl_f2bf(src[i]);
}


static void run_fft(struct hl_job *hj)
{
    struct fj *j = (struct fj *)hj;
    if (!j->sin) {
        fft_var_execute(j->v, j->in, j->out);
        return;
    }
    if (j->sout == j->sin) {
        size_t n = j->nin > j->nout ? j->nin : j->nout;
        to_float(j->prec, j->in, j->sin, n);
    } else {
        to_float(j->prec, j->in, j->sin, j->nin);
        to_float(j->prec, j->out, j->sout, j->nout);   /* what lies between the outputs */
    }
    fft_var_execute(j->v, j->sin, j->sout);
    from_float(j->prec, j->sout, j->out, j->nout);
}

static void fini_fft(struct hl_job *hj)
{
    struct fj *j = (struct fj *)hj;
    if (j->v) {
        fft_var_unref(j->v);
    }
    if (j->sout != j->sin)
        free(j->sout);
    free(j->sin);
}

cufftResult fft_exec(struct fft_plan *p, void *in, void *out, int sign)
{
    if (!in || !out)
        return CUFFT_INVALID_VALUE;
    size_t scalar = fft_elem(p, 0);
    if ((uintptr_t)in % scalar || (uintptr_t)out % scalar)
        return CUFFT_INVALID_VALUE;
    int inplace = in == out;
    void *user_in = in, *user_out = out;
    struct fft_side is, os;
    int64_t span[2];
    if (fft_extents(p, inplace, &is, &os, span))
        return CUFFT_INVALID_VALUE;
    int64_t ibytes = span[0], obytes = span[1];
    /* LTO callbacks (callback.c): a load reads the input into scratch on
     * the emulated GPU and the FFT reads that; the FFT writes the output to
     * scratch, which a store hands to the callback. The program's arrays
     * are then the callbacks' to touch (the emulator checks their accesses) */
    int ld = p->cb[FCB_LOAD].set, st = p->cb[FCB_STORE].set;
    void *fin = in, *fout = out;
    if (ld && !(fin = fft_cb_tmp(p, 0, (size_t)ibytes)))
        return CUFFT_ALLOC_FAILED;
    if (st && !(fout = fft_cb_tmp(p, 1, (size_t)obytes)))
        return CUFFT_ALLOC_FAILED;
    /* tdtrace -e lib= shows it */
    hl_note(ld && st ? "FFTW, load and store callbacks on the emulated GPU"
            : ld     ? "FFTW, load callback on the emulated GPU"
            : st     ? "FFTW, store callback on the emulated GPU"
                     : "FFTW");
    struct fj *j = hl_job_new(sizeof *j, run_fft);
    if (!j)
        return CUFFT_ALLOC_FAILED;
    j->h.fini = fini_fft;
    j->in = in = fin;
    j->out = out = fout;
    j->prec = p->prec;
    if (hl_job_hold(&j->h, in, (size_t)ibytes) || hl_job_hold(&j->h, out, (size_t)obytes)) {
        hl_job_free(&j->h);
        return CUFFT_INVALID_VALUE;
    }
    void *pin = in, *pout = out;
    if (p->prec == FP_F16 || p->prec == FP_BF16) {
        j->nin = (size_t)ibytes / 2;
        j->nout = (size_t)obytes / 2;
        size_t nmax = j->nin > j->nout ? j->nin : j->nout;
        j->sin = malloc((inplace ? nmax : j->nin) * sizeof(float));
        j->sout = inplace ? j->sin : malloc(j->nout * sizeof(float));
        if (!j->sin || !j->sout) {
            hl_job_free(&j->h);
            return CUFFT_ALLOC_FAILED;
        }
        pin = j->sin;
        pout = j->sout;
    }
    j->v = fft_var_get(p, inplace, pin, pout, sign);
    if (!j->v) {
        hl_job_free(&j->h);
        return CUFFT_NOT_SUPPORTED;   /* a layout FFTW cannot plan (or no memory) */
    }
    j->h.capture = "cuFFT";   /* a graph being captured records it */
    if (ld && fft_cb_launch(p, FCB_LOAD, user_in, fin, &is) != 0) {
        hl_job_free(&j->h);
        return CUFFT_EXEC_FAILED;
    }
    switch (hl_job_submit(&j->h, p->stream, 0)) {
    case HL_SUBMITTED:
        if (st && fft_cb_launch(p, FCB_STORE, user_out, fout, &os) != 0)
            return CUFFT_EXEC_FAILED;
        return CUFFT_SUCCESS;
    case HL_CAPTURING: return CUFFT_NOT_SUPPORTED;   /* not expected: it never waits */
    case HL_SUBMIT_FAILED: break;
    }
    return CUFFT_EXEC_FAILED;
}

/* ---- entry points ---------------------------------------------------------- */
static cufftResult exec_checked(cufftHandle plan, enum fft_kind k, enum fft_prec pr, void *in, void *out,
                                int direction)
{
    struct fft_plan *p = fft_plan_get(plan);
    if (!p || !p->made)
        return CUFFT_INVALID_PLAN;
    if (p->kind != k || p->prec != pr)
        return CUFFT_INVALID_VALUE;   /* a plan of another type */
    if (k == FK_C2C && direction != CUFFT_FORWARD && direction != CUFFT_INVERSE)
        return CUFFT_INVALID_VALUE;
    return fft_exec(p, in, out, direction);
}

HL_EXPORT cufftResult cufftExecC2C(cufftHandle plan, cufftComplex *idata, cufftComplex *odata, int direction)
{
    return exec_checked(plan, FK_C2C, FP_F32, idata, odata, direction);
}

HL_EXPORT cufftResult cufftExecR2C(cufftHandle plan, cufftReal *idata, cufftComplex *odata)
{
    return exec_checked(plan, FK_R2C, FP_F32, idata, odata, CUFFT_FORWARD);
}

HL_EXPORT cufftResult cufftExecC2R(cufftHandle plan, cufftComplex *idata, cufftReal *odata)
{
    return exec_checked(plan, FK_C2R, FP_F32, idata, odata, CUFFT_INVERSE);
}

HL_EXPORT cufftResult cufftExecZ2Z(cufftHandle plan, cufftDoubleComplex *idata, cufftDoubleComplex *odata,
                                   int direction)
{
    return exec_checked(plan, FK_C2C, FP_F64, idata, odata, direction);
}

HL_EXPORT cufftResult cufftExecD2Z(cufftHandle plan, cufftDoubleReal *idata, cufftDoubleComplex *odata)
{
    return exec_checked(plan, FK_R2C, FP_F64, idata, odata, CUFFT_FORWARD);
}

HL_EXPORT cufftResult cufftExecZ2D(cufftHandle plan, cufftDoubleComplex *idata, cufftDoubleReal *odata)
{
    return exec_checked(plan, FK_C2R, FP_F64, idata, odata, CUFFT_INVERSE);
}

/* any plan's type and precision; the direction matters for C2C only */
HL_EXPORT cufftResult cufftXtExec(cufftHandle plan, void *input, void *output, int direction)
{
    struct fft_plan *p = fft_plan_get(plan);
    if (!p || !p->made)
        return CUFFT_INVALID_PLAN;
    return exec_checked(plan, p->kind, p->prec, input, output,
                        p->kind == FK_C2C ? direction : p->kind == FK_R2C ? CUFFT_FORWARD : CUFFT_INVERSE);
}
