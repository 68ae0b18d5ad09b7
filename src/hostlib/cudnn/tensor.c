/* SPDX-License-Identifier: Apache-2.0 */
/* Tensor and filter descriptors, and what every operation does with a
 * tensor: its element type, extent, validation against the emulator's
 * allocations, iteration in logical order, conversion to and from dense
 * float.
 *
 * The setters check what NVIDIA's library checks (probed through ctypes:
 * they need no GPU): sizes above 0, a known type and format, strides not 0;
 * what an operation cannot handle (a negative stride, a type it does not
 * compute in) is refused by the operation. */
#include "dnn.h"

#include <string.h>

size_t dnn_type_size(cudnnDataType_t t)
{
    switch (t) {
    case CUDNN_DATA_FLOAT: case CUDNN_DATA_INT32: return 4;
    case CUDNN_DATA_DOUBLE: case CUDNN_DATA_INT64: return 8;
    case CUDNN_DATA_HALF: case CUDNN_DATA_BFLOAT16: return 2;
    case CUDNN_DATA_INT8: case CUDNN_DATA_UINT8: case CUDNN_DATA_BOOLEAN:
    case CUDNN_DATA_FP8_E4M3: case CUDNN_DATA_FP8_E5M2: return 1;
    case CUDNN_DATA_INT8x4: case CUDNN_DATA_UINT8x4: return 4;
    case CUDNN_DATA_INT8x32: return 32;
    }
    return 0;
}

int dnn_float_type(cudnnDataType_t t)
{
    return t == CUDNN_DATA_FLOAT || t == CUDNN_DATA_DOUBLE || t == CUDNN_DATA_HALF || t == CUDNN_DATA_BFLOAT16;
}

double dnn_load(cudnnDataType_t t, const void *p, int64_t i)
{
    switch ((int)t) {
    case CUDNN_DATA_FLOAT: return ((const float *)p)[i];
    case CUDNN_DATA_DOUBLE: return ((const double *)p)[i];
    case CUDNN_DATA_HALF: return hl_h2f(((const uint16_t *)p)[i]);
    case CUDNN_DATA_BFLOAT16: return hl_bf2f(((const uint16_t *)p)[i]);
    default: return 0;   /* operations refuse other types before they queue */
    }
}

void dnn_store(cudnnDataType_t t, void *p, int64_t i, double v)
{
    switch ((int)t) {
    case CUDNN_DATA_FLOAT: ((float *)p)[i] = (float)v; break;
    case CUDNN_DATA_DOUBLE: ((double *)p)[i] = v; break;
    case CUDNN_DATA_HALF: ((uint16_t *)p)[i] = hl_f2h((float)v); break;
    case CUDNN_DATA_BFLOAT16: ((uint16_t *)p)[i] = hl_f2bf((float)v); break;
    default: break;
    }
}

int dnn_scale(cudnnDataType_t data, const void *p, double *v)
{
    if (!p)
        return -1;
    *v = data == CUDNN_DATA_DOUBLE ? *(const double *)p : *(const float *)p;
    return 0;
}

/* ---- tensor descriptors -------------------------------------------------- */
HL_EXPORT cudnnStatus_t cudnnCreateTensorDescriptor(cudnnTensorDescriptor_t *tensorDesc)
{
    return dnn_create((void **)tensorDesc, sizeof(struct cudnnTensorStruct), DK_TENSOR);
}

HL_EXPORT cudnnStatus_t cudnnDestroyTensorDescriptor(cudnnTensorDescriptor_t tensorDesc)
{
    return dnn_destroy(tensorDesc, DK_TENSOR);
}

static struct cudnnTensorStruct *tensor(cudnnTensorDescriptor_t d)
{
    return hl_handle_live(d, DK_TENSOR) ? d : NULL;
}

