/* SPDX-License-Identifier: Apache-2.0 */
/* x86-64 relocation of a function's first instructions (see x86.h).
 *
 * Zydis decodes; this file only decides. An instruction moves as it is
 * unless it depends on where it runs: a [rip + disp32] operand gets the
 * disp32 recomputed for its new address (the trampoline must then lie
 * within +-2 GiB of the operand: the plan's window), a relative jump or
 * call becomes an absolute one (no reach limit), a conditional one keeps
 * its condition over an absolute jump. What cannot move safely is refused:
 * int3/ud2/hlt and other traps (a debugger's breakpoint, dead ends), a
 * return or jump before the bytes the jump needs (the rest belongs to other
 * code), a call that is not the last moved instruction (a call in flight
 * would return into the overwritten bytes), xbegin, eip-relative operands,
 * and a branch into the middle of a moved instruction. */
#include <Zydis/Zydis.h>
#include <string.h>

#include "internal.h"
#include "x86.h"

enum flow { F_NEXT, F_JMP, F_JMPIND, F_JCC, F_CALL, F_CALLIND, F_RET, F_TRAP, F_BAD };

struct dec {
    unsigned len;
    enum flow flow;
    int rel;         /* a relative branch: target */
    uint64_t target;
    int rip;         /* a [rip + disp32] operand at mem */
    uint64_t mem;
    int eip;         /* an [eip + disp32] operand (refused) */
    unsigned disp_off, disp_size, imm_off, imm_size;
    const char *mnem;
};

static int decode(const uint8_t *buf, size_t len, uint64_t addr, struct dec *d)
{
    ZydisDecoder z;
    ZydisDecodedInstruction in;
    ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
    memset(d, 0, sizeof *d);
    if (!ZYAN_SUCCESS(ZydisDecoderInit(&z, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64)) ||
        !ZYAN_SUCCESS(ZydisDecoderDecodeFull(&z, buf, len, &in, ops)))
        return -1;
    d->len = in.length;
    d->mnem = ZydisMnemonicGetString(in.mnemonic);
    if (!d->mnem)
        d->mnem = "?";
    for (unsigned i = 0; i < in.operand_count && i < ZYDIS_MAX_OPERAND_COUNT; i++) {
        const ZydisDecodedOperand *op = &ops[i];
        if (op->type == ZYDIS_OPERAND_TYPE_MEMORY && op->mem.base == ZYDIS_REGISTER_RIP) {
            if (!ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&in, op, addr, &d->mem)))
                return -1;
            d->rip = 1;
            d->disp_off = in.raw.disp.offset;
            d->disp_size = in.raw.disp.size / 8;
        } else if (op->type == ZYDIS_OPERAND_TYPE_MEMORY && op->mem.base == ZYDIS_REGISTER_EIP) {
            d->eip = 1;
        } else if (op->type == ZYDIS_OPERAND_TYPE_IMMEDIATE && op->imm.is_relative) {
            if (!ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&in, op, addr, &d->target)))
                return -1;
            d->rel = 1;
            d->imm_off = in.raw.imm[0].offset;
            d->imm_size = in.raw.imm[0].size / 8;
        }
    }
    ZydisInstructionCategory c = in.meta.category;
    ZydisMnemonic m = in.mnemonic;
    if (m == ZYDIS_MNEMONIC_XBEGIN || m == ZYDIS_MNEMONIC_XABORT)
        d->flow = F_BAD;
    else if (c == ZYDIS_CATEGORY_UNCOND_BR)
        d->flow = d->rel ? F_JMP : F_JMPIND;
    else if (c == ZYDIS_CATEGORY_COND_BR)
        d->flow = d->rel ? F_JCC : F_BAD;
    else if (c == ZYDIS_CATEGORY_CALL)
        d->flow = d->rel ? F_CALL : F_CALLIND;
    else if (c == ZYDIS_CATEGORY_RET || c == ZYDIS_CATEGORY_SYSRET)
        d->flow = F_RET;
    else if (c == ZYDIS_CATEGORY_INTERRUPT || m == ZYDIS_MNEMONIC_UD0 || m == ZYDIS_MNEMONIC_UD1 ||
             m == ZYDIS_MNEMONIC_UD2 || m == ZYDIS_MNEMONIC_HLT)
        d->flow = F_TRAP;
    else if (d->rel)
        d->flow = F_BAD; /* a relative operand this file does not know */
    else
        d->flow = F_NEXT;
    return 0;
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

