/* SPDX-License-Identifier: Apache-2.0 */
/* Activation (descriptor, forward, backward) and softmax (forward,
 * backward): loops of this library's own, in double, rounding once into the
 * output's type. y = alpha * f(x) + beta * y; dx = alpha * dy f'(.) +
 * beta * dx. The derivatives of sigmoid and tanh are taken from y (y (1 - y),
 * 1 - y^2), those of ReLU, clipped ReLU, ELU and swish from x. Softmax's
 * FAST algorithm is computed as ACCURATE (the maximum subtracted first); the
 * result is the same up to rounding. */
#include "dnn.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the descriptor ----------------------------------------------------- */
HL_EXPORT cudnnStatus_t cudnnCreateActivationDescriptor(cudnnActivationDescriptor_t *activationDesc)
{
    return dnn_create((void **)activationDesc, sizeof(struct cudnnActivationStruct), DK_ACT);
}

HL_EXPORT cudnnStatus_t cudnnDestroyActivationDescriptor(cudnnActivationDescriptor_t activationDesc)
{
    return dnn_destroy(activationDesc, DK_ACT);
}

HL_EXPORT cudnnStatus_t cudnnSetActivationDescriptor(cudnnActivationDescriptor_t activationDesc,
                                                     cudnnActivationMode_t mode, cudnnNanPropagation_t reluNanOpt,
                                                     double coef)
{
    struct cudnnActivationStruct *a = hl_handle_live(activationDesc, DK_ACT) ? activationDesc : NULL;
    if (!a || (unsigned)mode > CUDNN_ACTIVATION_SWISH || (unsigned)reluNanOpt > CUDNN_PROPAGATE_NAN)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "cudnnSetActivationDescriptor: bad descriptor, mode %d or NaN option %d",
                       (int)mode, (int)reluNanOpt);
    a->mode = mode;
    a->nan = reluNanOpt;
    a->coef = coef;
    if (!a->set)
        a->swish_beta = 1;
    a->set = 1;
    return CUDNN_STATUS_SUCCESS;
}

HL_EXPORT cudnnStatus_t cudnnGetActivationDescriptor(const cudnnActivationDescriptor_t activationDesc,
                                                     cudnnActivationMode_t *mode, cudnnNanPropagation_t *reluNanOpt,
                                                     double *coef)
{
    const struct cudnnActivationStruct *a = dnn_desc(activationDesc, DK_ACT);
    if (!a || !mode || !reluNanOpt || !coef)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "cudnnGetActivationDescriptor: bad descriptor or NULL argument");
    *mode = a->mode;
    *reluNanOpt = a->nan;
    *coef = a->coef;
    return CUDNN_STATUS_SUCCESS;
}

HL_EXPORT cudnnStatus_t cudnnSetActivationDescriptorSwishBeta(cudnnActivationDescriptor_t activationDesc,
                                                              double swish_beta)
{
    struct cudnnActivationStruct *a = hl_handle_live(activationDesc, DK_ACT) ? activationDesc : NULL;
    if (!a)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "cudnnSetActivationDescriptorSwishBeta: bad descriptor");
    a->swish_beta = swish_beta;
    return CUDNN_STATUS_SUCCESS;
}

HL_EXPORT cudnnStatus_t cudnnGetActivationDescriptorSwishBeta(cudnnActivationDescriptor_t activationDesc,
                                                              double *swish_beta)
{
    const struct cudnnActivationStruct *a = hl_handle_live(activationDesc, DK_ACT) ? activationDesc : NULL;
    if (!a || !swish_beta)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "cudnnGetActivationDescriptorSwishBeta: bad descriptor or NULL");
    *swish_beta = a->swish_beta;
    return CUDNN_STATUS_SUCCESS;
}

/* ---- the functions -------------------------------------------------------- */
static double sigmoid(double x)
{
    return 1 / (1 + exp(-x));
}

