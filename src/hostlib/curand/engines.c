/* SPDX-License-Identifier: Apache-2.0 */
/* cuRAND's pseudorandom engines on the host, with the algorithms NVIDIA
 * publishes in curand_kernel.h: XORWOW (Marsaglia's xorshift with a Weyl
 * sequence; subsequences 2^67 apart), MRG32k3a (L'Ecuyer's combined
 * multiple recursive generator; subsequences 2^76 apart) and
 * Philox4x32-10 (Salmon et al.'s counter-based generator; subsequences
 * 2^66 apart). Jumps ahead are powers of each engine's transition matrix
 * (over GF(2) for XORWOW, modulo m1 and m2 for MRG32k3a), computed here by
 * squaring instead of NVIDIA's precomputed tables. MTGP32 (mtgp.c) has no
 * jump ahead: its states are stepped. */
#include "rng.h"

#include <pthread.h>
#include <string.h>

/* ---- XORWOW --------------------------------------------------------------- */
#define XW_BITS 160
#define XW_POWS 96          /* M^(2^k), k < 96: offsets < 2^64, subsequences < 2^29 */
#define XW_SEQ 67           /* log2 of the subsequence spacing */
typedef uint32_t xwvec[5];
/* column i: the image of state bit i */
static xwvec xw_pow[XW_POWS][XW_BITS];

static void xw_step_lin(const uint32_t in[5], uint32_t out[5])
{
    uint32_t t = in[0] ^ (in[0] >> 2);
    out[0] = in[1];
    out[1] = in[2];
    out[2] = in[3];
    out[3] = in[4];
    out[4] = (in[4] ^ (in[4] << 4)) ^ (t ^ (t << 1));
}

static void xw_apply(const xwvec *m, uint32_t v[5])
{
    uint32_t r[5] = { 0, 0, 0, 0, 0 };
    for (int w = 0; w < 5; w++) {
        for (uint32_t bits = v[w]; bits; bits &= bits - 1) {
            const uint32_t *c = m[w * 32 + __builtin_ctz(bits)];
            for (int i = 0; i < 5; i++)
                r[i] ^= c[i];
        }
    }
    memcpy(v, r, sizeof r);
}

static pthread_once_t xw_once = PTHREAD_ONCE_INIT;
static void xw_tables(void)
{
    for (int b = 0; b < XW_BITS; b++) {
        uint32_t e[5] = { 0, 0, 0, 0, 0 };
        e[b / 32] = 1u << (b % 32);
        xw_step_lin(e, xw_pow[0][b]);
    }
    for (int k = 1; k < XW_POWS; k++) {
        for (int b = 0; b < XW_BITS; b++) {
            memcpy(xw_pow[k][b], xw_pow[k - 1][b], sizeof(xwvec));
            xw_apply(xw_pow[k - 1], xw_pow[k][b]);
        }
    }
}

/* v times M^(n 2^shift) */
static void xw_jump(uint32_t v[5], uint64_t n, int shift)
{
    pthread_once(&xw_once, xw_tables);
    for (int k = 0; n && k + shift < XW_POWS; k++, n >>= 1)
        if (n & 1)
            xw_apply(xw_pow[k + shift], v);
}

static void xw_init(uint64_t seed, uint64_t sub, struct xorwow *s)
{
    uint32_t s0 = (uint32_t)seed ^ 0xaad26b49u, s1 = (uint32_t)(seed >> 32) ^ 0xf7dcefddu;
    uint32_t t0 = 1099087573u * s0, t1 = 2591861531u * s1;
    s->d = 6615241u + t1 + t0;
    s->v[0] = 123456789u + t0;
    s->v[1] = 362436069u ^ t0;
    s->v[2] = 521288629u + t1;
    s->v[3] = 88675123u ^ t1;
    s->v[4] = 5783321u + t0;
    xw_jump(s->v, sub, XW_SEQ); /* d moves by a multiple of 2^32 */
}

