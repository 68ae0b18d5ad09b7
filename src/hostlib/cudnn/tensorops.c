/* SPDX-License-Identifier: Apache-2.0 */
/* Element-wise tensor operations: cudnnTransformTensor, cudnnAddTensor,
 * cudnnOpTensor (with its descriptor), cudnnSetTensor, cudnnScaleTensor.
 * Loops of this library's own, in double, rounding once into the output's
 * type; A (and B) broadcast along the dimensions where they are 1. */
#include "dnn.h"

#include <math.h>
#include <string.h>

enum ew_op { EW_TRANSFORM, EW_ADD, EW_OP, EW_SET, EW_SCALE };

struct ej {
    struct hl_job h;
    enum ew_op op;
    cudnnOpTensorOp_t top;
    struct td a, b, c;
    const void *A, *B;
    void *C;
    double alpha1, alpha2, beta, value;
};

/* the offset in broadcast tensor x of output index idx */
static int64_t bcast_off(const struct td *x, const int *idx)
{
    int64_t off = 0;
    for (int d = 0; d < x->nb; d++)
        if (x->dim[d] > 1)
            off += (int64_t)idx[d] * x->stride[d];
    return off;
}

static double tensor_op(cudnnOpTensorOp_t op, double a, double b)
{
    switch (op) {
    case CUDNN_OP_TENSOR_ADD: return a + b;
    case CUDNN_OP_TENSOR_MUL: return a * b;
    case CUDNN_OP_TENSOR_MIN: return fmin(a, b);
    case CUDNN_OP_TENSOR_MAX: return fmax(a, b);
    case CUDNN_OP_TENSOR_SQRT: return sqrt(a);
    case CUDNN_OP_TENSOR_NOT: return 1 - a;
    }
    return 0;
}

static void run_ew(struct hl_job *hj)
{
    struct ej *j = (struct ej *)hj;
    struct dnn_it it;
    dnn_it_init(&it, &j->c);
    int64_t n = dnn_count(&j->c);
    cudnnDataType_t ct = j->c.type;
    for (int64_t i = 0; i < n; i++, dnn_next(&it)) {
        double v = 0, old = j->beta != 0 ? dnn_load(ct, j->C, it.off) : 0;
        switch (j->op) {
        case EW_TRANSFORM:
        case EW_ADD:
            v = j->alpha1 * dnn_load(j->a.type, j->A, bcast_off(&j->a, it.idx)) + j->beta * old;
            break;
        case EW_OP: {
            double a = j->alpha1 * dnn_load(j->a.type, j->A, bcast_off(&j->a, it.idx));
            double b = j->B ? j->alpha2 * dnn_load(j->b.type, j->B, bcast_off(&j->b, it.idx)) : 0;
            v = tensor_op(j->top, a, b) + j->beta * old;
            break;
        }
        case EW_SET: v = j->value; break;
        case EW_SCALE: v = j->alpha1 * dnn_load(ct, j->C, it.off); break;
        }
        dnn_store(ct, j->C, it.off, v);
    }
}

/* x broadcasts to y: same rank, each dimension equal or 1 */
static int broadcasts(const struct td *x, const struct td *y)
{
    if (x->nb != y->nb)
        return 0;
    for (int d = 0; d < x->nb; d++)
        if (x->dim[d] != y->dim[d] && x->dim[d] != 1)
            return 0;
    return 1;
}

