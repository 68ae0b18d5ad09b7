/* SPDX-License-Identifier: Apache-2.0 */
/* DRM (/dev/dri/...): core ioctl names by number (drm.def); blocks raw. */
#include <string.h>

#include "ioctl_int.h"
#include "print.h"

struct drm_row { const char *name; unsigned nr; };
static const struct drm_row drm_rows[] = {
#define DRM(name, nr) { #name, nr },
#include "drm.def"
};
#define NROWS (sizeof(drm_rows) / sizeof(drm_rows[0]))

static const char *drm_name(unsigned long request)
{
    unsigned nr = TD_IOC_NR(request);
    for (size_t i = 0; i < NROWS; i++)
        if (drm_rows[i].nr == nr)
            return drm_rows[i].name;
    return NULL;
}

static int drm_lookup(const char *name, unsigned long *v)
{
    for (size_t i = 0; i < NROWS; i++)
        if (strcmp(drm_rows[i].name, name) == 0) {
            *v = drm_rows[i].nr;
            return 0;
        }
    return -1;
}

static size_t drm_argsize(unsigned long request)
{
    return TD_IOC_SIZE(request);
}

static int drm_print_arg(struct tp *p, const struct td_ioctl_event *ev, const struct td_pctx *pc)
{
    (void)pc;
    td_print_raw_block(p, ev);
    return -1;
}

static int drm_rule_match(unsigned long nr, const struct td_ioctl_event *ev)
{
    return TD_IOC_NR(ev->request) == nr;
}

static int drm_unexpected(const struct td_ioctl_event *ev)
{
    (void)ev;
    return 0;   /* driver-private numbers are normal */
}

const struct td_family td_fam_drm = {
    TD_IOF_DRM, "DRM", drm_name, drm_lookup, drm_argsize, drm_print_arg, drm_rule_match, drm_unexpected,
};
