/* Convolution descriptors, output dimensions, and the algorithm queries:
 * counts, the heuristics (..._v7), the Find functions (which time the one
 * implementation), workspace sizes.
 *
 * Every algorithm offered runs the same oneDNN convolution (convexec.c):
 * forward IMPLICIT_GEMM, IMPLICIT_PRECOMP_GEMM and GEMM; backward data
 * ALGO_0 and ALGO_1; backward filter ALGO_0, ALGO_1 and ALGO_3. None needs a
 * workspace of the program's. The others (FFT, FFT_TILING, WINOGRAD,
 * WINOGRAD_NONFUSED, DIRECT) are CUDNN_STATUS_NOT_SUPPORTED. */
#include "dnn.h"

#include <string.h>

HL_EXPORT cudnnStatus_t cudnnCreateConvolutionDescriptor(cudnnConvolutionDescriptor_t *convDesc)
{
    cudnnStatus_t r = dnn_create((void **)convDesc, sizeof(struct cudnnConvolutionStruct), DK_CONV);
    if (!r)
        (*convDesc)->groups = 1;
    return r;
}

HL_EXPORT cudnnStatus_t cudnnDestroyConvolutionDescriptor(cudnnConvolutionDescriptor_t convDesc)
{
    return dnn_destroy(convDesc, DK_CONV);
}

static struct cudnnConvolutionStruct *conv(cudnnConvolutionDescriptor_t d)
{
    return hl_handle_live(d, DK_CONV) ? d : NULL;
}

HL_EXPORT cudnnStatus_t cudnnSetConvolutionNdDescriptor(cudnnConvolutionDescriptor_t convDesc, int arrayLength,
                                                        const int padA[], const int filterStrideA[],
                                                        const int dilationA[], cudnnConvolutionMode_t mode,
                                                        cudnnDataType_t computeType)
{
    static const char fn[] = "cudnnSetConvolutionNdDescriptor";
    struct cudnnConvolutionStruct *c = conv(convDesc);
    if (!c)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: not a convolution descriptor", fn);
    if (arrayLength < 1 || arrayLength > CUDNN_DIM_MAX - 2 || !padA || !filterStrideA || !dilationA)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: %d spatial dimensions, or a NULL array", fn, arrayLength);
    if ((unsigned)mode > CUDNN_CROSS_CORRELATION)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: mode %d", fn, (int)mode);
    if (computeType != CUDNN_DATA_FLOAT && computeType != CUDNN_DATA_DOUBLE && computeType != CUDNN_DATA_HALF &&
        computeType != CUDNN_DATA_BFLOAT16 && computeType != CUDNN_DATA_INT32)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: compute type %d", fn, (int)computeType);
    for (int d = 0; d < arrayLength; d++)
        if (padA[d] < 0 || filterStrideA[d] <= 0 || dilationA[d] <= 0)
            return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: padding %d, stride %d, dilation %d", fn, padA[d],
                           filterStrideA[d], dilationA[d]);
    c->nsp = arrayLength;
    for (int d = 0; d < arrayLength; d++) {
        c->pad[d] = padA[d];
        c->stride[d] = filterStrideA[d];
        c->dil[d] = dilationA[d];
    }
    c->mode = mode;
    c->compute = computeType;
    c->set = 1;
    return CUDNN_STATUS_SUCCESS;
}

HL_EXPORT cudnnStatus_t cudnnSetConvolution2dDescriptor(cudnnConvolutionDescriptor_t convDesc, int pad_h, int pad_w,
                                                        int u, int v, int dilation_h, int dilation_w,
                                                        cudnnConvolutionMode_t mode, cudnnDataType_t computeType)
{
    int pad[2] = { pad_h, pad_w }, stride[2] = { u, v }, dil[2] = { dilation_h, dilation_w };
    return cudnnSetConvolutionNdDescriptor(convDesc, 2, pad, stride, dil, mode, computeType);
}

