/* SPDX-License-Identifier: Apache-2.0 */
/* -e trace=SET (and abbrev=, verbose=, raw=): names, base names
 * (cuMemAlloc matches cuMemAlloc_v2 too), /regex, %class, all, none; a
 * leading ! negates the set. A misspelt name or class gets strace's "did
 * you mean". */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "policy_int.h"
#include "tdtrace.h"

static void set(uint8_t *mask, int fn)
{
    mask[fn >> 3] |= (uint8_t)(1u << (fn & 7));
}

static const char *fn_get(const void *ctx, int i)
{
    (void)ctx;
    return td_fns[i].name;
}

static const char *class_get(const void *ctx, int i)
{
    (void)ctx;
    return td_family_name(i);
}

/* -e lib= and -e trace=: a name the API table does not have may be a
 * library function's (traced as LIB.call with its own name); such names
 * and the regexes select LIB.call records by the name they carry */
static struct {
    int on;          /* td_trace_set is parsing -e trace= with -e lib= given */
    int whole;       /* LIB.call selected as such (all, %library, LIB.call) */
    int partial;     /* ... or by names and regexes */
    int neg;
    char **names;
    int nnames;
    regex_t res[16];
    int nres;
} lib;

void td_trace_lib_names(int on)
{
    lib.on = on;
}

int td_trace_lib_shown(const char *name, size_t n)
{
    int in = lib.whole;
    for (int i = 0; i < lib.nnames && !in; i++)
        in = strlen(lib.names[i]) == n && !memcmp(lib.names[i], name, n);
    if (!in && lib.nres) {
        char buf[TD_STR_MAX + 1];
        snprintf(buf, sizeof(buf), "%.*s", (int)n, name);
        for (int i = 0; i < lib.nres && !in; i++)
            in = regexec(&lib.res[i], buf, 0, NULL, 0) == 0;
    }
    return lib.neg ? !in : in;
}

static int lib_name(const char *item)
{
    if (!lib.on || !*item || strlen(item) > TD_STR_MAX || strspn(item, "abcdefghijklmnopqrstuvwxyz"
                                                                      "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") !=
                                                               strlen(item))
        return 0;
    char **n = realloc(lib.names, (size_t)(lib.nnames + 1) * sizeof(*n));
    if (!n || !(n[lib.nnames] = strdup(item)))
        die("out of memory");
    lib.names = n;
    lib.nnames++;
    lib.partial = 1;
    return 1;
}

static int add_item1(const char *item, uint8_t *mask, char *err, size_t errlen);
static int add_item(const char *item, uint8_t *mask, char *err, size_t errlen)
{
    int had = lib.on && (mask[TD_FN_LIB_call >> 3] >> (TD_FN_LIB_call & 7) & 1);
    int rc = add_item1(item, mask, err, errlen);
    if (lib.on && !had && item[0] != '/' && (mask[TD_FN_LIB_call >> 3] >> (TD_FN_LIB_call & 7) & 1))
        lib.whole = 1; /* all, %library, LIB.call */
    return rc;
}

static int add_item1(const char *item, uint8_t *mask, char *err, size_t errlen)
{
    if (strcmp(item, "all") == 0) {
        for (int i = 0; i < TD_FN__COUNT; i++)
            set(mask, i);
        return 0;
    }
    if (strcmp(item, "none") == 0)
        return 0;
    if (item[0] == '%') {
        int fam = td_family_find(item + 1);
        if (fam < 0) {
            char list[256];
            td_family_list(list, sizeof(list));
            struct pol_cands c = { class_get, NULL, TD_FAM__COUNT };
            const char *near = td_pol_suggest(item + 1, &c);
            if (near)
                snprintf(err, errlen, "invalid class '%s'; did you mean '%%%s'? (classes: %s)", item,
                         near, list);
            else
                snprintf(err, errlen, "invalid class '%s' (classes: %s)", item, list);
            return -1;
        }
        for (int i = 0; i < TD_FN__COUNT; i++)
            if (td_fn_in_class(i, fam))
                set(mask, i);
        return 0;
    }
    if (item[0] == '/') {
        regex_t re;
        if (td_regex_compile(&re, item + 1, REG_EXTENDED | REG_NOSUB, err, errlen) < 0)
            return -1;
        for (int i = 0; i < TD_FN__COUNT; i++)
            if (i != TD_FN_LIB_call && regexec(&re, td_fns[i].name, 0, NULL, 0) == 0)
                set(mask, i);
        if (lib.on && lib.nres < (int)(sizeof(lib.res) / sizeof(lib.res[0]))) { /* and library functions' names */
            lib.res[lib.nres++] = re;
            lib.partial = 1;
            set(mask, TD_FN_LIB_call);
            return 0;
        }
        regfree(&re); /* like strace, a regex that matches nothing is no error */
        return 0;
    }
    int found = 0;
    for (int i = 0; i < TD_FN__COUNT; i++) {
        if (strcmp(td_fns[i].name, item) == 0 || strcmp(td_fns[i].base, item) == 0) {
            set(mask, i);
            found = 1;
        }
    }
    if (!found && lib_name(item)) { /* an undescribed library function's */
        set(mask, TD_FN_LIB_call);
        return 0;
    }
    if (!found) {
        struct pol_cands c = { fn_get, NULL, TD_FN__COUNT };
        const char *near = td_pol_suggest(item, &c);
        if (near)
            snprintf(err, errlen, "invalid function name '%s'; did you mean '%s'?", item, near);
        else
            snprintf(err, errlen, "invalid function name '%s'", item);
        return -1;
    }
    return 0;
}

int td_trace_set(const char *expr, uint8_t *mask, uint8_t *named, size_t masklen, char *err,
                 size_t errlen)
{
    memset(mask, 0, masklen);
    if (named)
        memset(named, 0, masklen);
    int neg = 0;
    if (*expr == '!') {
        neg = 1;
        expr++;
    }
    char *copy = strdup(expr);
    if (!copy) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int rc = 0;
    char *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok && rc == 0; tok = strtok_r(NULL, ",", &save))
        rc = add_item(tok, mask, err, errlen);
    free(copy);
    if (rc == 0 && named && !neg)
        memcpy(named, mask, masklen);
    if (rc == 0 && neg)
        for (int i = 0; i < TD_FN__COUNT; i++)
            mask[i >> 3] ^= (uint8_t)(1u << (i & 7));
    if (rc == 0 && lib.on) {
        lib.neg = neg;
        if (neg && lib.partial && !lib.whole) /* some LIB.call records are shown: recorded, then chosen by name */
            set(mask, TD_FN_LIB_call);
    }
    return rc;
}
