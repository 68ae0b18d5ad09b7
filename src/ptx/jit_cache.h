/* SPDX-License-Identifier: Apache-2.0 */
/* The PTX JIT's cache of compiled kernels on disk (docs/ptx-jit.md, "The
 * cache"), used by jit.c and nothing else. Every call is made under
 * jit_llvm_lock (one compile at a time), between jitc_begin and jitc_end.
 *
 * The code jit.c generates names no host address: each helper, the
 * module's instructions and each per-lane handler are read from a global
 * of the object (jitc_ref) that jitc_bind fills after the object is
 * loaded, so an object is the same in every process and can be kept. */
#ifndef TD_PTX_JIT_CACHE_H
#define TD_PTX_JIT_CACHE_H

#include "jit.h"

/* begins compiling (or loading) entry of m: the symbol of its code in sym;
 * 1 when the cache serves this kernel (its key made), else 0 */
int jitc_begin(const struct llvm_api *api, const struct ptx_module *m, int entry, const ex_fn *h,
               const struct jit_helpers *hp, char *sym, size_t n);
/* the kernel's code from the cache, loaded into k (state 1): 1, or 0 (a
 * miss; a bad entry is ignored and will be replaced) */
int jitc_load(const struct llvm_api *api, struct jit_kernel *k);
/* the host address p the code uses (a helper of hp, an instruction of m,
 * a handler of h) as a value the code reads at run time */
void *jitc_ref(const struct llvm_api *api, void *ctx, void *mod, void *b, const void *p);
/* the target machine that jitc_add generates code with at -O2, for the
 * optimiser's cost model; NULL where there is none (jitc_add then says
 * why) */
void *jitc_target(const struct llvm_api *api);
/* the optimised module mod (disposed here) as native code (light: the code
 * generator at -O0, jit_light), added to the JIT under rt: 0, or -1 with why */
int jitc_add(const struct llvm_api *api, void *mod, void *rt, int light, char *why, size_t n);
/* after the lookup of the kernel's symbol: its references filled (0), or
 * -1 with why */
int jitc_bind(const struct llvm_api *api, char *why, size_t n);
/* the end: k compiled (state 1) goes to the cache; counts it */
void jitc_end(const struct jit_kernel *k);
/* the code of resource tracker rt is released */
void jitc_forget(void *rt);

/* the process's figures (for the emulator's summary) */
struct jitc_stats {
    unsigned long compiled, loaded;   /* kernels compiled, loaded from the cache */
    double compile_ms, load_ms;       /* their total time */
    unsigned long long code_bytes;    /* object code held now */
    unsigned long long code_peak;     /* and at most */
};
void jitc_stats(struct jitc_stats *s);
/* why the cache is not used (once, for the report), or 0 */
int jitc_note(char *buf, size_t n);

#endif
