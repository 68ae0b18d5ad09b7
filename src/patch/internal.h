/* What the files of src/patch share and nobody else sees. */
#ifndef TD_PATCH_INTERNAL_H
#define TD_PATCH_INTERNAL_H

#include "patch.h"

/* fill *err (may be NULL) and return code */
int td_perr_set(struct td_perr *err, enum td_perr_code code, int sys_errno, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
