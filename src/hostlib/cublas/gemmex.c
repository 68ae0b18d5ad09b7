/* SPDX-License-Identifier: Apache-2.0 */
/* The gemm family: S/D/C/Z gemm and gemm3m, their batched (pointer
 * arrays) and strided-batched forms, Hgemm, SgemmEx, and GemmEx,
 * GemmBatchedEx, GemmStridedBatchedEx with cuBLAS's table of supported
 * type combinations.
 *
 * Arithmetic: where the operands' type is the compute type, CBLAS's gemm
 * of that type runs on them in place. Otherwise operands are converted to
 * float (or complex float) first: half, bfloat16 and int8 exactly, and
 * float inputs rounded as the compute type says (CUBLAS_COMPUTE_32F_FAST_16F
 * to half, _FAST_16BF to bfloat16, _FAST_TF32 and CUBLAS_COMPUTE_32F under
 * CUBLAS_TF32_TENSOR_OP_MATH to TF32); accumulation is in float and a
 * half or bfloat16 C is rounded once at the end (to nearest even).
 * CUBLAS_COMPUTE_16F accumulates in float too (NVIDIA's tensor cores keep
 * more than half precision within a block, so neither is bit-exact to the
 * GPU). CUBLAS_COMPUTE_32I: int8 inputs, exact int32 accumulation. */
#include "blas.h"

#include <stdlib.h>

enum kind { K_F16, K_BF16, K_F32, K_F64, K_I8, K_I32 };
enum rnd { R_NONE, R_F16, R_BF16, R_TF32 };
enum path { P_S, P_D, P_C, P_Z, P_F32, P_C32, P_I32 };

struct gj {
    struct hl_job h;
    enum path path;
    enum rnd rnd;
    enum kind ka, kb, kc, kscale;
    int cplx;
    cublasOperation_t ta, tb;
    int m, n, k, lda, ldb, ldc, batch;
    long long sa, sb, sc;
    const void *A, *B;
    void *C;
    void **pa, **pb, **pc;
    struct scal alpha, beta;
    size_t ea, eb, ec;   /* element sizes */
};

static int kind_of(cudaDataType t, enum kind *k, int *cplx, size_t *size)
{
    switch ((int)t) {
    case CUDA_R_16F: *k = K_F16; *cplx = 0; *size = 2; return 0;
    case CUDA_R_16BF: *k = K_BF16; *cplx = 0; *size = 2; return 0;
    case CUDA_R_32F: *k = K_F32; *cplx = 0; *size = 4; return 0;
    case CUDA_R_64F: *k = K_F64; *cplx = 0; *size = 8; return 0;
    case CUDA_R_8I: *k = K_I8; *cplx = 0; *size = 1; return 0;
    case CUDA_R_32I: *k = K_I32; *cplx = 0; *size = 4; return 0;
    case CUDA_C_32F: *k = K_F32; *cplx = 1; *size = 8; return 0;
    case CUDA_C_64F: *k = K_F64; *cplx = 1; *size = 16; return 0;
    case CUDA_C_8I: *k = K_I8; *cplx = 1; *size = 2; return 0;
    default: return -1;
    }
}

/* ---- conversions ------------------------------------------------------ */
static float rounded(float v, enum rnd r)
{
    switch (r) {
    case R_NONE: return v;
    case R_F16: return hl_h2f(hl_f2h(v));
    case R_BF16: return hl_bf2f(hl_f2bf(v));
    case R_TF32: return hl_tf32(v);
    }
    return v;
}

static float load_f(enum kind k, const void *p, size_t i)
{
    switch (k) {
    case K_F16: return hl_h2f(((const uint16_t *)p)[i]);
    case K_BF16: return hl_bf2f(((const uint16_t *)p)[i]);
    case K_F32: return ((const float *)p)[i];
    case K_F64: return (float)((const double *)p)[i];
    case K_I8: return (float)((const int8_t *)p)[i];
    case K_I32: return (float)((const int32_t *)p)[i];
    }
    return 0;
}

