/* SPDX-License-Identifier: Apache-2.0 */
/* cuRAND's CURAND_RNG_PSEUDO_MT19937 on the host, laid out as NVIDIA's host
 * generator lays it out (read off it; docs/hostlib.md): 8192 MT19937
 * generators of 8 threads each; result t + 65536 k is thread t's k-th word;
 * generator g starts at the state init_genrand(low 32 bits of the seed)
 * jumped ahead g x 2^2048 steps (oldest word first), twisted; within each
 * 624-word block thread l of a generator reads the state words of
 * mt_word(l, j), tempered as MT19937's.
 *
 * Jumps: a state s after i steps is words [i, i + 624) of the untempered
 * sequence that s starts, so p(T) s (p the jump polynomial of
 * mt19937_jump.h, made by tools/mt19937-jump.c) is evaluated by Horner's
 * rule over chunks of JQ coefficients (Haramoto et al. 2008): a table of the
 * 2^JQ sums of s's first JQ states, and between chunks JQ steps of the
 * accumulator, which lives in a linear buffer so that each addition is one
 * run of 624 words. Generator states are made only when a request reaches
 * them (generator g from g - 1) and kept with their current block. */
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "mt19937_jump.h"

enum { NN = MT19937_N, MM = 397, DEG = 19937, JQ = 8, NCHUNK = (DEG + JQ - 1) / JQ };
#define NGEN (MT19937_THREADS / 8)

struct mt19937 {
    uint64_t seed;
    int seeded;
    uint32_t chain;                /* generators whose start state is known: 0 .. chain - 1 */
    uint32_t head[NN];             /* the start state (before the twist) of generator chain - 1 */
    uint32_t *blk;                 /* [NGEN][NN]: generator g's block bno[g] (twisted) */
    int64_t *bno;                  /* -1: none yet */
    uint32_t *tab;                 /* [2^JQ][NN] */
    uint32_t *buf;                 /* [NN + NCHUNK * JQ + JQ]: Horner's accumulator */
};

static inline uint32_t mt_next(const uint32_t *x)
{
    uint32_t y = (x[0] & 0x80000000u) | (x[1] & 0x7fffffffu);
    return x[MM] ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
}

/* the state after NN steps (one twist), in place */
static void twist(uint32_t *s)
{
    for (int i = 0; i < NN; i++) {
        uint32_t y = (s[i] & 0x80000000u) | (s[(i + 1) % NN] & 0x7fffffffu);
        s[i] = s[(i + MM) % NN] ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
    }
}

static uint32_t temper(uint32_t y)
{
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    return y ^ (y >> 18);
}

/* the state word that thread l (0..7) of a generator reads at word j (0..77)
 * of a block */
static int mt_word(int l, int j)
{
    static const int first[8] = { 0, 113, 170, 283, 340, 397, 510, 567 };
    static const int off[11] = { 1, 57, 114, 171, 227, 284, 341, 398, 454, 511, 568 };
    return j == 0 ? first[l] : off[(j - 1) / 7] + 7 * l + (j - 1) % 7;
}

static const uint64_t *jump_poly(int k)
{
    for (size_t i = 0; i < sizeof mt_jumps / sizeof mt_jumps[0]; i++)
        if (mt_jumps[i].k == k)
            return mt_jumps[i].c;
    return NULL;
}

__attribute__((target_clones("avx2", "default"))) static void xor_run(uint32_t *restrict a, const uint32_t *restrict b)
{
    for (int i = 0; i < NN; i++)
        a[i] ^= b[i];
}

/* s := p(T) s for the polynomial p (MT_JUMP_WORDS words); tab and buf
 * scratch of mt19937_jump_scratch's sizes */
static void jump(uint32_t *s, const uint64_t *p, uint32_t *tab, uint32_t *buf)
{
    /* tab[c]: the sum of the states after j steps, j in the bits of c */
    uint32_t *x = buf;
    memcpy(x, s, NN * sizeof *x);
    for (int i = NN; i < NN + JQ; i++)
        x[i] = mt_next(x + i - NN);
    memset(tab, 0, NN * sizeof *tab);
    for (int c = 1; c < 1 << JQ; c++) {
        int hb = 31 - __builtin_clz((unsigned)c);
        memcpy(tab + (size_t)c * NN, tab + (size_t)(c & ~(1 << hb)) * NN, NN * sizeof *tab);
        xor_run(tab + (size_t)c * NN, x + hb);
    }
    /* Horner over the chunks, top first: acc = T^JQ acc + tab[chunk] */
    memset(buf, 0, NN * sizeof *buf);
    uint32_t *acc = buf;
    for (int ch = NCHUNK - 1; ch >= 0; ch--) {
        if (ch != NCHUNK - 1) {
            for (int i = 0; i < JQ; i++)
                acc[NN + i] = mt_next(acc + i);
            acc += JQ;
        }
        int bit = ch * JQ;
        unsigned c = (unsigned)(p[bit >> 6] >> (bit & 63)) & ((1u << JQ) - 1);
        if (c)
            xor_run(acc, tab + (size_t)c * NN);
    }
    memcpy(s, acc, NN * sizeof *s);
}

