/* SPDX-License-Identifier: Apache-2.0 */
/* The attributes of a launch (CUlaunchConfig.attrs of cuLaunchKernelEx),
 * and the checks of the values a stream shares with them (streamattr.c).
 * Each attribute is validated as the driver documents it. What the
 * emulator does with each:
 *   - priority, access policy window, synchronisation policy, memory
 *     synchronisation domain and map, cluster scheduling policy, shared
 *     memory carveout, NVLink hint: hints for a GPU's schedulers and caches;
 *     checked, with no effect on how the kernel runs here;
 *   - programmatic stream serialisation: allowed, never taken: the kernel
 *     runs after the work before it, which the attribute permits;
 *   - programmatic event and launch completion event: recorded on the
 *     launch's stream right after the kernel, which is later than a device
 *     may trigger them and so within what they promise;
 *   - clusters: the blocks of a cluster run together and reach each
 *     other's shared memory (src/ptx/exec_cluster.c); the size is checked
 *     with the kernel's required one (emu_cluster_resolve) on a device with
 *     cluster launch (CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, sm_90 and later
 *     profiles), else CUDA_ERROR_INVALID_CLUSTER_SIZE;
 *   - cooperative: every block resident at once, with a grid barrier
 *     word (launchcoop.c checks the grid against the occupancy);
 *   - device-updatable kernel node: graphs only; a launch on a stream that
 *     is not capturing is CUDA_ERROR_INVALID_VALUE, as documented. */
#include "emu.h"

#include <stdio.h>
#include <string.h>

