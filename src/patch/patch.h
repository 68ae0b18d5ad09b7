/* Code and GOT patching, for the shim (issue 17: the CUDA runtime linked
 * statically into an executable) and the supervisor (issue 20: attach to a
 * running process). x86-64 only. Every function returns 0 or a TD_PE_*
 * code and fills *err (a message naming the function and the reason). */
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
