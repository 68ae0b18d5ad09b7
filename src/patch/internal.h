/* SPDX-License-Identifier: Apache-2.0 */
/* What the files of src/patch share and nobody else sees. */
#ifndef TD_PATCH_INTERNAL_H
#define TD_PATCH_INTERNAL_H

#include <pthread.h>

#include "patch.h"

struct island {
    uint64_t base, size, used;
};

struct td_patcher {
    struct td_patch_mem mem;
    pthread_mutex_t lock; /* the islands */
    struct island *isl;
    size_t nisl, cap;
};

/* fill *err (may be NULL) and return code */
int td_perr_set(struct td_perr *err, enum td_perr_code code, int sys_errno, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* the error for a failed td_patch_mem.replace (-errno r) while doing
 * `what` (patching, restoring, setting) to `name` at addr */
int td_perr_replace(const char *what, const char *name, uint64_t addr, int r, struct td_perr *err);

#endif
