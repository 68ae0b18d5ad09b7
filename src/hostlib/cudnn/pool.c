/* SPDX-License-Identifier: Apache-2.0 */
/* Pooling: the descriptor, output dimensions, forward and backward; loops of
 * this library's own, in double. Output size per spatial dimension:
 * 1 + (in + 2 pad - window) / stride (floor), as cuDNN's. Max pooling takes
 * the first maximum in the window's row-major order (NaN propagated only
 * with CUDNN_PROPAGATE_NAN) and its gradient goes to that element, found
 * again from x; average pooling divides by the whole window
 * (COUNT_INCLUDE_PADDING) or by the elements inside the input
 * (COUNT_EXCLUDE_PADDING). A window wholly in the padding gives 0. */
#include "dnn.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

HL_EXPORT cudnnStatus_t cudnnCreatePoolingDescriptor(cudnnPoolingDescriptor_t *poolingDesc)
{
    return dnn_create((void **)poolingDesc, sizeof(struct cudnnPoolingStruct), DK_POOL);
}

HL_EXPORT cudnnStatus_t cudnnDestroyPoolingDescriptor(cudnnPoolingDescriptor_t poolingDesc)
{
    return dnn_destroy(poolingDesc, DK_POOL);
}

HL_EXPORT cudnnStatus_t cudnnSetPoolingNdDescriptor(cudnnPoolingDescriptor_t poolingDesc, const cudnnPoolingMode_t mode,
                                                    const cudnnNanPropagation_t maxpoolingNanOpt, int nbDims,
                                                    const int windowDimA[], const int paddingA[],
                                                    const int strideA[])
{
    struct cudnnPoolingStruct *p = hl_handle_live(poolingDesc, DK_POOL) ? poolingDesc : NULL;
    if (!p || (unsigned)mode > CUDNN_POOLING_MAX_DETERMINISTIC || (unsigned)maxpoolingNanOpt > CUDNN_PROPAGATE_NAN)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "cudnnSetPoolingNdDescriptor: bad descriptor, mode or NaN option");
    if (nbDims < 1 || nbDims > 3 || !windowDimA || !paddingA || !strideA)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "cudnnSetPoolingNdDescriptor: %d spatial dimensions (1 to 3)", nbDims);
    for (int d = 0; d < nbDims; d++)
        if (windowDimA[d] <= 0 || strideA[d] <= 0 || paddingA[d] < 0)
            return dnn_err(CUDNN_STATUS_BAD_PARAM, "cudnnSetPoolingNdDescriptor: window %d, padding %d, stride %d",
                           windowDimA[d], paddingA[d], strideA[d]);
    p->mode = mode;
    p->nan = maxpoolingNanOpt;
    p->nsp = nbDims;
    for (int d = 0; d < nbDims; d++) {
        p->win[d] = windowDimA[d];
        p->pad[d] = paddingA[d];
        p->stride[d] = strideA[d];
    }
    p->set = 1;
    return CUDNN_STATUS_SUCCESS;
}

HL_EXPORT cudnnStatus_t cudnnSetPooling2dDescriptor(cudnnPoolingDescriptor_t poolingDesc, cudnnPoolingMode_t mode,
                                                    cudnnNanPropagation_t maxpoolingNanOpt, int windowHeight,
                                                    int windowWidth, int verticalPadding, int horizontalPadding,
                                                    int verticalStride, int horizontalStride)
{
    int w[2] = { windowHeight, windowWidth }, p[2] = { verticalPadding, horizontalPadding },
        s[2] = { verticalStride, horizontalStride };
    return cudnnSetPoolingNdDescriptor(poolingDesc, mode, maxpoolingNanOpt, 2, w, p, s);
}

HL_EXPORT cudnnStatus_t cudnnGetPoolingNdDescriptor(const cudnnPoolingDescriptor_t poolingDesc, int nbDimsRequested,
                                                    cudnnPoolingMode_t *mode, cudnnNanPropagation_t *maxpoolingNanOpt,
                                                    int *nbDims, int windowDimA[], int paddingA[], int strideA[])
{
    const struct cudnnPoolingStruct *p = dnn_desc(poolingDesc, DK_POOL);
    if (!p || !mode || !maxpoolingNanOpt || !nbDims || nbDimsRequested < 0 ||
        (nbDimsRequested && (!windowDimA || !paddingA || !strideA)))
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "cudnnGetPoolingNdDescriptor: bad descriptor or argument");
    *mode = p->mode;
    *maxpoolingNanOpt = p->nan;
    *nbDims = p->nsp;
    for (int d = 0; d < nbDimsRequested && d < p->nsp; d++) {
        windowDimA[d] = p->win[d];
        paddingA[d] = p->pad[d];
        strideA[d] = p->stride[d];
    }
    return CUDNN_STATUS_SUCCESS;
}

