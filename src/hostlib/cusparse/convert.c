/* SPDX-License-Identifier: Apache-2.0 */
/* Format conversions: COO row indices to CSR row offsets and back
 * (cusparseXcoo2csr, cusparseXcsr2coo), and CSR to CSC (cusparseCsr2cscEx2:
 * a stable counting sort by column, so each column's rows come out in
 * increasing order; values copied byte for byte, whatever their type).
 * The input indices are validated once the stream has reached the call,
 * as everywhere in this library (sparse.h). */
#include "sparse.h"

#include <stdlib.h>
#include <string.h>

/* bytes of one element of any cudaDataType (0: not a type) */
static size_t any_size(cudaDataType t)
{
    switch (t) {
    case CUDA_R_8I: case CUDA_R_8U: return 1;
    case CUDA_C_8I: case CUDA_C_8U: case CUDA_R_16F: case CUDA_R_16BF: return 2;
    case CUDA_C_16F: case CUDA_C_16BF: case CUDA_R_32F: case CUDA_R_32I: case CUDA_R_32U: return 4;
    case CUDA_C_32F: case CUDA_C_32I: case CUDA_C_32U: case CUDA_R_64F: return 8;
    case CUDA_C_64F: return 16;
    }
    return 0;
}

static int hold_n(struct hl_job *j, const void *p, int64_t n, size_t elem)
{
    return n > 0 ? hl_job_hold(j, p, (size_t)n * elem) : 0;
}

/* ---- COO <-> CSR row indices ------------------------------------------- */
struct rows_job {
    struct hl_job j;
    const int *in;
    int *out;
    int nnz, m, base, to_csr;
};

static void rows_run(struct hl_job *jb)
{
    struct rows_job *r = (struct rows_job *)jb;
    if (r->to_csr) {
        /* counts per row, then their running sum from the base */
        for (int i = 0; i <= r->m; i++)
            r->out[i] = 0;
        for (int k = 0; k < r->nnz; k++) {
            int64_t i = (int64_t)r->in[k] - r->base;
            if (i >= 0 && i < r->m)
                r->out[i + 1]++;
        }
        r->out[0] = r->base;
        for (int i = 0; i < r->m; i++)
            r->out[i + 1] += r->out[i];
    } else {
        for (int i = 0; i < r->m; i++) {
            int64_t a = (int64_t)r->in[i] - r->base, b = (int64_t)r->in[i + 1] - r->base;
            for (int64_t k = a < 0 ? 0 : a; k < b && k < r->nnz; k++)
                r->out[k] = i + r->base;
        }
    }
}

static cusparseStatus_t rows(cusparseHandle_t h, const int *in, int nnz, int m, int *out, cusparseIndexBase_t base,
                             int to_csr)
{
    cusparseStatus_t st = sp_handle(h);
    if (st)
        return st;
    if (nnz < 0 || m < 0 || (base != CUSPARSE_INDEX_BASE_ZERO && base != CUSPARSE_INDEX_BASE_ONE))
        return CUSPARSE_STATUS_INVALID_VALUE;
    struct rows_job *r = hl_job_new(sizeof *r, rows_run);
    if (!r)
        return CUSPARSE_STATUS_ALLOC_FAILED;
    r->in = in, r->out = out, r->nnz = nnz, r->m = m, r->base = (int)base, r->to_csr = to_csr;
    int64_t nin = to_csr ? nnz : (int64_t)m + 1, nout = to_csr ? (int64_t)m + 1 : nnz;
    if (hold_n(&r->j, in, nin, 4) || hold_n(&r->j, out, nout, 4)) {
        hl_job_free(&r->j);
        return CUSPARSE_STATUS_INVALID_VALUE;
    }
    if ((st = sp_sync(h))) {
        hl_job_free(&r->j);
        return st;
    }
    int ok = 1;
    if (to_csr) {
        for (int k = 0; k < nnz && ok; k++)
            ok = (int64_t)in[k] - base >= 0 && (int64_t)in[k] - base < m;
    } else {
        ok = in[0] == (int)base && (int64_t)in[m] == (int64_t)nnz + base;
        for (int i = 0; i < m && ok; i++)
            ok = in[i] <= in[i + 1];
    }
    if (!ok) {
        hl_job_free(&r->j);
        return CUSPARSE_STATUS_INVALID_VALUE;
    }
    hl_note(to_csr ? "host loop (coo2csr)" : "host loop (csr2coo)");
    return sp_submit(h, &r->j, 0);
}

HL_EXPORT cusparseStatus_t cusparseXcoo2csr(cusparseHandle_t handle, const int *cooRowInd, int nnz, int m,
                                            int *csrSortedRowPtr, cusparseIndexBase_t idxBase)
{
    return rows(handle, cooRowInd, nnz, m, csrSortedRowPtr, idxBase, 1);
}

HL_EXPORT cusparseStatus_t cusparseXcsr2coo(cusparseHandle_t handle, const int *csrSortedRowPtr, int nnz, int m,
                                            int *cooRowInd, cusparseIndexBase_t idxBase)
{
    return rows(handle, csrSortedRowPtr, nnz, m, cooRowInd, idxBase, 0);
}

/* ---- CSR to CSC ------------------------------------------------------------ */
struct t_job {
    struct hl_job j;
    struct sp_csr a;        /* the CSR input */
    void *cval;
    int *cptr, *crow;
    size_t vs;              /* 0: symbolic */
    int64_t *next;          /* n + 1: the next free slot of each column */
};

static void t_fini(struct hl_job *j)
{
    free(((struct t_job *)j)->next);
}

