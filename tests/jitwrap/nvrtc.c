/* SPDX-License-Identifier: Apache-2.0 */
/* NVRTC asked for machine code, on the emulated GPU.
 *
 *   nvrtc run OPTION...   compile two kernels (one a template, reached
 *                         through a name expression) with these options,
 *                         load what nvrtcGetCUBIN hands out (the PTX when
 *                         there is no machine code) with cuModuleLoadData,
 *                         run them and check them against the host
 *   nvrtc recompile       one program compiled again for other targets, and
 *                         a new program in a destroyed one's place: never
 *                         the image of an earlier compile
 *   nvrtc threads         programs compiled and loaded on two threads
 *   nvrtc errors          bad input: NVRTC's status and log
 *
 * Prints "image KIND [ENTRIES] N bytes" for what it was handed and "PASS"
 * at the end; exits 1 with a message on any failure. */
#include <math.h>
#include <pthread.h>

#include "common.h"
#include "nvrtc.h"

#define NV(call) do { nvrtcResult r_ = (call); if (r_ != NVRTC_SUCCESS) \
    FAIL("%s = %s", #call, nvrtcGetErrorString(r_)); } while (0)

static const char kernels_cu[] =
    "extern \"C\" __global__ void saxpy(float a, const float *x, float *y, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        y[i] = a * x[i] + y[i];\n"
    "}\n"
    "template <typename T> __global__ void histogram(const T *v, unsigned int *bins, int n)\n"
    "{\n"
    "    __shared__ unsigned int local[16];\n"
    "    if (threadIdx.x < 16)\n"
    "        local[threadIdx.x] = 0;\n"
    "    __syncthreads();\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)\n"
    "        atomicAdd(&local[(unsigned int)v[i] % 16u], 1u);\n"
    "    __syncthreads();\n"
    "    if (threadIdx.x < 16)\n"
    "        atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);\n"
    "}\n";

static char *program_log(nvrtcProgram p)
{
    size_t n = 0;
    NV(nvrtcGetProgramLogSize(p, &n));
    char *log = malloc(n + 1);
    EXPECT(log);
    NV(nvrtcGetProgramLog(p, log));
    log[n] = 0;
    return log;
}

/* Compile kernels_cu with opts; the image to load (machine code as handed
 * out, else the PTX) and the template kernel's lowered name. */
static void *compile(int nopts, const char *const *opts, size_t *len, char *lowered, size_t llen,
                     int quiet)
{
    nvrtcProgram p;
    NV(nvrtcCreateProgram(&p, kernels_cu, "kernels.cu", 0, NULL, NULL));
    NV(nvrtcAddNameExpression(p, "histogram<int>"));
    nvrtcResult r = nvrtcCompileProgram(p, nopts, opts);
    char *log = program_log(p);
    if (r != NVRTC_SUCCESS)
        FAIL("nvrtcCompileProgram = %s: %s", nvrtcGetErrorString(r), log);
    free(log);
    const char *name = NULL;
    NV(nvrtcGetLoweredName(p, "histogram<int>", &name));
    snprintf(lowered, llen, "%s", name);
    size_t n = 0;
    NV(nvrtcGetCUBINSize(p, &n));
    char *image;
    if (n) {
        image = malloc(n);
        EXPECT(image);
        NV(nvrtcGetCUBIN(p, image));
        /* asked again, the same */
        size_t n2 = 0;
        NV(nvrtcGetCUBINSize(p, &n2));
        EXPECT(n2 == n);
    } else {
        NV(nvrtcGetPTXSize(p, &n));
        image = malloc(n);
        EXPECT(image);
        NV(nvrtcGetPTX(p, image));
    }
    NV(nvrtcDestroyProgram(&p));
    EXPECT(p == NULL);
    if (!quiet) {
        char entries[256];
        const char *kind = image_kind(image, n, entries, sizeof entries);
        printf("image %s%s%s %zu bytes\n", kind, entries[0] ? " " : "", entries, n);
    }
    *len = n;
    return image;
}

/* Load image, run both kernels, check them against the host. */
static void run_image(const void *image, const char *hist_name)
{
    enum { N = 1000 };
    CUmodule mod;
    CUresult r = cuModuleLoadData(&mod, image);
    if (r != CUDA_SUCCESS) {
        const char *e = "?";
        cuGetErrorName(r, &e);
        FAIL("cuModuleLoadData = %s", e);
    }
    CUfunction saxpy, hist;
    CK(cuModuleGetFunction(&saxpy, mod, "saxpy"));
    CK(cuModuleGetFunction(&hist, mod, hist_name));

    float x[N], y[N], out[N];
    int v[N];
    unsigned bins[16], want[16] = { 0 };
    for (int i = 0; i < N; i++) {
        x[i] = (float)i * 0.25f - 40.0f;
        y[i] = (float)(i % 17) * 1.5f;
        v[i] = (i * 7919) % 1013;
        want[v[i] % 16]++;
    }
    CUdeviceptr dx, dy, dv, db;
    CK(cuMemAlloc_v2(&dx, sizeof x));
    CK(cuMemAlloc_v2(&dy, sizeof y));
    CK(cuMemAlloc_v2(&dv, sizeof v));
    CK(cuMemAlloc_v2(&db, sizeof bins));
    CK(cuMemcpyHtoD_v2(dx, x, sizeof x));
    CK(cuMemcpyHtoD_v2(dy, y, sizeof y));
    CK(cuMemcpyHtoD_v2(dv, v, sizeof v));
    CK(cuMemsetD32_v2(db, 0, 16));
    float a = 3.0f;
    int n = N;
    void *sargs[] = { &a, &dx, &dy, &n };
    CK(cuLaunchKernel(saxpy, (N + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, sargs, NULL));
    void *hargs[] = { &dv, &db, &n };
    CK(cuLaunchKernel(hist, 3, 1, 1, 64, 1, 1, 0, NULL, hargs, NULL));
    CK(cuCtxSynchronize());
    CK(cuMemcpyDtoH_v2(out, dy, sizeof out));
    CK(cuMemcpyDtoH_v2(bins, db, sizeof bins));
    for (int i = 0; i < N; i++) {
        float h = a * x[i] + y[i];
        if (fabsf(out[i] - h) > 1e-5f * fabsf(h) + 1e-6f)
            FAIL("saxpy: y[%d] = %g, host %g", i, out[i], h);
    }
    for (int i = 0; i < 16; i++)
        if (bins[i] != want[i])
            FAIL("histogram: bin %d = %u, host %u", i, bins[i], want[i]);
    CK(cuMemFree_v2(dx));
    CK(cuMemFree_v2(dy));
    CK(cuMemFree_v2(dv));
    CK(cuMemFree_v2(db));
    CK(cuModuleUnload(mod));
}

static int cmd_run(int nopts, const char *const *opts)
{
    size_t len;
    char lowered[256];
    void *image = compile(nopts, opts, &len, lowered, sizeof lowered, 0);
    gpu_init();
    run_image(image, lowered);
    gpu_done();
    free(image);
    return 0;
}

/* The arch word of the fatbinary's PTX entry; 0 if the machine code is
 * handed out as it is, -1 if there is none. */
static int ptx_arch(const nvrtcProgram p)
{
    size_t n = 0;
    NV(nvrtcGetCUBINSize(p, &n));
    if (n == 0)
        return -1;
    unsigned char *b = malloc(n);
    EXPECT(b);
    NV(nvrtcGetCUBIN(p, (char *)b));
    int arch = 0;
    if (n >= 16 && rd32(b) == 0xBA55ED50u) {
        size_t off = 16;
        while (off + 64 <= n) {
            if ((rd32(b + off) & 0xffff) == 1)
                arch = (int)rd32(b + off + 28);
            off += rd32(b + off + 4) + rd32(b + off + 8);
        }
    }
    free(b);
    return arch;
}

static int cmd_recompile(void)
{
    static const char *const sm90[] = { "-arch=sm_90" }, *const sm80[] = { "-arch=sm_80" },
                             *const c90[] = { "-arch=compute_90" },
                             *const both[] = { "-arch", "sm_75", "--gpu-architecture=compute_75" },
                             *const dlto[] = { "-arch=sm_90", "-dlto" };
    nvrtcProgram p;
    NV(nvrtcCreateProgram(&p, kernels_cu, "kernels.cu", 0, NULL, NULL));
    NV(nvrtcCompileProgram(p, 1, sm90));
    EXPECT(ptx_arch(p) == 90);
    NV(nvrtcCompileProgram(p, 1, sm80));
    EXPECT(ptx_arch(p) == 80);
    /* PTX only, then LTO-IR only: NVRTC hands out the sm_80 machine code
     * of the compile before, and so does the layer, unchanged */
    NV(nvrtcCompileProgram(p, 1, c90));
    EXPECT(ptx_arch(p) == 0);
    NV(nvrtcCompileProgram(p, 2, dlto));
    EXPECT(ptx_arch(p) == 0);
    NV(nvrtcCompileProgram(p, 3, both));
    EXPECT(ptx_arch(p) == 75);
    NV(nvrtcDestroyProgram(&p));
    /* a new program, perhaps where the old one was: its own image */
    for (int i = 0; i < 3; i++) {
        NV(nvrtcCreateProgram(&p, kernels_cu, "kernels.cu", 0, NULL, NULL));
        NV(nvrtcCompileProgram(p, 1, i == 1 ? c90 : sm90));
        EXPECT(ptx_arch(p) == (i == 1 ? -1 : 90));
        NV(nvrtcDestroyProgram(&p));
    }
    printf("PASS recompile\n");
    return 0;
}

static void *thread_main(void *arg)
{
    static const char *const opts[] = { "-arch=sm_90" };
    char lowered[256];
    size_t len;
    void **out = arg;
    *out = compile(1, opts, &len, lowered, sizeof lowered, 1);
    CK(cuCtxSetCurrent(ctx));
    run_image(*out, lowered);
    return NULL;
}

static int cmd_threads(void)
{
    gpu_init();
    pthread_t t[2];
    void *images[2];
    for (int i = 0; i < 2; i++)
        if (pthread_create(&t[i], NULL, thread_main, &images[i]))
            FAIL("pthread_create");
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    EXPECT(memcmp(images[0], images[1], 16) == 0);
    free(images[0]);
    free(images[1]);
    gpu_done();
    printf("PASS threads\n");
    return 0;
}

/* Compile src with opts: expect status want and a log containing needle. */
static void expect_compile(const char *src, int nopts, const char *const *opts, nvrtcResult want,
                           const char *needle)
{
    nvrtcProgram p;
    NV(nvrtcCreateProgram(&p, src, "bad.cu", 0, NULL, NULL));
    nvrtcResult r = nvrtcCompileProgram(p, nopts, opts);
    char *log = program_log(p);
    if (r != want || !strstr(log, needle))
        FAIL("compile %s: %s (want %s), log \"%s\" (want \"%s\")", opts[0], nvrtcGetErrorString(r),
             nvrtcGetErrorString(want), log, needle);
    printf("log %s: %.*s\n", nvrtcGetErrorString(r), (int)strcspn(log, "\n"), log);
    free(log);
    NV(nvrtcDestroyProgram(&p));
}

static int cmd_errors(void)
{
    static const char *const sm90[] = { "-arch=sm_90" };
    static const char *const bad_opt[] = { "--no-such-option", "-arch=sm_90" };
    static const char *const bad_arch[] = { "-arch=sm_99" };
    expect_compile("__global__ void k(int *p) { p[0] = undeclared; }\n", 1, sm90,
                   NVRTC_ERROR_COMPILATION, "error");
    expect_compile(kernels_cu, 2, bad_opt, NVRTC_ERROR_INVALID_OPTION, "no-such-option");
    expect_compile(kernels_cu, 1, bad_arch, NVRTC_ERROR_INVALID_OPTION, "gpu-architecture");

    nvrtcProgram p;
    size_t n = 7;
    EXPECT(nvrtcGetCUBINSize(NULL, &n) == NVRTC_ERROR_INVALID_PROGRAM && n == 7);
    EXPECT(nvrtcGetCUBIN(NULL, (char *)&n) == NVRTC_ERROR_INVALID_PROGRAM);
    EXPECT(nvrtcCreateProgram(&p, NULL, "x.cu", 0, NULL, NULL) == NVRTC_ERROR_INVALID_INPUT);
    EXPECT(nvrtcDestroyProgram(NULL) == NVRTC_ERROR_INVALID_PROGRAM);
    EXPECT(strcmp(nvrtcGetErrorString(NVRTC_ERROR_COMPILATION), "NVRTC_ERROR_COMPILATION") == 0);
    NV(nvrtcCreateProgram(&p, kernels_cu, "kernels.cu", 0, NULL, NULL));
    /* before a compile: no machine code */
    EXPECT(nvrtcGetCUBINSize(p, &n) == NVRTC_SUCCESS && n == 0);
    NV(nvrtcCompileProgram(p, 1, sm90));
    EXPECT(nvrtcGetCUBINSize(p, NULL) == NVRTC_ERROR_INVALID_INPUT);
    EXPECT(nvrtcGetCUBIN(p, NULL) == NVRTC_ERROR_INVALID_INPUT);
    NV(nvrtcDestroyProgram(&p));
    /* LTO-IR asked for: no machine code, nothing handed out in its place */
    static const char *const dlto[] = { "-arch=sm_90", "-dlto" };
    NV(nvrtcCreateProgram(&p, kernels_cu, "kernels.cu", 0, NULL, NULL));
    NV(nvrtcCompileProgram(p, 2, dlto));
    n = 7;
    NV(nvrtcGetCUBINSize(p, &n));
    EXPECT(n == 0);
    NV(nvrtcGetLTOIRSize(p, &n));
    EXPECT(n > 0);
    NV(nvrtcDestroyProgram(&p));
    printf("PASS errors\n");
    return 0;
}

int main(int argc, char **argv)
{
    int rc = 2;
    if (argc >= 2 && strcmp(argv[1], "run") == 0)
        rc = cmd_run(argc - 2, (const char *const *)argv + 2);
    else if (argc == 2 && strcmp(argv[1], "recompile") == 0)
        rc = cmd_recompile();
    else if (argc == 2 && strcmp(argv[1], "threads") == 0)
        rc = cmd_threads();
    else if (argc == 2 && strcmp(argv[1], "errors") == 0)
        rc = cmd_errors();
    else
        fprintf(stderr, "usage: nvrtc run OPTION... | recompile | threads | errors\n");
    if (rc == 0 && argc >= 2 && strcmp(argv[1], "run") == 0)
        printf("PASS\n");
    return rc;
}
