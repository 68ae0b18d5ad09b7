/* SPDX-License-Identifier: Apache-2.0 */
/* SpSV: y = alpha op(A)^-1 x for a square CSR matrix, using the triangle
 * its fill mode names (the other one is ignored, as cuSPARSE documents)
 * and its diagonal, or ones for CUSPARSE_DIAG_TYPE_UNIT. Solved in double
 * (complex double) in a scratch vector, so x and y may be the same
 * vector, and rounded once into y. A missing or zero diagonal element
 * divides by zero, as on a GPU. */
#include "sparse.h"

#include <stdlib.h>

HL_EXPORT cusparseStatus_t cusparseSpSV_createDescr(cusparseSpSVDescr_t *descr)
{
    if (!descr)
        return CUSPARSE_STATUS_INVALID_VALUE;
    struct cusparseSpSVDescr *d = hl_handle_new(sizeof *d, SP_SPSV);
    if (!d)
        return CUSPARSE_STATUS_ALLOC_FAILED;
    *descr = d;
    return CUSPARSE_STATUS_SUCCESS;
}

HL_EXPORT cusparseStatus_t cusparseSpSV_destroyDescr(cusparseSpSVDescr_t descr)
{
    if (!descr)
        return CUSPARSE_STATUS_SUCCESS;
    if (!hl_handle_free(descr, SP_SPSV))
        return CUSPARSE_STATUS_INVALID_VALUE;
    return CUSPARSE_STATUS_SUCCESS;
}

static cusparseStatus_t sv_check(cusparseHandle_t h, cusparseOperation_t op, const void *alpha,
                                 const struct cusparseSpMatDescr *A, const struct cusparseDnVecDescr *x,
                                 const struct cusparseDnVecDescr *y, cudaDataType ct, cusparseSpSVAlg_t alg,
                                 const struct cusparseSpSVDescr *d)
{
    cusparseStatus_t r = sp_handle(h);
    if (r)
        return r;
    if (!alpha || !sp_live(A, SP_SPMAT) || !sp_live(x, SP_DNVEC) || !sp_live(y, SP_DNVEC) || !sp_live(d, SP_SPSV) ||
        alg != CUSPARSE_SPSV_ALG_DEFAULT ||
        (op != CUSPARSE_OPERATION_NON_TRANSPOSE && op != CUSPARSE_OPERATION_TRANSPOSE &&
         op != CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE))
        return CUSPARSE_STATUS_INVALID_VALUE;
    if (A->rows != A->cols || x->size != A->rows || y->size != A->rows)
        return CUSPARSE_STATUS_INVALID_VALUE;
    if (A->format != CUSPARSE_FORMAT_CSR || !sp_isize(A->otype) || !sp_isize(A->itype))
        return CUSPARSE_STATUS_NOT_SUPPORTED;
    return sp_types(A->vtype, x->vtype, y->vtype, ct, 1);
}

HL_EXPORT cusparseStatus_t cusparseSpSV_bufferSize(cusparseHandle_t handle, cusparseOperation_t opA, const void *alpha,
                                                   cusparseConstSpMatDescr_t matA, cusparseConstDnVecDescr_t vecX,
                                                   cusparseDnVecDescr_t vecY, cudaDataType computeType,
                                                   cusparseSpSVAlg_t alg, cusparseSpSVDescr_t spsvDescr,
                                                   size_t *bufferSize)
{
    cusparseStatus_t r = sv_check(handle, opA, alpha, matA, vecX, vecY, computeType, alg, spsvDescr);
    if (r)
        return r;
    if (!bufferSize)
        return CUSPARSE_STATUS_INVALID_VALUE;
    *bufferSize = 0;
    return CUSPARSE_STATUS_SUCCESS;
}

/* the analysis validates the matrix's arrays now (the stream is waited
 * for); the solve needs nothing it could keep */
HL_EXPORT cusparseStatus_t cusparseSpSV_analysis(cusparseHandle_t handle, cusparseOperation_t opA, const void *alpha,
                                                 cusparseConstSpMatDescr_t matA, cusparseConstDnVecDescr_t vecX,
                                                 cusparseDnVecDescr_t vecY, cudaDataType computeType,
                                                 cusparseSpSVAlg_t alg, cusparseSpSVDescr_t spsvDescr,
                                                 void *externalBuffer)
{
    (void)externalBuffer;
    cusparseStatus_t r = sv_check(handle, opA, alpha, matA, vecX, vecY, computeType, alg, spsvDescr);
    if (r)
        return r;
    struct hl_job *j = hl_job_new(sizeof *j, NULL);
    if (!j)
        return CUSPARSE_STATUS_ALLOC_FAILED;
    struct sp_csr c;
    r = sp_take_matrix(j, handle, matA, &c, 0);
    hl_job_free(j);
    if (r)
        return r;
    spsvDescr->analysed = 1;
    return CUSPARSE_STATUS_SUCCESS;
}

struct sv_job {
    struct hl_job j;
    struct sp_csr a;
    int upper, unit, trans, conj;
    const void *x;
    void *y;
    cudaDataType xt, yt, ct;
    struct sp_scal alpha;
    sp_c *z, *d;   /* the solution in progress; the diagonal */
};

static void sv_fini(struct hl_job *j)
{
    free(((struct sv_job *)j)->z);
}

