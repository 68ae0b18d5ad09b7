/* SPDX-License-Identifier: Apache-2.0 */
/* The descriptor functions of a libcudnn.so.9, loaded with dlopen from the
 * path given, called in one fixed sequence (good and bad arguments) that
 * prints every status and result. tests/hostlib/run.sh runs it on the host
 * cuDNN and on NVIDIA's library (whose descriptor functions need no GPU)
 * and compares the two outputs line by line: the host library must answer
 * as NVIDIA's does.
 *   cudnn_desc LIBRARY */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "cudnn_api.h"

static void *lib;
static void *sym(const char *name)
{
    void *p = dlsym(lib, name);
    if (!p) {
        printf("missing %s\n", name);
        fflush(stdout);
    }
    return p;
}
#define F(ret, name, ...) ((ret(*)(__VA_ARGS__))sym(#name))

#define T(what, call) printf("%-44s = %d\n", what, (int)(call))

int main(int argc, char **argv)
{
    if (argc != 2 || !(lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL))) {
        fprintf(stderr, "usage: cudnn_desc LIBRARY (%s)\n", dlerror());
        return 2;
    }
    const char *(*errstr)(cudnnStatus_t) = F(const char *, cudnnGetErrorString, cudnnStatus_t);
    static const int st[] = { 0, 1001, 2000, 2002, 2003, 3000, 3003, 4000, 5000, 7777 };
    for (size_t i = 0; i < sizeof st / sizeof *st; i++)
        printf("cudnnGetErrorString(%d) = %s\n", st[i], errstr((cudnnStatus_t)st[i]));
    printf("cudnnGetVersion = %zu\n", F(size_t, cudnnGetVersion, void)());
    int v = -1;
    for (int t = 0; t < 4; t++) {
        v = -1;
        int r = F(cudnnStatus_t, cudnnGetProperty, libraryPropertyType, int *)((libraryPropertyType)t, &v);
        printf("cudnnGetProperty(%d) = %d, %d\n", t, r, r ? -1 : v);
    }

    /* tensors */
    cudnnStatus_t (*set4d)(cudnnTensorDescriptor_t, cudnnTensorFormat_t, cudnnDataType_t, int, int, int, int) =
        F(cudnnStatus_t, cudnnSetTensor4dDescriptor, cudnnTensorDescriptor_t, cudnnTensorFormat_t, cudnnDataType_t, int,
          int, int, int);
    cudnnStatus_t (*set4dex)(cudnnTensorDescriptor_t, cudnnDataType_t, int, int, int, int, int, int, int, int) =
        F(cudnnStatus_t, cudnnSetTensor4dDescriptorEx, cudnnTensorDescriptor_t, cudnnDataType_t, int, int, int, int,
          int, int, int, int);
    cudnnStatus_t (*setnd)(cudnnTensorDescriptor_t, cudnnDataType_t, int, const int *, const int *) =
        F(cudnnStatus_t, cudnnSetTensorNdDescriptor, cudnnTensorDescriptor_t, cudnnDataType_t, int, const int *,
          const int *);
    cudnnStatus_t (*setndex)(cudnnTensorDescriptor_t, cudnnTensorFormat_t, cudnnDataType_t, int, const int *) =
        F(cudnnStatus_t, cudnnSetTensorNdDescriptorEx, cudnnTensorDescriptor_t, cudnnTensorFormat_t, cudnnDataType_t,
          int, const int *);
    cudnnStatus_t (*getnd)(cudnnTensorDescriptor_t, int, cudnnDataType_t *, int *, int *, int *) =
        F(cudnnStatus_t, cudnnGetTensorNdDescriptor, cudnnTensorDescriptor_t, int, cudnnDataType_t *, int *, int *,
          int *);
    cudnnStatus_t (*tsize)(cudnnTensorDescriptor_t, size_t *) =
        F(cudnnStatus_t, cudnnGetTensorSizeInBytes, cudnnTensorDescriptor_t, size_t *);
    cudnnTensorDescriptor_t t, t2;
    T("cudnnCreateTensorDescriptor", F(cudnnStatus_t, cudnnCreateTensorDescriptor, cudnnTensorDescriptor_t *)(&t));
    F(cudnnStatus_t, cudnnCreateTensorDescriptor, cudnnTensorDescriptor_t *)(&t2);
    T("set4d NCHW float 2x3x4x5", set4d(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 3, 4, 5));
    T("set4d format 7", set4d(t, (cudnnTensorFormat_t)7, CUDNN_DATA_FLOAT, 2, 3, 4, 5));
    T("set4d NCHW_VECT_C float", set4d(t, CUDNN_TENSOR_NCHW_VECT_C, CUDNN_DATA_FLOAT, 2, 4, 4, 5));
    T("set4d type 30", set4d(t, CUDNN_TENSOR_NCHW, (cudnnDataType_t)30, 2, 3, 4, 5));
    T("set4d n 0", set4d(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 0, 3, 4, 5));
    T("set4d w -1", set4d(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 3, 4, -1));
    T("set4d NHWC half 2x3x4x5", set4d(t, CUDNN_TENSOR_NHWC, CUDNN_DATA_HALF, 2, 3, 4, 5));
    int dims[8], strides[8], nb = -1;
    cudnnDataType_t dt;
    size_t size = 0;
