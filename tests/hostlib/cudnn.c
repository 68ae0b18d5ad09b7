/* SPDX-License-Identifier: Apache-2.0 */
/* The host cuDNN (build/lib/tdtrace/host/libcudnn.so.9) on the emulated GPU,
 * built against tdtrace's own declarations (src/hostlib/cudnn/cudnn_api.h):
 * convolutions (forward, backward data, backward filter, bias-activation
 * forward, bias gradient), pooling, activation, softmax, batch
 * normalization and the tensor operations, in NCHW, NHWC and strided
 * layouts, float, half and bfloat16 (double where the operation has it),
 * against plain double loops on the host. Inputs are multiples of 1/64 in
 * [-1, 1) (exact in every type). Tolerances, relative to 1 + |reference|:
 * float 1e-4, half 2e-3, bfloat16 1.6e-2, double 1e-11. Also the algorithm
 * queries, stream order and bad input.
 *
 *   LD_LIBRARY_PATH=build/lib/tdtrace/emu:build/lib/tdtrace/host ./cudnn */
#include <unistd.h>

#include "check.h"
#include "cudnn_api.h"

static cudnnHandle_t h;

#define CD(call) ST(call, CUDNN_STATUS_SUCCESS)

/* ---- host tensors ----------------------------------------------------------- */
static size_t tsize(cudnnDataType_t t)
{
    return t == CUDNN_DATA_DOUBLE ? 8 : t == CUDNN_DATA_FLOAT ? 4 : 2;
}

static double tol_of(cudnnDataType_t t)
{
    return t == CUDNN_DATA_HALF ? 2e-3 : t == CUDNN_DATA_BFLOAT16 ? 1.6e-2 : t == CUDNN_DATA_FLOAT ? 1e-4 : 1e-11;
}

static double dec_half(uint16_t v)
{
    int e = (v >> 10) & 31, m = v & 1023;
    double r = e ? ldexp(1024 + m, e - 25) : ldexp(m, -24);
    return v & 0x8000 ? -r : r;
}

/* to half, nearest even (normal range and zero) */
static uint16_t enc_half(double v)
{
    uint16_t s = v < 0 ? 0x8000 : 0;
    v = fabs(v);
    if (v < ldexp(1, -14))
        return (uint16_t)(s | (uint16_t)rint(ldexp(v, 24)));
    int e;
    frexp(v, &e);
    double m = rint(ldexp(v, 11 - e));
    if (m >= 2048) {
        m /= 2;
        e++;
    }
    if (e + 14 >= 31)
        return (uint16_t)(s | 0x7c00);
    return (uint16_t)(s | ((e + 14) << 10) | ((int)m & 1023));
}

