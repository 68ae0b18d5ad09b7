/* SPDX-License-Identifier: Apache-2.0 */
/* Sparse times dense: SpMV (CSR, CSC, COO; N, T, C), SpMM (op(B) of either
 * order), and the sparse-vector Scatter and Gather. Products accumulate in
 * double (complex double) per output element and are rounded once into
 * the output's type: y = alpha op(A) x + beta y, y not read when beta is
 * zero. */
#include "sparse.h"

#include <stdlib.h>
#include <string.h>

/* ---- the product op(A) x into acc (zeroed, one per output element) ---- */
/* trans: 0 A x, else A^T x (conj: conjugated values); a CSC matrix is the
 * CSR of its transpose, so the caller has flipped trans for it */
static void mv_core(const struct sp_csr *a, int trans, int conj, const sp_c *x, sp_c *acc)
{
    int64_t nout = trans ? a->inner : a->outer;
    for (int64_t r = 0; r < (a->off ? a->outer : 1); r++) {
        int64_t k0, k1;
        if (a->off) {
            k0 = sp_idx(a->otype, a->off, r) - a->base;
            k1 = sp_idx(a->otype, a->off, r + 1) - a->base;
            if (k0 < 0 || k1 > a->nnz || k1 < k0)
                continue;   /* changed since it was validated: skipped */
        } else {
            k0 = 0;
            k1 = a->nnz;
        }
        for (int64_t k = k0; k < k1; k++) {
            int64_t row = a->off ? r : sp_idx(a->itype, a->rowi, k) - a->base;
            int64_t col = sp_idx(a->itype, a->idx, k) - a->base;
            if (row < 0 || row >= a->outer || col < 0 || col >= a->inner)
                continue;
            sp_c v = sp_ld(a->vtype, a->val, k);
            if (conj)
                v = sp_conj(v);
            int64_t in = trans ? row : col, out = trans ? col : row;
            if (out < nout)
                acc[out] = sp_add(acc[out], sp_mul(v, x[in]));
        }
    }
}

/* y[i] = alpha acc[i] + beta y[i], y[i] not read when beta is zero */
static void axpby_store(cudaDataType yt, void *y, int64_t i, sp_c alpha, sp_c acc, sp_c beta)
{
    sp_c r = sp_mul(alpha, acc);
    if (beta.re != 0 || beta.im != 0)
        r = sp_add(r, sp_mul(beta, sp_ld(yt, y, i)));
    sp_st(yt, y, i, r);
}

/* ---- SpMV ------------------------------------------------------------- */
struct mv_job {
    struct hl_job j;
    struct sp_csr a;
    int trans, conj;
    const void *x;
    void *y;
    int64_t nx, ny;
    cudaDataType xt, yt, ct;
    struct sp_scal alpha, beta;
    sp_c *buf;   /* nx inputs, then ny sums */
};

static void mv_fini(struct hl_job *j)
{
    free(((struct mv_job *)j)->buf);
}

/* CSR, no transpose, 32-bit indices, one real type: the conjugate
 * gradient's case, without the complex detour */
#define MV_FAST(NAME, T)                                                                                 \
    static void NAME(const struct mv_job *m, double alpha, double beta)                                \
    {                                                                                                  \
        const struct sp_csr *a = &m->a;                                                                \
        const int32_t *off = a->off, *idx = a->idx;                                                    \
        const T *val = a->val, *x = m->x;                                                              \
        T *y = m->y;                                                                                   \
        int64_t base = a->base;                                                                        \
        for (int64_t r = 0; r < a->outer; r++) {                                                       \
            int64_t k0 = off[r] - base, k1 = off[r + 1] - base;                                        \
            double s = 0;                                                                              \
            if (k0 >= 0 && k1 <= a->nnz)                                                               \
                for (int64_t k = k0; k < k1; k++) {                                                    \
                    int64_t c = idx[k] - base;                                                         \
                    if (c >= 0 && c < a->inner)                                                        \
                        s += (double)val[k] * (double)x[c];                                            \
                }                                                                                      \
            y[r] = (T)(beta != 0 ? alpha * s + beta * (double)y[r] : alpha * s);                       \
        }                                                                                              \
    }
MV_FAST(mv_fast_s, float)
MV_FAST(mv_fast_d, double)

