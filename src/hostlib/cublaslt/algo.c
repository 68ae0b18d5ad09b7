/* SPDX-License-Identifier: Apache-2.0 */
/* Algorithms: this implementation has one, id 0, for every supported type
 * combination (CBLAS gemm plus a host epilogue): it needs no workspace,
 * works with any element-aligned pointer, any leading dimension CBLAS
 * takes, strided batches and every pointer mode. The heuristics return it
 * (or nothing, where a preference excludes it), cublasLtMatmulAlgoGetIds
 * lists it, cublasLtMatmulAlgoInit makes it, cublasLtMatmulAlgoCheck
 * checks a configuration and an algorithm's settings against it. */
#include "lt.h"

#include <string.h>

#define ALGO_ID 0
#define WAVES 1.0f

void lt_algo_for(const struct lt_plan *p, struct lt_algo *a)
{
    memset(a, 0, sizeof *a);
    a->magic = LT_MAGIC_ALGO;
    a->id = ALGO_ID;
    a->compute = p->compute;
    a->scale = p->scale;
    a->atype = (int32_t)p->a.type;
    a->btype = (int32_t)p->b.type;
    a->ctype = (int32_t)p->c.type;
    a->dtype = (int32_t)p->d.type;
    a->splitk = 1;
}

cublasStatus_t lt_algo_fits(const struct lt_algo *a, const struct lt_plan *p)
{
    if (a->id != ALGO_ID || a->compute != p->compute || a->scale != p->scale || a->atype != (int32_t)p->a.type ||
        a->btype != (int32_t)p->b.type || a->ctype != (int32_t)p->c.type || a->dtype != (int32_t)p->d.type)
        return CUBLAS_STATUS_INVALID_VALUE;
    /* the settings its capabilities allow: none but the defaults */
    if (a->tile != CUBLASLT_MATMUL_TILE_UNDEFINED || a->stages != CUBLASLT_MATMUL_STAGES_UNDEFINED ||
        (a->splitk != 0 && a->splitk != 1) || a->reduction != CUBLASLT_REDUCTION_SCHEME_NONE || a->swizzle ||
        a->custom || a->inner || a->cluster)
        return CUBLAS_STATUS_NOT_SUPPORTED;
    return CUBLAS_STATUS_SUCCESS;
}

HL_EXPORT cublasStatus_t cublasLtMatmulAlgoGetIds(cublasLtHandle_t lightHandle, cublasComputeType_t computeType,
                                                  cudaDataType_t scaleType, cudaDataType_t Atype,
                                                  cudaDataType_t Btype, cudaDataType_t Ctype, cudaDataType_t Dtype,
                                                  int requestedAlgoCount, int algoIdsArray[], int *returnAlgoCount)
{
    cublasStatus_t r = lt_handle(lightHandle);
    if (r)
        return r;
    if (requestedAlgoCount <= 0 || !algoIdsArray || !returnAlgoCount)
        return CUBLAS_STATUS_INVALID_VALUE;
    enum lt_round rnd;
    int dbl;
    uint64_t flags;
    *returnAlgoCount = 0;
    if (lt_types(computeType, scaleType, Atype, Btype, Ctype, Dtype, &rnd, &dbl, &flags) == 0) {
        algoIdsArray[0] = ALGO_ID;
        *returnAlgoCount = 1;
    }
    return CUBLAS_STATUS_SUCCESS;
}

HL_EXPORT cublasStatus_t cublasLtMatmulAlgoInit(cublasLtHandle_t lightHandle, cublasComputeType_t computeType,
                                                cudaDataType_t scaleType, cudaDataType_t Atype, cudaDataType_t Btype,
                                                cudaDataType_t Ctype, cudaDataType_t Dtype, int algoId,
                                                cublasLtMatmulAlgo_t *algo)
{
    cublasStatus_t r = lt_handle(lightHandle);
    if (r)
        return r;
    if (!algo || algoId != ALGO_ID)
        return CUBLAS_STATUS_INVALID_VALUE;
    struct lt_plan p;
    memset(&p, 0, sizeof p);
    if (lt_types(computeType, scaleType, Atype, Btype, Ctype, Dtype, &p.rnd, &p.dbl, &p.impl_flags))
        return CUBLAS_STATUS_NOT_SUPPORTED;
    p.compute = computeType;
    p.scale = scaleType;
    p.a.type = (uint32_t)Atype;
    p.b.type = (uint32_t)Btype;
    p.c.type = (uint32_t)Ctype;
    p.d.type = (uint32_t)Dtype;
    struct lt_algo a;
    lt_algo_for(&p, &a);
    lt_algo_put(algo, &a);
    return CUBLAS_STATUS_SUCCESS;
}

