/* SPDX-License-Identifier: Apache-2.0 */
/* The host cuRAND (build/lib/tdtrace/host/libcurand.so.10), built against
 * tdtrace's own declarations (src/hostlib/curand/curand_api.h):
 *   - against NVIDIA's own host generators (curandCreateGeneratorHost runs
 *     on the CPU without a GPU), loaded from NVIDIA_CURAND (a path) with
 *     dlopen: 32- and 64-bit results and uniform floats and doubles must be
 *     equal bit for bit; normal and log-normal values within 4e-6 (float)
 *     and 1e-13 (double) of 1 + |value|, as the sine, cosine, logarithm and
 *     inverse error function of two math libraries may differ in the last
 *     bit; the Sobol' direction vectors and scramble constants byte for
 *     byte;
 *   - a device generator on the emulated GPU gives the host generator's
 *     numbers, ordered on its stream after a host function queued before;
 *   - bad input.
 * Prints "curand: N passed, N failed, N skipped". */

#include <dlfcn.h>
#include <unistd.h>

#include "check.h"
#include "curand_api.h"

static int n_skip;
/* what this build of the host cuRAND has: the Sobol' direction numbers
 * (python3-scipy at build time) and MTGP32's parameter sets (the toolkit) */
static int have_sobol, have_mtgp;

static int has_type(curandRngType_t t)
{
    curandGenerator_t g;
    if (curandCreateGeneratorHost(&g, t) != CURAND_STATUS_SUCCESS)
        return 0;
    curandDestroyGenerator(g);
    return 1;
}

/* NVIDIA's functions, by dlsym */
static struct {
    curandStatus_t (*create_host)(curandGenerator_t *, curandRngType_t);
    curandStatus_t (*destroy)(curandGenerator_t);
    curandStatus_t (*seed)(curandGenerator_t, unsigned long long);
    curandStatus_t (*offset)(curandGenerator_t, unsigned long long);
    curandStatus_t (*gen)(curandGenerator_t, unsigned int *, size_t);
    curandStatus_t (*unif)(curandGenerator_t, float *, size_t);
    curandStatus_t (*unifd)(curandGenerator_t, double *, size_t);
    curandStatus_t (*norm)(curandGenerator_t, float *, size_t, float, float);
    curandStatus_t (*normd)(curandGenerator_t, double *, size_t, double, double);
    curandStatus_t (*lnorm)(curandGenerator_t, float *, size_t, float, float);
    curandStatus_t (*lnormd)(curandGenerator_t, double *, size_t, double, double);
    curandStatus_t (*genll)(curandGenerator_t, unsigned long long *, size_t);
    curandStatus_t (*pois)(curandGenerator_t, unsigned int *, size_t, double);
    curandStatus_t (*poism)(curandGenerator_t, unsigned int *, size_t, double, curandMethod_t);
    curandStatus_t (*dims)(curandGenerator_t, unsigned int);
    curandStatus_t (*dirs32)(curandDirectionVectors32_t *[], curandDirectionVectorSet_t);
    curandStatus_t (*dirs64)(curandDirectionVectors64_t *[], curandDirectionVectorSet_t);
    curandStatus_t (*scr32)(unsigned int **);
    curandStatus_t (*scr64)(unsigned long long **);
} nv;

static int load_nvidia(const char *path)
{
    /* NVIDIA's library is linked -Bsymbolic: its own calls stay inside it
     * (RTLD_DEEPBIND would say so too, but the sanitizers refuse it) */
    void *h = path && *path ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : NULL;
    if (!h)
        return -1;
#define SYM(f, name) *(void **)&nv.f = dlsym(h, name)
    SYM(create_host, "curandCreateGeneratorHost");
    SYM(destroy, "curandDestroyGenerator");
    SYM(seed, "curandSetPseudoRandomGeneratorSeed");
    SYM(offset, "curandSetGeneratorOffset");
    SYM(gen, "curandGenerate");
    SYM(unif, "curandGenerateUniform");
    SYM(unifd, "curandGenerateUniformDouble");
    SYM(norm, "curandGenerateNormal");
    SYM(normd, "curandGenerateNormalDouble");
    SYM(lnorm, "curandGenerateLogNormal");
    SYM(lnormd, "curandGenerateLogNormalDouble");
    SYM(genll, "curandGenerateLongLong");
    SYM(pois, "curandGeneratePoisson");
    SYM(poism, "curandGeneratePoissonMethod");
    SYM(dims, "curandSetQuasiRandomGeneratorDimensions");
    SYM(dirs32, "curandGetDirectionVectors32");
    SYM(dirs64, "curandGetDirectionVectors64");
    SYM(scr32, "curandGetScrambleConstants32");
    SYM(scr64, "curandGetScrambleConstants64");
    return nv.create_host && nv.lnormd && nv.genll && nv.pois && nv.poism && nv.dims && nv.dirs32 && nv.dirs64 && nv.scr32 && nv.scr64 ? 0
                                                                                                               : -1;
}

/* one call of a sequence: what, how many, an offset set before it (or -1),
 * a seed set before it (or 0), Poisson's lambda */
enum what { U32, UNIF, UNIFD, NORM, NORMD, LNORM, LNORMD, U64, POIS };
struct call { enum what w; size_t n; long long offset; unsigned long long reseed; double lambda; };
static long long n_pois; /* Poisson values compared with NVIDIA's */

static size_t esize(enum what w)
{
    return w == UNIFD || w == NORMD || w == LNORMD || w == U64 ? 8 : 4;
}

static curandStatus_t run_ours(curandGenerator_t g, const struct call *c, void *out)
{
    switch (c->w) {
    case U32: return curandGenerate(g, out, c->n);
    case UNIF: return curandGenerateUniform(g, out, c->n);
    case UNIFD: return curandGenerateUniformDouble(g, out, c->n);
    case NORM: return curandGenerateNormal(g, out, c->n, 1.0f, 2.0f);
    case NORMD: return curandGenerateNormalDouble(g, out, c->n, 1.0, 2.0);
    case LNORM: return curandGenerateLogNormal(g, out, c->n, 0.5f, 0.25f);
    case LNORMD: return curandGenerateLogNormalDouble(g, out, c->n, 0.5, 0.25);
    case U64: return curandGenerateLongLong(g, out, c->n);
    case POIS: return curandGeneratePoisson(g, out, c->n, c->lambda);
    }
    return CURAND_STATUS_INTERNAL_ERROR;
}

static curandStatus_t run_nv(curandGenerator_t g, const struct call *c, void *out)
{
    switch (c->w) {
    case U32: return nv.gen(g, out, c->n);
    case UNIF: return nv.unif(g, out, c->n);
    case UNIFD: return nv.unifd(g, out, c->n);
    case NORM: return nv.norm(g, out, c->n, 1.0f, 2.0f);
    case NORMD: return nv.normd(g, out, c->n, 1.0, 2.0);
    case LNORM: return nv.lnorm(g, out, c->n, 0.5f, 0.25f);
    case LNORMD: return nv.lnormd(g, out, c->n, 0.5, 0.25);
    case U64: return nv.genll(g, out, c->n);
    case POIS: return nv.pois(g, out, c->n, c->lambda);
    }
    return CURAND_STATUS_INTERNAL_ERROR;
}

/* compares one sequence of calls on our host generator and NVIDIA's; a
 * quasirandom generator (dims > 0) gets dims dimensions instead of a seed,
 * and a call's reseed sets its dimensions again */
