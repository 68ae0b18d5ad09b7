/* SPDX-License-Identifier: Apache-2.0 */
/* Decoding a call record: one generic loop prints any entry point from its
 * descriptor in the API table (OpenBSD kdump's shape), with the
 * structures of src/api/structs.api printed field by field from the bytes
 * the shim copied (strace's print_fields), a launch as kernel<<<...>>>(args),
 * handles by name and device pointers in their allocations.
 *
 * The record comes from the traced program, so every length is checked;
 * what cannot be shown is printed raw: a structure whose bytes are not in
 * the record prints as its address. */
#include <stdio.h>
#include <string.h>

#include "demangle.h"
#include "exptab.h"
#include "ledger.h"
#include "names.h"
#include "tdtrace.h"
#include "xlat.h"

#define ARRAY_ABBREV 16  /* elements of an array shown when abbreviated */
#define STRUCT_DEPTH 6

/* ---- values -------------------------------------------------------------- */

/* how one value prints: a parameter, a structure's field, an element */
struct vdesc { unsigned char kind, size, xlat, hclass; };

static unsigned long long truncate_to(unsigned long long v, unsigned size)
{
    return size >= 8 ? v : v & ((1ULL << (size * 8)) - 1);
}

static void print_flags(struct tp *p, enum td_xlat_id x, unsigned long long v)
{
    const struct td_xlat *t = &td_xlats[x];
    const char *names[64];
    int n = 0;
    unsigned long long rest = v;
    if (v == 0) {
        const char *z = td_xlat_name(x, 0);
        if (z) {
            tp_sym_or_num(p, z, 0);
            return;
        }
    }
    for (int i = 0; i < t->n && n < 64; i++) {
        unsigned long long f = t->v[i].value;
        if (f && !(f & (f - 1)) && (rest & f)) {
            names[n++] = t->v[i].name;
            rest &= ~f;
        }
    }
    tp_flags(p, names, n, rest, v);
}

/* a device address, and in text the allocation it lies in */
static void print_dptr(struct tp *p, const struct td_dec *d, unsigned long long v)
{
    tp_ptr(p, v);
    if (p->fmt != TP_TEXT || !d->names || !v)
        return;
    unsigned long long num, base, size;
    if (td_ledger_find(d->pid, v, &num, &base, &size) == 0) {
        if (v == base)
            tp_rawf(p, " (alloc#%llu)", num);
        else
            tp_rawf(p, " (alloc#%llu+%#llx)", num, v - base);
    } else if (d->before_attach) {
        tp_rawf(p, " (allocated before attach)");
    }
}

static void print_handle(struct tp *p, const struct td_dec *d, int hclass, unsigned long long v)
{
    char buf[300];
    const char *nm = p->fmt == TP_TEXT && d->names ? td_names_get(d->pid, hclass, v, buf, sizeof(buf)) : NULL;
    if (nm)
        tp_raw(p, nm);
    else
        tp_ptr(p, v);
}

static void print_value(struct tp *p, const struct td_dec *d, const struct vdesc *vd, unsigned long long v)
{
    v = truncate_to(v, vd->size);
    switch ((enum td_kind)vd->kind) {
    case TD_K_INT:
        tp_int(p, vd->size == 4 ? (long long)(int32_t)v
                  : vd->size == 2 ? (long long)(int16_t)v
                  : vd->size == 1 ? (long long)(int8_t)v : (long long)v);
        break;
    case TD_K_UINT:
        tp_uint(p, v);
        break;
    case TD_K_SIZE:
        tp_size(p, v);
        break;
    case TD_K_HEX:
        tp_hex(p, v);
        break;
    case TD_K_DPTR:
        print_dptr(p, d, v);
        break;
    case TD_K_PTR:
    case TD_K_STR:
        tp_ptr(p, v);
        break;
    case TD_K_HANDLE:
        print_handle(p, d, vd->hclass, v);
        break;
    case TD_K_STREAM:
        if (v == 1)
            tp_sym(p, "CU_STREAM_LEGACY");
        else if (v == 2)
            tp_sym(p, "CU_STREAM_PER_THREAD");
        else
            print_handle(p, d, vd->hclass, v);
        break;
    case TD_K_FLOAT: {
        uint32_t u = (uint32_t)v;
        float f;
        memcpy(&f, &u, sizeof(f));
        tp_double(p, f);
        break;
    }
    case TD_K_ENUM:
    case TD_K_RESULT:
        tp_sym_or_num(p, td_xlat_name((enum td_xlat_id)vd->xlat, v), v);
        break;
    case TD_K_FLAGS:
        print_flags(p, (enum td_xlat_id)vd->xlat, v);
        break;
    case TD_K_UUID:
    case TD_K_BLOB:
    case TD_K_STRUCT:
    case TD_K_DIM3:
        tp_hex(p, v);
        break;
    case TD_K_MEMLOC:
        tp_struct_begin(p);
        tp_field(p, "type");
        tp_sym_or_num(p, td_xlat_name(TD_X_CUmemLocationType, v & 0xffffffffu), v & 0xffffffffu);
        tp_field(p, "id");
        tp_int(p, (int32_t)(v >> 32));
        tp_struct_end(p);
        break;
    }
}

