/* SPDX-License-Identifier: Apache-2.0 */
// Floating-point conversions and math, against the host:
//  - cvt to f16/bf16 from f64, f32 and 64-bit integers, every rounding
//    mode, rounded once (the host reference works on the exact integer
//    mantissa, not through f32), bit-exact;
//  - cvt to and from fp8 (e4m3x2/e5m2x2 .rn.satfinite), every f16 input
//    and every fp8 value, bit-exact;
//  - float-to-integer saturation and the ISA's NaN results;
//  - div/sqrt/rcp/fma .rn and directed in f32 and f64, bit-exact;
//  - libdevice's f64 sin/cos/exp/log/pow (and f32 sinf/cosf/expf/logf)
//    within the CUDA Programming Guide's ulp bounds (+1 for the host's own
//    error), large arguments included (Payne-Hanek reduction).
#include "common.h"
#include <cfenv>
#include <cmath>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <stdint.h>

enum { RN, RZ, RM, RP };

static uint64_t bits64(double x) { uint64_t u; memcpy(&u, &x, 8); return u; }
static double from64(uint64_t u) { double x; memcpy(&x, &u, 8); return x; }
static uint32_t bits32(float x) { uint32_t u; memcpy(&u, &x, 4); return u; }
static float from32(uint32_t u) { float x; memcpy(&x, &u, 4); return x; }

// The host reference: |value| = M * 2^k (M an integer of up to 64 bits)
// rounded once to a binary format with mbits fraction bits and exponent
// bias `bias`; returns the unsigned encoding (without sign), which may be
// at or past the format's infinity (the caller decides what overflow
// gives), or ~0u when the value is far too large.
static uint32_t ref_round(bool neg, uint64_t M, int k, int mode, int bias, int mbits)
{
    if (M == 0) return 0;
    int e = 63 - __builtin_clzll(M) + k, emin = 1 - bias, qmin = emin - mbits;
    if (e > bias + 2) return ~0u;
    int q = (e > emin ? e : emin) - mbits; // the quantum's exponent
    uint64_t R;
    int s = q - k;
    if (s <= 0) R = M << -s;
    else {
        uint64_t rem, half;
        if (s >= 64) R = 0, rem = M, half = s == 64 ? 1ull << 63 : 0;
        else R = M >> s, rem = M & ((1ull << s) - 1), half = 1ull << (s - 1);
        bool up;
        switch (mode) {
        case RN: up = s > 64 ? false : (rem > half || (rem == half && (R & 1))); break;
        case RZ: up = false; break;
        case RM: up = neg && rem; break;
        default: up = !neg && rem; break;
        }
        R += up;
    }
    return (uint32_t)(((uint64_t)(q - qmin) << mbits) + R);
}
static void decompose(double x, bool *neg, uint64_t *M, int *k)
{
    uint64_t u = bits64(x);
    *neg = u >> 63;
    int E = (int)(u >> 52) & 0x7ff;
    uint64_t F = u & ((1ull << 52) - 1);
    if (E == 0) *M = F, *k = -1074;
    else *M = F | (1ull << 52), *k = E - 1075;
}
// to f16 (bias 15, 10 bits) or bf16 (127, 7): IEEE overflow rules
static uint16_t ref_half(double x, int mode, bool bf)
{
    int bias = bf ? 127 : 15, mb = bf ? 7 : 10;
    uint32_t inf = bf ? 0x7f80 : 0x7c00;
    bool neg;
    uint64_t M;
    int k;
    decompose(x, &neg, &M, &k);
    uint16_t sign = neg ? 0x8000 : 0;
    if (std::isinf(x)) return sign | inf;
    uint32_t b = ref_round(neg, M, k, mode, bias, mb);
    if (b >= inf) {
        bool to_inf = mode == RN || (mode == RM && neg) || (mode == RP && !neg);
        return sign | (to_inf ? inf : inf - 1);
    }
    return sign | (uint16_t)b;
}
static uint16_t ref_half_int(int64_t v, int mode)
{
    bool neg = v < 0;
    uint64_t M = neg ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    uint32_t b = ref_round(neg, M, 0, mode, 15, 10);
    uint16_t sign = neg ? 0x8000 : 0;
    if (b >= 0x7c00) return sign | ((mode == RN || (mode == RM && neg) || (mode == RP && !neg)) ? 0x7c00 : 0x7bff);
    return sign | (uint16_t)b;
}
// fp8 .rn.satfinite: NaN 0x7f, beyond the largest finite: the largest finite
static uint8_t ref_fp8(double x, bool e5m2)
{
    if (x != x) return 0x7f;
    bool neg;
    uint64_t M;
    int k;
    decompose(x, &neg, &M, &k);
    uint8_t sign = neg ? 0x80 : 0, maxf = e5m2 ? 0x7b : 0x7e;
    if (std::isinf(x)) return sign | maxf;
    uint32_t b = ref_round(neg, M, k, RN, e5m2 ? 15 : 7, e5m2 ? 2 : 3);
    return sign | (uint8_t)(b > maxf ? maxf : b);
}
static double fp8_value(uint8_t v, bool e5m2)
{
    int s = v >> 7, mb = e5m2 ? 2 : 3, bias = e5m2 ? 15 : 7, e = (v & 0x7f) >> mb, m = v & ((1 << mb) - 1);
    double r;
    if (!e5m2 && e == 15 && m == 7) return NAN;
    if (e5m2 && e == 31) r = m ? NAN : INFINITY;
    else if (e == 0) r = ldexp(m, 1 - bias - mb);
    else r = ldexp((1 << mb) + m, e - bias - mb);
    return s ? -r : r;
}