static void store_f(enum kind k, void *p, size_t i, float v)
{
    switch (k) {
    case K_F16: ((uint16_t *)p)[i] = hl_f2h(v); break;
    case K_BF16: ((uint16_t *)p)[i] = hl_f2bf(v); break;
    case K_F32: ((float *)p)[i] = v; break;
    case K_F64: case K_I8: case K_I32: break; /* no such output computes in float */
    }
}

/* a rows x cols matrix (leading dimension ld, nv values per element) as
 * packed floats, rounded */
static float *to_float(enum kind k, const void *p, int rows, int cols, int ld, int nv, enum rnd r)
{
    float *out = malloc((size_t)rows * (size_t)cols * (size_t)nv * sizeof *out);
    if (!out)
        return NULL;
    for (int c = 0; c < cols; c++)
        for (int i = 0; i < rows * nv; i++)
            out[(size_t)c * rows * nv + i] = rounded(load_f(k, p, ((size_t)c * ld) * nv + i), r);
    return out;
}

static float scale_f(const struct gj *j, const struct scal *s, int im)
{
    const void *p = scal_val(s);
    switch (j->kscale) {
    case K_F16: return im ? 0 : hl_h2f(*(const uint16_t *)p);
    case K_F32: return ((const float *)p)[im];
    case K_BF16: case K_F64: case K_I8: case K_I32: break; /* no such scale type in float paths */
    }
    return 0;
}

/* ---- one product -------------------------------------------------------- */
static int rows_a(const struct gj *j) { return j->ta == CUBLAS_OP_N ? j->m : j->k; }
static int cols_a(const struct gj *j) { return j->ta == CUBLAS_OP_N ? j->k : j->m; }
static int rows_b(const struct gj *j) { return j->tb == CUBLAS_OP_N ? j->k : j->n; }
static int cols_b(const struct gj *j) { return j->tb == CUBLAS_OP_N ? j->n : j->k; }

static void gemm_i32(const struct gj *j, const void *A, const void *B, void *C)
{
    int32_t alpha = *(const int32_t *)scal_val(&j->alpha), beta = *(const int32_t *)scal_val(&j->beta);
    const int8_t *a = A, *b = B;
    int32_t *c = C;
    for (int col = 0; col < j->n; col++) {
        for (int row = 0; row < j->m; row++) {
            int64_t s = 0;
            for (int l = 0; l < j->k; l++) {
                int8_t x = j->ta == CUBLAS_OP_N ? a[(size_t)l * j->lda + row] : a[(size_t)row * j->lda + l];
                int8_t y = j->tb == CUBLAS_OP_N ? b[(size_t)col * j->ldb + l] : b[(size_t)l * j->ldb + col];
                s += (int32_t)x * y;
            }
            int32_t *o = &c[(size_t)col * j->ldc + row];
            int64_t v = (int64_t)alpha * (int32_t)s + (beta ? (int64_t)beta * *o : 0);
            *o = (int32_t)(uint32_t)(uint64_t)v;
        }
    }
}

static void gemm_float(const struct gj *j, const void *A, const void *B, void *C)
{
    int nv = j->cplx ? 2 : 1;
    int ar = rows_a(j), ac = cols_a(j), br = rows_b(j), bc = cols_b(j);
    enum CBLAS_TRANSPOSE ta = cb_op(j->ta, j->cplx ? BT_C : BT_S), tb = cb_op(j->tb, j->cplx ? BT_C : BT_S);
    /* float operands used in place when nothing changes them */
    int own_a = !(j->ka == K_F32 && j->rnd == R_NONE), own_b = !(j->kb == K_F32 && j->rnd == R_NONE);
    int own_c = j->kc != K_F32;
    const float *fa = own_a ? to_float(j->ka, A, ar, ac, j->lda, nv, j->ka == K_F32 ? j->rnd : R_NONE) : A;
    const float *fb = own_b ? to_float(j->kb, B, br, bc, j->ldb, nv, j->kb == K_F32 ? j->rnd : R_NONE) : B;
    float *fc = own_c ? to_float(j->kc, C, j->m, j->n, j->ldc, nv, R_NONE) : C;
    if (fa && fb && fc) {
        int lda = own_a ? ar : j->lda, ldb = own_b ? br : j->ldb, ldc = own_c ? j->m : j->ldc;
        if (j->cplx) {
            float al[2] = { scale_f(j, &j->alpha, 0), scale_f(j, &j->alpha, 1) };
            float be[2] = { scale_f(j, &j->beta, 0), scale_f(j, &j->beta, 1) };
            cblas_cgemm(CblasColMajor, ta, tb, j->m, j->n, j->k, al, fa, lda, fb, ldb, be, fc, ldc);
        } else {
            cblas_sgemm(CblasColMajor, ta, tb, j->m, j->n, j->k, scale_f(j, &j->alpha, 0), fa, lda, fb, ldb,
                        scale_f(j, &j->beta, 0), fc, ldc);
        }
        if (own_c)
            for (int c = 0; c < j->n; c++)
                for (int i = 0; i < j->m * nv; i++)
                    store_f(j->kc, C, (size_t)c * j->ldc * nv + i, fc[(size_t)c * j->m * nv + i]);
    }
    if (own_a)
        free((void *)fa);
    if (own_b)
        free((void *)fb);
    if (own_c)
        free(fc);
}

