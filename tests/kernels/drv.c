/* SPDX-License-Identifier: Apache-2.0 */
/* Driver-API program: loads an image built from kernels.cu (PTX text or a
 * fatbinary) with cuModuleLoadData, or through cuLibraryLoadData /
 * cuLinkCreate, runs one named test and checks it against the host.
 * Usage: drv IMAGE TEST [module|library|link|link-devrt]. Exit 0 on success.
 * link-devrt: links libcudadevrt.a (the path in $DEVRT) too. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "td_api.h"

#define CK(call) do { CUresult r_ = (call); if (r_ != CUDA_SUCCESS) { const char *n_ = "?"; \
    cuGetErrorName(r_, &n_); fprintf(stderr, "%s:%d: %s = %s\n", __FILE__, __LINE__, #call, n_); exit(1); } } while (0)
#define FAIL(...) do { fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); exit(1); } while (0)

static CUmodule mod;
static void *kept[64];
static int nkept;
/* host buffers, freed at exit (leak checkers stay quiet) */
static void *hmalloc(size_t n)
{
    void *p = malloc(n);
    if (!p || nkept == 64) { fprintf(stderr, "out of memory\n"); exit(1); }
    return kept[nkept++] = p;
}
static void free_kept(void)
{
    while (nkept > 0) free(kept[--nkept]);
}
static CUlibrary lib;
static int use_lib;

static void *slurp(const char *p, size_t *len)
{
    FILE *f = fopen(p, "rb");
    if (!f) FAIL("cannot open %s", p);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *b = hmalloc((size_t)n + 1);
    if (fread(b, 1, (size_t)n, f) != (size_t)n) FAIL("short read");
    b[n] = 0;
    fclose(f);
    *len = (size_t)n;
    return b;
}

static CUfunction fn(const char *name)
{
    if (use_lib) {
        CUkernel k;
        CK(cuLibraryGetKernel(&k, lib, name));
        return (CUfunction)k; /* as the runtime does */
    }
    CUfunction f;
    CK(cuModuleGetFunction(&f, mod, name));
    return f;
}

static CUdeviceptr dalloc(size_t n) { CUdeviceptr p; CK(cuMemAlloc_v2(&p, n)); return p; }
static void h2d(CUdeviceptr d, const void *h, size_t n) { CK(cuMemcpyHtoD_v2(d, h, n)); }
static void d2h(void *h, CUdeviceptr d, size_t n) { CK(cuMemcpyDtoH_v2(h, d, n)); }
static void sync_ok(void) { CK(cuCtxSynchronize()); }