HL_EXPORT cudnnStatus_t cudnnGetPooling2dDescriptor(const cudnnPoolingDescriptor_t poolingDesc,
                                                    cudnnPoolingMode_t *mode, cudnnNanPropagation_t *maxpoolingNanOpt,
                                                    int *windowHeight, int *windowWidth, int *verticalPadding,
                                                    int *horizontalPadding, int *verticalStride,
                                                    int *horizontalStride)
{
    int n, w[3], p[3], s[3];
    const struct cudnnPoolingStruct *pd = dnn_desc(poolingDesc, DK_POOL);
    if (!pd || pd->nsp != 2 || !windowHeight || !windowWidth || !verticalPadding || !horizontalPadding ||
        !verticalStride || !horizontalStride)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "cudnnGetPooling2dDescriptor: bad (or not 2-D) descriptor, or NULL");
    cudnnStatus_t r = cudnnGetPoolingNdDescriptor(poolingDesc, 3, mode, maxpoolingNanOpt, &n, w, p, s);
    if (r)
        return r;
    *windowHeight = w[0], *windowWidth = w[1], *verticalPadding = p[0], *horizontalPadding = p[1];
    *verticalStride = s[0], *horizontalStride = s[1];
    return CUDNN_STATUS_SUCCESS;
}

/* the output shape of pooling x: 0, or BAD_PARAM */
static cudnnStatus_t out_dims(const struct cudnnPoolingStruct *p, const struct td *x, int *out, const char *fn)
{
    if (x->nb != p->nsp + 2)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: a %d-D pooling of a %d-D tensor", fn, p->nsp, x->nb);
    out[0] = x->dim[0];
    out[1] = x->dim[1];
    for (int d = 0; d < p->nsp; d++) {
        int span = x->dim[d + 2] + 2 * p->pad[d] - p->win[d];
        if (span < 0)
            return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: the window is larger than the padded input", fn);
        out[d + 2] = 1 + span / p->stride[d];
    }
    return CUDNN_STATUS_SUCCESS;
}

HL_EXPORT cudnnStatus_t cudnnGetPoolingNdForwardOutputDim(const cudnnPoolingDescriptor_t poolingDesc,
                                                          const cudnnTensorDescriptor_t inputTensorDesc, int nbDims,
                                                          int outputTensorDimA[])
{
    static const char fn[] = "cudnnGetPoolingNdForwardOutputDim";
    const struct cudnnPoolingStruct *p = dnn_desc(poolingDesc, DK_POOL);
    struct td x;
    cudnnStatus_t r = dnn_td(inputTensorDesc, &x, "inputTensorDesc");
    if (r)
        return r;
    if (!p || !outputTensorDimA || nbDims != x.nb)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: bad descriptor, NULL output or %d dimensions", fn, nbDims);
    int out[CUDNN_DIM_MAX];
    if ((r = out_dims(p, &x, out, fn)))
        return r;
    memcpy(outputTensorDimA, out, (size_t)x.nb * sizeof *out);
    return CUDNN_STATUS_SUCCESS;
}

HL_EXPORT cudnnStatus_t cudnnGetPooling2dForwardOutputDim(const cudnnPoolingDescriptor_t poolingDesc,
                                                          const cudnnTensorDescriptor_t inputTensorDesc, int *n,
                                                          int *c, int *h, int *w)
{
    int out[4];
    if (!n || !c || !h || !w)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "cudnnGetPooling2dForwardOutputDim: NULL output");
    cudnnStatus_t r = cudnnGetPoolingNdForwardOutputDim(poolingDesc, inputTensorDesc, 4, out);
    if (r)
        return r;
    *n = out[0], *c = out[1], *h = out[2], *w = out[3];
    return CUDNN_STATUS_SUCCESS;
}

/* ---- forward and backward ------------------------------------------------- */
struct pj {
    struct hl_job h;
    struct cudnnPoolingStruct p;
    int backward;
    struct td x, y, dy, dx;
    const void *X, *DY;
    void *OUT;                    /* y, or dx */
    double alpha, beta;
    double *grad;                 /* backward: dx before blending, x's logical order */
};

