/* SPDX-License-Identifier: Apache-2.0 */
/* cuRAND's Sobol' tables: direction vectors, scrambled direction vectors
 * and scramble constants, for 20,000 dimensions, as NVIDIA's library hands
 * them out (curandGetDirectionVectors32/64, curandGetScrambleConstants32/64)
 * and its quasirandom generators use them.
 *
 * Direction vectors (sets JOEKUO6): S. Joe and F. Y. Kuo's published
 * primitive polynomials and initial direction numbers (new-joe-kuo-6.21201,
 * the header tools/gen-sobol.py writes at build time) through the Bratley-Fox
 * recurrence, dimension 0 being the identity: v_i = m_i << (B-1-i) for
 * B = 32 or 64 bits.
 *
 * Scrambled sets and scramble constants: drawn from XORWOW with seed 0 in
 * the host API's layout (4096 states, output q from state q mod 4096), as
 * NVIDIA's tables turn out to be: 64-bit words w = out[k] | out[k+1] << 32.
 * Dimension d takes 64 words from out[1 + 128 d]: word j is row 63-j of a
 * lower triangular matrix L_d (that bit set, the bits below it cleared), and
 * its scrambled vectors are L_d v_i over GF(2) (bit b of the result: parity
 * of row b AND v_i). The 64-bit scramble constants follow, from
 * out[1 + 128 * 20000]; the 32-bit sets and constants are the upper halves
 * of the 64-bit ones. tests/hostlib/curand.c compares all six tables with
 * NVIDIA's, byte for byte. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "curand_api.h"
#include "hostlib.h"
#include "rng.h"
#include "hostlib/sobol_joekuo.h"

#if SOBOL_JK_DIMS != 0 && SOBOL_JK_DIMS != SOBOL_DIMS
#error "tools/gen-sobol.py wrote another number of dimensions"
#endif

static uint64_t (*dirs64)[64], (*sdirs64)[64], *scr64;
static uint32_t (*dirs32)[32], (*sdirs32)[32], *scr32;

/* m_1..m_B of dimension d by the recurrence of its polynomial */
static void direction_numbers(uint32_t d, uint64_t m[64])
{
    if (d == 0) {
        for (int i = 0; i < 64; i++)
            m[i] = 1;
        return;
    }
    uint32_t p = sobol_jk_poly[d];
    int s = 31 - __builtin_clz(p); /* the degree */
    for (int i = 0; i < s && i < SOBOL_JK_MAXDEG; i++)
        m[i] = sobol_jk_m[d][i];
    for (int i = s; i < 64; i++) {
        uint64_t v = m[i - s] ^ (m[i - s] << s);
        for (int k = 1; k < s; k++)
            if ((p >> (s - k)) & 1)
                v ^= m[i - k] << k;
        m[i] = v;
    }
}

static pthread_once_t plain_once = PTHREAD_ONCE_INIT;
static void plain_tables(void)
{
    uint64_t (*v64)[64] = malloc(sizeof(uint64_t[SOBOL_DIMS][64]));
    uint32_t (*v32)[32] = malloc(sizeof(uint32_t[SOBOL_DIMS][32]));
    if (!v64 || !v32) {
        free(v64);
        free(v32);
        return;
    }
    for (uint32_t d = 0; d < SOBOL_DIMS; d++) {
        uint64_t m[64];
        direction_numbers(d, m);
        for (int i = 0; i < 64; i++)
            v64[d][i] = m[i] << (63 - i);
        for (int i = 0; i < 32; i++)
            v32[d][i] = (uint32_t)(m[i] << (31 - i));
    }
    dirs64 = v64;
    dirs32 = v32;
}

/* XORWOW, seed 0, outputs 0..n-1 as the host API lays them out */
static uint32_t *xorwow_seed0(size_t n)
{
    enum { NSTATES = 4096 };
    uint32_t *out = malloc(n * sizeof *out);
    union rng_state *st = malloc(sizeof *st);
    if (!out || !st) {
        free(out);
        free(st);
        return NULL;
    }
    rng_init(RNG_XORWOW, 0, 0, st);
    for (size_t s = 0; s < NSTATES; s++) {
        union rng_state cur = *st;
        for (size_t q = s; q < n; q += NSTATES)
            out[q] = rng_u32(RNG_XORWOW, &cur);
        rng_skip_sub(RNG_XORWOW, st, 1);
    }
    free(st);
    return out;
}

