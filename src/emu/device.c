/* SPDX-License-Identifier: Apache-2.0 */
/* Devices: the table cuInit fills, whether cuInit has succeeded, and the
 * devices' identity, attributes and PCI location. Every value comes from
 * the profile (profiles.c) through emu_device_attr, so what one call
 * reports matches what another does. */
#include "emu.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int emu_ndevices;
struct emu_device *emu_devices;
unsigned emu_launch_timeout_ms;
unsigned long long emu_launch_max_instructions;
int emu_launch_threads;
int emu_launch_engine;
int emu_eager_loading;
static atomic_int ready;

CUresult emu_check_init(void)
{
    return atomic_load_explicit(&ready, memory_order_acquire) ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED;
}

void emu_devices_ready(void)
{
    atomic_store_explicit(&ready, 1, memory_order_release);
}

CUresult emu_devices_init(const struct emu_config *cfg)
{
    struct emu_device *devs = calloc((size_t)cfg->nvisible, sizeof *devs);
    if (!devs)
        return CUDA_ERROR_OUT_OF_MEMORY;
    for (int i = 0; i < cfg->nvisible; i++) {
        struct emu_device *d = &devs[i];
        d->ordinal = i;
        d->phys = cfg->visible[i];
        d->prof = cfg->profile;
        emu_make_uuid(cfg->profile, d->phys, &d->uuid);
        d->total_mem = cfg->memory ? cfg->memory : cfg->profile->total_mem;
        pthread_mutex_init(&d->mem_lock, NULL);
    }
    emu_devices = devs;
    emu_ndevices = cfg->nvisible;
    emu_launch_timeout_ms = cfg->timeout_ms;
    emu_launch_max_instructions = cfg->max_instructions;
    emu_launch_threads = cfg->threads;
    emu_launch_engine = cfg->engine;
    emu_eager_loading = cfg->eager_loading;
    return CUDA_SUCCESS;
}

struct emu_device *emu_device(CUdevice d)
{
    if (emu_check_init() || d < 0 || d >= emu_ndevices)
        return NULL;
    return &emu_devices[d];
}

int emu_device_cc(const struct emu_device *dev)
{
    return emu_profile_cc(dev->prof);
}

CUresult emu_device_attr(const struct emu_device *dev, int attr, int *value)
{
    /* PCI location and board group follow the physical device, so they do
     * not move when CUDA_VISIBLE_DEVICES reorders devices */
    return emu_profile_attr(dev->prof, dev->phys, attr, value);
}

int emu_device_attr_or(const struct emu_device *dev, int attr, int dflt)
{
    int v;
    return emu_device_attr(dev, attr, &v) == CUDA_SUCCESS ? v : dflt;
}

/* the usual prologue: initialised, device valid */
#define DEV_OR_RETURN(var, d) \
    EMU_INIT_OR_RETURN(); \
    struct emu_device *var = emu_device(d); \
    if (!var) return CUDA_ERROR_INVALID_DEVICE

