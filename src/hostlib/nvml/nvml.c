/* SPDX-License-Identifier: Apache-2.0 */
/* NVML (libnvidia-ml.so.1) for the emulated GPU: what NCCL, PyTorch and
 * monitoring code ask NVML about a device, answered from the emulated
 * driver's public API (cuDeviceGet*, cuDeviceCanAccessPeer,
 * cuDeviceGetP2PAttribute) and, for memory in use, the emulator's
 * host-access table (include/tdtrace/emuhost.h). NVML needs no context, and
 * this library makes none. What a simulated device has no value for
 * (temperatures, clocks, power, NVLink, utilisation, processes) is not
 * implemented: NVML_ERROR_NOT_SUPPORTED, from the stubs nvml.syms generates.
 * On a driver that is not tdtrace's emulator, nvmlInit fails with
 * NVML_ERROR_DRIVER_NOT_LOADED: the real NVML belongs to the real driver. */
#include "hostlib.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "emuhost.h"
#include "nvml_api.h"

/* a handle is the address of its device's entry: checked against the table */
struct nvmlDevice_st {
    CUdevice dev;
};

#define MAXDEV 64
static struct nvmlDevice_st devices[MAXDEV];
static unsigned ndevices;
static int inits;   /* nvmlInit calls not yet matched by nvmlShutdown */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static nvmlReturn_t start(void)
{
    switch (hl_emulator()) {
    case HL_OK:
        break;
    case HL_NO_DRIVER:
    case HL_NO_EMULATOR:
    default:
        return NVML_ERROR_DRIVER_NOT_LOADED;
    }
    int n = 0;
    if (cuDeviceGetCount(&n) != CUDA_SUCCESS || n < 0)
        return NVML_ERROR_UNKNOWN;
    pthread_mutex_lock(&lock);
    ndevices = (unsigned)(n > MAXDEV ? MAXDEV : n);
    for (unsigned i = 0; i < ndevices; i++)
        devices[i].dev = (CUdevice)i;
    inits++;
    pthread_mutex_unlock(&lock);
    return NVML_SUCCESS;
}

HL_EXPORT nvmlReturn_t nvmlInit_v2(void)
{
    return start();
}

HL_EXPORT nvmlReturn_t nvmlInit(void)
{
    return start();
}

HL_EXPORT nvmlReturn_t nvmlInitWithFlags(unsigned int flags)
{
    (void)flags; /* NO_GPUS / NO_ATTACH: nothing here attaches to a GPU */
    return start();
}

HL_EXPORT nvmlReturn_t nvmlShutdown(void)
{
    pthread_mutex_lock(&lock);
    nvmlReturn_t r = inits > 0 ? NVML_SUCCESS : NVML_ERROR_UNINITIALIZED;
    if (inits > 0)
        inits--;
    pthread_mutex_unlock(&lock);
    return r;
}

static int live(void)
{
    pthread_mutex_lock(&lock);
    int r = inits > 0;
    pthread_mutex_unlock(&lock);
    return r;
}

/* the device behind a handle: NVML_SUCCESS, or why not */
static nvmlReturn_t dev_of(nvmlDevice_t h, CUdevice *d)
{
    if (!live())
        return NVML_ERROR_UNINITIALIZED;
    uintptr_t p = (uintptr_t)h, base = (uintptr_t)devices;
    if (p < base || p >= base + ndevices * sizeof *devices || (p - base) % sizeof *devices)
        return NVML_ERROR_INVALID_ARGUMENT;
    *d = h->dev;
    return NVML_SUCCESS;
}

static nvmlReturn_t from_cu(CUresult r)
{
    if (r == CUDA_SUCCESS)
        return NVML_SUCCESS;
    if (r == CUDA_ERROR_INVALID_VALUE || r == CUDA_ERROR_INVALID_DEVICE)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (r == CUDA_ERROR_NOT_INITIALIZED || r == CUDA_ERROR_DEINITIALIZED)
        return NVML_ERROR_UNINITIALIZED;
    return NVML_ERROR_UNKNOWN;
}

