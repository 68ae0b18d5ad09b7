/* SPDX-License-Identifier: Apache-2.0 */
/* Writing CUDA fatbinaries: PTX text and ELF machine code (cubin) entries,
 * uncompressed, in the layout nvcc's fatbinary tool writes and the
 * emulator's reader (src/emu/fatbin.c) reads; docs/cuda-runtime-interface.md
 * "Kernels and fatbinaries" describes it. */
#ifndef TD_JIT_FATWRITE_H
#define TD_JIT_FATWRITE_H

#include <stddef.h>

#include "fatbinfmt.h"

enum td_fat_kind { TD_FAT_PTX = TD_FATBIN_KIND_PTX, TD_FAT_ELF = TD_FATBIN_KIND_ELF };

/* what a target's suffix asks: sm_90a is arch-specific, sm_100f
 * family-specific */
enum td_fat_variant { TD_FAT_GENERIC, TD_FAT_ARCH_SPECIFIC, TD_FAT_FAMILY_SPECIFIC };

struct td_fat_entry {
    enum td_fat_kind kind;
    unsigned arch;                 /* 90 for sm_90 / compute_90 */
    enum td_fat_variant variant;
    unsigned ptx_major, ptx_minor; /* PTX entries: the ISA of .version */
    const void *data;              /* PTX: text (a NUL is added); ELF: the file */
    size_t size;
};

/* The fatbinary holding entries e[0..n), in that order, in a malloc'd
 * buffer of *len bytes; NULL (errno set) when out of memory or an entry is
 * unusable (no data, unknown kind, arch 0, too large). */
void *td_fatbin_write(const struct td_fat_entry *e, int n, size_t *len);

/* Facts from a PTX text (len bytes, NUL not needed): the ISA of .version
 * and the target of .target (sm_XX with an optional a or f). 0, or -1 if
 * either directive is missing or malformed. */
int td_ptx_facts(const char *ptx, size_t len, struct td_fat_entry *out);

/* Facts from a cubin: the architecture in e_flags, and whether it is
 * relocatable (ET_REL, from -rdc) rather than executable. 0, or -1 if it
 * is no 64-bit little-endian CUDA ELF file. */
int td_cubin_facts(const void *elf, size_t len, unsigned *arch, int *relocatable);

#endif