HL_EXPORT cudnnStatus_t cudnnGetConvolutionNdDescriptor(const cudnnConvolutionDescriptor_t convDesc,
                                                        int arrayLengthRequested, int *arrayLength, int padA[],
                                                        int strideA[], int dilationA[], cudnnConvolutionMode_t *mode,
                                                        cudnnDataType_t *computeType)
{
    const struct cudnnConvolutionStruct *c = dnn_desc(convDesc, DK_CONV);
    if (!c || !arrayLength || !mode || !computeType || arrayLengthRequested < 0 ||
        (arrayLengthRequested && (!padA || !strideA || !dilationA)))
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "cudnnGetConvolutionNdDescriptor: bad descriptor or argument");
    *arrayLength = c->nsp;
    for (int d = 0; d < arrayLengthRequested && d < c->nsp; d++) {
        padA[d] = c->pad[d];
        strideA[d] = c->stride[d];
        dilationA[d] = c->dil[d];
    }
    *mode = c->mode;
    *computeType = c->compute;
    return CUDNN_STATUS_SUCCESS;
}

HL_EXPORT cudnnStatus_t cudnnGetConvolution2dDescriptor(const cudnnConvolutionDescriptor_t convDesc, int *pad_h,
                                                        int *pad_w, int *u, int *v, int *dilation_h, int *dilation_w,
                                                        cudnnConvolutionMode_t *mode, cudnnDataType_t *computeType)
{
    const struct cudnnConvolutionStruct *c = dnn_desc(convDesc, DK_CONV);
    if (!c || c->nsp != 2 || !pad_h || !pad_w || !u || !v || !dilation_h || !dilation_w || !mode || !computeType)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "cudnnGetConvolution2dDescriptor: bad (or not 2-D) descriptor, or NULL");
    *pad_h = c->pad[0], *pad_w = c->pad[1], *u = c->stride[0], *v = c->stride[1];
    *dilation_h = c->dil[0], *dilation_w = c->dil[1], *mode = c->mode, *computeType = c->compute;
    return CUDNN_STATUS_SUCCESS;
}

#define SETGET(NAME, TYPE, FIELD, VALID)                                                                   \
    HL_EXPORT cudnnStatus_t cudnnSetConvolution##NAME(cudnnConvolutionDescriptor_t convDesc, TYPE v)        \
    {                                                                                                      \
        struct cudnnConvolutionStruct *c = conv(convDesc);                                                  \
        if (!c || !(VALID))                                                                                \
            return dnn_err(CUDNN_STATUS_BAD_PARAM, "cudnnSetConvolution" #NAME ": bad descriptor or value"); \
        c->FIELD = v;                                                                                      \
        return CUDNN_STATUS_SUCCESS;                                                                       \
    }                                                                                                      \
    HL_EXPORT cudnnStatus_t cudnnGetConvolution##NAME(cudnnConvolutionDescriptor_t convDesc, TYPE *v)       \
    {                                                                                                      \
        const struct cudnnConvolutionStruct *c = conv(convDesc);                                            \
        if (!c || !v)                                                                                      \
            return dnn_err(CUDNN_STATUS_BAD_PARAM, "cudnnGetConvolution" #NAME ": bad descriptor or NULL"); \
        *v = c->FIELD;                                                                                     \
        return CUDNN_STATUS_SUCCESS;                                                                       \
    }
SETGET(MathType, cudnnMathType_t, math, (unsigned)v <= CUDNN_FMA_MATH)
SETGET(GroupCount, int, groups, v >= 1)
SETGET(ReorderType, cudnnReorderType_t, reorder, (unsigned)v <= CUDNN_NO_REORDER)
#undef SETGET

/* ---- shapes ------------------------------------------------------------------ */
/* the output of convolving x with w: BAD_PARAM for shapes that do not fit */
static cudnnStatus_t out_dims(const struct cudnnConvolutionStruct *c, const struct td *x, const struct td *w,
                              int *out, const char *fn)
{
    if (x->nb != c->nsp + 2 || w->nb != x->nb)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: a %d-D convolution of a %d-D tensor with a %d-D filter", fn,
                       c->nsp, x->nb, w->nb);
    if (x->dim[1] != w->dim[1] * c->groups || w->dim[0] % c->groups)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: %d input channels, a filter of %d x %d in %d groups", fn,
                       x->dim[1], w->dim[0], w->dim[1], c->groups);
    out[0] = x->dim[0];
    out[1] = w->dim[0];
    for (int d = 0; d < c->nsp; d++) {
        int64_t span = (int64_t)x->dim[d + 2] + 2 * (int64_t)c->pad[d] - ((int64_t)(w->dim[d + 2] - 1) * c->dil[d] + 1);
        if (span < 0)
            return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: the (dilated) filter is larger than the padded input", fn);
        out[d + 2] = (int)(1 + span / c->stride[d]);
    }
    return CUDNN_STATUS_SUCCESS;
}

