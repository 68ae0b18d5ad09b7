/* SPDX-License-Identifier: Apache-2.0 */
/* nvJitLink asked for machine code, on the emulated GPU.
 *
 *   nvjitlink run [-o OPTION]... [-x nobinary] INPUT...
 *       link the inputs (default options -lto -arch=sm_90), load what
 *       nvJitLinkGetLinkedCubin hands out with cuModuleLoadData, run the
 *       kernel axpy_lto (lto_a.cu, calling combine() and counting in
 *       lto_calls from lto_b.cu) and check it against the host. With
 *       -x nobinary the load or the launch must fail with
 *       CUDA_ERROR_NO_BINARY_FOR_GPU (machine code only). INPUT is
 *         data:TYPE:PATH   nvJitLinkAddData of the file's bytes
 *         file:TYPE:PATH   nvJitLinkAddFile
 *         nvrtc:a|nvrtc:b  LTO-IR of lto_a.cu/lto_b.cu made by NVRTC -dlto
 *       with TYPE one of ltoir, fatbin, object, cubin, ptx, any
 *   nvjitlink errors   bad input: nvJitLink's status and error log
 *
 * Prints "image KIND [ENTRIES] N bytes" and "PASS"; exits 1 on failure.
 * The functions are called by their versioned names, as NVIDIA's header
 * makes programs call them, and a few by the plain names. */
#include <math.h>

#include "common.h"
#include "nvjitlink.h"
#include "nvrtc.h"

#define JL(h, call) do { nvJitLinkResult r_ = (call); if (r_ != NVJITLINK_SUCCESS) \
    FAIL("%s = %d: %s", #call, (int)r_, error_log(h)); } while (0)

/* the same code as lto_a.cu and lto_b.cu, for NVRTC */
static const char lto_a[] =
    "extern __device__ float combine(float a, float x, float y);\n"
    "extern __device__ unsigned int lto_calls;\n"
    "extern \"C\" __global__ void axpy_lto(float a, const float *x, float *y, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) {\n"
    "        y[i] = combine(a, x[i], y[i]);\n"
    "        atomicAdd(&lto_calls, 1u);\n"
    "    }\n"
    "}\n";
static const char lto_b[] =
    "__device__ unsigned int lto_calls;\n"
    "__device__ float combine(float a, float x, float y) { return a * x + 0.5f * y; }\n";

static char logbuf[4096];

static const char *error_log(nvJitLinkHandle h)
{
    size_t n = 0;
    logbuf[0] = 0;
    if (h && __nvJitLinkGetErrorLogSize_13_0(h, &n) == NVJITLINK_SUCCESS && n > 1 && n < sizeof logbuf)
        __nvJitLinkGetErrorLog_13_0(h, logbuf);
    return logbuf;
}

static void *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        FAIL("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *b = malloc((size_t)n + 1);
    EXPECT(b && fread(b, 1, (size_t)n, f) == (size_t)n);
    b[n] = 0;
    fclose(f);
    *len = (size_t)n;
    return b;
}

static void *ltoir(const char *src, const char *name, size_t *len)
{
    nvrtcProgram p;
    static const char *const opts[] = { "-dlto", "--relocatable-device-code=true" };
    if (nvrtcCreateProgram(&p, src, name, 0, NULL, NULL) != NVRTC_SUCCESS ||
        nvrtcCompileProgram(p, 2, opts) != NVRTC_SUCCESS || nvrtcGetLTOIRSize(p, len) != NVRTC_SUCCESS)
        FAIL("NVRTC: no LTO-IR of %s", name);
    char *b = malloc(*len);
    EXPECT(b && nvrtcGetLTOIR(p, b) == NVRTC_SUCCESS);
    nvrtcDestroyProgram(&p);
    return b;
}

static nvJitLinkInputType input_type(const char *t)
{
    static const struct { const char *name; nvJitLinkInputType type; } types[] = {
        { "ltoir", NVJITLINK_INPUT_LTOIR }, { "fatbin", NVJITLINK_INPUT_FATBIN },
        { "object", NVJITLINK_INPUT_OBJECT }, { "cubin", NVJITLINK_INPUT_CUBIN },
        { "ptx", NVJITLINK_INPUT_PTX },      { "any", NVJITLINK_INPUT_ANY },
    };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strcmp(t, types[i].name) == 0)
            return types[i].type;
    FAIL("unknown input type %s", t);
}

