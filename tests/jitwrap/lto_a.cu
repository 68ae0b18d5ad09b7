/* SPDX-License-Identifier: Apache-2.0 */
// One translation unit of the nvJitLink test (nvjitlink.c holds the same
// code for NVRTC): a kernel calling a function and counting in a variable
// that lto_b.cu defines.
extern __device__ float combine(float a, float x, float y);
extern __device__ unsigned int lto_calls;
extern "C" __global__ void axpy_lto(float a, const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = combine(a, x[i], y[i]);
        atomicAdd(&lto_calls, 1u);
    }
}
