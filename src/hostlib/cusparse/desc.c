/* SPDX-License-Identifier: Apache-2.0 */
/* The generic API's descriptors: sparse matrices (CSR, CSC, COO), dense
 * vectors and matrices, sparse vectors. Each lives in hostlib's registry
 * of handles, so a destroyed or made-up one is CUSPARSE_STATUS_INVALID_VALUE
 * and never dereferenced. Creation checks sizes and enums as NVIDIA's
 * library does (read from its answers: tests/hostlib/cusparse_desc.c),
 * except that a diagonal type or fill mode outside the enum is refused;
 * the arrays are checked when an operation uses them (check.c). */
#include "sparse.h"

#include <stdlib.h>

static int base_ok(cusparseIndexBase_t b)
{
    return b == CUSPARSE_INDEX_BASE_ZERO || b == CUSPARSE_INDEX_BASE_ONE;
}

static int itype_ok(cusparseIndexType_t t)
{
    return t == CUSPARSE_INDEX_16U || t == CUSPARSE_INDEX_32I || t == CUSPARSE_INDEX_64I;
}

static int vtype_ok(cudaDataType t)
{
    return (unsigned)t <= CUDA_C_16BF;
}

/* d: a new handle (hl_handle_new), or NULL without memory */
static cusparseStatus_t give(void *d, void **out)
{
    if (!d)
        return CUSPARSE_STATUS_ALLOC_FAILED;
    *out = d;
    return CUSPARSE_STATUS_SUCCESS;
}

static cusparseStatus_t destroy(const void *d, int kind)
{
    if (!d)
        return CUSPARSE_STATUS_SUCCESS;   /* as NVIDIA's: NULL is accepted */
    if (!hl_handle_free((void *)(uintptr_t)d, kind))
        return CUSPARSE_STATUS_INVALID_VALUE;
    return CUSPARSE_STATUS_SUCCESS;
}

/* ---- sparse matrices ---------------------------------------------------- */
/* sizes as cuSPARSE checks them: rows, cols, nnz not negative, nnz not
 * above rows * cols. NULL arrays are accepted here, as NVIDIA's library
 * accepts them (a program may set them later): an operation that would
 * read one refuses it. */
static cusparseStatus_t spmat_new(void **out, cusparseFormat_t f, int64_t rows, int64_t cols, int64_t nnz,
                                  const void *off, const void *idx, const void *val, cusparseIndexType_t ot,
                                  cusparseIndexType_t it, cusparseIndexBase_t base, cudaDataType vt)
{
    if (!out || rows < 0 || cols < 0 || nnz < 0 || !itype_ok(ot) || !itype_ok(it) || !base_ok(base) ||
        !vtype_ok(vt))
        return CUSPARSE_STATUS_INVALID_VALUE;
    if (rows && cols && rows <= INT64_MAX / cols && nnz > rows * cols)
        return CUSPARSE_STATUS_INVALID_VALUE;
    if ((!rows || !cols) && nnz)
        return CUSPARSE_STATUS_INVALID_VALUE;
    struct cusparseSpMatDescr *d = hl_handle_new(sizeof *d, SP_SPMAT);
    if (d)
        *d = (struct cusparseSpMatDescr){
            .format = f, .rows = rows, .cols = cols, .nnz = nnz, .offsets = (void *)(uintptr_t)off,
            .indices = (void *)(uintptr_t)idx, .values = (void *)(uintptr_t)val, .otype = ot, .itype = it,
            .base = base, .vtype = vt, .fill = CUSPARSE_FILL_MODE_LOWER, .diag = CUSPARSE_DIAG_TYPE_NON_UNIT,
        };
    return give(d, out);
}

HL_EXPORT cusparseStatus_t cusparseCreateCsr(cusparseSpMatDescr_t *spMatDescr, int64_t rows, int64_t cols, int64_t nnz,
                                             void *csrRowOffsets, void *csrColInd, void *csrValues,
                                             cusparseIndexType_t csrRowOffsetsType, cusparseIndexType_t csrColIndType,
                                             cusparseIndexBase_t idxBase, cudaDataType valueType)
{
    return spmat_new((void **)spMatDescr, CUSPARSE_FORMAT_CSR, rows, cols, nnz, csrRowOffsets, csrColInd, csrValues,
                     csrRowOffsetsType, csrColIndType, idxBase, valueType);
}

