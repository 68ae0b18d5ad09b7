/* The event records the shim writes and tdtrace reads.
 *
 * The shared mapping (a file under /dev/shm that tdtrace creates and owns)
 * is a header page followed by a power-of-two data ring. Any number of
 * threads in any number of processes append records; tdtrace is the only
 * reader. Everything here is written by the traced program, so tdtrace
 * treats every byte as untrusted: it copies a record out before decoding
 * it and checks every length against the ring and the record.
 *
 * A record is a multiple of 8 bytes and starts with one 64-bit word:
 *   bits  0..31  length in bytes (header included)
 *   bits 32..39  state: 0 free, 1 reserved, 2 committed
 *   bits 40..47  type (TD_REC_*)
 * Writers reserve space with a CAS on head, store the word as reserved
 * (with the length, so a reader can skip a record whose writer died), fill
 * the record, then store the word as committed (release). The reader
 * zeroes what it consumed before it advances tail.
 */
#ifndef TDTRACE_RECORD_H
#define TDTRACE_RECORD_H

#include <stdint.h>

#define TD_RING_MAGIC   0x3167726474647454ULL   /* "Ttdtrdg1" */
#define TD_RING_VERSION 1
#define TD_RING_HDR     4096u
#define TD_RING_MAXREC  4096u      /* no record is longer */
#define TD_MAX_ARGS     16
#define TD_STR_MAX      256        /* bytes of a string kept in a record */
#define TD_MAX_FRAMES   32         /* -k: return addresses kept */
#define TD_MAX_DEVICES  64

enum td_rec_state { TD_ST_FREE = 0, TD_ST_RESERVED = 1, TD_ST_COMMITTED = 2 };

enum td_rec_type {
    TD_REC_PAD = 1,    /* filler up to the end of the ring */
    TD_REC_CALL = 2,   /* one driver call */
    TD_REC_HELLO = 3,  /* a process loaded the shim: its backend */
};

/* ring flags, set by tdtrace */
#define TD_RING_BOUNDED 0x1   /* drop records rather than wait for room */
#define TD_RING_STACKS  0x2   /* -k: record the caller's stack */
#define TD_RING_TSC     0x4   /* times are raw TSC ticks: tdtrace converts */

struct td_ring_hdr {
    uint64_t magic;
    uint32_t version;
    uint32_t flags;
    uint64_t size;                 /* bytes of the data ring (power of two) */
    int32_t consumer_pid;          /* tdtrace: writers stop waiting if it is gone */
    uint32_t pad0;
    _Alignas(64) uint64_t head;    /* atomic: reserved up to here */
    _Alignas(64) uint64_t tail;    /* atomic: consumed up to here */
    _Alignas(64) uint64_t dropped; /* atomic: records dropped (bounded mode, or no reader) */
    uint64_t mem_in_use[TD_MAX_DEVICES]; /* atomic: device bytes held under this tdtrace (policy) */
    uint8_t trace_mask[1024];      /* bit per function id: record it (tdtrace's -e trace) */
};

/* extra items after the arguments */
enum td_item_kind {
    TD_IT_OUT = 1,    /* value written through an out-parameter */
    TD_IT_STR = 2,    /* string argument (input, or filled by the call) */
    TD_IT_STACK = 3,  /* return addresses (u64 each) */
    TD_IT_TEXT = 4,   /* HELLO: backend description; arg 0xff: a policy rule's file */
};

struct td_item {
    uint8_t arg;      /* parameter index */
    uint8_t kind;     /* enum td_item_kind */
    uint16_t len;     /* bytes of data that follow; the item is padded to 8 */
    uint32_t flags;   /* TD_ITF_* */
};
#define TD_ITF_TRUNCATED 0x1

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

#define TD_REC_WORD(len, state, type) \
    ((uint64_t)(len) | ((uint64_t)(state) << 32) | ((uint64_t)(type) << 40))
#define TD_REC_LEN(w)   ((uint32_t)((w) & 0xffffffffu))
#define TD_REC_STATE(w) ((unsigned)(((w) >> 32) & 0xff))
#define TD_REC_TYPE(w)  ((unsigned)(((w) >> 40) & 0xff))

/* HELLO: fn holds the backend */
enum td_backend_kind { TD_BK_NONE = 0, TD_BK_DRIVER = 1, TD_BK_EMULATE = 2 };

#endif
