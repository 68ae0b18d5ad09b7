/* SPDX-License-Identifier: Apache-2.0 */
/* Finding CPython in this process, and reading the calling thread's
 * frames. docs/ARCHITECTURE.md ("Python frames") has the reasoning; in
 * short: the thread's own frame chain cannot change while the thread is
 * inside the call that reads it, GIL or not, so it is read as it is,
 * through copies (pyread.c) that never fault, with every pointer checked
 * for the type it must point to, every length bounded and the walk capped.
 *
 * Detection publishes its result once, without a lock (a lock held across
 * dlsym could deadlock against a thread in dlopen whose constructor makes
 * a CUDA call): threads that look at the same time get the same answer,
 * and the first to finish writes it. */
#include "pyint.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* ---- what was found ----------------------------------------------- */

struct pyrt {
    const struct td_pylayout *L;
    void *(*tstate)(void);       /* PyGILState_GetThisThreadState */
    void *(*current)(void);      /* up to 3.11: the thread state holding the
                                    GIL, of any thread (a global) */
    int (*finalizing)(void);     /* _Py_IsFinalizing, Py_IsFinalizing (3.13) */
    uintptr_t code_type, frame_type, str_type, bytes_type;
    unsigned long hex;
};

static struct pyrt rt;                 /* written once, before state READY */
static _Atomic int state;              /* 0 until looked, then enum td_py_state */
static _Atomic int claimed;            /* the thread that writes rt and desc */
static _Atomic unsigned long long adds_seen;
static char desc[400];
static const char no_python[] = "no Python";

static int adds_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    if (size >= offsetof(struct dl_phdr_info, dlpi_adds) + sizeof(info->dlpi_adds))
        *(unsigned long long *)data = info->dlpi_adds;
    return 1;
}

/* the loader's count of libraries added, ever */
static unsigned long long dl_adds(void)
{
    unsigned long long n = 0;
    dl_iterate_phdr(adds_cb, &n);
    return n;
}

struct libpy {
    char name[512];
};

static int libpython_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct libpy *lp = data;
    const char *base = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;
    base = base ? base + 1 : info->dlpi_name;
    if (base && strncmp(base, "libpython3", 10) == 0 && strlen(info->dlpi_name) < sizeof(lp->name)) {
        strcpy(lp->name, info->dlpi_name);
        return 1;
    }
    return 0;
}

/* the object holding a symbol, by link map */
static struct link_map *object_of(void *sym)
{
    Dl_info di;
    struct link_map *lm = NULL;
    if (!sym || !dladdr1(sym, &di, (void **)&lm, RTLD_DL_LINKMAP))
        return NULL;
    return lm;
}

struct found {
    void *handle;
    struct link_map *lm;
};

static void *sym_in(const struct found *f, const char *name)
{
    void *p = dlsym(f->handle, name);
    return p && object_of(p) == f->lm ? p : NULL;
}

/* the object that is CPython: the program itself or a libpython, global
 * or loaded RTLD_LOCAL. A libpython is kept loaded from here on (its
 * functions are called on every read). */
static int find_cpython(struct found *f)
{
    void *p = dlsym(RTLD_DEFAULT, "PyGILState_GetThisThreadState");
    struct link_map *lm = object_of(p);
    if (lm) {
        f->lm = lm;
        f->handle = lm->l_name[0] ? dlopen(lm->l_name, RTLD_LAZY | RTLD_NOLOAD) : dlopen(NULL, RTLD_LAZY);
        return f->handle != NULL;
    }
    struct libpy lp = { "" };
    dl_iterate_phdr(libpython_cb, &lp);
    if (!lp.name[0])
        return 0;
    f->handle = dlopen(lp.name, RTLD_LAZY | RTLD_NOLOAD);
    if (!f->handle)
        return 0;
    p = dlsym(f->handle, "PyGILState_GetThisThreadState");
    f->lm = object_of(p);
    return f->lm != NULL;
}

static int read_word(uintptr_t addr, uint64_t *v)
{
    struct td_pyseg s = { addr, v, 8, 0 };
    return td_py_readv(&s, 1) == 0 && s.got == 8 ? 0 : -1;
}

