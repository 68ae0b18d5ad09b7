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

int td_drv_for_ptx_isa(int isa)
{
    /* ISA -> CUDA release: 7.0-7.8 came with 11.0-11.8, 8.0-8.4 with
     * 12.0-12.4, 8.5 with 12.5 (12.6 kept it), 8.6 12.7, 8.7 12.8, 8.8
     * 12.9, 9.0 13.0 */
    static const struct { int isa, release; } t[] = {
        { 70, 11000 }, { 71, 11010 }, { 72, 11020 }, { 73, 11030 }, { 74, 11040 }, { 75, 11050 },
        { 76, 11060 }, { 77, 11070 }, { 78, 11080 }, { 80, 12000 }, { 81, 12010 }, { 82, 12020 },
        { 83, 12030 }, { 84, 12040 }, { 85, 12050 }, { 86, 12070 }, { 87, 12080 }, { 88, 12090 },
        { 90, 13000 },
    };
    int r = 0;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (t[i].isa <= isa)
            r = t[i].release;
    return r;
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
