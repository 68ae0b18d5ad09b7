/* SPDX-License-Identifier: Apache-2.0 */
/* Trampolines for the functions of the libraries -e lib= traces (lib.c):
 * the generic ones of trampbody_x86_64.h, one stub per patched function. */
#if defined(__x86_64__)
#define TRAMP_STUBS td_libtramp_stubs
#define TRAMP_COMMON td_libtramp_common
#define TRAMP_HOOKS td_libtramp_hooks
#define TRAMP_N 8192
#include "trampbody_x86_64.h"
#endif
        .section .note.GNU-stack, "", @progbits
