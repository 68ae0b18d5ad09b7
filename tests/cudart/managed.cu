/* SPDX-License-Identifier: Apache-2.0 */
// __managed__ variables through the CUDA runtime: the runtime asks the
// driver for them (cuLibraryGetManaged) before any context exists, so they
// are the library's, as on the GPU. An initialised scalar and an array,
// read and written by the host and by kernels in turn, on 2 devices; the
// host sees each kernel's result after a synchronisation. Prints "PASS".
#include "common.h"

__managed__ int counter = 5;
__managed__ float table[256];

__global__ void bump(int by)
{
    atomicAdd(&counter, by);
}

__global__ void scale(float k)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < 256) table[i] *= k;
}

int main(void)
{
    EXPECT(counter == 5); /* the initialiser, before any launch */
    bump<<<2, 32>>>(1);
    CK(cudaDeviceSynchronize());
    EXPECT(counter == 69);
    counter = 100; /* the host writes, the kernel sees it */
    bump<<<1, 1>>>(2);
    CK(cudaDeviceSynchronize());
    EXPECT(counter == 102);
    for (int i = 0; i < 256; i++) table[i] = (float)i;
    scale<<<2, 128>>>(0.5f);
    CK(cudaDeviceSynchronize());
    for (int i = 0; i < 256; i++) EXPECT(table[i] == 0.5f * (float)i);
    int n = 0;
    CK(cudaGetDeviceCount(&n));
    if (n > 1) { /* another device's kernel: the same variable */
        CK(cudaSetDevice(1));
        bump<<<1, 4>>>(10);
        CK(cudaDeviceSynchronize());
        EXPECT(counter == 142);
        CK(cudaSetDevice(0));
    }
    int *addr = nullptr;
    CK(cudaGetSymbolAddress((void **)&addr, counter));
    EXPECT(addr == &counter);
    if (rt_failed) return 1;
    std::printf("PASS\n");
    return 0;
}