static void fill_result(cublasLtMatmulHeuristicResult_t *res)
{
    res->workspaceSize = 0;
    res->state = CUBLAS_STATUS_SUCCESS;
    res->wavesCount = WAVES;
    memset(res->reserved, 0, sizeof res->reserved);
}

HL_EXPORT cublasStatus_t cublasLtMatmulAlgoCheck(cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t operationDesc,
                                                 cublasLtMatrixLayout_t Adesc, cublasLtMatrixLayout_t Bdesc,
                                                 cublasLtMatrixLayout_t Cdesc, cublasLtMatrixLayout_t Ddesc,
                                                 const cublasLtMatmulAlgo_t *algo,
                                                 cublasLtMatmulHeuristicResult_t *result)
{
    cublasStatus_t r = lt_handle(lightHandle);
    if (r)
        return r;
    struct lt_algo a;
    if (!result || lt_algo_get(algo, &a))
        return CUBLAS_STATUS_INVALID_VALUE;
    struct lt_plan p;
    r = lt_plan_make(lt_matmul(operationDesc), lt_layout(Adesc), lt_layout(Bdesc), lt_layout(Cdesc),
                     lt_layout(Ddesc), &p);
    if (!r)
        r = lt_algo_fits(&a, &p);
    if (r)
        return r;
    fill_result(result);   /* result->algo is left as it is (it may be algo) */
    return CUBLAS_STATUS_SUCCESS;
}