static void compare_q(curandRngType_t type, unsigned dims, const char *tname, const char *what,
                      const struct call *calls, int ncalls)
{
    char name[160];
    snprintf(name, sizeof name, "%s: %s equals NVIDIA's host generator", tname, what);
    begin(name);
    curandGenerator_t a, b;
    ST(curandCreateGeneratorHost(&a, type), 0);
    ST(nv.create_host(&b, type), 0);
    if (dims) {
        ST(curandSetQuasiRandomGeneratorDimensions(a, dims), 0);
        ST(nv.dims(b, dims), 0);
    } else {
        ST(curandSetPseudoRandomGeneratorSeed(a, 1234), 0);
        ST(nv.seed(b, 1234), 0);
    }
    for (int i = 0; i < ncalls && !cur_bad; i++) {
        const struct call *c = &calls[i];
        size_t bytes = c->n * esize(c->w);
        unsigned char *x = malloc(bytes), *y = malloc(bytes);
        if (c->reseed && dims) {
            ST(curandSetQuasiRandomGeneratorDimensions(a, (unsigned)c->reseed), 0);
            ST(nv.dims(b, (unsigned)c->reseed), 0);
        } else if (c->reseed) {
            ST(curandSetPseudoRandomGeneratorSeed(a, c->reseed), 0);
            ST(nv.seed(b, c->reseed), 0);
        }
        if (c->offset >= 0) {
            ST(curandSetGeneratorOffset(a, (unsigned long long)c->offset), 0);
            ST(nv.offset(b, (unsigned long long)c->offset), 0);
        }
        ST(run_ours(a, c, x), 0);
        ST(run_nv(b, c, y), 0);
        for (size_t k = 0; k < c->n && !cur_bad; k++) {
            double gx, gy, tol = 0;
            switch (c->w) {
            case POIS:
                n_pois++;
                /* fall through */
            case U32: gx = ((uint32_t *)x)[k]; gy = ((uint32_t *)y)[k]; break;
            case U64:
                if (((uint64_t *)x)[k] != ((uint64_t *)y)[k])
                    bad("call %d value %zu: %#llx, NVIDIA's %#llx", i, k, (unsigned long long)((uint64_t *)x)[k],
                        (unsigned long long)((uint64_t *)y)[k]);
                continue;
            case UNIF: gx = ((float *)x)[k]; gy = ((float *)y)[k]; break;
            case UNIFD: gx = ((double *)x)[k]; gy = ((double *)y)[k]; break;
            case NORM: case LNORM: gx = ((float *)x)[k]; gy = ((float *)y)[k]; tol = 4e-6; break;
            default:
                gx = ((double *)x)[k];
                gy = ((double *)y)[k];
                /* NVIDIA's MTGP32 makes normal doubles in float */
                tol = type == CURAND_RNG_PSEUDO_MTGP32 ? 4e-6 : 1e-13;
                break;
            }
            /* relative to the terms of mean + stddev * z (mean 1 or 0.5) */
            if (!(fabs(gx - gy) <= tol * (fabs(gy) + 1)))
                bad("call %d value %zu: %.17g, NVIDIA's %.17g", i, k, gx, gy);
        }
        free(x);
        free(y);
    }
    ST(curandDestroyGenerator(a), 0);
    ST(nv.destroy(b), 0);
    end();
}

static void compare(curandRngType_t type, const char *tname, const char *what, const struct call *calls, int ncalls)
{
    compare_q(type, 0, tname, what, calls, ncalls);
}

/* the six Sobol' tables, byte for byte */
static void sobol_tables(void)
{
    begin("Sobol': direction vectors and scramble constants equal NVIDIA's, byte for byte");
    static const struct { int set, bits; } sets[] = {
        { CURAND_DIRECTION_VECTORS_32_JOEKUO6, 32 }, { CURAND_SCRAMBLED_DIRECTION_VECTORS_32_JOEKUO6, 32 },
        { CURAND_DIRECTION_VECTORS_64_JOEKUO6, 64 }, { CURAND_SCRAMBLED_DIRECTION_VECTORS_64_JOEKUO6, 64 },
    };
    for (int i = 0; i < 4 && !cur_bad; i++) {
        const void *x = NULL, *y = NULL;
        size_t bytes = 20000 * (size_t)sets[i].bits * (sets[i].bits / 8);
        if (sets[i].bits == 32) {
            ST(curandGetDirectionVectors32((curandDirectionVectors32_t **)&x, sets[i].set), 0);
            ST(nv.dirs32((curandDirectionVectors32_t **)&y, sets[i].set), 0);
            /* the other width's set is refused */
            curandDirectionVectors32_t *z;
            ST(curandGetDirectionVectors32(&z, sets[i].set + 2), CURAND_STATUS_OUT_OF_RANGE);
            ST(nv.dirs32(&z, sets[i].set + 2), CURAND_STATUS_OUT_OF_RANGE);
        } else {
            ST(curandGetDirectionVectors64((curandDirectionVectors64_t **)&x, sets[i].set), 0);
            ST(nv.dirs64((curandDirectionVectors64_t **)&y, sets[i].set), 0);
            curandDirectionVectors64_t *z;
            ST(curandGetDirectionVectors64(&z, sets[i].set - 2), CURAND_STATUS_OUT_OF_RANGE);
            ST(nv.dirs64(&z, sets[i].set - 2), CURAND_STATUS_OUT_OF_RANGE);
        }
        if (!cur_bad && memcmp(x, y, bytes))
            bad("direction vector set %d differs", sets[i].set);
    }
    unsigned int *c32x, *c32y;
    unsigned long long *c64x, *c64y;
    ST(curandGetScrambleConstants32(&c32x), 0);
    ST(nv.scr32(&c32y), 0);
    ST(curandGetScrambleConstants64(&c64x), 0);
    ST(nv.scr64(&c64y), 0);
    if (!cur_bad && memcmp(c32x, c32y, 20000 * 4))
        bad("the 32-bit scramble constants differ");
    if (!cur_bad && memcmp(c64x, c64y, 20000 * 8))
        bad("the 64-bit scramble constants differ");
    end();
}

