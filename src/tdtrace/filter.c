/* -e trace=SET: names, base names (cuMemAlloc matches cuMemAlloc_v2 too),
 * /regex, %class, all, none; a leading ! negates the set. */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "tdtrace.h"

static void set(uint8_t *mask, int fn)
{
    mask[fn >> 3] |= (uint8_t)(1u << (fn & 7));
}

static int add_item(const char *item, uint8_t *mask, char *err, size_t errlen)
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
            snprintf(err, errlen, "invalid class '%s' (classes: %s)", item,
                     td_family_list(list, sizeof(list)));
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
        int any = 0;
        for (int i = 0; i < TD_FN__COUNT; i++)
            if (regexec(&re, td_fns[i].name, 0, NULL, 0) == 0) {
                set(mask, i);
                any = 1;
            }
        regfree(&re);
        (void)any; /* like strace, a regex that matches nothing is no error */
        return 0;
    }
    int found = 0;
    for (int i = 0; i < TD_FN__COUNT; i++) {
        if (strcmp(td_fns[i].name, item) == 0 || strcmp(td_fns[i].base, item) == 0) {
            set(mask, i);
            found = 1;
        }
    }
    if (!found) {
        snprintf(err, errlen, "invalid function name '%s'", item);
        return -1;
    }
    return 0;
}

int td_trace_set(const char *expr, uint8_t *mask, size_t masklen, char *err, size_t errlen)
{
    memset(mask, 0, masklen);
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
    if (rc == 0 && neg)
        for (int i = 0; i < TD_FN__COUNT; i++)
            mask[i >> 3] ^= (uint8_t)(1u << (i & 7));
    return rc;
}
