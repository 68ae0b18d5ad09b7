/* SPDX-License-Identifier: Apache-2.0 */
/* The host cuBLASLt (build/lib/tdtrace/host/libcublasLt.so.13) on the
 * emulated GPU, built against tdtrace's own declarations
 * (src/hostlib/cublaslt/cublasLt_api.h): cublasLtMatmul against a plain
 * double-precision loop on the host over type combinations, transposes,
 * COL and ROW orders, strided batches, every pointer mode, every epilogue
 * the library runs, in and out of place; the heuristics, algorithm and
 * descriptor functions; stream order; bad input.
 *
 * The reference rounds inputs as the compute type says with roundings of
 * its own (rint/round on the scaled significand, not the library's bit
 * operations). Tolerances, relative to 1 + |reference|: float output 1e-4
 * (1e-5 for the _FAST_ modes, whose result must also differ from the
 * unrounded product's by more than that), half 2e-3, bfloat16 1.6e-2,
 * double 1e-11; a bias gradient (a sum of n outputs) the output type's
 * tolerance relative to 1 + the sum of |terms|.
 *
 *   LD_LIBRARY_PATH=build/lib/tdtrace/emu:build/lib/tdtrace/host ./cublaslt */
#include <unistd.h>

#include "check.h"
#include "cublasLt_api.h"

static cublasLtHandle_t lt;

/* ---- element types -------------------------------------------------------- */
static size_t esize(cudaDataType t)
{
    return t == CUDA_R_64F ? 8 : t == CUDA_R_32F ? 4 : 2;
}

/* IEEE half and bfloat16 by arithmetic, normal numbers and zero only */
static double dec_half(uint16_t h)
{
    int e = (h >> 10) & 31, m = h & 1023;
    double v = e ? ldexp(1024 + m, e - 25) : ldexp(m, -24);
    return h & 0x8000 ? -v : v;
}

static uint16_t enc_half(double v) /* v exactly representable */
{
    uint16_t s = v < 0 ? 0x8000 : 0;
    v = fabs(v);
    if (v == 0)
        return s;
    int e;
    double f = frexp(v, &e); /* v = f 2^e, f in [0.5, 1) */
    int be = e + 14;         /* biased exponent of 1.xxx 2^(e-1) */
    if (be <= 0)
        return (uint16_t)(s | (uint16_t)ldexp(v, 24));
    return (uint16_t)(s | (be << 10) | ((int)ldexp(f, 11) & 1023));
}

