/* SPDX-License-Identifier: Apache-2.0 */
/* Code and GOT patching, for the shim (issue 17: the CUDA runtime linked
 * statically into an executable) and the supervisor (issue 20: attach to a
 * running process). x86-64 only; see docs/ARCHITECTURE.md, "Code patching
 * (src/patch)".
 *
 * One address space is reached through a struct td_patch_mem: this process
 * (td_patch_mem_self) or another one (td_procmem: /proc/PID/mem plus a
 * caller-supplied way to map memory in it). A td_patcher holds that and the
 * trampoline memory ("islands") it mapped there.
 *
 * A function patch is prepared (its first instructions are decoded, checked
 * and relocated into a trampoline in an island, the entry bytes computed),
 * then applied (the entry bytes written) and undone (the original bytes put
 * back) as often as needed. Every function returns 0 or a TD_PE_* code and
 * fills *err (a message naming the function and the reason). */
#ifndef TD_PATCH_H
#define TD_PATCH_H

#include <stddef.h>
#include <stdint.h>

enum td_perr_code {
    TD_PE_OK = 0,
    TD_PE_INVAL,     /* a bad argument */
    TD_PE_ELF,       /* not a usable ELF object (corrupt, truncated, wrong class) */
    TD_PE_ARCH,      /* an architecture other than x86-64 */
    TD_PE_NOTFOUND,  /* no such function */
    TD_PE_AMBIGUOUS, /* several local functions of that name */
    TD_PE_SHORT,     /* the function ends before the bytes the jump needs */
    TD_PE_DECODE,    /* bytes that are not an x86-64 instruction */
    TD_PE_INSN,      /* an instruction the relocator does not move (named) */
    TD_PE_BRANCH,    /* the function reaches into the bytes the patch overwrites */
    TD_PE_RANGE,     /* no trampoline memory within reach */
    TD_PE_MEM,       /* reading, writing, protecting or mapping memory failed */
    TD_PE_CHANGED,   /* the bytes there are not the ones expected */
    TD_PE_UNSAFE,    /* no write order safe with running threads: stop them */
    TD_PE_NOMEM,     /* out of memory (this process) */
};

struct td_perr {
    enum td_perr_code code;
    int sys_errno;  /* the errno behind TD_PE_MEM, else 0 */
    char msg[256];
};

/* "TD_PE_SHORT" etc. */
const char *td_perr_name(enum td_perr_code code);

/* ---- one address space --------------------------------------------- */

/* Every callback returns 0 or -errno. */
struct td_patch_mem {
    /* copy len bytes at addr into buf (all of them, or fail) */
    int (*read)(void *ctx, uint64_t addr, void *buf, size_t len);
    /* write island memory no thread executes yet (it may be mapped R-X) */
    int (*write)(void *ctx, uint64_t addr, const void *buf, size_t len);
    /* replace len (<= 16) live bytes at addr, code or data: -ECANCELED when
     * the bytes there are not `expect` (nothing written), -ENOTSUP when no
     * write order is safe with running threads (see flags below) */
    int (*replace)(void *ctx, uint64_t addr, const void *expect, const void *bytes, size_t len,
                   unsigned flags);
    /* map size bytes (a multiple of the page size) of executable memory
     * whose start lies in [lo, hi]; *addr gets the start */
    int (*map)(void *ctx, uint64_t lo, uint64_t hi, size_t size, uint64_t *addr);
    void *ctx;
};

/* this process: reads with process_vm_readv (a bad address fails, never
 * faults), writes after mprotect (the old protection is restored), maps
 * near the target from /proc/self/maps. replace without TD_PATCH_STOPPED
 * is safe for threads that reach the changed bytes while they change (see
 * docs/ARCHITECTURE.md); threads already inside them are not: patch before
 * they run, or stop them. */
extern const struct td_patch_mem td_patch_mem_self;
/* whether this process's writes are followed by a core serialisation of
 * every thread (membarrier SYNC_CORE); 0 on kernels without it */
int td_patch_self_sync_core(void);

/* another process, stopped by the caller: /proc/PID/mem for reads and
 * writes (which ignore page protections), `map` for islands (the
 * supervisor injects an mmap system call). */
struct td_procmem {
    int fd;
    int pid;
    int (*map)(void *arg, uint64_t lo, uint64_t hi, size_t size, uint64_t *addr);
    void *map_arg;
};
int td_procmem_open(struct td_procmem *pm, int pid,
                    int (*map)(void *arg, uint64_t lo, uint64_t hi, size_t size, uint64_t *addr),
                    void *map_arg, struct td_perr *err);
void td_procmem_close(struct td_procmem *pm);
struct td_patch_mem td_procmem_ops(struct td_procmem *pm);

/* ---- patcher --------------------------------------------------------- */

