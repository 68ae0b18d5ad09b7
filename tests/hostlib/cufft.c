/* SPDX-License-Identifier: Apache-2.0 */
/* The host cuFFT (build/lib/tdtrace/host/libcufft.so.12) on the emulated GPU,
 * built against tdtrace's own declarations (src/hostlib/cufft/cufft_api.h):
 * every transform type in single, double, half and bfloat16, ranks 1 to 3,
 * batches, in and out of place, the basic layout (with FFTW's padding of
 * in-place real transforms) and advanced ones (embeddings, strides,
 * distances), through every plan function, against a naive DFT in double
 * (sum over all points of x e^(sign 2 pi i sum_d k_d j_d / n_d), cuFFT's
 * unnormalised convention). Tolerances, relative to 1 + max |reference| of
 * the batch: float 1e-5, double 1e-12, half 2e-3, bfloat16 1.6e-2. Also the
 * work-area functions, stream order, bad input.
 *
 *   LD_LIBRARY_PATH=build/lib/tdtrace/emu:build/lib/tdtrace/host ./cufft */
#include <unistd.h>

#include "check.h"
#include "cufft_api.h"

enum kind { C2C, R2C, C2R };
enum prec { H, BF, F, D };
static const size_t rsize[4] = { 2, 2, 4, 8 };
static const double ptol[4] = { 2e-3, 1.6e-2, 1e-5, 1e-12 };
static const char *const kname[3] = { "C2C", "R2C", "C2R" };
static const char *const pname[4] = { "half", "bf16", "float", "double" };

/* ---- scalars ----------------------------------------------------------- */
static double dec_half(uint16_t h)
{
    int e = (h >> 10) & 31, m = h & 1023;
    double v = e ? ldexp(1024 + m, e - 25) : ldexp(m, -24);
    return h & 0x8000 ? -v : v;
}

/* to half, nearest even, by arithmetic (normal range and zero) */
static uint16_t enc_half(double v)
{
    uint16_t s = v < 0 ? 0x8000 : 0;
    v = fabs(v);
    if (v < ldexp(1, -14))
        return (uint16_t)(s | (uint16_t)rint(ldexp(v, 24)));
    int e;
    frexp(v, &e);
    double m = rint(ldexp(v, 11 - e));   /* 11 significant bits */
    if (m >= 2048) {
        m /= 2;
        e++;
    }
    return (uint16_t)(s | ((e + 14) << 10) | ((int)m & 1023));
}

