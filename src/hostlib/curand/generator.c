/* SPDX-License-Identifier: Apache-2.0 */
/* cuRAND's host API: generators, their settings, and the generate calls,
 * with the output laid out as NVIDIA's library lays it out, so that a seed
 * gives the same numbers.
 *
 * Layout. A generator runs NSTATES copies of its engine, copy s on
 * subsequence s. Outputs are handed out in groups: output number q (q
 * counts from the generator's offset) belongs to group g = q / GROUP,
 * which state g % NSTATES makes from the next RAW elements of its
 * subsequence. After a new seed or offset, each of NVIDIA's threads
 * starts its state afresh at a place that depends on the position only
 * (fill_run); a call that continues where the last one stopped continues
 * each state where it stopped (so a distribution that takes more elements
 * per output than the one before it reads past where a fresh start
 * would). NSTATES, GROUP and RAW depend on the engine and the distribution
 * (layouts[]); all of this was read off NVIDIA's host generators
 * (curandCreateGeneratorHost), which tests/hostlib/curand.c compares
 * against when the toolkit is there (docs/hostlib.md).
 *
 * MTGP32 fits the same layout (192 states, groups of 256); its states have
 * no jump ahead and are stepped. The Sobol' generators (quasi) have no
 * states: point i of a dimension is computed from its Gray code and the
 * tables of sobol.c, and a call writes n / dims points of each dimension,
 * one dimension after the other (docs/hostlib.md).
 *
 * A device generator's work is a job on its stream (src/hostlib/common);
 * a host generator's runs in the call. Engine states are cached per
 * generator, positioned by jumps ahead when a call does not continue where
 * the last one stopped. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "curand_api.h"
#include "hostlib.h"
#include "rng.h"

#define GEN_KIND 1
#define VERSION 10400

/* D_U64: the 64-bit quasirandom generators only; D_POIS: Poisson, made
 * from the raw results of D_U32 (D_U64 for the 64-bit Sobol'); D_POIS_N:
 * Poisson from lambda 2000 on (XORWOW, MRG32k3a, Philox), from a normal
 * float (the first of each Box-Muller pair; Philox: D_NORM's) */
enum dist { D_U32, D_UNIF, D_UNIF_D, D_NORM, D_NORM_D, D_U64, D_POIS, D_POIS_N, D__N };
struct layout { uint32_t nstates, group, raw; };
#define MTGP_STATES 192
static const struct layout layouts[RNG__N][D__N] = { /* RNG_MT19937: none (fill_mt19937) */
    [RNG_XORWOW] = { [D_U32] = { 4096, 1, 1 }, [D_UNIF] = { 4096, 1, 1 }, [D_UNIF_D] = { 4096, 1, 2 },
                     [D_NORM] = { 4096, 2, 2 }, [D_NORM_D] = { 4096, 2, 4 }, [D_POIS] = { 4096, 1, 1 },
                     [D_POIS_N] = { 4096, 1, 2 } },
    [RNG_MRG32K3A] = { [D_U32] = { 81920, 1, 1 }, [D_UNIF] = { 81920, 1, 1 }, [D_UNIF_D] = { 81920, 1, 1 },
                       [D_NORM] = { 81920, 2, 2 }, [D_NORM_D] = { 81920, 2, 2 }, [D_POIS] = { 81920, 1, 1 },
                       [D_POIS_N] = { 81920, 1, 2 } },
    [RNG_PHILOX] = { [D_U32] = { 65536, 4, 4 }, [D_UNIF] = { 65536, 4, 4 }, [D_UNIF_D] = { 65536, 4, 8 },
                     [D_NORM] = { 65536, 4, 4 }, [D_NORM_D] = { 65536, 4, 8 }, [D_POIS] = { 65536, 4, 4 },
                     [D_POIS_N] = { 65536, 4, 4 } },
    /* state s on parameter set s, a block of 256 from each in turn; one
     * element per output, whatever the distribution */
    [RNG_MTGP32] = { [D_U32] = { MTGP_STATES, 256, 256 }, [D_UNIF] = { MTGP_STATES, 256, 256 },
                     [D_UNIF_D] = { MTGP_STATES, 256, 256 }, [D_NORM] = { MTGP_STATES, 256, 256 },
                     [D_NORM_D] = { MTGP_STATES, 256, 256 }, [D_POIS] = { MTGP_STATES, 256, 256 },
                     [D_POIS_N] = { MTGP_STATES, 256, 256 } },
};
#define MAX_STATES 81920
#define POISSON_MAX 400000.0 /* the largest lambda NVIDIA's library takes */

/* the engine states of a generator (shared with its queued jobs) */
struct cache {
    pthread_mutex_t lock;
    atomic_int refs;
    enum rng_engine e;
    int ready;
    uint64_t seed;
    union rng_state *st;
    struct mtgp *mt;           /* MTGP32: the states st[s].g points at */
    struct mt19937 *mt19937;   /* MT19937: its generators (mt19937.c), instead of st */
    uint64_t *used;            /* elements state s has consumed */
    /* XORWOW, MRG32k3a, Philox: the element where state s's thread makes
     * its next group in a call that continues (fill_run) */
    uint64_t *next;
    /* D_POIS_N (XORWOW, MRG32k3a): the cosine of state s's last pair,
     * which is its next result where spare_ok[s] */
    float *spare;
    unsigned char *spare_ok;
    uint64_t epoch, end;       /* the settings the last fill ran under; where it ended */
    struct {                   /* the last group made, for a call that starts inside it */
        int valid, d;
        uint64_t grp, at;      /* at: the element of its state where it started */
        _Alignas(8) unsigned char v[256 * 8];
    } pending;
};

struct curandGenerator_st {
    curandRngType_t type;
    enum rng_engine e;
    int quasi;                 /* Sobol': 32 or 64 bits; 0 for the pseudorandom engines */
    int scrambled;
    uint32_t dims;             /* Sobol': dimensions (pos counts points) */
    int host;                  /* curandCreateGeneratorHost: host memory, synchronous */
    CUstream stream;
    unsigned long long seed, pos;
    unsigned long long base;   /* Philox: the offset last set, for a new seed's position */
    uint64_t epoch;            /* changes with the seed and the offset */
    curandOrdering_t ordering;
    struct cache *c;
};