static double dec_bf16(uint16_t b)
{
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* to bfloat16, nearest even, by arithmetic */
static uint16_t enc_bf16(double v)
{
    float f = (float)v;
    if (f != 0 && isfinite(f)) {
        int e;
        frexp(f, &e);
        f = (float)ldexp(rint(ldexp(f, 8 - e)), e - 8);
    }
    uint32_t u;
    memcpy(&u, &f, 4);
    return (uint16_t)(u >> 16);
}

static void put(cudnnDataType_t t, void *p, size_t i, double v)
{
    switch ((int)t) {
    case CUDNN_DATA_HALF: ((uint16_t *)p)[i] = enc_half(v); break;
    case CUDNN_DATA_BFLOAT16: ((uint16_t *)p)[i] = enc_bf16(v); break;
    case CUDNN_DATA_FLOAT: ((float *)p)[i] = (float)v; break;
    default: ((double *)p)[i] = v; break;
    }
}

static double get(cudnnDataType_t t, const void *p, size_t i)
{
    switch ((int)t) {
    case CUDNN_DATA_HALF: return dec_half(((const uint16_t *)p)[i]);
    case CUDNN_DATA_BFLOAT16: return dec_bf16(((const uint16_t *)p)[i]);
    case CUDNN_DATA_FLOAT: return ((const float *)p)[i];
    default: return ((const double *)p)[i];
    }
}

static double rval(void)
{
    return floor(urand() * 64) / 64;
}

enum lay { NCHW, NHWC, PADDED };

/* a tensor: logical values v (row-major N, C, ...), device memory laid out
 * as lay says (PADDED: NCHW with gaps between rows and images) */
struct ten {
    cudnnDataType_t type;
    int nb, dim[5];
    int stride[5];
    size_t span;                  /* elements the layout spans */
    int64_t count;
    double *v;
    void *d;
    cudnnTensorDescriptor_t desc;
};

static int64_t lin_to_off(const struct ten *t, int64_t i)
{
    int64_t off = 0;
    for (int d = t->nb - 1; d >= 0; d--) {
        off += (i % t->dim[d]) * t->stride[d];
        i /= t->dim[d];
    }
    return off;
}

static void ten_make(struct ten *t, cudnnDataType_t type, int nb, const int *dim, enum lay lay, int fill)
{
    memset(t, 0, sizeof *t);
    t->type = type;
    t->nb = nb;
    memcpy(t->dim, dim, (size_t)nb * sizeof *dim);
    t->count = 1;
    for (int d = 0; d < nb; d++)
        t->count *= dim[d];
    /* strides */
    int64_t s = 1;
    if (lay == NHWC) {
        t->stride[1] = 1;
        s = dim[1];
        for (int d = nb - 1; d >= 2; d--) {
            t->stride[d] = (int)s;
            s *= dim[d];
        }
        t->stride[0] = (int)s;
    } else {
        int pad = lay == PADDED ? 3 : 0;
        for (int d = nb - 1; d >= 0; d--) {
            t->stride[d] = (int)s;
            s = s * dim[d] + (d == nb - 1 || d == 1 ? pad : 0);
        }
    }
    t->span = 1;
    for (int d = 0; d < nb; d++)
        t->span += (size_t)(dim[d] - 1) * (size_t)t->stride[d];
    t->v = malloc((size_t)t->count * sizeof *t->v);
    unsigned char *buf = malloc(t->span * tsize(type));
    for (size_t i = 0; i < t->span; i++)
        put(type, buf, i, rval());   /* the gaps get values too: they must stay */
    for (int64_t i = 0; i < t->count; i++) {
        t->v[i] = fill ? rval() : 0;
        put(type, buf, (size_t)lin_to_off(t, i), t->v[i]);
    }
    t->d = dalloc(t->span * tsize(type));
    DRV(cuMemcpyHtoD_v2((CUdeviceptr)(uintptr_t)t->d, buf, t->span * tsize(type)));
    free(buf);
    CD(cudnnCreateTensorDescriptor(&t->desc));
    if (lay == NCHW && nb == 4)
        CD(cudnnSetTensor4dDescriptor(t->desc, CUDNN_TENSOR_NCHW, type, dim[0], dim[1], dim[2], dim[3]));
    else if (lay == NHWC)
        CD(cudnnSetTensorNdDescriptorEx(t->desc, CUDNN_TENSOR_NHWC, type, nb, dim));
    else
        CD(cudnnSetTensorNdDescriptor(t->desc, type, nb, dim, t->stride));
}

/* the device values: logical ones into got; 0 if every gap kept its value */
static int ten_down(const struct ten *t, double *got, const unsigned char *before)
{
    unsigned char *buf = malloc(t->span * tsize(t->type));
    DRV(cuMemcpyDtoH_v2(buf, (CUdeviceptr)(uintptr_t)t->d, t->span * tsize(t->type)));
    char *is = calloc(t->span, 1);
    for (int64_t i = 0; i < t->count; i++) {
        int64_t o = lin_to_off(t, i);
        got[i] = get(t->type, buf, (size_t)o);
        is[o] = 1;
    }
    int bad_gap = 0;
    for (size_t i = 0; before && i < t->span; i++)
        if (!is[i] && memcmp(buf + i * tsize(t->type), before + i * tsize(t->type), tsize(t->type)))
            bad_gap = 1;
    free(buf);
    free(is);
    return bad_gap;
}

static unsigned char *ten_raw(const struct ten *t)
{
    unsigned char *buf = malloc(t->span * tsize(t->type));
    DRV(cuMemcpyDtoH_v2(buf, (CUdeviceptr)(uintptr_t)t->d, t->span * tsize(t->type)));
    return buf;
}

static void ten_free(struct ten *t)
{
    free(t->v);
    DRV(cuMemFree_v2((CUdeviceptr)(uintptr_t)t->d));
    CD(cudnnDestroyTensorDescriptor(t->desc));
}

/* compares t's device values with want (and that its gaps are untouched) */
static void ten_check(const char *what, const struct ten *t, const double *want, const unsigned char *before,
                      double tol)
{
    double *got = malloc((size_t)t->count * sizeof *got);
    if (ten_down(t, got, before))
        bad("%s: an element outside the tensor was written", what);
    close_d(what, got, want, (size_t)t->count, tol);
    free(got);
}

/* scaling factors: double for double data, float otherwise */
union sc { float f; double d; };
static union sc scl(cudnnDataType_t t, double v)
{
    union sc s;
    if (t == CUDNN_DATA_DOUBLE)
        s.d = v;
    else
        s.f = (float)v;
    return s;
}

/* ---- convolutions ------------------------------------------------------------ */
struct cc {
    cudnnDataType_t type;
    int nsp, n, c, k, groups;
    int in[3], f[3], pad[3], stride[3], dil[3];
    enum lay lay;
    cudnnConvolutionMode_t mode;
    double alpha, beta;
};

static void conv_out(const struct cc *c, int *out)
{
    for (int d = 0; d < c->nsp; d++)
        out[d] = 1 + (c->in[d] + 2 * c->pad[d] - ((c->f[d] - 1) * c->dil[d] + 1)) / c->stride[d];
}

/* visits every (output position, filter tap) pair with the input index it reads */
static void conv_ref(const struct cc *c, const double *x, const double *w, double *y, double *dx, double *dw,
                     const double *dy)
{
    int out[3];
    conv_out(c, out);
    int cg = c->c / c->groups, kg = c->k / c->groups;
    int64_t osz = 1, fsz = 1, isz = 1;
    for (int d = 0; d < c->nsp; d++) {
        osz *= out[d];
        fsz *= c->f[d];
        isz *= c->in[d];
    }
    for (int n = 0; n < c->n; n++)
        for (int k = 0; k < c->k; k++) {
            int g = k / kg;
            for (int64_t o = 0; o < osz; o++) {
                int op[3];
                int64_t t = o;
                for (int d = c->nsp - 1; d >= 0; d--) {
                    op[d] = (int)(t % out[d]);
                    t /= out[d];
                }
                double s = 0;
                for (int ci = 0; ci < cg; ci++)
                    for (int64_t r = 0; r < fsz; r++) {
                        int rp[3];
                        int64_t q = r, ii = 0;
                        int inside = 1;
                        for (int d = c->nsp - 1; d >= 0; d--) {
                            rp[d] = (int)(q % c->f[d]);
                            q /= c->f[d];
                        }
                        for (int d = 0; d < c->nsp; d++) {
                            int pos = op[d] * c->stride[d] - c->pad[d] + rp[d] * c->dil[d];
                            if (pos < 0 || pos >= c->in[d])
                                inside = 0;
                            ii = ii * c->in[d] + pos;
                        }
                        if (!inside)
                            continue;
                        int64_t rr = c->mode == CUDNN_CONVOLUTION ? fsz - 1 - r : r;
                        int64_t xi = ((int64_t)n * c->c + g * cg + ci) * isz + ii;
                        int64_t wi = ((int64_t)k * cg + ci) * fsz + rr;
                        int64_t yi = ((int64_t)n * c->k + k) * osz + o;
                        if (y)
                            s += x[xi] * w[wi];
                        if (dx)
                            dx[xi] += dy[yi] * w[wi];
                        if (dw)
                            dw[wi] += dy[yi] * x[xi];
                    }
                if (y)
                    y[((int64_t)n * c->k + k) * osz + o] = s;
            }
        }
}

static void run_cc(const struct cc *c)
{
    int nb = c->nsp + 2, out[3];
    conv_out(c, out);
    int xd[5] = { c->n, c->c }, yd[5] = { c->n, c->k }, wd[5] = { c->k, c->c / c->groups };
    for (int d = 0; d < c->nsp; d++) {
        xd[d + 2] = c->in[d];
        yd[d + 2] = out[d];
        wd[d + 2] = c->f[d];
    }
    struct ten x, y, dx, dy, w, dw;
    ten_make(&x, c->type, nb, xd, c->lay, 1);
    ten_make(&y, c->type, nb, yd, c->lay, 1);
    ten_make(&dy, c->type, nb, yd, c->lay, 1);
    ten_make(&dx, c->type, nb, xd, c->lay, 1);
    /* filters: packed, KCRS or KRSC */
    cudnnTensorFormat_t ff = c->lay == NHWC ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
    ten_make(&w, c->type, nb, wd, c->lay == NHWC ? NHWC : NCHW, 1);
    ten_make(&dw, c->type, nb, wd, c->lay == NHWC ? NHWC : NCHW, 1);
    cudnnFilterDescriptor_t wdesc;
    CD(cudnnCreateFilterDescriptor(&wdesc));
    CD(cudnnSetFilterNdDescriptor(wdesc, c->type, ff, nb, wd));
    cudnnConvolutionDescriptor_t cv;
    CD(cudnnCreateConvolutionDescriptor(&cv));
    CD(cudnnSetConvolutionNdDescriptor(cv, c->nsp, c->pad, c->stride, c->dil, c->mode,
                                       c->type == CUDNN_DATA_HALF ? CUDNN_DATA_HALF : CUDNN_DATA_FLOAT));
    CD(cudnnSetConvolutionGroupCount(cv, c->groups));
    int od[5];
    CD(cudnnGetConvolutionNdForwardOutputDim(cv, x.desc, wdesc, nb, od));
    for (int d = 0; d < nb; d++)
        if (od[d] != yd[d])
            bad("output dimension %d: %d, expected %d", d, od[d], yd[d]);
    /* the heuristics' first algorithm, its workspace */
    cudnnConvolutionFwdAlgoPerf_t fp[8];
    cudnnConvolutionBwdDataAlgoPerf_t bp[6];
    cudnnConvolutionBwdFilterAlgoPerf_t wp[7];
    int got = 0;
    CD(cudnnGetConvolutionForwardAlgorithm_v7(h, x.desc, wdesc, cv, y.desc, 8, &got, fp));
    if (got != 8 || fp[0].status != CUDNN_STATUS_SUCCESS)
        bad("forward heuristics: %d results, first status %d", got, (int)fp[0].status);
    CD(cudnnGetConvolutionBackwardDataAlgorithm_v7(h, wdesc, dy.desc, cv, dx.desc, 6, &got, bp));
    CD(cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, x.desc, dy.desc, cv, wdesc, 7, &got, wp));
    size_t ws = 1;
    CD(cudnnGetConvolutionForwardWorkspaceSize(h, x.desc, wdesc, cv, y.desc, fp[0].algo, &ws));
    void *work = dalloc(256);
    union sc al = scl(c->type, c->alpha), be = scl(c->type, c->beta);
    unsigned char *y0 = ten_raw(&y), *dx0 = ten_raw(&dx), *dw0 = ten_raw(&dw);
    CD(cudnnConvolutionForward(h, &al, x.desc, x.d, wdesc, w.d, cv, fp[0].algo, work, ws, &be, y.desc, y.d));
    CD(cudnnConvolutionBackwardData(h, &al, wdesc, w.d, dy.desc, dy.d, cv, bp[0].algo, work, 0, &be, dx.desc, dx.d));
    CD(cudnnConvolutionBackwardFilter(h, &al, x.desc, x.d, dy.desc, dy.d, cv, wp[0].algo, work, 0, &be, wdesc, dw.d));
    DRV(cuCtxSynchronize());
    double *ry = calloc((size_t)y.count, sizeof *ry), *rdx = calloc((size_t)x.count, sizeof *rdx),
           *rdw = calloc((size_t)w.count, sizeof *rdw);
    conv_ref(c, x.v, w.v, ry, NULL, NULL, NULL);
    conv_ref(c, x.v, w.v, NULL, rdx, rdw, dy.v);
    for (int64_t i = 0; i < y.count; i++)
        ry[i] = c->alpha * ry[i] + c->beta * y.v[i];
    for (int64_t i = 0; i < x.count; i++)
        rdx[i] = c->alpha * rdx[i] + c->beta * dx.v[i];
    for (int64_t i = 0; i < w.count; i++)
        rdw[i] = c->alpha * rdw[i] + c->beta * dw.v[i];
    char what[64];
    snprintf(what, sizeof what, "y (%d-D, type %d, layout %d)", c->nsp, (int)c->type, (int)c->lay);
    ten_check(what, &y, ry, y0, tol_of(c->type));
    snprintf(what, sizeof what, "dx (%d-D, type %d, layout %d)", c->nsp, (int)c->type, (int)c->lay);
    ten_check(what, &dx, rdx, dx0, tol_of(c->type));
    snprintf(what, sizeof what, "dw (%d-D, type %d, layout %d)", c->nsp, (int)c->type, (int)c->lay);
    ten_check(what, &dw, rdw, dw0, tol_of(c->type));
    free(ry), free(rdx), free(rdw), free(y0), free(dx0), free(dw0);
    CD(cudnnDestroyFilterDescriptor(wdesc));
    CD(cudnnDestroyConvolutionDescriptor(cv));
    ten_free(&x), ten_free(&y), ten_free(&dx), ten_free(&dy), ten_free(&w), ten_free(&dw);
    DRV(cuMemFree_v2((CUdeviceptr)(uintptr_t)work));
}

