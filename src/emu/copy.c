/* SPDX-License-Identifier: Apache-2.0 */
/* Copies and memsets, 1-D and 2-D, synchronous and asynchronous. Every
 * device-side range is validated in the address map (bounds included)
 * before anything is queued; the operation holds references on the
 * allocations it touches, so a free cannot pull memory from under it.
 *
 * Synchronous forms wait for what the stream (the legacy one, or the
 * thread's default stream for _ptds) would have waited for, then copy on
 * the calling thread. Asynchronous copies from or to pageable host memory
 * (not page-locked by cuMemHostAlloc/cuMemHostRegister) behave the same,
 * as the real driver's staging makes them synchronous for the host.
 *
 * On a capturing stream an asynchronous copy or memset becomes a graph
 * node (capture.c); a synchronous one is refused, as the capture rules
 * say. The 3-D form (CUDA_MEMCPY3D) serves graph memcpy nodes too.
 *
 * A CUDA array side (array.c) becomes the device memory that holds it,
 * with the array's pitch and rows, after its own bounds are checked:
 * x + width within a row, y + height within its rows, z + depth within its
 * slices. The 1-D array copies (cuMemcpyAtoH and the others) take the
 * offset as bytes into the array's memory, as the driver's do for a 1-D
 * array. */
#include "emu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* one side of a copy */
struct side {
    uintptr_t p;               /* start */
    struct emu_alloc *a;       /* allocation, or NULL for pageable host memory */
    struct gmem *g;            /* or a graph allocation's range (referenced): it is
                                  allocated in stream order, checked when the copy runs */
    size_t len;
};

struct copy_op {
    struct emu_op op;
    CUresult *status;          /* synchronous: where a missing graph allocation is said */
    struct side dst, src;
    size_t width, height, depth, dpitch, spitch;
    size_t dslice, sslice;     /* bytes from one 2-D slice to the next */
};

struct set_op {
    struct emu_op op;
    CUresult *status;          /* as copy_op's */
    struct side dst;
    size_t width, height, pitch; /* width in elements */
    unsigned elem, value;
};

static void put_sides(struct side *a, struct side *b)
{
    emu_alloc_put(a->a);
    emu_gmem_put(a->g);
    if (b) {
        emu_alloc_put(b->a);
        emu_gmem_put(b->g);
    }
}

/* the status of a synchronous copy or memset (both ops begin so) */
struct status_op {
    struct emu_op op;
    CUresult *status;
};

/* A side in graph memory must be allocated when the work runs; if not, a
 * synchronous call fails, and queued work faults the context, as a
 * kernel's bad access would fault it. */
static int side_live(struct emu_op *op, const struct side *s)
{
    struct emu_alloc *a;
    if (!s->g)
        return 1;
    if (emu_mem_find(s->p, s->len, &a) == CUDA_SUCCESS) {
        emu_alloc_put(a);
        return 1;
    }
    CUresult *status = ((struct status_op *)op)->status;
    if (status) {
        *status = CUDA_ERROR_INVALID_VALUE;
        return 0;
    }
    char text[200];
    int n = snprintf(text, sizeof text, "tdtrace-emu: a copy or memset of graph memory at 0x%llx that is not "
                     "allocated (CUDA_ERROR_ILLEGAL_ADDRESS)\n", (unsigned long long)s->p);
    emu_report(text, (size_t)n < sizeof text ? (size_t)n : sizeof text - 1);
    emu_ctx_fail(op->stream->sctx, CUDA_ERROR_ILLEGAL_ADDRESS);
    return 0;
}

static void copy_slice(char *d, const char *s, const struct copy_op *c)
{
    if (c->height == 1 || (c->dpitch == c->width && c->spitch == c->width)) {
        size_t n = c->width * c->height;
        if (d + n <= s || s + n <= d)
            memcpy(d, s, n);
        else
            memmove(d, s, n);
        return;
    }
    for (size_t y = 0; y < c->height; y++)
        memmove(d + y * c->dpitch, s + y * c->spitch, c->width);
}

/* a side's memory, for the timeline: device (graph and managed memory
 * count as device memory) or host */
static int on_device(const struct side *s)
{
    return s->g || (s->a && s->a->kind != EMU_MEM_HOST && s->a->kind != EMU_MEM_REGISTERED);
}

static void run_copy(struct emu_op *op)
{
    struct copy_op *c = (struct copy_op *)op;
    op->tl_kind = EMU_TL_MEMCPY;
    op->tl_dir = on_device(&c->dst) ? (on_device(&c->src) ? EMU_TL_DTOD : EMU_TL_HTOD)
                                    : (on_device(&c->src) ? EMU_TL_DTOH : EMU_TL_HTOH);
    op->tl_bytes = (uint64_t)c->width * c->height * (c->depth ? c->depth : 1);
    if (!side_live(op, &c->dst) || !side_live(op, &c->src))
        return;
    for (size_t z = 0; z < (c->depth ? c->depth : 1); z++)
        copy_slice((char *)c->dst.p + z * c->dslice, (const char *)c->src.p + z * c->sslice, c);
}

static void fini_copy(struct emu_op *op)
{
    struct copy_op *c = (struct copy_op *)op;
    put_sides(&c->dst, &c->src);
}

static void fill(char *d, size_t n, unsigned elem, unsigned value)
{
    if (elem == 1) {
        memset(d, (int)(value & 0xff), n);
        return;
    }
    size_t bytes = n * elem, done = elem;
    if (elem == 2) {
        unsigned short v = (unsigned short)value;
        memcpy(d, &v, 2);
    } else {
        memcpy(d, &value, 4);
    }
    while (done < bytes) { /* doubling copies: memcpy speed */
        size_t k = done < bytes - done ? done : bytes - done;
        memcpy(d + done, d, k);
        done += k;
    }
}

static void run_set(struct emu_op *op)
{
    struct set_op *s = (struct set_op *)op;
    char *d = (char *)s->dst.p;
    op->tl_kind = EMU_TL_MEMSET;
    op->tl_bytes = (uint64_t)s->width * s->elem * s->height;
    if (!side_live(op, &s->dst))
        return;
    if (s->height == 1 || s->pitch == s->width * s->elem) {
        fill(d, s->width * s->height, s->elem, s->value);
        return;
    }
    for (size_t y = 0; y < s->height; y++)
        fill(d + y * s->pitch, s->width, s->elem, s->value);
}

static void fini_set(struct emu_op *op)
{
    put_sides(&((struct set_op *)op)->dst, NULL);
}

/* ---- validation ------------------------------------------------------ */

/* extent of a 2-D range: (h-1)*pitch + w, or -1 on overflow */
static int extent(size_t w, size_t h, size_t pitch, size_t *out)
{
    if (h == 0 || w == 0) {
        *out = 0;
        return 0;
    }
    if (h > 1 && pitch < w)
        return -1;
    if (h - 1 > ((size_t)-1 - w) / (pitch ? pitch : 1))
        return -1;
    *out = (h - 1) * pitch + w;
    return 0;
}