static void mv_run(struct hl_job *j)
{
    struct mv_job *m = (struct mv_job *)j;
    sp_c alpha = sp_scal_get(&m->alpha, m->ct), beta = sp_scal_get(&m->beta, m->ct);
    if (!m->buf) {
        if (m->a.vtype == CUDA_R_32F)
            mv_fast_s(m, alpha.re, beta.re);
        else
            mv_fast_d(m, alpha.re, beta.re);
        return;
    }
    sp_c *x = m->buf, *acc = m->buf + m->nx;
    for (int64_t i = 0; i < m->nx; i++)
        x[i] = sp_ld(m->xt, m->x, i);
    memset(acc, 0, (size_t)m->ny * sizeof *acc);
    mv_core(&m->a, m->trans, m->conj, x, acc);
    for (int64_t i = 0; i < m->ny; i++)
        axpby_store(m->yt, m->y, i, alpha, acc[i], beta);
}

static int op_ok(cusparseOperation_t op)
{
    return op == CUSPARSE_OPERATION_NON_TRANSPOSE || op == CUSPARSE_OPERATION_TRANSPOSE ||
           op == CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE;
}

/* the checks SpMV, its buffer size and preprocess share, in cuSPARSE's order */
static cusparseStatus_t mv_check(cusparseHandle_t h, cusparseOperation_t op, const void *alpha,
                                 const struct cusparseSpMatDescr *A, const struct cusparseDnVecDescr *x,
                                 const void *beta, const struct cusparseDnVecDescr *y, cudaDataType ct,
                                 cusparseSpMVAlg_t alg)
{
    cusparseStatus_t r = sp_handle(h);
    if (r)
        return r;
    if (!alpha || !beta || !sp_live(A, SP_SPMAT) || !sp_live(x, SP_DNVEC) || !sp_live(y, SP_DNVEC) || !op_ok(op) ||
        (unsigned)alg > CUSPARSE_SPMV_BSR_ALG1)
        return CUSPARSE_STATUS_INVALID_VALUE;
    int t = op != CUSPARSE_OPERATION_NON_TRANSPOSE;
    if (x->size != (t ? A->rows : A->cols) || y->size != (t ? A->cols : A->rows))
        return CUSPARSE_STATUS_INVALID_VALUE;
    if (A->format != CUSPARSE_FORMAT_CSR && A->format != CUSPARSE_FORMAT_CSC && A->format != CUSPARSE_FORMAT_COO)
        return CUSPARSE_STATUS_NOT_SUPPORTED;
    if (!sp_isize(A->otype) || !sp_isize(A->itype))
        return CUSPARSE_STATUS_NOT_SUPPORTED;
    return sp_types(A->vtype, x->vtype, y->vtype, ct, 0);
}

HL_EXPORT cusparseStatus_t cusparseSpMV_bufferSize(cusparseHandle_t handle, cusparseOperation_t opA, const void *alpha,
                                                   cusparseConstSpMatDescr_t matA, cusparseConstDnVecDescr_t vecX,
                                                   const void *beta, cusparseDnVecDescr_t vecY,
                                                   cudaDataType computeType, cusparseSpMVAlg_t alg, size_t *bufferSize)
{
    cusparseStatus_t r = mv_check(handle, opA, alpha, matA, vecX, beta, vecY, computeType, alg);
    if (r)
        return r;
    if (!bufferSize)
        return CUSPARSE_STATUS_INVALID_VALUE;
    *bufferSize = 0;   /* the work needs none */
    return CUSPARSE_STATUS_SUCCESS;
}

HL_EXPORT cusparseStatus_t cusparseSpMV_preprocess(cusparseHandle_t handle, cusparseOperation_t opA, const void *alpha,
                                                   cusparseConstSpMatDescr_t matA, cusparseConstDnVecDescr_t vecX,
                                                   const void *beta, cusparseDnVecDescr_t vecY,
                                                   cudaDataType computeType, cusparseSpMVAlg_t alg,
                                                   void *externalBuffer)
{
    (void)externalBuffer;
    return mv_check(handle, opA, alpha, matA, vecX, beta, vecY, computeType, alg);
}

/* sizes of the job's scratch: n elements, or -1 past what malloc takes */
static sp_c *scratch(int64_t n)
{
    if (n < 0 || (uint64_t)n > SIZE_MAX / sizeof(sp_c) / 2)
        return NULL;
    return malloc((size_t)(n ? n : 1) * sizeof(sp_c));
}

