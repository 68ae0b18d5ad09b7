/* SPDX-License-Identifier: Apache-2.0 */
/* cuFFT handles and plans: creation, the plan functions (1-D, 2-D, 3-D,
 * many, 64-bit and Xt forms) with their checks, work-area sizes (none is
 * needed), streams, work areas, plan properties, versions.
 *
 * Handles are small integers, never reused: a destroyed or made-up one is
 * CUFFT_INVALID_PLAN. */
#include "fft.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define VER_MAJOR 12
#define VER_MINOR 0
#define VER_PATCH 0

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct fft_plan **plans;   /* handle h is plans[h - 1] */
static int nplans, capplans;

struct fft_plan *fft_plan_get(cufftHandle h)
{
    struct fft_plan *p = NULL;
    pthread_mutex_lock(&lock);
    if (h >= 1 && h <= nplans)
        p = plans[h - 1];
    pthread_mutex_unlock(&lock);
    return p;
}

HL_EXPORT cufftResult cufftCreate(cufftHandle *handle)
{
    if (!handle)
        return CUFFT_INVALID_VALUE;
    if (hl_init() != HL_OK)
        return CUFFT_SETUP_FAILED;
    struct fft_plan *p = calloc(1, sizeof *p);
    if (!p)
        return CUFFT_ALLOC_FAILED;
    p->auto_alloc = 1;
    p->host_threads = 1;
    cufftResult r = CUFFT_SUCCESS;
    pthread_mutex_lock(&lock);
    if (nplans == capplans) {
        int cap = capplans ? capplans * 2 : 64;
        struct fft_plan **n = cap > 0 ? realloc(plans, (size_t)cap * sizeof *n) : NULL;
        if (n) {
            plans = n;
            capplans = cap;
        }
    }
    if (nplans < capplans) {
        plans[nplans++] = p;
        *handle = nplans;
    } else {
        r = CUFFT_ALLOC_FAILED;
    }
    pthread_mutex_unlock(&lock);
    if (r)
        free(p);
    return r;
}

HL_EXPORT cufftResult cufftDestroy(cufftHandle plan)
{
    if (plan == CUFFT_PLAN_NULL)
        return CUFFT_SUCCESS;
    struct fft_plan *p = NULL;
    pthread_mutex_lock(&lock);
    if (plan >= 1 && plan <= nplans) {
        p = plans[plan - 1];
        plans[plan - 1] = NULL;
    }
    pthread_mutex_unlock(&lock);
    if (!p)
        return CUFFT_INVALID_PLAN;
    fft_drop_vars(p);
    fft_cb_drop(p);
    free(p);
    return CUFFT_SUCCESS;
}

/* ---- making plans -------------------------------------------------------- */
static int kind_of(cufftType t, enum fft_kind *k, enum fft_prec *pr)
{
    switch (t) {
    case CUFFT_C2C: *k = FK_C2C; *pr = FP_F32; return 0;
    case CUFFT_R2C: *k = FK_R2C; *pr = FP_F32; return 0;
    case CUFFT_C2R: *k = FK_C2R; *pr = FP_F32; return 0;
    case CUFFT_Z2Z: *k = FK_C2C; *pr = FP_F64; return 0;
    case CUFFT_D2Z: *k = FK_R2C; *pr = FP_F64; return 0;
    case CUFFT_Z2D: *k = FK_C2R; *pr = FP_F64; return 0;
    }
    return -1;
}

/* cufftXtMakePlanMany's (input, output, execution) types */
static int xt_kind_of(cudaDataType it, cudaDataType ot, cudaDataType et, enum fft_kind *k, enum fft_prec *pr)
{
    static const struct { cudaDataType real, cplx; enum fft_prec prec; } precs[] = {
        { CUDA_R_16F, CUDA_C_16F, FP_F16 },
        { CUDA_R_16BF, CUDA_C_16BF, FP_BF16 },
        { CUDA_R_32F, CUDA_C_32F, FP_F32 },
        { CUDA_R_64F, CUDA_C_64F, FP_F64 },
    };
    for (size_t i = 0; i < sizeof precs / sizeof *precs; i++) {
        if (et != precs[i].cplx)
            continue;
        *pr = precs[i].prec;
        if (it == precs[i].cplx && ot == precs[i].cplx)
            *k = FK_C2C;
        else if (it == precs[i].real && ot == precs[i].cplx)
            *k = FK_R2C;
        else if (it == precs[i].cplx && ot == precs[i].real)
            *k = FK_C2R;
        else
            return -1;
        return 0;
    }
    return -1;
}