static double dec_bf16(uint16_t b)
{
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static uint16_t enc_bf16(double v) /* v exactly representable */
{
    float f = (float)v;
    uint32_t u;
    memcpy(&u, &f, 4);
    return (uint16_t)(u >> 16);
}

/* round to b significant bits: rint (nearest even) or round (ties away) */
static double round_bits(double v, int b, int away)
{
    if (v == 0)
        return 0;
    int e;
    double f = frexp(v, &e);
    double s = ldexp(f, b);
    return ldexp(away ? round(s) : rint(s), e - b);
}

static void put(cudaDataType t, void *p, size_t i, double v)
{
    switch ((int)t) {
    case CUDA_R_16F: ((uint16_t *)p)[i] = enc_half(v); break;
    case CUDA_R_16BF: ((uint16_t *)p)[i] = enc_bf16(v); break;
    case CUDA_R_32F: ((float *)p)[i] = (float)v; break;
    default: ((double *)p)[i] = v; break;
    }
}

static double get(cudaDataType t, const void *p, size_t i)
{
    switch ((int)t) {
    case CUDA_R_16F: return dec_half(((const uint16_t *)p)[i]);
    case CUDA_R_16BF: return dec_bf16(((const uint16_t *)p)[i]);
    case CUDA_R_32F: return ((const float *)p)[i];
    default: return ((const double *)p)[i];
    }
}

/* a random value of type t: half and bfloat16 get multiples of 1/64 in
 * (-2, 2) (exact in both), float full float precision */
static double rval(cudaDataType t)
{
    switch ((int)t) {
    case CUDA_R_16F:
    case CUDA_R_16BF: return floor(urand() * 128) / 64;
    case CUDA_R_32F: return (float)urand();
    default: return urand();
    }
}

static double tol_of(cudaDataType t)
{
    return t == CUDA_R_16F ? 2e-3 : t == CUDA_R_16BF ? 1.6e-2 : t == CUDA_R_32F ? 1e-4 : 1e-11;
}

/* ---- one configuration ------------------------------------------------------ */
struct cs {
    cublasComputeType_t compute;
    cudaDataType scale, at, ct;   /* A and B of type at, C and D of ct */
    cublasOperation_t ta, tb;
    int row;                      /* all four in ROW order */
    int m, n, k, batch;
    uint32_t epi;
    int pm;                       /* pointer mode */
    int inplace;                  /* C == D */
    int zero_beta;                /* beta 0 and C full of NaN */
    int stack_desc;               /* descriptors initialised in the test's memory */
};

static const char *type_name(int t)
{
    switch (t) {
    case CUDA_R_16F: return "16F";
    case CUDA_R_16BF: return "16BF";
    case CUDA_R_32F: return "32F";
    case CUDA_R_64F: return "64F";
    case CUBLAS_COMPUTE_16F: return "COMPUTE_16F";
    case CUBLAS_COMPUTE_32F: return "COMPUTE_32F";
    case CUBLAS_COMPUTE_64F: return "COMPUTE_64F";
    case CUBLAS_COMPUTE_32F_FAST_TF32: return "COMPUTE_32F_FAST_TF32";
    case CUBLAS_COMPUTE_32F_FAST_16F: return "COMPUTE_32F_FAST_16F";
    case CUBLAS_COMPUTE_32F_FAST_16BF: return "COMPUTE_32F_FAST_16BF";
    default: return "?";
    }
}

static const char *epi_name(uint32_t e)
{
    switch (e) {
    case CUBLASLT_EPILOGUE_DEFAULT: return "DEFAULT";
    case CUBLASLT_EPILOGUE_RELU: return "RELU";
    case CUBLASLT_EPILOGUE_BIAS: return "BIAS";
    case CUBLASLT_EPILOGUE_RELU_BIAS: return "RELU_BIAS";
    case CUBLASLT_EPILOGUE_GELU: return "GELU";
    case CUBLASLT_EPILOGUE_GELU_AUX: return "GELU_AUX";
    case CUBLASLT_EPILOGUE_GELU_BIAS: return "GELU_BIAS";
    case CUBLASLT_EPILOGUE_GELU_AUX_BIAS: return "GELU_AUX_BIAS";
    case CUBLASLT_EPILOGUE_DGELU: return "DGELU";
    case CUBLASLT_EPILOGUE_DGELU_BGRAD: return "DGELU_BGRAD";
    case CUBLASLT_EPILOGUE_BGRADA: return "BGRADA";
    case CUBLASLT_EPILOGUE_BGRADB: return "BGRADB";
    default: return "?";
    }
}

static double gelu(double x)
{
    return 0.5 * x * (1 + tanh(sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
}

static double dgelu(double x)
{
    double u = sqrt(2 / M_PI) * (x + 0.044715 * x * x * x), t = tanh(u);
    return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * sqrt(2 / M_PI) * (1 + 3 * 0.044715 * x * x);
}

/* a matrix's storage: rows x cols with ld (inner + 3 padding), batch apart */
struct mat {
    cudaDataType t;
    int rows, cols, row;
    int64_t ld, stride;
    size_t elems;
    double *h;                    /* host values (padding too) */
    void *d;
};

static size_t idx(const struct mat *x, int b, int r, int c)
{
    return (size_t)b * (size_t)x->stride + (x->row ? (size_t)r * (size_t)x->ld + (size_t)c
                                                   : (size_t)c * (size_t)x->ld + (size_t)r);
}

static void mat_make(struct mat *x, cudaDataType t, int rows, int cols, int row, int batch, int nan)
{
    x->t = t;
    x->rows = rows;
    x->cols = cols;
    x->row = row;
    x->ld = (row ? cols : rows) + 3;
    x->stride = x->ld * (row ? rows : cols) + 5;
    x->elems = (size_t)x->stride * (size_t)batch;
    x->h = malloc(x->elems * sizeof *x->h);
    void *tmp = malloc(x->elems * esize(t));
    for (size_t i = 0; i < x->elems; i++) {
        x->h[i] = nan ? NAN : rval(t);
        put(t, tmp, i, x->h[i]);
        if (!nan)
            x->h[i] = get(t, tmp, i);
    }
    x->d = dalloc(x->elems * esize(t));
    DRV(cuMemcpyHtoD_v2((CUdeviceptr)(uintptr_t)x->d, tmp, x->elems * esize(t)));
    free(tmp);
}

static double *mat_down(const struct mat *x)
{
    void *tmp = malloc(x->elems * esize(x->t));
    double *v = malloc(x->elems * sizeof *v);
    DRV(cuMemcpyDtoH_v2(tmp, (CUdeviceptr)(uintptr_t)x->d, x->elems * esize(x->t)));
    for (size_t i = 0; i < x->elems; i++)
        v[i] = get(x->t, tmp, i);
    free(tmp);
    return v;
}

static void mat_free(struct mat *x)
{
    free(x->h);
    DRV(cuMemFree_v2((CUdeviceptr)(uintptr_t)x->d));
}

static void layout(cublasLtMatrixLayout_t *l, cublasLtMatrixLayoutOpaque_t *mem, const struct mat *x, int batch)
{
    if (mem) {
        ST(cublasLtMatrixLayoutInit_internal(mem, sizeof *mem, x->t, (uint64_t)x->rows, (uint64_t)x->cols, x->ld), 0);
        *l = mem;
    } else {
        ST(cublasLtMatrixLayoutCreate(l, x->t, (uint64_t)x->rows, (uint64_t)x->cols, x->ld), 0);
    }
    int32_t order = x->row ? CUBLASLT_ORDER_ROW : CUBLASLT_ORDER_COL;
    ST(cublasLtMatrixLayoutSetAttribute(*l, CUBLASLT_MATRIX_LAYOUT_ORDER, &order, sizeof order), 0);
    ST(cublasLtMatrixLayoutSetAttribute(*l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof batch), 0);
    ST(cublasLtMatrixLayoutSetAttribute(*l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &x->stride, sizeof x->stride), 0);
}

/* the rounding a compute type applies to float inputs */
static double rin(const struct cs *c, double v)
{
    if (c->at != CUDA_R_32F)
        return v;
    switch (c->compute) {
    case CUBLAS_COMPUTE_32F_FAST_TF32: return round_bits(v, 11, 1);
    case CUBLAS_COMPUTE_32F_FAST_16F: return round_bits(v, 11, 0);
    case CUBLAS_COMPUTE_32F_FAST_16BF: return round_bits(v, 8, 0);
    default: return v;
    }
}

static int fast(const struct cs *c)
{
    return c->compute == CUBLAS_COMPUTE_32F_FAST_TF32 || c->compute == CUBLAS_COMPUTE_32F_FAST_16F ||
           c->compute == CUBLAS_COMPUTE_32F_FAST_16BF;
}

static void run_case(const struct cs *c)
{
    int m = c->m, n = c->n, k = c->k, nb = c->batch;
    uint32_t e = c->epi;
    struct mat A, B, C, D, aux;
    mat_make(&A, c->at, c->ta == CUBLAS_OP_N ? m : k, c->ta == CUBLAS_OP_N ? k : m, c->row, nb, 0);
    mat_make(&B, c->at, c->tb == CUBLAS_OP_N ? k : n, c->tb == CUBLAS_OP_N ? n : k, c->row, nb, 0);
    mat_make(&C, c->ct, m, n, c->row, nb, c->zero_beta);
    mat_make(&D, c->ct, m, n, c->row, nb, 0);
    struct mat *Dp = c->inplace ? &C : &D;
    /* aux: COL, ld a multiple of 8 */
    aux.t = c->ct;
    aux.rows = m;
    aux.cols = n;
    aux.row = 0;
    aux.ld = (m + 7) / 8 * 8 + 8;
    aux.stride = aux.ld * n + 8;
    aux.elems = (size_t)aux.stride * (size_t)nb;
    {
        struct mat tmp;
        mat_make(&tmp, c->ct, (int)aux.ld, (int)(aux.elems / (size_t)aux.ld), 0, 1, 0);
        aux.h = tmp.h;
        aux.d = tmp.d;
        aux.elems = tmp.elems;
    }
    int64_t bstride = 11, blen = (e & CUBLASLT_EPILOGUE_BGRADB) == CUBLASLT_EPILOGUE_BGRADB ? n : m;
    struct mat bias;
    mat_make(&bias, c->ct, (int)(bstride * nb), 1, 0, 1, 0);
    /* scalars: per row in the vector modes */
    size_t ss = esize(c->scale);
    int vec = c->pm >= CUBLASLT_POINTER_MODE_DEVICE_VECTOR;
    int64_t astride = vec && c->pm != CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_ZERO ? m + 2 : 0;
    double *al = malloc(sizeof(double) * (size_t)(m + 2) * (size_t)nb), *be = calloc((size_t)m + 1, sizeof(double));
    for (int i = 0; i < (m + 2) * nb; i++)
        al[i] = vec ? 0.25 + (i % 5) * 0.125 : 0.75;
    for (int i = 0; i < m; i++)
        be[i] = c->zero_beta || c->pm == CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_ZERO ? 0
                : c->pm == CUBLASLT_POINTER_MODE_DEVICE_VECTOR                              ? -0.5 + (i % 3) * 0.25
                                                                                             : -0.5;
    unsigned char ha[16], hb[16];
    put(c->scale, ha, 0, al[0]);
    put(c->scale, hb, 0, be[0]);
    void *dal = dalloc(ss * (size_t)(m + 2) * (size_t)nb), *dbe = dalloc(ss * (size_t)m);
    {
        unsigned char *t1 = malloc(ss * (size_t)(m + 2) * (size_t)nb), *t2 = malloc(ss * (size_t)m);
        for (int i = 0; i < (m + 2) * nb; i++)
            put(c->scale, t1, (size_t)i, al[i]);
        for (int i = 0; i < m; i++)
            put(c->scale, t2, (size_t)i, be[i]);
        DRV(cuMemcpyHtoD_v2((CUdeviceptr)(uintptr_t)dal, t1, ss * (size_t)(m + 2) * (size_t)nb));
        DRV(cuMemcpyHtoD_v2((CUdeviceptr)(uintptr_t)dbe, t2, ss * (size_t)m));
        free(t1);
        free(t2);
    }
    const void *alpha = c->pm == CUBLASLT_POINTER_MODE_HOST ? (const void *)ha : dal;
    const void *beta = c->pm == CUBLASLT_POINTER_MODE_HOST || c->pm == CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_HOST
                           ? (const void *)hb
                           : c->pm == CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_ZERO ? NULL : dbe;

    /* descriptors */
    cublasLtMatmulDescOpaque_t opmem;
    cublasLtMatrixLayoutOpaque_t lm[4];
    cublasLtMatmulDesc_t op;
    if (c->stack_desc) {
        ST(cublasLtMatmulDescInit_internal(&opmem, sizeof opmem, c->compute, c->scale), 0);
        op = &opmem;
    } else {
        ST(cublasLtMatmulDescCreate(&op, c->compute, c->scale), 0);
    }
    int32_t ta = c->ta, tb = c->tb, pm = c->pm;
    ST(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta), 0);
    ST(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb), 0);
    ST(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_POINTER_MODE, &pm, sizeof pm), 0);
    ST(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &e, sizeof e), 0);
    ST(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias.d, sizeof bias.d), 0);
    ST(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, &bstride, sizeof bstride), 0);
    ST(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, &aux.d, sizeof aux.d), 0);
    ST(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &aux.ld, sizeof aux.ld), 0);
    ST(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE, &aux.stride,
                                      sizeof aux.stride), 0);
    ST(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_ALPHA_VECTOR_BATCH_STRIDE, &astride, sizeof astride), 0);
    cublasLtMatrixLayout_t la, lb, lc, ld;
    layout(&la, c->stack_desc ? &lm[0] : NULL, &A, nb);
    layout(&lb, c->stack_desc ? &lm[1] : NULL, &B, nb);
    layout(&lc, c->stack_desc ? &lm[2] : NULL, &C, nb);
    layout(&ld, c->stack_desc ? &lm[3] : NULL, Dp, nb);
    /* the heuristics' algorithm, checked, then used */
    cublasLtMatmulPreference_t pref;
    ST(cublasLtMatmulPreferenceCreate(&pref), 0);
    uint64_t ws = 1 << 20;
    ST(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws), 0);
    cublasLtMatmulHeuristicResult_t res[4];
    memset(res, 0, sizeof res);
    int got = -1;
    ST(cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, ld, pref, 4, res, &got), 0);
    if (got != 1 || res[0].state != CUBLAS_STATUS_SUCCESS || res[0].workspaceSize != 0)
        bad("heuristic: %d results, state %d, workspace %zu", got, (int)res[0].state, res[0].workspaceSize);
    cublasLtMatmulHeuristicResult_t chk;
    ST(cublasLtMatmulAlgoCheck(lt, op, la, lb, lc, ld, &res[0].algo, &chk), 0);
    void *wsp = dalloc(256);
    ST(cublasLtMatmul(lt, op, alpha, A.d, la, B.d, lb, beta, C.d, lc, Dp->d, ld, &res[0].algo, wsp, 256, NULL), 0);
    DRV(cuCtxSynchronize());

    /* the reference */
    double *gd = mat_down(Dp), *gaux = mat_down(&aux), *gbias = mat_down(&bias);
    double tol = fast(c) ? 1e-5 : tol_of(c->ct);
    double *want = malloc(D.elems * sizeof *want);
    memcpy(want, Dp->h, D.elems * sizeof *want);   /* padding unchanged */
    double *waux = malloc(aux.elems * sizeof *waux);
    memcpy(waux, aux.h, aux.elems * sizeof *waux);
    double *wbias = malloc(bias.elems * sizeof *wbias), *bscale = calloc(bias.elems, sizeof *bscale);
    memcpy(wbias, bias.h, bias.elems * sizeof *wbias);
    int rounded_differs = 0;
    for (int b = 0; b < nb; b++) {
        if (e & 16)
            for (int r = 0; r < m; r++)
                wbias[(size_t)b * (size_t)bstride + (size_t)r] = 0;
        for (int col = 0; col < n; col++) {
            for (int r = 0; r < m; r++) {
                double s = 0, s_exact = 0;
                for (int l = 0; l < k; l++) {
                    double x = A.h[c->ta == CUBLAS_OP_N ? idx(&A, b, r, l) : idx(&A, b, l, r)];
                    double y = B.h[c->tb == CUBLAS_OP_N ? idx(&B, b, l, col) : idx(&B, b, col, l)];
                    s += rin(c, x) * rin(c, y);
                    s_exact += x * y;
                }
                double a = vec ? al[(size_t)b * (size_t)astride + (size_t)r] : al[0];
                double bt = vec ? be[r] : be[0];
                double v = a * s, vx = a * s_exact;
                if (bt != 0) {
                    v += bt * C.h[idx(&C, b, r, col)];
                    vx += bt * C.h[idx(&C, b, r, col)];
                }
                if (fast(c) && fabs(v - vx) > 4 * tol * (1 + fabs(v)))
                    rounded_differs = 1;
                if (e & 4)
                    v += bias.h[(size_t)b * (size_t)bstride + (size_t)r];
                size_t ai = (size_t)b * (size_t)aux.stride + (size_t)col * (size_t)aux.ld + (size_t)r;
                if ((e & 32) && (e & 128))
                    waux[ai] = v;
                if (e & 32)
                    v = gelu(v);
                if (e & 2)
                    v = v > 0 ? v : 0;
                if (e & 64)
                    v *= dgelu(aux.h[ai]);
                want[idx(Dp, b, r, col)] = v;
                if (e & 16) {
                    wbias[(size_t)b * (size_t)bstride + (size_t)r] += v;
                    bscale[(size_t)b * (size_t)bstride + (size_t)r] += fabs(v);
                }
            }
        }
        for (int i = 0; i < blen && (e & 768); i++) {
            double s = 0, sa = 0;
            for (int l = 0; l < k; l++) {
                double x = e == CUBLASLT_EPILOGUE_BGRADA
                               ? A.h[c->ta == CUBLAS_OP_N ? idx(&A, b, i, l) : idx(&A, b, l, i)]
                               : B.h[c->tb == CUBLAS_OP_N ? idx(&B, b, l, i) : idx(&B, b, i, l)];
                s += x;
                sa += fabs(x);
            }
            wbias[(size_t)b * (size_t)bstride + (size_t)i] = s;
            bscale[(size_t)b * (size_t)bstride + (size_t)i] = sa;
        }
    }
    char what[160];
    snprintf(what, sizeof what, "D (%s, %s/%s, op %d%d, %s, %s, pointer mode %d, batch %d%s%s)", type_name(c->compute),
             type_name(c->at), type_name(c->ct), (int)c->ta, (int)c->tb, c->row ? "ROW" : "COL", epi_name(e), c->pm, nb,
             c->inplace ? ", in place" : "", c->zero_beta ? ", beta 0, C NaN" : "");
    close_d(what, gd, want, D.elems, tol);
    if (e & 128) {
        snprintf(what, sizeof what, "aux (%s, %s/%s)", epi_name(e), type_name(c->at), type_name(c->ct));
        close_d(what, gaux, waux, aux.elems, tol_of(c->ct));
    }
    for (size_t i = 0; i < bias.elems; i++) {
        double t = ((e & 16) || (e & 768)) ? tol_of(c->ct) * (1 + bscale[i]) : 0;
        if (!(fabs(gbias[i] - wbias[i]) <= t)) {
            bad("bias[%zu] = %.9g, expected %.9g (%s)", i, gbias[i], wbias[i], epi_name(e));
            break;
        }
    }
    if (fast(c) && !rounded_differs)
        bad("compute %d: the inputs were not rounded (the result equals the unrounded product's)", (int)c->compute);
    free(gd), free(gaux), free(gbias), free(want), free(waux), free(wbias), free(bscale), free(al), free(be);
    if (!c->stack_desc) {
        ST(cublasLtMatmulDescDestroy(op), 0);
        ST(cublasLtMatrixLayoutDestroy(la), 0);
        ST(cublasLtMatrixLayoutDestroy(lb), 0);
        ST(cublasLtMatrixLayoutDestroy(lc), 0);
        ST(cublasLtMatrixLayoutDestroy(ld), 0);
    }
    ST(cublasLtMatmulPreferenceDestroy(pref), 0);
    mat_free(&A), mat_free(&B), mat_free(&C), mat_free(&D), mat_free(&aux), mat_free(&bias);
    DRV(cuMemFree_v2((CUdeviceptr)(uintptr_t)dal));
    DRV(cuMemFree_v2((CUdeviceptr)(uintptr_t)dbe));
    DRV(cuMemFree_v2((CUdeviceptr)(uintptr_t)wsp));
}

