/* SPDX-License-Identifier: Apache-2.0 */
// Tensor-core instructions: wmma (f16, bf16, tf32, s8, f64) and mma.sync
// (f16, bf16, tf32, s8, s4, b1, f64, fp8 and the m8n8k4 quad-pair form) with
// ldmatrix and movmatrix, checked against host products. Inputs are small
// integers, so every partial sum is exact and the results bit-exact.
#include "common.h"
#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
using namespace nvcuda;

// ---- wmma ---------------------------------------------------------------------
template <typename T, int M, int N, int K, typename Acc>
__global__ void wmma_kernel(const T *a, const T *b, const Acc *c, Acc *d)
{
    wmma::fragment<wmma::matrix_a, M, N, K, T, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, M, N, K, T, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, M, N, K, Acc> fc;
    wmma::load_matrix_sync(fa, a, K);
    wmma::load_matrix_sync(fb, b, K);
    wmma::load_matrix_sync(fc, c, N, wmma::mem_row_major);
    wmma::mma_sync(fc, fa, fb, fc);
    for (int i = 0; i < fc.num_elements; i++) fc.x[i] = fc.x[i] * (Acc)2; // element-wise on a fragment
    wmma::store_matrix_sync(d, fc, M, wmma::mem_col_major);
}

__global__ void wmma_tf32(const float *a, const float *b, const float *c, float *d)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> fc;
    wmma::load_matrix_sync(fa, a, 8);
    wmma::load_matrix_sync(fb, b, 8);
    for (int i = 0; i < fa.num_elements; i++) fa.x[i] = wmma::__float_to_tf32(fa.x[i]);
    for (int i = 0; i < fb.num_elements; i++) fb.x[i] = wmma::__float_to_tf32(fb.x[i]);
    wmma::load_matrix_sync(fc, c, 16, wmma::mem_row_major);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(d, fc, 16, wmma::mem_row_major);
}

// A row-major M x K, B column-major (element (k, n) at n * K + k), C row-major
template <typename T, typename Acc>
static void host_mma(int M, int N, int K, const T *a, const T *b, const Acc *c, double *out, double scale)
{
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double s = (double)c[i * N + j];
            for (int k = 0; k < K; k++) s += (double)(float)a[i * K + k] * (double)(float)b[j * K + k];
            out[i * N + j] = s * scale;
        }
}

