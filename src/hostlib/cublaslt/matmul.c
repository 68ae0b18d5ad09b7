/* SPDX-License-Identifier: Apache-2.0 */
/* cublasLtMatmul: D = epilogue(alpha * op(A) op(B) + beta * C [+ bias]) on
 * CBLAS (OpenBLAS), queued on the caller's stream.
 *
 * The product runs in float (sgemm) or, for compute 64F, double (dgemm).
 * An operand already of that type in COL or ROW order is used in place (a
 * ROW matrix is the transpose of a COL one); any other is converted first:
 * half and bfloat16 exactly, float rounded as the compute type says
 * (_FAST_16F to half, _FAST_16BF to bfloat16, both to nearest even;
 * _FAST_TF32 to TF32, to nearest with ties away, as cvt.rna.tf32.f32).
 * When D is of the accumulator's type in COL order and alpha and beta are
 * scalars, the gemm writes D directly (C copied there first); otherwise
 * it writes a scratch matrix that the epilogue scales into D. The
 * epilogue runs in double on each element and rounds once into D's type:
 * bias, ReLU (max(x, 0)), GELU with the tanh approximation cuBLASLt
 * documents, 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), its input
 * saved (GELU_AUX) or its derivative applied (DGELU), and bias gradients:
 * D's row sums (DGELU_BGRAD), op(A)'s row sums or op(B)'s column sums over
 * k (BGRADA, BGRADB), unscaled. */
#include "lt.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct mj {
    struct hl_job h;
    struct lt_plan p;
    const void *A, *B, *C;
    void *D;
    const void *bias;   /* the bias, or where a bias gradient goes */
    void *aux;
    int64_t bias_stride, aux_ld, aux_stride, alpha_stride;
    _Alignas(8) unsigned char alpha[8], beta[8];   /* host scalars */
    const void *alpha_dev, *beta_dev;              /* device scalars or vectors */
    int beta_zero;                                 /* known at the call */
    int direct;                                    /* the gemm writes D */
    void *acc, *ca, *cb;                           /* scratch (general path) */
    double *grad;                                  /* DGELU_BGRAD's row sums */
};

/* element (r, c) of a stored matrix */
static size_t at(const struct lt_layout *l, int r, int c)
{
    return l->order == CUBLASLT_ORDER_COL ? (size_t)c * (size_t)l->ld + (size_t)r
                                          : (size_t)r * (size_t)l->ld + (size_t)c;
}

static double scalar(const struct mj *j, int alpha, int b, int r)
{
    const struct lt_plan *p = &j->p;
    switch (p->pointer_mode) {
    case CUBLASLT_POINTER_MODE_HOST:
        return lt_load(p->kscale, alpha ? j->alpha : j->beta, 0);
    case CUBLASLT_POINTER_MODE_DEVICE:
        return lt_load(p->kscale, alpha ? j->alpha_dev : j->beta_dev, 0);
    case CUBLASLT_POINTER_MODE_DEVICE_VECTOR:
        return alpha ? lt_load(p->kscale, j->alpha_dev, (size_t)b * (size_t)j->alpha_stride + (size_t)r)
                     : lt_load(p->kscale, j->beta_dev, (size_t)r);
    case CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_ZERO:
        return alpha ? lt_load(p->kscale, j->alpha_dev, (size_t)r) : 0;
    case CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_HOST:
        return alpha ? lt_load(p->kscale, j->alpha_dev, (size_t)b * (size_t)j->alpha_stride + (size_t)r)
                     : lt_load(p->kscale, j->beta, 0);
    }
    return 0;
}

static double round_in(double v, enum lt_round r)
{
    switch (r) {
    case LR_NONE: return v;
    case LR_F16: return hl_h2f(hl_f2h((float)v));
    case LR_BF16: return hl_bf2f(hl_f2bf((float)v));
    case LR_TF32: return hl_tf32((float)v);
    }
    return v;
}

static const double gelu_k = 0.7978845608028654; /* sqrt(2 / pi) */
static const double gelu_c = 0.044715;

static double gelu(double x)
{
    return 0.5 * x * (1 + tanh(gelu_k * (x + gelu_c * x * x * x)));
}

static double dgelu(double x)
{
    double t = tanh(gelu_k * (x + gelu_c * x * x * x));
    return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * gelu_k * (1 + 3 * gelu_c * x * x);
}