/* A device-side range: must lie in one allocation. */
static CUresult dev_side(uintptr_t p, size_t len, struct side *out)
{
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    out->p = p;
    out->len = len;
    CUresult r = emu_mem_find(p, len, &out->a);
    if (r && (out->g = emu_gmem_covering(p, len)))
        r = CUDA_SUCCESS;
    return r;
}

/* A host-side range: bounds-checked if it is memory the emulator knows,
 * trusted (pageable host memory) otherwise. */
static CUresult host_side(uintptr_t p, size_t len, struct side *out)
{
    if (!p || p + len < p)
        return CUDA_ERROR_INVALID_VALUE;
    out->p = p;
    out->len = len;
    out->a = emu_mem_lookup(p);
    if (out->a && len > out->a->size - (p - out->a->base)) {
        emu_alloc_put(out->a);
        out->a = NULL;
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (!out->a)
        out->g = emu_gmem_covering(p, len);
    if (!out->a && !out->g && emu_vmm_reserved(p, len))
        return CUDA_ERROR_INVALID_VALUE; /* reserved, not mapped and accessible: not host memory */
    return CUDA_SUCCESS;
}

/* pageable: no allocation, or a managed/device one (always "pinned" here) */
static int pageable(const struct side *s)
{
    return s->a == NULL && s->g == NULL;
}

/* What a copy or memset is, for a capturing stream's graph node */
struct capdesc {
    const CUDA_MEMCPY3D *copy;    /* a copy, or NULL: a memset */
    CUdeviceptr dst;
    size_t pitch, width, height;
    unsigned value, elem;
};

static void op_drop(struct emu_op *op)
{
    op->fini(op);
    free(op);
}

/* Runs or queues op on stream h. async: queue, unless pageable memory is
 * involved. On a capturing stream: the node cd describes. Takes the op in
 * every case. */
static CUresult issue(struct emu_op *op, CUstream h, int ptds, int async, int has_pageable,
                      const struct capdesc *cd)
{
    struct emu_stream *s;
    CUresult r = async ? CUDA_SUCCESS : emu_capture_unsafe();
    if (r == CUDA_SUCCESS)
        r = emu_stream_resolve(h, ptds, &s);
    if (r) {
        op_drop(op);
        return r;
    }
    if (emu_capturing(s)) {
        op_drop(op);
        if (!async) /* it would wait for the capturing stream */
            r = emu_capture_refuse(s);
        else if (cd->copy)
            r = emu_capture_memcpy(s, cd->copy);
        else
            r = emu_capture_memset(s, cd->dst, cd->pitch, cd->value, cd->elem, cd->width, cd->height);
        emu_stream_put(s);
        return r;
    }
    CUresult st = CUDA_SUCCESS;
    if (async && !has_pageable) {
        r = emu_stream_submit(s, op, NULL);
    } else {
        ((struct status_op *)op)->status = &st;
        r = emu_stream_exec(s, op);
        if (r == CUDA_SUCCESS)
            r = st;
    }
    emu_stream_put(s);
    return r;
}

enum dir { D_HTOD, D_DTOH, D_DTOD, D_ANY };

static CUresult copy1d(uintptr_t dst, uintptr_t src, size_t n, enum dir dir, CUstream h,
                       int ptds, int async)
{
    CUresult r = emu_ctx_require();
    if (r)
        return r;
    if (n == 0)
        return CUDA_SUCCESS;
    struct side d = { 0, NULL, NULL, 0 }, s = { 0, NULL, NULL, 0 };
    switch (dir) {
    case D_HTOD: r = dev_side(dst, n, &d); if (!r) r = host_side(src, n, &s); break;
    case D_DTOH: r = host_side(dst, n, &d); if (!r) r = dev_side(src, n, &s); break;
    case D_DTOD: r = dev_side(dst, n, &d); if (!r) r = dev_side(src, n, &s); break;
    case D_ANY:  r = host_side(dst, n, &d); if (!r) r = host_side(src, n, &s); break;
    }
    if (r) {
        put_sides(&d, &s);
        return r;
    }
    struct copy_op *op = emu_op_new(sizeof *op, run_copy, fini_copy);
    if (!op) {
        put_sides(&d, &s);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    op->op.device_work = 1;
    op->dst = d;
    op->src = s;
    op->width = n;
    op->height = 1;
    static const CUmemorytype types[][2] = { /* dst, src by enum dir */
        [D_HTOD] = { CU_MEMORYTYPE_DEVICE, CU_MEMORYTYPE_HOST },
        [D_DTOH] = { CU_MEMORYTYPE_HOST, CU_MEMORYTYPE_DEVICE },
        [D_DTOD] = { CU_MEMORYTYPE_DEVICE, CU_MEMORYTYPE_DEVICE },
        [D_ANY] = { CU_MEMORYTYPE_UNIFIED, CU_MEMORYTYPE_UNIFIED },
    };
    CUDA_MEMCPY3D p;
    memset(&p, 0, sizeof p);
    p.dstMemoryType = types[dir][0];
    p.srcMemoryType = types[dir][1];
    if (p.dstMemoryType == CU_MEMORYTYPE_HOST)
        p.dstHost = (void *)dst;
    else
        p.dstDevice = (CUdeviceptr)dst;
    if (p.srcMemoryType == CU_MEMORYTYPE_HOST)
        p.srcHost = (const void *)src;
    else
        p.srcDevice = (CUdeviceptr)src;
    p.WidthInBytes = n;
    p.Height = p.Depth = 1;
    struct capdesc cd = { .copy = &p };
    return issue(&op->op, h, ptds, async, pageable(&d) || pageable(&s), &cd);
}

#define U(x) ((uintptr_t)(x))

TD_EXPORT CUresult CUDAAPI cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t n) { return copy1d(U(dst), U(src), n, D_ANY, NULL, 0, 0); }
TD_EXPORT CUresult CUDAAPI cuMemcpy_ptds(CUdeviceptr dst, CUdeviceptr src, size_t n) { return copy1d(U(dst), U(src), n, D_ANY, NULL, 1, 0); }
TD_EXPORT CUresult CUDAAPI cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream h) { return copy1d(U(dst), U(src), n, D_ANY, h, 0, 1); }
TD_EXPORT CUresult CUDAAPI cuMemcpyAsync_ptsz(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream h) { return copy1d(U(dst), U(src), n, D_ANY, h, 1, 1); }

TD_EXPORT CUresult CUDAAPI cuMemcpyHtoD_v2(CUdeviceptr d, const void *s, size_t n) { return copy1d(U(d), U(s), n, D_HTOD, NULL, 0, 0); }
TD_EXPORT CUresult CUDAAPI cuMemcpyHtoD_v2_ptds(CUdeviceptr d, const void *s, size_t n) { return copy1d(U(d), U(s), n, D_HTOD, NULL, 1, 0); }
TD_EXPORT CUresult CUDAAPI cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *s, size_t n, CUstream h) { return copy1d(U(d), U(s), n, D_HTOD, h, 0, 1); }
TD_EXPORT CUresult CUDAAPI cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr d, const void *s, size_t n, CUstream h) { return copy1d(U(d), U(s), n, D_HTOD, h, 1, 1); }

