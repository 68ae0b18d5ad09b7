/* SPDX-License-Identifier: Apache-2.0 */
/* cuBLASLt handles, versions, status names, the descriptors (matrix
 * layout, matmul, preference, matrix transform) and their attributes, the
 * heuristics cache capacity and the logger switches.
 *
 * Attributes are tables of (attribute, offset, size). As NVIDIA's library
 * does (probed through ctypes: it needs no GPU for these), a setter checks
 * only the buffer and its size, never the value: values are checked where
 * they are used (cublasLtMatmul, the heuristics), with those functions'
 * statuses. */
#include "lt.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../cublas/status.h"

#define VERSION 130100      /* cuBLAS 13.1.0, as NVIDIA's libcublasLt.so.13 says */
#define CUDART_VERSION 13000

cublasStatus_t lt_handle(cublasLtHandle_t h)
{
    return hl_handle_live(h, LT_HANDLE_KIND) ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_INITIALIZED;
}

HL_EXPORT cublasStatus_t cublasLtCreate(cublasLtHandle_t *lightHandle)
{
    if (!lightHandle)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (hl_init() != HL_OK)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    struct cublasLtContext *c = hl_handle_new(sizeof *c, LT_HANDLE_KIND);
    if (!c)
        return CUBLAS_STATUS_ALLOC_FAILED;
    *lightHandle = c;
    return CUBLAS_STATUS_SUCCESS;
}

HL_EXPORT cublasStatus_t cublasLtDestroy(cublasLtHandle_t lightHandle)
{
    if (!hl_handle_free(lightHandle, LT_HANDLE_KIND))   /* queued work holds no reference to it */
        return CUBLAS_STATUS_NOT_INITIALIZED;
    return CUBLAS_STATUS_SUCCESS;
}

HL_EXPORT const char *cublasLtGetStatusName(cublasStatus_t status)
{
    return blas_status_name(status);
}

HL_EXPORT const char *cublasLtGetStatusString(cublasStatus_t status)
{
    return blas_status_string(status);
}

HL_EXPORT size_t cublasLtGetVersion(void)
{
    return VERSION;
}

HL_EXPORT size_t cublasLtGetCudartVersion(void)
{
    return CUDART_VERSION;
}

HL_EXPORT cublasStatus_t cublasLtGetProperty(libraryPropertyType type, int *value)
{
    if (!value)
        return CUBLAS_STATUS_INVALID_VALUE;
    switch (type) {
    case MAJOR_VERSION: *value = VERSION / 10000; return CUBLAS_STATUS_SUCCESS;
    case MINOR_VERSION: *value = VERSION / 100 % 100; return CUBLAS_STATUS_SUCCESS;
    case PATCH_LEVEL: *value = VERSION % 100; return CUBLAS_STATUS_SUCCESS;
    }
    return CUBLAS_STATUS_INVALID_VALUE;
}

/* ---- attributes --------------------------------------------------------- */
struct attr { int id; size_t off, size; };
#define A(ID, T, F) { ID, offsetof(T, F), sizeof(((T *)0)->F) }

static const struct attr *find_attr(const struct attr *t, size_t n, int id)
{
    for (size_t i = 0; i < n; i++)
        if (t[i].id == id)
            return &t[i];
    return NULL;
}

static cublasStatus_t attr_set(void *obj, const struct attr *t, size_t n, int id, const void *buf, size_t size)
{
    const struct attr *a = find_attr(t, n, id);
    if (!obj || !a || !buf || size != a->size)
        return CUBLAS_STATUS_INVALID_VALUE;
    memcpy((char *)obj + a->off, buf, size);
    return CUBLAS_STATUS_SUCCESS;
}

/* cuBLASLt's getter: size 0 asks for the size (sizeWritten required);
 * otherwise the size must be the attribute's */
static cublasStatus_t attr_get(const void *obj, const struct attr *t, size_t n, int id, void *buf, size_t size,
                               size_t *written)
{
    const struct attr *a = find_attr(t, n, id);
    if (!obj || !a)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (size == 0) {
        if (!written)
            return CUBLAS_STATUS_INVALID_VALUE;
        *written = a->size;
        return CUBLAS_STATUS_SUCCESS;
    }
    if (!buf || size != a->size)
        return CUBLAS_STATUS_INVALID_VALUE;
    memcpy(buf, (const char *)obj + a->off, size);
    if (written)
        *written = a->size;
    return CUBLAS_STATUS_SUCCESS;
}
#define NATTR(t) (sizeof t / sizeof *t)

