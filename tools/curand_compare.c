/* SPDX-License-Identifier: Apache-2.0 */
/* Random sequences of cuRAND host API calls on two libraries at once
 * (NVIDIA's libcurand.so.10 and tdtrace's, each loaded by path with
 * dlopen), each on a host generator (curandCreateGeneratorHost: no GPU
 * needed) of one type with seed 1234: 32-bit results, uniform floats and
 * doubles, normal and log-normal floats and doubles, Poisson (lambda 3.5,
 * 77.7, 1999.5, 2000, 2500, 54321.5), offsets and seeds (1234 again in a
 * third of them), with sizes from 0 to 600,000 (around one round of
 * Philox's states too). Prints the first difference of each sequence
 * (normals within 4e-6 and 1e-13 of 1 + |value|, the rest bit for bit) and
 * exits 1 if there was one. How docs/hostlib.md's Philox rules were found.
 *   cc -std=c11 -O2 -o curand_compare tools/curand_compare.c -ldl -lm
 *   LD_LIBRARY_PATH=build/lib/tdtrace/emu ./curand_compare \
 *       /usr/local/cuda/lib64/libcurand.so.10 build/lib/tdtrace/host/libcurand.so.10 \
 *       SEQUENCES CALLS [KINDS [RANDOM-SEED [TYPE]]]
 * KINDS: letters drawn from at random, default ufdnNlLpos: u 32-bit, f
 * uniform float, d uniform double, n/N normal float/double, l/L log-normal,
 * p Poisson, o an offset, s a seed; TYPE: curandRngType_t (default 161,
 * Philox4x32-10). SMALL=1: sizes below 13 and offsets below 9; BIG=1:
 * offsets below 2^42. */
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int status;
typedef void *gen;
static struct lib {
    status (*create)(gen *, int), (*destroy)(gen);
    status (*seed)(gen, unsigned long long), (*offset)(gen, unsigned long long);
    status (*u32)(gen, unsigned *, size_t), (*unif)(gen, float *, size_t), (*unifd)(gen, double *, size_t);
    status (*norm)(gen, float *, size_t, float, float), (*normd)(gen, double *, size_t, double, double);
    status (*lnorm)(gen, float *, size_t, float, float), (*lnormd)(gen, double *, size_t, double, double);
    status (*pois)(gen, unsigned *, size_t, double);
} libs[2];

static int load(struct lib *l, const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "curand_compare: %s\n", dlerror());
        return -1;
    }
#define SYM(f, name) *(void **)&l->f = dlsym(h, name)
    SYM(create, "curandCreateGeneratorHost");
    SYM(destroy, "curandDestroyGenerator");
    SYM(seed, "curandSetPseudoRandomGeneratorSeed");
    SYM(offset, "curandSetGeneratorOffset");
    SYM(u32, "curandGenerate");
    SYM(unif, "curandGenerateUniform");
    SYM(unifd, "curandGenerateUniformDouble");
    SYM(norm, "curandGenerateNormal");
    SYM(normd, "curandGenerateNormalDouble");
    SYM(lnorm, "curandGenerateLogNormal");
    SYM(lnormd, "curandGenerateLogNormalDouble");
    SYM(pois, "curandGeneratePoisson");
#undef SYM
    if (!l->create || !l->destroy || !l->seed || !l->offset || !l->u32 || !l->unif || !l->unifd || !l->norm ||
        !l->normd || !l->lnorm || !l->lnormd || !l->pois) {
        fprintf(stderr, "curand_compare: %s lacks a cuRAND function\n", path);
        return -1;
    }
    return 0;
}

static uint64_t rs = 88172645463325252ull;
static uint64_t rnd(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return rs;
}

static size_t pick_n(void)
{
    if (getenv("SMALL"))
        return rnd() % 13;
    switch (rnd() % 6) {
    case 0: return rnd() % 8;
    case 1: return rnd() % 40;
    case 2: return rnd() % 1000;
    case 3: return 262144 - 20 + rnd() % 40;
    case 4: return rnd() % 600000;
    default: return rnd() % 20000;
    }
}

static status call(const struct lib *l, gen g, char k, void *out, size_t n, double lambda)
{
    switch (k) {
    case 'u': return l->u32(g, out, n);
    case 'f': return l->unif(g, out, n);
    case 'd': return l->unifd(g, out, n);
    case 'n': return l->norm(g, out, n, 0, 1);
    case 'N': return l->normd(g, out, n, 0, 1);
    case 'l': return l->lnorm(g, out, n, 0.5f, 0.25f);
    case 'L': return l->lnormd(g, out, n, 0.5, 0.25);
    case 'p': return l->pois(g, out, n, lambda);
    default: return -1;
    }
}