static void t_elementwise(void)
{
    int n = 100003;
    float a = 1.5f, *x = hmalloc(n * 4), *y = hmalloc(n * 4), *o = hmalloc(n * 4);
    for (int i = 0; i < n; i++) { x[i] = (float)i * 0.25f; y[i] = (float)(i % 17) - 8.0f; }
    CUdeviceptr dx = dalloc(n * 4), dy = dalloc(n * 4), dout = dalloc(n * 4);
    h2d(dx, x, n * 4); h2d(dy, y, n * 4);
    void *args[] = { &n, &a, &dx, &dy, &dout };
    CK(cuLaunchKernel(fn("elementwise"), (n + 255) / 256, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
    sync_ok();
    d2h(o, dout, n * 4);
    for (int i = 0; i < n; i++) {
        float e = fmaf(a, x[i], y[i] * y[i]) - 0.5f * x[i] / (1.0f + fabsf(y[i]));
        if (fabsf(o[i] - e) > 1e-5f * fabsf(e) + 1e-5f) FAIL("elementwise[%d] = %g, want %g", i, o[i], e);
    }
}

static void t_reduce(void)
{
    int n = 1 << 20, bs = 256, nb = (n + bs * 2 - 1) / (bs * 2);
    float *x = hmalloc(n * 4), *part = hmalloc(nb * 4);
    for (int i = 0; i < n; i++) x[i] = (float)(i % 100) * 0.5f;
    CUdeviceptr dx = dalloc(n * 4), dp = dalloc(nb * 4);
    h2d(dx, x, n * 4);
    void *args[] = { &dx, &dp, &n };
    CK(cuLaunchKernel(fn("reduce_shared"), nb, 1, 1, bs, 1, 1, bs * 4, NULL, args, NULL));
    sync_ok();
    d2h(part, dp, nb * 4);
    for (int b = 0; b < nb; b++) {
        double e = 0;
        for (int i = b * bs * 2; i < (b + 1) * bs * 2 && i < n; i++) e += x[i];
        if (fabs(part[b] - e) > 1e-3 * e) FAIL("block %d: %g, want %g", b, part[b], e);
    }
}

static void t_histogram(void)
{
    int n = 1000000;
    unsigned char *d = hmalloc(n);
    unsigned bins[256] = { 0 }, got[256];
    for (int i = 0; i < n; i++) { d[i] = (unsigned char)((i * 2654435761u) >> 24); bins[d[i]]++; }
    CUdeviceptr dd = dalloc(n), db = dalloc(1024);
    h2d(dd, d, n);
    CK(cuMemsetD32_v2(db, 0, 256));
    void *args[] = { &dd, &n, &db };
    CK(cuLaunchKernel(fn("histogram"), 64, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
    sync_ok();
    d2h(got, db, 1024);
    for (int i = 0; i < 256; i++) if (got[i] != bins[i]) FAIL("bin %d: %u, want %u", i, got[i], bins[i]);
}

static void t_warp(void)
{
    int n = 1000, *x = hmalloc(n * 4), out[3];
    long long e = 0;
    for (int i = 0; i < n; i++) { x[i] = i - 300; e += x[i]; }
    CUdeviceptr dx = dalloc(n * 4), dout = dalloc(12);
    h2d(dx, x, n * 4);
    CK(cuMemsetD32_v2(dout, 0, 3));
    void *args[] = { &dx, &dout, &n };
    CK(cuLaunchKernel(fn("warp_reduce"), (n + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, args, NULL));
    sync_ok();
    d2h(out, dout, 12);
    if (out[0] != e || out[1] != 1 || out[2] != 0) FAIL("warp: sum %d (want %lld), ballot %d, errors %d", out[0], e, out[1], out[2]);
}

static void t_matmul(void)
{
    int N = 100;
    float *A = hmalloc(N * N * 4), *B = hmalloc(N * N * 4), *C = hmalloc(N * N * 4);
    for (int i = 0; i < N * N; i++) { A[i] = (float)(i % 7) - 3; B[i] = (float)(i % 5) * 0.5f; }
    CUdeviceptr dA = dalloc(N * N * 4), dB = dalloc(N * N * 4), dC = dalloc(N * N * 4);
    h2d(dA, A, N * N * 4); h2d(dB, B, N * N * 4);
    void *args[] = { &dA, &dB, &dC, &N };
    CK(cuLaunchKernel(fn("matmul"), (N + 15) / 16, (N + 15) / 16, 1, 16, 16, 1, 0, NULL, args, NULL));
    sync_ok();
    d2h(C, dC, N * N * 4);
    for (int r = 0; r < N; r++)
        for (int c = 0; c < N; c++) {
            float e = 0;
            for (int k = 0; k < N; k++) e += A[r * N + k] * B[k * N + c];
            if (fabsf(C[r * N + c] - e) > 1e-3f) FAIL("C[%d][%d] = %g, want %g", r, c, C[r * N + c], e);
        }
}

static void t_printf(void)
{
    int v = 7;
    void *args[] = { &v };
    CK(cuLaunchKernel(fn("hello"), 2, 1, 1, 4, 1, 1, 0, NULL, args, NULL));
    printf("before-sync\n");
    fflush(stdout);
    sync_ok(); /* the kernel's lines come here */
    printf("after-sync\n");
}

static void t_assert(void)
{
    int h[64];
    for (int i = 0; i < 64; i++) h[i] = i == 37 ? 0 : 1;
    CUdeviceptr d = dalloc(sizeof h);
    h2d(d, h, sizeof h);
    void *args[] = { &d };
    CUfunction f = fn("check_positive"); /* after the fault, lookups in the module fail too */
    CK(cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, NULL, args, NULL));
    CUresult r = cuCtxSynchronize();
    if (r != CUDA_ERROR_ASSERT) FAIL("assert: sync gave %d, want CUDA_ERROR_ASSERT", r);
    r = cuCtxSynchronize();
    if (r != CUDA_ERROR_ASSERT) FAIL("assert: not sticky (%d)", r);
    r = cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL);
    if (r != CUDA_ERROR_ASSERT) FAIL("assert: later launch gave %d", r);
}

static unsigned lcg(unsigned x, int n)
{
    for (int i = 0; i < n; i++) x = x * 1664525u + 1013904223u;
    return x;
}

/* A fault is sticky: the synchronous copy after the faulting launch returns
 * it, and so does every later call that does work in the context. */
static void t_sticky(void)
{
    unsigned h = 7;
    int n = 300000;
    CUdeviceptr ok = dalloc(64), bad = 16;
    CUfunction f = fn("late_store");
    void *args[] = { &bad, &n };
    CK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL)); /* asynchronous: succeeds */
    CUresult r = cuMemcpyDtoH_v2(&h, ok, 4);
    if (r != CUDA_ERROR_ILLEGAL_ADDRESS) FAIL("sticky: DtoH after the faulting kernel gave %d, want CUDA_ERROR_ILLEGAL_ADDRESS", r);
    if (h != 7) FAIL("sticky: the copy ran after the fault");
    CUdeviceptr p;
    if ((r = cuMemAlloc_v2(&p, 64)) != CUDA_ERROR_ILLEGAL_ADDRESS) FAIL("sticky: a later cuMemAlloc gave %d", r);
    if ((r = cuCtxSynchronize()) != CUDA_ERROR_ILLEGAL_ADDRESS) FAIL("sticky: a later cuCtxSynchronize gave %d", r);
    void *args2[] = { &ok, &n };
    if ((r = cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, args2, NULL)) != CUDA_ERROR_ILLEGAL_ADDRESS)
        FAIL("sticky: a later launch gave %d", r);
}