struct td_patcher;
/* mem is copied; NULL when out of memory */
struct td_patcher *td_patcher_new(const struct td_patch_mem *mem);
/* forgets the islands, does not unmap them: trampolines may still run */
void td_patcher_free(struct td_patcher *pt);

enum {
    TD_PATCH_ABS = 1,           /* write the 14-byte absolute jump even if a 5-byte one would do */
    TD_PATCH_STOPPED = 2,       /* no other thread runs: plain writes, in any order */
    TD_PATCH_NO_BODY_CHECK = 4, /* skip the scan of the function's body */
};

#define TD_PATCH_NAME_MAX 64
#define TD_PATCH_MAXLEN 16

/* a prepared patch and its restoration record (plain data) */
struct td_patch {
    char name[TD_PATCH_NAME_MAX];
    uint64_t addr;        /* function entry */
    uint64_t replacement; /* where calls go once applied */
    uint64_t original;    /* the trampoline: calling it runs the original function */
    uint64_t island;      /* [island, island + island_len): this patch's island memory */
    uint32_t island_len;
    uint8_t len;          /* bytes written at addr: 5 (jmp rel32) or 14 (jmp [rip]) */
    uint8_t covered;      /* whole instructions moved to the trampoline, >= len */
    uint8_t body_checked; /* the body (addr, size) was scanned for branches into the patch */
    uint8_t applied;
    uint8_t orig[TD_PATCH_MAXLEN];  /* the len bytes at addr before */
    uint8_t bytes[TD_PATCH_MAXLEN]; /* the len bytes at addr once applied */
};

/* Decode the first instructions of the function `name` at addr (size bytes
 * long from its symbol, 0 if unknown: then the body is not scanned), check
 * that they can move, place the trampoline in an island and compute the
 * entry bytes. Nothing at addr is written yet. Flags: TD_PATCH_ABS,
 * TD_PATCH_NO_BODY_CHECK. */
int td_patch_prepare(struct td_patcher *pt, const char *name, uint64_t addr, uint64_t size,
                     uint64_t replacement, unsigned flags, struct td_patch *p, struct td_perr *err);
/* write the entry bytes / put the original ones back. The bytes there must
 * be the expected ones (else TD_PE_CHANGED and nothing is written).
 * Flags: TD_PATCH_STOPPED. */
int td_patch_apply(struct td_patcher *pt, struct td_patch *p, unsigned flags, struct td_perr *err);
int td_patch_undo(struct td_patcher *pt, struct td_patch *p, unsigned flags, struct td_perr *err);

/* ---- GOT slots ------------------------------------------------------- */

struct td_got_patch {
    uint64_t slot;  /* the slot's address */
    uint64_t orig;  /* its value before (with lazy binding: maybe the PLT stub) */
    uint64_t value; /* its value once applied */
    uint8_t applied;
};
/* point the 8-byte aligned slot at value; rec keeps what was there */
int td_got_set(struct td_patcher *pt, uint64_t slot, uint64_t value, unsigned flags,
               struct td_got_patch *rec, struct td_perr *err);
/* put rec->orig back if the slot still holds rec->value (else TD_PE_CHANGED) */
int td_got_undo(struct td_patcher *pt, struct td_got_patch *rec, unsigned flags, struct td_perr *err);

/* ---- threads --------------------------------------------------------- */

struct td_range {
    uint64_t lo, hi; /* [lo, hi) */
};
struct td_thread_ip {
    int tid;
    uint64_t ip;
    int in_syscall; /* stopped in a system call: a restart goes back to ip - 2 */
};
/* the bytes no stopped thread may be at while p is applied or undone:
 * the inside of the overwritten instructions, (addr, addr + covered) */
struct td_range td_patch_busy_range(const struct td_patch *p);
/* The index of the first thread whose ip (or ip - 2, the system call it
 * would restart, when in_syscall) lies in one of the ranges, -1 if none;
 * *range (if not NULL) gets the range's index and *restart whether only the
 * restart address is inside. The caller steps such a thread out first. */
long td_threads_inside(const struct td_range *ranges, size_t nranges, const struct td_thread_ip *threads,
                       size_t nthreads, size_t *range, int *restart);

/* ---- /proc/PID/maps -------------------------------------------------- */

struct td_map {
    uint64_t start, end, offset;
    int prot;         /* PROT_* */
    const char *path; /* "" for anonymous mappings; valid during the callback */
};
/* call cb for each mapping of pid (0: this process), in address order;
 * cb returns nonzero to stop (and that is returned); -errno on failure */
int td_maps_foreach(int pid, int (*cb)(const struct td_map *m, void *arg), void *arg);
/* a page-aligned address in [lo, hi] where size bytes are unmapped, nearest
 * to the middle of [lo, hi], away from the heap's and the stack's growth;
 * 0 or -errno (-ENOMEM: none) */
int td_maps_find_gap(int pid, uint64_t lo, uint64_t hi, size_t size, uint64_t *addr);

#endif
