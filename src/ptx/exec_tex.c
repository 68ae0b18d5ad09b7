/* SPDX-License-Identifier: Apache-2.0 */
/* The executor's texture and surface instructions: tex, tld4 and txq on
 * texture objects, suld.b, sust.b and suq on surface objects. The object a
 * lane names (a 64-bit handle) is resolved by the emulator
 * (ptx_set_tex_lookup) into a struct ptx_tex: the memory, its layout and
 * the sampler.
 *
 * Sampling follows the CUDA C++ Programming Guide's "Texture Fetching"
 * appendix, as the hardware does it: normalised coordinates are scaled by
 * the size; point sampling takes texel floor(x); linear filtering takes
 * the texels around x - 0.5 weighted by the fraction, held, as the
 * hardware holds it, in 9-bit fixed point with 8 fractional bits; each
 * address mode maps a texel index outside the resource (wrap and mirror
 * only with normalised coordinates; unnormalised they clamp, as on the
 * GPU), border gives the border colour. 8- and 16-bit integer data read as
 * floats is normalised to [0, 1] (unsigned) or [-1, 1] (signed) unless the
 * object reads integers. Cubemaps select the face by the major axis of the
 * direction and sample it with normalised coordinates.
 *
 * Surfaces are read and written by byte offset in x (suld.b/sust.b);
 * outside the surface .trap fails the launch, .clamp uses the nearest
 * element, .zero reads zeros and drops stores. */
#include "exec.h"

#include <stdio.h>

static _Atomic(ptx_tex_lookup_fn) tex_lookup;

void ptx_set_tex_lookup(ptx_tex_lookup_fn fn)
{
    atomic_store_explicit(&tex_lookup, fn, memory_order_release);
}

static unsigned fmt_size(int fmt)
{
    switch (fmt) {
    case PTX_FMT_U8: case PTX_FMT_S8: return 1;
    case PTX_FMT_U16: case PTX_FMT_S16: case PTX_FMT_F16: return 2;
    default: return 4;
    }
}

/* the object of lane l's handle: the launch's copy (b->texc) or the
 * emulator's answer; NULL after failing the launch. A launch keeps what it
 * resolved: the memory an object reads stays mapped until the launch ends,
 * even if the program frees it meanwhile. */
static const struct ptx_tex *resolve(struct blk *b, struct warp *w, int lane, const struct ir_ins *in, uint64_t h,
                                     int surface)
{
    struct ex_texc *c = &b->texc[(h >> 4) % (sizeof b->texc / sizeof *b->texc)];
    if (c->kind == 1 + surface && c->h == h) return &c->t;
    ptx_tex_lookup_fn fn = atomic_load_explicit(&tex_lookup, memory_order_acquire);
    if (!fn || fn(h, surface, &c->t) != 0) {
        c->kind = 0;
        ex_fail_at(b, w, lane, in, PTX_E_TRAP, "%s: 0x%llx is not a live %s object", ex_name(b, in),
                   (unsigned long long)h, surface ? "surface" : "texture");
        return NULL;
    }
    c->h = h;
    c->kind = 1 + surface;
    return &c->t;
}

/* ---- texels ----------------------------------------------------------- */

/* the address of element (x, y, z) of layer ly, all in range */
static const unsigned char *texel_at(const struct ptx_tex *t, int64_t x, int64_t y, int64_t z, int64_t ly)
{
    uint64_t esz = (uint64_t)fmt_size(t->fmt) * (uint64_t)t->nch;
    return t->base + (uint64_t)(ly + z) * t->slice + (uint64_t)y * t->pitch + (uint64_t)x * esz;
}

/* channel c of the element at p: its raw value, sign-extended for signed
 * formats */
static uint32_t raw_channel(const struct ptx_tex *t, const unsigned char *p, int c)
{
    unsigned n = fmt_size(t->fmt);
    p += (unsigned)c * n;
    switch (t->fmt) {
    case PTX_FMT_U8: return p[0];
    case PTX_FMT_S8: return (uint32_t)(int32_t)(int8_t)p[0];
    case PTX_FMT_U16: case PTX_FMT_F16: { uint16_t v; memcpy(&v, p, 2); return v; }
    case PTX_FMT_S16: { int16_t v; memcpy(&v, p, 2); return (uint32_t)(int32_t)v; }
    default: { uint32_t v; memcpy(&v, p, 4); return v; }
    }
}

