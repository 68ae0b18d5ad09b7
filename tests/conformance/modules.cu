/* SPDX-License-Identifier: Apache-2.0 */
// Modules and faults, through the driver API:
//  - a module with one kernel the engine cannot run loads, its other
//    kernel runs, and the bad one fails at its own launch;
//  - garbage and truncated PTX never load as a working module;
//  - parameter layout: `.param .u64 .ptr .align 1 p` is 8-aligned (the
//    .align is the pointee's), checked with a packed parameter buffer;
//  - a fault names the kernel, block, thread, access and the .cu line.
#include "common.h"
#include <cuda.h>
#include <unistd.h>

#define CU(x) cu_((x), #x, __LINE__)
static bool cu_(CUresult r, const char *what, int line)
{
    if (r == CUDA_SUCCESS) return true;
    const char *name = "?";
    cuGetErrorName(r, &name);
    printf("FAIL line %d: %s: %s\n", line, what, name);
    failures++;
    return false;
}

static const char two[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
                          ".visible .entry good(.param .u32 a, .param .u64 .ptr .global .align 1 p, .param .u32 b)\n{\n"
                          " .reg .b32 %r<4>;\n .reg .b64 %rd<2>;\n"
                          " ld.param.u32 %r0, [a];\n ld.param.u64 %rd0, [p];\n ld.param.u32 %r1, [b];\n"
                          " mad.lo.u32 %r2, %r0, 1000, %r1;\n st.global.u32 [%rd0], %r2;\n ret;\n}\n"
                          ".visible .entry bad(.param .u64 p)\n{\n wgmma.fence.sync.aligned;\n ret;\n}\n";

__global__ void oob(int *p)
{
    if (blockIdx.x == 1 && threadIdx.x == 3) p[1 << 26] = 1; // the line the report names
}
static const int oob_line = __LINE__ - 2;

int main()
{
    if (!CK(cudaFree(0))) return finish("modules"); // a context
    CUmodule mod;
    CUfunction good, bad;
    CUdeviceptr out = 0;
    void *pout[] = {&out, &out, &out};
    if (CU(cuModuleLoadData(&mod, two)) && CU(cuModuleGetFunction(&good, mod, "good")) &&
        CU(cuMemAlloc(&out, 16))) {
        // the parameters packed as the ABI lays them out: a at 0, p at 8, b at 16
        unsigned char buf[24] = {0};
        unsigned a = 7, b = 42;
        memcpy(buf, &a, 4);
        memcpy(buf + 8, &out, 8);
        memcpy(buf + 16, &b, 4);
        size_t size = 20;
        void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buf, CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
        unsigned got = 0;
        if (CU(cuLaunchKernel(good, 1, 1, 1, 1, 1, 1, 0, 0, NULL, extra)) && CU(cuCtxSynchronize()) &&
            CU(cuMemcpyDtoH(&got, out, 4)))
            check(got == 7042, ".ptr .align 1: the parameter is 8-aligned (a packed buffer)", "%u", got);
        void *args[] = {&b, &out, &a};
        if (CU(cuLaunchKernel(good, 1, 1, 1, 1, 1, 1, 0, 0, args, NULL)) && CU(cuCtxSynchronize()) &&
            CU(cuMemcpyDtoH(&got, out, 4)))
            check(got == 42007, "the same kernel, parameters by pointer", "%u", got);
        CUresult r = cuModuleGetFunction(&bad, mod, "bad");
        if (r == CUDA_SUCCESS) r = cuLaunchKernel(bad, 1, 1, 1, 32, 1, 1, 0, 0, pout, NULL);
        check(r != CUDA_SUCCESS, "a kernel the engine cannot run fails on its own", "it launched");
        if (CU(cuLaunchKernel(good, 1, 1, 1, 1, 1, 1, 0, 0, args, NULL)) && CU(cuCtxSynchronize()))
            check(true, "its module's other kernel still runs");
        cuModuleUnload(mod);
    }

    // garbage and truncated PTX: CUDA_ERROR_INVALID_PTX at load (or, from
    // an emulator that defers it, no kernel that runs)
    static const char *junk[] = {"\x01\x02 garbage, not PTX \xff",
                                 ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry good(.param .u32 a)\n{\n ret",
                                 ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry good() {\n add.u32 %r0, 1\n}\n"};
    for (int i = 0; i < 3; i++) {
        CUresult r = cuModuleLoadData(&mod, junk[i]);
        bool ok = r == CUDA_ERROR_INVALID_PTX || r == CUDA_ERROR_INVALID_IMAGE;
        if (r == CUDA_SUCCESS) {
            CUfunction f;
            r = cuModuleGetFunction(&f, mod, "good");
            if (r == CUDA_SUCCESS) r = cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, 0, pout, NULL);
            if (r == CUDA_SUCCESS) r = cuCtxSynchronize();
            ok = r != CUDA_SUCCESS;
            cuModuleUnload(mod);
        }
        char name[64];
        snprintf(name, sizeof name, "bad PTX %d does not load", i);
        const char *rn = "?";
        cuGetErrorName(r, &rn);
        check(ok, name, "%s", rn);
    }

    // a fault: the report on stderr names kernel, block, thread, access, .cu line
    fflush(stderr);
    FILE *tf = tmpfile();
    int saved = dup(2);
    if (tf && saved >= 0 && dup2(fileno(tf), 2) >= 0) {
        int *p;
        cudaError_t e = cudaMalloc(&p, 64);
        if (e == cudaSuccess) {
            oob<<<2, 32>>>(p);
            e = cudaDeviceSynchronize();
        }
        fflush(stderr);
        dup2(saved, 2);
        char text[2048] = "";
        rewind(tf);
        size_t n = fread(text, 1, sizeof text - 1, tf);
        text[n] = 0;
        fputs(text, stdout);
        char line[32];
        snprintf(line, sizeof line, "modules.cu:%d", oob_line);
        check(e == cudaErrorIllegalAddress, "an out-of-bounds write: cudaErrorIllegalAddress", "%s", cudaGetErrorName(e));
        check(strstr(text, "oob") && strstr(text, "block (1,0,0)") && strstr(text, "thread (3,0,0)") &&
                  strstr(text, "write") && strstr(text, line),
              "the report names kernel, block, thread, access and source line", "wanted %s", line);
    }
    return finish("modules");
}
