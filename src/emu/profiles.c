/* Device profiles: the attribute table (profiles.def) indexed by id. */
#include "profiles.h"

#include <limits.h>
#include <stddef.h>
#include <strings.h>

enum { P_H100, P_A100, P_T4, P__COUNT };

static const struct emu_profile profiles[P__COUNT] = {
    [P_H100] = { "h100", "NVIDIA H100 80GB HBM3", 9, 0, 84929216512ULL, 132, 0x2330 },
    [P_A100] = { "a100", "NVIDIA A100-SXM4-40GB", 8, 0, 42298834944ULL, 108, 0x20B0 },
    [P_T4]   = { "t4",   "Tesla T4",              7, 5, 15843721216ULL, 40,  0x1EB8 },
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

static const struct attr_row attrs[ATTR_MAX + 1] = {
#define ATTR(name, h100, a100, t4) \
    [CU_DEVICE_ATTRIBUTE_##name] = { 1, { [P_H100] = (h100), [P_A100] = (a100), [P_T4] = (t4) } },
#include "profiles.def"
#undef ATTR
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

const char *emu_profile_names(void)
{
    return "h100, a100, t4";
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
