/* SPDX-License-Identifier: Apache-2.0 */
/* Linking PTX texts the way nvlink links the machine code of relocatable
 * device code (nvcc -rdc=true): one PTX text out of several translation
 * units' texts, which the PTX engine parses as one module.
 *
 * - a .extern declaration is kept while no definition of its symbol came
 *   before it in the output (the engine then binds uses to the definition
 *   that follows), dropped after one;
 * - .visible definitions are strong: two of one name are an error, as in
 *   nvlink ("multiple definition");
 * - .weak and .common definitions: the first one goes in, unless a strong
 *   one exists (then it is a declaration of it); later ones are dropped;
 * - file-local symbols (no linkage directive: statics, string constants
 *   such as $str) that another unit also names get the suffix $tuN, N the
 *   unit's index, in their whole unit;
 * - the header is the highest .version and the .target of the unit with
 *   the highest architecture; .file numbers of later units are shifted
 *   (with their .loc lines) so source lines stay right; .section
 *   (debug information) is dropped.
 * Texts are untrusted: every index is bounded, unknown text is copied. */
#ifndef TD_EMU_PTXLINK_H
#define TD_EMU_PTXLINK_H

#include <stddef.h>

/* The linked text (malloc'd, NUL-terminated, *outlen = strlen), or NULL
 * with a message in err (NULL and err "out of memory" when out of memory). */
char *emu_ptx_link(const char *const *texts, const size_t *lens, int n, size_t *outlen, char *err,
                   size_t errlen);

#endif
