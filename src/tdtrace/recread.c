/* SPDX-License-Identifier: Apache-2.0 */
/* Reading a call record from a traced process's ring: is it well formed
 * (td_rec_check), and its items found by argument and kind, every length
 * checked (the record comes from the program, which may have written it
 * on purpose). The printers (decode.c), the ledger and the names read
 * records through these only. */
#include <stdio.h>
#include <string.h>

#include "pyframes.h"
#include "tdtrace.h"

size_t td_rec_args_end(const struct td_rec *rec)
{
    return sizeof(*rec) + (size_t)rec->nargs * 8;
}

const struct td_item *td_rec_item(const struct td_rec *rec, uint32_t len, int arg, int kind)
{
    size_t off = td_rec_args_end(rec);
    for (unsigned i = 0; i < rec->nitems; i++) {
        if (off + sizeof(struct td_item) > len)
            return NULL;
        const struct td_item *it = (const struct td_item *)((const unsigned char *)rec + off);
        size_t body = ((size_t)it->len + 7) & ~(size_t)7;
        if (off + sizeof(*it) + body > len)
            return NULL;
        if ((int)it->arg == arg && (int)it->kind == kind)
            return it;
        off += sizeof(*it) + body;
    }
    return NULL;
}

const unsigned char *td_rec_mem(const struct td_rec *rec, uint32_t len, uint64_t addr, size_t need,
                                size_t *avail)
{
    size_t off = td_rec_args_end(rec);
    for (unsigned i = 0; i < rec->nitems && addr; i++) {
        if (off + sizeof(struct td_item) > len)
            return NULL;
        const struct td_item *it = (const struct td_item *)((const unsigned char *)rec + off);
        size_t body = ((size_t)it->len + 7) & ~(size_t)7;
        if (off + sizeof(*it) + body > len)
            return NULL;
        if (it->kind == TD_IT_MEM && it->len >= 8) {
            uint64_t base;
            memcpy(&base, it + 1, 8);
            size_t n = it->len - 8u;
            if (addr >= base && addr - base <= n && n - (addr - base) >= need) {
                if (avail)
                    *avail = n - (size_t)(addr - base);
                return (const unsigned char *)(it + 1) + 8 + (addr - base);
            }
        }
        off += sizeof(*it) + body;
    }
    return NULL;
}

/* the kernel's arguments item, checked: header, table and block inside it */
const struct td_item *td_rec_kparams(const struct td_rec *rec, uint32_t len, int arg, struct td_kparams *h)
{
    const struct td_item *it = td_rec_item(rec, len, arg, TD_IT_KPARAMS);
    if (!it || it->len < sizeof(*h))
        return NULL;
    memcpy(h, it + 1, sizeof(*h));
    size_t table = ((size_t)h->n * 4 + 7) & ~(size_t)7;
    if (h->n > TD_KPARAMS_MAX || sizeof(*h) + table + h->bytes != it->len)
        return NULL;
    return it;
}

/* one string of a frames item: inside the strings, with its NUL there */
static int py_str_ok(const char *str, uint32_t nstr, uint32_t off)
{
    return off < nstr && memchr(str + off, 0, nstr - off) != NULL;
}

