/* SPDX-License-Identifier: Apache-2.0 */
/* What the emulated GPU reports to a listener (the shim, which writes it
 * into the trace as TD_REC_EVENT records, include/tdtrace/record.h): its
 * reports (a kernel's fault, a diagnostic such as a module that does not
 * load) and each kernel it ran, with when.
 *
 * The emulator exports one function, found with dlsym:
 *     void tdtrace_emu_listen(td_emu_listener fn);
 * With a listener set, reports go to it instead of the program's standard
 * error. The listener runs on the thread that reports (a stream's worker
 * for a kernel), must not call into the emulator, and may not keep the
 * pointers it is given. */
#ifndef TDTRACE_EMUEVENT_H
#define TDTRACE_EMUEVENT_H

#include <stddef.h>
#include <stdint.h>

#define TD_EMU_LISTEN "tdtrace_emu_listen"

enum td_emu_event_kind {
    TD_EMU_REPORT = 1,
    TD_EMU_KERNEL = 2,
    TD_EMU_IMAGE = 3,
    TD_EMU_SUBMIT = 4,  /* work is being queued, on the thread that queues it (inside the
                         * call that does): the listener writes the call's correlation id
                         * into *corr_out, 0 when it wants no device times */
    TD_EMU_OP = 5,      /* work other than a kernel ran on a stream, t_start to t_end */
};

/* what an operation on a stream is (TD_EMU_OP's op) */
enum td_emu_op { TD_EMU_OP_KERNEL = 1, TD_EMU_OP_MEMCPY, TD_EMU_OP_MEMSET, TD_EMU_OP_HOST, TD_EMU_OP_EVENT,
                 TD_EMU_OP_MEMOP };
/* a copy's direction */
enum td_emu_dir { TD_EMU_HTOD = 0, TD_EMU_DTOH, TD_EMU_DTOD, TD_EMU_HTOH };

struct td_emu_event {
    uint32_t size;            /* sizeof(struct td_emu_event) of the emulator */
    uint32_t kind;            /* enum td_emu_event_kind */
    const char *text;         /* REPORT: the report as the emulator words it */
    size_t len;
    const char *kernel;       /* the kernel (mangled), or NULL */
    int result;               /* the CUresult the program gets for it */
    uint64_t t_start, t_end;  /* CLOCK_MONOTONIC ns: the kernel's run; a report's time */
    unsigned grid[3], block[3], shared;   /* KERNEL */
    /* a kernel's fault (REPORT with fault set) */
    int fault, has_thread;
    unsigned fblock[3], thread[3];
    int access;               /* 0 none, 1 read, 2 write, 3 atomic */
    unsigned bytes;
    const char *space;        /* "global", "shared", ... */
    uint64_t addr;
    const char *file;         /* the .cu file of the PTX's .loc, or NULL */
    int line;
    /* IMAGE: an image was loaded; what it needs of a device and a driver */
    int image_cc;             /* the least compute capability that loads it (10 * major + minor; 0: any) */
    int image_isa;            /* the PTX ISA version of the PTX chosen (10 * major + minor; 0: none) */
    /* KERNEL and OP: where it ran, and which call queued it */
    uint64_t corr;            /* what the listener answered at SUBMIT (0: nothing) */
    uint64_t stream;          /* the stream's ordinal in the process: 0 the legacy stream */
    int device;               /* the device's ordinal */
    int op;                   /* OP: enum td_emu_op */
    int dir;                  /* OP, a copy: enum td_emu_dir */
    uint64_t op_bytes;        /* OP: a copy's or memset's bytes */
    uint64_t *corr_out;       /* SUBMIT: where the listener answers */
    /* KERNEL: the PTX JIT took the kernel up at this launch (its first):
     * 1 compiled it, 2 loaded it from its cache on disk; 0 neither */
    int jit;
    double jit_ms;            /* how long that took */
    uint64_t jit_code_bytes;  /* the compiled code the process holds then */
};

typedef void (*td_emu_listener)(const struct td_emu_event *ev);

#endif