static pthread_once_t scrambled_once = PTHREAD_ONCE_INIT;
static void scrambled_tables(void)
{
    pthread_once(&plain_once, plain_tables);
    size_t words = 1 + 128 * (size_t)SOBOL_DIMS + 2 * (size_t)SOBOL_DIMS;
    uint32_t *r = dirs64 ? xorwow_seed0(words) : NULL;
    uint64_t (*v64)[64] = malloc(sizeof(uint64_t[SOBOL_DIMS][64]));
    uint32_t (*v32)[32] = malloc(sizeof(uint32_t[SOBOL_DIMS][32]));
    uint64_t *c64 = malloc(SOBOL_DIMS * sizeof *c64);
    uint32_t *c32 = malloc(SOBOL_DIMS * sizeof *c32);
    if (!r || !v64 || !v32 || !c64 || !c32) {
        free(r), free(v64), free(v32), free(c64), free(c32);
        return;
    }
    for (uint32_t d = 0; d < SOBOL_DIMS; d++) {
        uint64_t row[64]; /* row[b]: output bit b */
        const uint32_t *w = r + 1 + 128 * (size_t)d;
        for (int j = 0; j < 64; j++) {
            int b = 63 - j;
            uint64_t x = (uint64_t)w[2 * j] | (uint64_t)w[2 * j + 1] << 32;
            row[b] = (x | 1ull << b) & ~((1ull << b) - 1);
        }
        for (int i = 0; i < 64; i++) {
            uint64_t v = dirs64[d][i], o = 0;
            for (int b = 0; b < 64; b++)
                o |= (uint64_t)__builtin_parityll(row[b] & v) << b;
            v64[d][i] = o;
            if (i < 32)
                v32[d][i] = (uint32_t)(o >> 32);
        }
    }
    const uint32_t *w = r + 1 + 128 * (size_t)SOBOL_DIMS;
    for (uint32_t d = 0; d < SOBOL_DIMS; d++) {
        c64[d] = (uint64_t)w[2 * d] | (uint64_t)w[2 * d + 1] << 32;
        c32[d] = (uint32_t)(c64[d] >> 32);
    }
    free(r);
    sdirs64 = v64;
    sdirs32 = v32;
    scr64 = c64;
    scr32 = c32;
}

int sobol_tables(int scrambled, struct sobol_tables *t)
{
    if (!SOBOL_JK_DIMS)
        return -1;
    pthread_once(&plain_once, plain_tables);
    if (scrambled)
        pthread_once(&scrambled_once, scrambled_tables);
    memset(t, 0, sizeof *t);
    t->v32 = (const uint32_t(*)[32])(scrambled ? sdirs32 : dirs32);
    t->v64 = (const uint64_t(*)[64])(scrambled ? sdirs64 : dirs64);
    t->c32 = scrambled ? scr32 : NULL;
    t->c64 = scrambled ? scr64 : NULL;
    return t->v32 && t->v64 ? 0 : -2;
}

static curandStatus_t table_status(int r)
{
    return r == -1 ? CURAND_STATUS_ARCH_MISMATCH : CURAND_STATUS_ALLOCATION_FAILED;
}

HL_EXPORT curandStatus_t curandGetDirectionVectors32(curandDirectionVectors32_t *vectors[],
                                                     curandDirectionVectorSet_t set)
{
    struct sobol_tables t;
    if (!vectors || (set != CURAND_DIRECTION_VECTORS_32_JOEKUO6 && set != CURAND_SCRAMBLED_DIRECTION_VECTORS_32_JOEKUO6))
        return CURAND_STATUS_OUT_OF_RANGE;
    int r = sobol_tables(set == CURAND_SCRAMBLED_DIRECTION_VECTORS_32_JOEKUO6, &t);
    if (r)
        return table_status(r);
    *vectors = (curandDirectionVectors32_t *)(uintptr_t)t.v32; /* the API hands out a mutable pointer */
    return CURAND_STATUS_SUCCESS;
}

HL_EXPORT curandStatus_t curandGetDirectionVectors64(curandDirectionVectors64_t *vectors[],
                                                     curandDirectionVectorSet_t set)
{
    struct sobol_tables t;
    if (!vectors || (set != CURAND_DIRECTION_VECTORS_64_JOEKUO6 && set != CURAND_SCRAMBLED_DIRECTION_VECTORS_64_JOEKUO6))
        return CURAND_STATUS_OUT_OF_RANGE;
    int r = sobol_tables(set == CURAND_SCRAMBLED_DIRECTION_VECTORS_64_JOEKUO6, &t);
    if (r)
        return table_status(r);
    *vectors = (curandDirectionVectors64_t *)(uintptr_t)t.v64;
    return CURAND_STATUS_SUCCESS;
}

HL_EXPORT curandStatus_t curandGetScrambleConstants32(unsigned int **constants)
{
    struct sobol_tables t;
    if (!constants)
        return CURAND_STATUS_OUT_OF_RANGE;
    int r = sobol_tables(1, &t);
    if (r)
        return table_status(r);
    *constants = (unsigned int *)(uintptr_t)t.c32;
    return CURAND_STATUS_SUCCESS;
}

HL_EXPORT curandStatus_t curandGetScrambleConstants64(unsigned long long **constants)
{
    struct sobol_tables t;
    if (!constants)
        return CURAND_STATUS_OUT_OF_RANGE;
    int r = sobol_tables(1, &t);
    if (r)
        return table_status(r);
    *constants = (unsigned long long *)(uintptr_t)t.c64;
    return CURAND_STATUS_SUCCESS;
}