HL_EXPORT cusparseStatus_t cusparseSpMV(cusparseHandle_t handle, cusparseOperation_t opA, const void *alpha,
                                        cusparseConstSpMatDescr_t matA, cusparseConstDnVecDescr_t vecX,
                                        const void *beta, cusparseDnVecDescr_t vecY, cudaDataType computeType,
                                        cusparseSpMVAlg_t alg, void *externalBuffer)
{
    (void)externalBuffer;   /* the work needs none */
    cusparseStatus_t r = mv_check(handle, opA, alpha, matA, vecX, beta, vecY, computeType, alg);
    if (r)
        return r;
    struct mv_job *m = hl_job_new(sizeof *m, mv_run);
    if (!m)
        return CUSPARSE_STATUS_ALLOC_FAILED;
    m->j.fini = mv_fini;
    m->x = vecX->values, m->y = vecY->values;
    m->nx = vecX->size, m->ny = vecY->size;
    m->xt = vecX->vtype, m->yt = vecY->vtype, m->ct = computeType;
    if (sp_scal_take(&m->j, handle, alpha, computeType, &m->alpha) ||
        sp_scal_take(&m->j, handle, beta, computeType, &m->beta) || sp_take_vec(&m->j, vecX) ||
        sp_take_vec(&m->j, vecY)) {
        hl_job_free(&m->j);
        return CUSPARSE_STATUS_INVALID_VALUE;
    }
    r = sp_take_matrix(&m->j, handle, matA, &m->a, 0);
    if (r) {
        hl_job_free(&m->j);
        return r;
    }
    int t = opA != CUSPARSE_OPERATION_NON_TRANSPOSE;
    m->conj = opA == CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE && sp_is_complex(matA->vtype);
    m->trans = matA->format == CUSPARSE_FORMAT_CSC ? !t : t;
    int fast = matA->format == CUSPARSE_FORMAT_CSR && !t && matA->otype == CUSPARSE_INDEX_32I &&
               matA->itype == CUSPARSE_INDEX_32I && (matA->vtype == CUDA_R_32F || matA->vtype == CUDA_R_64F) &&
               vecX->vtype == matA->vtype && vecY->vtype == matA->vtype;
    if (!fast && !(m->buf = scratch(m->nx + m->ny))) {
        hl_job_free(&m->j);
        return CUSPARSE_STATUS_ALLOC_FAILED;
    }
    hl_note(fast ? "host loop (CSR SpMV)" : "host loops (SpMV in complex double)"); /* tdtrace -e lib= shows it */
    return sp_submit(handle, &m->j, 0);
}

/* ---- SpMM --------------------------------------------------------------- */
struct mm_job {
    struct hl_job j;
    struct sp_csr a;
    int trans, conj, transb, conjb;
    struct cusparseDnMatDescr b, c;         /* copies of the descriptors */
    int64_t k, n;                           /* op(B) is k x n, C is m x n */
    cudaDataType ct;
    struct sp_scal alpha, beta;
    sp_c *buf;                              /* k inputs, then m sums */
};

static int64_t dn_at(const struct cusparseDnMatDescr *d, int64_t i, int64_t j)
{
    return d->order == CUSPARSE_ORDER_COL ? i + j * d->ld : i * d->ld + j;
}

static void mm_fini(struct hl_job *j)
{
    free(((struct mm_job *)j)->buf);
}

static void mm_run(struct hl_job *j)
{
    struct mm_job *m = (struct mm_job *)j;
    sp_c alpha = sp_scal_get(&m->alpha, m->ct), beta = sp_scal_get(&m->beta, m->ct);
    int64_t mrows = m->c.rows;
    sp_c *x = m->buf, *acc = m->buf + m->k;
    for (int64_t col = 0; col < m->n; col++) {
        for (int64_t p = 0; p < m->k; p++) {
            sp_c v = sp_ld(m->b.vtype, m->b.values, m->transb ? dn_at(&m->b, col, p) : dn_at(&m->b, p, col));
            x[p] = m->conjb ? sp_conj(v) : v;
        }
        memset(acc, 0, (size_t)mrows * sizeof *acc);
        mv_core(&m->a, m->trans, m->conj, x, acc);
        for (int64_t i = 0; i < mrows; i++)
            axpby_store(m->c.vtype, m->c.values, dn_at(&m->c, i, col), alpha, acc[i], beta);
    }
}

static int64_t dn_bytes(const struct cusparseDnMatDescr *d)
{
    int64_t outer = d->order == CUSPARSE_ORDER_COL ? d->cols : d->rows;
    int64_t inner = d->order == CUSPARSE_ORDER_COL ? d->rows : d->cols;
    return hl_mat_bytes(inner, outer, d->ld, sp_vsize(d->vtype));
}

