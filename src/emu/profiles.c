/* SPDX-License-Identifier: Apache-2.0 */
/* Device profiles: the attribute table (profiles.def) indexed by id. */
#include "profiles.h"

#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <strings.h>

enum {
#define PROFILE(id, name, gpu, mem) P_##id,
#define ATTR(...)
#include "profiles.def"
#undef PROFILE
#undef ATTR
    P__COUNT
};

static const struct emu_profile profiles[P__COUNT] = {
#define PROFILE(id, name, gpu, mem) [P_##id] = { name, gpu, mem },
#define ATTR(...)
#include "profiles.def"
#undef PROFILE
#undef ATTR
};

/* Values in the table that depend on the device ordinal (profiles.def). */
#define ORD_PCI_BUS     (INT_MIN + 1)
#define ORD_PCI_DEV     (INT_MIN + 2)
#define ORD_PCI_DOMAIN  (INT_MIN + 3)
#define ORD_BOARD_GROUP (INT_MIN + 4)
#define ORD_HOST_NUMA   (INT_MIN + 5)

#define ATTR_MAX 147   /* the highest CUDA 13 attribute id */

struct attr_row {
    unsigned char valid;
    int v[P__COUNT];
};

/* each row has a value for every profile, no more, no fewer */
#define PROFILE(...)
#define ATTR(name, ...) \
    _Static_assert(sizeof((int[]){ __VA_ARGS__ }) == P__COUNT * sizeof(int), "profiles.def: " #name);
#include "profiles.def"
#undef ATTR

static const struct attr_row attrs[ATTR_MAX + 1] = {
#define ATTR(name, ...) [CU_DEVICE_ATTRIBUTE_##name] = { 1, { __VA_ARGS__ } },
#include "profiles.def"
#undef ATTR
#undef PROFILE
};

/* PCI buses of the eight GPUs of an HGX H100 board, in ordinal order; the
 * emulator may have more devices, which continue above them. */
static const unsigned char hgx_buses[] = { 0x18, 0x2a, 0x3a, 0x5d, 0x9a, 0xab, 0xba, 0xdb };
#define NBUSES (int)(sizeof hgx_buses / sizeof hgx_buses[0])

static int ordinal_value(int what, int ordinal)
{
    switch (what) {
    case ORD_PCI_BUS:
        if (ordinal < NBUSES)
            return hgx_buses[ordinal];
        /* 0xdc.. then wrap over the unused low buses: distinct for 256 */
        return (0xdc + (ordinal - NBUSES)) & 0xff;
    case ORD_PCI_DEV:
    case ORD_PCI_DOMAIN:
        return 0;
    case ORD_BOARD_GROUP:
        return ordinal;
    case ORD_HOST_NUMA:
        return ordinal < NBUSES ? ordinal / (NBUSES / 2) : 0; /* two sockets */
    default:
        return what;
    }
}

const struct emu_profile *emu_profile_find(const char *name)
{
    if (!name)
        return NULL;
    for (int i = 0; i < P__COUNT; i++)
        if (strcasecmp(name, profiles[i].name) == 0)
            return &profiles[i];
    return NULL;
}

const struct emu_profile *emu_profile_default(void)
{
    return &profiles[P_H100];
}

static char names_buf[256];
static pthread_once_t names_once = PTHREAD_ONCE_INIT;
static void names_init(void)
{
    size_t at = 0;
    for (int i = 0; i < P__COUNT && at < sizeof names_buf; i++)
        at += (size_t)snprintf(names_buf + at, sizeof names_buf - at, "%s%s", i ? ", " : "", profiles[i].name);
}

const char *emu_profile_names(void)
{
    pthread_once(&names_once, names_init);
    return names_buf;
}

int emu_profile_cc(const struct emu_profile *p)
{
    int major = 0, minor = 0;
    emu_profile_attr(p, 0, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &major);
    emu_profile_attr(p, 0, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &minor);
    return major * 10 + minor;
}

CUresult emu_profile_attr(const struct emu_profile *p, int ordinal, int attr, int *value)
{
    if (!p || !value || ordinal < 0 || attr <= 0 || attr > ATTR_MAX || !attrs[attr].valid)
        return CUDA_ERROR_INVALID_VALUE;
    int idx = 0;
    while (idx < P__COUNT && p != &profiles[idx])
        idx++;
    if (idx == P__COUNT)
        return CUDA_ERROR_INVALID_VALUE;
    int v = attrs[attr].v[idx];
    if (v > INT_MIN && v <= ORD_HOST_NUMA)
        v = ordinal_value(v, ordinal);
    *value = v;
    return CUDA_SUCCESS;
}
