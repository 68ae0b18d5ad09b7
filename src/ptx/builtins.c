/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers of the executor that are not instructions: the table of builtin
 * functions (builtins.def), half and bfloat16 conversions (round to
 * nearest even, or toward zero), and device printf formatting of
 * vprintf's packed argument buffer. */
#include "ir.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct ir_builtin ir_builtins[B_COUNT] = {
    [B_NONE] = { "", 0, 0, 0, B_LIB },
#define BUILTIN(id, nm, amin, amax, nret, how) [id] = { nm, amin, amax, nret, how },
#include "builtins.def"
#undef BUILTIN
};

static const struct { const char *name; int id; } aliases[] = {
#define BUILTIN(id, nm, amin, amax, nret, how)
#define ALIAS(nm, id) { nm, id },
#include "builtins.def"
#undef ALIAS
#undef BUILTIN
};

int ir_builtin_find(const char *s, int n)
{
    for (int i = 1; i < B_COUNT; i++)
        if ((size_t)n == strlen(ir_builtins[i].name) && memcmp(s, ir_builtins[i].name, (size_t)n) == 0)
            return i;
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if ((size_t)n == strlen(aliases[i].name) && memcmp(s, aliases[i].name, (size_t)n) == 0)
            return aliases[i].id;
    return B_NONE;
}

static uint32_t fbits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float bitsf(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

/* f32 -> f16, rnd: RND_RZ truncates, anything else rounds to nearest even */
uint16_t ptx_f32_to_f16(float f, int rnd)
{
    uint32_t x = fbits(f);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u) /* inf or nan */
        return (uint16_t)(sign | 0x7c00u | (ax > 0x7f800000u ? 0x200u | ((ax >> 13) & 0x3ffu) : 0));
    float a = bitsf(ax);
    if (a >= 65520.0f && rnd != RND_RZ) return (uint16_t)(sign | 0x7c00u);
    if (a >= 65504.0f) return (uint16_t)(sign | 0x7bffu); /* [65504, 65520) rounds down; .rz: never infinity */
    if (ax < 0x38800000u) { /* subnormal half: units of 2^-24 */
        float q = a * 16777216.0f; /* exact scaling */
        float r = rnd == RND_RZ ? truncf(q) : nearbyintf(q);
        return (uint16_t)(sign | (uint16_t)r);
    }
    uint32_t mant = ax & 0x7fffffu;
    int e = (int)(ax >> 23) - 127 + 15;
    uint32_t h = ((uint32_t)e << 10) | (mant >> 13);
    uint32_t rest = mant & 0x1fffu;
    if (rnd != RND_RZ && (rest > 0x1000u || (rest == 0x1000u && (h & 1u))))
        h++;
    return (uint16_t)(sign | h);
}

float ptx_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0) {
        float v = (float)m / 16777216.0f;
        return sign ? -v : v;
    }
    if (e == 31) return bitsf(sign | 0x7f800000u | (m << 13));
    return bitsf(sign | ((e - 15 + 127) << 23) | (m << 13));
}

uint16_t ptx_f32_to_bf16(float f, int rnd)
{
    uint32_t x = fbits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u);
    if (rnd == RND_RZ) return (uint16_t)(x >> 16);
    uint32_t r = x + 0x7fffu + ((x >> 16) & 1u);
    return (uint16_t)(r >> 16);
}

float ptx_bf16_to_f32(uint16_t h) { return bitsf((uint32_t)h << 16); }