static void cache_put(struct cache *c)
{
    if (atomic_fetch_sub(&c->refs, 1) == 1) {
        pthread_mutex_destroy(&c->lock);
        free(c->st);
        free(c->mt);
        mt19937_free(c->mt19937);
        free(c->used);
        free(c->next);
        free(c->spare);
        free(c->spare_ok);
        free(c);
    }
}

/* every state at element 0 of its subsequence (cache locked) */
static int cache_reset(struct cache *c, uint64_t seed)
{
    if (!c->st) {
        c->st = malloc(MAX_STATES * sizeof *c->st);
        c->used = malloc(MAX_STATES * sizeof *c->used);
        c->next = malloc(MAX_STATES * sizeof *c->next);
        c->spare = malloc(MAX_STATES * sizeof *c->spare);
        c->spare_ok = calloc(MAX_STATES, 1);
        if (c->e == RNG_MTGP32)
            c->mt = malloc(MTGP_STATES * sizeof *c->mt);
        if (!c->st || !c->used || !c->next || !c->spare || !c->spare_ok || (c->e == RNG_MTGP32 && !c->mt))
            return -1;
    }
    uint32_t n = 0;
    for (int d = 0; d < D__N; d++)
        if (layouts[c->e][d].nstates > n)
            n = layouts[c->e][d].nstates;
    for (uint32_t s = 0; s < n; s++) {
        if (c->e == RNG_MTGP32) {
            c->st[s].g = &c->mt[s];
            rng_init(c->e, seed, s, &c->st[s]);
        } else if (s == 0) {
            rng_init(c->e, seed, 0, &c->st[0]);
        } else {
            c->st[s] = c->st[s - 1];
            rng_skip_sub(c->e, &c->st[s], 1);
        }
        c->used[s] = 0;
    }
    memset(c->spare_ok, 0, MAX_STATES);
    c->seed = seed;
    c->ready = 1;
    return 0;
}

/* state s positioned at element elem (cache locked) */
static union rng_state *state_at(struct cache *c, uint32_t s, uint64_t elem)
{
    if (c->used[s] > elem) {
        rng_init(c->e, c->seed, s, &c->st[s]);
        c->used[s] = 0;
    }
    if (c->used[s] < elem)
        rng_skip(c->e, &c->st[s], elem - c->used[s]);
    c->used[s] = elem;
    return &c->st[s];
}

/* ---- distributions: one round of raw elements -> group outputs ---------- */
#define INV32 2.3283064365386963e-10                 /* 2^-32 */
#define INV53 1.1102230246251565e-16                 /* 2^-53 */
#define MRG_NORM 2.3283065498378288e-10
#define PI 3.1415926535897932

static float unif_f(uint32_t x)
{
    return (float)x * (float)INV32 + (float)(INV32 / 2);
}

static double unif_hq(uint32_t x, uint32_t y)
{
    uint64_t z = (uint64_t)x ^ ((uint64_t)y << 21);
    return (double)z * INV53 + INV53 / 2;
}

static void box_muller(float u, float v, float *a, float *b)
{
    float s = sqrtf(-2.0f * logf(u));
    *a = sinf(v) * s;
    *b = cosf(v) * s;
}

static void box_muller_d(double u, double v, double *a, double *b)
{
    double s = sqrt(-2.0 * log(u));
    *a = sin(v * PI) * s;
    *b = cos(v * PI) * s;
}

static void bm_bits(uint32_t x, uint32_t y, float *a, float *b)
{
    box_muller(unif_f(x), (float)y * (float)(INV32 * 2 * PI) + (float)(INV32 * PI), a, b);
}

static void bm_bits_d(uint32_t x0, uint32_t x1, uint32_t y0, uint32_t y1, double *a, double *b)
{
    uint64_t zx = (uint64_t)x0 ^ ((uint64_t)x1 << 21), zy = (uint64_t)y0 ^ ((uint64_t)y1 << 21);
    box_muller_d((double)zx * INV53 + INV53 / 2, (double)zy * (INV53 * 2) + INV53, a, b);
}

/* the standard normal quantile: Wichura's AS241 (PPND16), then one Halley
 * step against erfc in the tails (callers mirror p to at most 1/2 + 2^-33,
 * where erfc has no cancellation) */
static double normal_quantile(double p)
{
    static const double a[8] = { 3.3871328727963666080e0, 1.3314166789178437745e+2, 1.9715909503065514427e+3,
                                 1.3731693765509461125e+4, 4.5921953931549871457e+4, 6.7265770927008700853e+4,
                                 3.3430575583588128105e+4, 2.5090809287301226727e+3 };
    static const double b[8] = { 1.0, 4.2313330701600911252e+1, 6.8718700749205790830e+2, 5.3941960214247511077e+3,
                                 2.1213794301586595867e+4, 3.9307895800092710610e+4, 2.8729085735721942674e+4,
                                 5.2264952788528545610e+3 };
    static const double c[8] = { 1.42343711074968357734e0, 4.63033784615654529590e0, 5.76949722146069140550e0,
                                 3.64784832476320460504e0, 1.27045825245236838258e0, 2.41780725177450611770e-1,
                                 2.27238449892691845833e-2, 7.74545014278341407640e-4 };
    static const double d[8] = { 1.0, 2.05319162663775882187e0, 1.67638483018380384940e0, 6.89767334985100004550e-1,
                                 1.48103976427480074590e-1, 1.51986665636164571966e-2, 5.47593808499534494600e-4,
                                 1.05075007164441684324e-9 };
    static const double e[8] = { 6.65790464350110377720e0, 5.46378491116411436990e0, 1.78482653991729133580e0,
                                 2.96560571828504891230e-1, 2.65321895265761230930e-2, 1.24266094738807843860e-3,
                                 2.71155556874348757815e-5, 2.01033439929228813265e-7 };
    static const double f[8] = { 1.0, 5.99832206555887937690e-1, 1.36929880922735805310e-1, 1.48753612908506148525e-2,
                                 7.86869131145613259100e-4, 1.84631831751005468180e-5, 1.42151175831644588870e-7,
                                 2.04426310338993978564e-15 };
#define POLY(k, x) ((((((((k)[7] * (x) + (k)[6]) * (x) + (k)[5]) * (x) + (k)[4]) * (x) + (k)[3]) * (x) + (k)[2]) * (x) + (k)[1]) * (x) + (k)[0])
    double q = p - 0.5;
    if (fabs(q) <= 0.425) {
        double r = 0.180625 - q * q;
        return q * POLY(a, r) / POLY(b, r);
    }
    double r = sqrt(-log(q < 0 ? p : 1 - p)), x;
    x = r <= 5 ? POLY(c, r - 1.6) / POLY(d, r - 1.6) : POLY(e, r - 5) / POLY(f, r - 5);
#undef POLY
    if (q < 0)
        x = -x;
    /* Halley: err = Phi(x) - p, Phi'(x) = phi(x), Phi''(x) = -x phi(x) */
    double err = 0.5 * erfc(-x / sqrt(2.0)) - p, u = err * sqrt(2 * PI) * exp(x * x / 2);
    return x - u / (1 + x * u / 2);
}