static void gemm_one(const struct gj *j, const void *A, const void *B, void *C)
{
    enum CBLAS_TRANSPOSE ta = cb_op(j->ta, j->path == P_C || j->path == P_Z ? BT_C : BT_S);
    enum CBLAS_TRANSPOSE tb = cb_op(j->tb, j->path == P_C || j->path == P_Z ? BT_C : BT_S);
    const void *a = scal_val(&j->alpha), *b = scal_val(&j->beta);
    switch (j->path) {
    case P_S:
        cblas_sgemm(CblasColMajor, ta, tb, j->m, j->n, j->k, *(const float *)a, A, j->lda, B, j->ldb,
                    *(const float *)b, C, j->ldc);
        break;
    case P_D:
        cblas_dgemm(CblasColMajor, ta, tb, j->m, j->n, j->k, *(const double *)a, A, j->lda, B, j->ldb,
                    *(const double *)b, C, j->ldc);
        break;
    case P_C: cblas_cgemm(CblasColMajor, ta, tb, j->m, j->n, j->k, a, A, j->lda, B, j->ldb, b, C, j->ldc); break;
    case P_Z: cblas_zgemm(CblasColMajor, ta, tb, j->m, j->n, j->k, a, A, j->lda, B, j->ldb, b, C, j->ldc); break;
    case P_F32:
    case P_C32: gemm_float(j, A, B, C); break;
    case P_I32: gemm_i32(j, A, B, C); break;
    }
}

static void run_gemm(struct hl_job *hj)
{
    struct gj *j = (struct gj *)hj;
    for (int i = 0; i < j->batch; i++) {
        const void *A = j->pa ? j->pa[i] : (const char *)j->A + (size_t)i * (size_t)j->sa * j->ea;
        const void *B = j->pb ? j->pb[i] : (const char *)j->B + (size_t)i * (size_t)j->sb * j->eb;
        void *C = j->pc ? j->pc[i] : (char *)j->C + (size_t)i * (size_t)j->sc * j->ec;
        gemm_one(j, A, B, C);
    }
}

static void fini_gemm(struct hl_job *hj)
{
    free(((struct gj *)hj)->pa);
}

/* ---- cuBLAS's combinations ------------------------------------------------ */
/* the path, the rounding of float inputs and the scale type for (compute,
 * A, B, C); -1 for a combination cuBLAS does not support */
