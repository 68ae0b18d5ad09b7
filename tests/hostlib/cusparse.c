/* SPDX-License-Identifier: Apache-2.0 */
/* The host cuSPARSE (build/lib/tdtrace/host/libcusparse.so.12) on the
 * emulated GPU, built against tdtrace's own declarations
 * (src/hostlib/cusparse/cusparse_api.h). Every implemented function
 * against a straightforward host reference in double (complex double):
 *   - the handle, status names, pointer modes, legacy matrix descriptors;
 *   - the generic descriptors: create, get, set, destroy, attributes;
 *   - SpMV: CSR, CSC and COO (unsorted), N, T and C, S, D, C, Z; half and
 *     bfloat16 (real and complex) computed in float, int8 into int32 and
 *     float, a real A with complex x and y; index bases 0 and 1, 32- and
 *     64-bit indices, alpha and beta in host and device pointer mode, beta 0 with
 *     y full of NaN;
 *   - SpMM: CSR, CSC and COO, op(A) and op(B) N, T and C, S, D, C, Z, both orders,
 *     leading dimensions above the minimum (the gaps must stay untouched);
 *   - SpSV: lower and upper, unit and non-unit, N, T and C, S, D, C, Z;
 *   - csrilu02 and csric02 (S, D, C, Z) against dense ILU(0) and IC(0)
 *     restricted to the pattern; structural and numerical zero pivots;
 *   - Scatter and Gather; Csr2cscEx2, Xcoo2csr, Xcsr2coo;
 *   - stream order: a slow host function and an asynchronous copy of the
 *     column indices before SpMV, a kernel of the program's own after it;
 *   - bad input: handles, descriptors, sizes, types, pointers, indices out
 *     of range (an error status, nothing written).
 * Tolerances relative to 1 + |reference|: float 1e-5, double 1e-12; half
 * and bfloat16 inputs are multiples of 1/8 (exact, and so are their
 * products and sums in float), results of those types within one rounding:
 * 1e-3 (half), 4e-3 (bfloat16); int32 results exact.
 * Prints "cusparse: N passed, N failed". */

#include <complex.h>
#include <unistd.h>

#include "check.h"
#include "cusparse_api.h"

typedef double complex zc;

/* ---- values of each type in host buffers -------------------------------- */
static size_t vsize(cudaDataType t)
{
    switch ((int)t) {
    case CUDA_R_32F: return 4;
    case CUDA_R_64F: return 8;
    case CUDA_C_32F: return 8;
    case CUDA_C_64F: return 16;
    case CUDA_C_16F: case CUDA_C_16BF: return 4;
    case CUDA_R_8I: return 1;
    case CUDA_R_32I: return 4;
    default: return 2;   /* half, bfloat16 */
    }
}

static int is_cplx(cudaDataType t)
{
    return t == CUDA_C_32F || t == CUDA_C_64F || t == CUDA_C_16F || t == CUDA_C_16BF;
}

static uint16_t f2bf(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return (uint16_t)(u >> 16);   /* exact values only */
}