/* channel value as a float read returns it */
static float float_channel(const struct ptx_tex *t, uint32_t raw)
{
    switch (t->fmt) {
    case PTX_FMT_F32: return F32(raw);
    case PTX_FMT_F16: return ptx_f16_to_f32((uint16_t)raw);
    case PTX_FMT_U8: return t->read_norm ? (float)raw / 255.0f : F32(raw);
    case PTX_FMT_U16: return t->read_norm ? (float)raw / 65535.0f : F32(raw);
    case PTX_FMT_S8: return t->read_norm ? fmaxf((float)(int32_t)raw / 127.0f, -1.0f) : F32(raw);
    case PTX_FMT_S16: return t->read_norm ? fmaxf((float)(int32_t)raw / 32767.0f, -1.0f) : F32(raw);
    default: return F32(raw); /* 32-bit integers: their bits */
    }
}

/* one texel's four values (floats, or raw integers in v's bits); border:
 * the border colour */
static void texel(const struct ptx_tex *t, int border, int64_t x, int64_t y, int64_t z, int64_t ly,
                  int fl, float v[4])
{
    if (border) {
        for (int c = 0; c < 4; c++) v[c] = t->border[c];
        return;
    }
    const unsigned char *p = texel_at(t, x, y, z, ly);
    int c = 0;
    if (t->fmt == PTX_FMT_F32 || t->fmt == PTX_FMT_U32 || t->fmt == PTX_FMT_S32) {
        memcpy(v, p, (size_t)t->nch * 4); /* the bits as they are, for every read */
        c = t->nch;
    }
    for (; c < t->nch; c++) {
        uint32_t r = raw_channel(t, p, c);
        v[c] = fl ? float_channel(t, r) : F32(r);
    }
    for (; c < 4; c++) v[c] = 0.0f;
}

/* a texel index on an axis of n texels after the address mode: the index,
 * or -1 for the border */
static int64_t address(int64_t i, int64_t n, int mode, int norm)
{
    if (!norm && (mode == PTX_ADDR_WRAP || mode == PTX_ADDR_MIRROR)) mode = PTX_ADDR_CLAMP;
    if (i >= 0 && i < n) return i;
    switch (mode) {
    case PTX_ADDR_WRAP: return ((i % n) + n) % n;
    case PTX_ADDR_MIRROR: {
        int64_t m = ((i % (2 * n)) + 2 * n) % (2 * n);
        return m < n ? m : 2 * n - 1 - m;
    }
    case PTX_ADDR_BORDER: return -1;
    default: return i < 0 ? 0 : n - 1;
    }
}

/* an unnormalised coordinate's texel index, kept in a range floor can take */
static int64_t ifloor(float x)
{
    if (!(x > -1e15f)) return x != x ? 0 : (int64_t)-1e15;
    if (x > 1e15f) return (int64_t)1e15;
    return (int64_t)floorf(x);
}

/* the hardware's weight: the fraction in 1.8 fixed point */
static float weight(float frac)
{
    return rintf(frac * 256.0f) / 256.0f;
}

/* samples t at the coordinates u[naxes] (texel units), layer ly: v. Linear
 * filtering sums its taps x fastest, each weighted by the product of its
 * axes' weights. */
static void sample(const struct ptx_tex *t, int naxes, const float *u, int64_t ly, int fl, int linear, float v[4])
{
    const int64_t n[3] = { (int64_t)t->width, (int64_t)t->height, (int64_t)t->depth };
    int64_t idx[3][2] = { { 0, 0 }, { 0, 0 }, { 0, 0 } };
    float w[3][2] = { { 1, 0 }, { 1, 0 }, { 1, 0 } };
    int nt[3] = { 1, 1, 1 };
    for (int k = 0; k < naxes; k++) {
        if (linear) {
            float xb = u[k] - 0.5f;
            int64_t i0 = ifloor(xb);
            float a = weight(xb - floorf(xb));
            idx[k][0] = address(i0, n[k], t->addr[k], t->norm_coords);
            idx[k][1] = address(i0 + 1, n[k], t->addr[k], t->norm_coords);
            w[k][0] = 1.0f - a;
            w[k][1] = a;
            nt[k] = 2;
        } else
            idx[k][0] = address(ifloor(u[k]), n[k], t->addr[k], t->norm_coords);
    }
    for (int c = 0; c < 4; c++) v[c] = 0.0f;
    for (int z = 0; z < nt[2]; z++)
        for (int y = 0; y < nt[1]; y++)
            for (int x = 0; x < nt[0]; x++) {
                int64_t ix = idx[0][x], iy = idx[1][y], iz = idx[2][z];
                int border = ix < 0 || iy < 0 || iz < 0;
                float tv[4];
                texel(t, border, border ? 0 : ix, border ? 0 : iy, border ? 0 : iz, ly, fl, tv);
                if (!linear) {
                    memcpy(v, tv, sizeof tv);
                    return;
                }
                float wgt = w[0][x];
                if (naxes > 1) wgt *= w[1][y];
                if (naxes > 2) wgt *= w[2][z];
                for (int c = 0; c < t->nch; c++) v[c] += wgt * tv[c];
            }
}