static int plan(cublasHandle_t h, cublasComputeType_t ct, cudaDataType at, cudaDataType bt, cudaDataType ctp,
                enum path *path, enum rnd *rnd, enum kind *kscale, size_t *scalesz)
{
    *rnd = R_NONE;
    if (at != bt)
        return -1;
    switch (ct) {
    case CUBLAS_COMPUTE_16F:
    case CUBLAS_COMPUTE_16F_PEDANTIC:
        if (at != CUDA_R_16F || ctp != CUDA_R_16F)
            return -1;
        *path = P_F32;
        *kscale = K_F16;
        *scalesz = 2;
        return 0;
    case CUBLAS_COMPUTE_32F_FAST_16F:
    case CUBLAS_COMPUTE_32F_FAST_16BF:
    case CUBLAS_COMPUTE_32F_FAST_TF32:
        if (!((at == CUDA_R_32F && ctp == CUDA_R_32F) || (at == CUDA_C_32F && ctp == CUDA_C_32F)))
            return -1;
        *rnd = ct == CUBLAS_COMPUTE_32F_FAST_16F ? R_F16 : ct == CUBLAS_COMPUTE_32F_FAST_16BF ? R_BF16 : R_TF32;
        *path = at == CUDA_C_32F ? P_C32 : P_F32;
        *kscale = K_F32;
        *scalesz = at == CUDA_C_32F ? 8 : 4;
        return 0;
    case CUBLAS_COMPUTE_32F:
    case CUBLAS_COMPUTE_32F_PEDANTIC:
    case CUBLAS_COMPUTE_32F_EMULATED_16BFX9:
        *kscale = K_F32;
        if (at == CUDA_C_32F || at == CUDA_C_8I) {
            if (ctp != CUDA_C_32F)
                return -1;
            *path = at == CUDA_C_32F ? P_C : P_C32;
            *scalesz = 8;
        } else {
            int ok = (at == CUDA_R_32F && ctp == CUDA_R_32F) || (at == CUDA_R_16F && (ctp == CUDA_R_16F || ctp == CUDA_R_32F)) ||
                     (at == CUDA_R_16BF && (ctp == CUDA_R_16BF || ctp == CUDA_R_32F)) ||
                     (at == CUDA_R_8I && ctp == CUDA_R_32F);
            if (!ok)
                return -1;
            *path = at == CUDA_R_32F ? P_S : P_F32;
            *scalesz = 4;
        }
        /* TF32 tensor-op math: float inputs are rounded to TF32 */
        if (ct == CUBLAS_COMPUTE_32F && (h->math_mode & 0xf) == CUBLAS_TF32_TENSOR_OP_MATH &&
            (at == CUDA_R_32F || at == CUDA_C_32F)) {
            *rnd = R_TF32;
            *path = at == CUDA_C_32F ? P_C32 : P_F32;
        }
        return 0;
    case CUBLAS_COMPUTE_64F:
    case CUBLAS_COMPUTE_64F_PEDANTIC:
    case CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT:
        if (!((at == CUDA_R_64F && ctp == CUDA_R_64F) || (at == CUDA_C_64F && ctp == CUDA_C_64F)))
            return -1;
        *path = at == CUDA_C_64F ? P_Z : P_D;
        *kscale = K_F64;
        *scalesz = at == CUDA_C_64F ? 16 : 8;
        return 0;
    case CUBLAS_COMPUTE_32I:
    case CUBLAS_COMPUTE_32I_PEDANTIC:
        if (at != CUDA_R_8I || ctp != CUDA_R_32I)
            return -1;
        *path = P_I32;
        *kscale = K_I32;
        *scalesz = 4;
        return 0;
    }
    return -1;
}

