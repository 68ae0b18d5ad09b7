/* SPDX-License-Identifier: Apache-2.0 */
/* The backend API's descriptors: cudnnBackendCreateDescriptor, Destroy,
 * Initialize, SetAttribute, GetAttribute, Finalize (bk.h says what each
 * holds).
 *
 * Statuses, as NVIDIA's library gives them where it needs no GPU (tried on
 * cuDNN 9.19): an attribute of another descriptor type, a wrong element
 * count or a NULL array BAD_PARAM; an attribute given as the wrong type
 * BAD_PARAM_ATTRIBUTE_TYPE; a set after Finalize, or a second Finalize,
 * BAD_PARAM; a get before Finalize NOT_INITIALIZED; a NULL descriptor
 * BAD_PARAM_NULL_POINTER (BAD_PARAM in GetAttribute); a descriptor
 * attribute that is not finalized BAD_PARAM_NOT_FINALIZED, one of the
 * wrong descriptor type BAD_PARAM_DESCRIPTOR_TYPE. A get returns how many
 * elements the attribute has in *elementCount (when not NULL) when
 * requestedElementCount is 0 or the array NULL, and otherwise copies at
 * most that many and returns how many it copied. */
#include "bk.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define BAD(...) dnn_err(CUDNN_STATUS_BAD_PARAM, __VA_ARGS__)

static int known(int t)
{
    switch (t) {
    case CUDNN_BACKEND_TENSOR_DESCRIPTOR:
    case CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR:
    case CUDNN_BACKEND_POINTWISE_DESCRIPTOR:
    case CUDNN_BACKEND_MATMUL_DESCRIPTOR:
    case CUDNN_BACKEND_REDUCTION_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR:
    case CUDNN_BACKEND_ENGINE_DESCRIPTOR:
    case CUDNN_BACKEND_ENGINECFG_DESCRIPTOR:
    case CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR:
    case CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR:
    case CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR:
    case CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR:
    /* what a program creates to get an engine's knobs and layouts into
     * (cudnn-frontend does): this library's engine has none */
    case CUDNN_BACKEND_KNOB_INFO_DESCRIPTOR:
    case CUDNN_BACKEND_LAYOUT_INFO_DESCRIPTOR:
    case CUDNN_BACKEND_INTERMEDIATE_INFO_DESCRIPTOR: return 1;
    default: return 0;
    }
}

static int is_op(int t)
{
    return t == CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR ||
           t == CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR ||
           t == CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR ||
           t == CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR || t == CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR ||
           t == CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR;
}

/* the bytes a descriptor of type t takes: its header and its own member of
 * the union (a tensor is small, a plan holds its program) */
static size_t bk_size(int t)
{
    size_t m;
    switch (t) {
    case CUDNN_BACKEND_TENSOR_DESCRIPTOR: m = sizeof(struct bk_tensor); break;
    case CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR: m = sizeof(struct bk_conv); break;
    case CUDNN_BACKEND_POINTWISE_DESCRIPTOR: m = sizeof(struct bk_pw); break;
    case CUDNN_BACKEND_MATMUL_DESCRIPTOR: m = sizeof(struct bk_mm); break;
    case CUDNN_BACKEND_REDUCTION_DESCRIPTOR: m = sizeof(struct bk_red); break;
    case CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR: m = sizeof(struct bk_graph); break;
    case CUDNN_BACKEND_ENGINE_DESCRIPTOR: m = sizeof(struct bk_engine); break;
    case CUDNN_BACKEND_ENGINECFG_DESCRIPTOR: m = sizeof(struct bk_cfg); break;
    case CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR: m = sizeof(struct bk_heur); break;
    case CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR: m = sizeof(struct bk_plan); break;
    case CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR: m = sizeof(struct bk_vpack); break;
    case CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR: m = sizeof(struct bk_knob); break;
    default: m = is_op(t) ? sizeof(struct bk_op) : 0; break;   /* the info descriptors hold nothing */
    }
    return offsetof(struct bk, u) + m;
}

/* a descriptor in its state after Create */
static void reset(struct bk *d)
{
    cudnnBackendDescriptorType_t t = d->type;
    memset(d, 0, bk_size((int)t));
    d->type = t;
    switch ((int)t) {
    case CUDNN_BACKEND_TENSOR_DESCRIPTOR: d->u.tensor.vcount = 1; d->u.tensor.vdim = -1; break;
    case CUDNN_BACKEND_POINTWISE_DESCRIPTOR:
        d->u.pw.prec = CUDNN_DATA_FLOAT;
        d->u.pw.upper = 3.4028234663852886e38;
        d->u.pw.elu_alpha = 1;
        d->u.pw.softplus_beta = 1;
        d->u.pw.swish_beta = 1;
        break;
    default:
        if (is_op((int)t)) {
            struct bk_op *o = &d->u.op;
            o->alpha = o->alpha2 = 1;
            switch ((int)t) {
            case CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR: o->kind = BO_CONV_FWD; break;
            case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR: o->kind = BO_CONV_BWD_DATA; break;
            case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR: o->kind = BO_CONV_BWD_FILTER; break;
            case CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR: o->kind = BO_POINTWISE; break;
            case CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR: o->kind = BO_MATMUL; break;
            default: o->kind = BO_REDUCTION; break;
            }
        }
        break;
    }
}

HL_EXPORT cudnnStatus_t cudnnBackendCreateDescriptor(cudnnBackendDescriptorType_t descriptorType,
                                                     cudnnBackendDescriptor_t *descriptor)
{
    static const char fn[] = "cudnnBackendCreateDescriptor";
    if (!descriptor)
        return dnn_err(CUDNN_STATUS_BAD_PARAM_NULL_POINTER, "%s: descriptor is NULL", fn);
    if ((int)descriptorType < 0 || (int)descriptorType > (int)CUDNN_BACKEND_OPERATION_SDPA_BWD_DESCRIPTOR)
        return BAD("%s: descriptor type %d", fn, (int)descriptorType);
    if (!known((int)descriptorType))
        return dnn_err(CUDNN_STATUS_NOT_SUPPORTED, "%s: descriptor type %d is not implemented by the host cuDNN "
                       "(see docs/hostlib.md)", fn, (int)descriptorType);
    void *p;
    cudnnStatus_t r = dnn_create(&p, bk_size((int)descriptorType), DK_BACKEND);
    if (r)
        return r;
    struct bk *d = p;
    d->type = descriptorType;
    reset(d);
    *descriptor = d;
    return CUDNN_STATUS_SUCCESS;
}

HL_EXPORT cudnnStatus_t cudnnBackendDestroyDescriptor(cudnnBackendDescriptor_t descriptor)
{
    if (!descriptor)
        return dnn_err(CUDNN_STATUS_BAD_PARAM_NULL_POINTER, "cudnnBackendDestroyDescriptor: descriptor is NULL");
    return dnn_destroy(descriptor, DK_BACKEND);
}

static struct bk *live(cudnnBackendDescriptor_t d)
{
    return hl_handle_live(d, DK_BACKEND) ? d : NULL;
}

HL_EXPORT cudnnStatus_t cudnnBackendInitialize(cudnnBackendDescriptor_t descriptor)
{
    if (!descriptor)
        return dnn_err(CUDNN_STATUS_BAD_PARAM_NULL_POINTER, "cudnnBackendInitialize: descriptor is NULL");
    struct bk *d = live(descriptor);
    if (!d)
        return BAD("cudnnBackendInitialize: not a descriptor cudnnBackendCreateDescriptor made");
    reset(d);
    return CUDNN_STATUS_SUCCESS;
}