static float bf2f(uint16_t b)
{
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* binary16 of a value exactly representable (normal or zero), and back */
static uint16_t f2h(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    uint16_t s = (uint16_t)((u >> 16) & 0x8000);
    if ((u & 0x7fffffff) == 0)
        return s;
    int e = (int)((u >> 23) & 0xff) - 127 + 15;
    return (uint16_t)(s | (e << 10) | ((u >> 13) & 0x3ff));
}

static float h2f(uint16_t h)
{
    uint32_t s = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff, u;
    u = e == 0 && m == 0 ? s : s | ((e - 15 + 127) << 23) | (m << 13);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static void put(cudaDataType t, void *p, size_t i, zc v)
{
    switch ((int)t) {
    case CUDA_R_32F: ((float *)p)[i] = (float)creal(v); break;
    case CUDA_R_64F: ((double *)p)[i] = creal(v); break;
    case CUDA_C_32F: ((float *)p)[2 * i] = (float)creal(v); ((float *)p)[2 * i + 1] = (float)cimag(v); break;
    case CUDA_C_64F: ((double *)p)[2 * i] = creal(v); ((double *)p)[2 * i + 1] = cimag(v); break;
    case CUDA_R_16F: ((uint16_t *)p)[i] = f2h((float)creal(v)); break;
    case CUDA_R_16BF: ((uint16_t *)p)[i] = f2bf((float)creal(v)); break;
    case CUDA_C_16F:
        ((uint16_t *)p)[2 * i] = f2h((float)creal(v)), ((uint16_t *)p)[2 * i + 1] = f2h((float)cimag(v));
        break;
    case CUDA_C_16BF:
        ((uint16_t *)p)[2 * i] = f2bf((float)creal(v)), ((uint16_t *)p)[2 * i + 1] = f2bf((float)cimag(v));
        break;
    case CUDA_R_8I: ((int8_t *)p)[i] = (int8_t)creal(v); break;
    case CUDA_R_32I: ((int32_t *)p)[i] = (int32_t)creal(v); break;
    default: break;
    }
}

static zc get(cudaDataType t, const void *p, size_t i)
{
    switch ((int)t) {
    case CUDA_R_32F: return ((const float *)p)[i];
    case CUDA_R_64F: return ((const double *)p)[i];
    case CUDA_C_32F: return ((const float *)p)[2 * i] + I * ((const float *)p)[2 * i + 1];
    case CUDA_C_64F: return ((const double *)p)[2 * i] + I * ((const double *)p)[2 * i + 1];
    case CUDA_R_16F: return h2f(((const uint16_t *)p)[i]);
    case CUDA_R_16BF: return bf2f(((const uint16_t *)p)[i]);
    case CUDA_C_16F: return h2f(((const uint16_t *)p)[2 * i]) + I * h2f(((const uint16_t *)p)[2 * i + 1]);
    case CUDA_C_16BF: return bf2f(((const uint16_t *)p)[2 * i]) + I * bf2f(((const uint16_t *)p)[2 * i + 1]);
    case CUDA_R_8I: return ((const int8_t *)p)[i];
    case CUDA_R_32I: return ((const int32_t *)p)[i];
    default: return 0;
    }
}

static double tol_of(cudaDataType t)
{
    /* half and bfloat16 results: one rounding of an exact float value */
    return t == CUDA_R_64F || t == CUDA_C_64F ? 1e-12 : t == CUDA_R_32F || t == CUDA_C_32F ? 1e-5
         : t == CUDA_R_16F || t == CUDA_C_16F ? 1e-3 : t == CUDA_R_32I ? 0 : 4e-3;
}

static const char *tname(cudaDataType t)
{
    switch ((int)t) {
    case CUDA_R_32F: return "S";
    case CUDA_R_64F: return "D";
    case CUDA_C_32F: return "C";
    case CUDA_C_64F: return "Z";
    case CUDA_R_16F: return "H";
    case CUDA_R_16BF: return "BF";
    case CUDA_C_16F: return "CH";
    case CUDA_C_16BF: return "CBF";
    case CUDA_R_8I: return "I8";
    case CUDA_R_32I: return "I32";
    default: return "?";
    }
}

/* a random value of the type: multiples of 1/8 in [-2, 2) for half and
 * bfloat16 (exact), anything in [-1, 1) otherwise */
static zc rnd(cudaDataType t)
{
    if (t == CUDA_R_8I || t == CUDA_R_32I)
        return floor(urand() * 8);
    if (t == CUDA_R_16F || t == CUDA_R_16BF)
        return floor(urand() * 16) / 8;
    if (t == CUDA_C_16F || t == CUDA_C_16BF)
        return floor(urand() * 16) / 8 + I * (floor(urand() * 16) / 8);
    zc v = urand();
    if (is_cplx(t))
        v += I * urand();
    return v;
}

/* compare n results of type t with the reference */
static int close_z(const char *what, cudaDataType t, const void *got, const zc *want, size_t n)
{
    double tol = tol_of(t);
    for (size_t i = 0; i < n; i++) {
        zc g = get(t, got, i);
        if (!(cabs(g - want[i]) <= tol * (1 + cabs(want[i])))) {
            bad("%s %s[%zu] = %.9g%+.9gi, expected %.9g%+.9gi", tname(t), what, i, creal(g), cimag(g),
                creal(want[i]), cimag(want[i]));
            return 0;
        }
    }
    return 1;
}

static void *upload(const void *h, size_t bytes)
{
    void *d = dalloc(bytes ? bytes : 1);
    if (bytes)
        DRV(cuMemcpyHtoD_v2((CUdeviceptr)(uintptr_t)d, h, bytes));
    return d;
}

static void download(void *h, const void *d, size_t bytes)
{
    DRV(cuCtxSynchronize());
    if (bytes)
        DRV(cuMemcpyDtoH_v2(h, (CUdeviceptr)(uintptr_t)d, bytes));
}

static void dfree(void *d)
{
    DRV(cuMemFree_v2((CUdeviceptr)(uintptr_t)d));
}

/* ---- a random sparse matrix, dense in A, and its arrays ----------------- */
struct sm {
    int m, n, nnz;
    zc *A;                 /* dense, row-major m x n */
    int64_t *rowptr, *col; /* CSR, sorted */
    int64_t *colptr, *row; /* CSC, sorted */
    int64_t *coo_r, *coo_c;
    zc *csr_v, *csc_v, *coo_v;
};

static void sm_make(struct sm *s, int m, int n, double density, cudaDataType t, int diag)
{
    memset(s, 0, sizeof *s);
    s->m = m, s->n = n;
    s->A = calloc((size_t)m * n + 1, sizeof(zc));
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            if ((urand() + 1) / 2 < density || (diag && i == j)) {
                zc v = rnd(t);
                if (v == 0)
                    v = t == CUDA_R_8I ? 1 : 0.5;
                s->A[(size_t)i * n + j] = v;
                s->nnz++;
            }
    size_t z = (size_t)s->nnz + 1;
    s->rowptr = calloc((size_t)m + 1, 8), s->col = calloc(z, 8), s->csr_v = calloc(z, sizeof(zc));
    s->colptr = calloc((size_t)n + 1, 8), s->row = calloc(z, 8), s->csc_v = calloc(z, sizeof(zc));
    s->coo_r = calloc(z, 8), s->coo_c = calloc(z, 8), s->coo_v = calloc(z, sizeof(zc));
    int k = 0;
    for (int i = 0; i < m; i++) {
        s->rowptr[i] = k;
        for (int j = 0; j < n; j++)
            if (s->A[(size_t)i * n + j] != 0) {
                s->col[k] = j, s->csr_v[k] = s->A[(size_t)i * n + j];
                k++;
            }
    }
    s->rowptr[m] = k;
    k = 0;
    for (int j = 0; j < n; j++) {
        s->colptr[j] = k;
        for (int i = 0; i < m; i++)
            if (s->A[(size_t)i * n + j] != 0) {
                s->row[k] = i, s->csc_v[k] = s->A[(size_t)i * n + j];
                k++;
            }
    }
    s->colptr[n] = k;
    /* COO: the CSR entries in a shuffled order */
    for (int q = 0; q < s->nnz; q++)
        s->coo_r[q] = -1;
    for (int i = 0; i < m; i++)
        for (int64_t q = s->rowptr[i]; q < s->rowptr[i + 1]; q++) {
            int p = (int)(((urand() + 1) / 2) * s->nnz);
            while (s->coo_r[p] >= 0)
                p = (p + 1) % s->nnz;
            s->coo_r[p] = i, s->coo_c[p] = s->col[q], s->coo_v[p] = s->csr_v[q];
        }
}

static void sm_free(struct sm *s)
{
    free(s->A), free(s->rowptr), free(s->col), free(s->csr_v), free(s->colptr), free(s->row), free(s->csc_v);
    free(s->coo_r), free(s->coo_c), free(s->coo_v);
}

/* device copies of index arrays (type it, plus base) and values (type t) */
static void *dev_idx(const int64_t *v, size_t n, cusparseIndexType_t it, int base)
{
    size_t es = it == CUSPARSE_INDEX_64I ? 8 : 4;
    char *h = malloc(n * es + 1);
    for (size_t i = 0; i < n; i++) {
        if (es == 8)
            ((int64_t *)h)[i] = v[i] + base;
        else
            ((int32_t *)h)[i] = (int32_t)(v[i] + base);
    }
    void *d = upload(h, n * es);
    free(h);
    return d;
}

static void *dev_val(const zc *v, size_t n, cudaDataType t)
{
    char *h = malloc(n * vsize(t) + 1);
    for (size_t i = 0; i < n; i++)
        put(t, h, i, v[i]);
    void *d = upload(h, n * vsize(t));
    free(h);
    return d;
}

/* the generic descriptor of s in format f; its device arrays in arr[3] */
static cusparseSpMatDescr_t sm_desc(const struct sm *s, cusparseFormat_t f, cusparseIndexType_t it, int base,
                                    cudaDataType t, void *arr[3])
{
    cusparseSpMatDescr_t d = NULL;
    cusparseIndexBase_t b = base ? CUSPARSE_INDEX_BASE_ONE : CUSPARSE_INDEX_BASE_ZERO;
    cusparseStatus_t r;
    if (f == CUSPARSE_FORMAT_CSR) {
        arr[0] = dev_idx(s->rowptr, (size_t)s->m + 1, it, base);
        arr[1] = dev_idx(s->col, (size_t)s->nnz, it, base);
        arr[2] = dev_val(s->csr_v, (size_t)s->nnz, t);
        r = cusparseCreateCsr(&d, s->m, s->n, s->nnz, arr[0], arr[1], arr[2], it, it, b, t);
    } else if (f == CUSPARSE_FORMAT_CSC) {
        arr[0] = dev_idx(s->colptr, (size_t)s->n + 1, it, base);
        arr[1] = dev_idx(s->row, (size_t)s->nnz, it, base);
        arr[2] = dev_val(s->csc_v, (size_t)s->nnz, t);
        r = cusparseCreateCsc(&d, s->m, s->n, s->nnz, arr[0], arr[1], arr[2], it, it, b, t);
    } else {
        arr[0] = dev_idx(s->coo_r, (size_t)s->nnz, it, base);
        arr[1] = dev_idx(s->coo_c, (size_t)s->nnz, it, base);
        arr[2] = dev_val(s->coo_v, (size_t)s->nnz, t);
        r = cusparseCreateCoo(&d, s->m, s->n, s->nnz, arr[0], arr[1], arr[2], it, b, t);
    }
    if (r)
        bad("creating the matrix: %d", (int)r);
    return d;
}

static void free3(void *arr[3])
{
    for (int i = 0; i < 3; i++)
        dfree(arr[i]);
}

static zc opv(zc v, cusparseOperation_t op)
{
    return op == CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE ? conj(v) : v;
}

static const char *const fmt_name[] = { "", "CSR", "CSC", "COO" };
static const char *const op_name[] = { "N", "T", "C" };

/* ---- the handle and legacy descriptors ---------------------------------- */
static void test_settings(void)
{
    begin("handle, versions, status names, stream, pointer mode, matrix descriptors");
    cusparseHandle_t h;
    int v = 0;
    ST(cusparseCreate(&h), 0);
    ST(cusparseGetVersion(h, &v), 0);
    if (v != 12603)
        bad("version %d, expected 12603", v);
    ST(cusparseGetProperty(MAJOR_VERSION, &v), 0);
    if (v != 12)
        bad("major %d", v);
    ST(cusparseGetProperty(PATCH_LEVEL, &v), 0);
    ST(cusparseGetProperty((libraryPropertyType)7, &v), CUSPARSE_STATUS_INVALID_VALUE);
    if (strcmp(cusparseGetErrorName(CUSPARSE_STATUS_ZERO_PIVOT), "CUSPARSE_STATUS_ZERO_PIVOT") ||
        strcmp(cusparseGetErrorString(CUSPARSE_STATUS_INVALID_VALUE), "invalid value") ||
        strcmp(cusparseGetErrorString((cusparseStatus_t)99), "unrecognized error code"))
        bad("status names");
    CUstream s;
    cudaStream_t got = (cudaStream_t)1;
    DRV(cuStreamCreate(&s, 0));
    ST(cusparseGetStream(h, &got), 0);
    if (got)
        bad("a new handle's stream is not the NULL stream");
    ST(cusparseSetStream(h, (cudaStream_t)s), 0);
    ST(cusparseGetStream(h, &got), 0);
    if (got != (cudaStream_t)s)
        bad("stream not kept");
    cusparsePointerMode_t pm;
    ST(cusparseGetPointerMode(h, &pm), 0);
    if (pm != CUSPARSE_POINTER_MODE_HOST)
        bad("default pointer mode %d", pm);
    ST(cusparseSetPointerMode(h, CUSPARSE_POINTER_MODE_DEVICE), 0);
    ST(cusparseGetPointerMode(h, &pm), 0);
    if (pm != CUSPARSE_POINTER_MODE_DEVICE)
        bad("pointer mode not kept");
    ST(cusparseSetPointerMode(h, (cusparsePointerMode_t)2), CUSPARSE_STATUS_INVALID_VALUE);
    ST(cusparseGetPointerMode(h, NULL), CUSPARSE_STATUS_INVALID_VALUE);
    ST(cusparseDestroy(h), 0);
    ST(cusparseDestroy(h), CUSPARSE_STATUS_NOT_INITIALIZED);
    ST(cusparseSetStream(h, NULL), CUSPARSE_STATUS_NOT_INITIALIZED);
    ST(cusparseGetVersion(NULL, &v), CUSPARSE_STATUS_NOT_INITIALIZED);
    ST(cusparseSetPointerMode((cusparseHandle_t)&v, CUSPARSE_POINTER_MODE_HOST), CUSPARSE_STATUS_NOT_INITIALIZED);
    ST(cusparseCreate(NULL), CUSPARSE_STATUS_INVALID_VALUE);
    DRV(cuStreamDestroy_v2(s));

    cusparseMatDescr_t d;
    ST(cusparseCreateMatDescr(&d), 0);
    if (cusparseGetMatType(d) != CUSPARSE_MATRIX_TYPE_GENERAL || cusparseGetMatFillMode(d) != CUSPARSE_FILL_MODE_LOWER ||
        cusparseGetMatDiagType(d) != CUSPARSE_DIAG_TYPE_NON_UNIT || cusparseGetMatIndexBase(d) != CUSPARSE_INDEX_BASE_ZERO)
        bad("a new descriptor's defaults");
    ST(cusparseSetMatType(d, CUSPARSE_MATRIX_TYPE_TRIANGULAR), 0);
    ST(cusparseSetMatFillMode(d, CUSPARSE_FILL_MODE_UPPER), 0);
    ST(cusparseSetMatDiagType(d, CUSPARSE_DIAG_TYPE_UNIT), 0);
    ST(cusparseSetMatIndexBase(d, CUSPARSE_INDEX_BASE_ONE), 0);
    if (cusparseGetMatType(d) != CUSPARSE_MATRIX_TYPE_TRIANGULAR || cusparseGetMatFillMode(d) != CUSPARSE_FILL_MODE_UPPER ||
        cusparseGetMatDiagType(d) != CUSPARSE_DIAG_TYPE_UNIT || cusparseGetMatIndexBase(d) != CUSPARSE_INDEX_BASE_ONE)
        bad("settings not kept");
    ST(cusparseSetMatType(d, (cusparseMatrixType_t)4), CUSPARSE_STATUS_INVALID_VALUE);
    ST(cusparseSetMatFillMode(d, (cusparseFillMode_t)2), CUSPARSE_STATUS_INVALID_VALUE);
    ST(cusparseSetMatDiagType(d, (cusparseDiagType_t)-1), CUSPARSE_STATUS_INVALID_VALUE);
    ST(cusparseSetMatIndexBase(d, (cusparseIndexBase_t)2), CUSPARSE_STATUS_INVALID_VALUE);
    ST(cusparseDestroyMatDescr(d), 0);
    ST(cusparseDestroyMatDescr(d), CUSPARSE_STATUS_INVALID_VALUE);
    ST(cusparseSetMatType(d, CUSPARSE_MATRIX_TYPE_GENERAL), CUSPARSE_STATUS_INVALID_VALUE);
    ST(cusparseCreateMatDescr(NULL), CUSPARSE_STATUS_INVALID_VALUE);
    end();
}

/* ---- generic descriptors -------------------------------------------------- */
static void test_descriptors(void)
{
    begin("generic descriptors: CSR, CSC, COO, dense vector and matrix, sparse vector");
    int *ro = dalloc(64), *ci = dalloc(64);
    float *va = dalloc(64), *vb = dalloc(64);
    cusparseSpMatDescr_t a;
    int64_t r, c, z, ld;
    void *p0, *p1, *p2;
    cusparseIndexType_t t0, t1;
    cusparseIndexBase_t b;
    cudaDataType vt;
    cusparseFormat_t f;
    ST(cusparseCreateCsr(&a, 4, 5, 6, ro, ci, va, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_64I, CUSPARSE_INDEX_BASE_ONE,
                         CUDA_R_32F), 0);
    ST(cusparseCsrGet(a, &r, &c, &z, &p0, &p1, &p2, &t0, &t1, &b, &vt), 0);
    if (r != 4 || c != 5 || z != 6 || p0 != ro || p1 != ci || p2 != va || t0 != CUSPARSE_INDEX_32I ||
        t1 != CUSPARSE_INDEX_64I || b != CUSPARSE_INDEX_BASE_ONE || vt != CUDA_R_32F)
        bad("cusparseCsrGet");
    ST(cusparseSpMatGetFormat(a, &f), 0);
    ST(cusparseSpMatGetSize(a, &r, &c, &z), 0);
    if (f != CUSPARSE_FORMAT_CSR || r != 4 || c != 5 || z != 6)
        bad("format or size");
    ST(cusparseCsrSetPointers(a, ci, ro, vb), 0);
    ST(cusparseSpMatGetValues(a, &p2), 0);
    if (p2 != vb)
        bad("cusparseCsrSetPointers");
    ST(cusparseSpMatSetValues(a, va), 0);
    ST(cusparseSpMatGetIndexBase(a, &b), 0);
    cusparseFillMode_t fm = CUSPARSE_FILL_MODE_UPPER;
    cusparseDiagType_t dt = CUSPARSE_DIAG_TYPE_UNIT;
    ST(cusparseSpMatGetAttribute(a, CUSPARSE_SPMAT_FILL_MODE, &fm, sizeof fm), 0);
    if (fm != CUSPARSE_FILL_MODE_LOWER)
        bad("default fill mode");
    fm = CUSPARSE_FILL_MODE_UPPER;
    ST(cusparseSpMatSetAttribute(a, CUSPARSE_SPMAT_FILL_MODE, &fm, sizeof fm), 0);
    ST(cusparseSpMatSetAttribute(a, CUSPARSE_SPMAT_DIAG_TYPE, &dt, sizeof dt), 0);
    fm = CUSPARSE_FILL_MODE_LOWER, dt = CUSPARSE_DIAG_TYPE_NON_UNIT;
    ST(cusparseSpMatGetAttribute(a, CUSPARSE_SPMAT_FILL_MODE, &fm, sizeof fm), 0);
    ST(cusparseSpMatGetAttribute(a, CUSPARSE_SPMAT_DIAG_TYPE, &dt, sizeof dt), 0);
    if (fm != CUSPARSE_FILL_MODE_UPPER || dt != CUSPARSE_DIAG_TYPE_UNIT)
        bad("attributes not kept");
    ST(cusparseSpMatSetAttribute(a, CUSPARSE_SPMAT_FILL_MODE, &fm, 8), CUSPARSE_STATUS_INVALID_VALUE);
    int three = 3;
    ST(cusparseSpMatSetAttribute(a, CUSPARSE_SPMAT_DIAG_TYPE, &three, 4), CUSPARSE_STATUS_INVALID_VALUE);
    ST(cusparseSpMatSetAttribute(a, (cusparseSpMatAttribute_t)5, &three, 4), CUSPARSE_STATUS_INVALID_VALUE);
    ST(cusparseCooGet(a, &r, &c, &z, &p0, &p1, &p2, &t0, &b, &vt), CUSPARSE_STATUS_INVALID_VALUE);
    ST(cusparseDestroySpMat(a), 0);
    ST(cusparseDestroySpMat(a), CUSPARSE_STATUS_INVALID_VALUE);
    ST(cusparseSpMatGetSize(a, &r, &c, &z), CUSPARSE_STATUS_INVALID_VALUE);
    ST(cusparseDestroySpMat(NULL), 0);

    ST(cusparseCreateCsc(&a, 4, 5, 6, ro, ci, va, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                         CUDA_C_64F), 0);
    ST(cusparseCscGet(a, &r, &c, &z, &p0, &p1, &p2, &t0, &t1, &b, &vt), 0);
    if (r != 4 || c != 5 || z != 6 || p0 != ro || vt != CUDA_C_64F)
        bad("cusparseCscGet");
    ST(cusparseCscSetPointers(a, ro, ci, vb), 0);
    ST(cusparseDestroySpMat(a), 0);
    cusparseConstSpMatDescr_t ca;
    const void *q0, *q1, *q2;
    ST(cusparseCreateConstCoo(&ca, 4, 5, 6, ro, ci, va, CUSPARSE_INDEX_64I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F), 0);
    ST(cusparseConstCooGet(ca, &r, &c, &z, &q0, &q1, &q2, &t0, &b, &vt), 0);
    if (q0 != ro || q1 != ci || q2 != va || t0 != CUSPARSE_INDEX_64I || vt != CUDA_R_64F)
        bad("cusparseConstCooGet");
    ST(cusparseSpMatGetFormat(ca, &f), 0);
    if (f != CUSPARSE_FORMAT_COO)
        bad("COO format");
    ST(cusparseDestroySpMat(ca), 0);
    /* sizes */
    ST(cusparseCreateCsr(&a, -1, 5, 0, ro, NULL, NULL, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                         CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F), CUSPARSE_STATUS_INVALID_VALUE);
    ST(cusparseCreateCsr(&a, 2, 2, 5, ro, ci, va, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                         CUDA_R_32F), CUSPARSE_STATUS_INVALID_VALUE);
    ST(cusparseCreateCsr(&a, 2, 2, 2, ro, ci, va, (cusparseIndexType_t)9, CUSPARSE_INDEX_32I,
                         CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F), CUSPARSE_STATUS_INVALID_VALUE);
    ST(cusparseCreateCsr(&a, 2, 2, 2, ro, ci, va, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, (cusparseIndexBase_t)3,
                         CUDA_R_32F), CUSPARSE_STATUS_INVALID_VALUE);
    ST(cusparseCreateCsr(NULL, 2, 2, 2, ro, ci, va, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                         CUDA_R_32F), CUSPARSE_STATUS_INVALID_VALUE);

    cusparseDnVecDescr_t x;
    ST(cusparseCreateDnVec(&x, 16, va, CUDA_R_32F), 0);
    ST(cusparseDnVecGet(x, &z, &p0, &vt), 0);
    if (z != 16 || p0 != va || vt != CUDA_R_32F)
        bad("cusparseDnVecGet");
    ST(cusparseDnVecSetValues(x, vb), 0);
    ST(cusparseDnVecGetValues(x, &p0), 0);
    if (p0 != vb)
        bad("cusparseDnVecSetValues");
    ST(cusparseDestroyDnVec(x), 0);
    ST(cusparseDestroyDnVec(x), CUSPARSE_STATUS_INVALID_VALUE);
    ST(cusparseCreateDnVec(&x, -1, va, CUDA_R_32F), CUSPARSE_STATUS_INVALID_VALUE);

    cusparseDnMatDescr_t dm;
    cusparseOrder_t o;
    ST(cusparseCreateDnMat(&dm, 3, 4, 5, va, CUDA_R_64F, CUSPARSE_ORDER_ROW), 0);
    ST(cusparseDnMatGet(dm, &r, &c, &ld, &p0, &vt, &o), 0);
    if (r != 3 || c != 4 || ld != 5 || p0 != va || vt != CUDA_R_64F || o != CUSPARSE_ORDER_ROW)
        bad("cusparseDnMatGet");
    ST(cusparseDnMatSetValues(dm, vb), 0);
    ST(cusparseDnMatGetValues(dm, &p0), 0);
    if (p0 != vb)
        bad("cusparseDnMatSetValues");
    ST(cusparseDestroyDnMat(dm), 0);
    ST(cusparseCreateDnMat(&dm, 3, 4, 3, va, CUDA_R_64F, CUSPARSE_ORDER_ROW), CUSPARSE_STATUS_INVALID_VALUE);
    ST(cusparseCreateDnMat(&dm, 3, 4, 2, va, CUDA_R_64F, CUSPARSE_ORDER_COL), CUSPARSE_STATUS_INVALID_VALUE);
    ST(cusparseCreateDnMat(&dm, 3, 4, 3, va, CUDA_R_64F, (cusparseOrder_t)0), CUSPARSE_STATUS_INVALID_VALUE);

    cusparseSpVecDescr_t sv;
    ST(cusparseCreateSpVec(&sv, 10, 3, ci, va, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ONE, CUDA_C_32F), 0);
    ST(cusparseSpVecGet(sv, &r, &z, &p0, &p1, &t0, &b, &vt), 0);
    if (r != 10 || z != 3 || p0 != ci || p1 != va || t0 != CUSPARSE_INDEX_32I || b != CUSPARSE_INDEX_BASE_ONE ||
        vt != CUDA_C_32F)
        bad("cusparseSpVecGet");
    ST(cusparseSpVecSetValues(sv, vb), 0);
    ST(cusparseSpVecGetValues(sv, &p1), 0);
    ST(cusparseSpVecGetIndexBase(sv, &b), 0);
    if (p1 != vb || b != CUSPARSE_INDEX_BASE_ONE)
        bad("cusparseSpVecSetValues");
    ST(cusparseDestroySpVec(sv), 0);
    ST(cusparseCreateSpVec(&sv, 2, 3, ci, va, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ONE, CUDA_C_32F),
       CUSPARSE_STATUS_INVALID_VALUE);
    dfree(ro), dfree(ci), dfree(va), dfree(vb);
    end();
}

/* ---- SpMV ----------------------------------------------------------------- */
static void spmv_case(cusparseHandle_t h, cusparseFormat_t f, cusparseOperation_t op, cudaDataType at,
                      cudaDataType xt, cudaDataType yt, cudaDataType ct, cusparseIndexType_t it, int base, int devmode,
                      int beta0)
{
    struct sm s;
    sm_make(&s, 23, 17, 0.3, at, 0);
    int t = op != CUSPARSE_OPERATION_NON_TRANSPOSE;
    int nx = t ? s.m : s.n, ny = t ? s.n : s.m;
    zc *x = calloc((size_t)nx, sizeof(zc)), *y = calloc((size_t)ny, sizeof(zc)), *want = calloc((size_t)ny, sizeof(zc));
    for (int i = 0; i < nx; i++)
        x[i] = rnd(xt);
    for (int i = 0; i < ny; i++)
        y[i] = beta0 ? (yt == CUDA_R_32I ? 12345 : NAN) : rnd(yt);
    int exact = at != CUDA_R_32F && at != CUDA_R_64F && at != CUDA_C_32F && at != CUDA_C_64F;
    zc alpha = ct == CUDA_R_32I ? 3 : exact ? 0.5 : is_cplx(ct) ? 0.75 - 0.5 * I : 1.25;
    zc beta = beta0 ? 0 : ct == CUDA_R_32I ? -2 : is_cplx(ct) ? -0.5 + 0.25 * I : -0.5;
    for (int i = 0; i < ny; i++) {
        zc acc = 0;
        for (int k = 0; k < nx; k++)
            acc += (t ? opv(s.A[(size_t)k * s.n + i], op) : s.A[(size_t)i * s.n + k]) * x[k];
        want[i] = alpha * acc + (beta0 ? 0 : beta * y[i]);
    }
    void *arr[3];
    cusparseSpMatDescr_t A = sm_desc(&s, f, it, base, at, arr);
    void *dx = dev_val(x, (size_t)nx, xt), *dy = dev_val(y, (size_t)ny, yt);
    cusparseDnVecDescr_t vx, vy;
    ST(cusparseCreateDnVec(&vx, nx, dx, xt), 0);
    ST(cusparseCreateDnVec(&vy, ny, dy, yt), 0);
    char sc[2][16];
    put(ct, sc[0], 0, alpha);
    put(ct, sc[1], 0, beta);
    const void *pa = sc[0], *pb = sc[1];
    void *dsc = NULL;
    if (devmode) {
        dsc = upload(sc, sizeof sc);
        pa = dsc, pb = (char *)dsc + 16;
        ST(cusparseSetPointerMode(h, CUSPARSE_POINTER_MODE_DEVICE), 0);
    }
    size_t bs = 1;
    ST(cusparseSpMV_bufferSize(h, op, pa, A, vx, pb, vy, ct, CUSPARSE_SPMV_ALG_DEFAULT, &bs), 0);
    ST(cusparseSpMV(h, op, pa, A, vx, pb, vy, ct, CUSPARSE_SPMV_ALG_DEFAULT, NULL), 0);
    ST(cusparseSetPointerMode(h, CUSPARSE_POINTER_MODE_HOST), 0);
    char *got = malloc((size_t)ny * vsize(yt));
    download(got, dy, (size_t)ny * vsize(yt));
    char what[96];
    snprintf(what, sizeof what, "SpMV %s op %s A %s x %s base %d idx%d %s%s: y", fmt_name[f], op_name[op], tname(at),
             tname(xt), base,
             it == CUSPARSE_INDEX_64I ? 64 : 32, devmode ? "device scalars" : "host scalars", beta0 ? " beta 0" : "");
    close_z(what, yt, got, want, (size_t)ny);
    free(got), free(x), free(y), free(want);
    ST(cusparseDestroyDnVec(vx), 0);
    ST(cusparseDestroyDnVec(vy), 0);
    ST(cusparseDestroySpMat(A), 0);
    free3(arr), dfree(dx), dfree(dy);
    if (dsc)
        dfree(dsc);
    sm_free(&s);
}

static void test_spmv(cusparseHandle_t h)
{
    static const cudaDataType types[] = { CUDA_R_32F, CUDA_R_64F, CUDA_C_32F, CUDA_C_64F };
    begin("SpMV: CSR, CSC, COO x N, T, C x S, D, C, Z; bases, index widths, pointer modes, beta 0");
    int n = 0;
    for (int f = CUSPARSE_FORMAT_CSR; f <= CUSPARSE_FORMAT_COO; f++)
        for (int op = 0; op < 3; op++)
            for (int ti = 0; ti < 4; ti++, n++)
                spmv_case(h, (cusparseFormat_t)f, (cusparseOperation_t)op, types[ti], types[ti], types[ti], types[ti],
                          n % 2 ? CUSPARSE_INDEX_64I : CUSPARSE_INDEX_32I, n % 3 == 1, n % 4 == 3, n % 5 == 2);
    /* the conjugate gradient's case (the fast path) in both pointer modes */
    spmv_case(h, CUSPARSE_FORMAT_CSR, 0, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUSPARSE_INDEX_32I, 0, 1, 0);
    spmv_case(h, CUSPARSE_FORMAT_CSR, 0, CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, CUSPARSE_INDEX_32I, 1, 0, 1);
    end();
    begin("SpMV mixed types: half, bfloat16 (real, complex), int8, real A with complex x and y");
    spmv_case(h, CUSPARSE_FORMAT_CSR, 0, CUDA_R_16F, CUDA_R_16F, CUDA_R_16F, CUDA_R_32F, CUSPARSE_INDEX_32I, 0, 0, 0);
    spmv_case(h, CUSPARSE_FORMAT_CSR, 1, CUDA_R_16F, CUDA_R_16F, CUDA_R_32F, CUDA_R_32F, CUSPARSE_INDEX_32I, 0, 0, 0);
    spmv_case(h, CUSPARSE_FORMAT_COO, 0, CUDA_R_16BF, CUDA_R_16BF, CUDA_R_16BF, CUDA_R_32F, CUSPARSE_INDEX_64I, 1, 1, 0);
    spmv_case(h, CUSPARSE_FORMAT_CSC, 0, CUDA_R_16BF, CUDA_R_16BF, CUDA_R_32F, CUDA_R_32F, CUSPARSE_INDEX_32I, 0, 0, 1);
    spmv_case(h, CUSPARSE_FORMAT_CSR, 2, CUDA_C_16F, CUDA_C_16F, CUDA_C_16F, CUDA_C_32F, CUSPARSE_INDEX_32I, 0, 0, 0);
    spmv_case(h, CUSPARSE_FORMAT_COO, 0, CUDA_C_16BF, CUDA_C_16BF, CUDA_C_16BF, CUDA_C_32F, CUSPARSE_INDEX_32I, 1, 0, 0);
    spmv_case(h, CUSPARSE_FORMAT_CSR, 0, CUDA_R_8I, CUDA_R_8I, CUDA_R_32I, CUDA_R_32I, CUSPARSE_INDEX_32I, 0, 1, 0);
    spmv_case(h, CUSPARSE_FORMAT_CSC, 1, CUDA_R_8I, CUDA_R_8I, CUDA_R_32I, CUDA_R_32I, CUSPARSE_INDEX_64I, 0, 0, 1);
    spmv_case(h, CUSPARSE_FORMAT_CSR, 1, CUDA_R_8I, CUDA_R_8I, CUDA_R_32F, CUDA_R_32F, CUSPARSE_INDEX_32I, 1, 0, 0);
    spmv_case(h, CUSPARSE_FORMAT_CSR, 2, CUDA_R_32F, CUDA_C_32F, CUDA_C_32F, CUDA_C_32F, CUSPARSE_INDEX_32I, 0, 0, 0);
    spmv_case(h, CUSPARSE_FORMAT_COO, 0, CUDA_R_64F, CUDA_C_64F, CUDA_C_64F, CUDA_C_64F, CUSPARSE_INDEX_64I, 1, 1, 0);
    end();
}

/* ---- SpMM ----------------------------------------------------------------- */
static void spmm_case(cusparseHandle_t h, cusparseFormat_t f, cusparseOperation_t opa, cusparseOperation_t opb,
                      cusparseOrder_t ob, cusparseOrder_t oc, cudaDataType t)
{
    struct sm s;
    sm_make(&s, 13, 11, 0.35, t, 0);
    int ta = opa != CUSPARSE_OPERATION_NON_TRANSPOSE, tb = opb != CUSPARSE_OPERATION_NON_TRANSPOSE;
    int m = ta ? s.n : s.m, k = ta ? s.m : s.n, n = 5;
    int brows = tb ? n : k, bcols = tb ? k : n;
    int ldb = (ob == CUSPARSE_ORDER_COL ? brows : bcols) + 2, ldc = (oc == CUSPARSE_ORDER_COL ? m : n) + 3;
    size_t bsz = (size_t)ldb * (ob == CUSPARSE_ORDER_COL ? bcols : brows);
    size_t csz = (size_t)ldc * (oc == CUSPARSE_ORDER_COL ? n : m);
    zc *B = calloc(bsz, sizeof(zc)), *C = calloc(csz, sizeof(zc)), *want = calloc(csz, sizeof(zc));
    for (size_t i = 0; i < bsz; i++)
        B[i] = rnd(t);
    for (size_t i = 0; i < csz; i++)
        want[i] = C[i] = rnd(t);
#define AT(o, ld, i, j) ((o) == CUSPARSE_ORDER_COL ? (size_t)(i) + (size_t)(j) * (ld) : (size_t)(i) * (ld) + (size_t)(j))
    zc alpha = is_cplx(t) ? 0.5 + 0.5 * I : 0.5, beta = 2;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            zc acc = 0;
            for (int p = 0; p < k; p++) {
                zc a = ta ? opv(s.A[(size_t)p * s.n + i], opa) : s.A[(size_t)i * s.n + p];
                zc b = tb ? opv(B[AT(ob, ldb, j, p)], opb) : B[AT(ob, ldb, p, j)];
                acc += a * b;
            }
            want[AT(oc, ldc, i, j)] = alpha * acc + beta * C[AT(oc, ldc, i, j)];
        }
    void *arr[3];
    cusparseSpMatDescr_t A = sm_desc(&s, f, CUSPARSE_INDEX_32I, 0, t, arr);
    void *db = dev_val(B, bsz, t), *dc = dev_val(C, csz, t);
    cusparseDnMatDescr_t mb, mc;
    ST(cusparseCreateDnMat(&mb, brows, bcols, ldb, db, t, ob), 0);
    ST(cusparseCreateDnMat(&mc, m, n, ldc, dc, t, oc), 0);
    char sc[2][16];
    put(t, sc[0], 0, alpha);
    put(t, sc[1], 0, beta);
    size_t bs = 1;
    ST(cusparseSpMM_bufferSize(h, opa, opb, sc[0], A, mb, sc[1], mc, t, CUSPARSE_SPMM_ALG_DEFAULT, &bs), 0);
    ST(cusparseSpMM(h, opa, opb, sc[0], A, mb, sc[1], mc, t, CUSPARSE_SPMM_ALG_DEFAULT, NULL), 0);
    char *got = malloc(csz * vsize(t));
    download(got, dc, csz * vsize(t));
    char what[96];
    snprintf(what, sizeof what, "SpMM %s op(A) %s op(B) %s B %s C %s: C", fmt_name[f], op_name[opa], op_name[opb],
             ob == CUSPARSE_ORDER_COL ? "col" : "row", oc == CUSPARSE_ORDER_COL ? "col" : "row");
    close_z(what, t, got, want, csz);   /* the gaps are the values as they were */
    free(got), free(B), free(C), free(want);
    ST(cusparseDestroyDnMat(mb), 0);
    ST(cusparseDestroyDnMat(mc), 0);
    ST(cusparseDestroySpMat(A), 0);
    free3(arr), dfree(db), dfree(dc);
    sm_free(&s);
}

static void test_spmm(cusparseHandle_t h)
{
    begin("SpMM: CSR, CSC, COO x op(A), op(B) N, T, C x orders; S, D, C, Z");
    static const cudaDataType types[] = { CUDA_R_32F, CUDA_R_64F, CUDA_C_32F, CUDA_C_64F };
    int n = 0;
    for (int f = CUSPARSE_FORMAT_CSR; f <= CUSPARSE_FORMAT_COO; f++)
        for (int oa = 0; oa < 3; oa++)
            for (int ob = 0; ob < 3; ob++, n++)
                spmm_case(h, (cusparseFormat_t)f, (cusparseOperation_t)oa, (cusparseOperation_t)ob,
                          n % 2 ? CUSPARSE_ORDER_ROW : CUSPARSE_ORDER_COL,
                          n % 3 ? CUSPARSE_ORDER_COL : CUSPARSE_ORDER_ROW, types[n % 4]);
    end();
}

/* ---- SpSV ----------------------------------------------------------------- */
static void spsv_case(cusparseHandle_t h, cusparseFillMode_t fill, cusparseDiagType_t diag, cusparseOperation_t op,
                      cudaDataType t, int inplace)
{
    struct sm s;
    int n = 19;
    sm_make(&s, n, n, 0.3, t, 1);
    /* a strong diagonal keeps the solve well conditioned */
    for (int i = 0; i < n; i++)
        s.A[(size_t)i * n + i] += 4;
    for (int i = 0, q = 0; i < n; i++)   /* the values again (the pattern is the same) */
        for (int j = 0; j < n; j++)
            if (s.A[(size_t)i * n + j] != 0)
                s.csr_v[q++] = s.A[(size_t)i * n + j];
    /* the triangle as a dense matrix T (the other side ignored) */
    zc *T = calloc((size_t)n * n, sizeof(zc)), *x = calloc((size_t)n, sizeof(zc)), *want = calloc((size_t)n, sizeof(zc));
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            int in = fill == CUSPARSE_FILL_MODE_LOWER ? j <= i : j >= i;
            if (in)
                T[(size_t)i * n + j] = i == j && diag == CUSPARSE_DIAG_TYPE_UNIT ? 1 : s.A[(size_t)i * n + j];
        }
    for (int i = 0; i < n; i++)
        x[i] = rnd(t);
    zc alpha = is_cplx(t) ? 1.5 - 0.5 * I : 1.5;
    /* op(T) want = alpha x, by substitution on op(T) */
    int lower_eff = (fill == CUSPARSE_FILL_MODE_LOWER) == (op == CUSPARSE_OPERATION_NON_TRANSPOSE);
    for (int c = 0; c < n; c++) {
        int i = lower_eff ? c : n - 1 - c;
        zc sum = alpha * x[i];
        for (int j = 0; j < n; j++) {
            if (j == i || (lower_eff ? j > i : j < i))
                continue;
            zc a = op == CUSPARSE_OPERATION_NON_TRANSPOSE ? T[(size_t)i * n + j] : opv(T[(size_t)j * n + i], op);
            sum -= a * want[j];
        }
        want[i] = sum / opv(T[(size_t)i * n + i], op);
    }
    void *arr[3];
    cusparseSpMatDescr_t A = sm_desc(&s, CUSPARSE_FORMAT_CSR, CUSPARSE_INDEX_32I, 0, t, arr);
    ST(cusparseSpMatSetAttribute(A, CUSPARSE_SPMAT_FILL_MODE, &fill, sizeof fill), 0);
    ST(cusparseSpMatSetAttribute(A, CUSPARSE_SPMAT_DIAG_TYPE, &diag, sizeof diag), 0);
    void *dx = dev_val(x, (size_t)n, t), *dy = inplace ? dx : dev_val(want, (size_t)n, t);
    cusparseDnVecDescr_t vx, vy;
    ST(cusparseCreateDnVec(&vx, n, dx, t), 0);
    ST(cusparseCreateDnVec(&vy, n, dy, t), 0);
    char sc[16];
    put(t, sc, 0, alpha);
    cusparseSpSVDescr_t d;
    size_t bs = 1;
    ST(cusparseSpSV_createDescr(&d), 0);
    ST(cusparseSpSV_bufferSize(h, op, sc, A, vx, vy, t, CUSPARSE_SPSV_ALG_DEFAULT, d, &bs), 0);
    ST(cusparseSpSV_solve(h, op, sc, A, vx, vy, t, CUSPARSE_SPSV_ALG_DEFAULT, d), CUSPARSE_STATUS_INVALID_VALUE);
    ST(cusparseSpSV_analysis(h, op, sc, A, vx, vy, t, CUSPARSE_SPSV_ALG_DEFAULT, d, NULL), 0);
    ST(cusparseSpSV_solve(h, op, sc, A, vx, vy, t, CUSPARSE_SPSV_ALG_DEFAULT, d), 0);
    char *got = malloc((size_t)n * vsize(t));
    download(got, dy, (size_t)n * vsize(t));
    char what[96];
    snprintf(what, sizeof what, "SpSV %s %s op %s%s: y", fill ? "upper" : "lower", diag ? "unit" : "non-unit",
             op_name[op], inplace ? " in place" : "");
    close_z(what, t, got, want, (size_t)n);
    free(got), free(T), free(x), free(want);
    ST(cusparseSpSV_destroyDescr(d), 0);
    ST(cusparseDestroyDnVec(vx), 0);
    ST(cusparseDestroyDnVec(vy), 0);
    ST(cusparseDestroySpMat(A), 0);
    free3(arr), dfree(dx);
    if (!inplace)
        dfree(dy);
    sm_free(&s);
}