/* compute, scale, A/B type, C/D type */
static const struct { cublasComputeType_t compute; cudaDataType scale, at, ct; } types[] = {
    { CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F },
    { CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_16F, CUDA_R_16F },
    { CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_16F, CUDA_R_32F },
    { CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_16BF, CUDA_R_16BF },
    { CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_16BF, CUDA_R_32F },
    { CUBLAS_COMPUTE_16F, CUDA_R_16F, CUDA_R_16F, CUDA_R_16F },
    { CUBLAS_COMPUTE_16F, CUDA_R_32F, CUDA_R_16F, CUDA_R_16F },
    { CUBLAS_COMPUTE_64F, CUDA_R_64F, CUDA_R_64F, CUDA_R_64F },
    { CUBLAS_COMPUTE_32F_FAST_TF32, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F },
    { CUBLAS_COMPUTE_32F_FAST_16F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F },
    { CUBLAS_COMPUTE_32F_FAST_16BF, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F },
};
#define NTYPES (int)(sizeof types / sizeof *types)

static struct cs base(int t)
{
    struct cs c;
    memset(&c, 0, sizeof c);
    c.compute = types[t].compute;
    c.scale = types[t].scale;
    c.at = types[t].at;
    c.ct = types[t].ct;
    c.m = 7;
    c.n = 5;
    c.k = 9;
    c.batch = 1;
    c.epi = CUBLASLT_EPILOGUE_DEFAULT;
    c.pm = CUBLASLT_POINTER_MODE_HOST;
    return c;
}

