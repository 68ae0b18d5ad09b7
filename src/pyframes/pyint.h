/* SPDX-License-Identifier: Apache-2.0 */
/* src/pyframes' own parts: the layouts of each CPython version and the
 * reads that never fault. */
#ifndef TD_PYINT_H
#define TD_PYINT_H

#include <stddef.h>
#include <stdint.h>

#include "pyframes.h"

/* how a thread's frames are kept */
enum td_pyfr {
    TD_PYFR_OBJECT = 1, /* 3.9, 3.10: PyFrameObjects, f_lasti an int */
    TD_PYFR_INTERP,     /* 3.11+: _PyInterpreterFrames, an instruction pointer */
};

/* frame owners (3.11+): frames of generators live in the generator, the
 * 3.12+ eval loop's entry frame on the C stack */
#define TD_PYOWN_GENERATOR 1
#define TD_PYOWN_CSTACK 3

/* one CPython minor version's layout (x86-64, the default build), in
 * bytes; 0 where the version has no such field */
struct td_pylayout {
    unsigned minor;
    uint8_t frames;        /* enum td_pyfr */
    uint8_t lines;         /* enum td_py_lines */
    uint8_t lasti_scale;   /* bytes per f_lasti unit (3.9: 1, 3.10: 2) */
    uint8_t has_cstack;    /* 3.12+: entry frames owned by the C stack */
    /* PyThreadState */
    uint16_t ts_frame;     /* frame (3.9, 3.10), current_frame (3.13) */
    uint16_t ts_cframe;    /* cframe (3.11, 3.12) */
    uint16_t cf_frame;     /* _PyCFrame.current_frame */
    uint16_t ts_chunk;     /* datastack_chunk (3.11+) */
    uint16_t ts_top;       /* datastack_top (3.11+) */
    uint16_t ts_thread_id; /* thread_id (3.9..3.11, where the current thread
                              state may be another thread's) */
    uint16_t ts_read;      /* bytes of it read */
    /* the frame */
    uint16_t fr_back;      /* f_back, previous */
    uint16_t fr_code;      /* f_code, f_executable */
    uint16_t fr_instr;     /* f_lasti; prev_instr (3.11, 3.12); instr_ptr (3.13) */
    uint16_t fr_owner;     /* owner (3.11+) */
    uint16_t fr_entry;     /* is_entry (3.11) */
    uint16_t fr_read;
    /* PyCodeObject */
    uint16_t co_firstlineno;
    uint16_t co_filename;
    uint16_t co_name;      /* co_qualname (3.11+), co_name before */
    uint16_t co_lines;     /* co_lnotab (3.9), co_linetable */
    uint16_t co_firsttraceable; /* 3.11+ */
    uint16_t co_code;      /* co_code_adaptive (3.11+) */
    uint16_t co_read;
    /* str: where a compact ASCII / compact string's characters start */
    uint16_t str_ascii_data;
    uint16_t str_compact_data;
    uint8_t str_ready;     /* 3.9..3.11: the "ready" bit exists */
    /* 3.13: fields of _Py_DebugOffsets (at the start of _PyRuntime) that
     * must hold these values, or the layout above is not this build's */
    uint8_t ndebug;
    struct {
        uint16_t at;
        uint16_t value;
    } debug[24];
};
/* the same in every supported version */
#define TD_PYOB_TYPE 8       /* PyObject.ob_type */
#define TD_PYVAR_SIZE 16     /* PyVarObject.ob_size */
#define TD_PYBYTES_DATA 32   /* PyBytesObject.ob_sval */
#define TD_PYSTR_LENGTH 16   /* PyASCIIObject.length */
#define TD_PYSTR_STATE 32    /* PyASCIIObject.state, bit fields from: */
#define TD_PYSTR_KIND_BIT 2  /*   kind (3 bits: 1, 2 or 4 bytes a character) */
#define TD_PYSTR_COMPACT_BIT 5
#define TD_PYSTR_ASCII_BIT 6
#define TD_PYSTR_READY_BIT 7 /*   3.9 to 3.11 */

const struct td_pylayout *td_pylayout_for(unsigned minor);

/* a piece of this process's memory to copy: got is how much could be
 * (short where a page could not be read; 0 if none) */
struct td_pyseg {
    uintptr_t addr;
    void *dst;
    uint32_t len, got;
};
/* copies every piece it can; 0, or -1 when process_vm_readv itself fails
 * (then every got is 0). Never faults. */
int td_py_readv(struct td_pyseg *s, unsigned n);
/* after a fork, the child's reads must name the child */
void td_py_read_setpid(void);

#endif