/* cuMemFree of memory a running kernel writes waits for the kernel (the
 * driver's cuMemFree synchronises): the kernel must not fault */
static void t_free_running(void)
{
    int n = 300000;
    CUdeviceptr d = dalloc(32 * 4);
    void *args[] = { &d, &n };
    CK(cuLaunchKernel(fn("late_store"), 1, 1, 1, 32, 1, 1, 0, NULL, args, NULL));
    CK(cuMemFree_v2(d));
    sync_ok();
    /* and the kernel's results were there before the free: run it again
     * into memory we keep and check */
    unsigned out[32];
    d = dalloc(sizeof out);
    CK(cuLaunchKernel(fn("late_store"), 1, 1, 1, 32, 1, 1, 0, NULL, args, NULL));
    d2h(out, d, sizeof out);
    for (int i = 0; i < 32; i++)
        if (out[i] != lcg((unsigned)i, n)) FAIL("late_store[%d] = %u, want %u", i, out[i], lcg((unsigned)i, n));
}

/* a store one past the end: the launch succeeds, the sync returns the
 * fault (run.sh checks the report on stderr) */
static void t_oob(void)
{
    int n = 100;
    CUdeviceptr d = dalloc(n * 4);
    void *args[] = { &d, &n };
    CK(cuLaunchKernel(fn("_Z9oob_writePji"), 1, 1, 1, 128, 1, 1, 0, NULL, args, NULL));
    CUresult r = cuCtxSynchronize();
    if (r != CUDA_ERROR_ILLEGAL_ADDRESS) FAIL("oob: sync gave %d, want CUDA_ERROR_ILLEGAL_ADDRESS", r);
}