static int equal(char k, const void *a, const void *b, size_t j)
{
    double x, y;
    switch (k) {
    case 'u':
    case 'p': return ((const unsigned *)a)[j] == ((const unsigned *)b)[j];
    case 'f': return ((const float *)a)[j] == ((const float *)b)[j];
    case 'd': return ((const double *)a)[j] == ((const double *)b)[j];
    case 'n':
    case 'l':
        x = ((const float *)a)[j], y = ((const float *)b)[j];
        return fabs(x - y) <= 4e-6 * (1 + fabs(x));
    default:
        x = ((const double *)a)[j], y = ((const double *)b)[j];
        return fabs(x - y) <= 1e-13 * (1 + fabs(x));
    }
}

#define LOG_APPEND(...) snprintf(log + strlen(log), sizeof log - strlen(log), __VA_ARGS__)

int main(int argc, char **argv)
{
    static const double lambdas[] = { 3.5, 77.7, 1999.5, 2000, 2500, 54321.5 };
    if (argc < 5) {
        fprintf(stderr, "usage: curand_compare NVIDIA-LIB OTHER-LIB SEQUENCES CALLS [KINDS [RANDOM-SEED [TYPE]]]\n");
        return 2;
    }
    if (load(&libs[0], argv[1]) || load(&libs[1], argv[2]))
        return 2;
    int sequences = atoi(argv[3]), calls = atoi(argv[4]), type = argc > 7 ? atoi(argv[7]) : 161;
    const char *kinds = argc > 5 ? argv[5] : "ufdnNlLpos";
    if (argc > 6)
        rs = strtoull(argv[6], NULL, 0) | 1;
    int bad = 0;
    long long values = 0;
    for (int sq = 0; sq < sequences; sq++) {
        gen g[2];
        char log[4096] = "";
        for (int i = 0; i < 2; i++) {
            if (libs[i].create(&g[i], type) || libs[i].seed(g[i], 1234)) {
                fprintf(stderr, "curand_compare: no host generator of type %d from %s\n", type, argv[1 + i]);
                return 2;
            }
        }
        for (int c = 0; c < calls; c++) {
            char k = kinds[rnd() % strlen(kinds)];
            if (k == 'o' || k == 's') {
                unsigned long long v = k == 's' ? (rnd() % 3 == 0 ? 1234 : rnd() % 1000)
                                       : getenv("BIG")   ? rnd() % (1ull << 42)
                                       : getenv("SMALL") ? rnd() % 9
                                       : rnd() % 2       ? rnd() % 1000
                                                         : rnd() % 3000000;
                for (int i = 0; i < 2; i++)
                    (k == 'o' ? libs[i].offset : libs[i].seed)(g[i], v);
                LOG_APPEND(" %c=%llu", k, v);
                continue;
            }
            size_t n = pick_n();
            if (strchr("nNlL", k))
                n &= ~(size_t)1; /* an even count: XORWOW's and MRG32k3a's normals take no other */
            double lambda = lambdas[rnd() % 6];
            if (k == 'p' && lambda > 50000 && n > 20000)
                n = 20000;
            LOG_APPEND(" %c:%zu", k, n);
            if (k == 'p')
                LOG_APPEND(":%g", lambda);
            void *b[2];
            status st[2];
            for (int i = 0; i < 2; i++) {
                b[i] = calloc(n + 1, 8);
                st[i] = b[i] ? call(&libs[i], g[i], k, b[i], n, lambda) : -1;
            }
            size_t first = n, differ = 0;
            if (st[0] != st[1]) {
                printf("sequence %d: call %d: status %d, the other's %d:%s\n", sq, c, st[0], st[1], log);
                differ = 1;
            } else {
                for (size_t j = 0; j < n; j++)
                    if (!equal(k, b[0], b[1], j)) {
                        if (first == n)
                            first = j;
                        differ++;
                    }
                if (differ)
                    printf("sequence %d: call %d value %zu differs (%zu of %zu):%s\n", sq, c, first, differ, n, log);
            }
            values += (long long)n;
            free(b[0]);
            free(b[1]);
            if (differ) {
                bad++;
                break;
            }
        }
        for (int i = 0; i < 2; i++)
            libs[i].destroy(g[i]);
    }
    printf("%d sequences, %d with a difference, %lld values\n", sequences, bad, values);
    return bad != 0;
}
