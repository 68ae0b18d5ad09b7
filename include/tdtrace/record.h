/* SPDX-License-Identifier: Apache-2.0 */
/* The event records the shim writes and tdtrace reads.
 *
 * Every traced process gets its own ring from tdtrace (memfd: no file in
 * any shared directory): when the shim starts in a process it connects to
 * tdtrace's socket, tdtrace learns the process's pid from the kernel
 * (SO_PEERCRED), checks that it traces it, and hands back three
 * descriptors: the process's ring (a header page and a power-of-two data
 * ring), the control area (struct td_ctl: flags, trace mask, the policy;
 * sealed, so no process can write it) and the shared area (struct
 * td_shared: the device-memory budget every process shares, and the
 * reader's wake-up flag; writable by every traced process, so what it
 * holds is advisory). A record is attributed to the process that owns the
 * ring: the pid in a record is only its claim.
 *
 * Everything in a ring is written by the traced program, so tdtrace treats
 * every byte as untrusted: it copies a record out before decoding it and
 * checks every length, index and id; a process that writes garbage into its
 * ring loses its own records, nobody else's.
 *
 * A record is a multiple of 8 bytes and starts with one 64-bit word:
 *   bits  0..15  length in bytes (header included)
 *   bits 16..23  state: 0 free, 1 reserved, 2 committed
 *   bits 24..31  type (TD_REC_*)
 *   bits 32..63  the writer's thread id
 * Writers reserve space with a CAS on head, store the word as reserved
 * (with the length and their tid, so the reader can skip a record whose
 * writer is gone, once the kernel says the thread no longer exists), fill
 * the record, then store the word as committed (release). The reader
 * zeroes what it consumed before it advances tail.
 */
#ifndef TDTRACE_RECORD_H
#define TDTRACE_RECORD_H

#include <stdint.h>

#define TD_RING_MAGIC   0x3167726474647454ULL   /* "Ttdtrdg1" */
#define TD_RING_VERSION 7   /* 6: TD_IT_LIB (-e lib=), calls of up to 20 arguments; 7: td_ev_kernel.jit */
#define TD_CTL_MAGIC    0x316c746374647454ULL   /* "Ttdtctl1" */
#define TD_RING_HDR     4096u
#define TD_RING_MAXREC  4096u      /* no record is longer */
#define TD_MAX_ARGS     20   /* cublasGemmEx has 19 */
#define TD_STR_MAX      256        /* bytes of a string kept in a record */
#define TD_MAX_FRAMES   32         /* -k: return addresses kept */
#define TD_MAX_DEVICES  64

enum td_rec_state { TD_ST_FREE = 0, TD_ST_RESERVED = 1, TD_ST_COMMITTED = 2 };

enum td_rec_type {
    TD_REC_PAD = 1,    /* filler up to the end of the ring */
    TD_REC_CALL = 2,   /* one driver call */
    TD_REC_HELLO = 3,  /* a process loaded the shim: its backend */
    TD_REC_EVENT = 4,  /* something the backend reports (fn: enum td_event_kind) */
};

/* TD_REC_EVENT: fn holds the kind; no arguments; t_enter and t_exit are
 * CLOCK_MONOTONIC nanoseconds whatever TD_RING_TSC says (the emulator's
 * clock); result: the CUresult the event gave the program */
enum td_event_kind {
    TD_EV_REPORT = 1,  /* the emulator's report (a kernel's fault, a diagnostic): TD_IT_TEXT;
                        * a kernel's fault also TD_IT_EVENT (struct td_ev_fault), TD_IT_STR
                        * arg 1 the kernel (mangled), arg 2 its .cu file */
    TD_EV_KERNEL = 2,  /* a kernel ran on the emulated device, t_enter to t_exit:
                        * TD_IT_EVENT (struct td_ev_kernel), TD_IT_STR arg 1 the kernel */
    TD_EV_IMAGE = 3,   /* the emulator loaded an image (a module or library):
                        * TD_IT_EVENT (struct td_ev_image) */
    TD_EV_WARNING = 4, /* the shim's warning (--runtime: what it could not patch, a
                        * stripped executable): TD_IT_TEXT, one line a warning */
    TD_EV_DEVOP = 5,   /* other work ran on an emulated stream (a copy, a memset, a host
                        * function, an event record, a memory operation), t_enter to
                        * t_exit: TD_IT_EVENT (struct td_ev_devop); only with TD_RING_DEVICE */

};

/* what the emulator says of a kernel's fault */
struct td_ev_fault {
    uint32_t has_thread;
    uint32_t block[3], thread[3];
    uint32_t access;      /* 0 none, 1 read, 2 write, 3 atomic */
    uint32_t size;        /* bytes accessed */
    int32_t line;         /* .cu line, 0 unknown */
    uint64_t addr;        /* the address (shared/local/param: an offset in that window) */
    char space[8];        /* "global", "shared", ... NUL-padded */
};

/* an image loaded: what it needs (the needs report) */
struct td_ev_image {
    uint32_t least_cc;    /* the least compute capability that loads it, 10 * major + minor; 0: any */
    uint32_t ptx_isa;     /* the PTX ISA version of the PTX the device runs, 10 * major + minor; 0: none */
};