/* A transform's description, checked: sizes positive (CUFFT_INVALID_SIZE),
 * rank 1 to 3 and the advanced layout's strides and distances positive
 * (CUFFT_INVALID_VALUE). The basic layout is used when inembed or onembed
 * is NULL, as cuFFT documents. */
static cufftResult describe(struct fft_plan *p, int rank, const long long *n, const long long *inembed,
                            long long istride, long long idist, const long long *onembed, long long ostride,
                            long long odist, enum fft_kind k, enum fft_prec pr, long long batch)
{
    if (rank < 1 || rank > 3 || !n)
        return CUFFT_INVALID_VALUE;
    memset(p->n, 0, sizeof p->n);
    for (int d = 0; d < rank; d++) {
        if (n[d] <= 0)
            return CUFFT_INVALID_SIZE;
        p->n[d] = n[d];
    }
    if (batch <= 0)
        return CUFFT_INVALID_SIZE;
    p->advanced = inembed && onembed;
    if (p->advanced) {
        if (istride <= 0 || ostride <= 0 || idist <= 0 || odist <= 0)
            return CUFFT_INVALID_VALUE;
        for (int d = 0; d < rank; d++) {
            if (inembed[d] <= 0 || onembed[d] <= 0)
                return CUFFT_INVALID_SIZE;
            p->inembed[d] = inembed[d];
            p->onembed[d] = onembed[d];
        }
        p->istride = istride;
        p->idist = idist;
        p->ostride = ostride;
        p->odist = odist;
    }
    p->rank = rank;
    p->kind = k;
    p->prec = pr;
    p->batch = batch;
    /* every execution's extents must be computable */
    struct fft_side in, out;
    int64_t span[2];
    for (int inplace = 0; inplace < 2; inplace++)
        if (fft_extents(p, inplace, &in, &out, span))
            return CUFFT_INVALID_SIZE;
    return CUFFT_SUCCESS;
}

/* make (or, with make 0, only check and size) a plan */
static cufftResult make(cufftHandle h, int rank, const long long *n, const long long *inembed, long long istride,
                        long long idist, const long long *onembed, long long ostride, long long odist,
                        enum fft_kind k, enum fft_prec pr, long long batch, size_t *workSize, int do_make)
{
    /* a plan is made once; its sizes may be asked for any time */
    struct fft_plan *p = fft_plan_get(h);
    if (!p || (do_make && p->made))
        return CUFFT_INVALID_PLAN;
    cufftResult r;
    struct fft_plan tmp = *p;
    if ((r = describe(&tmp, rank, n, inembed, istride, idist, onembed, ostride, odist, k, pr, batch)))
        return r;
    if (do_make && (r = fft_cb_fits(&tmp)))   /* LTO callbacks set before: their types */
        return r;
    if (do_make) {
        *p = tmp;
        p->made = 1;
        if ((r = fft_cb_prepare(p))) {   /* the callbacks' scratch */
            p->made = 0;
            return r;
        }
    }
    if (workSize)
        workSize[0] = 0;   /* FFTW's plans need no work area of the program's */
    return CUFFT_SUCCESS;
}

static void widen(int rank, const int *in, long long *out)
{
    for (int d = 0; d < rank && d < 3; d++)
        out[d] = in[d];
}

/* the int forms: n, inembed, onembed widened (rank checked first) */
#define WIDE3(rank, n, inembed, onembed)                                                  \
    long long n64[3] = { 0 }, in64[3] = { 0 }, on64[3] = { 0 };                          \
    if ((rank) >= 1 && (rank) <= 3) {                                                     \
        if (n)                                                                            \
            widen(rank, n, n64);                                                          \
        if (inembed)                                                                      \
            widen(rank, inembed, in64);                                                   \
        if (onembed)                                                                      \
            widen(rank, onembed, on64);                                                   \
    }

HL_EXPORT cufftResult cufftMakePlanMany64(cufftHandle plan, int rank, long long int *n, long long int *inembed,
                                          long long int istride, long long int idist, long long int *onembed,
                                          long long int ostride, long long int odist, cufftType type,
                                          long long int batch, size_t *workSize)
{
    enum fft_kind k;
    enum fft_prec pr;
    if (!fft_plan_get(plan))
        return CUFFT_INVALID_PLAN;
    if (kind_of(type, &k, &pr))
        return CUFFT_INVALID_TYPE;
    return make(plan, rank, n, inembed, istride, idist, onembed, ostride, odist, k, pr, batch, workSize, 1);
}