static cusparseStatus_t mm_check(cusparseHandle_t h, cusparseOperation_t opA, cusparseOperation_t opB,
                                 const void *alpha, const struct cusparseSpMatDescr *A,
                                 const struct cusparseDnMatDescr *B, const void *beta,
                                 const struct cusparseDnMatDescr *C, cudaDataType ct, cusparseSpMMAlg_t alg)
{
    cusparseStatus_t r = sp_handle(h);
    if (r)
        return r;
    if (!alpha || !beta || !sp_live(A, SP_SPMAT) || !sp_live(B, SP_DNMAT) || !sp_live(C, SP_DNMAT) || !op_ok(opA) ||
        !op_ok(opB) || (unsigned)alg > CUSPARSE_SPMM_BSR_ALG1)
        return CUSPARSE_STATUS_INVALID_VALUE;
    int ta = opA != CUSPARSE_OPERATION_NON_TRANSPOSE, tb = opB != CUSPARSE_OPERATION_NON_TRANSPOSE;
    int64_t m = ta ? A->cols : A->rows, k = ta ? A->rows : A->cols;
    int64_t bk = tb ? B->cols : B->rows, n = tb ? B->rows : B->cols;
    if (bk != k || C->rows != m || C->cols != n)
        return CUSPARSE_STATUS_INVALID_VALUE;
    if (A->format != CUSPARSE_FORMAT_CSR && A->format != CUSPARSE_FORMAT_CSC && A->format != CUSPARSE_FORMAT_COO)
        return CUSPARSE_STATUS_NOT_SUPPORTED;
    if (!sp_isize(A->otype) || !sp_isize(A->itype))
        return CUSPARSE_STATUS_NOT_SUPPORTED;
    return sp_types(A->vtype, B->vtype, C->vtype, ct, 0);
}

HL_EXPORT cusparseStatus_t cusparseSpMM_bufferSize(cusparseHandle_t handle, cusparseOperation_t opA,
                                                   cusparseOperation_t opB, const void *alpha,
                                                   cusparseConstSpMatDescr_t matA, cusparseConstDnMatDescr_t matB,
                                                   const void *beta, cusparseDnMatDescr_t matC,
                                                   cudaDataType computeType, cusparseSpMMAlg_t alg, size_t *bufferSize)
{
    cusparseStatus_t r = mm_check(handle, opA, opB, alpha, matA, matB, beta, matC, computeType, alg);
    if (r)
        return r;
    if (!bufferSize)
        return CUSPARSE_STATUS_INVALID_VALUE;
    *bufferSize = 0;
    return CUSPARSE_STATUS_SUCCESS;
}

HL_EXPORT cusparseStatus_t cusparseSpMM_preprocess(cusparseHandle_t handle, cusparseOperation_t opA,
                                                   cusparseOperation_t opB, const void *alpha,
                                                   cusparseConstSpMatDescr_t matA, cusparseConstDnMatDescr_t matB,
                                                   const void *beta, cusparseDnMatDescr_t matC,
                                                   cudaDataType computeType, cusparseSpMMAlg_t alg,
                                                   void *externalBuffer)
{
    (void)externalBuffer;
    return mm_check(handle, opA, opB, alpha, matA, matB, beta, matC, computeType, alg);
}