HL_EXPORT cusparseStatus_t cusparseCreateConstCsr(cusparseConstSpMatDescr_t *spMatDescr, int64_t rows, int64_t cols,
                                                  int64_t nnz, const void *csrRowOffsets, const void *csrColInd,
                                                  const void *csrValues, cusparseIndexType_t csrRowOffsetsType,
                                                  cusparseIndexType_t csrColIndType, cusparseIndexBase_t idxBase,
                                                  cudaDataType valueType)
{
    return spmat_new((void **)spMatDescr, CUSPARSE_FORMAT_CSR, rows, cols, nnz, csrRowOffsets, csrColInd, csrValues,
                     csrRowOffsetsType, csrColIndType, idxBase, valueType);
}

HL_EXPORT cusparseStatus_t cusparseCreateCsc(cusparseSpMatDescr_t *spMatDescr, int64_t rows, int64_t cols, int64_t nnz,
                                             void *cscColOffsets, void *cscRowInd, void *cscValues,
                                             cusparseIndexType_t cscColOffsetsType, cusparseIndexType_t cscRowIndType,
                                             cusparseIndexBase_t idxBase, cudaDataType valueType)
{
    return spmat_new((void **)spMatDescr, CUSPARSE_FORMAT_CSC, rows, cols, nnz, cscColOffsets, cscRowInd, cscValues,
                     cscColOffsetsType, cscRowIndType, idxBase, valueType);
}

HL_EXPORT cusparseStatus_t cusparseCreateConstCsc(cusparseConstSpMatDescr_t *spMatDescr, int64_t rows, int64_t cols,
                                                  int64_t nnz, const void *cscColOffsets, const void *cscRowInd,
                                                  const void *cscValues, cusparseIndexType_t cscColOffsetsType,
                                                  cusparseIndexType_t cscRowIndType, cusparseIndexBase_t idxBase,
                                                  cudaDataType valueType)
{
    return spmat_new((void **)spMatDescr, CUSPARSE_FORMAT_CSC, rows, cols, nnz, cscColOffsets, cscRowInd, cscValues,
                     cscColOffsetsType, cscRowIndType, idxBase, valueType);
}

HL_EXPORT cusparseStatus_t cusparseCreateCoo(cusparseSpMatDescr_t *spMatDescr, int64_t rows, int64_t cols, int64_t nnz,
                                             void *cooRowInd, void *cooColInd, void *cooValues,
                                             cusparseIndexType_t cooIdxType, cusparseIndexBase_t idxBase,
                                             cudaDataType valueType)
{
    return spmat_new((void **)spMatDescr, CUSPARSE_FORMAT_COO, rows, cols, nnz, cooRowInd, cooColInd, cooValues,
                     cooIdxType, cooIdxType, idxBase, valueType);
}

HL_EXPORT cusparseStatus_t cusparseCreateConstCoo(cusparseConstSpMatDescr_t *spMatDescr, int64_t rows, int64_t cols,
                                                  int64_t nnz, const void *cooRowInd, const void *cooColInd,
                                                  const void *cooValues, cusparseIndexType_t cooIdxType,
                                                  cusparseIndexBase_t idxBase, cudaDataType valueType)
{
    return spmat_new((void **)spMatDescr, CUSPARSE_FORMAT_COO, rows, cols, nnz, cooRowInd, cooColInd, cooValues,
                     cooIdxType, cooIdxType, idxBase, valueType);
}

HL_EXPORT cusparseStatus_t cusparseDestroySpMat(cusparseConstSpMatDescr_t spMatDescr)
{
    return destroy(spMatDescr, SP_SPMAT);
}

/* a live matrix of format f (0: any) */
static struct cusparseSpMatDescr *spmat(const void *d, cusparseFormat_t f)
{
    struct cusparseSpMatDescr *m = (struct cusparseSpMatDescr *)(uintptr_t)d;
    return sp_live(m, SP_SPMAT) && (!f || m->format == f) ? m : NULL;
}