int td_rec_py(const struct td_rec *rec, uint32_t len, struct td_pyview *v, char *why, size_t n)
{
    const struct td_item *it = td_rec_item(rec, len, 0, TD_IT_PYFRAMES);
    if (!it)
        return 0;
    struct td_pyitem h;
    if (it->len < sizeof(h)) {
        snprintf(why, n, "Python frames item of %u bytes", it->len);
        return -1;
    }
    memcpy(&h, it + 1, sizeof(h));
    if (h.n < 1 || h.n > TD_PY_FRAMES_MAX || h.more > 1 || h.status > TD_PYS_NOREAD) {
        snprintf(why, n, "Python frames item with %u frames, status %u, more %u", h.n, h.status, h.more);
        return -1;
    }
    size_t frames = (size_t)h.n * sizeof(struct td_pyrecframe);
    if (sizeof(h) + frames + h.nstr != it->len) {
        snprintf(why, n, "Python frames item of %u bytes for %u frames and %u bytes of strings", it->len, h.n,
                 h.nstr);
        return -1;
    }
    const unsigned char *d = (const unsigned char *)(it + 1) + sizeof(h);
    v->n = h.n;
    v->more = h.more;
    v->str = (const char *)d + frames;
    memcpy(v->fr, d, frames);
    for (unsigned i = 0; i < h.n; i++) {
        const struct td_pyrecframe *f = &v->fr[i];
        if (!py_str_ok(v->str, h.nstr, f->file) || !py_str_ok(v->str, h.nstr, f->func)) {
            snprintf(why, n, "Python frame %u: a string outside the item or without its end", i);
            return -1;
        }
        if (f->line < -1 || (f->flags & ~(unsigned)(TD_PYF_FILE_CUT | TD_PYF_FUNC_CUT | TD_PYF_QUALNAME)) ||
            (i && f->group < v->fr[i - 1].group)) {
            snprintf(why, n, "Python frame %u: line %d, flags %#x, group %u", i, f->line, f->flags, f->group);
            return -1;
        }
    }
    return 1;
}

static int corr_ok(uint64_t corr)
{
    return corr > 0 && corr < (1ULL << 53);
}

/* where a kernel or other work ran, and which call queued it: indexes the
 * timeline and the summary use (-1 with why) */
static int place_check(const struct td_rec *rec, const struct td_item *it, char *why, size_t n)
{
    uint32_t device;
    uint64_t stream, corr;
    if (rec->fn == TD_EV_KERNEL) {
        struct td_ev_kernel k;
        memcpy(&k, it + 1, sizeof(k));
        device = k.device, stream = k.stream, corr = k.corr;
    } else if (rec->fn == TD_EV_DEVOP) {
        struct td_ev_devop o;
        memcpy(&o, it + 1, sizeof(o));
        if (o.kind < TD_DOP_MEMCPY || o.kind > TD_DOP_MEMOP || o.dir >= TD_DIR__COUNT) {
            snprintf(why, n, "device work of kind %u, direction %u", o.kind, o.dir);
            return -1;
        }
        device = o.device, stream = o.stream, corr = o.corr;
    } else {
        return 0;
    }
    if (device >= TD_MAX_DEVICES || stream >= TD_MAX_STREAM || (corr && !corr_ok(corr))) {
        snprintf(why, n, "device work on device %u, stream %llu, of call %llu", device, (unsigned long long)stream,
                 (unsigned long long)corr);
        return -1;
    }
    return 0;
}

int td_rec_nest(const struct td_rec *rec, uint32_t len, struct td_nest *n)
{
    const struct td_item *it = td_rec_item(rec, len, 0, TD_IT_NEST);
    if (!it || it->len != sizeof(*n))
        return 0;
    memcpy(n, it + 1, sizeof(*n));
    return 1;
}

int td_rec_lib(const struct td_rec *rec, uint32_t len, struct td_libview *v)
{
    const struct td_item *it = td_rec_item(rec, len, 0, TD_IT_LIB);
    struct td_libcall h;
    if (!it || it->len < sizeof(h))
        return 0;
    memcpy(&h, it + 1, sizeof(h));
    if ((size_t)it->len != sizeof(h) + (size_t)h.lib_len + h.fn_len + h.host_len)
        return 0;
    const char *s = (const char *)(it + 1) + sizeof(h);
    v->lib = s;
    v->lib_len = h.lib_len;
    v->fn = s + h.lib_len;
    v->fn_len = h.fn_len;
    v->host = v->fn + h.fn_len;
    v->host_len = h.host_len;
    return 1;
}

static int printable(const char *s, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f)
            return 0;
    return 1;
}

