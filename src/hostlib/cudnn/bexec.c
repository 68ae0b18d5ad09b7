/* SPDX-License-Identifier: Apache-2.0 */
/* cudnnBackendExecute: an execution plan's program (bplan.c) run as one job
 * on the handle's stream, and the host computations of its pointwise,
 * matmul and reduction operations (convolutions are the legacy API's
 * oneDNN convolution, convexec.c).
 *
 * At the call: every tensor the program gives is looked up by unique id in
 * the variant pack and its range validated and held (NULL
 * BAD_PARAM_NULL_POINTER, misaligned BAD_PARAM_MISALIGNED_POINTER, not
 * inside one allocation BAD_PARAM, a unique id the pack lacks BAD_PARAM);
 * host scratch for the virtual tensors and the convolutions are prepared,
 * so the queued job cannot fail. Pointwise operations compute in double:
 * y = op(alpha1 * x, alpha2 * b), dx = dy * f'(x) for the backward modes,
 * rounded once into y's type; matmuls and reductions accumulate in double. */
#include "bk.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double relu(const struct bk_pw *pw, double x)
{
    if (x > pw->lower)
        return x < pw->upper ? x : pw->upper;
    return pw->lower + pw->slope * (x - pw->lower);
}

static double gelu(double x)
{
    return 0.5 * x * (1 + erf(x / sqrt(2.0)));
}

static double sigmoid(double x)
{
    return 1 / (1 + exp(-x));
}

/* a legacy activation where the mode is one (act.c computes it) */
static double act(cudnnActivationMode_t mode, double coef, double x)
{
    struct cudnnActivationStruct a = { .set = 1, .mode = mode, .nan = CUDNN_NOT_PROPAGATE_NAN, .coef = coef,
                                       .swish_beta = coef };
    return dnn_act(&a, x);
}