static cusparseStatus_t spmat_get(const void *d, cusparseFormat_t f, int64_t *rows, int64_t *cols, int64_t *nnz,
                                  void **off, void **idx, void **val, cusparseIndexType_t *ot,
                                  cusparseIndexType_t *it, cusparseIndexBase_t *base, cudaDataType *vt)
{
    struct cusparseSpMatDescr *m = spmat(d, f);
    if (!m || !rows || !cols || !nnz || !off || !idx || !val || !ot || !base || !vt)
        return CUSPARSE_STATUS_INVALID_VALUE;
    *rows = m->rows, *cols = m->cols, *nnz = m->nnz;
    *off = m->offsets, *idx = m->indices, *val = m->values;
    *ot = m->otype;
    if (it)
        *it = m->itype;
    *base = m->base, *vt = m->vtype;
    return CUSPARSE_STATUS_SUCCESS;
}

HL_EXPORT cusparseStatus_t cusparseCsrGet(cusparseSpMatDescr_t spMatDescr, int64_t *rows, int64_t *cols, int64_t *nnz,
                                          void **csrRowOffsets, void **csrColInd, void **csrValues,
                                          cusparseIndexType_t *csrRowOffsetsType, cusparseIndexType_t *csrColIndType,
                                          cusparseIndexBase_t *idxBase, cudaDataType *valueType)
{
    if (!csrColIndType)
        return CUSPARSE_STATUS_INVALID_VALUE;
    return spmat_get(spMatDescr, CUSPARSE_FORMAT_CSR, rows, cols, nnz, csrRowOffsets, csrColInd, csrValues,
                     csrRowOffsetsType, csrColIndType, idxBase, valueType);
}

HL_EXPORT cusparseStatus_t cusparseConstCsrGet(cusparseConstSpMatDescr_t spMatDescr, int64_t *rows, int64_t *cols,
                                               int64_t *nnz, const void **csrRowOffsets, const void **csrColInd,
                                               const void **csrValues, cusparseIndexType_t *csrRowOffsetsType,
                                               cusparseIndexType_t *csrColIndType, cusparseIndexBase_t *idxBase,
                                               cudaDataType *valueType)
{
    if (!csrColIndType)
        return CUSPARSE_STATUS_INVALID_VALUE;
    return spmat_get(spMatDescr, CUSPARSE_FORMAT_CSR, rows, cols, nnz, (void **)csrRowOffsets, (void **)csrColInd,
                     (void **)csrValues, csrRowOffsetsType, csrColIndType, idxBase, valueType);
}

HL_EXPORT cusparseStatus_t cusparseCscGet(cusparseSpMatDescr_t spMatDescr, int64_t *rows, int64_t *cols, int64_t *nnz,
                                          void **cscColOffsets, void **cscRowInd, void **cscValues,
                                          cusparseIndexType_t *cscColOffsetsType, cusparseIndexType_t *cscRowIndType,
                                          cusparseIndexBase_t *idxBase, cudaDataType *valueType)
{
    if (!cscRowIndType)
        return CUSPARSE_STATUS_INVALID_VALUE;
    return spmat_get(spMatDescr, CUSPARSE_FORMAT_CSC, rows, cols, nnz, cscColOffsets, cscRowInd, cscValues,
                     cscColOffsetsType, cscRowIndType, idxBase, valueType);
}

HL_EXPORT cusparseStatus_t cusparseConstCscGet(cusparseConstSpMatDescr_t spMatDescr, int64_t *rows, int64_t *cols,
                                               int64_t *nnz, const void **cscColOffsets, const void **cscRowInd,
                                               const void **cscValues, cusparseIndexType_t *cscColOffsetsType,
                                               cusparseIndexType_t *cscRowIndType, cusparseIndexBase_t *idxBase,
                                               cudaDataType *valueType)
{
    if (!cscRowIndType)
        return CUSPARSE_STATUS_INVALID_VALUE;
    return spmat_get(spMatDescr, CUSPARSE_FORMAT_CSC, rows, cols, nnz, (void **)cscColOffsets, (void **)cscRowInd,
                     (void **)cscValues, cscColOffsetsType, cscRowIndType, idxBase, valueType);
}