template <typename T, typename Acc, int M, int N, int K>
static void run_wmma(const char *name, T (*make)(int))
{
    T ha[M * K], hb[K * N];
    Acc hc[M * N], hd[M * N];
    for (int i = 0; i < M * K; i++) ha[i] = make((i * 7) % 9 - 4);
    for (int i = 0; i < K * N; i++) hb[i] = make((i * 5) % 7 - 3);
    for (int i = 0; i < M * N; i++) hc[i] = (Acc)(i % 11 - 5);
    T *a, *b;
    Acc *c, *d;
    CK(cudaMalloc(&a, sizeof ha)); CK(cudaMalloc(&b, sizeof hb)); CK(cudaMalloc(&c, sizeof hc)); CK(cudaMalloc(&d, sizeof hd));
    CK(cudaMemcpy(a, ha, sizeof ha, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(b, hb, sizeof hb, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(c, hc, sizeof hc, cudaMemcpyHostToDevice));
    wmma_kernel<T, M, N, K, Acc><<<1, 32>>>(a, b, c, d);
    if (LAUNCHED(name) && CK(cudaMemcpy(hd, d, sizeof hd, cudaMemcpyDeviceToHost))) {
        double want[M * N];
        host_mma(M, N, K, ha, hb, hc, want, 2.0);
        int bad = -1;
        for (int i = 0; i < M && bad < 0; i++)
            for (int j = 0; j < N; j++)
                if ((double)hd[j * M + i] != want[i * N + j]) { bad = i * N + j; break; }
        check(bad < 0, name, "element %d: %g, want %g", bad, bad < 0 ? 0.0 : (double)hd[(bad % N) * M + bad / N], bad < 0 ? 0.0 : want[bad]);
    }
    cudaFree(a); cudaFree(b); cudaFree(c); cudaFree(d);
}

static __half mk_half(int v) { return __float2half((float)v); }
static __nv_bfloat16 mk_bf16(int v) { return __float2bfloat16((float)v); }
static signed char mk_s8(int v) { return (signed char)v; }
static double mk_f64(int v) { return v; }

// ---- mma.sync through ldmatrix: m16n8k16 f16, A and B from shared memory ------
__global__ void mma_f16(const __half *a, const __half *b, const float *c, float *d)
{
    __shared__ __align__(16) __half sa[16 * 16], sb[8 * 16]; // A row-major 16x16, B as [n][k]
    int t = threadIdx.x;
    for (int i = t; i < 256; i += 32) sa[i] = a[i];
    for (int i = t; i < 128; i += 32) sb[i] = b[i];
    __syncwarp();
    unsigned ra[4], rb[2];
    // x4: matrices (rows 0-7, k 0-7), (rows 8-15, k 0-7), (rows 0-7, k 8-15), (rows 8-15, k 8-15)
    unsigned pa = (unsigned)__cvta_generic_to_shared(&sa[(t % 16) * 16 + (t / 16) * 8]);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(ra[0]), "=r"(ra[1]), "=r"(ra[2]), "=r"(ra[3]) : "r"(pa));
    unsigned pb = (unsigned)__cvta_generic_to_shared(&sb[(t % 8) * 16 + ((t / 8) % 2) * 8]);
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];" : "=r"(rb[0]), "=r"(rb[1]) : "r"(pb));
    int g = t / 4, q = t % 4;
    float cc[4] = { c[g * 8 + q * 2], c[g * 8 + q * 2 + 1], c[(g + 8) * 8 + q * 2], c[(g + 8) * 8 + q * 2 + 1] }, dd[4];
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                 : "=f"(dd[0]), "=f"(dd[1]), "=f"(dd[2]), "=f"(dd[3])
                 : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]),
                   "f"(cc[0]), "f"(cc[1]), "f"(cc[2]), "f"(cc[3]));
    d[g * 8 + q * 2] = dd[0]; d[g * 8 + q * 2 + 1] = dd[1]; d[(g + 8) * 8 + q * 2] = dd[2]; d[(g + 8) * 8 + q * 2 + 1] = dd[3];
}

// mma.m16n8k32 s8 with .satfinite, fragments built by hand from the layout
__global__ void mma_s8(const signed char *a, const signed char *b, const int *c, int *d)
{
    int t = threadIdx.x, g = t / 4, q = t % 4;
    unsigned ra[4], rb[2];
    for (int r = 0; r < 4; r++) { // a_i: row g (+8 for registers 1, 3), col q*4 + (i&3) (+16 for registers 2, 3)
        int row = g + (r % 2) * 8, col = q * 4 + (r / 2) * 16;
        ra[r] = 0;
        for (int e = 0; e < 4; e++) ra[r] |= (unsigned)(unsigned char)a[row * 32 + col + e] << (8 * e);
    }
    for (int r = 0; r < 2; r++) { // b_i: row q*4 + (i&3) (+16 for register 1), col g
        int row = q * 4 + r * 16;
        rb[r] = 0;
        for (int e = 0; e < 4; e++) rb[r] |= (unsigned)(unsigned char)b[g * 32 + row + e] << (8 * e);
    }
    int cc[4] = { c[g * 8 + q * 2], c[g * 8 + q * 2 + 1], c[(g + 8) * 8 + q * 2], c[(g + 8) * 8 + q * 2 + 1] }, dd[4];
    asm volatile("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                 : "=r"(dd[0]), "=r"(dd[1]), "=r"(dd[2]), "=r"(dd[3])
                 : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]),
                   "r"(cc[0]), "r"(cc[1]), "r"(cc[2]), "r"(cc[3]));
    d[g * 8 + q * 2] = dd[0]; d[g * 8 + q * 2 + 1] = dd[1]; d[(g + 8) * 8 + q * 2] = dd[2]; d[(g + 8) * 8 + q * 2 + 1] = dd[3];
}