static void where(const struct found *f, char *buf, size_t len)
{
    if (f->lm->l_name[0]) {
        snprintf(buf, len, "%s", f->lm->l_name);
        return;
    }
    ssize_t n = readlink("/proc/self/exe", buf, len - 1);
    buf[n > 0 ? n : 0] = '\0';
}

/* the version: Py_Version from 3.11; before, what the symbols say, with
 * Py_GetVersion's text for the micro version */
static unsigned long version_of(const struct found *f, char *why, size_t len)
{
    const unsigned long *pv = sym_in(f, "Py_Version");
    if (pv) {
        uint64_t v;
        if (read_word((uintptr_t)pv, &v) != 0) {
            snprintf(why, len, "Py_Version not readable");
            return 0;
        }
        return (unsigned long)v;
    }
    unsigned minor = sym_in(f, "PyIter_Send") ? 10 : sym_in(f, "PyFrame_GetCode") ? 9 : 0;
    if (!minor) {
        snprintf(why, len, "older than 3.9");
        return 0;
    }
    const char *(*getv)(void) = (const char *(*)(void))sym_in(f, "Py_GetVersion");
    const char *s = getv ? getv() : NULL;
    unsigned a = 0, b = 0, c = 0;
    if (!s || sscanf(s, "%u.%u.%u", &a, &b, &c) != 3 || a != 3 || b != minor) {
        snprintf(why, len, "version unclear (Py_GetVersion says %.40s)", s ? s : "nothing");
        return 0;
    }
    return 3ul << 24 | (unsigned long)minor << 16 | (unsigned long)c << 8 | 0xf0;
}

/* the build's object header is the default one: each type object's type
 * is PyType_Type (Py_TRACE_REFS and free-threaded builds move it) */
static int header_ok(uintptr_t type_type, const uintptr_t *types, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t t;
        if (!types[i] || read_word(types[i] + TD_PYOB_TYPE, &t) != 0 || t != type_type)
            return 0;
    }
    return 1;
}

/* 3.13: _Py_DebugOffsets agrees with the layout */
static int debug_offsets_ok(const struct found *f, const struct td_pylayout *L, unsigned long hex,
                            char *why, size_t len)
{
    uintptr_t run = (uintptr_t)sym_in(f, "_PyRuntime");
    unsigned char d[584];
    struct td_pyseg s = { run, d, sizeof(d), 0 };
    if (!run || td_py_readv(&s, 1) != 0 || s.got != sizeof(d) || memcmp(d, "xdebugpy", 8) != 0) {
        snprintf(why, len, "no _Py_DebugOffsets in _PyRuntime");
        return 0;
    }
    uint64_t v;
    memcpy(&v, d + 8, 8);
    if (v != hex) {
        snprintf(why, len, "_Py_DebugOffsets is of version %#llx", (unsigned long long)v);
        return 0;
    }
    memcpy(&v, d + 16, 8);
    if (v != 0) {
        snprintf(why, len, "a free-threaded build");
        return 0;
    }
    for (unsigned i = 0; i < L->ndebug; i++) {
        memcpy(&v, d + L->debug[i].at, 8);
        if (v != L->debug[i].value) {
            snprintf(why, len, "_Py_DebugOffsets differs from the known 3.13 layout (at %u: %llu, not %u)",
                     L->debug[i].at, (unsigned long long)v, L->debug[i].value);
            return 0;
        }
    }
    return 1;
}

static void atfork_child(void)
{
    td_py_read_setpid();
}

