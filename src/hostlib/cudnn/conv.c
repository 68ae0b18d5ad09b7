/* SPDX-License-Identifier: Apache-2.0 */
/* The convolution algorithm queries:
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

/* ---- algorithms -------------------------------------------------------------- */
static const int algo_count[3] = { CUDNN_CONVOLUTION_FWD_ALGO_COUNT, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT,
                                   CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT };


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
