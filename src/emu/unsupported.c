/* SPDX-License-Identifier: Apache-2.0 */
#include "emu.h"

CUresult emu_unsupported(int fn)
{
    (void)fn;
    return CUDA_ERROR_NOT_SUPPORTED;
}