/* ---- setting ------------------------------------------------------------------ */
static size_t elem_size(int type)
{
    switch (type) {
    case CUDNN_TYPE_BOOLEAN: case CUDNN_TYPE_CHAR: return 1;
    case CUDNN_TYPE_INT64: case CUDNN_TYPE_DOUBLE: case CUDNN_TYPE_VOID_PTR: case CUDNN_TYPE_HANDLE:
    case CUDNN_TYPE_BACKEND_DESCRIPTOR: return 8;
    default: return 4;   /* float, int32 and the enumerations */
    }
}

/* an attribute given as type (of `want`), count in [lo, hi], an array */
static cudnnStatus_t given(const char *what, int type, int want, int64_t n, int64_t lo, int64_t hi, const void *arr)
{
    if (type != want)
        return dnn_err(CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE, "cudnnBackendSetAttribute: %s given as type %d (%d)",
                       what, type, want);
    if (n < lo || n > hi)
        return BAD("cudnnBackendSetAttribute: %s with %lld elements (%lld to %lld)", what, (long long)n,
                   (long long)lo, (long long)hi);
    if (!arr)
        return BAD("cudnnBackendSetAttribute: %s: the array is NULL", what);
    return CUDNN_STATUS_SUCCESS;
}

/* a scaling factor, as float or double */
static cudnnStatus_t scale(const char *what, int type, int64_t n, const void *arr, double *v)
{
    cudnnStatus_t r = given(what, type, type == CUDNN_TYPE_DOUBLE ? CUDNN_TYPE_DOUBLE : CUDNN_TYPE_FLOAT, n, 1, 1, arr);
    if (r)
        return r;
    *v = type == CUDNN_TYPE_DOUBLE ? *(const double *)arr : *(const float *)arr;
    return CUDNN_STATUS_SUCCESS;
}

/* the finalized descriptor of that type that arr[0..n) holds */
static cudnnStatus_t desc_arg(const char *what, const void *arr, int64_t i, int dtype, const struct bk **out)
{
    const struct bk *d = live(((cudnnBackendDescriptor_t const *)arr)[i]);
    if (!d)
        return BAD("cudnnBackendSetAttribute: %s: not a live backend descriptor", what);
    if (dtype >= 0 ? (int)d->type != dtype : !is_op((int)d->type))
        return dnn_err(CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE, "cudnnBackendSetAttribute: %s: a descriptor of type %d",
                       what, (int)d->type);
    if (!d->final)
        return dnn_err(CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED, "cudnnBackendSetAttribute: %s: not finalized", what);
    *out = d;
    return CUDNN_STATUS_SUCCESS;
}

#define NOATTR() BAD("cudnnBackendSetAttribute: attribute %d is not one of descriptor type %d", (int)name, (int)d->type)

