/* SPDX-License-Identifier: Apache-2.0 */
/* Internals of the GPU ioctl module: the structure descriptions the
 * decoders walk, and each family's entry points. */
#ifndef TD_IOCTL_INT_H
#define TD_IOCTL_INT_H

#include <stddef.h>

#include "ioctl.h"

/* _IOC layout (asm-generic: x86, arm64, riscv) */
#define TD_IOC_NR(r)   ((unsigned)((r) & 0xff))
#define TD_IOC_TYPE(r) ((unsigned)(((r) >> 8) & 0xff))
#define TD_IOC_SIZE(r) ((unsigned)(((r) >> 16) & 0x3fff))
#define TD_IOC_DIR(r)  ((unsigned)(((r) >> 30) & 0x3))
#define TD_IOC(dir, type, nr, size) \
    ((unsigned long)(((unsigned long)(dir) << 30) | ((unsigned long)(size) << 16) | ((unsigned long)(type) << 8) | (unsigned long)(nr)))
#define TD_IOWR(type, nr, size) TD_IOC(3, type, nr, size)

/* How a field is printed. */
enum td_fk {
    TD_FK_HANDLE,     /* u32, hex */
    TD_FK_HEX32,      /* u32, hex */
    TD_FK_U32,        /* u32, decimal */
    TD_FK_S32,        /* s32 */
    TD_FK_FD,         /* s32, a file descriptor in the target */
    TD_FK_U16,
    TD_FK_HEX16,
    TD_FK_U8,
    TD_FK_BOOL8,      /* u8 0/1 */
    TD_FK_U64,        /* decimal */
    TD_FK_HEX64,
    TD_FK_PTR,        /* u64 address: NULL or 0x... */
    TD_FK_UUID,       /* 16 bytes: GPU-xxxxxxxx-xxxx-... */
    TD_FK_STR,        /* char[len], NUL-terminated within len */
    TD_FK_NVSTATUS,   /* u32 NV_STATUS */
    TD_FK_NVCLASS,    /* u32 RM class id */
    TD_FK_NVESC,      /* u32 NV_ESC_* number */
    TD_FK_MORE,       /* the rest is not decoded: "..." */
};

enum { TD_DIR_IN = 0, TD_DIR_OUT = 1, TD_DIR_IO = 2 };

struct td_field {
    const char *name;
    unsigned short off;
    unsigned char kind;   /* enum td_fk */
    unsigned char dir;    /* TD_DIR_*: OUT fields print only when the result is known */
    unsigned short len;   /* TD_FK_STR: the array's length */
};

struct td_struct {
    const char *name;     /* the C structure: "NVOS54_PARAMETERS" */
    unsigned size;
    const struct td_field *f;
    int nf;
};

/* X-macro helpers for the .def files:
 *   TD_STRUCT(id, "C name", size, TD_F(name, off, KIND, DIR) ...)
 * makes td_s_<id>, a struct td_struct. */