static void test_conv(void)
{
    static const cudnnDataType_t types[] = { CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16 };
    for (int ti = 0; ti < 3; ti++) {
        char name[128];
        snprintf(name, sizeof name, "convolution fwd, bwd data, bwd filter (type %d): layouts, stride, pad, dilation, "
                 "groups, modes, 2-D/3-D", (int)types[ti]);
        begin(name);
        struct cc cases[] = {
            { types[ti], 2, 2, 3, 4, 1, { 7, 6 }, { 3, 3 }, { 1, 1 }, { 1, 1 }, { 1, 1 }, NCHW, CUDNN_CROSS_CORRELATION, 1, 0 },
            { types[ti], 2, 2, 4, 6, 2, { 9, 8 }, { 3, 2 }, { 1, 0 }, { 2, 2 }, { 1, 1 }, NHWC, CUDNN_CROSS_CORRELATION, 0.5, -1 },
            { types[ti], 2, 1, 3, 2, 1, { 10, 9 }, { 3, 3 }, { 0, 2 }, { 2, 3 }, { 2, 1 }, PADDED, CUDNN_CONVOLUTION, 1, 0.25 },
            { types[ti], 2, 2, 2, 3, 1, { 5, 5 }, { 5, 1 }, { 2, 0 }, { 1, 2 }, { 1, 1 }, NCHW, CUDNN_CONVOLUTION, 1, 0 },
            { types[ti], 3, 1, 2, 3, 1, { 4, 5, 4 }, { 2, 3, 2 }, { 1, 1, 0 }, { 1, 2, 1 }, { 1, 1, 2 }, NCHW, CUDNN_CROSS_CORRELATION, 1, 0 },
        };
        for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
            run_cc(&cases[i]);
        end();
    }
}

