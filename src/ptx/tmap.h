/* SPDX-License-Identifier: Apache-2.0 */
/* The emulator's tensor-map descriptor: the layout cuTensorMapEncodeTiled
 * and cuTensorMapEncodeIm2col write into a program's 128-byte CUtensorMap
 * (src/emu/tensormap.c) and cp.async.bulk.tensor reads (src/ptx/
 * exec_tensor.c). Opaque to programs, as NVIDIA's is; a map a kernel hands
 * the engine is the program's memory, so the reader checks everything
 * again (magic, kind, rank, sizes) before it trusts one. */
#ifndef TD_PTX_TMAP_H
#define TD_PTX_TMAP_H

#include <stdint.h>

#define TMAP_MAGIC 0x4d544454u /* "TDTM" */
enum { TMAP_TILED = 1, TMAP_IM2COL = 2, TMAP_IM2COL_WIDE = 3 };
/* what an element is, for the reductions (cp.reduce.async.bulk.tensor) */
enum { TMAP_E_UINT, TMAP_E_SINT, TMAP_E_FLOAT, TMAP_E_F16, TMAP_E_BF16 };

struct tmap {
    uint32_t magic;
    uint8_t kind;        /* TMAP_TILED, TMAP_IM2COL, TMAP_IM2COL_WIDE */
    uint8_t dtype, rank, interleave, swizzle, l2, oob;
    uint8_t ebytes;      /* bytes of an element; 0 for the packed types */
    uint8_t nan_fill;    /* elements out of the tensor read as NaN (else 0) */
    uint8_t span, atom;  /* swizzle: its span in bytes (0: none) and unit (16;
                            32 or 64 for the 128B_ATOM modes) */
    uint8_t ekind;       /* TMAP_E_* */
    uint64_t addr;
    uint64_t dim[5];
    uint64_t stride[4];  /* bytes, of dimensions 1..rank-1 */
    uint16_t box[5];     /* tiled */
    uint8_t estride[5];
    int16_t lower[3], upper[3]; /* im2col: the pixel box's corners, {D, H, W} (wide: W in [0]) */
    uint16_t channels, pixels;  /* im2col */
};
_Static_assert(sizeof(struct tmap) <= 128, "a CUtensorMap is 128 bytes");

#endif
