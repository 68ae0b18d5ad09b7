/* SPDX-License-Identifier: Apache-2.0 */
/* Reaching the emulated GPU through the public driver API, and the one
 * private table it adds (include/tdtrace/emuhost.h). */
#include "hostlib.h"

#include <pthread.h>
#include <string.h>

#include "emuhost.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const struct td_emuhost *emuhost;
static CUresult init_result;

static void find_table(void)
{
    static const unsigned char uuid[16] = TD_EMUHOST_UUID;
    CUuuid id;
    const void *t = NULL;
    memcpy(id.bytes, uuid, 16);
    init_result = cuInit(0);
    if (init_result == CUDA_SUCCESS && cuGetExportTable(&t, &id) == CUDA_SUCCESS && t &&
        ((const struct td_emuhost *)t)->size >= sizeof(struct td_emuhost))
        emuhost = t;
}

enum hl_init_status hl_emulator(void)
{
    pthread_once(&once, find_table);
    if (init_result != CUDA_SUCCESS)
        return HL_NO_DRIVER;
    return emuhost ? HL_OK : HL_NO_EMULATOR;
}

enum hl_init_status hl_init(void)
{
    enum hl_init_status st = hl_emulator();
    if (st != HL_OK)
        return st;
    CUcontext c = NULL;
    if (cuCtxGetCurrent(&c) != CUDA_SUCCESS)
        return HL_NO_DRIVER;
    if (!c) {
        /* what the runtime does at its first call: device 0's primary
         * context (kept retained: the runtime never releases it either) */
        CUdevice d;
        if (cuDeviceGet(&d, 0) != CUDA_SUCCESS || cuDevicePrimaryCtxRetain(&c, d) != CUDA_SUCCESS)
            return HL_NO_DRIVER;
        if (cuCtxSetCurrent(c) != CUDA_SUCCESS) {
            cuDevicePrimaryCtxRelease_v2(d);
            return HL_NO_DRIVER;
        }
    }
    return HL_OK;
}

enum hl_devs hl_check_devices(int n, const int *ids, int max)
{
    int count = 0;
    if (n < 1 || n > max || !ids)
        return HL_DEVS_BAD_COUNT;
    if (hl_emulator() != HL_OK || cuDeviceGetCount(&count) != CUDA_SUCCESS)
        return HL_DEVS_NO_DRIVER;
    for (int i = 0; i < n; i++) {
        if (ids[i] < 0 || ids[i] >= count)
            return HL_DEVS_BAD_DEVICE;
        for (int k = 0; k < i; k++)
            if (ids[k] == ids[i])
                return HL_DEVS_BAD_DEVICE;
    }
    return HL_DEVS_OK;
}

const struct td_emuhost *hl_emuhost(void)
{
    return emuhost;
}