static const struct { nvmlReturn_t r; const char *s; } errs[] = {
    { NVML_SUCCESS, "Success" },
    { NVML_ERROR_UNINITIALIZED, "Uninitialized" },
    { NVML_ERROR_INVALID_ARGUMENT, "Invalid Argument" },
    { NVML_ERROR_NOT_SUPPORTED, "Not Supported" },
    { NVML_ERROR_NO_PERMISSION, "Insufficient Permissions" },
    { NVML_ERROR_ALREADY_INITIALIZED, "Already Initialized" },
    { NVML_ERROR_NOT_FOUND, "Not Found" },
    { NVML_ERROR_INSUFFICIENT_SIZE, "Insufficient Size" },
    { NVML_ERROR_INSUFFICIENT_POWER, "Insufficient External Power" },
    { NVML_ERROR_DRIVER_NOT_LOADED, "Driver Not Loaded" },
    { NVML_ERROR_TIMEOUT, "Timeout" },
    { NVML_ERROR_IRQ_ISSUE, "Interrupt Request Issue" },
    { NVML_ERROR_LIBRARY_NOT_FOUND, "NVML Shared Library Not Found" },
    { NVML_ERROR_FUNCTION_NOT_FOUND, "Function Not Found" },
    { NVML_ERROR_CORRUPTED_INFOROM, "Corrupted infoROM" },
    { NVML_ERROR_GPU_IS_LOST, "GPU is lost" },
    { NVML_ERROR_RESET_REQUIRED, "GPU requires restart" },
    { NVML_ERROR_OPERATING_SYSTEM, "The operating system has blocked the request" },
    { NVML_ERROR_LIB_RM_VERSION_MISMATCH, "RM has detected an NVML/RM version mismatch" },
    { NVML_ERROR_IN_USE, "In use by another client" },
    { NVML_ERROR_MEMORY, "Insufficient Memory" },
    { NVML_ERROR_NO_DATA, "No data" },
    { NVML_ERROR_VGPU_ECC_NOT_SUPPORTED, "Not supported when ECC is enabled" },
    { NVML_ERROR_INSUFFICIENT_RESOURCES, "Insufficient resources" },
    { NVML_ERROR_FREQ_NOT_SUPPORTED, "Frequency not supported" },
    { NVML_ERROR_ARGUMENT_VERSION_MISMATCH, "Argument version mismatch" },
    { NVML_ERROR_DEPRECATED, "Deprecated" },
    { NVML_ERROR_NOT_READY, "Not ready" },
    { NVML_ERROR_GPU_NOT_FOUND, "GPU not found" },
    { NVML_ERROR_INVALID_STATE, "Invalid state" },
    { NVML_ERROR_UNKNOWN, "Unknown Error" },
};

HL_EXPORT const char *nvmlErrorString(nvmlReturn_t result)
{
    for (size_t i = 0; i < sizeof errs / sizeof *errs; i++)
        if (errs[i].r == result)
            return errs[i].s;
    return "Unknown Error";
}

HL_EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *v)
{
    if (!v)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (!live())
        return NVML_ERROR_UNINITIALIZED;
    return from_cu(cuDriverGetVersion(v));
}

HL_EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *v)
{
    return nvmlSystemGetCudaDriverVersion(v);
}

HL_EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *n)
{
    if (!n)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (!live())
        return NVML_ERROR_UNINITIALIZED;
    *n = ndevices;
    return NVML_SUCCESS;
}

HL_EXPORT nvmlReturn_t nvmlDeviceGetCount(unsigned int *n)
{
    return nvmlDeviceGetCount_v2(n);
}

HL_EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *d)
{
    if (!d)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (!live())
        return NVML_ERROR_UNINITIALIZED;
    if (i >= ndevices)
        return NVML_ERROR_INVALID_ARGUMENT;
    *d = &devices[i];
    return NVML_SUCCESS;
}

HL_EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int i, nvmlDevice_t *d)
{
    return nvmlDeviceGetHandleByIndex_v2(i, d);
}

