/* SPDX-License-Identifier: Apache-2.0 */
/* Texture and surface objects. An object keeps the descriptors it was
 * made with (returned by cuTexObjectGetResourceDesc and the others) and
 * what the PTX engine needs to sample it (struct ptx_tex). Kernels name
 * objects by handle; the engine resolves a handle through tex_lookup,
 * which finds the live object in the registry and checks that the memory
 * it reads is still allocated, so a destroyed object or freed memory fails
 * the launch instead of reading stale memory.
 *
 * Resources: CUDA arrays (1-D, 2-D, 3-D, layered, cubemap), mipmapped
 * arrays (level 0 is what a fetch without a level reads; tex.level and
 * tex.grad are not run), linear memory and pitched 2-D memory. Surfaces:
 * arrays made with CUDA_ARRAY3D_SURFACE_LDST. Not emulated (refused with
 * CUDA_ERROR_NOT_SUPPORTED): sRGB conversion, resource views that change
 * the format or select levels or layers. The legacy texture and surface
 * references (cuTexRef*, cuSurfRef*) stay unimplemented. */
#include "emu.h"
#include "../ptx/ptx.h"

#include <stdlib.h>
#include <string.h>

struct emu_texobj {
    struct emu_obj o;              /* EMU_T_TEXOBJ or EMU_T_SURFOBJ */
    CUDA_RESOURCE_DESC res;
    CUDA_TEXTURE_DESC tex;
    CUDA_RESOURCE_VIEW_DESC view;
    int has_view;
    struct ptx_tex t;              /* base: the memory's address, checked at every lookup */
    uintptr_t mem;                 /* the allocation read */
};

static int ptx_fmt(int f)
{
    switch (f) {
    case CU_AD_FORMAT_UNSIGNED_INT8: return PTX_FMT_U8;
    case CU_AD_FORMAT_UNSIGNED_INT16: return PTX_FMT_U16;
    case CU_AD_FORMAT_UNSIGNED_INT32: return PTX_FMT_U32;
    case CU_AD_FORMAT_SIGNED_INT8: return PTX_FMT_S8;
    case CU_AD_FORMAT_SIGNED_INT16: return PTX_FMT_S16;
    case CU_AD_FORMAT_SIGNED_INT32: return PTX_FMT_S32;
    case CU_AD_FORMAT_HALF: return PTX_FMT_F16;
    case CU_AD_FORMAT_FLOAT: return PTX_FMT_F32;
    default: return -1;
    }
}

static int tex_lookup(uint64_t handle, int surface, struct ptx_tex *out)
{
    struct emu_texobj *x = emu_obj_get((const void *)(uintptr_t)handle, surface ? EMU_T_SURFOBJ : EMU_T_TEXOBJ);
    if (!x)
        return -1;
    struct emu_alloc *a;
    int ok = emu_mem_find(x->mem, (size_t)(x->t.base - (unsigned char *)x->mem) + x->t.span, &a) == CUDA_SUCCESS;
    if (ok) {
        emu_alloc_put(a);
        *out = x->t;
    }
    emu_obj_put(&x->o);
    return ok ? 0 : -1;
}

static void texobj_release(struct emu_obj *o)
{
    free(o);
}

/* the array's layout into t */
static CUresult from_array(CUarray h, struct ptx_tex *t, uintptr_t *mem, int surface)
{
    struct emu_array_info i;
    CUresult r = emu_array_info(h, &i);
    if (r)
        return r;
    if (surface && !(i.flags & CUDA_ARRAY3D_SURFACE_LDST))
        return CUDA_ERROR_INVALID_VALUE;
    t->base = (unsigned char *)i.mem;
    t->span = i.bytes;
    t->width = i.width, t->height = i.height;
    t->depth = i.dims == 3 ? i.depth : 1;
    t->layers = i.layers;
    t->pitch = i.pitch, t->slice = i.slice;
    t->fmt = ptx_fmt(i.fmt), t->nch = (int)i.nch;
    t->dims = i.dims, t->layered = i.layered, t->cubemap = i.cubemap;
    *mem = i.mem;
    return CUDA_SUCCESS;
}

static CUresult from_memory(CUdeviceptr p, int fmt, unsigned nch, size_t w, size_t h, size_t pitch,
                            struct ptx_tex *t, uintptr_t *mem, const struct emu_device *dev)
{
    unsigned fb = emu_format_bytes(fmt);
    if (!p || !fb || (nch != 1 && nch != 2 && nch != 4) || w == 0 || h == 0)
        return CUDA_ERROR_INVALID_VALUE;
    size_t esz = (size_t)fb * nch, span;
    if (pitch < w * esz || w > ((size_t)-1) / esz || __builtin_mul_overflow(pitch, h - 1, &span) ||
        __builtin_add_overflow(span, w * esz, &span))
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_alloc *a;
    CUresult r = emu_mem_find((uintptr_t)p, span, &a);
    if (r)
        return r;
    *mem = a->base;
    emu_alloc_put(a);
    /* aligned to TEXTURE_ALIGNMENT, or an allocation's start: the GPU's
     * allocator aligns those to it, the emulator's to EMU_ALLOC_ALIGN */
    if (p % (unsigned)emu_device_attr_or(dev, CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT, 512) && p != *mem)
        return CUDA_ERROR_INVALID_VALUE;
    t->base = (unsigned char *)(uintptr_t)p;
    t->span = span;
    t->width = w, t->height = h, t->depth = 1, t->layers = 1;
    t->pitch = pitch, t->slice = pitch * h;
    t->fmt = ptx_fmt(fmt), t->nch = (int)nch;
    t->dims = h > 1 || pitch != w * esz ? 2 : 1;
    return CUDA_SUCCESS;
}

