/* SPDX-License-Identifier: Apache-2.0 */
/* The layout of kernel parameters: the one rule the PTX engine and the
 * emulator's image scanner (src/emu/fatbin.c) share. Part of the engine's
 * interface (ptx.h includes it); a header of its own so that the scanner
 * needs nothing else of the engine. */
#ifndef TD_PTX_PARAM_H
#define TD_PTX_PARAM_H

#include <stddef.h>

/* One kernel parameter declaration: its size and alignment in the
 * parameter buffer, and its name (pointing into the text given). */
struct ptx_param_layout {
    unsigned size, align;
    const char *name;
    size_t namelen;
};
/* Reads one parameter declaration, the text between '(' or ',' and the
 * next ',' or ')' (".param .u64 .ptr .global .align 1 p", ".param .align 16
 * .b8 s[24]"): 0, or -1 if it is not one. An .align before .ptr is the
 * parameter's own; after .ptr it is the alignment of what the pointer points
 * to, and the parameter is aligned to its size. This is the one rule for
 * parameter layout: the engine and the image scanner (src/emu/fatbin.c) use
 * it, and ptx_param_place to place parameters one after the other. */
int ptx_param_decl(const char *text, size_t len, struct ptx_param_layout *out);
/* The offset of parameter p after the parameters ending at *end; *end
 * moves past it. */
unsigned ptx_param_place(unsigned *end, const struct ptx_param_layout *p);

#endif