/* look: the new state, with rt and desc filled in when found */
static int detect(struct pyrt *out, char *text, size_t len)
{
    struct found f;
    if (!find_cpython(&f))
        return TD_PY_ABSENT;
    char path[300], why[160] = "";
    where(&f, path, sizeof(path));
    /* every read goes through process_vm_readv: a seccomp profile (some
     * containers') may forbid it */
    uint64_t probe = 1, copy = 0;
    unsigned long hex = 0;
    if (read_word((uintptr_t)&probe, &copy) != 0 || copy != probe)
        snprintf(why, sizeof(why), "reading its own memory with process_vm_readv fails here (%s)",
                 strerror(errno));
    else
        hex = version_of(&f, why, sizeof(why));
    unsigned major = (unsigned)(hex >> 24 & 0xff), minor = (unsigned)(hex >> 16 & 0xff);
    const struct td_pylayout *L = hex && major == 3 ? td_pylayout_for(minor) : NULL;
    if (hex && !L)
        snprintf(why, sizeof(why), "tdtrace reads CPython 3.9 to 3.13");
    memset(out, 0, sizeof(*out));
    out->L = L;
    out->hex = hex;
    out->tstate = (void *(*)(void))sym_in(&f, "PyGILState_GetThisThreadState");
    out->finalizing = (int (*)(void))sym_in(&f, minor >= 13 ? "Py_IsFinalizing" : "_Py_IsFinalizing");
    /* from 3.12 the GIL-state key follows the state a thread activates (a
     * subinterpreter's too), and the current state is a thread-local whose
     * first use in a thread of a dlopened libpython allocates: not used */
    out->current = minor <= 11 ? (void *(*)(void))sym_in(&f, "_PyThreadState_UncheckedGet") : NULL;
    out->code_type = (uintptr_t)sym_in(&f, "PyCode_Type");
    out->frame_type = (uintptr_t)sym_in(&f, "PyFrame_Type");
    out->str_type = (uintptr_t)sym_in(&f, "PyUnicode_Type");
    out->bytes_type = (uintptr_t)sym_in(&f, "PyBytes_Type");
    uintptr_t types[] = { out->code_type, out->frame_type, out->str_type, out->bytes_type };
    if (L && (!out->tstate || (L->ts_thread_id && !out->current) || !out->finalizing || !sym_in(&f, "PyType_Type")))
        snprintf(why, sizeof(why), "a function or type object it needs is not exported");
    else if (L && sym_in(&f, "_Py_PrintReferences"))
        snprintf(why, sizeof(why), "a Py_TRACE_REFS build");
    else if (L && !header_ok((uintptr_t)sym_in(&f, "PyType_Type"), types, 4))
        snprintf(why, sizeof(why), "its objects' header is not the default build's");
    else if (L && L->ndebug)
        debug_offsets_ok(&f, L, hex, why, sizeof(why));
    if (hex)
        snprintf(text, len, "CPython %u.%u.%lu (%s)%s%s", major, minor, hex >> 8 & 0xff, path,
                 why[0] ? ": not supported: " : "", why);
    else
        snprintf(text, len, "CPython (%s): not supported: %s", path, why);
    return why[0] ? TD_PY_UNSUPPORTED : TD_PY_READY;
}

static int look(void)
{
    int s = atomic_load_explicit(&state, memory_order_acquire);
    if (s == TD_PY_READY || s == TD_PY_UNSUPPORTED)
        return s;
    unsigned long long adds = dl_adds();
    if (s == TD_PY_ABSENT && adds == atomic_load_explicit(&adds_seen, memory_order_relaxed))
        return s;
    td_py_read_setpid(); /* this process's (a child's after a fork, too) */
    struct pyrt found;
    char text[sizeof(desc)];
    int ns = detect(&found, text, sizeof(text));
    if (ns == TD_PY_ABSENT) {
        atomic_store_explicit(&adds_seen, adds, memory_order_relaxed);
        int expect = s;
        atomic_compare_exchange_strong_explicit(&state, &expect, TD_PY_ABSENT, memory_order_release,
                                                memory_order_relaxed);
        return atomic_load_explicit(&state, memory_order_acquire);
    }
    int zero = 0;
    if (atomic_compare_exchange_strong_explicit(&claimed, &zero, 1, memory_order_acq_rel,
                                                memory_order_acquire)) {
        rt = found;
        memcpy(desc, text, sizeof(desc));
        if (ns == TD_PY_READY)
            pthread_atfork(NULL, NULL, atfork_child);
        atomic_store_explicit(&state, ns, memory_order_release);
        return ns;
    }
    /* another thread publishes: wait for it (it holds no lock) */
    while ((s = atomic_load_explicit(&state, memory_order_acquire)) != TD_PY_READY && s != TD_PY_UNSUPPORTED)
        sched_yield();
    return s;
}