// ---- conversions to f16 and bf16 -------------------------------------------
#define NX 4096
__global__ void to_half(const double *x, const long long *iv, uint16_t *o)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    double d = x[i];
    float f = (float)d;
    uint16_t *r = o + i * 16, h;
    r[0] = __half_as_ushort(__double2half(d)); // cvt.rn.f16.f64
    asm("cvt.rz.f16.f64 %0, %1;" : "=h"(h) : "d"(d)); r[1] = h;
    asm("cvt.rm.f16.f64 %0, %1;" : "=h"(h) : "d"(d)); r[2] = h;
    asm("cvt.rp.f16.f64 %0, %1;" : "=h"(h) : "d"(d)); r[3] = h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); r[4] = h;
    asm("cvt.rz.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); r[5] = h;
    asm("cvt.rm.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); r[6] = h;
    asm("cvt.rp.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); r[7] = h;
    asm("cvt.rn.bf16.f64 %0, %1;" : "=h"(h) : "d"(d)); r[8] = h;
    asm("cvt.rz.bf16.f64 %0, %1;" : "=h"(h) : "d"(d)); r[9] = h;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(f)); r[10] = h;
    asm("cvt.rz.bf16.f32 %0, %1;" : "=h"(h) : "f"(f)); r[11] = h;
    long long v = iv[i];
    asm("cvt.rn.f16.s64 %0, %1;" : "=h"(h) : "l"(v)); r[12] = h;
    asm("cvt.rz.f16.s64 %0, %1;" : "=h"(h) : "l"(v)); r[13] = h;
    asm("cvt.rp.f16.u64 %0, %1;" : "=h"(h) : "l"(v)); r[14] = h;
    asm("cvt.rn.satfinite.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); r[15] = h;
}

// ---- fp8 -----------------------------------------------------------------
__global__ void fp8(const float *xf, uint16_t *o)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x; // 0..65535: every f16 bit pattern (pairs i, i^0x8000)
    __half2_raw h2;
    h2.x = (unsigned short)i;
    h2.y = (unsigned short)(i ^ 0x8001);
    o[i] = __nv_cvt_halfraw2_to_fp8x2(h2, __NV_SATFINITE, __NV_E4M3);
    o[65536 + i] = __nv_cvt_halfraw2_to_fp8x2(h2, __NV_SATFINITE, __NV_E5M2);
    float2 f = make_float2(xf[i], xf[(i + 1) & 65535]);
    o[131072 + i] = __nv_cvt_float2_to_fp8x2(f, __NV_SATFINITE, __NV_E4M3);
    o[196608 + i] = __nv_cvt_float2_to_fp8x2(f, __NV_SATFINITE, __NV_E5M2);
    if (i < 65536) {
        __half2_raw back = __nv_cvt_fp8x2_to_halfraw2((__nv_fp8x2_storage_t)i, __NV_E4M3);
        o[262144 + 2 * i] = back.x, o[262145 + 2 * i] = back.y;
        back = __nv_cvt_fp8x2_to_halfraw2((__nv_fp8x2_storage_t)i, __NV_E5M2);
        o[393216 + 2 * i] = back.x, o[393217 + 2 * i] = back.y;
    }
}

// ---- float to integer --------------------------------------------------------
__global__ void to_int(const double *x, long long *o)
{
    int i = threadIdx.x;
    double d = x[i];
    float f = (float)d;
    long long *r = o + i * 8;
    int s;
    unsigned u;
    long long sl;
    unsigned long long ul;
    asm("cvt.rzi.s32.f32 %0, %1;" : "=r"(s) : "f"(f)); r[0] = s;
    asm("cvt.rni.u32.f32 %0, %1;" : "=r"(u) : "f"(f)); r[1] = u;
    asm("cvt.rmi.s32.f64 %0, %1;" : "=r"(s) : "d"(d)); r[2] = s;
    asm("cvt.rpi.u32.f64 %0, %1;" : "=r"(u) : "d"(d)); r[3] = u;
    asm("cvt.rzi.s64.f32 %0, %1;" : "=l"(sl) : "f"(f)); r[4] = sl;
    asm("cvt.rni.u64.f64 %0, %1;" : "=l"(ul) : "d"(d)); r[5] = (long long)ul;
    asm("cvt.rzi.s64.f64 %0, %1;" : "=l"(sl) : "d"(d)); r[6] = sl;
    short h;
    asm("cvt.rzi.s16.f32 %0, %1;" : "=h"(h) : "f"(f)); r[7] = h;
}
static int64_t ref_int(double x, int mode, int bits, bool sgn, bool from64)
{
    if (x != x) return (from64 || bits == 64) ? (int64_t)(1ull << (bits - 1)) : 0;
    double r = mode == RN ? nearbyint(x) : mode == RZ ? trunc(x) : mode == RM ? floor(x) : ceil(x);
    if (sgn) {
        double lo = -ldexp(1, bits - 1), hi = ldexp(1, bits - 1);
        if (r <= lo) return bits == 64 ? INT64_MIN : (int64_t)lo;
        if (r >= hi) return bits == 64 ? INT64_MAX : (int64_t)hi - 1;
        return (int64_t)r;
    }
    if (r <= 0) return 0;
    if (r >= ldexp(1, bits)) return bits == 64 ? -1 : (int64_t)((1ull << bits) - 1);
    return (int64_t)(uint64_t)r;
}

// ---- arithmetic with rounding --------------------------------------------------
__global__ void arith(const double *x, const double *y, const double *z, uint64_t *o)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    double a = x[i], b = y[i], c = z[i];
    float fa = (float)a, fb = (float)b, fc = (float)c;
    uint64_t *r = o + i * 16;
    r[0] = __double_as_longlong(a / b);
    r[1] = __double_as_longlong(sqrt(fabs(a)));
    r[2] = __double_as_longlong(fma(a, b, c));
    r[3] = __double_as_longlong(__drcp_rn(b));
    r[4] = __double_as_longlong(__ddiv_rz(a, b));
    r[5] = __double_as_longlong(__dsqrt_ru(fabs(a)));
    r[6] = __double_as_longlong(__fma_rd(a, b, c));
    r[7] = __double_as_longlong(__dadd_ru(a, c));
    r[8] = __float_as_uint(__fdiv_rn(fa, fb));
    r[9] = __float_as_uint(__fsqrt_rn(fabsf(fa)));
    r[10] = __float_as_uint(__fmaf_rn(fa, fb, fc));
    r[11] = __float_as_uint(__frcp_rn(fb));
    r[12] = __float_as_uint(__fdiv_rz(fa, fb));
    r[13] = __float_as_uint(__fsqrt_ru(fabsf(fa)));
    r[14] = __float_as_uint(__fmaf_rd(fa, fb, fc));
    r[15] = __float_as_uint(__fmul_ru(fa, fc));
}
static uint64_t bits64h(double x) { return bits64(x); }
static void host_arith(double a, double b, double c, uint64_t *r)
{
    volatile double va = a, vb = b, vc = c, t;
    volatile float fa = (float)a, fb = (float)b, fc = (float)c, f;
    t = va / vb; r[0] = bits64h(t);
    t = sqrt(fabs(va)); r[1] = bits64h(t);
    t = fma(va, vb, vc); r[2] = bits64h(t);
    t = 1.0 / vb; r[3] = bits64h(t);
    f = fa / fb; r[8] = bits32(f);
    f = sqrtf(fabsf(fa)); r[9] = bits32(f);
    f = fmaf(fa, fb, fc); r[10] = bits32(f);
    f = 1.0f / fb; r[11] = bits32(f);
    fesetround(FE_TOWARDZERO);
    t = va / vb; r[4] = bits64h(t);
    f = fa / fb; r[12] = bits32(f);
    fesetround(FE_UPWARD);
    t = sqrt(fabs(va)); r[5] = bits64h(t);
    t = va + vc; r[7] = bits64h(t);
    f = sqrtf(fabsf(fa)); r[13] = bits32(f);
    f = fa * fc; r[15] = bits32(f);
    fesetround(FE_DOWNWARD);
    t = fma(va, vb, vc); r[6] = bits64h(t);
    f = fmaf(fa, fb, fc); r[14] = bits32(f);
    fesetround(FE_TONEAREST);
}