static cudnnStatus_t set_tensor(struct bk *d, int name, int type, int64_t n, const void *a)
{
    struct bk_tensor *t = &d->u.tensor;
    cudnnStatus_t r;
    switch (name) {
    case CUDNN_ATTR_TENSOR_DATA_TYPE:
        if ((r = given("CUDNN_ATTR_TENSOR_DATA_TYPE", type, CUDNN_TYPE_DATA_TYPE, n, 1, 1, a)))
            return r;
        t->type = *(const cudnnDataType_t *)a;
        break;
    case CUDNN_ATTR_TENSOR_DIMENSIONS:
    case CUDNN_ATTR_TENSOR_STRIDES:
        /* more than CUDNN_DIM_MAX is taken here and refused by Finalize, as NVIDIA's library does */
        if ((r = given("the tensor's dimensions or strides", type, CUDNN_TYPE_INT64, n, 1, 255, a)))
            return r;
        memcpy(name == CUDNN_ATTR_TENSOR_DIMENSIONS ? t->dim : t->stride, a,
               (size_t)(n < CUDNN_DIM_MAX ? n : CUDNN_DIM_MAX) * 8);
        if (name == CUDNN_ATTR_TENSOR_DIMENSIONS)
            t->nb = (int)n;
        else
            t->set = (t->set & ~0xff0000u) | (unsigned)n << 16;   /* the strides' count */
        break;
    case CUDNN_ATTR_TENSOR_UNIQUE_ID:
    case CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT:
    case CUDNN_ATTR_TENSOR_VECTOR_COUNT:
    case CUDNN_ATTR_TENSOR_VECTORIZED_DIMENSION:
        if ((r = given("a tensor attribute", type, CUDNN_TYPE_INT64, n, 1, 1, a)))
            return r;
        *(name == CUDNN_ATTR_TENSOR_UNIQUE_ID        ? &t->uid
          : name == CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT ? &t->align
          : name == CUDNN_ATTR_TENSOR_VECTOR_COUNT   ? &t->vcount
                                                     : &t->vdim) = *(const int64_t *)a;
        break;
    case CUDNN_ATTR_TENSOR_IS_VIRTUAL:
    case CUDNN_ATTR_TENSOR_IS_BY_VALUE:
        if ((r = given("a tensor attribute", type, CUDNN_TYPE_BOOLEAN, n, 1, 1, a)))
            return r;
        *(name == CUDNN_ATTR_TENSOR_IS_VIRTUAL ? &t->virt : &t->byval) = *(const unsigned char *)a != 0;
        break;
    case CUDNN_ATTR_TENSOR_REORDERING_MODE:
        if ((r = given("CUDNN_ATTR_TENSOR_REORDERING_MODE", type, CUDNN_TYPE_TENSOR_REORDERING_MODE, n, 1, 1, a)))
            return r;
        if (*(const int *)a != 0)
            return dnn_err(CUDNN_STATUS_NOT_SUPPORTED, "cudnnBackendSetAttribute: tensor reordering mode %d (only "
                           "CUDNN_TENSOR_REORDERING_NONE)", *(const int *)a);
        break;
    default: return NOATTR();
    }
    t->set |= 1u << (name - 900);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t set_conv(struct bk *d, int name, int type, int64_t n, const void *a)
{
    struct bk_conv *c = &d->u.conv;
    cudnnStatus_t r;
    switch (name) {
    case CUDNN_ATTR_CONVOLUTION_COMP_TYPE:
        if ((r = given("CUDNN_ATTR_CONVOLUTION_COMP_TYPE", type, CUDNN_TYPE_DATA_TYPE, n, 1, 1, a)))
            return r;
        c->comp = *(const cudnnDataType_t *)a;
        break;
    case CUDNN_ATTR_CONVOLUTION_CONV_MODE:
        if ((r = given("CUDNN_ATTR_CONVOLUTION_CONV_MODE", type, CUDNN_TYPE_CONVOLUTION_MODE, n, 1, 1, a)))
            return r;
        c->mode = *(const cudnnConvolutionMode_t *)a;
        break;
    case CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS:
        if ((r = given("CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS", type, CUDNN_TYPE_INT64, n, 1, 1, a)))
            return r;
        c->nsp = *(const int64_t *)a;
        break;
    case CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS:
    case CUDNN_ATTR_CONVOLUTION_POST_PADDINGS:
    case CUDNN_ATTR_CONVOLUTION_DILATIONS:
    case CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES: {
        int k = name == CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS    ? BC_PRE
                : name == CUDNN_ATTR_CONVOLUTION_POST_PADDINGS ? BC_POST
                : name == CUDNN_ATTR_CONVOLUTION_DILATIONS     ? BC_DIL
                                                               : BC_STR;
        if ((r = given("a convolution's paddings, dilations or strides", type, CUDNN_TYPE_INT64, n, 1, BK_MAXSP, a)))
            return r;
        memcpy(c->v[k], a, (size_t)n * 8);
        c->n[k] = (int)n;
        break;
    }
    default: return NOATTR();
    }
    c->set |= 1u << (name - 100);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t set_pw(struct bk *d, int name, int type, int64_t n, const void *a)
{
    struct bk_pw *p = &d->u.pw;
    cudnnStatus_t r;
    switch (name) {
    case CUDNN_ATTR_POINTWISE_MODE:
        if ((r = given("CUDNN_ATTR_POINTWISE_MODE", type, CUDNN_TYPE_POINTWISE_MODE, n, 1, 1, a)))
            return r;
        p->mode = *(const cudnnPointwiseMode_t *)a;
        break;
    case CUDNN_ATTR_POINTWISE_MATH_PREC:
        if ((r = given("CUDNN_ATTR_POINTWISE_MATH_PREC", type, CUDNN_TYPE_DATA_TYPE, n, 1, 1, a)))
            return r;
        p->prec = *(const cudnnDataType_t *)a;
        break;
    case CUDNN_ATTR_POINTWISE_NAN_PROPAGATION:
        if ((r = given("CUDNN_ATTR_POINTWISE_NAN_PROPAGATION", type, CUDNN_TYPE_NAN_PROPOGATION, n, 1, 1, a)))
            return r;
        p->nan = *(const int *)a;
        break;
    case CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP:
    case CUDNN_ATTR_POINTWISE_RELU_UPPER_CLIP:
    case CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP_SLOPE:
    case CUDNN_ATTR_POINTWISE_ELU_ALPHA:
    case CUDNN_ATTR_POINTWISE_SOFTPLUS_BETA:
    case CUDNN_ATTR_POINTWISE_SWISH_BETA: {
        double *v = name == CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP         ? &p->lower
                    : name == CUDNN_ATTR_POINTWISE_RELU_UPPER_CLIP       ? &p->upper
                    : name == CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP_SLOPE ? &p->slope
                    : name == CUDNN_ATTR_POINTWISE_ELU_ALPHA             ? &p->elu_alpha
                    : name == CUDNN_ATTR_POINTWISE_SOFTPLUS_BETA         ? &p->softplus_beta
                                                                         : &p->swish_beta;
        if ((r = scale("a pointwise parameter", type, n, a, v)))
            return r;
        break;
    }
    case CUDNN_ATTR_POINTWISE_AXIS:
        if ((r = given("CUDNN_ATTR_POINTWISE_AXIS", type, CUDNN_TYPE_INT64, n, 1, 1, a)))
            return r;
        p->axis = *(const int64_t *)a;
        break;
    default: return NOATTR();
    }
    p->set |= 1u << name;
    return CUDNN_STATUS_SUCCESS;
}

/* which operand slot an operation's tensor attribute is, or -1 */
static int op_slot(int kind, int name)
{
    switch (name) {
    case CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X: return kind == BO_CONV_FWD ? BT_X : -1;
    case CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W: return kind == BO_CONV_FWD ? BT_W : -1;
    case CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y: return kind == BO_CONV_FWD ? BT_Y : -1;
    case CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX: return kind == BO_CONV_BWD_DATA ? BT_X : -1;
    case CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W: return kind == BO_CONV_BWD_DATA ? BT_W : -1;
    case CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY: return kind == BO_CONV_BWD_DATA ? BT_Y : -1;
    case CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X: return kind == BO_CONV_BWD_FILTER ? BT_X : -1;
    case CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW: return kind == BO_CONV_BWD_FILTER ? BT_W : -1;
    case CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY: return kind == BO_CONV_BWD_FILTER ? BT_Y : -1;
    case CUDNN_ATTR_OPERATION_POINTWISE_XDESC: return kind == BO_POINTWISE ? BT_X : -1;
    case CUDNN_ATTR_OPERATION_POINTWISE_BDESC: return kind == BO_POINTWISE ? BT_B : -1;
    case CUDNN_ATTR_OPERATION_POINTWISE_YDESC: return kind == BO_POINTWISE ? BT_Y : -1;
    case CUDNN_ATTR_OPERATION_POINTWISE_DYDESC: return kind == BO_POINTWISE ? BT_DY : -1;
    case CUDNN_ATTR_OPERATION_POINTWISE_DXDESC: return kind == BO_POINTWISE ? BT_DX : -1;
    case CUDNN_ATTR_OPERATION_MATMUL_ADESC: return kind == BO_MATMUL ? BT_X : -1;
    case CUDNN_ATTR_OPERATION_MATMUL_BDESC: return kind == BO_MATMUL ? BT_W : -1;
    case CUDNN_ATTR_OPERATION_MATMUL_CDESC: return kind == BO_MATMUL ? BT_Y : -1;
    case CUDNN_ATTR_OPERATION_REDUCTION_XDESC: return kind == BO_REDUCTION ? BT_X : -1;
    case CUDNN_ATTR_OPERATION_REDUCTION_YDESC: return kind == BO_REDUCTION ? BT_Y : -1;
    default: return -1;
    }
}

static cudnnStatus_t set_op(struct bk *d, int name, int type, int64_t n, const void *a)
{
    struct bk_op *o = &d->u.op;
    const struct bk *s;
    cudnnStatus_t r;
    int slot = op_slot(o->kind, name);
    if (slot >= 0) {
        if ((r = given("an operation's tensor", type, CUDNN_TYPE_BACKEND_DESCRIPTOR, n, 1, 1, a)) ||
            (r = desc_arg("an operation's tensor", a, 0, CUDNN_BACKEND_TENSOR_DESCRIPTOR, &s)))
            return r;
        o->t[slot] = s->u.tensor;
        o->has[slot] = 1;
        return CUDNN_STATUS_SUCCESS;
    }
    int conv = o->kind == BO_CONV_FWD || o->kind == BO_CONV_BWD_DATA || o->kind == BO_CONV_BWD_FILTER;
    int base = o->kind == BO_CONV_FWD ? 700 : o->kind == BO_CONV_BWD_DATA ? 706 : 712;
    if (conv && name == base + 2) {   /* ..._CONV_DESC */
        if ((r = given("the convolution descriptor", type, CUDNN_TYPE_BACKEND_DESCRIPTOR, n, 1, 1, a)) ||
            (r = desc_arg("the convolution descriptor", a, 0, CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, &s)))
            return r;
        o->conv = s->u.conv;
        o->has_conv = 1;
        return CUDNN_STATUS_SUCCESS;
    }
    if (conv && (name == base || name == base + 1))   /* ..._ALPHA, ..._BETA */
        return scale("a convolution's alpha or beta", type, n, a, name == base ? &o->alpha : &o->beta);
    if (o->kind == BO_POINTWISE && (name == CUDNN_ATTR_OPERATION_POINTWISE_ALPHA1 ||
                                    name == CUDNN_ATTR_OPERATION_POINTWISE_ALPHA2))
        return scale("a pointwise alpha", type, n, a,
                     name == CUDNN_ATTR_OPERATION_POINTWISE_ALPHA1 ? &o->alpha : &o->alpha2);
    int dt = o->kind == BO_POINTWISE && name == CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR ? CUDNN_BACKEND_POINTWISE_DESCRIPTOR
             : o->kind == BO_MATMUL && name == CUDNN_ATTR_OPERATION_MATMUL_DESC             ? CUDNN_BACKEND_MATMUL_DESCRIPTOR
             : o->kind == BO_REDUCTION && name == CUDNN_ATTR_OPERATION_REDUCTION_DESC       ? CUDNN_BACKEND_REDUCTION_DESCRIPTOR
                                                                                             : -1;
    if (dt < 0)
        return NOATTR();
    if ((r = given("the operation's descriptor", type, CUDNN_TYPE_BACKEND_DESCRIPTOR, n, 1, 1, a)) ||
        (r = desc_arg("the operation's descriptor", a, 0, dt, &s)))
        return r;
    if (o->kind == BO_POINTWISE)
        o->pw = s->u.pw, o->has_pw = 1;
    else if (o->kind == BO_MATMUL)
        o->mm = s->u.mm, o->has_mm = 1;
    else
        o->red = s->u.red, o->has_red = 1;
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t set_handle(const char *what, int type, int64_t n, const void *a, cudnnHandle_t *h)
{
    cudnnStatus_t r = given(what, type, CUDNN_TYPE_HANDLE, n, 1, 1, a);
    if (r || (r = dnn_handle(*(const cudnnHandle_t *)a)))
        return r;
    *h = *(const cudnnHandle_t *)a;
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t set_other(struct bk *d, int name, int type, int64_t n, const void *a)
{
    const struct bk *s;
    cudnnStatus_t r;
    switch ((int)d->type) {
    case CUDNN_BACKEND_MATMUL_DESCRIPTOR:
        if (name == CUDNN_ATTR_MATMUL_COMP_TYPE) {
            if ((r = given("CUDNN_ATTR_MATMUL_COMP_TYPE", type, CUDNN_TYPE_DATA_TYPE, n, 1, 1, a)))
                return r;
            d->u.mm.comp = *(const cudnnDataType_t *)a;
            d->u.mm.set = 1;
            return CUDNN_STATUS_SUCCESS;
        }
        if (name == CUDNN_ATTR_MATMUL_PADDING_VALUE)
            return scale("CUDNN_ATTR_MATMUL_PADDING_VALUE", type, n, a, &d->u.mm.padding);
        return NOATTR();
    case CUDNN_BACKEND_REDUCTION_DESCRIPTOR:
        if (name == CUDNN_ATTR_REDUCTION_OPERATOR) {
            if ((r = given("CUDNN_ATTR_REDUCTION_OPERATOR", type, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, n, 1, 1, a)))
                return r;
            d->u.red.op = *(const cudnnReduceTensorOp_t *)a;
            d->u.red.set |= 1;
            return CUDNN_STATUS_SUCCESS;
        }
        if (name == CUDNN_ATTR_REDUCTION_COMP_TYPE) {
            if ((r = given("CUDNN_ATTR_REDUCTION_COMP_TYPE", type, CUDNN_TYPE_DATA_TYPE, n, 1, 1, a)))
                return r;
            d->u.red.comp = *(const cudnnDataType_t *)a;
            d->u.red.set |= 2;
            return CUDNN_STATUS_SUCCESS;
        }
        return NOATTR();
    case CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR:
        if (name == CUDNN_ATTR_OPERATIONGRAPH_HANDLE)
            return set_handle("CUDNN_ATTR_OPERATIONGRAPH_HANDLE", type, n, a, &d->u.graph.handle);
        if (name != CUDNN_ATTR_OPERATIONGRAPH_OPS)
            return NOATTR();
        if ((r = given("CUDNN_ATTR_OPERATIONGRAPH_OPS", type, CUDNN_TYPE_BACKEND_DESCRIPTOR, n, 1, BK_MAXOPS, a)))
            return r;
        for (int64_t i = 0; i < n; i++) {
            if ((r = desc_arg("CUDNN_ATTR_OPERATIONGRAPH_OPS", a, i, -1, &s)))
                return r;
            d->u.graph.ops[i] = s->u.op;
        }
        d->u.graph.nops = (int)n;
        return CUDNN_STATUS_SUCCESS;
    case CUDNN_BACKEND_ENGINE_DESCRIPTOR:
        if (name == CUDNN_ATTR_ENGINE_OPERATION_GRAPH) {
            if ((r = given("CUDNN_ATTR_ENGINE_OPERATION_GRAPH", type, CUDNN_TYPE_BACKEND_DESCRIPTOR, n, 1, 1, a)) ||
                (r = desc_arg("CUDNN_ATTR_ENGINE_OPERATION_GRAPH", a, 0, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &s)))
                return r;
            d->u.engine.g = s->u.graph;
            d->u.engine.has_graph = 1;
            return CUDNN_STATUS_SUCCESS;
        }
        if (name == CUDNN_ATTR_ENGINE_GLOBAL_INDEX) {
            if ((r = given("CUDNN_ATTR_ENGINE_GLOBAL_INDEX", type, CUDNN_TYPE_INT64, n, 1, 1, a)))
                return r;
            d->u.engine.index = *(const int64_t *)a;
            return CUDNN_STATUS_SUCCESS;
        }
        if (name == CUDNN_ATTR_ENGINE_SM_COUNT_TARGET)
            return given("CUDNN_ATTR_ENGINE_SM_COUNT_TARGET", type, CUDNN_TYPE_INT32, n, 1, 1, a);
        return NOATTR();
    case CUDNN_BACKEND_ENGINECFG_DESCRIPTOR:
        if (name == CUDNN_ATTR_ENGINECFG_ENGINE) {
            if ((r = given("CUDNN_ATTR_ENGINECFG_ENGINE", type, CUDNN_TYPE_BACKEND_DESCRIPTOR, n, 1, 1, a)) ||
                (r = desc_arg("CUDNN_ATTR_ENGINECFG_ENGINE", a, 0, CUDNN_BACKEND_ENGINE_DESCRIPTOR, &s)))
                return r;
            d->u.cfg.e = s->u.engine;
            d->u.cfg.has_engine = 1;
            return CUDNN_STATUS_SUCCESS;
        }
        if (name == CUDNN_ATTR_ENGINECFG_KNOB_CHOICES) {
            if ((r = given("CUDNN_ATTR_ENGINECFG_KNOB_CHOICES", type, CUDNN_TYPE_BACKEND_DESCRIPTOR, n, 0, 64,
                           n ? a : "")))
                return r;
            for (int64_t i = 0; i < n; i++)
                if ((r = desc_arg("CUDNN_ATTR_ENGINECFG_KNOB_CHOICES", a, i, CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, &s)))
                    return r;
            d->u.cfg.nknobs = (int)n;
            return CUDNN_STATUS_SUCCESS;
        }
        return NOATTR();
    case CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR:
        if (name == CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH) {
            if ((r = given("CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH", type, CUDNN_TYPE_BACKEND_DESCRIPTOR, n, 1, 1, a)) ||
                (r = desc_arg("CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH", a, 0, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR,
                              &s)))
                return r;
            d->u.heur.g = s->u.graph;
            d->u.heur.has_graph = 1;
            return CUDNN_STATUS_SUCCESS;
        }
        if (name == CUDNN_ATTR_ENGINEHEUR_MODE) {
            if ((r = given("CUDNN_ATTR_ENGINEHEUR_MODE", type, CUDNN_TYPE_HEUR_MODE, n, 1, 1, a)))
                return r;
            d->u.heur.mode = *(const int *)a;
            d->u.heur.has_mode = 1;
            return CUDNN_STATUS_SUCCESS;
        }
        if (name == CUDNN_ATTR_ENGINEHEUR_SM_COUNT_TARGET)
            return given("CUDNN_ATTR_ENGINEHEUR_SM_COUNT_TARGET", type, CUDNN_TYPE_INT32, n, 1, 1, a);
        return NOATTR();
    case CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR:
        if (name == CUDNN_ATTR_EXECUTION_PLAN_HANDLE)
            return set_handle("CUDNN_ATTR_EXECUTION_PLAN_HANDLE", type, n, a, &d->u.plan.handle);
        if (name == CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG) {
            if ((r = given("CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG", type, CUDNN_TYPE_BACKEND_DESCRIPTOR, n, 1, 1, a)) ||
                (r = desc_arg("CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG", a, 0, CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &s)))
                return r;
            d->u.plan.c = s->u.cfg;
            d->u.plan.has_cfg = 1;
            return CUDNN_STATUS_SUCCESS;
        }
        if (name == CUDNN_ATTR_EXECUTION_PLAN_RUN_ONLY_INTERMEDIATE_UIDS) {
            if ((r = given("CUDNN_ATTR_EXECUTION_PLAN_RUN_ONLY_INTERMEDIATE_UIDS", type, CUDNN_TYPE_INT64, n, 0, 0, a)))
                return r;
            return CUDNN_STATUS_SUCCESS;
        }
        return NOATTR();
    case CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR:
        if (name == CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS) {
            if ((r = given("CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS", type, CUDNN_TYPE_INT64, n, 0, BK_MAXVP, n ? a : "")))
                return r;
            memcpy(d->u.vp.uid, a, (size_t)n * 8);
            d->u.vp.nuid = (int)n;
            return CUDNN_STATUS_SUCCESS;
        }
        if (name == CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS) {
            if ((r = given("CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS", type, CUDNN_TYPE_VOID_PTR, n, 0, BK_MAXVP,
                           n ? a : "")))
                return r;
            memcpy(d->u.vp.ptr, a, (size_t)n * sizeof(void *));
            d->u.vp.nptr = (int)n;
            return CUDNN_STATUS_SUCCESS;
        }
        if (name == CUDNN_ATTR_VARIANT_PACK_WORKSPACE) {
            if ((r = given("CUDNN_ATTR_VARIANT_PACK_WORKSPACE", type, CUDNN_TYPE_VOID_PTR, n, 1, 1, a)))
                return r;
            d->u.vp.ws = *(void *const *)a;
            d->u.vp.has_ws = 1;
            return CUDNN_STATUS_SUCCESS;
        }
        return NOATTR();
    case CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR:
        if (name == CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE) {
            if ((r = given("CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE", type, CUDNN_TYPE_KNOB_TYPE, n, 1, 1, a)))
                return r;
            d->u.knob.type = *(const int *)a;
            return CUDNN_STATUS_SUCCESS;
        }
        if (name == CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE) {
            if ((r = given("CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE", type, CUDNN_TYPE_INT64, n, 1, 1, a)))
                return r;
            d->u.knob.value = *(const int64_t *)a;
            return CUDNN_STATUS_SUCCESS;
        }
        return NOATTR();
    default: return NOATTR();
    }
}

HL_EXPORT cudnnStatus_t cudnnBackendSetAttribute(cudnnBackendDescriptor_t descriptor,
                                                 cudnnBackendAttributeName_t attributeName,
                                                 cudnnBackendAttributeType_t attributeType, int64_t elementCount,
                                                 const void *arrayOfElements)
{
    if (!descriptor)
        return dnn_err(CUDNN_STATUS_BAD_PARAM_NULL_POINTER, "cudnnBackendSetAttribute: descriptor is NULL");
    struct bk *d = live(descriptor);
    if (!d)
        return BAD("cudnnBackendSetAttribute: not a descriptor cudnnBackendCreateDescriptor made");
    if (d->final)
        return BAD("cudnnBackendSetAttribute: attribute %d of a finalized descriptor", (int)attributeName);
    int name = (int)attributeName, type = (int)attributeType;
    int64_t n = elementCount;
    const void *a = arrayOfElements;
    switch ((int)d->type) {
    case CUDNN_BACKEND_TENSOR_DESCRIPTOR: return set_tensor(d, name, type, n, a);
    case CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR: return set_conv(d, name, type, n, a);
    case CUDNN_BACKEND_POINTWISE_DESCRIPTOR: return set_pw(d, name, type, n, a);
    default: return is_op((int)d->type) ? set_op(d, name, type, n, a) : set_other(d, name, type, n, a);
    }
}

/* ---- finalizing --------------------------------------------------------------- */
static cudnnStatus_t fin_tensor(const struct bk_tensor *t)
{
    static const char fn[] = "cudnnBackendFinalize (tensor)";
    unsigned need = 1u << (CUDNN_ATTR_TENSOR_DATA_TYPE - 900) | 1u << (CUDNN_ATTR_TENSOR_DIMENSIONS - 900) |
                    1u << (CUDNN_ATTR_TENSOR_STRIDES - 900) | 1u << (CUDNN_ATTR_TENSOR_UNIQUE_ID - 900) |
                    1u << (CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT - 900);
    if ((t->set & need) != need)
        return BAD("%s: the data type, dimensions, strides, unique id and byte alignment are required", fn);
    if (t->nb > CUDNN_DIM_MAX)
        return BAD("%s: %d dimensions (at most %d)", fn, t->nb, CUDNN_DIM_MAX);
    if ((int)(t->set >> 16) != t->nb)
        return BAD("%s: %d dimensions and %u strides", fn, t->nb, t->set >> 16);
    if (t->align <= 0 || (t->align & (t->align - 1)))
        return BAD("%s: byte alignment %lld", fn, (long long)t->align);
    for (int i = 0; i < t->nb; i++)
        if (t->dim[i] <= 0 || t->stride[i] < 0)
            return BAD("%s: dimension %d is %lld with stride %lld", fn, i, (long long)t->dim[i],
                       (long long)t->stride[i]);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t fin_conv(const struct bk_conv *c)
{
    static const char fn[] = "cudnnBackendFinalize (convolution)";
    if (c->set != 0x7f)
        return BAD("%s: the compute type, mode, spatial dimensions, paddings, dilations and strides are required", fn);
    if (c->nsp < 1 || c->nsp > BK_MAXSP)
        return BAD("%s: %lld spatial dimensions", fn, (long long)c->nsp);
    for (int k = 0; k < 4; k++) {
        if (c->n[k] != c->nsp)
            return BAD("%s: %d paddings, dilations or strides for %lld spatial dimensions", fn, c->n[k],
                       (long long)c->nsp);
        for (int i = 0; i < c->nsp; i++)
            if (k <= BC_POST ? c->v[k][i] < 0 : c->v[k][i] <= 0)
                return BAD("%s: padding, dilation or stride %lld", fn, (long long)c->v[k][i]);
    }
    if ((unsigned)c->mode > CUDNN_CROSS_CORRELATION)
        return BAD("%s: mode %d", fn, (int)c->mode);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t fin_op(const struct bk_op *o)
{
    static const char fn[] = "cudnnBackendFinalize (operation)";
    switch (o->kind) {
    case BO_CONV_FWD:
    case BO_CONV_BWD_DATA:
    case BO_CONV_BWD_FILTER:
        if (!o->has[BT_X] || !o->has[BT_W] || !o->has[BT_Y] || !o->has_conv)
            return BAD("%s: a convolution needs its three tensors and its convolution descriptor", fn);
        return CUDNN_STATUS_SUCCESS;
    case BO_POINTWISE:
        if (!o->has_pw)
            return BAD("%s: a pointwise operation needs its pointwise descriptor", fn);
        if ((int)o->pw.mode >= 200 && (int)o->pw.mode < 300) {
            if (!o->has[BT_DY] || !o->has[BT_DX])
                return BAD("%s: a backward pointwise operation needs dy and dx", fn);
        } else if (!o->has[BT_X] || !o->has[BT_Y]) {
            return BAD("%s: a pointwise operation needs x and y", fn);
        }
        return CUDNN_STATUS_SUCCESS;
    case BO_MATMUL:
        if (!o->has[BT_X] || !o->has[BT_W] || !o->has[BT_Y] || !o->has_mm)
            return BAD("%s: a matmul needs a, b, c and its matmul descriptor", fn);
        return CUDNN_STATUS_SUCCESS;
    case BO_REDUCTION:
        if (!o->has[BT_X] || !o->has[BT_Y] || !o->has_red)
            return BAD("%s: a reduction needs x, y and its reduction descriptor", fn);
        return CUDNN_STATUS_SUCCESS;
    }
    return BAD("%s: kind %d", fn, (int)o->kind);
}

/* an engine of this library: index 0 of a graph it runs */
static cudnnStatus_t fin_engine(const struct bk_engine *e, struct bk_prog *scratch)
{
    if (!e->has_graph)
        return dnn_err(CUDNN_STATUS_BAD_PARAM_NULL_POINTER,
                       "cudnnBackendFinalize (engine): CUDNN_ATTR_ENGINE_OPERATION_GRAPH is required");
    if (e->index != 0)
        return BAD("cudnnBackendFinalize (engine): global index %lld (the host cuDNN has one engine, 0)",
                   (long long)e->index);
    return bk_compile(&e->g, scratch);
}

HL_EXPORT cudnnStatus_t cudnnBackendFinalize(cudnnBackendDescriptor_t descriptor)
{
    if (!descriptor)
        return dnn_err(CUDNN_STATUS_BAD_PARAM_NULL_POINTER, "cudnnBackendFinalize: descriptor is NULL");
    struct bk *d = live(descriptor);
    if (!d)
        return BAD("cudnnBackendFinalize: not a descriptor cudnnBackendCreateDescriptor made");
    if (d->final)
        return BAD("cudnnBackendFinalize: the descriptor is already finalized");
    cudnnStatus_t r = CUDNN_STATUS_SUCCESS;
    struct bk_prog *tmp = NULL;
    switch ((int)d->type) {
    case CUDNN_BACKEND_TENSOR_DESCRIPTOR: r = fin_tensor(&d->u.tensor); break;
    case CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR: r = fin_conv(&d->u.conv); break;
    case CUDNN_BACKEND_POINTWISE_DESCRIPTOR:
        if (!(d->u.pw.set & 1u << CUDNN_ATTR_POINTWISE_MODE))
            r = BAD("cudnnBackendFinalize (pointwise): CUDNN_ATTR_POINTWISE_MODE is required");
        break;
    case CUDNN_BACKEND_MATMUL_DESCRIPTOR:
        if (!d->u.mm.set)
            r = BAD("cudnnBackendFinalize (matmul): CUDNN_ATTR_MATMUL_COMP_TYPE is required");
        break;
    case CUDNN_BACKEND_REDUCTION_DESCRIPTOR:
        if (d->u.red.set != 3)
            r = BAD("cudnnBackendFinalize (reduction): the operator and the compute type are required");
        break;
    case CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR:
        /* the handle is optional (deprecated in cuDNN 9, as NVIDIA's library takes it) */
        if (!d->u.graph.nops)
            r = BAD("cudnnBackendFinalize (operation graph): CUDNN_ATTR_OPERATIONGRAPH_OPS is required");
        break;
    case CUDNN_BACKEND_ENGINE_DESCRIPTOR:
    case CUDNN_BACKEND_ENGINECFG_DESCRIPTOR:
        if ((int)d->type == CUDNN_BACKEND_ENGINECFG_DESCRIPTOR && !d->u.cfg.has_engine) {
            r = BAD("cudnnBackendFinalize (engine config): CUDNN_ATTR_ENGINECFG_ENGINE is required");
            break;
        }
        if ((int)d->type == CUDNN_BACKEND_ENGINECFG_DESCRIPTOR && d->u.cfg.nknobs) {
            r = dnn_err(CUDNN_STATUS_NOT_SUPPORTED, "cudnnBackendFinalize (engine config): %d knob choices (the "
                        "host cuDNN's engine has no knobs)", d->u.cfg.nknobs);
            break;
        }
        if (!(tmp = malloc(sizeof *tmp))) {
            r = dnn_err(CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED, "cudnnBackendFinalize: out of memory");
            break;
        }
        r = fin_engine((int)d->type == CUDNN_BACKEND_ENGINE_DESCRIPTOR ? &d->u.engine : &d->u.cfg.e, tmp);
        break;
    case CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR:
        if (!d->u.heur.has_graph || !d->u.heur.has_mode)
            r = BAD("cudnnBackendFinalize (engine heuristics): the operation graph and the mode are required");
        break;
    case CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR:
        if (!d->u.plan.has_cfg)
            r = dnn_err(CUDNN_STATUS_BAD_PARAM_NULL_POINTER, "cudnnBackendFinalize (execution plan): "
                        "CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG is required");
        else if (!(r = fin_engine(&d->u.plan.c.e, &d->u.plan.prog)))
            r = bk_prepare(&d->u.plan.prog);
        break;
    case CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR:
        if (d->u.vp.nuid != d->u.vp.nptr)
            r = BAD("cudnnBackendFinalize (variant pack): %d unique ids and %d data pointers", d->u.vp.nuid,
                    d->u.vp.nptr);
        break;
    default:
        if (is_op((int)d->type))
            r = fin_op(&d->u.op);
        break;
    }
    free(tmp);
    if (!r)
        d->final = 1;
    return r;
}

/* ---- getting ------------------------------------------------------------------ */
/* n elements of size es at src, as type (of `want`) */
static cudnnStatus_t put(int type, int want, int64_t req, int64_t *count, void *arr, const void *src, int64_t n)
{
    if (type != want)
        return dnn_err(CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE, "cudnnBackendGetAttribute: asked as type %d (%d)", type,
                       want);
    if (req < 0)
        return BAD("cudnnBackendGetAttribute: %lld elements requested", (long long)req);
    if (!arr)
        req = 0;   /* how many there are (cudnn-frontend asks so) */
    if (n > req && req > 0)
        n = req;
    if (count)
        *count = n;   /* how many there are when none was requested, how many were copied otherwise */
    if (n > req)
        n = req;
    if (n > 0)
        memcpy(arr, src, (size_t)n * elem_size(want));
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t put_i64(int type, int64_t req, int64_t *count, void *arr, int64_t v)
{
    return put(type, CUDNN_TYPE_INT64, req, count, arr, &v, 1);
}

static cudnnStatus_t put_enum(int type, int want, int64_t req, int64_t *count, void *arr, int v)
{
    return put(type, want, req, count, arr, &v, 1);
}

static cudnnStatus_t put_scale(int type, int64_t req, int64_t *count, void *arr, double v)
{
    float f = (float)v;
    if (type == CUDNN_TYPE_FLOAT)
        return put(type, CUDNN_TYPE_FLOAT, req, count, arr, &f, 1);
    return put(type, CUDNN_TYPE_DOUBLE, req, count, arr, &v, 1);
}

/* copies src (of descriptor type dtype) into the program's descriptors
 * arr[0..n) */
static cudnnStatus_t put_desc(int type, int64_t req, int64_t *count, void *arr, int dtype, const void *src,
                              size_t size, int64_t n)
{
    if (type != CUDNN_TYPE_BACKEND_DESCRIPTOR)
        return dnn_err(CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE, "cudnnBackendGetAttribute: a descriptor asked as type %d",
                       type);
    if (req < 0)
        return BAD("cudnnBackendGetAttribute: %lld elements requested", (long long)req);
    if (!arr)
        req = 0;
    int64_t m = n < req ? n : req;
    for (int64_t i = 0; i < m; i++) {
        struct bk *o = live(((cudnnBackendDescriptor_t *)arr)[i]);
        if (!o || (int)o->type != dtype)
            return dnn_err(CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE, "cudnnBackendGetAttribute: element %lld is not a "
                           "live descriptor of type %d", (long long)i, dtype);
    }
    for (int64_t i = 0; i < m; i++) {
        struct bk *o = ((cudnnBackendDescriptor_t *)arr)[i];
        memcpy(&o->u, (const char *)src + (size_t)i * size, size);
        o->final = 1;
    }
    if (count)
        *count = req > 0 ? m : n;
    return CUDNN_STATUS_SUCCESS;
}

#define GNOATTR() BAD("cudnnBackendGetAttribute: attribute %d of descriptor type %d", name, (int)d->type)

static cudnnStatus_t get_tensor(const struct bk *d, int name, int type, int64_t req, int64_t *cnt, void *arr)
{
    const struct bk_tensor *t = &d->u.tensor;
    unsigned char b;
    switch (name) {
    case CUDNN_ATTR_TENSOR_DATA_TYPE: return put_enum(type, CUDNN_TYPE_DATA_TYPE, req, cnt, arr, (int)t->type);
    case CUDNN_ATTR_TENSOR_DIMENSIONS: return put(type, CUDNN_TYPE_INT64, req, cnt, arr, t->dim, t->nb);
    case CUDNN_ATTR_TENSOR_STRIDES: return put(type, CUDNN_TYPE_INT64, req, cnt, arr, t->stride, t->nb);
    case CUDNN_ATTR_TENSOR_UNIQUE_ID: return put_i64(type, req, cnt, arr, t->uid);
    case CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT: return put_i64(type, req, cnt, arr, t->align);
    case CUDNN_ATTR_TENSOR_VECTOR_COUNT: return put_i64(type, req, cnt, arr, t->vcount);
    case CUDNN_ATTR_TENSOR_VECTORIZED_DIMENSION: return put_i64(type, req, cnt, arr, t->vdim);
    case CUDNN_ATTR_TENSOR_IS_VIRTUAL:
    case CUDNN_ATTR_TENSOR_IS_BY_VALUE:
        b = (unsigned char)(name == CUDNN_ATTR_TENSOR_IS_VIRTUAL ? t->virt : t->byval);
        return put(type, CUDNN_TYPE_BOOLEAN, req, cnt, arr, &b, 1);
    case CUDNN_ATTR_TENSOR_REORDERING_MODE: return put_enum(type, CUDNN_TYPE_TENSOR_REORDERING_MODE, req, cnt, arr, 0);
    default: return GNOATTR();
    }
}

static cudnnStatus_t get_conv(const struct bk *d, int name, int type, int64_t req, int64_t *cnt, void *arr)
{
    const struct bk_conv *c = &d->u.conv;
    switch (name) {
    case CUDNN_ATTR_CONVOLUTION_COMP_TYPE: return put_enum(type, CUDNN_TYPE_DATA_TYPE, req, cnt, arr, (int)c->comp);
    case CUDNN_ATTR_CONVOLUTION_CONV_MODE:
        return put_enum(type, CUDNN_TYPE_CONVOLUTION_MODE, req, cnt, arr, (int)c->mode);
    case CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS: return put_i64(type, req, cnt, arr, c->nsp);
    case CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS: return put(type, CUDNN_TYPE_INT64, req, cnt, arr, c->v[BC_PRE], c->nsp);
    case CUDNN_ATTR_CONVOLUTION_POST_PADDINGS: return put(type, CUDNN_TYPE_INT64, req, cnt, arr, c->v[BC_POST], c->nsp);
    case CUDNN_ATTR_CONVOLUTION_DILATIONS: return put(type, CUDNN_TYPE_INT64, req, cnt, arr, c->v[BC_DIL], c->nsp);
    case CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES: return put(type, CUDNN_TYPE_INT64, req, cnt, arr, c->v[BC_STR], c->nsp);
    default: return GNOATTR();
    }
}

static cudnnStatus_t get_pw(const struct bk *d, int name, int type, int64_t req, int64_t *cnt, void *arr)
{
    const struct bk_pw *p = &d->u.pw;
    switch (name) {
    case CUDNN_ATTR_POINTWISE_MODE: return put_enum(type, CUDNN_TYPE_POINTWISE_MODE, req, cnt, arr, (int)p->mode);
    case CUDNN_ATTR_POINTWISE_MATH_PREC: return put_enum(type, CUDNN_TYPE_DATA_TYPE, req, cnt, arr, (int)p->prec);
    case CUDNN_ATTR_POINTWISE_NAN_PROPAGATION: return put_enum(type, CUDNN_TYPE_NAN_PROPOGATION, req, cnt, arr, p->nan);
    case CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP: return put_scale(type, req, cnt, arr, p->lower);
    case CUDNN_ATTR_POINTWISE_RELU_UPPER_CLIP: return put_scale(type, req, cnt, arr, p->upper);
    case CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP_SLOPE: return put_scale(type, req, cnt, arr, p->slope);
    case CUDNN_ATTR_POINTWISE_ELU_ALPHA: return put_scale(type, req, cnt, arr, p->elu_alpha);
    case CUDNN_ATTR_POINTWISE_SOFTPLUS_BETA: return put_scale(type, req, cnt, arr, p->softplus_beta);
    case CUDNN_ATTR_POINTWISE_SWISH_BETA: return put_scale(type, req, cnt, arr, p->swish_beta);
    case CUDNN_ATTR_POINTWISE_AXIS: return put_i64(type, req, cnt, arr, p->axis);
    default: return GNOATTR();
    }
}

static cudnnStatus_t get_op(const struct bk *d, int name, int type, int64_t req, int64_t *cnt, void *arr)
{
    const struct bk_op *o = &d->u.op;
    int slot = op_slot(o->kind, name);
    if (slot >= 0)
        return put_desc(type, req, cnt, arr, CUDNN_BACKEND_TENSOR_DESCRIPTOR, &o->t[slot], sizeof o->t[slot],
                        o->has[slot]);
    int conv = o->kind == BO_CONV_FWD || o->kind == BO_CONV_BWD_DATA || o->kind == BO_CONV_BWD_FILTER;
    int base = o->kind == BO_CONV_FWD ? 700 : o->kind == BO_CONV_BWD_DATA ? 706 : 712;
    if (conv && name == base + 2)
        return put_desc(type, req, cnt, arr, CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, &o->conv, sizeof o->conv, 1);
    if (conv && (name == base || name == base + 1))
        return put_scale(type, req, cnt, arr, name == base ? o->alpha : o->beta);
    if (o->kind == BO_POINTWISE && name == CUDNN_ATTR_OPERATION_POINTWISE_ALPHA1)
        return put_scale(type, req, cnt, arr, o->alpha);
    if (o->kind == BO_POINTWISE && name == CUDNN_ATTR_OPERATION_POINTWISE_ALPHA2)
        return put_scale(type, req, cnt, arr, o->alpha2);
    if (o->kind == BO_POINTWISE && name == CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR)
        return put_desc(type, req, cnt, arr, CUDNN_BACKEND_POINTWISE_DESCRIPTOR, &o->pw, sizeof o->pw, 1);
    if (o->kind == BO_MATMUL && name == CUDNN_ATTR_OPERATION_MATMUL_DESC)
        return put_desc(type, req, cnt, arr, CUDNN_BACKEND_MATMUL_DESCRIPTOR, &o->mm, sizeof o->mm, 1);
    if (o->kind == BO_REDUCTION && name == CUDNN_ATTR_OPERATION_REDUCTION_DESC)
        return put_desc(type, req, cnt, arr, CUDNN_BACKEND_REDUCTION_DESCRIPTOR, &o->red, sizeof o->red, 1);
    return GNOATTR();
}

/* the heuristics' results: this library's one engine, configured, when it runs the graph */
static cudnnStatus_t get_heur(const struct bk *d, int name, int type, int64_t req, int64_t *cnt, void *arr)
{
    if (name == CUDNN_ATTR_ENGINEHEUR_MODE)
        return put_enum(type, CUDNN_TYPE_HEUR_MODE, req, cnt, arr, d->u.heur.mode);
    if (name == CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH)
        return put_desc(type, req, cnt, arr, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &d->u.heur.g,
                        sizeof d->u.heur.g, 1);
    if (name != CUDNN_ATTR_ENGINEHEUR_RESULTS)
        return GNOATTR();
    struct bk_cfg *c = calloc(1, sizeof *c);
    struct bk_prog *p = malloc(sizeof *p);
    cudnnStatus_t r;
    if (!c || !p) {
        r = dnn_err(CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED, "cudnnBackendGetAttribute: out of memory");
    } else {
        c->has_engine = 1;
        c->e.has_graph = 1;
        c->e.g = d->u.heur.g;
        /* a graph it does not run has no configuration (the reason stays for cudnnGetLastErrorString) */
        int n = bk_compile(&c->e.g, p) == CUDNN_STATUS_SUCCESS;
        r = put_desc(type, req, cnt, arr, CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, c, sizeof *c, n);
    }
    free(c);
    free(p);
    return r;
}

static cudnnStatus_t get_other(const struct bk *d, int name, int type, int64_t req, int64_t *cnt, void *arr)
{
    switch ((int)d->type) {
    case CUDNN_BACKEND_MATMUL_DESCRIPTOR:
        if (name == CUDNN_ATTR_MATMUL_COMP_TYPE)
            return put_enum(type, CUDNN_TYPE_DATA_TYPE, req, cnt, arr, (int)d->u.mm.comp);
        if (name == CUDNN_ATTR_MATMUL_PADDING_VALUE)
            return put_scale(type, req, cnt, arr, d->u.mm.padding);
        return GNOATTR();
    case CUDNN_BACKEND_REDUCTION_DESCRIPTOR:
        if (name == CUDNN_ATTR_REDUCTION_OPERATOR)
            return put_enum(type, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, req, cnt, arr, (int)d->u.red.op);
        if (name == CUDNN_ATTR_REDUCTION_COMP_TYPE)
            return put_enum(type, CUDNN_TYPE_DATA_TYPE, req, cnt, arr, (int)d->u.red.comp);
        return GNOATTR();
    case CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR:
        if (name == CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT)
            return put_i64(type, req, cnt, arr, 1);
        if (name == CUDNN_ATTR_OPERATIONGRAPH_HANDLE)
            return put(type, CUDNN_TYPE_HANDLE, req, cnt, arr, &d->u.graph.handle, 1);
        return GNOATTR();
    case CUDNN_BACKEND_ENGINE_DESCRIPTOR:
        switch (name) {
        case CUDNN_ATTR_ENGINE_GLOBAL_INDEX: return put_i64(type, req, cnt, arr, d->u.engine.index);
        case CUDNN_ATTR_ENGINE_OPERATION_GRAPH:
            return put_desc(type, req, cnt, arr, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &d->u.engine.g,
                            sizeof d->u.engine.g, 1);
        case CUDNN_ATTR_ENGINE_KNOB_INFO:
        case CUDNN_ATTR_ENGINE_LAYOUT_INFO:
            return put_desc(type, req, cnt, arr, -1, NULL, 0, 0);   /* none */
        case CUDNN_ATTR_ENGINE_NUMERICAL_NOTE: return put(type, CUDNN_TYPE_NUMERICAL_NOTE, req, cnt, arr, NULL, 0);
        case CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE: return put(type, CUDNN_TYPE_BEHAVIOR_NOTE, req, cnt, arr, NULL, 0);
        default: return GNOATTR();
        }
    case CUDNN_BACKEND_ENGINECFG_DESCRIPTOR:
        switch (name) {
        case CUDNN_ATTR_ENGINECFG_ENGINE:
            return put_desc(type, req, cnt, arr, CUDNN_BACKEND_ENGINE_DESCRIPTOR, &d->u.cfg.e, sizeof d->u.cfg.e, 1);
        case CUDNN_ATTR_ENGINECFG_WORKSPACE_SIZE: return put_i64(type, req, cnt, arr, 0);
        case CUDNN_ATTR_ENGINECFG_SHARED_MEMORY_USED: return put_i64(type, req, cnt, arr, 0);
        case CUDNN_ATTR_ENGINECFG_KNOB_CHOICES:
        case CUDNN_ATTR_ENGINECFG_INTERMEDIATE_INFO: return put_desc(type, req, cnt, arr, -1, NULL, 0, 0);
        default: return GNOATTR();
        }
    case CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR: return get_heur(d, name, type, req, cnt, arr);
    case CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR:
        switch (name) {
        case CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE: return put_i64(type, req, cnt, arr, 0);
        case CUDNN_ATTR_EXECUTION_PLAN_HANDLE: return put(type, CUDNN_TYPE_HANDLE, req, cnt, arr, &d->u.plan.handle, 1);
        case CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG:
            return put_desc(type, req, cnt, arr, CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &d->u.plan.c, sizeof d->u.plan.c,
                            1);
        case CUDNN_ATTR_EXECUTION_PLAN_COMPUTED_INTERMEDIATE_UIDS:
        case CUDNN_ATTR_EXECUTION_PLAN_RUN_ONLY_INTERMEDIATE_UIDS:
            return put(type, CUDNN_TYPE_INT64, req, cnt, arr, NULL, 0);
        case CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION: {
            const char *w = d->u.plan.prog.what;
            return put(type, CUDNN_TYPE_CHAR, req, cnt, arr, w, (int64_t)strlen(w) + 1);
        }
        default: return GNOATTR();
        }
    case CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR:
        switch (name) {
        case CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS:
            return put(type, CUDNN_TYPE_INT64, req, cnt, arr, d->u.vp.uid, d->u.vp.nuid);
        case CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS:
            return put(type, CUDNN_TYPE_VOID_PTR, req, cnt, arr, d->u.vp.ptr, d->u.vp.nptr);
        case CUDNN_ATTR_VARIANT_PACK_WORKSPACE: return put(type, CUDNN_TYPE_VOID_PTR, req, cnt, arr, &d->u.vp.ws, 1);
        default: return GNOATTR();
        }
    case CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR:
        if (name == CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE)
            return put_enum(type, CUDNN_TYPE_KNOB_TYPE, req, cnt, arr, (int)d->u.knob.type);
        if (name == CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE)
            return put_i64(type, req, cnt, arr, d->u.knob.value);
        return GNOATTR();
    default: return GNOATTR();
    }
}

HL_EXPORT cudnnStatus_t cudnnBackendGetAttribute(cudnnBackendDescriptor_t const descriptor,
                                                 cudnnBackendAttributeName_t attributeName,
                                                 cudnnBackendAttributeType_t attributeType,
                                                 int64_t requestedElementCount, int64_t *elementCount,
                                                 void *arrayOfElements)
{
    const struct bk *d = live(descriptor);
    if (!d)
        return BAD("cudnnBackendGetAttribute: not a descriptor cudnnBackendCreateDescriptor made");
    if (!d->final)
        return dnn_err(CUDNN_STATUS_NOT_INITIALIZED, "cudnnBackendGetAttribute: the descriptor is not finalized");
    int name = (int)attributeName, type = (int)attributeType;
    int64_t req = requestedElementCount;
    switch ((int)d->type) {
    case CUDNN_BACKEND_TENSOR_DESCRIPTOR: return get_tensor(d, name, type, req, elementCount, arrayOfElements);
    case CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR: return get_conv(d, name, type, req, elementCount, arrayOfElements);
    case CUDNN_BACKEND_POINTWISE_DESCRIPTOR: return get_pw(d, name, type, req, elementCount, arrayOfElements);
    default:
        if (is_op((int)d->type))
            return get_op(d, name, type, req, elementCount, arrayOfElements);
        return get_other(d, name, type, req, elementCount, arrayOfElements);
    }
}
