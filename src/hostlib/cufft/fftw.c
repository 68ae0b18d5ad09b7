/* SPDX-License-Identifier: Apache-2.0 */
/* The FFTW plans behind a cuFFT plan: made at the call for the arrays
 * given (FFTW_ESTIMATE, under one lock: FFTW's planner is not
 * thread-safe, its execute functions are), kept per plan for the next call
 * with the same placement, alignment and sign (FFTW's new-array execute
 * functions need exactly that), referenced by each queued job. */
#include "fft.h"

#include <fftw3.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct fft_var {
    struct fft_var *next;
    int refs;                 /* the plan's and each queued job's; under planner */
    int inplace, same, ain, aout, sign;   /* same: in == out (a callback's scratch separates them) */
    int dbl;
    enum fft_kind kind;
    fftwf_plan f;
    fftw_plan d;
};

static pthread_mutex_t planner = PTHREAD_MUTEX_INITIALIZER;

/* lock held */
static void var_unref_locked(struct fft_var *v)
{
    if (--v->refs)
        return;
    if (v->dbl)
        fftw_destroy_plan(v->d);
    else
        fftwf_destroy_plan(v->f);
    free(v);
}

void fft_var_unref(struct fft_var *v)
{
    pthread_mutex_lock(&planner);
    var_unref_locked(v);
    pthread_mutex_unlock(&planner);
}

void fft_drop_vars(struct fft_plan *p)
{
    pthread_mutex_lock(&planner);
    for (struct fft_var *v = p->vars, *next; v; v = next) {
        next = v->next;
        var_unref_locked(v);
    }
    p->vars = NULL;
    pthread_mutex_unlock(&planner);
}

/* an FFTW plan for these arrays, referenced for the caller; NULL if FFTW
 * cannot plan the layout or memory ran out */
struct fft_var *fft_var_get(struct fft_plan *p, int inplace, void *in, void *out, int sign)
{
    int dbl = p->prec == FP_F64;
    int ain = dbl ? fftw_alignment_of(in) : fftwf_alignment_of(in);
    int aout = dbl ? fftw_alignment_of(out) : fftwf_alignment_of(out);
    if (p->kind != FK_C2C)
        sign = 0;
    pthread_mutex_lock(&planner);
    struct fft_var *v;
    for (v = p->vars; v; v = v->next)
        if (v->inplace == inplace && v->same == (in == out) && v->ain == ain && v->aout == aout && v->sign == sign)
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
            v->same = in == out;
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

void fft_var_execute(const struct fft_var *v, void *in, void *out)
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
