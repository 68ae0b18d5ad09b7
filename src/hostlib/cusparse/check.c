/* SPDX-License-Identifier: Apache-2.0 */
/* A sparse matrix's arrays: held for the job, then, once the stream has
 * reached the call, every index validated, so that a bad one is a status
 * and never a read or write out of bounds (sparse.h). */
#include "sparse.h"

size_t sp_isize(cusparseIndexType_t t)
{
    switch (t) {
    case CUSPARSE_INDEX_32I: return 4;
    case CUSPARSE_INDEX_64I: return 8;
    case CUSPARSE_INDEX_16U: break;
    }
    return 0;
}

static int hold(struct hl_job *j, const void *p, int64_t n, size_t elem)
{
    if (n <= 0)
        return 0;
    if ((uint64_t)n > (uint64_t)INT64_MAX / elem)
        return -1;
    return hl_job_hold(j, p, (size_t)n * elem);
}

/* offsets: outer + 1 of them, from base, nondecreasing, to nnz + base;
 * indices: inside [base, inner + base), strictly increasing in a row when
 * sorted */
/* the same for 32-bit offsets and indices, unsorted: SpMV's common case */
static int valid_compressed32(const struct sp_csr *c)
{
    const int32_t *off = c->off, *idx = c->idx;
    int64_t base = c->base, prev = base;
    if (off[0] != base || off[c->outer] != c->nnz + base)
        return 0;
    for (int64_t r = 1; r <= c->outer; r++) {
        if (off[r] < prev)
            return 0;
        prev = off[r];
    }
    /* the offsets are monotone from base to nnz + base: every entry is in
     * one row, and the indices can be checked in one sweep */
    uint32_t lim = (uint32_t)c->inner;
    uint32_t b = (uint32_t)base;
    int bad = 0;
    for (int64_t k = 0; k < c->nnz; k++)
        bad |= (uint32_t)idx[k] - b >= lim;   /* below the base wraps past lim */
    return !bad;
}

static int valid_compressed(const struct sp_csr *c, int sorted)
{
    if (!sorted && c->otype == CUSPARSE_INDEX_32I && c->itype == CUSPARSE_INDEX_32I && c->inner <= INT32_MAX)
        return valid_compressed32(c);
    if (sp_idx(c->otype, c->off, 0) != c->base || sp_idx(c->otype, c->off, c->outer) != c->nnz + c->base)
        return 0;
    for (int64_t r = 0; r < c->outer; r++) {
        int64_t a = sp_idx(c->otype, c->off, r) - c->base, b = sp_idx(c->otype, c->off, r + 1) - c->base;
        if (a < 0 || b < a || b > c->nnz)
            return 0;
        int64_t prev = -1;
        for (int64_t k = a; k < b; k++) {
            int64_t i = sp_idx(c->itype, c->idx, k) - c->base;
            if (i < 0 || i >= c->inner || (sorted && i <= prev))
                return 0;
            prev = i;
        }
    }
    return 1;
}

static int valid_coo(const struct sp_csr *c)
{
    for (int64_t k = 0; k < c->nnz; k++) {
        int64_t r = sp_idx(c->itype, c->rowi, k) - c->base, i = sp_idx(c->itype, c->idx, k) - c->base;
        if (r < 0 || r >= c->outer || i < 0 || i >= c->inner)
            return 0;
    }
    return 1;
}

/* a captured job's check at each launch of its graph (hl_job's check):
 * the indices as they are then */
static const char *check_at_run(const void *arg)
{
    const struct sp_csr *c = arg;
    if (c->off ? valid_compressed(c, 0) : valid_coo(c))
        return NULL;
    return "an index of the sparse matrix is out of range, checked at each launch of the graph: the call could "
           "not read the indices when it was captured";
}

cusparseStatus_t sp_take_matrix(struct hl_job *j, cusparseHandle_t h, const struct cusparseSpMatDescr *A,
                                struct sp_csr *c, int sorted)
{
    size_t vs = sp_vsize(A->vtype), os = sp_isize(A->otype), is = sp_isize(A->itype);
    if (!vs || !os || !is)
        return CUSPARSE_STATUS_NOT_SUPPORTED;
    *c = (struct sp_csr){
        .nnz = A->nnz, .val = A->values, .otype = A->otype, .itype = A->itype,
        .base = A->base == CUSPARSE_INDEX_BASE_ONE, .vtype = A->vtype,
    };
    switch (A->format) {
    case CUSPARSE_FORMAT_CSR:
    case CUSPARSE_FORMAT_CSC: {
        int csr = A->format == CUSPARSE_FORMAT_CSR;
        c->outer = csr ? A->rows : A->cols;
        c->inner = csr ? A->cols : A->rows;
        c->off = A->offsets;
        c->idx = A->indices;
        if (hold(j, c->off, c->outer + 1, os) || hold(j, c->idx, c->nnz, is) || hold(j, c->val, c->nnz, vs))
            return CUSPARSE_STATUS_INVALID_VALUE;
        break;
    }
    case CUSPARSE_FORMAT_COO:
        c->outer = A->rows;
        c->inner = A->cols;
        c->rowi = A->offsets;
        c->idx = A->indices;
        if (hold(j, c->rowi, c->nnz, is) || hold(j, c->idx, c->nnz, is) || hold(j, c->val, c->nnz, vs))
            return CUSPARSE_STATUS_INVALID_VALUE;
        break;
    case CUSPARSE_FORMAT_BLOCKED_ELL:
    case CUSPARSE_FORMAT_BSR:
    case CUSPARSE_FORMAT_SLICED_ELLPACK:
        return CUSPARSE_STATUS_NOT_SUPPORTED;
    }
    /* captured: the indices are what the graph's earlier nodes will have
     * written when it runs; a job to be queued (c inside it) checks them
     * then, at each launch */
    if (j->run && !sorted && hl_capturing(h->stream)) {
        j->check = check_at_run;
        j->check_arg = c;
        return CUSPARSE_STATUS_SUCCESS;
    }
    cusparseStatus_t r = sp_sync(h);
    if (r)
        return r;
    if (c->off ? !valid_compressed(c, sorted) : !valid_coo(c))
        return CUSPARSE_STATUS_INVALID_VALUE;
    return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t sp_take_legacy(struct hl_job *j, cusparseHandle_t h, int m, int n, int nnz,
                                const struct cusparseMatDescr *d, const void *val, size_t vsize, const int *rowptr,
                                const int *colind, int sorted)
{
    struct sp_csr c = {
        .outer = m, .inner = n, .nnz = nnz, .off = rowptr, .idx = colind, .val = (void *)(uintptr_t)val,
        .otype = CUSPARSE_INDEX_32I, .itype = CUSPARSE_INDEX_32I, .base = d->base == CUSPARSE_INDEX_BASE_ONE,
    };
    if (hold(j, rowptr, (int64_t)m + 1, 4) || hold(j, colind, nnz, 4) || (vsize && hold(j, val, nnz, vsize)))
        return CUSPARSE_STATUS_INVALID_VALUE;
    cusparseStatus_t r = sp_sync(h);
    if (r)
        return r;
    return valid_compressed(&c, sorted) ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_INVALID_VALUE;
}

int sp_take_vec(struct hl_job *j, const struct cusparseDnVecDescr *v)
{
    return hold(j, v->values, v->size, sp_vsize(v->vtype));
}
