/* SPDX-License-Identifier: Apache-2.0 */
/* What cublasLtMatmul accepts: element types, cuBLASLt's table of compute,
 * scale and matrix type combinations, and the checks of a whole
 * configuration (descriptors, sizes, epilogue) that the heuristics,
 * cublasLtMatmulAlgoCheck and cublasLtMatmul share. */
#include "lt.h"

#include <limits.h>
#include <string.h>

int lt_kind(int32_t t, enum lt_kind *k)
{
    switch (t) {
    case CUDA_R_16F: *k = LK_F16; return 0;
    case CUDA_R_16BF: *k = LK_BF16; return 0;
    case CUDA_R_32F: *k = LK_F32; return 0;
    case CUDA_R_64F: *k = LK_F64; return 0;
    default: return -1;
    }
}

size_t lt_kind_size(enum lt_kind k)
{
    static const size_t size[] = { [LK_F16] = 2, [LK_BF16] = 2, [LK_F32] = 4, [LK_F64] = 8 };
    return size[k];
}

double lt_load(enum lt_kind k, const void *p, size_t i)
{
    switch (k) {
    case LK_F16: return hl_h2f(((const uint16_t *)p)[i]);
    case LK_BF16: return hl_bf2f(((const uint16_t *)p)[i]);
    case LK_F32: return ((const float *)p)[i];
    case LK_F64: return ((const double *)p)[i];
    }
    return 0;
}

/* half and bfloat16 are rounded once, from float (as a float accumulator
 * is stored); float from double when the accumulator was double */
void lt_store(enum lt_kind k, void *p, size_t i, double v)
{
    switch (k) {
    case LK_F16: ((uint16_t *)p)[i] = hl_f2h((float)v); break;
    case LK_BF16: ((uint16_t *)p)[i] = hl_f2bf((float)v); break;
    case LK_F32: ((float *)p)[i] = (float)v; break;
    case LK_F64: ((double *)p)[i] = v; break;
    }
}

static uint64_t input_flag(int32_t t, enum lt_round r)
{
    switch (r) {
    case LR_F16: return CUBLASLT_NUMERICAL_IMPL_FLAGS_INPUT_16F;
    case LR_BF16: return CUBLASLT_NUMERICAL_IMPL_FLAGS_INPUT_16BF;
    case LR_TF32: return CUBLASLT_NUMERICAL_IMPL_FLAGS_INPUT_TF32;
    case LR_NONE: break;
    }
    switch (t) {
    case CUDA_R_16F: return CUBLASLT_NUMERICAL_IMPL_FLAGS_INPUT_16F;
    case CUDA_R_16BF: return CUBLASLT_NUMERICAL_IMPL_FLAGS_INPUT_16BF;
    case CUDA_R_64F: return CUBLASLT_NUMERICAL_IMPL_FLAGS_INPUT_64F;
    default: return CUBLASLT_NUMERICAL_IMPL_FLAGS_INPUT_32F;
    }
}

/* cuBLASLt's table for the real, non-FP8 types (C and D of one type):
 *   compute 16F:  scale 16F or 32F; A, B, C 16F
 *   compute 32F:  scale 32F; A, B 16F (C 16F or 32F), 16BF (C 16BF or 32F), 32F (C 32F)
 *   32F_FAST_16F, _FAST_16BF, _FAST_TF32: scale 32F; all 32F, inputs rounded
 *   compute 64F:  scale 64F; all 64F */