// mma.m16n8k8 tf32: a0 (g, q), a1 (g+8, q), a2 (g, q+4), a3 (g+8, q+4); b0 (q, g), b1 (q+4, g)
__global__ void mma_tf32(const float *a, const float *b, const float *c, float *d)
{
    int t = threadIdx.x, g = t / 4, q = t % 4;
    unsigned ra[4], rb[2];
    float fa[4] = { a[g * 8 + q], a[(g + 8) * 8 + q], a[g * 8 + q + 4], a[(g + 8) * 8 + q + 4] };
    for (int i = 0; i < 4; i++) asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(ra[i]) : "f"(fa[i]));
    float fb[2] = { b[g * 8 + q], b[g * 8 + q + 4] };
    for (int i = 0; i < 2; i++) asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(rb[i]) : "f"(fb[i]));
    float cc[4] = { c[g * 8 + q * 2], c[g * 8 + q * 2 + 1], c[(g + 8) * 8 + q * 2], c[(g + 8) * 8 + q * 2 + 1] }, dd[4];
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                 : "=f"(dd[0]), "=f"(dd[1]), "=f"(dd[2]), "=f"(dd[3])
                 : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]),
                   "f"(cc[0]), "f"(cc[1]), "f"(cc[2]), "f"(cc[3]));
    d[g * 8 + q * 2] = dd[0]; d[g * 8 + q * 2 + 1] = dd[1]; d[(g + 8) * 8 + q * 2] = dd[2]; d[(g + 8) * 8 + q * 2 + 1] = dd[3];
}

// mma.m8n8k4 f64: a0 (g, q), b0 (q, g), c0,1 (g, 2q + i)
__global__ void mma_f64(const double *a, const double *b, const double *c, double *d)
{
    int t = threadIdx.x, g = t / 4, q = t % 4;
    double d0, d1;
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%4,%5};"
                 : "=d"(d0), "=d"(d1) : "d"(a[g * 4 + q]), "d"(b[g * 4 + q]), "d"(c[g * 8 + q * 2]), "d"(c[g * 8 + q * 2 + 1]));
    d[g * 8 + q * 2] = d0;
    d[g * 8 + q * 2 + 1] = d1;
}

// mma.m8n8k4 f16 with f32 accumulators: four products, by quad pairs
__global__ void mma_884(const __half *a, const __half *b, const float *c, float *d)
{
    int l = threadIdx.x, qp = (l >> 2) & 3, hi = l >= 16;
    // A row-major: row (l%4) + 4hi, col i; B col-major: row i, col (l%4) + 4hi; per product qp
    const __half *A = a + qp * 32, *B = b + qp * 32;
    unsigned ra[2], rb[2];
    for (int r = 0; r < 2; r++) {
        __half lo = A[((l % 4) + 4 * hi) * 4 + 2 * r], h = A[((l % 4) + 4 * hi) * 4 + 2 * r + 1];
        ra[r] = (unsigned)__half_as_ushort(lo) | (unsigned)__half_as_ushort(h) << 16;
        __half blo = B[((l % 4) + 4 * hi) * 4 + 2 * r], bhi = B[((l % 4) + 4 * hi) * 4 + 2 * r + 1]; // B stored [n][k]
        rb[r] = (unsigned)__half_as_ushort(blo) | (unsigned)__half_as_ushort(bhi) << 16;
    }
    float cc[8], dd[8];
    for (int i = 0; i < 8; i++) {
        int row = (l & 1) + (i & 2) + 4 * hi, col = (i & 4) + (l & 2) + (i & 1);
        cc[i] = c[qp * 64 + row * 8 + col];
    }
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9}, {%10,%11}, "
                 "{%12,%13,%14,%15,%16,%17,%18,%19};"
                 : "=f"(dd[0]), "=f"(dd[1]), "=f"(dd[2]), "=f"(dd[3]), "=f"(dd[4]), "=f"(dd[5]), "=f"(dd[6]), "=f"(dd[7])
                 : "r"(ra[0]), "r"(ra[1]), "r"(rb[0]), "r"(rb[1]), "f"(cc[0]), "f"(cc[1]), "f"(cc[2]), "f"(cc[3]),
                   "f"(cc[4]), "f"(cc[5]), "f"(cc[6]), "f"(cc[7]));
    for (int i = 0; i < 8; i++) {
        int row = (l & 1) + (i & 2) + 4 * hi, col = (i & 4) + (l & 2) + (i & 1);
        d[qp * 64 + row * 8 + col] = dd[i];
    }
}