/* ---- matrix layouts ----------------------------------------------------- */
static const struct attr layout_attrs[] = {
    A(CUBLASLT_MATRIX_LAYOUT_TYPE, struct lt_layout, type),
    A(CUBLASLT_MATRIX_LAYOUT_ORDER, struct lt_layout, order),
    A(CUBLASLT_MATRIX_LAYOUT_ROWS, struct lt_layout, rows),
    A(CUBLASLT_MATRIX_LAYOUT_COLS, struct lt_layout, cols),
    A(CUBLASLT_MATRIX_LAYOUT_LD, struct lt_layout, ld),
    A(CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, struct lt_layout, batch),
    A(CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, struct lt_layout, stride),
    A(CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET, struct lt_layout, plane),
    A(CUBLASLT_MATRIX_LAYOUT_BATCH_MODE, struct lt_layout, mode),
};

struct lt_layout *lt_layout(cublasLtMatrixLayout_t p)
{
    struct lt_layout *l = (struct lt_layout *)p;
    return l && l->magic == LT_MAGIC_LAYOUT ? l : NULL;
}

HL_EXPORT cublasStatus_t cublasLtMatrixLayoutInit_internal(cublasLtMatrixLayout_t matLayout, size_t size,
                                                           cudaDataType type, uint64_t rows, uint64_t cols,
                                                           int64_t ld)
{
    if (!matLayout)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (size < sizeof(struct lt_layout))
        return CUBLAS_STATUS_ALLOC_FAILED;
    struct lt_layout *l = (struct lt_layout *)matLayout;
    memset(l, 0, sizeof *l);
    l->magic = LT_MAGIC_LAYOUT;
    l->type = (uint32_t)type;
    l->order = CUBLASLT_ORDER_COL;
    l->rows = rows;
    l->cols = cols;
    l->ld = ld;
    l->batch = 1;
    return CUBLAS_STATUS_SUCCESS;
}

HL_EXPORT cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *matLayout, cudaDataType type,
                                                    uint64_t rows, uint64_t cols, int64_t ld)
{
    if (!matLayout)
        return CUBLAS_STATUS_INVALID_VALUE;
    cublasLtMatrixLayout_t l = calloc(1, sizeof *l);
    if (!l)
        return CUBLAS_STATUS_ALLOC_FAILED;
    cublasLtMatrixLayoutInit_internal(l, sizeof *l, type, rows, cols, ld);
    *matLayout = l;
    return CUBLAS_STATUS_SUCCESS;
}

HL_EXPORT cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t matLayout)
{
    struct lt_layout *l = lt_layout(matLayout);
    if (!matLayout)
        return CUBLAS_STATUS_SUCCESS;
    if (!l)
        return CUBLAS_STATUS_INVALID_VALUE;
    l->magic = 0;
    free(matLayout);
    return CUBLAS_STATUS_SUCCESS;
}

HL_EXPORT cublasStatus_t cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t matLayout,
                                                          cublasLtMatrixLayoutAttribute_t attr, const void *buf,
                                                          size_t sizeInBytes)
{
    return attr_set(lt_layout(matLayout), layout_attrs, NATTR(layout_attrs), attr, buf, sizeInBytes);
}

HL_EXPORT cublasStatus_t cublasLtMatrixLayoutGetAttribute(cublasLtMatrixLayout_t matLayout,
                                                          cublasLtMatrixLayoutAttribute_t attr, void *buf,
                                                          size_t sizeInBytes, size_t *sizeWritten)
{
    return attr_get(lt_layout(matLayout), layout_attrs, NATTR(layout_attrs), attr, buf, sizeInBytes, sizeWritten);
}