static void quasi_against_nvidia(void)
{
    static const struct { curandRngType_t t; const char *name; int bits; } types[] = {
        { CURAND_RNG_QUASI_SOBOL32, "Sobol32", 32 },
        { CURAND_RNG_QUASI_SCRAMBLED_SOBOL32, "scrambled Sobol32", 32 },
        { CURAND_RNG_QUASI_SOBOL64, "Sobol64", 64 },
        { CURAND_RNG_QUASI_SCRAMBLED_SOBOL64, "scrambled Sobol64", 64 },
    };
    sobol_tables();
    for (int t = 0; t < 4; t++) {
        enum what raw = types[t].bits == 32 ? U32 : U64;
        const struct call one[] = { { raw, 3 * 70000, -1, 0, 0 } };
        /* three calls, then 20,000 dimensions (the last one is there) */
        const struct call split[] = { { raw, 3 * 5, -1, 0, 0 }, { raw, 3 * 1000, -1, 0, 0 }, { raw, 40000, -1, 20000, 0 } };
        /* offsets count points; new dimensions keep the position */
        const struct call off[] = { { raw, 30, 5, 0, 0 }, { raw, 3 * 4096, (1ll << 33) + 12345, 0, 0 },
                                    { raw, 7 * 100, -1, 7, 0 } };
        const struct call unif[] = { { UNIF, 3 * 9000, 1000, 0, 0 } };
        const struct call unifd[] = { { UNIFD, 3 * 9000, 0, 0, 0 } };
        const struct call norm[] = { { NORM, 3 * 9000, 0, 0, 0 } };
        const struct call normd[] = { { NORMD, 3 * 9000, 0, 0, 0 } };
        const struct call lnorm[] = { { LNORM, 3 * 9000, 77, 0, 0 } };
        const struct call lnormd[] = { { LNORMD, 3 * 9000, 77, 0, 0 } };
        const struct call mixed[] = { { UNIF, 3 * 10, -1, 0, 0 }, { NORMD, 3 * 11, -1, 0, 0 }, { raw, 3 * 12, -1, 0, 0 } };
        compare_q(types[t].t, 3, types[t].name, "raw results, one call (3 dimensions)", one, 1);
        compare_q(types[t].t, 3, types[t].name, "raw results over calls, dimensions set again", split, 3);
        compare_q(types[t].t, 3, types[t].name, "offsets", off, 3);
        compare_q(types[t].t, 3, types[t].name, "uniform floats", unif, 1);
        compare_q(types[t].t, 3, types[t].name, "uniform doubles", unifd, 1);
        compare_q(types[t].t, 3, types[t].name, "normal floats", norm, 1);
        compare_q(types[t].t, 3, types[t].name, "normal doubles", normd, 1);
        compare_q(types[t].t, 3, types[t].name, "log-normal floats", lnorm, 1);
        compare_q(types[t].t, 3, types[t].name, "log-normal doubles", lnormd, 1);
        compare_q(types[t].t, 3, types[t].name, "distributions mixed in one generator", mixed, 3);
    }
}

/* curandGeneratePoisson: every generator type, lambdas on both sides of
 * each switch of method (the square histogram below 2000 for XORWOW,
 * MRG32k3a and Philox, below 32 for MTGP32, below 10 for the 32-bit Sobol',
 * never for the 64-bit; inversion or the normal approximation above), in
 * sequences with other distributions and offsets */
static void poisson_against_nvidia(void)
{
    static const struct { curandRngType_t t; const char *name; size_t n; unsigned dims; } types[] = {
        { CURAND_RNG_PSEUDO_XORWOW, "XORWOW", 9000, 0 },
        { CURAND_RNG_PSEUDO_MRG32K3A, "MRG32k3a", 170000, 0 },
        { CURAND_RNG_PSEUDO_PHILOX4_32_10, "Philox4x32-10", 270000, 0 },
        { CURAND_RNG_PSEUDO_MTGP32, "MTGP32", 2 * 200 * 256 + 1000, 0 },
        { CURAND_RNG_QUASI_SOBOL32, "Sobol32", 3 * 9000, 3 },
        { CURAND_RNG_QUASI_SCRAMBLED_SOBOL32, "scrambled Sobol32", 3 * 9000, 3 },
        { CURAND_RNG_QUASI_SOBOL64, "Sobol64", 3 * 9000, 3 },
        { CURAND_RNG_QUASI_SCRAMBLED_SOBOL64, "scrambled Sobol64", 3 * 9000, 3 },
    };
    static const double lambdas[] = { 1e-3, 3.5, 9.99, 10, 31.99, 32, 77.7, 999.9, 1500.25, 1999.5, 2000, 54321.5 };
    for (int t = 0; t < 8; t++) {
        size_t n = types[t].n;
        unsigned dims = types[t].dims;
        if ((types[t].t == CURAND_RNG_PSEUDO_MTGP32 && !have_mtgp) || (dims && !have_sobol))
            continue; /* said in main */
        char what[96];
        if (types[t].t == CURAND_RNG_PSEUDO_MRG32K3A) {
            /* NVIDIA's MRG32k3a host generator takes 1.6 s to set up: all lambdas in one */
            struct call all[12];
            for (int l = 0; l < 12; l++)
                all[l] = (struct call){ POIS, n / 8, -1, 0, lambdas[l] };
            compare(types[t].t, types[t].name, "Poisson, lambda 0.001 to 54321.5 in turn", all, 12);
            continue;
        }
        for (int l = 0; l < 12; l++) {
            const struct call one[] = { { POIS, n, -1, 0, lambdas[l] } };
            snprintf(what, sizeof what, "Poisson, lambda %g", lambdas[l]);
            compare_q(types[t].t, dims, types[t].name, what, one, 1);
        }
        /* the largest lambda (inversion takes about lambda steps a value) */
        const struct call big[] = { { POIS, dims ? 3 * 20 : 64, -1, 0, 400000 } };
        compare_q(types[t].t, dims, types[t].name, "Poisson, lambda 400000", big, 1);
        size_t m = dims ? 3 * 100 : 1000;
        const struct call mixed[] = { { U32, m, -1, 0, 0 }, { POIS, m + (dims ? 3 : 1), -1, 0, 3.5 },
                                      { UNIF, m, -1, 0, 0 }, { POIS, m, -1, 0, 3000 },
                                      { POIS, n, -1, 0, 12.5 } };
        /* the quasirandom generators have no raw 32-bit results in 64 bits */
        struct call mixed_q[5];
        memcpy(mixed_q, mixed, sizeof mixed);
        if (dims && (types[t].t == CURAND_RNG_QUASI_SOBOL64 || types[t].t == CURAND_RNG_QUASI_SCRAMBLED_SOBOL64))
            mixed_q[0].w = U64;
        compare_q(types[t].t, dims, types[t].name, "Poisson mixed with other distributions over calls", mixed_q, 5);
        if (types[t].t != CURAND_RNG_PSEUDO_MTGP32) { /* it takes no offset */
            const struct call off[] = { { POIS, dims ? 30 : 10, 5, 0, 3.5 }, { POIS, n, 123457, 0, 3.5 },
                                        { POIS, n, 7, 0, 2500 } };
            compare_q(types[t].t, dims, types[t].name, "Poisson after offsets", off, 3);
        }
    }
}

/* XORWOW and MRG32k3a after curandSetGeneratorOffset: NVIDIA's host
 * generator starts thread t of the call (the group of outputs t, t + the
 * states' count, ...) on subsequence (offset + t) mod states at element
 * (offset + t) / states, in elements whatever the distribution takes per
 * group; offsets past the first round tell that from offset * RAW. The
 * position counts groups (a call of n normals moves it n / 2 on). Normal,
 * log-normal, uniform double and Poisson (lambda 2000 on) calls after
 * offsets, normal calls after normal calls, uniform calls between */