static uint32_t xw_next(struct xorwow *s)
{
    uint32_t t = s->v[0] ^ (s->v[0] >> 2);
    s->v[0] = s->v[1];
    s->v[1] = s->v[2];
    s->v[2] = s->v[3];
    s->v[3] = s->v[4];
    s->v[4] = (s->v[4] ^ (s->v[4] << 4)) ^ (t ^ (t << 1));
    s->d += 362437u;
    return s->v[4] + s->d;
}

/* ---- MRG32k3a ------------------------------------------------------------- */
#define M1 4294967087ull
#define M2 4294944443ull
#define MRG_POWS 100        /* A^(2^k), k < 100 */
#define MRG_SEQ 76
typedef uint64_t mat3[3][3];
static mat3 mrg_pow1[MRG_POWS], mrg_pow2[MRG_POWS];

static void mat_mul(const mat3 a, const mat3 b, mat3 o, uint64_t m)
{
    mat3 r;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            unsigned __int128 s = 0;
            for (int k = 0; k < 3; k++)
                s += (unsigned __int128)a[i][k] * b[k][j];
            r[i][j] = (uint64_t)(s % m);
        }
    memcpy(o, r, sizeof r);
}

static void mat_vec(const mat3 a, uint32_t v[3], uint64_t m)
{
    uint64_t r[3];
    for (int i = 0; i < 3; i++) {
        unsigned __int128 s = 0;
        for (int k = 0; k < 3; k++)
            s += (unsigned __int128)a[i][k] * v[k];
        r[i] = (uint64_t)(s % m);
    }
    for (int i = 0; i < 3; i++)
        v[i] = (uint32_t)r[i];
}

static pthread_once_t mrg_once = PTHREAD_ONCE_INIT;
static void mrg_tables(void)
{
    mat3 a1 = { { 0, 1, 0 }, { 0, 0, 1 }, { M1 - 810728, 1403580, 0 } };
    mat3 a2 = { { 0, 1, 0 }, { 0, 0, 1 }, { M2 - 1370589, 0, 527612 } };
    memcpy(mrg_pow1[0], a1, sizeof a1);
    memcpy(mrg_pow2[0], a2, sizeof a2);
    for (int k = 1; k < MRG_POWS; k++) {
        mat_mul(mrg_pow1[k - 1], mrg_pow1[k - 1], mrg_pow1[k], M1);
        mat_mul(mrg_pow2[k - 1], mrg_pow2[k - 1], mrg_pow2[k], M2);
    }
}

static void mrg_jump(struct mrg *s, uint64_t n, int shift)
{
    pthread_once(&mrg_once, mrg_tables);
    for (int k = 0; n && k + shift < MRG_POWS; k++, n >>= 1) {
        if (n & 1) {
            mat_vec(mrg_pow1[k + shift], s->s1, M1);
            mat_vec(mrg_pow2[k + shift], s->s2, M2);
        }
    }
}

static void mrg_init(uint64_t seed, uint64_t sub, struct mrg *s)
{
    for (int i = 0; i < 3; i++)
        s->s1[i] = s->s2[i] = 12345u;
    if (seed) {
        uint64_t x1 = (uint32_t)seed ^ 0x55555555u, x2 = (uint32_t)((seed >> 32) ^ 0xaaaaaaaau);
        s->s1[0] = (uint32_t)(x1 * 12345u % M1);
        s->s1[1] = (uint32_t)(x2 * 12345u % M1);
        s->s1[2] = (uint32_t)(x1 * 12345u % M1);
        s->s2[0] = (uint32_t)(x2 * 12345u % M2);
        s->s2[1] = (uint32_t)(x1 * 12345u % M2);
        s->s2[2] = (uint32_t)(x2 * 12345u % M2);
    }
    mrg_jump(s, sub, MRG_SEQ);
}

/* the next value in (0, m1], as an exact double */
static double mrg_next(struct mrg *s)
{
    uint64_t p1 = (1403580ull * s->s1[1] + 810728ull * (M1 - s->s1[0])) % M1;
    s->s1[0] = s->s1[1];
    s->s1[1] = s->s1[2];
    s->s1[2] = (uint32_t)p1;
    uint64_t p2 = (527612ull * s->s2[2] + 1370589ull * (M2 - s->s2[0])) % M2;
    s->s2[0] = s->s2[1];
    s->s2[1] = s->s2[2];
    s->s2[2] = (uint32_t)p2;
    return p1 > p2 ? (double)(p1 - p2) : (double)(p1 + M1 - p2);
}