HL_EXPORT cudnnStatus_t cudnnGetConvolutionNdForwardOutputDim(const cudnnConvolutionDescriptor_t convDesc,
                                                              const cudnnTensorDescriptor_t inputTensorDesc,
                                                              const cudnnFilterDescriptor_t filterDesc, int nbDims,
                                                              int tensorOuputDimA[])
{
    static const char fn[] = "cudnnGetConvolutionNdForwardOutputDim";
    const struct cudnnConvolutionStruct *c = dnn_desc(convDesc, DK_CONV);
    struct td x, w;
    cudnnStatus_t r;
    if (!c)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: not a convolution descriptor that was created and set", fn);
    if ((r = dnn_td(inputTensorDesc, &x, "inputTensorDesc")) || (r = dnn_fd(filterDesc, &w, "filterDesc")))
        return r;
    if (!tensorOuputDimA || nbDims != x.nb)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: NULL output, or %d dimensions for a %d-D tensor", fn, nbDims,
                       x.nb);
    int out[CUDNN_DIM_MAX];
    if ((r = out_dims(c, &x, &w, out, fn)))
        return r;
    memcpy(tensorOuputDimA, out, (size_t)x.nb * sizeof *out);
    return CUDNN_STATUS_SUCCESS;
}

HL_EXPORT cudnnStatus_t cudnnGetConvolution2dForwardOutputDim(const cudnnConvolutionDescriptor_t convDesc,
                                                              const cudnnTensorDescriptor_t inputTensorDesc,
                                                              const cudnnFilterDescriptor_t filterDesc, int *n,
                                                              int *c, int *h, int *w)
{
    int out[4];
    if (!n || !c || !h || !w)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "cudnnGetConvolution2dForwardOutputDim: NULL output");
    cudnnStatus_t r = cudnnGetConvolutionNdForwardOutputDim(convDesc, inputTensorDesc, filterDesc, 4, out);
    if (r)
        return r;
    *n = out[0], *c = out[1], *h = out[2], *w = out[3];
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t dnn_conv_check(const char *fn, cudnnTensorDescriptor_t xDesc, cudnnFilterDescriptor_t wDesc,
                             cudnnConvolutionDescriptor_t convDesc, cudnnTensorDescriptor_t yDesc, enum conv_kind k,
                             struct conv_prob *p)
{
    memset(p, 0, sizeof *p);
    const struct cudnnConvolutionStruct *c = dnn_desc(convDesc, DK_CONV);
    cudnnStatus_t r;
    if (!c)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: not a convolution descriptor that was created and set", fn);
    if ((r = dnn_td(xDesc, &p->x, k == CK_BWD_DATA ? "dxDesc" : "xDesc")) ||
        (r = dnn_fd(wDesc, &p->w, k == CK_BWD_FILTER ? "dwDesc" : "wDesc")) ||
        (r = dnn_td(yDesc, &p->y, k == CK_FWD ? "yDesc" : "dyDesc")))
        return r;
    p->kind = k;
    p->conv = *c;
    int out[CUDNN_DIM_MAX];
    if ((r = out_dims(c, &p->x, &p->w, out, fn)))
        return r;
    for (int d = 0; d < p->x.nb; d++)
        if (p->y.nb != p->x.nb || p->y.dim[d] != out[d])
            return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: %s's dimension %d is %d, the convolution gives %d", fn,
                           k == CK_FWD ? "y" : "dy", d, d < p->y.nb ? p->y.dim[d] : 0, out[d]);
    cudnnDataType_t t = p->x.type;
    if (p->w.type != t || p->y.type != t)
        return dnn_err(CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE, "%s: tensors and filter of different types", fn);
    int ok = (t == CUDNN_DATA_FLOAT && c->compute == CUDNN_DATA_FLOAT) ||
             (t == CUDNN_DATA_HALF && (c->compute == CUDNN_DATA_HALF || c->compute == CUDNN_DATA_FLOAT)) ||
             (t == CUDNN_DATA_BFLOAT16 && (c->compute == CUDNN_DATA_BFLOAT16 || c->compute == CUDNN_DATA_FLOAT));
    if (!ok)
        return dnn_err(CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE, "%s: data type %d with compute type %d (float, half "
                       "and bfloat16 data are supported; double convolutions are not)", fn, (int)t, (int)c->compute);
    if (c->nsp > 3)
        return dnn_err(CUDNN_STATUS_NOT_SUPPORTED_SHAPE, "%s: %d spatial dimensions (1 to 3)", fn, c->nsp);
    return CUDNN_STATUS_SUCCESS;
}

