/* SPDX-License-Identifier: Apache-2.0 */
/* The legacy incomplete factorisations of a CSR matrix with sorted column
 * indices, in place: csrilu02 (ILU(0): L unit lower and U upper on A's
 * pattern) and csric02 (IC(0): L lower on the pattern of A's lower
 * triangle, A = L L^H approximately; the upper triangle is left as it
 * was). In S, D, C, Z; computed in double (complex double) row by row,
 * each element rounded once when it is written back.
 *
 * The analysis finds the first row without a diagonal element (a
 * structural zero); the factorisation the first zero pivot, structural or
 * numerical (for csric02: a diagonal that is not positive before its
 * square root). cusparseX...zeroPivot waits for the handle's stream and
 * reports the last factorisation's (the analysis's when no factorisation
 * ran since), in the matrix's index base. */
#include "sparse.h"

#include <math.h>
#include <stdlib.h>

struct csrilu02Info { struct sp_fact_info f; };
struct csric02Info { struct sp_fact_info f; };

void sp_info_put(struct sp_fact_info *f)
{
    if (atomic_fetch_sub(&f->refs, 1) == 1)
        free(f);
}

static cusparseStatus_t info_new(void **out, int kind)
{
    if (!out)
        return CUSPARSE_STATUS_INVALID_VALUE;
    /* both info structs are one sp_fact_info */
    struct sp_fact_info *f = hl_handle_new(sizeof *f, kind);
    if (!f)
        return CUSPARSE_STATUS_ALLOC_FAILED;
    atomic_init(&f->refs, 1);
    atomic_init(&f->structural, -1);
    atomic_init(&f->numeric, -1);
    *out = f;
    return CUSPARSE_STATUS_SUCCESS;
}

static cusparseStatus_t info_destroy(void *info, int kind)
{
    if (!info)
        return CUSPARSE_STATUS_SUCCESS;
    if (!hl_handle_remove(info, kind))
        return CUSPARSE_STATUS_INVALID_VALUE;
    sp_info_put(info);   /* queued jobs hold their own references */
    return CUSPARSE_STATUS_SUCCESS;
}

HL_EXPORT cusparseStatus_t cusparseCreateCsrilu02Info(csrilu02Info_t *info)
{
    return info_new((void **)info, SP_ILU);
}

HL_EXPORT cusparseStatus_t cusparseDestroyCsrilu02Info(csrilu02Info_t info)
{
    return info_destroy(info, SP_ILU);
}

HL_EXPORT cusparseStatus_t cusparseCreateCsric02Info(csric02Info_t *info)
{
    return info_new((void **)info, SP_IC);
}

HL_EXPORT cusparseStatus_t cusparseDestroyCsric02Info(csric02Info_t info)
{
    return info_destroy(info, SP_IC);
}

/* ---- the factorisation job -------------------------------------------- */
struct fact_job {
    struct hl_job j;
    struct sp_csr a;
    int ic, analysis;
    struct sp_fact_info *info;
    int64_t *pos;    /* column -> entry of the current row, or -1 */
    int64_t *diag;   /* row -> its diagonal entry, or -1 */
    sp_c *row;       /* the current row's values in double */
};

static void fact_fini(struct hl_job *j)
{
    struct fact_job *f = (struct fact_job *)j;
    free(f->pos);
    if (f->info)
        sp_info_put(f->info);
}

static int64_t col_of(const struct sp_csr *a, int64_t k)
{
    return sp_idx(a->itype, a->idx, k) - a->base;
}

static int range(const struct sp_csr *a, int64_t r, int64_t *k0, int64_t *k1)
{
    *k0 = sp_idx(a->otype, a->off, r) - a->base;
    *k1 = sp_idx(a->otype, a->off, r + 1) - a->base;
    return *k0 >= 0 && *k1 <= a->nnz && *k0 <= *k1;
}

