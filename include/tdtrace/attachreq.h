/* SPDX-License-Identifier: Apache-2.0 */
/* tdtrace -p: what tdtrace hands the shim it loaded into a running process
 * (src/tdtrace/attach.c writes it into the process, src/shim/attach.c
 * reads it there). Both come from one build: nfns must match. */
#ifndef TDTRACE_ATTACHREQ_H
#define TDTRACE_ATTACHREQ_H

#include <stdint.h>

#define TD_ATTACH_MAGIC 0x74646174u /* "tdat" */
#define TD_ATTACH_VERSION 1
#define TD_ATTACH_MAXPAIRS 2048

/* the shim's two entry points, called by tdtrace inside the process */
#define TD_ATTACH_FN "tdtrace_shim_attach"
#define TD_DETACH_FN "tdtrace_shim_detach"

/* a driver entry point tdtrace patched to jump to the shim, and the
 * trampoline that runs the original function */
struct td_attach_pair {
    uint64_t entry, original;
};

struct td_attach_req {
    uint32_t magic, version;
    uint32_t nfns;  /* TD_FN__ENTRY_POINTS */
    uint32_t kind;  /* TD_BK_DRIVER or TD_BK_EMULATE */
    char sock[108]; /* tdtrace's abstract socket */
    char driver[4096]; /* the driver library the process has loaded (its path in the maps) */
    char msg[256];     /* out: why the attach failed */
    uint32_t npairs;   /* sorted by entry */
    uint32_t kept;     /* out: the shim keeps the trampolines (it failed after taking them) */
    struct td_attach_pair pairs[];
};

#endif