/* packed strides of dims in format f (NHWC: C innermost) */
static void packed(int nb, const int *dim, cudnnTensorFormat_t f, int *stride)
{
    int64_t s = 1;
    if (f == CUDNN_TENSOR_NHWC && nb >= 3) {
        stride[1] = 1;
        s = dim[1];
        for (int d = nb - 1; d >= 2; d--) {
            stride[d] = (int)s;
            s *= dim[d];
        }
        stride[0] = (int)s;
        return;
    }
    for (int d = nb - 1; d >= 0; d--) {
        stride[d] = (int)s;
        s *= dim[d];
    }
}

static cudnnStatus_t set_nd(const char *fn, cudnnTensorDescriptor_t desc, cudnnDataType_t type, int nb,
                            const int *dim, const int *stride, int have_format, cudnnTensorFormat_t format)
{
    struct cudnnTensorStruct *t = tensor(desc);
    if (!t)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: the descriptor is not one cudnnCreateTensorDescriptor made", fn);
    if (!dnn_type_size(type))
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: unknown data type %d", fn, (int)type);
    if (nb > CUDNN_DIM_MAX)
        return dnn_err(CUDNN_STATUS_NOT_SUPPORTED, "%s: %d dimensions (at most %d)", fn, nb, CUDNN_DIM_MAX);
    if (nb < 2 || !dim || (!have_format && !stride))
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: %d dimensions, or a NULL array", fn, nb);
    if (have_format && format != CUDNN_TENSOR_NCHW && format != CUDNN_TENSOR_NHWC)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: format %d (NCHW and NHWC here)", fn, (int)format);
    int64_t total = 1;
    for (int d = 0; d < nb; d++) {
        if (dim[d] <= 0 || (!have_format && stride[d] == 0))
            return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: dimension %d is %d (stride %d)", fn, d, dim[d],
                           have_format ? 1 : stride[d]);
        total *= dim[d];
        if (total > INT32_MAX)
            return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: more than 2^31 elements", fn);
    }
    t->type = type;
    t->nb = nb;
    memcpy(t->dim, dim, (size_t)nb * sizeof *dim);
    if (have_format)
        packed(nb, dim, format, t->stride);
    else
        memcpy(t->stride, stride, (size_t)nb * sizeof *stride);
    t->set = 1;
    return CUDNN_STATUS_SUCCESS;
}

HL_EXPORT cudnnStatus_t cudnnSetTensor4dDescriptor(cudnnTensorDescriptor_t tensorDesc, cudnnTensorFormat_t format,
                                                   cudnnDataType_t dataType, int n, int c, int h, int w)
{
    int dim[4] = { n, c, h, w };
    return set_nd("cudnnSetTensor4dDescriptor", tensorDesc, dataType, 4, dim, NULL, 1, format);
}

HL_EXPORT cudnnStatus_t cudnnSetTensor4dDescriptorEx(cudnnTensorDescriptor_t tensorDesc, cudnnDataType_t dataType,
                                                     int n, int c, int h, int w, int nStride, int cStride,
                                                     int hStride, int wStride)
{
    int dim[4] = { n, c, h, w }, stride[4] = { nStride, cStride, hStride, wStride };
    return set_nd("cudnnSetTensor4dDescriptorEx", tensorDesc, dataType, 4, dim, stride, 0, CUDNN_TENSOR_NCHW);
}

HL_EXPORT cudnnStatus_t cudnnSetTensorNdDescriptor(cudnnTensorDescriptor_t tensorDesc, cudnnDataType_t dataType,
                                                   int nbDims, const int dimA[], const int strideA[])
{
    return set_nd("cudnnSetTensorNdDescriptor", tensorDesc, dataType, nbDims, dimA, strideA, 0, CUDNN_TENSOR_NCHW);
}

HL_EXPORT cudnnStatus_t cudnnSetTensorNdDescriptorEx(cudnnTensorDescriptor_t tensorDesc, cudnnTensorFormat_t format,
                                                     cudnnDataType_t dataType, int nbDims, const int dimA[])
{
    return set_nd("cudnnSetTensorNdDescriptorEx", tensorDesc, dataType, nbDims, dimA, NULL, 1, format);
}