static void test_spsv(cusparseHandle_t h)
{
    begin("SpSV: lower, upper x unit, non-unit x N, T, C; S, D, C, Z; in place");
    static const cudaDataType types[] = { CUDA_R_32F, CUDA_R_64F, CUDA_C_32F, CUDA_C_64F };
    int n = 0;
    for (int f = 0; f < 2; f++)
        for (int d = 0; d < 2; d++)
            for (int op = 0; op < 3; op++, n++)
                spsv_case(h, (cusparseFillMode_t)f, (cusparseDiagType_t)d, (cusparseOperation_t)op, types[n % 4],
                          n % 5 == 1);
    end();
}

/* ---- csrilu02, csric02 ---------------------------------------------------- */
/* dense ILU(0) / IC(0) on the pattern of s (reference); result in R */
static void ref_fact(const struct sm *s, int ic, zc *R)
{
    int n = s->m;
    memcpy(R, s->A, (size_t)n * n * sizeof(zc));
    for (int i = 0; i < n; i++) {
        if (!ic) {
            for (int k = 0; k < i; k++) {
                if (s->A[(size_t)i * n + k] == 0)
                    continue;
                R[(size_t)i * n + k] /= R[(size_t)k * n + k];
                for (int j = k + 1; j < n; j++)
                    if (s->A[(size_t)i * n + j] != 0)
                        R[(size_t)i * n + j] -= R[(size_t)i * n + k] * R[(size_t)k * n + j];
            }
        } else {
            double sq = 0;
            for (int j = 0; j < i; j++) {
                if (s->A[(size_t)i * n + j] == 0)
                    continue;
                zc v = s->A[(size_t)i * n + j];
                for (int k = 0; k < j; k++)
                    if (s->A[(size_t)i * n + k] != 0 && s->A[(size_t)j * n + k] != 0)
                        v -= R[(size_t)i * n + k] * conj(R[(size_t)j * n + k]);
                v /= R[(size_t)j * n + j];
                R[(size_t)i * n + j] = v;
                sq += creal(v * conj(v));
            }
            R[(size_t)i * n + i] = sqrt(creal(s->A[(size_t)i * n + i]) - sq);
        }
    }
}