static void offsets_against_nvidia(void)
{
    static const struct { curandRngType_t t; const char *name; long long round; } types[] = {
        { CURAND_RNG_PSEUDO_XORWOW, "XORWOW", 4096 },
        { CURAND_RNG_PSEUDO_MRG32K3A, "MRG32k3a", 81920 },
    };
    for (int t = 0; t < 2; t++) {
        long long r = types[t].round;
        const struct call norm[] = { { NORM, 20, r, 0, 0 }, { NORM, 2 * r + 200, 2 * r - 1, 0, 0 },
                                     { NORMD, 2 * r + 200, 3 * r + 12345 % r, 0, 0 },
                                     { LNORM, 2 * r + 2, r + 7, 0, 0 }, { LNORMD, 200, 5 * r + 1, 0, 0 } };
        const struct call seq[] = { { NORM, 2 * r + 6, r + 3, 0, 0 }, { NORM, 2 * r + 10, -1, 0, 0 },
                                    { NORMD, r + 4, -1, 0, 0 }, { LNORM, 12, -1, 0, 0 }, { UNIF, r + 5, -1, 0, 0 },
                                    { NORM, 2 * r + 2, -1, 0, 0 }, { U32, 7, -1, 0, 0 } };
        /* then the same seed again changes nothing (the call past a round
         * continues each state); a call after an offset puts every state at
         * its thread's start, also those it does not reach, which the next
         * call finds there */
        const struct call other[] = { { UNIFD, r + 100, r + 1, 0, 0 }, { POIS, 2 * r + 100, 3 * r + 5, 0, 2500 },
                                      { POIS, r + 3, -1, 0, 4000 }, { UNIFD, 100, 2 * r, 0, 0 },
                                      { UNIFD, 32, -1, 0, 0 }, { UNIFD, r + 100, -1, 1234, 0 },
                                      { NORMD, 2, 955, 0, 0 }, { UNIFD, 3000, -1, 0, 0 } };
        compare(types[t].t, types[t].name, "normal and log-normal calls after offsets past one round", norm, 5);
        compare(types[t].t, types[t].name, "normal calls after normal calls, uniform calls between (after an offset)", seq, 7);
        if (types[t].t == CURAND_RNG_PSEUDO_MRG32K3A) {
            /* not the same seed's call past a round: moving 81,920 states
             * back takes seconds under AddressSanitizer, and the rule is one
             * for every type (XORWOW's and Philox's sequences have it) */
            const struct call mrg[] = { other[0], other[1], other[2], other[3], other[6], other[7] };
            compare(types[t].t, types[t].name, "uniform doubles, Poisson from 2000 after offsets; unreached states", mrg, 6);
        } else {
            compare(types[t].t, types[t].name,
                    "uniform doubles, Poisson from 2000 after offsets; same seed again; unreached states", other, 8);
        }
    }
}

/* Philox4x32-10's normals: NVIDIA's host generator counts its position
 * (the offset too) in outputs for normals as for the rest, so normal calls
 * after an offset, after normal calls of any even count or after uniform
 * calls continue one stream */
static void philox_normals_against_nvidia(void)
{
    const long long r = 65536 * 4; /* outputs in one round of the states */
    const struct call off[] = { { NORM, 20, r + 8, 0, 0 }, { NORM, 2 * r + 200, 2 * r - 4, 0, 0 },
                                { LNORM, 100, 5, 0, 0 } };
    const struct call seq[] = { { NORM, 10, -1, 0, 0 }, { NORM, 2 * r + 8, -1, 0, 0 }, { NORM, 2 * r + 12, -1, 0, 0 },
                                { LNORM, 2 * r + 2, -1, 0, 0 } };
    const struct call mixed[] = { { UNIF, 8, -1, 0, 0 }, { NORM, 20, -1, 0, 0 }, { U32, 4, -1, 0, 0 },
                                  { NORM, 2 * r + 4, -1, 0, 0 } };
    compare(CURAND_RNG_PSEUDO_PHILOX4_32_10, "Philox4x32-10", "normal calls after offsets", off, 3);
    compare(CURAND_RNG_PSEUDO_PHILOX4_32_10, "Philox4x32-10", "normal calls after normal calls", seq, 4);
    compare(CURAND_RNG_PSEUDO_PHILOX4_32_10, "Philox4x32-10", "normal calls after uniform and 32-bit calls", mixed, 4);
}

/* Philox4x32-10 with distributions of two blocks a group (uniform and
 * normal doubles) among the others, and new seeds (docs/hostlib.md): a
 * thread that starts afresh starts at Philox block (g0 + t) / 65536 of its
 * subsequence; a call that starts inside the last call's last group makes
 * that group again from where it started; a fresh start puts every state
 * at its thread's start, also those the call does not reach; the same seed
 * again changes nothing; a new seed moves the position P to B + P/4 - B/4
 * (B the offset last set, or the last such position; P < 4 with B 0
 * stays). Short calls, most after offsets that put them past the first
 * round of states (r outputs) */
static void philox_mixes_against_nvidia(void)
{
    const char *ph = "Philox4x32-10";
    const curandRngType_t t = CURAND_RNG_PSEUDO_PHILOX4_32_10;
    const long long r = 65536 * 4;
    /* (a) normal and log-normal doubles after offsets (inside a group too,
     * across a round) and after calls of other distributions */
    const struct call normd_off[] = { { NORMD, 40, r + 8, 0, 0 }, { LNORMD, 42, 2 * r + 5, 0, 0 },
                                      { NORMD, 1000, r - 498, 0, 0 }, { NORMD, 64, 3 * r + 2, 0, 0 } };
    const struct call normd_mix[] = { { UNIF, 5, -1, 0, 0 }, { NORMD, 20, -1, 0, 0 }, { U32, 3, -1, 0, 0 },
                                      { LNORMD, 30, -1, 0, 0 }, { NORM, 6, -1, 0, 0 }, { NORMD, 2, -1, 0, 0 },
                                      { U32, 7, r - 6, 0, 0 }, { NORMD, 24, -1, 0, 0 }, { UNIF, 13, -1, 0, 0 },
                                      { LNORMD, 50, -1, 0, 0 } };
    /* a double call of past a round: its states continue, where the next
     * calls find them */
    const struct call normd_round[] = { { NORMD, r + 20, 8, 0, 0 }, { U32, 40, -1, 0, 0 }, { NORMD, 30, -1, 0, 0 } };
    /* (b) uniform doubles and Poisson among the others; states an offset
     * put at their start, not where earlier calls left them */
    const struct call mixed[] = { { UNIF, 5, -1, 0, 0 }, { UNIFD, 7, -1, 0, 0 }, { NORM, 6, -1, 0, 0 },
                                  { POIS, 9, -1, 0, 3.5 }, { UNIFD, 13, -1, 0, 0 }, { U32, 2000, -1, 0, 0 },
                                  { NORMD, 2, 955, 0, 0 }, { U32, 8, -1, 0, 0 }, { UNIFD, 30, -1, 0, 0 },
                                  { POIS, 10, r + 3, 0, 77.7 }, { UNIFD, 11, -1, 0, 0 }, { POIS, 21, -1, 0, 1500.25 },
                                  { NORM, 10, -1, 0, 0 }, { UNIFD, 9, -1, 0, 0 } };
    /* (c) seeds set in mid-sequence: again the same, new ones, P < 4 */
    const struct call reseed[] = { { U32, 10, -1, 0, 0 }, { U32, 4, -1, 1234, 0 }, { UNIFD, 6, -1, 99, 0 },
                                   { NORMD, 8, -1, 1234, 0 }, { U32, 5, 3 * r + 7, 0, 0 }, { NORM, 10, -1, 77, 0 },
                                   { UNIFD, 12, -1, 5, 0 }, { POIS, 9, -1, 6, 2500 } };
    const struct call reseed_low[] = { { U32, 2, -1, 0, 0 }, { U32, 3, -1, 5, 0 }, { U32, 4, -1, 6, 0 },
                                       { U32, 1, 1, 7, 0 }, { U32, 4, -1, 8, 0 }, { U32, 6, -1, 9, 0 } };
    /* (d) Poisson from lambda 2000 after other calls */
    const struct call pois_big[] = { { U32, 5, -1, 0, 0 }, { POIS, 30, -1, 0, 2500 }, { UNIF, 3, -1, 0, 0 },
                                     { POIS, 40, -1, 0, 54321.5 }, { POIS, 20, r + 1, 0, 2000 }, { NORMD, 6, -1, 0, 0 },
                                     { POIS, 22, -1, 0, 3000 }, { UNIFD, 3, -1, 0, 0 }, { POIS, 10, -1, 0, 4000 } };
    compare(t, ph, "normal and log-normal doubles after offsets", normd_off, 4);
    compare(t, ph, "normal and log-normal doubles among other calls", normd_mix, 10);
    compare(t, ph, "calls after a normal double call past one round", normd_round, 3);
    compare(t, ph, "uniform doubles and Poisson among other calls and offsets", mixed, 14);
    compare(t, ph, "seeds set in mid-sequence", reseed, 8);
    compare(t, ph, "seeds set in mid-sequence at positions below 4", reseed_low, 6);
    compare(t, ph, "Poisson from lambda 2000 after other calls", pois_big, 9);
}

