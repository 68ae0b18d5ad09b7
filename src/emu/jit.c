/* SPDX-License-Identifier: Apache-2.0 */
/* JIT options (cuModuleLoadDataEx, cuLibraryLoadData, cuLinkCreate,
 * cuLinkAddData): checked as the driver checks them, and the ones that
 * return something honoured: the error and info logs, capped at the sizes
 * given (the terminating NUL included), with the bytes written put back in
 * the size options' slots, and the wall time. The rest (optimisation
 * level, register limits, targets, caching) asks nothing of a PTX
 * interpreter. */
#include "emu.h"

#include <stdio.h>
#include <string.h>

CUresult emu_jit_options(unsigned n, const CUjit_option *opts, void *const *vals, struct emu_jit *j)
{
    memset(j, 0, sizeof *j);
    j->err_size_at = j->info_size_at = j->wall_at = -1;
    if (n && (!opts || !vals))
        return CUDA_ERROR_INVALID_VALUE;
    for (unsigned i = 0; i < n; i++) {
        switch ((int)opts[i]) {
        case CU_JIT_ERROR_LOG_BUFFER: j->err = vals[i]; break;
        case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES:
            j->err_size = (size_t)(uintptr_t)vals[i];
            j->err_size_at = (int)i;
            break;
        case CU_JIT_INFO_LOG_BUFFER: j->info = vals[i]; break;
        case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES:
            j->info_size = (size_t)(uintptr_t)vals[i];
            j->info_size_at = (int)i;
            break;
        case CU_JIT_WALL_TIME: j->wall_at = (int)i; break;
        case CU_JIT_LOG_VERBOSE: j->verbose = vals[i] != NULL; break;
        default:
            if ((unsigned)opts[i] >= CU_JIT_NUM_OPTIONS)
                return CUDA_ERROR_INVALID_VALUE;
            break;
        }
    }
    j->vals = (void **)vals;
    j->t0 = emu_now_ns();
    return CUDA_SUCCESS;
}

/* text into buf[size], NUL-terminated; the bytes of text written */
static size_t put_log(char *buf, size_t size, const char *text)
{
    if (!buf || !size)
        return 0;
    size_t n = strlen(text ? text : "");
    if (n > size - 1)
        n = size - 1;
    memcpy(buf, text ? text : "", n);
    buf[n] = 0;
    return n;
}

void emu_jit_done(struct emu_jit *j, const char *err, const char *info)
{
    if (!j->vals)
        return;
    size_t e = put_log(j->err, j->err_size, err);
    size_t i = put_log(j->info, j->info_size, j->verbose ? info : "");
    if (j->err_size_at >= 0)
        j->vals[j->err_size_at] = (void *)(uintptr_t)e;
    if (j->info_size_at >= 0)
        j->vals[j->info_size_at] = (void *)(uintptr_t)i;
    if (j->wall_at >= 0) { /* a float in the slot, as the driver writes it */
        float ms = (float)((double)(emu_now_ns() - j->t0) / 1e6);
        memcpy(&j->vals[j->wall_at], &ms, sizeof ms);
    }
}