static void add_input(nvJitLinkHandle h, const char *spec)
{
    if (strcmp(spec, "nvrtc:a") == 0 || strcmp(spec, "nvrtc:b") == 0) {
        size_t n;
        int a = spec[6] == 'a';
        void *ir = ltoir(a ? lto_a : lto_b, a ? "lto_a.cu" : "lto_b.cu", &n);
        JL(h, __nvJitLinkAddData_13_0(h, NVJITLINK_INPUT_LTOIR, ir, n, a ? "lto_a" : "lto_b"));
        free(ir);
        return;
    }
    char how[8], type[16];
    int at = 0;
    if (sscanf(spec, "%7[a-z]:%15[a-z]:%n", how, type, &at) != 2 || !at)
        FAIL("bad input %s", spec);
    const char *path = spec + at;
    if (strcmp(how, "file") == 0) {
        JL(h, __nvJitLinkAddFile_13_0(h, input_type(type), path));
    } else if (strcmp(how, "data") == 0) {
        size_t n;
        char *d = slurp(path, &n);
        /* PTX text goes in with its NUL */
        JL(h, nvJitLinkAddData(h, input_type(type), d, n + (input_type(type) == NVJITLINK_INPUT_PTX),
                               strrchr(path, '/') ? strrchr(path, '/') + 1 : path));
        memset(d, 0, n); /* the link keeps no pointer into it */
        free(d);
    } else {
        FAIL("bad input %s", spec);
    }
}

static void run_image(const void *image)
{
    enum { N = 777 };
    CUmodule mod;
    CK(cuModuleLoadData(&mod, image));
    CUfunction k;
    CK(cuModuleGetFunction(&k, mod, "axpy_lto"));
    CUdeviceptr calls;
    size_t csize;
    CK(cuModuleGetGlobal_v2(&calls, &csize, mod, "lto_calls"));
    EXPECT(csize == 4);
    float x[N], y[N], out[N];
    for (int i = 0; i < N; i++) {
        x[i] = (float)(i % 29) - 3.5f;
        y[i] = (float)i * 0.125f;
    }
    CUdeviceptr dx, dy;
    CK(cuMemAlloc_v2(&dx, sizeof x));
    CK(cuMemAlloc_v2(&dy, sizeof y));
    CK(cuMemcpyHtoD_v2(dx, x, sizeof x));
    CK(cuMemcpyHtoD_v2(dy, y, sizeof y));
    float a = -2.0f;
    int n = N;
    void *args[] = { &a, &dx, &dy, &n };
    CK(cuLaunchKernel(k, (N + 63) / 64, 1, 1, 64, 1, 1, 0, NULL, args, NULL));
    CK(cuCtxSynchronize());
    CK(cuMemcpyDtoH_v2(out, dy, sizeof out));
    unsigned got_calls = 0;
    CK(cuMemcpyDtoH_v2(&got_calls, calls, sizeof got_calls));
    for (int i = 0; i < N; i++) {
        float h = a * x[i] + 0.5f * y[i];
        if (fabsf(out[i] - h) > 1e-5f * fabsf(h) + 1e-6f)
            FAIL("axpy_lto: y[%d] = %g, host %g", i, out[i], h);
    }
    if (got_calls != N)
        FAIL("lto_calls = %u, host %d", got_calls, N);
    CK(cuMemFree_v2(dx));
    CK(cuMemFree_v2(dy));
    CK(cuModuleUnload(mod));
}

static int cmd_run(int argc, char **argv)
{
    const char *opts[16];
    unsigned nopts = 0;
    int nobinary = 0, i = 0;
    for (; i < argc; i++) {
        if (strcmp(argv[i], "-o") == 0 && i + 1 < argc && nopts < 16)
            opts[nopts++] = argv[++i];
        else if (strcmp(argv[i], "-x") == 0 && i + 1 < argc && strcmp(argv[i + 1], "nobinary") == 0)
            nobinary = 1, i++;
        else
            break;
    }
    if (nopts == 0) {
        opts[nopts++] = "-lto";
        opts[nopts++] = "-arch=sm_90";
    }
    nvJitLinkHandle h;
    JL(NULL, __nvJitLinkCreate_13_0(&h, nopts, opts));
    for (; i < argc; i++)
        add_input(h, argv[i]);
    JL(h, __nvJitLinkComplete_13_0(h));
    size_t n = 0;
    JL(h, __nvJitLinkGetLinkedCubinSize_13_0(h, &n));
    void *image = malloc(n);
    EXPECT(image);
    JL(h, __nvJitLinkGetLinkedCubin_13_0(h, image));
    /* the plain names: the same answer */
    size_t n2 = 0;
    JL(h, nvJitLinkGetLinkedCubinSize(h, &n2));
    EXPECT(n2 == n);
    JL(h, __nvJitLinkDestroy_13_0(&h));
    EXPECT(h == NULL);
    char entries[256];
    const char *kind = image_kind(image, n, entries, sizeof entries);
    printf("image %s%s%s %zu bytes\n", kind, entries[0] ? " " : "", entries, n);
    gpu_init();
    if (nobinary) {
        /* the emulated GPU takes machine code for its names, but cannot
         * run it: the load or, at the latest, the launch says so */
        CUmodule mod;
        CUfunction k;
        float a = 1;
        CUdeviceptr d = 0;
        int one = 1;
        void *args[] = { &a, &d, &d, &one };
        CUresult r = cuModuleLoadData(&mod, image);
        if (r == CUDA_SUCCESS && (r = cuModuleGetFunction(&k, mod, "axpy_lto")) == CUDA_SUCCESS)
            r = cuLaunchKernel(k, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL);
        if (r != CUDA_ERROR_NO_BINARY_FOR_GPU)
            FAIL("load and launch: %d, want CUDA_ERROR_NO_BINARY_FOR_GPU", (int)r);
        printf("CUDA_ERROR_NO_BINARY_FOR_GPU\n");
    } else {
        run_image(image);
    }
    gpu_done();
    free(image);
    printf("PASS\n");
    return 0;
}