/* ---- algorithms -------------------------------------------------------------- */
static const int algo_count[3] = { CUDNN_CONVOLUTION_FWD_ALGO_COUNT, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT,
                                   CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT };

int dnn_conv_algo_ok(enum conv_kind k, int a)
{
    switch (k) {
    case CK_FWD:
        return a == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM || a == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM ||
               a == CUDNN_CONVOLUTION_FWD_ALGO_GEMM;
    case CK_BWD_DATA:
        return a == CUDNN_CONVOLUTION_BWD_DATA_ALGO_0 || a == CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
    case CK_BWD_FILTER:
        return a == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0 || a == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1 ||
               a == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3;
    }
    return 0;
}

static cudnnStatus_t max_count(cudnnHandle_t handle, int *count, enum conv_kind k)
{
    cudnnStatus_t r = dnn_handle(handle);
    if (r)
        return r;
    if (!count)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "the count is NULL");
    *count = algo_count[k];
    return CUDNN_STATUS_SUCCESS;
}

HL_EXPORT cudnnStatus_t cudnnGetConvolutionForwardAlgorithmMaxCount(cudnnHandle_t handle, int *count)
{
    return max_count(handle, count, CK_FWD);
}

HL_EXPORT cudnnStatus_t cudnnGetConvolutionBackwardDataAlgorithmMaxCount(cudnnHandle_t handle, int *count)
{
    return max_count(handle, count, CK_BWD_DATA);
}

HL_EXPORT cudnnStatus_t cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(cudnnHandle_t handle, int *count)
{
    return max_count(handle, count, CK_BWD_FILTER);
}

/* The results of a query, in the layout all three perf structs share: the
 * algorithms this library runs first (with time, or -1 from the
 * heuristics), then the others as CUDNN_STATUS_NOT_SUPPORTED. */