static void test_types(void)
{
    for (int t = 0; t < NTYPES; t++) {
        char name[128];
        snprintf(name, sizeof name, "matmul %s, scale %s, A/B %s, C/D %s: N/T/C x N/T, COL and ROW",
                 type_name(types[t].compute), type_name(types[t].scale), type_name(types[t].at), type_name(types[t].ct));
        begin(name);
        for (int i = 0; i < 4; i++)
            for (int row = 0; row < 2; row++) {
                struct cs c = base(t);
                /* CUBLAS_OP_C is CUBLAS_OP_T on real data */
                c.ta = i < 2 ? CUBLAS_OP_N : i == 2 ? CUBLAS_OP_T : CUBLAS_OP_C;
                c.tb = i % 2 ? CUBLAS_OP_T : CUBLAS_OP_N;
                c.row = row;
                c.stack_desc = i == 3;
                run_case(&c);
            }
        end();
    }
}

static void test_epilogues(void)
{
    static const uint32_t epis[] = {
        CUBLASLT_EPILOGUE_DEFAULT, CUBLASLT_EPILOGUE_RELU, CUBLASLT_EPILOGUE_BIAS, CUBLASLT_EPILOGUE_RELU_BIAS,
        CUBLASLT_EPILOGUE_GELU, CUBLASLT_EPILOGUE_GELU_AUX, CUBLASLT_EPILOGUE_GELU_BIAS,
        CUBLASLT_EPILOGUE_GELU_AUX_BIAS, CUBLASLT_EPILOGUE_DGELU, CUBLASLT_EPILOGUE_DGELU_BGRAD,
        CUBLASLT_EPILOGUE_BGRADA, CUBLASLT_EPILOGUE_BGRADB,
    };
    static const int ts[] = { 0, 1, 3, 7 };
    for (size_t ti = 0; ti < sizeof ts / sizeof *ts; ti++) {
        char name[96];
        snprintf(name, sizeof name, "epilogues (bias, ReLU, GELU, aux, gradients) for A/B %s, C/D %s, batch 3",
                 type_name(types[ts[ti]].at), type_name(types[ts[ti]].ct));
        begin(name);
        for (size_t i = 0; i < sizeof epis / sizeof *epis; i++) {
            struct cs c = base(ts[ti]);
            c.epi = epis[i];
            c.batch = 3;
            c.ta = i % 2 ? CUBLAS_OP_T : CUBLAS_OP_N;
            c.tb = i % 3 ? CUBLAS_OP_N : CUBLAS_OP_T;
            c.row = ts[ti] == 0 && i % 4 == 1;
            run_case(&c);
        }
        end();
    }
}

static void test_modes(void)
{
    begin("pointer modes (host, device, vectors), in place, beta 0 with C of NaN, k = 0");
    static const int ts[] = { 0, 1, 7 };
    for (size_t ti = 0; ti < 3; ti++) {
        for (int pm = CUBLASLT_POINTER_MODE_HOST; pm <= CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_HOST; pm++) {
            struct cs c = base(ts[ti]);
            c.pm = pm;
            c.batch = 2;
            c.epi = pm == CUBLASLT_POINTER_MODE_DEVICE_VECTOR ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_DEFAULT;
            run_case(&c);
        }
        struct cs c = base(ts[ti]);
        c.inplace = 1;
        c.batch = 2;
        run_case(&c);
        c.row = 1;
        c.epi = CUBLASLT_EPILOGUE_GELU_BIAS;
        run_case(&c);
        c = base(ts[ti]);
        c.zero_beta = 1;
        run_case(&c);
        c.k = 0;
        c.zero_beta = 0;
        c.epi = CUBLASLT_EPILOGUE_BIAS;
        run_case(&c);
    }
    end();
}

