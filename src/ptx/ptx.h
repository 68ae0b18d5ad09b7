/* The PTX engine: a front end (lexer, parser, checker) that turns PTX text
 * into a compact internal form once, and an executor that runs a kernel of
 * that form on the host, a warp's 32 lanes at a time (SIMT with an active
 * mask). This header is the engine's whole interface to the emulator; it
 * knows nothing of contexts or streams.
 *
 * Addresses. Global and constant memory, and generic addresses, are host
 * addresses. Shared addresses are offsets in the block's shared window,
 * local addresses offsets in the thread's local window, param addresses
 * offsets in the kernel's parameter buffer; cvta converts between them and
 * generic host addresses. Every access is checked (ptx_host.lookup), so a
 * stray pointer fails the launch instead of crashing the host program. */
#ifndef TD_PTX_H
#define TD_PTX_H

#include <stddef.h>
#include <stdint.h>

struct ptx_module;

/* A module-scope .global or .const variable. */
struct ptx_global_info {
    const char *name;
    int is_const;
    uint64_t size;
    unsigned align;
    const unsigned char *init;   /* initial bytes (size of them), or NULL: zeros */
};

/* Parses PTX text (len bytes, or up to a NUL). Never fails for unsupported
 * instructions: those are recorded and reported by ptx_entry_check. Returns
 * NULL with a message in err for malformed text or no memory. */
struct ptx_module *ptx_parse(const char *text, size_t len, char *err, size_t errlen);
void ptx_module_free(struct ptx_module *m);

int ptx_global_count(const struct ptx_module *m);
const struct ptx_global_info *ptx_global(const struct ptx_module *m, int i);
/* Index of entry `name`, or -1. */
int ptx_entry_find(const struct ptx_module *m, const char *name);
/* Parameter buffer size of the entry (bytes). */
unsigned ptx_entry_param_bytes(const struct ptx_module *m, int entry);
/* The entry's parameters: count, and for i < max their offsets and sizes
 * in the parameter buffer. */
int ptx_entry_params(const struct ptx_module *m, int entry, unsigned *off, unsigned *size, int max);
/* Static shared memory the entry uses (bytes). */
unsigned ptx_entry_shared_bytes(const struct ptx_module *m, int entry);
/* 0 if the entry and every function it calls can run; else -1 with a
 * message naming the first unsupported instruction and its PTX line. */
int ptx_entry_check(const struct ptx_module *m, int entry, char *err, size_t errlen);

/* What the executor needs from its host. */
struct ptx_host {
    void *cookie;
    /* The allocation [lo, hi) holding addr, for the validity check of
     * global and generic accesses: 0, or -1 if addr is not device memory. */
    int (*lookup)(void *cookie, uint64_t addr, uint64_t *lo, uint64_t *hi);
    /* Device printf output (one formatted call). */
    void (*print)(void *cookie, const char *text, size_t len);
};

enum ptx_status {
    PTX_OK = 0,
    PTX_E_ASSERT,        /* __assertfail */
    PTX_E_TRAP,          /* trap, or a launch that cannot go on */
    PTX_E_ADDRESS,       /* access outside any allocation */
    PTX_E_MISALIGNED,    /* misaligned access */
    PTX_E_UNSUPPORTED,   /* the checker refused the kernel */
    PTX_E_NOMEM,
    PTX_E_STACK,         /* call stack too deep */
};

struct ptx_launch {
    unsigned grid[3], block[3];
    unsigned dyn_shared;                /* dynamic shared bytes */
    const void *params;                 /* the parameter buffer */
    unsigned param_bytes;
    const uint64_t *gaddr;              /* by global index: its address */
    int nthreads;                       /* host threads to use (0: all cores) */
    unsigned smcount;                   /* %nsmid */
    uint64_t max_instructions;          /* per host thread, checked at backward
                                           branches; 0: no limit (fuzzing) */
    struct ptx_host host;
};

/* Runs the kernel to completion. err receives a message on failure. */
enum ptx_status ptx_run(const struct ptx_module *m, int entry, const struct ptx_launch *l,
                        char *err, size_t errlen);

/* Thread-instructions executed by this process so far (all launches). */
uint64_t ptx_instructions(void);

#endif