/* the inverse-CDF normal of 32 bits (NVIDIA's host generators: the
 * quantile of p = (x + 1/2) / 2^32, mirrored about 1/2 for precision) */
static double icdf32(uint32_t x, int as_float)
{
    double s = 1;
    if (x > 0x80000000u) {
        x = 0xffffffffu - x;
        s = -1;
    }
    double p = as_float ? (double)((float)x * (float)INV32 + (float)(INV32 / 2)) : (double)x * INV32 + INV32 / 2;
    return s * normal_quantile(p);
}

static double icdf53(uint64_t x)
{
    double s = 1;
    x >>= 11;
    if (x > 0x10000000000000ull) {
        x = 0x1fffffffffffffull - x;
        s = -1;
    }
    return s * normal_quantile((double)x * INV53 + INV53 / 2);
}

/* ---- Poisson: a raw result -> one value ---------------------------------- */
/* h.v NULL: lambda >= 2000, the normal approximation (or lambda NaN) */
struct pois {
    double lambda;
    int itr;                   /* Fishman's inversion (no table) */
    struct poisson_hist h;
};

/* _curand_poisson_ITR_double of NVIDIA's curand_poisson.h: inversion by
 * sequential search, e^-lambda taken in steps of e^-500; u in (0, 1]. The
 * search stops at 2^24 (where rounding leaves the sum below u, NVIDIA's
 * would not stop) */
static uint32_t pois_itr(double u, double lambda)
{
    double l, p = 1.0, q = 1.0;
    uint32_t k = 0;
    int pw = 0;
    do {
        l = lambda > (double)pw + 500.0 ? exp(-500.0) : exp((double)pw - lambda);
        p *= l;
        q *= l;
        pw += 500;
        while (u > q && k < (1u << 24)) {
            k++;
            p *= lambda / (double)k;
            q += p;
        }
    } while ((double)pw < lambda);
    return k;
}

/* x: a 32-bit result, or a 64-bit Sobol' one (bits 64). NVIDIA's host
 * generators (pois_make says which for which lambda): the square histogram
 * (poisson.c) or inversion (pois_itr) of the uniform double
 * x 2^-32 + 2^-32 (64 bits: (x >> 11) 2^-53 + 2^-54), or
 * round(lambda + sqrt(lambda) z) with z the inverse-CDF normal of x (of its
 * high 32 bits for 64); lambda NaN gives 0 (0xffffffff from the
 * quasirandom generators), as NVIDIA's does */
static uint32_t pois_value(const struct pois *p, uint64_t x, int bits, int quasi)
{
    if (p->lambda != p->lambda)
        return quasi ? 0xffffffffu : 0;
    if (p->h.v) {
        double u = bits == 64 ? (double)(x >> 11) * INV53 + INV53 / 2 : (double)(uint32_t)x * INV32 + INV32;
        return poisson_draw(&p->h, u);
    }
    if (p->itr)
        return pois_itr(bits == 64 ? (double)(x >> 11) * INV53 + INV53 / 2 : (double)(uint32_t)x * INV32 + INV32,
                        p->lambda);
    double z = icdf32(bits == 64 ? (uint32_t)(x >> 32) : (uint32_t)x, 0);
    return (uint32_t)(sqrt(p->lambda) * z + p->lambda + 0.5);
}

/* out: GROUP values (uint32, float or double) */
static void round_out(enum rng_engine e, enum dist d, union rng_state *s, void *out)
{
    uint32_t *u = out;
    float *f = out;
    double *g = out;
    const struct layout *l = &layouts[e][d];
    if (e == RNG_MRG32K3A) {
        switch (d) {
        case D_U32:
        case D_POIS: u[0] = rng_u32(e, s); return;
        case D_UNIF: f[0] = (float)(rng_mrg(s) * MRG_NORM); return;
        case D_UNIF_D: g[0] = rng_mrg(s) * MRG_NORM; return;
        case D_NORM:
        case D_POIS_N: { /* D_POIS_N: the pair too (fill_run keeps the cosine) */
            float x = (float)(rng_mrg(s) * MRG_NORM);
            float y = (float)(rng_mrg(s) * MRG_NORM) * (float)(2 * PI);
            box_muller(x, y, &f[0], &f[1]);
            return;
        }
        case D_NORM_D: {
            double x = rng_mrg(s) * MRG_NORM, y = rng_mrg(s) * MRG_NORM * 2.0;
            box_muller_d(x, y, &g[0], &g[1]);
            return;
        }
        case D_U64:
        case D__N: return;
        }
    }
    uint32_t r[256];
    for (uint32_t i = 0; i < l->raw; i++)
        r[i] = rng_u32(e, s);
    if (e == RNG_MTGP32) {
        /* NVIDIA's host MTGP32: an element per output; doubles from 32 bits,
         * normals by the inverse CDF (in float, for doubles too) */
        for (uint32_t i = 0; i < l->group; i++) {
            switch (d) {
            case D_U32:
            case D_POIS:
            case D_POIS_N: u[i] = r[i]; break;
            case D_UNIF: f[i] = unif_f(r[i]); break;
            case D_UNIF_D: g[i] = (double)r[i] * INV32 + INV32; break;
            case D_NORM: f[i] = (float)icdf32(r[i], 1); break;
            case D_NORM_D: g[i] = (float)icdf32(r[i], 1); break;
            case D_U64:
            case D__N: break;
            }
        }
        return;
    }
    switch (d) {
    case D_U32:
    case D_POIS: memcpy(u, r, l->group * 4); break;
    case D_UNIF:
        for (uint32_t i = 0; i < l->group; i++)
            f[i] = unif_f(r[i]);
        break;
    case D_UNIF_D:
        for (uint32_t i = 0; i < l->group; i++)
            g[i] = unif_hq(r[2 * i], r[2 * i + 1]);
        break;
    case D_NORM:
        for (uint32_t i = 0; i < l->group; i += 2)
            bm_bits(r[i], r[i + 1], &f[i], &f[i + 1]);
        break;
    case D_POIS_N: /* Philox: D_NORM's four; XORWOW: the pair (fill_run keeps the cosine) */
        for (uint32_t i = 0; i < (e == RNG_PHILOX ? l->group : 2); i += 2)
            bm_bits(r[i], r[i + 1], &f[i], &f[i + 1]);
        break;
    case D_NORM_D:
        for (uint32_t i = 0; i < l->group; i += 2)
            bm_bits_d(r[2 * i], r[2 * i + 1], r[2 * i + 2], r[2 * i + 3], &g[i], &g[i + 1]);
        break;
    case D_U64:
    case D__N: break;
    }
}

