/* SPDX-License-Identifier: Apache-2.0 */
/* NVIDIA UVM (/dev/nvidia-uvm): plain request numbers, table in uvm.def. */
#include <string.h>

#include "ioctl_int.h"
#include "print.h"

#define UVM_STRUCT(id, cname, size, ...) TD_DEFINE_STRUCT(id, cname, size, __VA_ARGS__)
#include "uvm.def"

static const struct td_struct td_s_NONE = { "none", 0, NULL, 0 };

struct uvm_row {
    const char *name;
    unsigned long number;
    const struct td_struct *s;
};
static const struct uvm_row uvm_rows[] = {
#define UVM(name, number, s) { #name, number, &td_s_##s },
#include "uvm.def"
};
#define NROWS (sizeof(uvm_rows) / sizeof(uvm_rows[0]))

/* layouts of older drivers */
struct uvm_old {
    const char *name;
    unsigned before;             /* drivers older than this major used s */
    const struct td_struct *s;
};
static const struct uvm_old uvm_olds[] = {
#define UVM_BEFORE(name, major, s) { #name, major, &td_s_##s },
#include "uvm.def"
};

/* the loaded driver's major version; 0: unknown (current layouts) */
static unsigned driver_major;

void td_ioctl_set_driver_version(unsigned major)
{
    driver_major = major;
}

/* the layout of this row's block for the loaded driver: the oldest
 * UVM_BEFORE row that still applies, else the current one */
static const struct td_struct *layout(const struct uvm_row *r)
{
    const struct uvm_old *pick = NULL;
    if (driver_major)
        for (size_t i = 0; i < sizeof(uvm_olds) / sizeof(uvm_olds[0]); i++)
            if (strcmp(uvm_olds[i].name, r->name) == 0 && driver_major < uvm_olds[i].before &&
                (!pick || uvm_olds[i].before < pick->before))
                pick = &uvm_olds[i];
    return pick ? pick->s : r->s;
}

static const unsigned long uvm_numbers[] = {
#define UVM(name, number, s) number,
#include "uvm.def"
};

size_t td_uvm_numbers(const unsigned long **out)
{
    *out = uvm_numbers;
    return sizeof(uvm_numbers) / sizeof(uvm_numbers[0]);
}

static const struct uvm_row *row(unsigned long request)
{
    for (size_t i = 0; i < NROWS; i++)
        if (uvm_rows[i].number == (request & 0xffffffffUL))
            return &uvm_rows[i];
    return NULL;
}

static const char *uvm_name(unsigned long request)
{
    const struct uvm_row *r = row(request);
    return r ? r->name : NULL;
}

static int uvm_lookup(const char *name, unsigned long *v)
{
    for (size_t i = 0; i < NROWS; i++)
        if (strcmp(uvm_rows[i].name, name) == 0) {
            *v = uvm_rows[i].number;
            return 0;
        }
    return -1;
}

static size_t uvm_argsize(unsigned long request)
{
    const struct uvm_row *r = row(request);
    return r ? layout(r)->size : 0;
}

static int uvm_print_arg(struct tp *p, const struct td_ioctl_event *ev, const struct td_pctx *pc)
{
    const struct uvm_row *r = row(ev->request);
    const struct td_struct *st = r ? layout(r) : NULL;
    if (!st || !st->nf || !ev->have_arg || ev->arglen < st->size) {
        td_print_raw_block(p, ev);
        return -1;
    }
    td_print_struct(p, st, ev->arg, ev->arglen, pc);
    return 0;
}

static int uvm_rule_match(unsigned long number, const struct td_ioctl_event *ev)
{
    return (ev->request & 0xffffffffUL) == number;
}

static int uvm_unexpected(const struct td_ioctl_event *ev)
{
    return row(ev->request) == NULL;
}

const struct td_family td_fam_uvm = {
    TD_IOF_UVM, "NVIDIA UVM", uvm_name, uvm_lookup, uvm_argsize, uvm_print_arg, uvm_rule_match, uvm_unexpected,
};
