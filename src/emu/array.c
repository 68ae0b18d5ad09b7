/* SPDX-License-Identifier: Apache-2.0 */
/* CUDA arrays and mipmapped arrays. An array is a device allocation of
 * the context (memory.c: accounted, in the address map, kept while a copy
 * or kernel still holds it) laid out linearly: x fastest, rows of
 * Width * element bytes, then Height rows, then Depth slices (the layers
 * of a layered array, 6 faces per cube of a cubemap). The program never
 * sees that address: copies name the array (copy.c), textures and
 * surfaces read it through their objects (texture.c).
 *
 * Checks as the CUDA Driver API documents them: a format of the
 * CUarray_format list with 1, 2 or 4 channels; a 1-D array has Height and
 * Depth 0, a 2-D one Depth 0; a cubemap has Width == Height and Depth 6
 * (a multiple of 6 when layered); the sizes within the device's texture
 * limits; sparse, deferred-mapping, video and colour-attachment arrays are
 * refused with CUDA_ERROR_NOT_SUPPORTED (the emulator has none). */
#include "emu.h"

#include <stdlib.h>
#include <string.h>

struct emu_array {
    struct emu_obj o;              /* EMU_T_ARRAY */
    struct emu_array_info i;
    struct emu_mipmap *owner;      /* a level of a mipmapped array, or NULL */
};

struct emu_mipmap {
    struct emu_obj o;              /* EMU_T_MIPMAP */
    unsigned nlevels;
    struct emu_array **levels;
};

unsigned emu_format_bytes(int fmt)
{
    switch (fmt) {
    case CU_AD_FORMAT_UNSIGNED_INT8: case CU_AD_FORMAT_SIGNED_INT8: return 1;
    case CU_AD_FORMAT_UNSIGNED_INT16: case CU_AD_FORMAT_SIGNED_INT16: case CU_AD_FORMAT_HALF: return 2;
    case CU_AD_FORMAT_UNSIGNED_INT32: case CU_AD_FORMAT_SIGNED_INT32: case CU_AD_FORMAT_FLOAT: return 4;
    default: return 0;
    }
}

static void array_release(struct emu_obj *o)
{
    struct emu_array *a = (struct emu_array *)o;
    if (a->i.mem)
        emu_mem_release(a->i.mem, EMU_MEM_KIND(EMU_MEM_DEVICE)); /* gone already if its context went */
    free(a);
}

#define KNOWN_FLAGS (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_SURFACE_LDST | CUDA_ARRAY3D_CUBEMAP | \
                     CUDA_ARRAY3D_TEXTURE_GATHER | CUDA_ARRAY3D_DEPTH_TEXTURE | CUDA_ARRAY3D_COLOR_ATTACHMENT | \
                     CUDA_ARRAY3D_SPARSE | CUDA_ARRAY3D_DEFERRED_MAPPING | CUDA_ARRAY3D_VIDEO_ENCODE_DECODE)