/* ---- Sobol': each dimension's points, one after the other ------------- */
struct qfill {
    struct hl_job h;
    struct sobol_tables t;
    int bits, scrambled, lognormal;
    enum dist d;
    uint32_t dims;
    uint64_t pos;
    size_t n;
    void *out;
    double mean, stddev;
    struct pois p;
};

static void quasi_out(const struct qfill *j, uint64_t x, void *o)
{
    float f;
    double g;
    uint32_t hi = j->bits == 32 ? (uint32_t)x : (uint32_t)(x >> 32);
    switch (j->d) {
    case D_U32: memcpy(o, &hi, 4); return;
    case D_U64: memcpy(o, &x, 8); return;
    case D_POIS:
    case D_POIS_N: {
        uint32_t r = pois_value(&j->p, j->bits == 32 ? hi : x, j->bits, 1);
        memcpy(o, &r, 4);
        return;
    }
    case D_UNIF: f = unif_f(hi); memcpy(o, &f, 4); return;
    case D_UNIF_D:
        g = j->bits == 32 ? (double)hi * INV32 + INV32 : (double)(x >> 11) * INV53 + INV53 / 2;
        memcpy(o, &g, 8);
        return;
    case D_NORM:
        f = (float)j->mean + (float)j->stddev * (float)icdf32(hi, 1);
        if (j->lognormal)
            f = expf(f);
        memcpy(o, &f, 4);
        return;
    case D_NORM_D:
        g = j->mean + j->stddev * (j->bits == 32 ? icdf32(hi, 0) : icdf53(x));
        if (j->lognormal)
            g = exp(g);
        memcpy(o, &g, 8);
        return;
    case D__N: return;
    }
}

static void qfill_run(struct hl_job *hj)
{
    const struct qfill *j = (const struct qfill *)hj;
    size_t per = j->n / j->dims, es = j->d == D_U32 || j->d == D_UNIF || j->d == D_NORM || j->d == D_POIS ? 4 : 8;
    uint64_t gray = j->pos ^ (j->pos >> 1);
    if (j->scrambled && j->bits == 64)
        gray &= 0xffffffffu; /* NVIDIA's scrambled Sobol64 starts from the low 32 bits (read off its host generator) */
    for (uint32_t d = 0; d < j->dims; d++) {
        uint64_t x = 0;
        if (j->scrambled)
            x = j->bits == 32 ? j->t.c32[d] : j->t.c64[d];
        for (int b = 0; b < j->bits; b++)
            if ((gray >> b) & 1)
                x ^= j->bits == 32 ? j->t.v32[d][b] : j->t.v64[d][b];
        char *o = (char *)j->out + d * per * es;
        for (size_t i = 0; i < per; i++) {
            quasi_out(j, x, o + i * es);
            uint64_t next = j->pos + i + 1;
            int b = next ? __builtin_ctzll(next) : 64; /* the next point differs in direction b */
            if (b < j->bits)
                x ^= j->bits == 32 ? j->t.v32[d][b] : j->t.v64[d][b];
        }
    }
}

struct fill {
    struct hl_job h;
    struct cache *c;
    enum dist d;
    int lognormal;
    uint64_t seed, start, epoch;
    size_t n, adv;             /* adv: how far the call moves the generator's position */
    void *out;
    double mean, stddev;
    struct pois p;
};

/* MT19937: one word per output, whatever the distribution (read off
 * NVIDIA's host generator) */
static void fill_mt19937(struct fill *j)
{
    size_t es = j->d == D_UNIF_D || j->d == D_NORM_D ? 8 : 4;
    uint32_t w[4096];
    for (size_t i = 0; i < j->n; i += 4096) {
        size_t m = j->n - i < 4096 ? j->n - i : 4096;
        mt19937_words(j->c->mt19937, j->seed, j->start + i, w, m);
        for (size_t k = 0; k < m; k++) {
            char *o = (char *)j->out + (i + k) * es;
            float f;
            double g;
            uint32_t u;
            switch (j->d) {
            case D_U32: memcpy(o, &w[k], 4); break;
            case D_UNIF: f = (float)((double)w[k] * INV32 + INV32 / 2); memcpy(o, &f, 4); break;
            case D_UNIF_D: g = (double)w[k] * INV32 + INV32 / 2; memcpy(o, &g, 8); break;
            case D_NORM:
                f = (float)j->mean + (float)j->stddev * (float)icdf32(w[k], 0);
                if (j->lognormal)
                    f = expf(f);
                memcpy(o, &f, 4);
                break;
            case D_NORM_D:
                g = j->mean + j->stddev * icdf32(w[k], 0);
                if (j->lognormal)
                    g = exp(g);
                memcpy(o, &g, 8);
                break;
            case D_POIS_N: /* from lambda 2000: NVIDIA's normal approximation, rounded to float */
                if (j->p.lambda == j->p.lambda) {
                    u = (uint32_t)(float)(sqrt(j->p.lambda) * icdf32(w[k], 0) + j->p.lambda + 0.5);
                    memcpy(o, &u, 4);
                    break;
                }
                /* fall through */
            case D_POIS: u = pois_value(&j->p, w[k], 32, 0); memcpy(o, &u, 4); break;
            case D_U64:
            case D__N: break;
            }
        }
    }
}