double dnn_act(const struct cudnnActivationStruct *a, double x)
{
    switch (a->mode) {
    case CUDNN_ACTIVATION_SIGMOID: return sigmoid(x);
    case CUDNN_ACTIVATION_RELU: return x > 0 ? x : (isnan(x) && a->nan == CUDNN_PROPAGATE_NAN ? x : 0);
    case CUDNN_ACTIVATION_TANH: return tanh(x);
    case CUDNN_ACTIVATION_CLIPPED_RELU: return x > 0 ? (x < a->coef ? x : a->coef) : (isnan(x) && a->nan ? x : 0);
    case CUDNN_ACTIVATION_ELU: return x > 0 ? x : a->coef * expm1(x);
    case CUDNN_ACTIVATION_IDENTITY: return x;
    case CUDNN_ACTIVATION_SWISH: return x * sigmoid(a->swish_beta * x);
    }
    return x;
}

static double dact(const struct cudnnActivationStruct *a, double x, double y)
{
    switch (a->mode) {
    case CUDNN_ACTIVATION_SIGMOID: return y * (1 - y);
    case CUDNN_ACTIVATION_RELU: return x > 0;
    case CUDNN_ACTIVATION_TANH: return 1 - y * y;
    case CUDNN_ACTIVATION_CLIPPED_RELU: return x > 0 && x < a->coef;
    case CUDNN_ACTIVATION_ELU: return x > 0 ? 1 : a->coef * exp(x);
    case CUDNN_ACTIVATION_IDENTITY: return 1;
    case CUDNN_ACTIVATION_SWISH: {
        double s = sigmoid(a->swish_beta * x);
        return s + a->swish_beta * x * s * (1 - s);
    }
    }
    return 1;
}

/* ---- activation jobs -------------------------------------------------------- */
struct aj {
    struct hl_job h;
    struct cudnnActivationStruct act;
    int backward;
    struct td x, y, dy, dx;       /* forward: x -> y; backward: (y, dy, x) -> dx */
    const void *X, *Y, *DY;
    void *OUT;
    double alpha, beta;
};

static void run_act(struct hl_job *hj)
{
    struct aj *j = (struct aj *)hj;
    const struct td *out = j->backward ? &j->dx : &j->y;
    struct dnn_it io, ix, iy, idy;
    dnn_it_init(&io, out);
    dnn_it_init(&ix, &j->x);
    dnn_it_init(&iy, &j->y);
    dnn_it_init(&idy, &j->dy);
    int64_t n = dnn_count(out);
    for (int64_t i = 0; i < n; i++) {
        double x = dnn_load(j->x.type, j->X, ix.off), v;
        if (j->backward)
            v = dnn_load(j->dy.type, j->DY, idy.off) * dact(&j->act, x, dnn_load(j->y.type, j->Y, iy.off));
        else
            v = dnn_act(&j->act, x);
        v *= j->alpha;
        if (j->beta != 0)
            v += j->beta * dnn_load(out->type, j->OUT, io.off);
        dnn_store(out->type, j->OUT, io.off, v);
        dnn_next(&io);
        dnn_next(&ix);
        if (j->backward) {
            dnn_next(&iy);
            dnn_next(&idy);
        }
    }
}