static void test_conv_extra(void)
{
    begin("algorithm queries, Find, workspace sizes, bias-activation forward, bias gradient");
    struct ten x, y, z, bias, dy, db;
    int xd[4] = { 2, 3, 6, 6 }, yd[4] = { 2, 4, 6, 6 }, bd[4] = { 1, 4, 1, 1 }, wd[4] = { 4, 3, 3, 3 };
    ten_make(&x, CUDNN_DATA_FLOAT, 4, xd, NCHW, 1);
    ten_make(&y, CUDNN_DATA_FLOAT, 4, yd, NHWC, 1);
    ten_make(&z, CUDNN_DATA_FLOAT, 4, yd, NCHW, 1);
    ten_make(&bias, CUDNN_DATA_FLOAT, 4, bd, NCHW, 1);
    ten_make(&dy, CUDNN_DATA_FLOAT, 4, yd, PADDED, 1);
    ten_make(&db, CUDNN_DATA_FLOAT, 4, bd, NCHW, 1);
    struct ten w;
    ten_make(&w, CUDNN_DATA_FLOAT, 4, wd, NCHW, 1);
    cudnnFilterDescriptor_t wdesc;
    CD(cudnnCreateFilterDescriptor(&wdesc));
    CD(cudnnSetFilter4dDescriptor(wdesc, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 4, 3, 3, 3));
    cudnnConvolutionDescriptor_t cv;
    CD(cudnnCreateConvolutionDescriptor(&cv));
    CD(cudnnSetConvolution2dDescriptor(cv, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    int count = 0, got = 0;
    CD(cudnnGetConvolutionForwardAlgorithmMaxCount(h, &count));
    if (count != CUDNN_CONVOLUTION_FWD_ALGO_COUNT)
        bad("forward algorithm count %d", count);
    cudnnConvolutionFwdAlgoPerf_t fp[8];
    CD(cudnnFindConvolutionForwardAlgorithm(h, x.desc, wdesc, cv, y.desc, 8, &got, fp));
    int n_ok = 0;
    for (int i = 0; i < got; i++)
        if (fp[i].status == CUDNN_STATUS_SUCCESS) {
            n_ok++;
            if (!(fp[i].time >= 0) || fp[i].memory != 0)
                bad("Find: algorithm %d time %g memory %zu", (int)fp[i].algo, fp[i].time, fp[i].memory);
        }
    if (got != 8 || n_ok != 3)
        bad("Find: %d results, %d usable", got, n_ok);
    CD(cudnnFindConvolutionForwardAlgorithmEx(h, x.desc, x.d, wdesc, w.d, cv, y.desc, y.d, 2, &got, fp, NULL, 0));
    if (got != 2 || fp[0].status || fp[1].status)
        bad("FindEx: %d results", got);
    size_t ws;
    ST(cudnnGetConvolutionForwardWorkspaceSize(h, x.desc, wdesc, cv, y.desc, CUDNN_CONVOLUTION_FWD_ALGO_FFT, &ws),
       CUDNN_STATUS_NOT_SUPPORTED);
    float one = 1, zero = 0;
    ST(cudnnConvolutionForward(h, &one, x.desc, x.d, wdesc, w.d, cv, CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD, NULL, 0,
                               &zero, y.desc, y.d), CUDNN_STATUS_NOT_SUPPORTED);
    /* y = relu(conv + 0.5 z + bias) */
    cudnnActivationDescriptor_t act;
    CD(cudnnCreateActivationDescriptor(&act));
    CD(cudnnSetActivationDescriptor(act, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0));
    float half = 0.5f;
    unsigned char *y0 = ten_raw(&y);
    CD(cudnnConvolutionBiasActivationForward(h, &one, x.desc, x.d, wdesc, w.d, cv,
                                             CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, NULL, 0, &half, z.desc, z.d,
                                             bias.desc, bias.d, act, y.desc, y.d));
    unsigned char *db0 = ten_raw(&db);
    float two = 2;
    CD(cudnnConvolutionBackwardBias(h, &two, dy.desc, dy.d, &half, db.desc, db.d));
    DRV(cuCtxSynchronize());
    struct cc c = { CUDNN_DATA_FLOAT, 2, 2, 3, 4, 1, { 6, 6 }, { 3, 3 }, { 1, 1 }, { 1, 1 }, { 1, 1 }, NCHW,
                    CUDNN_CROSS_CORRELATION, 1, 0 };
    double *ry = calloc((size_t)y.count, sizeof *ry), rdb[4] = { 0 };
    conv_ref(&c, x.v, w.v, ry, NULL, NULL, NULL);
    for (int64_t i = 0; i < y.count; i++) {
        double v = ry[i] + 0.5 * z.v[i] + bias.v[(i / 36) % 4];
        ry[i] = v > 0 ? v : 0;
        rdb[(i / 36) % 4] += 2 * dy.v[i];
    }
    for (int k = 0; k < 4; k++)
        rdb[k] += 0.5 * db.v[k];
    ten_check("bias-activation y", &y, ry, y0, 1e-4);
    ten_check("bias gradient", &db, rdb, db0, 1e-4);
    free(ry), free(y0), free(db0);
    CD(cudnnDestroyActivationDescriptor(act));
    CD(cudnnDestroyFilterDescriptor(wdesc));
    CD(cudnnDestroyConvolutionDescriptor(cv));
    ten_free(&x), ten_free(&y), ten_free(&z), ten_free(&bias), ten_free(&dy), ten_free(&db), ten_free(&w);
    end();
}

/* ---- pooling ------------------------------------------------------------------ */
static void test_pool(void)
{
    static const cudnnPoolingMode_t modes[] = { CUDNN_POOLING_MAX, CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING,
                                                CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING };
    static const cudnnDataType_t types[] = { CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_DOUBLE };
    begin("pooling forward and backward: max, average with and without padding; float, half, double; layouts");
    for (int ti = 0; ti < 3; ti++)
        for (int m = 0; m < 3; m++) {
            cudnnDataType_t t = types[ti];
            int win[2] = { 3, 2 }, pad[2] = { 1, 1 }, str[2] = { 2, 1 };
            int xd[4] = { 2, 3, 7, 6 }, yd[4] = { 2, 3, 0, 0 };
            for (int d = 0; d < 2; d++)
                yd[d + 2] = 1 + (xd[d + 2] + 2 * pad[d] - win[d]) / str[d];
            enum lay lay = (enum lay)((ti + m) % 3);
            struct ten x, y, dy, dx;
            ten_make(&x, t, 4, xd, lay, 1);
            ten_make(&y, t, 4, yd, lay, 1);
            ten_make(&dy, t, 4, yd, NCHW, 1);
            ten_make(&dx, t, 4, xd, lay, 1);
            cudnnPoolingDescriptor_t p;
            CD(cudnnCreatePoolingDescriptor(&p));
            CD(cudnnSetPooling2dDescriptor(p, modes[m], CUDNN_NOT_PROPAGATE_NAN, win[0], win[1], pad[0], pad[1], str[0],
                                           str[1]));
            int o[4];
            CD(cudnnGetPooling2dForwardOutputDim(p, x.desc, &o[0], &o[1], &o[2], &o[3]));
            if (memcmp(o, yd, sizeof o))
                bad("pooling output %dx%dx%dx%d", o[0], o[1], o[2], o[3]);
            union sc al = scl(t, 1.5), be = scl(t, -0.5), one = scl(t, 1), zero = scl(t, 0);
            unsigned char *y0 = ten_raw(&y), *dx0 = ten_raw(&dx);
            CD(cudnnPoolingForward(h, p, &al, x.desc, x.d, &be, y.desc, y.d));
            CD(cudnnPoolingBackward(h, p, &one, y.desc, y.d, dy.desc, dy.d, x.desc, x.d, &zero, dx.desc, dx.d));
            DRV(cuCtxSynchronize());
            double *ry = calloc((size_t)y.count, sizeof *ry), *rdx = calloc((size_t)x.count, sizeof *rdx);
            for (int64_t i = 0; i < y.count; i++) {
                int ow = (int)(i % yd[3]), oh = (int)(i / yd[3] % yd[2]);
                int64_t base = i / ((int64_t)yd[2] * yd[3]) * xd[2] * xd[3];
                double best = -INFINITY, sum = 0;
                int inside = 0;
                int64_t arg = -1;
                for (int a = 0; a < win[0]; a++)
                    for (int b = 0; b < win[1]; b++) {
                        int hh = oh * str[0] - pad[0] + a, ww = ow * str[1] - pad[1] + b;
                        if (hh < 0 || hh >= xd[2] || ww < 0 || ww >= xd[3])
                            continue;
                        double v = x.v[base + hh * xd[3] + ww];
                        inside++;
                        sum += v;
                        if (v > best) {
                            best = v;
                            arg = base + hh * xd[3] + ww;
                        }
                    }
                double div = modes[m] == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING ? win[0] * win[1] : inside;
                double r = modes[m] == CUDNN_POOLING_MAX ? best : sum / div;
                ry[i] = 1.5 * r - 0.5 * y.v[i];
                if (modes[m] == CUDNN_POOLING_MAX) {
                    rdx[arg] += dy.v[i];
                    continue;
                }
                for (int a = 0; a < win[0]; a++)
                    for (int b = 0; b < win[1]; b++) {
                        int hh = oh * str[0] - pad[0] + a, ww = ow * str[1] - pad[1] + b;
                        if (hh >= 0 && hh < xd[2] && ww >= 0 && ww < xd[3])
                            rdx[base + hh * xd[3] + ww] += dy.v[i] / div;
                    }
            }
            ten_check("pooled y", &y, ry, y0, tol_of(t));
            ten_check("pooling dx", &dx, rdx, dx0, tol_of(t));
            free(ry), free(rdx), free(y0), free(dx0);
            CD(cudnnDestroyPoolingDescriptor(p));
            ten_free(&x), ten_free(&y), ten_free(&dy), ten_free(&dx);
        }
    end();
}

/* ---- activation, softmax -------------------------------------------------------- */
static double act_ref(cudnnActivationMode_t m, double x, double coef)
{
    switch (m) {
    case CUDNN_ACTIVATION_SIGMOID: return 1 / (1 + exp(-x));
    case CUDNN_ACTIVATION_RELU: return x > 0 ? x : 0;
    case CUDNN_ACTIVATION_TANH: return tanh(x);
    case CUDNN_ACTIVATION_CLIPPED_RELU: return x <= 0 ? 0 : x < coef ? x : coef;
    case CUDNN_ACTIVATION_ELU: return x > 0 ? x : coef * (exp(x) - 1);
    default: return x * (1 / (1 + exp(-x)));   /* swish, beta 1 */
    }
}

static double dact_ref(cudnnActivationMode_t m, double x, double coef)
{
    double y = act_ref(m, x, coef), s = 1 / (1 + exp(-x));
    switch (m) {
    case CUDNN_ACTIVATION_SIGMOID: return y * (1 - y);
    case CUDNN_ACTIVATION_RELU: return x > 0;
    case CUDNN_ACTIVATION_TANH: return 1 - y * y;
    case CUDNN_ACTIVATION_CLIPPED_RELU: return x > 0 && x < coef;
    case CUDNN_ACTIVATION_ELU: return x > 0 ? 1 : coef * exp(x);
    default: return s + x * s * (1 - s);
    }
}

static void test_act(void)
{
    static const cudnnActivationMode_t modes[] = { CUDNN_ACTIVATION_SIGMOID, CUDNN_ACTIVATION_RELU,
                                                   CUDNN_ACTIVATION_TANH, CUDNN_ACTIVATION_CLIPPED_RELU,
                                                   CUDNN_ACTIVATION_ELU, CUDNN_ACTIVATION_SWISH };
    static const cudnnDataType_t types[] = { CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16,
                                             CUDNN_DATA_DOUBLE };
    begin("activation forward and backward: sigmoid, relu, tanh, clipped relu, elu, swish; four types; layouts");
    for (int ti = 0; ti < 4; ti++)
        for (int m = 0; m < 6; m++) {
            cudnnDataType_t t = types[ti];
            int dims[4] = { 2, 5, 3, 4 };
            struct ten x, y, dy, dx;
            enum lay lay = (enum lay)((ti + m) % 3);
            ten_make(&x, t, 4, dims, lay, 1);
            ten_make(&y, t, 4, dims, NCHW, 1);
            ten_make(&dy, t, 4, dims, lay, 1);
            ten_make(&dx, t, 4, dims, NHWC, 1);
            cudnnActivationDescriptor_t a;
            CD(cudnnCreateActivationDescriptor(&a));
            double coef = 0.5;
            CD(cudnnSetActivationDescriptor(a, modes[m], CUDNN_NOT_PROPAGATE_NAN, coef));
            union sc al = scl(t, 1), be = scl(t, 0), al2 = scl(t, 2), be2 = scl(t, 0.5);
            unsigned char *y0 = ten_raw(&y), *dx0 = ten_raw(&dx);
            CD(cudnnActivationForward(h, a, &al, x.desc, x.d, &be, y.desc, y.d));
            /* backward from the y just computed (the next call on the stream) */
            CD(cudnnActivationBackward(h, a, &al2, y.desc, y.d, dy.desc, dy.d, x.desc, x.d, &be2, dx.desc, dx.d));
            DRV(cuCtxSynchronize());
            double *ry = malloc((size_t)x.count * sizeof *ry), *rdx = malloc((size_t)x.count * sizeof *rdx);
            for (int64_t i = 0; i < x.count; i++) {
                ry[i] = act_ref(modes[m], x.v[i], coef);
                rdx[i] = 2 * dy.v[i] * dact_ref(modes[m], x.v[i], coef) + 0.5 * dx.v[i];
            }
            char what[48];
            snprintf(what, sizeof what, "activation %d y (type %d)", (int)modes[m], (int)t);
            ten_check(what, &y, ry, y0, tol_of(t));
            snprintf(what, sizeof what, "activation %d dx (type %d)", (int)modes[m], (int)t);
            /* sigmoid's and tanh's derivatives come from the rounded y */
            ten_check(what, &dx, rdx, dx0, 3 * tol_of(t));
            free(ry), free(rdx), free(y0), free(dx0);
            CD(cudnnDestroyActivationDescriptor(a));
            ten_free(&x), ten_free(&y), ten_free(&dy), ten_free(&dx);
        }
    end();
}

static void test_softmax(void)
{
    begin("softmax forward and backward: accurate, fast, log; instance and channel; float, half, double");
    static const cudnnDataType_t types[] = { CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_DOUBLE };
    for (int ti = 0; ti < 3; ti++)
        for (int algo = 0; algo < 3; algo++)
            for (int mode = 0; mode < 2; mode++) {
                cudnnDataType_t t = types[ti];
                int dims[4] = { 3, 4, 2, 3 };
                struct ten x, y, dy, dx;
                ten_make(&x, t, 4, dims, (enum lay)(algo % 3), 1);
                ten_make(&y, t, 4, dims, (enum lay)((algo + 1) % 3), 1);
                ten_make(&dy, t, 4, dims, NCHW, 1);
                ten_make(&dx, t, 4, dims, NHWC, 1);
                union sc one = scl(t, 1), zero = scl(t, 0);
                unsigned char *y0 = ten_raw(&y), *dx0 = ten_raw(&dx);
                CD(cudnnSoftmaxForward(h, (cudnnSoftmaxAlgorithm_t)algo, (cudnnSoftmaxMode_t)mode, &one, x.desc, x.d,
                                       &zero, y.desc, y.d));
                CD(cudnnSoftmaxBackward(h, (cudnnSoftmaxAlgorithm_t)algo, (cudnnSoftmaxMode_t)mode, &one, y.desc, y.d,
                                        dy.desc, dy.d, &zero, dx.desc, dx.d));
                DRV(cuCtxSynchronize());
                double *ry = malloc((size_t)x.count * sizeof *ry), *rdx = malloc((size_t)x.count * sizeof *rdx);
                /* slices: an image (instance), or a position's channels */
                int sp = dims[2] * dims[3];
                int nslice = mode ? dims[0] * sp : dims[0], len = mode ? dims[1] : dims[1] * sp;
                for (int s = 0; s < nslice; s++) {
                    int64_t idx[64];
                    for (int l = 0; l < len; l++)
                        idx[l] = mode ? ((int64_t)(s / sp) * dims[1] + l) * sp + s % sp : (int64_t)s * len + l;
                    double mx = -INFINITY, sum = 0, dot = 0, sdy = 0;
                    for (int l = 0; l < len; l++)
                        mx = fmax(mx, x.v[idx[l]]);
                    for (int l = 0; l < len; l++)
                        sum += exp(x.v[idx[l]] - mx);
                    for (int l = 0; l < len; l++) {
                        double p = exp(x.v[idx[l]] - mx) / sum;
                        ry[idx[l]] = algo == CUDNN_SOFTMAX_LOG ? log(p) : p;
                        dot += dy.v[idx[l]] * p;
                        sdy += dy.v[idx[l]];
                    }
                    for (int l = 0; l < len; l++) {
                        double p = exp(x.v[idx[l]] - mx) / sum;
                        rdx[idx[l]] = algo == CUDNN_SOFTMAX_LOG ? dy.v[idx[l]] - p * sdy : p * (dy.v[idx[l]] - dot);
                    }
                }
                char what[64];
                snprintf(what, sizeof what, "softmax y (type %d, algo %d, mode %d)", (int)t, algo, mode);
                ten_check(what, &y, ry, y0, tol_of(t));
                snprintf(what, sizeof what, "softmax dx (type %d, algo %d, mode %d)", (int)t, algo, mode);
                ten_check(what, &dx, rdx, dx0, 4 * tol_of(t));
                free(ry), free(rdx), free(y0), free(dx0);
                ten_free(&x), ten_free(&y), ten_free(&dy), ten_free(&dx);
            }
    end();
}

/* ---- batch normalization -------------------------------------------------------- */
static void test_bnorm(void)
{
    begin("batch normalization: training (running and saved statistics), inference, backward; spatial and "
          "per activation; float, half, double");
    static const cudnnDataType_t types[] = { CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_DOUBLE };
    for (int ti = 0; ti < 3; ti++)
        for (int mode = 0; mode < 2; mode++) {
            cudnnDataType_t t = types[ti], pt = t == CUDNN_DATA_DOUBLE ? t : CUDNN_DATA_FLOAT;
            int dims[4] = { 3, 4, 3, 2 };
            int pdims[4] = { 1, 4, mode ? 1 : 3, mode ? 1 : 2 };
            struct ten x, y, dy, dx, scale, bias, rmean, rvar, smean, sinv, dscale, dbias, y2;
            enum lay lay = (enum lay)((ti + mode) % 3);
            ten_make(&x, t, 4, dims, lay, 1);
            ten_make(&y, t, 4, dims, NCHW, 1);
            ten_make(&y2, t, 4, dims, NHWC, 1);
            ten_make(&dy, t, 4, dims, lay, 1);
            ten_make(&dx, t, 4, dims, NHWC, 1);
            struct ten *ps[] = { &scale, &bias, &rmean, &rvar, &smean, &sinv, &dscale, &dbias };
            for (int i = 0; i < 8; i++)
                ten_make(ps[i], pt, 4, pdims, NCHW, 1);
            for (int64_t i = 0; i < rvar.count; i++)   /* a variance is positive */
                rvar.v[i] = fabs(rvar.v[i]) + 0.25;
            {
                void *buf = malloc((size_t)rvar.count * tsize(pt));
                for (int64_t i = 0; i < rvar.count; i++)
                    put(pt, buf, (size_t)i, rvar.v[i]);
                DRV(cuMemcpyHtoD_v2((CUdeviceptr)(uintptr_t)rvar.d, buf, (size_t)rvar.count * tsize(pt)));
                free(buf);
            }
            cudnnTensorDescriptor_t pd;
            CD(cudnnCreateTensorDescriptor(&pd));
            CD(cudnnDeriveBNTensorDescriptor(pd, x.desc, (cudnnBatchNormMode_t)(mode ? CUDNN_BATCHNORM_SPATIAL
                                                                                     : CUDNN_BATCHNORM_PER_ACTIVATION)));
            cudnnBatchNormMode_t bm = mode ? CUDNN_BATCHNORM_SPATIAL : CUDNN_BATCHNORM_PER_ACTIVATION;
            union sc one = scl(t, 1), zero = scl(t, 0), half = scl(t, 0.5);
            double eps = 1e-3, f = 0.25;
            unsigned char *y0 = ten_raw(&y), *y20 = ten_raw(&y2), *dx0 = ten_raw(&dx);
            double *rm0 = malloc((size_t)rmean.count * sizeof(double)), *rv0 = malloc((size_t)rmean.count * sizeof(double));
            memcpy(rm0, rmean.v, (size_t)rmean.count * sizeof(double));
            memcpy(rv0, rvar.v, (size_t)rmean.count * sizeof(double));
            /* inference with the running statistics as they are, then training */
            CD(cudnnBatchNormalizationForwardInference(h, bm, &one, &zero, x.desc, x.d, y2.desc, y2.d, pd, scale.d,
                                                       bias.d, rmean.d, rvar.d, eps));
            CD(cudnnBatchNormalizationForwardTraining(h, bm, &one, &half, x.desc, x.d, y.desc, y.d, pd, scale.d, bias.d,
                                                      f, rmean.d, rvar.d, eps, smean.d, sinv.d));
            CD(cudnnBatchNormalizationBackward(h, bm, &one, &zero, &one, &half, x.desc, x.d, dy.desc, dy.d, dx.desc,
                                               dx.d, pd, scale.d, dscale.d, dbias.d, eps, smean.d, sinv.d));
            DRV(cuCtxSynchronize());
            int64_t P = scale.count, M = x.count / P;
            double *ry = malloc((size_t)x.count * sizeof(double)), *ry2 = malloc((size_t)x.count * sizeof(double));
            double *rdx = malloc((size_t)x.count * sizeof(double));
            double *w[6];
            for (int i = 0; i < 6; i++)
                w[i] = malloc((size_t)P * sizeof(double));   /* rmean rvar smean sinv dscale dbias */
            int sp = dims[2] * dims[3];
            for (int64_t g = 0; g < P; g++) {
                /* members of statistic g, in x's logical indices */
                int64_t mem[64];
                for (int64_t m = 0; m < M; m++)
                    mem[m] = mode ? ((m / sp) * dims[1] + g) * sp + m % sp : m * P + g;
                double s = 0, q = 0;
                for (int64_t m = 0; m < M; m++)
                    s += x.v[mem[m]];
                double mean = s / (double)M;
                for (int64_t m = 0; m < M; m++)
                    q += (x.v[mem[m]] - mean) * (x.v[mem[m]] - mean);
                double var = q / (double)M, inv = 1 / sqrt(var + eps);
                w[0][g] = (1 - f) * rm0[g] + f * mean;
                w[1][g] = (1 - f) * rv0[g] + f * q / (double)(M - 1);
                w[2][g] = mean;
                w[3][g] = inv;
                double sdy = 0, sdyx = 0;
                for (int64_t m = 0; m < M; m++) {
                    int64_t i = mem[m];
                    double xh = (x.v[i] - mean) * inv;
                    ry[i] = scale.v[g] * xh + bias.v[g] + 0.5 * y.v[i];
                    ry2[i] = scale.v[g] * (x.v[i] - rm0[g]) / sqrt(rv0[g] + eps) + bias.v[g];
                    sdy += dy.v[i];
                    sdyx += dy.v[i] * xh;
                }
                for (int64_t m = 0; m < M; m++) {
                    int64_t i = mem[m];
                    double xh = (x.v[i] - mean) * inv;
                    rdx[i] = scale.v[g] * inv * (dy.v[i] - sdy / (double)M - xh * sdyx / (double)M);
                }
                w[4][g] = sdyx + 0.5 * dscale.v[g];
                w[5][g] = sdy + 0.5 * dbias.v[g];
            }
            double tl = tol_of(t), pl = tol_of(pt) * 10;
            ten_check("bn training y", &y, ry, y0, 2 * tl);
            ten_check("bn inference y", &y2, ry2, y20, 2 * tl);
            ten_check("bn dx", &dx, rdx, dx0, 4 * tl);
            const char *names[6] = { "running mean", "running variance", "saved mean", "saved inverse variance",
                                     "scale gradient", "bias gradient" };
            struct ten *outs[6] = { &rmean, &rvar, &smean, &sinv, &dscale, &dbias };
            for (int i = 0; i < 6; i++)
                ten_check(names[i], outs[i], w[i], NULL, i >= 4 ? 4 * tl : pl);
            for (int i = 0; i < 6; i++)
                free(w[i]);
            free(ry), free(ry2), free(rdx), free(y0), free(y20), free(dx0), free(rm0), free(rv0);
            CD(cudnnDestroyTensorDescriptor(pd));
            ten_free(&x), ten_free(&y), ten_free(&y2), ten_free(&dy), ten_free(&dx);
            for (int i = 0; i < 8; i++)
                ten_free(ps[i]);
        }
    end();
}

/* ---- tensor operations ------------------------------------------------------------ */
static void test_tensorops(void)
{
    begin("AddTensor (broadcast bias), OpTensor, SetTensor, ScaleTensor, TransformTensor (NCHW to NHWC, float to half)");
    int dims[4] = { 2, 3, 4, 5 }, bd[4] = { 1, 3, 1, 1 }, bd2[4] = { 2, 1, 4, 1 };
    struct ten a, c, b, b2, c2, hh;
    ten_make(&a, CUDNN_DATA_FLOAT, 4, dims, NCHW, 1);
    ten_make(&c, CUDNN_DATA_FLOAT, 4, dims, NHWC, 1);
    ten_make(&b, CUDNN_DATA_FLOAT, 4, bd, NCHW, 1);
    ten_make(&b2, CUDNN_DATA_FLOAT, 4, bd2, NCHW, 1);
    ten_make(&c2, CUDNN_DATA_FLOAT, 4, dims, PADDED, 1);
    ten_make(&hh, CUDNN_DATA_HALF, 4, dims, NHWC, 1);
    unsigned char *c0 = ten_raw(&c), *c20 = ten_raw(&c2), *h0 = ten_raw(&hh);
    float two = 2, half = 0.5f, one = 1, zero = 0, three = 3;
    CD(cudnnAddTensor(h, &two, b.desc, b.d, &half, c.desc, c.d));           /* c = 2 b + c / 2 */
    cudnnOpTensorDescriptor_t op;
    CD(cudnnCreateOpTensorDescriptor(&op));
    CD(cudnnSetOpTensorDescriptor(op, CUDNN_OP_TENSOR_MAX, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN));
    CD(cudnnOpTensor(h, op, &one, a.desc, a.d, &two, b2.desc, b2.d, &zero, c2.desc, c2.d));   /* max(a, 2 b2) */
    CD(cudnnScaleTensor(h, c2.desc, c2.d, &three));
    CD(cudnnTransformTensor(h, &one, a.desc, a.d, &zero, hh.desc, hh.d));
    DRV(cuCtxSynchronize());
    double *rc = malloc((size_t)a.count * sizeof(double)), *rc2 = malloc((size_t)a.count * sizeof(double));
    for (int64_t i = 0; i < a.count; i++) {
        int ch = (int)(i / 20 % 3), n = (int)(i / 60), hh_ = (int)(i / 5 % 4);
        rc[i] = 2 * b.v[ch] + 0.5 * c.v[i];
        rc2[i] = 3 * fmax(a.v[i], 2 * b2.v[n * 4 + hh_]);
    }
    ten_check("AddTensor", &c, rc, c0, 1e-5);
    ten_check("OpTensor MAX then ScaleTensor", &c2, rc2, c20, 1e-5);
    ten_check("TransformTensor", &hh, a.v, h0, 1e-3);
    uint16_t hv = 0x3c00;   /* half 1.0: SetTensor's value is of y's type */
    CD(cudnnSetTensor(h, hh.desc, hh.d, &hv));
    DRV(cuCtxSynchronize());
    for (int64_t i = 0; i < a.count; i++)
        rc[i] = 1;
    ten_check("SetTensor", &hh, rc, h0, 0);
    free(rc), free(rc2), free(c0), free(c20), free(h0);
    CD(cudnnDestroyOpTensorDescriptor(op));
    ten_free(&a), ten_free(&c), ten_free(&b), ten_free(&b2), ten_free(&c2), ten_free(&hh);
    end();
}

/* ---- stream order --------------------------------------------------------------- */
struct slow { float *p; int n; _Atomic int open, waited_out; };
static void CUDAAPI slow_fill(void *arg)
{
    struct slow *s = arg;
    for (int i = 0; i < 20000 && !s->open; i++)
        usleep(1000);
    s->waited_out = !s->open;
    for (int i = 0; i < s->n; i++)
        s->p[i] = -1.0f;
}

static void test_ordering(void)
{
    begin("stream order: host fn before, activation and convolution, event; free right after the call");
    CUstream s;
    CUevent e1;
    DRV(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    DRV(cuEventCreate(&e1, 0));
    CD(cudnnSetStream(h, (cudaStream_t)s));
    cudaStream_t got;
    CD(cudnnGetStream(h, &got));
    if (got != (cudaStream_t)s)
        bad("cudnnGetStream");
    int dims[4] = { 1, 1, 4, 4 };
    struct ten x, y;
    ten_make(&x, CUDNN_DATA_FLOAT, 4, dims, NCHW, 0);
    ten_make(&y, CUDNN_DATA_FLOAT, 4, dims, NCHW, 0);
    struct slow sl = { x.d, 16, 0, 0 };
    DRV(cuLaunchHostFunc(s, slow_fill, &sl));
    cudnnActivationDescriptor_t a;
    CD(cudnnCreateActivationDescriptor(&a));
    CD(cudnnSetActivationDescriptor(a, CUDNN_ACTIVATION_SIGMOID, CUDNN_NOT_PROPAGATE_NAN, 0));
    float one = 1, zero = 0;
    CD(cudnnActivationForward(h, a, &one, x.desc, x.d, &zero, y.desc, y.d));
    DRV(cuEventRecord(e1, s));
    if (cuEventQuery(e1) != CUDA_ERROR_NOT_READY)
        bad("the event after the activation completed before the work queued ahead of it");
    sl.open = 1;
    void *xd = x.d;
    x.d = dalloc(4);   /* ten_free frees this one */
    DRV(cuMemFree_v2((CUdeviceptr)(uintptr_t)xd));
    DRV(cuEventSynchronize(e1));
    if (sl.waited_out)
        bad("cudnnActivationForward waited for the stream");
    double want[16], *got_v = malloc(16 * sizeof *got_v);
    for (int i = 0; i < 16; i++)
        want[i] = 1 / (1 + exp(1.0));
    ten_down(&y, got_v, NULL);
    close_d("sigmoid after the host function", got_v, want, 16, 1e-6);
    free(got_v);
    CD(cudnnSetStream(h, NULL));
    CD(cudnnDestroyActivationDescriptor(a));
    ten_free(&x), ten_free(&y);
    DRV(cuEventDestroy_v2(e1));
    DRV(cuStreamDestroy_v2(s));
    end();
}

/* ---- bad input ------------------------------------------------------------------- */
static void test_bad(void)
{
    begin("bad input: handles, descriptors, shapes, types, algorithms, pointers; nothing written; messages");
    int dims[4] = { 2, 3, 4, 4 };
    struct ten x, y;
    ten_make(&x, CUDNN_DATA_FLOAT, 4, dims, NCHW, 1);
    ten_make(&y, CUDNN_DATA_FLOAT, 4, dims, NCHW, 1);
    unsigned char *y0 = ten_raw(&y);
    cudnnHandle_t dead, fake = (cudnnHandle_t)(uintptr_t)0x1234;
    CD(cudnnCreate(&dead));
    CD(cudnnDestroy(dead));
    ST(cudnnDestroy(dead), CUDNN_STATUS_BAD_PARAM);
    ST(cudnnCreate(NULL), CUDNN_STATUS_BAD_PARAM);
    cudnnActivationDescriptor_t a, unset;
    CD(cudnnCreateActivationDescriptor(&a));
    CD(cudnnCreateActivationDescriptor(&unset));
    CD(cudnnSetActivationDescriptor(a, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0));
    float one = 1, zero = 0, host[96];
    ST(cudnnActivationForward(dead, a, &one, x.desc, x.d, &zero, y.desc, y.d), CUDNN_STATUS_BAD_PARAM);
    ST(cudnnActivationForward(fake, a, &one, x.desc, x.d, &zero, y.desc, y.d), CUDNN_STATUS_BAD_PARAM);
    ST(cudnnActivationForward(h, unset, &one, x.desc, x.d, &zero, y.desc, y.d), CUDNN_STATUS_BAD_PARAM);
    ST(cudnnActivationForward(h, a, NULL, x.desc, x.d, &zero, y.desc, y.d), CUDNN_STATUS_BAD_PARAM);
    ST(cudnnActivationForward(h, a, &one, x.desc, NULL, &zero, y.desc, y.d), CUDNN_STATUS_BAD_PARAM_NULL_POINTER);
    ST(cudnnActivationForward(h, a, &one, x.desc, host, &zero, y.desc, y.d), CUDNN_STATUS_BAD_PARAM);
    ST(cudnnActivationForward(h, a, &one, x.desc, (char *)x.d + 2, &zero, y.desc, y.d),
       CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER);
    ST(cudnnActivationForward(h, a, &one, x.desc, (float *)x.d + 4, &zero, y.desc, y.d), CUDNN_STATUS_BAD_PARAM);
    char msg[256];
    cudnnGetLastErrorString(msg, sizeof msg);
    if (!strstr(msg, "inside one allocation"))
        bad("last error message: \"%s\"", msg);
    CD(cudnnSetActivationDescriptor(a, CUDNN_ACTIVATION_IDENTITY, CUDNN_NOT_PROPAGATE_NAN, 0));
    ST(cudnnActivationForward(h, a, &one, x.desc, x.d, &zero, y.desc, y.d), CUDNN_STATUS_BAD_PARAM);
    /* shapes, types */
    cudnnTensorDescriptor_t other, dbl, i8;
    CD(cudnnCreateTensorDescriptor(&other));
    CD(cudnnCreateTensorDescriptor(&dbl));
    CD(cudnnCreateTensorDescriptor(&i8));
    CD(cudnnSetTensor4dDescriptor(other, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 3, 4, 5));
    CD(cudnnSetTensor4dDescriptor(dbl, CUDNN_TENSOR_NCHW, CUDNN_DATA_DOUBLE, 2, 3, 4, 4));
    CD(cudnnSetTensor4dDescriptor(i8, CUDNN_TENSOR_NCHW, CUDNN_DATA_INT8, 2, 3, 4, 4));
    CD(cudnnSetActivationDescriptor(a, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0));
    ST(cudnnActivationForward(h, a, &one, x.desc, x.d, &zero, other, y.d), CUDNN_STATUS_BAD_PARAM);
    ST(cudnnActivationForward(h, a, &one, i8, x.d, &zero, y.desc, y.d), CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE);
    ST(cudnnSoftmaxForward(h, (cudnnSoftmaxAlgorithm_t)5, CUDNN_SOFTMAX_MODE_INSTANCE, &one, x.desc, x.d, &zero,
                           y.desc, y.d), CUDNN_STATUS_BAD_PARAM);
    /* convolutions: a mismatched output, double data, an algorithm not implemented */
    cudnnFilterDescriptor_t w;
    cudnnConvolutionDescriptor_t cv;
    CD(cudnnCreateFilterDescriptor(&w));
    CD(cudnnCreateConvolutionDescriptor(&cv));
    CD(cudnnSetFilter4dDescriptor(w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 3, 3, 3, 3));
    CD(cudnnSetConvolution2dDescriptor(cv, 0, 0, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    ST(cudnnConvolutionForward(h, &one, x.desc, x.d, w, x.d, cv, CUDNN_CONVOLUTION_FWD_ALGO_GEMM, NULL, 0, &zero,
                               y.desc, y.d), CUDNN_STATUS_BAD_PARAM);   /* y is 4 x 4, the output 2 x 2 */
    CD(cudnnSetConvolution2dDescriptor(cv, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_DOUBLE));
    CD(cudnnSetFilter4dDescriptor(w, CUDNN_DATA_DOUBLE, CUDNN_TENSOR_NCHW, 3, 3, 3, 3));
    ST(cudnnConvolutionForward(h, &one, dbl, x.d, w, x.d, cv, CUDNN_CONVOLUTION_FWD_ALGO_GEMM, NULL, 0, &zero, dbl,
                               y.d), CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE);
    int gc = 0;
    ST(cudnnSetConvolutionGroupCount(cv, 0), CUDNN_STATUS_BAD_PARAM);
    CD(cudnnGetConvolutionGroupCount(cv, &gc));
    if (gc != 1)
        bad("group count %d", gc);
    ST(cudnnGetConvolutionForwardAlgorithmMaxCount(fake, &gc), CUDNN_STATUS_BAD_PARAM);
    /* nothing above ran */
    DRV(cuCtxSynchronize());
    double *got = malloc((size_t)y.count * sizeof *got);
    ten_check("y after refused calls", &y, y.v, y0, 0);
    free(got);
    /* an entry point this library does not implement, through NVIDIA's symbol */
    extern int cudnnRNNForward_unused(void) __asm__("cudnnRNNForward");
    extern int cudnnBackendPopulateCudaGraph_unused(void) __asm__("cudnnBackendPopulateCudaGraph");
    ST(cudnnRNNForward_unused(), CUDNN_STATUS_NOT_SUPPORTED);
    ST(cudnnBackendPopulateCudaGraph_unused(), CUDNN_STATUS_NOT_SUPPORTED);
    if (strcmp(cudnnGetErrorString(CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE), "CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE") ||
        strcmp(cudnnGetErrorString((cudnnStatus_t)9999), "CUDNN_UNKNOWN_STATUS"))
        bad("status names");
    if (cudnnGetVersion() != 91900)
        bad("version %zu", cudnnGetVersion());
    CD(cudnnDestroyActivationDescriptor(a));
    CD(cudnnDestroyActivationDescriptor(unset));
    ST(cudnnDestroyActivationDescriptor(unset), CUDNN_STATUS_BAD_PARAM);
    CD(cudnnDestroyTensorDescriptor(other));
    CD(cudnnDestroyTensorDescriptor(dbl));
    CD(cudnnDestroyTensorDescriptor(i8));
    CD(cudnnDestroyFilterDescriptor(w));
    CD(cudnnDestroyConvolutionDescriptor(cv));
    free(y0);
    ten_free(&x), ten_free(&y);
    end();
}

int main(void)
{
    begin("cudnnCreate");
    CD(cudnnCreate(&h));
    end();
    if (n_fail)
        return summary("cudnn");
    test_conv();
    test_conv_extra();
    test_pool();
    test_act();
    test_softmax();
    test_bnorm();
    test_tensorops();
    test_ordering();
    test_bad();
    begin("cudnnDestroy");
    CD(cudnnDestroy(h));
    end();
    return summary("cudnn");
}
