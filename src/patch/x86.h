/* SPDX-License-Identifier: Apache-2.0 */
/* x86-64 instruction relocation with Zydis: which whole instructions a
 * jump at a function's entry overwrites, whether they can move, and their
 * trampoline (the moved instructions, then a jump back). Pure functions of
 * bytes and addresses: no memory is touched (src/patch only). */
#ifndef TD_PATCH_X86_H
#define TD_PATCH_X86_H

#include <stddef.h>
#include <stdint.h>

#include "patch.h"

#define TD_X86_JMP_REL32 5   /* e9 rel32 */
#define TD_X86_JMP_ABS 14    /* ff 25 00000000, then the 8-byte target */
#define TD_X86_MAXINSN 16
#define TD_X86_TRAMP_MAX 512 /* the longest trampoline a plan can need */
#define TD_X86_NONE 0xff

enum td_x86_kind {
    TD_X86_COPY,   /* moved as it is */
    TD_X86_RIPMEM, /* a [rip + disp32] operand: disp32 recomputed for the new place */
    TD_X86_JMP,    /* jmp rel8/rel32: an absolute jump */
    TD_X86_JCC,    /* jcc, jrcxz, loop*: the same condition over an absolute jump */
    TD_X86_CALL,   /* call rel32: an absolute call (the last instruction only) */
};

struct td_x86_insn {
    uint8_t off, len;    /* in the function */
    uint8_t kind;        /* enum td_x86_kind */
    uint8_t fix_off;     /* RIPMEM: the disp32's offset; JCC: the rel's offset */
    uint8_t fix_size;    /* JCC: the rel's size (1 or 4) */
    uint16_t out_off, out_len; /* in the trampoline */
    uint64_t target;     /* RIPMEM: the operand's address; JMP/JCC/CALL: the destination */
    uint8_t internal;    /* the index of the moved instruction it goes to, or TD_X86_NONE */
};

struct td_x86_plan {
    uint64_t entry;
    unsigned need;    /* bytes the entry jump overwrites: 5 or 14 */
    unsigned covered; /* whole instructions moved, >= need */
    unsigned n;
    struct td_x86_insn insn[TD_X86_MAXINSN];
    unsigned tramp_len;
    /* where the trampoline may start so every disp32 still reaches: [lo, hi] */
    uint64_t lo, hi;
};

/* Decode the instructions at entry (code holds avail bytes of them; fsize
 * is the function's size, 0 if unknown) until `need` bytes are covered,
 * and lay out their trampoline. Refuses (TD_PE_SHORT, TD_PE_DECODE,
 * TD_PE_INSN, with a message naming `name` and the offset) what it cannot
 * move safely. */
int td_x86_plan(const char *name, const uint8_t *code, size_t avail, uint64_t entry, uint64_t fsize,
                unsigned need, struct td_x86_plan *p, struct td_perr *err);

/* Write the trampoline for a plan at address `at` into out (p->tramp_len
 * bytes). TD_PE_RANGE if a disp32 does not reach from there. */
int td_x86_emit(const char *name, const struct td_x86_plan *p, const uint8_t *code, uint64_t at, uint8_t *out,
                struct td_perr *err);

/* Check part of the function's body that follows the moved instructions:
 * buf holds len bytes at addr. A branch or jump to [entry, entry + covered)
 * (a call to entry itself is a call, and allowed), or an address inside
 * (entry, entry + covered) taken with lea or used as an operand, is
 * TD_PE_BRANCH; bytes that do not decode are TD_PE_DECODE. Unless `final`,
 * an instruction cut at the end of buf is left for the next call: *used
 * gets the bytes consumed. */
int td_x86_scan(const char *name, const struct td_x86_plan *p, const uint8_t *buf, size_t len, uint64_t addr,
                int final, size_t *used, struct td_perr *err);

/* 14 bytes: jmp [rip + 0]; .quad target */
void td_x86_put_jmp_abs(uint8_t *out, uint64_t target);
/* 5 bytes at `from`: jmp rel32 to target; -1 (nothing written) when out of reach */
int td_x86_put_jmp_rel32(uint8_t *out, uint64_t from, uint64_t target);

#endif
