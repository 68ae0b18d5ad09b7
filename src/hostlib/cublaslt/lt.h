/* SPDX-License-Identifier: Apache-2.0 */
/* cuBLASLt on the host: what desc.c (handles, descriptors and their
 * attributes), algo.c (the one algorithm, its heuristics and checks) and
 * matmul.c (cublasLtMatmul on OpenBLAS) share.
 *
 * Descriptors are the program's memory: cuBLASLt lets a program hold them
 * itself (cublasLt.h's inline ...Init functions), so they cannot live in a
 * registry. Each starts with a magic word that Create/Init write and
 * Destroy clears: anything else is CUBLAS_STATUS_INVALID_VALUE. */
#ifndef TD_HOSTLIB_LT_H
#define TD_HOSTLIB_LT_H

#include "cublasLt_api.h"
#include "hostlib.h"

#define LT_HANDLE_KIND 1
#define LT_MAGIC_LAYOUT 0x4c744c61u   /* "aLtL" */
#define LT_MAGIC_MATMUL 0x4c744d6du
#define LT_MAGIC_PREF 0x4c745072u
#define LT_MAGIC_TRANSFORM 0x4c745472u
#define LT_MAGIC_ALGO 0x4c74416cu

struct cublasLtContext {
    int unused;
};

struct lt_layout {
    uint32_t magic;
    uint32_t type;      /* cudaDataType */
    int32_t order;
    int32_t batch;
    uint64_t rows, cols;
    int64_t ld, stride, plane;
    uint32_t mode;      /* cublasLtBatchMode_t */
};
_Static_assert(sizeof(struct lt_layout) <= sizeof(cublasLtMatrixLayoutOpaque_t), "layout fits");

struct lt_matmul {
    uint32_t magic;
    int32_t compute, scale, pointer_mode, transa, transb, transc, fill;
    uint32_t epilogue;
    int32_t sm_count, aux_type, bias_type, reserved16;
    const void *bias;
    int64_t bias_stride;
    void *aux;
    int64_t aux_ld, aux_stride, alpha_stride;
    const void *scale_a, *scale_b, *scale_c, *scale_d, *amax_d, *aux_scale, *aux_amax, *d_out_scale;
    int32_t scale_mode[5], d_out_scale_mode;
    void *emulation;
    int8_t fast_accum;
};
_Static_assert(sizeof(struct lt_matmul) <= sizeof(cublasLtMatmulDescOpaque_t), "matmul desc fits");

struct lt_pref {
    uint32_t magic;
    uint32_t search;
    uint64_t workspace;
    uint32_t reduction_mask;
    uint32_t align[4];        /* A, B, C, D */
    float max_waves;
    uint64_t impl_mask;
};
_Static_assert(sizeof(struct lt_pref) <= sizeof(cublasLtMatmulPreferenceOpaque_t), "preference fits");

struct lt_transform {
    uint32_t magic;
    int32_t scale, pointer_mode, transa, transb;
};
_Static_assert(sizeof(struct lt_transform) <= sizeof(cublasLtMatrixTransformDescOpaque_t), "transform fits");

/* the algorithm descriptor: the types it was made for and its settings */
struct lt_algo {
    uint32_t magic;
    int32_t id;
    int32_t compute, scale, atype, btype, ctype, dtype;
    uint32_t tile, stages;
    int32_t splitk;
    uint32_t reduction, swizzle, custom;
    uint16_t inner, cluster;
};
_Static_assert(sizeof(struct lt_algo) <= sizeof(cublasLtMatmulAlgo_t), "algo fits");

/* descriptors from the program's pointers (NULL: not a live descriptor) */
struct lt_layout *lt_layout(cublasLtMatrixLayout_t p);
struct lt_matmul *lt_matmul(cublasLtMatmulDesc_t p);
struct lt_pref *lt_pref(cublasLtMatmulPreference_t p);
struct lt_transform *lt_transform(cublasLtMatrixTransformDesc_t p);
/* the algorithm as a struct (copied: the program's copy may be unaligned);
 * -1 if it is not one of ours */
int lt_algo_get(const cublasLtMatmulAlgo_t *a, struct lt_algo *out);
void lt_algo_put(cublasLtMatmulAlgo_t *a, const struct lt_algo *in);

cublasStatus_t lt_handle(cublasLtHandle_t h);

/* element types */
enum lt_kind { LK_F16, LK_BF16, LK_F32, LK_F64 };
int lt_kind(int32_t cuda_type, enum lt_kind *k);   /* -1 for a type not handled */
size_t lt_kind_size(enum lt_kind k);
double lt_load(enum lt_kind k, const void *p, size_t i);
void lt_store(enum lt_kind k, void *p, size_t i, double v);

/* how the inputs are rounded before the products */
enum lt_round { LR_NONE, LR_F16, LR_BF16, LR_TF32 };

/* A validated matmul configuration (descriptors, without the pointers). */
struct lt_plan {
    int32_t compute, scale;
    int dbl;                  /* accumulate in double (compute 64F) */
    enum lt_round rnd;
    enum lt_kind ka, kb, kc, kd, kscale;
    cublasOperation_t ta, tb;
    int m, n, k, batch;
    struct lt_layout a, b, c, d;
    uint32_t epilogue;
    int pointer_mode;
    uint64_t impl_flags;
};
/* Checks a configuration as cublasLtMatmul would: CUBLAS_STATUS_INVALID_VALUE
 * for missing or mismatched descriptors and sizes, _NOT_SUPPORTED for
 * what this implementation does not do. */
cublasStatus_t lt_plan_make(const struct lt_matmul *op, const struct lt_layout *A, const struct lt_layout *B,
                            const struct lt_layout *C, const struct lt_layout *D, struct lt_plan *p);
/* Checks a combination of compute, scale and matrix types: 0 and the
 * rounding, accumulator and implementation flags, or -1. */
int lt_types(int32_t compute, int32_t scale, int32_t at, int32_t bt, int32_t ct, int32_t dt, enum lt_round *rnd,
             int *dbl, uint64_t *impl_flags);
/* the algorithm for a configuration (algo.c) */
void lt_algo_for(const struct lt_plan *p, struct lt_algo *a);
/* does an algorithm fit a configuration? 0, or the status */
cublasStatus_t lt_algo_fits(const struct lt_algo *a, const struct lt_plan *p);

/* the epilogue bits */
#define LT_EPI_RELU 2u
#define LT_EPI_BIAS 4u
#define LT_EPI_DRELU 8u
#define LT_EPI_BGRAD 16u
#define LT_EPI_GELU 32u
#define LT_EPI_DGELU 64u
#define LT_EPI_AUX 128u
#define LT_EPI_BGRADA 256u
#define LT_EPI_BGRADB 512u

#endif