/* a cubemap direction: the face and its coordinates in [0, 1] */
static int cube_face(float x, float y, float z, float *s, float *t)
{
    float ax = fabsf(x), ay = fabsf(y), az = fabsf(z), ma, sc, tc;
    int face;
    if (ax >= ay && ax >= az) {
        ma = ax, face = x >= 0 ? 0 : 1, sc = x >= 0 ? -z : z, tc = -y;
    } else if (ay >= az) {
        ma = ay, face = y >= 0 ? 2 : 3, sc = x, tc = y >= 0 ? z : -z;
    } else {
        ma = az, face = z >= 0 ? 4 : 5, sc = z >= 0 ? x : -x, tc = -y;
    }
    if (ma == 0) ma = 1;
    *s = (sc / ma + 1.0f) * 0.5f;
    *t = (tc / ma + 1.0f) * 0.5f;
    return face;
}

static uint64_t lane_val(const uint64_t *R, int slot, int l)
{
    return slot >= 0 ? R[(size_t)slot * 32 + (unsigned)l] : 0;
}

static void put(uint64_t *R, int slot, int l, uint64_t v)
{
    if (slot >= 0) R[(size_t)slot * 32 + (unsigned)l] = v;
}

static int ex_tex(struct blk *b, struct warp *w, const struct ir_ins *in, uint32_t m, uint64_t *R)
{
    int geom = in->sub, ints = in->type2 == T_S32, fl = in->type == T_F32;
    int naxes = geom == TG_1D || geom == TG_A1D ? 1 : geom == TG_2D || geom == TG_A2D ? 2 : 3;
    int layered = geom == TG_A1D || geom == TG_A2D || geom == TG_ACUBE;
    int cube = geom == TG_CUBE || geom == TG_ACUBE;
    LANES(m) {
        int l = L;
        const struct ptx_tex *t = resolve(b, w, l, in, lane_val(R, in->a, l), 0);
        if (!t) return -1;
        int want = cube ? 2 : naxes;
        if (cube != t->cubemap || layered != t->layered || (!cube && want != t->dims)) {
            ex_fail_at(b, w, l, in, PTX_E_TRAP, "%s on a %dD%s%s texture object", ex_name(b, in), t->dims,
                       t->layered ? " layered" : "", t->cubemap ? " cubemap" : "");
            return -1;
        }
        int slots[3] = { in->b, in->c, in->e };
        float u[3] = { 0, 0, 0 };
        int64_t ly = 0;
        if (layered) {
            int64_t li = (int32_t)lane_val(R, in->d2, l);
            int64_t nl = (int64_t)(cube ? t->layers / 6 : t->layers);
            ly = li < 0 ? 0 : li >= nl ? nl - 1 : li;
        }
        float v[4];
        if (cube) {
            float s, tt;
            int face = cube_face(F32(lane_val(R, slots[0], l)), F32(lane_val(R, slots[1], l)),
                                 F32(lane_val(R, slots[2], l)), &s, &tt);
            u[0] = s * (float)t->width, u[1] = tt * (float)t->height;
            struct ptx_tex f = *t;
            f.addr[0] = f.addr[1] = PTX_ADDR_CLAMP;
            sample(&f, 2, u, ly * 6 + face, fl, t->filter_linear && fl, v);
        } else if (ints) {
            int64_t idx[3] = { 0, 0, 0 };
            int border = 0;
            int64_t n[3] = { (int64_t)t->width, (int64_t)t->height, (int64_t)t->depth };
            for (int k = 0; k < naxes; k++) {
                int64_t i = (int32_t)lane_val(R, slots[k], l);
                if (t->linear_res) {
                    if (i < 0 || i >= n[k]) border = 2;
                    idx[k] = i;
                } else {
                    idx[k] = address(i, n[k], t->addr[k], 0);
                    if (idx[k] < 0) border = 1, idx[k] = 0;
                }
            }
            if (border == 2)
                for (int c = 0; c < 4; c++) v[c] = 0.0f;
            else
                texel(t, border, idx[0], idx[1], idx[2], ly * (int64_t)(t->layered ? 1 : 0), fl, v);
        } else {
            float sc[3] = { (float)t->width, (float)t->height, (float)t->depth };
            for (int k = 0; k < naxes; k++) {
                float x = F32(lane_val(R, slots[k], l));
                u[k] = t->norm_coords ? x * sc[k] : x;
            }
            sample(t, naxes, u, ly, fl, t->filter_linear && fl, v);
        }
        for (int c = 0; c < 4; c++) {
            uint64_t bits = UF32(v[c]);
            if (in->type == T_S32) bits = (uint64_t)(int64_t)(int32_t)(uint32_t)bits;
            put(R, in->vr[c], l, bits);
        }
    }
    return 0;
}

