/* SPDX-License-Identifier: Apache-2.0 */
/* tdtrace's NVML (src/hostlib/nvml) on 2 emulated devices: every answer
 * checked against what the emulated driver says of the same device (count,
 * name, UUID, PCI bus id, compute capability, memory in use as allocations
 * come and go, peer access), the handle lookups each way, and bad input:
 * calls before nvmlInit, unknown handles, short buffers, a struct of the
 * wrong version, what a simulated device has no value for. Built against
 * tdtrace's own declarations (nvml_api.h). */
#include "check.h"
#include "nvml_api.h"

#include <strings.h>

/* NVML's text of the driver's UUID */
static void uuid_of(CUdevice d, char out[48])
{
    CUuuid u;
    DRV(cuDeviceGetUuid_v2(&u, d));
    const unsigned char *b = (const unsigned char *)u.bytes;
    snprintf(out, 48, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2],
             b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

static void before_init(void)
{
    begin("before nvmlInit: NVML_ERROR_UNINITIALIZED");
    unsigned n;
    nvmlDevice_t h;
    ST(nvmlDeviceGetCount_v2(&n), NVML_ERROR_UNINITIALIZED);
    ST(nvmlDeviceGetHandleByIndex_v2(0, &h), NVML_ERROR_UNINITIALIZED);
    ST(nvmlShutdown(), NVML_ERROR_UNINITIALIZED);
    if (strcmp(nvmlErrorString(NVML_ERROR_UNINITIALIZED), "Uninitialized"))
        bad("nvmlErrorString(1) = \"%s\"", nvmlErrorString(NVML_ERROR_UNINITIALIZED));
    end();
}

static void devices(void)
{
    begin("devices: count, names, UUIDs, PCI bus ids, compute capability as the driver says");
    int cn;
    unsigned n = 0;
    DRV(cuDeviceGetCount(&cn));
    ST(nvmlDeviceGetCount_v2(&n), NVML_SUCCESS);
    ST(nvmlDeviceGetCount(&n), NVML_SUCCESS);
    if ((int)n != cn || n != 2)
        bad("%u devices, the driver says %d (2 asked for)", n, cn);
    for (unsigned i = 0; i < n; i++) {
        nvmlDevice_t h, h2;
        ST(nvmlDeviceGetHandleByIndex_v2(i, &h), NVML_SUCCESS);
        unsigned idx = 99;
        ST(nvmlDeviceGetIndex(h, &idx), NVML_SUCCESS);
        if (idx != i)
            bad("index %u of device %u", idx, i);
        char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE], cname[256];
        ST(nvmlDeviceGetName(h, name, sizeof name), NVML_SUCCESS);
        DRV(cuDeviceGetName(cname, sizeof cname, (CUdevice)i));
        if (strcmp(name, cname))
            bad("name \"%s\", the driver says \"%s\"", name, cname);
        char u[NVML_DEVICE_UUID_V2_BUFFER_SIZE], want[48];
        ST(nvmlDeviceGetUUID(h, u, sizeof u), NVML_SUCCESS);
        uuid_of((CUdevice)i, want);
        if (strcmp(u, want))
            bad("UUID %s, the driver's is %s", u, want);
        ST(nvmlDeviceGetHandleByUUID(want, &h2), NVML_SUCCESS);
        if (h2 != h)
            bad("the handle by UUID is not the handle by index");
        nvmlPciInfo_t p;
        char bus[64];
        ST(nvmlDeviceGetPciInfo_v3(h, &p), NVML_SUCCESS);
        DRV(cuDeviceGetPCIBusId(bus, sizeof bus, (CUdevice)i));
        /* the driver's form has the 8-digit domain; the legacy one 4 digits */
        if (strcasecmp(p.busId, bus))
            bad("busId %s, the driver's bus id %s", p.busId, bus);
        if (strlen(bus) != 16 || strncmp(p.busIdLegacy, "0000:", 5) || strcasecmp(p.busIdLegacy + 5, bus + 9))
            bad("busIdLegacy %s, the driver's bus id %s", p.busIdLegacy, bus);
        if ((p.pciDeviceId & 0xffff) != 0x10de)
            bad("vendor %#x", p.pciDeviceId & 0xffff);
        nvmlPciInfo_v1_t p1;
        ST(nvmlDeviceGetPciInfo(h, &p1), NVML_SUCCESS);
        if (strcmp(p1.busId, p.busIdLegacy) || p1.bus != p.bus)
            bad("v1 busId %s bus %u", p1.busId, p1.bus);
        ST(nvmlDeviceGetHandleByPciBusId_v2(p.busId, &h2), NVML_SUCCESS);
        if (h2 != h)
            bad("the handle by %s", p.busId);
        ST(nvmlDeviceGetHandleByPciBusId(bus, &h2), NVML_SUCCESS);
        if (h2 != h)
            bad("the handle by %s", bus);
        int ma, mi, cma, cmi;
        ST(nvmlDeviceGetCudaComputeCapability(h, &ma, &mi), NVML_SUCCESS);
        DRV(cuDeviceGetAttribute(&cma, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, (CUdevice)i));
        DRV(cuDeviceGetAttribute(&cmi, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, (CUdevice)i));
        if (ma != cma || mi != cmi)
            bad("compute capability %d.%d, the driver's %d.%d", ma, mi, cma, cmi);
        nvmlDeviceArchitecture_t arch = 0;
        ST(nvmlDeviceGetArchitecture(h, &arch), NVML_SUCCESS);
        if (arch != NVML_DEVICE_ARCH_HOPPER) /* the default profile, H100 */
            bad("architecture %u, expected Hopper (%d)", arch, NVML_DEVICE_ARCH_HOPPER);
    }
    int v = 0, cv = 0;
    ST(nvmlSystemGetCudaDriverVersion_v2(&v), NVML_SUCCESS);
    DRV(cuDriverGetVersion(&cv));
    if (v != cv)
        bad("CUDA driver version %d, the driver's %d", v, cv);
    end();
}