HL_EXPORT nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t h, unsigned int *index)
{
    CUdevice d;
    nvmlReturn_t r = dev_of(h, &d);
    if (r)
        return r;
    if (!index)
        return NVML_ERROR_INVALID_ARGUMENT;
    *index = (unsigned)d;
    return NVML_SUCCESS;
}

/* domain, bus and device numbers as the driver's attributes give them */
static nvmlReturn_t pci_of(CUdevice d, unsigned v[3])
{
    static const CUdevice_attribute a[3] = { CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID,
                                             CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID };
    for (int i = 0; i < 3; i++) {
        int x;
        CUresult r = cuDeviceGetAttribute(&x, a[i], d);
        if (r)
            return from_cu(r);
        v[i] = (unsigned)x;
    }
    return NVML_SUCCESS;
}

/* "dddddddd:bb:dd.f", "dddd:bb:dd.f" or "bb:dd.f", hex in either case */
HL_EXPORT nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *id, nvmlDevice_t *out)
{
    if (!id || !out)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (!live())
        return NVML_ERROR_UNINITIALIZED;
    unsigned dom = 0, bus, dev, fn;
    int used = 0;
    if (sscanf(id, "%8x:%2x:%2x.%1x%n", &dom, &bus, &dev, &fn, &used) != 4 || id[used]) {
        used = 0;
        dom = 0;
        if (sscanf(id, "%2x:%2x.%1x%n", &bus, &dev, &fn, &used) != 3 || id[used])
            return NVML_ERROR_INVALID_ARGUMENT;
    }
    for (unsigned i = 0; i < ndevices; i++) {
        unsigned v[3];
        nvmlReturn_t r = pci_of(devices[i].dev, v);
        if (r)
            return r;
        if (v[0] == dom && v[1] == bus && v[2] == dev && fn == 0) {
            *out = &devices[i];
            return NVML_SUCCESS;
        }
    }
    return NVML_ERROR_NOT_FOUND;
}

HL_EXPORT nvmlReturn_t nvmlDeviceGetHandleByPciBusId(const char *id, nvmlDevice_t *out)
{
    return nvmlDeviceGetHandleByPciBusId_v2(id, out);
}

/* "GPU-" and the driver's UUID of the device, as NVML and nvidia-smi print it */
static nvmlReturn_t uuid_text(CUdevice d, char out[48])
{
    CUuuid u;
    CUresult r = cuDeviceGetUuid_v2(&u, d);
    if (r)
        return from_cu(r);
    const unsigned char *b = (const unsigned char *)u.bytes;
    snprintf(out, 48,
             "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2], b[3],
             b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
    return NVML_SUCCESS;
}

HL_EXPORT nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *out)
{
    if (!uuid || !out)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (!live())
        return NVML_ERROR_UNINITIALIZED;
    for (unsigned i = 0; i < ndevices; i++) {
        char t[48];
        nvmlReturn_t r = uuid_text(devices[i].dev, t);
        if (r)
            return r;
        if (strcasecmp(t, uuid) == 0) {
            *out = &devices[i];
            return NVML_SUCCESS;
        }
    }
    return NVML_ERROR_NOT_FOUND;
}

/* text into a caller's buffer of len bytes: INSUFFICIENT_SIZE when it does
 * not fit with its terminating zero */
static nvmlReturn_t give_text(const char *t, char *buf, unsigned len)
{
    if (!buf)
        return NVML_ERROR_INVALID_ARGUMENT;
    size_t n = strlen(t);
    if (n + 1 > len)
        return NVML_ERROR_INSUFFICIENT_SIZE;
    memcpy(buf, t, n + 1);
    return NVML_SUCCESS;
}

HL_EXPORT nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t h, char *name, unsigned int length)
{
    CUdevice d;
    nvmlReturn_t r = dev_of(h, &d);
    if (r)
        return r;
    char t[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
    CUresult cr = cuDeviceGetName(t, (int)sizeof t, d);
    return cr ? from_cu(cr) : give_text(t, name, length);
}

HL_EXPORT nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t h, char *uuid, unsigned int length)
{
    CUdevice d;
    nvmlReturn_t r = dev_of(h, &d);
    char t[48];
    if (!r)
        r = uuid_text(d, t);
    return r ? r : give_text(t, uuid, length);
}