/* An operand for the gemm: in place, or converted to packed COL order.
 * *ld and *op describe it to CBLAS. */
static const void *operand(const struct mj *j, const struct lt_layout *l, enum lt_kind k, const void *p,
                           cublasOperation_t op, void *scratch, int *ld, enum CBLAS_TRANSPOSE *tr)
{
    int t = op != CUBLAS_OP_N;
    enum lt_kind acc = j->p.dbl ? LK_F64 : LK_F32;
    if (k == acc && j->p.rnd == LR_NONE) {
        *ld = (int)l->ld;
        if (l->order == CUBLASLT_ORDER_ROW)
            t = !t;
        *tr = t ? CblasTrans : CblasNoTrans;
        return p;
    }
    int rows = (int)l->rows, cols = (int)l->cols;
    for (int c = 0; c < cols; c++)
        for (int r = 0; r < rows; r++) {
            double v = round_in(lt_load(k, p, at(l, r, c)), k == LK_F32 ? j->p.rnd : LR_NONE);
            lt_store(acc, scratch, (size_t)c * (size_t)rows + (size_t)r, v);
        }
    *ld = rows > 1 ? rows : 1;
    *tr = t ? CblasTrans : CblasNoTrans;
    return scratch;
}

/* op(X)[r][l] summed over l (BGRADA: X = A) or op(X)[l][c] over l (BGRADB) */
static double op_sum(const struct lt_layout *l, enum lt_kind k, const void *p, cublasOperation_t op, int i,
                     int along_rows, int len)
{
    double s = 0;
    int t = op != CUBLAS_OP_N;
    for (int x = 0; x < len; x++) {
        /* element of op(X) at (i, x) for BGRADA, (x, i) for BGRADB */
        int r = along_rows ? i : x, c = along_rows ? x : i;
        s += lt_load(k, p, t ? at(l, c, r) : at(l, r, c));
    }
    return s;
}

