/* SPDX-License-Identifier: Apache-2.0 */
// Built by tests/e2e/run.sh with nvcc (CUDA 13) when the toolkit is there,
// and run under --emulate=driver=12.4 and 13.0: the CUDA runtime's own
// check of the driver's version, as on a real machine (a CUDA 13 runtime
// on a 12.4 driver: cudaErrorInsufficientDriver). Prints the runtime's and
// the driver's versions and what the first allocation and a kernel gave.
#include <cstdio>
#include <cuda_runtime.h>

// LeakSanitizer cannot work in a ptraced process (sanitizer builds)
extern "C" __attribute__((visibility("default"), used)) const char *__asan_default_options()
{
    return "detect_leaks=0";
}

__global__ void set_one(int *x)
{
    *x = 1;
}

int main()
{
    int rt = 0, drv = 0;
    cudaRuntimeGetVersion(&rt);
    cudaDriverGetVersion(&drv);
    int *d = nullptr;
    cudaError_t e = cudaMalloc(&d, sizeof(int));
    std::printf("runtime %d driver %d cudaMalloc: %s\n", rt, drv, cudaGetErrorName(e));
    if (e != cudaSuccess)
        return 1;
    set_one<<<1, 1>>>(d);
    int h = 0;
    e = cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
    std::printf("kernel: %s, %d\n", cudaGetErrorName(e), h);
    cudaFree(d);
    return e != cudaSuccess || h != 1;
}