/* the PCI facts of a device: the driver's bus id, NVIDIA's vendor id
 * (0x10de); the emulated device has no PCI device or subsystem id: 0 */
static nvmlReturn_t pci_info(nvmlDevice_t h, unsigned v[3])
{
    CUdevice d;
    nvmlReturn_t r = dev_of(h, &d);
    return r ? r : pci_of(d, v);
}

HL_EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t h, nvmlPciInfo_t *pci)
{
    unsigned v[3];
    nvmlReturn_t r = pci_info(h, v);
    if (r)
        return r;
    if (!pci)
        return NVML_ERROR_INVALID_ARGUMENT;
    memset(pci, 0, sizeof *pci);
    pci->domain = v[0];
    pci->bus = v[1];
    pci->device = v[2];
    pci->pciDeviceId = 0x10de;
    snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "%04X:%02X:%02X.0", v[0] & 0xffff, v[1] & 0xff, v[2] & 0xff);
    snprintf(pci->busId, sizeof pci->busId, "%08X:%02X:%02X.0", v[0], v[1] & 0xff, v[2] & 0xff);
    return NVML_SUCCESS;
}

HL_EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t h, nvmlPciInfo_t *pci)
{
    return nvmlDeviceGetPciInfo_v3(h, pci);
}

/* the first release's layout: the current one's facts, its legacy bus id */
HL_EXPORT nvmlReturn_t nvmlDeviceGetPciInfo(nvmlDevice_t h, nvmlPciInfo_v1_t *pci)
{
    nvmlPciInfo_t cur;
    nvmlReturn_t r = nvmlDeviceGetPciInfo_v3(h, &cur);
    if (r)
        return r;
    if (!pci)
        return NVML_ERROR_INVALID_ARGUMENT;
    memset(pci, 0, sizeof *pci);
    memcpy(pci->busId, cur.busIdLegacy, sizeof pci->busId);
    pci->domain = cur.domain;
    pci->bus = cur.bus;
    pci->device = cur.device;
    pci->pciDeviceId = cur.pciDeviceId;
    pci->pciSubSystemId = cur.pciSubSystemId;
    return NVML_SUCCESS;
}

/* this process's use of the device: the emulated GPU is not shared with
 * other processes (IPC imports map the exporter's memory) */
static nvmlReturn_t memory(nvmlDevice_t h, unsigned long long *total, unsigned long long *used)
{
    CUdevice d;
    nvmlReturn_t r = dev_of(h, &d);
    if (r)
        return r;
    const struct td_emuhost *t = hl_emuhost();
    return from_cu(t->device_memory(d, total, used));
}

HL_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t h, nvmlMemory_t *m)
{
    unsigned long long total, used;
    nvmlReturn_t r = memory(h, &total, &used);
    if (r)
        return r;
    if (!m)
        return NVML_ERROR_INVALID_ARGUMENT;
    m->total = total;
    m->used = used;
    m->free = total - used;
    return NVML_SUCCESS;
}

HL_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t h, nvmlMemory_v2_t *m)
{
    unsigned long long total, used;
    nvmlReturn_t r = memory(h, &total, &used);
    if (r)
        return r;
    if (!m)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (m->version != nvmlMemory_v2)
        return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    m->total = total;
    m->reserved = 0;
    m->used = used;
    m->free = total - used;
    return NVML_SUCCESS;
}

HL_EXPORT nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t h, int *major, int *minor)
{
    CUdevice d;
    nvmlReturn_t r = dev_of(h, &d);
    if (r)
        return r;
    if (!major || !minor)
        return NVML_ERROR_INVALID_ARGUMENT;
    CUresult cr = cuDeviceGetAttribute(major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d);
    if (!cr)
        cr = cuDeviceGetAttribute(minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d);
    return from_cu(cr);
}

