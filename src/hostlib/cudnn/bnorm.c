/* SPDX-License-Identifier: Apache-2.0 */
/* Batch normalization: the derived parameter descriptor, forward training,
 * forward inference, backward; SPATIAL (and SPATIAL_PERSISTENT, computed the
 * same way) normalizes each channel over N and the spatial dimensions,
 * PER_ACTIVATION each (channel, position) over N. Loops of this library's
 * own, in double:
 *   mean, var = the batch's mean and biased variance; inv = 1 / sqrt(var + eps)
 *   y = alpha (scale (x - mean) inv + bias) + beta y
 *   running mean = (1 - f) running mean + f mean,
 *   running var  = (1 - f) running var  + f var M / (M - 1)  (M values per statistic)
 *   backward: xhat = (x - mean) inv, dbias = sum dy, dscale = sum dy xhat,
 *   dx = scale inv (dy - dbias / M - xhat dscale / M)
 * with the saved mean and inverse variance when given (recomputed
 * otherwise). Parameters are float, double for double data. */
#include "dnn.h"

#include <math.h>
#include <string.h>

HL_EXPORT cudnnStatus_t cudnnDeriveBNTensorDescriptor(cudnnTensorDescriptor_t derivedBnDesc,
                                                      const cudnnTensorDescriptor_t xDesc, cudnnBatchNormMode_t mode)
{
    static const char fn[] = "cudnnDeriveBNTensorDescriptor";
    struct td x;
    cudnnStatus_t r = dnn_td(xDesc, &x, "xDesc");
    if (r)
        return r;
    if ((unsigned)mode > CUDNN_BATCHNORM_SPATIAL_PERSISTENT || !hl_handle_live(derivedBnDesc, DK_TENSOR))
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: mode %d or the derived descriptor", fn, (int)mode);
    int dim[CUDNN_DIM_MAX], stride[CUDNN_DIM_MAX];
    for (int d = 0; d < x.nb; d++)
        dim[d] = d == 1 || (d >= 2 && mode == CUDNN_BATCHNORM_PER_ACTIVATION) ? x.dim[d] : 1;
    int s = 1;
    for (int d = x.nb - 1; d >= 0; d--) {
        stride[d] = s;
        s *= dim[d];
    }
    return cudnnSetTensorNdDescriptor(derivedBnDesc, x.type == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT,
                                      x.nb, dim, stride);
}

enum bn_op { BN_TRAIN, BN_INFER, BN_BACK };

struct bj {
    struct hl_job h;
    enum bn_op op;
    int per_act;
    struct td x, y, dy, dx, p;    /* p: the parameters' descriptor */
    const void *X, *DY, *scale, *bias, *mean_in, *var_in;   /* mean_in/var_in: estimated or saved */
    void *Y, *DX, *rmean, *rvar, *smean, *sinv, *dscale, *dbias;
    double alpha, beta, alpha_p, beta_p, eps, factor;
};


static int64_t sp_off(const struct td *t, int64_t p)
{
    int64_t off = 0;
    for (int d = t->nb - 1; d >= 2; d--) {
        off += (p % t->dim[d]) * t->stride[d];
        p /= t->dim[d];
    }
    return off;
}

/* member m of statistic (c, pos) in tensor t */
static int64_t member_off(const struct bj *j, const struct td *t, int c, int64_t pos, int64_t sp, int64_t m)
{
    int64_t n = j->per_act ? m : m / sp, p = j->per_act ? pos : m % sp;
    return n * t->stride[0] + (int64_t)c * t->stride[1] + sp_off(t, p);
}

static double pload(const struct bj *j, const void *v, int64_t off)
{
    return dnn_load(j->p.type, v, off);
}