static void fill_run(struct hl_job *hj)
{
    struct fill *j = (struct fill *)hj;
    struct cache *c = j->c;
    pthread_mutex_lock(&c->lock);
    if (c->mt19937) {
        fill_mt19937(j);
        pthread_mutex_unlock(&c->lock);
        return;
    }
    if ((!c->ready || c->seed != j->seed) && cache_reset(c, j->seed)) {
        pthread_mutex_unlock(&c->lock);
        return; /* checked at the call: cache_reset's memory was allocated there */
    }
    const struct layout *l = &layouts[c->e][j->d];
    size_t es = j->d == D_UNIF_D || j->d == D_NORM_D ? 8 : 4;
    /* MTGP32's output is one stream (state s's block r is outputs
     * (r * 192 + s) * 256 on): each state is positioned exactly */
    int same = c->epoch == j->epoch && c->end == j->start, continuing = same && c->e != RNG_MTGP32;
    unsigned char *buf = c->pending.v;
    /* XORWOW and MRG32k3a: the position counts groups for the normal
     * distributions, outputs otherwise; Philox's counts outputs (MTGP32
     * takes no offset: start is where the last call stopped) */
    uint64_t q0 = (j->d == D_NORM || j->d == D_NORM_D) && (c->e == RNG_XORWOW || c->e == RNG_MRG32K3A)
                      ? j->start * l->group : j->start;
    /* XORWOW and MRG32k3a's D_POIS_N: a state's pair of normals makes its
     * results in two rounds, the sine in the even one (NVIDIA's layout) */
    int pairs = j->d == D_POIS_N && c->e != RNG_PHILOX && c->e != RNG_MTGP32;
    /* XORWOW, MRG32k3a and Philox starting afresh: NVIDIA's thread t
     * (groups t, t + nstates, ...) starts at round (g0 + t) / nstates of its
     * subsequence, g0 the call's first group, whatever RAW is, a round
     * being one element (XORWOW, MRG32k3a) or one Philox block of four
     * (read off its host generators after offsets past one round); every
     * state is put there, also those the call does not reach, where a
     * later call that continues finds them (Philox: read off NVIDIA's) */
    int by_thread = c->e == RNG_XORWOW || c->e == RNG_MRG32K3A || c->e == RNG_PHILOX;
    uint64_t unit = c->e == RNG_PHILOX ? 4 : 1;
    uint64_t g0 = q0 / l->group;
    if (by_thread && !continuing)
        for (uint32_t s = 0; s < l->nstates; s++) {
            uint64_t t = (s + l->nstates - g0 % l->nstates) % l->nstates; /* the thread on state s */
            c->next[s] = (g0 + t) / l->nstates * unit;
        }
    if (!pairs || !same)
        memset(c->spare_ok, 0, MAX_STATES);
    for (size_t i = 0; i < j->n;) {
        uint64_t q = q0 + i, grp = q / l->group, w = q % l->group;
        uint32_t s = (uint32_t)(grp % l->nstates);
        uint64_t r = grp / l->nstates;
        if (pairs) {
            float z;
            if (c->spare_ok[s]) {
                z = c->spare[s];
                c->spare_ok[s] = 0;
            } else {
                uint64_t at = c->next[s];
                round_out(c->e, j->d, state_at(c, s, at), buf);
                c->used[s] += 2;
                c->next[s] = at + 2;
                z = ((float *)buf)[0];
                c->spare[s] = ((float *)buf)[1];
                c->spare_ok[s] = 1;
            }
            uint32_t x = (uint32_t)(sqrt(j->p.lambda) * (double)z + j->p.lambda + 0.5);
            memcpy((char *)j->out + i * 4, &x, 4);
            i++;
            continue;
        }
        /* a call that continues inside the last call's last group: that
         * group again, from the element where it started (Philox, whose
         * groups of four outputs another distribution can end inside: read
         * off NVIDIA's host generator) */
        int inside = i == 0 && w && same && c->pending.valid && c->pending.grp == grp;
        if (!(inside && c->pending.d == (int)j->d)) {
            uint64_t at = inside && continuing ? c->pending.at : by_thread ? c->next[s] : r * l->raw;
            round_out(c->e, j->d, state_at(c, s, at), buf);
            c->used[s] += l->raw;
            if (by_thread)
                c->next[s] = at + l->raw;
            c->pending.valid = 1;
            c->pending.d = (int)j->d;
            c->pending.grp = grp;
            c->pending.at = at;
        }
        for (; w < l->group && i < j->n; w++, i++) {
            char *o = (char *)j->out + i * es;
            if (j->d == D_NORM) {
                float v = (float)j->mean + (float)j->stddev * ((float *)buf)[w];
                if (j->lognormal)
                    v = expf(v);
                memcpy(o, &v, 4);
            } else if (j->d == D_NORM_D) {
                double v = j->mean + j->stddev * ((double *)buf)[w];
                if (j->lognormal)
                    v = exp(v);
                memcpy(o, &v, 8);
            } else if (j->d == D_POIS) {
                uint32_t x;
                memcpy(&x, buf + w * 4, 4);
                x = pois_value(&j->p, x, 32, 0);
                memcpy(o, &x, 4);
            } else if (j->d == D_POIS_N) {
                double z = ((float *)buf)[w];
                uint32_t x = (uint32_t)(sqrt(j->p.lambda) * z + j->p.lambda + 0.5);
                memcpy(o, &x, 4);
            } else {
                memcpy(o, buf + w * es, es);
            }
        }
    }
    c->epoch = j->epoch;
    c->end = j->start + j->adv;
    pthread_mutex_unlock(&c->lock);
}

static void fill_fini(struct hl_job *hj)
{
    cache_put(((struct fill *)hj)->c);
    poisson_hist_free(&((struct fill *)hj)->p.h);
}

static void qfill_fini(struct hl_job *hj)
{
    poisson_hist_free(&((struct qfill *)hj)->p.h);
}

/* how NVIDIA's host generators make Poisson values for lambda (checked by
 * the caller), read off them:
 *   XORWOW, MRG32k3a, Philox: the square histogram below 2000, then the
 *     normal approximation from Box-Muller normals (D_POIS_N);
 *   MTGP32: the square histogram below 32, inversion to 8000, the normal
 *     approximation (inverse CDF) above;
 *   32-bit Sobol': the same with the square histogram below 10;
 *   64-bit Sobol': inversion below 2000, the normal approximation from. */
static curandStatus_t pois_make(const struct curandGenerator_st *g, double lambda, struct pois *p)
{
    double m2_below = g->quasi == 64 ? 0 : g->quasi == 32 ? 10 : g->e == RNG_MTGP32 ? 32 : POISSON_NORMAL_MIN;
    memset(p, 0, sizeof *p);
    p->lambda = lambda;
    if (lambda != lambda)
        return CURAND_STATUS_SUCCESS;
    if (lambda >= m2_below) {
        p->itr = m2_below < POISSON_NORMAL_MIN && (g->quasi == 64 ? lambda < POISSON_NORMAL_MIN : lambda <= 8000);
        return CURAND_STATUS_SUCCESS;
    }
    return poisson_hist(lambda, &p->h) ? CURAND_STATUS_ALLOCATION_FAILED : CURAND_STATUS_SUCCESS;
}

