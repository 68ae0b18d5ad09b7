/* SPDX-License-Identifier: Apache-2.0 */
// cuRAND's device API (NVIDIA's curand_kernel.h, compiled into this
// program's PTX and run on the emulated GPU) against the host API's device
// generators (the host cuRAND in NVIDIA's place), in the order NVIDIA's host
// API lays its results out:
//   - MTGP32: curandMakeMTGP32KernelState with the host API's seed makes
//     192 states on parameter sets 0..191; a block of 256 threads per state
//     calls curand() R times; round r of state b is results
//     (r * 192 + b) * 256 .. + 255 of curandGenerate;
//   - Sobol32, scrambled Sobol32, Sobol64, scrambled Sobol64: one thread
//     per dimension, curand_init with curandGetDirectionVectors32/64 (and
//     curandGetScrambleConstants32/64) and the offset, N curand() calls;
//     dimension d's points are results d * N .. of a generate call with D
//     dimensions after curandSetGeneratorOffset.
//   - Poisson: curand_discrete (and curand_discrete4) with a distribution
//     from curandCreatePoissonDistribution (the square histogram, lambda
//     < 2000) on Philox states curand_init(seed, s, 0) gives
//     curandGeneratePoisson's results of a Philox device generator (state
//     s's value k is result ((k / 4) * 65536 + s) * 4 + k % 4).
// Every value must be equal (a part the host cuRAND was built without is
// skipped). Prints "randkern: N passed, N failed, N skipped".
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <curand.h>
#include <curand_kernel.h>
#include <curand_mtgp32_host.h>
#include <curand_mtgp32dc_p_11213.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::printf("%s:%d: %s = %s\n", __FILE__, __LINE__, #x, cudaGetErrorName(e_)); std::exit(1); } } while (0)
#define CR(x) do { curandStatus_t r_ = (x); if (r_ != CURAND_STATUS_SUCCESS) { \
    std::printf("%s:%d: %s = %d\n", __FILE__, __LINE__, #x, (int)r_); std::exit(1); } } while (0)

static int n_pass, n_fail;

template <typename T> static void check(const char *what, const T *dev, const T *host, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (dev[i] != host[i]) {
            std::printf("FAIL %s: result %zu: device API %#llx, host API %#llx\n", what, i,
                        (unsigned long long)dev[i], (unsigned long long)host[i]);
            n_fail++;
            return;
        }
    }
    std::printf("ok   %s (%zu values)\n", what, n);
    n_pass++;
}

__global__ void mtgp(curandStateMtgp32 *st, unsigned *out, int nstates, int rounds)
{
    for (int r = 0; r < rounds; r++)
        out[((size_t)r * nstates + blockIdx.x) * 256 + threadIdx.x] = curand(&st[blockIdx.x]);
}

// curand_init for each Sobol' state (the scramble constant unused where there is none)
__device__ void init(unsigned *v, unsigned, unsigned long long off, curandStateSobol32 *s)
{
    curand_init(v, (unsigned)off, s);
}
__device__ void init(unsigned *v, unsigned c, unsigned long long off, curandStateScrambledSobol32 *s)
{
    curand_init(v, c, (unsigned)off, s);
}
__device__ void init(unsigned long long *v, unsigned long long, unsigned long long off, curandStateSobol64 *s)
{
    curand_init(v, off, s);
}
__device__ void init(unsigned long long *v, unsigned long long c, unsigned long long off,
                     curandStateScrambledSobol64 *s)
{
    curand_init(v, c, off, s);
}

template <typename S, typename V, typename T>
__global__ void sobol(const V *dirs, const T *scramble, unsigned long long offset, T *out, int dims, int n)
{
    int d = blockIdx.x * blockDim.x + threadIdx.x;
    if (d >= dims)
        return;
    S s;
    init(const_cast<T *>(dirs[d]), scramble ? scramble[d] : 0, offset, &s);
    for (int i = 0; i < n; i++)
        out[(size_t)d * n + i] = curand(&s);
}

static int n_skip;