cublasStatus_t blas_gemm_ex(cublasHandle_t h, const struct gex *g)
{
    cublasStatus_t r = blas_handle(h);
    if (r)
        return r;
    int64_t m = g->m, n = g->n, k = g->k;
    if (!op_ok(g->ta) || !op_ok(g->tb) || m < 0 || n < 0 || k < 0 || g->batch < 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    int64_t ar = g->ta == CUBLAS_OP_N ? m : k, ac = g->ta == CUBLAS_OP_N ? k : m;
    int64_t br = g->tb == CUBLAS_OP_N ? k : n, bc = g->tb == CUBLAS_OP_N ? n : k;
    if (g->lda < (ar > 1 ? ar : 1) || g->ldb < (br > 1 ? br : 1) || g->ldc < (m > 1 ? m : 1))
        return CUBLAS_STATUS_INVALID_VALUE;
    enum kind ka, kb, kc, ks;
    enum path path;
    enum rnd rnd;
    int ca, cb, cc;
    size_t ea, eb, ec, ss;
    if (kind_of(g->at, &ka, &ca, &ea) || kind_of(g->bt, &kb, &cb, &eb) || kind_of(g->ct, &kc, &cc, &ec) ||
        plan(h, g->compute, g->at, g->bt, g->ct, &path, &rnd, &ks, &ss))
        return CUBLAS_STATUS_NOT_SUPPORTED;
    if (!fits(m) || !fits(n) || !fits(k) || !fits(g->lda) || !fits(g->ldb) || !fits(g->ldc) || !fits(g->batch))
        return CUBLAS_STATUS_NOT_SUPPORTED;
    if (m == 0 || n == 0 || g->batch == 0)
        return CUBLAS_STATUS_SUCCESS;
    struct gj *j = hl_job_new(sizeof *j, run_gemm);
    if (!j)
        return CUBLAS_STATUS_ALLOC_FAILED;
    static const char *const ran[] = { [P_S] = "OpenBLAS sgemm", [P_D] = "OpenBLAS dgemm", [P_C] = "OpenBLAS cgemm",
                                       [P_Z] = "OpenBLAS zgemm", [P_F32] = "OpenBLAS sgemm (operands converted)",
                                       [P_C32] = "OpenBLAS cgemm (operands converted)",
                                       [P_I32] = "int32 loops (no BLAS)" };
    hl_note(ran[path]);
    j->h.fini = fini_gemm;
    j->path = path;
    j->rnd = rnd;
    j->ka = ka;
    j->kb = kb;
    j->kc = kc;
    j->kscale = ks;
    j->cplx = cc;
    j->ta = g->ta;
    j->tb = g->tb;
    j->m = (int)m;
    j->n = (int)n;
    j->k = (int)k;
    j->lda = (int)g->lda;
    j->ldb = (int)g->ldb;
    j->ldc = (int)g->ldc;
    j->batch = g->batched ? (int)g->batch : 1;
    j->sa = g->sa;
    j->sb = g->sb;
    j->sc = g->sc;
    j->A = g->A;
    j->B = g->B;
    j->C = g->C;
    j->ea = ea;
    j->eb = eb;
    j->ec = ec;
    if (scal_take(&j->h, h, g->alpha, ss, &j->alpha) || scal_take(&j->h, h, g->beta, ss, &j->beta)) {
        hl_job_free(&j->h);
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    /* an empty product (k = 0) never reads A or B */
    int64_t abytes = k ? hl_mat_bytes(ar, ac, g->lda, ea) : 0;
    int64_t bbytes = k ? hl_mat_bytes(br, bc, g->ldb, eb) : 0;
    int64_t cbytes = hl_mat_bytes(m, n, g->ldc, ec);
    if (g->batched == 1) {
        const void *const *const arrays[3] = { g->pa, g->pb, (const void *const *)g->pc };
        const int64_t bytes[3] = { abytes, bbytes, cbytes };
        void **p = NULL;
        r = blas_read_arrays(&j->h, h, 3, arrays, bytes, g->batch, &p);
        j->pa = p;
        if (p) {
            j->pb = p + g->batch;
            j->pc = p + 2 * g->batch;
        }
    } else {
        int64_t nb = j->batch;
        if (blas_hold(&j->h, g->A, hl_batch_bytes(abytes, nb, g->sa, ea)) ||
            blas_hold(&j->h, g->B, hl_batch_bytes(bbytes, nb, g->sb, eb)) ||
            blas_hold(&j->h, g->C, hl_batch_bytes(cbytes, nb, g->sc, ec)))
            r = CUBLAS_STATUS_INVALID_VALUE;
    }
    if (r) {
        hl_job_free(&j->h);
        return r;
    }
    return blas_submit(h, &j->h, 0);
}

/* ---- entry points ------------------------------------------------------ */
static int algo_ok(cublasGemmAlgo_t a)
{
    return (a >= CUBLAS_GEMM_DEFAULT && a <= CUBLAS_GEMM_ALGO23) ||
           (a >= CUBLAS_GEMM_DEFAULT_TENSOR_OP && a <= CUBLAS_GEMM_ALGO15_TENSOR_OP);
}

#define GEMM_T(P, T, DT, CT, I, S, S2)                                                                   \
    HL_EXPORT cublasStatus_t cublas##P##gemm##S(cublasHandle_t h, cublasOperation_t transa,                \
                                                cublasOperation_t transb, I m, I n, I k, const T *alpha,   \
                                                const T *A, I lda, const T *B, I ldb, const T *beta, T *C, \
                                                I ldc)                                                     \
    {                                                                                                      \
        struct gex g = { .ta = transa, .tb = transb, .m = m, .n = n, .k = k, .lda = lda, .ldb = ldb,       \
                         .ldc = ldc, .alpha = alpha, .beta = beta, .A = A, .B = B, .C = C, .batch = 1,     \
                         .at = DT, .bt = DT, .ct = DT, .compute = CT };                                    \
        return blas_gemm_ex(h, &g);                                                                        \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublas##P##gemmBatched##S2(                                                   \
        cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb, I m, I n, I k, const T *alpha, \
        const T *const Aarray[], I lda, const T *const Barray[], I ldb, const T *beta, T *const Carray[],  \
        I ldc, I batchCount)                                                                               \
    {                                                                                                      \
        struct gex g = { .ta = transa, .tb = transb, .m = m, .n = n, .k = k, .lda = lda, .ldb = ldb,       \
                         .ldc = ldc, .alpha = alpha, .beta = beta, .pa = (const void *const *)Aarray,      \
                         .pb = (const void *const *)Barray, .pc = (void *const *)Carray,                   \
                         .batch = batchCount, .batched = 1, .at = DT, .bt = DT, .ct = DT, .compute = CT }; \
        return blas_gemm_ex(h, &g);                                                                        \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublas##P##gemmStridedBatched##S2(                                            \
        cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb, I m, I n, I k, const T *alpha, \
        const T *A, I lda, long long strideA, const T *B, I ldb, long long strideB, const T *beta, T *C,   \
        I ldc, long long strideC, I batchCount)                                                            \
    {                                                                                                      \
        struct gex g = { .ta = transa, .tb = transb, .m = m, .n = n, .k = k, .lda = lda, .ldb = ldb,       \
                         .ldc = ldc, .alpha = alpha, .beta = beta, .A = A, .B = B, .C = C, .sa = strideA,  \
                         .sb = strideB, .sc = strideC, .batch = batchCount, .batched = 2, .at = DT,        \
                         .bt = DT, .ct = DT, .compute = CT };                                              \
        return blas_gemm_ex(h, &g);                                                                        \
    }
#define GEMM3M(P, T, I, S, S2)                                                                           \
    HL_EXPORT cublasStatus_t cublas##P##gemm3m##S2(cublasHandle_t h, cublasOperation_t transa,              \
                                                  cublasOperation_t transb, I m, I n, I k, const T *alpha, \
                                                  const T *A, I lda, const T *B, I ldb, const T *beta,     \
                                                  T *C, I ldc)                                             \
    {                                                                                                      \
        return cublas##P##gemm##S(h, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);        \
    }