/* ---- descriptors, algorithms, heuristics ------------------------------------ */
static void test_descriptors(void)
{
    begin("descriptors: defaults, attribute sizes, Init in the program's memory, garbage");
    cublasLtMatrixLayout_t l;
    size_t sw = 0;
    ST(cublasLtMatrixLayoutCreate(&l, CUDA_R_32F, 4, 3, 4), 0);
    uint64_t rows = 0;
    int32_t batch = 0, order = 9;
    ST(cublasLtMatrixLayoutGetAttribute(l, CUBLASLT_MATRIX_LAYOUT_ROWS, NULL, 0, &sw), 0);
    if (sw != 8)
        bad("ROWS size %zu", sw);
    ST(cublasLtMatrixLayoutGetAttribute(l, CUBLASLT_MATRIX_LAYOUT_ROWS, &rows, 8, &sw), 0);
    ST(cublasLtMatrixLayoutGetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, 4, NULL), 0);
    ST(cublasLtMatrixLayoutGetAttribute(l, CUBLASLT_MATRIX_LAYOUT_ORDER, &order, 4, NULL), 0);
    if (rows != 4 || batch != 1 || order != CUBLASLT_ORDER_COL)
        bad("layout defaults: rows %llu, batch %d, order %d", (unsigned long long)rows, batch, order);
    ST(cublasLtMatrixLayoutGetAttribute(l, CUBLASLT_MATRIX_LAYOUT_ROWS, &rows, 4, &sw), CUBLAS_STATUS_INVALID_VALUE);
    ST(cublasLtMatrixLayoutGetAttribute(l, CUBLASLT_MATRIX_LAYOUT_ROWS, NULL, 0, NULL), CUBLAS_STATUS_INVALID_VALUE);
    ST(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_ORDER, &rows, 8), CUBLAS_STATUS_INVALID_VALUE);
    ST(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_ORDER, NULL, 4), CUBLAS_STATUS_INVALID_VALUE);
    ST(cublasLtMatrixLayoutSetAttribute(l, (cublasLtMatrixLayoutAttribute_t)9, &order, 4), CUBLAS_STATUS_INVALID_VALUE);
    ST(cublasLtMatrixLayoutDestroy(l), 0);
    ST(cublasLtMatrixLayoutDestroy(NULL), 0);
    cublasLtMatrixLayoutOpaque_t small;
    ST(cublasLtMatrixLayoutInit_internal(&small, 16, CUDA_R_32F, 4, 4, 4), CUBLAS_STATUS_ALLOC_FAILED);
    uint64_t garbage[32];
    memset(garbage, 0x5a, sizeof garbage);
    ST(cublasLtMatrixLayoutSetAttribute((cublasLtMatrixLayout_t)(void *)garbage, CUBLASLT_MATRIX_LAYOUT_ORDER, &order, 4),
       CUBLAS_STATUS_INVALID_VALUE);
    ST(cublasLtMatmulDescSetAttribute((cublasLtMatmulDesc_t)(void *)garbage, CUBLASLT_MATMUL_DESC_TRANSA, &order, 4),
       CUBLAS_STATUS_INVALID_VALUE);

    cublasLtMatmulDesc_t op;
    ST(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F), 0);
    int32_t v32 = 0;
    uint32_t epi = 0;
    ST(cublasLtMatmulDescGetAttribute(op, CUBLASLT_MATMUL_DESC_FILL_MODE, &v32, 4, NULL), 0);
    ST(cublasLtMatmulDescGetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, 4, NULL), 0);
    if (v32 != CUBLAS_FILL_MODE_FULL || epi != CUBLASLT_EPILOGUE_DEFAULT)
        bad("matmul defaults: fill %d, epilogue %u", v32, epi);
    ST(cublasLtMatmulDescGetAttribute(op, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &v32, 4, NULL), 0);
    if (v32 != -1)
        bad("bias data type default %d", v32);
    ST(cublasLtMatmulDescGetAttribute(op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, NULL, 0, &sw), 0);
    if (sw != sizeof(void *))
        bad("BIAS_POINTER size %zu", sw);
    int8_t fa = 1;
    ST(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fa, 1), 0);
    ST(cublasLtMatmulDescSetAttribute(op, (cublasLtMatmulDescAttributes_t)9, &v32, 4), CUBLAS_STATUS_INVALID_VALUE);
    ST(cublasLtMatmulDescDestroy(op), 0);

    cublasLtMatmulPreference_t pref;
    ST(cublasLtMatmulPreferenceCreate(&pref), 0);
    uint32_t align = 0;
    uint64_t mask = 0;
    ST(cublasLtMatmulPreferenceGetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &align, 4, NULL), 0);
    ST(cublasLtMatmulPreferenceGetAttribute(pref, CUBLASLT_MATMUL_PREF_IMPL_MASK, &mask, 8, NULL), 0);
    if (align != 256 || mask != UINT64_MAX)
        bad("preference defaults: alignment %u, impl mask %llx", align, (unsigned long long)mask);
    ST(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &align, 4),
       CUBLAS_STATUS_INVALID_VALUE);
    ST(cublasLtMatmulPreferenceDestroy(pref), 0);

    cublasLtMatrixTransformDesc_t tr;
    ST(cublasLtMatrixTransformDescCreate(&tr, CUDA_R_32F), 0);
    ST(cublasLtMatrixTransformDescGetAttribute(tr, CUBLASLT_MATRIX_TRANSFORM_DESC_SCALE_TYPE, &v32, 4, NULL), 0);
    if (v32 != CUDA_R_32F)
        bad("transform scale type %d", v32);
    ST(cublasLtMatrixTransformDescDestroy(tr), 0);

    size_t cap = 0;
    ST(cublasLtHeuristicsCacheGetCapacity(&cap), 0);
    ST(cublasLtHeuristicsCacheGetCapacity(NULL), CUBLAS_STATUS_INVALID_VALUE);
    int prop = -1;
    ST(cublasLtGetProperty(MAJOR_VERSION, &prop), 0);
    if (cublasLtGetVersion() != 130100 || prop != 13 || cublasLtGetCudartVersion() != 13000)
        bad("versions %zu, %d, %zu", cublasLtGetVersion(), prop, cublasLtGetCudartVersion());
    if (strcmp(cublasLtGetStatusName(CUBLAS_STATUS_NOT_SUPPORTED), "CUBLAS_STATUS_NOT_SUPPORTED") ||
        strcmp(cublasLtGetStatusString((cublasStatus_t)99), "unrecognized status"))
        bad("status names");
    end();
}