TD_EXPORT CUresult CUDAAPI cuMemcpyDtoH_v2(void *d, CUdeviceptr s, size_t n) { return copy1d(U(d), U(s), n, D_DTOH, NULL, 0, 0); }
TD_EXPORT CUresult CUDAAPI cuMemcpyDtoH_v2_ptds(void *d, CUdeviceptr s, size_t n) { return copy1d(U(d), U(s), n, D_DTOH, NULL, 1, 0); }
TD_EXPORT CUresult CUDAAPI cuMemcpyDtoHAsync_v2(void *d, CUdeviceptr s, size_t n, CUstream h) { return copy1d(U(d), U(s), n, D_DTOH, h, 0, 1); }
TD_EXPORT CUresult CUDAAPI cuMemcpyDtoHAsync_v2_ptsz(void *d, CUdeviceptr s, size_t n, CUstream h) { return copy1d(U(d), U(s), n, D_DTOH, h, 1, 1); }

TD_EXPORT CUresult CUDAAPI cuMemcpyDtoD_v2(CUdeviceptr d, CUdeviceptr s, size_t n) { return copy1d(U(d), U(s), n, D_DTOD, NULL, 0, 0); }
TD_EXPORT CUresult CUDAAPI cuMemcpyDtoD_v2_ptds(CUdeviceptr d, CUdeviceptr s, size_t n) { return copy1d(U(d), U(s), n, D_DTOD, NULL, 1, 0); }
TD_EXPORT CUresult CUDAAPI cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream h) { return copy1d(U(d), U(s), n, D_DTOD, h, 0, 1); }
TD_EXPORT CUresult CUDAAPI cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream h) { return copy1d(U(d), U(s), n, D_DTOD, h, 1, 1); }

static CUresult peer(CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc, size_t n,
                     CUstream h, int ptds, int async)
{
    EMU_INIT_OR_RETURN();
    struct emu_ctx *c1 = emu_obj_get(dc, EMU_T_CTX), *c2 = emu_obj_get(sc, EMU_T_CTX);
    CUresult r = c1 && c2 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
    emu_ctx_put(c1);
    emu_ctx_put(c2);
    if (r)
        return r;
    return copy1d(U(d), U(s), n, D_DTOD, h, ptds, async);
}

TD_EXPORT CUresult CUDAAPI cuMemcpyPeer(CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc, size_t n)
{
    return peer(d, dc, s, sc, n, NULL, 0, 0);
}
TD_EXPORT CUresult CUDAAPI cuMemcpyPeer_ptds(CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc, size_t n)
{
    return peer(d, dc, s, sc, n, NULL, 1, 0);
}
TD_EXPORT CUresult CUDAAPI cuMemcpyPeerAsync(CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc, size_t n, CUstream h)
{
    return peer(d, dc, s, sc, n, h, 0, 1);
}
TD_EXPORT CUresult CUDAAPI cuMemcpyPeerAsync_ptsz(CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc, size_t n, CUstream h)
{
    return peer(d, dc, s, sc, n, h, 1, 1);
}

/* ---- CUDA arrays ------------------------------------------------------ */

/* the part [x, y, z] + w x h x d (x, w in bytes) of array a: its device
 * address (of the array's start), pitch and rows, checked */
static CUresult array_side(CUarray a, size_t x, size_t y, size_t z, size_t w, size_t h, size_t d,
                           CUdeviceptr *dev, size_t *pitch, size_t *rows)
{
    struct emu_array_info i;
    CUresult r = emu_array_info(a, &i);
    if (r)
        return r;
    if (x > i.pitch || w > i.pitch - x || y > i.height || h > i.height - y || z > i.depth || d > i.depth - z)
        return CUDA_ERROR_INVALID_VALUE;
    *dev = (CUdeviceptr)i.mem;
    *pitch = i.pitch;
    *rows = i.height;
    return CUDA_SUCCESS;
}

/* byte range [off, off + n) of array a: its device address */
static CUresult array_range(CUarray a, size_t off, size_t n, uintptr_t *out)
{
    struct emu_array_info i;
    CUresult r = emu_array_info(a, &i);
    if (r)
        return r;
    if (off > i.bytes || n > i.bytes - off)
        return CUDA_ERROR_INVALID_VALUE;
    *out = i.mem + off;
    return CUDA_SUCCESS;
}

/* ---- 2-D -------------------------------------------------------------- */