static cudnnStatus_t float_types(const char *fn, const struct td *a, const struct td *b, const struct td *c)
{
    if (!dnn_float_type(c->type) || (a && !dnn_float_type(a->type)) || (b && !dnn_float_type(b->type)))
        return dnn_err(CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE, "%s: only float, double, half and bfloat16 data", fn);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t submit_ew(cudnnHandle_t h, struct ej *tmpl, int hold_a, int hold_b, const char *fn)
{
    struct ej *j = hl_job_new(sizeof *j, run_ew);
    if (!j)
        return dnn_err(CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED, "%s: out of memory", fn);
    struct hl_job keep = j->h;
    *j = *tmpl;
    j->h = keep;
    cudnnStatus_t r = dnn_hold(&j->h, &j->c, j->C, "the output tensor");
    if (!r && hold_a)
        r = dnn_hold(&j->h, &j->a, j->A, "the input tensor A");
    if (!r && hold_b)
        r = dnn_hold(&j->h, &j->b, j->B, "the input tensor B");
    if (r) {
        hl_job_free(&j->h);
        return r;
    }
    return dnn_submit(h, &j->h);
}

HL_EXPORT cudnnStatus_t cudnnTransformTensor(cudnnHandle_t handle, const void *alpha,
                                             const cudnnTensorDescriptor_t xDesc, const void *x, const void *beta,
                                             const cudnnTensorDescriptor_t yDesc, void *y)
{
    static const char fn[] = "cudnnTransformTensor";
    struct ej t;
    memset(&t, 0, sizeof t);
    cudnnStatus_t r = dnn_handle(handle);
    if (r || (r = dnn_td(xDesc, &t.a, "xDesc")) || (r = dnn_td(yDesc, &t.c, "yDesc")) ||
        (r = float_types(fn, &t.a, NULL, &t.c)))
        return r;
    if (!dnn_same_shape(&t.a, &t.c))
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: x and y differ in shape", fn);
    if (dnn_scale(t.c.type, alpha, &t.alpha1) || dnn_scale(t.c.type, beta, &t.beta))
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: alpha or beta is NULL", fn);
    t.op = EW_TRANSFORM;
    t.A = x;
    t.C = y;
    return submit_ew(handle, &t, 1, 0, fn);
}

HL_EXPORT cudnnStatus_t cudnnAddTensor(cudnnHandle_t handle, const void *alpha, const cudnnTensorDescriptor_t aDesc,
                                       const void *A, const void *beta, const cudnnTensorDescriptor_t cDesc, void *C)
{
    static const char fn[] = "cudnnAddTensor";
    struct ej t;
    memset(&t, 0, sizeof t);
    cudnnStatus_t r = dnn_handle(handle);
    if (r || (r = dnn_td(aDesc, &t.a, "aDesc")) || (r = dnn_td(cDesc, &t.c, "cDesc")) ||
        (r = float_types(fn, &t.a, NULL, &t.c)))
        return r;
    if (!broadcasts(&t.a, &t.c))
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: A's dimensions must be C's or 1", fn);
    if (dnn_scale(t.c.type, alpha, &t.alpha1) || dnn_scale(t.c.type, beta, &t.beta))
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: alpha or beta is NULL", fn);
    t.op = EW_ADD;
    t.A = A;
    t.C = C;
    return submit_ew(handle, &t, 1, 0, fn);
}

HL_EXPORT cudnnStatus_t cudnnSetTensor(cudnnHandle_t handle, const cudnnTensorDescriptor_t yDesc, void *y,
                                       const void *valuePtr)
{
    static const char fn[] = "cudnnSetTensor";
    struct ej t;
    memset(&t, 0, sizeof t);
    cudnnStatus_t r = dnn_handle(handle);
    if (r || (r = dnn_td(yDesc, &t.c, "yDesc")) || (r = float_types(fn, NULL, NULL, &t.c)))
        return r;
    if (!valuePtr)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: valuePtr is NULL", fn);
    t.value = dnn_load(t.c.type, valuePtr, 0);   /* of y's type, as documented */
    t.op = EW_SET;
    t.C = y;
    return submit_ew(handle, &t, 0, 0, fn);
}

HL_EXPORT cudnnStatus_t cudnnScaleTensor(cudnnHandle_t handle, const cudnnTensorDescriptor_t yDesc, void *y,
                                         const void *alpha)
{
    static const char fn[] = "cudnnScaleTensor";
    struct ej t;
    memset(&t, 0, sizeof t);
    cudnnStatus_t r = dnn_handle(handle);
    if (r || (r = dnn_td(yDesc, &t.c, "yDesc")) || (r = float_types(fn, NULL, NULL, &t.c)))
        return r;
    if (dnn_scale(t.c.type, alpha, &t.alpha1))
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: alpha is NULL", fn);
    t.op = EW_SCALE;
    t.C = y;
    return submit_ew(handle, &t, 0, 0, fn);
}

/* ---- cudnnOpTensor ---------------------------------------------------------- */
HL_EXPORT cudnnStatus_t cudnnCreateOpTensorDescriptor(cudnnOpTensorDescriptor_t *opTensorDesc)
{
    return dnn_create((void **)opTensorDesc, sizeof(struct cudnnOpTensorStruct), DK_OPTENSOR);
}

HL_EXPORT cudnnStatus_t cudnnDestroyOpTensorDescriptor(cudnnOpTensorDescriptor_t opTensorDesc)
{
    return dnn_destroy(opTensorDesc, DK_OPTENSOR);
}

HL_EXPORT cudnnStatus_t cudnnSetOpTensorDescriptor(cudnnOpTensorDescriptor_t opTensorDesc,
                                                   cudnnOpTensorOp_t opTensorOp, cudnnDataType_t opTensorCompType,
                                                   cudnnNanPropagation_t opTensorNanOpt)
{
    struct cudnnOpTensorStruct *o = hl_handle_live(opTensorDesc, DK_OPTENSOR) ? opTensorDesc : NULL;
    if (!o || (unsigned)opTensorOp > CUDNN_OP_TENSOR_NOT || !dnn_type_size(opTensorCompType) ||
        (unsigned)opTensorNanOpt > CUDNN_PROPAGATE_NAN)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "cudnnSetOpTensorDescriptor: bad descriptor, op, type or NaN option");
    o->op = opTensorOp;
    o->comp = opTensorCompType;
    o->nan = opTensorNanOpt;
    o->set = 1;
    return CUDNN_STATUS_SUCCESS;
}

