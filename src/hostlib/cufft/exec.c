/* Executing cuFFT plans on FFTW, queued on the plan's stream.
 *
 * A plan's layout maps onto FFTW's guru64 interface as it is: each
 * dimension d has stride stride * prod_{j>d} embed_j, the batch is one
 * "howmany" dimension with the distance. cuFFT's directions are FFTW's
 * signs (CUFFT_FORWARD -1, CUFFT_INVERSE +1) and neither normalises.
 * FFTW plans (FFTW_ESTIMATE: the arrays are not touched while planning)
 * are made at the call for the arrays given, under one lock (FFTW's planner
 * is not thread-safe; its execute functions are), and kept per plan for
 * the next call with the same placement, alignment and sign: FFTW's
 * new-array execute functions need exactly that. Half and bfloat16 data are
 * converted to float scratch arrays (the whole span, gaps included, so a
 * strided output keeps what lies between its elements), transformed in
 * float and rounded back once, to nearest even. */
#include "fft.h"

#include <fftw3.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct fft_var {
    struct fft_var *next;
    int refs;                 /* the plan's and each queued job's; under planner */
    int inplace, ain, aout, sign;
    int dbl;
    enum fft_kind kind;
    fftwf_plan f;
    fftw_plan d;
};

static pthread_mutex_t planner = PTHREAD_MUTEX_INITIALIZER;

/* lock held */
static void var_unref(struct fft_var *v)
{
    if (--v->refs)
        return;
    if (v->dbl)
        fftw_destroy_plan(v->d);
    else
        fftwf_destroy_plan(v->f);
    free(v);
}

void fft_drop_vars(struct fft_plan *p)
{
    pthread_mutex_lock(&planner);
    for (struct fft_var *v = p->vars, *next; v; v = next) {
        next = v->next;
        var_unref(v);
    }
    p->vars = NULL;
    pthread_mutex_unlock(&planner);
}

/* an FFTW plan for these arrays, referenced for the caller; NULL if FFTW
 * cannot plan the layout or memory ran out */
static struct fft_var *var_get(struct fft_plan *p, int inplace, void *in, void *out, int sign)
{
    int dbl = p->prec == FP_F64;
    int ain = dbl ? fftw_alignment_of(in) : fftwf_alignment_of(in);
    int aout = dbl ? fftw_alignment_of(out) : fftwf_alignment_of(out);
    if (p->kind != FK_C2C)
        sign = 0;
    pthread_mutex_lock(&planner);
    struct fft_var *v;
    for (v = p->vars; v; v = v->next)
        if (v->inplace == inplace && v->ain == ain && v->aout == aout && v->sign == sign)
            break;
    if (!v && (v = calloc(1, sizeof *v))) {
        struct fft_side is, os;
        fft_sides(p, inplace, &is, &os);
        fftw_iodim64 dims[3], hm = { p->batch, is.dist, os.dist };
        for (int d = 0; d < p->rank; d++) {
            ptrdiff_t im = 1, om = 1;
            for (int j = d + 1; j < p->rank; j++) {
                im *= is.embed[j];
                om *= os.embed[j];
            }
            dims[d].n = p->n[d];
            dims[d].is = is.stride * im;
            dims[d].os = os.stride * om;
        }
        unsigned flags = FFTW_ESTIMATE;
        if (dbl) {
            switch (p->kind) {
            case FK_C2C: v->d = fftw_plan_guru64_dft(p->rank, dims, 1, &hm, in, out, sign, flags); break;
            case FK_R2C: v->d = fftw_plan_guru64_dft_r2c(p->rank, dims, 1, &hm, in, out, flags); break;
            case FK_C2R: v->d = fftw_plan_guru64_dft_c2r(p->rank, dims, 1, &hm, in, out, flags); break;
            }
        } else {
            /* fftwf_iodim64 has fftw_iodim64's layout */
            const fftwf_iodim64 *fd = (const fftwf_iodim64 *)dims, *fh = (const fftwf_iodim64 *)&hm;
            switch (p->kind) {
            case FK_C2C: v->f = fftwf_plan_guru64_dft(p->rank, fd, 1, fh, in, out, sign, flags); break;
            case FK_R2C: v->f = fftwf_plan_guru64_dft_r2c(p->rank, fd, 1, fh, in, out, flags); break;
            case FK_C2R: v->f = fftwf_plan_guru64_dft_c2r(p->rank, fd, 1, fh, in, out, flags); break;
            }
        }
        if (dbl ? !v->d : !v->f) {
            free(v);
            v = NULL;
        } else {
            v->inplace = inplace;
            v->ain = ain;
            v->aout = aout;
            v->sign = sign;
            v->dbl = dbl;
            v->kind = p->kind;
            v->refs = 1;   /* the plan's */
            v->next = p->vars;
            p->vars = v;
        }
    }
    if (v)
        v->refs++;
    pthread_mutex_unlock(&planner);
    return v;
}

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

static void execute(const struct fft_var *v, void *in, void *out)
{
    if (v->dbl) {
        switch (v->kind) {
        case FK_C2C: fftw_execute_dft(v->d, in, out); break;
        case FK_R2C: fftw_execute_dft_r2c(v->d, in, out); break;
        case FK_C2R: fftw_execute_dft_c2r(v->d, in, out); break;
        }
    } else {
        switch (v->kind) {
        case FK_C2C: fftwf_execute_dft(v->f, in, out); break;
        case FK_R2C: fftwf_execute_dft_r2c(v->f, in, out); break;
        case FK_C2R: fftwf_execute_dft_c2r(v->f, in, out); break;
        }
    }
}

static void run_fft(struct hl_job *hj)
{
    struct fj *j = (struct fj *)hj;
    if (!j->sin) {
        execute(j->v, j->in, j->out);
        return;
    }
    if (j->sout == j->sin) {
        size_t n = j->nin > j->nout ? j->nin : j->nout;
        to_float(j->prec, j->in, j->sin, n);
    } else {
        to_float(j->prec, j->in, j->sin, j->nin);
        to_float(j->prec, j->out, j->sout, j->nout);   /* what lies between the outputs */
    }
    execute(j->v, j->sin, j->sout);
    from_float(j->prec, j->sout, j->out, j->nout);
}

static void fini_fft(struct hl_job *hj)
{
    struct fj *j = (struct fj *)hj;
    if (j->v) {
        pthread_mutex_lock(&planner);
        var_unref(j->v);
        pthread_mutex_unlock(&planner);
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
    struct fft_side is, os;
    fft_sides(p, inplace, &is, &os);
    int64_t ibytes = fft_span(p, &is, fft_elem(p, p->kind != FK_R2C));
    int64_t obytes = fft_span(p, &os, fft_elem(p, p->kind != FK_C2R));
    struct fj *j = hl_job_new(sizeof *j, run_fft);
    if (!j)
        return CUFFT_ALLOC_FAILED;
    j->h.fini = fini_fft;
    j->in = in;
    j->out = out;
    j->prec = p->prec;
    if (ibytes < 0 || obytes < 0 || hl_job_hold(&j->h, in, (size_t)ibytes) || hl_job_hold(&j->h, out, (size_t)obytes)) {
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
    j->v = var_get(p, inplace, pin, pout, sign);
    if (!j->v) {
        hl_job_free(&j->h);
        return CUFFT_NOT_SUPPORTED;   /* a layout FFTW cannot plan (or no memory) */
    }
    switch (hl_job_submit(&j->h, p->stream, 0)) {
    case HL_SUBMITTED: return CUFFT_SUCCESS;
    case HL_CAPTURING: return CUFFT_NOT_SUPPORTED;
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