/* the geometry of a descriptor, checked against dev's limits */
static CUresult geometry(const CUDA_ARRAY3D_DESCRIPTOR *d, const struct emu_device *dev, struct emu_array_info *g)
{
    unsigned fb = emu_format_bytes(d->Format);
    if (!fb || (d->NumChannels != 1 && d->NumChannels != 2 && d->NumChannels != 4))
        return CUDA_ERROR_INVALID_VALUE;
    if (d->Flags & ~(unsigned)KNOWN_FLAGS)
        return CUDA_ERROR_INVALID_VALUE;
    if (d->Flags & (CUDA_ARRAY3D_SPARSE | CUDA_ARRAY3D_DEFERRED_MAPPING | CUDA_ARRAY3D_VIDEO_ENCODE_DECODE |
                    CUDA_ARRAY3D_COLOR_ATTACHMENT))
        return CUDA_ERROR_NOT_SUPPORTED;
    int layered = !!(d->Flags & CUDA_ARRAY3D_LAYERED), cube = !!(d->Flags & CUDA_ARRAY3D_CUBEMAP);
    if (d->Width == 0 || (d->Height == 0 && d->Depth != 0 && !layered))
        return CUDA_ERROR_INVALID_VALUE;
    if (cube && (d->Width != d->Height || d->Depth == 0 || d->Depth % 6 || (!layered && d->Depth != 6)))
        return CUDA_ERROR_INVALID_VALUE;
    if (layered && d->Depth == 0)
        return CUDA_ERROR_INVALID_VALUE;
    memset(g, 0, sizeof *g);
    g->fmt = d->Format;
    g->nch = d->NumChannels;
    g->flags = d->Flags;
    g->esz = (size_t)fb * d->NumChannels;
    g->width = d->Width;
    g->height = d->Height ? d->Height : 1;
    g->depth = d->Depth ? d->Depth : 1;
    g->layered = layered;
    g->cubemap = cube;
    g->dims = cube ? 2 : d->Depth && !layered ? 3 : d->Height ? 2 : 1;
    /* the device's limits (cuDeviceGetAttribute's texture sizes) */
    int attr_w, attr_h = -1, attr_d = -1, attr_l = -1;
    if (cube) {
        attr_w = layered ? CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH
                         : CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_WIDTH;
        if (layered) attr_l = CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS;
    } else if (layered) {
        attr_w = g->dims == 1 ? CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_WIDTH
                              : CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_WIDTH;
        if (g->dims == 2) attr_h = CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT;
        attr_l = g->dims == 1 ? CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_LAYERS
                              : CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS;
    } else if (g->dims == 3) {
        attr_w = CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH;
        attr_h = CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT;
        attr_d = CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH;
    } else if (g->dims == 2) {
        attr_w = CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH;
        attr_h = CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT;
    } else
        attr_w = CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH;
    size_t lim_w = (size_t)emu_device_attr_or(dev, attr_w, 65536);
    if (g->width > lim_w || (attr_h >= 0 && g->height > (size_t)emu_device_attr_or(dev, attr_h, 65536)) ||
        (attr_d >= 0 && g->depth > (size_t)emu_device_attr_or(dev, attr_d, 16384)) ||
        (attr_l >= 0 && (cube ? g->depth / 6 : g->depth) > (size_t)emu_device_attr_or(dev, attr_l, 2048)))
        return CUDA_ERROR_INVALID_VALUE;
    g->layers = layered || cube ? g->depth : 1;
    g->pitch = g->width * g->esz;
    g->slice = g->pitch * g->height;
    if (__builtin_mul_overflow(g->slice, g->depth, &g->bytes))
        return CUDA_ERROR_INVALID_VALUE;
    return CUDA_SUCCESS;
}

static CUresult array_new(struct emu_ctx *c, const CUDA_ARRAY3D_DESCRIPTOR *d, struct emu_mipmap *owner,
                          struct emu_array **out)
{
    struct emu_array *a = calloc(1, sizeof *a);
    if (!a)
        return CUDA_ERROR_OUT_OF_MEMORY;
    CUresult r = geometry(d, c->dev, &a->i);
    if (!r)
        r = emu_mem_alloc(c, a->i.bytes, EMU_MEM_DEVICE, 0, NULL, &a->i.mem);
    if (r) {
        free(a);
        return r;
    }
    memset((void *)a->i.mem, 0, a->i.bytes);
    a->i.desc = *d;
    a->owner = owner;
    emu_obj_init(&a->o, EMU_T_ARRAY, c, array_release);
    emu_obj_register(&a->o);
    *out = a;
    return CUDA_SUCCESS;
}

static CUresult create3d(CUarray *ph, const CUDA_ARRAY3D_DESCRIPTOR *d)
{
    if (!ph || !d)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_ctx *c;
    CUresult r = emu_ctx_current(&c);
    if (r)
        return r;
    struct emu_array *a;
    r = array_new(c, d, NULL, &a);
    emu_ctx_put(c);
    if (!r)
        *ph = (CUarray)a;
    return r;
}

TD_EXPORT CUresult CUDAAPI cuArray3DCreate_v2(CUarray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR *p)
{
    return create3d(pHandle, p);
}