_Static_assert(64 % JQ == 0, "a chunk lies in one word of the polynomial");

int mt19937_jump_k(uint32_t *s, int k)
{
    const uint64_t *p = jump_poly(k);
    uint32_t *tab = malloc(((size_t)NN << JQ) * sizeof *tab), *buf = malloc((NN + NCHUNK * JQ + JQ) * sizeof *buf);
    int r = -1;
    if (p && tab && buf) {
        jump(s, p, tab, buf);
        r = 0;
    }
    free(tab);
    free(buf);
    return p ? r : -2;
}

void mt19937_init_genrand(uint32_t *s, uint32_t seed)
{
    s[0] = seed;
    for (int i = 1; i < NN; i++)
        s[i] = 1812433253u * (s[i - 1] ^ (s[i - 1] >> 30)) + (uint32_t)i;
}

void mt19937_step(uint32_t *s, uint64_t n)
{
    uint32_t x[2 * NN];
    for (; n >= NN; n -= NN)
        twist(s);
    memcpy(x, s, NN * sizeof *x);
    for (uint64_t i = 0; i < n; i++)
        x[NN + i] = mt_next(x + i);
    memmove(s, x + n, NN * sizeof *s);
}

struct mt19937 *mt19937_new(void)
{
    struct mt19937 *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->blk = malloc((size_t)NGEN * NN * sizeof *m->blk);
    m->bno = malloc(NGEN * sizeof *m->bno);
    m->tab = malloc(((size_t)NN << JQ) * sizeof *m->tab);
    m->buf = malloc((NN + NCHUNK * JQ + JQ) * sizeof *m->buf);
    if (!m->blk || !m->bno || !m->tab || !m->buf || !jump_poly(2048)) {
        mt19937_free(m);
        return NULL;
    }
    return m;
}

void mt19937_free(struct mt19937 *m)
{
    if (!m)
        return;
    free(m->blk);
    free(m->bno);
    free(m->tab);
    free(m->buf);
    free(m);
}

static void reset(struct mt19937 *m, uint64_t seed)
{
    m->seed = seed;
    m->seeded = 1;
    mt19937_init_genrand(m->head, (uint32_t)seed); /* NVIDIA's: the low 32 bits */
    m->chain = 1;
    for (uint32_t g = 0; g < NGEN; g++)
        m->bno[g] = -1;
}

/* generator g's block b in m->blk */
static const uint32_t *block(struct mt19937 *m, uint32_t g, int64_t b)
{
    uint32_t *s = m->blk + (size_t)g * NN;
    if (m->bno[g] < 0 || m->bno[g] > b) {
        if (g + 1 < m->chain) { /* behind the chain's head: walk it again from generator 0 */
            mt19937_init_genrand(m->head, (uint32_t)m->seed);
            m->chain = 1;
        }
        for (; m->chain <= g; m->chain++)
            jump(m->head, jump_poly(2048), m->tab, m->buf);
        memcpy(s, m->head, NN * sizeof *s);
        twist(s);
        m->bno[g] = 0;
    }
    for (; m->bno[g] < b; m->bno[g]++)
        twist(s);
    return s;
}

void mt19937_words(struct mt19937 *m, uint64_t seed, uint64_t pos, uint32_t *out, size_t n)
{
    if (!n)
        return;
    if (!m->seeded || m->seed != seed)
        reset(m, seed);
    const uint64_t T = MT19937_THREADS;
    uint64_t last = pos + n - 1, k0 = pos / T, k1 = last / T;
    uint64_t t0 = pos % T, t1 = last % T;
    for (uint32_t g = 0; g < NGEN; g++) {
        uint64_t lo = 8 * (uint64_t)g, hi = lo + 7;
        /* whether a thread of g has a result in [pos, last] */
        int touched = n >= T || (t0 <= t1 ? hi >= t0 && lo <= t1 : hi >= t0 || lo <= t1);
        if (!touched)
            continue;
        for (uint64_t b = k0 / 78; b <= k1 / 78; b++) {
            const uint32_t *s = block(m, g, (int64_t)b);
            for (int j = 0; j < 78; j++) {
                uint64_t k = 78 * b + (uint64_t)j;
                if (k < k0 || k > k1)
                    continue;
                for (int l = 0; l < 8; l++) {
                    uint64_t q = k * T + lo + (uint64_t)l;
                    if (q >= pos && q <= last)
                        out[q - pos] = temper(s[mt_word(l, j)]);
                }
            }
        }
    }
}