/* tld4: the four texels bilinear filtering would use, component comp of
 * each, in the order the PTX ISA gives: (i, j+1), (i+1, j+1), (i+1, j),
 * (i, j) */
static int ex_tld4(struct blk *b, struct warp *w, const struct ir_ins *in, uint32_t m, uint64_t *R)
{
    int fl = in->type == T_F32;
    LANES(m) {
        int l = L;
        const struct ptx_tex *t = resolve(b, w, l, in, lane_val(R, in->a, l), 0);
        if (!t) return -1;
        if (t->dims != 2 || t->layered || t->cubemap) {
            ex_fail_at(b, w, l, in, PTX_E_TRAP, "%s on a texture object that is not 2-D", ex_name(b, in));
            return -1;
        }
        float x = F32(lane_val(R, in->b, l)), y = F32(lane_val(R, in->c, l));
        if (t->norm_coords) x *= (float)t->width, y *= (float)t->height;
        int64_t i = ifloor(x - 0.5f), j = ifloor(y - 0.5f);
        static const int di[4] = { 0, 1, 1, 0 }, dj[4] = { 1, 1, 0, 0 };
        for (int k = 0; k < 4; k++) {
            int64_t xi = address(i + di[k], (int64_t)t->width, t->addr[0], t->norm_coords);
            int64_t yj = address(j + dj[k], (int64_t)t->height, t->addr[1], t->norm_coords);
            float v[4];
            texel(t, xi < 0 || yj < 0, xi < 0 ? 0 : xi, yj < 0 ? 0 : yj, 0, 0, fl, v);
            uint64_t bits = UF32(v[in->sub2]);
            if (in->type == T_S32) bits = (uint64_t)(int64_t)(int32_t)(uint32_t)bits;
            put(R, in->vr[k], l, bits);
        }
    }
    return 0;
}

static int ex_txq(struct blk *b, struct warp *w, const struct ir_ins *in, uint32_t m, uint64_t *R)
{
    int surface = in->op == OP_SUQ;
    LANES(m) {
        int l = L;
        const struct ptx_tex *t = resolve(b, w, l, in, lane_val(R, in->a, l), surface);
        if (!t) return -1;
        uint64_t v = 0;
        switch (in->sub) {
        case TQ_WIDTH: v = t->width; break;
        case TQ_HEIGHT: v = t->height; break;
        case TQ_DEPTH: v = t->depth; break;
        case TQ_NORM_COORDS: v = (uint64_t)t->norm_coords; break;
        case TQ_FILTER: v = (uint64_t)t->filter_linear; break;
        case TQ_ADDR0: case TQ_ADDR1: case TQ_ADDR2: v = (uint64_t)t->addr[in->sub - TQ_ADDR0]; break;
        case TQ_ARRAY_SIZE: v = t->layered ? (t->cubemap ? t->layers / 6 : t->layers) : 0; break;
        case TQ_MIP_LEVELS: v = t->levels; break;
        case TQ_SAMPLES: v = 0; break;
        case TQ_LAYOUT: v = !t->linear_res && t->pitch == t->width * fmt_size(t->fmt) * (uint64_t)t->nch; break;
        default: break;
        }
        put(R, in->d, l, (uint32_t)v);
    }
    return 0;
}

