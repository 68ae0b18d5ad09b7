/* SPDX-License-Identifier: Apache-2.0 */
/* The Python frames of the calling thread, read from inside the process.
 *
 * When the process is a CPython interpreter or embeds one (3.9 to 3.13),
 * td_py_read fills an array with the calling thread's innermost Python
 * frames: file, function (the qualified name from 3.11 on) and line. It
 * never takes or needs the GIL, never runs Python code, never allocates and
 * never changes a reference count; every byte of Python's memory is copied
 * with process_vm_readv on this process, so a garbage frame chain ends the
 * walk instead of crashing the program. docs/ARCHITECTURE.md ("Python
 * frames") says why this is safe and what each version's layout is.
 *
 * Finding Python is lazy: the first td_py_read or td_py_state looks, and
 * while none is found, looks again whenever the loader has added a library
 * since the last look (an embedding program that dlopens libpython later).
 * The look itself (dlsym, dladdr) may allocate; a read never does. */
#ifndef TD_PYFRAMES_H
#define TD_PYFRAMES_H

#include <stddef.h>
#include <stdint.h>

/* what this process has */
enum td_py_state {
    TD_PY_ABSENT = 1,      /* no CPython in the process (yet) */
    TD_PY_READY,           /* a CPython tdtrace reads */
    TD_PY_UNSUPPORTED,     /* a CPython (or a build of it) tdtrace does not read */
};

/* how one read ended */
enum td_py_status {
    TD_PYS_OK = 0,         /* the frames, up to the outermost or to max */
    TD_PYS_ABSENT,         /* no CPython in the process: nothing read */
    TD_PYS_UNSUPPORTED,    /* td_py_describe() says why: nothing read */
    TD_PYS_NO_THREAD,      /* this thread has no Python thread state */
    TD_PYS_NO_FRAMES,      /* it has one, but runs no Python code now */
    TD_PYS_FINALIZING,     /* the interpreter is shutting down: not read */
    TD_PYS_BAD,            /* the chain led to memory that could not be read or
                              was not what it must be: the frames before it */
    TD_PYS_NOREAD,         /* process_vm_readv on this process failed (not
                              permitted here): nothing read */
};

/* one frame; strings are offsets into the caller's string buffer, each
 * NUL-terminated UTF-8 (a lone surrogate U+DC80..U+DCFF, which is how
 * Python keeps an undecodable byte of a file name, is that byte) */
struct td_pyframe {
    uint32_t file;         /* co_filename */
    uint32_t func;         /* co_qualname from 3.11, co_name before */
    int32_t line;          /* 1-based; -1 when the code has no line there */
    uint16_t group;        /* which run of the eval loop (a native
                              _PyEval_EvalFrameDefault frame) runs it,
                              0 the innermost: for -k interleaving */
    uint16_t flags;        /* TD_PYF_* */
};
#define TD_PYF_FILE_CUT 0x1u   /* file keeps its end only: the start is cut */
#define TD_PYF_FUNC_CUT 0x2u   /* func keeps its end only */
#define TD_PYF_QUALNAME 0x4u   /* func is a qualified name (Class.method) */

/* longest string kept per field (bytes, without the NUL): longer ones keep
 * their end, where a path has its file name and a qualname its function */
#define TD_PY_STR_MAX 200u
/* a walk goes over at most this many frames (a cycle in garbage ends) */
#define TD_PY_WALK_MAX 4096u

struct td_pyread {
    /* in */
    struct td_pyframe *frames;
    unsigned max;          /* innermost frames wanted */
    char *str;             /* strings go here */
    size_t str_size;
    /* out */
    unsigned n;            /* frames written, innermost first */
    uint8_t status;        /* enum td_py_status */
    uint8_t more;          /* the chain goes on past the frames written
                              (max reached, or the string buffer full) */
    size_t str_used;
};

/* the calling thread's innermost Python frames; returns r->n. Uses about
 * 10 KiB of stack. Safe in any thread, with or without the GIL. Frames
 * that share a file or function name share its string (the same offset). */
unsigned td_py_read(struct td_pyread *r);

/* enum td_py_state, looking first if need be */
int td_py_state(void);
/* one line for a user: "CPython 3.11.2 (/usr/bin/python3.11)", "no
 * Python", or what is not supported and why */
const char *td_py_describe(void);
/* PY_VERSION_HEX of the interpreter found (0 if none) */
unsigned long td_py_version(void);
/* a status in words */
const char *td_py_status_name(int status);

/* process_vm_readv calls made by this process's reads so far (the bench
 * and the tests count them) */
unsigned long td_py_syscalls(void);

/* ---- the parts, exposed for the unit tests ------------------------- */

/* line tables: CPython 3.9's co_lnotab, 3.10's co_linetable, and the
 * location table of 3.11 to 3.13 */
enum td_py_lines { TD_PYL_LNOTAB = 1, TD_PYL_LINETABLE, TD_PYL_LOCATIONS };

/* a walk over a line table that may arrive in pieces */
struct td_pylt {
    int fmt;
    int target;            /* the instruction's byte offset */
    size_t pos;            /* table bytes consumed */
    int ar_start, ar_end;  /* the current address range, in bytes */
    int line, ar_line;     /* the running line, the range's (-1: none) */
};
void td_pylt_init(struct td_pylt *w, int fmt, int firstlineno, int target);
/* buf holds table bytes [w->pos, w->pos + n) of a table of total bytes.
 * Returns 1 with *line set when done (-1: no line), 0 when it needs the
 * bytes from w->pos on. */
int td_pylt_feed(struct td_pylt *w, const uint8_t *buf, size_t n, size_t total, int *line);

/* a str object's characters as UTF-8: kind 1, 2 or 4 bytes per character,
 * ascii when they are all ASCII; chars holds the last nchars characters of
 * the string. Writes at most cap bytes plus a NUL, keeping the end.
 * Returns the bytes written; *cut set when characters were left out. */
size_t td_py_utf8(char *out, size_t cap, const void *chars, size_t nchars, unsigned kind,
                  int ascii, int *cut);

#endif