static CUresult side2d(CUmemorytype type, const void *host, CUdeviceptr dev, size_t x, size_t y,
                       size_t pitch, size_t w, size_t h, struct side *out)
{
    size_t ext;
    if (extent(w, h, pitch, &ext))
        return CUDA_ERROR_INVALID_VALUE;
    if (y && y > ((size_t)-1 - x) / (pitch ? pitch : 1))
        return CUDA_ERROR_INVALID_VALUE;
    size_t off = y * pitch + x;
    switch ((int)type) {
    case CU_MEMORYTYPE_HOST:
        if (!host)
            return CUDA_ERROR_INVALID_VALUE;
        return host_side(U(host) + off, ext, out);
    case CU_MEMORYTYPE_DEVICE:
        if (!dev)
            return CUDA_ERROR_INVALID_VALUE;
        return dev_side(U(dev) + off, ext, out);
    case CU_MEMORYTYPE_UNIFIED:
        if (!dev)
            return CUDA_ERROR_INVALID_VALUE;
        return host_side(U(dev) + off, ext, out);
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

static CUresult copy2d(const CUDA_MEMCPY2D *p0, CUstream h, int ptds, int async)
{
    CUresult r = emu_ctx_require();
    if (r)
        return r;
    if (!p0)
        return CUDA_ERROR_INVALID_VALUE;
    CUDA_MEMCPY2D q = *p0;
    const CUDA_MEMCPY2D *p = &q;
    size_t rows;
    if (q.srcMemoryType == CU_MEMORYTYPE_ARRAY &&
        (r = array_side(q.srcArray, q.srcXInBytes, q.srcY, 0, q.WidthInBytes, q.Height, 1, &q.srcDevice,
                        &q.srcPitch, &rows)))
        return r;
    if (q.dstMemoryType == CU_MEMORYTYPE_ARRAY &&
        (r = array_side(q.dstArray, q.dstXInBytes, q.dstY, 0, q.WidthInBytes, q.Height, 1, &q.dstDevice,
                        &q.dstPitch, &rows)))
        return r;
    if (q.srcMemoryType == CU_MEMORYTYPE_ARRAY) q.srcMemoryType = CU_MEMORYTYPE_DEVICE, q.srcArray = NULL;
    if (q.dstMemoryType == CU_MEMORYTYPE_ARRAY) q.dstMemoryType = CU_MEMORYTYPE_DEVICE, q.dstArray = NULL;
    if (p->WidthInBytes == 0 || p->Height == 0)
        return CUDA_SUCCESS;
    const size_t maxpitch = 0x7fffffff;
    if ((p->Height > 1 && (p->srcPitch < p->WidthInBytes + p->srcXInBytes ||
                           p->dstPitch < p->WidthInBytes + p->dstXInBytes)) ||
        p->srcPitch > maxpitch || p->dstPitch > maxpitch)
        return CUDA_ERROR_INVALID_VALUE;
    struct side d = { 0, NULL, NULL, 0 }, s = { 0, NULL, NULL, 0 };
    r = side2d(p->dstMemoryType, p->dstHost, p->dstDevice, p->dstXInBytes, p->dstY, p->dstPitch,
               p->WidthInBytes, p->Height, &d);
    if (!r)
        r = side2d(p->srcMemoryType, p->srcHost, p->srcDevice, p->srcXInBytes, p->srcY, p->srcPitch,
                   p->WidthInBytes, p->Height, &s);
    if (r) {
        put_sides(&d, &s);
        return r;
    }
    struct copy_op *op = emu_op_new(sizeof *op, run_copy, fini_copy);
    if (!op) {
        put_sides(&d, &s);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    op->op.device_work = 1;
    op->dst = d;
    op->src = s;
    op->width = p->WidthInBytes;
    op->height = p->Height;
    op->dpitch = p->dstPitch;
    op->spitch = p->srcPitch;
    CUDA_MEMCPY3D p3;
    memset(&p3, 0, sizeof p3);
    p3.srcXInBytes = p->srcXInBytes;
    p3.srcY = p->srcY;
    p3.srcMemoryType = p->srcMemoryType;
    p3.srcHost = p->srcHost;
    p3.srcDevice = p->srcDevice;
    p3.srcArray = p->srcArray;
    p3.srcPitch = p->srcPitch;
    p3.dstXInBytes = p->dstXInBytes;
    p3.dstY = p->dstY;
    p3.dstMemoryType = p->dstMemoryType;
    p3.dstHost = p->dstHost;
    p3.dstDevice = p->dstDevice;
    p3.dstArray = p->dstArray;
    p3.dstPitch = p->dstPitch;
    p3.WidthInBytes = p->WidthInBytes;
    p3.Height = p->Height;
    p3.Depth = 1;
    struct capdesc cd = { .copy = &p3 };
    return issue(&op->op, h, ptds, async, pageable(&d) || pageable(&s), &cd);
}

/* ---- 3-D (graph memcpy nodes) ------------------------------------------ */

/* one side of a 3-D copy: [x, y, z] of a pitch x rows volume, w x h x d */
static CUresult side3d(CUmemorytype type, const void *host, CUdeviceptr dev, size_t x, size_t y, size_t z,
                       size_t pitch, size_t rows, size_t w, size_t h, size_t d, struct side *out)
{
    size_t slice, ext, off, t;
    if (__builtin_mul_overflow(pitch, rows, &slice))
        return CUDA_ERROR_INVALID_VALUE;
    if (d > 1 && rows < h + y)
        return CUDA_ERROR_INVALID_VALUE;
    /* the last byte touched: ((d - 1) * rows + h - 1) * pitch + w, past [x, y, z] */
    if (__builtin_mul_overflow(d - 1, slice, &ext) || __builtin_mul_overflow(h - 1, pitch, &t) ||
        __builtin_add_overflow(ext, t, &ext) || __builtin_add_overflow(ext, w, &ext) ||
        __builtin_mul_overflow(z, slice, &off) || __builtin_mul_overflow(y, pitch, &t) ||
        __builtin_add_overflow(off, t, &off) || __builtin_add_overflow(off, x, &off))
        return CUDA_ERROR_INVALID_VALUE;
    switch ((int)type) {
    case CU_MEMORYTYPE_HOST:
        if (!host)
            return CUDA_ERROR_INVALID_VALUE;
        return host_side(U(host) + off, ext, out);
    case CU_MEMORYTYPE_DEVICE:
        if (!dev)
            return CUDA_ERROR_INVALID_VALUE;
        return dev_side(U(dev) + off, ext, out);
    case CU_MEMORYTYPE_UNIFIED:
        if (!dev)
            return CUDA_ERROR_INVALID_VALUE;
        return host_side(U(dev) + off, ext, out);
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

/* both sides of p, checked; NULL sides: nothing to copy */
static CUresult sides3d(const CUDA_MEMCPY3D *p, struct side *d, struct side *s)
{
    d->p = s->p = 0;
    d->a = s->a = NULL;
    d->g = s->g = NULL;
    d->len = s->len = 0;
    if (!p || p->reserved0 || p->reserved1 || p->srcLOD || p->dstLOD)
        return CUDA_ERROR_INVALID_VALUE;
    if (p->WidthInBytes == 0 || p->Height == 0 || p->Depth == 0)
        return CUDA_SUCCESS;
    const size_t maxpitch = 0x7fffffff;
    if ((p->Height > 1 || p->Depth > 1) &&
        (p->srcPitch < p->WidthInBytes + p->srcXInBytes || p->dstPitch < p->WidthInBytes + p->dstXInBytes))
        return CUDA_ERROR_INVALID_VALUE;
    if (p->srcPitch > maxpitch || p->dstPitch > maxpitch)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = side3d(p->dstMemoryType, p->dstHost, p->dstDevice, p->dstXInBytes, p->dstY, p->dstZ,
                        p->dstPitch, p->dstHeight, p->WidthInBytes, p->Height, p->Depth, d);
    if (!r)
        r = side3d(p->srcMemoryType, p->srcHost, p->srcDevice, p->srcXInBytes, p->srcY, p->srcZ,
                   p->srcPitch, p->srcHeight, p->WidthInBytes, p->Height, p->Depth, s);
    if (r)
        put_sides(d, s);
    return r;
}

/* p with its array sides as the device memory holding them */
static CUresult norm3d(const CUDA_MEMCPY3D *p, CUDA_MEMCPY3D *q)
{
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    *q = *p;
    CUresult r = CUDA_SUCCESS;
    if (q->srcMemoryType == CU_MEMORYTYPE_ARRAY) {
        r = array_side(q->srcArray, q->srcXInBytes, q->srcY, q->srcZ, q->WidthInBytes, q->Height, q->Depth,
                       &q->srcDevice, &q->srcPitch, &q->srcHeight);
        q->srcMemoryType = CU_MEMORYTYPE_DEVICE;
        q->srcArray = NULL;
    }
    if (!r && q->dstMemoryType == CU_MEMORYTYPE_ARRAY) {
        r = array_side(q->dstArray, q->dstXInBytes, q->dstY, q->dstZ, q->WidthInBytes, q->Height, q->Depth,
                       &q->dstDevice, &q->dstPitch, &q->dstHeight);
        q->dstMemoryType = CU_MEMORYTYPE_DEVICE;
        q->dstArray = NULL;
    }
    return r;
}

CUresult emu_copy3d_check(const CUDA_MEMCPY3D *p0)
{
    struct side d, s;
    CUDA_MEMCPY3D q;
    const CUDA_MEMCPY3D *p = &q;
    CUresult r = norm3d(p0, &q);
    if (r)
        return r;
    r = sides3d(p, &d, &s);
    if (r == CUDA_SUCCESS)
        put_sides(&d, &s);
    return r;
}

CUresult emu_copy3d_op(const CUDA_MEMCPY3D *p0, struct emu_op **out)
{
    struct side d, s;
    CUDA_MEMCPY3D q;
    const CUDA_MEMCPY3D *p = &q;
    *out = NULL;
    CUresult r = norm3d(p0, &q);
    if (r)
        return r;
    r = sides3d(p, &d, &s);
    if (r || !d.p)
        return r;
    struct copy_op *op = emu_op_new(sizeof *op, run_copy, fini_copy);
    if (!op) {
        put_sides(&d, &s);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    op->op.device_work = 1;
    op->dst = d;
    op->src = s;
    op->width = p->WidthInBytes;
    op->height = p->Height;
    op->depth = p->Depth;
    op->dpitch = p->dstPitch;
    op->spitch = p->srcPitch;
    op->dslice = p->dstPitch * p->dstHeight;
    op->sslice = p->srcPitch * p->srcHeight;
    *out = &op->op;
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuMemcpy2D_v2(const CUDA_MEMCPY2D *p) { return copy2d(p, NULL, 0, 0); }
TD_EXPORT CUresult CUDAAPI cuMemcpy2D_v2_ptds(const CUDA_MEMCPY2D *p) { return copy2d(p, NULL, 1, 0); }
TD_EXPORT CUresult CUDAAPI cuMemcpy2DUnaligned_v2(const CUDA_MEMCPY2D *p) { return copy2d(p, NULL, 0, 0); }
TD_EXPORT CUresult CUDAAPI cuMemcpy2DUnaligned_v2_ptds(const CUDA_MEMCPY2D *p) { return copy2d(p, NULL, 1, 0); }
TD_EXPORT CUresult CUDAAPI cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *p, CUstream h) { return copy2d(p, h, 0, 1); }
TD_EXPORT CUresult CUDAAPI cuMemcpy2DAsync_v2_ptsz(const CUDA_MEMCPY2D *p, CUstream h) { return copy2d(p, h, 1, 1); }

/* ---- 3-D entry points -------------------------------------------------- */

static CUresult copy3d(const CUDA_MEMCPY3D *p, CUstream h, int ptds, int async)
{
    CUresult r = emu_ctx_require();
    if (r)
        return r;
    CUDA_MEMCPY3D q;
    r = norm3d(p, &q);
    struct emu_op *op;
    if (!r)
        r = emu_copy3d_op(&q, &op);
    if (r || !op)
        return r;
    struct copy_op *c = (struct copy_op *)op;
    struct capdesc cd = { .copy = &q };
    return issue(op, h, ptds, async, pageable(&c->dst) || pageable(&c->src), &cd);
}

TD_EXPORT CUresult CUDAAPI cuMemcpy3D_v2(const CUDA_MEMCPY3D *p) { return copy3d(p, NULL, 0, 0); }
TD_EXPORT CUresult CUDAAPI cuMemcpy3D_v2_ptds(const CUDA_MEMCPY3D *p) { return copy3d(p, NULL, 1, 0); }
TD_EXPORT CUresult CUDAAPI cuMemcpy3DAsync_v2(const CUDA_MEMCPY3D *p, CUstream h) { return copy3d(p, h, 0, 1); }
TD_EXPORT CUresult CUDAAPI cuMemcpy3DAsync_v2_ptsz(const CUDA_MEMCPY3D *p, CUstream h) { return copy3d(p, h, 1, 1); }

/* a peer copy: every context's memory is in one address space here; the
 * contexts must be live (ignored for array sides, as documented) */
static CUresult copy3d_peer(const CUDA_MEMCPY3D_PEER *p, CUstream h, int ptds, int async)
{
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    CUcontext ctxs[2] = { p->srcMemoryType == CU_MEMORYTYPE_ARRAY ? NULL : p->srcContext,
                          p->dstMemoryType == CU_MEMORYTYPE_ARRAY ? NULL : p->dstContext };
    for (int i = 0; i < 2; i++) {
        struct emu_ctx *c;
        if (!ctxs[i])
            continue;
        CUresult r = emu_ctx_resolve(ctxs[i], &c);
        if (r)
            return r;
        emu_ctx_put(c);
    }
    CUDA_MEMCPY3D q;
    memset(&q, 0, sizeof q);
    q.srcXInBytes = p->srcXInBytes, q.srcY = p->srcY, q.srcZ = p->srcZ, q.srcLOD = p->srcLOD;
    q.srcMemoryType = p->srcMemoryType, q.srcHost = p->srcHost, q.srcDevice = p->srcDevice;
    q.srcArray = p->srcArray, q.srcPitch = p->srcPitch, q.srcHeight = p->srcHeight;
    q.dstXInBytes = p->dstXInBytes, q.dstY = p->dstY, q.dstZ = p->dstZ, q.dstLOD = p->dstLOD;
    q.dstMemoryType = p->dstMemoryType, q.dstHost = p->dstHost, q.dstDevice = p->dstDevice;
    q.dstArray = p->dstArray, q.dstPitch = p->dstPitch, q.dstHeight = p->dstHeight;
    q.WidthInBytes = p->WidthInBytes, q.Height = p->Height, q.Depth = p->Depth;
    return copy3d(&q, h, ptds, async);
}

TD_EXPORT CUresult CUDAAPI cuMemcpy3DPeer(const CUDA_MEMCPY3D_PEER *p) { return copy3d_peer(p, NULL, 0, 0); }
TD_EXPORT CUresult CUDAAPI cuMemcpy3DPeer_ptds(const CUDA_MEMCPY3D_PEER *p) { return copy3d_peer(p, NULL, 1, 0); }
TD_EXPORT CUresult CUDAAPI cuMemcpy3DPeerAsync(const CUDA_MEMCPY3D_PEER *p, CUstream h) { return copy3d_peer(p, h, 0, 1); }
TD_EXPORT CUresult CUDAAPI cuMemcpy3DPeerAsync_ptsz(const CUDA_MEMCPY3D_PEER *p, CUstream h) { return copy3d_peer(p, h, 1, 1); }

/* ---- batches of 1-D copies ------------------------------------------------ */

/* cuMemcpyBatchAsync: every copy and attribute checked before any is
 * queued (failIdx: the copy at fault, or SIZE_MAX when the batch as a whole
 * is); in stream order, the copies of a DURING_API_CALL attribute done by
 * the time the call returns */
static CUresult batch(CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes, size_t count, CUmemcpyAttributes *attrs,
                      size_t *idxs, size_t nattrs, size_t *fail, CUstream h, int ptds)
{
    if (fail)
        *fail = SIZE_MAX;
    CUresult r = emu_ctx_require();
    if (r)
        return r;
    if (!count || !dsts || !srcs || !sizes || !attrs || !idxs || !nattrs || nattrs > count || idxs[0] != 0 ||
        h == CU_STREAM_LEGACY || (!ptds && h == NULL))
        return CUDA_ERROR_INVALID_VALUE; /* the legacy stream cannot take a batch */
    for (size_t k = 0; k < nattrs; k++) {
        if ((k && idxs[k] <= idxs[k - 1]) || idxs[k] >= count)
            return CUDA_ERROR_INVALID_VALUE;
        unsigned o = (unsigned)attrs[k].srcAccessOrder;
        if (o < CU_MEMCPY_SRC_ACCESS_ORDER_STREAM || o > CU_MEMCPY_SRC_ACCESS_ORDER_ANY)
            return CUDA_ERROR_INVALID_VALUE;
    }
    for (size_t i = 0; i < count; i++) {
        struct side d = { 0, NULL, NULL, 0 }, s = { 0, NULL, NULL, 0 };
        r = sizes[i] ? host_side(U(dsts[i]), sizes[i], &d) : CUDA_SUCCESS;
        if (!r && sizes[i])
            r = host_side(U(srcs[i]), sizes[i], &s);
        put_sides(&d, &s);
        if (r) {
            if (fail)
                *fail = i;
            return r;
        }
    }
    for (size_t k = 0, i = 0; k < nattrs; k++) {
        size_t end = k + 1 < nattrs ? idxs[k + 1] : count;
        int now = attrs[k].srcAccessOrder == CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL;
        for (; i < end; i++) {
            r = copy1d(U(dsts[i]), U(srcs[i]), sizes[i], D_ANY, h, ptds, !now);
            if (r) {
                if (fail)
                    *fail = i;
                return r;
            }
        }
    }
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuMemcpyBatchAsync_v2(CUdeviceptr *d, CUdeviceptr *s, size_t *n, size_t count, CUmemcpyAttributes *a, size_t *ai, size_t na, CUstream h) { return batch(d, s, n, count, a, ai, na, NULL, h, 0); }
TD_EXPORT CUresult CUDAAPI cuMemcpyBatchAsync_v2_ptsz(CUdeviceptr *d, CUdeviceptr *s, size_t *n, size_t count, CUmemcpyAttributes *a, size_t *ai, size_t na, CUstream h) { return batch(d, s, n, count, a, ai, na, NULL, h, 1); }
TD_EXPORT CUresult CUDAAPI cuMemcpyBatchAsync(CUdeviceptr *d, CUdeviceptr *s, size_t *n, size_t count, CUmemcpyAttributes *a, size_t *ai, size_t na, size_t *fail, CUstream h) { return batch(d, s, n, count, a, ai, na, fail, h, 0); }
TD_EXPORT CUresult CUDAAPI cuMemcpyBatchAsync_ptsz(CUdeviceptr *d, CUdeviceptr *s, size_t *n, size_t count, CUmemcpyAttributes *a, size_t *ai, size_t na, size_t *fail, CUstream h) { return batch(d, s, n, count, a, ai, na, fail, h, 1); }

/* one operand of a 3-D batch copy into the CUDA_MEMCPY3D side (e: bytes of
 * an element) */
static CUresult operand(const CUmemcpy3DOperand *o, const CUextent3D *x, size_t e, CUmemorytype *type,
                        CUdeviceptr *dev, CUarray *arr, size_t *xb, size_t *y, size_t *z, size_t *pitch,
                        size_t *rows)
{
    switch ((int)o->type) {
    case CU_MEMCPY_OPERAND_TYPE_POINTER:
        if ((o->op.ptr.rowLength && o->op.ptr.rowLength < x->width) ||
            (o->op.ptr.layerHeight && o->op.ptr.layerHeight < x->height) ||
            __builtin_mul_overflow(o->op.ptr.rowLength ? o->op.ptr.rowLength : x->width, e, pitch))
            return CUDA_ERROR_INVALID_VALUE;
        *type = CU_MEMORYTYPE_UNIFIED;
        *dev = o->op.ptr.ptr;
        *rows = o->op.ptr.layerHeight ? o->op.ptr.layerHeight : x->height;
        return CUDA_SUCCESS;
    case CU_MEMCPY_OPERAND_TYPE_ARRAY:
        *type = CU_MEMORYTYPE_ARRAY;
        *arr = o->op.array.array;
        if (__builtin_mul_overflow(o->op.array.offset.x, e, xb))
            return CUDA_ERROR_INVALID_VALUE;
        *y = o->op.array.offset.y;
        *z = o->op.array.offset.z;
        return CUDA_SUCCESS;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

/* op as a CUDA_MEMCPY3D, checked */
static CUresult batch3d_op(const CUDA_MEMCPY3D_BATCH_OP *op, CUDA_MEMCPY3D *q)
{
    const CUextent3D *x = &op->extent;
    unsigned o = (unsigned)op->srcAccessOrder;
    if (!x->width || !x->height || !x->depth || op->flags & ~1u || o < CU_MEMCPY_SRC_ACCESS_ORDER_STREAM ||
        o > CU_MEMCPY_SRC_ACCESS_ORDER_ANY)
        return CUDA_ERROR_INVALID_VALUE;
    /* the element: 1 byte between pointers, else the array's (both arrays: the same) */
    size_t e = 0;
    const CUmemcpy3DOperand *ops[2] = { &op->src, &op->dst };
    for (int i = 0; i < 2; i++) {
        if (ops[i]->type != CU_MEMCPY_OPERAND_TYPE_ARRAY)
            continue;
        struct emu_array_info ai;
        CUresult r = emu_array_info(ops[i]->op.array.array, &ai);
        if (r)
            return r;
        if (e && e != ai.esz)
            return CUDA_ERROR_INVALID_VALUE;
        e = ai.esz;
    }
    if (!e)
        e = 1;
    memset(q, 0, sizeof *q);
    CUresult r = operand(&op->src, x, e, &q->srcMemoryType, &q->srcDevice, &q->srcArray, &q->srcXInBytes, &q->srcY,
                         &q->srcZ, &q->srcPitch, &q->srcHeight);
    if (!r)
        r = operand(&op->dst, x, e, &q->dstMemoryType, &q->dstDevice, &q->dstArray, &q->dstXInBytes, &q->dstY,
                    &q->dstZ, &q->dstPitch, &q->dstHeight);
    if (!r && __builtin_mul_overflow(x->width, e, &q->WidthInBytes))
        r = CUDA_ERROR_INVALID_VALUE;
    q->Height = x->height;
    q->Depth = x->depth;
    return r ? r : emu_copy3d_check(q);
}

static CUresult batch3d(size_t n, CUDA_MEMCPY3D_BATCH_OP *ops, size_t *fail, unsigned long long flags, CUstream h,
                        int ptds)
{
    if (fail)
        *fail = SIZE_MAX;
    CUresult r = emu_ctx_require();
    if (r)
        return r;
    if (!n || !ops || flags || h == CU_STREAM_LEGACY || (!ptds && h == NULL))
        return CUDA_ERROR_INVALID_VALUE;
    CUDA_MEMCPY3D q;
    for (size_t i = 0; i < n; i++)
        if ((r = batch3d_op(&ops[i], &q))) {
            if (fail)
                *fail = i;
            return r;
        }
    for (size_t i = 0; i < n; i++) {
        r = batch3d_op(&ops[i], &q);
        if (!r)
            r = copy3d(&q, h, ptds, ops[i].srcAccessOrder != CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL);
        if (r) {
            if (fail)
                *fail = i;
            return r;
        }
    }
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuMemcpy3DBatchAsync_v2(size_t n, CUDA_MEMCPY3D_BATCH_OP *ops, unsigned long long flags, CUstream h) { return batch3d(n, ops, NULL, flags, h, 0); }
TD_EXPORT CUresult CUDAAPI cuMemcpy3DBatchAsync_v2_ptsz(size_t n, CUDA_MEMCPY3D_BATCH_OP *ops, unsigned long long flags, CUstream h) { return batch3d(n, ops, NULL, flags, h, 1); }
TD_EXPORT CUresult CUDAAPI cuMemcpy3DBatchAsync(size_t n, CUDA_MEMCPY3D_BATCH_OP *ops, size_t *fail, unsigned long long flags, CUstream h) { return batch3d(n, ops, fail, flags, h, 0); }
TD_EXPORT CUresult CUDAAPI cuMemcpy3DBatchAsync_ptsz(size_t n, CUDA_MEMCPY3D_BATCH_OP *ops, size_t *fail, unsigned long long flags, CUstream h) { return batch3d(n, ops, fail, flags, h, 1); }

/* ---- 1-D copies with arrays -------------------------------------------- */

/* A: the side is an array (da, sa), else memory (dp, sp) */
#define A ((CUarray)(uintptr_t)-1)
static CUresult copy_a(CUarray da, size_t doff, uintptr_t dp, CUarray sa, size_t soff, uintptr_t sp, size_t n,
                       enum dir dir, CUstream h, int ptds, int async)
{
    CUresult r = emu_ctx_require();
    if (!r && da != A)
        r = array_range(da, doff, n, &dp);
    if (!r && sa != A)
        r = array_range(sa, soff, n, &sp);
    return r ? r : copy1d(dp, sp, n, dir, h, ptds, async);
}

TD_EXPORT CUresult CUDAAPI cuMemcpyAtoH_v2(void *d, CUarray a, size_t off, size_t n) { return copy_a(A, 0, U(d), a, off, 0, n, D_DTOH, NULL, 0, 0); }
TD_EXPORT CUresult CUDAAPI cuMemcpyAtoH_v2_ptds(void *d, CUarray a, size_t off, size_t n) { return copy_a(A, 0, U(d), a, off, 0, n, D_DTOH, NULL, 1, 0); }
TD_EXPORT CUresult CUDAAPI cuMemcpyAtoHAsync_v2(void *d, CUarray a, size_t off, size_t n, CUstream h) { return copy_a(A, 0, U(d), a, off, 0, n, D_DTOH, h, 0, 1); }
TD_EXPORT CUresult CUDAAPI cuMemcpyAtoHAsync_v2_ptsz(void *d, CUarray a, size_t off, size_t n, CUstream h) { return copy_a(A, 0, U(d), a, off, 0, n, D_DTOH, h, 1, 1); }
TD_EXPORT CUresult CUDAAPI cuMemcpyHtoA_v2(CUarray a, size_t off, const void *s, size_t n) { return copy_a(a, off, 0, A, 0, U(s), n, D_HTOD, NULL, 0, 0); }
TD_EXPORT CUresult CUDAAPI cuMemcpyHtoA_v2_ptds(CUarray a, size_t off, const void *s, size_t n) { return copy_a(a, off, 0, A, 0, U(s), n, D_HTOD, NULL, 1, 0); }
TD_EXPORT CUresult CUDAAPI cuMemcpyHtoAAsync_v2(CUarray a, size_t off, const void *s, size_t n, CUstream h) { return copy_a(a, off, 0, A, 0, U(s), n, D_HTOD, h, 0, 1); }
TD_EXPORT CUresult CUDAAPI cuMemcpyHtoAAsync_v2_ptsz(CUarray a, size_t off, const void *s, size_t n, CUstream h) { return copy_a(a, off, 0, A, 0, U(s), n, D_HTOD, h, 1, 1); }
TD_EXPORT CUresult CUDAAPI cuMemcpyAtoD_v2(CUdeviceptr d, CUarray a, size_t off, size_t n) { return copy_a(A, 0, U(d), a, off, 0, n, D_DTOD, NULL, 0, 0); }
TD_EXPORT CUresult CUDAAPI cuMemcpyAtoD_v2_ptds(CUdeviceptr d, CUarray a, size_t off, size_t n) { return copy_a(A, 0, U(d), a, off, 0, n, D_DTOD, NULL, 1, 0); }
TD_EXPORT CUresult CUDAAPI cuMemcpyDtoA_v2(CUarray a, size_t off, CUdeviceptr s, size_t n) { return copy_a(a, off, 0, A, 0, U(s), n, D_DTOD, NULL, 0, 0); }
TD_EXPORT CUresult CUDAAPI cuMemcpyDtoA_v2_ptds(CUarray a, size_t off, CUdeviceptr s, size_t n) { return copy_a(a, off, 0, A, 0, U(s), n, D_DTOD, NULL, 1, 0); }
TD_EXPORT CUresult CUDAAPI cuMemcpyAtoA_v2(CUarray d, size_t doff, CUarray s, size_t soff, size_t n) { return copy_a(d, doff, 0, s, soff, 0, n, D_DTOD, NULL, 0, 0); }
TD_EXPORT CUresult CUDAAPI cuMemcpyAtoA_v2_ptds(CUarray d, size_t doff, CUarray s, size_t soff, size_t n) { return copy_a(d, doff, 0, s, soff, 0, n, D_DTOD, NULL, 1, 0); }

/* ---- memset ------------------------------------------------------------ */

CUresult emu_memset_op(CUdeviceptr dst, size_t pitch, unsigned value, unsigned elem, size_t w,
                       size_t hgt, struct emu_op **out)
{
    *out = NULL;
    if (!dst || (elem != 1 && elem != 2 && elem != 4) || (dst & (elem - 1)))
        return CUDA_ERROR_INVALID_VALUE;
    if (w == 0 || hgt == 0)
        return CUDA_SUCCESS;
    if (w > ((size_t)-1) / elem)
        return CUDA_ERROR_INVALID_VALUE;
    size_t ext;
    if (extent(w * elem, hgt, pitch, &ext))
        return CUDA_ERROR_INVALID_VALUE;
    struct side d = { 0, NULL, NULL, 0 };
    CUresult r = dev_side(U(dst), ext, &d);
    if (r)
        return r;
    struct set_op *op = emu_op_new(sizeof *op, run_set, fini_set);
    if (!op) {
        put_sides(&d, NULL);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    op->op.device_work = 1;
    op->dst = d;
    op->width = w;
    op->height = hgt;
    op->pitch = pitch;
    op->elem = elem;
    op->value = value;
    *out = &op->op;
    return CUDA_SUCCESS;
}

static CUresult memset2d(CUdeviceptr dst, size_t pitch, unsigned value, unsigned elem, size_t w,
                         size_t hgt, CUstream h, int ptds, int async)
{
    CUresult r = emu_ctx_require();
    if (r)
        return r;
    struct emu_op *op;
    r = emu_memset_op(dst, pitch, value, elem, w, hgt, &op);
    if (r || !op)
        return r;
    struct capdesc cd = { .dst = dst, .pitch = pitch, .width = w, .height = hgt, .value = value, .elem = elem };
    return issue(op, h, ptds, async, 0, &cd);
}

#define SET1(name, T, elem, ptds, async) \
    TD_EXPORT CUresult CUDAAPI name(CUdeviceptr d, T v, size_t n) \
    { return memset2d(d, n * (elem), v, elem, n, 1, NULL, ptds, async); }
#define SET1A(name, T, elem, ptds) \
    TD_EXPORT CUresult CUDAAPI name(CUdeviceptr d, T v, size_t n, CUstream h) \
    { return memset2d(d, n * (elem), v, elem, n, 1, h, ptds, 1); }
#define SET2(name, T, elem, ptds) \
    TD_EXPORT CUresult CUDAAPI name(CUdeviceptr d, size_t pitch, T v, size_t w, size_t hgt) \
    { return memset2d(d, pitch, v, elem, w, hgt, NULL, ptds, 0); }
#define SET2A(name, T, elem, ptds) \
    TD_EXPORT CUresult CUDAAPI name(CUdeviceptr d, size_t pitch, T v, size_t w, size_t hgt, CUstream h) \
    { return memset2d(d, pitch, v, elem, w, hgt, h, ptds, 1); }

SET1(cuMemsetD8_v2, unsigned char, 1, 0, 0)
SET1(cuMemsetD8_v2_ptds, unsigned char, 1, 1, 0)
SET1(cuMemsetD16_v2, unsigned short, 2, 0, 0)
SET1(cuMemsetD16_v2_ptds, unsigned short, 2, 1, 0)
SET1(cuMemsetD32_v2, unsigned int, 4, 0, 0)
SET1(cuMemsetD32_v2_ptds, unsigned int, 4, 1, 0)
SET1A(cuMemsetD8Async, unsigned char, 1, 0)
SET1A(cuMemsetD8Async_ptsz, unsigned char, 1, 1)
SET1A(cuMemsetD16Async, unsigned short, 2, 0)
SET1A(cuMemsetD16Async_ptsz, unsigned short, 2, 1)
SET1A(cuMemsetD32Async, unsigned int, 4, 0)
SET1A(cuMemsetD32Async_ptsz, unsigned int, 4, 1)
SET2(cuMemsetD2D8_v2, unsigned char, 1, 0)
SET2(cuMemsetD2D8_v2_ptds, unsigned char, 1, 1)
SET2(cuMemsetD2D16_v2, unsigned short, 2, 0)
SET2(cuMemsetD2D16_v2_ptds, unsigned short, 2, 1)
SET2(cuMemsetD2D32_v2, unsigned int, 4, 0)
SET2(cuMemsetD2D32_v2_ptds, unsigned int, 4, 1)
SET2A(cuMemsetD2D8Async, unsigned char, 1, 0)
SET2A(cuMemsetD2D8Async_ptsz, unsigned char, 1, 1)
SET2A(cuMemsetD2D16Async, unsigned short, 2, 0)
SET2A(cuMemsetD2D16Async_ptsz, unsigned short, 2, 1)
SET2A(cuMemsetD2D32Async, unsigned int, 4, 0)
SET2A(cuMemsetD2D32Async_ptsz, unsigned int, 4, 1)

/* ---- the v1 ABI (before CUDA 3.2): 32-bit sizes and device pointers ---- */

TD_EXPORT CUresult CUDAAPI cuMemcpyAtoH(void *d, CUarray a, unsigned int off, unsigned int n) { return cuMemcpyAtoH_v2(d, a, off, n); }
TD_EXPORT CUresult CUDAAPI cuMemcpyAtoHAsync(void *d, CUarray a, unsigned int off, unsigned int n, CUstream h) { return cuMemcpyAtoHAsync_v2(d, a, off, n, h); }
TD_EXPORT CUresult CUDAAPI cuMemcpyHtoA(CUarray a, unsigned int off, const void *s, unsigned int n) { return cuMemcpyHtoA_v2(a, off, s, n); }
TD_EXPORT CUresult CUDAAPI cuMemcpyHtoAAsync(CUarray a, unsigned int off, const void *s, unsigned int n, CUstream h) { return cuMemcpyHtoAAsync_v2(a, off, s, n, h); }
TD_EXPORT CUresult CUDAAPI cuMemcpyAtoD(CUdeviceptr_v1 d, CUarray a, unsigned int off, unsigned int n) { return cuMemcpyAtoD_v2(d, a, off, n); }
TD_EXPORT CUresult CUDAAPI cuMemcpyDtoA(CUarray a, unsigned int off, CUdeviceptr_v1 s, unsigned int n) { return cuMemcpyDtoA_v2(a, off, s, n); }
TD_EXPORT CUresult CUDAAPI cuMemcpyAtoA(CUarray d, unsigned int doff, CUarray s, unsigned int soff, unsigned int n) { return cuMemcpyAtoA_v2(d, doff, s, soff, n); }

static CUresult copy3d_v1(const CUDA_MEMCPY3D_v1 *p, CUstream h, int async)
{
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    CUDA_MEMCPY3D q;
    memset(&q, 0, sizeof q);
    q.srcXInBytes = p->srcXInBytes, q.srcY = p->srcY, q.srcZ = p->srcZ, q.srcLOD = p->srcLOD;
    q.srcMemoryType = p->srcMemoryType, q.srcHost = p->srcHost, q.srcDevice = p->srcDevice;
    q.srcArray = p->srcArray, q.reserved0 = p->reserved0, q.srcPitch = p->srcPitch, q.srcHeight = p->srcHeight;
    q.dstXInBytes = p->dstXInBytes, q.dstY = p->dstY, q.dstZ = p->dstZ, q.dstLOD = p->dstLOD;
    q.dstMemoryType = p->dstMemoryType, q.dstHost = p->dstHost, q.dstDevice = p->dstDevice;
    q.dstArray = p->dstArray, q.reserved1 = p->reserved1, q.dstPitch = p->dstPitch, q.dstHeight = p->dstHeight;
    q.WidthInBytes = p->WidthInBytes, q.Height = p->Height, q.Depth = p->Depth;
    return copy3d(&q, h, 0, async);
}

TD_EXPORT CUresult CUDAAPI cuMemcpy3D(const CUDA_MEMCPY3D_v1 *p) { return copy3d_v1(p, NULL, 0); }
TD_EXPORT CUresult CUDAAPI cuMemcpy3DAsync(const CUDA_MEMCPY3D_v1 *p, CUstream h) { return copy3d_v1(p, h, 1); }