static void against_nvidia(const char *path)
{
    /* N: past one round of the layout's states (4096, 81920, 65536 x 4, 200 x 256) */
    static const struct { curandRngType_t t; const char *name; size_t n; } types[] = {
        { CURAND_RNG_PSEUDO_XORWOW, "XORWOW", 9000 },
        { CURAND_RNG_PSEUDO_MRG32K3A, "MRG32k3a", 170000 },
        { CURAND_RNG_PSEUDO_PHILOX4_32_10, "Philox4x32-10", 270000 },
        { CURAND_RNG_PSEUDO_MTGP32, "MTGP32", 2 * 200 * 256 + 1000 },
    };
    if (load_nvidia(path)) {
        printf("skip comparisons with NVIDIA's host generators: %s\n",
               path && *path ? dlerror() : "no NVIDIA libcurand.so.10 (the CUDA toolkit is not installed)");
        n_skip++;
        return;
    }
    for (int t = 0; t < 4; t++) {
        size_t n = types[t].n;
        if (types[t].t == CURAND_RNG_PSEUDO_MTGP32 && !have_mtgp)
            continue; /* said in main */
        const struct call one[] = { { U32, n, -1, 0, 0 } };
        const struct call split[] = { { U32, 3, -1, 0, 0 }, { U32, 997, -1, 0, 0 }, { U32, n, -1, 0, 0 } };
        const struct call off[] = { { U32, 10, 5, 0, 0 }, { U32, n, 123457, 0, 0 } };
        const struct call unif[] = { { UNIF, n + 1, -1, 0, 0 } };
        const struct call unifd[] = { { UNIFD, n, -1, 0, 0 } };
        const struct call norm[] = { { NORM, n, -1, 0, 0 } };
        const struct call normd[] = { { NORMD, n, -1, 0, 0 } };
        const struct call lnorm[] = { { LNORM, n, -1, 0, 0 } };
        const struct call lnormd[] = { { LNORMD, n, -1, 0, 0 } };
        /* (offsets: offsets_against_nvidia, philox_mixes_against_nvidia) */
        const struct call mixed[] = { { UNIF, n + 1, -1, 0, 0 }, { UNIFD, n / 4 + 1, -1, 0, 0 }, { NORM, n, -1, 0, 0 } };
        const struct call reseed[] = { { U32, 100, -1, 0, 0 }, { U32, 100, -1, 1234, 0 }, { U32, 100, -1, 99, 0 },
                                       { U32, 300, -1, 1234, 0 } };
        if (types[t].t == CURAND_RNG_PSEUDO_MRG32K3A) {
            /* NVIDIA's MRG32k3a host generator takes 1.6 s to set up: three */
            compare(types[t].t, types[t].name, "32-bit results over three calls", split, 3);
            compare(types[t].t, types[t].name, "uniform floats, doubles, normal floats in one generator", mixed, 3);
            compare(types[t].t, types[t].name, "normal doubles", normd, 1);
            continue;
        }
        compare(types[t].t, types[t].name, "32-bit results, one call", one, 1);
        compare(types[t].t, types[t].name, "32-bit results over three calls", split, 3);
        if (types[t].t != CURAND_RNG_PSEUDO_MTGP32) /* it takes none */
            compare(types[t].t, types[t].name, "offsets", off, 2);
        compare(types[t].t, types[t].name, "uniform floats", unif, 1);
        compare(types[t].t, types[t].name, "uniform doubles", unifd, 1);
        compare(types[t].t, types[t].name, "normal floats", norm, 1);
        compare(types[t].t, types[t].name, "normal doubles", normd, 1);
        compare(types[t].t, types[t].name, "log-normal floats", lnorm, 1);
        compare(types[t].t, types[t].name, "log-normal doubles", lnormd, 1);
        compare(types[t].t, types[t].name, "uniform floats, doubles, normal floats in one generator", mixed, 3);
        compare(types[t].t, types[t].name, "seeds set again in mid-sequence", reseed, 4);
    }
    if (have_sobol)
        quasi_against_nvidia();
    poisson_against_nvidia();
    offsets_against_nvidia();
    philox_normals_against_nvidia();
    philox_mixes_against_nvidia();
}

/* ---- on the emulated GPU ------------------------------------------------------ */
/* a host function that holds its stream until the test lets it go (or 20 s
 * pass: then the call before it waited for the stream, and it says so) */
struct gate { _Atomic int open, waited_out; };
static void CUDAAPI gate_host(void *arg)
{
    struct gate *g = arg;
    for (int i = 0; i < 20000 && !g->open; i++)
        usleep(1000);
    g->waited_out = !g->open;
}