static void run_pool(struct hl_job *hj)
{
    struct pj *j = (struct pj *)hj;
    const struct cudnnPoolingStruct *p = &j->p;
    const struct td *x = &j->x, *y = &j->y;
    int nsp = p->nsp;
    int64_t wsize = 1;
    for (int d = 0; d < nsp; d++)
        wsize *= p->win[d];
    if (j->backward)
        memset(j->grad, 0, (size_t)dnn_count(x) * sizeof *j->grad);
    struct dnn_it oy, ody;
    dnn_it_init(&oy, y);
    dnn_it_init(&ody, &j->dy);
    int64_t ny = dnn_count(y);
    int64_t xsp[3];   /* x's logical strides of the spatial dimensions */
    int64_t acc = 1;
    for (int d = nsp - 1; d >= 0; d--) {
        xsp[d] = acc;
        acc *= x->dim[d + 2];
    }
    for (int64_t i = 0; i < ny; i++, dnn_next(&oy)) {
        int n = oy.idx[0], c = oy.idx[1];
        int64_t base_off = (int64_t)n * x->stride[0] + (int64_t)c * x->stride[1];
        int64_t base_lin = ((int64_t)n * x->dim[1] + c) * acc;
        /* walk the window */
        int k[3] = { 0, 0, 0 };
        double best = 0, sum = 0;
        int64_t best_lin = -1;
        int inside = 0, have = 0;
        for (int64_t w = 0; w < wsize; w++) {
            int in = 1;
            int64_t off = base_off, lin = base_lin;
            for (int d = 0; d < nsp; d++) {
                int pos = oy.idx[d + 2] * p->stride[d] - p->pad[d] + k[d];
                if (pos < 0 || pos >= x->dim[d + 2]) {
                    in = 0;
                    break;
                }
                off += (int64_t)pos * x->stride[d + 2];
                lin += pos * xsp[d];
            }
            if (in) {
                double v = dnn_load(x->type, j->X, off);
                inside++;
                sum += v;
                int take = isnan(v) ? p->nan == CUDNN_PROPAGATE_NAN && !(have && isnan(best)) : !have || v > best;
                if (take) {
                    best = v;
                    best_lin = lin;
                    have = 1;
                }
            }
            for (int d = nsp - 1; d >= 0; d--) {   /* next window position */
                if (++k[d] < p->win[d])
                    break;
                k[d] = 0;
            }
        }
        int maxmode = p->mode == CUDNN_POOLING_MAX || p->mode == CUDNN_POOLING_MAX_DETERMINISTIC;
        double div = p->mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING ? (double)wsize : (double)inside;
        if (!j->backward) {
            double v = !inside ? 0 : maxmode ? best : sum / div;
            v *= j->alpha;
            if (j->beta != 0)
                v += j->beta * dnn_load(y->type, j->OUT, oy.off);
            dnn_store(y->type, j->OUT, oy.off, v);
            continue;
        }
        double g = dnn_load(j->dy.type, j->DY, ody.off);
        dnn_next(&ody);
        if (!inside)
            continue;
        if (maxmode) {
            if (best_lin >= 0)   /* none when every element is NaN and NaN is not propagated */
                j->grad[best_lin] += g;
            continue;
        }
        /* average: every element inside the input gets g / div */
        memset(k, 0, sizeof k);
        for (int64_t w = 0; w < wsize; w++) {
            int in = 1;
            int64_t lin = base_lin;
            for (int d = 0; d < nsp; d++) {
                int pos = oy.idx[d + 2] * p->stride[d] - p->pad[d] + k[d];
                if (pos < 0 || pos >= x->dim[d + 2]) {
                    in = 0;
                    break;
                }
                lin += pos * xsp[d];
            }
            if (in)
                j->grad[lin] += g / div;
            for (int d = nsp - 1; d >= 0; d--) {
                if (++k[d] < p->win[d])
                    break;
                k[d] = 0;
            }
        }
    }
    if (!j->backward)
        return;
    struct dnn_it ix;
    dnn_it_init(&ix, &j->dx);
    int64_t nx = dnn_count(x);
    for (int64_t i = 0; i < nx; i++, dnn_next(&ix)) {
        double v = j->alpha * j->grad[i];
        if (j->beta != 0)
            v += j->beta * dnn_load(j->dx.type, j->OUT, ix.off);
        dnn_store(j->dx.type, j->OUT, ix.off, v);
    }
}

static void fini_pool(struct hl_job *hj)
{
    free(((struct pj *)hj)->grad);
}