static cudnnStatus_t act_call(cudnnHandle_t handle, cudnnActivationDescriptor_t desc, struct aj *t, const char *fn)
{
    cudnnStatus_t r = dnn_handle(handle);
    if (r)
        return r;
    const struct cudnnActivationStruct *a = dnn_desc(desc, DK_ACT);
    if (!a)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: not an activation descriptor that was created and set", fn);
    if (a->mode == CUDNN_ACTIVATION_IDENTITY)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: CUDNN_ACTIVATION_IDENTITY is for "
                       "cudnnConvolutionBiasActivationForward only, as cuDNN documents", fn);
    t->act = *a;
    const struct td *ts[4] = { &t->x, &t->y, &t->dy, &t->dx };
    for (int i = 0; i < (t->backward ? 4 : 2); i++) {
        if (!dnn_float_type(ts[i]->type))
            return dnn_err(CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE, "%s: only float, double, half and bfloat16 data", fn);
        if (!dnn_same_shape(ts[i], &t->x))
            return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: the tensors differ in shape", fn);
    }
    hl_note("host loops (activation)"); /* tdtrace -e lib= shows it */
    struct aj *j = hl_job_new(sizeof *j, run_act);
    if (!j)
        return dnn_err(CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED, "%s: out of memory", fn);
    struct hl_job keep = j->h;
    *j = *t;
    j->h = keep;
    r = dnn_hold(&j->h, &j->x, j->X, "x");
    if (!r)
        r = dnn_hold(&j->h, j->backward ? &j->dx : &j->y, j->OUT, j->backward ? "dx" : "y");
    if (!r && j->backward && !(r = dnn_hold(&j->h, &j->y, j->Y, "y")))
        r = dnn_hold(&j->h, &j->dy, j->DY, "dy");
    if (r) {
        hl_job_free(&j->h);
        return r;
    }
    return dnn_submit(handle, &j->h);
}

HL_EXPORT cudnnStatus_t cudnnActivationForward(cudnnHandle_t handle, cudnnActivationDescriptor_t activationDesc,
                                               const void *alpha, const cudnnTensorDescriptor_t xDesc, const void *x,
                                               const void *beta, const cudnnTensorDescriptor_t yDesc, void *y)
{
    static const char fn[] = "cudnnActivationForward";
    struct aj t;
    memset(&t, 0, sizeof t);
    cudnnStatus_t r = dnn_handle(handle);
    if (r || (r = dnn_td(xDesc, &t.x, "xDesc")) || (r = dnn_td(yDesc, &t.y, "yDesc")))
        return r;
    if (dnn_scale(t.y.type, alpha, &t.alpha) || dnn_scale(t.y.type, beta, &t.beta))
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: alpha or beta is NULL", fn);
    t.X = x;
    t.OUT = y;
    return act_call(handle, activationDesc, &t, fn);
}

HL_EXPORT cudnnStatus_t cudnnActivationBackward(cudnnHandle_t handle, cudnnActivationDescriptor_t activationDesc,
                                                const void *alpha, const cudnnTensorDescriptor_t yDesc, const void *y,
                                                const cudnnTensorDescriptor_t dyDesc, const void *dy,
                                                const cudnnTensorDescriptor_t xDesc, const void *x, const void *beta,
                                                const cudnnTensorDescriptor_t dxDesc, void *dx)
{
    static const char fn[] = "cudnnActivationBackward";
    struct aj t;
    memset(&t, 0, sizeof t);
    cudnnStatus_t r = dnn_handle(handle);
    if (r || (r = dnn_td(yDesc, &t.y, "yDesc")) || (r = dnn_td(dyDesc, &t.dy, "dyDesc")) ||
        (r = dnn_td(xDesc, &t.x, "xDesc")) || (r = dnn_td(dxDesc, &t.dx, "dxDesc")))
        return r;
    if (dnn_scale(t.dx.type, alpha, &t.alpha) || dnn_scale(t.dx.type, beta, &t.beta))
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: alpha or beta is NULL", fn);
    t.backward = 1;
    t.X = x;
    t.Y = y;
    t.DY = dy;
    t.OUT = dx;
    return act_call(handle, activationDesc, &t, fn);
}

/* ---- softmax ---------------------------------------------------------------- */
struct sj {
    struct hl_job h;
    cudnnSoftmaxAlgorithm_t algo;
    cudnnSoftmaxMode_t mode;
    int backward;
    struct td in, in2, out;       /* forward: x -> y; backward: y, dy -> dx */
    const void *IN, *IN2;
    void *OUT;
    double alpha, beta;
    double *buf;                  /* one slice */
};