static void memory_and_peers(void)
{
    begin("memory in use follows allocations; P2P status as the driver's peer access");
    nvmlDevice_t h0, h1;
    ST(nvmlDeviceGetHandleByIndex(0, &h0), NVML_SUCCESS);
    ST(nvmlDeviceGetHandleByIndex(1, &h1), NVML_SUCCESS);
    nvmlMemory_t m0, m1;
    size_t total;
    DRV(cuDeviceTotalMem_v2(&total, 0));
    ST(nvmlDeviceGetMemoryInfo(h0, &m0), NVML_SUCCESS);
    if (m0.total != total || m0.used + m0.free != m0.total)
        bad("total %llu used %llu free %llu, the driver's total %zu", m0.total, m0.used, m0.free, total);
    CUcontext c;
    DRV(cuDevicePrimaryCtxRetain(&c, 0));
    DRV(cuCtxSetCurrent(c));
    CUdeviceptr p;
    DRV(cuMemAlloc_v2(&p, 64 << 20));
    ST(nvmlDeviceGetMemoryInfo(h0, &m1), NVML_SUCCESS);
    if (m1.used < m0.used + (64ull << 20))
        bad("used %llu after a 64 MiB allocation, %llu before", m1.used, m0.used);
    size_t fr, tot;
    DRV(cuMemGetInfo_v2(&fr, &tot));
    if (m1.free != fr)
        bad("free %llu, cuMemGetInfo says %zu", m1.free, fr);
    nvmlMemory_t o1;
    ST(nvmlDeviceGetMemoryInfo(h1, &o1), NVML_SUCCESS);
    if (o1.used != 0)
        bad("device 1 uses %llu bytes, nothing was allocated there", o1.used);
    DRV(cuMemFree_v2(p));
    ST(nvmlDeviceGetMemoryInfo(h0, &m1), NVML_SUCCESS);
    if (m1.used != m0.used)
        bad("used %llu after the free, %llu before the allocation", m1.used, m0.used);
    nvmlMemory_v2_t v2 = { .version = nvmlMemory_v2 };
    ST(nvmlDeviceGetMemoryInfo_v2(h0, &v2), NVML_SUCCESS);
    if (v2.total != total)
        bad("v2 total %llu", v2.total);
    v2.version = 1;
    ST(nvmlDeviceGetMemoryInfo_v2(h0, &v2), NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    nvmlGpuP2PStatus_t st = NVML_P2P_STATUS_UNKNOWN;
    int can;
    DRV(cuDeviceCanAccessPeer(&can, 0, 1));
    ST(nvmlDeviceGetP2PStatus(h0, h1, NVML_P2P_CAPS_INDEX_READ, &st), NVML_SUCCESS);
    if ((st == NVML_P2P_STATUS_OK) != (can != 0))
        bad("P2P read status %d, cuDeviceCanAccessPeer says %d", st, can);
    ST(nvmlDeviceGetP2PStatus(h0, h1, NVML_P2P_CAPS_INDEX_NVLINK, &st), NVML_SUCCESS);
    if (st != NVML_P2P_STATUS_NOT_SUPPORTED)
        bad("NVLink P2P status %d: the emulated devices have no NVLink", st);
    ST(nvmlDeviceGetP2PStatus(h0, h1, (nvmlGpuP2PCapsIndex_t)7, &st), NVML_ERROR_INVALID_ARGUMENT);
    DRV(cuDevicePrimaryCtxRelease_v2(0));
    end();
}

static void bad_input(void)
{
    begin("bad input: handles, indexes, buffers, bus ids; what the device has no value for");
    nvmlDevice_t h, fake = (nvmlDevice_t)(uintptr_t)0x1000, h2;
    ST(nvmlDeviceGetHandleByIndex_v2(0, &h), NVML_SUCCESS);
    ST(nvmlDeviceGetHandleByIndex_v2(2, &h2), NVML_ERROR_INVALID_ARGUMENT);
    ST(nvmlDeviceGetHandleByIndex_v2(0, NULL), NVML_ERROR_INVALID_ARGUMENT);
    ST(nvmlDeviceGetCount_v2(NULL), NVML_ERROR_INVALID_ARGUMENT);
    char name[8];
    unsigned idx;
    ST(nvmlDeviceGetName(fake, name, sizeof name), NVML_ERROR_INVALID_ARGUMENT);
    ST(nvmlDeviceGetIndex((nvmlDevice_t)((char *)h + 1), &idx), NVML_ERROR_INVALID_ARGUMENT);
    ST(nvmlDeviceGetName(h, name, sizeof name), NVML_ERROR_INSUFFICIENT_SIZE);
    ST(nvmlDeviceGetUUID(h, name, sizeof name), NVML_ERROR_INSUFFICIENT_SIZE);
    ST(nvmlDeviceGetName(h, NULL, 64), NVML_ERROR_INVALID_ARGUMENT);
    ST(nvmlDeviceGetHandleByPciBusId_v2("not a bus id", &h2), NVML_ERROR_INVALID_ARGUMENT);
    ST(nvmlDeviceGetHandleByPciBusId_v2("0000:FF:1F.0", &h2), NVML_ERROR_NOT_FOUND);
    ST(nvmlDeviceGetHandleByPciBusId_v2("0000:00:00.0 trailing", &h2), NVML_ERROR_INVALID_ARGUMENT);
    ST(nvmlDeviceGetHandleByUUID("GPU-00000000-0000-0000-0000-000000000000", &h2), NVML_ERROR_NOT_FOUND);
    ST(nvmlDeviceGetMemoryInfo(h, NULL), NVML_ERROR_INVALID_ARGUMENT);
    ST(nvmlDeviceGetFieldValues(h, -1, NULL), NVML_ERROR_INVALID_ARGUMENT);
    nvmlFieldValue_t fv[2] = { { .fieldId = 1 }, { .fieldId = 2 } };
    ST(nvmlDeviceGetFieldValues(h, 2, fv), NVML_SUCCESS);
    if (fv[0].nvmlReturn != NVML_ERROR_NOT_SUPPORTED || fv[1].nvmlReturn != NVML_ERROR_NOT_SUPPORTED)
        bad("field values say %d %d, expected NOT_SUPPORTED", fv[0].nvmlReturn, fv[1].nvmlReturn);
    /* a simulated device has no temperature or NVLink: the exported stubs */
    extern int nvmlDeviceGetTemperature(void);
    extern int nvmlDeviceGetNvLinkState(void);
    ST(nvmlDeviceGetTemperature(), NVML_ERROR_NOT_SUPPORTED);
    ST(nvmlDeviceGetNvLinkState(), NVML_ERROR_NOT_SUPPORTED);
    end();
}

static void shutdown_counts(void)
{
    begin("nvmlShutdown undoes one nvmlInit each");
    unsigned n;
    ST(nvmlInit(), NVML_SUCCESS); /* a second */
    ST(nvmlShutdown(), NVML_SUCCESS);
    ST(nvmlDeviceGetCount_v2(&n), NVML_SUCCESS);
    ST(nvmlShutdown(), NVML_SUCCESS);
    ST(nvmlDeviceGetCount_v2(&n), NVML_ERROR_UNINITIALIZED);
    ST(nvmlShutdown(), NVML_ERROR_UNINITIALIZED);
    end();
}

int main(void)
{
    setenv("TDTRACE_EMU_DEVICES", "2", 1); /* read by the emulator's cuInit */
    before_init();
    begin("nvmlInit_v2");
    ST(nvmlInit_v2(), NVML_SUCCESS);
    end();
    devices();
    memory_and_peers();
    bad_input();
    shutdown_counts();
    printf("nvml: %d passed, %d failed\n", n_pass, n_fail);
    return n_fail ? 1 : 0;
}
