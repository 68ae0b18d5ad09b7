/* SPDX-License-Identifier: Apache-2.0 */
// Integer instructions, bit-exact against the host: carry chains
// (add.cc/addc/sub.cc/subc/mad.lo.cc/madc for 128-bit arithmetic), bfind,
// bmsk, dp4a/dp2a, bfe/bfi, prmt, funnel shifts, brev/popc/clz, mul.hi,
// mul24, sad, szext, fns, and 16-bit atomics (atom.cas.b16, atom.add.f16).
#include "common.h"
#include <cuda_fp16.h>
#include <stdint.h>

#define N 256
#define R 30 // results per input

__device__ __host__ static uint64_t mix(uint64_t x)
{
    x ^= x >> 31;
    x *= 0x7fb5d329728ea185ull;
    x ^= x >> 27;
    x *= 0x81dadef4bc2dd44dull;
    return x ^ (x >> 33);
}

// inputs with edge values mixed in
__device__ __host__ static uint32_t in32(int i, int k)
{
    static const uint32_t edge[] = {0, 1, 0xffffffffu, 0x80000000u, 0x7fffffffu, 0xffff, 0x10000, 31, 32, 33};
    if (i < 10 && k == 0) return edge[i];
    if (i >= 10 && i < 20 && k == 1) return edge[i - 10];
    return (uint32_t)mix((uint64_t)i * 8 + k);
}