static void test_algos(void)
{
    begin("algorithms: GetIds, Init, Check, capabilities, configuration, heuristics' preferences");
    int ids[4], n = -1;
    ST(cublasLtMatmulAlgoGetIds(lt, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_16F, CUDA_R_16F, CUDA_R_16F, CUDA_R_16F, 4,
                                ids, &n), 0);
    if (n != 1 || ids[0] != 0)
        bad("GetIds: %d ids", n);
    ST(cublasLtMatmulAlgoGetIds(lt, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, 4,
                                ids, &n), 0);
    if (n != 0)
        bad("GetIds of an unsupported combination: %d ids", n);
    ST(cublasLtMatmulAlgoGetIds(lt, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, 0,
                                ids, &n), CUBLAS_STATUS_INVALID_VALUE);
    cublasLtMatmulAlgo_t algo;
    ST(cublasLtMatmulAlgoInit(lt, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, 7,
                              &algo), CUBLAS_STATUS_INVALID_VALUE);
    ST(cublasLtMatmulAlgoInit(lt, CUBLAS_COMPUTE_64F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, 0,
                              &algo), CUBLAS_STATUS_NOT_SUPPORTED);
    ST(cublasLtMatmulAlgoInit(lt, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, 0,
                              &algo), 0);
    int32_t id = -1, splitk = 0;
    ST(cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_ID, &id, 4, NULL), 0);
    ST(cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splitk, 4, NULL), 0);
    if (id != 0 || splitk != 1)
        bad("algo id %d, splitK %d", id, splitk);
    ST(cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_ID, &id, 4), CUBLAS_STATUS_INVALID_VALUE);
    uint32_t tiles[8], pmask = 0;
    size_t sw = 0;
    ST(cublasLtMatmulAlgoCapGetAttribute(&algo, CUBLASLT_ALGO_CAP_TILE_IDS, NULL, 0, &sw), 0);
    ST(cublasLtMatmulAlgoCapGetAttribute(&algo, CUBLASLT_ALGO_CAP_TILE_IDS, tiles, sizeof tiles, &sw), 0);
    if (sw != 4 || tiles[0] != CUBLASLT_MATMUL_TILE_UNDEFINED)
        bad("tile ids: %zu bytes", sw);
    ST(cublasLtMatmulAlgoCapGetAttribute(&algo, CUBLASLT_ALGO_CAP_POINTER_MODE_MASK, &pmask, 4, NULL), 0);
    if (pmask != 31)
        bad("pointer mode mask %u", pmask);
    uint64_t zero_algo[8] = { 0 };
    ST(cublasLtMatmulAlgoCapGetAttribute((cublasLtMatmulAlgo_t *)(void *)zero_algo, CUBLASLT_ALGO_CAP_TILE_IDS, NULL, 0,
                                         &sw), CUBLAS_STATUS_INVALID_VALUE);

    /* a configuration and its heuristics */
    float *d = dalloc(64 * 4);
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t l;
    ST(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F), 0);
    ST(cublasLtMatrixLayoutCreate(&l, CUDA_R_32F, 4, 4, 4), 0);
    cublasLtMatmulHeuristicResult_t res;
    ST(cublasLtMatmulAlgoCheck(lt, op, l, l, l, l, &algo, &res), 0);
    uint32_t tile = 20;
    cublasLtMatmulAlgo_t tiled = algo;
    ST(cublasLtMatmulAlgoConfigSetAttribute(&tiled, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, 4), 0);
    ST(cublasLtMatmulAlgoCheck(lt, op, l, l, l, l, &tiled, &res), CUBLAS_STATUS_NOT_SUPPORTED);
    float one = 1, zero = 0;
    ST(cublasLtMatmul(lt, op, &one, d, l, d, l, &zero, d + 16, l, d + 32, l, &tiled, NULL, 0, NULL),
       CUBLAS_STATUS_NOT_SUPPORTED);
    cublasLtMatmulAlgo_t half_algo;
    ST(cublasLtMatmulAlgoInit(lt, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_16F, CUDA_R_16F, CUDA_R_16F, CUDA_R_16F, 0,
                              &half_algo), 0);
    ST(cublasLtMatmulAlgoCheck(lt, op, l, l, l, l, &half_algo, &res), CUBLAS_STATUS_INVALID_VALUE);
    cublasLtMatmulPreference_t pref;
    ST(cublasLtMatmulPreferenceCreate(&pref), 0);
    int got = -1;
    ST(cublasLtMatmulAlgoGetHeuristic(lt, op, l, l, l, l, pref, 0, &res, &got), CUBLAS_STATUS_INVALID_VALUE);
    uint32_t two = 2;   /* floats are not promised to be 4-byte aligned: nothing fits */
    ST(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &two, 4), 0);
    ST(cublasLtMatmulAlgoGetHeuristic(lt, op, l, l, l, l, pref, 1, &res, &got), CUBLAS_STATUS_NOT_SUPPORTED);
    if (got != 0)
        bad("heuristic under a 2-byte alignment returned %d", got);
    ST(cublasLtMatmulPreferenceInit_internal(pref, sizeof *pref), 0);
    uint64_t no_fma = ~CUBLASLT_NUMERICAL_IMPL_FLAGS_FMA;
    ST(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_IMPL_MASK, &no_fma, 8), 0);
    ST(cublasLtMatmulAlgoGetHeuristic(lt, op, l, l, l, l, pref, 1, &res, &got), CUBLAS_STATUS_NOT_SUPPORTED);
    ST(cublasLtMatmulPreferenceInit_internal(pref, sizeof *pref), 0);
    uint32_t search = CUBLASLT_SEARCH_LIMITED_BY_ALGO_ID;
    ST(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_SEARCH_MODE, &search, 4), 0);
    res.algo = algo;
    ST(cublasLtMatmulAlgoGetHeuristic(lt, op, l, l, l, l, pref, 1, &res, &got), 0);
    if (got != 1)
        bad("LIMITED_BY_ALGO_ID: %d results", got);
    ST(cublasLtMatmulAlgoGetHeuristic(lt, op, l, l, l, l, NULL, 1, &res, &got), 0);
    /* a preference of the program's own, no heuristics, no algorithm: still runs */
    ST(cublasLtMatmul(lt, op, &one, d, l, d, l, &zero, d + 16, l, d + 32, l, NULL, NULL, 0, NULL), 0);
    ST(cublasLtMatmulPreferenceDestroy(pref), 0);
    ST(cublasLtMatmulDescDestroy(op), 0);
    ST(cublasLtMatrixLayoutDestroy(l), 0);
    DRV(cuCtxSynchronize());
    DRV(cuMemFree_v2((CUdeviceptr)(uintptr_t)d));
    end();
}

/* ---- stream order --------------------------------------------------------- */
struct slow { float *p; int n; _Atomic int open, waited_out; };
static void CUDAAPI slow_fill(void *arg)
{
    struct slow *s = arg;
    for (int i = 0; i < 20000 && !s->open; i++)
        usleep(1000);
    s->waited_out = !s->open;
    for (int i = 0; i < s->n; i++)
        s->p[i] = 2.0f;
}