// ---- libdevice -------------------------------------------------------------------
#define NM 2048
__global__ void math(const double *x, const double *y, double *o, float *of)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    double a = x[i], b = y[i];
    o[i * 5 + 0] = sin(a);
    o[i * 5 + 1] = cos(a);
    o[i * 5 + 2] = exp(b * 700);
    o[i * 5 + 3] = log(fabs(a));
    o[i * 5 + 4] = pow(fabs(b) * 3, a / 10);
    float f = (float)a;
    of[i * 4 + 0] = sinf(f);
    of[i * 4 + 1] = cosf(f);
    of[i * 4 + 2] = expf((float)b * 80);
    of[i * 4 + 3] = logf(fabsf(f));
}
static int64_t ulp_diff(double a, double b)
{
    if (a != a && b != b) return 0;
    if (a == b) return 0;
    int64_t x = (int64_t)bits64(a), y = (int64_t)bits64(b);
    if (x < 0) x = INT64_MIN - x;
    if (y < 0) y = INT64_MIN - y;
    int64_t d = x - y;
    return d < 0 ? -d : d;
}
static int64_t ulp_diff_f(float a, double exact)
{
    float b = (float)exact; // within half an ulp of the exact value
    if (a != a && b != b) return 0;
    if (a == b) return 0;
    int32_t x = (int32_t)bits32(a), y = (int32_t)bits32(b);
    if (x < 0) x = INT32_MIN - x;
    if (y < 0) y = INT32_MIN - y;
    int64_t d = (int64_t)x - y;
    return d < 0 ? -d : d;
}