typedef cusparseStatus_t (*fact_fn)(cusparseHandle_t, int, int, const cusparseMatDescr_t, void *, const int *,
                                    const int *, void *, cusparseSolvePolicy_t, void *);
typedef cusparseStatus_t (*size_fn)(cusparseHandle_t, int, int, const cusparseMatDescr_t, void *, const int *,
                                    const int *, void *, int *);

static void fact_case(cusparseHandle_t h, int ic, cudaDataType t, int base)
{
    static const struct { size_fn size; fact_fn analysis, fact; } fns[2][4] = {
        { { (size_fn)cusparseScsrilu02_bufferSize, (fact_fn)cusparseScsrilu02_analysis, (fact_fn)cusparseScsrilu02 },
          { (size_fn)cusparseDcsrilu02_bufferSize, (fact_fn)cusparseDcsrilu02_analysis, (fact_fn)cusparseDcsrilu02 },
          { (size_fn)cusparseCcsrilu02_bufferSize, (fact_fn)cusparseCcsrilu02_analysis, (fact_fn)cusparseCcsrilu02 },
          { (size_fn)cusparseZcsrilu02_bufferSize, (fact_fn)cusparseZcsrilu02_analysis, (fact_fn)cusparseZcsrilu02 } },
        { { (size_fn)cusparseScsric02_bufferSize, (fact_fn)cusparseScsric02_analysis, (fact_fn)cusparseScsric02 },
          { (size_fn)cusparseDcsric02_bufferSize, (fact_fn)cusparseDcsric02_analysis, (fact_fn)cusparseDcsric02 },
          { (size_fn)cusparseCcsric02_bufferSize, (fact_fn)cusparseCcsric02_analysis, (fact_fn)cusparseCcsric02 },
          { (size_fn)cusparseZcsric02_bufferSize, (fact_fn)cusparseZcsric02_analysis, (fact_fn)cusparseZcsric02 } },
    };
    int ti = t == CUDA_R_32F ? 0 : t == CUDA_R_64F ? 1 : t == CUDA_C_32F ? 2 : 3;
    struct sm s;
    int n = 21;
    sm_make(&s, n, n, 0.25, t, 1);
    if (ic) {
        /* Hermitian, diagonally dominant: the lower triangle mirrored */
        for (int i = 0; i < n; i++)
            for (int j = i + 1; j < n; j++)
                s.A[(size_t)i * n + j] = conj(s.A[(size_t)j * n + i]);
    }
    for (int i = 0; i < n; i++)
        s.A[(size_t)i * n + i] = n;
    /* the arrays again, from the adjusted dense matrix */
    free(s.rowptr), free(s.col), free(s.csr_v);
    s.rowptr = calloc((size_t)n + 1, 8), s.col = calloc((size_t)n * n, 8), s.csr_v = calloc((size_t)n * n, sizeof(zc));
    s.nnz = 0;
    for (int i = 0; i < n; i++) {
        s.rowptr[i] = s.nnz;
        for (int j = 0; j < n; j++)
            if (s.A[(size_t)i * n + j] != 0) {
                s.col[s.nnz] = j, s.csr_v[s.nnz] = s.A[(size_t)i * n + j];
                s.nnz++;
            }
    }
    s.rowptr[n] = s.nnz;
    zc *R = calloc((size_t)n * n, sizeof(zc)), *want = calloc((size_t)s.nnz, sizeof(zc));
    ref_fact(&s, ic, R);
    for (int i = 0, q = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (s.A[(size_t)i * n + j] != 0)
                want[q++] = ic && j > i ? s.A[(size_t)i * n + j] : R[(size_t)i * n + j];
    void *rp = dev_idx(s.rowptr, (size_t)n + 1, CUSPARSE_INDEX_32I, base);
    void *ci = dev_idx(s.col, (size_t)s.nnz, CUSPARSE_INDEX_32I, base);
    void *v = dev_val(s.csr_v, (size_t)s.nnz, t);
    cusparseMatDescr_t d;
    ST(cusparseCreateMatDescr(&d), 0);
    ST(cusparseSetMatIndexBase(d, base ? CUSPARSE_INDEX_BASE_ONE : CUSPARSE_INDEX_BASE_ZERO), 0);
    void *info;
    ST(ic ? cusparseCreateCsric02Info((csric02Info_t *)&info) : cusparseCreateCsrilu02Info((csrilu02Info_t *)&info), 0);
    int bs = -1, pos = 7;
    ST(fns[ic][ti].size(h, n, s.nnz, d, v, rp, ci, info, &bs), 0);
    if (bs < 0)
        bad("buffer size %d", bs);
    ST(fns[ic][ti].fact(h, n, s.nnz, d, v, rp, ci, info, CUSPARSE_SOLVE_POLICY_USE_LEVEL, NULL),
       CUSPARSE_STATUS_INVALID_VALUE);   /* no analysis yet */
    ST(fns[ic][ti].analysis(h, n, s.nnz, d, v, rp, ci, info, CUSPARSE_SOLVE_POLICY_USE_LEVEL, NULL), 0);
    ST(ic ? cusparseXcsric02_zeroPivot(h, info, &pos) : cusparseXcsrilu02_zeroPivot(h, info, &pos), 0);
    if (pos != -1)
        bad("zero pivot %d after the analysis of a full diagonal", pos);
    ST(fns[ic][ti].fact(h, n, s.nnz, d, v, rp, ci, info, CUSPARSE_SOLVE_POLICY_NO_LEVEL, NULL), 0);
    ST(ic ? cusparseXcsric02_zeroPivot(h, info, &pos) : cusparseXcsrilu02_zeroPivot(h, info, &pos), 0);
    char *got = malloc((size_t)s.nnz * vsize(t));
    download(got, v, (size_t)s.nnz * vsize(t));
    char what[64];
    snprintf(what, sizeof what, "%s base %d: values", ic ? "csric02" : "csrilu02", base);
    close_z(what, t, got, want, (size_t)s.nnz);
    free(got), free(R), free(want);
    ST(ic ? cusparseDestroyCsric02Info(info) : cusparseDestroyCsrilu02Info(info), 0);
    ST(cusparseDestroyMatDescr(d), 0);
    dfree(rp), dfree(ci), dfree(v);
    sm_free(&s);
}

static void test_zero_pivots(cusparseHandle_t h)
{
    begin("csrilu02 / csric02 zero pivots: structural (analysis), numerical (factorisation), index base");
    /* row 2 has no diagonal: [[1 0 0] [0 1 0] [1 1 0]] */
    int rp[4] = { 0, 1, 2, 4 }, ci[4] = { 0, 1, 0, 1 };
    float v[4] = { 1, 1, 1, 1 };
    int *drp = upload(rp, sizeof rp), *dci = upload(ci, sizeof ci);
    float *dv = upload(v, sizeof v);
    cusparseMatDescr_t d;
    csrilu02Info_t info;
    int pos = 0;
    ST(cusparseCreateMatDescr(&d), 0);
    ST(cusparseCreateCsrilu02Info(&info), 0);
    ST(cusparseScsrilu02_analysis(h, 3, 4, d, dv, drp, dci, info, CUSPARSE_SOLVE_POLICY_USE_LEVEL, NULL), 0);
    ST(cusparseXcsrilu02_zeroPivot(h, info, &pos), CUSPARSE_STATUS_ZERO_PIVOT);
    if (pos != 2)
        bad("structural zero at %d, expected 2", pos);
    /* numerical: [[1 1] [1 1]] gives u_11 = 0; one-based */
    int rp2[3] = { 1, 3, 5 }, ci2[4] = { 1, 2, 1, 2 };
    int *drp2 = upload(rp2, sizeof rp2), *dci2 = upload(ci2, sizeof ci2);
    ST(cusparseSetMatIndexBase(d, CUSPARSE_INDEX_BASE_ONE), 0);
    ST(cusparseScsrilu02_analysis(h, 2, 4, d, dv, drp2, dci2, info, CUSPARSE_SOLVE_POLICY_USE_LEVEL, NULL), 0);
    ST(cusparseXcsrilu02_zeroPivot(h, info, &pos), 0);
    if (pos != -1)
        bad("structural zero %d reported", pos);
    ST(cusparseScsrilu02(h, 2, 4, d, dv, drp2, dci2, info, CUSPARSE_SOLVE_POLICY_USE_LEVEL, NULL), 0);
    ST(cusparseXcsrilu02_zeroPivot(h, info, &pos), CUSPARSE_STATUS_ZERO_PIVOT);
    if (pos != 2)
        bad("numerical zero at %d, expected 2 (one-based)", pos);
    /* the position in device memory, in device pointer mode */
    int *dpos = dalloc(4);
    ST(cusparseSetPointerMode(h, CUSPARSE_POINTER_MODE_DEVICE), 0);
    ST(cusparseXcsrilu02_zeroPivot(h, info, dpos), CUSPARSE_STATUS_ZERO_PIVOT);
    ST(cusparseXcsrilu02_zeroPivot(h, info, (int *)&pos + 1000000), CUSPARSE_STATUS_INVALID_VALUE);
    ST(cusparseSetPointerMode(h, CUSPARSE_POINTER_MODE_HOST), 0);
    pos = 0;
    download(&pos, dpos, 4);
    if (pos != 2)
        bad("device position %d", pos);
    /* IC: a diagonal that is not positive: [[1 2] [2 1]] */
    float v3[4] = { 1, 2, 2, 1 };
    float *dv3 = upload(v3, sizeof v3);
    csric02Info_t ici;
    ST(cusparseCreateCsric02Info(&ici), 0);
    ST(cusparseScsric02_analysis(h, 2, 4, d, dv3, drp2, dci2, ici, CUSPARSE_SOLVE_POLICY_USE_LEVEL, NULL), 0);
    ST(cusparseScsric02(h, 2, 4, d, dv3, drp2, dci2, ici, CUSPARSE_SOLVE_POLICY_USE_LEVEL, NULL), 0);
    ST(cusparseXcsric02_zeroPivot(h, ici, &pos), CUSPARSE_STATUS_ZERO_PIVOT);
    if (pos != 2)
        bad("IC zero pivot at %d, expected 2", pos);
    /* destroyed while its factorisation is queued (the info outlives it) */
    ST(cusparseScsric02(h, 2, 4, d, dv3, drp2, dci2, ici, CUSPARSE_SOLVE_POLICY_USE_LEVEL, NULL), 0);
    ST(cusparseDestroyCsric02Info(ici), 0);
    ST(cusparseXcsric02_zeroPivot(h, ici, &pos), CUSPARSE_STATUS_INVALID_VALUE);
    ST(cusparseDestroyCsrilu02Info(info), 0);
    ST(cusparseDestroyMatDescr(d), 0);
    DRV(cuCtxSynchronize());
    dfree(drp), dfree(dci), dfree(dv), dfree(drp2), dfree(dci2), dfree(dpos), dfree(dv3);
    end();
}

static void test_fact(cusparseHandle_t h)
{
    begin("csrilu02 and csric02: S, D, C, Z, bases 0 and 1, against dense ILU(0) / IC(0) on the pattern");
    static const cudaDataType types[] = { CUDA_R_32F, CUDA_R_64F, CUDA_C_32F, CUDA_C_64F };
    for (int ic = 0; ic < 2; ic++)
        for (int ti = 0; ti < 4; ti++)
            fact_case(h, ic, types[ti], (ic + ti) % 2);
    end();
    test_zero_pivots(h);
}

/* ---- Scatter, Gather -------------------------------------------------------- */
static void test_scatter_gather(cusparseHandle_t h)
{
    begin("Scatter and Gather (base 1, 64-bit indices)");
    int64_t idx[4] = { 2, 5, 7, 10 };   /* one-based */
    double xv[4] = { 1, 2, 3, 4 }, y[10], back[4];
    for (int i = 0; i < 10; i++)
        y[i] = -1;
    int64_t *di = upload(idx, sizeof idx);
    double *dx = upload(xv, sizeof xv), *dy = upload(y, sizeof y);
    cusparseSpVecDescr_t sx;
    cusparseDnVecDescr_t vy;
    ST(cusparseCreateSpVec(&sx, 10, 4, di, dx, CUSPARSE_INDEX_64I, CUSPARSE_INDEX_BASE_ONE, CUDA_R_64F), 0);
    ST(cusparseCreateDnVec(&vy, 10, dy, CUDA_R_64F), 0);
    ST(cusparseScatter(h, sx, vy), 0);
    download(y, dy, sizeof y);
    for (int i = 0; i < 10; i++) {
        double w = i == 1 ? 1 : i == 4 ? 2 : i == 6 ? 3 : i == 9 ? 4 : -1;
        if (y[i] != w)
            bad("scatter y[%d] = %g, expected %g", i, y[i], w);
    }
    for (int i = 0; i < 10; i++)
        y[i] = 10 * i;
    DRV(cuMemcpyHtoD_v2((CUdeviceptr)(uintptr_t)dy, y, sizeof y));
    ST(cusparseGather(h, vy, sx), 0);
    download(back, dx, sizeof back);
    for (int k = 0; k < 4; k++)
        if (back[k] != 10.0 * (double)(idx[k] - 1))
            bad("gather x[%d] = %g", k, back[k]);
    /* an index out of range: an error, nothing written */
    int64_t badidx[4] = { 2, 5, 7, 11 };
    DRV(cuMemcpyHtoD_v2((CUdeviceptr)(uintptr_t)di, badidx, sizeof badidx));
    ST(cusparseScatter(h, sx, vy), CUSPARSE_STATUS_INVALID_VALUE);
    cusparseDnVecDescr_t vf;
    float *df = dalloc(40);
    ST(cusparseCreateDnVec(&vf, 10, df, CUDA_R_32F), 0);
    ST(cusparseScatter(h, sx, vf), CUSPARSE_STATUS_NOT_SUPPORTED);
    ST(cusparseDestroyDnVec(vf), 0);
    ST(cusparseDestroySpVec(sx), 0);
    ST(cusparseDestroyDnVec(vy), 0);
    dfree(di), dfree(dx), dfree(dy), dfree(df);
    end();
}

/* ---- conversions ------------------------------------------------------------ */
static void test_convert(cusparseHandle_t h)
{
    begin("Csr2cscEx2 (numeric, symbolic), Xcoo2csr, Xcsr2coo; indices out of range");
    struct sm s;
    sm_make(&s, 23, 17, 0.3, CUDA_C_64F, 0);
    int m = s.m, n = s.n, nnz = s.nnz, base = 1;
    int *rp = dev_idx(s.rowptr, (size_t)m + 1, CUSPARSE_INDEX_32I, base);
    int *ci = dev_idx(s.col, (size_t)nnz, CUSPARSE_INDEX_32I, base);
    void *v = dev_val(s.csr_v, (size_t)nnz, CUDA_C_64F);
    int *cp = dalloc(((size_t)n + 1) * 4), *ri = dalloc((size_t)nnz * 4);
    void *cv = dalloc((size_t)nnz * 16);
    size_t bs = 1;
    ST(cusparseCsr2cscEx2_bufferSize(h, m, n, nnz, v, rp, ci, cv, cp, ri, CUDA_C_64F, CUSPARSE_ACTION_NUMERIC,
                                     CUSPARSE_INDEX_BASE_ONE, CUSPARSE_CSR2CSC_ALG_DEFAULT, &bs), 0);
    ST(cusparseCsr2cscEx2(h, m, n, nnz, v, rp, ci, cv, cp, ri, CUDA_C_64F, CUSPARSE_ACTION_NUMERIC,
                          CUSPARSE_INDEX_BASE_ONE, CUSPARSE_CSR2CSC_ALG_DEFAULT, NULL), 0);
    int *hcp = malloc(((size_t)n + 1) * 4), *hri = malloc((size_t)nnz * 4);
    char *hcv = malloc((size_t)nnz * 16);
    download(hcp, cp, ((size_t)n + 1) * 4);
    download(hri, ri, (size_t)nnz * 4);
    download(hcv, cv, (size_t)nnz * 16);
    for (int j = 0; j <= n; j++)
        if (hcp[j] != s.colptr[j] + base) {
            bad("column offset %d = %d, expected %lld", j, hcp[j], (long long)s.colptr[j] + base);
            break;
        }
    for (int k = 0; k < nnz; k++)
        if (hri[k] != s.row[k] + base) {
            bad("row index %d = %d, expected %lld", k, hri[k], (long long)s.row[k] + base);
            break;
        }
    close_z("csr2csc values", CUDA_C_64F, hcv, s.csc_v, (size_t)nnz);
    /* symbolic: the values are not written */
    DRV(cuMemsetD8_v2((CUdeviceptr)(uintptr_t)cv, 0, (size_t)nnz * 16));
    ST(cusparseCsr2cscEx2(h, m, n, nnz, v, rp, ci, cv, cp, ri, CUDA_C_64F, CUSPARSE_ACTION_SYMBOLIC,
                          CUSPARSE_INDEX_BASE_ONE, CUSPARSE_CSR2CSC_ALG_DEFAULT, NULL), 0);
    download(hcv, cv, (size_t)nnz * 16);
    for (int k = 0; k < nnz * 16; k++)
        if (hcv[k]) {
            bad("a symbolic conversion wrote the values");
            break;
        }
    /* CSR row offsets -> COO rows -> CSR row offsets */
    int *coo = dalloc((size_t)nnz * 4), *rp2 = dalloc(((size_t)m + 1) * 4);
    ST(cusparseXcsr2coo(h, rp, nnz, m, coo, CUSPARSE_INDEX_BASE_ONE), 0);
    ST(cusparseXcoo2csr(h, coo, nnz, m, rp2, CUSPARSE_INDEX_BASE_ONE), 0);
    int *hcoo = malloc((size_t)nnz * 4), *hrp = malloc(((size_t)m + 1) * 4);
    download(hcoo, coo, (size_t)nnz * 4);
    download(hrp, rp2, ((size_t)m + 1) * 4);
    for (int i = 0; i < m; i++)
        for (int64_t k = s.rowptr[i]; k < s.rowptr[i + 1]; k++)
            if (hcoo[k] != i + base) {
                bad("csr2coo row %lld = %d, expected %d", (long long)k, hcoo[k], i + base);
                i = m;
                break;
            }
    for (int i = 0; i <= m; i++)
        if (hrp[i] != s.rowptr[i] + base) {
            bad("coo2csr offset %d = %d, expected %lld", i, hrp[i], (long long)s.rowptr[i] + base);
            break;
        }
    /* bad input: a column past n, a row past m, decreasing offsets, enums */
    ST(cusparseCsr2cscEx2(h, m, n - 1, nnz, v, rp, ci, cv, cp, ri, CUDA_C_64F, CUSPARSE_ACTION_NUMERIC,
                          CUSPARSE_INDEX_BASE_ONE, CUSPARSE_CSR2CSC_ALG_DEFAULT, NULL),
       s.colptr[n] > s.colptr[n - 1] ? CUSPARSE_STATUS_INVALID_VALUE : CUSPARSE_STATUS_SUCCESS);
    ST(cusparseXcoo2csr(h, coo, nnz, m - 1, rp2, CUSPARSE_INDEX_BASE_ONE),
       s.rowptr[m] > s.rowptr[m - 1] ? CUSPARSE_STATUS_INVALID_VALUE : CUSPARSE_STATUS_SUCCESS);
    ST(cusparseXcoo2csr(h, coo, nnz, m, rp2, CUSPARSE_INDEX_BASE_ZERO), CUSPARSE_STATUS_INVALID_VALUE);
    ST(cusparseXcsr2coo(h, rp, nnz + 1, m, coo, CUSPARSE_INDEX_BASE_ONE), CUSPARSE_STATUS_INVALID_VALUE);
    ST(cusparseXcsr2coo(h, rp, nnz, m, coo, (cusparseIndexBase_t)2), CUSPARSE_STATUS_INVALID_VALUE);
    ST(cusparseXcsr2coo(NULL, rp, nnz, m, coo, CUSPARSE_INDEX_BASE_ONE), CUSPARSE_STATUS_NOT_INITIALIZED);
    ST(cusparseCsr2cscEx2(h, m, n, nnz, v, rp, ci, cv, cp, ri, CUDA_C_64F, (cusparseAction_t)2,
                          CUSPARSE_INDEX_BASE_ONE, CUSPARSE_CSR2CSC_ALG_DEFAULT, NULL), CUSPARSE_STATUS_INVALID_VALUE);
    ST(cusparseCsr2cscEx2(h, m, n, nnz, v, rp, ci, cv, cp, ri, CUDA_C_64F, CUSPARSE_ACTION_NUMERIC,
                          CUSPARSE_INDEX_BASE_ONE, (cusparseCsr2CscAlg_t)0, NULL), CUSPARSE_STATUS_INVALID_VALUE);
    ST(cusparseCsr2cscEx2(h, m, n, nnz, v, rp, ci, cv, cp, ri + 1, CUDA_C_64F, CUSPARSE_ACTION_NUMERIC,
                          CUSPARSE_INDEX_BASE_ONE, CUSPARSE_CSR2CSC_ALG_DEFAULT, NULL), CUSPARSE_STATUS_INVALID_VALUE);
    DRV(cuCtxSynchronize());
    free(hcp), free(hri), free(hcv), free(hcoo), free(hrp);
    dfree(rp), dfree(ci), dfree(v), dfree(cp), dfree(ri), dfree(cv), dfree(coo), dfree(rp2);
    sm_free(&s);
    end();
}

/* ---- stream order ----------------------------------------------------------- */
/* scale(p, a, n): p[i] *= a for the n threads of one block */
static const char ptx[] =
    ".version 7.0\n.target sm_70\n.address_size 64\n"
    ".visible .entry scale(.param .u64 p, .param .f32 a, .param .u32 n)\n{\n"
    "    .reg .pred %p<2>;\n    .reg .b32 %r<3>;\n    .reg .f32 %f<4>;\n    .reg .b64 %rd<4>;\n"
    "    ld.param.u64 %rd1, [p];\n    ld.param.f32 %f1, [a];\n    ld.param.u32 %r1, [n];\n"
    "    mov.u32 %r2, %tid.x;\n    setp.ge.u32 %p1, %r2, %r1;\n    @%p1 bra $L_end;\n"
    "    mul.wide.u32 %rd2, %r2, 4;\n    add.s64 %rd3, %rd1, %rd2;\n"
    "    ld.global.f32 %f2, [%rd3];\n    mul.f32 %f3, %f2, %f1;\n    st.global.f32 [%rd3], %f3;\n"
    "$L_end:\n    ret;\n}\n";

struct slow { _Atomic int open, waited_out; };
static void CUDAAPI slow_fn(void *arg)
{
    struct slow *s = arg;
    for (int i = 0; i < 200 && !s->open; i++)
        usleep(1000);
    s->waited_out = !s->open;
}

static void test_order(cusparseHandle_t h)
{
    begin("stream order: slow host function and async index copy before SpMV, a kernel after, events");
    CUmodule mod;
    CUfunction scale;
    DRV(cuModuleLoadData(&mod, ptx));
    DRV(cuModuleGetFunction(&scale, mod, "scale"));
    CUstream s;
    DRV(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    ST(cusparseSetStream(h, (cudaStream_t)s), 0);
    /* A = 2 I (4 x 4), its column indices wrong until the async copy lands */
    int rp[5] = { 0, 1, 2, 3, 4 }, good[4] = { 0, 1, 2, 3 }, wrong[4] = { 9, 9, 9, 9 };
    float av[4] = { 2, 2, 2, 2 }, xv[4] = { 1, 2, 3, 4 }, y[4];
    int *drp = upload(rp, sizeof rp), *dci = upload(wrong, sizeof wrong);
    float *dav = upload(av, sizeof av), *dx = upload(xv, sizeof xv), *dy = dalloc(sizeof y);
    cusparseSpMatDescr_t A;
    cusparseDnVecDescr_t vx, vy;
    ST(cusparseCreateCsr(&A, 4, 4, 4, drp, dci, dav, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                         CUDA_R_32F), 0);
    ST(cusparseCreateDnVec(&vx, 4, dx, CUDA_R_32F), 0);
    ST(cusparseCreateDnVec(&vy, 4, dy, CUDA_R_32F), 0);
    float one = 1, zero = 0;
    /* out of range now: refused */
    ST(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vx, &zero, vy, CUDA_R_32F,
                    CUSPARSE_SPMV_ALG_DEFAULT, NULL), CUSPARSE_STATUS_INVALID_VALUE);
    struct slow sl = { 1, 0 };
    DRV(cuLaunchHostFunc(s, slow_fn, &sl));
    DRV(cuMemcpyHtoDAsync_v2((CUdeviceptr)(uintptr_t)dci, good, sizeof good, s));
    /* the program's kernel doubles x before the product */
    float two = 2;
    unsigned n = 4;
    void *args[] = { &dx, &two, &n };
    DRV(cuLaunchKernel(scale, 1, 1, 1, 4, 1, 1, 0, s, args, NULL));
    ST(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vx, &zero, vy, CUDA_R_32F,
                    CUSPARSE_SPMV_ALG_DEFAULT, NULL), 0);
    /* and scales y by 10 after it */
    float ten = 10;
    void *args2[] = { &dy, &ten, &n };
    DRV(cuLaunchKernel(scale, 1, 1, 1, 4, 1, 1, 0, s, args2, NULL));
    CUevent e;
    DRV(cuEventCreate(&e, 0));
    DRV(cuEventRecord(e, s));
    DRV(cuEventSynchronize(e));
    DRV(cuMemcpyDtoH_v2(y, (CUdeviceptr)(uintptr_t)dy, sizeof y));
    for (int i = 0; i < 4; i++)
        if (y[i] != 40.0f * (float)(i + 1))
            bad("y[%d] = %g, expected %g", i, y[i], 40.0 * (i + 1));
    ST(cusparseSetStream(h, NULL), 0);
    ST(cusparseDestroySpMat(A), 0);
    ST(cusparseDestroyDnVec(vx), 0);
    ST(cusparseDestroyDnVec(vy), 0);
    DRV(cuEventDestroy_v2(e));
    DRV(cuStreamDestroy_v2(s));
    DRV(cuModuleUnload(mod));
    dfree(drp), dfree(dci), dfree(dav), dfree(dx), dfree(dy);
    end();
}