static double pointwise(const struct bk_pw *pw, double x, double b)
{
    switch ((int)pw->mode) {
    case CUDNN_POINTWISE_ADD: return x + b;
    case CUDNN_POINTWISE_SUB: return x - b;
    case CUDNN_POINTWISE_MUL: return x * b;
    case CUDNN_POINTWISE_DIV: return x / b;
    case CUDNN_POINTWISE_MIN: return fmin(x, b);
    case CUDNN_POINTWISE_MAX: return fmax(x, b);
    case CUDNN_POINTWISE_SQRT: return sqrt(x);
    case CUDNN_POINTWISE_ABS: return fabs(x);
    case CUDNN_POINTWISE_EXP: return exp(x);
    case CUDNN_POINTWISE_LOG: return log(x);
    case CUDNN_POINTWISE_NEG: return -x;
    case CUDNN_POINTWISE_IDENTITY: return x;
    case CUDNN_POINTWISE_RELU_FWD: return relu(pw, x);
    case CUDNN_POINTWISE_TANH_FWD: return act(CUDNN_ACTIVATION_TANH, 0, x);
    case CUDNN_POINTWISE_SIGMOID_FWD: return act(CUDNN_ACTIVATION_SIGMOID, 0, x);
    case CUDNN_POINTWISE_ELU_FWD: return act(CUDNN_ACTIVATION_ELU, pw->elu_alpha, x);
    case CUDNN_POINTWISE_SWISH_FWD: return act(CUDNN_ACTIVATION_SWISH, pw->swish_beta, x);
    case CUDNN_POINTWISE_GELU_FWD: return gelu(x);
    case CUDNN_POINTWISE_GELU_APPROX_TANH_FWD:
        return 0.5 * x * (1 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
    /* backward: b is dy */
    case CUDNN_POINTWISE_RELU_BWD: return x > pw->lower && x < pw->upper ? b : x <= pw->lower ? pw->slope * b : 0;
    case CUDNN_POINTWISE_TANH_BWD: {
        double t = tanh(x);
        return b * (1 - t * t);
    }
    case CUDNN_POINTWISE_SIGMOID_BWD: {
        double s = sigmoid(x);
        return b * s * (1 - s);
    }
    case CUDNN_POINTWISE_GELU_BWD:
        return b * (0.5 * (1 + erf(x / sqrt(2.0))) + x * exp(-0.5 * x * x) / sqrt(2 * 3.14159265358979323846));
    default: return x;   /* not reached: bplan.c lets only the modes above through */
    }
}

/* t seen with y's dimensions: stride 0 where it broadcasts */
static struct td bcast(const struct td *t, const struct td *y)
{
    struct td b = *t;
    for (int d = 0; d < y->nb; d++) {
        b.dim[d] = y->dim[d];
        if (t->dim[d] != y->dim[d])
            b.stride[d] = 0;
    }
    return b;
}

/* ---- the job ------------------------------------------------------------------- */
struct bj {
    struct hl_job h;
    struct bk_prog *p;
    void *ptr[BK_MAXT];
    int own[BK_MAXT];                 /* host scratch this job frees */
    struct cx *cx[BK_MAXOPS];
    double *acc;                      /* the reductions' accumulators */
};

static void run_pointwise(struct bj *j, int i)
{
    const struct bk_op *o = &j->p->ops[i];
    const int *a = j->p->arg[i];
    int bwd = a[BT_DX] >= 0, out = bwd ? a[BT_DX] : a[BT_Y], in2 = bwd ? a[BT_DY] : a[BT_B];
    const struct td *y = &j->p->t[out].td;
    struct td tx = bcast(&j->p->t[a[BT_X]].td, y), tb;
    struct dnn_it iy, ix, ib;
    dnn_it_init(&iy, y);
    dnn_it_init(&ix, &tx);
    if (in2 >= 0) {
        tb = bcast(&j->p->t[in2].td, y);
        dnn_it_init(&ib, &tb);
    }
    int64_t n = j->p->t[out].count;
    for (int64_t e = 0; e < n; e++) {
        double x = dnn_load(tx.type, j->ptr[a[BT_X]], ix.off), b = 0;
        if (in2 >= 0) {
            b = dnn_load(tb.type, j->ptr[in2], ib.off);
            dnn_next(&ib);
        }
        double v = bwd ? pointwise(&o->pw, x, b) : pointwise(&o->pw, o->alpha * x, o->alpha2 * b);
        dnn_store(y->type, j->ptr[out], iy.off, v);
        dnn_next(&iy);
        dnn_next(&ix);
    }
}

static void run_matmul(struct bj *j, int i)
{
    const int *a = j->p->arg[i];
    const struct td *A = &j->p->t[a[BT_X]].td, *B = &j->p->t[a[BT_W]].td, *C = &j->p->t[a[BT_Y]].td;
    int nb = C->nb, M = C->dim[nb - 2], N = C->dim[nb - 1], K = A->dim[nb - 1];
    /* the batch dimensions, walked together */
    struct td cb = *C, ab = bcast(A, C), bb = bcast(B, C);
    cb.nb = ab.nb = bb.nb = nb - 2;
    struct dnn_it ic, ia, ib;
    dnn_it_init(&ic, &cb);
    dnn_it_init(&ia, &ab);
    dnn_it_init(&ib, &bb);
    int64_t batches = dnn_count(&cb);
    const void *pa = j->ptr[a[BT_X]], *pb = j->ptr[a[BT_W]];
    void *pc = j->ptr[a[BT_Y]];
    for (int64_t t = 0; t < batches; t++) {
        for (int m = 0; m < M; m++)
            for (int n = 0; n < N; n++) {
                double s = 0;
                for (int k = 0; k < K; k++)
                    s += dnn_load(A->type, pa, ia.off + m * A->stride[nb - 2] + k * A->stride[nb - 1]) *
                         dnn_load(B->type, pb, ib.off + k * B->stride[nb - 2] + n * B->stride[nb - 1]);
                dnn_store(C->type, pc, ic.off + m * C->stride[nb - 2] + n * C->stride[nb - 1], s);
            }
        dnn_next(&ic);
        dnn_next(&ia);
        dnn_next(&ib);
    }
}

static void run_reduction(struct bj *j, int i)
{
    const struct bk_op *o = &j->p->ops[i];
    const int *a = j->p->arg[i];
    const struct td *x = &j->p->t[a[BT_X]].td, *y = &j->p->t[a[BT_Y]].td;
    int op = (int)o->red.op;
    int64_t ny = j->p->t[a[BT_Y]].count, nx = j->p->t[a[BT_X]].count;
    /* each x element's accumulator: y's dense index, 0 stride where y is reduced */
    struct td dy = *y;
    int64_t st = 1;
    for (int d = y->nb - 1; d >= 0; d--) {
        dy.stride[d] = st;
        st *= y->dim[d];
    }
    struct td ax = bcast(&dy, x);
    double init = op == CUDNN_REDUCE_TENSOR_MUL ? 1 : op == CUDNN_REDUCE_TENSOR_MIN ? INFINITY
                                                : op == CUDNN_REDUCE_TENSOR_MAX ? -INFINITY : 0;
    for (int64_t e = 0; e < ny; e++)
        j->acc[e] = init;
    struct dnn_it ix, ia;
    dnn_it_init(&ix, x);
    dnn_it_init(&ia, &ax);
    for (int64_t e = 0; e < nx; e++, dnn_next(&ix), dnn_next(&ia)) {
        double v = dnn_load(x->type, j->ptr[a[BT_X]], ix.off), *s = &j->acc[ia.off];
        switch (op) {
        case CUDNN_REDUCE_TENSOR_MUL: *s *= v; break;
        case CUDNN_REDUCE_TENSOR_MIN: *s = fmin(*s, v); break;
        case CUDNN_REDUCE_TENSOR_MAX: *s = fmax(*s, v); break;
        case CUDNN_REDUCE_TENSOR_AMAX: *s = fmax(*s, fabs(v)); break;
        default: *s += v; break;
        }
    }
    struct dnn_it iy;
    dnn_it_init(&iy, y);
    for (int64_t e = 0; e < ny; e++, dnn_next(&iy))
        dnn_store(y->type, j->ptr[a[BT_Y]], iy.off,
                  op == CUDNN_REDUCE_TENSOR_AVG ? j->acc[e] / (double)(nx / ny) : j->acc[e]);
}

static void run_graph(struct hl_job *hj)
{
    struct bj *j = (struct bj *)hj;
    for (int i = 0; i < j->p->nops; i++) {
        const struct bk_op *o = &j->p->ops[i];
        const int *a = j->p->arg[i];
        switch (o->kind) {
        case BO_CONV_FWD:
        case BO_CONV_BWD_DATA:
        case BO_CONV_BWD_FILTER: {
            void *const ptr[3] = { j->ptr[a[BT_X]], j->ptr[a[BT_W]], j->ptr[a[BT_Y]] };
            dnn_conv_run(j->cx[i], ptr, o->alpha, o->beta);
            break;
        }
        case BO_POINTWISE: run_pointwise(j, i); break;
        case BO_MATMUL: run_matmul(j, i); break;
        case BO_REDUCTION: run_reduction(j, i); break;
        }
    }
}

static void fini_graph(struct hl_job *hj)
{
    struct bj *j = (struct bj *)hj;
    for (int i = 0; i < BK_MAXOPS; i++)
        if (j->cx[i])
            dnn_conv_release(j->cx[i]);
    for (int i = 0; i < BK_MAXT; i++)
        if (j->own[i])
            free(j->ptr[i]);
    free(j->acc);
    free(j->p);
}

static cudnnStatus_t prepare(struct bj *j, const struct bk_vpack *vp)
{
    static const char fn[] = "cudnnBackendExecute";
    const struct bk_prog *p = j->p;
    cudnnStatus_t r;
    int64_t acc = 0;
    for (int s = 0; s < p->nt; s++) {
        const struct bk_slot *t = &p->t[s];
        if (t->virt) {
            if (!(j->ptr[s] = calloc(1, t->bytes ? t->bytes : 1)))
                return dnn_err(CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED, "%s: out of memory", fn);
            j->own[s] = 1;
            continue;
        }
        int k = 0;
        while (k < vp->nuid && vp->uid[k] != t->uid)
            k++;
        if (k == vp->nuid)
            return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: tensor %lld is not in the variant pack", fn, (long long)t->uid);
        char what[48];
        snprintf(what, sizeof what, "%s: tensor %lld", fn, (long long)t->uid);
        if ((r = dnn_hold(&j->h, &t->td, vp->ptr[k], what)))
            return r;
        j->ptr[s] = vp->ptr[k];
    }
    for (int i = 0; i < p->nops; i++) {
        const struct bk_op *o = &p->ops[i];
        if (o->kind == BO_REDUCTION && p->t[p->arg[i][BT_Y]].count > acc)
            acc = p->t[p->arg[i][BT_Y]].count;
        if (o->kind != BO_CONV_FWD && o->kind != BO_CONV_BWD_DATA && o->kind != BO_CONV_BWD_FILTER)
            continue;
        if ((r = dnn_conv_prepare(&j->cx[i], &p->conv[i], o->alpha, o->beta, fn)))
            return r;
    }
    if (acc && !(j->acc = malloc((size_t)acc * sizeof *j->acc)))
        return dnn_err(CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED, "%s: out of memory", fn);
    return CUDNN_STATUS_SUCCESS;
}

HL_EXPORT cudnnStatus_t cudnnBackendExecute(cudnnHandle_t handle, cudnnBackendDescriptor_t executionPlan,
                                            cudnnBackendDescriptor_t variantPack)
{
    static const char fn[] = "cudnnBackendExecute";
    cudnnStatus_t r = dnn_handle(handle);
    if (r)
        return r;
    if (!executionPlan || !variantPack)
        return dnn_err(CUDNN_STATUS_BAD_PARAM_NULL_POINTER, "%s: the plan or the variant pack is NULL", fn);
    const struct bk *pl = hl_handle_live(executionPlan, DK_BACKEND) ? executionPlan : NULL;
    const struct bk *vp = hl_handle_live(variantPack, DK_BACKEND) ? variantPack : NULL;
    if (!pl || !vp || (int)pl->type != CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR ||
        (int)vp->type != CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: not a live execution plan and variant pack", fn);
    if (!pl->final || !vp->final)
        return dnn_err(CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED, "%s: the plan or the variant pack is not finalized", fn);
    struct bj *j = hl_job_new(sizeof *j, run_graph);
    if (!j)
        return dnn_err(CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED, "%s: out of memory", fn);
    j->h.fini = fini_graph;
    if (!(j->p = malloc(sizeof *j->p))) {
        hl_job_free(&j->h);
        return dnn_err(CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED, "%s: out of memory", fn);
    }
    *j->p = pl->u.plan.prog;
    if ((r = prepare(j, &vp->u.vp))) {
        hl_job_free(&j->h);
        return r;
    }
    hl_note("cuDNN graph: oneDNN convolutions, host loops"); /* tdtrace -e lib= shows it */
    return dnn_submit(handle, &j->h);
}