CUresult emu_attr_value_check(const struct emu_device *d, int id, const CUlaunchAttributeValue *v)
{
    switch (id) {
    case CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW: {
        const CUaccessPolicyWindow *w = &v->accessPolicyWindow;
        int max = emu_device_attr_or(d, CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE, 0);
        if (w->num_bytes > (size_t)max || !(w->hitRatio >= 0.0f && w->hitRatio <= 1.0f) ||
            (unsigned)w->hitProp > CU_ACCESS_PROPERTY_PERSISTING ||
            (w->missProp != CU_ACCESS_PROPERTY_NORMAL && w->missProp != CU_ACCESS_PROPERTY_STREAMING))
            return CUDA_ERROR_INVALID_VALUE;
        return CUDA_SUCCESS;
    }
    case CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY:
        return v->syncPolicy >= CU_SYNC_POLICY_AUTO && v->syncPolicy <= CU_SYNC_POLICY_BLOCKING_SYNC
                   ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    case CU_LAUNCH_ATTRIBUTE_PRIORITY: /* clamped to the context's range */
    case CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION:
        return CUDA_SUCCESS;
    case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP: {
        int n = emu_device_attr_or(d, CU_DEVICE_ATTRIBUTE_MEM_SYNC_DOMAIN_COUNT, 1);
        return v->memSyncDomainMap.default_ < n && v->memSyncDomainMap.remote < n ? CUDA_SUCCESS
                                                                                 : CUDA_ERROR_INVALID_VALUE;
    }
    case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN:
        return v->memSyncDomain == CU_LAUNCH_MEM_SYNC_DOMAIN_DEFAULT ||
               v->memSyncDomain == CU_LAUNCH_MEM_SYNC_DOMAIN_REMOTE ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    case CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
        return (unsigned)v->clusterSchedulingPolicyPreference <= CU_CLUSTER_SCHEDULING_POLICY_LOAD_BALANCING
                   ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    case CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
        return v->sharedMemCarveout <= 100 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    case CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING:
        return v->nvlinkUtilCentricScheduling <= 1 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

/* an event a launch records: a live one of ctx, without timing, not
 * interprocess, record flags 0 (CU_EVENT_RECORD_EXTERNAL is refused) */
static CUresult check_event(struct emu_ctx *c, CUevent ev, int flags)
{
    struct emu_ctx *ec;
    unsigned ef;
    CUresult r = emu_event_flags(ev, &ec, &ef);
    if (r)
        return r;
    if (ec != c)
        return CUDA_ERROR_INVALID_HANDLE;
    if (!(ef & CU_EVENT_DISABLE_TIMING) || (ef & CU_EVENT_INTERPROCESS) || flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    return CUDA_SUCCESS;
}

static int divides(unsigned part, unsigned whole)
{
    return part && whole % part == 0;
}

static void say(const char *what)
{
    char text[512];
    int n = snprintf(text, sizeof text, "tdtrace-emu: cuLaunchKernelEx: %s (CUDA_ERROR_NOT_SUPPORTED)\n", what);
    emu_report(text, n < 0 ? 0 : (size_t)n < sizeof text ? (size_t)n : sizeof text - 1);
}

CUresult emu_launch_attrs(const CUlaunchConfig *cfg, struct emu_ctx *c, struct emu_launch_attrs *out)
{
    memset(out, 0, sizeof *out);
    if (cfg->numAttrs && !cfg->attrs)
        return CUDA_ERROR_INVALID_VALUE;
    const struct emu_device *d = c->dev;
    const unsigned grid[3] = { cfg->gridDimX, cfg->gridDimY, cfg->gridDimZ };
    unsigned cluster[3] = { 1, 1, 1 };
    const CUlaunchAttribute *preferred = NULL;
    for (unsigned i = 0; i < cfg->numAttrs; i++) {
        const CUlaunchAttribute *a = &cfg->attrs[i];
        const CUlaunchAttributeValue *v = &a->value;
        CUresult r = CUDA_SUCCESS;
        switch ((int)a->id) {
        case CU_LAUNCH_ATTRIBUTE_IGNORE:
            break;
        case CU_LAUNCH_ATTRIBUTE_COOPERATIVE:
            if (v->cooperative && !emu_device_attr_or(d, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, 0)) {
                say("the device does not launch cooperative kernels (CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH is 0)");
                r = CUDA_ERROR_NOT_SUPPORTED;
            }
            out->cooperative = v->cooperative != 0;
            break;
        case CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION:
            cluster[0] = v->clusterDim.x; /* checked with the kernel's (emu_cluster_resolve) */
            cluster[1] = v->clusterDim.y;
            cluster[2] = v->clusterDim.z;
            out->cluster.given = 1;
            for (int k = 0; k < 3; k++)
                out->cluster.dim[k] = cluster[k];
            break;
        case CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION:
            preferred = a;
            break;
        case CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT:
        case CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT: {
            int prog = a->id == CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT;
            CUevent ev = prog ? v->programmaticEvent.event : v->launchCompletionEvent.event;
            r = check_event(c, ev, prog ? v->programmaticEvent.flags : v->launchCompletionEvent.flags);
            if (!r && out->nevents == EMU_LAUNCH_EVENTS)
                r = CUDA_ERROR_INVALID_VALUE; /* one of each kind at most */
            if (!r)
                out->events[out->nevents++] = ev;
            break;
        }
        case CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE:
            r = CUDA_ERROR_INVALID_VALUE; /* graphs only: no stream is capturing */
            break;
        default:
            r = emu_attr_value_check(d, (int)a->id, v);
            break;
        }
        if (r)
            return r;
    }
    if (preferred) { /* a multiple of the regular cluster that divides the grid (z: equal to it) */
        const CUlaunchAttributeValue *v = &preferred->value;
        unsigned p[3] = { v->preferredClusterDim.x, v->preferredClusterDim.y, v->preferredClusterDim.z };
        for (int k = 0; k < 3; k++)
            if (!divides(cluster[k], p[k]) || !divides(p[k], grid[k]) || (k == 2 && p[2] != cluster[2]))
                return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

static CUresult bad_cluster(const char *name, const char *why, const unsigned dims[3])
{
    char text[512];
    int n = snprintf(text, sizeof text, "tdtrace-emu: kernel %s: a cluster of %u x %u x %u blocks: %s "
                     "(CUDA_ERROR_INVALID_CLUSTER_SIZE)\n", name, dims[0], dims[1], dims[2], why);
    emu_report(text, n < 0 ? 0 : (size_t)n < sizeof text ? (size_t)n : sizeof text - 1);
    return CUDA_ERROR_INVALID_CLUSTER_SIZE;
}

CUresult emu_cluster_resolve(const struct emu_device *d, const char *name, const struct emu_cluster *cl,
                             const unsigned req[3], const unsigned grid[3], unsigned dims[3])
{
    int has_req = req[0] || req[1] || req[2];
    for (int k = 0; k < 3; k++)
        dims[k] = cl && cl->given ? cl->dim[k] : has_req ? req[k] : 1;
    if (cl && cl->given && has_req && (dims[0] != req[0] || dims[1] != req[1] || dims[2] != req[2]))
        return bad_cluster(name, "the kernel requires another size (__cluster_dims__)", dims);
    if (!dims[0] || !dims[1] || !dims[2])
        return bad_cluster(name, "a dimension of 0", dims);
    unsigned long long n = (unsigned long long)dims[0] * dims[1] * dims[2];
    if (n > 1 && !emu_device_attr_or(d, CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, 0))
        return bad_cluster(name, "the device launches no clusters (CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH is 0)", dims);
    if (n > EMU_CLUSTER_MAX_NONPORTABLE || (n > EMU_CLUSTER_MAX_PORTABLE && !(cl && cl->non_portable)))
        return bad_cluster(name, n > EMU_CLUSTER_MAX_NONPORTABLE ? "more than 16 blocks"
                                 : "more than the 8 blocks of a portable cluster, and the function does not allow "
                                   "non-portable sizes (CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED)", dims);
    for (int k = 0; k < 3; k++)
        if (!divides(dims[k], grid[k]))
            return bad_cluster(name, "the grid is not a whole number of clusters", dims);
    return CUDA_SUCCESS;
}

CUresult emu_launch_attrs_after(const struct emu_launch_attrs *a, CUstream hs, int ptds)
{
    CUresult r = CUDA_SUCCESS;
    for (int i = 0; i < a->nevents && !r; i++)
        r = ptds ? cuEventRecordWithFlags_ptsz(a->events[i], hs, 0) : cuEventRecordWithFlags(a->events[i], hs, 0);
    return r;
}
