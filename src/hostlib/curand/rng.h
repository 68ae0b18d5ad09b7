/* SPDX-License-Identifier: Apache-2.0 */
/* cuRAND on the host: the engines (engines.c) and the generators
 * (generator.c) that lay their output out as NVIDIA's library does. */
#ifndef TD_HOSTLIB_RNG_H
#define TD_HOSTLIB_RNG_H

#include <stddef.h>
#include <stdint.h>

/* RNG_MT19937 has no per-state engine here: its generators are
 * mt19937.c's, and the rng_* functions below do nothing for it */
enum rng_engine { RNG_XORWOW, RNG_MRG32K3A, RNG_PHILOX, RNG_MTGP32, RNG_MT19937, RNG__N };

struct xorwow { uint32_t v[5], d; };
struct mrg { uint32_t s1[3], s2[3]; };
struct philox {
    uint32_t key[2];
    uint64_t sub, elem;       /* subsequence; next element in it */
    uint64_t block;           /* the block in out */
    int valid;
    uint32_t out[4];
};
struct mtgp;
/* MTGP32's 4 KiB states live elsewhere (the caller points g at one before
 * rng_init); its subsequences are its parameter sets */
union rng_state { struct xorwow x; struct mrg m; struct philox p; struct mtgp *g; };

/* the state at element 0 of subsequence sub for seed */
void rng_init(enum rng_engine e, uint64_t seed, uint64_t sub, union rng_state *s);
/* advances n elements */
void rng_skip(enum rng_engine e, union rng_state *s, uint64_t n);
/* advances n subsequences (the same element of subsequence + n) */
void rng_skip_sub(enum rng_engine e, union rng_state *s, uint64_t n);
/* the next element as curand() returns it */
uint32_t rng_u32(enum rng_engine e, union rng_state *s);
/* MRG32k3a: the next element as a double in (0, m1] */
double rng_mrg(union rng_state *s);

/* MTGP32 (mtgp.c): one state of parameter set set (< mtgp_sets(), which
 * is 0 when the build had no parameter sets) */
struct mtgp { uint32_t s[1024]; uint32_t offset; int set; uint64_t seed; };
int mtgp_sets(void);
/* seed: the generator's; set s starts from (seed ^ seed >> 32) + s + 1 as
 * curandMakeMTGP32KernelState does */
void mtgp_init(struct mtgp *m, int set, uint64_t seed);
uint32_t mtgp_u32(struct mtgp *m);
float mtgp_float(struct mtgp *m); /* curand_mtgp32_single's float in [1, 2) */

/* Sobol' (sobol.c): the tables of one set, built on first use and kept;
 * c32/c64 (the scramble constants) NULL for the plain set. Returns 0, -1
 * when the build had no direction numbers (tools/gen-sobol.py), -2 when
 * memory ran out. */
#define SOBOL_DIMS 20000
struct sobol_tables {
    const uint32_t (*v32)[32];
    const uint64_t (*v64)[64];
    const uint32_t *c32;
    const uint64_t *c64;
};
int sobol_tables(int scrambled, struct sobol_tables *t);

/* MT19937 (mt19937.c): NVIDIA's host layout of 8192 generators of 8
 * threads; mt19937_words writes results pos .. pos + n - 1 of the stream of
 * seed (positions of one seed only move forward cheaply; a new seed starts
 * again). The rest is for tests: init_genrand, n single steps, a jump of
 * 2^k steps by mt19937_jump.h's table (-2: no polynomial for k, -1: no
 * memory). */
#define MT19937_N 624
#define MT19937_THREADS 65536u
struct mt19937;
struct mt19937 *mt19937_new(void);
void mt19937_free(struct mt19937 *m);
void mt19937_words(struct mt19937 *m, uint64_t seed, uint64_t pos, uint32_t *out, size_t n);
void mt19937_init_genrand(uint32_t *s, uint32_t seed);
void mt19937_step(uint32_t *s, uint64_t n);
int mt19937_jump_k(uint32_t *s, int k);

/* Poisson (poisson.c): NVIDIA's square histogram for 0 < lambda < 2000
 * (from 2000 on its library uses a normal approximation); v and k have
 * length + 1 entries (the last V 0, K 0). poisson_hist returns 0, -1 when
 * memory ran out, -2 for a lambda out of that range. */
#define POISSON_NORMAL_MIN 2000.0
struct poisson_hist { uint32_t shift, length; double *v; uint32_t *k; };
int poisson_hist(double lambda, struct poisson_hist *h);
void poisson_hist_free(struct poisson_hist *h);
/* the result for a uniform u in (0, 1] */
uint32_t poisson_draw(const struct poisson_hist *h, double u);

#endif