uint16_t ptx_round_small(double x, int rnd, int ebits, int mbits)
{
    int neg = signbit(x) != 0;
    uint16_t sign = neg ? (uint16_t)(1u << (ebits + mbits)) : 0;
    double a = fabs(x);
    int emax = (1 << (ebits - 1)) - 1, emin = 1 - emax;
    uint16_t inf = (uint16_t)(((1u << ebits) - 1) << mbits), maxf = (uint16_t)(inf - 1);
    if (isinf(a)) return sign | inf;
    if (a == 0) return sign;
    int e;
    (void)frexp(a, &e);
    e -= 1;                              /* a in [2^e, 2^(e+1)) */
    if (e < emin) e = emin;              /* subnormal: the quantum of the smallest binade */
    double n = ldexp(a, mbits - e), r;   /* a in quanta: exact */
    switch (rnd) {
    case RND_RZ: r = trunc(n); break;
    case RND_RM: r = neg ? ceil(n) : floor(n); break;
    case RND_RP: r = neg ? floor(n) : ceil(n); break;
    case RND_RNA: r = round(n); break;
    default: r = nearbyint(n); break;    /* ties to even (the thread's default mode) */
    }
    if (r >= ldexp(1.0, mbits + 1)) { r /= 2; e++; }
    if (e > emax) { /* overflow */
        int to_inf = rnd == RND_RN || rnd == RND_NONE || rnd == RND_RNA || (rnd == RND_RM && neg) || (rnd == RND_RP && !neg);
        return sign | (to_inf ? inf : maxf);
    }
    unsigned q = (unsigned)r;
    if (q < (1u << mbits)) return sign | (uint16_t)q; /* subnormal (or zero) */
    return sign | (uint16_t)(((unsigned)(e + emax) << mbits) | (q - (1u << mbits)));
}

double ptx_fp8_value(unsigned v, int e5m2)
{
    int s = v >> 7 & 1, eb = e5m2 ? 5 : 4, mb = e5m2 ? 2 : 3, bias = e5m2 ? 15 : 7;
    int e = (int)(v >> mb) & ((1 << eb) - 1), mt = (int)v & ((1 << mb) - 1);
    double r;
    if (!e5m2 && e == 15 && mt == 7) r = NAN;
    else if (e5m2 && e == 31) r = mt ? NAN : INFINITY;
    else if (e == 0) r = ldexp(mt, 1 - bias - mb);
    else r = ldexp((1 << mb) + mt, e - bias - mb);
    return s ? -r : r;
}

unsigned ptx_fp8_round(double x, int e5m2)
{
    if (x != x) return 0x7f;
    unsigned sign = signbit(x) ? 0x80u : 0;
    int mb = e5m2 ? 2 : 3, bias = e5m2 ? 15 : 7, emin = 1 - bias, e;
    double a = fabs(x), maxv = e5m2 ? 57344.0 : 448.0;
    if (a >= maxv) return sign | (e5m2 ? 0x7bu : 0x7eu);
    if (a == 0) return sign;
    (void)frexp(a, &e);
    e -= 1;
    if (e < emin) e = emin;
    double r = nearbyint(ldexp(a, mb - e)); /* exact quanta, rounded to even */
    if (r >= ldexp(1.0, mb + 1)) { r /= 2; e++; }
    unsigned q = (unsigned)r;
    if (q < (1u << mb)) return sign | q;
    return sign | ((unsigned)(e + bias) << mb) | (q - (1u << mb));
}

double ptx_int_to_double_odd(uint64_t mag)
{
    if (mag < (1ull << 53)) return (double)mag;
    int shift = 64 - __builtin_clzll(mag) - 53;
    uint64_t keep = mag >> shift << shift;
    if (keep != mag) keep |= 1ull << shift; /* round to odd: a later rounding to fewer bits is right */
    return (double)keep;
}

/* ---- printf ------------------------------------------------------------- */
static int take(const unsigned char *args, size_t alen, size_t *off, unsigned size, uint64_t *v)
{
    size_t o = (*off + size - 1) / size * size;
    if (o + size > alen) return -1;
    *v = 0;
    memcpy(v, args + o, size);
    *off = o + size;
    return 0;
}

static void put(char *out, size_t outlen, size_t *n, const char *s, size_t k)
{
    if (*n < outlen) {
        size_t c = outlen - *n < k ? outlen - *n : k;
        memcpy(out + *n, s, c);
    }
    *n += k;
}

