/* SPDX-License-Identifier: Apache-2.0 */
/* What an operation graph of the backend API is made into (bk_compile),
 * and whether this library runs it.
 *
 * The operations are put in an order where each reads only tensors the
 * program gives (by unique id, in the variant pack) or that an earlier one
 * wrote: a virtual tensor is written by exactly one operation, before it is
 * read, and lives in host scratch, dense in its own type. Runs: forward,
 * backward-data and backward-filter convolutions (the legacy API's oneDNN
 * convolution, symmetric padding), pointwise operations (the modes of
 * bexec.c, with broadcasting of dimensions of 1), matmuls (batched, with
 * broadcasting of batch dimensions of 1) and reductions (ADD, MUL, MIN,
 * MAX, AMAX, AVG over the dimensions where y is 1), in any number (up to
 * BK_MAXOPS) and arrangement: a convolution or matmul with bias and
 * activation epilogues is one case. Anything else is NOT_SUPPORTED with
 * a message naming it. */
#include "bk.h"

#include <stdio.h>
#include <string.h>

#define UNSUP(...) dnn_err(CUDNN_STATUS_NOT_SUPPORTED, "host cuDNN graph: " __VA_ARGS__)
#define BADG(...) dnn_err(CUDNN_STATUS_BAD_PARAM, "host cuDNN graph: " __VA_ARGS__)

static const char *op_name(const struct bk_op *o)
{
    switch (o->kind) {
    case BO_CONV_FWD: return "conv_fwd";
    case BO_CONV_BWD_DATA: return "conv_bwd_data";
    case BO_CONV_BWD_FILTER: return "conv_bwd_filter";
    case BO_POINTWISE: return "pointwise";
    case BO_MATMUL: return "matmul";
    case BO_REDUCTION: return "reduction";
    }
    return "?";
}

/* pointwise modes: 1 unary, 2 binary, 3 backward (x, dy -> dx); 0 not run here */
static int pw_arity(int mode)
{
    switch (mode) {
    case CUDNN_POINTWISE_ADD: case CUDNN_POINTWISE_MUL: case CUDNN_POINTWISE_MIN: case CUDNN_POINTWISE_MAX:
    case CUDNN_POINTWISE_SUB: case CUDNN_POINTWISE_DIV: return 2;
    case CUDNN_POINTWISE_SQRT: case CUDNN_POINTWISE_ABS: case CUDNN_POINTWISE_EXP: case CUDNN_POINTWISE_LOG:
    case CUDNN_POINTWISE_NEG: case CUDNN_POINTWISE_IDENTITY: case CUDNN_POINTWISE_RELU_FWD:
    case CUDNN_POINTWISE_TANH_FWD: case CUDNN_POINTWISE_SIGMOID_FWD: case CUDNN_POINTWISE_ELU_FWD:
    case CUDNN_POINTWISE_GELU_FWD: case CUDNN_POINTWISE_SWISH_FWD: case CUDNN_POINTWISE_GELU_APPROX_TANH_FWD: return 1;
    case CUDNN_POINTWISE_RELU_BWD: case CUDNN_POINTWISE_TANH_BWD: case CUDNN_POINTWISE_SIGMOID_BWD:
    case CUDNN_POINTWISE_GELU_BWD: return 3;
    default: return 0;
    }
}

/* the operands an operation reads and the one it writes */
static void operands(const struct bk_op *o, int *in, int *nin, int *out)
{
    *nin = 0;
    switch (o->kind) {
    case BO_CONV_FWD: in[(*nin)++] = BT_X, in[(*nin)++] = BT_W, *out = BT_Y; break;
    case BO_CONV_BWD_DATA: in[(*nin)++] = BT_W, in[(*nin)++] = BT_Y, *out = BT_X; break;
    case BO_CONV_BWD_FILTER: in[(*nin)++] = BT_X, in[(*nin)++] = BT_Y, *out = BT_W; break;
    case BO_MATMUL: in[(*nin)++] = BT_X, in[(*nin)++] = BT_W, *out = BT_Y; break;
    case BO_REDUCTION: in[(*nin)++] = BT_X, *out = BT_Y; break;
    case BO_POINTWISE:
        switch (pw_arity((int)o->pw.mode)) {
        case 3: in[(*nin)++] = BT_X, in[(*nin)++] = BT_DY, *out = BT_DX; break;
        case 2: in[(*nin)++] = BT_X, in[(*nin)++] = BT_B, *out = BT_Y; break;
        default: in[(*nin)++] = BT_X, *out = BT_Y; break;
        }
        break;
    }
}