static uint64_t lcg = 0x9e3779b97f4a7c15ull;
static uint64_t rnd64()
{
    lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
    uint64_t x = lcg;
    x ^= x >> 29;
    x *= 0xbf58476d1ce4e5b9ull;
    return x ^ (x >> 32);
}
// a double near the f16/bf16 range, often a midpoint between two halves +- a little
static double rnd_conv(int i)
{
    uint64_t r = rnd64();
    int e = (int)(r % 50) - 30; // 2^-30 .. 2^19
    double base = ldexp(1.0 + (double)(rnd64() >> 11) / 9007199254740992.0, e);
    switch (i % 4) {
    case 0: return (r >> 40) & 1 ? -base : base;
    case 1: { // a midpoint of two f16 neighbours, +- 2^-40 relative or exactly
        int q = (e > -14 ? e : -14) - 10;
        double m = ldexp(floor(ldexp(base, -q)) + 0.5, q);
        int w = (int)((r >> 20) % 3);
        m = w == 0 ? m : w == 1 ? m * (1 + ldexp(1, -40)) : m * (1 - ldexp(1, -40));
        return (r >> 40) & 1 ? -m : m;
    }
    case 2: { // the same for bf16
        int q = (e > -126 ? e : -126) - 7;
        double m = ldexp(floor(ldexp(base, -q)) + 0.5, q);
        int w = (int)((r >> 20) % 3);
        m = w == 0 ? m : w == 1 ? m * (1 + ldexp(1, -35)) : m * (1 - ldexp(1, -35));
        return (r >> 40) & 1 ? -m : m;
    }
    default: { // specials and edges
        static const double sp[] = {0.0, -0.0, 65504.0, 65519.99, 65520.0, 65536.0, 1e10, -1e10, INFINITY, -INFINITY,
                                    5.9604644775390625e-08, 2.9802322387695312e-08, 2.98023224e-08, 1e-300, 3.4e38, 3.5e38};
        return sp[(i / 4) % 16];
    }
    }
}