static void fact_run(struct hl_job *j)
{
    struct fact_job *f = (struct fact_job *)j;
    const struct sp_csr *a = &f->a;
    int64_t n = a->outer, zero = -1;
    for (int64_t r = 0; r < n; r++) {
        int64_t k0, k1;
        f->diag[r] = -1;
        f->pos[r] = -1;
        if (range(a, r, &k0, &k1))
            for (int64_t k = k0; k < k1; k++)
                if (col_of(a, k) == r)
                    f->diag[r] = k;
        if (f->diag[r] < 0 && zero < 0)
            zero = r;
    }
    if (f->analysis) {
        atomic_store(&f->info->structural, (int)zero);
        atomic_store(&f->info->numeric, -1);
        return;
    }
    zero = -1;
    for (int64_t i = 0; i < n; i++) {
        int64_t k0, k1;
        if (!range(a, i, &k0, &k1) || k1 - k0 > n)
            continue;   /* changed since it was validated (row holds n at most) */
        for (int64_t k = k0; k < k1; k++) {
            int64_t c = col_of(a, k);
            f->row[k - k0] = sp_ld(a->vtype, a->val, k);
            if (c >= 0 && c < n)
                f->pos[c] = k;
        }
        /* entries left of the diagonal, in column order */
        sp_c sq = { 0, 0 };   /* IC: sum of |l_ik|^2 */
        for (int64_t k = k0; k < k1; k++) {
            int64_t jc = col_of(a, k), j0, j1;
            if (jc < 0 || jc >= i)
                continue;
            if (f->diag[jc] < 0 || !range(a, jc, &j0, &j1))
                continue;   /* a structural zero: reported, nothing to divide by */
            sp_c v = f->row[k - k0];
            if (!f->ic) {
                /* l_ij = a_ij / u_jj, then row i -= l_ij * (row j right of its diagonal) */
                v = sp_div(v, sp_ld(a->vtype, a->val, f->diag[jc]));
                for (int64_t q = f->diag[jc] + 1; q < j1; q++) {
                    int64_t c = col_of(a, q);
                    if (c > jc && c < n && f->pos[c] >= k0 && f->pos[c] < k1) {
                        sp_c p = sp_mul(v, sp_ld(a->vtype, a->val, q));
                        sp_c *t = &f->row[f->pos[c] - k0];
                        *t = (sp_c){ t->re - p.re, t->im - p.im };
                    }
                }
            } else {
                /* l_ij = (a_ij - sum_{c<j} l_ic conj(l_jc)) / l_jj */
                for (int64_t q = j0; q < j1; q++) {
                    int64_t c = col_of(a, q);
                    if (c >= 0 && c < jc && f->pos[c] >= k0 && f->pos[c] < k1) {
                        sp_c p = sp_mul(f->row[f->pos[c] - k0], sp_conj(sp_ld(a->vtype, a->val, q)));
                        v = (sp_c){ v.re - p.re, v.im - p.im };
                    }
                }
                v = sp_div(v, sp_ld(a->vtype, a->val, f->diag[jc]));
                sq.re += v.re * v.re + v.im * v.im;
            }
            f->row[k - k0] = v;
            sp_st(a->vtype, a->val, k, v);   /* read by later rows of this one */
        }
        int64_t dk = f->diag[i];
        if (dk >= 0) {
            sp_c d = f->row[dk - k0];
            if (f->ic) {
                double s = d.re - sq.re;
                if (!(s > 0) && zero < 0)
                    zero = i;
                d = (sp_c){ sqrt(s), 0 };
            } else if (d.re == 0 && d.im == 0 && zero < 0) {
                zero = i;
            }
            f->row[dk - k0] = d;
        } else if (zero < 0) {
            zero = i;
        }
        for (int64_t k = k0; k < k1; k++) {
            int64_t c = col_of(a, k);
            if (c >= i && (!f->ic || c == i))
                sp_st(a->vtype, a->val, k, f->row[k - k0]);
            if (c >= 0 && c < n)
                f->pos[c] = -1;
        }
    }
    atomic_store(&f->info->numeric, (int)zero);
}