static CUresult resource(const CUDA_RESOURCE_DESC *rd, struct ptx_tex *t, uintptr_t *mem, int surface,
                         const struct emu_device *dev)
{
    if (rd->flags)
        return CUDA_ERROR_INVALID_VALUE;
    t->levels = 1;
    switch ((int)rd->resType) {
    case CU_RESOURCE_TYPE_ARRAY:
        return from_array(rd->res.array.hArray, t, mem, surface);
    case CU_RESOURCE_TYPE_MIPMAPPED_ARRAY: {
        if (surface)
            return CUDA_ERROR_INVALID_VALUE;
        CUarray l0;
        unsigned n;
        CUresult r = emu_mipmap_level(rd->res.mipmap.hMipmappedArray, 0, &l0, &n);
        if (!r)
            r = from_array(l0, t, mem, 0);
        t->levels = n;
        return r;
    }
    case CU_RESOURCE_TYPE_LINEAR: {
        if (surface)
            return CUDA_ERROR_INVALID_VALUE;
        unsigned fb = emu_format_bytes(rd->res.linear.format), nch = rd->res.linear.numChannels;
        if (!fb || !nch || rd->res.linear.sizeInBytes % ((size_t)fb * nch))
            return CUDA_ERROR_INVALID_VALUE;
        size_t w = rd->res.linear.sizeInBytes / ((size_t)fb * nch);
        if (w > (size_t)emu_device_attr_or(dev, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH, 1 << 27))
            return CUDA_ERROR_INVALID_VALUE;
        CUresult r = from_memory(rd->res.linear.devPtr, rd->res.linear.format, nch, w, 1, w * fb * nch, t, mem, dev);
        t->dims = 1;
        t->linear_res = 1;
        return r;
    }
    case CU_RESOURCE_TYPE_PITCH2D: {
        if (surface)
            return CUDA_ERROR_INVALID_VALUE;
        if (rd->res.pitch2D.pitchInBytes %
                (unsigned)emu_device_attr_or(dev, CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT, 32) ||
            rd->res.pitch2D.width > (size_t)emu_device_attr_or(dev, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_WIDTH, 131072) ||
            rd->res.pitch2D.height > (size_t)emu_device_attr_or(dev, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT, 65000))
            return CUDA_ERROR_INVALID_VALUE;
        CUresult r = from_memory(rd->res.pitch2D.devPtr, rd->res.pitch2D.format, rd->res.pitch2D.numChannels,
                                 rd->res.pitch2D.width, rd->res.pitch2D.height, rd->res.pitch2D.pitchInBytes, t,
                                 mem, dev);
        t->dims = 2;
        return r;
    }
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

static CUresult create(void **out, int surface, const CUDA_RESOURCE_DESC *rd, const CUDA_TEXTURE_DESC *td,
                       const CUDA_RESOURCE_VIEW_DESC *vd)
{
    if (!out || !rd || (!surface && !td))
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_ctx *c;
    CUresult r = emu_ctx_current(&c);
    if (r)
        return r;
    struct emu_texobj *x = calloc(1, sizeof *x);
    if (!x) {
        emu_ctx_put(c);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    x->res = *rd;
    r = resource(rd, &x->t, &x->mem, surface, c->dev);
    if (!r && !surface) {
        x->tex = *td;
        const unsigned known = CU_TRSF_READ_AS_INTEGER | CU_TRSF_NORMALIZED_COORDINATES | CU_TRSF_SRGB |
                               CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION | CU_TRSF_SEAMLESS_CUBEMAP;
        for (int k = 0; k < 3; k++)
            if ((unsigned)td->addressMode[k] > CU_TR_ADDRESS_MODE_BORDER)
                r = CUDA_ERROR_INVALID_VALUE;
        if ((unsigned)td->filterMode > CU_TR_FILTER_MODE_LINEAR ||
            (unsigned)td->mipmapFilterMode > CU_TR_FILTER_MODE_LINEAR || (td->flags & ~known))
            r = CUDA_ERROR_INVALID_VALUE;
        else if (!r && (td->flags & CU_TRSF_SRGB))
            r = CUDA_ERROR_NOT_SUPPORTED; /* sRGB conversion is not emulated */
        int f = x->t.fmt;
        int small = f == PTX_FMT_U8 || f == PTX_FMT_U16 || f == PTX_FMT_S8 || f == PTX_FMT_S16;
        x->t.read_norm = small && !(td->flags & CU_TRSF_READ_AS_INTEGER);
        x->t.norm_coords = !!(td->flags & CU_TRSF_NORMALIZED_COORDINATES) || x->t.cubemap;
        x->t.filter_linear = td->filterMode == CU_TR_FILTER_MODE_LINEAR;
        for (int k = 0; k < 3; k++) x->t.addr[k] = (int)td->addressMode[k];
        memcpy(x->t.border, td->borderColor, sizeof x->t.border);
    } else if (!r) {
        x->t.addr[0] = x->t.addr[1] = x->t.addr[2] = PTX_ADDR_CLAMP;
    }
    if (!r && vd) {
        /* a view that reads the resource as it is, whole */
        if (vd->format != CU_RES_VIEW_FORMAT_NONE || vd->firstMipmapLevel || vd->firstLayer ||
            (vd->lastMipmapLevel && vd->lastMipmapLevel + 1 != x->t.levels) ||
            (vd->lastLayer && vd->lastLayer + 1 != x->t.layers) || (vd->width && vd->width != x->t.width) ||
            (vd->height && vd->height != x->t.height) || (vd->depth && vd->depth != x->t.depth))
            r = CUDA_ERROR_NOT_SUPPORTED; /* views that reinterpret or select: not emulated */
        x->view = *vd;
        x->has_view = 1;
    }
    if (r) {
        free(x);
        emu_ctx_put(c);
        return r;
    }
    ptx_set_tex_lookup(tex_lookup);
    emu_obj_init(&x->o, surface ? EMU_T_SURFOBJ : EMU_T_TEXOBJ, c, texobj_release);
    emu_obj_register(&x->o);
    emu_ctx_put(c);
    *out = x;
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuTexObjectCreate(CUtexObject *pTexObject, const CUDA_RESOURCE_DESC *pResDesc,
                                             const CUDA_TEXTURE_DESC *pTexDesc,
                                             const CUDA_RESOURCE_VIEW_DESC *pResViewDesc)
{
    void *x;
    if (!pTexObject)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = create(&x, 0, pResDesc, pTexDesc, pResViewDesc);
    if (!r)
        *pTexObject = (CUtexObject)(uintptr_t)x;
    return r;
}

TD_EXPORT CUresult CUDAAPI cuSurfObjectCreate(CUsurfObject *pSurfObject, const CUDA_RESOURCE_DESC *pResDesc)
{
    void *x;
    if (!pSurfObject)
        return CUDA_ERROR_INVALID_VALUE;
    if (pResDesc && pResDesc->resType != CU_RESOURCE_TYPE_ARRAY)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = create(&x, 1, pResDesc, NULL, NULL);
    if (!r)
        *pSurfObject = (CUsurfObject)(uintptr_t)x;
    return r;
}

static CUresult destroy(unsigned long long h, int type)
{
    EMU_INIT_OR_RETURN();
    struct emu_texobj *x = emu_obj_get((const void *)(uintptr_t)h, type);
    if (!x)
        return CUDA_ERROR_INVALID_VALUE;
    if (emu_obj_unregister(&x->o))
        emu_obj_put(&x->o);
    emu_obj_put(&x->o);
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuTexObjectDestroy(CUtexObject h) { return destroy(h, EMU_T_TEXOBJ); }
TD_EXPORT CUresult CUDAAPI cuSurfObjectDestroy(CUsurfObject h) { return destroy(h, EMU_T_SURFOBJ); }

/* copies what was given at creation: 0 resource, 1 texture, 2 view */
static CUresult get_desc(unsigned long long h, int type, int what, void *out)
{
    EMU_INIT_OR_RETURN();
    if (!out)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_texobj *x = emu_obj_get((const void *)(uintptr_t)h, type);
    if (!x)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = CUDA_SUCCESS;
    if (what == 0)
        memcpy(out, &x->res, sizeof x->res);
    else if (what == 1)
        memcpy(out, &x->tex, sizeof x->tex);
    else if (x->has_view)
        memcpy(out, &x->view, sizeof x->view);
    else
        r = CUDA_ERROR_INVALID_VALUE; /* made without a view */
    emu_obj_put(&x->o);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuTexObjectGetResourceDesc(CUDA_RESOURCE_DESC *p, CUtexObject h) { return get_desc(h, EMU_T_TEXOBJ, 0, p); }
TD_EXPORT CUresult CUDAAPI cuTexObjectGetTextureDesc(CUDA_TEXTURE_DESC *p, CUtexObject h) { return get_desc(h, EMU_T_TEXOBJ, 1, p); }
TD_EXPORT CUresult CUDAAPI cuTexObjectGetResourceViewDesc(CUDA_RESOURCE_VIEW_DESC *p, CUtexObject h) { return get_desc(h, EMU_T_TEXOBJ, 2, p); }
TD_EXPORT CUresult CUDAAPI cuSurfObjectGetResourceDesc(CUDA_RESOURCE_DESC *p, CUsurfObject h) { return get_desc(h, EMU_T_SURFOBJ, 0, p); }
