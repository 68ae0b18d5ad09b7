/* SPDX-License-Identifier: Apache-2.0 */
/* The header of PTX text (PTX ISA, "PTX Module Directives"): its .version
 * and its .target, the one reader of them. The emulator picks the PTX a
 * device runs by its target (src/emu/arch.c); the NVRTC and nvJitLink
 * layer writes both into the fatbinary entry it makes (src/jitwrap). */
#ifndef TD_PTXHEAD_H
#define TD_PTXHEAD_H

#include <stddef.h>

struct td_ptx_head {
    int has_version, has_target;
    unsigned major, minor;       /* .version major.minor */
    unsigned arch;               /* .target sm_ARCH */
    char variant;                /* 'a' (sm_90a), 'f' (sm_100f) or 0 */
};

/* Reads the header directives at the start of text (at most len bytes, or
 * up to a NUL): .version, .target and .address_size, in any order, with
 * white space and comments between; the first other statement ends the
 * header. Returns 0, or -1 for a malformed .version or .target (a target
 * that is not sm_ followed by 1-4 digits and an optional a or f). */
int td_ptx_head(const char *text, size_t len, struct td_ptx_head *out);

#endif