/* ---- matmul descriptors ------------------------------------------------- */
#define MD struct lt_matmul
static const struct attr matmul_attrs[] = {
    A(CUBLASLT_MATMUL_DESC_COMPUTE_TYPE, MD, compute),
    A(CUBLASLT_MATMUL_DESC_SCALE_TYPE, MD, scale),
    A(CUBLASLT_MATMUL_DESC_POINTER_MODE, MD, pointer_mode),
    A(CUBLASLT_MATMUL_DESC_TRANSA, MD, transa),
    A(CUBLASLT_MATMUL_DESC_TRANSB, MD, transb),
    A(CUBLASLT_MATMUL_DESC_TRANSC, MD, transc),
    A(CUBLASLT_MATMUL_DESC_FILL_MODE, MD, fill),
    A(CUBLASLT_MATMUL_DESC_EPILOGUE, MD, epilogue),
    A(CUBLASLT_MATMUL_DESC_BIAS_POINTER, MD, bias),
    A(CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, MD, bias_stride),
    A(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, MD, aux),
    A(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, MD, aux_ld),
    A(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE, MD, aux_stride),
    A(CUBLASLT_MATMUL_DESC_ALPHA_VECTOR_BATCH_STRIDE, MD, alpha_stride),
    A(CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET, MD, sm_count),
    A(16, MD, reserved16),   /* NVIDIA's library keeps a 4-byte attribute 16 it does not document */
    A(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, MD, scale_a),
    A(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, MD, scale_b),
    A(CUBLASLT_MATMUL_DESC_C_SCALE_POINTER, MD, scale_c),
    A(CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, MD, scale_d),
    A(CUBLASLT_MATMUL_DESC_AMAX_D_POINTER, MD, amax_d),
    A(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE, MD, aux_type),
    A(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_SCALE_POINTER, MD, aux_scale),
    A(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_AMAX_POINTER, MD, aux_amax),
    A(CUBLASLT_MATMUL_DESC_FAST_ACCUM, MD, fast_accum),
    A(CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, MD, bias_type),
    A(CUBLASLT_MATMUL_DESC_A_SCALE_MODE, MD, scale_mode[0]),
    A(CUBLASLT_MATMUL_DESC_B_SCALE_MODE, MD, scale_mode[1]),
    A(CUBLASLT_MATMUL_DESC_C_SCALE_MODE, MD, scale_mode[2]),
    A(CUBLASLT_MATMUL_DESC_D_SCALE_MODE, MD, scale_mode[3]),
    A(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_SCALE_MODE, MD, scale_mode[4]),
    A(CUBLASLT_MATMUL_DESC_D_OUT_SCALE_POINTER, MD, d_out_scale),
    A(CUBLASLT_MATMUL_DESC_D_OUT_SCALE_MODE, MD, d_out_scale_mode),
    A(CUBLASLT_MATMUL_DESC_EMULATION_DESCRIPTOR, MD, emulation),
};
#undef MD

struct lt_matmul *lt_matmul(cublasLtMatmulDesc_t p)
{
    struct lt_matmul *m = (struct lt_matmul *)p;
    return m && m->magic == LT_MAGIC_MATMUL ? m : NULL;
}

HL_EXPORT cublasStatus_t cublasLtMatmulDescInit_internal(cublasLtMatmulDesc_t matmulDesc, size_t size,
                                                         cublasComputeType_t computeType, cudaDataType_t scaleType)
{
    if (!matmulDesc)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (size < sizeof(struct lt_matmul))
        return CUBLAS_STATUS_ALLOC_FAILED;
    struct lt_matmul *m = (struct lt_matmul *)matmulDesc;
    memset(m, 0, sizeof *m);
    m->magic = LT_MAGIC_MATMUL;
    m->compute = computeType;
    m->scale = scaleType;
    m->pointer_mode = CUBLASLT_POINTER_MODE_HOST;
    m->transa = m->transb = m->transc = CUBLAS_OP_N;
    m->fill = CUBLAS_FILL_MODE_FULL;
    m->epilogue = CUBLASLT_EPILOGUE_DEFAULT;
    m->aux_type = -1;
    m->bias_type = -1;
    return CUBLAS_STATUS_SUCCESS;
}

HL_EXPORT cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *matmulDesc, cublasComputeType_t computeType,
                                                  cudaDataType_t scaleType)
{
    if (!matmulDesc)
        return CUBLAS_STATUS_INVALID_VALUE;
    cublasLtMatmulDesc_t m = calloc(1, sizeof *m);
    if (!m)
        return CUBLAS_STATUS_ALLOC_FAILED;
    cublasLtMatmulDescInit_internal(m, sizeof *m, computeType, scaleType);
    *matmulDesc = m;
    return CUBLAS_STATUS_SUCCESS;
}

