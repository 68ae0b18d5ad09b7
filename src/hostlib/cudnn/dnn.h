/* SPDX-License-Identifier: Apache-2.0 */
/* cuDNN on the host: what the family files share (handle.c, tensor.c,
 * tensorops.c, act.c, pool.c, bnorm.c, conv.c, convexec.c).
 *
 * Every descriptor is created by the library and kept in the registry of
 * live handles with its kind, so a destroyed or made-up one is
 * CUDNN_STATUS_BAD_PARAM, never dereferenced. A call copies what it needs
 * of its descriptors (a program may change or destroy them once the call
 * returned), validates and holds every device range, and queues a job on
 * the handle's stream. Scaling factors (alpha, beta) are host memory, double
 * for double data and float otherwise, as cuDNN documents.
 *
 * Tensors are handled in their logical dimension order (N, C, spatial...)
 * with the strides of their descriptor: NCHW, NHWC and any strided layout
 * alike. */
#ifndef TD_HOSTLIB_DNN_H
#define TD_HOSTLIB_DNN_H

#include "cudnn_api.h"
#include "hostlib.h"

enum dnn_kind {
    DK_HANDLE = 1,
    DK_TENSOR,
    DK_FILTER,
    DK_CONV,
    DK_POOL,
    DK_ACT,
    DK_OPTENSOR,
    DK_BACKEND,   /* the backend API's descriptors (bk.h) */
};

struct cudnnContext {
    CUstream stream;
};

struct cudnnTensorStruct {
    int set;
    cudnnDataType_t type;
    int nb;
    int dim[CUDNN_DIM_MAX], stride[CUDNN_DIM_MAX];
};

struct cudnnFilterStruct {
    int set;
    cudnnDataType_t type;
    cudnnTensorFormat_t format;
    int nb;
    int dim[CUDNN_DIM_MAX];
};

struct cudnnConvolutionStruct {
    int set;
    int nsp;                     /* spatial dimensions */
    int pad[CUDNN_DIM_MAX - 2], stride[CUDNN_DIM_MAX - 2], dil[CUDNN_DIM_MAX - 2];
    cudnnConvolutionMode_t mode;
    cudnnDataType_t compute;
    cudnnMathType_t math;
    cudnnReorderType_t reorder;
    int groups;
};

struct cudnnPoolingStruct {
    int set;
    cudnnPoolingMode_t mode;
    cudnnNanPropagation_t nan;
    int nsp;
    int win[3], pad[3], stride[3];
};

struct cudnnActivationStruct {
    int set;
    cudnnActivationMode_t mode;
    cudnnNanPropagation_t nan;
    double coef, swish_beta;
};

struct cudnnOpTensorStruct {
    int set;
    cudnnOpTensorOp_t op;
    cudnnDataType_t comp;
    cudnnNanPropagation_t nan;
};

/* ---- handle.c ------------------------------------------------------------ */
/* Records the message cudnnGetLastErrorString returns for this thread, and
 * returns st (printf-style). */