void td_x86_put_jmp_abs(uint8_t *out, uint64_t target)
{
    static const uint8_t op[6] = { 0xff, 0x25, 0, 0, 0, 0 };
    memcpy(out, op, 6);
    put64(out + 6, target);
}

int td_x86_put_jmp_rel32(uint8_t *out, uint64_t from, uint64_t target)
{
    int64_t rel = (int64_t)(target - (from + TD_X86_JMP_REL32));
    if (rel < INT32_MIN || rel > INT32_MAX)
        return -1;
    out[0] = 0xe9;
    put32(out + 1, (uint32_t)rel);
    return 0;
}

static const char *trap_hint(const struct dec *d)
{
    return strcmp(d->mnem, "int3") == 0 ? " (a breakpoint: is a debugger attached?)" : "";
}

int td_x86_plan(const char *name, const uint8_t *code, size_t avail, uint64_t entry, uint64_t fsize,
                unsigned need, struct td_x86_plan *p, struct td_perr *err)
{
    memset(p, 0, sizeof *p);
    p->entry = entry;
    p->need = need;
    if (need != TD_X86_JMP_REL32 && need != TD_X86_JMP_ABS)
        return td_perr_set(err, TD_PE_INVAL, 0, "%s: a patch writes 5 or 14 bytes, not %u", name, need);
    if (fsize && fsize < need)
        return td_perr_set(err, TD_PE_SHORT, 0, "%s is %llu bytes long: the jump needs %u", name,
                           (unsigned long long)fsize, need);
    size_t limit = fsize && fsize < avail ? (size_t)fsize : avail;
    unsigned off = 0;
    while (off < need) {
        if (off >= limit) {
            if (fsize && fsize <= avail)
                return td_perr_set(err, TD_PE_SHORT, 0, "%s is %llu bytes long: the jump needs %u", name,
                                   (unsigned long long)fsize, need);
            return td_perr_set(err, TD_PE_SHORT, 0, "%s: only %zu bytes readable at the entry, the jump needs %u",
                               name, avail, need);
        }
        struct dec d;
        if (decode(code + off, limit - off, entry + off, &d) != 0) {
            if (limit < avail && decode(code + off, avail - off, entry + off, &d) == 0)
                return td_perr_set(err, TD_PE_SHORT, 0,
                                   "%s is %llu bytes long: its instruction at +%u ends past it (the jump needs %u)",
                                   name, (unsigned long long)fsize, off, need);
            return td_perr_set(err, TD_PE_DECODE, 0, "%s: the bytes at +%u (%02x %02x %02x ...) are not an instruction",
                               name, off, code[off], off + 1 < limit ? code[off + 1] : 0,
                               off + 2 < limit ? code[off + 2] : 0);
        }
        int last = off + d.len >= need;
        struct td_x86_insn *in = &p->insn[p->n];
        *in = (struct td_x86_insn){ .off = (uint8_t)off, .len = (uint8_t)d.len, .kind = TD_X86_COPY,
                                    .internal = TD_X86_NONE };
        if (d.eip)
            return td_perr_set(err, TD_PE_INSN, 0, "%s: %s at +%u has an eip-relative operand", name, d.mnem, off);
        if (d.rip) {
            if (d.disp_size != 4 || d.disp_off == 0 || d.disp_off + 4 > d.len)
                return td_perr_set(err, TD_PE_INSN, 0, "%s: %s at +%u: unexpected rip-relative encoding", name,
                                   d.mnem, off);
            in->kind = TD_X86_RIPMEM;
            in->fix_off = (uint8_t)d.disp_off;
            in->target = d.mem;
        }
        switch (d.flow) {
        case F_TRAP:
            return td_perr_set(err, TD_PE_INSN, 0, "%s: %s at +%u cannot move%s", name, d.mnem, off, trap_hint(&d));
        case F_BAD:
            return td_perr_set(err, TD_PE_INSN, 0, "%s: %s at +%u is not relocated by tdtrace", name, d.mnem, off);
        case F_RET:
        case F_JMPIND:
        case F_JMP:
            if (!last)
                return td_perr_set(err, TD_PE_SHORT, 0,
                                   "%s: %s at +%u leaves the function before the %u bytes the jump needs", name,
                                   d.mnem, off, need);
            if (d.flow == F_JMP) {
                in->kind = TD_X86_JMP;
                in->target = d.target;
            }
            break;
        case F_CALL:
        case F_CALLIND:
            if (!last)
                return td_perr_set(err, TD_PE_INSN, 0,
                                   "%s: %s at +%u is not the last instruction the jump overwrites: a call in flight "
                                   "would return into patched bytes", name, d.mnem, off);
            if (d.flow == F_CALL) {
                in->kind = TD_X86_CALL;
                in->target = d.target;
            }
            break;
        case F_JCC:
            if (d.imm_off == 0 || (d.imm_size != 1 && d.imm_size != 4) || d.imm_off + d.imm_size != d.len)
                return td_perr_set(err, TD_PE_INSN, 0, "%s: %s at +%u: unexpected branch encoding", name, d.mnem,
                                   off);
            in->kind = TD_X86_JCC;
            in->fix_off = (uint8_t)d.imm_off;
            in->fix_size = (uint8_t)d.imm_size;
            in->target = d.target;
            break;
        case F_NEXT:
            break;
        }
        p->n++;
        off += d.len;
    }
    p->covered = off;

    /* branches to moved instructions go to their copies */
    for (unsigned i = 0; i < p->n; i++) {
        struct td_x86_insn *in = &p->insn[i];
        if (in->kind != TD_X86_JMP && in->kind != TD_X86_JCC && in->kind != TD_X86_CALL)
            continue;
        if (in->target < entry || in->target >= entry + p->covered)
            continue;
        unsigned k;
        for (k = 0; k < p->n && p->insn[k].off != in->target - entry; k++)
            ;
        if (k == p->n || in->kind == TD_X86_CALL)
            return td_perr_set(err, TD_PE_INSN, 0, "%s: the %s at +%u goes to +%llu, inside the moved instructions",
                               name, in->kind == TD_X86_CALL ? "call" : "branch", in->off,
                               (unsigned long long)(in->target - entry));
        in->internal = (uint8_t)k;
    }

    /* layout, and the window the rip-relative operands leave */
    unsigned o = 0;
    __int128 lo = 0, hi = (__int128)UINT64_MAX;
    for (unsigned i = 0; i < p->n; i++) {
        struct td_x86_insn *in = &p->insn[i];
        in->out_off = (uint16_t)o;
        switch ((enum td_x86_kind)in->kind) {
        case TD_X86_COPY: in->out_len = in->len; break;
        case TD_X86_RIPMEM: {
            in->out_len = in->len;
            /* disp = target - (start + end) must fit an int32 */
            __int128 end = o + in->len;
            __int128 l = (__int128)in->target - end - INT32_MAX, h = (__int128)in->target - end - INT32_MIN;
            if (l > lo)
                lo = l;
            if (h < hi)
                hi = h;
            break;
        }
        case TD_X86_JMP: in->out_len = TD_X86_JMP_ABS; break;
        case TD_X86_JCC: in->out_len = (uint16_t)(in->len + 2 + TD_X86_JMP_ABS); break;
        case TD_X86_CALL: in->out_len = 16; break;
        }
        o += in->out_len;
    }
    p->tramp_len = o + TD_X86_JMP_ABS;
    if (lo > hi)
        return td_perr_set(err, TD_PE_RANGE, 0, "%s: its rip-relative operands are more than 4 GiB apart", name);
    p->lo = (uint64_t)lo;
    p->hi = (uint64_t)hi;
    return 0;
}

