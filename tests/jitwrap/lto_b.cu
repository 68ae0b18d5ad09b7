/* SPDX-License-Identifier: Apache-2.0 */
// The other translation unit of the nvJitLink test (see lto_a.cu).
__device__ unsigned int lto_calls;
__device__ float combine(float a, float x, float y) { return a * x + 0.5f * y; }