HL_EXPORT cudnnStatus_t cudnnGetTensor4dDescriptor(const cudnnTensorDescriptor_t tensorDesc, cudnnDataType_t *dataType,
                                                   int *n, int *c, int *h, int *w, int *nStride, int *cStride,
                                                   int *hStride, int *wStride)
{
    const struct cudnnTensorStruct *t = tensor(tensorDesc);
    if (!t || !dataType || !n || !c || !h || !w || !nStride || !cStride || !hStride || !wStride)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "cudnnGetTensor4dDescriptor: bad descriptor or NULL argument");
    /* as NVIDIA's: the first four dimensions (zeros for a descriptor never set) */
    int *dims[4] = { n, c, h, w }, *strides[4] = { nStride, cStride, hStride, wStride };
    *dataType = t->type;
    for (int d = 0; d < 4; d++) {
        *dims[d] = d < t->nb ? t->dim[d] : 0;
        *strides[d] = d < t->nb ? t->stride[d] : 0;
    }
    return CUDNN_STATUS_SUCCESS;
}

HL_EXPORT cudnnStatus_t cudnnGetTensorNdDescriptor(const cudnnTensorDescriptor_t tensorDesc, int nbDimsRequested,
                                                   cudnnDataType_t *dataType, int *nbDims, int dimA[],
                                                   int strideA[])
{
    const struct cudnnTensorStruct *t = tensor(tensorDesc);
    if (!t || !dataType || !nbDims || nbDimsRequested < 0 || (nbDimsRequested && (!dimA || !strideA)))
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "cudnnGetTensorNdDescriptor: bad descriptor or argument");
    *dataType = t->type;
    *nbDims = t->nb;
    for (int d = 0; d < nbDimsRequested && d < t->nb; d++) {
        dimA[d] = t->dim[d];
        strideA[d] = t->stride[d];
    }
    return CUDNN_STATUS_SUCCESS;
}

HL_EXPORT cudnnStatus_t cudnnGetTensorSizeInBytes(const cudnnTensorDescriptor_t tensorDesc, size_t *size)
{
    const struct cudnnTensorStruct *t = tensor(tensorDesc);
    if (!t || !size)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "cudnnGetTensorSizeInBytes: bad descriptor or NULL size");
    if (!t->set) {
        *size = 0;
        return CUDNN_STATUS_SUCCESS;
    }
    struct td x;
    dnn_td(tensorDesc, &x, "tensor");
    int64_t s = dnn_span(&x);
    if (s < 0)
        return dnn_err(CUDNN_STATUS_NOT_SUPPORTED_LAYOUT, "cudnnGetTensorSizeInBytes: negative strides");
    *size = (size_t)s;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t dnn_td(cudnnTensorDescriptor_t d, struct td *t, const char *what)
{
    const struct cudnnTensorStruct *s = dnn_desc(d, DK_TENSOR);
    if (!s)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: not a tensor descriptor that was created and set", what);
    t->type = s->type;
    t->nb = s->nb;
    for (int i = 0; i < s->nb; i++) {
        t->dim[i] = s->dim[i];
        t->stride[i] = s->stride[i];
    }
    return CUDNN_STATUS_SUCCESS;
}

/* ---- filter descriptors ----------------------------------------------------- */
HL_EXPORT cudnnStatus_t cudnnCreateFilterDescriptor(cudnnFilterDescriptor_t *filterDesc)
{
    return dnn_create((void **)filterDesc, sizeof(struct cudnnFilterStruct), DK_FILTER);
}

HL_EXPORT cudnnStatus_t cudnnDestroyFilterDescriptor(cudnnFilterDescriptor_t filterDesc)
{
    return dnn_destroy(filterDesc, DK_FILTER);
}