/* ---- Philox4x32-10 -------------------------------------------------------- */
static void philox_block(const uint32_t ctr_in[4], const uint32_t key_in[2], uint32_t out[4])
{
    uint32_t c[4] = { ctr_in[0], ctr_in[1], ctr_in[2], ctr_in[3] }, k0 = key_in[0], k1 = key_in[1];
    for (int r = 0; r < 10; r++) {
        uint64_t p0 = (uint64_t)0xD2511F53u * c[0], p1 = (uint64_t)0xCD9E8D57u * c[2];
        uint32_t n0 = (uint32_t)(p1 >> 32) ^ c[1] ^ k0, n1 = (uint32_t)p1;
        uint32_t n2 = (uint32_t)(p0 >> 32) ^ c[3] ^ k1, n3 = (uint32_t)p0;
        c[0] = n0, c[1] = n1, c[2] = n2, c[3] = n3;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    memcpy(out, c, 16);
}

static uint32_t philox_next(struct philox *s)
{
    uint64_t block = s->elem / 4;
    if (!s->valid || s->block != block) {
        uint32_t ctr[4] = { (uint32_t)block, (uint32_t)(block >> 32), (uint32_t)s->sub, (uint32_t)(s->sub >> 32) };
        philox_block(ctr, s->key, s->out);
        s->block = block;
        s->valid = 1;
    }
    return s->out[s->elem++ % 4];
}

/* ---- the interface -------------------------------------------------------- */
void rng_init(enum rng_engine e, uint64_t seed, uint64_t sub, union rng_state *s)
{
    if (e == RNG_MTGP32) {
        mtgp_init(s->g, (int)sub, seed);
        return;
    }
    memset(s, 0, sizeof *s);
    switch (e) {
    case RNG_XORWOW: xw_init(seed, sub, &s->x); break;
    case RNG_MRG32K3A: mrg_init(seed, sub, &s->m); break;
    case RNG_PHILOX:
        s->p.key[0] = (uint32_t)seed;
        s->p.key[1] = (uint32_t)(seed >> 32);
        s->p.sub = sub;
        break;
    case RNG_MTGP32:
    case RNG_MT19937:
    case RNG__N: break;
    }
}

void rng_skip(enum rng_engine e, union rng_state *s, uint64_t n)
{
    switch (e) {
    case RNG_XORWOW:
        xw_jump(s->x.v, n, 0);
        s->x.d += 362437u * (uint32_t)n;
        break;
    case RNG_MRG32K3A: mrg_jump(&s->m, n, 0); break;
    case RNG_PHILOX: s->p.elem += n; break;
    case RNG_MTGP32: /* no jump ahead: stepped */
        for (; n; n--)
            mtgp_u32(s->g);
        break;
    case RNG_MT19937:
    case RNG__N: break;
    }
}

void rng_skip_sub(enum rng_engine e, union rng_state *s, uint64_t n)
{
    switch (e) {
    case RNG_XORWOW: xw_jump(s->x.v, n, XW_SEQ); break;
    case RNG_MRG32K3A: mrg_jump(&s->m, n, MRG_SEQ); break;
    case RNG_PHILOX: s->p.sub += n; s->p.valid = 0; break;
    case RNG_MTGP32: mtgp_init(s->g, s->g->set + (int)n, s->g->seed); break;
    case RNG_MT19937:
    case RNG__N: break;
    }
}

uint32_t rng_u32(enum rng_engine e, union rng_state *s)
{
    switch (e) {
    case RNG_XORWOW: return xw_next(&s->x);
    case RNG_PHILOX: return philox_next(&s->p);
    case RNG_MRG32K3A: return (uint32_t)(mrg_next(&s->m) * 1.000000048662);
    case RNG_MTGP32: return mtgp_u32(s->g);
    case RNG_MT19937:
    case RNG__N: break;
    }
    return 0;
}

double rng_mrg(union rng_state *s)
{
    return mrg_next(&s->m);
}