static cudnnStatus_t results(cudnnHandle_t handle, const char *fn, cudnnTensorDescriptor_t xDesc,
                             cudnnFilterDescriptor_t wDesc, cudnnConvolutionDescriptor_t convDesc,
                             cudnnTensorDescriptor_t yDesc, enum conv_kind k, int requested, int *returned,
                             cudnnConvolutionFwdAlgoPerf_t *perf, int timed)
{
    cudnnStatus_t r = dnn_handle(handle);
    struct conv_prob p;
    if (r || (r = dnn_conv_check(fn, xDesc, wDesc, convDesc, yDesc, k, &p)))
        return r;
    if (requested <= 0 || !returned || !perf)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: %d results asked for, or a NULL array", fn, requested);
    float ms = -1;
    if (timed && (ms = dnn_conv_time(&p)) < 0)
        return dnn_err(CUDNN_STATUS_INTERNAL_ERROR, "%s: the convolution could not be run (oneDNN refused it)", fn);
    int n = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int a = 0; a < algo_count[k] && n < requested; a++) {
            int ok = dnn_conv_algo_ok(k, a);
            if (ok != !pass)
                continue;
            memset(&perf[n], 0, sizeof perf[n]);
            perf[n].algo = (cudnnConvolutionFwdAlgo_t)a;
            perf[n].status = ok ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_NOT_SUPPORTED;
            perf[n].time = ok ? ms : -1;
            perf[n].memory = 0;
            perf[n].determinism = CUDNN_DETERMINISTIC;
            perf[n].mathType = p.conv.math;
            n++;
        }
    *returned = n;
    return CUDNN_STATUS_SUCCESS;
}

HL_EXPORT cudnnStatus_t cudnnGetConvolutionForwardAlgorithm_v7(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t srcDesc, const cudnnFilterDescriptor_t filterDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t destDesc, const int requestedAlgoCount,
    int *returnedAlgoCount, cudnnConvolutionFwdAlgoPerf_t *perfResults)
{
    return results(handle, "cudnnGetConvolutionForwardAlgorithm_v7", srcDesc, filterDesc, convDesc, destDesc, CK_FWD,
                   requestedAlgoCount, returnedAlgoCount, perfResults, 0);
}

HL_EXPORT cudnnStatus_t cudnnFindConvolutionForwardAlgorithm(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const cudnnFilterDescriptor_t wDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t yDesc, const int requestedAlgoCount,
    int *returnedAlgoCount, cudnnConvolutionFwdAlgoPerf_t *perfResults)
{
    return results(handle, "cudnnFindConvolutionForwardAlgorithm", xDesc, wDesc, convDesc, yDesc, CK_FWD,
                   requestedAlgoCount, returnedAlgoCount, perfResults, 1);
}

/* the Ex forms: the buffers are checked; the timing runs on scratch memory */
static cudnnStatus_t check_buffers(const struct conv_prob *p, const void *x, const void *w, const void *y)
{
    struct hl_job *j = hl_job_new(sizeof *j, NULL);
    if (!j)
        return dnn_err(CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED, "out of memory");
    cudnnStatus_t r = dnn_hold(j, &p->x, x, p->kind == CK_BWD_DATA ? "dx" : "x");
    if (!r)
        r = dnn_hold(j, &p->w, w, p->kind == CK_BWD_FILTER ? "dw" : "w");
    if (!r)
        r = dnn_hold(j, &p->y, y, p->kind == CK_FWD ? "y" : "dy");
    hl_job_free(j);
    return r;
}

HL_EXPORT cudnnStatus_t cudnnFindConvolutionForwardAlgorithmEx(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const void *x, const cudnnFilterDescriptor_t wDesc,
    const void *w, const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t yDesc, void *y,
    const int requestedAlgoCount, int *returnedAlgoCount, cudnnConvolutionFwdAlgoPerf_t *perfResults, void *workSpace,
    size_t workSpaceSizeInBytes)
{
    static const char fn[] = "cudnnFindConvolutionForwardAlgorithmEx";
    (void)workSpace, (void)workSpaceSizeInBytes;
    struct conv_prob p;
    cudnnStatus_t r = dnn_handle(handle);
    if (r || (r = dnn_conv_check(fn, xDesc, wDesc, convDesc, yDesc, CK_FWD, &p)) || (r = check_buffers(&p, x, w, y)))
        return r;
    return results(handle, fn, xDesc, wDesc, convDesc, yDesc, CK_FWD, requestedAlgoCount, returnedAlgoCount,
                   perfResults, 1);
}