int td_py_state(void)
{
    return look();
}

const char *td_py_describe(void)
{
    int s = look();
    return s == TD_PY_READY || s == TD_PY_UNSUPPORTED ? desc : no_python;
}

unsigned long td_py_version(void)
{
    int s = look();
    return s == TD_PY_READY || s == TD_PY_UNSUPPORTED ? rt.hex : 0;
}

const char *td_py_status_name(int status)
{
    static const char *const names[] = {
        [TD_PYS_OK] = "ok",
        [TD_PYS_ABSENT] = "no Python",
        [TD_PYS_UNSUPPORTED] = "Python not supported",
        [TD_PYS_NO_THREAD] = "not a Python thread",
        [TD_PYS_NO_FRAMES] = "no Python frame",
        [TD_PYS_FINALIZING] = "Python finalizing",
        [TD_PYS_BAD] = "frame chain unreadable",
        [TD_PYS_NOREAD] = "own memory not readable",
    };
    return status >= 0 && (size_t)status < sizeof(names) / sizeof(names[0]) && names[status] ? names[status] : "?";
}

/* ---- the walk ------------------------------------------------------- */

#define BATCH 4           /* frames whose code and strings are read together */
#define WIN 2048          /* bytes of the data stack copied at once (3.11+) */
#define FILE_FIRST 256    /* bytes first read of a file name's str */
#define NAME_FIRST 128    /* of a function name's */
#define LINES_FIRST 256   /* of a line table's bytes object */
#define LINES_CHUNK 512   /* then read in pieces of */
#define LINES_MAX (1u << 20)
#define CODE_MAX 200      /* the largest co_read */
#define FRAME_MAX 112     /* the largest fr_read */

