/* SPDX-License-Identifier: Apache-2.0 */
/* Events in the trace: a kernel that faults on the emulated GPU, said in
 * one line with the kernel, block, thread, access and the allocation the
 * address lies past, and its .cu line; a module that does not load, said
 * by the emulator; a launch by name with its arguments (an extern "C"
 * kernel: by their sizes); handles by name. */
#include <stdint.h>
#include <string.h>

#include "tests.h"

static const char ptx[] =
    ".version 7.0\n.target sm_70\n.address_size 64\n"
    ".file 1 \"vecadd.cu\"\n"
    ".visible .entry fill(.param .u64 p, .param .u32 n)\n{\n"
    "    .reg .b64 %rd<4>;\n    .reg .b32 %r<4>;\n"
    "    ld.param.u64 %rd1, [p];\n    ld.param.u32 %r1, [n];\n"
    "    mul.wide.u32 %rd2, %r1, 4;\n    add.s64 %rd3, %rd1, %rd2;\n"
    "    .loc 1 12 5\n"
    "    st.global.u32 [%rd3], %r1;\n    ret;\n}\n";

int main(void)
{
    MUST(cuInit(0), CUDA_SUCCESS);
    line("cuInit(0) = CUDA_SUCCESS");
    CUcontext ctx;
    MUST(cuCtxCreate_v2(&ctx, 0, 0), CUDA_SUCCESS);
    line("cuCtxCreate_v2(&ctx#1(dev 0), CU_CTX_SCHED_AUTO, 0) = CUDA_SUCCESS");
    /* a module that does not load: the emulator's diagnostic, then the call */
    CUmodule bad;
    static const char badptx[] = ".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry x(\n";
    MUST(cuModuleLoadData(&bad, badptx), CUDA_ERROR_INVALID_PTX);
    line("--- emulator: cuModuleLoadData: invalid PTX: PTX line 5: expected ')' near the end of the text (is it truncated?) (CUDA_ERROR_INVALID_PTX) ---");
    line("cuModuleLoadData(%p, %p) = CUDA_ERROR_INVALID_PTX (218)", (void *)&bad, (const void *)badptx);
    CUmodule m;
    MUST(cuModuleLoadData(&m, ptx), CUDA_SUCCESS);
    line("cuModuleLoadData(&mod#1, %p) = CUDA_SUCCESS", (const void *)ptx);
    CUfunction f;
    MUST(cuModuleGetFunction(&f, m, "fill"), CUDA_SUCCESS);
    line("cuModuleGetFunction(&fn fill, mod#1, \"fill\") = CUDA_SUCCESS");
    CUstream s;
    MUST(cuStreamCreate(&s, 0), CUDA_SUCCESS);
    line("cuStreamCreate(&stream#1, CU_STREAM_DEFAULT) = CUDA_SUCCESS");
    CUdeviceptr d;
    MUST(cuMemAlloc_v2(&d, 4096), CUDA_SUCCESS);
    line("cuMemAlloc_v2(&%#llx (alloc#1), 4 KiB) = CUDA_SUCCESS", (unsigned long long)d);
    /* the kernel runs once the launch's line is out: the stream waits for
     * a flag the program sets after cuLaunchKernel returned (those calls
     * are left out of the trace: tests/e2e/list) */
    uint32_t *flag;
    MUST(cuMemHostAlloc((void **)&flag, 4, CU_MEMHOSTALLOC_DEVICEMAP), CUDA_SUCCESS);
    *flag = 0;
    CUdeviceptr dflag;
    MUST(cuMemHostGetDevicePointer_v2(&dflag, flag, 0), CUDA_SUCCESS);
    MUST(cuStreamWaitValue32_v2(s, dflag, 1, CU_STREAM_WAIT_VALUE_EQ), CUDA_SUCCESS);
    /* the 1024th word is just past the allocation's end */
    unsigned n = 1024;
    void *args[] = { &d, &n };
    MUST(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, args, NULL), CUDA_SUCCESS);
    line("cuLaunchKernel(fill<<<(1,1,1), (1,1,1), 0 B shared, stream#1>>>(%#llx (alloc#1), 1024)) = CUDA_SUCCESS",
         (unsigned long long)d);
    __atomic_store_n(flag, 1, __ATOMIC_SEQ_CST);
    MUST(cuStreamSynchronize(s), CUDA_ERROR_ILLEGAL_ADDRESS);
    line("--- fault: fill block (0,0,0) thread (0,0,0) wrote 4 B at alloc#1+0x1000 (past its end) vecadd.cu:12 ---");
    line("cuStreamSynchronize(stream#1) = CUDA_ERROR_ILLEGAL_ADDRESS (700)");
    exited(0);
    return 0;
}