HL_EXPORT cusparseStatus_t cusparseCooGet(cusparseSpMatDescr_t spMatDescr, int64_t *rows, int64_t *cols, int64_t *nnz,
                                          void **cooRowInd, void **cooColInd, void **cooValues,
                                          cusparseIndexType_t *idxType, cusparseIndexBase_t *idxBase,
                                          cudaDataType *valueType)
{
    return spmat_get(spMatDescr, CUSPARSE_FORMAT_COO, rows, cols, nnz, cooRowInd, cooColInd, cooValues, idxType,
                     NULL, idxBase, valueType);
}

HL_EXPORT cusparseStatus_t cusparseConstCooGet(cusparseConstSpMatDescr_t spMatDescr, int64_t *rows, int64_t *cols,
                                               int64_t *nnz, const void **cooRowInd, const void **cooColInd,
                                               const void **cooValues, cusparseIndexType_t *idxType,
                                               cusparseIndexBase_t *idxBase, cudaDataType *valueType)
{
    return spmat_get(spMatDescr, CUSPARSE_FORMAT_COO, rows, cols, nnz, (void **)cooRowInd, (void **)cooColInd,
                     (void **)cooValues, idxType, NULL, idxBase, valueType);
}

static cusparseStatus_t set_pointers(void *d, cusparseFormat_t f, void *off, void *idx, void *val)
{
    struct cusparseSpMatDescr *m = spmat(d, f);
    if (!m)
        return CUSPARSE_STATUS_INVALID_VALUE;
    m->offsets = off, m->indices = idx, m->values = val;
    return CUSPARSE_STATUS_SUCCESS;
}

HL_EXPORT cusparseStatus_t cusparseCsrSetPointers(cusparseSpMatDescr_t spMatDescr, void *csrRowOffsets, void *csrColInd,
                                                  void *csrValues)
{
    return set_pointers(spMatDescr, CUSPARSE_FORMAT_CSR, csrRowOffsets, csrColInd, csrValues);
}

HL_EXPORT cusparseStatus_t cusparseCscSetPointers(cusparseSpMatDescr_t spMatDescr, void *cscColOffsets, void *cscRowInd,
                                                  void *cscValues)
{
    return set_pointers(spMatDescr, CUSPARSE_FORMAT_CSC, cscColOffsets, cscRowInd, cscValues);
}

HL_EXPORT cusparseStatus_t cusparseCooSetPointers(cusparseSpMatDescr_t spMatDescr, void *cooRows, void *cooColumns,
                                                  void *cooValues)
{
    return set_pointers(spMatDescr, CUSPARSE_FORMAT_COO, cooRows, cooColumns, cooValues);
}

HL_EXPORT cusparseStatus_t cusparseSpMatGetFormat(cusparseConstSpMatDescr_t spMatDescr, cusparseFormat_t *format)
{
    struct cusparseSpMatDescr *m = spmat(spMatDescr, 0);
    if (!m || !format)
        return CUSPARSE_STATUS_INVALID_VALUE;
    *format = m->format;
    return CUSPARSE_STATUS_SUCCESS;
}

HL_EXPORT cusparseStatus_t cusparseSpMatGetIndexBase(cusparseConstSpMatDescr_t spMatDescr, cusparseIndexBase_t *idxBase)
{
    struct cusparseSpMatDescr *m = spmat(spMatDescr, 0);
    if (!m || !idxBase)
        return CUSPARSE_STATUS_INVALID_VALUE;
    *idxBase = m->base;
    return CUSPARSE_STATUS_SUCCESS;
}

HL_EXPORT cusparseStatus_t cusparseSpMatGetValues(cusparseSpMatDescr_t spMatDescr, void **values)
{
    struct cusparseSpMatDescr *m = spmat(spMatDescr, 0);
    if (!m || !values)
        return CUSPARSE_STATUS_INVALID_VALUE;
    *values = m->values;
    return CUSPARSE_STATUS_SUCCESS;
}

HL_EXPORT cusparseStatus_t cusparseConstSpMatGetValues(cusparseConstSpMatDescr_t spMatDescr, const void **values)
{
    return cusparseSpMatGetValues((cusparseSpMatDescr_t)(uintptr_t)spMatDescr, (void **)values);
}