int td_x86_emit(const char *name, const struct td_x86_plan *p, const uint8_t *code, uint64_t at, uint8_t *out,
                struct td_perr *err)
{
    for (unsigned i = 0; i < p->n; i++) {
        const struct td_x86_insn *in = &p->insn[i];
        uint8_t *o = out + in->out_off;
        uint64_t dest = in->internal != TD_X86_NONE ? at + p->insn[in->internal].out_off : in->target;
        switch ((enum td_x86_kind)in->kind) {
        case TD_X86_COPY:
            memcpy(o, code + in->off, in->len);
            break;
        case TD_X86_RIPMEM: {
            memcpy(o, code + in->off, in->len);
            int64_t disp = (int64_t)(in->target - (at + in->out_off + in->len));
            if (disp < INT32_MIN || disp > INT32_MAX)
                return td_perr_set(err, TD_PE_RANGE, 0,
                                   "%s: the operand at +%u (0x%llx) is out of reach of a trampoline at 0x%llx", name,
                                   in->off, (unsigned long long)in->target, (unsigned long long)at);
            put32(o + in->fix_off, (uint32_t)disp);
            break;
        }
        case TD_X86_JMP:
            td_x86_put_jmp_abs(o, dest);
            break;
        case TD_X86_JCC:
            /* jcc +2 (to the absolute jump); jmp +14 (over it); jmp [rip]; .quad dest */
            memcpy(o, code + in->off, in->len);
            if (in->fix_size == 1)
                o[in->fix_off] = 2;
            else
                put32(o + in->fix_off, 2);
            o[in->len] = 0xeb;
            o[in->len + 1] = TD_X86_JMP_ABS;
            td_x86_put_jmp_abs(o + in->len + 2, dest);
            break;
        case TD_X86_CALL: {
            /* call [rip + 2]; jmp +8; .quad dest: the callee returns into
             * the trampoline, which goes on (a shadow stack stays right) */
            static const uint8_t op[8] = { 0xff, 0x15, 2, 0, 0, 0, 0xeb, 8 };
            memcpy(o, op, 8);
            put64(o + 8, dest);
            break;
        }
        }
    }
    td_x86_put_jmp_abs(out + p->tramp_len - TD_X86_JMP_ABS, p->entry + p->covered);
    return 0;
}