/* a kernel that ran */
struct td_ev_kernel {
    uint32_t grid[3], block[3];
    uint32_t shared;      /* dynamic shared memory, bytes */
    uint32_t device;      /* the device's ordinal (< TD_MAX_DEVICES) */
    uint64_t stream;      /* the stream's ordinal in the process: 0 the legacy stream
                           * (< TD_MAX_STREAM) */
    uint64_t corr;        /* the call that launched it (its TD_IT_CORR); 0: not known */
    uint32_t jit;         /* the emulator's JIT at this launch: 0 nothing, 1 compiled the
                           * kernel, 2 loaded it from the cache on disk */
    uint32_t jit_us;      /* how long that took, microseconds */
    uint64_t jit_code_bytes; /* the compiled code the process held then */
};

/* other work that ran on a stream */
enum td_devop_kind { TD_DOP_MEMCPY = 2, TD_DOP_MEMSET, TD_DOP_HOST, TD_DOP_EVENT, TD_DOP_MEMOP };
enum td_devop_dir { TD_DIR_HTOD = 0, TD_DIR_DTOH, TD_DIR_DTOD, TD_DIR_HTOH, TD_DIR__COUNT };
struct td_ev_devop {
    uint32_t kind;        /* enum td_devop_kind */
    uint32_t dir;         /* a copy: enum td_devop_dir */
    uint32_t device;      /* as td_ev_kernel's */
    uint32_t pad;
    uint64_t stream, corr;
    uint64_t bytes;       /* a copy's or a memset's */
};
#define TD_MAX_STREAM 1000000u  /* stream ordinals past this are refused (the timeline's tracks) */

/* flags, set by tdtrace (struct td_ctl) */
#define TD_RING_BOUNDED 0x1   /* drop records rather than wait for room */
#define TD_RING_STACKS  0x2   /* -k: record the caller's stack */
#define TD_RING_TSC     0x4   /* times are raw TSC ticks: tdtrace converts */
#define TD_RING_PYFRAMES 0x8  /* --py: record the caller's Python frames */
#define TD_RING_RUNTIME 0x10  /* --runtime: trace the CUDA runtime's calls (the shim patches them) */
#define TD_RING_DEVICE  0x20  /* --timeline, -c: the emulated device's work and which call queued it
                               * (TD_EV_DEVOP, TD_IT_CORR) */

/* one process's ring: the header page */
struct td_ring_hdr {
    uint64_t magic;
    uint32_t version;
    uint32_t flags;                /* a copy of td_ctl.flags */
    uint64_t size;                 /* bytes of the data ring (power of two) */
    int32_t consumer_pid;          /* tdtrace: writers stop waiting if it is gone */
    uint32_t pad0;
    _Alignas(64) uint64_t head;    /* atomic: reserved up to here */
    _Alignas(64) uint64_t tail;    /* atomic: consumed up to here */
    _Alignas(64) uint64_t dropped; /* atomic: records dropped (bounded mode, or no reader) */
};

/* the control area: written once by tdtrace, then sealed read-only */
struct td_ctl {
    uint64_t magic;                /* TD_CTL_MAGIC */
    uint32_t version, flags;       /* TD_RING_VERSION, TD_RING_* */
    uint64_t ring_size;
    uint32_t policy_len;           /* bytes of policy text after this struct */
    uint32_t pad0;
    uint8_t trace_mask[1024];      /* bit per function id: record it */
    /* char policy[policy_len]: normalised policy text (td_policy_write_ex) */
};

/* the area every traced process shares (advisory: any of them can write it) */
struct td_shared {
    uint64_t mem_in_use[TD_MAX_DEVICES]; /* atomic: device bytes held (the in-process limit) */
    _Alignas(64) uint32_t reader_waiting; /* atomic: tdtrace sleeps; a writer wakes it (eventfd) */
};

/* extra items after the arguments */
enum td_item_kind {
    TD_IT_OUT = 1,    /* value written through an out-parameter */
    TD_IT_STR = 2,    /* string argument (input, or filled by the call); a launch's
                       * CUfunction argument: the kernel's name, mangled */
    TD_IT_STACK = 3,  /* return addresses (u64 each) */
    TD_IT_TEXT = 4,   /* HELLO: backend description; arg 0xff: a policy rule's file */
    TD_IT_MEM = 5,    /* memory a pointer argument (arg) points to, or that a structure
                       * of it points to: a u64 address, then the bytes found there */
    TD_IT_KPARAMS = 6,/* a launch's arguments (arg: its kernelParams): struct
                       * td_kparams, then the parameter block (each argument at its offset) */
    TD_IT_EVENT = 7,  /* TD_REC_EVENT: struct td_ev_fault or td_ev_kernel */
    TD_IT_PYFRAMES = 8,/* --py, arg 0: the calling thread's innermost Python frames:
                        * struct td_pyitem, td_pyrecframe[n], then the strings */
    TD_IT_NEST = 9,   /* --runtime, arg 0: where the call sits among the CUDA runtime calls
                       * in progress on its thread (struct td_nest) */
    TD_IT_CORR = 10,  /* TD_RING_DEVICE, arg 0: the call queued work on an emulated stream:
                       * its correlation id (u64, not 0), which that work's events carry */
    TD_IT_LIB = 11,   /* -e lib=, arg 0: a library function's call (ids from TD_FN__LIB_FIRST):
                       * struct td_libcall, then its strings */
};

