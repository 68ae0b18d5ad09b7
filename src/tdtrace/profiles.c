/* SPDX-License-Identifier: Apache-2.0 */
/* --emulate=profile=list (or help): the emulated GPU's profiles, from
 * their one table (src/emu/profiles.def). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "print.h"
#include "tdtrace.h"

enum {
#define PROFILE(id, ...) P_##id,
#define ATTR(...)
#include "../emu/profiles.def"
#undef PROFILE
#undef ATTR
    P__COUNT
};

static const struct { const char *name, *gpu; unsigned long long mem; } profiles[] = {
#define PROFILE(id, name, gpu, mem) { name, gpu, mem },
#define ATTR(...)
#include "../emu/profiles.def"
#undef PROFILE
#undef ATTR
};

/* the values that depend on the device ordinal are not listed */
#define ORD_PCI_BUS 0
#define ORD_PCI_DEV 0
#define ORD_PCI_DOMAIN 0
#define ORD_BOARD_GROUP 0
#define ORD_HOST_NUMA 0
static const struct { const char *attr; long long v[P__COUNT]; } attrs[] = {
#define PROFILE(...)
#define ATTR(name, ...) { #name, { __VA_ARGS__ } },
#include "../emu/profiles.def"
#undef PROFILE
#undef ATTR
};

static long long attr(const char *name, int p)
{
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++)
        if (strcmp(attrs[i].attr, name) == 0)
            return attrs[i].v[p];
    return 0;
}

/* does an --emulate= value ask for the list? */
static int asks(const char *v)
{
    while (v && *v) {
        size_t n = strcspn(v, ",");
        if ((n == 12 && strncmp(v, "profile=list", 12) == 0) ||
            (n == 12 && strncmp(v, "profile=help", 12) == 0))
            return 1;
        v += n + (v[n] == ',');
    }
    return 0;
}

void td_profiles_list_if_asked(const struct td_opts *o)
{
    int asked = 0;
    for (int i = 0; i < o->npopts; i++)
        asked |= strcmp(o->popts[i].opt, "emulate") == 0 && asks(o->popts[i].value);
    if (!asked)
        return;
    struct tp p;
    tp_init(&p, TP_TEXT, stdout);
    tp_rawf(&p, "%-9s %-26s %4s %5s %18s", "profile", "cuDeviceGetName", "cc", "SMs", "memory (bytes)");
    tp_line_end(&p);
    for (int i = 0; i < P__COUNT; i++) {
        char cc[16];
        snprintf(cc, sizeof cc, "%lld.%lld", attr("COMPUTE_CAPABILITY_MAJOR", i),
                 attr("COMPUTE_CAPABILITY_MINOR", i));
        tp_rawf(&p, "%-9s %-26s %4s %5lld %18llu%s", profiles[i].name, profiles[i].gpu, cc,
                attr("MULTIPROCESSOR_COUNT", i), profiles[i].mem, i == 0 ? "  (the default)" : "");
        tp_line_end(&p);
    }
    tp_free(&p);
    if (fflush(stdout) != 0)
        exit(1);
    exit(0);
}