/* ---- entry points ---------------------------------------------------------- */
static curandStatus_t create(curandGenerator_t *g, curandRngType_t type, int host)
{
    if (!g)
        return CURAND_STATUS_OUT_OF_RANGE;
    enum rng_engine e = RNG_XORWOW;
    int quasi = 0, scrambled = 0;
    switch (type) {
    case CURAND_RNG_PSEUDO_DEFAULT:
    case CURAND_RNG_PSEUDO_XORWOW: e = RNG_XORWOW; break;
    case CURAND_RNG_PSEUDO_MRG32K3A: e = RNG_MRG32K3A; break;
    case CURAND_RNG_PSEUDO_PHILOX4_32_10: e = RNG_PHILOX; break;
    case CURAND_RNG_PSEUDO_MTGP32:
        if (mtgp_sets() < MTGP_STATES)
            return CURAND_STATUS_TYPE_ERROR; /* built without NVIDIA's parameter sets: see docs/hostlib.md */
        e = RNG_MTGP32;
        break;
    case CURAND_RNG_QUASI_DEFAULT:
    case CURAND_RNG_QUASI_SOBOL32: quasi = 32; break;
    case CURAND_RNG_QUASI_SCRAMBLED_SOBOL32: quasi = 32, scrambled = 1; break;
    case CURAND_RNG_QUASI_SOBOL64: quasi = 64; break;
    case CURAND_RNG_QUASI_SCRAMBLED_SOBOL64: quasi = 64, scrambled = 1; break;
    case CURAND_RNG_PSEUDO_MT19937: e = RNG_MT19937; break; /* its generators: cache.mt19937 */
    case CURAND_RNG_TEST:
    default:
        return CURAND_STATUS_TYPE_ERROR; /* not implemented here: see docs/hostlib.md */
    }
    struct sobol_tables t;
    switch (quasi ? sobol_tables(scrambled, &t) : 0) {
    case 0: break;
    case -1: return CURAND_STATUS_TYPE_ERROR; /* built without the direction numbers: see docs/hostlib.md */
    default: return CURAND_STATUS_ALLOCATION_FAILED;
    }
    if (!host && hl_init() != HL_OK)
        return CURAND_STATUS_INITIALIZATION_FAILED;
    struct curandGenerator_st *gen = calloc(1, sizeof *gen);
    struct cache *c = calloc(1, sizeof *c);
    if (c && e == RNG_MT19937 && !(c->mt19937 = mt19937_new())) {
        free(c);
        c = NULL;
    }
    if (!gen || !c || hl_handle_add(gen, GEN_KIND)) {
        free(gen);
        if (c)
            mt19937_free(c->mt19937);
        free(c);
        return CURAND_STATUS_ALLOCATION_FAILED;
    }
    pthread_mutex_init(&c->lock, NULL);
    atomic_init(&c->refs, 1);
    c->e = e;
    gen->type = type;
    gen->e = e;
    gen->quasi = quasi;
    gen->scrambled = scrambled;
    gen->dims = 1;
    gen->host = host;
    gen->seed = 0;
    gen->epoch = 1; /* the cache's is 0: the first fill starts afresh */
    gen->ordering = quasi ? CURAND_ORDERING_QUASI_DEFAULT : CURAND_ORDERING_PSEUDO_DEFAULT;
    gen->c = c;
    *g = gen;
    return CURAND_STATUS_SUCCESS;
}

HL_EXPORT curandStatus_t curandCreateGenerator(curandGenerator_t *generator, curandRngType_t rng_type)
{
    return create(generator, rng_type, 0);
}

HL_EXPORT curandStatus_t curandCreateGeneratorHost(curandGenerator_t *generator, curandRngType_t rng_type)
{
    return create(generator, rng_type, 1);
}

static struct curandGenerator_st *live(curandGenerator_t g)
{
    return hl_handle_live(g, GEN_KIND) ? g : NULL;
}

HL_EXPORT curandStatus_t curandDestroyGenerator(curandGenerator_t g)
{
    if (!hl_handle_remove(g, GEN_KIND))
        return CURAND_STATUS_NOT_INITIALIZED;
    cache_put(g->c); /* queued jobs hold their own reference */
    free(g);
    return CURAND_STATUS_SUCCESS;
}

HL_EXPORT curandStatus_t curandGetVersion(int *version)
{
    if (!version)
        return CURAND_STATUS_OUT_OF_RANGE;
    *version = VERSION;
    return CURAND_STATUS_SUCCESS;
}

HL_EXPORT curandStatus_t curandGetProperty(libraryPropertyType type, int *value)
{
    if (!value)
        return CURAND_STATUS_OUT_OF_RANGE;
    switch (type) {
    case MAJOR_VERSION: *value = VERSION / 1000; return CURAND_STATUS_SUCCESS;
    case MINOR_VERSION: *value = VERSION / 100 % 10; return CURAND_STATUS_SUCCESS;
    case PATCH_LEVEL: *value = VERSION % 100; return CURAND_STATUS_SUCCESS;
    }
    return CURAND_STATUS_OUT_OF_RANGE;
}

HL_EXPORT curandStatus_t curandSetStream(curandGenerator_t g, cudaStream_t stream)
{
    if (!live(g))
        return CURAND_STATUS_NOT_INITIALIZED;
    g->stream = (CUstream)stream;
    return CURAND_STATUS_SUCCESS;
}

HL_EXPORT curandStatus_t curandSetPseudoRandomGeneratorSeed(curandGenerator_t g, unsigned long long seed)
{
    if (!live(g))
        return CURAND_STATUS_NOT_INITIALIZED;
    if (g->quasi)
        return CURAND_STATUS_TYPE_ERROR;
    /* the same seed again changes nothing: the next call continues (read
     * off NVIDIA's host generators) */
    if (seed == g->seed)
        return CURAND_STATUS_SUCCESS;
    /* the offset stays; MTGP32 and MT19937, which have none, start again on a new seed */
    if (g->e == RNG_MTGP32 || g->e == RNG_MT19937)
        g->pos = 0;
    /* Philox: a new seed moves the position from P to B + P / 4 - B / 4,
     * B the offset last set (or the position the last such move gave),
     * which it becomes; where that is 0 (B 0, P < 4) P and B stay (read off
     * NVIDIA's host generator: its numbers after the new seed are those of
     * an offset to that position) */
    unsigned long long moved = g->base + g->pos / 4 - g->base / 4;
    if (g->e == RNG_PHILOX && moved)
        g->pos = g->base = moved;
    g->seed = seed;
    g->epoch++;
    return CURAND_STATUS_SUCCESS;
}