static cudnnStatus_t pool_call(cudnnHandle_t handle, cudnnPoolingDescriptor_t desc, struct pj *t, const char *fn)
{
    const struct cudnnPoolingStruct *p = dnn_desc(desc, DK_POOL);
    if (!p)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: not a pooling descriptor that was created and set", fn);
    t->p = *p;
    int out[CUDNN_DIM_MAX];
    cudnnStatus_t r = out_dims(p, &t->x, out, fn);
    if (r)
        return r;
    for (int d = 0; d < t->y.nb; d++)
        if (t->y.nb != t->x.nb || t->y.dim[d] != out[d])
            return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: y's dimension %d is %d, the pooling gives %d", fn, d,
                           t->y.dim[d], out[d]);
    if (t->backward && (!dnn_same_shape(&t->dy, &t->y) || !dnn_same_shape(&t->dx, &t->x)))
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: dy must be y's shape and dx x's", fn);
    const struct td *ts[4] = { &t->x, &t->y, &t->dy, &t->dx };
    for (int i = 0; i < (t->backward ? 4 : 2); i++)
        if (!dnn_float_type(ts[i]->type))
            return dnn_err(CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE, "%s: only float, double, half and bfloat16 data", fn);
    hl_note("host loops (pooling)"); /* tdtrace -e lib= shows it */
    struct pj *j = hl_job_new(sizeof *j, run_pool);
    if (!j)
        return dnn_err(CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED, "%s: out of memory", fn);
    struct hl_job keep = j->h;
    *j = *t;
    j->h = keep;
    j->h.fini = fini_pool;
    if (t->backward && !(j->grad = malloc((size_t)dnn_count(&t->x) * sizeof *j->grad))) {
        hl_job_free(&j->h);
        return dnn_err(CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED, "%s: out of memory", fn);
    }
    r = dnn_hold(&j->h, &j->x, j->X, "x");
    if (!r)
        r = dnn_hold(&j->h, t->backward ? &j->dx : &j->y, j->OUT, t->backward ? "dx" : "y");
    if (!r && t->backward)
        r = dnn_hold(&j->h, &j->dy, j->DY, "dy");
    if (r) {
        hl_job_free(&j->h);
        return r;
    }
    return dnn_submit(handle, &j->h);
}

HL_EXPORT cudnnStatus_t cudnnPoolingForward(cudnnHandle_t handle, const cudnnPoolingDescriptor_t poolingDesc,
                                            const void *alpha, const cudnnTensorDescriptor_t xDesc, const void *x,
                                            const void *beta, const cudnnTensorDescriptor_t yDesc, void *y)
{
    static const char fn[] = "cudnnPoolingForward";
    struct pj t;
    memset(&t, 0, sizeof t);
    cudnnStatus_t r = dnn_handle(handle);
    if (r || (r = dnn_td(xDesc, &t.x, "xDesc")) || (r = dnn_td(yDesc, &t.y, "yDesc")))
        return r;
    if (dnn_scale(t.y.type, alpha, &t.alpha) || dnn_scale(t.y.type, beta, &t.beta))
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: alpha or beta is NULL", fn);
    t.X = x;
    t.OUT = y;
    return pool_call(handle, poolingDesc, &t, fn);
}

/* y is not read: max pooling's choice is made again from x */
HL_EXPORT cudnnStatus_t cudnnPoolingBackward(cudnnHandle_t handle, const cudnnPoolingDescriptor_t poolingDesc,
                                             const void *alpha, const cudnnTensorDescriptor_t yDesc, const void *y,
                                             const cudnnTensorDescriptor_t dyDesc, const void *dy,
                                             const cudnnTensorDescriptor_t xDesc, const void *x, const void *beta,
                                             const cudnnTensorDescriptor_t dxDesc, void *dx)
{
    static const char fn[] = "cudnnPoolingBackward";
    (void)y;
    struct pj t;
    memset(&t, 0, sizeof t);
    cudnnStatus_t r = dnn_handle(handle);
    if (r || (r = dnn_td(yDesc, &t.y, "yDesc")) || (r = dnn_td(dyDesc, &t.dy, "dyDesc")) ||
        (r = dnn_td(xDesc, &t.x, "xDesc")) || (r = dnn_td(dxDesc, &t.dx, "dxDesc")))
        return r;
    if (dnn_scale(t.dx.type, alpha, &t.alpha) || dnn_scale(t.dx.type, beta, &t.beta))
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: alpha or beta is NULL", fn);
    t.backward = 1;
    t.X = x;
    t.DY = dy;
    t.OUT = dx;
    return pool_call(handle, poolingDesc, &t, fn);
}