HL_EXPORT cusparseStatus_t cusparseSpMatSetValues(cusparseSpMatDescr_t spMatDescr, void *values)
{
    struct cusparseSpMatDescr *m = spmat(spMatDescr, 0);
    if (!m)
        return CUSPARSE_STATUS_INVALID_VALUE;
    m->values = values;
    return CUSPARSE_STATUS_SUCCESS;
}

HL_EXPORT cusparseStatus_t cusparseSpMatGetSize(cusparseConstSpMatDescr_t spMatDescr, int64_t *rows, int64_t *cols,
                                                int64_t *nnz)
{
    struct cusparseSpMatDescr *m = spmat(spMatDescr, 0);
    if (!m || !rows || !cols || !nnz)
        return CUSPARSE_STATUS_INVALID_VALUE;
    *rows = m->rows, *cols = m->cols, *nnz = m->nnz;
    return CUSPARSE_STATUS_SUCCESS;
}

HL_EXPORT cusparseStatus_t cusparseSpMatGetAttribute(cusparseConstSpMatDescr_t spMatDescr,
                                                     cusparseSpMatAttribute_t attribute, void *data, size_t dataSize)
{
    struct cusparseSpMatDescr *m = spmat(spMatDescr, 0);
    if (!m || !data)
        return CUSPARSE_STATUS_INVALID_VALUE;
    switch (attribute) {
    case CUSPARSE_SPMAT_FILL_MODE:
        if (dataSize != sizeof(cusparseFillMode_t))
            return CUSPARSE_STATUS_INVALID_VALUE;
        *(cusparseFillMode_t *)data = m->fill;
        return CUSPARSE_STATUS_SUCCESS;
    case CUSPARSE_SPMAT_DIAG_TYPE:
        if (dataSize != sizeof(cusparseDiagType_t))
            return CUSPARSE_STATUS_INVALID_VALUE;
        *(cusparseDiagType_t *)data = m->diag;
        return CUSPARSE_STATUS_SUCCESS;
    }
    return CUSPARSE_STATUS_INVALID_VALUE;
}

HL_EXPORT cusparseStatus_t cusparseSpMatSetAttribute(cusparseSpMatDescr_t spMatDescr, cusparseSpMatAttribute_t attribute,
                                                     void *data, size_t dataSize)
{
    struct cusparseSpMatDescr *m = spmat(spMatDescr, 0);
    if (!m || !data)
        return CUSPARSE_STATUS_INVALID_VALUE;
    switch (attribute) {
    case CUSPARSE_SPMAT_FILL_MODE: {
        if (dataSize != sizeof(cusparseFillMode_t))
            return CUSPARSE_STATUS_INVALID_VALUE;
        cusparseFillMode_t f = *(const cusparseFillMode_t *)data;
        if (f != CUSPARSE_FILL_MODE_LOWER && f != CUSPARSE_FILL_MODE_UPPER)
            return CUSPARSE_STATUS_INVALID_VALUE;
        m->fill = f;
        return CUSPARSE_STATUS_SUCCESS;
    }
    case CUSPARSE_SPMAT_DIAG_TYPE: {
        if (dataSize != sizeof(cusparseDiagType_t))
            return CUSPARSE_STATUS_INVALID_VALUE;
        cusparseDiagType_t g = *(const cusparseDiagType_t *)data;
        if (g != CUSPARSE_DIAG_TYPE_NON_UNIT && g != CUSPARSE_DIAG_TYPE_UNIT)
            return CUSPARSE_STATUS_INVALID_VALUE;
        m->diag = g;
        return CUSPARSE_STATUS_SUCCESS;
    }
    }
    return CUSPARSE_STATUS_INVALID_VALUE;
}

/* ---- dense vectors -------------------------------------------------------- */
static cusparseStatus_t dnvec_new(void **out, int64_t size, const void *values, cudaDataType vt)
{
    if (!out || size < 0 || !vtype_ok(vt))
        return CUSPARSE_STATUS_INVALID_VALUE;
    struct cusparseDnVecDescr *d = hl_handle_new(sizeof *d, SP_DNVEC);
    if (d)
        *d = (struct cusparseDnVecDescr){ .size = size, .values = (void *)(uintptr_t)values, .vtype = vt };
    return give(d, out);
}