static void t_run(struct hl_job *jb)
{
    struct t_job *t = (struct t_job *)jb;
    const struct sp_csr *a = &t->a;
    const int *off = a->off, *idx = a->idx;
    int64_t m = a->outer, n = a->inner, base = a->base, nnz = a->nnz;
    for (int64_t c = 0; c <= n; c++)
        t->next[c] = 0;
    for (int64_t k = 0; k < nnz; k++) {
        int64_t c = (int64_t)idx[k] - base;
        if (c >= 0 && c < n)
            t->next[c + 1]++;
    }
    for (int64_t c = 0; c < n; c++)
        t->next[c + 1] += t->next[c];
    for (int64_t c = 0; c <= n; c++)
        t->cptr[c] = (int)(t->next[c] + base);
    for (int64_t r = 0; r < m; r++) {
        int64_t k0 = (int64_t)off[r] - base, k1 = (int64_t)off[r + 1] - base;
        for (int64_t k = k0 < 0 ? 0 : k0; k < k1 && k < nnz; k++) {
            int64_t c = (int64_t)idx[k] - base;
            if (c < 0 || c >= n)
                continue;
            int64_t q = t->next[c]++;
            if (q >= nnz)
                continue;
            t->crow[q] = (int)(r + base);
            if (t->vs)
                memcpy((char *)t->cval + (size_t)q * t->vs, (const char *)a->val + (size_t)k * t->vs, t->vs);
        }
    }
}

static cusparseStatus_t t_check(cusparseHandle_t h, int m, int n, int nnz, cudaDataType vt, cusparseAction_t act,
                                cusparseIndexBase_t base, cusparseCsr2CscAlg_t alg)
{
    cusparseStatus_t st = sp_handle(h);
    if (st)
        return st;
    if (m < 0 || n < 0 || nnz < 0 || (act != CUSPARSE_ACTION_SYMBOLIC && act != CUSPARSE_ACTION_NUMERIC) ||
        (base != CUSPARSE_INDEX_BASE_ZERO && base != CUSPARSE_INDEX_BASE_ONE) || alg != CUSPARSE_CSR2CSC_ALG_DEFAULT ||
        !any_size(vt))
        return CUSPARSE_STATUS_INVALID_VALUE;
    return CUSPARSE_STATUS_SUCCESS;
}

HL_EXPORT cusparseStatus_t cusparseCsr2cscEx2_bufferSize(cusparseHandle_t handle, int m, int n, int nnz,
                                                         const void *csrVal, const int *csrRowPtr,
                                                         const int *csrColInd, void *cscVal, int *cscColPtr,
                                                         int *cscRowInd, cudaDataType valType,
                                                         cusparseAction_t copyValues, cusparseIndexBase_t idxBase,
                                                         cusparseCsr2CscAlg_t alg, size_t *bufferSize)
{
    (void)csrVal, (void)csrRowPtr, (void)csrColInd, (void)cscVal, (void)cscColPtr, (void)cscRowInd;
    cusparseStatus_t st = t_check(handle, m, n, nnz, valType, copyValues, idxBase, alg);
    if (st)
        return st;
    if (!bufferSize)
        return CUSPARSE_STATUS_INVALID_VALUE;
    *bufferSize = 0;   /* the work needs none */
    return CUSPARSE_STATUS_SUCCESS;
}

HL_EXPORT cusparseStatus_t cusparseCsr2cscEx2(cusparseHandle_t handle, int m, int n, int nnz, const void *csrVal,
                                              const int *csrRowPtr, const int *csrColInd, void *cscVal,
                                              int *cscColPtr, int *cscRowInd, cudaDataType valType,
                                              cusparseAction_t copyValues, cusparseIndexBase_t idxBase,
                                              cusparseCsr2CscAlg_t alg, void *buffer)
{
    (void)buffer;
    cusparseStatus_t st = t_check(handle, m, n, nnz, valType, copyValues, idxBase, alg);
    if (st)
        return st;
    struct t_job *t = hl_job_new(sizeof *t, t_run);
    if (!t)
        return CUSPARSE_STATUS_ALLOC_FAILED;
    t->j.fini = t_fini;
    t->vs = copyValues == CUSPARSE_ACTION_NUMERIC ? any_size(valType) : 0;
    t->cval = cscVal, t->cptr = cscColPtr, t->crow = cscRowInd;
    if ((t->vs && (hold_n(&t->j, cscVal, nnz, t->vs) || hold_n(&t->j, csrVal, nnz, t->vs))) ||
        hold_n(&t->j, cscColPtr, (int64_t)n + 1, 4) || hold_n(&t->j, cscRowInd, nnz, 4)) {
        hl_job_free(&t->j);
        return CUSPARSE_STATUS_INVALID_VALUE;
    }
    /* the CSR side as a matrix of this library (its values are held above) */
    struct cusparseMatDescr d = { .base = idxBase };
    if ((st = sp_take_legacy(&t->j, handle, m, n, nnz, &d, NULL, 0, csrRowPtr, csrColInd, 0))) {
        hl_job_free(&t->j);
        return st;
    }
    t->a = (struct sp_csr){ .outer = m, .inner = n, .nnz = nnz, .off = csrRowPtr, .idx = csrColInd,
                            .val = (void *)(uintptr_t)csrVal, .otype = CUSPARSE_INDEX_32I,
                            .itype = CUSPARSE_INDEX_32I, .base = idxBase == CUSPARSE_INDEX_BASE_ONE };
    if (!(t->next = malloc(((size_t)n + 1) * sizeof *t->next))) {
        hl_job_free(&t->j);
        return CUSPARSE_STATUS_ALLOC_FAILED;
    }
    hl_note("host loop (csr2csc)");
    return sp_submit(handle, &t->j, 0);
}