__global__ void ops(uint32_t *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t a = in32(i, 0), b = in32(i, 1), c = in32(i, 2), d = in32(i, 3);
    uint32_t *o = out + i * R, r0, r1, r2, r3;
    // 128-bit add and subtract of (a,b,c,d) and (d,c,b,a), low word first
    asm("add.cc.u32 %0, %4, %8;\n\taddc.cc.u32 %1, %5, %9;\n\taddc.cc.u32 %2, %6, %10;\n\taddc.u32 %3, %7, %11;"
        : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(a), "r"(b), "r"(c), "r"(d), "r"(d), "r"(c), "r"(b), "r"(a));
    o[0] = r0, o[1] = r1, o[2] = r2, o[3] = r3;
    asm("sub.cc.u32 %0, %4, %8;\n\tsubc.cc.u32 %1, %5, %9;\n\tsubc.cc.u32 %2, %6, %10;\n\tsubc.u32 %3, %7, %11;"
        : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(a), "r"(b), "r"(c), "r"(d), "r"(d), "r"(c), "r"(b), "r"(a));
    o[4] = r0, o[5] = r1, o[6] = r2, o[7] = r3;
    // (b:a) * c as 96 bits with mad.lo.cc/madc.hi chains
    asm("mul.lo.u32 %0, %3, %5;\n\t"
        "mul.hi.u32 %1, %3, %5;\n\t"
        "mad.lo.cc.u32 %1, %4, %5, %1;\n\t"
        "madc.hi.u32 %2, %4, %5, 0;"
        : "=r"(r0), "=r"(r1), "=r"(r2) : "r"(a), "r"(b), "r"(c));
    o[8] = r0, o[9] = r1, o[10] = r2;
    asm("bfind.u32 %0, %1;" : "=r"(r0) : "r"(a));
    asm("bfind.s32 %0, %1;" : "=r"(r1) : "r"(b));
    asm("bfind.shiftamt.u32 %0, %1;" : "=r"(r2) : "r"(c & (i & 1 ? 0xffffffffu : 0)));
    o[11] = r0, o[12] = r1, o[13] = r2;
    asm("bmsk.clamp.b32 %0, %1, %2;" : "=r"(r0) : "r"(a & 63), "r"(b & 63));
    asm("bmsk.wrap.b32 %0, %1, %2;" : "=r"(r1) : "r"(a), "r"(b));
    o[14] = r0, o[15] = r1;
    o[16] = (uint32_t)__dp4a((int)a, (int)b, (int)c);
    o[17] = __dp4a(a, b, c);
    o[18] = (uint32_t)__dp2a_lo((int)a, (int)b, (int)c);
    o[19] = __dp2a_hi(a, b, c);
    o[20] = __byte_perm(a, b, c & 0xffff);
    o[21] = __funnelshift_l(a, b, c) ^ __funnelshift_rc(a, b, d);
    asm("bfe.s32 %0, %1, %2, %3;" : "=r"(r0) : "r"(a), "r"(b & 0xff), "r"(c & 0xff));
    asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(r1) : "r"(a), "r"(b), "r"(c & 0xff), "r"(d & 0xff));
    o[22] = r0 ^ (r1 * 3);
    asm("szext.clamp.s32 %0, %1, %2;" : "=r"(r0) : "r"(a), "r"(b & 63));
    asm("fns.b32 %0, %1, %2, %3;" : "=r"(r1) : "r"(a), "r"(b & 31), "r"((int)(c % 9) - 4));
    o[23] = r0 ^ (r1 << 7) ^ (uint32_t)__brev(a) ^ ((uint32_t)__popc(b) << 8) ^ ((uint32_t)__clz(c) << 16) ^
            __umulhi(a, b) ^ (uint32_t)__mul24((int)c, (int)d) ^ __usad(a, b, c);
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r0) : "r"(a), "r"(b), "r"(c)); // with sign replication
    o[24] = r0;
    asm("prmt.b32.f4e %0, %1, %2, %3;" : "=r"(r0) : "r"(a), "r"(b), "r"(c));
    asm("prmt.b32.b4e %0, %1, %2, %3;" : "=r"(r1) : "r"(a), "r"(b), "r"(d));
    asm("prmt.b32.ecl %0, %1, %2, %3;" : "=r"(r2) : "r"(a), "r"(b), "r"(c >> 2));
    asm("prmt.b32.rc16 %0, %1, %2, %3;" : "=r"(r3) : "r"(a), "r"(b), "r"(d >> 2));
    o[25] = r0 ^ (r1 * 3) ^ (r2 * 5) ^ (r3 * 7);
    asm("prmt.b32.rc8 %0, %1, %2, %3;" : "=r"(r0) : "r"(a), "r"(b), "r"(c >> 4));
    asm("prmt.b32.ecr %0, %1, %2, %3;" : "=r"(r1) : "r"(a), "r"(b), "r"(d >> 4));
    o[25] ^= (r0 * 11) ^ (r1 * 13);
    // video instructions
    o[26] = __vabsdiffu4(a, b);
    asm("vshr.u32.u32.u32.clamp.add %0, %1, %2, %3;" : "=r"(r0) : "r"(a), "r"(b & 63), "r"(c));
    o[27] = r0;
    asm("vadd.s32.s32.s32.sat %0, %1.h1, %2.b0;" : "=r"(r0) : "r"(a), "r"(b));
    asm("vsub.u32.s32.s32.sat %0.b2, %1.b1, %2.b3, %3;" : "=r"(r1) : "r"(a), "r"(b), "r"(c));
    o[28] = r0 ^ (r1 * 3);
    asm("vset4.u32.u32.gt.add %0, %1, %2, %3;" : "=r"(r0) : "r"(a), "r"(b), "r"(c));
    asm("vmax2.s32.s32.s32 %0, %1, %2, %3;" : "=r"(r1) : "r"(a), "r"(b), "r"(c));
    asm("vabsdiff4.u32.u32.u32.add %0, %1, %2, %3;" : "=r"(r2) : "r"(a), "r"(b), "r"(c)); // __vsadu4 + c
    o[29] = r0 ^ (r1 * 3) ^ (r2 * 5);
}

