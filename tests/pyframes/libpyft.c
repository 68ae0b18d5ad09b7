/* SPDX-License-Identifier: Apache-2.0 */
/* What tests/pyframes/frames.py calls through ctypes: src/pyframes' reader
 * with its result as text, from the calling thread (ctypes.PyDLL keeps the
 * GIL, ctypes.CDLL releases it), from a C thread, and the line-table
 * decoder beside CPython's own PyCode_Addr2Line. Each read counts the
 * allocations this thread made during it (allocs.h). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "pyframes.h"
#include "pyint.h"

#define API __attribute__((visibility("default")))

#include "allocs.h"

static int (*gil_check)(void);
static pthread_once_t gil_once = PTHREAD_ONCE_INIT;
static void gil_init(void)
{
    gil_check = (int (*)(void))dlsym(RTLD_DEFAULT, "PyGILState_Check");
}

#define MAXF 1100

/* "status=S n=N more=M allocs=A gil=G" then one line per frame:
 * file \t line \t func \t group \t flags */
static int format_read(int max, char *out, int outlen)
{
    static __thread struct td_pyframe fr[MAXF];
    static __thread char str[MAXF * 2 * (TD_PY_STR_MAX + 1)];
    if (max > MAXF)
        max = MAXF;
    fr[0].line = 0; /* the buffers (dynamic TLS) are touched before counting */
    str[0] = 0;
    pthread_once(&gil_once, gil_init);
    long a0 = allocs();
    int gil = gil_check ? gil_check() : -1;
    struct td_pyread r = { .frames = fr, .max = (unsigned)max, .str = str, .str_size = sizeof(str) };
    td_py_read(&r);
    long a1 = allocs();
    int w = snprintf(out, (size_t)outlen, "status=%u n=%u more=%u allocs=%ld gil=%d\n",
                     r.status, r.n, r.more, a0 < 0 ? -1 : a1 - a0, gil);
    for (unsigned i = 0; i < r.n && w >= 0 && w < outlen; i++)
        w += snprintf(out + w, (size_t)(outlen - w), "%s\t%d\t%s\t%u\t%u\n", str + fr[i].file, fr[i].line,
                      str + fr[i].func, fr[i].group, fr[i].flags);
    return w >= 0 && w < outlen ? 0 : -1;
}

API int pyft_read(int max, char *out, int outlen)
{
    return format_read(max, out, outlen);
}

struct cthread {
    int max, outlen, rc;
    char *out;
    void (*cb)(void);
};

static void *cthread_main(void *arg)
{
    struct cthread *t = arg;
    if (t->cb)
        t->cb();
    else
        t->rc = format_read(t->max, t->out, t->outlen);
    return NULL;
}

/* the same from a thread Python never ran in */
API int pyft_read_cthread(int max, char *out, int outlen)
{
    struct cthread t = { max, outlen, -1, out, NULL };
    pthread_t th;
    if (pthread_create(&th, NULL, cthread_main, &t) != 0)
        return -1;
    pthread_join(th, NULL);
    return t.rc;
}

/* a C thread that calls back into Python (ctypes makes it a thread state) */
API int pyft_callback_cthread(void (*cb)(void))
{
    struct cthread t = { 0, 0, 0, NULL, cb };
    pthread_t th;
    if (pthread_create(&th, NULL, cthread_main, &t) != 0)
        return -1;
    pthread_join(th, NULL);
    return 0;
}

API const char *pyft_describe(void)
{
    return td_py_describe();
}

API int pyft_state(void)
{
    return td_py_state();
}

API unsigned long pyft_version(void)
{
    return td_py_version();
}

/* the decoder on a table given whole, and fed in pieces of 1 to 7 bytes
 * as the reader may get it: -999 when the two disagree */
