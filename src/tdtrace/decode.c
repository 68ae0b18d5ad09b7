/* Decoding a call record: one generic loop prints any entry point from its
 * descriptor in the API table (OpenBSD kdump's shape). The record comes
 * from the traced program, so every length is checked; what cannot be
 * shown is printed raw. */
#include <stdio.h>
#include <string.h>

#include "exptab.h"
#include "tdtrace.h"
#include "xlat.h"

static size_t args_end(const struct td_rec *rec)
{
    return sizeof(*rec) + (size_t)rec->nargs * 8;
}

const struct td_item *td_rec_item(const struct td_rec *rec, uint32_t len, int arg, int kind)
{
    size_t off = args_end(rec);
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

int td_rec_check(const struct td_rec *rec, uint32_t len, uint32_t pid, char *why, size_t n)
{
    if (len < sizeof(*rec) || len > TD_RING_MAXREC) {
        snprintf(why, n, "a record of %u bytes", len);
        return -1;
    }
    unsigned type = TD_REC_TYPE(rec->word);
    if (type != TD_REC_CALL && type != TD_REC_HELLO) {
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
    size_t off = args_end(rec);
    for (unsigned i = 0; i < rec->nitems; i++) {
        const struct td_item *it = (const struct td_item *)((const unsigned char *)rec + off);
        if (off + sizeof(*it) > len || off + sizeof(*it) + (((size_t)it->len + 7) & ~(size_t)7) > len) {
            snprintf(why, n, "item %u runs past the record's end", i);
            return -1;
        }
        int arg_ok = it->kind == TD_IT_TEXT ? (it->arg == 0 || it->arg == 0xff)
                     : it->kind == TD_IT_STACK ? it->arg == 0 && !(it->len & 7)
                     : (it->kind == TD_IT_OUT || it->kind == TD_IT_STR) && it->arg < nargs;
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
    return 0;
}

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
            tp_sym(p, z);
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
    tp_flags(p, names, n, rest);
}

static void print_value(struct tp *p, const struct td_param *par, unsigned long long v)
{
    v = truncate_to(v, par->size);
    switch ((enum td_kind)par->kind) {
    case TD_K_INT:
        tp_int(p, par->size == 4 ? (long long)(int32_t)v
                  : par->size == 2 ? (long long)(int16_t)v
                  : par->size == 1 ? (long long)(int8_t)v : (long long)v);
        break;
    case TD_K_UINT:
        tp_uint(p, v);
        break;
    case TD_K_HEX:
        tp_hex(p, v);
        break;
    case TD_K_PTR:
    case TD_K_HANDLE:
        tp_ptr(p, v);
        break;
    case TD_K_STREAM:
        if (v == 1)
            tp_sym(p, "CU_STREAM_LEGACY");
        else if (v == 2)
            tp_sym(p, "CU_STREAM_PER_THREAD");
        else
            tp_ptr(p, v);
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
        tp_sym_or_num(p, td_xlat_name((enum td_xlat_id)par->xlat, v), v);
        break;
    case TD_K_FLAGS:
        print_flags(p, (enum td_xlat_id)par->xlat, v);
        break;
    case TD_K_STR:
        tp_ptr(p, v);
        break;
    case TD_K_UUID:
    case TD_K_BLOB:
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

/* an out-value from its item's bytes */
static void print_out(struct tp *p, const struct td_param *par, const struct td_item *it)
{
    const unsigned char *d = (const unsigned char *)(it + 1);
    if (par->kind == TD_K_UUID) {
        if (it->len < 16) {
            tp_bytes(p, d, it->len);
            return;
        }
        char s[48];
        snprintf(s, sizeof(s),
                 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", d[0],
                 d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8], d[9], d[10], d[11], d[12], d[13],
                 d[14], d[15]);
        tp_sym(p, s);
        return;
    }
    if (par->kind == TD_K_BLOB || it->len > 8) {
        tp_bytes(p, d, it->len);
        return;
    }
    unsigned long long v = 0;
    memcpy(&v, d, it->len);
    print_value(p, par, v);
}

/* a value the call read through a pointer; an export table's UUID by name */
static void print_inp(struct tp *p, const struct td_param *par, const struct td_item *it)
{
    if (par->kind == TD_K_UUID && it->len == 16) {
        int t = td_exptab_find((const unsigned char *)(it + 1));
        if (t >= 0) {
            tp_sym(p, td_exptabs[t].name);
            return;
        }
    }
    print_out(p, par, it);
}

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

void td_print_call(struct tp *p, const struct td_rec *rec, uint32_t len, int verbose)
{
    if (rec->fn >= TD_FN__COUNT || len < sizeof(*rec)) {
        tp_call_begin(p, "?");
        tp_call_end(p, rec->result, NULL);
        return;
    }
    const struct td_fn_info *info = &td_fns[rec->fn];
    tp_call_begin(p, info->name);
    int nargs = rec->nargs == info->nparams && args_end(rec) <= len ? rec->nargs : -1;
    const uint64_t *a = (const uint64_t *)(rec + 1);
    if (nargs < 0) {
        tp_arg(p, "record");
        tp_sym(p, "<corrupt>");
    }
    for (int i = 0; i < nargs; i++) {
        const struct td_param *par = &info->params[i];
        tp_arg(p, par->name);
        const struct td_item *it;
        switch ((enum td_role)par->role) {
        case TD_R_IN:
            print_value(p, par, a[i]);
            break;
        case TD_R_OUT:
            if ((it = td_rec_item(rec, len, i, TD_IT_OUT)) != NULL) {
                tp_out_begin(p);
                print_out(p, par, it);
                tp_out_end(p);
            } else {
                tp_ptr(p, a[i]);
            }
            break;
        case TD_R_INP:
            if ((it = td_rec_item(rec, len, i, TD_IT_OUT)) != NULL)
                print_inp(p, par, it);
            else
                tp_ptr(p, a[i]);
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
    tp_call_end(p, r, td_result_name(r));
    if (verbose && r != 0) {
        const char *text = td_xlat_text(TD_X_CUresult, r);
        if (text && p->fmt == TP_TEXT)
            tp_rawf(p, " (%s)", text);
    }
}