static void run_one(struct mj *j, int b)
{
    const struct lt_plan *p = &j->p;
    size_t ea = lt_kind_size(p->ka), eb = lt_kind_size(p->kb), ec = lt_kind_size(p->kc), ed = lt_kind_size(p->kd);
    const char *A = (const char *)j->A + (size_t)b * (size_t)p->a.stride * ea;
    const char *B = (const char *)j->B + (size_t)b * (size_t)p->b.stride * eb;
    const char *C = j->C ? (const char *)j->C + (size_t)b * (size_t)p->c.stride * ec : NULL;
    char *D = (char *)j->D + (size_t)b * (size_t)p->d.stride * ed;
    char *bias = j->bias ? (char *)j->bias + (size_t)b * (size_t)j->bias_stride * ed : NULL;
    char *aux = j->aux ? (char *)j->aux + (size_t)b * (size_t)j->aux_stride * ed : NULL;
    int m = p->m, n = p->n, k = p->k;
    uint32_t e = p->epilogue;

    double beta0 = j->beta_zero ? 0 : scalar(j, 0, b, 0);
    void *acc = j->acc;
    size_t ldacc = (size_t)m;
    if (j->direct) {
        /* C into D first (unless it is D or beta is zero), then D = alpha AB + beta D */
        acc = D;
        ldacc = (size_t)p->d.ld;
        if (beta0 != 0 && C != D)
            for (int c = 0; c < n; c++)
                memmove(D + (size_t)c * ldacc * ed, C + (size_t)c * (size_t)p->c.ld * ec, (size_t)m * ed);
    }
    double alpha_g = j->direct ? scalar(j, 1, b, 0) : 1, beta_g = j->direct ? beta0 : 0;
    if (k > 0) {
        int lda, ldb;
        enum CBLAS_TRANSPOSE ta, tb;
        const void *a = operand(j, &p->a, p->ka, A, p->ta, j->ca, &lda, &ta);
        const void *bm = operand(j, &p->b, p->kb, B, p->tb, j->cb, &ldb, &tb);
        if (p->dbl)
            cblas_dgemm(CblasColMajor, ta, tb, m, n, k, alpha_g, a, lda, bm, ldb, beta_g, acc, (int)ldacc);
        else
            cblas_sgemm(CblasColMajor, ta, tb, m, n, k, (float)alpha_g, a, lda, bm, ldb, (float)beta_g, acc,
                        (int)ldacc);
    } else {
        memset(acc, 0, (size_t)m * (size_t)n * (p->dbl ? 8 : 4));   /* never direct */
    }

    enum lt_kind kacc = p->dbl ? LK_F64 : LK_F32;
    int grad = (e & LT_EPI_BGRAD) != 0;
    if (!j->direct || (e & ~(uint32_t)CUBLASLT_EPILOGUE_DEFAULT & ~(LT_EPI_BGRADA | LT_EPI_BGRADB))) {
        if (grad)
            memset(j->grad, 0, (size_t)m * sizeof *j->grad);
        for (int c = 0; c < n; c++) {
            for (int r = 0; r < m; r++) {
                double v = lt_load(kacc, acc, (size_t)c * ldacc + (size_t)r);
                if (!j->direct) {
                    v *= scalar(j, 1, b, r);
                    double be = j->beta_zero ? 0 : scalar(j, 0, b, r);
                    if (be != 0)
                        v += be * lt_load(p->kc, C, at(&p->c, r, c));
                }
                if ((e & LT_EPI_BIAS))
                    v += lt_load(p->kd, bias, (size_t)r);
                size_t ai = (size_t)c * (size_t)j->aux_ld + (size_t)r;
                if ((e & LT_EPI_GELU) && (e & LT_EPI_AUX))
                    lt_store(p->kd, aux, ai, v);
                if (e & LT_EPI_GELU)
                    v = gelu(v);
                if (e & LT_EPI_RELU)
                    v = v > 0 ? v : 0;
                if (e & LT_EPI_DGELU)
                    v *= dgelu(lt_load(p->kd, aux, ai));
                lt_store(p->kd, D, at(&p->d, r, c), v);
                if (grad)   /* the sum of what D holds */
                    j->grad[r] += lt_load(p->kd, D, at(&p->d, r, c));
            }
        }
        if (grad)
            for (int r = 0; r < m; r++)
                lt_store(p->kd, bias, (size_t)r, j->grad[r]);
    }
    if (e & LT_EPI_BGRADA)
        for (int r = 0; r < m; r++)
            lt_store(p->kd, bias, (size_t)r, op_sum(&p->a, p->ka, A, p->ta, r, 1, k));
    if (e & LT_EPI_BGRADB)
        for (int c = 0; c < n; c++)
            lt_store(p->kd, bias, (size_t)c, op_sum(&p->b, p->kb, B, p->tb, c, 0, k));
}

static void run_matmul(struct hl_job *hj)
{
    struct mj *j = (struct mj *)hj;
    for (int b = 0; b < j->p.batch; b++)
        run_one(j, b);
}

static void fini_matmul(struct hl_job *hj)
{
    struct mj *j = (struct mj *)hj;
    free(j->acc);
    free(j->ca);
    free(j->cb);
    free(j->grad);
}

/* ---- validation ----------------------------------------------------------- */
static int64_t layout_bytes(const struct lt_layout *l, size_t e)
{
    int64_t one = l->order == CUBLASLT_ORDER_COL ? hl_mat_bytes((int64_t)l->rows, (int64_t)l->cols, l->ld, e)
                                                 : hl_mat_bytes((int64_t)l->cols, (int64_t)l->rows, l->ld, e);
    return one < 0 ? -1 : hl_batch_bytes(one, l->batch, l->stride, e);
}

static int aligned(const void *p, size_t e)
{
    return ((uintptr_t)p % e) == 0;
}

/* holds [p, p + bytes) for the job, element-aligned: 0 or -1 */
static int hold(struct mj *j, const void *p, int64_t bytes, size_t e)
{
    if (bytes < 0 || !p || !aligned(p, e))
        return -1;
    return hl_job_hold(&j->h, p, (size_t)bytes);
}

static int same_layout(const struct lt_layout *a, const struct lt_layout *b)
{
    return a->type == b->type && a->order == b->order && a->ld == b->ld && a->stride == b->stride;
}

/* a vector of len elements per batch, batches stride elements apart */
static int64_t vec_bytes(int64_t len, int64_t batch, int64_t stride, size_t e)
{
    return hl_batch_bytes(hl_vec_bytes(len, 1, e), batch, stride, e);
}