static void run_bn(struct hl_job *hj)
{
    struct bj *j = (struct bj *)hj;
    int64_t sp = 1;
    for (int d = 2; d < j->x.nb; d++)
        sp *= j->x.dim[d];
    int C = j->x.dim[1];
    int64_t nstat = j->per_act ? (int64_t)C * sp : C;
    int64_t M = j->per_act ? j->x.dim[0] : (int64_t)j->x.dim[0] * sp;
    for (int64_t g = 0; g < nstat; g++) {
        int c = (int)(j->per_act ? g / sp : g);
        int64_t pos = j->per_act ? g % sp : 0;
        int64_t po = (int64_t)c * j->p.stride[1] + (j->per_act ? sp_off(&j->p, pos) : 0);
        double mean, inv;
        int have = j->op == BN_INFER || (j->op == BN_BACK && j->mean_in);
        if (have) {
            mean = pload(j, j->mean_in, po);
            double v = pload(j, j->var_in, po);
            inv = j->op == BN_INFER ? 1 / sqrt(v + j->eps) : v;   /* backward: saved inverse variance */
        } else {
            double s = 0, q = 0;
            for (int64_t m = 0; m < M; m++)
                s += dnn_load(j->x.type, j->X, member_off(j, &j->x, c, pos, sp, m));
            mean = s / (double)M;
            for (int64_t m = 0; m < M; m++) {
                double d = dnn_load(j->x.type, j->X, member_off(j, &j->x, c, pos, sp, m)) - mean;
                q += d * d;
            }
            double var = q / (double)M;
            inv = 1 / sqrt(var + j->eps);
            if (j->op == BN_TRAIN && j->rmean) {
                double unbiased = M > 1 ? q / (double)(M - 1) : var;
                dnn_store(j->p.type, j->rmean, po, (1 - j->factor) * pload(j, j->rmean, po) + j->factor * mean);
                dnn_store(j->p.type, j->rvar, po, (1 - j->factor) * pload(j, j->rvar, po) + j->factor * unbiased);
            }
            if (j->op == BN_TRAIN && j->smean) {
                dnn_store(j->p.type, j->smean, po, mean);
                dnn_store(j->p.type, j->sinv, po, inv);
            }
        }
        double scale = pload(j, j->scale, po);
        if (j->op != BN_BACK) {
            double bias = pload(j, j->bias, po);
            for (int64_t m = 0; m < M; m++) {
                double x = dnn_load(j->x.type, j->X, member_off(j, &j->x, c, pos, sp, m));
                int64_t yo = member_off(j, &j->y, c, pos, sp, m);
                double v = j->alpha * (scale * (x - mean) * inv + bias);
                if (j->beta != 0)
                    v += j->beta * dnn_load(j->y.type, j->Y, yo);
                dnn_store(j->y.type, j->Y, yo, v);
            }
            continue;
        }
        double sdy = 0, sdyx = 0;
        for (int64_t m = 0; m < M; m++) {
            double x = dnn_load(j->x.type, j->X, member_off(j, &j->x, c, pos, sp, m));
            double dy = dnn_load(j->dy.type, j->DY, member_off(j, &j->dy, c, pos, sp, m));
            sdy += dy;
            sdyx += dy * (x - mean) * inv;
        }
        for (int64_t m = 0; m < M; m++) {
            double x = dnn_load(j->x.type, j->X, member_off(j, &j->x, c, pos, sp, m));
            double dy = dnn_load(j->dy.type, j->DY, member_off(j, &j->dy, c, pos, sp, m));
            int64_t o = member_off(j, &j->dx, c, pos, sp, m);
            double v = j->alpha * scale * inv * (dy - sdy / (double)M - (x - mean) * inv * sdyx / (double)M);
            if (j->beta != 0)
                v += j->beta * dnn_load(j->dx.type, j->DX, o);
            dnn_store(j->dx.type, j->DX, o, v);
        }
        double ds = j->alpha_p * sdyx, db = j->alpha_p * sdy;
        if (j->beta_p != 0) {
            ds += j->beta_p * pload(j, j->dscale, po);
            db += j->beta_p * pload(j, j->dbias, po);
        }
        dnn_store(j->p.type, j->dscale, po, ds);
        dnn_store(j->p.type, j->dbias, po, db);
    }
}