HL_EXPORT cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t matmulDesc)
{
    struct lt_matmul *m = lt_matmul(matmulDesc);
    if (!matmulDesc)
        return CUBLAS_STATUS_SUCCESS;
    if (!m)
        return CUBLAS_STATUS_INVALID_VALUE;
    m->magic = 0;
    free(matmulDesc);
    return CUBLAS_STATUS_SUCCESS;
}

HL_EXPORT cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t matmulDesc,
                                                        cublasLtMatmulDescAttributes_t attr, const void *buf,
                                                        size_t sizeInBytes)
{
    return attr_set(lt_matmul(matmulDesc), matmul_attrs, NATTR(matmul_attrs), attr, buf, sizeInBytes);
}

HL_EXPORT cublasStatus_t cublasLtMatmulDescGetAttribute(cublasLtMatmulDesc_t matmulDesc,
                                                        cublasLtMatmulDescAttributes_t attr, void *buf,
                                                        size_t sizeInBytes, size_t *sizeWritten)
{
    return attr_get(lt_matmul(matmulDesc), matmul_attrs, NATTR(matmul_attrs), attr, buf, sizeInBytes, sizeWritten);
}

/* ---- preferences -------------------------------------------------------- */
#define PR struct lt_pref
static const struct attr pref_attrs[] = {
    A(CUBLASLT_MATMUL_PREF_SEARCH_MODE, PR, search),
    A(CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, PR, workspace),
    A(CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, PR, reduction_mask),
    A(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, PR, align[0]),
    A(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, PR, align[1]),
    A(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, PR, align[2]),
    A(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, PR, align[3]),
    A(CUBLASLT_MATMUL_PREF_MAX_WAVES_COUNT, PR, max_waves),
    A(CUBLASLT_MATMUL_PREF_IMPL_MASK, PR, impl_mask),
};
#undef PR

struct lt_pref *lt_pref(cublasLtMatmulPreference_t p)
{
    struct lt_pref *r = (struct lt_pref *)p;
    return r && r->magic == LT_MAGIC_PREF ? r : NULL;
}

HL_EXPORT cublasStatus_t cublasLtMatmulPreferenceInit_internal(cublasLtMatmulPreference_t pref, size_t size)
{
    if (!pref)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (size < sizeof(struct lt_pref))
        return CUBLAS_STATUS_ALLOC_FAILED;
    struct lt_pref *p = (struct lt_pref *)pref;
    memset(p, 0, sizeof *p);
    p->magic = LT_MAGIC_PREF;
    p->search = CUBLASLT_SEARCH_BEST_FIT;
    p->reduction_mask = CUBLASLT_REDUCTION_SCHEME_MASK;
    for (int i = 0; i < 4; i++)
        p->align[i] = 256;
    p->impl_mask = UINT64_MAX;
    return CUBLAS_STATUS_SUCCESS;
}

HL_EXPORT cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *pref)
{
    if (!pref)
        return CUBLAS_STATUS_INVALID_VALUE;
    cublasLtMatmulPreference_t p = calloc(1, sizeof *p);
    if (!p)
        return CUBLAS_STATUS_ALLOC_FAILED;
    cublasLtMatmulPreferenceInit_internal(p, sizeof *p);
    *pref = p;
    return CUBLAS_STATUS_SUCCESS;
}

HL_EXPORT cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t pref)
{
    struct lt_pref *p = lt_pref(pref);
    if (!pref)
        return CUBLAS_STATUS_SUCCESS;
    if (!p)
        return CUBLAS_STATUS_INVALID_VALUE;
    p->magic = 0;
    free(pref);
    return CUBLAS_STATUS_SUCCESS;
}

HL_EXPORT cublasStatus_t cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t pref,
                                                              cublasLtMatmulPreferenceAttributes_t attr,
                                                              const void *buf, size_t sizeInBytes)
{
    return attr_set(lt_pref(pref), pref_attrs, NATTR(pref_attrs), attr, buf, sizeInBytes);
}