/* what bufferSize, analysis and the factorisation check, in that order */
static cusparseStatus_t fact_check(cusparseHandle_t h, int m, int nnz, const struct cusparseMatDescr *d, void *info,
                                   int kind)
{
    cusparseStatus_t r = sp_handle(h);
    if (r)
        return r;
    if (m < 0 || nnz < 0 || !sp_live(d, SP_MATDESCR) || !sp_live(info, kind))
        return CUSPARSE_STATUS_INVALID_VALUE;
    if (d->type != CUSPARSE_MATRIX_TYPE_GENERAL)
        return CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED;
    return CUSPARSE_STATUS_SUCCESS;
}

static cusparseStatus_t fact_size(cusparseHandle_t h, int m, int nnz, const struct cusparseMatDescr *d, void *info,
                                  int kind, int *size)
{
    cusparseStatus_t r = fact_check(h, m, nnz, d, info, kind);
    if (r)
        return r;
    if (!size)
        return CUSPARSE_STATUS_INVALID_VALUE;
    *size = 0;   /* the work needs none */
    return CUSPARSE_STATUS_SUCCESS;
}

static cusparseStatus_t fact(cusparseHandle_t h, int m, int nnz, const struct cusparseMatDescr *d, const void *val,
                             cudaDataType vt, const int *rowptr, const int *colind, void *info, int kind,
                             cusparseSolvePolicy_t policy, int analysis)
{
    cusparseStatus_t r = fact_check(h, m, nnz, d, info, kind);
    if (r)
        return r;
    if (policy != CUSPARSE_SOLVE_POLICY_NO_LEVEL && policy != CUSPARSE_SOLVE_POLICY_USE_LEVEL)
        return CUSPARSE_STATUS_INVALID_VALUE;
    struct sp_fact_info *fi = info;
    if (!analysis && !fi->analysed)
        return CUSPARSE_STATUS_INVALID_VALUE;   /* the analysis first, as documented */
    struct fact_job *f = hl_job_new(sizeof *f, fact_run);
    if (!f)
        return CUSPARSE_STATUS_ALLOC_FAILED;
    f->j.fini = fact_fini;
    f->ic = kind == SP_IC;
    f->analysis = analysis;
    if ((r = sp_take_legacy(&f->j, h, m, m, nnz, d, val, sp_vsize(vt), rowptr, colind, 1))) {
        hl_job_free(&f->j);
        return r;
    }
    f->a = (struct sp_csr){
        .outer = m, .inner = m, .nnz = nnz, .off = rowptr, .idx = colind, .val = (void *)(uintptr_t)val,
        .otype = CUSPARSE_INDEX_32I, .itype = CUSPARSE_INDEX_32I, .base = d->base == CUSPARSE_INDEX_BASE_ONE,
        .vtype = vt,
    };
    /* pos and diag (m each), the row (at most m entries: sorted, distinct) */
    size_t mm = (size_t)(m ? m : 1);
    f->pos = malloc(mm * (2 * sizeof(int64_t) + sizeof(sp_c)));
    if (!f->pos) {
        hl_job_free(&f->j);
        return CUSPARSE_STATUS_ALLOC_FAILED;
    }
    f->diag = f->pos + mm;
    f->row = (sp_c *)(void *)(f->diag + mm);
    atomic_fetch_add(&fi->refs, 1);
    f->info = fi;
    fi->analysed = 1;
    fi->base = d->base == CUSPARSE_INDEX_BASE_ONE;
    hl_note(f->ic ? "host loops (incomplete Cholesky)" : "host loops (incomplete LU)");
    return sp_submit(h, &f->j, 0);
}

