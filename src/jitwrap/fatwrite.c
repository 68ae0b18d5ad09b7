/* SPDX-License-Identifier: Apache-2.0 */
/* Writing fatbinaries (fatwrite.h).
 *
 * Layout (docs/cuda-runtime-interface.md, "Kernels and fatbinaries"): a
 * 16-byte header {u32 magic 0xBA55ED50, u16 version 1, u16 header size 16,
 * u64 size of the entries}, then per entry a header and its payload. Entry
 * header words (32-bit, little-endian): 0 kind | 0x0101 << 16, 1 header
 * size, 2-3 payload size, 4 compressed size (0: not compressed), 5 offset
 * of the options record within the header (0: none), 6 version (PTX: ISA
 * major << 16 | minor), 7 architecture, 8-9 name offset and length (0),
 * 10-11 flags, 12-15 zero (the uncompressed size is only kept for
 * compressed payloads). What is written is what nvcc 13's fatbinary writes
 * for an uncompressed image: ELF entries with a 64-byte header and version
 * 0x00010008; PTX entries with an 80-byte header whose options record at
 * offset 64 is {u32 offset of the option string (72), u32 its length (0),
 * 8 zero bytes}; flags 0x11 (a 64-bit image for a Linux host), plus
 * 0x100000 for an arch-specific (sm_90a) and 0x200000 for a
 * family-specific (sm_100f) target. Payloads are padded with zero bytes
 * to a multiple of 8, so every entry starts 8-byte aligned; a PTX payload
 * always ends with at least one NUL. */
#include "fatwrite.h"
#include "fatbinfmt.h"
#include "ptxhead.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ELF_HDR          64
#define PTX_HDR          80
#define PTX_OPTIONS_AT   64
#define ELF_VERSION      0x00010008u
#define MAX_PAYLOAD      (1ULL << 32)   /* fatbinary payload sizes above 4 GiB: refused */

static void wr32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}
static void wr64(unsigned char *p, uint64_t v)
{
    wr32(p, (uint32_t)v);
    wr32(p + 4, (uint32_t)(v >> 32));
}
static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* the padded payload: PTX gets a NUL; both go up to a multiple of 8 */
static size_t padded(const struct td_fat_entry *e)
{
    size_t n = e->size + (e->kind == TD_FAT_PTX);
    return (n + 7) & ~(size_t)7;
}

void *td_fatbin_write(const struct td_fat_entry *e, int n, size_t *len)
{
    uint64_t total = TD_FATBIN_HDR;
    if (!len || n < 0 || (n && !e)) {
        errno = EINVAL;
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        if ((e[i].kind != TD_FAT_PTX && e[i].kind != TD_FAT_ELF) || !e[i].data || !e[i].arch ||
            e[i].size >= MAX_PAYLOAD - 8 ||
            (e[i].variant != TD_FAT_GENERIC && e[i].variant != TD_FAT_ARCH_SPECIFIC &&
             e[i].variant != TD_FAT_FAMILY_SPECIFIC)) {
            errno = EINVAL;
            return NULL;
        }
        total += (e[i].kind == TD_FAT_PTX ? PTX_HDR : ELF_HDR) + (uint64_t)padded(&e[i]);
    }
    if (total > SIZE_MAX) {
        errno = ENOMEM;
        return NULL;
    }
    unsigned char *buf = calloc(1, (size_t)total);
    if (!buf)
        return NULL;
    wr32(buf, TD_FATBIN_MAGIC);
    buf[4] = TD_FATBIN_VERSION;
    buf[6] = TD_FATBIN_HDR;
    wr64(buf + 8, total - TD_FATBIN_HDR);
    unsigned char *p = buf + TD_FATBIN_HDR;
    for (int i = 0; i < n; i++) {
        int ptx = e[i].kind == TD_FAT_PTX;
        unsigned hs = ptx ? PTX_HDR : ELF_HDR;
        uint32_t flags = TD_FATBIN_FLAG_64BIT | TD_FATBIN_FLAG_HOST_LINUX;
        if (e[i].variant == TD_FAT_ARCH_SPECIFIC)
            flags |= TD_FATBIN_FLAG_ARCH_SPEC;
        else if (e[i].variant == TD_FAT_FAMILY_SPECIFIC)
            flags |= TD_FATBIN_FLAG_FAMILY_SPEC;
        wr32(p, (uint32_t)e[i].kind | TD_FATBIN_ENTRY_TAG << 16);
        wr32(p + 4, hs);
        wr64(p + 8, padded(&e[i]));
        wr32(p + 24, ptx ? (e[i].ptx_major << 16 | (e[i].ptx_minor & 0xffff)) : ELF_VERSION);
        wr32(p + 28, e[i].arch);
        wr64(p + 40, flags);
        if (ptx) {
            wr32(p + 20, PTX_OPTIONS_AT);
            wr32(p + PTX_OPTIONS_AT, PTX_HDR - 8);  /* the (empty) option string */
        }
        memcpy(p + hs, e[i].data, e[i].size);
        p += hs + padded(&e[i]);
    }
    *len = (size_t)total;
    return buf;
}

/* ---- facts from PTX and ELF ------------------------------------------ */

int td_ptx_facts(const char *ptx, size_t len, struct td_fat_entry *out)
{
    struct td_ptx_head h;
    if (!ptx || !out || td_ptx_head(ptx, len, &h) != 0 || !h.has_version || !h.has_target)
        return -1;
    out->ptx_major = h.major;
    out->ptx_minor = h.minor;
    out->arch = h.arch;
    out->variant = h.variant == 'a' ? TD_FAT_ARCH_SPECIFIC : h.variant == 'f' ? TD_FAT_FAMILY_SPECIFIC
                                                                               : TD_FAT_GENERIC;
    return 0;
}

#define EM_CUDA 190
#define ET_REL  1
#define ET_EXEC 2

int td_cubin_facts(const void *elf, size_t len, unsigned *arch, int *relocatable)
{
    const unsigned char *d = elf;
    if (!d || len < 64 || memcmp(d, "\x7f" "ELF", 4) != 0 || d[4] != 2 /* 64-bit */ ||
        d[5] != 1 /* little-endian */)
        return -1;
    unsigned type = (unsigned)(d[16] | d[17] << 8), machine = (unsigned)(d[18] | d[19] << 8);
    /* e_flags holds the SM in bits 8-15 (sm_75: 0x4b, sm_90: 0x5a,
     * sm_120: 0x78), as cubins from nvcc 13 and NVRTC 13 show */
    unsigned sm = (rd32(d + 48) >> 8) & 0xff;
    if (machine != EM_CUDA || (type != ET_REL && type != ET_EXEC) || sm == 0)
        return -1;
    if (arch)
        *arch = sm;
    if (relocatable)
        *relocatable = type == ET_REL;
    return 0;
}