HL_EXPORT cusparseStatus_t cusparseCreateDnVec(cusparseDnVecDescr_t *dnVecDescr, int64_t size, void *values,
                                               cudaDataType valueType)
{
    return dnvec_new((void **)dnVecDescr, size, values, valueType);
}

HL_EXPORT cusparseStatus_t cusparseCreateConstDnVec(cusparseConstDnVecDescr_t *dnVecDescr, int64_t size,
                                                    const void *values, cudaDataType valueType)
{
    return dnvec_new((void **)dnVecDescr, size, values, valueType);
}

HL_EXPORT cusparseStatus_t cusparseDestroyDnVec(cusparseConstDnVecDescr_t dnVecDescr)
{
    return destroy(dnVecDescr, SP_DNVEC);
}

static struct cusparseDnVecDescr *dnvec(const void *d)
{
    return sp_live(d, SP_DNVEC) ? (struct cusparseDnVecDescr *)(uintptr_t)d : NULL;
}

HL_EXPORT cusparseStatus_t cusparseDnVecGet(cusparseDnVecDescr_t dnVecDescr, int64_t *size, void **values,
                                            cudaDataType *valueType)
{
    struct cusparseDnVecDescr *v = dnvec(dnVecDescr);
    if (!v || !size || !values || !valueType)
        return CUSPARSE_STATUS_INVALID_VALUE;
    *size = v->size, *values = v->values, *valueType = v->vtype;
    return CUSPARSE_STATUS_SUCCESS;
}

HL_EXPORT cusparseStatus_t cusparseConstDnVecGet(cusparseConstDnVecDescr_t dnVecDescr, int64_t *size,
                                                 const void **values, cudaDataType *valueType)
{
    return cusparseDnVecGet((cusparseDnVecDescr_t)(uintptr_t)dnVecDescr, size, (void **)values, valueType);
}

HL_EXPORT cusparseStatus_t cusparseDnVecGetValues(cusparseDnVecDescr_t dnVecDescr, void **values)
{
    struct cusparseDnVecDescr *v = dnvec(dnVecDescr);
    if (!v || !values)
        return CUSPARSE_STATUS_INVALID_VALUE;
    *values = v->values;
    return CUSPARSE_STATUS_SUCCESS;
}

HL_EXPORT cusparseStatus_t cusparseConstDnVecGetValues(cusparseConstDnVecDescr_t dnVecDescr, const void **values)
{
    return cusparseDnVecGetValues((cusparseDnVecDescr_t)(uintptr_t)dnVecDescr, (void **)values);
}

HL_EXPORT cusparseStatus_t cusparseDnVecSetValues(cusparseDnVecDescr_t dnVecDescr, void *values)
{
    struct cusparseDnVecDescr *v = dnvec(dnVecDescr);
    if (!v)
        return CUSPARSE_STATUS_INVALID_VALUE;
    v->values = values;
    return CUSPARSE_STATUS_SUCCESS;
}

/* ---- dense matrices ------------------------------------------------------- */
static cusparseStatus_t dnmat_new(void **out, int64_t rows, int64_t cols, int64_t ld, const void *values,
                                  cudaDataType vt, cusparseOrder_t order)
{
    if (!out || rows < 0 || cols < 0 || !vtype_ok(vt) || (order != CUSPARSE_ORDER_COL && order != CUSPARSE_ORDER_ROW))
        return CUSPARSE_STATUS_INVALID_VALUE;
    int64_t inner = order == CUSPARSE_ORDER_COL ? rows : cols;
    if (ld < (inner ? inner : 1))
        return CUSPARSE_STATUS_INVALID_VALUE;
    struct cusparseDnMatDescr *d = hl_handle_new(sizeof *d, SP_DNMAT);
    if (d)
        *d = (struct cusparseDnMatDescr){ .rows = rows, .cols = cols, .ld = ld, .values = (void *)(uintptr_t)values,
                                          .vtype = vt, .order = order };
    return give(d, out);
}

