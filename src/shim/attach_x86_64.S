/* SPDX-License-Identifier: Apache-2.0 */
/* tdtrace -p: the entry tdtrace points the program's GOT slots for dlopen
 * at (attach.c). It asks td_attach_dlopen_file which file to open (the
 * shim, where the program names the driver; the program's own argument
 * otherwise), then jumps to the C library's dlopen with the caller's
 * return address in place: dlopen looks at it to find the calling object,
 * whose DT_RUNPATH and namespace apply to the search. */
#if defined(__x86_64__)
        .text
        .globl  tdtrace_shim_dlopen
        .type   tdtrace_shim_dlopen, @function
        .balign 16
tdtrace_shim_dlopen:
        pushq   %rsi                    /* entry rsp = 8 mod 16 */
        pushq   %rdi
        subq    $8, %rsp                /* now 0 mod 16 */
        call    td_attach_dlopen_file
        addq    $8, %rsp
        popq    %rdi
        popq    %rsi
        movq    %rax, %rdi
        jmp     dlopen@PLT
        .size   tdtrace_shim_dlopen, . - tdtrace_shim_dlopen
#endif
        .section .note.GNU-stack, "", @progbits