#define SHOW(what)                                                                                          \
    do {                                                                                                    \
        int r_ = getnd(t, 8, &dt, &nb, dims, strides);                                                      \
        printf("%-44s = %d: type %d, %d dims:", what, r_, (int)dt, nb);                                     \
        for (int d_ = 0; !r_ && d_ < nb; d_++)                                                              \
            printf(" %dx%d", dims[d_], strides[d_]);                                                        \
        int s_ = tsize(t, &size);                                                                           \
        printf(", size %d %zu\n", s_, s_ ? 0 : size);                                                       \
    } while (0)
    SHOW("getnd");
    T("set4dex 2x3x4x5 strides 100,20,5,1", set4dex(t, CUDNN_DATA_FLOAT, 2, 3, 4, 5, 100, 20, 5, 1));
    SHOW("getnd");
    T("set4dex overlapping strides", set4dex(t, CUDNN_DATA_FLOAT, 2, 3, 4, 5, 1, 1, 1, 1));
    SHOW("getnd");
    int d5[5] = { 2, 3, 4, 5, 6 }, s5[5] = { 360, 120, 30, 6, 1 }, s0[4] = { 60, 20, 5, 0 };
    T("setnd 5-D", setnd(t, CUDNN_DATA_DOUBLE, 5, d5, s5));
    SHOW("getnd");
    T("setnd 2-D", setnd(t, CUDNN_DATA_FLOAT, 2, d5, s5 + 3));
    T("setnd 1-D", setnd(t, CUDNN_DATA_FLOAT, 1, d5, s5));
    T("setnd stride 0", setnd(t, CUDNN_DATA_FLOAT, 4, d5, s0));
    int d9[9] = { 2, 2, 2, 2, 2, 2, 2, 2, 2 }, s9[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
    T("setnd 9-D", setnd(t, CUDNN_DATA_FLOAT, 9, d9, s9));
    T("setndex NHWC 5-D", setndex(t, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, 5, d5));
    SHOW("getnd");
    T("setndex NHWC 4-D bfloat16", setndex(t, CUDNN_TENSOR_NHWC, CUDNN_DATA_BFLOAT16, 4, d5));
    SHOW("getnd");

    /* filters */
    cudnnFilterDescriptor_t f;
    cudnnStatus_t (*setf4)(cudnnFilterDescriptor_t, cudnnDataType_t, cudnnTensorFormat_t, int, int, int, int) =
        F(cudnnStatus_t, cudnnSetFilter4dDescriptor, cudnnFilterDescriptor_t, cudnnDataType_t, cudnnTensorFormat_t,
          int, int, int, int);
    cudnnStatus_t (*setfnd)(cudnnFilterDescriptor_t, cudnnDataType_t, cudnnTensorFormat_t, int, const int *) =
        F(cudnnStatus_t, cudnnSetFilterNdDescriptor, cudnnFilterDescriptor_t, cudnnDataType_t, cudnnTensorFormat_t,
          int, const int *);
    cudnnStatus_t (*fsize)(cudnnFilterDescriptor_t, size_t *) =
        F(cudnnStatus_t, cudnnGetFilterSizeInBytes, cudnnFilterDescriptor_t, size_t *);
    T("cudnnCreateFilterDescriptor", F(cudnnStatus_t, cudnnCreateFilterDescriptor, cudnnFilterDescriptor_t *)(&f));
    T("setf4 float 8x3x3x3", setf4(f, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 8, 3, 3, 3));
    T("getfiltersize", fsize(f, &size));
    printf("  size %zu\n", size);
    T("setf4 k 0", setf4(f, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 0, 3, 3, 3));
    int f3[3] = { 4, 3, 3 }, f5[5] = { 4, 3, 3, 3, 3 };
    T("setfnd 3-D", setfnd(f, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 3, f3));
    T("setfnd 5-D NHWC half", setfnd(f, CUDNN_DATA_HALF, CUDNN_TENSOR_NHWC, 5, f5));
    T("getfiltersize", fsize(f, &size));
    printf("  size %zu\n", size);

    /* convolutions */
    cudnnConvolutionDescriptor_t c;
    cudnnStatus_t (*setc2)(cudnnConvolutionDescriptor_t, int, int, int, int, int, int, cudnnConvolutionMode_t,
                           cudnnDataType_t) =
        F(cudnnStatus_t, cudnnSetConvolution2dDescriptor, cudnnConvolutionDescriptor_t, int, int, int, int, int, int,
          cudnnConvolutionMode_t, cudnnDataType_t);
    cudnnStatus_t (*setcnd)(cudnnConvolutionDescriptor_t, int, const int *, const int *, const int *,
                            cudnnConvolutionMode_t, cudnnDataType_t) =
        F(cudnnStatus_t, cudnnSetConvolutionNdDescriptor, cudnnConvolutionDescriptor_t, int, const int *, const int *,
          const int *, cudnnConvolutionMode_t, cudnnDataType_t);
    cudnnStatus_t (*outdim)(cudnnConvolutionDescriptor_t, cudnnTensorDescriptor_t, cudnnFilterDescriptor_t, int *,
                            int *, int *, int *) =
        F(cudnnStatus_t, cudnnGetConvolution2dForwardOutputDim, cudnnConvolutionDescriptor_t, cudnnTensorDescriptor_t,
          cudnnFilterDescriptor_t, int *, int *, int *, int *);
    T("cudnnCreateConvolutionDescriptor",
      F(cudnnStatus_t, cudnnCreateConvolutionDescriptor, cudnnConvolutionDescriptor_t *)(&c));
    T("setc2", setc2(c, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    T("setc2 mode 5", setc2(c, 1, 1, 1, 1, 1, 1, (cudnnConvolutionMode_t)5, CUDNN_DATA_FLOAT));
    T("setc2 stride 0", setc2(c, 1, 1, 0, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    T("setc2 pad -1", setc2(c, -1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    T("setc2 dilation 0", setc2(c, 0, 0, 1, 1, 0, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    T("setc2 compute half", setc2(c, 0, 0, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_HALF));
    T("setc2 compute int8", setc2(c, 0, 0, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_INT8));
    int one[3] = { 1, 1, 1 }, zero[3] = { 0, 0, 0 };
    T("setcnd length 1", setcnd(c, 1, zero, one, one, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    T("setcnd length 3", setcnd(c, 3, zero, one, one, CUDNN_CONVOLUTION, CUDNN_DATA_FLOAT));
    T("setgroups 0", F(cudnnStatus_t, cudnnSetConvolutionGroupCount, cudnnConvolutionDescriptor_t, int)(c, 0));
    T("setmath 9", F(cudnnStatus_t, cudnnSetConvolutionMathType, cudnnConvolutionDescriptor_t, cudnnMathType_t)(
                       c, (cudnnMathType_t)9));
    int o[4];
    struct { int pad, stride, x[4], w[4], groups; } oc[] = {
        { 1, 1, { 2, 3, 10, 10 }, { 8, 3, 3, 3 }, 1 },
        { 1, 2, { 2, 3, 10, 10 }, { 8, 3, 3, 3 }, 1 },
        { 1, 1, { 2, 4, 10, 10 }, { 8, 3, 3, 3 }, 1 },
        { 0, 1, { 2, 3, 2, 2 }, { 8, 3, 3, 3 }, 1 },
        { 0, 1, { 2, 3, 10, 10 }, { 6, 1, 3, 3 }, 3 },
        { 2, 3, { 1, 6, 11, 7 }, { 4, 3, 5, 2 }, 2 },
    };
    for (size_t i = 0; i < sizeof oc / sizeof *oc; i++) {
        setc2(c, oc[i].pad, oc[i].pad, oc[i].stride, oc[i].stride, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
        F(cudnnStatus_t, cudnnSetConvolutionGroupCount, cudnnConvolutionDescriptor_t, int)(c, oc[i].groups);
        set4d(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, oc[i].x[0], oc[i].x[1], oc[i].x[2], oc[i].x[3]);
        setf4(f, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, oc[i].w[0], oc[i].w[1], oc[i].w[2], oc[i].w[3]);
        memset(o, 0, sizeof o);
        int r = outdim(c, t, f, &o[0], &o[1], &o[2], &o[3]);
        printf("conv output dims case %zu = %d: %d %d %d %d\n", i, r, r ? 0 : o[0], r ? 0 : o[1], r ? 0 : o[2],
               r ? 0 : o[3]);
    }

    /* pooling */
    cudnnPoolingDescriptor_t p;
    cudnnStatus_t (*setp)(cudnnPoolingDescriptor_t, cudnnPoolingMode_t, cudnnNanPropagation_t, int, int, int, int,
                          int, int) =
        F(cudnnStatus_t, cudnnSetPooling2dDescriptor, cudnnPoolingDescriptor_t, cudnnPoolingMode_t,
          cudnnNanPropagation_t, int, int, int, int, int, int);
    T("cudnnCreatePoolingDescriptor", F(cudnnStatus_t, cudnnCreatePoolingDescriptor, cudnnPoolingDescriptor_t *)(&p));
    T("setp max 2x2/2", setp(p, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 2, 2, 0, 0, 2, 2));
    T("setp mode 9", setp(p, (cudnnPoolingMode_t)9, CUDNN_NOT_PROPAGATE_NAN, 2, 2, 0, 0, 2, 2));
    T("setp window 0", setp(p, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 0, 2, 0, 0, 2, 2));
    T("setp padding >= window", setp(p, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 2, 2, 2, 2, 2, 2));
    T("setp avg 3x3/2 pad 1", setp(p, CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING, CUDNN_NOT_PROPAGATE_NAN, 3, 3, 1, 1,
                                   2, 2));
    set4d(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 3, 10, 9);
    memset(o, 0, sizeof o);
    int r = F(cudnnStatus_t, cudnnGetPooling2dForwardOutputDim, cudnnPoolingDescriptor_t, cudnnTensorDescriptor_t,
              int *, int *, int *, int *)(p, t, &o[0], &o[1], &o[2], &o[3]);
    printf("pool output dims = %d: %d %d %d %d\n", r, o[0], o[1], o[2], o[3]);

    /* activation */
    cudnnActivationDescriptor_t a;
    cudnnStatus_t (*seta)(cudnnActivationDescriptor_t, cudnnActivationMode_t, cudnnNanPropagation_t, double) =
        F(cudnnStatus_t, cudnnSetActivationDescriptor, cudnnActivationDescriptor_t, cudnnActivationMode_t,
          cudnnNanPropagation_t, double);
    T("cudnnCreateActivationDescriptor",
      F(cudnnStatus_t, cudnnCreateActivationDescriptor, cudnnActivationDescriptor_t *)(&a));
    T("seta relu", seta(a, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0));
    T("seta mode 9", seta(a, (cudnnActivationMode_t)9, CUDNN_NOT_PROPAGATE_NAN, 0));
    T("seta nan 9", seta(a, CUDNN_ACTIVATION_RELU, (cudnnNanPropagation_t)9, 0));
    T("seta clipped relu -1", seta(a, CUDNN_ACTIVATION_CLIPPED_RELU, CUDNN_NOT_PROPAGATE_NAN, -1));
    double coef = 0;
    cudnnActivationMode_t am;
    cudnnNanPropagation_t an;
    r = F(cudnnStatus_t, cudnnGetActivationDescriptor, cudnnActivationDescriptor_t, cudnnActivationMode_t *,
          cudnnNanPropagation_t *, double *)(a, &am, &an, &coef);
    printf("geta = %d: %d %d %g\n", r, (int)am, (int)an, coef);

    /* batch norm parameter descriptors */
    cudnnStatus_t (*derive)(cudnnTensorDescriptor_t, cudnnTensorDescriptor_t, cudnnBatchNormMode_t) =
        F(cudnnStatus_t, cudnnDeriveBNTensorDescriptor, cudnnTensorDescriptor_t, cudnnTensorDescriptor_t,
          cudnnBatchNormMode_t);
    set4d(t2, CUDNN_TENSOR_NHWC, CUDNN_DATA_HALF, 2, 3, 4, 5);
    T("derive spatial", derive(t, t2, CUDNN_BATCHNORM_SPATIAL));
    SHOW("getnd");
    T("derive per activation", derive(t, t2, CUDNN_BATCHNORM_PER_ACTIVATION));
    SHOW("getnd");
    T("derive mode 9", derive(t, t2, (cudnnBatchNormMode_t)9));
    setnd(t2, CUDNN_DATA_DOUBLE, 5, d5, s5);
    T("derive spatial of 5-D double", derive(t, t2, CUDNN_BATCHNORM_SPATIAL));
    SHOW("getnd");

    /* op tensor */
    cudnnOpTensorDescriptor_t op;
    T("cudnnCreateOpTensorDescriptor", F(cudnnStatus_t, cudnnCreateOpTensorDescriptor, cudnnOpTensorDescriptor_t *)(&op));
    cudnnStatus_t (*seto)(cudnnOpTensorDescriptor_t, cudnnOpTensorOp_t, cudnnDataType_t, cudnnNanPropagation_t) =
        F(cudnnStatus_t, cudnnSetOpTensorDescriptor, cudnnOpTensorDescriptor_t, cudnnOpTensorOp_t, cudnnDataType_t,
          cudnnNanPropagation_t);
    T("seto add", seto(op, CUDNN_OP_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN));
    T("seto op 9", seto(op, (cudnnOpTensorOp_t)9, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN));


    /* the backend API's descriptors (those that need no handle) */
    cudnnStatus_t (*bcreate)(cudnnBackendDescriptorType_t, cudnnBackendDescriptor_t *) =
        F(cudnnStatus_t, cudnnBackendCreateDescriptor, cudnnBackendDescriptorType_t, cudnnBackendDescriptor_t *);
    cudnnStatus_t (*bset)(cudnnBackendDescriptor_t, cudnnBackendAttributeName_t, cudnnBackendAttributeType_t, int64_t,
                          const void *) =
        F(cudnnStatus_t, cudnnBackendSetAttribute, cudnnBackendDescriptor_t, cudnnBackendAttributeName_t,
          cudnnBackendAttributeType_t, int64_t, const void *);
    cudnnStatus_t (*bget)(cudnnBackendDescriptor_t, cudnnBackendAttributeName_t, cudnnBackendAttributeType_t, int64_t,
                          int64_t *, void *) =
        F(cudnnStatus_t, cudnnBackendGetAttribute, cudnnBackendDescriptor_t, cudnnBackendAttributeName_t,
          cudnnBackendAttributeType_t, int64_t, int64_t *, void *);
    cudnnStatus_t (*bfin)(cudnnBackendDescriptor_t) = F(cudnnStatus_t, cudnnBackendFinalize, cudnnBackendDescriptor_t);
    cudnnStatus_t (*bdestroy)(cudnnBackendDescriptor_t) =
        F(cudnnStatus_t, cudnnBackendDestroyDescriptor, cudnnBackendDescriptor_t);
    cudnnBackendDescriptor_t bt = NULL, bc = NULL;
    cudnnDataType_t bf = CUDNN_DATA_FLOAT;
    int64_t bdims[9] = { 2, 3, 4, 5, 1, 1, 1, 1, 1 }, bstr[4] = { 60, 20, 5, 1 }, bneg[4] = { 2, -3, 4, 5 };
    int64_t buid = 7, bal = 16, bal3 = 3, bv = 0, bcnt = -1, bd2[8] = { 0 };
    T("backend create tensor", bcreate(CUDNN_BACKEND_TENSOR_DESCRIPTOR, &bt));
    T("backend get before finalize", bget(bt, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &bcnt, &bv));
    T("backend finalize empty tensor", bfin(bt));
    T("backend set type as int64", bset(bt, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_INT64, 1, &bf));
    T("backend set type, 2 elements", bset(bt, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 2, &bf));
    T("backend set type, 0 elements", bset(bt, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 0, &bf));
    T("backend set type, NULL", bset(bt, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, NULL));
    T("backend set type", bset(bt, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &bf));
    T("backend set a convolution attribute", bset(bt, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &bf));
    T("backend set 0 dimensions", bset(bt, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 0, bdims));
    T("backend set 9 dimensions", bset(bt, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 9, bdims));
    T("backend set a negative dimension", bset(bt, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, bneg));
    T("backend set dimensions", bset(bt, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, bdims));
    T("backend finalize without strides", bfin(bt));
    T("backend set 3 strides", bset(bt, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 3, bstr));
    T("backend finalize with 3 strides", bfin(bt));
    T("backend set strides", bset(bt, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, bstr));
    T("backend finalize without id", bfin(bt));
    T("backend set id", bset(bt, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &buid));
    T("backend finalize without alignment", bfin(bt));
    T("backend set alignment 3", bset(bt, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &bal3));
    T("backend finalize with alignment 3", bfin(bt));
    T("backend set alignment", bset(bt, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &bal));
    T("backend finalize tensor", bfin(bt));
    T("backend finalize again", bfin(bt));
    T("backend set after finalize", bset(bt, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &buid));
    T("backend get id", bget(bt, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &bcnt, &bv));
    printf("  %lld %lld\n", (long long)bcnt, (long long)bv);
    T("backend get id as int32", bget(bt, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT32, 1, &bcnt, &bv));
    T("backend get 2 of the dimensions", bget(bt, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 2, &bcnt, bd2));
    printf("  %lld: %lld %lld %lld\n", (long long)bcnt, (long long)bd2[0], (long long)bd2[1], (long long)bd2[2]);
    bcnt = -1;
    T("backend get the dimensions' count", bget(bt, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 0, &bcnt, NULL));
    printf("  %lld\n", (long long)bcnt);
    T("backend get without a count", bget(bt, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 8, NULL, bd2));
    unsigned char bb = 9;
    T("backend get is-virtual", bget(bt, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &bcnt, &bb));
    printf("  %lld %d\n", (long long)bcnt, bb);
    T("backend get a convolution attribute", bget(bt, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &bcnt, &bf));
    T("backend get the vector count", bget(bt, CUDNN_ATTR_TENSOR_VECTOR_COUNT, CUDNN_TYPE_INT64, 1, &bcnt, &bv));
    printf("  %lld\n", (long long)bv);
    T("backend get of NULL", bget(NULL, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &bcnt, &bv));
    T("backend set of NULL", bset(NULL, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &buid));
    T("backend finalize NULL", bfin(NULL));
    T("backend destroy NULL", bdestroy(NULL));
    T("backend destroy tensor", bdestroy(bt));
    int64_t b2 = 2, bone[3] = { 1, 1, 1 };
    cudnnConvolutionMode_t bm = CUDNN_CROSS_CORRELATION;
    T("backend create convolution", bcreate(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, &bc));
    T("backend finalize empty convolution", bfin(bc));
    T("backend set spatial dims", bset(bc, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &b2));
    T("backend set compute type", bset(bc, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &bf));
    T("backend set mode", bset(bc, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &bm));
    T("backend set pre paddings", bset(bc, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, bone));
    T("backend set post paddings", bset(bc, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 2, bone));
    T("backend finalize without dilations", bfin(bc));
    T("backend set dilations", bset(bc, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2, bone));
    T("backend set 3 strides", bset(bc, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 3, bone));
    T("backend finalize with 3 strides", bfin(bc));
    T("backend set strides", bset(bc, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2, bone));
    T("backend finalize convolution", bfin(bc));
    bcnt = -1;
    T("backend get pre paddings", bget(bc, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, &bcnt, bd2));
    printf("  %lld: %lld %lld\n", (long long)bcnt, (long long)bd2[0], (long long)bd2[1]);
    T("backend destroy convolution", bdestroy(bc));

    T("destroy tensor", F(cudnnStatus_t, cudnnDestroyTensorDescriptor, cudnnTensorDescriptor_t)(t));
    T("destroy NULL tensor", F(cudnnStatus_t, cudnnDestroyTensorDescriptor, cudnnTensorDescriptor_t)(NULL));
    T("destroy NULL filter", F(cudnnStatus_t, cudnnDestroyFilterDescriptor, cudnnFilterDescriptor_t)(NULL));
    return 0;
}
