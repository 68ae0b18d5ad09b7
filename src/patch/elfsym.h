/* SPDX-License-Identifier: Apache-2.0 */
/* ELF resolution for patching: functions by name (.dynsym and .symtab,
 * local symbols included), the GOT slots of imported symbols, the load
 * bias of a mapping. The file is untrusted: every index, offset and size
 * is checked, and a corrupt file is an error, never a crash. */
#ifndef TD_ELFSYM_H
#define TD_ELFSYM_H

#include <stddef.h>
#include <stdint.h>

#include "patch.h"

struct td_elf;

struct td_elf_sym {
    const char *name;  /* valid while the td_elf is open */
    uint64_t addr;     /* the symbol's value plus the bias */
    uint64_t size;     /* from the symbol, 0 if unknown */
    unsigned char bind;    /* STB_LOCAL, STB_GLOBAL, STB_WEAK, STB_GNU_UNIQUE */
    unsigned char type;    /* STT_FUNC, or STT_GNU_IFUNC: addr is the resolver */
    unsigned char dynamic; /* exported (.dynsym), else known from .symtab only */
};

/* An object as the loader mapped it: `bias` is added to every address in
 * the file (dl_iterate_phdr's dlpi_addr; 0 for a non-PIE executable).
 * Only ELF64 x86-64 executables and shared objects (TD_PE_ARCH names the
 * machine of others). */
int td_elf_open(const char *path, uint64_t bias, struct td_elf **out, struct td_perr *err);
/* the same from a copy of the file's bytes (tests, fuzzing) */
int td_elf_open_mem(const void *data, size_t len, uint64_t bias, struct td_elf **out, struct td_perr *err);
void td_elf_close(struct td_elf *e);

void td_elf_set_bias(struct td_elf *e, uint64_t bias);
/* the bias of the object given one of its mappings from /proc/PID/maps:
 * `start` maps the file at `offset` */
int td_elf_bias_for_mapping(const struct td_elf *e, uint64_t start, uint64_t offset, uint64_t *bias,
                            struct td_perr *err);

/* 1 when the file has no .symtab: only exported functions can be found */
int td_elf_stripped(const struct td_elf *e);

/* A defined function (STT_FUNC or STT_GNU_IFUNC inside an executable
 * segment). A global or weak definition wins over local ones; of several
 * versions of an exported name, the default one (name@@VERSION); several
 * local functions of one name at different addresses are TD_PE_AMBIGUOUS. */
int td_elf_find_func(const struct td_elf *e, const char *name, struct td_elf_sym *out, struct td_perr *err);
/* every function as td_elf_find_func sees it, in name order (an ambiguous
 * local name once per address); cb returns nonzero to stop, which is
 * returned */
int td_elf_foreach_func(const struct td_elf *e, int (*cb)(const struct td_elf_sym *s, void *arg), void *arg);

struct td_elf_slot {
    const char *name; /* the imported symbol; valid while the td_elf is open */
    uint64_t addr;    /* the slot's address (bias added), 8-byte aligned */
    unsigned type;    /* R_X86_64_JUMP_SLOT (PLT) or R_X86_64_GLOB_DAT */
    int defined;      /* the object defines the symbol itself (interposable) */
};
/* The GOT slots (R_X86_64_JUMP_SLOT, R_X86_64_GLOB_DAT) of the dynamic
 * symbols for which match(name, arg) is nonzero (all if match is NULL).
 * *out is malloc'ed (free() it), NULL when none. */
int td_elf_got_slots(const struct td_elf *e, int (*match)(const char *name, void *arg), void *arg,
                     struct td_elf_slot **out, size_t *n, struct td_perr *err);

/* whether addr (bias included) lies in the object's .plt, .plt.sec or
 * .plt.got: a JUMP_SLOT holding such a value is not bound yet (lazy
 * binding), and calling it would bind it (overwriting the slot) */
int td_elf_in_plt(const struct td_elf *e, uint64_t addr);

#endif