/* ---- bad input ---------------------------------------------------------------- */
static void test_bad(cusparseHandle_t h)
{
    begin("bad input: handles, descriptors, sizes, types, pointers, indices; nothing written");
    int rp[4] = { 0, 2, 3, 4 }, ci[4] = { 0, 2, 1, 2 };
    float av[4] = { 1, 2, 3, 4 }, y[3] = { 7, 7, 7 };
    int *drp = upload(rp, sizeof rp), *dci = upload(ci, sizeof ci);
    float *dav = upload(av, sizeof av), *dx = upload(av, 12), *dy = upload(y, sizeof y);
    cusparseSpMatDescr_t A, A2;
    cusparseDnVecDescr_t vx, vy, v5, vd;
    ST(cusparseCreateCsr(&A, 3, 3, 4, drp, dci, dav, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                         CUDA_R_32F), 0);
    ST(cusparseCreateDnVec(&vx, 3, dx, CUDA_R_32F), 0);
    ST(cusparseCreateDnVec(&vy, 3, dy, CUDA_R_32F), 0);
    ST(cusparseCreateDnVec(&v5, 5, dy, CUDA_R_32F), 0);
    ST(cusparseCreateDnVec(&vd, 3, dy, CUDA_R_64F), 0);
    float one = 1, zero = 0;
    size_t bs;
    const cusparseOperation_t N = CUSPARSE_OPERATION_NON_TRANSPOSE;
    const cusparseSpMVAlg_t D = CUSPARSE_SPMV_ALG_DEFAULT;
    ST(cusparseSpMV(NULL, N, &one, A, vx, &zero, vy, CUDA_R_32F, D, NULL), CUSPARSE_STATUS_NOT_INITIALIZED);
    ST(cusparseSpMV(h, N, NULL, A, vx, &zero, vy, CUDA_R_32F, D, NULL), CUSPARSE_STATUS_INVALID_VALUE);
    ST(cusparseSpMV(h, N, &one, NULL, vx, &zero, vy, CUDA_R_32F, D, NULL), CUSPARSE_STATUS_INVALID_VALUE);
    ST(cusparseSpMV(h, N, &one, A, (cusparseDnVecDescr_t)A, &zero, vy, CUDA_R_32F, D, NULL),
       CUSPARSE_STATUS_INVALID_VALUE);
    ST(cusparseSpMV(h, (cusparseOperation_t)3, &one, A, vx, &zero, vy, CUDA_R_32F, D, NULL),
       CUSPARSE_STATUS_INVALID_VALUE);
    ST(cusparseSpMV(h, N, &one, A, vx, &zero, v5, CUDA_R_32F, D, NULL), CUSPARSE_STATUS_INVALID_VALUE);
    ST(cusparseSpMV(h, N, &one, A, vx, &zero, vd, CUDA_R_32F, D, NULL), CUSPARSE_STATUS_NOT_SUPPORTED);
    ST(cusparseSpMV(h, N, &one, A, vx, &zero, vy, CUDA_R_64F, D, NULL), CUSPARSE_STATUS_NOT_SUPPORTED);
    ST(cusparseSpMV(h, N, &one, A, vx, &zero, vy, CUDA_R_32F, (cusparseSpMVAlg_t)77, NULL),
       CUSPARSE_STATUS_INVALID_VALUE);
    ST(cusparseSpMV_bufferSize(h, N, &one, A, vx, &zero, vy, CUDA_R_32F, D, NULL), CUSPARSE_STATUS_INVALID_VALUE);
    /* device pointer mode with a host scalar: not device memory */
    ST(cusparseSetPointerMode(h, CUSPARSE_POINTER_MODE_DEVICE), 0);
    ST(cusparseSpMV(h, N, &one, A, vx, &zero, vy, CUDA_R_32F, D, NULL), CUSPARSE_STATUS_INVALID_VALUE);
    ST(cusparseSetPointerMode(h, CUSPARSE_POINTER_MODE_HOST), 0);
    /* a dense vector past its allocation */
    cusparseDnVecDescr_t vlong;
    ST(cusparseCreateDnVec(&vlong, 3, dy + 2, CUDA_R_32F), 0);
    ST(cusparseSpMV(h, N, &one, A, vx, &zero, vlong, CUDA_R_32F, D, NULL), CUSPARSE_STATUS_INVALID_VALUE);
    ST(cusparseDestroyDnVec(vlong), 0);
    /* NULL arrays are accepted by the creation (as NVIDIA's), refused at use */
    ST(cusparseCreateCsr(&A2, 3, 3, 4, drp, NULL, dav, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                         CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F), 0);
    ST(cusparseSpMV(h, N, &one, A2, vx, &zero, vy, CUDA_R_32F, D, NULL), CUSPARSE_STATUS_INVALID_VALUE);
    ST(cusparseCsrSetPointers(A2, NULL, dci, dav), 0);
    ST(cusparseSpMV(h, N, &one, A2, vx, &zero, vy, CUDA_R_32F, D, NULL), CUSPARSE_STATUS_INVALID_VALUE);
    ST(cusparseDestroySpMat(A2), 0);
    ST(cusparseCreateDnVec(&vlong, 3, NULL, CUDA_R_32F), 0);
    ST(cusparseSpMV(h, N, &one, A, vlong, &zero, vy, CUDA_R_32F, D, NULL), CUSPARSE_STATUS_INVALID_VALUE);
    ST(cusparseDestroyDnVec(vlong), 0);
    /* host arrays are not device memory */
    ST(cusparseCreateCsr(&A2, 3, 3, 4, rp, ci, av, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                         CUDA_R_32F), 0);
    ST(cusparseSpMV(h, N, &one, A2, vx, &zero, vy, CUDA_R_32F, D, NULL), CUSPARSE_STATUS_INVALID_VALUE);
    ST(cusparseDestroySpMat(A2), 0);
    /* indices out of range, each kind: column, row offsets, base */
    static const int bad_sets[][8] = {
        { 0, 2, 3, 4, 0, 3, 1, 2 },    /* column 3 of 3 */
        { 0, 2, 3, 4, 0, -1, 1, 2 },   /* column -1 */
        { 0, 3, 2, 4, 0, 2, 1, 2 },    /* offsets decreasing */
        { 0, 2, 3, 5, 0, 2, 1, 2 },    /* last offset past nnz */
        { 1, 2, 3, 4, 0, 2, 1, 2 },    /* first offset not the base */
    };
    for (size_t b = 0; b < sizeof bad_sets / sizeof *bad_sets; b++) {
        DRV(cuMemcpyHtoD_v2((CUdeviceptr)(uintptr_t)drp, bad_sets[b], 16));
        DRV(cuMemcpyHtoD_v2((CUdeviceptr)(uintptr_t)dci, bad_sets[b] + 4, 16));
        ST(cusparseSpMV(h, N, &one, A, vx, &zero, vy, CUDA_R_32F, D, NULL), CUSPARSE_STATUS_INVALID_VALUE);
        ST(cusparseSpMV(h, CUSPARSE_OPERATION_TRANSPOSE, &one, A, vx, &zero, vy, CUDA_R_32F, D, NULL),
           CUSPARSE_STATUS_INVALID_VALUE);
    }
    /* a COO row index out of range */
    cusparseSpMatDescr_t C;
    ST(cusparseCreateCoo(&C, 3, 3, 4, drp, dci, dav, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F), 0);
    static const int coo_bad[8] = { 0, 1, 2, 3, 0, 1, 2, 0 };   /* row 3 of 3 */
    DRV(cuMemcpyHtoD_v2((CUdeviceptr)(uintptr_t)drp, coo_bad, 16));
    DRV(cuMemcpyHtoD_v2((CUdeviceptr)(uintptr_t)dci, coo_bad + 4, 16));
    ST(cusparseSpMV(h, N, &one, C, vx, &zero, vy, CUDA_R_32F, D, NULL), CUSPARSE_STATUS_INVALID_VALUE);
    ST(cusparseDestroySpMat(C), 0);
    /* a one-based matrix with a zero index */
    ST(cusparseCreateCsr(&A2, 3, 3, 4, drp, dci, dav, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ONE,
                         CUDA_R_32F), 0);
    static const int one_bad[8] = { 1, 3, 4, 5, 1, 0, 2, 3 };
    DRV(cuMemcpyHtoD_v2((CUdeviceptr)(uintptr_t)drp, one_bad, 16));
    DRV(cuMemcpyHtoD_v2((CUdeviceptr)(uintptr_t)dci, one_bad + 4, 16));
    ST(cusparseSpMV(h, N, &one, A2, vx, &zero, vy, CUDA_R_32F, D, NULL), CUSPARSE_STATUS_INVALID_VALUE);
    ST(cusparseDestroySpMat(A2), 0);
    download(y, dy, sizeof y);
    if (y[0] != 7 || y[1] != 7 || y[2] != 7)
        bad("a refused call wrote y: %g %g %g", y[0], y[1], y[2]);
    /* SpSV: not square, not analysed with that descriptor, COO */
    cusparseSpSVDescr_t sd;
    ST(cusparseSpSV_createDescr(&sd), 0);
    ST(cusparseCreateCsr(&A2, 3, 2, 0, drp, NULL, NULL, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                         CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F), 0);
    ST(cusparseSpSV_bufferSize(h, N, &one, A2, vx, vy, CUDA_R_32F, CUSPARSE_SPSV_ALG_DEFAULT, sd, &bs),
       CUSPARSE_STATUS_INVALID_VALUE);
    ST(cusparseDestroySpMat(A2), 0);
    ST(cusparseSpSV_bufferSize(h, N, &one, A, vx, vy, CUDA_R_32F, CUSPARSE_SPSV_ALG_DEFAULT,
                               (cusparseSpSVDescr_t)&one, &bs), CUSPARSE_STATUS_INVALID_VALUE);
    /* SpSV computes one type throughout: half (which SpMV takes) is not */
    ST(cusparseSpSV_bufferSize(h, N, &one, A, vx, vd, CUDA_R_32F, CUSPARSE_SPSV_ALG_DEFAULT, sd, &bs),
       CUSPARSE_STATUS_NOT_SUPPORTED);
    cusparseSpMatDescr_t A16;
    cusparseDnVecDescr_t x16, y16;
    ST(cusparseCreateCsr(&A16, 3, 3, 4, drp, dci, dav, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                         CUSPARSE_INDEX_BASE_ZERO, CUDA_R_16F), 0);
    ST(cusparseCreateDnVec(&x16, 3, dx, CUDA_R_16F), 0);
    ST(cusparseCreateDnVec(&y16, 3, dx, CUDA_R_16F), 0);
    ST(cusparseSpMV_bufferSize(h, N, &one, A16, x16, &zero, y16, CUDA_R_32F, D, &bs), 0);
    ST(cusparseSpSV_bufferSize(h, N, &one, A16, x16, y16, CUDA_R_32F, CUSPARSE_SPSV_ALG_DEFAULT, sd, &bs),
       CUSPARSE_STATUS_NOT_SUPPORTED);
    ST(cusparseDestroySpMat(A16), 0);
    ST(cusparseDestroyDnVec(x16), 0);
    ST(cusparseDestroyDnVec(y16), 0);
    ST(cusparseSpSV_destroyDescr(sd), 0);
    ST(cusparseSpSV_destroyDescr(sd), CUSPARSE_STATUS_INVALID_VALUE);
    /* the factorisations: sizes, matrix type, policy, info kind, unsorted columns */
    cusparseMatDescr_t md;
    csrilu02Info_t ilu;
    int ibs;
    ST(cusparseCreateMatDescr(&md), 0);
    ST(cusparseCreateCsrilu02Info(&ilu), 0);
    ST(cusparseScsrilu02_bufferSize(NULL, 3, 4, md, dav, drp, dci, ilu, &ibs), CUSPARSE_STATUS_NOT_INITIALIZED);
    ST(cusparseScsrilu02_bufferSize(h, -1, 4, md, dav, drp, dci, ilu, &ibs), CUSPARSE_STATUS_INVALID_VALUE);
    ST(cusparseScsrilu02_bufferSize(h, 3, 4, md, dav, drp, dci, (csrilu02Info_t)md, &ibs),
       CUSPARSE_STATUS_INVALID_VALUE);
    ST(cusparseScsrilu02_analysis(h, 3, 4, md, dav, drp, dci, ilu, (cusparseSolvePolicy_t)5, NULL),
       CUSPARSE_STATUS_INVALID_VALUE);
    ST(cusparseSetMatType(md, CUSPARSE_MATRIX_TYPE_SYMMETRIC), 0);
    ST(cusparseScsrilu02_analysis(h, 3, 4, md, dav, drp, dci, ilu, CUSPARSE_SOLVE_POLICY_NO_LEVEL, NULL),
       CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED);
    ST(cusparseSetMatType(md, CUSPARSE_MATRIX_TYPE_GENERAL), 0);
    static const int unsorted[8] = { 0, 2, 3, 4, 2, 0, 1, 2 };
    DRV(cuMemcpyHtoD_v2((CUdeviceptr)(uintptr_t)drp, unsorted, 16));
    DRV(cuMemcpyHtoD_v2((CUdeviceptr)(uintptr_t)dci, unsorted + 4, 16));
    ST(cusparseScsrilu02_analysis(h, 3, 4, md, dav, drp, dci, ilu, CUSPARSE_SOLVE_POLICY_NO_LEVEL, NULL),
       CUSPARSE_STATUS_INVALID_VALUE);
    ST(cusparseScsrilu02_analysis(h, 3, 4, md, dav, drp, dci + 1000000, ilu, CUSPARSE_SOLVE_POLICY_NO_LEVEL, NULL),
       CUSPARSE_STATUS_INVALID_VALUE);
    ST(cusparseDestroyCsrilu02Info(ilu), 0);
    ST(cusparseDestroyCsrilu02Info(ilu), CUSPARSE_STATUS_INVALID_VALUE);
    ST(cusparseDestroyMatDescr(md), 0);
    ST(cusparseSpMatGetSize(A, NULL, NULL, NULL), CUSPARSE_STATUS_INVALID_VALUE);
    ST(cusparseDestroySpMat(A), 0);
    ST(cusparseDestroyDnVec(vx), 0);
    ST(cusparseDestroyDnVec(vy), 0);
    ST(cusparseDestroyDnVec(v5), 0);
    ST(cusparseDestroyDnVec(vd), 0);
    dfree(drp), dfree(dci), dfree(dav), dfree(dx), dfree(dy);
    end();
}

/* a function this library does not implement: NOT_SUPPORTED (its stub) */
cusparseStatus_t cusparseSpGEMM_createDescr(void **descr);
static void test_stub(void)
{
    begin("a function not implemented returns CUSPARSE_STATUS_NOT_SUPPORTED");
    void *d;
    ST(cusparseSpGEMM_createDescr(&d), CUSPARSE_STATUS_NOT_SUPPORTED);
    end();
}

int main(void)
{
    DRV(cuInit(0));
    CUdevice dev;
    CUcontext ctx;
    DRV(cuDeviceGet(&dev, 0));
    DRV(cuDevicePrimaryCtxRetain(&ctx, dev));
    DRV(cuCtxSetCurrent(ctx));
    test_settings();
    test_descriptors();
    cusparseHandle_t h;
    if (cusparseCreate(&h) != CUSPARSE_STATUS_SUCCESS) {
        printf("FAIL cusparseCreate\n");
        return 1;
    }
    test_spmv(h);
    test_spmm(h);
    test_spsv(h);
    test_fact(h);
    test_scatter_gather(h);
    test_convert(h);
    test_order(h);
    test_bad(h);
    test_stub();
    ST(cusparseDestroy(h), 0);
    return summary("cusparse");
}