static void test_mtgp()
{
    curandGenerator_t probe;
    if (curandCreateGenerator(&probe, CURAND_RNG_PSEUDO_MTGP32) != CURAND_STATUS_SUCCESS) {
        std::printf("skip MTGP32: the host cuRAND was built without the toolkit's parameter sets\n");
        n_skip++;
        return;
    }
    CR(curandDestroyGenerator(probe));
    const int nstates = 192, rounds = 3;
    const unsigned long long seed = 0x1234567890ull;
    size_t n = (size_t)nstates * 256 * rounds;
    curandStateMtgp32 *st;
    mtgp32_kernel_params *kp;
    unsigned *d_dev, *d_host;
    CK(cudaMalloc(&st, nstates * sizeof *st));
    CK(cudaMalloc(&kp, sizeof *kp));
    CK(cudaMalloc(&d_dev, n * 4));
    CK(cudaMalloc(&d_host, n * 4));
    CR(curandMakeMTGP32Constants(mtgp32dc_params_fast_11213, kp));
    CR(curandMakeMTGP32KernelState(st, mtgp32dc_params_fast_11213, kp, nstates, seed));
    mtgp<<<nstates, 256>>>(st, d_dev, nstates, rounds);
    CK(cudaGetLastError());
    curandGenerator_t g;
    CR(curandCreateGenerator(&g, CURAND_RNG_PSEUDO_MTGP32));
    CR(curandSetPseudoRandomGeneratorSeed(g, seed));
    CR(curandGenerate(g, d_host, n));
    CK(cudaDeviceSynchronize());
    unsigned *a = (unsigned *)std::malloc(n * 4), *b = (unsigned *)std::malloc(n * 4);
    CK(cudaMemcpy(a, d_dev, n * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(b, d_host, n * 4, cudaMemcpyDeviceToHost));
    check("MTGP32: curand() in 192 blocks of 256 threads, 3 rounds = curandGenerate", a, b, n);
    CR(curandDestroyGenerator(g));
    std::free(a);
    std::free(b);
    CK(cudaFree(st));
    CK(cudaFree(kp));
    CK(cudaFree(d_dev));
    CK(cudaFree(d_host));
}

template <typename S, typename V, typename T>
static void test_sobol(const char *what, curandRngType_t type, const V *hdirs, const T *hscr, int bits)
{
    const int dims = 40, per = 700;
    const unsigned long long offset = 1000;
    size_t n = (size_t)dims * per;
    V *ddirs;
    T *dscr = nullptr, *d_dev, *d_host;
    CK(cudaMalloc(&ddirs, dims * sizeof(V)));
    CK(cudaMemcpy(ddirs, hdirs, dims * sizeof(V), cudaMemcpyHostToDevice));
    if (hscr) {
        CK(cudaMalloc(&dscr, dims * sizeof(T)));
        CK(cudaMemcpy(dscr, hscr, dims * sizeof(T), cudaMemcpyHostToDevice));
    }
    CK(cudaMalloc(&d_dev, n * sizeof(T)));
    CK(cudaMalloc(&d_host, n * sizeof(T)));
    sobol<S, V, T><<<1, 64>>>(ddirs, dscr, offset, d_dev, dims, per);
    CK(cudaGetLastError());
    curandGenerator_t g;
    CR(curandCreateGenerator(&g, type));
    CR(curandSetQuasiRandomGeneratorDimensions(g, dims));
    CR(curandSetGeneratorOffset(g, offset));
    if (bits == 32)
        CR(curandGenerate(g, (unsigned *)d_host, n));
    else
        CR(curandGenerateLongLong(g, (unsigned long long *)d_host, n));
    CK(cudaDeviceSynchronize());
    T *a = (T *)std::malloc(n * sizeof(T)), *b = (T *)std::malloc(n * sizeof(T));
    CK(cudaMemcpy(a, d_dev, n * sizeof(T), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(b, d_host, n * sizeof(T), cudaMemcpyDeviceToHost));
    check(what, a, b, n);
    CR(curandDestroyGenerator(g));
    std::free(a);
    std::free(b);
    CK(cudaFree(ddirs));
    if (dscr)
        CK(cudaFree(dscr));
    CK(cudaFree(d_dev));
    CK(cudaFree(d_host));
}

// S states, K values each from curand_discrete (curand_discrete4 when four)
__global__ void poisson(curandDiscreteDistribution_t dist, unsigned long long seed, unsigned *out, int k, int four)
{
    curandStatePhilox4_32_10_t st;
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    curand_init(seed, s, 0, &st);
    for (int i = 0; i < k; i += four ? 4 : 1) {
        if (four) {
            uint4 v = curand_discrete4(&st, dist);
            out[s * k + i] = v.x, out[s * k + i + 1] = v.y, out[s * k + i + 2] = v.z, out[s * k + i + 3] = v.w;
        } else {
            out[s * k + i] = curand_discrete(&st, dist);
        }
    }
}

static void test_poisson(double lambda, int four)
{
    const int S = 128, K = 12;
    const size_t n = ((size_t)(K / 4 - 1) * 65536 + S) * 4;
    curandDiscreteDistribution_t dist;
    CR(curandCreatePoissonDistribution(lambda, &dist));
    unsigned *d_dev, *d_host, *dev = (unsigned *)std::malloc(S * K * 4), *host = (unsigned *)std::malloc(n * 4);
    unsigned *want = (unsigned *)std::malloc(S * K * 4);
    CK(cudaMalloc(&d_dev, S * K * 4));
    CK(cudaMalloc(&d_host, n * 4));
    poisson<<<S / 64, 64>>>(dist, 777, d_dev, K, four);
    CK(cudaGetLastError());
    curandGenerator_t g;
    CR(curandCreateGenerator(&g, CURAND_RNG_PSEUDO_PHILOX4_32_10));
    CR(curandSetPseudoRandomGeneratorSeed(g, 777));
    CR(curandGeneratePoisson(g, d_host, n, lambda));
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(dev, d_dev, S * K * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(host, d_host, n * 4, cudaMemcpyDeviceToHost));
    for (int s = 0; s < S; s++)
        for (int k = 0; k < K; k++)
            want[s * K + k] = host[((size_t)(k / 4) * 65536 + s) * 4 + k % 4];
    char what[160];
    std::snprintf(what, sizeof what, "Poisson lambda %g: %s with curandCreatePoissonDistribution = curandGeneratePoisson",
                  lambda, four ? "curand_discrete4" : "curand_discrete");
    check(what, dev, want, (size_t)S * K);
    CR(curandDestroyGenerator(g));
    CR(curandDestroyDistribution(dist));
    CK(cudaFree(d_dev));
    CK(cudaFree(d_host));
    std::free(dev);
    std::free(host);
    std::free(want);
}

int main()
{
    test_mtgp();
    test_poisson(3.5, 0);
    test_poisson(1500.25, 0);
    test_poisson(77.7, 1);
    curandGenerator_t probe;
    if (curandCreateGenerator(&probe, CURAND_RNG_QUASI_SOBOL32) != CURAND_STATUS_SUCCESS) {
        std::printf("skip Sobol': the host cuRAND was built without the direction numbers (python3-scipy)\n");
        std::printf("randkern: %d passed, %d failed, %d skipped\n", n_pass, n_fail, n_skip + 1);
        return n_fail ? 1 : 0;
    }
    CR(curandDestroyGenerator(probe));
    curandDirectionVectors32_t *v32, *s32;
    curandDirectionVectors64_t *v64, *s64;
    unsigned *c32;
    unsigned long long *c64;
    CR(curandGetDirectionVectors32(&v32, CURAND_DIRECTION_VECTORS_32_JOEKUO6));
    CR(curandGetDirectionVectors32(&s32, CURAND_SCRAMBLED_DIRECTION_VECTORS_32_JOEKUO6));
    CR(curandGetDirectionVectors64(&v64, CURAND_DIRECTION_VECTORS_64_JOEKUO6));
    CR(curandGetDirectionVectors64(&s64, CURAND_SCRAMBLED_DIRECTION_VECTORS_64_JOEKUO6));
    CR(curandGetScrambleConstants32(&c32));
    CR(curandGetScrambleConstants64(&c64));
    test_sobol<curandStateSobol32, curandDirectionVectors32_t, unsigned>(
        "Sobol32: curand_init + curand() per dimension = curandGenerate", CURAND_RNG_QUASI_SOBOL32, v32, nullptr, 32);
    test_sobol<curandStateScrambledSobol32, curandDirectionVectors32_t, unsigned>(
        "scrambled Sobol32 = curandGenerate", CURAND_RNG_QUASI_SCRAMBLED_SOBOL32, s32, c32, 32);
    test_sobol<curandStateSobol64, curandDirectionVectors64_t, unsigned long long>(
        "Sobol64 = curandGenerateLongLong", CURAND_RNG_QUASI_SOBOL64, v64, nullptr, 64);
    test_sobol<curandStateScrambledSobol64, curandDirectionVectors64_t, unsigned long long>(
        "scrambled Sobol64 = curandGenerateLongLong", CURAND_RNG_QUASI_SCRAMBLED_SOBOL64, s64, c64, 64);
    std::printf("randkern: %d passed, %d failed, %d skipped\n", n_pass, n_fail, n_skip);
    return n_fail ? 1 : 0;
}