static void test_ordering(void)
{
    begin("stream order: host fn before, matmul, event, free right after the call");
    int n = 32;
    CUstream s;
    CUevent e1;
    DRV(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    DRV(cuEventCreate(&e1, 0));
    float *dA = dalloc((size_t)n * n * 4), *dB = dalloc((size_t)n * n * 4), *dD = dalloc((size_t)n * n * 4);
    float *dbias = dalloc((size_t)n * 4);
    DRV(cuMemsetD32_v2((CUdeviceptr)(uintptr_t)dA, 0, (size_t)n * n));
    DRV(cuMemsetD32_v2((CUdeviceptr)(uintptr_t)dB, 0x3f800000, (size_t)n * n)); /* 1.0 */
    DRV(cuMemsetD32_v2((CUdeviceptr)(uintptr_t)dbias, 0xbf800000, (size_t)n));  /* -1.0 */
    struct slow sl = { dA, n * n, 0, 0 };
    DRV(cuLaunchHostFunc(s, slow_fill, &sl));
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t l;
    ST(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F), 0);
    uint32_t epi = CUBLASLT_EPILOGUE_RELU_BIAS;
    ST(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, 4), 0);
    ST(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &dbias, sizeof dbias), 0);
    ST(cublasLtMatrixLayoutCreate(&l, CUDA_R_32F, (uint64_t)n, (uint64_t)n, n), 0);
    float one = 1, zero = 0;
    ST(cublasLtMatmul(lt, op, &one, dA, l, dB, l, &zero, dD, l, dD, l, NULL, NULL, 0, (cudaStream_t)s), 0);
    DRV(cuEventRecord(e1, s));
    if (cuEventQuery(e1) != CUDA_ERROR_NOT_READY)
        bad("the event after the matmul completed before the work queued ahead of it");
    sl.open = 1;
    DRV(cuMemFree_v2((CUdeviceptr)(uintptr_t)dA));
    DRV(cuMemFree_v2((CUdeviceptr)(uintptr_t)dB));
    DRV(cuMemFree_v2((CUdeviceptr)(uintptr_t)dbias));
    DRV(cuEventSynchronize(e1));
    if (sl.waited_out)
        bad("cublasLtMatmul waited for the stream");
    float *host = malloc((size_t)n * n * 4);
    DRV(cuMemcpyDtoH_v2(host, (CUdeviceptr)(uintptr_t)dD, (size_t)n * n * 4));
    for (int i = 0; i < n * n; i++)
        if (host[i] != 2.0f * n - 1) {
            bad("D[%d] = %g, expected %g (the matmul ran before the host function)", i, host[i], 2.0f * n - 1);
            break;
        }
    free(host);
    ST(cublasLtMatmulDescDestroy(op), 0);
    ST(cublasLtMatrixLayoutDestroy(l), 0);
    DRV(cuEventDestroy_v2(e1));
    DRV(cuStreamDestroy_v2(s));
    DRV(cuMemFree_v2((CUdeviceptr)(uintptr_t)dD));
    end();
}

/* ---- bad input ----------------------------------------------------------- */
static void test_bad(void)
{
    begin("bad input: handles, descriptors, shapes, orders, epilogues, pointers; nothing written");
    float *d = dalloc(64 * 4), *out = dalloc(64 * 4), host[64];
    DRV(cuMemsetD32_v2((CUdeviceptr)(uintptr_t)out, 0, 64));
    cublasLtHandle_t dead, fake = (cublasLtHandle_t)(uintptr_t)0x1234;
    ST(cublasLtCreate(NULL), CUBLAS_STATUS_INVALID_VALUE);
    ST(cublasLtCreate(&dead), 0);
    ST(cublasLtDestroy(dead), 0);
    ST(cublasLtDestroy(dead), CUBLAS_STATUS_NOT_INITIALIZED);
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t l4, l5, lr;
    ST(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F), 0);
    ST(cublasLtMatrixLayoutCreate(&l4, CUDA_R_32F, 4, 4, 4), 0);
    ST(cublasLtMatrixLayoutCreate(&l5, CUDA_R_32F, 5, 4, 5), 0);
    ST(cublasLtMatrixLayoutCreate(&lr, CUDA_R_32F, 4, 4, 4), 0);
    float one = 1, zero = 0;