static cublasStatus_t take_scalars(struct mj *j, const struct lt_plan *p, const void *alpha, const void *beta)
{
    size_t es = lt_kind_size(p->kscale);
    int64_t m = p->m, nb = p->batch;
    int pm = p->pointer_mode;
    if (!alpha || (!beta && pm != CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_ZERO))
        return CUBLAS_STATUS_INVALID_VALUE;
    switch (pm) {
    case CUBLASLT_POINTER_MODE_HOST:
        memcpy(j->alpha, alpha, es);
        memcpy(j->beta, beta, es);
        j->beta_zero = lt_load(p->kscale, j->beta, 0) == 0;
        return CUBLAS_STATUS_SUCCESS;
    case CUBLASLT_POINTER_MODE_DEVICE:
        j->alpha_dev = alpha;
        j->beta_dev = beta;
        return hold(j, alpha, (int64_t)es, es) || hold(j, beta, (int64_t)es, es) ? CUBLAS_STATUS_INVALID_VALUE
                                                                                 : CUBLAS_STATUS_SUCCESS;
    case CUBLASLT_POINTER_MODE_DEVICE_VECTOR:
        j->alpha_dev = alpha;
        j->beta_dev = beta;
        return hold(j, alpha, vec_bytes(m, nb, j->alpha_stride, es), es) || hold(j, beta, vec_bytes(m, 1, 0, es), es)
                   ? CUBLAS_STATUS_INVALID_VALUE
                   : CUBLAS_STATUS_SUCCESS;
    case CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_ZERO:
        j->alpha_dev = alpha;
        j->beta_zero = 1;
        return hold(j, alpha, vec_bytes(m, 1, 0, es), es) ? CUBLAS_STATUS_INVALID_VALUE : CUBLAS_STATUS_SUCCESS;
    case CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_HOST:
        j->alpha_dev = alpha;
        memcpy(j->beta, beta, es);
        j->beta_zero = lt_load(p->kscale, j->beta, 0) == 0;
        return hold(j, alpha, vec_bytes(m, nb, j->alpha_stride, es), es) ? CUBLAS_STATUS_INVALID_VALUE
                                                                         : CUBLAS_STATUS_SUCCESS;
    }
    return CUBLAS_STATUS_INVALID_VALUE;
}

/* the operands, epilogue inputs and outputs, each inside one allocation */
static cublasStatus_t take_operands(struct mj *j, const struct lt_plan *p)
{
    size_t ea = lt_kind_size(p->ka), eb = lt_kind_size(p->kb), ec = lt_kind_size(p->kc), ed = lt_kind_size(p->kd);
    uint32_t e = p->epilogue;
    int64_t nb = p->batch;
    if (p->k > 0 && (hold(j, j->A, layout_bytes(&p->a, ea), ea) || hold(j, j->B, layout_bytes(&p->b, eb), eb)))
        return CUBLAS_STATUS_INVALID_VALUE;
    if (hold(j, j->D, layout_bytes(&p->d, ed), ed))
        return CUBLAS_STATUS_INVALID_VALUE;
    if (j->C == j->D && !same_layout(&p->c, &p->d))
        return CUBLAS_STATUS_INVALID_VALUE;   /* in place needs one layout */
    if (!j->beta_zero && hold(j, j->C, layout_bytes(&p->c, ec), ec))
        return CUBLAS_STATUS_INVALID_VALUE;
    if (j->beta_zero)
        j->C = NULL;                          /* never read */
    if (e & (LT_EPI_BIAS | LT_EPI_BGRAD | LT_EPI_BGRADA | LT_EPI_BGRADB)) {
        int64_t len = (e & LT_EPI_BGRADB) ? p->n : p->m;
        if (hold(j, j->bias, vec_bytes(len, nb, j->bias_stride, ed), ed))
            return CUBLAS_STATUS_INVALID_VALUE;
    } else {
        j->bias = NULL;
    }
    if (e & LT_EPI_AUX) {
        int64_t one = hl_mat_bytes(p->m, p->n, j->aux_ld, ed);
        if (hold(j, j->aux, one < 0 ? -1 : hl_batch_bytes(one, nb, j->aux_stride, ed), ed))
            return CUBLAS_STATUS_INVALID_VALUE;
    } else {
        j->aux = NULL;
    }
    return CUBLAS_STATUS_SUCCESS;
}

