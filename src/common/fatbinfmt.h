/* SPDX-License-Identifier: Apache-2.0 */
/* The constants of NVIDIA's fatbinary format, the one home of them: the
 * emulator reads fatbinaries (src/emu/fatbin.c, rdc.c), the NVRTC and
 * nvJitLink layer writes them (src/jitwrap/fatwrite.c). The layout is
 * described in docs/cuda-runtime-interface.md, "Kernels and fatbinaries". */
#ifndef TD_FATBINFMT_H
#define TD_FATBINFMT_H

#define TD_FATBIN_MAGIC       0xBA55ED50u  /* a fatbinary's header */
#define TD_FATBIN_VERSION     1
#define TD_FATBIN_HDR         16           /* bytes of the fatbinary header */
#define TD_FATBIN_WRAPPER     0x466243B1u  /* __cudaRegisterFatBinary's wrapper */
#define TD_FATBIN_ENTRY_TAG   0x0101u      /* the high half of an entry's first word */
/* an entry's kind (the low half of its first word) */
#define TD_FATBIN_KIND_PTX    1
#define TD_FATBIN_KIND_ELF    2
/* an entry's flags */
#define TD_FATBIN_FLAG_64BIT       0x1u
#define TD_FATBIN_FLAG_HOST_LINUX  0x10u
#define TD_FATBIN_FLAG_LZ4         0x2000u
#define TD_FATBIN_FLAG_ZSTD        0x8000u
#define TD_FATBIN_FLAG_ARCH_SPEC   0x100000u   /* sm_90a */
#define TD_FATBIN_FLAG_FAMILY_SPEC 0x200000u   /* sm_100f */

#endif