/* a library item that is what the shim writes (struct td_libcall in record.h) */
static int lib_ok(const struct td_rec *rec, uint32_t len, const struct td_item *it, char *why, size_t n)
{
    struct td_libview v;
    struct td_libcall h = { 0, 0, 0, 0 };
    if (it->len >= sizeof(h))
        memcpy(&h, it + 1, sizeof(h));
    if (TD_REC_TYPE(rec->word) != TD_REC_CALL || rec->fn < TD_FN__LIB_FIRST || it->arg != 0 ||
        td_rec_item(rec, len, 0, TD_IT_LIB) != it || !td_rec_lib(rec, len, &v) || h.pad) {
        snprintf(why, n, "a library item of %u bytes for argument %u of %s, or a second one", it->len, it->arg,
                 td_fns[rec->fn].name);
        return 0;
    }
    if (!v.lib_len || v.lib_len > TD_STR_MAX || v.fn_len > TD_STR_MAX || v.host_len > TD_STR_MAX ||
        (rec->fn == TD_FN_LIB_call) != (v.fn_len != 0) || !printable(v.lib, v.lib_len) ||
        !printable(v.fn, v.fn_len) || !printable(v.host, v.host_len)) {
        snprintf(why, n, "%s's library item: library %u bytes, function %u, host %u, or not printable",
                 td_fns[rec->fn].name, v.lib_len, v.fn_len, v.host_len);
        return 0;
    }
    return 1;
}

/* a nest item that is what the shim writes (struct td_nest in record.h) */
static int nest_ok(const struct td_rec *rec, uint32_t len, const struct td_item *it, char *why, size_t n)
{
    struct td_nest v;
    if (TD_REC_TYPE(rec->word) != TD_REC_CALL || it->arg != 0 || it->len != sizeof(v) ||
        td_rec_item(rec, len, 0, TD_IT_NEST) != it) {
        snprintf(why, n, "a nest item of %u bytes for argument %u, or a second one", it->len, it->arg);
        return 0;
    }
    memcpy(&v, it + 1, sizeof(v));
    int rt = rec->fn >= TD_FN__RT_FIRST;
    if (v.depth > TD_NEST_MAX || v.pad || (rt ? v.id == 0 || (v.depth == 0) != (v.parent == 0)
                                                : v.id != 0 || v.parent == 0 || v.depth == 0)) {
        snprintf(why, n, "%s nested with id %u, parent %u, depth %u", td_fns[rec->fn].name, v.id, v.parent,
                 v.depth);
        return 0;
    }
    return 1;
}