/* TD_IT_LIB: the library (its file's name), the function's name (only for
 * LIB.call, a function src/api/libs.api does not describe; empty
 * otherwise), and what a tdtrace host library says it ran for the call
 * (docs/hostlib.md; empty: nothing said). The strings follow the header
 * one after the other, without NULs; each at most TD_STR_MAX bytes of
 * printable ASCII. A library call's record always has one, and a nest
 * item (it nests as a runtime call does). */
struct td_libcall {
    uint16_t lib_len, fn_len, host_len;
    uint16_t pad;
};

/* TD_IT_NEST. A runtime call's record (a function of src/api/cudart.api)
 * always has one: its id (per thread, from 1), the id of the runtime call
 * it was made inside (0: none) and its depth (0: outermost). A driver
 * call's record has one when it was made inside a runtime call: id 0, the
 * innermost runtime call as parent, depth = the parent's + 1. Records are
 * written when calls return, so a runtime call's record follows those of
 * the calls made inside it; tdtrace puts it back in front (nest.c). */
#define TD_NEST_MAX 32    /* deepest depth a record may claim */
struct td_nest {
    uint32_t id, parent;
    uint32_t depth;
    uint32_t pad;
};

/* TD_IT_PYFRAMES: the frames innermost first; each file and func is an
 * offset into the strings (nstr bytes after the frames) of a string
 * that ends with a NUL before they end */
#define TD_PY_FRAMES_MAX 8
struct td_pyitem {
    uint16_t n;       /* frames, at most TD_PY_FRAMES_MAX */
    uint8_t status;   /* enum td_py_status (src/pyframes/pyframes.h) */
    uint8_t more;     /* the chain goes on past these frames */
    uint32_t nstr;    /* bytes of strings */
};
struct td_pyrecframe {
    uint32_t file, func;  /* string offsets */
    int32_t line;         /* -1: none */
    uint16_t group;       /* which native _PyEval_EvalFrameDefault runs it (0 innermost) */
    uint16_t flags;       /* TD_PYF_* (pyframes.h) */
};

/* a launch's arguments as the kernel's parameter list lays them out */
#define TD_KPARAMS_MAX 64
struct td_kparams {
    uint16_t n;       /* parameters */
    uint16_t flags;   /* TD_KPF_* */
    uint32_t bytes;   /* bytes of the parameter block that follow the table */
    /* struct { uint16_t offset, size; } param[n]; padded to 8; then the block */
};
#define TD_KPF_MORE 0x1  /* the kernel has more parameters than TD_KPARAMS_MAX */

struct td_item {
    uint8_t arg;      /* parameter index */
    uint8_t kind;     /* enum td_item_kind */
    uint16_t len;     /* bytes of data that follow; the item is padded to 8 */
    uint32_t flags;   /* TD_ITF_* */
};
#define TD_ITF_TRUNCATED 0x1   /* the value was cut short (or could be read only in part) */

/* policy verdict on a call */
enum td_verdict_kind { TD_VD_NONE = 0, TD_VD_DENY, TD_VD_INJECT, TD_VD_LIMIT, TD_VD_DELAY, TD_VD_REMAP };

struct td_rec {
    uint64_t word;        /* length | state << 32 | type << 40 */
    uint32_t pid, tid;
    uint16_t fn;          /* td_fn id; TD_REC_HELLO: backend kind */
    uint8_t nargs;
    uint8_t nitems;
    int32_t result;       /* CUresult */
    uint64_t t_enter;     /* CLOCK_MONOTONIC ns, or TSC ticks (TD_RING_TSC) */
    uint64_t t_exit;
    uint8_t verdict;      /* enum td_verdict_kind */
    uint8_t applied;      /* 0: audit mode, the rule only would have acted */
    uint16_t pad;
    uint32_t rule_line;   /* policy line of the rule that acted */
    /* uint64_t args[nargs]; then nitems items */
};

#define TD_REC_WORD(len, state, type, tid) \
    ((uint64_t)((len) & 0xffffu) | ((uint64_t)(state) << 16) | ((uint64_t)(type) << 24) | \
     ((uint64_t)(uint32_t)(tid) << 32))
#define TD_REC_LEN(w)   ((uint32_t)((w) & 0xffffu))
#define TD_REC_STATE(w) ((unsigned)(((w) >> 16) & 0xff))
#define TD_REC_TYPE(w)  ((unsigned)(((w) >> 24) & 0xff))
#define TD_REC_TID(w)   ((int32_t)((w) >> 32))

/* HELLO: fn holds the backend */
enum td_backend_kind { TD_BK_NONE = 0, TD_BK_DRIVER = 1, TD_BK_EMULATE = 2 };

#endif