static int same_tensor(const struct bk_tensor *a, const struct bk_tensor *b)
{
    if (a->type != b->type || a->nb != b->nb || a->virt != b->virt)
        return 0;
    for (int d = 0; d < a->nb; d++)
        if (a->dim[d] != b->dim[d] || a->stride[d] != b->stride[d])
            return 0;
    return 1;
}

/* the slot of tensor t (added if new) */
static cudnnStatus_t slot_of(struct bk_prog *p, const struct bk_tensor *t, const struct bk_tensor *first[], int *out)
{
    for (int i = 0; i < p->nt; i++)
        if (p->t[i].uid == t->uid) {
            if (!same_tensor(first[i], t))
                return BADG("unique id %lld names two different tensors", (long long)t->uid);
            *out = i;
            return CUDNN_STATUS_SUCCESS;
        }
    if (p->nt == BK_MAXT)
        return UNSUP("more than %d tensors", BK_MAXT);
    if (t->byval)
        return UNSUP("tensor %lld is by value (not implemented)", (long long)t->uid);
    if (!dnn_float_type(t->type))
        return dnn_err(CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE, "host cuDNN graph: tensor %lld is of data type %d (float, "
                       "double, half and bfloat16 are implemented)", (long long)t->uid, (int)t->type);
    if (t->vcount != 1)
        return UNSUP("tensor %lld is vectorized (not implemented)", (long long)t->uid);
    struct bk_slot *s = &p->t[p->nt];
    memset(s, 0, sizeof *s);
    s->uid = t->uid;
    s->virt = t->virt;
    s->td.type = t->type;
    s->td.nb = t->nb;
    int64_t count = 1, last = 0;
    for (int d = 0; d < t->nb; d++) {
        if (t->dim[d] > INT32_MAX || t->stride[d] > INT32_MAX)
            return dnn_err(CUDNN_STATUS_NOT_SUPPORTED_SHAPE, "host cuDNN graph: tensor %lld: dimension %d is %lld "
                           "with stride %lld (at most 2^31 - 1)", (long long)t->uid, d, (long long)t->dim[d],
                           (long long)t->stride[d]);
        s->td.dim[d] = (int)t->dim[d];
        int64_t e;
        if (__builtin_mul_overflow(count, t->dim[d], &count) ||
            __builtin_mul_overflow(t->dim[d] - 1, t->stride[d], &e) || __builtin_add_overflow(last, e, &last))
            return BADG("tensor %lld: its dimensions and strides overflow", (long long)t->uid);
    }
    size_t es = dnn_type_size(t->type);
    if (count > ((int64_t)1 << 40) || last > ((int64_t)1 << 40))
        return BADG("tensor %lld spans more than 2^40 elements", (long long)t->uid);
    s->count = count;
    /* a virtual tensor is dense, row-major in its logical order; the others as declared */
    int64_t st = 1;
    for (int d = t->nb - 1; d >= 0; d--) {
        s->td.stride[d] = t->virt ? st : t->stride[d];
        st *= t->dim[d];
    }
    s->bytes = t->virt ? (size_t)count * es : 0;
    first[p->nt] = t;
    *out = p->nt++;
    return CUDNN_STATUS_SUCCESS;
}

/* b broadcasts to y: the same number of dimensions, each y's or 1 */
static int broadcasts(const struct td *b, const struct td *y)
{
    if (b->nb != y->nb)
        return 0;
    for (int d = 0; d < y->nb; d++)
        if (b->dim[d] != y->dim[d] && b->dim[d] != 1)
            return 0;
    return 1;
}

