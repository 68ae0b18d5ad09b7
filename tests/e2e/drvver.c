/* SPDX-License-Identifier: Apache-2.0 */
/* --emulate=driver=VERSION (argv[1]: "13.0" or "12.4"): what a program
 * finds in a driver of that release. cuCtxGetDevice_v2 (CUDA 13.0, a new
 * signature) is there for dlsym under 13.0 and not under 12.4;
 * cuGetProcAddress gives, for each ABI version asked, the entry point that
 * release has (its newest at most the version asked), and nothing for an
 * entry point newer than the release. Then the needs report. */
#include <dlfcn.h>
#include <string.h>

#include "tests.h"

static void *sym(void *h, const char *name)
{
    dlerror();
    return dlsym(h, name);
}

/* cuGetProcAddress_v2(name, version): the pointer, which must be dlsym's
 * for the entry point want (NULL: CUDA_ERROR_NOT_FOUND with status) */
static void *lookup(void *h, const char *name, int version, const char *want,
                    CUdriverProcAddressQueryResult status)
{
    void *p = (void *)1;
    CUdriverProcAddressQueryResult st;
    CUresult r = cuGetProcAddress_v2(name, &p, version, 0, &st);
    if (!want) {
        MUST(r, CUDA_ERROR_NOT_FOUND);
        if (p || st != status) {
            fprintf(stderr, "cuGetProcAddress(%s, %d): status %d, want %d\n", name, version, st, status);
            exit(99);
        }
        /* a failed call's out-values are not shown */
        line("cuGetProcAddress_v2(\"%s\", %p, %d, CU_GET_PROC_ADDRESS_DEFAULT, %p) = "
             "CUDA_ERROR_NOT_FOUND (500)", name, (void *)&p, version, (void *)&st);
        return NULL;
    }
    MUST(r, CUDA_SUCCESS);
    if (p != sym(h, want)) {
        fprintf(stderr, "cuGetProcAddress(%s, %d) is not %s\n", name, version, want);
        exit(99);
    }
    line("cuGetProcAddress_v2(\"%s\", &%p, %d, CU_GET_PROC_ADDRESS_DEFAULT, "
         "&CU_GET_PROC_ADDRESS_SUCCESS) = CUDA_SUCCESS", name, p, version);
    return p;
}

int main(int argc, char **argv)
{
    int new13 = argc > 1 && strcmp(argv[1], "13.0") == 0;
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return 99;
    int has_v2 = sym(h, "cuCtxGetDevice_v2") != NULL;
    if (has_v2 != new13) {
        fprintf(stderr, "dlsym(cuCtxGetDevice_v2): %s under %s\n", has_v2 ? "found" : "missing",
                argc > 1 ? argv[1] : "?");
        return 99;
    }
    MUST(cuInit(0), CUDA_SUCCESS);
    line("cuInit(0) = CUDA_SUCCESS");
    int v;
    MUST(cuDriverGetVersion(&v), CUDA_SUCCESS);
    line("cuDriverGetVersion(&%d) = CUDA_SUCCESS", v);
    if (v != (new13 ? 13000 : 12040))
        return 99;
    CUcontext ctx;
    MUST(cuDevicePrimaryCtxRetain(&ctx, 0), CUDA_SUCCESS);
    line("cuDevicePrimaryCtxRetain(&ctx#1(dev 0), 0) = CUDA_SUCCESS");
    MUST(cuCtxSetCurrent(ctx), CUDA_SUCCESS);
    line("cuCtxSetCurrent(ctx#1(dev 0)) = CUDA_SUCCESS");

    /* each ABI version: 12.4 has only the CUDA 2.0 signature */
    lookup(h, "cuCtxGetDevice", 2000, "cuCtxGetDevice", 0);
    lookup(h, "cuCtxGetDevice", 12040, "cuCtxGetDevice", 0);
    void *p = lookup(h, "cuCtxGetDevice", 13000, new13 ? "cuCtxGetDevice_v2" : "cuCtxGetDevice", 0);
    CUdevice dev = -1;
    if (new13) {
        MUST(((CUresult (*)(CUdevice *, CUcontext))p)(&dev, NULL), CUDA_SUCCESS);
            line("cuCtxGetDevice_v2(&0, NULL) = CUDA_SUCCESS");
    } else {
        MUST(((CUresult (*)(CUdevice *))p)(&dev), CUDA_SUCCESS);
        line("cuCtxGetDevice(&0) = CUDA_SUCCESS");
    }
    /* cuCtxCreate: _v4 came with 12.5, _v3 with 11.4 */
    lookup(h, "cuCtxCreate", 13000, new13 ? "cuCtxCreate_v4" : "cuCtxCreate_v3", 0);
    /* new in 12.8: 12.4 has no such symbol at any version */
    lookup(h, "cuMemcpyBatchAsync", 12080, new13 ? "cuMemcpyBatchAsync" : NULL,
           CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
    /* a version older than the symbol: 12.4 has it, not at 11.0 */
    lookup(h, "cuGreenCtxCreate", 11000, NULL, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
    /* PTX of ISA 8.5 (CUDA 12.5): a 12.4 driver's JIT refuses it */
    static const char ptx[] = ".version 8.5\n.target sm_80\n.address_size 64\n"
                              ".visible .entry k()\n{\n\tret;\n}\n";
    CUmodule mod;
    if (new13) {
        MUST(cuModuleLoadData(&mod, ptx), CUDA_SUCCESS);
        line("cuModuleLoadData(&mod#1, %p) = CUDA_SUCCESS", (const void *)ptx);
    } else {
        MUST(cuModuleLoadData(&mod, ptx), CUDA_ERROR_UNSUPPORTED_PTX_VERSION);
        line("--- emulator: cuModuleLoadData: PTX ISA 8.5 needs a driver of CUDA 12.5 or newer; "
             "the driver is 12.4 (CUDA_ERROR_UNSUPPORTED_PTX_VERSION) ---");
        line("cuModuleLoadData(%p, %p) = CUDA_ERROR_UNSUPPORTED_PTX_VERSION (222)", (void *)&mod,
             (const void *)ptx);
    }
    exited(0);
    /* the needs report: cuGetProcAddress asked for 13000 */
    line("this run needs driver >= 13.0 and a device of compute capability >= 8.0; cuCtxGetDevice_v2 "
         "needs 13.0 (cuGetProcAddress(\"cuCtxGetDevice\", 13000)); its PTX (ISA 8.5) needs 12.5");
    line("it asked cuGetProcAddress for ABI versions up to 13000 (CUDA 13.0)");
    if (new13) {
        line("the emulated driver presented 13.0 (cuDriverGetVersion gave 13000)");
    } else {
        line("the emulated driver presented 12.4 (cuDriverGetVersion gave 12040), "
             "older than the 13.0 this run needs");
        line("a CUDA 13 runtime needs a driver of CUDA 13 or newer (an older one: "
             "cudaErrorInsufficientDriver)");
        line("  not in 12.4, new in 12.8: cuMemcpyBatchAsync (1 lookup found nothing)");
    }
    return 0;
}