// host references
static uint32_t bfind_u(uint32_t a) { return a ? 31 - __builtin_clz(a) : 0xffffffffu; }
static uint32_t bfind_s(int32_t a) { return bfind_u(a < 0 ? ~(uint32_t)a : (uint32_t)a); }
static uint32_t bmsk(uint32_t a, uint32_t b, bool clamp) // the ISA's pseudo-code
{
    uint32_t a1 = a & 0x1f, b1 = b & 0x1f, sum = a1 + b1;
    uint32_t mask0 = ~0u << a1, mask1 = sum >= 32 ? 0 : ~0u << sum;
    bool pos_over = false, width_over = false;
    if (clamp) {
        if (a >= 32) pos_over = true, mask0 = 0;
        if (b >= 32) width_over = true;
    }
    if (sum >= 32 || pos_over || width_over) mask1 = 0;
    else if (b1 == 0) mask1 = ~0u;
    return mask0 & ~mask1;
}
static uint32_t dp4a(uint32_t a, uint32_t b, uint32_t c, bool sa, bool sb)
{
    uint32_t s = c;
    for (int k = 0; k < 4; k++) {
        int32_t x = sa ? (int8_t)(a >> 8 * k) : (uint8_t)(a >> 8 * k), y = sb ? (int8_t)(b >> 8 * k) : (uint8_t)(b >> 8 * k);
        s += (uint32_t)(x * y);
    }
    return s;
}
static uint32_t dp2a(uint32_t a, uint32_t b, uint32_t c, bool sgn, bool hi)
{
    uint32_t s = c;
    for (int k = 0; k < 2; k++) {
        int32_t x = sgn ? (int16_t)(a >> 16 * k) : (uint16_t)(a >> 16 * k);
        uint32_t bb = b >> (hi ? 16 : 0);
        int32_t y = sgn ? (int8_t)(bb >> 8 * k) : (uint8_t)(bb >> 8 * k);
        s += (uint32_t)(x * y);
    }
    return s;
}
static uint32_t prmt(uint32_t a, uint32_t b, uint32_t s)
{
    uint64_t v = ((uint64_t)b << 32) | a;
    uint32_t r = 0;
    for (int k = 0; k < 4; k++) r |= (uint32_t)((v >> 8 * ((s >> 4 * k) & 7)) & 0xff) << 8 * k;
    return r;
}
static const uint8_t prmt_modes[6][4][4] = { // f4e b4e rc8 ecl ecr rc16: d.b0..d.b3 sources
    {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}}, {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}},
    {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}}, {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}},
    {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}}, {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}}};
static uint32_t prmt_sign(uint32_t a, uint32_t b, uint32_t s)
{
    uint64_t v = ((uint64_t)b << 32) | a;
    uint32_t r = 0;
    for (int k = 0; k < 4; k++) {
        uint32_t n = (s >> 4 * k) & 0xf, byte = (uint32_t)(v >> 8 * (n & 7)) & 0xff;
        if (n & 8) byte = byte & 0x80 ? 0xff : 0;
        r |= byte << 8 * k;
    }
    return r;
}
static uint32_t prmt_mode(uint32_t a, uint32_t b, uint32_t c, int mode)
{
    uint64_t v = ((uint64_t)b << 32) | a;
    uint32_t r = 0;
    for (int k = 0; k < 4; k++) r |= (uint32_t)((v >> 8 * prmt_modes[mode][c & 3][k]) & 0xff) << 8 * k;
    return r;
}
static uint32_t bfe_s(uint32_t a, uint32_t pos, uint32_t len)
{
    if (len == 0) return 0;
    uint32_t msb = pos + len - 1 > 31 ? 31 : pos + len - 1;
    uint32_t sbit = (a >> msb) & 1, r = 0;
    for (uint32_t k = 0; k < len && k < 32; k++) r |= (pos + k <= 31 ? (a >> (pos + k)) & 1 : sbit) << k;
    for (uint32_t k = len; k < 32; k++) r |= sbit << k;
    return r;
}
static uint32_t bfi(uint32_t a, uint32_t b, uint32_t pos, uint32_t len)
{
    uint32_t f = b;
    for (uint32_t k = 0; k < len && pos + k <= 31; k++) f = (f & ~(1u << (pos + k))) | (((a >> k) & 1) << (pos + k));
    return f;
}
static uint32_t szext_clamp_s(uint32_t a, uint32_t b)
{
    if (b > 32) b = 32;
    if (b == 0) return 0;
    if (b == 32) return a;
    uint32_t m = (1u << b) - 1, v = a & m;
    return (v >> (b - 1)) & 1 ? v | ~m : v;
}
static uint32_t fns(uint32_t mask, uint32_t base, int off) // the ISA's pseudo-code
{
    if (off == 0) return (mask >> base) & 1 ? base : 0xffffffffu;
    int pos = (int)base, count = (off > 0 ? off : -off) - 1, inc = off > 0 ? 1 : -1;
    for (; pos >= 0 && pos < 32; pos += inc)
        if ((mask >> pos) & 1) {
            if (count == 0) return (uint32_t)pos;
            count--;
        }
    return 0xffffffffu;
}
static uint32_t brev(uint32_t a)
{
    uint32_t r = 0;
    for (int k = 0; k < 32; k++) r |= ((a >> k) & 1) << (31 - k);
    return r;
}
static uint32_t shl_funnel(uint32_t lo, uint32_t hi, uint32_t s)
{
    s &= 31;
    return s ? (hi << s) | (lo >> (32 - s)) : hi;
}
static uint32_t shr_funnel_clamp(uint32_t lo, uint32_t hi, uint32_t s)
{
    if (s > 32) s = 32;
    uint64_t v = ((uint64_t)hi << 32) | lo;
    return (uint32_t)(v >> s);
}

