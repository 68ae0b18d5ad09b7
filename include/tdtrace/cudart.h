/* SPDX-License-Identifier: Apache-2.0 */
/* The CUDA runtime's types that the functions of src/api/cudart.api take,
 * declared by tdtrace (the build needs no toolkit): what the generated
 * runtime wrappers (shim_rt_wrappers.c) need to have the runtime's own
 * prototypes. The enums (cudaError_t, cudaMemcpyKind, ...) come from
 * src/xlat through cuda_enums.h; the structures the runtime fills
 * (cudaDeviceProp, cudaFuncAttributes) are only pointed to. */
#ifndef TDTRACE_CUDART_H
#define TDTRACE_CUDART_H

#include "tdtrace/cuda.h"

typedef CUstream cudaStream_t;
typedef CUevent cudaEvent_t;
typedef CUgraph cudaGraph_t;
typedef CUgraphExec cudaGraphExec_t;
/* passed by value in two registers (x, y in one; z in the other), as the
 * runtime's own struct dim3 */
typedef struct dim3 {
    unsigned int x, y, z;
} dim3;
typedef struct cudaDeviceProp cudaDeviceProp;
typedef struct cudaFuncAttributes cudaFuncAttributes;

#endif