static void print_uuid(struct tp *p, const unsigned char *b)
{
    char s[48];
    snprintf(s, sizeof(s), "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
             b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
    tp_sym(p, s);
}

/* a value of vd->size bytes at b */
static void print_bytes_value(struct tp *p, const struct td_dec *d, const struct vdesc *vd,
                              const unsigned char *b, size_t n)
{
    if (vd->kind == TD_K_UUID && n >= 16) {
        print_uuid(p, b);
        return;
    }
    if (vd->kind == TD_K_DIM3 && n == 12) { /* {x, y, z} */
        uint32_t v[3];
        memcpy(v, b, sizeof(v));
        static const char *const xyz[3] = { "x", "y", "z" };
        tp_struct_begin(p);
        for (int k = 0; k < 3; k++) {
            tp_field(p, xyz[k]);
            tp_uint(p, v[k]);
        }
        tp_struct_end(p);
        return;
    }
    if (vd->kind == TD_K_BLOB || vd->kind == TD_K_UUID || n > 8) {
        tp_bytes(p, b, n);
        return;
    }
    unsigned long long v = 0;
    memcpy(&v, b, n);
    print_value(p, d, vd, v);
}

/* ---- structures ----------------------------------------------------------- */

static void print_elems(struct tp *p, const struct td_dec *d, const struct td_rec *rec, uint32_t len,
                        unsigned sid, uint64_t addr, uint64_t count, int depth);

static void print_struct(struct tp *p, const struct td_dec *d, const struct td_rec *rec, uint32_t len,
                         unsigned sid, const unsigned char *base, size_t blen, int depth);

/* field i of st (a union's member, or the scalar of an array element) */
static void print_field_value(struct tp *p, const struct td_dec *d, const struct td_rec *rec, uint32_t len,
                              const struct td_struct *st, int i, const unsigned char *base, size_t blen,
                              int depth)
{
    const struct td_field *f = &st->fields[i];
    if (f->flags & TD_FF_FOLLOW) {
        uint64_t ptr = td_read_uint(base, blen, f->offset, 8);
        uint64_t n = f->countf >= 0 ? td_field_uint(st, f->countf, base, blen) : f->fcount;
        print_elems(p, d, rec, len, f->sub, ptr, n, depth + 1);
        return;
    }
    int arr = f->count > 1;
    if (arr)
        tp_array_begin(p);
    for (unsigned k = 0; k < f->count; k++) {
        if (arr)
            tp_elem(p);
        size_t at = f->offset + (size_t)k * f->size;
        if (at > blen || f->size > blen - at) {
            tp_more(p);
            break;
        }
        if (f->kind == TD_K_STRUCT) {
            const struct td_struct *sub = &td_structs[f->sub];
            if (sub->kind == TD_SK_UNION) { /* the member its tag chooses */
                int m = f->cond >= 0 ? td_union_member(sub, (long long)td_field_uint(st, f->cond, base, blen)) : -1;
                tp_struct_begin(p);
                if (m >= 0) {
                    tp_field(p, sub->fields[m].name);
                    print_field_value(p, d, rec, len, sub, m, base + at, blen - at, depth + 1);
                }
                tp_struct_end(p);
            } else {
                print_struct(p, d, rec, len, f->sub, base + at, blen - at, depth + 1);
            }
        } else {
            struct vdesc vd = { f->kind, (unsigned char)f->size, f->xlat, f->hclass };
            print_bytes_value(p, d, &vd, base + at, f->size);
        }
    }
    if (arr)
        tp_array_end(p);
}

/* the fields of st at base, into the open { } of the caller */
static void print_fields(struct tp *p, const struct td_dec *d, const struct td_rec *rec, uint32_t len,
                         const struct td_struct *st, const unsigned char *base, size_t blen, int depth)
{
    for (int i = 0; i < st->nfields; i++) {
        const struct td_field *f = &st->fields[i];
        if (f->flags & TD_FF_HIDDEN)
            continue;
        if (d->abbrev && p->fmt == TP_TEXT && !td_field_shown(st, i, base, blen))
            continue;
        if (!f->name) { /* an anonymous union: its chosen member's fields here */
            const struct td_struct *u = &td_structs[f->sub];
            int m = f->cond >= 0 ? td_union_member(u, (long long)td_field_uint(st, f->cond, base, blen)) : -1;
            if (m >= 0 && f->offset <= blen) {
                tp_field(p, u->fields[m].name);
                print_field_value(p, d, rec, len, u, m, base + f->offset, blen - f->offset, depth + 1);
            }
            continue;
        }
        tp_field(p, f->name);
        print_field_value(p, d, rec, len, st, i, base, blen, depth);
    }
}

static void print_struct(struct tp *p, const struct td_dec *d, const struct td_rec *rec, uint32_t len,
                         unsigned sid, const unsigned char *base, size_t blen, int depth)
{
    const struct td_struct *st = &td_structs[sid];
    if (depth > STRUCT_DEPTH) {
        tp_struct_begin(p);
        tp_more(p);
        tp_struct_end(p);
        return;
    }
    if (st->kind == TD_SK_SCALAR) {
        print_field_value(p, d, rec, len, st, 0, base, blen, depth);
        return;
    }
    tp_struct_begin(p);
    if (st->kind == TD_SK_SELFTAG) {
        int m = td_union_member(st, (long long)td_read_uint(base, blen, 0, 4));
        if (m >= 0) {
            tp_field(p, st->fields[m].name);
            print_field_value(p, d, rec, len, st, m, base, blen, depth + 1);
        } else {
            tp_field(p, "operation");
            tp_uint(p, td_read_uint(base, blen, 0, 4));
        }
    } else {
        print_fields(p, d, rec, len, st, base, blen, depth);
    }
    tp_struct_end(p);
}

/* count elements of sid at addr, from the record's copy: {...} for one,
 * [...] for an array; the address where the record has no copy */
static void print_elems(struct tp *p, const struct td_dec *d, const struct td_rec *rec, uint32_t len,
                        unsigned sid, uint64_t addr, uint64_t count, int depth)
{
    size_t size = td_structs[sid].size, avail = 0;
    const unsigned char *b = size && count ? td_rec_mem(rec, len, addr, size, &avail) : NULL;
    if (!b || depth > STRUCT_DEPTH) {
        tp_ptr(p, addr);
        return;
    }
    int one = count == 1 && td_structs[sid].kind != TD_SK_SCALAR;
    if (one) {
        print_struct(p, d, rec, len, sid, b, size, depth);
        return;
    }
    tp_array_begin(p);
    uint64_t shown = count;
    if (d->abbrev && p->fmt == TP_TEXT && shown > ARRAY_ABBREV)
        shown = ARRAY_ABBREV;
    uint64_t i = 0;
    for (; i < shown && (i + 1) * size <= avail; i++) {
        tp_elem(p);
        print_struct(p, d, rec, len, sid, b + i * size, size, depth);
    }
    if (i < count)
        tp_more(p);
    tp_array_end(p);
}

/* an option array: {OPTION=value, ...} with each value printed as its option says */
static void print_options(struct tp *p, const struct td_dec *d, const struct td_rec *rec, uint32_t len,
                          const struct td_param *par, const uint64_t *a, unsigned n)
{
    const struct td_opttable *t = &td_opttables[par->opttable];
    size_t avail_o = 0, avail_v = 0;
    const unsigned char *o = td_rec_mem(rec, len, a[0], 4, &avail_o);
    const unsigned char *v = td_rec_mem(rec, len, a[1], 8, &avail_v);
    if (!o) {
        tp_ptr(p, a[0]);
        return;
    }
    tp_struct_begin(p);
    unsigned shown = n;
    if (d->abbrev && p->fmt == TP_TEXT && shown > ARRAY_ABBREV)
        shown = ARRAY_ABBREV;
    unsigned i = 0;
    for (; i < shown && (i + 1) * 4 <= avail_o; i++) {
        uint32_t opt;
        memcpy(&opt, o + i * 4, 4);
        const char *name = td_xlat_name((enum td_xlat_id)t->xlat, opt);
        char num[24];
        snprintf(num, sizeof(num), "%u", opt);
        tp_field(p, name ? name : num);
        if (!v || (i + 1) * 8 > avail_v) {
            tp_sym(p, "?");
            continue;
        }
        uint64_t val;
        memcpy(&val, v + i * 8, 8);
        struct vdesc vd = { TD_K_UINT, 4, TD_X_NONE, TD_H_NONE };
        for (unsigned k = 0; k < t->n; k++)
            if ((uint32_t)t->v[k].option == opt) {
                vd.kind = t->v[k].kind;
                vd.xlat = t->v[k].xlat;
                vd.size = vd.kind == TD_K_PTR ? 8 : 4;
            }
        print_value(p, d, &vd, val);
    }
    if (i < n)
        tp_more(p);
    tp_struct_end(p);
}

/* ---- launches --------------------------------------------------------------- */

/* how a kernel argument prints, from its C type in the demangled name */
enum akind { AK_PTR, AK_INT, AK_UINT, AK_FLOAT, AK_DOUBLE, AK_BYTES };

static enum akind arg_kind(const char *type, unsigned size)
{
    size_t n = strlen(type);
    if (n && (type[n - 1] == '*' || strstr(type, "*restrict") || strstr(type, "* restrict") ||
              strstr(type, "__restrict")))
        return size == 8 ? AK_PTR : AK_BYTES;
    if (size > 8)
        return AK_BYTES;
    if (!strcmp(type, "float") && size == 4)
        return AK_FLOAT;
    if (!strcmp(type, "double") && size == 8)
        return AK_DOUBLE;
    if (!strcmp(type, "bool") || !strncmp(type, "unsigned ", 9))
        return AK_UINT;
    if (!strcmp(type, "int") || !strcmp(type, "long") || !strcmp(type, "long long") ||
        !strcmp(type, "short") || !strcmp(type, "char") || !strcmp(type, "signed char"))
        return AK_INT;
    return AK_BYTES;
}

/* without types (an extern "C" kernel): by size */
static enum akind arg_kind_by_size(unsigned size)
{
    return size == 8 ? AK_PTR : size == 4 ? AK_INT : AK_BYTES;
}

static void print_karg(struct tp *p, const struct td_dec *d, enum akind k, const unsigned char *b,
                       unsigned size)
{
    unsigned long long v = 0;
    if (size <= 8)
        memcpy(&v, b, size);
    switch (k) {
    case AK_PTR: {
        struct vdesc vd = { TD_K_DPTR, 8, TD_X_NONE, TD_H_NONE };
        print_value(p, d, &vd, v);
        break;
    }
    case AK_INT:
        tp_int(p, size == 4 ? (long long)(int32_t)v : size == 2 ? (long long)(int16_t)v
                  : size == 1 ? (long long)(int8_t)v : (long long)v);
        break;
    case AK_UINT:
        tp_uint(p, v);
        break;
    case AK_FLOAT: {
        float f;
        memcpy(&f, b, 4);
        tp_double(p, f);
        break;
    }
    case AK_DOUBLE: {
        double f;
        memcpy(&f, b, 8);
        tp_double(p, f);
        break;
    }
    case AK_BYTES:
        tp_bytes(p, b, size);
        break;
    }
}

/* the kernel a launch runs: add_one(float*, int), else its handle; JSON: an
 * object with the handle, the name and the mangled name */
static void print_kernel(struct tp *p, const struct td_dec *d, const struct td_rec *rec, uint32_t len,
                         const struct td_fn_info *info, const uint64_t *a)
{
    const struct td_item *ni = td_rec_item(rec, len, info->kfunc, TD_IT_STR);
    char mangled[TD_STR_MAX + 1] = "", dem[1024];
    if (ni) {
        size_t n = ni->len < TD_STR_MAX ? ni->len : TD_STR_MAX;
        memcpy(mangled, ni + 1, n);
        mangled[n] = '\0';
        for (char *c = mangled; *c; c++)
            if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
                *c = '?';
    }
    const char *name = mangled[0] ? td_demangle(mangled, dem, sizeof(dem)) : NULL;
    if (p->fmt == TP_JSON) {
        tp_struct_begin(p);
        tp_field(p, "handle");
        tp_ptr(p, a[info->kfunc]);
        if (name) {
            tp_field(p, "kernel");
            tp_str(p, name, strlen(name), 0);
            tp_field(p, "mangled");
            tp_str(p, mangled, strlen(mangled), 0);
        }
        tp_struct_end(p);
        return;
    }
    if (name)
        tp_raw(p, name);
    else
        print_handle(p, d, TD_H_fn, a[info->kfunc]);
}

/* the arguments of the launch: (a, b, c) in text, [a, b, c] in JSON */
static void print_kargs(struct tp *p, const struct td_dec *d, const struct td_rec *rec, uint32_t len,
                        const struct td_fn_info *info, const uint64_t *a)
{
    struct td_kparams h;
    const struct td_item *it = td_rec_kparams(rec, len, info->kparams, &h);
    if (!it) {
        tp_ptr(p, a[info->kparams]);
        return;
    }
    const unsigned char *table = (const unsigned char *)(it + 1) + sizeof(h);
    const unsigned char *block = table + (((size_t)h.n * 4 + 7) & ~(size_t)7);
    /* the types, from the demangled name */
    char types[TD_KPARAMS_MAX][64];
    int ntypes = -1;
    const struct td_item *ni = td_rec_item(rec, len, info->kfunc, TD_IT_STR);
    if (ni) {
        char mangled[TD_STR_MAX + 1], dem[1024];
        size_t n = ni->len < TD_STR_MAX ? ni->len : TD_STR_MAX;
        memcpy(mangled, ni + 1, n);
        mangled[n] = '\0';
        const char *dn = td_demangle(mangled, dem, sizeof(dem));
        size_t s0, s1;
        if (dn != mangled)
            ntypes = td_demangled_params(dn, types, TD_KPARAMS_MAX, &s0, &s1);
    }
    if (p->fmt == TP_JSON)
        tp_array_begin(p);
    else
        tp_raw(p, "(");
    for (unsigned i = 0; i < h.n; i++) {
        uint16_t off, size;
        memcpy(&off, table + i * 4, 2);
        memcpy(&size, table + i * 4 + 2, 2);
        if (p->fmt == TP_JSON)
            tp_elem(p);
        else if (i)
            tp_raw(p, ", ");
        if ((size_t)off + size > h.bytes) {
            tp_sym(p, "?");
            continue;
        }
        print_karg(p, d, ntypes == (int)h.n ? arg_kind(types[i], size) : arg_kind_by_size(size),
                   block + off, size);
    }
    if ((h.flags & TD_KPF_MORE) || (it->flags & TD_ITF_TRUNCATED)) {
        if (p->fmt == TP_JSON)
            tp_more(p);
        else
            tp_raw(p, h.n ? ", ..." : "...");
    }
    if (p->fmt == TP_JSON)
        tp_array_end(p);
    else
        tp_raw(p, ")");
}

static int param_named(const struct td_fn_info *info, const char *name)
{
    for (int i = 0; i < info->nparams; i++)
        if (strcmp(info->params[i].name, name) == 0)
            return i;
    return -1;
}

/* text: NAME<<<(gx,gy,gz), (bx,by,bz), N B shared, STREAM[, attrs=[...]]>>>(ARGS) from
 * the launch's parameters or its CUlaunchConfig; 0 if it cannot */
static int print_launch(struct tp *p, const struct td_dec *d, const struct td_rec *rec, uint32_t len,
                        const struct td_fn_info *info, const uint64_t *a)
{
    static const char *const names[] = { "gridDimX", "gridDimY", "gridDimZ", "blockDimX", "blockDimY",
                                         "blockDimZ", "sharedMemBytes", "hStream" };
    uint64_t v[8];
    const unsigned char *cfg = NULL;
    int cfgp = param_named(info, "config");
    const struct td_struct *cst = NULL;
    if (cfgp >= 0 && info->params[cfgp].sid) {
        cst = &td_structs[info->params[cfgp].sid];
        cfg = td_rec_mem(rec, len, a[cfgp], cst->size, NULL);
        if (!cfg)
            return 0;
    }
    for (int i = 0; i < 8; i++) {
        if (cfg) {
            int k = -1;
            for (int j = 0; j < cst->nfields; j++)
                if (cst->fields[j].name && !strcmp(cst->fields[j].name, names[i]))
                    k = j;
            if (k < 0)
                return 0;
            v[i] = td_field_uint(cst, k, cfg, cst->size);
        } else {
            int k = param_named(info, names[i]);
            if (k < 0)
                return 0;
            v[i] = a[k];
        }
    }
    print_kernel(p, d, rec, len, info, a);
    tp_rawf(p, "<<<(%u,%u,%u), (%u,%u,%u), ", (unsigned)v[0], (unsigned)v[1], (unsigned)v[2],
            (unsigned)v[3], (unsigned)v[4], (unsigned)v[5]);
    tp_size(p, (uint32_t)v[6]);
    tp_raw(p, " shared, ");
    struct vdesc sd = { TD_K_STREAM, 8, TD_X_NONE, TD_H_stream };
    print_value(p, d, &sd, v[7]);
    if (cfg) {
        int k = -1;
        for (int j = 0; j < cst->nfields; j++)
            if (cst->fields[j].name && !strcmp(cst->fields[j].name, "attrs"))
                k = j;
        if (k >= 0 && td_field_uint(cst, cst->fields[k].countf, cfg, cst->size)) {
            tp_raw(p, ", ");
            print_field_value(p, d, rec, len, cst, k, cfg, cst->size, 0);
        }
    }
    tp_raw(p, ">>>");
    print_kargs(p, d, rec, len, info, a);
    return 1;
}

/* ---- calls ------------------------------------------------------------------ */

static void print_str_item(struct tp *p, const struct td_item *it)
{
    size_t n = it->len;
    int trunc = (it->flags & TD_ITF_TRUNCATED) != 0;
    if (p->strsize >= 0 && n > (size_t)p->strsize) {
        n = (size_t)p->strsize;
        trunc = 1;
    }
    tp_str(p, (const char *)(it + 1), n, trunc);
}

/* a pointer argument to structures or an array of them */
static void print_pointee(struct tp *p, const struct td_dec *d, const struct td_rec *rec, uint32_t len,
                          const struct td_fn_info *info, int i, const uint64_t *a)
{
    const struct td_param *par = &info->params[i];
    long long n = par->countp >= 0 ? (long long)a[par->countp] + par->adj : par->count;
    if (par->countp >= 0 && info->params[par->countp].size == 4)
        n = (long long)(uint32_t)a[par->countp] + par->adj;
    if (par->valuesp >= 0 && par->opttable && n >= 0) {
        uint64_t pair[2] = { a[i], a[par->valuesp] };
        print_options(p, d, rec, len, par, pair, (unsigned)n);
        return;
    }
    if (par->tagp >= 0) { /* a union its tag parameter chooses the member of */
        const struct td_struct *u = &td_structs[par->sid];
        const unsigned char *b = td_rec_mem(rec, len, a[i], u->size, NULL);
        int m = b ? td_union_member(u, (long long)(uint32_t)a[par->tagp]) : -1;
        if (!b || m < 0) {
            tp_ptr(p, a[i]);
            return;
        }
        tp_struct_begin(p);
        tp_field(p, u->fields[m].name);
        print_field_value(p, d, rec, len, u, m, b, u->size, 1);
        tp_struct_end(p);
        return;
    }
    if (n <= 0) {
        tp_ptr(p, a[i]);
        return;
    }
    print_elems(p, d, rec, len, par->sid, a[i], (uint64_t)n, 0);
}

void td_print_call(struct tp *p, const struct td_rec *rec, uint32_t len, const struct td_dec *d)
{
    if (rec->fn >= TD_FN__COUNT || len < sizeof(*rec)) {
        tp_call_begin(p, "?");
        tp_call_end(p, rec->result, NULL);
        return;
    }
    const struct td_fn_info *info = &td_fns[rec->fn];
    struct td_libview lv;
    char lname[TD_STR_MAX + 1];
    if (rec->fn == TD_FN_LIB_call && td_rec_lib(rec, len, &lv) && lv.fn_len) { /* -e lib=: its own name */
        snprintf(lname, sizeof(lname), "%.*s", (int)lv.fn_len, lv.fn);
        tp_call_begin(p, lname);
    } else {
        tp_call_begin(p, info->name);
    }
    int nargs = rec->nargs == info->nparams && td_rec_args_end(rec) <= len ? rec->nargs : -1;
    const uint64_t *a = (const uint64_t *)(rec + 1);
    if (nargs < 0) {
        tp_arg(p, "record");
        tp_sym(p, "<corrupt>");
    }
    if (nargs >= 0 && !d->raw && info->kparams >= 0 && p->fmt == TP_TEXT) {
        struct tp_mark m = tp_mark(p);
        tp_arg(p, "launch");
        if (print_launch(p, d, rec, len, info, a))
            nargs = -1; /* printed */
        else /* no configuration to show it by: the parameters one by one */
            tp_rewind(p, &m);
    }
    for (int i = 0; i < nargs; i++) {
        const struct td_param *par = &info->params[i];
        tp_arg(p, par->name);
        struct vdesc vd = { par->kind, par->size, par->xlat, par->hclass };
        const struct td_item *it;
        if (d->raw) {
            tp_hex(p, a[i]);
            continue;
        }
        if (info->kfunc == i && p->fmt == TP_JSON) {
            print_kernel(p, d, rec, len, info, a);
            continue;
        }
        if (info->kparams == i) {
            print_kargs(p, d, rec, len, info, a);
            continue;
        }
        if (par->sid && d->structs && (par->role != TD_R_OUT || rec->result == 0)) {
            print_pointee(p, d, rec, len, info, i, a);
            continue;
        }
        switch ((enum td_role)par->role) {
        case TD_R_IN:
            print_value(p, d, &vd, a[i]);
            break;
        case TD_R_OUT:
            if ((it = td_rec_item(rec, len, i, TD_IT_OUT)) != NULL) {
                tp_out_begin(p);
                print_bytes_value(p, d, &vd, (const unsigned char *)(it + 1), it->len);
                tp_out_end(p);
            } else {
                tp_ptr(p, a[i]);
            }
            break;
        case TD_R_INP:
            if ((it = td_rec_item(rec, len, i, TD_IT_OUT)) != NULL) {
                int t = par->kind == TD_K_UUID && it->len == 16 ? td_exptab_find((const unsigned char *)(it + 1)) : -1;
                if (t >= 0)
                    tp_sym(p, td_exptabs[t].name);
                else
                    print_bytes_value(p, d, &vd, (const unsigned char *)(it + 1), it->len);
            } else {
                tp_ptr(p, a[i]);
            }
            break;
        case TD_R_STR:
        case TD_R_OUTSTR:
            if ((it = td_rec_item(rec, len, i, TD_IT_STR)) != NULL)
                print_str_item(p, it);
            else
                tp_ptr(p, a[i]);
            break;
        case TD_R_OUTPSTR:
            if ((it = td_rec_item(rec, len, i, TD_IT_STR)) != NULL) {
                tp_out_begin(p);
                print_str_item(p, it);
                tp_out_end(p);
            } else {
                tp_ptr(p, a[i]);
            }
            break;
        }
    }
    unsigned r = (unsigned)rec->result;
    if (info->ret == TD_RET_VOID) {
        tp_call_end_void(p);
        return;
    }
    if (info->ret == TD_RET_U32) {
        tp_call_end(p, r, NULL);
        return;
    }
    if (info->ret == TD_RET_CUDART) { /* cudaError_t */
        tp_call_end(p, r, td_xlat_name(TD_X_cudaError_t, r));
        return;
    }
    if (info->ret == TD_RET_XLAT) { /* a library's status (libs.api) */
        tp_call_end(p, r, td_xlat_name(info->ret_xlat, r));
        return;
    }
    tp_call_end(p, r, td_result_name(r));
    if (d->explain && r != 0) {
        const char *text = td_xlat_text(TD_X_CUresult, r);
        if (text && p->fmt == TP_TEXT)
            tp_rawf(p, " (%s)", text);
    }
}
