/* SPDX-License-Identifier: Apache-2.0 */
/* AMD KFD (/dev/kfd): names by number (kfd.def); blocks raw.
 * KFD dispatches on the number and checks the size, so names go by nr. */
#include <string.h>

#include "ioctl_int.h"
#include "print.h"

struct kfd_row { const char *name; unsigned nr; };
static const struct kfd_row kfd_rows[] = {
#define KFD(name, nr) { #name, nr },
#include "kfd.def"
};
#define NROWS (sizeof(kfd_rows) / sizeof(kfd_rows[0]))

static const char *kfd_name(unsigned long request)
{
    unsigned nr = TD_IOC_NR(request);
    for (size_t i = 0; i < NROWS; i++)
        if (kfd_rows[i].nr == nr)
            return kfd_rows[i].name;
    return NULL;
}

static int kfd_lookup(const char *name, unsigned long *v)
{
    for (size_t i = 0; i < NROWS; i++)
        if (strcmp(kfd_rows[i].name, name) == 0) {
            *v = kfd_rows[i].nr;
            return 0;
        }
    return -1;
}

static size_t kfd_argsize(unsigned long request)
{
    return TD_IOC_SIZE(request);
}

static int kfd_print_arg(struct tp *p, const struct td_ioctl_event *ev, const struct td_pctx *pc)
{
    (void)pc;
    td_print_raw_block(p, ev);
    return -1;
}

static int kfd_rule_match(unsigned long nr, const struct td_ioctl_event *ev)
{
    return TD_IOC_NR(ev->request) == nr;
}

static int kfd_unexpected(const struct td_ioctl_event *ev)
{
    return kfd_name(ev->request) == NULL;
}

const struct td_family td_fam_kfd = {
    TD_IOF_KFD, "AMD KFD", kfd_name, kfd_lookup, kfd_argsize, kfd_print_arg, kfd_rule_match, kfd_unexpected,
};
