/* SPDX-License-Identifier: Apache-2.0 */
/* Convolution descriptors (padding, strides, dilations, groups, mode,
 * math type), the output dimensions they give, and the check of a
 * convolution's operands (dnn_conv_check) that the algorithm queries
 * (conv.c) and the executions (convexec.c) share; which algorithms run. */
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
    return dnn_conv_prob_check(fn, p, 0);
}

cudnnStatus_t dnn_conv_prob_check(const char *fn, const struct conv_prob *p, int float_out)
{
    const struct cudnnConvolutionStruct *c = &p->conv;
    enum conv_kind k = p->kind;
    cudnnStatus_t r;
    int out[CUDNN_DIM_MAX];
    if ((r = out_dims(c, &p->x, &p->w, out, fn)))
        return r;
    for (int d = 0; d < p->x.nb; d++)
        if (p->y.nb != p->x.nb || p->y.dim[d] != out[d])
            return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: %s's dimension %d is %d, the convolution gives %d", fn,
                           k == CK_FWD ? "y" : "dy", d, d < p->y.nb ? p->y.dim[d] : 0, out[d]);
    /* the inputs' type; the output's may be float when float_out says so */
    const struct td *in = k == CK_BWD_FILTER ? &p->x : &p->w;
    const struct td *o = k == CK_FWD ? &p->y : k == CK_BWD_DATA ? &p->x : &p->w;
    cudnnDataType_t t = in->type;
    const struct td *ts[3] = { &p->x, &p->w, &p->y };
    for (int i = 0; i < 3; i++)
        if (ts[i]->type != t && !(ts[i] == o && float_out && o->type == CUDNN_DATA_FLOAT))
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

/* the algorithms this library runs, per kind of convolution */
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
