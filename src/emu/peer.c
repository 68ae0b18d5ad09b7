/* SPDX-License-Identifier: Apache-2.0 */
/* Peer access between emulated devices. Every device's memory is host
 * memory of this one process, so any device could reach any other's; what
 * is emulated is the rule the hardware enforces: a kernel reaches memory
 * that cuMemAlloc (or a module's globals) placed on another device only
 * while its context has peer access to that device
 * (cuCtxEnablePeerAccess), and faults with CUDA_ERROR_ILLEGAL_ADDRESS
 * otherwise. Managed, host and registered memory are reached from every
 * device. Memory of stream-ordered pools follows the pool's own access
 * list instead (cuMemPoolSetAccess, here too). Peer access is kept per context as a
 * set of devices (the peer context's device): a second context on the
 * same peer device shares it. */
#include "emu.h"

TD_EXPORT CUresult CUDAAPI cuDeviceCanAccessPeer(int *canAccessPeer, CUdevice dev, CUdevice peerDev)
{
    EMU_INIT_OR_RETURN();
    if (!emu_device(dev) || !emu_device(peerDev))
        return CUDA_ERROR_INVALID_DEVICE;
    if (!canAccessPeer)
        return CUDA_ERROR_INVALID_VALUE;
    *canAccessPeer = dev != peerDev; /* a device is not its own peer */
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuDeviceGetP2PAttribute(int *value, CUdevice_P2PAttribute attrib,
                                                   CUdevice srcDevice, CUdevice dstDevice)
{
    EMU_INIT_OR_RETURN();
    if (!emu_device(srcDevice) || !emu_device(dstDevice))
        return CUDA_ERROR_INVALID_DEVICE;
    if (!value)
        return CUDA_ERROR_INVALID_VALUE;
    if (srcDevice == dstDevice)
        return CUDA_ERROR_INVALID_DEVICE;
    switch ((int)attrib) {
    case CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK: *value = 0; break;
    case CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED: *value = 1; break;
    /* the engine's atomics are the host's, on the same memory */
    case CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED: *value = 1; break;
    /* textures and surfaces of a peer's arrays: not checked to work */
    case CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED: *value = 0; break;
    case CU_DEVICE_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED: *value = 0; break;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

/* the current context and the peer context, both usable and of different
 * devices; referenced */
static CUresult pair(CUcontext peer, struct emu_ctx **cur, struct emu_ctx **other)
{
    CUresult r = emu_ctx_current(cur);
    if (r)
        return r;
    if (!peer) {
        emu_ctx_put(*cur);
        return CUDA_ERROR_INVALID_CONTEXT;
    }
    r = emu_ctx_resolve(peer, other);
    if (r) {
        emu_ctx_put(*cur);
        return r;
    }
    if ((*other)->dev == (*cur)->dev) {
        emu_ctx_put(*other);
        emu_ctx_put(*cur);
        return CUDA_ERROR_INVALID_DEVICE;
    }
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuCtxEnablePeerAccess(CUcontext peerContext, unsigned int Flags)
{
    struct emu_ctx *c, *p;
    CUresult r = pair(peerContext, &c, &p);
    if (r)
        return r;
    uint64_t bit = 1ull << p->dev->ordinal;
    if (Flags != 0)
        r = CUDA_ERROR_INVALID_VALUE;
    else if (atomic_fetch_or(&c->peers, bit) & bit)
        r = CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED;
    emu_ctx_put(p);
    emu_ctx_put(c);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuCtxDisablePeerAccess(CUcontext peerContext)
{
    struct emu_ctx *c, *p;
    CUresult r = pair(peerContext, &c, &p);
    if (r)
        return r;
    uint64_t bit = 1ull << p->dev->ordinal;
    if (!(atomic_fetch_and(&c->peers, ~bit) & bit))
        r = CUDA_ERROR_PEER_ACCESS_NOT_ENABLED;
    emu_ctx_put(p);
    emu_ctx_put(c);
    return r;
}

static int pool_reaches(struct emu_pool *p, int ordinal)
{
    return ordinal >= 0 && ordinal < 64 && (atomic_load(&p->access) >> ordinal & 1);
}

/* A pool's memory is reached from the devices its access list names (its
 * own always): what cuMemPoolSetAccess sets, for the memory the pool holds
 * now and later. */
TD_EXPORT CUresult CUDAAPI cuMemPoolSetAccess(CUmemoryPool pool, const CUmemAccessDesc *map, size_t count)
{
    EMU_INIT_OR_RETURN();
    struct emu_pool *p = emu_obj_get(pool, EMU_T_POOL);
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = count && !map ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
    uint64_t set = 0, clear = 0;
    for (size_t i = 0; i < count && r == CUDA_SUCCESS; i++) {
        const CUmemAccessDesc *d = &map[i];
        struct emu_device *dev = d->location.type == CU_MEM_LOCATION_TYPE_DEVICE ? emu_device(d->location.id) : NULL;
        if (d->location.type != CU_MEM_LOCATION_TYPE_DEVICE)
            r = CUDA_ERROR_INVALID_VALUE;
        else if (!dev || d->location.id >= 64)
            r = CUDA_ERROR_INVALID_DEVICE;
        else if (d->flags == CU_MEM_ACCESS_FLAGS_PROT_READ) {
            static const char msg[] = "tdtrace-emu: cuMemPoolSetAccess: read-only access "
                                      "(CU_MEM_ACCESS_FLAGS_PROT_READ) is not emulated (CUDA_ERROR_NOT_SUPPORTED)\n";
            emu_report(msg, sizeof msg - 1);
            r = CUDA_ERROR_NOT_SUPPORTED;
        } else if (d->flags != CU_MEM_ACCESS_FLAGS_PROT_NONE && d->flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
            r = CUDA_ERROR_INVALID_VALUE;
        else if (dev == p->dev) /* the pool's own device keeps its access */
            r = d->flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
        else if (d->flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
            set |= 1ull << d->location.id, clear &= ~(1ull << d->location.id);
        else
            clear |= 1ull << d->location.id, set &= ~(1ull << d->location.id);
    }
    if (r == CUDA_SUCCESS) { /* all or nothing */
        atomic_fetch_or(&p->access, set);
        atomic_fetch_and(&p->access, ~clear);
    }
    emu_obj_put(&p->o);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuMemPoolGetAccess(CUmemAccess_flags *flags, CUmemoryPool memPool, CUmemLocation *location)
{
    EMU_INIT_OR_RETURN();
    if (!flags || !location)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_pool *p = emu_obj_get(memPool, EMU_T_POOL);
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = CUDA_SUCCESS;
    struct emu_device *dev = location->type == CU_MEM_LOCATION_TYPE_DEVICE ? emu_device(location->id) : NULL;
    if (location->type != CU_MEM_LOCATION_TYPE_DEVICE)
        r = CUDA_ERROR_INVALID_VALUE;
    else if (!dev)
        r = CUDA_ERROR_INVALID_DEVICE;
    else
        *flags = dev == p->dev || pool_reaches(p, location->id) ? CU_MEM_ACCESS_FLAGS_PROT_READWRITE
                                                           : CU_MEM_ACCESS_FLAGS_PROT_NONE;
    emu_obj_put(&p->o);
    return r;
}

int emu_peer_reaches(struct emu_ctx *c, const struct emu_alloc *a)
{
    if (!c || !a->dev || a->dev == c->dev)
        return 1;
    if (a->pool)
        return pool_reaches(a->pool, c->dev->ordinal);
    if (a->kind != EMU_MEM_DEVICE && a->kind != EMU_MEM_GLOBAL && a->kind != EMU_MEM_IPC)
        return 1;
    if (a->kind == EMU_MEM_GLOBAL && (a->flags & EMU_ALLOC_MANAGED_VAR))
        return 1; /* a __managed__ variable: managed memory, every device's */
    int o = a->dev->ordinal;
    return o >= 0 && o < 64 && (atomic_load(&c->peers) >> o & 1);
}