HL_EXPORT cusparseStatus_t cusparseCreateDnMat(cusparseDnMatDescr_t *dnMatDescr, int64_t rows, int64_t cols, int64_t ld,
                                               void *values, cudaDataType valueType, cusparseOrder_t order)
{
    return dnmat_new((void **)dnMatDescr, rows, cols, ld, values, valueType, order);
}

HL_EXPORT cusparseStatus_t cusparseCreateConstDnMat(cusparseConstDnMatDescr_t *dnMatDescr, int64_t rows, int64_t cols,
                                                    int64_t ld, const void *values, cudaDataType valueType,
                                                    cusparseOrder_t order)
{
    return dnmat_new((void **)dnMatDescr, rows, cols, ld, values, valueType, order);
}

HL_EXPORT cusparseStatus_t cusparseDestroyDnMat(cusparseConstDnMatDescr_t dnMatDescr)
{
    return destroy(dnMatDescr, SP_DNMAT);
}

static struct cusparseDnMatDescr *dnmat(const void *d)
{
    return sp_live(d, SP_DNMAT) ? (struct cusparseDnMatDescr *)(uintptr_t)d : NULL;
}

HL_EXPORT cusparseStatus_t cusparseDnMatGet(cusparseDnMatDescr_t dnMatDescr, int64_t *rows, int64_t *cols, int64_t *ld,
                                            void **values, cudaDataType *type, cusparseOrder_t *order)
{
    struct cusparseDnMatDescr *m = dnmat(dnMatDescr);
    if (!m || !rows || !cols || !ld || !values || !type || !order)
        return CUSPARSE_STATUS_INVALID_VALUE;
    *rows = m->rows, *cols = m->cols, *ld = m->ld, *values = m->values, *type = m->vtype, *order = m->order;
    return CUSPARSE_STATUS_SUCCESS;
}

HL_EXPORT cusparseStatus_t cusparseConstDnMatGet(cusparseConstDnMatDescr_t dnMatDescr, int64_t *rows, int64_t *cols,
                                                 int64_t *ld, const void **values, cudaDataType *type,
                                                 cusparseOrder_t *order)
{
    return cusparseDnMatGet((cusparseDnMatDescr_t)(uintptr_t)dnMatDescr, rows, cols, ld, (void **)values, type, order);
}

HL_EXPORT cusparseStatus_t cusparseDnMatGetValues(cusparseDnMatDescr_t dnMatDescr, void **values)
{
    struct cusparseDnMatDescr *m = dnmat(dnMatDescr);
    if (!m || !values)
        return CUSPARSE_STATUS_INVALID_VALUE;
    *values = m->values;
    return CUSPARSE_STATUS_SUCCESS;
}

HL_EXPORT cusparseStatus_t cusparseConstDnMatGetValues(cusparseConstDnMatDescr_t dnMatDescr, const void **values)
{
    return cusparseDnMatGetValues((cusparseDnMatDescr_t)(uintptr_t)dnMatDescr, (void **)values);
}

HL_EXPORT cusparseStatus_t cusparseDnMatSetValues(cusparseDnMatDescr_t dnMatDescr, void *values)
{
    struct cusparseDnMatDescr *m = dnmat(dnMatDescr);
    if (!m)
        return CUSPARSE_STATUS_INVALID_VALUE;
    m->values = values;
    return CUSPARSE_STATUS_SUCCESS;
}

/* ---- sparse vectors ------------------------------------------------------- */
static cusparseStatus_t spvec_new(void **out, int64_t size, int64_t nnz, const void *idx, const void *val,
                                  cusparseIndexType_t it, cusparseIndexBase_t base, cudaDataType vt)
{
    if (!out || size < 0 || nnz < 0 || nnz > size || !itype_ok(it) || !base_ok(base) ||
        !vtype_ok(vt))
        return CUSPARSE_STATUS_INVALID_VALUE;
    struct cusparseSpVecDescr *d = hl_handle_new(sizeof *d, SP_SPVEC);
    if (d)
        *d = (struct cusparseSpVecDescr){ .size = size, .nnz = nnz, .indices = (void *)(uintptr_t)idx,
                                          .values = (void *)(uintptr_t)val, .itype = it, .base = base, .vtype = vt };
    return give(d, out);
}