API int pyft_line(int fmt, const unsigned char *tab, int len, int firstlineno, int addr)
{
    struct td_pylt w;
    int whole = -5, piece = -5;
    td_pylt_init(&w, fmt, firstlineno, addr);
    if (!td_pylt_feed(&w, tab, (size_t)len, (size_t)len, &whole))
        return -998;
    td_pylt_init(&w, fmt, firstlineno, addr);
    for (size_t step = 1 + (size_t)addr % 7;;) {
        size_t pos = w.pos, n = (size_t)len - pos < step ? (size_t)len - pos : step;
        if (td_pylt_feed(&w, tab + pos, n, (size_t)len, &piece))
            break;
        if (w.pos == pos) { /* an entry longer than the piece: a bigger one */
            if (n == (size_t)len - pos)
                return -997;
            step *= 2;
        } else {
            step = step % 7 + 1;
        }
    }
    return whole == piece ? whole : -999;
}

/* CPython's own answer, with the GIL held (PyDLL) */
API int pyft_addr2line(void *code, int addr)
{
    int (*a2l)(void *, int) = (int (*)(void *, int))dlsym(RTLD_DEFAULT, "PyCode_Addr2Line");
    return a2l ? a2l(code, addr) : -1000;
}

/* the layout the reader uses for a minor version, as "name value" lines,
 * beside what the version's headers say (tests/pyframes/layout.c) */
API int pyft_layout(unsigned minor, char *out, int outlen)
{
    const struct td_pylayout *L = td_pylayout_for(minor);
    if (!L)
        return -1;
#define F(name, v) w += snprintf(out + w, (size_t)(outlen - w), "%s %u\n", name, (unsigned)(v))
    int w = 0;
    if (L->ts_cframe) {
        F("ts_cframe", L->ts_cframe);
        F("cf_frame", L->cf_frame);
    } else {
        F("ts_frame", L->ts_frame);
    }
    if (L->ts_thread_id)
        F("ts_thread_id", L->ts_thread_id);
    if (L->frames == TD_PYFR_INTERP) {
        F("ts_chunk", L->ts_chunk);
        F("ts_top", L->ts_top);
    }
    F("fr_back", L->fr_back);
    F("fr_code", L->fr_code);
    F("fr_instr", L->fr_instr);
    if (L->frames == TD_PYFR_INTERP) {
        F("fr_owner", L->fr_owner);
        if (L->fr_entry)
            F("fr_entry", L->fr_entry);
        F("co_firsttraceable", L->co_firsttraceable);
        F("co_code", L->co_code);
    }
    F("co_firstlineno", L->co_firstlineno);
    F("co_filename", L->co_filename);
    F("co_name", L->co_name);
    F("co_lines", L->co_lines);
    F("str_ascii_data", L->str_ascii_data);
    F("str_compact_data", L->str_compact_data);
    F("ob_type", TD_PYOB_TYPE);
    F("ob_size", TD_PYVAR_SIZE);
    F("bytes_data", TD_PYBYTES_DATA);
    F("str_length", TD_PYSTR_LENGTH);
    F("str_state", TD_PYSTR_STATE);
    F("str_kind_bit", TD_PYSTR_KIND_BIT);
    F("str_compact_bit", TD_PYSTR_COMPACT_BIT);
    F("str_ascii_bit", TD_PYSTR_ASCII_BIT);
    if (L->str_ready)
        F("str_ready_bit", TD_PYSTR_READY_BIT);
#undef F
    for (unsigned i = 0; i < L->ndebug; i++)
        w += snprintf(out + w, (size_t)(outlen - w), "debug %u %u\n", L->debug[i].at, L->debug[i].value);
    return w < outlen ? 0 : -1;
}

/* a broken frame chain: the innermost frame (the Python function that
 * calls this, through PyDLL: the GIL is held and nothing else touches the
 * chain) is damaged as `what` says, read, and mended before returning */
enum { BREAK_CODE_UNMAPPED = 1, BREAK_CODE_NOT_CODE, BREAK_BACK_UNMAPPED, BREAK_BACK_SELF, BREAK_BACK_CYCLE,
       BREAK_FRAME_MISALIGNED, BREAK_FILE_UNMAPPED, BREAK_LINES_NOT_BYTES, BREAK_NAME_NOT_STR };