static cudnnStatus_t check_conv(struct bk_prog *p, int i)
{
    const struct bk_op *o = &p->ops[i];
    const struct bk_conv *c = &o->conv;
    struct conv_prob *cp = &p->conv[i];
    memset(cp, 0, sizeof *cp);
    cp->kind = o->kind == BO_CONV_FWD ? CK_FWD : o->kind == BO_CONV_BWD_DATA ? CK_BWD_DATA : CK_BWD_FILTER;
    cp->x = p->t[p->arg[i][BT_X]].td;
    cp->w = p->t[p->arg[i][BT_W]].td;
    cp->y = p->t[p->arg[i][BT_Y]].td;
    if (c->nsp + 2 != cp->x.nb)
        return BADG("a %lld-D convolution of a %d-D tensor", (long long)c->nsp, cp->x.nb);
    for (int d = 0; d < c->nsp; d++) {
        if (c->v[BC_PRE][d] != c->v[BC_POST][d])
            return dnn_err(CUDNN_STATUS_NOT_SUPPORTED_PADDING, "host cuDNN graph: pre padding %lld and post padding "
                           "%lld (only symmetric padding is implemented)", (long long)c->v[BC_PRE][d],
                           (long long)c->v[BC_POST][d]);
        if (c->v[BC_PRE][d] > INT32_MAX || c->v[BC_DIL][d] > INT32_MAX || c->v[BC_STR][d] > INT32_MAX)
            return dnn_err(CUDNN_STATUS_NOT_SUPPORTED_SHAPE, "host cuDNN graph: padding, dilation or stride too large");
        cp->conv.pad[d] = (int)c->v[BC_PRE][d];
        cp->conv.dil[d] = (int)c->v[BC_DIL][d];
        cp->conv.stride[d] = (int)c->v[BC_STR][d];
    }
    cp->conv.set = 1;
    cp->conv.nsp = (int)c->nsp;
    cp->conv.mode = c->mode;
    cp->conv.compute = c->comp;
    cp->conv.math = CUDNN_DEFAULT_MATH;
    /* groups: x's channels over the filter's */
    if (cp->x.dim[1] % cp->w.dim[1])
        return BADG("%d input channels and a filter of %d", cp->x.dim[1], cp->w.dim[1]);
    cp->conv.groups = cp->x.dim[1] / cp->w.dim[1];
    return dnn_conv_prob_check("host cuDNN graph", cp, 1);
}

static cudnnStatus_t check_op(struct bk_prog *p, int i)
{
    const struct bk_op *o = &p->ops[i];
    const int *a = p->arg[i];
    switch (o->kind) {
    case BO_CONV_FWD:
    case BO_CONV_BWD_DATA:
    case BO_CONV_BWD_FILTER: return check_conv(p, i);
    case BO_POINTWISE: {
        int ar = pw_arity((int)o->pw.mode);
        const struct td *y = &p->t[a[ar == 3 ? BT_DX : BT_Y]].td;
        if (!broadcasts(&p->t[a[BT_X]].td, y))
            return BADG("pointwise: x does not broadcast to the output's shape");
        if (ar >= 2 && !broadcasts(&p->t[a[ar == 3 ? BT_DY : BT_B]].td, y))
            return BADG("pointwise: b (dy) does not broadcast to the output's shape");
        return CUDNN_STATUS_SUCCESS;
    }
    case BO_MATMUL: {
        const struct td *A = &p->t[a[BT_X]].td, *B = &p->t[a[BT_W]].td, *C = &p->t[a[BT_Y]].td;
        int nb = C->nb;
        if (nb < 2 || A->nb != nb || B->nb != nb)
            return BADG("matmul of %d-D, %d-D into %d-D tensors", A->nb, B->nb, nb);
        if (A->dim[nb - 2] != C->dim[nb - 2] || B->dim[nb - 1] != C->dim[nb - 1] || A->dim[nb - 1] != B->dim[nb - 2])
            return BADG("matmul: %d x %d times %d x %d into %d x %d", A->dim[nb - 2], A->dim[nb - 1], B->dim[nb - 2],
                        B->dim[nb - 1], C->dim[nb - 2], C->dim[nb - 1]);
        for (int d = 0; d < nb - 2; d++)
            if ((A->dim[d] != C->dim[d] && A->dim[d] != 1) || (B->dim[d] != C->dim[d] && B->dim[d] != 1))
                return BADG("matmul: batch dimension %d of a or b is neither c's nor 1", d);
        return CUDNN_STATUS_SUCCESS;
    }
    case BO_REDUCTION: {
        int op = (int)o->red.op;
        if (op != CUDNN_REDUCE_TENSOR_ADD && op != CUDNN_REDUCE_TENSOR_MUL && op != CUDNN_REDUCE_TENSOR_MIN &&
            op != CUDNN_REDUCE_TENSOR_MAX && op != CUDNN_REDUCE_TENSOR_AMAX && op != CUDNN_REDUCE_TENSOR_AVG)
            return UNSUP("reduction operator %d (ADD, MUL, MIN, MAX, AMAX and AVG are implemented)", op);
        if (!broadcasts(&p->t[a[BT_Y]].td, &p->t[a[BT_X]].td))
            return BADG("reduction: y's dimensions must be x's or 1");
        return CUDNN_STATUS_SUCCESS;
    }
    }
    return UNSUP("operation kind %d", (int)o->kind);
}