static double dec_bf16(uint16_t b)
{
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static uint16_t enc_bf16(double v)
{
    float f = (float)v;   /* exact for the values used (8 significant bits) */
    uint32_t u;
    memcpy(&u, &f, 4);
    return (uint16_t)(u >> 16);
}

static void sput(enum prec p, void *b, size_t i, double v)
{
    switch (p) {
    case H: ((uint16_t *)b)[i] = enc_half(v); break;
    case BF: ((uint16_t *)b)[i] = enc_bf16(v); break;
    case F: ((float *)b)[i] = (float)v; break;
    case D: ((double *)b)[i] = v; break;
    }
}

static double sget(enum prec p, const void *b, size_t i)
{
    switch (p) {
    case H: return dec_half(((const uint16_t *)b)[i]);
    case BF: return dec_bf16(((const uint16_t *)b)[i]);
    case F: return ((const float *)b)[i];
    case D: return ((const double *)b)[i];
    }
    return 0;
}

/* a random value exactly representable in p: multiples of 1/64 in [-1, 1)
 * for half and bfloat16 */
static double rval(enum prec p)
{
    double v = urand();
    return p == H || p == BF ? floor(v * 64) / 64 : p == F ? (float)v : v;
}

/* ---- layouts (the test's own reading of cuFFT's documentation) --------- */
struct lay {
    int rank;
    long long n[3], embed[3], stride, dist;
};

static long long lay_idx(const struct lay *l, long long b, const long long *i)
{
    long long off = 0;
    for (int d = 0; d < l->rank; d++)
        off = off * (d ? l->embed[d] : 1) + i[d];
    return b * l->dist + off * l->stride;
}

static long long lay_span(const struct lay *l, long long batch)
{
    long long last[3];
    for (int d = 0; d < l->rank; d++)
        last[d] = l->n[d] - 1;
    return lay_idx(l, batch - 1, last) + 1;
}

static long long total(const long long *n, int rank)
{
    long long t = 1;
    for (int d = 0; d < rank; d++)
        t *= n[d];
    return t;
}

/* next multi-index in row-major order; 0 at the end */
static int next_index(long long *i, const long long *n, int rank)
{
    for (int d = rank - 1; d >= 0; d--) {
        if (++i[d] < n[d])
            return 1;
        i[d] = 0;
    }
    return 0;
}

/* ---- the naive DFT ------------------------------------------------------ */
/* out[k] = sum_j in[j] e^(sign 2 pi i sum_d k_d j_d / n_d) over full sizes n;
 * in and out packed complex (re, im), row-major */
static void dft(int rank, const long long *n, const double *in, double *out, int sign)
{
    long long N = total(n, rank), k[3] = { 0 }, j[3];
    for (long long ko = 0; ko < N; ko++) {
        double sr = 0, si = 0;
        memset(j, 0, sizeof j);
        for (long long jo = 0; jo < N; jo++) {
            double ph = 0;
            for (int d = 0; d < rank; d++)
                ph += (double)((k[d] * j[d]) % n[d]) / (double)n[d];
            double c = cos(2 * M_PI * ph), s = sign * sin(2 * M_PI * ph);
            sr += in[2 * jo] * c - in[2 * jo + 1] * s;
            si += in[2 * jo] * s + in[2 * jo + 1] * c;
            next_index(j, n, rank);
        }
        out[2 * ko] = sr;
        out[2 * ko + 1] = si;
        next_index(k, n, rank);
    }
}

/* ---- one transform ------------------------------------------------------- */
struct tc {
    enum kind kind;
    enum prec prec;
    int rank;
    long long n[3], batch;
    int inplace, advanced, sign;
    int api;                      /* 0 cufftPlan*d / PlanMany, 1 Create + MakePlanMany64, 2 Xt */
    long long pad, stride_in, stride_out, extra_dist;   /* advanced layouts */
};

static cufftType ctype(enum kind k, enum prec p)
{
    static const cufftType t[2][3] = { { CUFFT_C2C, CUFFT_R2C, CUFFT_C2R }, { CUFFT_Z2Z, CUFFT_D2Z, CUFFT_Z2D } };
    return t[p == D][k];
}

static cudaDataType dtype(enum prec p, int cplx)
{
    static const cudaDataType r[4] = { CUDA_R_16F, CUDA_R_16BF, CUDA_R_32F, CUDA_R_64F };
    static const cudaDataType c[4] = { CUDA_C_16F, CUDA_C_16BF, CUDA_C_32F, CUDA_C_64F };
    return cplx ? c[p] : r[p];
}

static void run_tc(const struct tc *t)
{
    int rank = t->rank, cin = t->kind != R2C, cout = t->kind != C2R;
    long long half_n = t->n[rank - 1] / 2 + 1;
    struct lay li = { .rank = rank }, lo = { .rank = rank };
    for (int d = 0; d < rank; d++)
        li.n[d] = lo.n[d] = t->n[d];
    if (t->kind == R2C)
        lo.n[rank - 1] = half_n;
    if (t->kind == C2R)
        li.n[rank - 1] = half_n;
    if (t->advanced) {
        for (int d = 0; d < rank; d++) {
            li.embed[d] = li.n[d] + (d ? t->pad : 0);
            lo.embed[d] = lo.n[d] + (d ? t->pad + 1 : 0);
        }
        li.stride = t->stride_in;
        lo.stride = t->stride_out;
        li.dist = lay_span(&li, 1) + t->extra_dist;
        lo.dist = lay_span(&lo, 1) + t->extra_dist + 2;
        if (t->inplace)   /* in place: one layout (C2C) */
            lo = li;
    } else {
        /* packed; an in-place real transform's real side padded to 2 (n/2 + 1) */
        struct lay *s[2] = { &li, &lo };
        for (int x = 0; x < 2; x++) {
            for (int d = 0; d < rank; d++)
                s[x]->embed[d] = s[x]->n[d];
            int real_side = (t->kind == R2C && x == 0) || (t->kind == C2R && x == 1);
            if (t->inplace && real_side)
                s[x]->embed[rank - 1] = 2 * half_n;
            s[x]->stride = 1;
            s[x]->dist = total(s[x]->embed, rank);
        }
    }
    size_t ein = rsize[t->prec] * (cin ? 2 : 1), eout = rsize[t->prec] * (cout ? 2 : 1);
    size_t ibytes = (size_t)lay_span(&li, t->batch) * ein, obytes = (size_t)lay_span(&lo, t->batch) * eout;
    size_t bytes_in = t->inplace ? (ibytes > obytes ? ibytes : obytes) : ibytes;
    unsigned char *hin = malloc(bytes_in), *hout = malloc(obytes > bytes_in ? obytes : bytes_in);
    /* every scalar random (gaps too: they must come back unchanged) */
    for (size_t i = 0; i < bytes_in / rsize[t->prec]; i++)
        sput(t->prec, hin, i, rval(t->prec));
    long long N = total(t->n, rank);
    double *x = malloc(sizeof(double) * 2 * (size_t)N), *X = malloc(sizeof(double) * 2 * (size_t)N);
    /* C2R input: the R2C of a random real signal (Hermitian) */
    if (t->kind == C2R) {
        long long i[3];
        for (long long b = 0; b < t->batch; b++) {
            for (long long q = 0; q < N; q++) {
                x[2 * q] = rval(t->prec) * 4;
                x[2 * q + 1] = 0;
            }
            dft(rank, t->n, x, X, -1);
            memset(i, 0, sizeof i);
            do {
                long long q = 0;
                for (int d = 0; d < rank; d++)
                    q = q * t->n[d] + i[d];
                long long at = lay_idx(&li, b, i);
                sput(t->prec, hin, (size_t)at * 2, X[2 * q]);
                sput(t->prec, hin, (size_t)at * 2 + 1, X[2 * q + 1]);
            } while (next_index(i, li.n, rank));
        }
    }
    void *din = dalloc(bytes_in), *dout = t->inplace ? din : dalloc(obytes);
    DRV(cuMemcpyHtoD_v2((CUdeviceptr)(uintptr_t)din, hin, bytes_in));
    unsigned char *hout0 = NULL;
    if (!t->inplace) {
        hout0 = malloc(obytes);
        for (size_t i = 0; i < obytes / rsize[t->prec]; i++)
            sput(t->prec, hout0, i, rval(t->prec));
        DRV(cuMemcpyHtoD_v2((CUdeviceptr)(uintptr_t)dout, hout0, obytes));
    }

    /* the plan */
    cufftHandle plan = -1;
    size_t ws = 99;
    int ni[3], ie[3], oe[3];
    long long n64[3], ie64[3], oe64[3];
    for (int d = 0; d < rank; d++) {
        ni[d] = (int)t->n[d];
        n64[d] = t->n[d];
        ie[d] = (int)li.embed[d];
        oe[d] = (int)lo.embed[d];
        ie64[d] = li.embed[d];
        oe64[d] = lo.embed[d];
    }
    if (t->api == 0 && !t->advanced && t->prec >= F) {
        if (rank == 1)
            ST(cufftPlan1d(&plan, ni[0], ctype(t->kind, t->prec), (int)t->batch), 0);
        else if (rank == 2 && t->batch == 1)
            ST(cufftPlan2d(&plan, ni[0], ni[1], ctype(t->kind, t->prec)), 0);
        else if (rank == 3 && t->batch == 1)
            ST(cufftPlan3d(&plan, ni[0], ni[1], ni[2], ctype(t->kind, t->prec)), 0);
        else
            ST(cufftPlanMany(&plan, rank, ni, NULL, 1, 0, NULL, 1, 0, ctype(t->kind, t->prec), (int)t->batch), 0);
    } else if (t->api == 0 && t->prec >= F) {
        ST(cufftPlanMany(&plan, rank, ni, ie, (int)li.stride, (int)li.dist, oe, (int)lo.stride, (int)lo.dist,
                         ctype(t->kind, t->prec), (int)t->batch), 0);
    } else if (t->api == 1 && t->prec >= F) {
        ST(cufftCreate(&plan), 0);
        ST(cufftMakePlanMany64(plan, rank, n64, t->advanced ? ie64 : NULL, li.stride, li.dist,
                               t->advanced ? oe64 : NULL, lo.stride, lo.dist, ctype(t->kind, t->prec), t->batch, &ws),
           0);
        if (ws != 0)
            bad("work size %zu", ws);
    } else {
        ST(cufftCreate(&plan), 0);
        ST(cufftXtMakePlanMany(plan, rank, n64, t->advanced ? ie64 : NULL, li.stride, li.dist, dtype(t->prec, cin),
                               t->advanced ? oe64 : NULL, lo.stride, lo.dist, dtype(t->prec, cout), t->batch, &ws,
                               dtype(t->prec, 1)), 0);
    }
    int sign = t->kind == C2C ? t->sign : t->kind == R2C ? -1 : 1;
    if (t->api == 2 || t->prec < F) {
        ST(cufftXtExec(plan, din, dout, sign), 0);
    } else if (t->prec == F) {
        if (t->kind == C2C)
            ST(cufftExecC2C(plan, din, dout, sign), 0);
        else if (t->kind == R2C)
            ST(cufftExecR2C(plan, din, dout), 0);
        else
            ST(cufftExecC2R(plan, din, dout), 0);
    } else {
        if (t->kind == C2C)
            ST(cufftExecZ2Z(plan, din, dout, sign), 0);
        else if (t->kind == R2C)
            ST(cufftExecD2Z(plan, din, dout), 0);
        else
            ST(cufftExecZ2D(plan, din, dout), 0);
    }
    DRV(cuCtxSynchronize());
    DRV(cuMemcpyDtoH_v2(hout, (CUdeviceptr)(uintptr_t)dout, obytes));

    /* the reference, batch by batch; every output scalar outside the
     * transform's elements unchanged (out of place) */
    char *is_out = calloc(obytes / rsize[t->prec] + 1, 1);
    for (long long b = 0; b < t->batch && !cur_bad; b++) {
        long long i[3] = { 0 };
        do {   /* the input, expanded to the full complex array */
            long long q = 0;
            for (int d = 0; d < rank; d++)
                q = q * t->n[d] + i[d];
            if (t->kind == C2R) {
                /* Hermitian: k_last > n/2 mirrors conj(X[-k]) */
                long long src[3];
                int mirror = i[rank - 1] >= half_n;
                for (int d = 0; d < rank; d++)
                    src[d] = mirror ? (t->n[d] - i[d]) % t->n[d] : i[d];
                long long at = lay_idx(&li, b, src);
                x[2 * q] = sget(t->prec, hin, (size_t)at * 2);
                x[2 * q + 1] = (mirror ? -1 : 1) * sget(t->prec, hin, (size_t)at * 2 + 1);
            } else {
                long long at = lay_idx(&li, b, i);
                x[2 * q] = sget(t->prec, hin, (size_t)at * (cin ? 2 : 1));
                x[2 * q + 1] = cin ? sget(t->prec, hin, (size_t)at * 2 + 1) : 0;
            }
        } while (next_index(i, t->n, rank));
        dft(rank, t->n, x, X, sign);
        double mx = 0;
        for (long long q = 0; q < 2 * N; q++)
            mx = fmax(mx, fabs(X[q]));
        double tol = ptol[t->prec] * (1 + mx);
        memset(i, 0, sizeof i);
        do {
            long long q = 0;
            for (int d = 0; d < rank; d++)
                q = q * t->n[d] + i[d];
            long long at = lay_idx(&lo, b, i);
            for (int c = 0; c < (cout ? 2 : 1); c++) {
                size_t s = (size_t)at * (cout ? 2 : 1) + (size_t)c;
                double got = sget(t->prec, hout, s), want = X[2 * q + c];
                is_out[s] = 1;
                if (!(fabs(got - want) <= tol)) {
                    bad("%s %s rank %d n %lld,%lld,%lld batch %lld %s%s sign %d: out[%lld][%lld]%s = %.9g, "
                        "expected %.9g (tolerance %g)", kname[t->kind], pname[t->prec], rank, t->n[0],
                        rank > 1 ? t->n[1] : 0, rank > 2 ? t->n[2] : 0, t->batch, t->inplace ? "in place" : "out of place",
                        t->advanced ? " advanced" : "", sign, b, q, c ? ".im" : ".re", got, want, tol);
                    break;
                }
            }
        } while (!cur_bad && next_index(i, lo.n, rank));
    }
    if (!t->inplace && !cur_bad)
        for (size_t s = 0; s < obytes / rsize[t->prec]; s++)
            if (!is_out[s] && memcmp(hout + s * rsize[t->prec], hout0 + s * rsize[t->prec], rsize[t->prec])) {
                bad("%s %s: output scalar %zu outside the transform was written", kname[t->kind], pname[t->prec], s);
                break;
            }
    ST(cufftDestroy(plan), 0);
    DRV(cuMemFree_v2((CUdeviceptr)(uintptr_t)din));
    if (!t->inplace)
        DRV(cuMemFree_v2((CUdeviceptr)(uintptr_t)dout));
    free(hin), free(hout), free(hout0), free(x), free(X), free(is_out);
}

static struct tc tc1(enum kind k, enum prec p, long long n, long long batch, int inplace)
{
    struct tc t;
    memset(&t, 0, sizeof t);
    t.kind = k;
    t.prec = p;
    t.rank = 1;
    t.n[0] = n;
    t.batch = batch;
    t.inplace = inplace;
    t.sign = -1;
    return t;
}

static void test_1d(void)
{
    static const long long sizes[] = { 1, 2, 7, 16, 60, 97, 128 };
    for (int p = F; p <= D; p++) {
        for (int k = C2C; k <= C2R; k++) {
            char name[96];
            snprintf(name, sizeof name, "1-D %s %s: n 1..128 (97 prime), batch 3, in and out of place, both signs",
                     kname[k], pname[p]);
            begin(name);
            for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
                for (int inplace = 0; inplace < 2; inplace++) {
                    struct tc t = tc1((enum kind)k, (enum prec)p, sizes[i], 3, inplace);
                    t.sign = i % 2 ? 1 : -1;
                    t.api = (int)(i % 3);
                    run_tc(&t);
                }
            end();
        }
    }
}

static void test_nd(void)
{
    static const long long shapes[][3] = { { 5, 8, 0 }, { 6, 7, 0 }, { 4, 3, 5 }, { 2, 6, 4 } };
    for (int p = F; p <= D; p++) {
        char name[96];
        snprintf(name, sizeof name, "2-D and 3-D C2C, R2C, C2R %s: basic layout, in and out of place, batch 1 and 2",
                 pname[p]);
        begin(name);
        for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
            for (int k = C2C; k <= C2R; k++)
                for (int inplace = 0; inplace < 2; inplace++) {
                    struct tc t = tc1((enum kind)k, (enum prec)p, 0, inplace ? 1 : 2, inplace);
                    t.rank = shapes[s][2] ? 3 : 2;
                    memcpy(t.n, shapes[s], sizeof t.n);
                    t.sign = inplace ? 1 : -1;
                    t.api = (int)((s + (size_t)k) % 3);
                    run_tc(&t);
                }
        end();
    }
}

static void test_advanced(void)
{
    begin("advanced layouts (cufftPlanMany, MakePlanMany64, XtMakePlanMany): embeddings, strides, distances");
    for (int p = F; p <= D; p++)
        for (int k = C2C; k <= C2R; k++)
            for (int rank = 1; rank <= 3; rank++)
                for (int api = 0; api < 3; api++) {
                    struct tc t = tc1((enum kind)k, (enum prec)p, 0, 3, 0);
                    long long n3[3] = { 6, 5, 4 };
                    t.rank = rank;
                    memcpy(t.n, n3, sizeof n3);
                    t.advanced = 1;
                    t.pad = 2;
                    t.stride_in = 1 + rank % 2;
                    t.stride_out = 1 + (rank + api) % 3;
                    t.extra_dist = 3;
                    t.api = api;
                    t.sign = api == 1 ? 1 : -1;
                    run_tc(&t);
                }
    /* in place with a stride */
    struct tc t = tc1(C2C, F, 12, 4, 1);
    t.advanced = 1;
    t.stride_in = t.stride_out = 4;
    run_tc(&t);
    end();
}

static void test_half(void)
{
    begin("half and bfloat16 (cufftXtMakePlanMany, cufftXtExec): C2C, R2C, C2R, 1-D and 2-D, in and out of place");
    for (int p = H; p <= BF; p++)
        for (int k = C2C; k <= C2R; k++)
            for (int inplace = 0; inplace < 2; inplace++) {
                struct tc t = tc1((enum kind)k, (enum prec)p, 16, 2, inplace);
                t.api = 2;
                run_tc(&t);
                t.rank = 2;
                t.n[0] = 4;
                t.n[1] = 8;
                t.sign = 1;
                run_tc(&t);
            }
    struct tc t = tc1(C2C, H, 8, 3, 0);
    t.api = 2;
    t.advanced = 1;
    t.stride_in = 2;
    t.stride_out = 3;
    t.extra_dist = 1;
    run_tc(&t);
    end();
}

/* ---- work areas, settings ---------------------------------------------- */
static void test_settings(void)
{
    begin("work areas, estimates, sizes, auto allocation, properties, versions");
    size_t ws = 7;
    int v = 0;
    ST(cufftGetVersion(&v), 0);
    if (v != 12000)
        bad("version %d", v);
    ST(cufftGetProperty(MAJOR_VERSION, &v), 0);
    if (v != 12)
        bad("major %d", v);
    ST(cufftGetProperty((libraryPropertyType)3, &v), CUFFT_INVALID_TYPE);
    ST(cufftEstimate1d(1024, CUFFT_C2C, 4, &ws), 0);
    ST(cufftEstimate2d(64, 64, CUFFT_R2C, &ws), 0);
    ST(cufftEstimate3d(8, 8, 8, CUFFT_Z2D, &ws), 0);
    int n[2] = { 16, 16 };
    ST(cufftEstimateMany(2, n, NULL, 1, 0, NULL, 1, 0, CUFFT_D2Z, 3, &ws), 0);
    if (ws != 0)
        bad("estimate %zu", ws);
    ST(cufftEstimate1d(0, CUFFT_C2C, 1, &ws), CUFFT_INVALID_SIZE);
    ST(cufftEstimate1d(16, (cufftType)0x33, 1, &ws), CUFFT_INVALID_TYPE);
    ST(cufftEstimate1d(16, CUFFT_C2C, 1, NULL), CUFFT_INVALID_VALUE);
    cufftHandle h;
    ST(cufftCreate(&h), 0);
    ws = 7;
    ST(cufftGetSize1d(h, 256, CUFFT_C2C, 2, &ws), 0);
    ST(cufftGetSize2d(h, 16, 16, CUFFT_R2C, &ws), 0);
    ST(cufftGetSize3d(h, 4, 4, 4, CUFFT_C2R, &ws), 0);
    ST(cufftGetSizeMany(h, 2, n, NULL, 1, 0, NULL, 1, 0, CUFFT_Z2Z, 2, &ws), 0);
    ST(cufftSetAutoAllocation(h, 0), 0);
    ST(cufftMakePlan2d(h, 16, 16, CUFFT_C2C, &ws), 0);
    if (ws != 0)
        bad("work size %zu", ws);
    ST(cufftMakePlan1d(h, 16, CUFFT_C2C, 1, &ws), CUFFT_INVALID_PLAN);   /* made once */
    ST(cufftGetSize(h, &ws), 0);
    void *work = dalloc(256);
    ST(cufftSetWorkArea(h, work), 0);
    ST(cufftXtSetWorkAreaPolicy(h, CUFFT_WORKAREA_MINIMAL, NULL), 0);
    ST(cufftXtSetWorkAreaPolicy(h, (cufftXtWorkAreaPolicy)9, NULL), CUFFT_INVALID_VALUE);
    long long pv = -1;
    ST(cufftSetPlanPropertyInt64(h, NVFFT_PLAN_PROPERTY_INT64_MAX_NUM_HOST_THREADS, 4), 0);
    ST(cufftGetPlanPropertyInt64(h, NVFFT_PLAN_PROPERTY_INT64_MAX_NUM_HOST_THREADS, &pv), 0);
    if (pv != 4)
        bad("property %lld", pv);
    ST(cufftResetPlanProperty(h, NVFFT_PLAN_PROPERTY_INT64_MAX_NUM_HOST_THREADS), 0);
    ST(cufftSetPlanPropertyInt64(h, (cufftProperty)9, 1), CUFFT_INVALID_VALUE);
    /* a 16 x 16 C2C with the program's work area and no auto allocation */
    cufftComplex *d = dalloc(256 * 8);
    DRV(cuMemsetD32_v2((CUdeviceptr)(uintptr_t)d, 0x3f800000, 512));   /* 1 + 1i everywhere */
    ST(cufftExecC2C(h, d, d, CUFFT_FORWARD), 0);
    DRV(cuCtxSynchronize());
    cufftComplex back[2];
    DRV(cuMemcpyDtoH_v2(back, (CUdeviceptr)(uintptr_t)d, sizeof back));
    if (back[0].x != 256 || back[0].y != 256 || back[1].x != 0 || back[1].y != 0)
        bad("constant input: X[0] = %g%+gi, X[1] = %g%+gi", back[0].x, back[0].y, back[1].x, back[1].y);
    ST(cufftDestroy(h), 0);
    DRV(cuMemFree_v2((CUdeviceptr)(uintptr_t)d));
    DRV(cuMemFree_v2((CUdeviceptr)(uintptr_t)work));
    end();
}

/* ---- stream order -------------------------------------------------------- */
struct slow { float *p; int n; _Atomic int open, waited_out; };
static void CUDAAPI slow_fill(void *arg)
{
    struct slow *s = arg;
    for (int i = 0; i < 20000 && !s->open; i++)
        usleep(1000);
    s->waited_out = !s->open;
    for (int i = 0; i < s->n; i++)
        s->p[i] = i % 2 ? 0.0f : 1.0f;   /* 1 + 0i */
}

static void test_ordering(void)
{
    begin("stream order: host fn before, exec, event; free right after the call; round trip");
    int n = 64;
    CUstream s;
    CUevent e1;
    DRV(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    DRV(cuEventCreate(&e1, 0));
    float *in = dalloc((size_t)n * 8), *out = dalloc((size_t)n * 8);
    DRV(cuMemsetD32_v2((CUdeviceptr)(uintptr_t)in, 0, (size_t)n * 2));
    cufftHandle h;
    ST(cufftPlan1d(&h, n, CUFFT_C2C, 1), 0);
    ST(cufftSetStream(h, (cudaStream_t)s), 0);
    struct slow sl = { in, 2 * n, 0, 0 };
    DRV(cuLaunchHostFunc(s, slow_fill, &sl));
    ST(cufftExecC2C(h, (cufftComplex *)in, (cufftComplex *)out, CUFFT_FORWARD), 0);
    ST(cufftExecC2C(h, (cufftComplex *)out, (cufftComplex *)out, CUFFT_INVERSE), 0);
    DRV(cuEventRecord(e1, s));
    if (cuEventQuery(e1) != CUDA_ERROR_NOT_READY)
        bad("the event after the transforms completed before the work queued ahead of them");
    sl.open = 1;
    DRV(cuMemFree_v2((CUdeviceptr)(uintptr_t)in));
    ST(cufftDestroy(h), 0);   /* with its work queued */
    DRV(cuEventSynchronize(e1));
    if (sl.waited_out)
        bad("cufftExecC2C waited for the stream");
    float host[128];
    DRV(cuMemcpyDtoH_v2(host, (CUdeviceptr)(uintptr_t)out, sizeof host));
    for (int i = 0; i < 2 * n; i++)
        if (fabsf(host[i] - (i % 2 ? 0.0f : (float)n)) > 1e-4f) {
            bad("inverse(forward(x))[%d] = %g, expected %g", i / 2, host[i], i % 2 ? 0.0 : (double)n);
            break;
        }
    DRV(cuEventDestroy_v2(e1));
    DRV(cuStreamDestroy_v2(s));
    DRV(cuMemFree_v2((CUdeviceptr)(uintptr_t)out));
    end();
}

/* ---- bad input ----------------------------------------------------------- */
static void test_bad(void)
{
    begin("bad input: handles, sizes, ranks, types, directions, pointers; nothing written");
    float *d = dalloc(64 * 4), *out = dalloc(64 * 4), host[64];
    DRV(cuMemsetD32_v2((CUdeviceptr)(uintptr_t)out, 0, 64));
    cufftHandle h = 77, made, dead;
    ST(cufftCreate(NULL), CUFFT_INVALID_VALUE);
    ST(cufftPlan1d(NULL, 8, CUFFT_C2C, 1), CUFFT_INVALID_VALUE);
    ST(cufftPlan1d(&h, 0, CUFFT_C2C, 1), CUFFT_INVALID_SIZE);
    ST(cufftPlan1d(&h, 8, CUFFT_C2C, 0), CUFFT_INVALID_SIZE);
    ST(cufftPlan1d(&h, 8, (cufftType)0x33, 1), CUFFT_INVALID_TYPE);
    ST(cufftPlan2d(&h, 8, -1, CUFFT_R2C), CUFFT_INVALID_SIZE);
    if (h != 77)
        bad("a failed plan wrote the handle (%d)", h);
    int n4[4] = { 2, 2, 2, 2 }, ne[2] = { 4, 4 };
    ST(cufftPlanMany(&h, 4, n4, NULL, 1, 0, NULL, 1, 0, CUFFT_C2C, 1), CUFFT_INVALID_VALUE);
    ST(cufftPlanMany(&h, 0, n4, NULL, 1, 0, NULL, 1, 0, CUFFT_C2C, 1), CUFFT_INVALID_VALUE);
    ST(cufftPlanMany(&h, 2, NULL, NULL, 1, 0, NULL, 1, 0, CUFFT_C2C, 1), CUFFT_INVALID_VALUE);
    ST(cufftPlanMany(&h, 2, n4, ne, 0, 16, ne, 1, 16, CUFFT_C2C, 1), CUFFT_INVALID_VALUE);   /* stride 0 */
    ST(cufftPlanMany(&h, 2, n4, ne, 1, -16, ne, 1, 16, CUFFT_C2C, 1), CUFFT_INVALID_VALUE);
    /* sizes whose extent overflows */
    long long big[3] = { 1LL << 40, 1LL << 40, 1LL << 40 };
    ST(cufftCreate(&h), 0);
    ST(cufftMakePlanMany64(h, 3, big, NULL, 1, 0, NULL, 1, 0, CUFFT_C2C, 1, NULL), CUFFT_INVALID_SIZE);
    ST(cufftXtMakePlanMany(h, 1, big, NULL, 1, 0, CUDA_R_32F, NULL, 1, 0, CUDA_R_32F, 1, NULL, CUDA_C_32F),
       CUFFT_INVALID_TYPE);
    /* a created plan that was never made */
    ST(cufftExecC2C(h, (cufftComplex *)d, (cufftComplex *)out, CUFFT_FORWARD), CUFFT_INVALID_PLAN);
    ST(cufftDestroy(h), 0);
    ST(cufftPlan1d(&dead, 8, CUFFT_C2C, 1), 0);
    ST(cufftDestroy(dead), 0);
    ST(cufftDestroy(dead), CUFFT_INVALID_PLAN);
    ST(cufftDestroy(CUFFT_PLAN_NULL), 0);
    ST(cufftDestroy(123456), CUFFT_INVALID_PLAN);
    ST(cufftExecC2C(dead, (cufftComplex *)d, (cufftComplex *)out, CUFFT_FORWARD), CUFFT_INVALID_PLAN);
    ST(cufftExecC2C(0, (cufftComplex *)d, (cufftComplex *)out, CUFFT_FORWARD), CUFFT_INVALID_PLAN);
    ST(cufftSetStream(-5, NULL), CUFFT_INVALID_PLAN);
    ST(cufftPlan1d(&made, 8, CUFFT_C2C, 2), 0);
    ST(cufftExecC2C(made, (cufftComplex *)d, (cufftComplex *)out, 0), CUFFT_INVALID_VALUE);
    ST(cufftExecZ2Z(made, (cufftDoubleComplex *)d, (cufftDoubleComplex *)out, CUFFT_FORWARD), CUFFT_INVALID_VALUE);
    ST(cufftExecR2C(made, d, (cufftComplex *)out), CUFFT_INVALID_VALUE);
    ST(cufftExecC2C(made, NULL, (cufftComplex *)out, CUFFT_FORWARD), CUFFT_INVALID_VALUE);
    ST(cufftExecC2C(made, (cufftComplex *)host, (cufftComplex *)out, CUFFT_FORWARD), CUFFT_INVALID_VALUE);
    ST(cufftExecC2C(made, (cufftComplex *)(d + 40), (cufftComplex *)out, CUFFT_FORWARD), CUFFT_INVALID_VALUE);
    ST(cufftExecC2C(made, (cufftComplex *)((char *)d + 2), (cufftComplex *)out, CUFFT_FORWARD), CUFFT_INVALID_VALUE);
    ST(cufftExecC2C(made, (cufftComplex *)d, (cufftComplex *)(out + 40), CUFFT_FORWARD), CUFFT_INVALID_VALUE);
    /* in place with two different batch distances: FFTW cannot run it */
    int n1 = 4, emb = 4;
    ST(cufftDestroy(made), 0);
    ST(cufftPlanMany(&made, 1, &n1, &emb, 1, 4, &emb, 1, 5, CUFFT_C2C, 3), 0);
    ST(cufftExecC2C(made, (cufftComplex *)out, (cufftComplex *)out, CUFFT_FORWARD), CUFFT_NOT_SUPPORTED);
    ST(cufftDestroy(made), 0);
    DRV(cuCtxSynchronize());
    DRV(cuMemcpyDtoH_v2(host, (CUdeviceptr)(uintptr_t)out, sizeof host));
    for (int i = 0; i < 64; i++)
        if (host[i] != 0) {
            bad("a refused call wrote out[%d] = %g", i, host[i]);
            break;
        }
    /* entry points NVIDIA's shared library does not implement either (a
     * bare return of CUFFT_NOT_IMPLEMENTED there), through NVIDIA's symbols */
    extern int cufftXtSetCallback_unused(void) __asm__("cufftXtSetCallback");
    ST(cufftXtSetCallback_unused(), CUFFT_NOT_IMPLEMENTED);
    DRV(cuMemFree_v2((CUdeviceptr)(uintptr_t)d));
    DRV(cuMemFree_v2((CUdeviceptr)(uintptr_t)out));
    end();
}

/* ---- several GPUs: descriptors, their formats, the transform ------------ */
static void test_multi_gpu(void)
{
    begin("several GPUs (cufftXtSetGPUs, XtMalloc, XtMemcpy, XtExecDescriptorC2C/Z2Z): slabs, shuffled output, bad input");
    int gpus[2] = { 0, 1 }, same[2] = { 1, 1 }, far[2] = { 0, 9 };
    /* a 7 x 5 transform over 2 devices: 4 and 3 rows of x, then 3 and 2 columns of y */
    enum { X = 7, Y = 5 };
    cufftHandle pl;
    ST(cufftCreate(&pl), CUFFT_SUCCESS);
    ST(cufftXtSetGPUs(pl, 1, gpus), CUFFT_INVALID_VALUE);
    ST(cufftXtSetGPUs(pl, 2, same), CUFFT_INVALID_DEVICE);
    ST(cufftXtSetGPUs(pl, 2, far), CUFFT_INVALID_DEVICE);
    ST(cufftXtSetGPUs(pl, 2, gpus), CUFFT_SUCCESS);
    size_t ws[2];
    ST(cufftMakePlan2d(pl, X, Y, CUFFT_C2C, ws), CUFFT_SUCCESS);
    ST(cufftXtSetGPUs(pl, 2, gpus), CUFFT_INVALID_PLAN); /* the plan is made */
    cudaLibXtDesc *a = NULL, *b = NULL;
    ST(cufftXtMalloc(pl, &a, CUFFT_XT_FORMAT_INPLACE), CUFFT_SUCCESS);
    ST(cufftXtMalloc(pl, &b, CUFFT_XT_FORMAT_INPLACE), CUFFT_SUCCESS);
    if (!a || !b) {
        bad("no descriptors");
        end();
        return;
    }
    /* each piece holds the device's slab in either format: 4 rows of 5 or 3 columns of 7 */
    if (a->descriptor->nGPUs != 2 || a->descriptor->size[0] != 3 * X * 8 || a->descriptor->size[1] != 3 * Y * 8)
        bad("pieces of %zu and %zu bytes, expected %d and %d", a->descriptor->size[0], a->descriptor->size[1],
            3 * X * 8, 3 * Y * 8);
    float h[X * Y * 2], back[X * Y * 2];
    double in[X * Y * 2], want[X * Y * 2];
    for (int i = 0; i < X * Y * 2; i++)
        in[i] = h[i] = (float)((i * 37) % 11) - 5;
    const long long n[2] = { X, Y };
    dft(2, n, in, want, -1);
    ST(cufftXtMemcpy(pl, a, h, CUFFT_COPY_HOST_TO_DEVICE), CUFFT_SUCCESS);
    /* device 1's piece starts at row 4 */
    if (((float *)a->descriptor->data[1])[0] != h[4 * Y * 2])
        bad("device 1's first element %g, expected row 4's %g", ((float *)a->descriptor->data[1])[0], h[4 * Y * 2]);
    ST(cufftXtExecDescriptorC2C(pl, a, a, CUFFT_FORWARD), CUFFT_SUCCESS);
    if (a->subFormat != CUFFT_XT_FORMAT_INPLACE_SHUFFLED)
        bad("subFormat %d after a forward transform, expected INPLACE_SHUFFLED", a->subFormat);
    /* shuffled: device 1 holds columns 3 and 4 of y, for each x */
    float *p1 = a->descriptor->data[1];
    if (fabs(p1[0] - want[2 * 3]) > 1e-3 || fabs(p1[2 * 2] - want[2 * (Y + 3)]) > 1e-3)
        bad("device 1's shuffled piece starts %g, %g; expected %g, %g", p1[0], p1[4], want[6], want[2 * (Y + 3)]);
    ST(cufftXtMemcpy(pl, back, a, CUFFT_COPY_DEVICE_TO_HOST), CUFFT_SUCCESS);
    double got[X * Y * 2];
    for (int i = 0; i < X * Y * 2; i++)
        got[i] = back[i];
    close_d("forward", got, want, X * Y * 2, 1e-4);
    /* back to natural order on the devices, then the inverse comes back shuffled */
    ST(cufftXtMemcpy(pl, b, a, CUFFT_COPY_DEVICE_TO_DEVICE), CUFFT_SUCCESS);
    if (b->subFormat != CUFFT_XT_FORMAT_INPLACE || fabs(((float *)b->descriptor->data[1])[0] - want[2 * 4 * Y]) > 1e-3)
        bad("device-to-device copy: format %d, device 1 starts %g (expected %g)", b->subFormat,
            ((float *)b->descriptor->data[1])[0], want[2 * 4 * Y]);
    ST(cufftXtExecDescriptorC2C(pl, b, b, CUFFT_INVERSE), CUFFT_SUCCESS);
    ST(cufftXtMemcpy(pl, back, b, CUFFT_COPY_DEVICE_TO_HOST), CUFFT_SUCCESS);
    for (int i = 0; i < X * Y * 2; i++)
        got[i] = back[i] / (X * Y);
    close_d("round trip", got, in, X * Y * 2, 1e-4);
    /* bad input */
    ST(cufftXtExecDescriptorC2C(pl, a, b, 7), CUFFT_INVALID_VALUE);
    ST(cufftXtExecDescriptorZ2Z(pl, a, b, CUFFT_FORWARD), CUFFT_INVALID_VALUE); /* a single-precision plan */
    cudaLibXtDesc forged = *a;
    forged.version = 99;
    ST(cufftXtExecDescriptorC2C(pl, &forged, b, CUFFT_FORWARD), CUFFT_INVALID_VALUE);
    cudaXtDesc small = *a->descriptor;
    small.size[1] = 8;
    forged = *a;
    forged.descriptor = &small;
    ST(cufftXtMemcpy(pl, &forged, h, CUFFT_COPY_HOST_TO_DEVICE), CUFFT_INVALID_VALUE);
    small = *a->descriptor;
    small.data[1] = h; /* host memory is not a piece */
    ST(cufftXtMemcpy(pl, &forged, h, CUFFT_COPY_HOST_TO_DEVICE), CUFFT_INVALID_VALUE);
    ST(cufftXtMemcpy(pl, b, h, CUFFT_COPY_UNDEFINED), CUFFT_INVALID_VALUE);
    ST(cufftXtMalloc(pl, &a, (cufftXtSubFormat)CUFFT_XT_FORMAT_DISTRIBUTED_INPUT), CUFFT_INVALID_VALUE);
    ST(cufftXtFree(a), CUFFT_SUCCESS);
    ST(cufftXtFree(b), CUFFT_SUCCESS);
    ST(cufftDestroy(pl), CUFFT_SUCCESS);
    /* a plan on one device has no descriptors; one 1-D R2C over several is not taken */
    cufftHandle one, r2c;
    ST(cufftPlan1d(&one, 64, CUFFT_C2C, 1), CUFFT_SUCCESS);
    ST(cufftXtMalloc(one, &a, CUFFT_XT_FORMAT_INPLACE), CUFFT_INVALID_PLAN);
    ST(cufftDestroy(one), CUFFT_SUCCESS);
    ST(cufftCreate(&r2c), CUFFT_SUCCESS);
    ST(cufftXtSetGPUs(r2c, 2, gpus), CUFFT_SUCCESS);
    ST(cufftMakePlan1d(r2c, 64, CUFFT_R2C, 1, ws), CUFFT_SUCCESS);
    ST(cufftXtMalloc(r2c, &a, CUFFT_XT_FORMAT_INPLACE), CUFFT_NOT_SUPPORTED);
    ST(cufftDestroy(r2c), CUFFT_SUCCESS);
    end();
}

int main(void)
{
    setenv("TDTRACE_EMU_DEVICES", "2", 1); /* test_multi_gpu; read by the emulator's cuInit */
    test_settings();
    test_1d();
    test_nd();
    test_advanced();
    test_half();
    test_ordering();
    test_bad();
    test_multi_gpu();
    return summary("cufft");
}
