/* SPDX-License-Identifier: Apache-2.0 */
#include "drvver.h"

#include <ctype.h>
#include <stdio.h>

int td_drv_parse(const char *s, int *out, char *why, size_t n)
{
    char newest[16];
    td_drv_format(TD_API_NEWEST, newest, sizeof(newest));
    long major = 0, minor = 0, v;
    const char *c = s ? s : "";
    int digits = 0;
    while (isdigit((unsigned char)*c) && digits < 6)
        major = major * 10 + (*c++ - '0'), digits++;
    if (digits && *c == '.' && isdigit((unsigned char)c[1]) && !c[2] && digits <= 2) {
        minor = c[1] - '0';
        v = major * 1000 + minor * 10;
    } else if (digits >= 4 && !*c) {
        v = major; /* as cuDriverGetVersion writes it */
    } else {
        snprintf(why, n, "'%s' is not a driver version (MAJOR.MINOR: 12.4)", s ? s : "");
        return -1;
    }
    if (v < TD_DRV_OLDEST) {
        snprintf(why, n, "'%s': drivers before 11.0 are not emulated (11.0 to %s)", s, newest);
        return -1;
    }
    if (v > TD_API_NEWEST) {
        snprintf(why, n, "'%s': newer than the newest driver the API table describes (%s)", s,
                 newest);
        return -1;
    }
    *out = (int)v;
    return 0;
}

char *td_drv_format(int version, char *buf, size_t n)
{
    snprintf(buf, n, "%d.%d", version / 1000, version % 1000 / 10);
    return buf;
}

int td_drv_since(int fn)
{
    return fn >= 0 && fn < TD_FN__ENTRY_POINTS ? td_fn_since[fn] : 0;
}

int td_drv_has(int fn, int version)
{
    return td_drv_since(fn) <= version;
}

int td_drv_export_set(int version)
{
    int set = TD_DRV_OLDEST;
    for (int fn = 0; fn < TD_FN__ENTRY_POINTS; fn++)
        if (td_fn_since[fn] <= version && td_fn_since[fn] > set)
            set = td_fn_since[fn];
    return set;
}

int td_drv_lookup(const char *symbol, int version, int per_thread, int driver, int *status)
{
    int too_low;
    int fn = td_proc_lookup(symbol, version < driver ? version : driver, per_thread, &too_low);
    if (fn >= 0 && td_drv_has(fn, driver)) {
        *status = 0;
        return fn;
    }
    /* the symbol is that driver's when some row of it is at most driver */
    *status = td_proc_lookup(symbol, driver, 0, &too_low) >= 0 ? 2 : 1;
    return -1;
}