static cusparseStatus_t zero_pivot(cusparseHandle_t h, void *info, int kind, int *position)
{
    cusparseStatus_t r = sp_handle(h);
    if (r)
        return r;
    if (!sp_live(info, kind) || !position)
        return CUSPARSE_STATUS_INVALID_VALUE;
    struct hl_job *j = NULL;
    if (h->pointer_mode == CUSPARSE_POINTER_MODE_DEVICE) {
        j = hl_job_new(sizeof *j, NULL);
        if (!j)
            return CUSPARSE_STATUS_ALLOC_FAILED;
        if (hl_job_hold(j, position, sizeof *position)) {
            hl_job_free(j);
            return CUSPARSE_STATUS_INVALID_VALUE;
        }
    }
    if ((r = sp_sync(h))) {
        hl_job_free(j);
        return r;
    }
    struct sp_fact_info *f = info;
    int z = atomic_load(&f->numeric);
    if (z < 0)
        z = atomic_load(&f->structural);
    *position = z < 0 ? -1 : z + f->base;
    hl_job_free(j);
    return z < 0 ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_ZERO_PIVOT;
}

HL_EXPORT cusparseStatus_t cusparseXcsrilu02_zeroPivot(cusparseHandle_t handle, csrilu02Info_t info, int *position)
{
    return zero_pivot(handle, info, SP_ILU, position);
}

HL_EXPORT cusparseStatus_t cusparseXcsric02_zeroPivot(cusparseHandle_t handle, csric02Info_t info, int *position)
{
    return zero_pivot(handle, info, SP_IC, position);
}

#define FACT_FNS(P, T, VT, FN, INFO, KIND)                                                                        \
    HL_EXPORT cusparseStatus_t cusparse##P##FN##_bufferSize(cusparseHandle_t handle, int m, int nnz,             \
                                                            const cusparseMatDescr_t descrA, T *csrVal,          \
                                                            const int *csrRowPtr, const int *csrColInd,          \
                                                            INFO info, int *pBufferSizeInBytes)                  \
    {                                                                                                           \
        (void)csrVal, (void)csrRowPtr, (void)csrColInd;                                                         \
        return fact_size(handle, m, nnz, descrA, info, KIND, pBufferSizeInBytes);                               \
    }                                                                                                           \
    HL_EXPORT cusparseStatus_t cusparse##P##FN##_analysis(cusparseHandle_t handle, int m, int nnz,               \
                                                          const cusparseMatDescr_t descrA, const T *csrVal,      \
                                                          const int *csrRowPtr, const int *csrColInd, INFO info, \
                                                          cusparseSolvePolicy_t policy, void *pBuffer)           \
    {                                                                                                           \
        (void)pBuffer;                                                                                          \
        return fact(handle, m, nnz, descrA, csrVal, VT, csrRowPtr, csrColInd, info, KIND, policy, 1);          \
    }                                                                                                           \
    HL_EXPORT cusparseStatus_t cusparse##P##FN(cusparseHandle_t handle, int m, int nnz,                          \
                                               const cusparseMatDescr_t descrA, T *csrVal, const int *csrRowPtr, \
                                               const int *csrColInd, INFO info, cusparseSolvePolicy_t policy,   \
                                               void *pBuffer)                                                   \
    {                                                                                                           \
        (void)pBuffer;                                                                                          \
        return fact(handle, m, nnz, descrA, csrVal, VT, csrRowPtr, csrColInd, info, KIND, policy, 0);          \
    }
FACT_FNS(S, float, CUDA_R_32F, csrilu02, csrilu02Info_t, SP_ILU)
FACT_FNS(D, double, CUDA_R_64F, csrilu02, csrilu02Info_t, SP_ILU)
FACT_FNS(C, cuComplex, CUDA_C_32F, csrilu02, csrilu02Info_t, SP_ILU)
FACT_FNS(Z, cuDoubleComplex, CUDA_C_64F, csrilu02, csrilu02Info_t, SP_ILU)
FACT_FNS(S, float, CUDA_R_32F, csric02, csric02Info_t, SP_IC)
FACT_FNS(D, double, CUDA_R_64F, csric02, csric02Info_t, SP_IC)
FACT_FNS(C, cuComplex, CUDA_C_32F, csric02, csric02Info_t, SP_IC)
FACT_FNS(Z, cuDoubleComplex, CUDA_C_64F, csric02, csric02Info_t, SP_IC)