/* prints the __CUDA_ARCH__ of the PTX that ran (run.sh checks it) */
static void t_arch(void)
{
    int v = 0;
    CUdeviceptr d = dalloc(sizeof v);
    void *args[] = { &d };
    CK(cuLaunchKernel(fn("arch_of"), 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    d2h(&v, d, sizeof v);
    printf("arch %d\n", v);
}

static void t_constant(void)
{
    float c[4] = { 2.0f, -1.0f, 0.5f, 0 }, out[64];
    CUdeviceptr dc, dctr, dout = dalloc(sizeof out);
    size_t sz;
    if (use_lib) { CK(cuLibraryGetGlobal(&dc, &sz, lib, "coef")); CK(cuLibraryGetGlobal(&dctr, NULL, lib, "dev_counter")); }
    else { CK(cuModuleGetGlobal_v2(&dc, &sz, mod, "coef")); CK(cuModuleGetGlobal_v2(&dctr, NULL, mod, "dev_counter")); }
    if (sz != 16) FAIL("coef has %zu bytes", sz);
    h2d(dc, c, 16);
    int five = 5;
    h2d(dctr, &five, 4);
    void *args[] = { &dout };
    CK(cuLaunchKernel(fn("use_constant"), 1, 1, 1, 64, 1, 1, 0, NULL, args, NULL));
    sync_ok();
    d2h(out, dout, sizeof out);
    for (int i = 0; i < 64; i++) {
        float e = c[0] * i * i + c[1] * i + c[2];
        if (out[i] != e) FAIL("constant[%d] = %g, want %g", i, out[i], e);
    }
    int ctr;
    d2h(&ctr, dctr, 4);
    if (ctr != 6) FAIL("dev_counter = %d, want 6", ctr);
}

static void t_call(void)
{
    int n = 300;
    float *x = hmalloc(n * 4), *y = hmalloc(n * 4);
    int *z = hmalloc(n * 4);
    for (int i = 0; i < n; i++) x[i] = (float)i / 100.0f;
    CUdeviceptr dx = dalloc(n * 4), dy = dalloc(n * 4), dz = dalloc(n * 4);
    h2d(dx, x, n * 4);
    void *args[] = { &dx, &dy, &dz, &n };
    CK(cuLaunchKernel(fn("call_device"), 3, 1, 1, 128, 1, 1, 0, NULL, args, NULL));
    sync_ok();
    d2h(y, dy, n * 4);
    d2h(z, dz, n * 4);
    for (int i = 0; i < n; i++) {
        float e = 0;
        for (int k = 0; k <= 3; k++) e = e * x[i] + (float)(k + 1);
        int ez = (i & 1) ? i * 3 : i / 2;
        if (fabsf(y[i] - e) > 1e-5f * e || z[i] != ez) FAIL("call[%d]: %g %d, want %g %d", i, y[i], z[i], e, ez);
    }
}

static unsigned brev32(unsigned x) { unsigned r = 0; for (int i = 0; i < 32; i++) r |= ((x >> i) & 1u) << (31 - i); return r; }
static unsigned perm(unsigned x, unsigned y, unsigned s)
{
    unsigned long long v = ((unsigned long long)y << 32) | x;
    unsigned r = 0;
    for (int i = 0; i < 4; i++) r |= (unsigned)((v >> (((s >> (4 * i)) & 7) * 8)) & 0xff) << (8 * i);
    return r;
}

static void t_intmath(void)
{
    unsigned a[64], o[256];
    for (int i = 0; i < 64; i++) a[i] = (unsigned)(i * 2654435761u) ^ (i & 3 ? 0 : 0x80000000u);
    a[5] = 0;
    CUdeviceptr da = dalloc(sizeof a), dout = dalloc(sizeof o);
    h2d(da, a, sizeof a);
    void *args[] = { &da, &dout };
    CK(cuLaunchKernel(fn("intmath"), 1, 1, 1, 32, 1, 1, 0, NULL, args, NULL));
    sync_ok();
    d2h(o, dout, sizeof o);
    for (int i = 0; i < 32; i++) {
        unsigned x = a[i], y = a[i + 32];
        unsigned e[8] = { (unsigned)(((unsigned long long)x * y) >> 32), brev32(x), x ? (unsigned)__builtin_clz(x) : 32,
                          (unsigned)__builtin_popcount(x), perm(x, y, 0x5140),
                          (unsigned)((((unsigned long long)y << 32 | x) << (i & 31)) >> 32), (unsigned)((int)x >> (i & 31)),
                          x / (y | 1) + x % (y | 1) };
        for (int k = 0; k < 8; k++)
            if (o[i * 8 + k] != e[k]) FAIL("intmath lane %d op %d: %08x, want %08x", i, k, o[i * 8 + k], e[k]);
    }
}

/* dsl.ptx: a device-side launch through the device runtime's public names */
static void t_dsl(void)
{
    unsigned o[33];
    CUdeviceptr dout = dalloc(sizeof o);
    CK(cuMemsetD32_v2(dout, 0xffffffffu, 33));
    void *args[] = { &dout };
    CK(cuLaunchKernel(fn("dsl_parent"), 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    sync_ok();
    d2h(o, dout, sizeof o);
    for (unsigned i = 0; i < 32; i++)
        if (o[i] != 100 + i) FAIL("dsl: out[%u] = %u, want %u", i, o[i], 100 + i);
    if (o[32] != 0) FAIL("dsl: cudaLaunchDeviceV2 returned %u", o[32]);
}

int main(int argc, char **argv)
{
    if (argc < 3) FAIL("usage: drv IMAGE TEST [module|library|link|link-devrt]");
    const char *how = argc > 3 ? argv[3] : "module";
    size_t len;
    atexit(free_kept);
    void *img = slurp(argv[1], &len);
    CUdevice dev;
    CUcontext ctx;
    CK(cuInit(0));
    CK(cuDeviceGet(&dev, 0));
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
    if (strcmp(how, "library") == 0) {
        use_lib = 1;
        CK(cuLibraryLoadData(&lib, img, NULL, NULL, 0, NULL, NULL, 0));
    } else if (strcmp(how, "link") == 0 || strcmp(how, "link-devrt") == 0) {
        CUlinkState ls;
        void *out;
        size_t osz;
        CK(cuLinkCreate_v2(0, NULL, NULL, &ls));
        CK(cuLinkAddData_v2(ls, CU_JIT_INPUT_PTX, img, len + 1, "kernels.ptx", 0, NULL, NULL));
        if (strcmp(how, "link-devrt") == 0) {
            const char *devrt = getenv("DEVRT");
            if (!devrt) FAIL("link-devrt: DEVRT names no libcudadevrt.a");
            CK(cuLinkAddFile_v2(ls, CU_JIT_INPUT_LIBRARY, devrt, 0, NULL, NULL));
        }
        CK(cuLinkComplete(ls, &out, &osz));
        CK(cuModuleLoadData(&mod, out));
        CK(cuLinkDestroy(ls));
    } else
        CK(cuModuleLoadData(&mod, img));
    static const struct { const char *name; void (*fn)(void); } tests[] = {
        { "elementwise", t_elementwise }, { "reduce", t_reduce }, { "histogram", t_histogram },
        { "warp", t_warp }, { "matmul", t_matmul }, { "printf", t_printf }, { "assert", t_assert },
        { "constant", t_constant }, { "call", t_call }, { "intmath", t_intmath },
        { "sticky", t_sticky }, { "freerun", t_free_running }, { "arch", t_arch }, { "oob", t_oob },
        { "dsl", t_dsl },
    };
    for (size_t i = 0; i < sizeof tests / sizeof *tests; i++)
        if (strcmp(tests[i].name, argv[2]) == 0) {
            tests[i].fn();
            return 0;
        }
    FAIL("no test %s", argv[2]);
}
