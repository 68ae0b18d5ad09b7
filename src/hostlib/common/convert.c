/* SPDX-License-Identifier: Apache-2.0 */
/* Reduced-precision floating-point types: IEEE binary16 (half), bfloat16
 * and TF32, converted with the rounding NVIDIA's hardware uses
 * (round to nearest even for half and bfloat16; to nearest, ties away,
 * for TF32 as cvt.rna.tf32.f32). */
#include "hostlib.h"

#include <string.h>

static uint32_t bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static float from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

uint16_t hl_f2h(float f)
{
    uint32_t u = bits(f);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000);
    uint32_t a = u & 0x7fffffff;
    if (a > 0x7f800000)                       /* NaN: quiet, keep top payload */
        return (uint16_t)(sign | 0x7e00 | ((a >> 13) & 0x3ff));
    if (a >= 0x477ff000)                      /* rounds to >= 65520: infinity */
        return (uint16_t)(sign | 0x7c00);
    if (a >= 0x38800000) {                    /* normal half */
        uint32_t mant = a & 0x7fffff;
        uint32_t exp = (a >> 23) - 112;
        uint32_t h = (exp << 10) | (mant >> 13);
        uint32_t rest = mant & 0x1fff;
        if (rest > 0x1000 || (rest == 0x1000 && (h & 1)))
            h++;                              /* may carry into the exponent: right */
        return (uint16_t)(sign | h);
    }
    if (a < 0x33000000)                       /* below half the smallest subnormal */
        return sign;
    /* subnormal half: value = m * 2^-24 */
    uint32_t exp = a >> 23;
    uint32_t mant = (a & 0x7fffff) | 0x800000;
    uint32_t shift = 126 - exp;               /* 14..24 */
    uint32_t h = mant >> shift;
    uint32_t rest = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rest > half || (rest == half && (h & 1)))
        h++;
    return (uint16_t)(sign | h);
}

float hl_h2f(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16;
    uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    if (exp == 0x1f)
        return from_bits(sign | 0x7f800000 | (mant << 13));
    if (exp == 0) {
        if (mant == 0)
            return from_bits(sign);
        float v = (float)mant * (1.0f / 16777216.0f);   /* exact */
        return sign ? -v : v;
    }
    return from_bits(sign | ((exp + 112) << 23) | (mant << 13));
}

uint16_t hl_f2bf(float f)
{
    uint32_t u = bits(f);
    if ((u & 0x7fffffff) > 0x7f800000)
        return (uint16_t)((u >> 16) | 0x40);
    u += 0x7fff + ((u >> 16) & 1);
    return (uint16_t)(u >> 16);
}

float hl_bf2f(uint16_t b)
{
    return from_bits((uint32_t)b << 16);
}

float hl_tf32(float f)
{
    uint32_t u = bits(f);
    if ((u & 0x7f800000) == 0x7f800000)       /* Inf, NaN: as they are */
        return f;
    u += 0x1000;                              /* ties away from zero */
    u &= 0xffffe000;
    return from_bits(u);
}
