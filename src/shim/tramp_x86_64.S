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
        .text
        .globl  td_tramp_stubs
        .hidden td_tramp_stubs
        .type   td_tramp_stubs, @function
        .balign 16
td_tramp_stubs:
        .set    i, 0
        .rept   512
        movl    $i, %r11d
        jmp     td_tramp_common
        .balign 16
        .set    i, i + 1
        .endr
        .size   td_tramp_stubs, . - td_tramp_stubs

        .type   td_tramp_common, @function
td_tramp_common:
        subq    $216, %rsp              /* entry rsp = 8 mod 16: now 0 mod 16 */
        movq    %rdi, 0(%rsp)
        movq    %rsi, 8(%rsp)
        movq    %rdx, 16(%rsp)
        movq    %rcx, 24(%rsp)
        movq    %r8, 32(%rsp)
        movq    %r9, 40(%rsp)
        movq    %rax, 48(%rsp)
        movdqu  %xmm0, 64(%rsp)
        movdqu  %xmm1, 80(%rsp)
        movdqu  %xmm2, 96(%rsp)
        movdqu  %xmm3, 112(%rsp)
        movdqu  %xmm4, 128(%rsp)
        movdqu  %xmm5, 144(%rsp)
        movdqu  %xmm6, 160(%rsp)
        movdqu  %xmm7, 176(%rsp)
        movl    %r11d, %edi             /* the slot's index */
        movq    216(%rsp), %rsi         /* the caller's return address */
        movq    %rsp, %rdx              /* the saved argument registers */
        leaq    224(%rsp), %rcx         /* the caller's stack pointer after return */
        call    *td_tramp_hooks(%rip)
        movq    %rax, %r11
        movq    0(%rsp), %rdi
        movq    8(%rsp), %rsi
        movq    16(%rsp), %rdx
        movq    24(%rsp), %rcx
        movq    32(%rsp), %r8
        movq    40(%rsp), %r9
        movq    48(%rsp), %rax
        movdqu  64(%rsp), %xmm0
        movdqu  80(%rsp), %xmm1
        movdqu  96(%rsp), %xmm2
        movdqu  112(%rsp), %xmm3
        movdqu  128(%rsp), %xmm4
        movdqu  144(%rsp), %xmm5
        movdqu  160(%rsp), %xmm6
        movdqu  176(%rsp), %xmm7
        addq    $224, %rsp              /* the frame and the return address */
        call    *%r11
        subq    $48, %rsp
        movq    %rax, 0(%rsp)
        movq    %rdx, 8(%rsp)
        movdqu  %xmm0, 16(%rsp)
        movdqu  %xmm1, 32(%rsp)
        movq    %rax, %rdi
        leaq    48(%rsp), %rsi          /* the stack pointer the caller returns with */
        call    *td_tramp_hooks+8(%rip)
        movq    %rax, %r11
        movq    0(%rsp), %rax
        movq    8(%rsp), %rdx
        movdqu  16(%rsp), %xmm0
        movdqu  32(%rsp), %xmm1
        addq    $48, %rsp
        jmp     *%r11
        .size   td_tramp_common, . - td_tramp_common

        .data
        .balign 8
        .globl  td_tramp_hooks
        .hidden td_tramp_hooks
        .type   td_tramp_hooks, @object
td_tramp_hooks:                         /* enter, leave */
        .quad   0, 0
        .size   td_tramp_hooks, 16
#endif
        .section .note.GNU-stack, "", @progbits