/* the checks the three functions share, then the job */
static cudnnStatus_t bn_call(cudnnHandle_t handle, cudnnBatchNormMode_t mode, struct bj *t,
                             cudnnTensorDescriptor_t pdesc, const char *fn)
{
    cudnnStatus_t r;
    if ((unsigned)mode > CUDNN_BATCHNORM_SPATIAL_PERSISTENT)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: mode %d", fn, (int)mode);
    t->per_act = mode == CUDNN_BATCHNORM_PER_ACTIVATION;
    if ((r = dnn_td(pdesc, &t->p, "the scale/bias/mean/variance descriptor")))
        return r;
    const struct td *ts[2] = { t->op == BN_BACK ? &t->dy : &t->y, t->op == BN_BACK ? &t->dx : &t->x };
    for (int i = 0; i < 2; i++)
        if (!dnn_same_shape(ts[i], &t->x))
            return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: the data tensors differ in shape", fn);
    if (t->x.nb < 3)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: tensors of at least 3 dimensions", fn);
    if (!dnn_float_type(t->x.type) || !dnn_float_type(ts[0]->type) || !dnn_float_type(ts[1]->type))
        return dnn_err(CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE, "%s: only float, double, half and bfloat16 data", fn);
    cudnnDataType_t want = t->x.type == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    int shape_ok = t->p.nb == t->x.nb && t->p.type == want;
    for (int d = 0; shape_ok && d < t->x.nb; d++)
        shape_ok = t->p.dim[d] == (d == 1 || (d >= 2 && t->per_act) ? t->x.dim[d] : 1);
    if (!shape_ok)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: the parameters' descriptor is not what "
                       "cudnnDeriveBNTensorDescriptor gives for x and the mode", fn);
    if (!(t->eps >= CUDNN_BN_MIN_EPSILON))
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: epsilon %g", fn, t->eps);
    hl_note("host loops (batch normalization)"); /* tdtrace -e lib= shows it */
    struct bj *j = hl_job_new(sizeof *j, run_bn);
    if (!j)
        return dnn_err(CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED, "%s: out of memory", fn);
    struct hl_job keep = j->h;
    *j = *t;
    j->h = keep;
    r = dnn_hold(&j->h, &j->x, j->X, "x");
    if (!r && t->op != BN_BACK)
        r = dnn_hold(&j->h, &j->y, j->Y, "y");
    if (!r && t->op == BN_BACK && !(r = dnn_hold(&j->h, &j->dy, j->DY, "dy")))
        r = dnn_hold(&j->h, &j->dx, j->DX, "dx");
    /* the parameter vectors that are given (the caller checked which must be) */
    const void *ps[] = { j->scale, j->bias, j->mean_in, j->var_in, j->rmean, j->rvar, j->smean, j->sinv, j->dscale,
                         j->dbias };
    for (size_t i = 0; !r && i < sizeof ps / sizeof *ps; i++)
        if (ps[i])
            r = dnn_hold(&j->h, &j->p, ps[i], "a parameter vector");
    if (r) {
        hl_job_free(&j->h);
        return r;
    }
    return dnn_submit(handle, &j->h);
}

HL_EXPORT cudnnStatus_t cudnnBatchNormalizationForwardTraining(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, const void *alpha, const void *beta,
    const cudnnTensorDescriptor_t xDesc, const void *x, const cudnnTensorDescriptor_t yDesc, void *y,
    const cudnnTensorDescriptor_t bnScaleBiasMeanVarDesc, const void *bnScale, const void *bnBias,
    double exponentialAverageFactor, void *resultRunningMean, void *resultRunningVariance, double epsilon,
    void *resultSaveMean, void *resultSaveInvVariance)
{
    static const char fn[] = "cudnnBatchNormalizationForwardTraining";
    struct bj t;
    memset(&t, 0, sizeof t);
    cudnnStatus_t r = dnn_handle(handle);
    if (r || (r = dnn_td(xDesc, &t.x, "xDesc")) || (r = dnn_td(yDesc, &t.y, "yDesc")))
        return r;
    if (dnn_scale(t.y.type, alpha, &t.alpha) || dnn_scale(t.y.type, beta, &t.beta))
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: alpha or beta is NULL", fn);
    if (!bnScale || !bnBias)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: bnScale or bnBias is NULL", fn);
    if (!resultRunningMean != !resultRunningVariance || !resultSaveMean != !resultSaveInvVariance)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: the running (or saved) mean and variance go together", fn);
    t.op = BN_TRAIN;
    t.X = x, t.Y = y, t.scale = bnScale, t.bias = bnBias;
    t.rmean = resultRunningMean, t.rvar = resultRunningVariance;
    t.smean = resultSaveMean, t.sinv = resultSaveInvVariance;
    t.factor = exponentialAverageFactor;
    t.eps = epsilon;
    return bn_call(handle, mode, &t, bnScaleBiasMeanVarDesc, fn);
}