static void on_device(void)
{
    begin("device generators on the emulated GPU: the host generator's numbers, in stream order");
    CUdevice dev;
    CUcontext ctx;
    DRV(cuInit(0));
    DRV(cuDeviceGet(&dev, 0));
    DRV(cuDevicePrimaryCtxRetain(&ctx, dev));
    DRV(cuCtxSetCurrent(ctx));
    CUstream s;
    DRV(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    static const curandRngType_t types[6] = { CURAND_RNG_PSEUDO_XORWOW,         CURAND_RNG_PSEUDO_MRG32K3A,
                                              CURAND_RNG_PSEUDO_PHILOX4_32_10,  CURAND_RNG_PSEUDO_MTGP32,
                                              CURAND_RNG_QUASI_SCRAMBLED_SOBOL32, CURAND_RNG_QUASI_SOBOL64 };
    size_t n = 50000;
    float *d = dalloc(n * 4), *hd = malloc(n * 4), *hh = malloc(n * 4), first;
    for (int t = 0; t < 6; t++) {
        curandGenerator_t g, h;
        if ((types[t] == CURAND_RNG_PSEUDO_MTGP32 && !have_mtgp) || (types[t] >= CURAND_RNG_QUASI_DEFAULT && !have_sobol))
            continue;
        ST(curandCreateGenerator(&g, types[t]), 0);
        ST(curandCreateGeneratorHost(&h, types[t]), 0);
        if (types[t] >= CURAND_RNG_QUASI_DEFAULT) {
            ST(curandSetQuasiRandomGeneratorDimensions(g, 5), 0);
            ST(curandSetQuasiRandomGeneratorDimensions(h, 5), 0);
        } else {
            ST(curandSetPseudoRandomGeneratorSeed(g, 42), 0);
            ST(curandSetPseudoRandomGeneratorSeed(h, 42), 0);
        }
        ST(curandSetStream(g, (cudaStream_t)s), 0);
        struct gate gt = { 0, 0 };
        DRV(cuMemsetD32_v2((CUdeviceptr)(uintptr_t)d, 0x7fc00000, n)); /* NaN: not generated yet */
        DRV(cuLaunchHostFunc(s, gate_host, &gt));
        ST(curandGenerateNormal(g, d, n, 0.0f, 1.0f), 0);
        ST(curandGenerateNormal(h, hh, n, 0.0f, 1.0f), 0);
        /* destroying the generator with its work queued is legal */
        ST(curandDestroyGenerator(g), 0);
        /* the stream is held at the gate: nothing generated yet (a copy on
         * the legacy stream does not wait for a non-blocking stream) */
        DRV(cuMemcpyDtoH_v2(&first, (CUdeviceptr)(uintptr_t)d, 4));
        if (first == first)
            bad("the numbers were there before the work queued ahead of them ran");
        gt.open = 1;
        DRV(cuStreamSynchronize(s));
        if (gt.waited_out)
            bad("the generate call waited for the stream");
        DRV(cuMemcpyDtoH_v2(hd, (CUdeviceptr)(uintptr_t)d, n * 4));
        if (memcmp(hd, hh, n * 4))
            bad("type %d: device and host generators differ", (int)types[t]);
        ST(curandDestroyGenerator(h), 0);
    }
    DRV(cuStreamDestroy_v2(s));
    DRV(cuMemFree_v2((CUdeviceptr)(uintptr_t)d));
    free(hd);
    free(hh);
    end();
}

/* Poisson: statuses (NVIDIA's where its host generator answers: tested
 * against it in poisson_against_nvidia; the rest from its documentation),
 * a device generator on a stream, the device-side distribution */
static void poisson_input(void)
{
    begin("Poisson: bad input, device generator, curandCreatePoissonDistribution");
    curandGenerator_t g, h, fake = (curandGenerator_t)(uintptr_t)0x4321;
    unsigned int host[8], *d = dalloc(4096 * 4), *hd = malloc(4096 * 4), *hh = malloc(4096 * 4);
    ST(curandCreateGenerator(&g, CURAND_RNG_PSEUDO_XORWOW), 0);
    ST(curandCreateGeneratorHost(&h, CURAND_RNG_PSEUDO_XORWOW), 0);
    ST(curandGeneratePoisson(fake, d, 8, 3.5), CURAND_STATUS_NOT_INITIALIZED);
    ST(curandGeneratePoisson(NULL, d, 8, 3.5), CURAND_STATUS_NOT_INITIALIZED);
    ST(curandGeneratePoisson(g, d, 8, 0), CURAND_STATUS_OUT_OF_RANGE);
    ST(curandGeneratePoisson(g, d, 8, -1), CURAND_STATUS_OUT_OF_RANGE);
    ST(curandGeneratePoisson(g, d, 8, INFINITY), CURAND_STATUS_OUT_OF_RANGE);
    ST(curandGeneratePoisson(g, d, 8, 400000.5), CURAND_STATUS_OUT_OF_RANGE);
    ST(curandGeneratePoisson(g, d, 0, -1), 0); /* nothing to make: NVIDIA's answers success */
    ST(curandGeneratePoisson(g, host, 8, 3.5), CURAND_STATUS_OUT_OF_RANGE); /* not device memory */
    ST(curandGeneratePoisson(g, d, 4097, 3.5), CURAND_STATUS_OUT_OF_RANGE); /* past the allocation */
    ST(curandGeneratePoisson(g, NULL, 8, 3.5), CURAND_STATUS_OUT_OF_RANGE);
    ST(curandGeneratePoissonMethod(g, d, 8, 3.5, CURAND_CHOOSE_BEST), CURAND_STATUS_INTERNAL_ERROR);
    ST(curandGeneratePoissonMethod(g, d, 8, 3.5, CURAND_3RD), CURAND_STATUS_PREEXISTING_FAILURE);
    ST(curandGeneratePoissonMethod(g, d, 8, 3.5, CURAND_DEVICE_API), CURAND_STATUS_ARCH_MISMATCH);
    ST(curandGeneratePoissonMethod(fake, d, 8, 3.5, CURAND_DEVICE_API), CURAND_STATUS_NOT_INITIALIZED);
    /* lambda NaN: 0 from a pseudorandom generator (NVIDIA's does so) */
    ST(curandGeneratePoisson(h, host, 8, NAN), 0);
    for (int i = 0; i < 8; i++)
        if (host[i] != 0)
            bad("lambda NaN: value %d is %u, not 0", i, host[i]);
    /* a device generator on a stream gives the host generator's numbers */
    CUstream s;
    DRV(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    ST(curandSetStream(g, (cudaStream_t)s), 0);
    ST(curandSetPseudoRandomGeneratorSeed(g, 5), 0);
    ST(curandSetPseudoRandomGeneratorSeed(h, 5), 0);
    ST(curandSetGeneratorOffset(h, 0), 0); /* the NaN call moved it on */
    ST(curandGeneratePoisson(g, d, 4096, 2500), 0);
    ST(curandGeneratePoisson(h, hh, 4096, 2500), 0);
    DRV(cuStreamSynchronize(s));
    DRV(cuMemcpyDtoH_v2(hd, (CUdeviceptr)(uintptr_t)d, 4096 * 4));
    if (memcmp(hd, hh, 4096 * 4))
        bad("device and host generators' Poisson results differ");
    /* the device-side distribution */
    curandDiscreteDistribution_t dist, big;
    ST(curandCreatePoissonDistribution(3.5, NULL), CURAND_STATUS_NOT_INITIALIZED);
    ST(curandCreatePoissonDistribution(0, &dist), CURAND_STATUS_OUT_OF_RANGE);
    ST(curandCreatePoissonDistribution(-2, &dist), CURAND_STATUS_OUT_OF_RANGE);
    ST(curandCreatePoissonDistribution(400001, &dist), CURAND_STATUS_OUT_OF_RANGE);
    ST(curandCreatePoissonDistribution(NAN, &dist), CURAND_STATUS_OUT_OF_RANGE);
    ST(curandDestroyDistribution(NULL), CURAND_STATUS_NOT_INITIALIZED);
    ST(curandCreatePoissonDistribution(3.5, &dist), 0);
    ST(curandCreatePoissonDistribution(5000, &big), 0);
    if (!cur_bad) {
        /* device memory is host memory on the emulated GPU */
        if (dist->method != CURAND_M2 || dist->M2->shift != 0 || dist->M2->length != 232 || dist->mean != 3.5)
            bad("lambda 3.5: method %d shift %u length %u (NVIDIA's: M2, 0, 232)", (int)dist->method,
                dist->M2->shift, dist->M2->length);
        else if (dist->M2->histogram->K[10] != 9 || dist->M2->histogram->V[232] != 0)
            bad("lambda 3.5: K[10] %u (NVIDIA's 9)", dist->M2->histogram->K[10]);
        if (big->method == CURAND_M2 || big->mean != 5000 || big->stddev != sqrt(5000.0))
            bad("lambda 5000: not the normal approximation");
    }
    ST(curandDestroyDistribution(dist), 0);
    ST(curandDestroyDistribution(dist), CURAND_STATUS_NOT_INITIALIZED);
    ST(curandDestroyDistribution(big), 0);
    ST(curandDestroyGenerator(g), 0);
    ST(curandDestroyGenerator(h), 0);
    DRV(cuStreamDestroy_v2(s));
    DRV(cuMemFree_v2((CUdeviceptr)(uintptr_t)d));
    free(hd);
    free(hh);
    end();
}

static void bad_input(void)
{
    begin("bad input: generators, types, lengths, pointers, orderings");
    curandGenerator_t g, dead, fake = (curandGenerator_t)(uintptr_t)0x4321;
    unsigned int host[8];
    ST(curandCreateGenerator(&g, CURAND_RNG_TEST), CURAND_STATUS_TYPE_ERROR);
    ST(curandCreateGenerator(&g, (curandRngType_t)7), CURAND_STATUS_TYPE_ERROR);
    ST(curandCreateGenerator(&dead, CURAND_RNG_PSEUDO_DEFAULT), 0);
    ST(curandDestroyGenerator(dead), 0);
    ST(curandDestroyGenerator(dead), CURAND_STATUS_NOT_INITIALIZED);
    ST(curandGenerate(dead, host, 8), CURAND_STATUS_NOT_INITIALIZED);
    ST(curandGenerate(fake, host, 8), CURAND_STATUS_NOT_INITIALIZED);
    ST(curandGenerate(NULL, host, 8), CURAND_STATUS_NOT_INITIALIZED);
    ST(curandCreateGenerator(&g, CURAND_RNG_PSEUDO_PHILOX4_32_10), 0);
    float *d = dalloc(16 * 4);
    ST(curandGenerateNormal(g, d, 7, 0, 1), CURAND_STATUS_LENGTH_NOT_MULTIPLE);
    /* host memory and ranges past an allocation are not device memory */
    ST(curandGenerate(g, host, 8), CURAND_STATUS_OUT_OF_RANGE);
    ST(curandGenerateUniform(g, d, 17), CURAND_STATUS_OUT_OF_RANGE);
    ST(curandGenerateUniform(g, NULL, 4), CURAND_STATUS_OUT_OF_RANGE);
    ST(curandGenerateLongLong(g, (unsigned long long *)d, 4), CURAND_STATUS_TYPE_ERROR);
    ST(curandSetGeneratorOrdering(g, CURAND_ORDERING_QUASI_DEFAULT), CURAND_STATUS_OUT_OF_RANGE);
    ST(curandSetGeneratorOrdering(g, CURAND_ORDERING_PSEUDO_LEGACY), 0);
    int v;
    ST(curandGetVersion(&v), 0);
    if (v != 10400)
        bad("version %d", v);
    ST(curandDestroyGenerator(g), 0);
    curandGenerator_t q, q64;
    if (!have_sobol) {
        ST(curandCreateGenerator(&q, CURAND_RNG_QUASI_SOBOL32), CURAND_STATUS_TYPE_ERROR);
        DRV(cuMemFree_v2((CUdeviceptr)(uintptr_t)d));
        end();
        return;
    }
    /* quasirandom generators */
    unsigned long long *d64 = (unsigned long long *)d;
    ST(curandCreateGenerator(&q, CURAND_RNG_QUASI_SOBOL32), 0);
    ST(curandCreateGenerator(&q64, CURAND_RNG_QUASI_SCRAMBLED_SOBOL64), 0);
    ST(curandCreateGenerator(&g, CURAND_RNG_PSEUDO_XORWOW), 0);
    ST(curandSetQuasiRandomGeneratorDimensions(q, 0), CURAND_STATUS_OUT_OF_RANGE);
    ST(curandSetQuasiRandomGeneratorDimensions(q, 20001), CURAND_STATUS_OUT_OF_RANGE);
    ST(curandSetQuasiRandomGeneratorDimensions(q, 20000), 0);
    ST(curandSetQuasiRandomGeneratorDimensions(q, 3), 0);
    ST(curandSetQuasiRandomGeneratorDimensions(g, 3), CURAND_STATUS_TYPE_ERROR);
    ST(curandSetQuasiRandomGeneratorDimensions(fake, 3), CURAND_STATUS_NOT_INITIALIZED);
    ST(curandSetPseudoRandomGeneratorSeed(q, 1), CURAND_STATUS_TYPE_ERROR);
    ST(curandSetGeneratorOrdering(q, CURAND_ORDERING_PSEUDO_DEFAULT), CURAND_STATUS_OUT_OF_RANGE);
    ST(curandSetGeneratorOrdering(q, CURAND_ORDERING_QUASI_DEFAULT), 0);
    ST(curandGenerate(q, (unsigned int *)d, 16), CURAND_STATUS_LENGTH_NOT_MULTIPLE);
    ST(curandGenerateLongLong(q, d64, 6), CURAND_STATUS_TYPE_ERROR);
    ST(curandGenerate(q64, (unsigned int *)d, 6), CURAND_STATUS_TYPE_ERROR);
    ST(curandGenerateLongLong(q64, d64, 9), CURAND_STATUS_OUT_OF_RANGE); /* past the allocation */
    ST(curandGenerateLongLong(q64, d64, 8), 0);
    ST(curandGenerateNormal(q, d, 15, 0, 1), 0); /* an odd count is fine for an inverse-CDF normal */
    DRV(cuCtxSynchronize());
    curandDirectionVectors32_t *v32;
    curandDirectionVectors64_t *v64;
    unsigned int *c32;
    ST(curandGetDirectionVectors32(NULL, CURAND_DIRECTION_VECTORS_32_JOEKUO6), CURAND_STATUS_OUT_OF_RANGE);
    ST(curandGetDirectionVectors32(&v32, (curandDirectionVectorSet_t)7), CURAND_STATUS_OUT_OF_RANGE);
    ST(curandGetDirectionVectors64(&v64, CURAND_DIRECTION_VECTORS_32_JOEKUO6), CURAND_STATUS_OUT_OF_RANGE);
    ST(curandGetScrambleConstants32(NULL), CURAND_STATUS_OUT_OF_RANGE);
    ST(curandGetScrambleConstants32(&c32), 0);
    ST(curandGetScrambleConstants64(NULL), CURAND_STATUS_OUT_OF_RANGE);
    ST(curandDestroyGenerator(q), 0);
    ST(curandDestroyGenerator(q64), 0);
    /* MTGP32 takes no offset */
    if (have_mtgp) {
        ST(curandCreateGenerator(&q, CURAND_RNG_PSEUDO_MTGP32), 0);
        ST(curandSetGeneratorOffset(q, 5), CURAND_STATUS_TYPE_ERROR);
        ST(curandSetQuasiRandomGeneratorDimensions(q, 2), CURAND_STATUS_TYPE_ERROR);
        ST(curandDestroyGenerator(q), 0);
    }
    ST(curandDestroyGenerator(g), 0);
    DRV(cuMemFree_v2((CUdeviceptr)(uintptr_t)d));
    end();
}

/* MT19937 (docs/hostlib.md): NVIDIA's host generator takes seconds to set
 * up (its 8192 start states), so two of them: one call of 200,000 words with
 * seed 1234, and one sequence from a seed above 2^32 past block 0 of
 * every generator (78 x 65,536 words), every distribution, Poisson on each
 * side of lambda 2000 (9000: rounded to float there), and new seeds in mid-sequence (the same seed again
 * continues, another starts again). Under AddressSanitizer (make check's
 * second pass, there for memory errors: the plain pass compares every
 * number) each request stays under 65,536 words, so it reaches only some
 * of the 8192 generators: instrumented, making all of them (each a jump of
 * 2^2048 steps) took a minute per seed, and CI's time is 25 minutes */
#if defined(__SANITIZE_ADDRESS__)
#define MT_ONE 4096
#define MT_LONG 8192
#define MT_RESEED 5000
#define MT_LONG_SAYS "8,192 words (fewer generators under AddressSanitizer)"
#else
#define MT_ONE 200000
#define MT_LONG (78 * 65536 + 100000)
#define MT_RESEED 70000
#define MT_LONG_SAYS "5.2 million words"
#endif
static void mt19937_against_nvidia(void)
{
    if (!nv.create_host)
        return; /* against_nvidia said why */
    const struct call one[] = { { U32, MT_ONE, -1, 0, 0 } };
    const struct call seq[] = {
        { U32, 100, -1, 0x123456789abull, 0 }, { U32, MT_LONG, -1, 0, 0 }, { UNIF, 1001, -1, 0, 0 },
        { UNIFD, 1000, -1, 0, 0 }, { NORM, 1001, -1, 0, 0 }, { NORMD, 1000, -1, 0, 0 }, { LNORM, 999, -1, 0, 0 },
        { LNORMD, 1000, -1, 0, 0 }, { POIS, 1000, -1, 0, 10 }, { POIS, 1000, -1, 0, 100 }, { POIS, 1000, -1, 0, 2500 }, { POIS, 4096, -1, 0, 9000 },
        { U32, MT_RESEED, -1, 99, 0 }, { U32, 100, -1, 99, 0 }, { U32, 100, -1, 1234, 0 },
    };
    compare(CURAND_RNG_PSEUDO_MT19937, "MT19937", "32-bit results, one call", one, 1);
    compare(CURAND_RNG_PSEUDO_MT19937, "MT19937", "a seed above 2^32, " MT_LONG_SAYS ", every distribution, new seeds",
            seq, (int)(sizeof seq / sizeof seq[0]));
}

/* MT19937's refusals, as NVIDIA's (read off its host generator): no
 * offset; orderings DEFAULT and LEGACY (one layout), others OUT_OF_RANGE;
 * any count of normals (inverse CDF) */
static void mt19937_input(void)
{
    begin("MT19937: offsets, orderings, odd counts of normals");
    curandGenerator_t g;
    float f[3];
    unsigned int a[16], b[16];
    ST(curandCreateGeneratorHost(&g, CURAND_RNG_PSEUDO_MT19937), 0);
    ST(curandSetGeneratorOffset(g, 5), CURAND_STATUS_TYPE_ERROR);
    ST(curandSetGeneratorOffset(g, 1ull << 32), CURAND_STATUS_TYPE_ERROR);
    ST(curandSetQuasiRandomGeneratorDimensions(g, 2), CURAND_STATUS_TYPE_ERROR);
    ST(curandSetGeneratorOrdering(g, CURAND_ORDERING_PSEUDO_BEST), CURAND_STATUS_OUT_OF_RANGE);
    ST(curandSetGeneratorOrdering(g, CURAND_ORDERING_PSEUDO_SEEDED), CURAND_STATUS_OUT_OF_RANGE);
    ST(curandSetGeneratorOrdering(g, CURAND_ORDERING_PSEUDO_DYNAMIC), CURAND_STATUS_OUT_OF_RANGE);
    ST(curandSetGeneratorOrdering(g, CURAND_ORDERING_QUASI_DEFAULT), CURAND_STATUS_OUT_OF_RANGE);
    ST(curandSetGeneratorOrdering(g, CURAND_ORDERING_PSEUDO_DEFAULT), 0);
    ST(curandGenerate(g, a, 16), 0);
    ST(curandSetPseudoRandomGeneratorSeed(g, 1), 0);
    ST(curandSetGeneratorOrdering(g, CURAND_ORDERING_PSEUDO_LEGACY), 0);
    ST(curandSetPseudoRandomGeneratorSeed(g, 0), 0); /* the default seed: the stream starts again */
    ST(curandGenerate(g, b, 16), 0);
    if (memcmp(a, b, sizeof a))
        bad("LEGACY gives other numbers than DEFAULT");
    ST(curandGenerateNormal(g, f, 3, 0, 1), 0);
    ST(curandGenerateUniform(g, NULL, 3), CURAND_STATUS_OUT_OF_RANGE);
    ST(curandGeneratePoisson(g, a, 3, -1), CURAND_STATUS_OUT_OF_RANGE);
    ST(curandGenerateLongLong(g, (unsigned long long *)a, 2), CURAND_STATUS_TYPE_ERROR);
    /* a device generator (on_device made the context current) gives the
     * host generator's words, past one round of threads (under
     * AddressSanitizer: within it, MT_RESEED words) */
    curandGenerator_t dg;
    size_t n = MT_RESEED;
    unsigned int *d = dalloc(n * 4), *hd = malloc(n * 4), *hh = malloc(n * 4);
    ST(curandSetPseudoRandomGeneratorSeed(g, 7), 0);
    ST(curandGenerate(g, hh, 100), 0);
    ST(curandGenerate(g, hh + 100, n - 100), 0);
    ST(curandCreateGenerator(&dg, CURAND_RNG_PSEUDO_MT19937), 0);
    ST(curandSetPseudoRandomGeneratorSeed(dg, 7), 0);
    ST(curandGenerate(dg, d, n), 0);
    ST(curandGenerate(dg, d, n + 1), CURAND_STATUS_OUT_OF_RANGE); /* past the allocation */
    DRV(cuCtxSynchronize());
    DRV(cuMemcpyDtoH_v2(hd, (CUdeviceptr)(uintptr_t)d, n * 4));
    if (memcmp(hd, hh, n * 4))
        bad("MT19937: device and host generators differ");
    ST(curandDestroyGenerator(dg), 0);
    ST(curandDestroyGenerator(g), 0);
    DRV(cuMemFree_v2((CUdeviceptr)(uintptr_t)d));
    free(hd);
    free(hh);
    end();
}

int main(void)
{
    have_sobol = has_type(CURAND_RNG_QUASI_SOBOL32);
    have_mtgp = has_type(CURAND_RNG_PSEUDO_MTGP32);
    if (!have_sobol) {
        printf("skip Sobol' generators: this build has no Joe-Kuo direction numbers (python3-scipy was not installed: "
               "see docs/hostlib.md)\n");
        n_skip++;
    }
    if (!have_mtgp) {
        printf("skip MTGP32: this build has no parameter sets (the CUDA toolkit's curand_mtgp32dc_p_11213.h was not "
               "found)\n");
        n_skip++;
    }
    against_nvidia(getenv("NVIDIA_CURAND"));
    mt19937_against_nvidia();
    on_device();
    bad_input();
    poisson_input();
    mt19937_input();
    if (n_pois)
        printf("%lld Poisson values compared with NVIDIA's\n", n_pois);
    printf("curand: %d passed, %d failed, %d skipped\n", n_pass, n_fail, n_skip);
    return n_fail ? 1 : 0;
}
