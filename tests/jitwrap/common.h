/* SPDX-License-Identifier: Apache-2.0 */
/* What the NVRTC and nvJitLink test programs share: checks, the emulated
 * GPU's context, and what an image handed out by the layer is. */
#ifndef TD_TEST_JIT_COMMON_H
#define TD_TEST_JIT_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "td_api.h"

#define FAIL(...) do { fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); \
                       fputc('\n', stderr); exit(1); } while (0)
#define CK(call) do { CUresult r_ = (call); if (r_ != CUDA_SUCCESS) { const char *n_ = "?"; \
    cuGetErrorName(r_, &n_); FAIL("%s = %s", #call, n_); } } while (0)
#define EXPECT(cond) do { if (!(cond)) FAIL("expected %s", #cond); } while (0)

static CUcontext ctx;

static void gpu_init(void)
{
    CUdevice dev;
    CK(cuInit(0));
    CK(cuDeviceGet(&dev, 0));
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
}

static void gpu_done(void)
{
    CUdevice dev;
    CK(cuCtxGetDevice(&dev));
    CK(cuDevicePrimaryCtxRelease_v2(dev));
}

static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* "fatbinary" (with its entries: "ptx sm_90 elf sm_90"), "elf" or "other":
 * what the program was handed for machine code */
static const char *image_kind(const void *image, size_t len, char *entries, size_t elen)
{
    const unsigned char *d = image;
    entries[0] = 0;
    if (len >= 16 && rd32(d) == 0xBA55ED50u) {
        size_t off = 16, n = 0;
        uint64_t end = 16 + ((uint64_t)rd32(d + 8) | (uint64_t)rd32(d + 12) << 32);
        while (off + 64 <= end && end <= len) {
            const unsigned char *h = d + off;
            unsigned kind = rd32(h) & 0xffff;
            n += (size_t)snprintf(entries + n, elen - n, "%s%s sm_%u", n ? " " : "",
                                  kind == 1 ? "ptx" : kind == 2 ? "elf" : "?", rd32(h + 28));
            off += rd32(h + 4) + ((uint64_t)rd32(h + 8) | (uint64_t)rd32(h + 12) << 32);
            if (n >= elen)
                break;
        }
        return "fatbinary";
    }
    if (len >= 4 && memcmp(d, "\x7f" "ELF", 4) == 0)
        return "elf";
    return "other";
}

#endif