HL_EXPORT cudnnStatus_t cudnnSetFilterNdDescriptor(cudnnFilterDescriptor_t filterDesc, cudnnDataType_t dataType,
                                                   cudnnTensorFormat_t format, int nbDims, const int filterDimA[])
{
    struct cudnnFilterStruct *f = hl_handle_live(filterDesc, DK_FILTER) ? filterDesc : NULL;
    if (!f)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "cudnnSetFilterNdDescriptor: not a filter descriptor");
    if (!dnn_type_size(dataType) || (format != CUDNN_TENSOR_NCHW && format != CUDNN_TENSOR_NHWC))
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "cudnnSetFilterNdDescriptor: type %d, format %d", (int)dataType,
                       (int)format);
    if (nbDims > CUDNN_DIM_MAX)
        return dnn_err(CUDNN_STATUS_NOT_SUPPORTED, "cudnnSetFilterNdDescriptor: %d dimensions", nbDims);
    if (nbDims < 3 || !filterDimA)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "cudnnSetFilterNdDescriptor: %d dimensions", nbDims);
    int64_t total = 1;
    for (int d = 0; d < nbDims; d++) {
        if (filterDimA[d] <= 0)
            return dnn_err(CUDNN_STATUS_BAD_PARAM, "cudnnSetFilterNdDescriptor: dimension %d is %d", d,
                           filterDimA[d]);
        total *= filterDimA[d];
        if (total > INT32_MAX)
            return dnn_err(CUDNN_STATUS_BAD_PARAM, "cudnnSetFilterNdDescriptor: more than 2^31 elements");
    }
    f->type = dataType;
    f->format = format;
    f->nb = nbDims;
    memcpy(f->dim, filterDimA, (size_t)nbDims * sizeof *filterDimA);
    f->set = 1;
    return CUDNN_STATUS_SUCCESS;
}

HL_EXPORT cudnnStatus_t cudnnSetFilter4dDescriptor(cudnnFilterDescriptor_t filterDesc, cudnnDataType_t dataType,
                                                   cudnnTensorFormat_t format, int k, int c, int h, int w)
{
    int dim[4] = { k, c, h, w };
    return cudnnSetFilterNdDescriptor(filterDesc, dataType, format, 4, dim);
}

HL_EXPORT cudnnStatus_t cudnnGetFilter4dDescriptor(const cudnnFilterDescriptor_t filterDesc,
                                                   cudnnDataType_t *dataType, cudnnTensorFormat_t *format, int *k,
                                                   int *c, int *h, int *w)
{
    const struct cudnnFilterStruct *f = hl_handle_live(filterDesc, DK_FILTER) ? filterDesc : NULL;
    if (!f || !dataType || !format || !k || !c || !h || !w)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "cudnnGetFilter4dDescriptor: bad descriptor or NULL argument");
    int *dims[4] = { k, c, h, w };
    *dataType = f->type;
    *format = f->format;
    for (int d = 0; d < 4; d++)
        *dims[d] = d < f->nb ? f->dim[d] : 0;
    return CUDNN_STATUS_SUCCESS;
}

HL_EXPORT cudnnStatus_t cudnnGetFilterNdDescriptor(const cudnnFilterDescriptor_t filterDesc, int nbDimsRequested,
                                                   cudnnDataType_t *dataType, cudnnTensorFormat_t *format,
                                                   int *nbDims, int filterDimA[])
{
    const struct cudnnFilterStruct *f = hl_handle_live(filterDesc, DK_FILTER) ? filterDesc : NULL;
    if (!f || !dataType || !format || !nbDims || nbDimsRequested < 0 || (nbDimsRequested && !filterDimA))
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "cudnnGetFilterNdDescriptor: bad descriptor or argument");
    *dataType = f->type;
    *format = f->format;
    *nbDims = f->nb;
    for (int d = 0; d < nbDimsRequested && d < f->nb; d++)
        filterDimA[d] = f->dim[d];
    return CUDNN_STATUS_SUCCESS;
}