static void expect_create(unsigned n, const char *const *opts, nvJitLinkResult want)
{
    nvJitLinkHandle h = NULL;
    nvJitLinkResult r = __nvJitLinkCreate_13_0(&h, n, opts);
    if (r != want)
        FAIL("nvJitLinkCreate(%s%s%s) = %d, want %d", opts[0], n > 1 ? " " : "", n > 1 ? opts[1] : "",
             (int)r, (int)want);
    if (h)
        __nvJitLinkDestroy_13_0(&h);
}

static int cmd_errors(void)
{
    static const char *const bogus[] = { "-bogus", "-arch=sm_90" }, *const noarch[] = { "-lto" },
                             *const badarch[] = { "-lto", "-arch=sm_99" },
                             *const good[] = { "-lto", "-arch=sm_90" },
                             *const ptx[] = { "-lto", "-arch=sm_90", "-ptx" };
    expect_create(2, bogus, NVJITLINK_ERROR_UNRECOGNIZED_OPTION);
    expect_create(1, noarch, NVJITLINK_ERROR_MISSING_ARCH);
    expect_create(2, badarch, NVJITLINK_ERROR_UNRECOGNIZED_ARCH);
    size_t n = 0;
    EXPECT(nvJitLinkDestroy(NULL) == NVJITLINK_ERROR_NULL_INPUT);
    EXPECT(__nvJitLinkComplete_13_0(NULL) == NVJITLINK_ERROR_NULL_INPUT);
    EXPECT(__nvJitLinkGetLinkedCubinSize_13_0(NULL, &n) == NVJITLINK_ERROR_NULL_INPUT);

    /* not LTO-IR where LTO-IR is said: the input and then the link fail,
     * with the reason in the error log */
    nvJitLinkHandle h;
    JL(NULL, __nvJitLinkCreate_13_0(&h, 2, good));
    static const char garbage[] = "this is not LTO-IR at all";
    EXPECT(__nvJitLinkAddData_13_0(h, NVJITLINK_INPUT_LTOIR, garbage, sizeof garbage, "garbage") ==
           NVJITLINK_ERROR_INCORRECT_INPUT_TYPE);
    EXPECT(strstr(error_log(h), "bad input"));
    EXPECT(__nvJitLinkAddData_13_0(h, NVJITLINK_INPUT_LTOIR, NULL, 10, "null") ==
           NVJITLINK_ERROR_INCORRECT_INPUT_TYPE);
    EXPECT(__nvJitLinkAddFile_13_0(h, NVJITLINK_INPUT_ANY, "/nonexistent/x.o") ==
           NVJITLINK_ERROR_INVALID_INPUT);
    EXPECT(__nvJitLinkGetLinkedCubinSize_13_0(h, &n) == NVJITLINK_ERROR_INTERNAL);
    EXPECT(__nvJitLinkComplete_13_0(h) == NVJITLINK_ERROR_NVVM_COMPILE);
    printf("error log: %.*s\n", (int)strcspn(error_log(h), "\n"), error_log(h));
    EXPECT(strstr(error_log(h), "nvvmCompileProgram"));
    EXPECT(__nvJitLinkGetLinkedCubinSize_13_0(h, &n) == NVJITLINK_ERROR_INTERNAL);
    JL(h, __nvJitLinkDestroy_13_0(&h));

    /* the program asks for PTX: it gets nvJitLink's PTX, no machine code,
     * and the PTX runs */
    JL(NULL, __nvJitLinkCreate_13_0(&h, 3, ptx));
    add_input(h, "nvrtc:a");
    add_input(h, "nvrtc:b");
    JL(h, __nvJitLinkComplete_13_0(h));
    EXPECT(__nvJitLinkGetLinkedCubinSize_13_0(h, &n) == NVJITLINK_ERROR_INTERNAL);
    JL(h, __nvJitLinkGetLinkedPtxSize_13_0(h, &n));
    char *text = malloc(n);
    EXPECT(text);
    JL(h, nvJitLinkGetLinkedPtx(h, text));
    JL(h, __nvJitLinkDestroy_13_0(&h));
    gpu_init();
    run_image(text);
    gpu_done();
    free(text);
    unsigned major = 0, minor = 0;
    EXPECT(nvJitLinkVersion(&major, &minor) == NVJITLINK_SUCCESS && major >= 13);
    printf("PASS errors\n");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "run") == 0)
        return cmd_run(argc - 2, argv + 2);
    if (argc == 2 && strcmp(argv[1], "errors") == 0)
        return cmd_errors();
    fprintf(stderr, "usage: nvjitlink run [-o OPTION]... [-x nobinary] INPUT... | errors\n");
    return 2;
}