/* the scratch the general path needs, allocated now: a job never fails */
static int scratch(struct mj *j, const struct lt_plan *p)
{
    size_t es = p->dbl ? 8 : 4;
    enum lt_kind acc = p->dbl ? LK_F64 : LK_F32;
    int scalar_mode = p->pointer_mode == CUBLASLT_POINTER_MODE_HOST || p->pointer_mode == CUBLASLT_POINTER_MODE_DEVICE;
    j->direct = p->kd == acc && p->d.order == CUBLASLT_ORDER_COL && scalar_mode && p->k > 0 &&
                (j->C == NULL || j->C == j->D || (p->kc == acc && p->c.order == CUBLASLT_ORDER_COL));
    if (!j->direct && !(j->acc = malloc((size_t)p->m * (size_t)p->n * es)))
        return -1;
    if ((p->epilogue & LT_EPI_BGRAD) && !(j->grad = malloc((size_t)p->m * sizeof *j->grad)))
        return -1;
    if (p->k > 0) {
        if ((p->ka != acc || p->rnd != LR_NONE) && !(j->ca = malloc(p->a.rows * p->a.cols * es)))
            return -1;
        if ((p->kb != acc || p->rnd != LR_NONE) && !(j->cb = malloc(p->b.rows * p->b.cols * es)))
            return -1;
    }
    return 0;
}

HL_EXPORT cublasStatus_t cublasLtMatmul(cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t computeDesc,
                                        const void *alpha, const void *A, cublasLtMatrixLayout_t Adesc,
                                        const void *B, cublasLtMatrixLayout_t Bdesc, const void *beta, const void *C,
                                        cublasLtMatrixLayout_t Cdesc, void *D, cublasLtMatrixLayout_t Ddesc,
                                        const cublasLtMatmulAlgo_t *algo, void *workspace,
                                        size_t workspaceSizeInBytes, cudaStream_t stream)
{
    cublasStatus_t r = lt_handle(lightHandle);
    if (r)
        return r;
    const struct lt_matmul *op = lt_matmul(computeDesc);
    struct lt_plan p;
    r = lt_plan_make(op, lt_layout(Adesc), lt_layout(Bdesc), lt_layout(Cdesc), lt_layout(Ddesc), &p);
    if (r)
        return r;
    if (algo) {   /* without one, the heuristics' choice: the one algorithm */
        struct lt_algo a;
        if (lt_algo_get(algo, &a))
            return CUBLAS_STATUS_INVALID_VALUE;
        if ((r = lt_algo_fits(&a, &p)))
            return r;
    }
    if (workspaceSizeInBytes && !workspace)
        return CUBLAS_STATUS_INVALID_VALUE;   /* none is needed; a size must come with a pointer */
    if (p.m == 0 || p.n == 0)
        return CUBLAS_STATUS_SUCCESS;
    hl_note("OpenBLAS gemm"); /* tdtrace -e lib= shows it */
    struct mj *j = hl_job_new(sizeof *j, run_matmul);
    if (!j)
        return CUBLAS_STATUS_ALLOC_FAILED;
    j->h.fini = fini_matmul;
    j->p = p;
    j->A = A;
    j->B = B;
    j->C = C;
    j->D = D;
    j->bias = op->bias;
    j->aux = op->aux;
    j->bias_stride = op->bias_stride;
    j->aux_ld = op->aux_ld;
    j->aux_stride = op->aux_stride;
    j->alpha_stride = op->alpha_stride;
    if ((r = take_scalars(j, &p, alpha, beta)) || (r = take_operands(j, &p))) {
        hl_job_free(&j->h);
        return r;
    }
    if (scratch(j, &p)) {
        hl_job_free(&j->h);
        return CUBLAS_STATUS_ALLOC_FAILED;
    }
    j->h.capture = "cuBLASLt";   /* a graph being captured records it */
    switch (hl_job_submit(&j->h, (CUstream)stream, 0)) {
    case HL_SUBMITTED: return CUBLAS_STATUS_SUCCESS;
    case HL_CAPTURING: return CUBLAS_STATUS_NOT_SUPPORTED;   /* not expected: it never waits */
    case HL_SUBMIT_FAILED: break;
    }
    return CUBLAS_STATUS_EXECUTION_FAILED;
}