HL_EXPORT cudnnStatus_t cudnnBatchNormalizationForwardInference(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, const void *alpha, const void *beta,
    const cudnnTensorDescriptor_t xDesc, const void *x, const cudnnTensorDescriptor_t yDesc, void *y,
    const cudnnTensorDescriptor_t bnScaleBiasMeanVarDesc, const void *bnScale, const void *bnBias,
    const void *estimatedMean, const void *estimatedVariance, double epsilon)
{
    static const char fn[] = "cudnnBatchNormalizationForwardInference";
    struct bj t;
    memset(&t, 0, sizeof t);
    cudnnStatus_t r = dnn_handle(handle);
    if (r || (r = dnn_td(xDesc, &t.x, "xDesc")) || (r = dnn_td(yDesc, &t.y, "yDesc")))
        return r;
    if (dnn_scale(t.y.type, alpha, &t.alpha) || dnn_scale(t.y.type, beta, &t.beta))
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: alpha or beta is NULL", fn);
    if (!bnScale || !bnBias || !estimatedMean || !estimatedVariance)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: a parameter vector is NULL", fn);
    t.op = BN_INFER;
    t.X = x, t.Y = y, t.scale = bnScale, t.bias = bnBias;
    t.mean_in = estimatedMean, t.var_in = estimatedVariance;
    t.eps = epsilon;
    return bn_call(handle, mode, &t, bnScaleBiasMeanVarDesc, fn);
}

HL_EXPORT cudnnStatus_t cudnnBatchNormalizationBackward(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, const void *alphaDataDiff, const void *betaDataDiff,
    const void *alphaParamDiff, const void *betaParamDiff, const cudnnTensorDescriptor_t xDesc, const void *x,
    const cudnnTensorDescriptor_t dyDesc, const void *dy, const cudnnTensorDescriptor_t dxDesc, void *dx,
    const cudnnTensorDescriptor_t dBnScaleBiasDesc, const void *bnScale, void *dBnScaleResult, void *dBnBiasResult,
    double epsilon, const void *savedMean, const void *savedInvVariance)
{
    static const char fn[] = "cudnnBatchNormalizationBackward";
    struct bj t;
    memset(&t, 0, sizeof t);
    cudnnStatus_t r = dnn_handle(handle);
    if (r || (r = dnn_td(xDesc, &t.x, "xDesc")) || (r = dnn_td(dyDesc, &t.dy, "dyDesc")) ||
        (r = dnn_td(dxDesc, &t.dx, "dxDesc")))
        return r;
    if (dnn_scale(t.dx.type, alphaDataDiff, &t.alpha) || dnn_scale(t.dx.type, betaDataDiff, &t.beta) ||
        dnn_scale(t.dx.type, alphaParamDiff, &t.alpha_p) || dnn_scale(t.dx.type, betaParamDiff, &t.beta_p))
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: a scaling factor is NULL", fn);
    if (!bnScale || !dBnScaleResult || !dBnBiasResult || !savedMean != !savedInvVariance)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: a parameter vector is NULL (the saved mean and inverse "
                       "variance go together)", fn);
    t.op = BN_BACK;
    t.X = x, t.DY = dy, t.DX = dx, t.scale = bnScale;
    t.dscale = dBnScaleResult, t.dbias = dBnBiasResult;
    t.mean_in = savedMean, t.var_in = savedInvVariance;
    t.eps = epsilon;
    return bn_call(handle, mode, &t, dBnScaleBiasDesc, fn);
}
