/* SPDX-License-Identifier: Apache-2.0 */
/* The emulated GPU's host-access table: a private export table that the
 * emulator (src/emu) hands out through the public cuGetExportTable under a
 * UUID of tdtrace's own, for the host implementations of NVIDIA's libraries
 * (src/hostlib). Its presence says "device memory is host memory"; a real
 * driver answers CUDA_ERROR_NOT_FOUND for this UUID.
 *
 * Only what the public driver API cannot give is here: holding memory for
 * the time a library operation queued on a stream needs it, as the
 * emulator's own copies do, so that nothing released between the call and
 * its execution (a stream-ordered free on another stream, a context torn
 * down) can pull memory from under the operation. */
#ifndef TDTRACE_EMUHOST_H
#define TDTRACE_EMUHOST_H

#include <stddef.h>

#include "cuda.h"

#define TD_EMUHOST_UUID { 0x4b, 0xa6, 0x2a, 0xfb, 0x21, 0x4b, 0x43, 0xd4, \
                          0xbf, 0x6d, 0x45, 0xc2, 0x05, 0x46, 0x69, 0x5a }

struct td_emuhost {
    size_t size;   /* sizeof(struct td_emuhost) of the emulator's version */
    /* Takes a reference on the allocation (device, managed, page-locked or
     * registered host memory) that holds all of [p, p+len) (len 0: just p),
     * so it stays mapped until release. CUDA_ERROR_INVALID_VALUE when no
     * single allocation holds the range. */
    CUresult (*hold)(CUdeviceptr p, size_t len, void **token);
    void (*release)(void *token);
    /* Device dev's memory: its size and what this process's allocations on
     * it take, as cuMemGetInfo counts them in a context of that device, but
     * with no context needed (NVML, src/hostlib/nvml, answers without one).
     * CUDA_ERROR_INVALID_DEVICE for an ordinal out of range. */
    CUresult (*device_memory)(CUdevice dev, unsigned long long *total, unsigned long long *used);
    /* Called from a host function while it runs on a stream's worker (a
     * library operation captured into a graph, replayed after the program
     * freed memory it names): reports that [p, p+len) is not allocated,
     * as a kernel's invalid global access is reported (what names the
     * operation: "cublasSgemm"), and faults the stream's context with the
     * sticky CUDA_ERROR_ILLEGAL_ADDRESS, so the program's next
     * synchronisation returns it. why, when not NULL, says what else the
     * operation found wrong (a bad index), and p and len are ignored.
     * CUDA_ERROR_INVALID_CONTEXT on a thread that is no stream's worker
     * (nothing is reported then). Present when size covers it. */
    CUresult (*fault)(const char *what, const char *why, CUdeviceptr p, size_t len);
};

#endif