int lt_types(int32_t compute, int32_t scale, int32_t at, int32_t bt, int32_t ct, int32_t dt, enum lt_round *rnd,
             int *dbl, uint64_t *impl_flags)
{
    *rnd = LR_NONE;
    *dbl = 0;
    if (at != bt || ct != dt)
        return -1;
    switch (compute) {
    case CUBLAS_COMPUTE_16F:
    case CUBLAS_COMPUTE_16F_PEDANTIC:
        if ((scale != CUDA_R_16F && scale != CUDA_R_32F) || at != CUDA_R_16F || ct != CUDA_R_16F)
            return -1;
        break;
    case CUBLAS_COMPUTE_32F:
    case CUBLAS_COMPUTE_32F_PEDANTIC:
        if (scale != CUDA_R_32F)
            return -1;
        if (!((at == CUDA_R_32F && ct == CUDA_R_32F) || (at == CUDA_R_16F && (ct == CUDA_R_16F || ct == CUDA_R_32F)) ||
              (at == CUDA_R_16BF && (ct == CUDA_R_16BF || ct == CUDA_R_32F))))
            return -1;
        break;
    case CUBLAS_COMPUTE_32F_FAST_16F:
    case CUBLAS_COMPUTE_32F_FAST_16BF:
    case CUBLAS_COMPUTE_32F_FAST_TF32:
        if (scale != CUDA_R_32F || at != CUDA_R_32F || ct != CUDA_R_32F)
            return -1;
        *rnd = compute == CUBLAS_COMPUTE_32F_FAST_16F    ? LR_F16
               : compute == CUBLAS_COMPUTE_32F_FAST_16BF ? LR_BF16
                                                         : LR_TF32;
        break;
    case CUBLAS_COMPUTE_64F:
    case CUBLAS_COMPUTE_64F_PEDANTIC:
        if (scale != CUDA_R_64F || at != CUDA_R_64F || ct != CUDA_R_64F)
            return -1;
        *dbl = 1;
        break;
    default:
        return -1;
    }
    *impl_flags = CUBLASLT_NUMERICAL_IMPL_FLAGS_FMA | input_flag(at, *rnd) |
                  (*dbl ? CUBLASLT_NUMERICAL_IMPL_FLAGS_ACCUMULATOR_64F : CUBLASLT_NUMERICAL_IMPL_FLAGS_ACCUMULATOR_32F);
    return 0;
}

static int op_ok(int32_t op)
{
    return op == CUBLAS_OP_N || op == CUBLAS_OP_T || op == CUBLAS_OP_C;
}

/* the epilogues this implementation runs; -1 for one cuBLASLt does not
 * have, 1 for one of cuBLASLt's it does not run (the ReLU bit-mask ones:
 * the mask's bit layout is NVIDIA's and cannot be checked here) */
static int epilogue_kind(uint32_t e)
{
    switch (e) {
    case CUBLASLT_EPILOGUE_DEFAULT:
    case CUBLASLT_EPILOGUE_RELU:
    case CUBLASLT_EPILOGUE_BIAS:
    case CUBLASLT_EPILOGUE_RELU_BIAS:
    case CUBLASLT_EPILOGUE_GELU:
    case CUBLASLT_EPILOGUE_GELU_AUX:
    case CUBLASLT_EPILOGUE_GELU_BIAS:
    case CUBLASLT_EPILOGUE_GELU_AUX_BIAS:
    case CUBLASLT_EPILOGUE_DGELU:
    case CUBLASLT_EPILOGUE_DGELU_BGRAD:
    case CUBLASLT_EPILOGUE_BGRADA:
    case CUBLASLT_EPILOGUE_BGRADB:
        return 0;
    case CUBLASLT_EPILOGUE_RELU_AUX:
    case CUBLASLT_EPILOGUE_RELU_AUX_BIAS:
    case CUBLASLT_EPILOGUE_DRELU:
    case CUBLASLT_EPILOGUE_DRELU_BGRAD:
        return 1;
    default:
        return -1;
    }
}