int td_rec_check(const struct td_rec *rec, uint32_t len, uint32_t pid, char *why, size_t n)
{
    if (len < sizeof(*rec) || len > TD_RING_MAXREC) {
        snprintf(why, n, "a record of %u bytes", len);
        return -1;
    }
    unsigned type = TD_REC_TYPE(rec->word);
    if (type != TD_REC_CALL && type != TD_REC_HELLO && type != TD_REC_EVENT) {
        snprintf(why, n, "record type %u", type);
        return -1;
    }
    if (rec->pid != pid) {
        snprintf(why, n, "the record claims pid %u", rec->pid);
        return -1;
    }
    unsigned nargs = rec->nargs;
    if (type == TD_REC_HELLO) {
        if (rec->fn > TD_BK_EMULATE || nargs) {
            snprintf(why, n, "a backend record with backend %u and %u arguments", rec->fn, nargs);
            return -1;
        }
    } else if (type == TD_REC_EVENT) {
        if ((rec->fn != TD_EV_REPORT && rec->fn != TD_EV_KERNEL && rec->fn != TD_EV_IMAGE &&
             rec->fn != TD_EV_DEVOP && rec->fn != TD_EV_WARNING) || nargs) {
            snprintf(why, n, "an event of kind %u with %u arguments", rec->fn, nargs);
            return -1;
        }
    } else {
        if (rec->fn >= TD_FN__COUNT) {
            snprintf(why, n, "function id %u is not a function", rec->fn);
            return -1;
        }
        if (nargs != td_fns[rec->fn].nparams) {
            snprintf(why, n, "%s with %u arguments, not %u", td_fns[rec->fn].name, nargs,
                     td_fns[rec->fn].nparams);
            return -1;
        }
        if (rec->verdict > TD_VD_REMAP || rec->applied > 1) {
            snprintf(why, n, "%s with policy verdict %u", td_fns[rec->fn].name, rec->verdict);
            return -1;
        }
    }
    /* the items must fill the record exactly */
    size_t off = td_rec_args_end(rec);
    for (unsigned i = 0; i < rec->nitems; i++) {
        const struct td_item *it = (const struct td_item *)((const unsigned char *)rec + off);
        if (off + sizeof(*it) > len || off + sizeof(*it) + (((size_t)it->len + 7) & ~(size_t)7) > len) {
            snprintf(why, n, "item %u runs past the record's end", i);
            return -1;
        }
        int arg_ok;
        switch (it->kind) {
        case TD_IT_TEXT: arg_ok = it->arg == 0 || it->arg == 0xff; break;
        case TD_IT_STACK: arg_ok = it->arg == 0 && !(it->len & 7); break;
        case TD_IT_OUT: arg_ok = it->arg < nargs; break;
        case TD_IT_STR: arg_ok = it->arg < nargs || (type == TD_REC_EVENT && it->arg <= 2); break;
        case TD_IT_MEM: arg_ok = it->arg < nargs && it->len >= 8; break;
        case TD_IT_KPARAMS: {
            struct td_kparams h;
            arg_ok = it->arg < nargs && it->arg == td_fns[rec->fn].kparams &&
                     td_rec_kparams(rec, len, it->arg, &h) == it;
            break;
        }
        case TD_IT_PYFRAMES: {
            struct td_pyview v;
            /* one per call record, whole */
            if (type != TD_REC_CALL || it->arg != 0 || td_rec_item(rec, len, 0, TD_IT_PYFRAMES) != it) {
                arg_ok = 0;
                break;
            }
            if (td_rec_py(rec, len, &v, why, n) < 0)
                return -1;
            arg_ok = 1;
            break;
        }
        case TD_IT_NEST:
            if (!nest_ok(rec, len, it, why, n))
                return -1;
            arg_ok = 1;
            break;
        case TD_IT_LIB:
            if (!lib_ok(rec, len, it, why, n))
                return -1;
            arg_ok = 1;
            break;
        case TD_IT_EVENT:
            arg_ok = type == TD_REC_EVENT && rec->fn != TD_EV_WARNING && it->arg == 0 &&
                     it->len == (rec->fn == TD_EV_KERNEL ? sizeof(struct td_ev_kernel)
                                 : rec->fn == TD_EV_IMAGE ? sizeof(struct td_ev_image)
                                 : rec->fn == TD_EV_DEVOP ? sizeof(struct td_ev_devop) : sizeof(struct td_ev_fault));
            if (arg_ok && place_check(rec, it, why, n) < 0)
                return -1;
            break;
        case TD_IT_CORR: { /* one per call record, a correlation id JSON numbers hold exactly */
            uint64_t corr = 0;
            if (it->len == sizeof(corr))
                memcpy(&corr, it + 1, sizeof(corr));
            arg_ok = type == TD_REC_CALL && it->arg == 0 && it->len == sizeof(corr) &&
                     td_rec_item(rec, len, 0, TD_IT_CORR) == it && corr_ok(corr);
            break;
        }
        default: arg_ok = 0; break;
        }
        if (!arg_ok) {
            snprintf(why, n, "item %u: kind %u for argument %u", i, it->kind, it->arg);
            return -1;
        }
        off += sizeof(*it) + (((size_t)it->len + 7) & ~(size_t)7);
    }
    if (off != len) {
        snprintf(why, n, "%zu bytes after the last item", len > off ? len - off : (size_t)0);
        return -1;
    }
    if (type == TD_REC_CALL && rec->fn >= TD_FN__RT_FIRST && !td_rec_item(rec, len, 0, TD_IT_NEST)) {
        snprintf(why, n, "%s without its nest item", td_fns[rec->fn].name);
        return -1;
    }
    if (type == TD_REC_CALL && rec->fn >= TD_FN__LIB_FIRST && !td_rec_item(rec, len, 0, TD_IT_LIB)) {
        snprintf(why, n, "%s without its library item", td_fns[rec->fn].name);
        return -1;
    }
    return 0;
}