HL_EXPORT curandStatus_t curandSetGeneratorOffset(curandGenerator_t g, unsigned long long offset)
{
    if (!live(g))
        return CURAND_STATUS_NOT_INITIALIZED;
    if ((g->e == RNG_MTGP32 || g->e == RNG_MT19937) && !g->quasi)
        return CURAND_STATUS_TYPE_ERROR; /* as NVIDIA's: MTGP32 and MT19937 have no offset */
    g->pos = offset;
    g->base = offset;
    g->epoch++;
    return CURAND_STATUS_SUCCESS;
}

/* the position (in points) stays */
HL_EXPORT curandStatus_t curandSetQuasiRandomGeneratorDimensions(curandGenerator_t g, unsigned int num_dimensions)
{
    if (!live(g))
        return CURAND_STATUS_NOT_INITIALIZED;
    if (!g->quasi)
        return CURAND_STATUS_TYPE_ERROR;
    if (num_dimensions == 0 || num_dimensions > SOBOL_DIMS)
        return CURAND_STATUS_OUT_OF_RANGE;
    g->dims = num_dimensions;
    return CURAND_STATUS_SUCCESS;
}

HL_EXPORT curandStatus_t curandSetGeneratorOrdering(curandGenerator_t g, curandOrdering_t order)
{
    if (!live(g))
        return CURAND_STATUS_NOT_INITIALIZED;
    if (g->quasi)
        return order == CURAND_ORDERING_QUASI_DEFAULT ? CURAND_STATUS_SUCCESS : CURAND_STATUS_OUT_OF_RANGE;
    if (g->e == RNG_MT19937) { /* NVIDIA's takes these two, with one layout */
        if (order != CURAND_ORDERING_PSEUDO_DEFAULT && order != CURAND_ORDERING_PSEUDO_LEGACY)
            return CURAND_STATUS_OUT_OF_RANGE;
        g->ordering = order;
        return CURAND_STATUS_SUCCESS;
    }
    switch (order) {
    case CURAND_ORDERING_PSEUDO_BEST:
    case CURAND_ORDERING_PSEUDO_DEFAULT:
    case CURAND_ORDERING_PSEUDO_LEGACY:
        g->ordering = order;
        return CURAND_STATUS_SUCCESS;
    case CURAND_ORDERING_PSEUDO_SEEDED:
    case CURAND_ORDERING_PSEUDO_DYNAMIC:
        return CURAND_STATUS_ARCH_MISMATCH; /* valid, not implemented here */
    case CURAND_ORDERING_QUASI_DEFAULT:
        break;
    }
    return CURAND_STATUS_OUT_OF_RANGE;
}

HL_EXPORT curandStatus_t curandGenerateSeeds(curandGenerator_t g)
{
    return live(g) ? CURAND_STATUS_SUCCESS : CURAND_STATUS_NOT_INITIALIZED;
}

/* runs a host generator's job now, queues a device generator's on its stream */
static curandStatus_t run_job(curandGenerator_t g, struct hl_job *j, void *out, size_t bytes)
{
    if (g->host) {
        j->run(j);
        hl_job_free(j);
        return CURAND_STATUS_SUCCESS;
    }
    if (hl_job_hold(j, out, bytes)) {
        hl_job_free(j);
        return CURAND_STATUS_OUT_OF_RANGE; /* not device memory of that size */
    }
    switch (hl_job_submit(j, g->stream, 0)) {
    case HL_SUBMITTED: return CURAND_STATUS_SUCCESS;
    case HL_CAPTURING: return CURAND_STATUS_ARCH_MISMATCH; /* not recorded into a graph: the job works on the generator's state (hl_capture_refusal) */
    case HL_SUBMIT_FAILED: return CURAND_STATUS_LAUNCH_FAILURE;
    }
    return CURAND_STATUS_INTERNAL_ERROR;
}

/* Sobol': n / dims points of each dimension, dimension after dimension */
static curandStatus_t generate_quasi(curandGenerator_t g, enum dist d, void *out, size_t n, double mean,
                                     double stddev, int lognormal)
{
    size_t es = d == D_U32 || d == D_UNIF || d == D_NORM || d == D_POIS ? 4 : 8;
    if ((d == D_U32 && g->quasi != 32) || (d == D_U64 && g->quasi != 64))
        return CURAND_STATUS_TYPE_ERROR;
    if (n % g->dims)
        return CURAND_STATUS_LENGTH_NOT_MULTIPLE;
    if (n > SIZE_MAX / es || g->pos > UINT64_MAX - n / g->dims)
        return CURAND_STATUS_OUT_OF_RANGE;
    if (n == 0)
        return CURAND_STATUS_SUCCESS;
    if (d == D_POIS && (mean <= 0 || mean > POISSON_MAX))
        return CURAND_STATUS_OUT_OF_RANGE;
    if (!out)
        return CURAND_STATUS_OUT_OF_RANGE;
    struct qfill *j = hl_job_new(sizeof *j, qfill_run);
    if (!j)
        return CURAND_STATUS_ALLOCATION_FAILED;
    j->h.fini = qfill_fini;
    if (d == D_POIS && pois_make(g, mean, &j->p)) {
        hl_job_free(&j->h);
        return CURAND_STATUS_ALLOCATION_FAILED;
    }
    if (sobol_tables(g->scrambled, &j->t)) { /* built at creation */
        hl_job_free(&j->h);
        return CURAND_STATUS_INTERNAL_ERROR;
    }
    hl_note("host generator");
    j->bits = g->quasi;
    j->scrambled = g->scrambled;
    j->lognormal = lognormal;
    j->d = d;
    j->dims = g->dims;
    j->pos = g->pos;
    j->n = n;
    j->out = out;
    j->mean = mean;
    j->stddev = stddev;
    curandStatus_t st = run_job(g, &j->h, out, n * es);
    if (st == CURAND_STATUS_SUCCESS)
        g->pos += n / g->dims;
    return st;
}