/* row r's entries [*k0, *k1), or 0 if they are not valid any more */
static int row(const struct sp_csr *a, int64_t r, int64_t *k0, int64_t *k1)
{
    *k0 = sp_idx(a->otype, a->off, r) - a->base;
    *k1 = sp_idx(a->otype, a->off, r + 1) - a->base;
    return *k0 >= 0 && *k1 <= a->nnz && *k0 <= *k1;
}

static void sv_run(struct hl_job *jb)
{
    struct sv_job *s = (struct sv_job *)jb;
    const struct sp_csr *a = &s->a;
    int64_t n = a->outer;
    sp_c alpha = sp_scal_get(&s->alpha, s->ct), *z = s->z, *d = s->d;
    for (int64_t i = 0; i < n; i++) {
        z[i] = sp_mul(alpha, sp_ld(s->xt, s->x, i));
        d[i] = (sp_c){ s->unit ? 1 : 0, 0 };
    }
    if (!s->unit)
        for (int64_t r = 0; r < n; r++) {
            int64_t k0, k1;
            if (row(a, r, &k0, &k1))
                for (int64_t k = k0; k < k1; k++)
                    if (sp_idx(a->itype, a->idx, k) - a->base == r)
                        d[r] = s->conj ? sp_conj(sp_ld(a->vtype, a->val, k)) : sp_ld(a->vtype, a->val, k);
        }
    /* op N: rows in the triangle's order, each taking the solved ones;
     * op T: rows in the opposite order, each giving to the unsolved ones */
    int forward = s->upper == s->trans;
    for (int64_t t = 0; t < n; t++) {
        int64_t r = forward ? t : n - 1 - t, k0, k1;
        int ok = row(a, r, &k0, &k1);
        if (!s->trans && ok)
            for (int64_t k = k0; k < k1; k++) {
                int64_t c = sp_idx(a->itype, a->idx, k) - a->base;
                if (c >= 0 && c < n && (s->upper ? c > r : c < r)) {
                    sp_c v = sp_mul(sp_ld(a->vtype, a->val, k), z[c]);
                    z[r] = (sp_c){ z[r].re - v.re, z[r].im - v.im };
                }
            }
        z[r] = sp_div(z[r], d[r]);
        if (s->trans && ok)
            for (int64_t k = k0; k < k1; k++) {
                int64_t c = sp_idx(a->itype, a->idx, k) - a->base;
                if (c >= 0 && c < n && (s->upper ? c > r : c < r)) {
                    sp_c av = sp_ld(a->vtype, a->val, k);
                    sp_c v = sp_mul(s->conj ? sp_conj(av) : av, z[r]);
                    z[c] = (sp_c){ z[c].re - v.re, z[c].im - v.im };
                }
            }
    }
    for (int64_t i = 0; i < n; i++)
        sp_st(s->yt, s->y, i, z[i]);
}

HL_EXPORT cusparseStatus_t cusparseSpSV_solve(cusparseHandle_t handle, cusparseOperation_t opA, const void *alpha,
                                              cusparseConstSpMatDescr_t matA, cusparseConstDnVecDescr_t vecX,
                                              cusparseDnVecDescr_t vecY, cudaDataType computeType,
                                              cusparseSpSVAlg_t alg, cusparseSpSVDescr_t spsvDescr)
{
    cusparseStatus_t r = sv_check(handle, opA, alpha, matA, vecX, vecY, computeType, alg, spsvDescr);
    if (r)
        return r;
    if (!spsvDescr->analysed)
        return CUSPARSE_STATUS_INVALID_VALUE;   /* cusparseSpSV_analysis first */
    struct sv_job *s = hl_job_new(sizeof *s, sv_run);
    if (!s)
        return CUSPARSE_STATUS_ALLOC_FAILED;
    s->j.fini = sv_fini;
    s->x = vecX->values, s->y = vecY->values;
    s->xt = vecX->vtype, s->yt = vecY->vtype, s->ct = computeType;
    s->upper = matA->fill == CUSPARSE_FILL_MODE_UPPER;
    s->unit = matA->diag == CUSPARSE_DIAG_TYPE_UNIT;
    s->trans = opA != CUSPARSE_OPERATION_NON_TRANSPOSE;
    s->conj = opA == CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE && sp_is_complex(matA->vtype);
    if (sp_scal_take(&s->j, handle, alpha, computeType, &s->alpha) || sp_take_vec(&s->j, vecX) ||
        sp_take_vec(&s->j, vecY)) {
        hl_job_free(&s->j);
        return CUSPARSE_STATUS_INVALID_VALUE;
    }
    if ((r = sp_take_matrix(&s->j, handle, matA, &s->a, 0))) {
        hl_job_free(&s->j);
        return r;
    }
    int64_t n = matA->rows;
    if ((uint64_t)n > SIZE_MAX / sizeof(sp_c) / 4 || !(s->z = malloc((size_t)(n ? 2 * n : 1) * sizeof(sp_c)))) {
        hl_job_free(&s->j);
        return CUSPARSE_STATUS_ALLOC_FAILED;
    }
    s->d = s->z + n;
    hl_note("host loops (triangular solve in complex double)");
    return sp_submit(handle, &s->j, 0);
}