static void host_ops(int i, uint32_t *o)
{
    uint32_t a = in32(i, 0), b = in32(i, 1), c = in32(i, 2), d = in32(i, 3);
    unsigned __int128 x = ((unsigned __int128)(((uint64_t)d << 32) | c) << 64) | (((uint64_t)b << 32) | a);
    unsigned __int128 y = ((unsigned __int128)(((uint64_t)a << 32) | b) << 64) | (((uint64_t)c << 32) | d);
    unsigned __int128 s = x + y, t = x - y;
    for (int k = 0; k < 4; k++) o[k] = (uint32_t)(s >> 32 * k), o[4 + k] = (uint32_t)(t >> 32 * k);
    unsigned __int128 m = (unsigned __int128)(((uint64_t)b << 32) | a) * c;
    for (int k = 0; k < 3; k++) o[8 + k] = (uint32_t)(m >> 32 * k);
    o[11] = bfind_u(a);
    o[12] = bfind_s((int32_t)b);
    uint32_t cc = c & (i & 1 ? 0xffffffffu : 0);
    o[13] = cc ? 31 - bfind_u(cc) : 0xffffffffu;
    o[14] = bmsk(a & 63, b & 63, true);
    o[15] = bmsk(a, b, false);
    o[16] = dp4a(a, b, c, true, true);
    o[17] = dp4a(a, b, c, false, false);
    o[18] = dp2a(a, b, c, true, false);
    o[19] = dp2a(a, b, c, false, true);
    o[20] = prmt(a, b, c & 0xffff);
    o[21] = shl_funnel(a, b, c) ^ shr_funnel_clamp(a, b, d);
    o[22] = bfe_s(a, b & 0xff, c & 0xff) ^ (bfi(a, b, c & 0xff, d & 0xff) * 3);
    o[23] = szext_clamp_s(a, b & 63) ^ (fns(a, b & 31, (int)(c % 9) - 4) << 7) ^ brev(a) ^
            ((uint32_t)__builtin_popcount(b) << 8) ^ ((uint32_t)(c ? __builtin_clz(c) : 32) << 16) ^
            (uint32_t)(((uint64_t)a * b) >> 32) ^
            (uint32_t)((int64_t)((int32_t)(c << 8) >> 8) * (int64_t)((int32_t)(d << 8) >> 8)) ^
            ((a > b ? a - b : b - a) + c);
    o[24] = prmt_sign(a, b, c);
    uint32_t ad = 0, sad = c, gt = c, mx = 0;
    for (int k = 0; k < 4; k++) {
        int x = (a >> 8 * k) & 0xff, y = (b >> 8 * k) & 0xff;
        ad |= (uint32_t)(x > y ? x - y : y - x) << 8 * k;
        sad += (uint32_t)(x > y ? x - y : y - x);
        gt += x > y;
    }
    for (int k = 0; k < 2; k++) {
        int16_t x = (int16_t)(a >> 16 * k), y = (int16_t)(b >> 16 * k);
        mx |= (uint32_t)(uint16_t)(x > y ? x : y) << 16 * k;
    }
    o[26] = ad;
    o[27] = ((b & 63) >= 32 ? 0 : a >> (b & 63)) + c;
    int df = (int8_t)(a >> 8) - (int8_t)(b >> 24);
    df = df < 0 ? 0 : df > 255 ? 255 : df;
    o[28] = (uint32_t)((int16_t)(a >> 16) + (int8_t)b) ^ (((c & 0xff00ffffu) | (uint32_t)df << 16) * 3);
    o[29] = gt ^ (mx * 3) ^ (sad * 5);
    o[25] = prmt_mode(a, b, c, 0) ^ (prmt_mode(a, b, d, 1) * 3) ^ (prmt_mode(a, b, c >> 2, 3) * 5) ^
            (prmt_mode(a, b, d >> 2, 5) * 7) ^ (prmt_mode(a, b, c >> 4, 2) * 11) ^ (prmt_mode(a, b, d >> 4, 4) * 13);
}

