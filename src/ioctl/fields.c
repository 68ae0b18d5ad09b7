/* SPDX-License-Identifier: Apache-2.0 */
/* The generic structure printer of the GPU ioctl decoders: one loop over
 * a structure's field table (the .def files), raw output when the block
 * is shorter than the structure, and the raw form of a request number. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ioctl_int.h"
#include "print.h"

size_t td_field_width(const struct td_field *f)
{
    switch ((enum td_fk)f->kind) {
    case TD_FK_U8:
    case TD_FK_BOOL8:
        return 1;
    case TD_FK_U16:
    case TD_FK_HEX16:
        return 2;
    case TD_FK_HANDLE:
    case TD_FK_HEX32:
    case TD_FK_U32:
    case TD_FK_S32:
    case TD_FK_FD:
    case TD_FK_NVSTATUS:
    case TD_FK_NVCLASS:
    case TD_FK_NVESC:
        return 4;
    case TD_FK_U64:
    case TD_FK_HEX64:
    case TD_FK_PTR:
        return 8;
    case TD_FK_UUID:
        return 16;
    case TD_FK_STR:
        return f->len;
    case TD_FK_MORE:
        return 0;
    }
    return 0;
}

static unsigned long long get(const unsigned char *b, size_t w)
{
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64;
    switch (w) {
    case 1: memcpy(&u8, b, 1); return u8;
    case 2: memcpy(&u16, b, 2); return u16;
    case 4: memcpy(&u32, b, 4); return u32;
    case 8: memcpy(&u64, b, 8); return u64;
    default: return 0;
    }
}

static void print_field(struct tp *p, const struct td_field *f, const unsigned char *b)
{
    size_t w = td_field_width(f);
    unsigned long long v = w <= 8 ? get(b + f->off, w) : 0;
    const char *name;
    switch ((enum td_fk)f->kind) {
    case TD_FK_HANDLE:
    case TD_FK_HEX32:
    case TD_FK_HEX16:
    case TD_FK_HEX64:
        tp_hex(p, v);
        break;
    case TD_FK_U32:
    case TD_FK_U16:
    case TD_FK_U8:
    case TD_FK_BOOL8:
    case TD_FK_U64:
        tp_uint(p, v);
        break;
    case TD_FK_S32:
    case TD_FK_FD:
        tp_int(p, (int32_t)(uint32_t)v);
        break;
    case TD_FK_PTR:
        tp_ptr(p, v);
        break;
    case TD_FK_UUID: {
        const unsigned char *u = b + f->off;
        char s[48];
        snprintf(s, sizeof(s), "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
                 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13],
                 u[14], u[15]);
        tp_sym(p, s);
        break;
    }
    case TD_FK_STR: {
        const char *s = (const char *)b + f->off;
        size_t n = strnlen(s, f->len);
        tp_str(p, s, n, n == f->len);
        break;
    }
    case TD_FK_NVSTATUS:
        if ((name = td_nv_status_name((unsigned)v)))
            tp_sym(p, name);
        else
            tp_hex(p, v);
        break;
    case TD_FK_NVCLASS:
        if ((name = td_nv_class_name((unsigned)v)))
            tp_sym(p, name);
        else
            tp_hex(p, v);
        break;
    case TD_FK_NVESC:
        if ((name = td_nv_esc_name((unsigned)v)))
            tp_sym(p, name);
        else
            tp_hex(p, v);
        break;
    case TD_FK_MORE:
        break;
    }
}

void td_print_struct(struct tp *p, const struct td_struct *s, const unsigned char *b, size_t len,
                     const struct td_pctx *pc)
{
    /* every field must lie in the block, or the block prints raw */
    for (int i = 0; i < s->nf; i++)
        if ((size_t)s->f[i].off + td_field_width(&s->f[i]) > len) {
            tp_sym(p, "?");
            return;
        }
    tp_struct_begin(p);
    for (int i = 0; i < s->nf; i++) {
        const struct td_field *f = &s->f[i];
        if (f->kind == TD_FK_MORE) {
            tp_more(p);
            continue;
        }
        if (f->dir == TD_DIR_OUT && !pc->show_out)
            continue;
        tp_field(p, f->name);
        print_field(p, f, b);
    }
    tp_struct_end(p);
}

void td_print_raw_block(struct tp *p, const struct td_ioctl_event *ev)
{
    if (ev->argp && ev->have_arg && ev->arglen > 0 && p->verbose) {
        tp_bytes(p, ev->arg, ev->arglen);
        return;
    }
    if (ev->argp && ev->argwant && (!ev->have_arg || ev->arglen < ev->argwant))
        tp_unavailable(p, ev->argp);
    else
        tp_ptr(p, ev->argp);
}

void td_ioctl_raw_name(unsigned long request, char *buf, size_t n)
{
    static const char *const dirs[] = { "_IOC_NONE", "_IOC_WRITE", "_IOC_READ", "_IOC_READ|_IOC_WRITE" };
    snprintf(buf, n, "_IOC(%s, %#x, %#x, %#x)", dirs[TD_IOC_DIR(request)], TD_IOC_TYPE(request),
             TD_IOC_NR(request), TD_IOC_SIZE(request));
}