static uint64_t u64_at(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static int32_t i32_at(const unsigned char *p)
{
    int32_t v;
    memcpy(&v, p, 4);
    return v;
}

struct cand {
    uintptr_t code, instr;
    int32_t lasti;
    uint8_t owner;
    uint16_t group;
};

#define STRCACHE 64

struct strcache {
    uintptr_t obj;
    uint32_t off;
    uint8_t cut;
};

struct walk {
    const struct td_pylayout *L;
    struct strcache sc[STRCACHE];  /* strings copied so far */
    unsigned nsc;
    uintptr_t next;                /* the next frame to visit */
    uintptr_t chunk, top;          /* the data stack's current chunk */
    uintptr_t win_lo;              /* the copy of part of it */
    uint32_t win_len;
    uint16_t group;
    unsigned walked;
    uintptr_t seen;                /* a cycle comes back to it (Brent) */
    unsigned power, lam;
    int bad;
    unsigned char win[WIN];
};

/* the bytes of the frame at f: from the data stack copy, a new copy of
 * the part of the chunk below f, or a read of its own */
static const unsigned char *frame_bytes(struct walk *w, uintptr_t f, unsigned char *tmp)
{
    const struct td_pylayout *L = w->L;
    uintptr_t end = f + L->fr_read;
    if (end < f)
        return NULL;
    if (w->win_len && f >= w->win_lo && end <= w->win_lo + w->win_len)
        return w->win + (f - w->win_lo);
    if (w->chunk && f >= w->chunk && end <= w->top) {
        uintptr_t lo = end - w->chunk > WIN ? end - WIN : w->chunk;
        struct td_pyseg s = { lo, w->win, (uint32_t)(end - lo), 0 };
        w->win_len = 0;
        if (td_py_readv(&s, 1) == 0 && s.got == s.len) {
            w->win_lo = lo;
            w->win_len = s.len;
            return w->win + (f - lo);
        }
    }
    struct td_pyseg s = { f, tmp, L->fr_read, 0 };
    return td_py_readv(&s, 1) == 0 && s.got == s.len ? tmp : NULL;
}

/* up to want frames that run code, from w->next outwards */
static unsigned collect(struct walk *w, const struct pyrt *p, struct cand *c, unsigned want)
{
    const struct td_pylayout *L = w->L;
    unsigned n = 0;
    unsigned char tmp[FRAME_MAX];
    while (n < want && w->next && !w->bad) {
        if (++w->walked > TD_PY_WALK_MAX || (w->next & 7) || w->next == w->seen) {
            w->bad = 1; /* too long, misaligned, or a cycle */
            break;
        }
        if (w->lam == w->power) {
            w->seen = w->next;
            w->power *= 2;
            w->lam = 0;
        }
        w->lam++;
        const unsigned char *fb = frame_bytes(w, w->next, tmp);
        if (!fb) {
            w->bad = 1;
            break;
        }
        w->next = (uintptr_t)u64_at(fb + L->fr_back);
        struct cand *k = &c[n];
        k->code = (uintptr_t)u64_at(fb + L->fr_code);
        if (L->frames == TD_PYFR_OBJECT) {
            if (u64_at(fb + TD_PYOB_TYPE) != p->frame_type) {
                w->bad = 1;
                break;
            }
            k->lasti = i32_at(fb + L->fr_instr);
            k->instr = 0;
            k->owner = 0;
            k->group = w->group++;
        } else {
            k->owner = fb[L->fr_owner];
            if (L->has_cstack && k->owner == TD_PYOWN_CSTACK) {
                w->group++;
                continue;
            }
            k->instr = (uintptr_t)u64_at(fb + L->fr_instr);
            k->lasti = 0;
            k->group = w->group;
            if (L->fr_entry && fb[L->fr_entry])
                w->group++;
        }
        n++;
    }
    return n;
}

/* a str object read from its start (got bytes in buf) as UTF-8 at out;
 * reads its end again when it is longer than what came */
static size_t text_of(const struct td_pylayout *L, const struct pyrt *p, uintptr_t obj,
                      const unsigned char *buf, uint32_t got, char *out, size_t cap, int *cut)
{
    *cut = 0;
    if (cap > TD_PY_STR_MAX)
        cap = TD_PY_STR_MAX;
    if (got < L->str_ascii_data || u64_at(buf + TD_PYOB_TYPE) != p->str_type)
        goto bad;
    int64_t len = (int64_t)u64_at(buf + TD_PYSTR_LENGTH);
    uint32_t st = (uint32_t)i32_at(buf + TD_PYSTR_STATE);
    unsigned kind = st >> TD_PYSTR_KIND_BIT & 7, compact = st >> TD_PYSTR_COMPACT_BIT & 1;
    unsigned ascii = st >> TD_PYSTR_ASCII_BIT & 1, ready = st >> TD_PYSTR_READY_BIT & 1;
    if (!compact || (L->str_ready && !ready) || (kind != 1 && kind != 2 && kind != 4) ||
        (ascii && kind != 1) || len < 0 || len > (int64_t)1 << 40)
        goto bad;
    size_t data = ascii ? L->str_ascii_data : L->str_compact_data;
    size_t have = got > data ? (got - data) / kind : 0;
    if ((size_t)len <= have)
        return td_py_utf8(out, cap, buf + data, (size_t)len, kind, ascii, cut);
    /* longer than the first read: its end, at most cap characters */
    size_t tail = (size_t)len < cap ? (size_t)len : cap;
    unsigned char more[4 * TD_PY_STR_MAX];
    struct td_pyseg s = { obj + data + ((size_t)len - tail) * kind, more, (uint32_t)(tail * kind), 0 };
    if (td_py_readv(&s, 1) != 0 || s.got != s.len)
        goto bad;
    size_t w = td_py_utf8(out, cap, more, tail, kind, ascii, cut);
    *cut |= tail < (size_t)len;
    return w;
bad:
    if (cap >= 1) {
        out[0] = '?';
        out[1] = '\0';
        return 1;
    }
    out[0] = '\0';
    return 0;
}

/* the line of the instruction at byte offset target, from the line
 * table's bytes object read from its start (got bytes in buf) */
static int32_t line_of(const struct pyrt *p, uintptr_t obj, const unsigned char *buf, uint32_t got,
                       int firstlineno, int target)
{
    const struct td_pylayout *L = p->L;
    if (got < TD_PYBYTES_DATA || u64_at(buf + TD_PYOB_TYPE) != p->bytes_type)
        return -1;
    int64_t size = (int64_t)u64_at(buf + TD_PYVAR_SIZE);
    if (size < 0 || size > LINES_MAX)
        return -1;
    struct td_pylt w;
    td_pylt_init(&w, L->lines, firstlineno, target);
    int line;
    if (td_pylt_feed(&w, buf + TD_PYBYTES_DATA, got - TD_PYBYTES_DATA, (size_t)size, &line))
        return line;
    unsigned char chunk[LINES_CHUNK];
    while (w.pos < (size_t)size) {
        size_t n = (size_t)size - w.pos < LINES_CHUNK ? (size_t)size - w.pos : LINES_CHUNK;
        struct td_pyseg s = { obj + TD_PYBYTES_DATA + w.pos, chunk, (uint32_t)n, 0 };
        if (td_py_readv(&s, 1) != 0 || s.got != s.len)
            return -1;
        size_t before = w.pos;
        if (td_pylt_feed(&w, chunk, n, (size_t)size, &line))
            return line;
        if (w.pos == before) /* an entry longer than a piece: garbage */
            return -1;
    }
    return -1;
}

/* room for one frame's two strings: at least "?" and a NUL each */
#define ROOM_MIN 4

/* a string this read has copied already: frames of one module share a
 * file name, of one function a name (the objects live as long as the
 * frames that hold them, which cannot end while this thread reads) */
static int cached(const struct walk *w, uintptr_t obj, uint32_t *off, int *cut)
{
    for (unsigned i = 0; i < w->nsc; i++)
        if (w->sc[i].obj == obj) {
            *off = w->sc[i].off;
            *cut = w->sc[i].cut;
            return 1;
        }
    return 0;
}

/* the string object of piece s (not read when it was expected to be in
 * the cache, first bytes its first read) as UTF-8 in r's buffer, or the
 * copy made already */
static uint32_t string(struct walk *w, const struct pyrt *p, struct td_pyread *r, struct td_pyseg *s,
                       uint32_t first, size_t cap, int *cut)
{
    uint32_t off;
    if (cached(w, s->addr, &off, cut))
        return off;
    if (!s->len) { /* the copy it was to share was not kept */
        s->len = first;
        if (td_py_readv(s, 1) != 0)
            s->got = 0;
    }
    off = (uint32_t)r->str_used;
    r->str_used += text_of(p->L, p, s->addr, s->dst, s->got, r->str + off, cap, cut) + 1;
    if (w->nsc < STRCACHE) /* never replaced: what a batch planned on stays */
        w->sc[w->nsc++] = (struct strcache){ s->addr, off, (uint8_t)*cut };
    return off;
}

/* read the code objects of c[0..n), then their strings and lines, and
 * emit the frames that have started; returns 0 when the walk must stop.
 * An object two frames share is read once. */
static int emit(struct walk *w, const struct pyrt *p, struct cand *c, unsigned n, struct td_pyread *r)
{
    const struct td_pylayout *L = p->L;
    unsigned char code[BATCH][CODE_MAX];
    const unsigned char *co[BATCH];
    struct td_pyseg s[3 * BATCH];
    unsigned same[BATCH];
    for (unsigned i = 0; i < n; i++) {
        same[i] = i;
        for (unsigned j = 0; j < i && same[i] == i; j++)
            if (c[j].code == c[i].code)
                same[i] = j;
        s[i] = (struct td_pyseg){ c[i].code, code[i], same[i] == i ? L->co_read : 0, 0 };
    }
    if (td_py_readv(s, n) != 0)
        return w->bad = 1, 0;
    unsigned keep = 0;
    for (unsigned i = 0; i < n; i++) {
        const unsigned char *b = code[same[i]];
        if (s[same[i]].got != L->co_read || u64_at(b + TD_PYOB_TYPE) != p->code_type) {
            w->bad = 1; /* the frames before this one stand */
            break;
        }
        if (L->frames == TD_PYFR_INTERP && c[i].owner != TD_PYOWN_GENERATOR) {
            /* not started yet (CPython's tracebacks leave it out too) */
            uintptr_t first = c[i].code + L->co_code + 2 * (uintptr_t)(uint32_t)i32_at(b + L->co_firsttraceable);
            if (c[i].instr < first)
                continue;
        }
        c[keep] = c[i];
        co[keep++] = b;
    }
    unsigned char fbuf[BATCH][FILE_FIRST], nbuf[BATCH][NAME_FIRST], lbuf[BATCH][LINES_FIRST];
    unsigned lsame[BATCH];
    for (unsigned i = 0; i < keep; i++) {
        uintptr_t file = (uintptr_t)u64_at(co[i] + L->co_filename), name = (uintptr_t)u64_at(co[i] + L->co_name);
        uintptr_t lines = (uintptr_t)u64_at(co[i] + L->co_lines);
        uint32_t off;
        int cut, fnew = !cached(w, file, &off, &cut), nnew = !cached(w, name, &off, &cut);
        lsame[i] = i;
        for (unsigned j = 0; j < i; j++) {
            fnew &= s[3 * j].addr != file;
            nnew &= s[3 * j + 1].addr != name;
            if (lsame[i] == i && s[3 * j + 2].addr == lines)
                lsame[i] = j;
        }
        s[3 * i] = (struct td_pyseg){ file, fbuf[i], fnew ? FILE_FIRST : 0, 0 };
        s[3 * i + 1] = (struct td_pyseg){ name, nbuf[i], nnew ? NAME_FIRST : 0, 0 };
        s[3 * i + 2] = (struct td_pyseg){ lines, lbuf[i], lsame[i] == i ? LINES_FIRST : 0, 0 };
    }
    if (keep && td_py_readv(s, 3 * keep) != 0)
        return w->bad = 1, 0;
    for (unsigned i = 0; i < keep; i++) {
        size_t room = r->str_size - r->str_used;
        if (r->n >= r->max || room < ROOM_MIN) {
            r->more = 1;
            return 0;
        }
        struct td_pyframe *fr = &r->frames[r->n];
        memset(fr, 0, sizeof(*fr));
        fr->group = c[i].group;
        fr->flags = L->minor >= 11 ? TD_PYF_QUALNAME : 0;
        int cut;
        /* each string gets at most half of what is left, at most the cap */
        size_t cap = (room - 2) / 2 < TD_PY_STR_MAX ? (room - 2) / 2 : TD_PY_STR_MAX;
        fr->file = string(w, p, r, &s[3 * i], FILE_FIRST, cap, &cut);
        fr->flags |= cut ? TD_PYF_FILE_CUT : 0;
        room = r->str_size - r->str_used;
        cap = room - 1 < TD_PY_STR_MAX ? room - 1 : TD_PY_STR_MAX;
        fr->func = string(w, p, r, &s[3 * i + 1], NAME_FIRST, cap, &cut);
        fr->flags |= cut ? TD_PYF_FUNC_CUT : 0;
        int firstlineno = i32_at(co[i] + L->co_firstlineno);
        int64_t target;
        if (L->frames == TD_PYFR_OBJECT) {
            target = (int64_t)c[i].lasti * L->lasti_scale;
        } else {
            int64_t units = (int64_t)u64_at(co[i] + TD_PYVAR_SIZE);
            target = (int64_t)c[i].instr - (int64_t)(c[i].code + L->co_code);
            if (target >= 2 * units || (target >= 0 && (target & 1)))
                target = INT32_MAX; /* not in this code: no line */
        }
        if (target < -1)
            target = -1;
        unsigned l = lsame[i];
        fr->line = target > INT32_MAX / 2
                       ? -1
                       : line_of(p, s[3 * l + 2].addr, lbuf[l], s[3 * l + 2].got, firstlineno, (int)target);
        r->n++;
    }
    return !w->bad;
}

unsigned td_py_read(struct td_pyread *r)
{
    r->n = 0;
    r->more = 0;
    r->str_used = 0;
    int s = look();
    if (s != TD_PY_READY) {
        r->status = s == TD_PY_UNSUPPORTED ? TD_PYS_UNSUPPORTED : TD_PYS_ABSENT;
        return 0;
    }
    const struct pyrt *p = &rt;
    const struct td_pylayout *L = p->L;
    if (p->finalizing()) {
        r->status = TD_PYS_FINALIZING;
        return 0;
    }
    /* this thread's state: the one the GIL-state API keeps, or up to 3.11
     * the one holding the GIL if it is this thread's (a subinterpreter's) */
    uintptr_t ts = (uintptr_t)p->tstate(), cur = p->current ? (uintptr_t)p->current() : 0;
    unsigned char tsb[320], curb[320];
    struct td_pyseg seg[2] = { { ts, tsb, L->ts_read, 0 }, { cur, curb, L->ts_read, 0 } };
    unsigned ns = ts ? 1 : 0;
    if (cur && cur != ts) /* whose is it? */
        seg[ns++] = (struct td_pyseg){ cur, curb, L->ts_read, 0 };
    if (!ns) {
        r->status = TD_PYS_NO_THREAD;
        return 0;
    }
    if (td_py_readv(seg, ns) != 0) {
        r->status = TD_PYS_NOREAD;
        return 0;
    }
    if (seg[ns - 1].dst == curb && seg[ns - 1].got == L->ts_read &&
        u64_at(curb + L->ts_thread_id) == (uint64_t)pthread_self()) {
        ts = cur;
        memcpy(tsb, curb, L->ts_read);
    } else if (!ts) {
        r->status = TD_PYS_NO_THREAD;
        return 0;
    } else if (seg[0].got != L->ts_read) {
        r->status = TD_PYS_BAD;
        return 0;
    }
    struct walk w;
    w.L = L;
    w.chunk = w.top = w.win_lo = 0;
    w.win_len = 0;
    w.group = 0;
    w.walked = 0;
    w.seen = 0;
    w.power = w.lam = 1;
    w.bad = 0;
    w.nsc = 0;
    if (L->ts_chunk) {
        uintptr_t chunk = (uintptr_t)u64_at(tsb + L->ts_chunk), top = (uintptr_t)u64_at(tsb + L->ts_top);
        if (chunk && top > chunk && top - chunk < (1u << 30)) {
            w.chunk = chunk;
            w.top = top;
        }
    }
    if (L->ts_cframe) {
        /* 3.11, 3.12: through the C frame; the top of the data stack,
         * where the innermost frame most likely is, comes along */
        uint64_t cf[1];
        uintptr_t cfp = (uintptr_t)u64_at(tsb + L->ts_cframe);
        seg[0] = (struct td_pyseg){ cfp + L->cf_frame, cf, 8, 0 };
        seg[1].len = 0;
        if (w.chunk) {
            uintptr_t lo = w.top - w.chunk > WIN ? w.top - WIN : w.chunk;
            seg[1] = (struct td_pyseg){ lo, w.win, (uint32_t)(w.top - lo), 0 };
        }
        if (!cfp || td_py_readv(seg, 2) != 0 || seg[0].got != 8) {
            r->status = TD_PYS_BAD;
            return 0;
        }
        if (seg[1].len && seg[1].got == seg[1].len) {
            w.win_lo = seg[1].addr;
            w.win_len = seg[1].len;
        }
        w.next = (uintptr_t)cf[0];
    } else {
        w.next = (uintptr_t)u64_at(tsb + L->ts_frame);
    }
    if (!w.next) {
        r->status = TD_PYS_NO_FRAMES;
        return 0;
    }
    struct cand c[BATCH];
    while (r->n < r->max && w.next && !w.bad) {
        unsigned want = r->max - r->n < BATCH ? r->max - r->n : BATCH;
        unsigned n = collect(&w, p, c, want);
        if (n && !emit(&w, p, c, n, r))
            break;
    }
    if (r->n == r->max && w.next)
        r->more = 1;
    r->status = w.bad ? TD_PYS_BAD : r->n ? TD_PYS_OK : TD_PYS_NO_FRAMES;
    return r->n;
}