HL_EXPORT cublasStatus_t cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t lightHandle,
                                                        cublasLtMatmulDesc_t operationDesc,
                                                        cublasLtMatrixLayout_t Adesc, cublasLtMatrixLayout_t Bdesc,
                                                        cublasLtMatrixLayout_t Cdesc, cublasLtMatrixLayout_t Ddesc,
                                                        cublasLtMatmulPreference_t preference,
                                                        int requestedAlgoCount,
                                                        cublasLtMatmulHeuristicResult_t heuristicResultsArray[],
                                                        int *returnAlgoCount)
{
    cublasStatus_t r = lt_handle(lightHandle);
    if (r)
        return r;
    if (requestedAlgoCount <= 0 || !heuristicResultsArray || !returnAlgoCount)
        return CUBLAS_STATUS_INVALID_VALUE;
    struct lt_pref defaults, *pref = &defaults;
    if (preference) {
        pref = lt_pref(preference);
        if (!pref)
            return CUBLAS_STATUS_INVALID_VALUE;
    } else {
        cublasLtMatmulPreferenceInit_internal((cublasLtMatmulPreference_t)(void *)&defaults, sizeof defaults);
    }
    *returnAlgoCount = 0;
    struct lt_plan p;
    r = lt_plan_make(lt_matmul(operationDesc), lt_layout(Adesc), lt_layout(Bdesc), lt_layout(Cdesc),
                     lt_layout(Ddesc), &p);
    if (r)
        return r;
    struct lt_algo a;
    lt_algo_for(&p, &a);
    int ok = 1;
    if (pref->search == CUBLASLT_SEARCH_LIMITED_BY_ALGO_ID) {
        /* the program initialised the candidates in the results array */
        struct lt_algo want;
        ok = lt_algo_get(&heuristicResultsArray[0].algo, &want) == 0 && want.id == ALGO_ID;
    } else if (pref->search != CUBLASLT_SEARCH_BEST_FIT) {
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    /* what the program promises: alignments, numerical behaviour, waves */
    const enum lt_kind kinds[4] = { p.ka, p.kb, p.kc, p.kd };
    for (int i = 0; i < 4; i++)
        if (pref->align[i] < lt_kind_size(kinds[i]))
            ok = 0;
    if (p.impl_flags & ~pref->impl_mask)
        ok = 0;
    if (pref->max_waves > 0 && pref->max_waves < WAVES)
        ok = 0;
    if (!ok)
        return CUBLAS_STATUS_NOT_SUPPORTED;
    lt_algo_put(&heuristicResultsArray[0].algo, &a);
    fill_result(&heuristicResultsArray[0]);
    *returnAlgoCount = 1;
    return CUBLAS_STATUS_SUCCESS;
}

/* ---- capabilities ------------------------------------------------------- */
static const uint32_t no_ids[1] = { 0 };   /* TILE_UNDEFINED, STAGES_UNDEFINED */

HL_EXPORT cublasStatus_t cublasLtMatmulAlgoCapGetAttribute(const cublasLtMatmulAlgo_t *algo,
                                                           cublasLtMatmulAlgoCapAttributes_t attr, void *buf,
                                                           size_t sizeInBytes, size_t *sizeWritten)
{
    struct lt_algo a;
    if (lt_algo_get(algo, &a))
        return CUBLAS_STATUS_INVALID_VALUE;
    union { int32_t i; uint32_t u; uint64_t q; } v;
    const void *src = &v;
    size_t size = 4;
    int array = 0;
    enum lt_kind k[4];
    int32_t t[4] = { a.atype, a.btype, a.ctype, a.dtype };
    for (int i = 0; i < 4; i++)
        if (lt_kind(t[i], &k[i]))
            k[i] = LK_F32;
    switch (attr) {
    case CUBLASLT_ALGO_CAP_SPLITK_SUPPORT: v.i = 0; break;
    case CUBLASLT_ALGO_CAP_REDUCTION_SCHEME_MASK: v.u = CUBLASLT_REDUCTION_SCHEME_NONE; break;
    case CUBLASLT_ALGO_CAP_CTA_SWIZZLING_SUPPORT: v.u = 0; break;
    case CUBLASLT_ALGO_CAP_STRIDED_BATCH_SUPPORT: v.i = 1; break;
    case CUBLASLT_ALGO_CAP_OUT_OF_PLACE_RESULT_SUPPORT: v.i = 1; break;
    case CUBLASLT_ALGO_CAP_UPLO_SUPPORT: v.i = 0; break;
    case CUBLASLT_ALGO_CAP_TILE_IDS:
    case CUBLASLT_ALGO_CAP_STAGES_IDS: src = no_ids; size = sizeof no_ids; array = 1; break;
    case CUBLASLT_ALGO_CAP_CUSTOM_OPTION_MAX: v.i = 0; break;
    case CUBLASLT_ALGO_CAP_CUSTOM_MEMORY_ORDER: v.i = 0; break;
    case CUBLASLT_ALGO_CAP_POINTER_MODE_MASK:
        v.u = CUBLASLT_POINTER_MODE_MASK_HOST | CUBLASLT_POINTER_MODE_MASK_DEVICE |
              CUBLASLT_POINTER_MODE_MASK_DEVICE_VECTOR | CUBLASLT_POINTER_MODE_MASK_ALPHA_DEVICE_VECTOR_BETA_ZERO |
              CUBLASLT_POINTER_MODE_MASK_ALPHA_DEVICE_VECTOR_BETA_HOST;
        break;
    case CUBLASLT_ALGO_CAP_EPILOGUE_MASK:
        v.u = CUBLASLT_EPILOGUE_DEFAULT | CUBLASLT_EPILOGUE_RELU | CUBLASLT_EPILOGUE_BIAS | CUBLASLT_EPILOGUE_GELU_AUX |
              CUBLASLT_EPILOGUE_DGELU_BGRAD | CUBLASLT_EPILOGUE_BGRADA | CUBLASLT_EPILOGUE_BGRADB;
        break;
    case CUBLASLT_ALGO_CAP_LD_NEGATIVE: v.i = 0; break;
    case CUBLASLT_ALGO_CAP_NUMERICAL_IMPL_FLAGS: {
        enum lt_round rnd;
        int dbl;
        if (lt_types(a.compute, a.scale, a.atype, a.btype, a.ctype, a.dtype, &rnd, &dbl, &v.q))
            v.q = 0;
        size = 8;
        break;
    }
    case CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_A_BYTES:
    case CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_B_BYTES:
    case CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_C_BYTES:
    case CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_D_BYTES:
        v.u = (uint32_t)lt_kind_size(k[attr - CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_A_BYTES]);
        break;
    case CUBLASLT_ALGO_CAP_POINTER_ARRAY_BATCH_SUPPORT: v.i = 0; break;
    case CUBLASLT_ALGO_CAP_FLOATING_POINT_EMULATION_SUPPORT: v.i = 0; break;
    default:
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    if (sizeInBytes == 0) {
        if (!sizeWritten)
            return CUBLAS_STATUS_INVALID_VALUE;
        *sizeWritten = size;
        return CUBLAS_STATUS_SUCCESS;
    }
    /* an array may be asked for into a larger buffer */
    if (!buf || (array ? sizeInBytes < size : sizeInBytes != size))
        return CUBLAS_STATUS_INVALID_VALUE;
    memcpy(buf, src, size);
    if (sizeWritten)
        *sizeWritten = size;
    return CUBLAS_STATUS_SUCCESS;
}