HL_EXPORT cublasStatus_t cublasLtMatmulPreferenceGetAttribute(cublasLtMatmulPreference_t pref,
                                                              cublasLtMatmulPreferenceAttributes_t attr, void *buf,
                                                              size_t sizeInBytes, size_t *sizeWritten)
{
    return attr_get(lt_pref(pref), pref_attrs, NATTR(pref_attrs), attr, buf, sizeInBytes, sizeWritten);
}

/* ---- matrix transform descriptors ---------------------------------------- */
#define TR struct lt_transform
static const struct attr transform_attrs[] = {
    A(CUBLASLT_MATRIX_TRANSFORM_DESC_SCALE_TYPE, TR, scale),
    A(CUBLASLT_MATRIX_TRANSFORM_DESC_POINTER_MODE, TR, pointer_mode),
    A(CUBLASLT_MATRIX_TRANSFORM_DESC_TRANSA, TR, transa),
    A(CUBLASLT_MATRIX_TRANSFORM_DESC_TRANSB, TR, transb),
};
#undef TR

struct lt_transform *lt_transform(cublasLtMatrixTransformDesc_t p)
{
    struct lt_transform *t = (struct lt_transform *)p;
    return t && t->magic == LT_MAGIC_TRANSFORM ? t : NULL;
}

HL_EXPORT cublasStatus_t cublasLtMatrixTransformDescInit_internal(cublasLtMatrixTransformDesc_t transformDesc,
                                                                  size_t size, cudaDataType scaleType)
{
    if (!transformDesc)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (size < sizeof(struct lt_transform))
        return CUBLAS_STATUS_ALLOC_FAILED;
    struct lt_transform *t = (struct lt_transform *)transformDesc;
    memset(t, 0, sizeof *t);
    t->magic = LT_MAGIC_TRANSFORM;
    t->scale = scaleType;
    t->pointer_mode = CUBLASLT_POINTER_MODE_HOST;
    t->transa = t->transb = CUBLAS_OP_N;
    return CUBLAS_STATUS_SUCCESS;
}

HL_EXPORT cublasStatus_t cublasLtMatrixTransformDescCreate(cublasLtMatrixTransformDesc_t *transformDesc,
                                                           cudaDataType scaleType)
{
    if (!transformDesc)
        return CUBLAS_STATUS_INVALID_VALUE;
    cublasLtMatrixTransformDesc_t t = calloc(1, sizeof *t);
    if (!t)
        return CUBLAS_STATUS_ALLOC_FAILED;
    cublasLtMatrixTransformDescInit_internal(t, sizeof *t, scaleType);
    *transformDesc = t;
    return CUBLAS_STATUS_SUCCESS;
}

HL_EXPORT cublasStatus_t cublasLtMatrixTransformDescDestroy(cublasLtMatrixTransformDesc_t transformDesc)
{
    struct lt_transform *t = lt_transform(transformDesc);
    if (!transformDesc)
        return CUBLAS_STATUS_SUCCESS;
    if (!t)
        return CUBLAS_STATUS_INVALID_VALUE;
    t->magic = 0;
    free(transformDesc);
    return CUBLAS_STATUS_SUCCESS;
}

HL_EXPORT cublasStatus_t cublasLtMatrixTransformDescSetAttribute(cublasLtMatrixTransformDesc_t transformDesc,
                                                                 cublasLtMatrixTransformDescAttributes_t attr,
                                                                 const void *buf, size_t sizeInBytes)
{
    return attr_set(lt_transform(transformDesc), transform_attrs, NATTR(transform_attrs), attr, buf, sizeInBytes);
}

HL_EXPORT cublasStatus_t cublasLtMatrixTransformDescGetAttribute(cublasLtMatrixTransformDesc_t transformDesc,
                                                                 cublasLtMatrixTransformDescAttributes_t attr,
                                                                 void *buf, size_t sizeInBytes, size_t *sizeWritten)
{
    return attr_get(lt_transform(transformDesc), transform_attrs, NATTR(transform_attrs), attr, buf, sizeInBytes,
                    sizeWritten);
}

/* ---- algorithm configuration ---------------------------------------------- */
#define AL struct lt_algo
static const struct attr config_attrs[] = {
    A(CUBLASLT_ALGO_CONFIG_ID, AL, id),
    A(CUBLASLT_ALGO_CONFIG_TILE_ID, AL, tile),
    A(CUBLASLT_ALGO_CONFIG_SPLITK_NUM, AL, splitk),
    A(CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, AL, reduction),
    A(CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, AL, swizzle),
    A(CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, AL, custom),
    A(CUBLASLT_ALGO_CONFIG_STAGES_ID, AL, stages),
    A(CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID, AL, inner),
    A(CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, AL, cluster),
};
#undef AL