int td_x86_scan(const char *name, const struct td_x86_plan *p, const uint8_t *buf, size_t len, uint64_t addr,
                int final, size_t *used, struct td_perr *err)
{
    uint64_t lo = p->entry, hi = p->entry + p->covered;
    size_t off = 0;
    while (off < len) {
        struct dec d;
        if (decode(buf + off, len - off, addr + off, &d) != 0) {
            if (!final && len - off < ZYDIS_MAX_INSTRUCTION_LENGTH)
                break;
            return td_perr_set(err, TD_PE_DECODE, 0,
                               "%s: the bytes at +%llu are not an instruction; checking the body for branches into "
                               "the patch needs all of it", name, (unsigned long long)(addr + off - lo));
        }
        unsigned long long at = addr + off - lo;
        if (d.rel) {
            int inside = d.flow == F_CALL ? d.target > lo && d.target < hi : d.target >= lo && d.target < hi;
            if (inside)
                return td_perr_set(err, TD_PE_BRANCH, 0, "%s: %s at +%llu goes to +%llu, %s", name, d.mnem, at,
                                   (unsigned long long)(d.target - lo),
                                   d.target == lo ? "the entry (a loop through it would run the replacement again)"
                                                  : "inside the instructions the patch overwrites");
        }
        if (d.rip && d.mem > lo && d.mem < hi)
            return td_perr_set(err, TD_PE_BRANCH, 0, "%s: %s at +%llu uses the address +%llu, inside the "
                               "instructions the patch overwrites", name, d.mnem, at,
                               (unsigned long long)(d.mem - lo));
        off += d.len;
    }
    *used = off;
    return 0;
}