HL_EXPORT cusparseStatus_t cusparseSpMM(cusparseHandle_t handle, cusparseOperation_t opA, cusparseOperation_t opB,
                                        const void *alpha, cusparseConstSpMatDescr_t matA,
                                        cusparseConstDnMatDescr_t matB, const void *beta, cusparseDnMatDescr_t matC,
                                        cudaDataType computeType, cusparseSpMMAlg_t alg, void *externalBuffer)
{
    (void)externalBuffer;
    cusparseStatus_t r = mm_check(handle, opA, opB, alpha, matA, matB, beta, matC, computeType, alg);
    if (r)
        return r;
    struct mm_job *m = hl_job_new(sizeof *m, mm_run);
    if (!m)
        return CUSPARSE_STATUS_ALLOC_FAILED;
    m->j.fini = mm_fini;
    m->b = *matB, m->c = *matC, m->ct = computeType;
    int ta = opA != CUSPARSE_OPERATION_NON_TRANSPOSE;
    m->transb = opB != CUSPARSE_OPERATION_NON_TRANSPOSE;
    m->conjb = opB == CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE && sp_is_complex(matB->vtype);
    m->k = ta ? matA->rows : matA->cols;
    m->n = matC->cols;
    int64_t bb = dn_bytes(matB), cb = dn_bytes(matC);
    if (sp_scal_take(&m->j, handle, alpha, computeType, &m->alpha) ||
        sp_scal_take(&m->j, handle, beta, computeType, &m->beta) || bb < 0 || cb < 0 ||
        (bb && hl_job_hold(&m->j, matB->values, (size_t)bb)) || (cb && hl_job_hold(&m->j, matC->values, (size_t)cb))) {
        hl_job_free(&m->j);
        return CUSPARSE_STATUS_INVALID_VALUE;
    }
    r = sp_take_matrix(&m->j, handle, matA, &m->a, 0);
    if (r) {
        hl_job_free(&m->j);
        return r;
    }
    m->conj = opA == CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE && sp_is_complex(matA->vtype);
    m->trans = matA->format == CUSPARSE_FORMAT_CSC ? !ta : ta;
    if (!(m->buf = scratch(m->k + matC->rows))) {
        hl_job_free(&m->j);
        return CUSPARSE_STATUS_ALLOC_FAILED;
    }
    hl_note("host loops (SpMM in complex double)");
    return sp_submit(handle, &m->j, 0);
}

/* ---- Scatter and Gather ------------------------------------------------- */
struct sv_job {
    struct hl_job j;
    struct cusparseSpVecDescr x;
    struct cusparseDnVecDescr y;
    int gather;
};

static void sv_run(struct hl_job *j)
{
    struct sv_job *s = (struct sv_job *)j;
    int64_t base = s->x.base == CUSPARSE_INDEX_BASE_ONE;
    for (int64_t k = 0; k < s->x.nnz; k++) {
        int64_t i = sp_idx(s->x.itype, s->x.indices, k) - base;
        if (i < 0 || i >= s->y.size)
            continue;
        if (s->gather)
            sp_st(s->x.vtype, s->x.values, k, sp_ld(s->y.vtype, s->y.values, i));
        else
            sp_st(s->y.vtype, s->y.values, i, sp_ld(s->x.vtype, s->x.values, k));
    }
}

static cusparseStatus_t scatter_gather(cusparseHandle_t h, const struct cusparseSpVecDescr *x,
                                       const struct cusparseDnVecDescr *y, int gather)
{
    cusparseStatus_t r = sp_handle(h);
    if (r)
        return r;
    if (!sp_live(x, SP_SPVEC) || !sp_live(y, SP_DNVEC) || x->size != y->size)
        return CUSPARSE_STATUS_INVALID_VALUE;
    size_t vs = sp_vsize(x->vtype), is = sp_isize(x->itype);
    if (x->vtype != y->vtype || !vs || !is)
        return CUSPARSE_STATUS_NOT_SUPPORTED;
    struct sv_job *s = hl_job_new(sizeof *s, sv_run);
    if (!s)
        return CUSPARSE_STATUS_ALLOC_FAILED;
    s->x = *x, s->y = *y, s->gather = gather;
    if ((x->nnz && (hl_job_hold(&s->j, x->indices, (size_t)x->nnz * is) ||
                    hl_job_hold(&s->j, x->values, (size_t)x->nnz * vs))) ||
        sp_take_vec(&s->j, y)) {
        hl_job_free(&s->j);
        return CUSPARSE_STATUS_INVALID_VALUE;
    }
    if ((r = sp_sync(h))) {
        hl_job_free(&s->j);
        return r;
    }
    int64_t base = x->base == CUSPARSE_INDEX_BASE_ONE;
    for (int64_t k = 0; k < x->nnz; k++) {
        int64_t i = sp_idx(x->itype, x->indices, k) - base;
        if (i < 0 || i >= y->size) {
            hl_job_free(&s->j);
            return CUSPARSE_STATUS_INVALID_VALUE;
        }
    }
    hl_note(gather ? "host loop (gather)" : "host loop (scatter)");
    return sp_submit(h, &s->j, 0);
}

HL_EXPORT cusparseStatus_t cusparseScatter(cusparseHandle_t handle, cusparseConstSpVecDescr_t vecX,
                                           cusparseDnVecDescr_t vecY)
{
    return scatter_gather(handle, vecX, vecY, 0);
}

HL_EXPORT cusparseStatus_t cusparseGather(cusparseHandle_t handle, cusparseConstDnVecDescr_t vecY,
                                          cusparseSpVecDescr_t vecX)
{
    return scatter_gather(handle, vecX, vecY, 1);
}