// movmatrix: the transpose of an 8x8 matrix of halves held as ldmatrix fragments
__global__ void movmat(const unsigned short *m, unsigned short *out)
{
    int t = threadIdx.x;
    unsigned a = (unsigned)m[(t / 4) * 8 + 2 * (t % 4)] | (unsigned)m[(t / 4) * 8 + 2 * (t % 4) + 1] << 16, d;
    asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(d) : "r"(a));
    out[(t / 4) * 8 + 2 * (t % 4)] = (unsigned short)d;
    out[(t / 4) * 8 + 2 * (t % 4) + 1] = (unsigned short)(d >> 16);
}

template <typename T> static T *dev(const T *h, size_t n)
{
    T *p = nullptr;
    CK(cudaMalloc(&p, n * sizeof *h));
    if (h) CK(cudaMemcpy(p, h, n * sizeof *h, cudaMemcpyHostToDevice));
    return p;
}
template <typename T> static void back(T *h, const T *d, size_t n) { CK(cudaMemcpy(h, d, n * sizeof *h, cudaMemcpyDeviceToHost)); }

int main()
{
    run_wmma<__half, float, 16, 16, 16>("wmma m16n16k16 f16 -> f32", mk_half);
    run_wmma<__half, float, 32, 8, 16>("wmma m32n8k16 f16 -> f32", mk_half);
    run_wmma<__half, float, 8, 32, 16>("wmma m8n32k16 f16 -> f32", mk_half);
    run_wmma<__nv_bfloat16, float, 16, 16, 16>("wmma m16n16k16 bf16 -> f32", mk_bf16);
    run_wmma<signed char, int, 16, 16, 16>("wmma m16n16k16 s8 -> s32", mk_s8);
    run_wmma<double, double, 8, 8, 4>("wmma m8n8k4 f64", mk_f64);
    { // tf32: the inputs need 14 bits, so cvt.rna.tf32 rounds them
        float ha[16 * 8], hb[8 * 16], hc[256], hd[256];
        for (int i = 0; i < 128; i++) { ha[i] = 1.0f + (float)(i % 5) / 4096.0f * 8; hb[i] = (float)(i % 3); }
        for (int i = 0; i < 256; i++) hc[i] = (float)(i % 7);
        float *a = dev(ha, 128), *b = dev(hb, 128), *c = dev(hc, 256), *d = dev<float>(nullptr, 256);
        wmma_tf32<<<1, 32>>>(a, b, c, d);
        if (LAUNCHED("wmma m16n16k8 tf32")) {
            back(hd, d, 256);
            int bad = -1;
            for (int i = 0; i < 16 && bad < 0; i++)
                for (int j = 0; j < 16; j++) {
                    double s = hc[i * 16 + j];
                    for (int k = 0; k < 8; k++) { // round to nearest, ties away, at 10 fraction bits
                        float x = ha[i * 8 + k];
                        unsigned u;
                        memcpy(&u, &x, 4);
                        u = (u + 0x1000u) & ~0x1fffu;
                        memcpy(&x, &u, 4);
                        s += (double)x * hb[j * 8 + k];
                    }
                    if ((float)s != hd[i * 16 + j]) { bad = i * 16 + j; break; }
                }
            check(bad < 0, "wmma m16n16k8 tf32", "element %d", bad);
        }
    }
    { // mma m16n8k16 f16 with ldmatrix
        __half ha[256], hb[128];
        float hc[128], hd[128];
        for (int i = 0; i < 256; i++) ha[i] = __float2half((float)((i * 3) % 7 - 3));
        for (int i = 0; i < 128; i++) { hb[i] = __float2half((float)((i * 5) % 9 - 4)); hc[i] = (float)(i % 13); }
        __half *a = dev(ha, 256), *b = dev(hb, 128);
        float *c = dev(hc, 128), *d = dev<float>(nullptr, 128);
        mma_f16<<<1, 32>>>(a, b, c, d);
        if (LAUNCHED("mma m16n8k16 f16 (ldmatrix.x4, .x2)")) {
            back(hd, d, 128);
            int bad = -1;
            for (int i = 0; i < 16; i++)
                for (int j = 0; j < 8; j++) {
                    float s = hc[i * 8 + j];
                    for (int k = 0; k < 16; k++) s += __half2float(ha[i * 16 + k]) * __half2float(hb[j * 16 + k]);
                    if (s != hd[i * 8 + j] && bad < 0) bad = i * 8 + j;
                }
            check(bad < 0, "mma m16n8k16 f16 (ldmatrix.x4, .x2)", "element %d: %g", bad, bad < 0 ? 0.0 : hd[bad]);
        }
    }
    { // mma m16n8k32 s8 saturating
        signed char ha[16 * 32], hb[8 * 32];
        int hc[128], hd[128];
        for (int i = 0; i < 512; i++) ha[i] = (signed char)(i % 2 ? 127 : -128 + i % 5);
        for (int i = 0; i < 256; i++) hb[i] = (signed char)(i % 3 ? 127 : -100);
        for (int i = 0; i < 128; i++) hc[i] = i % 2 ? 2147000000 : -2147000000;
        signed char *a = dev(ha, 512), *b = dev(hb, 256);
        int *c = dev(hc, 128), *d = dev<int>(nullptr, 128);
        mma_s8<<<1, 32>>>(a, b, c, d);
        if (LAUNCHED("mma m16n8k32 s8 .satfinite")) {
            back(hd, d, 128);
            int bad = -1;
            for (int i = 0; i < 16; i++)
                for (int j = 0; j < 8; j++) {
                    long long s = hc[i * 8 + j];
                    for (int k = 0; k < 32; k++) s += (long long)ha[i * 32 + k] * hb[j * 32 + k];
                    if (s > 2147483647LL) s = 2147483647LL;
                    if (s < -2147483648LL) s = -2147483648LL;
                    if ((int)s != hd[i * 8 + j] && bad < 0) bad = i * 8 + j;
                }
            check(bad < 0, "mma m16n8k32 s8 .satfinite", "element %d: %d", bad, bad < 0 ? 0 : hd[bad]);
        }
    }
    { // mma m16n8k8 tf32 from cvt.rna.tf32.f32
        float ha[128], hb[64], hc[128], hd[128];
        for (int i = 0; i < 128; i++) { ha[i] = (float)(i % 9 - 4); hc[i] = (float)(i % 5); }
        for (int i = 0; i < 64; i++) hb[i] = (float)(i % 7 - 3);
        float *a = dev(ha, 128), *b = dev(hb, 64), *c = dev(hc, 128), *d = dev<float>(nullptr, 128);
        mma_tf32<<<1, 32>>>(a, b, c, d);
        if (LAUNCHED("mma m16n8k8 tf32")) {
            back(hd, d, 128);
            int bad = -1;
            for (int i = 0; i < 16; i++)
                for (int j = 0; j < 8; j++) {
                    float s = hc[i * 8 + j];
                    for (int k = 0; k < 8; k++) s += ha[i * 8 + k] * hb[j * 8 + k];
                    if (s != hd[i * 8 + j] && bad < 0) bad = i * 8 + j;
                }
            check(bad < 0, "mma m16n8k8 tf32", "element %d", bad);
        }
    }
    { // mma m8n8k4 f64
        double ha[32], hb[32], hc[64], hd[64];
        for (int i = 0; i < 32; i++) { ha[i] = 0.1 * (i % 7) - 0.3; hb[i] = 1.0 / (1 + i % 5); }
        for (int i = 0; i < 64; i++) hc[i] = 0.01 * i;
        double *a = dev(ha, 32), *b = dev(hb, 32), *c = dev(hc, 64), *d = dev<double>(nullptr, 64);
        mma_f64<<<1, 32>>>(a, b, c, d);
        if (LAUNCHED("mma m8n8k4 f64")) {
            back(hd, d, 64);
            int bad = -1;
            for (int i = 0; i < 8; i++)
                for (int j = 0; j < 8; j++) { // as a chain of fused multiply-adds in k order
                    double s = hc[i * 8 + j];
                    for (int k = 0; k < 4; k++) s = fma(ha[i * 4 + k], hb[j * 4 + k], s);
                    if (s != hd[i * 8 + j] && bad < 0) bad = i * 8 + j;
                }
            check(bad < 0, "mma m8n8k4 f64", "element %d", bad);
        }
    }
    { // mma m8n8k4 f16, four products
        __half ha[4 * 32], hb[4 * 32];
        float hc[4 * 64], hd[4 * 64];
        for (int i = 0; i < 128; i++) { ha[i] = __float2half((float)(i % 5 - 2)); hb[i] = __float2half((float)(i % 3)); }
        for (int i = 0; i < 256; i++) hc[i] = (float)(i % 10);
        __half *a = dev(ha, 128), *b = dev(hb, 128);
        float *c = dev(hc, 256), *d = dev<float>(nullptr, 256);
        mma_884<<<1, 32>>>(a, b, c, d);
        if (LAUNCHED("mma m8n8k4 f16 (quad pairs)")) {
            back(hd, d, 256);
            int bad = -1;
            for (int p = 0; p < 4; p++)
                for (int i = 0; i < 8; i++)
                    for (int j = 0; j < 8; j++) {
                        float s = hc[p * 64 + i * 8 + j];
                        for (int k = 0; k < 4; k++) s += __half2float(ha[p * 32 + i * 4 + k]) * __half2float(hb[p * 32 + j * 4 + k]);
                        if (s != hd[p * 64 + i * 8 + j] && bad < 0) bad = p * 64 + i * 8 + j;
                    }
            check(bad < 0, "mma m8n8k4 f16 (quad pairs)", "element %d", bad);
        }
    }
    { // movmatrix
        unsigned short hm[64], ho[64];
        for (int i = 0; i < 64; i++) hm[i] = (unsigned short)(1000 + i);
        unsigned short *m = dev(hm, 64), *o = dev<unsigned short>(nullptr, 64);
        movmat<<<1, 32>>>(m, o);
        if (LAUNCHED("movmatrix")) {
            back(ho, o, 64);
            int bad = -1;
            for (int i = 0; i < 8; i++)
                for (int j = 0; j < 8; j++)
                    if (ho[i * 8 + j] != hm[j * 8 + i] && bad < 0) bad = i * 8 + j;
            check(bad < 0, "movmatrix.trans", "element %d", bad);
        }
    }
    return finish("tensor");
}