HL_EXPORT cudnnStatus_t cudnnGetConvolutionBackwardDataAlgorithm_v7(
    cudnnHandle_t handle, const cudnnFilterDescriptor_t filterDesc, const cudnnTensorDescriptor_t diffDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t gradDesc, const int requestedAlgoCount,
    int *returnedAlgoCount, cudnnConvolutionBwdDataAlgoPerf_t *perfResults)
{
    return results(handle, "cudnnGetConvolutionBackwardDataAlgorithm_v7", gradDesc, filterDesc, convDesc, diffDesc,
                   CK_BWD_DATA, requestedAlgoCount, returnedAlgoCount, (cudnnConvolutionFwdAlgoPerf_t *)perfResults,
                   0);
}

HL_EXPORT cudnnStatus_t cudnnFindConvolutionBackwardDataAlgorithm(
    cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc, const cudnnTensorDescriptor_t dyDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t dxDesc, const int requestedAlgoCount,
    int *returnedAlgoCount, cudnnConvolutionBwdDataAlgoPerf_t *perfResults)
{
    return results(handle, "cudnnFindConvolutionBackwardDataAlgorithm", dxDesc, wDesc, convDesc, dyDesc, CK_BWD_DATA,
                   requestedAlgoCount, returnedAlgoCount, (cudnnConvolutionFwdAlgoPerf_t *)perfResults, 1);
}

HL_EXPORT cudnnStatus_t cudnnFindConvolutionBackwardDataAlgorithmEx(
    cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc, const void *w, const cudnnTensorDescriptor_t dyDesc,
    const void *dy, const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t dxDesc, void *dx,
    const int requestedAlgoCount, int *returnedAlgoCount, cudnnConvolutionBwdDataAlgoPerf_t *perfResults,
    void *workSpace, size_t workSpaceSizeInBytes)
{
    static const char fn[] = "cudnnFindConvolutionBackwardDataAlgorithmEx";
    (void)workSpace, (void)workSpaceSizeInBytes;
    struct conv_prob p;
    cudnnStatus_t r = dnn_handle(handle);
    if (r || (r = dnn_conv_check(fn, dxDesc, wDesc, convDesc, dyDesc, CK_BWD_DATA, &p)) ||
        (r = check_buffers(&p, dx, w, dy)))
        return r;
    return results(handle, fn, dxDesc, wDesc, convDesc, dyDesc, CK_BWD_DATA, requestedAlgoCount, returnedAlgoCount,
                   (cudnnConvolutionFwdAlgoPerf_t *)perfResults, 1);
}

HL_EXPORT cudnnStatus_t cudnnGetConvolutionBackwardFilterAlgorithm_v7(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t srcDesc, const cudnnTensorDescriptor_t diffDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t gradDesc, const int requestedAlgoCount,
    int *returnedAlgoCount, cudnnConvolutionBwdFilterAlgoPerf_t *perfResults)
{
    return results(handle, "cudnnGetConvolutionBackwardFilterAlgorithm_v7", srcDesc, gradDesc, convDesc, diffDesc,
                   CK_BWD_FILTER, requestedAlgoCount, returnedAlgoCount, (cudnnConvolutionFwdAlgoPerf_t *)perfResults,
                   0);
}

HL_EXPORT cudnnStatus_t cudnnFindConvolutionBackwardFilterAlgorithm(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const cudnnTensorDescriptor_t dyDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t dwDesc, const int requestedAlgoCount,
    int *returnedAlgoCount, cudnnConvolutionBwdFilterAlgoPerf_t *perfResults)
{
    return results(handle, "cudnnFindConvolutionBackwardFilterAlgorithm", xDesc, dwDesc, convDesc, dyDesc,
                   CK_BWD_FILTER, requestedAlgoCount, returnedAlgoCount, (cudnnConvolutionFwdAlgoPerf_t *)perfResults,
                   1);
}