API int pyft_read_broken(int what, int max, char *out, int outlen)
{
    static void *hole;
    if (!hole) /* an address nothing is mapped at, ever */
        hole = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    const struct td_pylayout *L = td_pylayout_for((unsigned)(td_py_version() >> 16 & 0xff));
    void *(*gilstate)(void) = (void *(*)(void))dlsym(RTLD_DEFAULT, "PyGILState_GetThisThreadState");
    void *str_type = dlsym(RTLD_DEFAULT, "PyUnicode_Type");
    if (!L || !gilstate || !str_type || hole == MAP_FAILED)
        return -1;
    unsigned char *ts = gilstate();
    uintptr_t *head = (uintptr_t *)(L->ts_cframe ? *(unsigned char **)(ts + L->ts_cframe) + L->cf_frame
                                                 : ts + L->ts_frame);
    unsigned char *f = (unsigned char *)*head;
    unsigned char *code = *(unsigned char **)(f + L->fr_code);
    uintptr_t *at, was;
    switch (what) {
    case BREAK_CODE_UNMAPPED: at = (uintptr_t *)(f + L->fr_code); was = *at; *at = (uintptr_t)hole; break;
    case BREAK_CODE_NOT_CODE: at = (uintptr_t *)(f + L->fr_code); was = *at; *at = (uintptr_t)str_type; break;
    case BREAK_BACK_UNMAPPED: at = (uintptr_t *)(f + L->fr_back); was = *at; *at = (uintptr_t)hole + 64; break;
    case BREAK_BACK_SELF: at = (uintptr_t *)(f + L->fr_back); was = *at; *at = (uintptr_t)f; break;
    case BREAK_BACK_CYCLE: { /* f -> its caller -> f */
        unsigned char *g = *(unsigned char **)(f + L->fr_back);
        at = (uintptr_t *)(g + L->fr_back);
        was = *at;
        *at = (uintptr_t)f;
        break;
    }
    case BREAK_FRAME_MISALIGNED: at = head; was = *at; *at = was + 4; break;
    case BREAK_FILE_UNMAPPED: at = (uintptr_t *)(code + L->co_filename); was = *at; *at = (uintptr_t)hole; break;
    case BREAK_LINES_NOT_BYTES: at = (uintptr_t *)(code + L->co_lines); was = *at; *at = *(uintptr_t *)(code + L->co_name); break;
    case BREAK_NAME_NOT_STR: at = (uintptr_t *)(code + L->co_name); was = *at; *at = (uintptr_t)code; break;
    default: return -1;
    }
    int rc = format_read(max, out, outlen);
    *at = was;
    return rc;
}

static __attribute__((noinline)) unsigned no_read(struct td_pyread *r)
{
    __asm__ volatile("" : : "r"(r) : "memory");
    r->n = 0;
    return 0;
}

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* ns per read of max frames, and per call of a function that reads
 * nothing, measured back to back; system calls per read */
API int pyft_bench(int reps, int max, double *read_ns, double *empty_ns, double *syscalls)
{
    static __thread struct td_pyframe fr[MAXF];
    static __thread char str[MAXF * 2 * (TD_PY_STR_MAX + 1)];
    struct td_pyread r = { .frames = fr, .max = (unsigned)(max < MAXF ? max : MAXF), .str = str, .str_size = sizeof(str) };
    td_py_read(&r); /* detection out of the timing */
    double t0 = now_ns();
    for (int i = 0; i < reps; i++)
        no_read(&r);
    double t1 = now_ns();
    unsigned long s0 = td_py_syscalls();
    for (int i = 0; i < reps; i++)
        td_py_read(&r);
    double t2 = now_ns();
    *empty_ns = (t1 - t0) / reps;
    *read_ns = (t2 - t1) / reps;
    *syscalls = (double)(td_py_syscalls() - s0) / reps;
    return (int)r.n;
}
