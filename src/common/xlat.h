/* SPDX-License-Identifier: Apache-2.0 */
/* Constant tables (src/xlat/NAME.in), generated into td_xlat.c. */
#ifndef TD_COMMON_XLAT_H
#define TD_COMMON_XLAT_H

#include <stddef.h>
#include <stdint.h>

#include "td_xlat.h"

struct td_xval {
    unsigned long long value;
    const char *name;
    const char *text;   /* a description, where the table has one */
};

struct td_xlat {
    const char *name;   /* the type: "CUresult" */
    int flags;          /* a set of bit flags rather than values */
    int n;
    const struct td_xval *v; /* sorted by value */
};

extern const struct td_xlat td_xlats[TD_X__COUNT];

/* The name of value in table x, or NULL. */
const char *td_xlat_name(enum td_xlat_id x, unsigned long long value);
/* The description of value in table x, or NULL. */
const char *td_xlat_text(enum td_xlat_id x, unsigned long long value);
/* The value of a constant by its name; 0 if found, -1 if not. */
int td_xlat_value(enum td_xlat_id x, const char *name, unsigned long long *value);
/* The table by its type name, or TD_X_NONE. */
enum td_xlat_id td_xlat_find(const char *name);

/* CUresult shortcuts */
const char *td_result_name(unsigned value);

#endif