HL_EXPORT cudnnStatus_t cudnnFindConvolutionBackwardFilterAlgorithmEx(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const void *x, const cudnnTensorDescriptor_t dyDesc,
    const void *y, const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t dwDesc, void *dw,
    const int requestedAlgoCount, int *returnedAlgoCount, cudnnConvolutionBwdFilterAlgoPerf_t *perfResults,
    void *workSpace, size_t workSpaceSizeInBytes)
{
    static const char fn[] = "cudnnFindConvolutionBackwardFilterAlgorithmEx";
    (void)workSpace, (void)workSpaceSizeInBytes;
    struct conv_prob p;
    cudnnStatus_t r = dnn_handle(handle);
    if (r || (r = dnn_conv_check(fn, xDesc, dwDesc, convDesc, dyDesc, CK_BWD_FILTER, &p)) ||
        (r = check_buffers(&p, x, dw, y)))
        return r;
    return results(handle, fn, xDesc, dwDesc, convDesc, dyDesc, CK_BWD_FILTER, requestedAlgoCount, returnedAlgoCount,
                   (cudnnConvolutionFwdAlgoPerf_t *)perfResults, 1);
}

static cudnnStatus_t workspace(cudnnHandle_t handle, const char *fn, cudnnTensorDescriptor_t xDesc,
                               cudnnFilterDescriptor_t wDesc, cudnnConvolutionDescriptor_t convDesc,
                               cudnnTensorDescriptor_t yDesc, enum conv_kind k, int algo, size_t *size)
{
    cudnnStatus_t r = dnn_handle(handle);
    struct conv_prob p;
    if (r || (r = dnn_conv_check(fn, xDesc, wDesc, convDesc, yDesc, k, &p)))
        return r;
    if (!size)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: sizeInBytes is NULL", fn);
    if (!dnn_conv_algo_ok(k, algo))
        return dnn_err(CUDNN_STATUS_NOT_SUPPORTED, "%s: algorithm %d is not implemented here", fn, algo);
    *size = 0;
    return CUDNN_STATUS_SUCCESS;
}

HL_EXPORT cudnnStatus_t cudnnGetConvolutionForwardWorkspaceSize(cudnnHandle_t handle,
                                                                const cudnnTensorDescriptor_t xDesc,
                                                                const cudnnFilterDescriptor_t wDesc,
                                                                const cudnnConvolutionDescriptor_t convDesc,
                                                                const cudnnTensorDescriptor_t yDesc,
                                                                cudnnConvolutionFwdAlgo_t algo, size_t *sizeInBytes)
{
    return workspace(handle, "cudnnGetConvolutionForwardWorkspaceSize", xDesc, wDesc, convDesc, yDesc, CK_FWD, algo,
                     sizeInBytes);
}

HL_EXPORT cudnnStatus_t cudnnGetConvolutionBackwardDataWorkspaceSize(cudnnHandle_t handle,
                                                                     const cudnnFilterDescriptor_t wDesc,
                                                                     const cudnnTensorDescriptor_t dyDesc,
                                                                     const cudnnConvolutionDescriptor_t convDesc,
                                                                     const cudnnTensorDescriptor_t dxDesc,
                                                                     cudnnConvolutionBwdDataAlgo_t algo,
                                                                     size_t *sizeInBytes)
{
    return workspace(handle, "cudnnGetConvolutionBackwardDataWorkspaceSize", dxDesc, wDesc, convDesc, dyDesc,
                     CK_BWD_DATA, algo, sizeInBytes);
}

HL_EXPORT cudnnStatus_t cudnnGetConvolutionBackwardFilterWorkspaceSize(cudnnHandle_t handle,
                                                                       const cudnnTensorDescriptor_t xDesc,
                                                                       const cudnnTensorDescriptor_t dyDesc,
                                                                       const cudnnConvolutionDescriptor_t convDesc,
                                                                       const cudnnFilterDescriptor_t gradDesc,
                                                                       cudnnConvolutionBwdFilterAlgo_t algo,
                                                                       size_t *sizeInBytes)
{
    return workspace(handle, "cudnnGetConvolutionBackwardFilterWorkspaceSize", xDesc, gradDesc, convDesc, dyDesc,
                     CK_BWD_FILTER, algo, sizeInBytes);
}