size_t ptx_format(const char *fmt, size_t fmtlen, const unsigned char *args, size_t alen,
                  char *out, size_t outlen, ptx_read_fn rd, void *rdctx, int *nargs)
{
    size_t n = 0, off = 0;
    *nargs = 0;
    size_t i = 0;
    while (i < fmtlen && fmt[i]) {
        if (fmt[i] != '%') {
            size_t j = i;
            while (j < fmtlen && fmt[j] && fmt[j] != '%') j++;
            put(out, outlen, &n, fmt + i, j - i);
            i = j;
            continue;
        }
        size_t st = i++;
        if (i < fmtlen && fmt[i] == '%') { put(out, outlen, &n, "%", 1); i++; continue; }
        char spec[32];
        size_t sl = 0;
        spec[sl++] = '%';
        while (i < fmtlen && strchr("-+ #0", fmt[i]) && fmt[i] && sl < 8) spec[sl++] = fmt[i++];
        while (i < fmtlen && fmt[i] >= '0' && fmt[i] <= '9' && sl < 16) spec[sl++] = fmt[i++];
        if (i < fmtlen && fmt[i] == '.') {
            spec[sl++] = fmt[i++];
            while (i < fmtlen && fmt[i] >= '0' && fmt[i] <= '9' && sl < 24) spec[sl++] = fmt[i++];
        }
        int lng = 0;
        while (i < fmtlen && fmt[i] && strchr("hlLqjzt", fmt[i])) {
            if (fmt[i] == 'l' || fmt[i] == 'L' || fmt[i] == 'q' || fmt[i] == 'j' || fmt[i] == 'z' || fmt[i] == 't') lng++;
            i++;
        }
        if (i >= fmtlen || !fmt[i]) { put(out, outlen, &n, fmt + st, i - st); break; }
        char c = fmt[i++];
        char buf[512];
        int k = 0;
        uint64_t v = 0;
        switch (c) {
        case 'd': case 'i': case 'u': case 'x': case 'X': case 'o': case 'c': {
            unsigned size = lng ? 8 : 4;
            if (take(args, alen, &off, size, &v)) { k = snprintf(buf, sizeof buf, "<?>"); break; }
            (*nargs)++;
            spec[sl++] = 'l'; spec[sl++] = 'l'; spec[sl++] = c == 'i' ? 'd' : c; spec[sl] = 0;
            if (c == 'c') { sl -= 3; spec[sl++] = 'c'; spec[sl] = 0; k = snprintf(buf, sizeof buf, spec, (int)v); break; }
            if (c == 'd' || c == 'i') {
                long long sv = size == 4 ? (long long)(int32_t)v : (long long)v;
                k = snprintf(buf, sizeof buf, spec, sv);
            } else
                k = snprintf(buf, sizeof buf, spec, (unsigned long long)v);
            break;
        }
        case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A': {
            if (take(args, alen, &off, 8, &v)) { k = snprintf(buf, sizeof buf, "<?>"); break; }
            (*nargs)++;
            double d;
            memcpy(&d, &v, 8);
            spec[sl++] = c; spec[sl] = 0;
            k = snprintf(buf, sizeof buf, spec, d);
            break;
        }
        case 'p':
            if (take(args, alen, &off, 8, &v)) { k = snprintf(buf, sizeof buf, "<?>"); break; }
            (*nargs)++;
            k = snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)v);
            break;
        case 's': {
            if (take(args, alen, &off, 8, &v)) { k = snprintf(buf, sizeof buf, "<?>"); break; }
            (*nargs)++;
            const unsigned char *sp = NULL;
            size_t avail = v ? rd(rdctx, v, &sp) : 0;
            if (!sp) { k = snprintf(buf, sizeof buf, "%s", v ? "<invalid>" : "(null)"); break; }
            size_t len = strnlen((const char *)sp, avail);
            char *tmp = malloc(len + 1);
            if (!tmp) break;
            memcpy(tmp, sp, len);
            tmp[len] = 0;
            spec[sl++] = 's'; spec[sl] = 0;
            int need = snprintf(NULL, 0, spec, tmp);
            if (need > 0) {
                char *o2 = malloc((size_t)need + 1);
                if (o2) {
                    snprintf(o2, (size_t)need + 1, spec, tmp);
                    put(out, outlen, &n, o2, (size_t)need);
                    free(o2);
                }
            }
            free(tmp);
            continue;
        }
        default:
            put(out, outlen, &n, fmt + st, i - st);
            continue;
        }
        if (k > 0) put(out, outlen, &n, buf, (size_t)k < sizeof buf ? (size_t)k : sizeof buf - 1);
    }
    return n;
}
