/* SPDX-License-Identifier: Apache-2.0 */
/* The body of a set of generic trampolines (x86-64 System V), included by
 * tramp_x86_64.S (export-table slots) and libtramp_x86_64.S (-e lib=) with
 * TRAMP_STUBS, TRAMP_COMMON, TRAMP_HOOKS (symbol names) and TRAMP_N (how
 * many stubs, 16 bytes each) defined. Stub k loads k and jumps to the
 * common part, which saves every argument register, asks
 * TRAMP_HOOKS.enter(k, return address, saved registers, the caller's
 * stack pointer after return) for the function to run (the hook keeps the
 * caller's return address on a per-thread stack), restores the registers,
 * drops the return address so the callee sees the caller's exact stack
 * (stack arguments included), calls the function, then lets
 * TRAMP_HOOKS.leave(rax, stack pointer) record the result and give back the
 * return address. The saved registers: rdi rsi rdx rcx r8 r9 rax, then
 * xmm0..xmm7 from byte 64. */
        .text
        .globl  TRAMP_STUBS
        .hidden TRAMP_STUBS
        .type   TRAMP_STUBS, @function
        .balign 16
TRAMP_STUBS:
        .set    i, 0
        .rept   TRAMP_N
        movl    $i, %r11d
        jmp     TRAMP_COMMON
        .balign 16
        .set    i, i + 1
        .endr
        .size   TRAMP_STUBS, . - TRAMP_STUBS

        .type   TRAMP_COMMON, @function
TRAMP_COMMON:
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
        call    *TRAMP_HOOKS(%rip)
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
        call    *TRAMP_HOOKS+8(%rip)
        movq    %rax, %r11
        movq    0(%rsp), %rax
        movq    8(%rsp), %rdx
        movdqu  16(%rsp), %xmm0
        movdqu  32(%rsp), %xmm1
        addq    $48, %rsp
        jmp     *%r11
        .size   TRAMP_COMMON, . - TRAMP_COMMON

        .data
        .balign 8
        .globl  TRAMP_HOOKS
        .hidden TRAMP_HOOKS
        .type   TRAMP_HOOKS, @object
TRAMP_HOOKS:                         /* enter, leave */
        .quad   0, 0
        .size   TRAMP_HOOKS, 16