HL_EXPORT cufftResult cufftGetSizeMany64(cufftHandle plan, int rank, long long int *n, long long int *inembed,
                                         long long int istride, long long int idist, long long int *onembed,
                                         long long int ostride, long long int odist, cufftType type,
                                         long long int batch, size_t *workSize)
{
    enum fft_kind k;
    enum fft_prec pr;
    if (!fft_plan_get(plan))
        return CUFFT_INVALID_PLAN;
    if (kind_of(type, &k, &pr))
        return CUFFT_INVALID_TYPE;
    if (!workSize)
        return CUFFT_INVALID_VALUE;
    return make(plan, rank, n, inembed, istride, idist, onembed, ostride, odist, k, pr, batch, workSize, 0);
}

HL_EXPORT cufftResult cufftMakePlanMany(cufftHandle plan, int rank, int *n, int *inembed, int istride, int idist,
                                        int *onembed, int ostride, int odist, cufftType type, int batch,
                                        size_t *workSize)
{
    WIDE3(rank, n, inembed, onembed)
    return cufftMakePlanMany64(plan, rank, n ? n64 : NULL, inembed ? in64 : NULL, istride, idist,
                               onembed ? on64 : NULL, ostride, odist, type, batch, workSize);
}

HL_EXPORT cufftResult cufftGetSizeMany(cufftHandle handle, int rank, int *n, int *inembed, int istride, int idist,
                                       int *onembed, int ostride, int odist, cufftType type, int batch,
                                       size_t *workArea)
{
    WIDE3(rank, n, inembed, onembed)
    return cufftGetSizeMany64(handle, rank, n ? n64 : NULL, inembed ? in64 : NULL, istride, idist,
                              onembed ? on64 : NULL, ostride, odist, type, batch, workArea);
}

HL_EXPORT cufftResult cufftMakePlan1d(cufftHandle plan, int nx, cufftType type, int batch, size_t *workSize)
{
    return cufftMakePlanMany(plan, 1, &nx, NULL, 1, 0, NULL, 1, 0, type, batch, workSize);
}

HL_EXPORT cufftResult cufftMakePlan2d(cufftHandle plan, int nx, int ny, cufftType type, size_t *workSize)
{
    int n[2] = { nx, ny };
    return cufftMakePlanMany(plan, 2, n, NULL, 1, 0, NULL, 1, 0, type, 1, workSize);
}

HL_EXPORT cufftResult cufftMakePlan3d(cufftHandle plan, int nx, int ny, int nz, cufftType type, size_t *workSize)
{
    int n[3] = { nx, ny, nz };
    return cufftMakePlanMany(plan, 3, n, NULL, 1, 0, NULL, 1, 0, type, 1, workSize);
}

HL_EXPORT cufftResult cufftGetSize1d(cufftHandle handle, int nx, cufftType type, int batch, size_t *workSize)
{
    return cufftGetSizeMany(handle, 1, &nx, NULL, 1, 0, NULL, 1, 0, type, batch, workSize);
}

HL_EXPORT cufftResult cufftGetSize2d(cufftHandle handle, int nx, int ny, cufftType type, size_t *workSize)
{
    int n[2] = { nx, ny };
    return cufftGetSizeMany(handle, 2, n, NULL, 1, 0, NULL, 1, 0, type, 1, workSize);
}

HL_EXPORT cufftResult cufftGetSize3d(cufftHandle handle, int nx, int ny, int nz, cufftType type, size_t *workSize)
{
    int n[3] = { nx, ny, nz };
    return cufftGetSizeMany(handle, 3, n, NULL, 1, 0, NULL, 1, 0, type, 1, workSize);
}

HL_EXPORT cufftResult cufftXtMakePlanMany(cufftHandle plan, int rank, long long int *n, long long int *inembed,
                                          long long int istride, long long int idist, cudaDataType inputtype,
                                          long long int *onembed, long long int ostride, long long int odist,
                                          cudaDataType outputtype, long long int batch, size_t *workSize,
                                          cudaDataType executiontype)
{
    enum fft_kind k;
    enum fft_prec pr;
    if (!fft_plan_get(plan))
        return CUFFT_INVALID_PLAN;
    if (xt_kind_of(inputtype, outputtype, executiontype, &k, &pr))
        return CUFFT_INVALID_TYPE;
    return make(plan, rank, n, inembed, istride, idist, onembed, ostride, odist, k, pr, batch, workSize, 1);
}