int lt_algo_get(const cublasLtMatmulAlgo_t *a, struct lt_algo *out)
{
    if (!a)
        return -1;
    memcpy(out, a, sizeof *out);
    return out->magic == LT_MAGIC_ALGO ? 0 : -1;
}

void lt_algo_put(cublasLtMatmulAlgo_t *a, const struct lt_algo *in)
{
    memset(a, 0, sizeof *a);
    memcpy(a, in, sizeof *in);
}

/* As NVIDIA's, these work on any algorithm structure (the checks come in
 * cublasLtMatmulAlgoCheck); the id is read-only. */
HL_EXPORT cublasStatus_t cublasLtMatmulAlgoConfigSetAttribute(cublasLtMatmulAlgo_t *algo,
                                                              cublasLtMatmulAlgoConfigAttributes_t attr,
                                                              const void *buf, size_t sizeInBytes)
{
    if (!algo || attr == CUBLASLT_ALGO_CONFIG_ID)
        return CUBLAS_STATUS_INVALID_VALUE;
    struct lt_algo a;
    memcpy(&a, algo, sizeof a);
    cublasStatus_t r = attr_set(&a, config_attrs, NATTR(config_attrs), attr, buf, sizeInBytes);
    if (r == CUBLAS_STATUS_SUCCESS)
        memcpy(algo, &a, sizeof a);
    return r;
}

HL_EXPORT cublasStatus_t cublasLtMatmulAlgoConfigGetAttribute(const cublasLtMatmulAlgo_t *algo,
                                                              cublasLtMatmulAlgoConfigAttributes_t attr, void *buf,
                                                              size_t sizeInBytes, size_t *sizeWritten)
{
    if (!algo)
        return CUBLAS_STATUS_INVALID_VALUE;
    struct lt_algo a;
    memcpy(&a, algo, sizeof a);
    return attr_get(&a, config_attrs, NATTR(config_attrs), attr, buf, sizeInBytes, sizeWritten);
}

/* ---- heuristics cache, logger ------------------------------------------- */
/* there is no heuristics cache to size (the one algorithm needs no search);
 * the capacity is kept for the getter, 8192 entries as NVIDIA's default */
static size_t cache_capacity = 8192;

HL_EXPORT cublasStatus_t cublasLtHeuristicsCacheGetCapacity(size_t *capacity)
{
    if (!capacity)
        return CUBLAS_STATUS_INVALID_VALUE;
    *capacity = __atomic_load_n(&cache_capacity, __ATOMIC_RELAXED);
    return CUBLAS_STATUS_SUCCESS;
}

HL_EXPORT cublasStatus_t cublasLtHeuristicsCacheSetCapacity(size_t capacity)
{
    __atomic_store_n(&cache_capacity, capacity, __ATOMIC_RELAXED);
    return CUBLAS_STATUS_SUCCESS;
}

/* logging: nothing is logged; the settings are checked and accepted */
HL_EXPORT cublasStatus_t cublasLtLoggerSetCallback(cublasLtLoggerCallback_t callback)
{
    (void)callback;
    return CUBLAS_STATUS_SUCCESS;
}

HL_EXPORT cublasStatus_t cublasLtLoggerSetFile(FILE *file)
{
    (void)file;
    return CUBLAS_STATUS_SUCCESS;
}

HL_EXPORT cublasStatus_t cublasLtLoggerOpenFile(const char *logFile)
{
    return logFile ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_INVALID_VALUE;
}

HL_EXPORT cublasStatus_t cublasLtLoggerSetLevel(int level)
{
    return level >= 0 && level <= 5 ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_INVALID_VALUE;
}

HL_EXPORT cublasStatus_t cublasLtLoggerSetMask(int mask)
{
    (void)mask;
    return CUBLAS_STATUS_SUCCESS;
}

HL_EXPORT cublasStatus_t cublasLtLoggerForceDisable(void)
{
    return CUBLAS_STATUS_SUCCESS;
}