cudnnStatus_t dnn_err(cudnnStatus_t st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
cudnnStatus_t dnn_handle(cudnnHandle_t h);   /* CUDNN_STATUS_BAD_PARAM for anything not live */
/* queues j on the handle's stream */
cudnnStatus_t dnn_submit(cudnnHandle_t h, struct hl_job *j);
/* a descriptor of kind k: live and set (NULL otherwise) */
void *dnn_desc(const void *d, enum dnn_kind k);
/* Create/Destroy for any kind */
cudnnStatus_t dnn_create(void **d, size_t size, enum dnn_kind k);
cudnnStatus_t dnn_destroy(void *d, enum dnn_kind k);

/* ---- tensor.c -------------------------------------------------------------- */
/* a tensor as a job keeps it */
struct td {
    cudnnDataType_t type;
    int nb;
    int dim[CUDNN_DIM_MAX];
    int64_t stride[CUDNN_DIM_MAX];
};
size_t dnn_type_size(cudnnDataType_t t);        /* 0 for a type without a size here */
int dnn_float_type(cudnnDataType_t t);          /* float, double, half, bfloat16 */
double dnn_load(cudnnDataType_t t, const void *p, int64_t i);
void dnn_store(cudnnDataType_t t, void *p, int64_t i, double v);
/* the tensor of a live, set descriptor (BAD_PARAM otherwise, with a message naming what) */
cudnnStatus_t dnn_td(cudnnTensorDescriptor_t d, struct td *t, const char *what);
/* a filter as a packed tensor (KCRS or KRSC strides) */
cudnnStatus_t dnn_fd(cudnnFilterDescriptor_t d, struct td *t, const char *what);
int64_t dnn_count(const struct td *t);          /* elements */
int64_t dnn_span(const struct td *t);           /* bytes from the first element, -1 on overflow */
/* validates and holds a tensor's memory for job j: 0 or BAD_PARAM */
cudnnStatus_t dnn_hold(struct hl_job *j, const struct td *t, const void *p, const char *what);
int dnn_same_shape(const struct td *a, const struct td *b);
/* offset (elements) of the element at linear index i of t's logical
 * row-major order; iterating with dnn_next is cheaper */
struct dnn_it {
    int nb;
    int dim[CUDNN_DIM_MAX];
    int64_t stride[CUDNN_DIM_MAX];
    int idx[CUDNN_DIM_MAX];
    int64_t off;
};
void dnn_it_init(struct dnn_it *it, const struct td *t);
void dnn_next(struct dnn_it *it);
/* gathers a tensor into dense row-major doubles/floats, and back:
 * dst = alpha * src + beta * dst (dst not read when beta is 0) */
void dnn_gather_f(const struct td *t, const void *p, float *dense);
void dnn_scatter_f(const struct td *t, void *p, const float *dense, double alpha, double beta);
/* alpha/beta of a call: double for double data, float otherwise; -1 for a NULL pointer */
int dnn_scale(cudnnDataType_t data, const void *p, double *v);

/* ---- conv.c, convexec.c --------------------------------------------------- */
enum conv_kind { CK_FWD, CK_BWD_DATA, CK_BWD_FILTER };
/* a convolution problem: x (src, or diff src), w (weights, or their
 * gradient; a packed tensor), y (dst, or diff dst), the descriptor */
struct conv_prob {
    enum conv_kind kind;
    struct td x, w, y;
    struct cudnnConvolutionStruct conv;
};
/* Checks a convolution's descriptors as every convolution function does:
 * shapes (y must be the output cudnnGetConvolutionNdForwardOutputDim gives),
 * groups, types (float, half, bfloat16 data; double is not supported). */
cudnnStatus_t dnn_conv_check(const char *fn, cudnnTensorDescriptor_t xDesc, cudnnFilterDescriptor_t wDesc,
                             cudnnConvolutionDescriptor_t convDesc, cudnnTensorDescriptor_t yDesc, enum conv_kind k,
                             struct conv_prob *p);
/* the checks of dnn_conv_check on a problem already filled in (the
 * backend API's); float_out: the output may be float where the inputs are
 * half or bfloat16 */
cudnnStatus_t dnn_conv_prob_check(const char *fn, const struct conv_prob *p, int float_out);
/* does this implementation run algorithm a of kind k? */
int dnn_conv_algo_ok(enum conv_kind k, int a);
/* runs the problem once on scratch memory and returns the milliseconds it
 * took, or a negative number if it could not (convexec.c) */
float dnn_conv_time(const struct conv_prob *p);
/* A prepared convolution (convexec.c), for the backend API's jobs:
 * prepared at the call for these scaling factors (so that the job cannot
 * fail), run on the stream with the operands' pointers (x, w, y, in the
 * program's memory or host scratch): out = alpha * result + beta * out,
 * then released. */
struct cx;
cudnnStatus_t dnn_conv_prepare(struct cx **c, const struct conv_prob *p, double alpha, double beta, const char *fn);
void dnn_conv_run(struct cx *c, void *const ptr[3], double alpha, double beta);
void dnn_conv_release(struct cx *c);

/* ---- act.c ----------------------------------------------------------------- */
/* an activation function at x (cudnnActivationForward's f) */
double dnn_act(const struct cudnnActivationStruct *a, double x);

#endif
