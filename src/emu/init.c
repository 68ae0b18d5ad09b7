/* SPDX-License-Identifier: Apache-2.0 */
/* cuInit: reads the configuration, sets the devices up with their primary
 * contexts and default memory pools, and lets each family that owns
 * objects of a context join the context teardown. This is the top of the
 * emulator: it calls into the families, none of them calls into it. */
#include "emu.h"

#include <stdio.h>

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static CUresult init_result = CUDA_ERROR_NOT_INITIALIZED;

static CUresult init_devices(const struct emu_config *cfg)
{
    CUresult r = emu_devices_init(cfg);
    for (int i = 0; i < emu_ndevices && r == CUDA_SUCCESS; i++) {
        r = emu_ctx_init_primary(&emu_devices[i]);
        if (r == CUDA_SUCCESS)
            r = emu_pools_init(&emu_devices[i]);
    }
    return r; /* a failure leaks the partial set: init is once per process */
}

static void do_init(void)
{
    struct emu_config cfg;
    char err[256];
    if (emu_config_load(&cfg, err, sizeof err)) {
        fprintf(stderr, "tdtrace-emu: %s\n", err);
        init_result = CUDA_ERROR_NO_DEVICE;
        return;
    }
    if (cfg.nvisible == 0) {
        init_result = CUDA_ERROR_NO_DEVICE;
        return;
    }
    init_result = init_devices(&cfg);
    if (init_result != CUDA_SUCCESS)
        return;
    /* the families that own objects of a context, in no particular order:
     * the teardown runs them by stage */
    emu_cls_init();
    emu_stream_init();
    emu_capture_init();
    emu_event_init();
    emu_module_init();
    emu_link_init();
    emu_memory_init();
    emu_devices_ready();
}

TD_EXPORT CUresult CUDAAPI cuInit(unsigned int Flags)
{
    if (Flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_once(&init_once, do_init);
    return init_result;
}