#define TD_F(n, o, k, d) { #n, (o), TD_FK_##k, TD_DIR_##d, 0 },
#define TD_FS(n, o, l, d) { #n, (o), TD_FK_STR, TD_DIR_##d, (l) },
#define TD_DEFINE_STRUCT(id, cname, sz, ...)                                    \
    static const struct td_field td_f_##id[] = { __VA_ARGS__ };                 \
    static const struct td_struct td_s_##id = { cname, (sz), td_f_##id,        \
        (int)(sizeof(td_f_##id) / sizeof(td_f_##id[0])) };

/* Bytes a field occupies (0 for TD_FK_MORE). */
size_t td_field_width(const struct td_field *f);

/* Print a structure from a block of len bytes: fields in order; raw bytes
 * when the block is shorter than the structure. */
struct td_pctx {
    int show_out;         /* print OUT fields (the result is known) */
};
void td_print_struct(struct tp *p, const struct td_struct *s, const unsigned char *b, size_t len,
                     const struct td_pctx *pc);
/* The parameter block as it was read, when it cannot be decoded. */
void td_print_raw_block(struct tp *p, const struct td_ioctl_event *ev);
/* "_IOC(_IOC_READ|_IOC_WRITE, 0x46, 0x99, 0x10)" or "0x1e" for plain numbers */
void td_ioctl_raw_name(unsigned long request, char *buf, size_t n);

/* A family: names, sizes, printers. */
struct td_family {
    int id;                                   /* enum td_ioctl_family */
    const char *label;                        /* "NVIDIA", "UVM", ... for warnings */
    const char *(*name)(unsigned long request);
    int (*lookup)(const char *name, unsigned long *v);
    /* how many bytes of the block to read (0: no block); may grow after a
     * first read through extra (NV_ESC_IOCTL_XFER_CMD) */
    size_t (*argsize)(unsigned long request);
    /* print the third argument; returns 0 when decoded, -1 when printed raw */
    int (*print_arg)(struct tp *p, const struct td_ioctl_event *ev, const struct td_pctx *pc);
    /* whether a rule by name matches this call (name resolved already) */
    int (*rule_match)(unsigned long rule_v, const struct td_ioctl_event *ev);
    /* 1 when the number is known but the size is not one we know */
    int (*unexpected)(const struct td_ioctl_event *ev);
};

extern const struct td_family td_fam_nvidia, td_fam_uvm, td_fam_drm, td_fam_kfd;
const struct td_family *td_family_for(unsigned long request, const char *path);

/* NVIDIA: the inner block of NV_ESC_IOCTL_XFER_CMD (address and size),
 * read by the notification loop after the 16-byte header. */
int td_nv_xfer_inner(const unsigned char *hdr, size_t len, unsigned long long *ptr, size_t *size);
unsigned td_nv_effective_nr(const struct td_ioctl_event *ev);
const char *td_nv_class_name(unsigned cls);
/* the name of v in a table of {value, name} sorted by value, or NULL */
struct td_nv_name { unsigned v; const char *name; };
const char *td_nv_name_find(const struct td_nv_name *tab, size_t n, unsigned v);

/* the name a call is counted and printed under: the family's name for
 * it, else its raw form in raw */
const char *td_ioctl_event_name(const struct td_ioctl_event *ev, char *raw, size_t n);

/* UVM plain numbers (the filter matches them exactly). */
size_t td_uvm_numbers(const unsigned long **out);

/* ioctl.c's hooks for the notification loop in seccomp.c */
int td_ioctl_int_wants(const struct td_ioctl_ctx *c, const char *path);
struct td_ioctl_event *td_ioctl_int_event(struct td_ioctl_ctx *c);
struct td_ioctl_bufs { void **req, **resp; size_t *req_size, *resp_size; };
void td_ioctl_int_bufs(struct td_ioctl_ctx *c, struct td_ioctl_bufs *b);
const struct td_ioctl_rule *td_ioctl_int_decide(struct td_ioctl_ctx *c, struct td_ioctl_event *ev);
void td_ioctl_int_account(struct td_ioctl_ctx *c, const struct td_ioctl_event *ev);
int td_ioctl_int_tgid(struct td_ioctl_ctx *c, int tid);
void td_ioctl_int_vanished(struct td_ioctl_ctx *c);
int td_ioctl_int_enforce(const struct td_ioctl_ctx *c);
/* a result learned after the call was counted: its error and the time to it */
void td_ioctl_int_account_result(struct td_ioctl_ctx *c, const struct td_ioctl_event *ev,
                                 unsigned long long extra_ns);
/* the supervisor's result hook: 1 if it will fill in the result */
int td_ioctl_int_result_hook(struct td_ioctl_ctx *c, const struct td_ioctl_event *ev);
/* read len bytes of the thread's memory at addr; bytes read */
size_t td_ioctl_int_read(int tid, unsigned long long addr, void *buf, size_t len);
const char *td_nv_esc_name(unsigned nr);

#endif
