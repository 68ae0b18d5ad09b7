/* SPDX-License-Identifier: Apache-2.0 */
/* The layer in front of NVIDIA's NVRTC and nvJitLink (lib/tdtrace/jit):
 * what its two libraries share. Each forwards every call to NVIDIA's real
 * library and, where the program is handed machine code, hands it a
 * fatbinary that also holds the PTX (docs/ARCHITECTURE.md, "NVRTC and
 * nvJitLink on the emulated GPU"). */
#ifndef TD_JIT_H
#define TD_JIT_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#define TD_EXPORT __attribute__((visibility("default")))

/* One of NVIDIA's libraries, opened on first use. */
struct td_jit_lib {
    const char *soname;            /* "libnvrtc.so.13" */
    const char *const *names;      /* its functions, by id */
    _Atomic(void *) *fns;          /* resolved, by id */
    int nfns;
    int tried;                     /* opening it was tried */
    void *handle;                  /* NULL if it could not be opened */
    char path[PATH_MAX];
};

/* The real function with this id, or NULL (a message on stderr says why,
 * once per library and once per function). */
void *td_jit_real(struct td_jit_lib *lib, int id);

/* Whether TDTRACE_JIT_LOG asks for a line per substitution. */
int td_jit_logging(void);
/* One line on stderr, "tdtrace-jit: " first: always for errors of the
 * layer itself, under TDTRACE_JIT_LOG for substitutions. */
void td_jit_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- the substitution both libraries make ----------------------------- */

/* What to hand out for machine code `elf` (len bytes) whose PTX is `ptx`
 * (NULL if none came with it; `why` then says why): a fatbinary holding
 * the PTX (and the machine code when its entry layout is known) in *out,
 * or nothing (*out NULL) when the machine code goes out as it is. Under
 * TDTRACE_JIT_LOG one line says which, and why; `what` names the caller
 * there ("nvrtcGetCUBINSize: program \"x.cu\""). 0, or -1 when out of
 * memory. */
int td_jit_substitute(const char *what, const void *elf, size_t len, const char *ptx,
                      size_t ptxlen, const char *why, unsigned char **out, size_t *outlen);

#endif
