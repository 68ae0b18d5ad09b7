/* SPDX-License-Identifier: Apache-2.0 */
/* Device profiles: what the emulated GPU reports about itself, modelled on
 * real cards. The data is one table (profiles.def); these functions only
 * look it up. */
#ifndef TD_EMU_PROFILES_H
#define TD_EMU_PROFILES_H

#include "cuda.h"

struct emu_profile {
    const char *name;              /* "h100" */
    const char *gpu_name;          /* "NVIDIA H100 80GB HBM3" (cuDeviceGetName) */
    unsigned long long total_mem;  /* bytes (cuDeviceTotalMem) */
};

/* The profile by name, case-insensitive; NULL if unknown. */
const struct emu_profile *emu_profile_find(const char *name);
/* The default profile (h100). */
const struct emu_profile *emu_profile_default(void);
/* The known names for messages: "h100, a100, t4, b200, rtx5090". */
const char *emu_profile_names(void);
/* The value of CUdevice_attribute `attr` for device `ordinal` of profile p.
 * CUDA_ERROR_INVALID_VALUE if attr is no CUDA 13 attribute id (or p or
 * value is NULL, or ordinal is negative). PCI domain/bus/device, the
 * multi-GPU board group and the host NUMA node depend on the ordinal; the
 * PCI bus is distinct for each ordinal. */
CUresult emu_profile_attr(const struct emu_profile *p, int ordinal, int attr, int *value);
/* Its compute capability as 10 * major + minor (90). */
int emu_profile_cc(const struct emu_profile *p);

#endif
