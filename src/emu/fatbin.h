/* SPDX-License-Identifier: Apache-2.0 */
/* CUDA images: PTX text, fatbinaries (plain, zstd- or LZ4-compressed
 * entries), the runtime's fatbin wrapper and bare cubin ELF files, turned
 * into the PTX texts they carry and the kernels and variables they define.
 *
 * Images are untrusted: every header field is checked against the length
 * (when known) and against sane limits; garbage answers
 * CUDA_ERROR_INVALID_IMAGE with a message, never a crash. */
#ifndef TD_EMU_FATBIN_H
#define TD_EMU_FATBIN_H

#include <stddef.h>

#include "cuda.h"

/* One kernel parameter as CUDA packs it into the parameter buffer. */
struct emu_ptx_param {
    char name[128];            /* truncated if longer */
    unsigned size, align, offset;
};

struct emu_ptx_entry {
    char *name;                /* as in the image: mangled */
    int nparams;
    struct emu_ptx_param *params;
    unsigned param_bytes;      /* end of the last parameter */
};

struct emu_ptx_global {
    char *name;
    int is_const;              /* .const (else .global) */
    int is_managed;            /* .attribute(.managed): a __managed__ variable */
    unsigned long long size;   /* bytes */
    unsigned align;
};

struct emu_image {
    int nptx;                  /* PTX texts, in image order */
    char **ptx;                /* each NUL-terminated */
    size_t *ptx_len;           /* strlen of each */
    int is_text;               /* the image was PTX text itself (not a fatbinary) */
    int has_sass;              /* machine code (cubin) seen */
    int nsass;                 /* the sm of each machine code entry of a fatbinary */
    int *sass_arch;            /* (10 * major + minor, as its header says) */
    int chosen;                /* the PTX text the device runs (emu_image_choose,
                                  arch.c), -1 if none */
    int nentries;              /* kernels: from the chosen PTX text (arch.c),
                                  else from the first cubin */
    struct emu_ptx_entry *entries;
    int nglobals;
    struct emu_ptx_global *globals;
};

/* Parse `image`: PTX text, a fatbinary (len may be 0: its header gives the
 * length), the fatbin wrapper {0x466243B1, version, fatbin, prelinked} or a
 * cubin ELF. len 0 means unknown. Every PTX text is kept; which one runs
 * (and so the kernels) is emu_image_choose's choice (arch.c); the kernels
 * of an image without PTX come from its first cubin. On success *out owns
 * what it holds (free with emu_image_free); on failure *out is empty and
 * err holds a message.
 * CUDA_ERROR_INVALID_VALUE for NULL arguments, CUDA_ERROR_INVALID_IMAGE for
 * a malformed image, CUDA_ERROR_OUT_OF_MEMORY. */
CUresult emu_image_load(const void *image, size_t len, struct emu_image *out,
                        char *err, size_t errlen);
void emu_image_free(struct emu_image *img);

/* Parse PTX text (NUL-terminated or len bytes) for its entries and globals,
 * appending to img. 0, or -1 when out of memory. */
int emu_ptx_parse(const char *text, size_t len, struct emu_image *img);

/* An image the runtime registered for relocatable device code (the fatbin
 * wrapper of version 2 that nvlink's machine code comes in): when img (as
 * emu_image_load read it) has no PTX, it becomes the PTX of the program's
 * translation units for a device of compute capability cc, linked (rdc.c).
 * Any other image is left as it is. CUDA_SUCCESS, or the error with err
 * saying why (a unit without PTX for the device: NO_BINARY_FOR_GPU). */
CUresult emu_rdc_resolve(const void *image, int cc, struct emu_image *img, char *err, size_t errlen);

#endif