TD_EXPORT CUresult CUDAAPI cuArrayCreate_v2(CUarray *pHandle, const CUDA_ARRAY_DESCRIPTOR *p)
{
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    CUDA_ARRAY3D_DESCRIPTOR d = { p->Width, p->Height, 0, p->Format, p->NumChannels, 0 };
    return create3d(pHandle, &d);
}

TD_EXPORT CUresult CUDAAPI cuArray3DCreate(CUarray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR_v1 *p)
{
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    CUDA_ARRAY3D_DESCRIPTOR d = { p->Width, p->Height, p->Depth, p->Format, p->NumChannels, p->Flags };
    return create3d(pHandle, &d);
}

TD_EXPORT CUresult CUDAAPI cuArrayCreate(CUarray *pHandle, const CUDA_ARRAY_DESCRIPTOR_v1 *p)
{
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    CUDA_ARRAY3D_DESCRIPTOR d = { p->Width, p->Height, 0, p->Format, p->NumChannels, 0 };
    return create3d(pHandle, &d);
}

CUresult emu_array_info(CUarray h, struct emu_array_info *out)
{
    EMU_INIT_OR_RETURN();
    struct emu_array *a = emu_obj_get(h, EMU_T_ARRAY);
    if (!a)
        return CUDA_ERROR_INVALID_HANDLE;
    *out = a->i;
    emu_obj_put(&a->o);
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuArrayDestroy(CUarray hArray)
{
    EMU_INIT_OR_RETURN();
    struct emu_array *a = emu_obj_get(hArray, EMU_T_ARRAY);
    if (!a)
        return CUDA_ERROR_INVALID_HANDLE;
    CUresult r = CUDA_SUCCESS;
    if (a->owner)
        r = CUDA_ERROR_INVALID_HANDLE; /* a level: its mipmapped array owns it */
    else if (emu_obj_unregister(&a->o))
        emu_obj_put(&a->o);
    emu_obj_put(&a->o);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuArray3DGetDescriptor_v2(CUDA_ARRAY3D_DESCRIPTOR *p, CUarray h)
{
    struct emu_array_info i;
    CUresult r = emu_array_info(h, &i);
    if (r)
        return r;
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    *p = i.desc;
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuArrayGetDescriptor_v2(CUDA_ARRAY_DESCRIPTOR *p, CUarray h)
{
    struct emu_array_info i;
    CUresult r = emu_array_info(h, &i);
    if (r)
        return r;
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    p->Width = i.desc.Width;
    p->Height = i.desc.Height;
    p->Format = i.desc.Format;
    p->NumChannels = i.desc.NumChannels;
    return CUDA_SUCCESS;
}

/* the v1 ABI: 32-bit sizes */
TD_EXPORT CUresult CUDAAPI cuArray3DGetDescriptor(CUDA_ARRAY3D_DESCRIPTOR_v1 *p, CUarray h)
{
    CUDA_ARRAY3D_DESCRIPTOR d;
    CUresult r = p ? cuArray3DGetDescriptor_v2(&d, h) : CUDA_ERROR_INVALID_VALUE;
    if (!r) {
        p->Width = (unsigned)d.Width, p->Height = (unsigned)d.Height, p->Depth = (unsigned)d.Depth;
        p->Format = d.Format, p->NumChannels = d.NumChannels, p->Flags = d.Flags;
    }
    return r;
}

TD_EXPORT CUresult CUDAAPI cuArrayGetDescriptor(CUDA_ARRAY_DESCRIPTOR_v1 *p, CUarray h)
{
    CUDA_ARRAY_DESCRIPTOR d;
    CUresult r = p ? cuArrayGetDescriptor_v2(&d, h) : CUDA_ERROR_INVALID_VALUE;
    if (!r) {
        p->Width = (unsigned)d.Width, p->Height = (unsigned)d.Height;
        p->Format = d.Format, p->NumChannels = d.NumChannels;
    }
    return r;
}

TD_EXPORT CUresult CUDAAPI cuArrayGetPlane(CUarray *pPlaneArray, CUarray hArray, unsigned int planeIdx)
{
    struct emu_array_info i;
    CUresult r = emu_array_info(hArray, &i);
    (void)planeIdx;
    if (r)
        return r;
    if (!pPlaneArray)
        return CUDA_ERROR_INVALID_VALUE;
    return CUDA_ERROR_INVALID_VALUE; /* only multi-planar formats (NV12) have planes: none here */
}

/* ---- mipmapped arrays ------------------------------------------------- */

static void mipmap_release(struct emu_obj *o)
{
    struct emu_mipmap *m = (struct emu_mipmap *)o;
    for (unsigned i = 0; i < m->nlevels; i++)
        if (m->levels[i] && emu_obj_unregister(&m->levels[i]->o))
            emu_obj_put(&m->levels[i]->o);
    free(m->levels);
    free(m);
}

TD_EXPORT CUresult CUDAAPI cuMipmappedArrayCreate(CUmipmappedArray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR *d,
                                                  unsigned int numLevels)
{
    if (!pHandle || !d || numLevels == 0)
        return CUDA_ERROR_INVALID_VALUE;
    size_t big = d->Width > d->Height ? d->Width : d->Height;
    if (!(d->Flags & (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_CUBEMAP)) && d->Depth > big)
        big = d->Depth;
    unsigned maxlev = 1;
    while (big >> maxlev) maxlev++;
    if (numLevels > maxlev)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_ctx *c;
    CUresult r = emu_ctx_current(&c);
    if (r)
        return r;
    struct emu_mipmap *m = calloc(1, sizeof *m);
    if (m)
        m->levels = calloc(numLevels, sizeof *m->levels);
    if (!m || !m->levels) {
        if (m) free(m);
        emu_ctx_put(c);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    emu_obj_init(&m->o, EMU_T_MIPMAP, c, mipmap_release);
    for (unsigned l = 0; l < numLevels && !r; l++) {
        CUDA_ARRAY3D_DESCRIPTOR ld = *d;
        int keep_depth = !!(d->Flags & (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_CUBEMAP));
        ld.Width = d->Width >> l ? d->Width >> l : 1;
        if (d->Height) ld.Height = d->Height >> l ? d->Height >> l : 1;
        if (d->Depth && !keep_depth) ld.Depth = d->Depth >> l ? d->Depth >> l : 1;
        r = array_new(c, &ld, m, &m->levels[l]);
        if (!r) m->nlevels = l + 1;
    }
    emu_ctx_put(c);
    if (r) {
        mipmap_release(&m->o);
        return r;
    }
    emu_obj_register(&m->o);
    *pHandle = (CUmipmappedArray)m;
    return CUDA_SUCCESS;
}

CUresult emu_mipmap_level(CUmipmappedArray h, unsigned level, CUarray *out, unsigned *nlevels)
{
    EMU_INIT_OR_RETURN();
    struct emu_mipmap *m = emu_obj_get(h, EMU_T_MIPMAP);
    if (!m)
        return CUDA_ERROR_INVALID_HANDLE;
    CUresult r = level < m->nlevels ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    if (!r) {
        *out = (CUarray)m->levels[level];
        if (nlevels) *nlevels = m->nlevels;
    }
    emu_obj_put(&m->o);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuMipmappedArrayGetLevel(CUarray *pLevelArray, CUmipmappedArray h, unsigned int level)
{
    if (!pLevelArray)
        return CUDA_ERROR_INVALID_VALUE;
    return emu_mipmap_level(h, level, pLevelArray, NULL);
}

TD_EXPORT CUresult CUDAAPI cuMipmappedArrayDestroy(CUmipmappedArray h)
{
    EMU_INIT_OR_RETURN();
    struct emu_mipmap *m = emu_obj_get(h, EMU_T_MIPMAP);
    if (!m)
        return CUDA_ERROR_INVALID_HANDLE;
    if (emu_obj_unregister(&m->o))
        emu_obj_put(&m->o);
    emu_obj_put(&m->o);
    return CUDA_SUCCESS;
}