HL_EXPORT cudnnStatus_t cudnnGetFilterSizeInBytes(const cudnnFilterDescriptor_t filterDesc, size_t *size)
{
    const struct cudnnFilterStruct *f = hl_handle_live(filterDesc, DK_FILTER) ? filterDesc : NULL;
    if (!f || !size)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "cudnnGetFilterSizeInBytes: bad descriptor or NULL size");
    size_t n = f->set ? dnn_type_size(f->type) : 0;
    for (int d = 0; d < f->nb; d++)
        n *= (size_t)f->dim[d];
    *size = n;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t dnn_fd(cudnnFilterDescriptor_t d, struct td *t, const char *what)
{
    const struct cudnnFilterStruct *f = dnn_desc(d, DK_FILTER);
    if (!f)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: not a filter descriptor that was created and set", what);
    int stride[CUDNN_DIM_MAX];
    packed(f->nb, f->dim, f->format, stride);
    t->type = f->type;
    t->nb = f->nb;
    for (int i = 0; i < f->nb; i++) {
        t->dim[i] = f->dim[i];
        t->stride[i] = stride[i];
    }
    return CUDNN_STATUS_SUCCESS;
}

/* ---- what operations do with tensors --------------------------------------- */
int64_t dnn_count(const struct td *t)
{
    int64_t n = 1;
    for (int d = 0; d < t->nb; d++)
        n *= t->dim[d];
    return n;
}

int64_t dnn_span(const struct td *t)
{
    int64_t last = 0;
    for (int d = 0; d < t->nb; d++) {
        if (t->stride[d] < 0)
            return -1;
        last += (int64_t)(t->dim[d] - 1) * t->stride[d];   /* dims and strides are ints: no overflow */
    }
    return (last + 1) * (int64_t)dnn_type_size(t->type);
}

cudnnStatus_t dnn_hold(struct hl_job *j, const struct td *t, const void *p, const char *what)
{
    int64_t span = dnn_span(t);
    size_t e = dnn_type_size(t->type);
    if (span < 0)
        return dnn_err(CUDNN_STATUS_NOT_SUPPORTED_LAYOUT, "%s: negative strides are not supported", what);
    if (!p)
        return dnn_err(CUDNN_STATUS_BAD_PARAM_NULL_POINTER, "%s is NULL", what);
    if ((uintptr_t)p % e)
        return dnn_err(CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER, "%s (%p) is not aligned to its %zu-byte elements",
                       what, p, e);
    if (hl_job_hold(j, p, (size_t)span))
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s (%p, %lld bytes) is not inside one allocation of the device",
                       what, p, (long long)span);
    return CUDNN_STATUS_SUCCESS;
}

int dnn_same_shape(const struct td *a, const struct td *b)
{
    if (a->nb != b->nb)
        return 0;
    for (int d = 0; d < a->nb; d++)
        if (a->dim[d] != b->dim[d])
            return 0;
    return 1;
}

void dnn_it_init(struct dnn_it *it, const struct td *t)
{
    it->nb = t->nb;
    for (int d = 0; d < t->nb; d++) {
        it->dim[d] = t->dim[d];
        it->stride[d] = t->stride[d];
        it->idx[d] = 0;
    }
    it->off = 0;
}

void dnn_next(struct dnn_it *it)
{
    for (int d = it->nb - 1; d >= 0; d--) {
        it->off += it->stride[d];
        if (++it->idx[d] < it->dim[d])
            return;
        it->off -= it->stride[d] * it->dim[d];
        it->idx[d] = 0;
    }
}

void dnn_gather_f(const struct td *t, const void *p, float *dense)
{
    struct dnn_it it;
    dnn_it_init(&it, t);
    int64_t n = dnn_count(t);
    for (int64_t i = 0; i < n; i++, dnn_next(&it))
        dense[i] = (float)dnn_load(t->type, p, it.off);
}

void dnn_scatter_f(const struct td *t, void *p, const float *dense, double alpha, double beta)
{
    struct dnn_it it;
    dnn_it_init(&it, t);
    int64_t n = dnn_count(t);
    for (int64_t i = 0; i < n; i++, dnn_next(&it)) {
        double v = alpha * dense[i];
        if (beta != 0)
            v += beta * dnn_load(t->type, p, it.off);
        dnn_store(t->type, p, it.off, v);
    }
}
