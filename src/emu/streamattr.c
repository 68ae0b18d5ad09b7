/* SPDX-License-Identifier: Apache-2.0 */
/* Stream attributes (cuStreamSetAttribute, cuStreamGetAttribute,
 * cuStreamCopyAttributes) and cuCtxResetPersistingL2Cache.
 *
 * The attributes a stream takes (CUlaunchAttributeID's "valid for
 * streams"): the L2 access policy window, the synchronisation policy, the
 * priority, the memory synchronisation domain and its map, and the NVLink
 * scheduling hint. Each is validated as documented and kept for the work
 * submitted after it; they are performance hints for a GPU's caches and
 * schedulers, which the emulated device does not have, except the
 * priority, which is the one cuStreamGetPriority reports. */
#include "emu.h"

#include <string.h>

/* the attributes valid for streams, with the values a launch takes too */
static CUresult check(const struct emu_stream *s, CUstreamAttrID id, const CUstreamAttrValue *v)
{
    switch ((int)id) { /* only a stream's attributes are named */
    case CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW:
    case CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY:
    case CU_LAUNCH_ATTRIBUTE_PRIORITY:
    case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP:
    case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN:
    case CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING:
        return emu_attr_value_check(s->sctx->dev, (int)id, v);
    default:
        return CUDA_ERROR_INVALID_VALUE; /* not a stream's attribute */
    }
}

static CUresult set_attr(CUstream h, int ptds, CUstreamAttrID id, const CUstreamAttrValue *v)
{
    EMU_INIT_OR_RETURN();
    if (!v)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_stream *s;
    CUresult r = emu_stream_resolve(h, ptds, &s);
    if (r)
        return r;
    r = check(s, id, v);
    if (r == CUDA_SUCCESS) {
        pthread_mutex_lock(&s->lock);
        struct emu_stream_attrs *a = &s->attrs;
        switch ((int)id) { /* only a stream's attributes are named */
        case CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW: a->apw = v->accessPolicyWindow; break;
        case CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY: a->sync_policy = v->syncPolicy; break;
        case CU_LAUNCH_ATTRIBUTE_PRIORITY:
            s->priority = v->priority < -5 ? -5 : v->priority > 0 ? 0 : v->priority;
            break;
        case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP:
            a->domain_map = v->memSyncDomainMap;
            a->map_set = 1;
            break;
        case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN: a->domain = v->memSyncDomain; break;
        case CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING:
            a->nvlink_centric = v->nvlinkUtilCentricScheduling;
            break;
        default: break;
        }
        pthread_mutex_unlock(&s->lock);
    }
    emu_stream_put(s);
    return r;
}

static CUresult get_attr(CUstream h, int ptds, CUstreamAttrID id, CUstreamAttrValue *v)
{
    EMU_INIT_OR_RETURN();
    if (!v)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_stream *s;
    CUresult r = emu_stream_resolve(h, ptds, &s);
    if (r)
        return r;
    int domains = emu_device_attr_or(s->sctx->dev, CU_DEVICE_ATTRIBUTE_MEM_SYNC_DOMAIN_COUNT, 1);
    pthread_mutex_lock(&s->lock);
    const struct emu_stream_attrs *a = &s->attrs;
    switch ((int)id) { /* only a stream's attributes are named */
    case CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW: v->accessPolicyWindow = a->apw; break;
    case CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY:
        v->syncPolicy = a->sync_policy ? a->sync_policy : CU_SYNC_POLICY_AUTO;
        break;
    case CU_LAUNCH_ATTRIBUTE_PRIORITY: v->priority = s->priority; break;
    case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP:
        if (a->map_set) {
            v->memSyncDomainMap = a->domain_map;
        } else { /* the default domain is 0, the remote one another if there is one */
            v->memSyncDomainMap.default_ = 0;
            v->memSyncDomainMap.remote = domains > 1 ? 1 : 0;
        }
        break;
    case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN: v->memSyncDomain = a->domain; break;
    case CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING: v->nvlinkUtilCentricScheduling = a->nvlink_centric; break;
    default: r = CUDA_ERROR_INVALID_VALUE; break;
    }
    pthread_mutex_unlock(&s->lock);
    emu_stream_put(s);
    return r;
}

static CUresult copy_attrs(CUstream dst, CUstream src, int ptds)
{
    EMU_INIT_OR_RETURN();
    struct emu_stream *d, *s;
    CUresult r = emu_stream_resolve(dst, ptds, &d);
    if (r)
        return r;
    if ((r = emu_stream_resolve(src, ptds, &s))) {
        emu_stream_put(d);
        return r;
    }
    if (d->sctx != s->sctx) {
        r = CUDA_ERROR_INVALID_VALUE; /* both must be of one context */
    } else if (d != s) {
        /* one lock at a time: streams have no order among themselves */
        pthread_mutex_lock(&s->lock);
        struct emu_stream_attrs a = s->attrs;
        int prio = s->priority;
        pthread_mutex_unlock(&s->lock);
        pthread_mutex_lock(&d->lock);
        d->attrs = a;
        d->priority = prio;
        pthread_mutex_unlock(&d->lock);
    }
    emu_stream_put(s);
    emu_stream_put(d);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuStreamSetAttribute(CUstream hStream, CUstreamAttrID attr, const CUstreamAttrValue *value)
{
    return set_attr(hStream, 0, attr, value);
}

TD_EXPORT CUresult CUDAAPI cuStreamSetAttribute_ptsz(CUstream hStream, CUstreamAttrID attr,
                                                     const CUstreamAttrValue *value)
{
    return set_attr(hStream, 1, attr, value);
}

TD_EXPORT CUresult CUDAAPI cuStreamGetAttribute(CUstream hStream, CUstreamAttrID attr, CUstreamAttrValue *value_out)
{
    return get_attr(hStream, 0, attr, value_out);
}

TD_EXPORT CUresult CUDAAPI cuStreamGetAttribute_ptsz(CUstream hStream, CUstreamAttrID attr,
                                                     CUstreamAttrValue *value_out)
{
    return get_attr(hStream, 1, attr, value_out);
}

TD_EXPORT CUresult CUDAAPI cuStreamCopyAttributes(CUstream dst, CUstream src)
{
    return copy_attrs(dst, src, 0);
}

TD_EXPORT CUresult CUDAAPI cuStreamCopyAttributes_ptsz(CUstream dst, CUstream src)
{
    return copy_attrs(dst, src, 1);
}

/* no L2 cache, so no persisting lines to reset: the context is checked */
TD_EXPORT CUresult CUDAAPI cuCtxResetPersistingL2Cache(void)
{
    return emu_ctx_require();
}