// 16-bit atomics: CAS on unsigned short (a counter per halfword, so
// neighbours in one word race), and half-precision adds of exact values
__global__ void atomics16(unsigned short *cnt, __half *h)
{
    int t = threadIdx.x + blockIdx.x * blockDim.x;
    unsigned short *p = cnt + t % 8;
    unsigned short old = *p, seen;
    while ((seen = atomicCAS(p, old, (unsigned short)(old + 1))) != old) old = seen;
    atomicAdd(h + t % 4, __float2half(0.25f));
}

static const char *names[R] = {"add.cc/addc (128-bit add)", "", "", "", "sub.cc/subc (128-bit subtract)", "", "", "",
                               "mad.lo.cc/madc.hi (96-bit product)", "", "", "bfind.u32", "bfind.s32",
                               "bfind.shiftamt", "bmsk.clamp", "bmsk.wrap", "dp4a.s32.s32", "dp4a.u32.u32",
                               "dp2a.lo.s32.s32", "dp2a.hi.u32.u32", "prmt", "shf.l/shf.r.clamp", "bfe.s32/bfi",
                               "szext/fns/brev/popc/clz/mul.hi/mul24/sad",
                               "prmt with sign replication", "prmt.f4e/b4e/rc8/ecl/ecr/rc16",
                               "vabsdiff4 (__vabsdiffu4)", "vshr.clamp.add", "vadd.sat/vsub.sat with selectors and a merge",
                               "vset4.add, vmax2, vabsdiff4.add"};

int main()
{
    uint32_t *d;
    static uint32_t got[N * R], want[N * R];
    if (!CK(cudaMalloc(&d, sizeof got))) return finish("intops");
    ops<<<N / 64, 64>>>(d);
    if (LAUNCHED("ops") && CK(cudaMemcpy(got, d, sizeof got, cudaMemcpyDeviceToHost))) {
        for (int i = 0; i < N; i++) host_ops(i, want + i * R);
        for (int k = 0; k < R; k++) {
            if (!names[k][0]) continue;
            int span = 1;
            while (k + span < R && !names[k + span][0]) span++;
            int bad = -1, bk = 0;
            for (int i = 0; i < N && bad < 0; i++)
                for (int j = k; j < k + span; j++)
                    if (got[i * R + j] != want[i * R + j]) bad = i, bk = j;
            check(bad < 0, names[k], "input %d (a=0x%x b=0x%x c=0x%x d=0x%x) result %d: 0x%08x, want 0x%08x", bad,
                  bad < 0 ? 0 : in32(bad, 0), bad < 0 ? 0 : in32(bad, 1), bad < 0 ? 0 : in32(bad, 2),
                  bad < 0 ? 0 : in32(bad, 3), bk, bad < 0 ? 0 : got[bad * R + bk], bad < 0 ? 0 : want[bad * R + bk]);
        }
    }
    unsigned short *cnt;
    __half *h;
    if (CK(cudaMalloc(&cnt, 16)) && CK(cudaMalloc(&h, 8)) && CK(cudaMemset(cnt, 0, 16)) && CK(cudaMemset(h, 0, 8))) {
        atomics16<<<4, 128>>>(cnt, h);
        unsigned short c[8], hh[4];
        if (LAUNCHED("atomics16") && CK(cudaMemcpy(c, cnt, 16, cudaMemcpyDeviceToHost)) &&
            CK(cudaMemcpy(hh, h, 8, cudaMemcpyDeviceToHost))) {
            bool ok = true;
            for (int k = 0; k < 8; k++) ok &= c[k] == 64;
            check(ok, "atom.cas.b16: 512 increments over 8 halfwords", "%d %d %d %d %d %d %d %d", c[0], c[1], c[2],
                  c[3], c[4], c[5], c[6], c[7]);
            // 128 adds of 0.25 = 32.0 = 0x5000, exact in half
            check(hh[0] == 0x5000 && hh[1] == 0x5000 && hh[2] == 0x5000 && hh[3] == 0x5000, "atom.add.noftz.f16",
                  "%04x %04x %04x %04x", hh[0], hh[1], hh[2], hh[3]);
        }
    }
    return finish("intops");
}
