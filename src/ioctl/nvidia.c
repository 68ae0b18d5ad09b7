/* SPDX-License-Identifier: Apache-2.0 */
/* NVIDIA frontend escapes (/dev/nvidiactl, /dev/nvidiaN): the table is
 * nvidia.def; this file looks rows up and prints their blocks. */
#include <string.h>

#include "ioctl_int.h"
#include "print.h"

#define NV_IOCTL_MAGIC 'F'
#define NV_ESC_IOCTL_XFER_CMD 0xd3
#define NV_XFER_HDR 16u

enum nv_printer { NVP_STRUCT, NVP_CARDS, NVP_GPUIDS, NVP_XFER, NVP_RAW };

#define NV_STRUCT(id, cname, size, ...) TD_DEFINE_STRUCT(id, cname, size, __VA_ARGS__)
#include "nvidia.def"

static const struct td_struct td_s_NONE = { "none", 0, NULL, 0 };

struct nv_esc {
    const char *name;
    unsigned nr;
    enum nv_printer printer;
    const struct td_struct *s1, *s2;
};
static const struct nv_esc nv_escs[] = {
#define NV_ESC(name, nr, printer, a, b) { #name, nr, NVP_##printer, &td_s_##a, &td_s_##b },
#include "nvidia.def"
};

static const struct nv_esc *esc_by_nr(unsigned nr)
{
    for (size_t i = 0; i < sizeof(nv_escs) / sizeof(nv_escs[0]); i++)
        if (nv_escs[i].nr == nr)
            return &nv_escs[i];
    return NULL;
}

static const char *nv_name(unsigned long request)
{
    return td_nv_esc_name(TD_IOC_NR(request));
}

static int nv_lookup(const char *name, unsigned long *v)
{
    for (size_t i = 0; i < sizeof(nv_escs) / sizeof(nv_escs[0]); i++)
        if (strcmp(nv_escs[i].name, name) == 0) {
            *v = nv_escs[i].nr;
            return 0;
        }
    return -1;
}

static size_t nv_argsize(unsigned long request)
{
    return TD_IOC_SIZE(request);
}

int td_nv_xfer_inner(const unsigned char *hdr, size_t len, unsigned long long *ptr, size_t *size)
{
    if (len < NV_XFER_HDR)
        return -1;
    unsigned sz;
    memcpy(&sz, hdr + 4, 4);
    memcpy(ptr, hdr + 8, 8);
    *size = sz;
    return 0;
}

/* the escape that runs: the wrapped one for NV_ESC_IOCTL_XFER_CMD */
unsigned td_nv_effective_nr(const struct td_ioctl_event *ev)
{
    unsigned nr = TD_IOC_NR(ev->request);
    if (nr == NV_ESC_IOCTL_XFER_CMD && ev->have_arg && ev->arglen >= NV_XFER_HDR) {
        unsigned inner;
        memcpy(&inner, ev->arg, 4);
        return inner;
    }
    return nr;
}

/* the structure for this escape and block size, or NULL */
static const struct td_struct *pick(const struct nv_esc *e, size_t size)
{
    if (e->s1->nf && e->s1->size == size)
        return e->s1;
    if (e->s2->nf && e->s2->size == size)
        return e->s2;
    return NULL;
}

static int print_block(struct tp *p, const struct nv_esc *e, size_t size, const unsigned char *b,
                       size_t len, unsigned long long addr, const struct td_pctx *pc)
{
    switch (e->printer) {
    case NVP_STRUCT: {
        const struct td_struct *s = pick(e, size);
        if (!s || len < size)
            break;
        td_print_struct(p, s, b, len, pc);
        return 0;
    }
    case NVP_CARDS: {
        size_t each = e->s1->size;
        if (size == 0 || size % each || len < size)
            break;
        if (!pc->show_out) {     /* the driver fills the array: nothing to show yet */
            tp_ptr(p, addr);
            return 0;
        }
        tp_array_begin(p);
        for (size_t off = 0; off + each <= size; off += each) {
            tp_elem(p);
            td_print_struct(p, e->s1, b + off, each, pc);
        }
        tp_array_end(p);
        return 0;
    }
    case NVP_GPUIDS: {
        if (size == 0 || size % 4 || len < size)
            break;
        tp_array_begin(p);
        for (size_t off = 0; off + 4 <= size; off += 4) {
            unsigned id;
            memcpy(&id, b + off, 4);
            tp_elem(p);
            tp_hex(p, id);
        }
        tp_array_end(p);
        return 0;
    }
    case NVP_XFER:
    case NVP_RAW:
        break;
    }
    if (len < size)
        tp_unavailable(p, addr);
    else
        tp_ptr(p, addr);
    return -1;
}

static int nv_print_arg(struct tp *p, const struct td_ioctl_event *ev, const struct td_pctx *pc)
{
    const struct nv_esc *e = esc_by_nr(TD_IOC_NR(ev->request));
    if (!e || !ev->have_arg) {
        td_print_raw_block(p, ev);
        return -1;
    }
    if (e->printer != NVP_XFER)
        return print_block(p, e, TD_IOC_SIZE(ev->request), ev->arg, ev->arglen, ev->argp, pc);

    /* NV_ESC_IOCTL_XFER_CMD: {cmd, size, ptr} and the wrapped block at ptr */
    if (TD_IOC_SIZE(ev->request) != NV_XFER_HDR || ev->arglen < NV_XFER_HDR) {
        td_print_raw_block(p, ev);
        return -1;
    }
    unsigned cmd, size;
    unsigned long long ptr;
    memcpy(&cmd, ev->arg, 4);
    memcpy(&size, ev->arg + 4, 4);
    memcpy(&ptr, ev->arg + 8, 8);
    const struct nv_esc *in = esc_by_nr(cmd);
    tp_struct_begin(p);
    tp_field(p, "cmd");
    if (in)
        tp_sym(p, in->name);
    else
        tp_hex(p, cmd);
    tp_field(p, "size");
    tp_uint(p, size);
    tp_field(p, "ptr");
    int rc = -1;
    if (in && in->printer != NVP_XFER)
        rc = print_block(p, in, size, ev->arg + NV_XFER_HDR, ev->arglen - NV_XFER_HDR, ptr, pc);
    else
        tp_ptr(p, ptr);
    tp_struct_end(p);
    return rc;
}

static int nv_rule_match(unsigned long nr, const struct td_ioctl_event *ev)
{
    return td_nv_effective_nr(ev) == nr;
}

static int nv_unexpected(const struct td_ioctl_event *ev)
{
    unsigned nr = TD_IOC_NR(ev->request);
    size_t size = TD_IOC_SIZE(ev->request);
    if (nr == NV_ESC_IOCTL_XFER_CMD) {
        if (!ev->have_arg || ev->arglen < NV_XFER_HDR)
            return 0;
        nr = td_nv_effective_nr(ev);
        unsigned sz;
        memcpy(&sz, ev->arg + 4, 4);
        size = sz;
    }
    const struct nv_esc *e = esc_by_nr(nr);
    if (!e)
        return 1;
    return e->printer == NVP_STRUCT && !pick(e, size);
}

const struct td_family td_fam_nvidia = {
    TD_IOF_NVIDIA, "NVIDIA", nv_name, nv_lookup, nv_argsize, nv_print_arg, nv_rule_match, nv_unexpected,
};