HL_EXPORT cusparseStatus_t cusparseCreateSpVec(cusparseSpVecDescr_t *spVecDescr, int64_t size, int64_t nnz,
                                               void *indices, void *values, cusparseIndexType_t idxType,
                                               cusparseIndexBase_t idxBase, cudaDataType valueType)
{
    return spvec_new((void **)spVecDescr, size, nnz, indices, values, idxType, idxBase, valueType);
}

HL_EXPORT cusparseStatus_t cusparseCreateConstSpVec(cusparseConstSpVecDescr_t *spVecDescr, int64_t size, int64_t nnz,
                                                    const void *indices, const void *values,
                                                    cusparseIndexType_t idxType, cusparseIndexBase_t idxBase,
                                                    cudaDataType valueType)
{
    return spvec_new((void **)spVecDescr, size, nnz, indices, values, idxType, idxBase, valueType);
}

HL_EXPORT cusparseStatus_t cusparseDestroySpVec(cusparseConstSpVecDescr_t spVecDescr)
{
    return destroy(spVecDescr, SP_SPVEC);
}

static struct cusparseSpVecDescr *spvec(const void *d)
{
    return sp_live(d, SP_SPVEC) ? (struct cusparseSpVecDescr *)(uintptr_t)d : NULL;
}

HL_EXPORT cusparseStatus_t cusparseSpVecGet(cusparseSpVecDescr_t spVecDescr, int64_t *size, int64_t *nnz,
                                            void **indices, void **values, cusparseIndexType_t *idxType,
                                            cusparseIndexBase_t *idxBase, cudaDataType *valueType)
{
    struct cusparseSpVecDescr *v = spvec(spVecDescr);
    if (!v || !size || !nnz || !indices || !values || !idxType || !idxBase || !valueType)
        return CUSPARSE_STATUS_INVALID_VALUE;
    *size = v->size, *nnz = v->nnz, *indices = v->indices, *values = v->values;
    *idxType = v->itype, *idxBase = v->base, *valueType = v->vtype;
    return CUSPARSE_STATUS_SUCCESS;
}

HL_EXPORT cusparseStatus_t cusparseConstSpVecGet(cusparseConstSpVecDescr_t spVecDescr, int64_t *size, int64_t *nnz,
                                                 const void **indices, const void **values,
                                                 cusparseIndexType_t *idxType, cusparseIndexBase_t *idxBase,
                                                 cudaDataType *valueType)
{
    return cusparseSpVecGet((cusparseSpVecDescr_t)(uintptr_t)spVecDescr, size, nnz, (void **)indices,
                            (void **)values, idxType, idxBase, valueType);
}

HL_EXPORT cusparseStatus_t cusparseSpVecGetIndexBase(cusparseConstSpVecDescr_t spVecDescr, cusparseIndexBase_t *idxBase)
{
    struct cusparseSpVecDescr *v = spvec(spVecDescr);
    if (!v || !idxBase)
        return CUSPARSE_STATUS_INVALID_VALUE;
    *idxBase = v->base;
    return CUSPARSE_STATUS_SUCCESS;
}

HL_EXPORT cusparseStatus_t cusparseSpVecGetValues(cusparseSpVecDescr_t spVecDescr, void **values)
{
    struct cusparseSpVecDescr *v = spvec(spVecDescr);
    if (!v || !values)
        return CUSPARSE_STATUS_INVALID_VALUE;
    *values = v->values;
    return CUSPARSE_STATUS_SUCCESS;
}

HL_EXPORT cusparseStatus_t cusparseConstSpVecGetValues(cusparseConstSpVecDescr_t spVecDescr, const void **values)
{
    return cusparseSpVecGetValues((cusparseSpVecDescr_t)(uintptr_t)spVecDescr, (void **)values);
}

HL_EXPORT cusparseStatus_t cusparseSpVecSetValues(cusparseSpVecDescr_t spVecDescr, void *values)
{
    struct cusparseSpVecDescr *v = spvec(spVecDescr);
    if (!v)
        return CUSPARSE_STATUS_INVALID_VALUE;
    v->values = values;
    return CUSPARSE_STATUS_SUCCESS;
}
