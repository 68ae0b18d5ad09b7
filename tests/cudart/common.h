/* SPDX-License-Identifier: Apache-2.0 */
/* Shared by the runtime test programs: check a call, report what failed. */
#ifndef CUDART_TEST_COMMON_H
#define CUDART_TEST_COMMON_H
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

static int rt_failed;
#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d: %s = %s (%d): %s\n", __FILE__, __LINE__, #call, \
                 cudaGetErrorName(e_), (int)e_, cudaGetErrorString(e_)); std::exit(1); } } while (0)
#define EXPECT(cond) do { if (!(cond)) { \
    std::fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond); rt_failed = 1; } } while (0)
#endif