static curandStatus_t generate(curandGenerator_t g, enum dist d, void *out, size_t n, double mean, double stddev,
                               int lognormal)
{
    if (!live(g))
        return CURAND_STATUS_NOT_INITIALIZED;
    if (g->quasi)
        return generate_quasi(g, d, out, n, mean, stddev, lognormal);
    if (d == D_U64)
        return CURAND_STATUS_TYPE_ERROR; /* 64-bit results come only from the 64-bit quasirandom generators */
    size_t es = d == D_UNIF_D || d == D_NORM_D ? 8 : 4;
    if ((d == D_NORM || d == D_NORM_D) && (n & 1) && g->e != RNG_MT19937)
        return CURAND_STATUS_LENGTH_NOT_MULTIPLE;
    if (n > SIZE_MAX / es || g->pos > UINT64_MAX - n)
        return CURAND_STATUS_OUT_OF_RANGE;
    /* XORWOW and MRG32k3a: the position (the offset too) counts groups, one
     * per thread of NVIDIA's host generator, which a call of normals
     * advances by n / 2 (read off its host generators) */
    size_t adv = g->e == RNG_XORWOW || g->e == RNG_MRG32K3A ? n / layouts[g->e][d].group : n;
    if (n == 0)
        return CURAND_STATUS_SUCCESS;
    if ((d == D_POIS || d == D_POIS_N) && (mean <= 0 || mean > POISSON_MAX))
        return CURAND_STATUS_OUT_OF_RANGE;
    if (!out)
        return CURAND_STATUS_OUT_OF_RANGE;
    struct cache *c = g->c;
    /* the states' memory now, so that the job cannot fail on it */
    pthread_mutex_lock(&c->lock);
    int bad = !c->mt19937 && !c->ready && cache_reset(c, g->seed);
    pthread_mutex_unlock(&c->lock);
    if (bad)
        return CURAND_STATUS_ALLOCATION_FAILED;
    hl_note("host generator"); /* tdtrace -e lib= shows it */
    struct fill *j = hl_job_new(sizeof *j, fill_run);
    if (!j)
        return CURAND_STATUS_ALLOCATION_FAILED;
    if ((d == D_POIS || d == D_POIS_N) && pois_make(g, mean, &j->p)) {
        hl_job_free(&j->h);
        return CURAND_STATUS_ALLOCATION_FAILED;
    }
    atomic_fetch_add(&c->refs, 1);
    j->c = c;
    j->h.fini = fill_fini;
    j->d = d;
    j->lognormal = lognormal;
    j->seed = g->seed;
    j->start = g->pos;
    j->adv = adv;
    j->epoch = g->epoch;
    j->n = n;
    j->out = out;
    j->mean = mean;
    j->stddev = stddev;
    curandStatus_t st = run_job(g, &j->h, out, n * es);
    if (st == CURAND_STATUS_SUCCESS)
        g->pos += adv;
    return st;
}

HL_EXPORT curandStatus_t curandGenerate(curandGenerator_t g, unsigned int *out, size_t num)
{
    return generate(g, D_U32, out, num, 0, 0, 0);
}

HL_EXPORT curandStatus_t curandGenerateLongLong(curandGenerator_t g, unsigned long long *out, size_t num)
{
    return generate(g, D_U64, out, num, 0, 0, 0);
}

HL_EXPORT curandStatus_t curandGenerateUniform(curandGenerator_t g, float *out, size_t num)
{
    return generate(g, D_UNIF, out, num, 0, 0, 0);
}

HL_EXPORT curandStatus_t curandGenerateUniformDouble(curandGenerator_t g, double *out, size_t num)
{
    return generate(g, D_UNIF_D, out, num, 0, 0, 0);
}

HL_EXPORT curandStatus_t curandGenerateNormal(curandGenerator_t g, float *out, size_t n, float mean, float stddev)
{
    return generate(g, D_NORM, out, n, mean, stddev, 0);
}

HL_EXPORT curandStatus_t curandGenerateNormalDouble(curandGenerator_t g, double *out, size_t n, double mean,
                                                    double stddev)
{
    return generate(g, D_NORM_D, out, n, mean, stddev, 0);
}

HL_EXPORT curandStatus_t curandGenerateLogNormal(curandGenerator_t g, float *out, size_t n, float mean,
                                                 float stddev)
{
    return generate(g, D_NORM, out, n, mean, stddev, 1);
}

HL_EXPORT curandStatus_t curandGenerateLogNormalDouble(curandGenerator_t g, double *out, size_t n, double mean,
                                                       double stddev)
{
    return generate(g, D_NORM_D, out, n, mean, stddev, 1);
}

HL_EXPORT curandStatus_t curandGeneratePoisson(curandGenerator_t g, unsigned int *out, size_t n, double lambda)
{
    int normal = live(g) && !g->quasi && g->e != RNG_MTGP32 && lambda >= POISSON_NORMAL_MIN;
    return generate(g, normal ? D_POIS_N : D_POIS, out, n, lambda, 0, 0);
}

/* NVIDIA's "just for internal usage" entry: its host generators take only
 * CURAND_DEVICE_API (the device API's per-state algorithms, which give other
 * numbers: not implemented here), answer CURAND_3RD with
 * PREEXISTING_FAILURE and every other method with INTERNAL_ERROR */
HL_EXPORT curandStatus_t curandGeneratePoissonMethod(curandGenerator_t g, unsigned int *out, size_t n, double lambda,
                                                     curandMethod_t method)
{
    (void)out, (void)n, (void)lambda;
    if (!live(g))
        return CURAND_STATUS_NOT_INITIALIZED;
    switch (method) {
    case CURAND_DEVICE_API: return CURAND_STATUS_ARCH_MISMATCH;
    case CURAND_3RD: return CURAND_STATUS_PREEXISTING_FAILURE;
    case CURAND_CHOOSE_BEST:
    case CURAND_ITR:
    case CURAND_KNUTH:
    case CURAND_HITR:
    case CURAND_M1:
    case CURAND_M2:
    case CURAND_BINARY_SEARCH:
    case CURAND_DISCRETE_GAUSS:
    case CURAND_REJECTION:
    case CURAND_FAST_REJECTION:
    case CURAND_DEFINITION:
    case CURAND_POISSON:
        break;
    }
    return CURAND_STATUS_INTERNAL_ERROR;
}