int main()
{
    static double hx[NX], hy[NX], hz[NX];
    static long long hiv[NX];
    static uint16_t h16[NX * 16];
    for (int i = 0; i < NX; i++) {
        hx[i] = rnd_conv(i);
        if (i == 0) hx[i] = from64(0x3FF0020000001000ull); // 1 + 2^-11 + 2^-40: 0x3c01, not 0x3c00 (via f32)
        uint64_t r = rnd64();
        int sh = (int)(r % 64);
        hiv[i] = (long long)(rnd64() >> sh) * ((r >> 8) & 1 ? -1 : 1);
        if (i < 4) hiv[i] = i == 0 ? 2049 : i == 1 ? 0x7fffffffffffffffll : i == 2 ? (1ll << 53) + 1 : 65520;
    }
    double *dx, *dy, *dz;
    long long *div;
    uint16_t *d16;
    if (!CK(cudaMalloc(&dx, sizeof hx)) || !CK(cudaMalloc(&dy, sizeof hy)) || !CK(cudaMalloc(&dz, sizeof hz)) ||
        !CK(cudaMalloc(&div, sizeof hiv)) || !CK(cudaMalloc(&d16, 1 << 20)))
        return finish("fpconv");
    CK(cudaMemcpy(dx, hx, sizeof hx, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(div, hiv, sizeof hiv, cudaMemcpyHostToDevice));
    to_half<<<NX / 128, 128>>>(dx, div, d16);
    if (LAUNCHED("to_half") && CK(cudaMemcpy(h16, d16, sizeof h16, cudaMemcpyDeviceToHost))) {
        static const char *names[16] = {"cvt.rn.f16.f64 (one rounding)", "cvt.rz.f16.f64", "cvt.rm.f16.f64",
                                        "cvt.rp.f16.f64", "cvt.rn.f16.f32", "cvt.rz.f16.f32", "cvt.rm.f16.f32",
                                        "cvt.rp.f16.f32", "cvt.rn.bf16.f64", "cvt.rz.bf16.f64", "cvt.rn.bf16.f32",
                                        "cvt.rz.bf16.f32", "cvt.rn.f16.s64", "cvt.rz.f16.s64", "cvt.rp.f16.u64",
                                        "cvt.rn.satfinite.f16.f32"};
        for (int k = 0; k < 16; k++) {
            int bad = -1;
            uint16_t want = 0;
            for (int i = 0; i < NX && bad < 0; i++) {
                double x = k >= 4 && k != 8 && k != 9 ? (double)(float)hx[i] : hx[i];
                switch (k) {
                case 0: case 4: want = ref_half(x, RN, false); break;
                case 1: case 5: want = ref_half(x, RZ, false); break;
                case 2: case 6: want = ref_half(x, RM, false); break;
                case 3: case 7: want = ref_half(x, RP, false); break;
                case 8: case 10: want = ref_half(x, RN, true); break;
                case 9: case 11: want = ref_half(x, RZ, true); break;
                case 12: want = ref_half_int(hiv[i], RN); break;
                case 13: want = ref_half_int(hiv[i], RZ); break;
                case 14: { // unsigned: the bits as u64
                    uint64_t u = (uint64_t)hiv[i];
                    uint32_t b = ref_round(false, u, 0, RP, 15, 10);
                    want = b >= 0x7c00 ? 0x7c00 : (uint16_t)b;
                    break;
                }
                default: want = ref_half(x, RN, false); if ((want & 0x7fff) == 0x7c00) want -= 1; break;
                }
                if (h16[i * 16 + k] != want) bad = i;
            }
            check(bad < 0, names[k], "input %d (%a / %lld): 0x%04x, want 0x%04x", bad, bad < 0 ? 0 : hx[bad],
                  bad < 0 ? 0 : hiv[bad], bad < 0 ? 0 : h16[bad * 16 + k], want);
        }
        check(h16[0] == 0x3c01, "1 + 2^-11 + 2^-40 to f16 is 0x3c01", "0x%04x", h16[0]);
    }

    // fp8: every f16 input, random floats, every fp8 value back to f16
    static float hf[65536];
    for (int i = 0; i < 65536; i++) {
        int e = (int)(rnd64() % 40) - 22;
        hf[i] = (float)ldexp((rnd64() & 1 ? -1.0 : 1.0) * (1 + (double)(rnd64() >> 40) / 16777216.0), e);
        if (i % 64 == 0) hf[i] = from32(0x7fc00000u), hf[i + 1] = INFINITY, hf[i + 2] = -1e30f, hf[i + 3] = 448.0f,
                        hf[i + 4] = 464.0f, hf[i + 5] = 57344.0f, hf[i + 6] = 61440.0f, hf[i + 7] = 0.0009765625f;
    }
    float *df;
    uint16_t *d8;
    static uint16_t h8[524288];
    if (CK(cudaMalloc(&df, sizeof hf)) && CK(cudaMalloc(&d8, sizeof h8)) &&
        CK(cudaMemcpy(df, hf, sizeof hf, cudaMemcpyHostToDevice))) {
        fp8<<<256, 256>>>(df, d8);
        if (LAUNCHED("fp8") && CK(cudaMemcpy(h8, d8, sizeof h8, cudaMemcpyDeviceToHost))) {
            for (int e5 = 0; e5 < 2; e5++) {
                int bad = -1;
                uint16_t want = 0;
                for (int i = 0; i < 65536 && bad < 0; i++) {
                    __half_raw lo, hi;
                    lo.x = (unsigned short)i, hi.x = (unsigned short)(i ^ 0x8001);
                    double xl = __half2float(__half(lo)), xh = __half2float(__half(hi));
                    want = (uint16_t)(ref_fp8(xh, e5) << 8 | ref_fp8(xl, e5));
                    if (h8[e5 * 65536 + i] != want) bad = i;
                }
                check(bad < 0, e5 ? "cvt.rn.satfinite.e5m2x2.f16x2 (every f16)" : "cvt.rn.satfinite.e4m3x2.f16x2 (every f16)",
                      "input 0x%04x: 0x%04x, want 0x%04x", bad, bad < 0 ? 0 : h8[e5 * 65536 + bad], want);
                bad = -1;
                for (int i = 0; i < 65536 && bad < 0; i++) {
                    // __nv_cvt_float2_to_fp8x2: .x in the low byte (cvt's operand b)
                    want = (uint16_t)(ref_fp8(hf[(i + 1) & 65535], e5) << 8 | ref_fp8(hf[i], e5));
                    if (h8[131072 + e5 * 65536 + i] != want) bad = i;
                }
                check(bad < 0, e5 ? "cvt.rn.satfinite.e5m2x2.f32" : "cvt.rn.satfinite.e4m3x2.f32",
                      "input %d (%a, %a): 0x%04x, want 0x%04x", bad, bad < 0 ? 0 : hf[bad], bad < 0 ? 0 : hf[(bad + 1) & 65535],
                      bad < 0 ? 0 : h8[131072 + e5 * 65536 + bad], want);
                bad = -1;
                for (int i = 0; i < 65536 && bad < 0; i++)
                    for (int h = 0; h < 2; h++) {
                        double v = fp8_value((uint8_t)(i >> (8 * h)), e5);
                        uint16_t got = h8[262144 + e5 * 131072 + 2 * i + h];
                        want = v != v ? 0x7fff : ref_half(v, RN, false);
                        if (got != want) bad = i;
                    }
                check(bad < 0, e5 ? "cvt.rn.f16x2.e5m2x2 (every value)" : "cvt.rn.f16x2.e4m3x2 (every value)",
                      "input 0x%04x", bad);
            }
        }
    }

    // float to integer: saturation, NaN
    static const double iv[32] = {NAN, -NAN, INFINITY, -INFINITY, 1e10, -1e10, 4294967295.5, 4294967296.0, -0.5, 0.5,
                                  1.5, 2.5, -2.5, -1.5, 3e9, -3e9, 2147483647.5, -2147483648.5, 9.3e18, -9.3e18,
                                  1.9e19, 32767.5, -32768.7, 40000, -40000, 0.49999999999999994, 1e-300, -0.0,
                                  123456.789, -98765.4321, 2147483520.0, 18446744073709549568.0};
    double *dv;
    long long *di, hi[32 * 8];
    if (CK(cudaMalloc(&dv, sizeof iv)) && CK(cudaMalloc(&di, sizeof hi)) &&
        CK(cudaMemcpy(dv, iv, sizeof iv, cudaMemcpyHostToDevice))) {
        to_int<<<1, 32>>>(dv, di);
        if (LAUNCHED("to_int") && CK(cudaMemcpy(hi, di, sizeof hi, cudaMemcpyDeviceToHost))) {
            int bad = -1, bk = 0;
            long long want = 0;
            for (int i = 0; i < 32 && bad < 0; i++) {
                double f = (double)(float)iv[i];
                long long w[8] = {ref_int(f, RZ, 32, true, false), ref_int(f, RN, 32, false, false),
                                  ref_int(iv[i], RM, 32, true, true), ref_int(iv[i], RP, 32, false, true),
                                  ref_int(f, RZ, 64, true, false), ref_int(iv[i], RN, 64, false, true),
                                  ref_int(iv[i], RZ, 64, true, true), ref_int(f, RZ, 16, true, false)};
                w[0] = (int32_t)w[0], w[1] = (long long)(uint32_t)w[1], w[2] = (int32_t)w[2];
                w[3] = (long long)(uint32_t)w[3], w[7] = (int16_t)w[7];
                for (int k = 0; k < 8 && bad < 0; k++)
                    if (hi[i * 8 + k] != w[k]) bad = i, bk = k, want = w[k];
            }
            check(bad < 0, "cvt float to integer: saturation and NaN", "input %d (%g) form %d: %lld, want %lld", bad,
                  bad < 0 ? 0 : iv[bad], bk, bad < 0 ? 0 : hi[bad * 8 + bk], want);
        }
    }

    // rounding arithmetic
    for (int i = 0; i < NX; i++) {
        hx[i] = ldexp((double)(rnd64() >> 11), (int)(rnd64() % 80) - 90) * (rnd64() & 1 ? -1 : 1);
        hy[i] = ldexp((double)(rnd64() >> 11), (int)(rnd64() % 80) - 90) * (rnd64() & 1 ? -1 : 1);
        hz[i] = ldexp((double)(rnd64() >> 11), (int)(rnd64() % 80) - 90) * (rnd64() & 1 ? -1 : 1);
        if (i % 16 == 0) hz[i] = -hx[i] * hy[i]; // cancellation in fma
    }
    uint64_t *dr;
    static uint64_t hr[NX * 16], wr[16];
    if (CK(cudaMemcpy(dx, hx, sizeof hx, cudaMemcpyHostToDevice)) && CK(cudaMemcpy(dy, hy, sizeof hy, cudaMemcpyHostToDevice)) &&
        CK(cudaMemcpy(dz, hz, sizeof hz, cudaMemcpyHostToDevice)) && CK(cudaMalloc(&dr, sizeof hr))) {
        arith<<<NX / 128, 128>>>(dx, dy, dz, dr);
        if (LAUNCHED("arith") && CK(cudaMemcpy(hr, dr, sizeof hr, cudaMemcpyDeviceToHost))) {
            static const char *names[16] = {"div.rn.f64", "sqrt.rn.f64", "fma.rn.f64", "rcp.rn.f64", "div.rz.f64",
                                            "sqrt.rp.f64", "fma.rm.f64", "add.rp.f64", "div.rn.f32", "sqrt.rn.f32",
                                            "fma.rn.f32", "rcp.rn.f32", "div.rz.f32", "sqrt.rp.f32", "fma.rm.f32",
                                            "mul.rp.f32"};
            int bad[16];
            uint64_t bw[16] = {0};
            for (int k = 0; k < 16; k++) bad[k] = -1;
            for (int i = 0; i < NX; i++) {
                host_arith(hx[i], hy[i], hz[i], wr);
                for (int k = 0; k < 16; k++)
                    if (bad[k] < 0 && hr[i * 16 + k] != wr[k]) bad[k] = i, bw[k] = wr[k];
            }
            for (int k = 0; k < 16; k++)
                check(bad[k] < 0, names[k], "input %d (%a %a %a): 0x%llx, want 0x%llx", bad[k], bad[k] < 0 ? 0 : hx[bad[k]],
                      bad[k] < 0 ? 0 : hy[bad[k]], bad[k] < 0 ? 0 : hz[bad[k]],
                      bad[k] < 0 ? 0ull : (unsigned long long)hr[bad[k] * 16 + k], (unsigned long long)bw[k]);
        }
    }

    // libdevice
    for (int i = 0; i < NM; i++) {
        hx[i] = (rnd64() % 2001 - 1000) / 37.0 + ldexp((double)(rnd64() >> 11), -60);
        hy[i] = (double)(rnd64() >> 11) / 9007199254740992.0 * 2 - 1;
        if (i % 64 == 1) hx[i] = 1e22;
        if (i % 64 == 2) hx[i] = -1e300;
        if (i % 64 == 3) hx[i] = 6381956970095103.0 * 0x1p797; // a hard case for sin
        if (i % 64 == 4) hx[i] = 1e-310, hy[i] = 0;
        if (i % 64 == 5) hx[i] = 1e6 + 0.123;
        if (i % 64 == 6) hy[i] = -1.0646; // exp(-745.2): subnormal
    }
    double *dm;
    float *dmf;
    static double hm[NM * 5];
    static float hmf[NM * 4];
    if (CK(cudaMemcpy(dx, hx, sizeof hx, cudaMemcpyHostToDevice)) && CK(cudaMemcpy(dy, hy, sizeof hy, cudaMemcpyHostToDevice)) &&
        CK(cudaMalloc(&dm, sizeof hm)) && CK(cudaMalloc(&dmf, sizeof hmf))) {
        math<<<NM / 128, 128>>>(dx, dy, dm, dmf);
        if (LAUNCHED("math") && CK(cudaMemcpy(hm, dm, sizeof hm, cudaMemcpyDeviceToHost)) &&
            CK(cudaMemcpy(hmf, dmf, sizeof hmf, cudaMemcpyDeviceToHost))) {
            // the CUDA Programming Guide's maximum ulp errors, +1 for the host's
            static const char *names[5] = {"sin (f64)", "cos (f64)", "exp (f64)", "log (f64)", "pow (f64)"};
            static const int bound[5] = {2 + 1, 2 + 1, 1 + 1, 1 + 1, 2 + 1};
            for (int k = 0; k < 5; k++) {
                int bad = -1;
                int64_t worst = 0;
                double want = 0;
                for (int i = 0; i < NM; i++) {
                    double a = hx[i], b = hy[i];
                    double w = k == 0 ? sin(a) : k == 1 ? cos(a) : k == 2 ? exp(b * 700) : k == 3 ? log(fabs(a))
                                                                                           : pow(fabs(b) * 3, a / 10);
                    // the host's cos is 8 ulp off here; the exact value, from 3000-bit arithmetic
                    if (i % 64 == 3 && k == 1) w = -0x1.14ae72e6ba22fp-61;
                    int64_t d = ulp_diff(hm[i * 5 + k], w);
                    if (d > worst) worst = d;
                    if (d > bound[k] && bad < 0) bad = i, want = w;
                }
                check(bad < 0, names[k], "input %d (%a, %a): %a, host %a (worst %lld ulp)", bad, bad < 0 ? 0 : hx[bad],
                      bad < 0 ? 0 : hy[bad], bad < 0 ? 0 : hm[bad * 5 + k], want, (long long)worst);
            }
            static const char *fnames[4] = {"sinf", "cosf", "expf", "logf"};
            static const int fbound[4] = {2 + 1, 2 + 1, 2 + 1, 1 + 1};
            for (int k = 0; k < 4; k++) {
                int bad = -1;
                for (int i = 0; i < NM && bad < 0; i++) {
                    double a = (float)hx[i], b = (float)hy[i] * 80.0f;
                    if (fabs(a) > 1e5 && k < 2) continue; // the guide's bound is for |x| < 105615 only
                    double w = k == 0 ? sin(a) : k == 1 ? cos(a) : k == 2 ? exp((float)b) : log(fabs(a));
                    if (ulp_diff_f(hmf[i * 4 + k], w) > fbound[k]) bad = i;
                }
                check(bad < 0, fnames[k], "input %d (%a): %a", bad, bad < 0 ? 0 : hx[bad], bad < 0 ? 0.f : hmf[bad * 4 + k]);
            }
        }
    }
    return finish("fpconv");
}
