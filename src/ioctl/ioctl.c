/* SPDX-License-Identifier: Apache-2.0 */
/* The GPU ioctl dispatcher: the filter table, which family a request
 * belongs to (by its type byte or number, then the device), and the
 * printed call. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "ioctl_int.h"
#include "print.h"

/* ---- the filter table -------------------------------------------------- */

static const struct td_ioctl_match matches[] = {
#define TD_MATCH_TYPE(t, what) { 0xff00UL, (unsigned long)(t) << 8, what },
#include "filter.def"
#define UVM(name, number, s) { 0xffffffffUL, number, #name },
#include "uvm.def"
};

size_t td_ioctl_filter_table(const struct td_ioctl_match **out)
{
    *out = matches;
    return sizeof(matches) / sizeof(matches[0]);
}

int td_ioctl_filter_matches(unsigned long request)
{
    for (size_t i = 0; i < sizeof(matches) / sizeof(matches[0]); i++)
        if ((request & matches[i].mask) == matches[i].value)
            return 1;
    return 0;
}

/* ---- families ----------------------------------------------------------- */

static int is_uvm_number(unsigned long request)
{
    const unsigned long *n;
    size_t k = td_uvm_numbers(&n);
    for (size_t i = 0; i < k; i++)
        if (n[i] == (request & 0xffffffffUL))
            return 1;
    return 0;
}

/* the NVIDIA frontend nodes: /dev/nvidiactl, /dev/nvidia0.. */
static int nv_frontend_path(const char *path)
{
    if (!path || strncmp(path, "/dev/nvidia", 11) != 0)
        return 0;
    const char *s = path + 11;
    if (strcmp(s, "ctl") == 0)
        return 1;
    if (!*s)
        return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return 0;
    return 1;
}

const struct td_family *td_family_for(unsigned long request, const char *path)
{
    if (is_uvm_number(request))
        return &td_fam_uvm;
    switch (TD_IOC_TYPE(request)) {
    case 0x46:
        return &td_fam_nvidia;
    case 0x64:
        return &td_fam_drm;
    case 0x4b:
        return &td_fam_kfd;
    default:
        break;
    }
    /* the NVIDIA driver ignores the type byte: decode by nr on its nodes */
    if (nv_frontend_path(path))
        return &td_fam_nvidia;
    return NULL;
}

int td_ioctl_family_of(unsigned long request)
{
    const struct td_family *f = td_family_for(request, NULL);
    return f ? f->id : TD_IOF_NONE;
}

const char *td_ioctl_name(unsigned long request)
{
    const struct td_family *f = td_family_for(request, NULL);
    return f ? f->name(request) : NULL;
}

int td_ioctl_lookup_name(const char *name, unsigned long *request_or_nr)
{
    static const struct td_family *const fams[] = { &td_fam_nvidia, &td_fam_uvm, &td_fam_drm, &td_fam_kfd };
    if (!name)
        return -ENOENT;
    for (size_t i = 0; i < sizeof(fams) / sizeof(fams[0]); i++) {
        unsigned long v;
        if (fams[i]->lookup(name, &v) == 0) {
            if (request_or_nr)
                *request_or_nr = v;
            return fams[i]->id;
        }
    }
    return -ENOENT;
}

/* the name a call is counted and printed under */
const char *td_ioctl_event_name(const struct td_ioctl_event *ev, char *raw, size_t n)
{
    const struct td_family *f = td_family_for(ev->request, ev->path);
    const char *name = f ? f->name(ev->request) : NULL;
    if (name)
        return name;
    if (f == &td_fam_uvm || (ev->request & ~0xffffUL) == 0x30000000UL)
        snprintf(raw, n, "%#lx", ev->request);
    else
        td_ioctl_raw_name(ev->request, raw, n);
    return raw;
}


/* ---- the printed call ----------------------------------------------------- */

/* FD<PATH> in text; "fd":N,"path":"..." in JSON */
static void print_fd(struct tp *p, int fd, const char *path)
{
    tp_int(p, fd);
    if (!path[0])
        return;
    if (p->fmt == TP_JSON) {
        tp_arg(p, "path");
        tp_str(p, path, strlen(path), 0);
        return;
    }
    char clean[sizeof(((struct td_ioctl_event *)0)->path)];
    size_t i = 0;
    for (; path[i] && i + 1 < sizeof(clean); i++)
        clean[i] = (path[i] < 0x20 || path[i] == 0x7f) ? '?' : path[i];
    clean[i] = '\0';
    tp_raw(p, "<");
    tp_raw(p, clean);
    tp_raw(p, ">");
}

static void rule_origin(const struct td_ioctl_rule *r, char *buf, size_t n)
{
    if (r->file && r->line > 0)
        snprintf(buf, n, "%s:%d", r->file, r->line);
    else if (r->file) /* a command-line option */
        snprintf(buf, n, "%s", r->file);
    else if (r->name)
        snprintf(buf, n, "--ioctl-deny=%s", r->name);
    else
        snprintf(buf, n, "--ioctl-deny=%#lx", r->number);
}

static const char *errname(int e, char *buf, size_t n)
{
    const char *s = e > 0 ? strerrorname_np(e) : NULL;
    if (s)
        return s;
    snprintf(buf, n, "E%d", e);
    return buf;
}

void td_ioctl_print(struct tp *p, const struct td_ioctl_event *ev)
{
    char raw[96], ebuf[16];
    struct td_pctx pc = { ev->result_known && !ev->denied && ev->ret >= 0 };
    const struct td_family *f = td_family_for(ev->request, ev->path);

    tp_call_begin(p, "ioctl");
    tp_arg(p, "fd");
    print_fd(p, ev->fd, ev->path);
    tp_arg(p, "request");
    tp_sym(p, td_ioctl_event_name(ev, raw, sizeof(raw)));
    tp_arg(p, "arg");
    if (f)
        f->print_arg(p, ev, &pc);
    else
        td_print_raw_block(p, ev);

    if (ev->denied) {
        tp_call_end(p, -(long long)ev->err, errname(ev->err, ebuf, sizeof(ebuf)));
    } else if (ev->result_known) {
        if (ev->ret < 0)
            tp_call_end(p, -(long long)ev->err, errname(ev->err, ebuf, sizeof(ebuf)));
        else
            tp_call_end(p, ev->ret, NULL);
    } else {
        tp_call_end(p, 0, "?");
    }
    if (ev->rule && (ev->denied || ev->would_deny)) {
        char where[300];
        rule_origin(ev->rule, where, sizeof(where));
        if (p->fmt == TP_JSON) {
            tp_raw(p, ev->denied ? ",\"denied\":" : ",\"would_deny\":");
            tp_str(p, where, strlen(where), 0);
        } else {
            tp_raw(p, ev->denied ? " (DENIED by " : " (would be DENIED by ");
            tp_raw(p, where);
            tp_raw(p, ")");
        }
    }
}
