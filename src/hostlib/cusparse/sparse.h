/* SPDX-License-Identifier: Apache-2.0 */
/* cuSPARSE on the host: what the files of src/hostlib/cusparse share.
 *
 * handle.c (the handle, status names, legacy matrix descriptors), desc.c
 * (the generic API's descriptors), check.c (a sparse matrix's arrays held
 * and their indices validated), values.c (elements of every value type as
 * complex doubles), spmv.c (SpMV, SpMM, Scatter, Gather), spsv.c
 * (triangular solves), ilu.c (csrilu02, csric02), convert.c (coo2csr,
 * csr2coo, Csr2cscEx2).
 *
 * Index arrays are device memory that a kernel queued just before may
 * write: an operation that reads them synchronises the handle's stream,
 * validates every index (row offsets nondecreasing from the base to nnz +
 * base, every row and column index inside the matrix), and only then
 * queues its job, so that a bad index is a status, never a read out of
 * bounds. The job checks each index again as it uses it (another stream
 * may write the arrays meanwhile): an index out of range is skipped. */
#ifndef TD_HOSTLIB_SPARSE_H
#define TD_HOSTLIB_SPARSE_H

#include <stdatomic.h>

#include "cusparse_api.h"
#include "hostlib.h"

/* kinds in hostlib's handle registry */
enum {
    SP_HANDLE = 1, SP_MATDESCR, SP_SPMAT, SP_DNVEC, SP_DNMAT, SP_SPVEC, SP_SPSV, SP_ILU, SP_IC,
};

struct cusparseContext {
    CUstream stream;
    cusparsePointerMode_t pointer_mode;
};

struct cusparseMatDescr {
    cusparseMatrixType_t type;
    cusparseFillMode_t fill;
    cusparseDiagType_t diag;
    cusparseIndexBase_t base;
};

struct cusparseSpMatDescr {
    cusparseFormat_t format;
    int64_t rows, cols, nnz;
    void *offsets;   /* CSR: row offsets, CSC: column offsets, COO: row indices */
    void *indices;   /* CSR: column indices, CSC: row indices, COO: column indices */
    void *values;
    cusparseIndexType_t otype, itype;
    cusparseIndexBase_t base;
    cudaDataType vtype;
    cusparseFillMode_t fill;
    cusparseDiagType_t diag;
};

struct cusparseDnVecDescr {
    int64_t size;
    void *values;
    cudaDataType vtype;
};

struct cusparseDnMatDescr {
    int64_t rows, cols, ld;
    void *values;
    cudaDataType vtype;
    cusparseOrder_t order;
};

struct cusparseSpVecDescr {
    int64_t size, nnz;
    void *indices, *values;
    cusparseIndexType_t itype;
    cusparseIndexBase_t base;
    cudaDataType vtype;
};

struct cusparseSpSVDescr {
    int analysed;
};

/* csrilu02Info and csric02Info: the zero pivot the last analysis or
 * factorisation found (-1: none), written by the job, read by
 * cusparseX...zeroPivot after the stream has reached it. refs: the info and
 * each queued job that writes it (a destroyed info lives until they ran). */
struct sp_fact_info {
    atomic_int refs;
    atomic_int structural;   /* analysis: the first row without a diagonal, or -1 */
    atomic_int numeric;      /* factorisation: the first zero pivot, or -1 */
    int analysed;
    int base;                /* the index base of the last call, for zeroPivot */
};
void sp_info_put(struct sp_fact_info *f);

/* the handle: CUSPARSE_STATUS_NOT_INITIALIZED unless live */
cusparseStatus_t sp_handle(cusparseHandle_t h);
/* a live descriptor of kind k */
int sp_live(const void *d, int kind);
/* Queues j on the handle's stream (wait: returns once it ran); a stream
 * being captured is CUSPARSE_STATUS_NOT_SUPPORTED. */