/* one matrix layout: COL or ROW order, strided batches, sizes CBLAS takes */
static cublasStatus_t layout_ok(const struct lt_layout *l)
{
    if (l->order != CUBLASLT_ORDER_COL && l->order != CUBLASLT_ORDER_ROW)
        return l->order >= 0 && l->order <= CUBLASLT_ORDER_COL32_2R_4R4 ? CUBLAS_STATUS_NOT_SUPPORTED
                                                                        : CUBLAS_STATUS_INVALID_VALUE;
    if (l->mode != CUBLASLT_BATCH_MODE_STRIDED || l->plane != 0)
        return CUBLAS_STATUS_NOT_SUPPORTED;
    if (l->batch < 1 || l->stride < 0 || l->ld < 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    uint64_t inner = l->order == CUBLASLT_ORDER_COL ? l->rows : l->cols;
    if ((uint64_t)l->ld < (inner > 1 ? inner : 1))
        return CUBLAS_STATUS_INVALID_VALUE;
    if (l->rows > INT_MAX || l->cols > INT_MAX || l->ld > INT_MAX)
        return CUBLAS_STATUS_NOT_SUPPORTED;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t lt_plan_make(const struct lt_matmul *op, const struct lt_layout *A, const struct lt_layout *B,
                            const struct lt_layout *C, const struct lt_layout *D, struct lt_plan *p)
{
    if (!op || !A || !B || !C || !D)
        return CUBLAS_STATUS_INVALID_VALUE;
    memset(p, 0, sizeof *p);
    if (!op_ok(op->transa) || !op_ok(op->transb) || !op_ok(op->transc))
        return CUBLAS_STATUS_INVALID_VALUE;
    if (op->transc != CUBLAS_OP_N || op->fill != CUBLAS_FILL_MODE_FULL)
        return CUBLAS_STATUS_NOT_SUPPORTED;
    int ek = epilogue_kind(op->epilogue);
    if (ek)
        return ek < 0 ? CUBLAS_STATUS_INVALID_VALUE : CUBLAS_STATUS_NOT_SUPPORTED;
    switch (op->pointer_mode) {
    case CUBLASLT_POINTER_MODE_HOST:
    case CUBLASLT_POINTER_MODE_DEVICE:
    case CUBLASLT_POINTER_MODE_DEVICE_VECTOR:
    case CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_HOST:
        break;
    case CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_ZERO:
        if (op->alpha_stride != 0)
            return CUBLAS_STATUS_INVALID_VALUE;
        break;
    default:
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    if (op->alpha_stride < 0 || op->bias_stride < 0 || op->aux_stride < 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    /* FP8 scaling and amax: documented as INVALID_VALUE for other types */
    if (op->scale_a || op->scale_b || op->scale_c || op->scale_d || op->amax_d || op->aux_scale || op->aux_amax ||
        op->d_out_scale)
        return CUBLAS_STATUS_INVALID_VALUE;
    for (int i = 0; i < 5; i++)
        if (op->scale_mode[i])
            return CUBLAS_STATUS_NOT_SUPPORTED;
    if (op->d_out_scale_mode)
        return CUBLAS_STATUS_NOT_SUPPORTED;

    if (lt_kind((int32_t)A->type, &p->ka) || lt_kind((int32_t)B->type, &p->kb) || lt_kind((int32_t)C->type, &p->kc) ||
        lt_kind((int32_t)D->type, &p->kd) || lt_kind(op->scale, &p->kscale) ||
        lt_types(op->compute, op->scale, (int32_t)A->type, (int32_t)B->type, (int32_t)C->type, (int32_t)D->type,
                 &p->rnd, &p->dbl, &p->impl_flags))
        return CUBLAS_STATUS_NOT_SUPPORTED;
    const struct lt_layout *ls[4] = { A, B, C, D };
    for (int i = 0; i < 4; i++) {
        cublasStatus_t r = layout_ok(ls[i]);
        if (r)
            return r;
    }
    /* shapes: D and C are m x n, A is op(A)'s m x k stored, B k x n */
    uint64_t m = D->rows, n = D->cols;
    uint64_t k = op->transa == CUBLAS_OP_N ? A->cols : A->rows;
    uint64_t am = op->transa == CUBLAS_OP_N ? A->rows : A->cols;
    uint64_t bk = op->transb == CUBLAS_OP_N ? B->rows : B->cols;
    uint64_t bn = op->transb == CUBLAS_OP_N ? B->cols : B->rows;
    if (C->rows != m || C->cols != n || am != m || bk != k || bn != n)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (A->batch != D->batch || B->batch != D->batch || C->batch != D->batch)
        return CUBLAS_STATUS_INVALID_VALUE;

    uint32_t e = op->epilogue;
    if (e & (LT_EPI_BIAS | LT_EPI_BGRAD | LT_EPI_BGRADA | LT_EPI_BGRADB)) {
        if (op->bias_type != -1 && op->bias_type != (int32_t)D->type)
            return CUBLAS_STATUS_NOT_SUPPORTED;
    }
    if (e & LT_EPI_AUX) {
        if (op->aux_type != -1 && op->aux_type != (int32_t)D->type)
            return CUBLAS_STATUS_NOT_SUPPORTED;
        /* GELU's input matrix: ld at least m, both multiples of 8 */
        if (op->aux_ld < (int64_t)(m > 1 ? m : 1) || op->aux_ld % 8 || op->aux_stride % 8)
            return CUBLAS_STATUS_INVALID_VALUE;
        if (op->aux_ld > INT_MAX)
            return CUBLAS_STATUS_NOT_SUPPORTED;
    }
    p->compute = op->compute;
    p->scale = op->scale;
    p->ta = (cublasOperation_t)op->transa;
    p->tb = (cublasOperation_t)op->transb;
    p->m = (int)m;
    p->n = (int)n;
    p->k = (int)k;
    p->batch = D->batch;
    p->a = *A;
    p->b = *B;
    p->c = *C;
    p->d = *D;
    p->epilogue = e;
    p->pointer_mode = op->pointer_mode;
    return CUBLAS_STATUS_SUCCESS;
}