HL_EXPORT cufftResult cufftXtGetSizeMany(cufftHandle plan, int rank, long long int *n, long long int *inembed,
                                         long long int istride, long long int idist, cudaDataType inputtype,
                                         long long int *onembed, long long int ostride, long long int odist,
                                         cudaDataType outputtype, long long int batch, size_t *workSize,
                                         cudaDataType executiontype)
{
    enum fft_kind k;
    enum fft_prec pr;
    if (!fft_plan_get(plan))
        return CUFFT_INVALID_PLAN;
    if (xt_kind_of(inputtype, outputtype, executiontype, &k, &pr))
        return CUFFT_INVALID_TYPE;
    if (!workSize)
        return CUFFT_INVALID_VALUE;
    return make(plan, rank, n, inembed, istride, idist, onembed, ostride, odist, k, pr, batch, workSize, 0);
}

/* create and make; the handle is written only on success */
static cufftResult plan_new(cufftHandle *plan, int rank, int *n, int *inembed, int istride, int idist,
                            int *onembed, int ostride, int odist, cufftType type, int batch)
{
    if (!plan)
        return CUFFT_INVALID_VALUE;
    cufftHandle h;
    cufftResult r = cufftCreate(&h);
    if (r)
        return r;
    r = cufftMakePlanMany(h, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch, NULL);
    if (r) {
        cufftDestroy(h);
        return r;
    }
    *plan = h;
    return CUFFT_SUCCESS;
}

HL_EXPORT cufftResult cufftPlan1d(cufftHandle *plan, int nx, cufftType type, int batch)
{
    return plan_new(plan, 1, &nx, NULL, 1, 0, NULL, 1, 0, type, batch);
}

HL_EXPORT cufftResult cufftPlan2d(cufftHandle *plan, int nx, int ny, cufftType type)
{
    int n[2] = { nx, ny };
    return plan_new(plan, 2, n, NULL, 1, 0, NULL, 1, 0, type, 1);
}

HL_EXPORT cufftResult cufftPlan3d(cufftHandle *plan, int nx, int ny, int nz, cufftType type)
{
    int n[3] = { nx, ny, nz };
    return plan_new(plan, 3, n, NULL, 1, 0, NULL, 1, 0, type, 1);
}

HL_EXPORT cufftResult cufftPlanMany(cufftHandle *plan, int rank, int *n, int *inembed, int istride, int idist,
                                    int *onembed, int ostride, int odist, cufftType type, int batch)
{
    return plan_new(plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch);
}

/* ---- estimates, sizes, work areas ------------------------------------------ */
/* the checks of a plan function without a handle: a scratch plan */
static cufftResult estimate(int rank, int *n, int *inembed, int istride, int idist, int *onembed, int ostride,
                            int odist, cufftType type, int batch, size_t *workSize)
{
    enum fft_kind k;
    enum fft_prec pr;
    if (!workSize)
        return CUFFT_INVALID_VALUE;
    if (kind_of(type, &k, &pr))
        return CUFFT_INVALID_TYPE;
    WIDE3(rank, n, inembed, onembed)
    struct fft_plan tmp;
    memset(&tmp, 0, sizeof tmp);
    cufftResult r = describe(&tmp, rank, n ? n64 : NULL, inembed ? in64 : NULL, istride, idist,
                             onembed ? on64 : NULL, ostride, odist, k, pr, batch);
    if (r)
        return r;
    *workSize = 0;
    return CUFFT_SUCCESS;
}

HL_EXPORT cufftResult cufftEstimate1d(int nx, cufftType type, int batch, size_t *workSize)
{
    return estimate(1, &nx, NULL, 1, 0, NULL, 1, 0, type, batch, workSize);
}

HL_EXPORT cufftResult cufftEstimate2d(int nx, int ny, cufftType type, size_t *workSize)
{
    int n[2] = { nx, ny };
    return estimate(2, n, NULL, 1, 0, NULL, 1, 0, type, 1, workSize);
}

HL_EXPORT cufftResult cufftEstimate3d(int nx, int ny, int nz, cufftType type, size_t *workSize)
{
    int n[3] = { nx, ny, nz };
    return estimate(3, n, NULL, 1, 0, NULL, 1, 0, type, 1, workSize);
}

HL_EXPORT cufftResult cufftEstimateMany(int rank, int *n, int *inembed, int istride, int idist, int *onembed,
                                        int ostride, int odist, cufftType type, int batch, size_t *workSize)
{
    return estimate(rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch, workSize);
}

HL_EXPORT cufftResult cufftGetSize(cufftHandle handle, size_t *workSize)
{
    if (!fft_plan_get(handle))
        return CUFFT_INVALID_PLAN;
    if (!workSize)
        return CUFFT_INVALID_VALUE;
    *workSize = 0;
    return CUFFT_SUCCESS;
}