/* the architecture of a compute capability's major number (8.9 is Ada) */
static const struct { int major, minor; nvmlDeviceArchitecture_t arch; } archs[] = {
    { 3, -1, NVML_DEVICE_ARCH_KEPLER }, { 5, -1, NVML_DEVICE_ARCH_MAXWELL }, { 6, -1, NVML_DEVICE_ARCH_PASCAL },
    { 7, 5, NVML_DEVICE_ARCH_TURING },  { 7, -1, NVML_DEVICE_ARCH_VOLTA },   { 8, 9, NVML_DEVICE_ARCH_ADA },
    { 8, -1, NVML_DEVICE_ARCH_AMPERE }, { 9, -1, NVML_DEVICE_ARCH_HOPPER },  { 10, -1, NVML_DEVICE_ARCH_BLACKWELL },
    { 12, -1, NVML_DEVICE_ARCH_BLACKWELL },
};

HL_EXPORT nvmlReturn_t nvmlDeviceGetArchitecture(nvmlDevice_t h, nvmlDeviceArchitecture_t *arch)
{
    int major, minor;
    nvmlReturn_t r = nvmlDeviceGetCudaComputeCapability(h, &major, &minor);
    if (r)
        return r;
    if (!arch)
        return NVML_ERROR_INVALID_ARGUMENT;
    *arch = NVML_DEVICE_ARCH_UNKNOWN;
    for (size_t i = 0; i < sizeof archs / sizeof *archs; i++)
        if (archs[i].major == major && (archs[i].minor < 0 || archs[i].minor == minor)) {
            *arch = archs[i].arch;
            break;
        }
    return NVML_SUCCESS;
}

/* what the driver says of the pair: peer access for READ and WRITE (and a
 * device with itself), native atomics for ATOMICS; the emulated devices
 * have no NVLink and no PCI topology to report */
HL_EXPORT nvmlReturn_t nvmlDeviceGetP2PStatus(nvmlDevice_t h1, nvmlDevice_t h2, nvmlGpuP2PCapsIndex_t idx,
                                              nvmlGpuP2PStatus_t *st)
{
    CUdevice a, b;
    nvmlReturn_t r = dev_of(h1, &a);
    if (!r)
        r = dev_of(h2, &b);
    if (r)
        return r;
    if (!st || (unsigned)idx >= NVML_P2P_CAPS_INDEX_UNKNOWN)
        return NVML_ERROR_INVALID_ARGUMENT;
    int ok = 0;
    CUresult cr = CUDA_SUCCESS;
    switch (idx) {
    case NVML_P2P_CAPS_INDEX_READ:
    case NVML_P2P_CAPS_INDEX_WRITE:
        if (a == b)
            ok = 1;
        else
            cr = cuDeviceCanAccessPeer(&ok, a, b);
        break;
    case NVML_P2P_CAPS_INDEX_ATOMICS:
        if (a == b)
            ok = 1;
        else
            cr = cuDeviceGetP2PAttribute(&ok, CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED, a, b);
        break;
    case NVML_P2P_CAPS_INDEX_NVLINK:
    case NVML_P2P_CAPS_INDEX_PCI:
    case NVML_P2P_CAPS_INDEX_UNKNOWN:
    default:
        break;
    }
    if (cr)
        return from_cu(cr);
    *st = ok ? NVML_P2P_STATUS_OK : NVML_P2P_STATUS_NOT_SUPPORTED;
    return NVML_SUCCESS;
}

/* no field has a value on the emulated device: each says NOT_SUPPORTED */
HL_EXPORT nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t h, int n, nvmlFieldValue_t *values)
{
    CUdevice d;
    nvmlReturn_t r = dev_of(h, &d);
    if (r)
        return r;
    if (n < 0 || (n > 0 && !values))
        return NVML_ERROR_INVALID_ARGUMENT;
    for (int i = 0; i < n; i++) {
        values[i].timestamp = 0;
        values[i].latencyUsec = 0;
        values[i].nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
    }
    return NVML_SUCCESS;
}