#define GEMM_ALL(I, SF, SF2)                                                                             \
    GEMM_T(S, float, CUDA_R_32F, CUBLAS_COMPUTE_32F, I, SF, SF2)                                           \
    GEMM_T(D, double, CUDA_R_64F, CUBLAS_COMPUTE_64F, I, SF, SF2)                                          \
    GEMM_T(C, cuComplex, CUDA_C_32F, CUBLAS_COMPUTE_32F, I, SF, SF2)                                       \
    GEMM_T(Z, cuDoubleComplex, CUDA_C_64F, CUBLAS_COMPUTE_64F, I, SF, SF2)                                 \
    GEMM_T(H, cublasHalf, CUDA_R_16F, CUBLAS_COMPUTE_16F, I, SF2, SF2)                                     \
    GEMM3M(C, cuComplex, I, SF, SF2) GEMM3M(Z, cuDoubleComplex, I, SF, SF2)
GEMM_ALL(int, _v2, )
GEMM_ALL(int64_t, _v2_64, _64)

#define GEMM_EX(I, S)                                                                                    \
    HL_EXPORT cublasStatus_t cublasGemmEx##S(cublasHandle_t h, cublasOperation_t transa,                   \
                                             cublasOperation_t transb, I m, I n, I k, const void *alpha,   \
                                             const void *A, cudaDataType Atype, I lda, const void *B,      \
                                             cudaDataType Btype, I ldb, const void *beta, void *C,         \
                                             cudaDataType Ctype, I ldc, cublasComputeType_t computeType,   \
                                             cublasGemmAlgo_t algo)                                        \
    {                                                                                                      \
        if (!algo_ok(algo))                                                                                \
            return blas_handle(h) ? CUBLAS_STATUS_NOT_INITIALIZED : CUBLAS_STATUS_NOT_SUPPORTED;            \
        struct gex g = { .ta = transa, .tb = transb, .m = m, .n = n, .k = k, .lda = lda, .ldb = ldb,       \
                         .ldc = ldc, .alpha = alpha, .beta = beta, .A = A, .B = B, .C = C, .batch = 1,     \
                         .at = Atype, .bt = Btype, .ct = Ctype, .compute = computeType };                  \
        return blas_gemm_ex(h, &g);                                                                        \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublasGemmBatchedEx##S(                                                       \
        cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb, I m, I n, I k,               \
        const void *alpha, const void *const Aarray[], cudaDataType Atype, I lda, const void *const Barray[], \
        cudaDataType Btype, I ldb, const void *beta, void *const Carray[], cudaDataType Ctype, I ldc,      \
        I batchCount, cublasComputeType_t computeType, cublasGemmAlgo_t algo)                              \
    {                                                                                                      \
        if (!algo_ok(algo))                                                                                \
            return blas_handle(h) ? CUBLAS_STATUS_NOT_INITIALIZED : CUBLAS_STATUS_NOT_SUPPORTED;            \
        struct gex g = { .ta = transa, .tb = transb, .m = m, .n = n, .k = k, .lda = lda, .ldb = ldb,       \
                         .ldc = ldc, .alpha = alpha, .beta = beta, .pa = Aarray, .pb = Barray,             \
                         .pc = Carray, .batch = batchCount, .batched = 1, .at = Atype, .bt = Btype,        \
                         .ct = Ctype, .compute = computeType };                                            \
        return blas_gemm_ex(h, &g);                                                                        \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublasGemmStridedBatchedEx##S(                                                \
        cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb, I m, I n, I k,               \
        const void *alpha, const void *A, cudaDataType Atype, I lda, long long strideA, const void *B,     \
        cudaDataType Btype, I ldb, long long strideB, const void *beta, void *C, cudaDataType Ctype, I ldc, \
        long long strideC, I batchCount, cublasComputeType_t computeType, cublasGemmAlgo_t algo)           \
    {                                                                                                      \
        if (!algo_ok(algo))                                                                                \
            return blas_handle(h) ? CUBLAS_STATUS_NOT_INITIALIZED : CUBLAS_STATUS_NOT_SUPPORTED;            \
        struct gex g = { .ta = transa, .tb = transb, .m = m, .n = n, .k = k, .lda = lda, .ldb = ldb,       \
                         .ldc = ldc, .alpha = alpha, .beta = beta, .A = A, .B = B, .C = C, .sa = strideA,  \
                         .sb = strideB, .sc = strideC, .batch = batchCount, .batched = 2, .at = Atype,     \
                         .bt = Btype, .ct = Ctype, .compute = computeType };                               \
        return blas_gemm_ex(h, &g);                                                                        \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublasSgemmEx##S(cublasHandle_t h, cublasOperation_t transa,                  \
                                              cublasOperation_t transb, I m, I n, I k, const float *alpha, \
                                              const void *A, cudaDataType Atype, I lda, const void *B,     \
                                              cudaDataType Btype, I ldb, const float *beta, void *C,       \
                                              cudaDataType Ctype, I ldc)                                   \
    {                                                                                                      \
        if (Atype == CUDA_C_32F || Atype == CUDA_C_8I)                                                     \
            return blas_handle(h) ? CUBLAS_STATUS_NOT_INITIALIZED : CUBLAS_STATUS_NOT_SUPPORTED;            \
        struct gex g = { .ta = transa, .tb = transb, .m = m, .n = n, .k = k, .lda = lda, .ldb = ldb,       \
                         .ldc = ldc, .alpha = alpha, .beta = beta, .A = A, .B = B, .C = C, .batch = 1,     \
                         .at = Atype, .bt = Btype, .ct = Ctype, .compute = CUBLAS_COMPUTE_32F };           \
        return blas_gemm_ex(h, &g);                                                                        \
    }
GEMM_EX(int, )
GEMM_EX(int64_t, _64)