#define MM(H, OP, A, LA, B, LB, C, LC, D, LD) cublasLtMatmul(H, OP, &one, A, LA, B, LB, &zero, C, LC, D, LD, NULL, NULL, 0, NULL)
    ST(MM(dead, op, d, l4, d, l4, d, l4, out, l4), CUBLAS_STATUS_NOT_INITIALIZED);
    ST(MM(fake, op, d, l4, d, l4, d, l4, out, l4), CUBLAS_STATUS_NOT_INITIALIZED);
    ST(MM(NULL, op, d, l4, d, l4, d, l4, out, l4), CUBLAS_STATUS_NOT_INITIALIZED);
    ST(MM(lt, NULL, d, l4, d, l4, d, l4, out, l4), CUBLAS_STATUS_INVALID_VALUE);
    ST(MM(lt, op, d, NULL, d, l4, d, l4, out, l4), CUBLAS_STATUS_INVALID_VALUE);
    /* shapes: A 5 x 4 against D 4 x 4 */
    ST(MM(lt, op, d, l5, d, l4, d, l4, out, l4), CUBLAS_STATUS_INVALID_VALUE);
    /* NULL, host, too small, misaligned operands */
    ST(MM(lt, op, NULL, l4, d, l4, d, l4, out, l4), CUBLAS_STATUS_INVALID_VALUE);
    ST(MM(lt, op, host, l4, d, l4, d, l4, out, l4), CUBLAS_STATUS_INVALID_VALUE);
    ST(MM(lt, op, d + 60, l4, d, l4, d, l4, out, l4), CUBLAS_STATUS_INVALID_VALUE);
    ST(MM(lt, op, (char *)d + 2, l4, d, l4, d, l4, out, l4), CUBLAS_STATUS_INVALID_VALUE);
    ST(cublasLtMatmul(lt, op, NULL, d, l4, d, l4, &zero, d, l4, out, l4, NULL, NULL, 0, NULL), CUBLAS_STATUS_INVALID_VALUE);
    ST(cublasLtMatmul(lt, op, &one, d, l4, d, l4, &zero, d, l4, out, l4, NULL, NULL, 64, NULL), CUBLAS_STATUS_INVALID_VALUE);
    /* layouts: ld below rows, batch 0, an order not implemented, one that does not exist */
    int64_t ld = 3;
    int32_t v = 0;
    ST(cublasLtMatrixLayoutSetAttribute(lr, CUBLASLT_MATRIX_LAYOUT_LD, &ld, 8), 0);
    ST(MM(lt, op, d, lr, d, l4, d, l4, out, l4), CUBLAS_STATUS_INVALID_VALUE);
    ld = 4;
    ST(cublasLtMatrixLayoutSetAttribute(lr, CUBLASLT_MATRIX_LAYOUT_LD, &ld, 8), 0);
    ST(cublasLtMatrixLayoutSetAttribute(lr, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &v, 4), 0);
    ST(MM(lt, op, d, lr, d, l4, d, l4, out, l4), CUBLAS_STATUS_INVALID_VALUE);
    v = 2;   /* batches differ */
    ST(cublasLtMatrixLayoutSetAttribute(lr, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &v, 4), 0);
    ST(MM(lt, op, d, lr, d, l4, d, l4, out, l4), CUBLAS_STATUS_INVALID_VALUE);
    v = 1;
    ST(cublasLtMatrixLayoutSetAttribute(lr, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &v, 4), 0);
    v = CUBLASLT_ORDER_COL32;
    ST(cublasLtMatrixLayoutSetAttribute(lr, CUBLASLT_MATRIX_LAYOUT_ORDER, &v, 4), 0);
    ST(MM(lt, op, d, lr, d, l4, d, l4, out, l4), CUBLAS_STATUS_NOT_SUPPORTED);
    v = 77;
    ST(cublasLtMatrixLayoutSetAttribute(lr, CUBLASLT_MATRIX_LAYOUT_ORDER, &v, 4), 0);
    ST(MM(lt, op, d, lr, d, l4, d, l4, out, l4), CUBLAS_STATUS_INVALID_VALUE);
    /* C == D in two layouts */
    v = CUBLASLT_ORDER_ROW;
    ST(cublasLtMatrixLayoutSetAttribute(lr, CUBLASLT_MATRIX_LAYOUT_ORDER, &v, 4), 0);
    float half_beta = 0.5f;
    ST(cublasLtMatmul(lt, op, &one, d, l4, d, l4, &half_beta, out, lr, out, l4, NULL, NULL, 0, NULL),
       CUBLAS_STATUS_INVALID_VALUE);
    /* types, operations, epilogues */
    uint32_t t = CUDA_R_64F;
    ST(cublasLtMatrixLayoutSetAttribute(lr, CUBLASLT_MATRIX_LAYOUT_TYPE, &t, 4), 0);
    v = CUBLASLT_ORDER_COL;
    ST(cublasLtMatrixLayoutSetAttribute(lr, CUBLASLT_MATRIX_LAYOUT_ORDER, &v, 4), 0);
    ST(MM(lt, op, d, lr, d, lr, d, l4, out, l4), CUBLAS_STATUS_NOT_SUPPORTED);
    v = 7;
    ST(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &v, 4), 0);
    ST(MM(lt, op, d, l4, d, l4, d, l4, out, l4), CUBLAS_STATUS_INVALID_VALUE);
    v = CUBLAS_OP_N;
    ST(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &v, 4), 0);
    uint32_t epi = CUBLASLT_EPILOGUE_RELU_AUX;
    ST(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, 4), 0);
    ST(MM(lt, op, d, l4, d, l4, d, l4, out, l4), CUBLAS_STATUS_NOT_SUPPORTED);
    epi = 1000;
    ST(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, 4), 0);
    ST(MM(lt, op, d, l4, d, l4, d, l4, out, l4), CUBLAS_STATUS_INVALID_VALUE);
    epi = CUBLASLT_EPILOGUE_BIAS;   /* no bias pointer */
    ST(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, 4), 0);
    ST(MM(lt, op, d, l4, d, l4, d, l4, out, l4), CUBLAS_STATUS_INVALID_VALUE);
    epi = CUBLASLT_EPILOGUE_GELU_AUX;   /* aux ld 4 is no multiple of 8 */
    int64_t aux_ld = 4;
    void *auxp = d;
    ST(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, 4), 0);
    ST(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, &auxp, sizeof auxp), 0);
    ST(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &aux_ld, 8), 0);
    ST(MM(lt, op, d, l4, d, l4, d, l4, out, l4), CUBLAS_STATUS_INVALID_VALUE);
    epi = CUBLASLT_EPILOGUE_DEFAULT;
    ST(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, 4), 0);
    const void *scale = d;   /* FP8 scaling on float data */
    ST(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &scale, sizeof scale), 0);
    ST(MM(lt, op, d, l4, d, l4, d, l4, out, l4), CUBLAS_STATUS_INVALID_VALUE);
    scale = NULL;
    ST(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &scale, sizeof scale), 0);
    int32_t pm = 9;
    ST(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_POINTER_MODE, &pm, 4), 0);
    ST(MM(lt, op, d, l4, d, l4, d, l4, out, l4), CUBLAS_STATUS_INVALID_VALUE);
    pm = CUBLASLT_POINTER_MODE_DEVICE;   /* alpha in host memory */
    ST(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_POINTER_MODE, &pm, 4), 0);
    ST(MM(lt, op, d, l4, d, l4, d, l4, out, l4), CUBLAS_STATUS_INVALID_VALUE);
    /* an algorithm that is not one */
    uint64_t garbage[8];
    memset(garbage, 0x77, sizeof garbage);
    pm = CUBLASLT_POINTER_MODE_HOST;
    ST(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_POINTER_MODE, &pm, 4), 0);
    ST(cublasLtMatmul(lt, op, &one, d, l4, d, l4, &zero, d, l4, out, l4, (cublasLtMatmulAlgo_t *)(void *)garbage, NULL,
                      0, NULL), CUBLAS_STATUS_INVALID_VALUE);
    cublasLtMatmulHeuristicResult_t res;
    int got;
    ST(cublasLtMatmulAlgoGetHeuristic(fake, op, l4, l4, l4, l4, NULL, 1, &res, &got), CUBLAS_STATUS_NOT_INITIALIZED);
    ST(cublasLtMatmulAlgoGetHeuristic(lt, op, l4, l4, l4, l4, NULL, 1, &res, NULL), CUBLAS_STATUS_INVALID_VALUE);
    /* nothing above ran */
    DRV(cuCtxSynchronize());
    DRV(cuMemcpyDtoH_v2(host, (CUdeviceptr)(uintptr_t)out, sizeof host));
    for (int i = 0; i < 64; i++)
        if (host[i] != 0) {
            bad("a refused call wrote out[%d] = %g", i, host[i]);
            break;
        }
    /* an entry point this library does not implement, through NVIDIA's symbol */
    extern int cublasLtMatrixTransform_unused(void) __asm__("cublasLtSSSMatmul");
    ST(cublasLtMatrixTransform_unused(), CUBLAS_STATUS_NOT_SUPPORTED);
    ST(cublasLtMatmulDescDestroy(op), 0);
    ST(cublasLtMatrixLayoutDestroy(l4), 0);
    ST(cublasLtMatrixLayoutDestroy(l5), 0);
    ST(cublasLtMatrixLayoutDestroy(lr), 0);
    DRV(cuMemFree_v2((CUdeviceptr)(uintptr_t)d));
    DRV(cuMemFree_v2((CUdeviceptr)(uintptr_t)out));
    end();
}

int main(void)
{
    begin("cublasLtCreate");
    ST(cublasLtCreate(&lt), CUBLAS_STATUS_SUCCESS);
    end();
    if (n_fail)
        return summary("cublaslt");
    test_descriptors();
    test_algos();
    test_types();
    test_epilogues();
    test_modes();
    test_ordering();
    test_bad();
    begin("cublasLtDestroy");
    ST(cublasLtDestroy(lt), CUBLAS_STATUS_SUCCESS);
    end();
    return summary("cublaslt");
}
