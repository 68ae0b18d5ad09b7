/* SPDX-License-Identifier: Apache-2.0 */
/* Trampolines for export-table slots whose signature tdtrace does not
 * know (x86-64 System V). Stub k loads k and jumps to the common part,
 * which saves every argument register, asks td_tramp_hooks.enter (tramp.c
 * sets it) for the slot's real function (it keeps the caller's return
 * address on a per-thread stack), restores the registers, drops the
 * return address so the callee sees the caller's exact stack (stack
 * arguments included), calls the function, then lets td_tramp_hooks.leave
 * record the result and give back the return address. The hooks are
 * pointers so that this file calls no C function by name. */
#if defined(__x86_64__)
#define TRAMP_STUBS td_tramp_stubs
#define TRAMP_COMMON td_tramp_common
#define TRAMP_HOOKS td_tramp_hooks
#define TRAMP_N 512
#include "trampbody_x86_64.h"
#endif
        .section .note.GNU-stack, "", @progbits