cusparseStatus_t sp_submit(cusparseHandle_t h, struct hl_job *j, int wait);
/* Before reading index arrays: waits for the handle's stream (not while
 * it is being captured: CUSPARSE_STATUS_NOT_SUPPORTED). */
cusparseStatus_t sp_sync(cusparseHandle_t h);

/* ---- values.c: elements as complex doubles --------------------------- */
typedef struct { double re, im; } sp_c;
size_t sp_vsize(cudaDataType t);          /* 0 for a type not handled here */
int sp_is_complex(cudaDataType t);
sp_c sp_ld(cudaDataType t, const void *p, int64_t i);
void sp_st(cudaDataType t, void *p, int64_t i, sp_c v);
static inline sp_c sp_mul(sp_c a, sp_c b)
{
    return (sp_c){ a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re };
}
static inline sp_c sp_add(sp_c a, sp_c b)
{
    return (sp_c){ a.re + b.re, a.im + b.im };
}
static inline sp_c sp_conj(sp_c a)
{
    return (sp_c){ a.re, -a.im };
}
sp_c sp_div(sp_c a, sp_c b);
/* Is (A, X, Y, compute) a combination SpMV/SpMM (uniform: SpSV) computes
 * here? 0 yes; CUSPARSE_STATUS_NOT_SUPPORTED otherwise. */
cusparseStatus_t sp_types(cudaDataType a, cudaDataType x, cudaDataType y, cudaDataType compute, int uniform);

/* A scalar argument (alpha, beta) of the compute type: copied at the call
 * in host pointer mode, read when the job runs (held) otherwise. */
struct sp_scal {
    const void *dev;
    _Alignas(16) unsigned char v[16];
};
int sp_scal_take(struct hl_job *j, cusparseHandle_t h, const void *p, cudaDataType t, struct sp_scal *s);
sp_c sp_scal_get(const struct sp_scal *s, cudaDataType t);

/* ---- check.c: a matrix's arrays --------------------------------------- */
/* index i of an index array of type t */
static inline int64_t sp_idx(cusparseIndexType_t t, const void *p, int64_t i)
{
    return t == CUSPARSE_INDEX_64I ? ((const int64_t *)p)[i] : (int64_t)((const int32_t *)p)[i];
}
size_t sp_isize(cusparseIndexType_t t);   /* 4, 8, or 0 for 16U (not handled) */
/* The compressed or coordinate arrays of a matrix, as the job sees them:
 * CSC is taken as the CSR of the transpose (outer: columns). */
struct sp_csr {
    int64_t outer, inner, nnz;     /* outer: rows of the compressed dimension */
    const void *off, *idx;         /* off NULL: COO (rowi: the outer indices) */
    const void *rowi;
    void *val;
    cusparseIndexType_t otype, itype;
    int64_t base;
    cudaDataType vtype;
};
/* Holds A's arrays for j, waits for the stream and validates every index
 * (sorted: column indices strictly increasing within each row, as the
 * factorisations need). 0, CUSPARSE_STATUS_INVALID_VALUE, or the stream's
 * failure. On a stream being captured, for a job that will be queued (run
 * set; out inside the job) and unsorted indices, nothing is read: the job
 * checks the indices at each launch of the graph (hl_job's check). */
cusparseStatus_t sp_take_matrix(struct hl_job *j, cusparseHandle_t h, const struct cusparseSpMatDescr *A,
                                struct sp_csr *out, int sorted);
/* The same for a legacy m x n CSR (int indices, the descriptor's base;
 * vsize 0: the values are not held here). */
cusparseStatus_t sp_take_legacy(struct hl_job *j, cusparseHandle_t h, int m, int n, int nnz,
                                const struct cusparseMatDescr *d, const void *val, size_t vsize, const int *rowptr,
                                const int *colind, int sorted);
/* Holds a dense vector of n elements of its type; -1 if it is not device memory. */
int sp_take_vec(struct hl_job *j, const struct cusparseDnVecDescr *v);

#endif