/* the work area is kept (and never used: FFTW needs none of the program's) */
HL_EXPORT cufftResult cufftSetWorkArea(cufftHandle plan, void *workArea)
{
    struct fft_plan *p = fft_plan_get(plan);
    if (!p)
        return CUFFT_INVALID_PLAN;
    p->work = workArea;
    return CUFFT_SUCCESS;
}

HL_EXPORT cufftResult cufftSetAutoAllocation(cufftHandle plan, int autoAllocate)
{
    struct fft_plan *p = fft_plan_get(plan);
    if (!p)
        return CUFFT_INVALID_PLAN;
    p->auto_alloc = autoAllocate != 0;
    return CUFFT_SUCCESS;
}

HL_EXPORT cufftResult cufftXtSetWorkAreaPolicy(cufftHandle plan, cufftXtWorkAreaPolicy policy, size_t *workSize)
{
    struct fft_plan *p = fft_plan_get(plan);
    if (!p)
        return CUFFT_INVALID_PLAN;
    if (policy != CUFFT_WORKAREA_MINIMAL && policy != CUFFT_WORKAREA_USER && policy != CUFFT_WORKAREA_PERFORMANCE)
        return CUFFT_INVALID_VALUE;
    if (policy == CUFFT_WORKAREA_USER && !workSize)
        return CUFFT_INVALID_VALUE;
    return CUFFT_SUCCESS;   /* every policy is met: no work area is used */
}

HL_EXPORT cufftResult cufftSetStream(cufftHandle plan, cudaStream_t stream)
{
    struct fft_plan *p = fft_plan_get(plan);
    if (!p)
        return CUFFT_INVALID_PLAN;
    p->stream = (CUstream)stream;
    return CUFFT_SUCCESS;
}

/* ---- properties, versions --------------------------------------------------- */
static long long *property(struct fft_plan *p, cufftProperty prop)
{
    switch (prop) {
    case NVFFT_PLAN_PROPERTY_INT64_PATIENT_JIT: return &p->patient_jit;
    case NVFFT_PLAN_PROPERTY_INT64_MAX_NUM_HOST_THREADS: return &p->host_threads;
    }
    return NULL;
}

HL_EXPORT cufftResult cufftSetPlanPropertyInt64(cufftHandle plan, cufftProperty prop, const long long int value)
{
    struct fft_plan *p = fft_plan_get(plan);
    if (!p)
        return CUFFT_INVALID_PLAN;
    long long *v = property(p, prop);
    if (!v || value < 0 || (prop == NVFFT_PLAN_PROPERTY_INT64_PATIENT_JIT && value > 1) ||
        (prop == NVFFT_PLAN_PROPERTY_INT64_MAX_NUM_HOST_THREADS && value < 1))
        return CUFFT_INVALID_VALUE;
    *v = value;   /* kept: no JIT here, and FFTW runs one thread per plan */
    return CUFFT_SUCCESS;
}

HL_EXPORT cufftResult cufftGetPlanPropertyInt64(cufftHandle plan, cufftProperty prop, long long int *value)
{
    struct fft_plan *p = fft_plan_get(plan);
    if (!p)
        return CUFFT_INVALID_PLAN;
    long long *v = property(p, prop);
    if (!v || !value)
        return CUFFT_INVALID_VALUE;
    *value = *v;
    return CUFFT_SUCCESS;
}

HL_EXPORT cufftResult cufftResetPlanProperty(cufftHandle plan, cufftProperty prop)
{
    struct fft_plan *p = fft_plan_get(plan);
    if (!p)
        return CUFFT_INVALID_PLAN;
    long long *v = property(p, prop);
    if (!v)
        return CUFFT_INVALID_VALUE;
    *v = prop == NVFFT_PLAN_PROPERTY_INT64_MAX_NUM_HOST_THREADS ? 1 : 0;
    return CUFFT_SUCCESS;
}

HL_EXPORT cufftResult cufftGetVersion(int *version)
{
    if (!version)
        return CUFFT_INVALID_VALUE;
    *version = VER_MAJOR * 1000 + VER_MINOR * 100 + VER_PATCH;
    return CUFFT_SUCCESS;
}

HL_EXPORT cufftResult cufftGetProperty(libraryPropertyType type, int *value)
{
    if (!value)
        return CUFFT_INVALID_VALUE;
    switch (type) {
    case MAJOR_VERSION: *value = VER_MAJOR; return CUFFT_SUCCESS;
    case MINOR_VERSION: *value = VER_MINOR; return CUFFT_SUCCESS;
    case PATCH_LEVEL: *value = VER_PATCH; return CUFFT_SUCCESS;
    }
    return CUFFT_INVALID_TYPE;   /* as NVIDIA's */
}