/* the offset of element l of slice s: INSTANCE slices are images (n), their
 * elements (c, spatial...) in order; CHANNEL slices are (n, spatial...)
 * positions, their elements the channels */
static int64_t slice_off(const struct td *t, cudnnSoftmaxMode_t mode, int64_t s, int64_t l)
{
    int64_t sp = 1;
    for (int d = 2; d < t->nb; d++)
        sp *= t->dim[d];
    int64_t n, c, p;
    if (mode == CUDNN_SOFTMAX_MODE_INSTANCE) {
        n = s;
        c = l / sp;
        p = l % sp;
    } else {
        n = s / sp;
        p = s % sp;
        c = l;
    }
    int64_t off = n * t->stride[0] + c * t->stride[1];
    for (int d = t->nb - 1; d >= 2; d--) {
        off += (p % t->dim[d]) * t->stride[d];
        p /= t->dim[d];
    }
    return off;
}

static void run_softmax(struct hl_job *hj)
{
    struct sj *j = (struct sj *)hj;
    const struct td *t = &j->out;
    int64_t sp = dnn_count(t) / ((int64_t)t->dim[0] * t->dim[1]);
    int64_t nslice = j->mode == CUDNN_SOFTMAX_MODE_INSTANCE ? t->dim[0] : (int64_t)t->dim[0] * sp;
    int64_t len = dnn_count(t) / nslice;
    int lg = j->algo == CUDNN_SOFTMAX_LOG;
    for (int64_t s = 0; s < nslice; s++) {
        double *v = j->buf;
        if (!j->backward) {
            double mx = -INFINITY, sum = 0;
            for (int64_t l = 0; l < len; l++) {
                v[l] = dnn_load(j->in.type, j->IN, slice_off(&j->in, j->mode, s, l));
                mx = fmax(mx, v[l]);
            }
            for (int64_t l = 0; l < len; l++)
                sum += exp(v[l] - mx);
            for (int64_t l = 0; l < len; l++)
                v[l] = lg ? v[l] - mx - log(sum) : exp(v[l] - mx) / sum;
        } else {
            /* in: y, in2: dy */
            double dot = 0;
            for (int64_t l = 0; l < len; l++) {
                double y = dnn_load(j->in.type, j->IN, slice_off(&j->in, j->mode, s, l));
                double dy = dnn_load(j->in2.type, j->IN2, slice_off(&j->in2, j->mode, s, l));
                dot += lg ? dy : dy * y;
            }
            for (int64_t l = 0; l < len; l++) {
                double y = dnn_load(j->in.type, j->IN, slice_off(&j->in, j->mode, s, l));
                double dy = dnn_load(j->in2.type, j->IN2, slice_off(&j->in2, j->mode, s, l));
                v[l] = lg ? dy - exp(y) * dot : y * (dy - dot);
            }
        }
        for (int64_t l = 0; l < len; l++) {
            int64_t o = slice_off(t, j->mode, s, l);
            double r = j->alpha * v[l];
            if (j->beta != 0)
                r += j->beta * dnn_load(t->type, j->OUT, o);
            dnn_store(t->type, j->OUT, o, r);
        }
    }
}

static void fini_softmax(struct hl_job *hj)
{
    free(((struct sj *)hj)->buf);
}