/* suld.b / sust.b: x in bytes, y and z in elements */
static int ex_surf(struct blk *b, struct warp *w, const struct ir_ins *in, uint32_t m, uint64_t *R)
{
    int geom = in->sub, st = in->op == OP_SUST, mode = in->sub2;
    unsigned es = ir_type_size(in->type), n = es * in->vec;
    int naxes = geom == TG_1D || geom == TG_A1D ? 1 : geom == TG_2D || geom == TG_A2D ? 2 : 3;
    int layered = geom == TG_A1D || geom == TG_A2D;
    LANES(m) {
        int l = L;
        const struct ptx_tex *t = resolve(b, w, l, in, lane_val(R, in->a, l), 1);
        if (!t) return -1;
        /* a cubemap's faces are layers to a surface (surfCubemap* use .a2d) */
        if (layered != (t->layered || t->cubemap) || naxes != (t->cubemap ? 2 : t->dims)) {
            ex_fail_at(b, w, l, in, PTX_E_TRAP, "%s on a %dD%s surface object", ex_name(b, in), t->dims,
                       t->layered ? " layered" : "");
            return -1;
        }
        uint64_t rowbytes = t->width * fmt_size(t->fmt) * (uint64_t)t->nch;
        int64_t c[4] = { (int32_t)lane_val(R, in->b, l), (int32_t)lane_val(R, in->c, l),
                         (int32_t)lane_val(R, in->e, l), layered ? (int32_t)lane_val(R, in->d2, l) : 0 };
        int64_t lim[4] = { (int64_t)rowbytes - (int64_t)n, (int64_t)t->height - 1, (int64_t)t->depth - 1,
                           (int64_t)t->layers - 1 };
        if (naxes < 2) c[1] = 0;
        if (naxes < 3) c[2] = 0;
        int out = 0;
        for (int k = 0; k < 4; k++)
            if (c[k] < 0 || c[k] > lim[k]) out = 1;
        if (c[0] % (int64_t)n != 0 && !out) {
            ex_fail_at(b, w, l, in, PTX_E_MISALIGNED, "%s: x %lld bytes is not a multiple of the access (%u bytes)",
                       ex_name(b, in), (long long)c[0], n);
            return -1;
        }
        if (out) {
            if (mode == SU_TRAP) {
                ex_fail_at(b, w, l, in, PTX_E_ADDRESS, "%s: (%lld, %lld, %lld) layer %lld is outside the "
                           "%llux%llux%llu surface (x in bytes, %llu a row)", ex_name(b, in), (long long)c[0],
                           (long long)c[1], (long long)c[2], (long long)c[3], (unsigned long long)t->width,
                           (unsigned long long)t->height, (unsigned long long)t->depth,
                           (unsigned long long)rowbytes);
                return -1;
            }
            if (mode == SU_ZERO) {
                if (!st)
                    for (int i = 0; i < in->vec; i++) put(R, in->vr[i], l, 0);
                continue;
            }
            for (int k = 0; k < 4; k++) c[k] = c[k] < 0 ? 0 : c[k] > lim[k] ? lim[k] : c[k];
            c[0] -= c[0] % (int64_t)n;
            if (c[0] < 0) continue; /* the access is wider than a row */
        }
        unsigned char *p = t->base + (uint64_t)(c[3] + c[2]) * t->slice + (uint64_t)c[1] * t->pitch + (uint64_t)c[0];
        for (int i = 0; i < in->vec; i++, p += es) {
            if (st) {
                uint64_t v = lane_val(R, in->vr[i], l);
                memcpy(p, &v, es); /* little-endian: the low bytes */
            } else {
                uint64_t v = 0;
                memcpy(&v, p, es);
                put(R, in->vr[i], l, v);
            }
        }
    }
    return 0;
}

ex_fn ex_tex_select(const struct ir_ins *in)
{
    switch (in->op) {
    case OP_TEX: return ex_tex;
    case OP_TLD4: return ex_tld4;
    case OP_TXQ: case OP_SUQ: return ex_txq;
    case OP_SULD: case OP_SUST: return ex_surf;
    default: return NULL;
    }
}