cudnnStatus_t bk_compile(const struct bk_graph *g, struct bk_prog *p)
{
    memset(p, 0, sizeof *p);
    if (g->nops < 1 || g->nops > BK_MAXOPS)
        return BADG("%d operations", g->nops);
    const struct bk_tensor *first[BK_MAXT];
    int arg[BK_MAXOPS][BT_N], writer[BK_MAXT];
    cudnnStatus_t r;
    for (int i = 0; i < BK_MAXT; i++)
        writer[i] = -1;
    for (int i = 0; i < g->nops; i++) {
        const struct bk_op *o = &g->ops[i];
        if (o->kind == BO_POINTWISE && !pw_arity((int)o->pw.mode))
            return UNSUP("pointwise mode %d is not implemented (see docs/hostlib.md)", (int)o->pw.mode);
        int in[3], nin, out;
        operands(o, in, &nin, &out);
        for (int s = 0; s < BT_N; s++)
            arg[i][s] = -1;
        for (int k = 0; k <= nin; k++) {
            int s = k < nin ? in[k] : out;
            if (!o->has[s])
                return BADG("%s: operand %d is missing", op_name(o), s);
            if ((r = slot_of(p, &o->t[s], first, &arg[i][s])))
                return r;
        }
        if (writer[arg[i][out]] >= 0)
            return BADG("tensor %lld is written by two operations", (long long)o->t[out].uid);
        writer[arg[i][out]] = i;
    }
    /* an order: each operation after the writers of what it reads */
    int done[BK_MAXOPS] = { 0 };
    for (int n = 0; n < g->nops; n++) {
        int pick = -1;
        for (int i = 0; i < g->nops && pick < 0; i++) {
            if (done[i])
                continue;
            int in[3], nin, out, ready = 1;
            operands(&g->ops[i], in, &nin, &out);
            for (int k = 0; k < nin; k++) {
                int s = arg[i][in[k]], w = writer[s];
                if (p->t[s].virt && (w < 0 || w == i))
                    return BADG("virtual tensor %lld is read but no (other) operation writes it",
                                (long long)p->t[s].uid);
                if (w >= 0 && w != i && !done[w])   /* w == i: in place */
                    ready = 0;
            }
            if (ready)
                pick = i;
        }
        if (pick < 0)
            return BADG("the operations depend on each other in a cycle");
        done[pick] = 1;
        p->ops[n] = g->ops[pick];
        memcpy(p->arg[n], arg[pick], sizeof arg[pick]);
    }
    p->nops = g->nops;
    size_t len = 0;
    len += (size_t)snprintf(p->what, sizeof p->what, "{\"engine\":\"tdtrace host cuDNN\",\"ops\":\"");
    for (int i = 0; i < p->nops; i++) {
        if ((r = check_op(p, i)))
            return r;
        if (len < sizeof p->what)
            len += (size_t)snprintf(p->what + len, sizeof p->what - len, "%s%s", i ? "+" : "", op_name(&p->ops[i]));
    }
    if (len < sizeof p->what)
        snprintf(p->what + len, sizeof p->what - len, "\"}");
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t bk_prepare(const struct bk_prog *p)
{
    for (int i = 0; i < p->nops; i++) {
        const struct bk_op *o = &p->ops[i];
        if (o->kind != BO_CONV_FWD && o->kind != BO_CONV_BWD_DATA && o->kind != BO_CONV_BWD_FILTER)
            continue;
        struct cx *c;
        cudnnStatus_t r = dnn_conv_prepare(&c, &p->conv[i], o->alpha, o->beta, "host cuDNN graph");
        if (r)
            return r;
        dnn_conv_release(c);
    }
    return CUDNN_STATUS_SUCCESS;
}