TD_EXPORT CUresult CUDAAPI cuDeviceGetCount(int *count)
{
    EMU_INIT_OR_RETURN();
    if (!count)
        return CUDA_ERROR_INVALID_VALUE;
    *count = emu_ndevices;
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuDeviceGet(CUdevice *device, int ordinal)
{
    EMU_INIT_OR_RETURN();
    if (!device)
        return CUDA_ERROR_INVALID_VALUE;
    if (ordinal < 0 || ordinal >= emu_ndevices)
        return CUDA_ERROR_INVALID_DEVICE;
    *device = ordinal;
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuDeviceGetName(char *name, int len, CUdevice dev)
{
    DEV_OR_RETURN(d, dev);
    if (!name || len <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    snprintf(name, (size_t)len, "%s", d->prof->gpu_name);
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuDeviceGetUuid(CUuuid *uuid, CUdevice dev)
{
    DEV_OR_RETURN(d, dev);
    if (!uuid)
        return CUDA_ERROR_INVALID_VALUE;
    *uuid = d->uuid;
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev)
{
    return cuDeviceGetUuid(uuid, dev);
}

TD_EXPORT CUresult CUDAAPI cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
    DEV_OR_RETURN(d, dev);
    if (!bytes)
        return CUDA_ERROR_INVALID_VALUE;
    *bytes = (size_t)d->total_mem;
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuDeviceTotalMem(unsigned int *bytes, CUdevice dev)
{
    DEV_OR_RETURN(d, dev);
    if (!bytes)
        return CUDA_ERROR_INVALID_VALUE;
    *bytes = d->total_mem > 0xffffffffULL ? 0xffffffffU : (unsigned)d->total_mem;
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev)
{
    DEV_OR_RETURN(d, dev);
    if (!pi)
        return CUDA_ERROR_INVALID_VALUE;
    return emu_device_attr(d, (int)attrib, pi);
}

TD_EXPORT CUresult CUDAAPI cuDeviceComputeCapability(int *major, int *minor, CUdevice dev)
{
    DEV_OR_RETURN(d, dev);
    if (!major || !minor)
        return CUDA_ERROR_INVALID_VALUE;
    *major = emu_device_cc(d) / 10;
    *minor = emu_device_cc(d) % 10;
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuDeviceGetProperties(CUdevprop *prop, CUdevice dev)
{
    DEV_OR_RETURN(d, dev);
    if (!prop)
        return CUDA_ERROR_INVALID_VALUE;
    memset(prop, 0, sizeof *prop);
    prop->maxThreadsPerBlock = emu_device_attr_or(d, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 0);
    prop->maxThreadsDim[0] = emu_device_attr_or(d, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, 0);
    prop->maxThreadsDim[1] = emu_device_attr_or(d, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, 0);
    prop->maxThreadsDim[2] = emu_device_attr_or(d, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, 0);
    prop->maxGridSize[0] = emu_device_attr_or(d, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, 0);
    prop->maxGridSize[1] = emu_device_attr_or(d, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, 0);
    prop->maxGridSize[2] = emu_device_attr_or(d, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, 0);
    prop->sharedMemPerBlock = emu_device_attr_or(d, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, 0);
    prop->totalConstantMemory = emu_device_attr_or(d, CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY, 0);
    prop->SIMDWidth = emu_device_attr_or(d, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 0);
    prop->memPitch = emu_device_attr_or(d, CU_DEVICE_ATTRIBUTE_MAX_PITCH, 0);
    prop->regsPerBlock = emu_device_attr_or(d, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, 0);
    prop->clockRate = emu_device_attr_or(d, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, 0);
    prop->textureAlign = emu_device_attr_or(d, CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT, 0);
    return CUDA_SUCCESS;
}

static void pci_of(const struct emu_device *d, int *domain, int *bus, int *device)
{
    *domain = emu_device_attr_or(d, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, 0);
    *bus = emu_device_attr_or(d, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, 0);
    *device = emu_device_attr_or(d, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, 0);
}

TD_EXPORT CUresult CUDAAPI cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev)
{
    DEV_OR_RETURN(d, dev);
    if (!pciBusId || len <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    int domain, bus, device;
    pci_of(d, &domain, &bus, &device);
    snprintf(pciBusId, (size_t)len, "%08X:%02X:%02X.0", domain, bus, device);
    return CUDA_SUCCESS;
}

/* "[domain:]bus:device[.function]", hex */
static int parse_pci(const char *s, int *domain, int *bus, int *device)
{
    unsigned v[3];
    int n = 0;
    while (n < 3) {
        char *end;
        if (!isxdigit((unsigned char)*s))
            return -1;
        unsigned long x = strtoul(s, &end, 16);
        if (x > 0xffffffffUL)
            return -1;
        v[n++] = (unsigned)x;
        s = end;
        if (*s != ':')
            break;
        s++;
    }
    if (*s == '.') {
        s++;
        if (!isxdigit((unsigned char)*s))
            return -1;
        strtoul(s, (char **)&s, 16);
    }
    if (*s || n < 2)
        return -1;
    *domain = n == 3 ? (int)v[0] : 0;
    *bus = (int)v[n - 2];
    *device = (int)v[n - 1];
    return 0;
}

TD_EXPORT CUresult CUDAAPI cuDeviceGetByPCIBusId(CUdevice *dev, const char *pciBusId)
{
    EMU_INIT_OR_RETURN();
    if (!dev || !pciBusId)
        return CUDA_ERROR_INVALID_VALUE;
    int domain, bus, device;
    if (parse_pci(pciBusId, &domain, &bus, &device))
        return CUDA_ERROR_INVALID_VALUE;
    for (int i = 0; i < emu_ndevices; i++) {
        int d0, b0, v0;
        pci_of(&emu_devices[i], &d0, &b0, &v0);
        if (d0 == domain && b0 == bus && v0 == device) {
            *dev = i;
            return CUDA_SUCCESS;
        }
    }
    return CUDA_ERROR_INVALID_DEVICE;
}