HL_EXPORT cudnnStatus_t cudnnGetOpTensorDescriptor(const cudnnOpTensorDescriptor_t opTensorDesc,
                                                   cudnnOpTensorOp_t *opTensorOp, cudnnDataType_t *opTensorCompType,
                                                   cudnnNanPropagation_t *opTensorNanOpt)
{
    const struct cudnnOpTensorStruct *o = dnn_desc(opTensorDesc, DK_OPTENSOR);
    if (!o || !opTensorOp || !opTensorCompType || !opTensorNanOpt)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "cudnnGetOpTensorDescriptor: bad descriptor or NULL argument");
    *opTensorOp = o->op;
    *opTensorCompType = o->comp;
    *opTensorNanOpt = o->nan;
    return CUDNN_STATUS_SUCCESS;
}

HL_EXPORT cudnnStatus_t cudnnOpTensor(cudnnHandle_t handle, const cudnnOpTensorDescriptor_t opTensorDesc,
                                      const void *alpha1, const cudnnTensorDescriptor_t aDesc, const void *A,
                                      const void *alpha2, const cudnnTensorDescriptor_t bDesc, const void *B,
                                      const void *beta, const cudnnTensorDescriptor_t cDesc, void *C)
{
    static const char fn[] = "cudnnOpTensor";
    struct ej t;
    memset(&t, 0, sizeof t);
    cudnnStatus_t r = dnn_handle(handle);
    if (r)
        return r;
    const struct cudnnOpTensorStruct *o = dnn_desc(opTensorDesc, DK_OPTENSOR);
    if (!o)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: not an op-tensor descriptor that was created and set", fn);
    int unary = o->op == CUDNN_OP_TENSOR_SQRT || o->op == CUDNN_OP_TENSOR_NOT;
    if ((r = dnn_td(aDesc, &t.a, "aDesc")) || (!unary && (r = dnn_td(bDesc, &t.b, "bDesc"))) ||
        (r = dnn_td(cDesc, &t.c, "cDesc")) || (r = float_types(fn, &t.a, unary ? NULL : &t.b, &t.c)))
        return r;
    if (!dnn_same_shape(&t.a, &t.c) || (!unary && !broadcasts(&t.b, &t.c)))
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: A must be C's shape, B's dimensions C's or 1", fn);
    if (dnn_scale(t.c.type, alpha1, &t.alpha1) || (!unary && dnn_scale(t.c.type, alpha2, &t.alpha2)) ||
        dnn_scale(t.c.type, beta, &t.beta))
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: a scaling factor is NULL", fn);
    t.op = EW_OP;
    t.top = o->op;
    t.A = A;
    t.B = unary ? NULL : B;
    t.C = C;
    return submit_ew(handle, &t, 1, !unary, fn);
}