static cudnnStatus_t softmax_call(cudnnHandle_t handle, struct sj *t, const char *fn)
{
    cudnnStatus_t r = dnn_handle(handle);
    if (r)
        return r;
    if ((unsigned)t->algo > CUDNN_SOFTMAX_LOG || (unsigned)t->mode > CUDNN_SOFTMAX_MODE_CHANNEL)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: algorithm %d, mode %d", fn, (int)t->algo, (int)t->mode);
    const struct td *ts[3] = { &t->in, &t->out, &t->in2 };
    for (int i = 0; i < (t->backward ? 3 : 2); i++) {
        if (!dnn_float_type(ts[i]->type))
            return dnn_err(CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE, "%s: only float, double, half and bfloat16 data", fn);
        if (!dnn_same_shape(ts[i], &t->out))
            return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: the tensors differ in shape", fn);
    }
    if (t->out.nb < 3)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: tensors of at least 3 dimensions (N, C, ...)", fn);
    struct sj *j = hl_job_new(sizeof *j, run_softmax);
    if (!j)
        return dnn_err(CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED, "%s: out of memory", fn);
    struct hl_job keep = j->h;
    *j = *t;
    j->h = keep;
    j->h.fini = fini_softmax;
    int64_t len = t->mode == CUDNN_SOFTMAX_MODE_INSTANCE ? dnn_count(&t->out) / t->out.dim[0] : t->out.dim[1];
    j->buf = malloc((size_t)len * sizeof *j->buf);
    if (!j->buf) {
        hl_job_free(&j->h);
        return dnn_err(CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED, "%s: out of memory", fn);
    }
    r = dnn_hold(&j->h, &j->in, j->IN, t->backward ? "y" : "x");
    if (!r)
        r = dnn_hold(&j->h, &j->out, j->OUT, t->backward ? "dx" : "y");
    if (!r && t->backward)
        r = dnn_hold(&j->h, &j->in2, j->IN2, "dy");
    if (r) {
        hl_job_free(&j->h);
        return r;
    }
    return dnn_submit(handle, &j->h);
}

HL_EXPORT cudnnStatus_t cudnnSoftmaxForward(cudnnHandle_t handle, cudnnSoftmaxAlgorithm_t algo,
                                            cudnnSoftmaxMode_t mode, const void *alpha,
                                            const cudnnTensorDescriptor_t xDesc, const void *x, const void *beta,
                                            const cudnnTensorDescriptor_t yDesc, void *y)
{
    static const char fn[] = "cudnnSoftmaxForward";
    struct sj t;
    memset(&t, 0, sizeof t);
    cudnnStatus_t r = dnn_handle(handle);
    if (r || (r = dnn_td(xDesc, &t.in, "xDesc")) || (r = dnn_td(yDesc, &t.out, "yDesc")))
        return r;
    if (dnn_scale(t.out.type, alpha, &t.alpha) || dnn_scale(t.out.type, beta, &t.beta))
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: alpha or beta is NULL", fn);
    t.algo = algo;
    t.mode = mode;
    t.IN = x;
    t.OUT = y;
    return softmax_call(handle, &t, fn);
}

HL_EXPORT cudnnStatus_t cudnnSoftmaxBackward(cudnnHandle_t handle, cudnnSoftmaxAlgorithm_t algo,
                                             cudnnSoftmaxMode_t mode, const void *alpha,
                                             const cudnnTensorDescriptor_t yDesc, const void *y,
                                             const cudnnTensorDescriptor_t dyDesc, const void *dy, const void *beta,
                                             const cudnnTensorDescriptor_t dxDesc, void *dx)
{
    static const char fn[] = "cudnnSoftmaxBackward";
    struct sj t;
    memset(&t, 0, sizeof t);
    cudnnStatus_t r = dnn_handle(handle);
    if (r || (r = dnn_td(yDesc, &t.in, "yDesc")) || (r = dnn_td(dyDesc, &t.in2, "dyDesc")) ||
        (r = dnn_td(dxDesc, &t.out, "dxDesc")))
        return r;
    if (dnn_scale(t.out.type, alpha, &t.alpha) || dnn_scale(t.out.type, beta, &t.beta))
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: alpha or beta is NULL", fn);
    t.algo = algo;
    t.mode = mode;
    t.backward = 1;
    t.IN = y;
    t.IN2 = dy;
    t.OUT = dx;
    return softmax_call(handle, &t, fn);
}
