/* SPDX-License-Identifier: Apache-2.0 */
/* The report of a kernel that failed, laid out the way compute-sanitizer's
 * memcheck reports an error: what happened (an invalid global write of 4
 * bytes), where (kernel, demangled; block and thread; PTX line and
 * instruction; the .cu file and line when the PTX carries .loc), and for
 * an address, the allocation it lies in or nearest to, with the offset.
 *
 * One formatter (emu_fault_format, pure: the unit tests call it), one
 * sink (emu_report: the program's stderr unless emu_report_set_sink names
 * another, so the report can be routed elsewhere), and a listener (tdtrace's
 * shim, set with tdtrace_emu_listen, include/tdtrace/emuevent.h) that takes
 * every report, a fault's details and each kernel's run into the trace.
 *
 * Kernel names are demangled with the C++ runtime's own __cxa_demangle,
 * looked up at run time (dlsym, else libstdc++.so.6 dlopen'ed at the first
 * report), so the emulator gains no link dependency; without it the name
 * is shown as the PTX spells it. */
#include "emu.h"
#include "../ptx/ptx.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "emuevent.h"
#include "xlat.h"

/* ---- the sink ------------------------------------------------------------ */

static pthread_mutex_t sink_lock = PTHREAD_MUTEX_INITIALIZER;
static emu_report_fn sink_fn;
static void *sink_cookie;
static _Atomic(td_emu_listener) listener;

TD_EXPORT void tdtrace_emu_listen(td_emu_listener fn);
static uint64_t report_submit(void);
static void report_op(const struct emu_op *op, uint64_t t0, uint64_t t1);

TD_EXPORT void tdtrace_emu_listen(td_emu_listener fn)
{
    static const struct emu_tl_hooks hooks = { report_submit, report_op };
    atomic_store(&listener, fn);
    emu_stream_tl_hooks(fn ? &hooks : NULL);
}

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* a report to the listener; 0 when there is none */
static int listen_report(const char *text, size_t len, const struct emu_fault *f)
{
    td_emu_listener fn = atomic_load(&listener);
    if (!fn)
        return 0;
    struct td_emu_event ev;
    memset(&ev, 0, sizeof ev);
    ev.size = sizeof ev;
    ev.kind = TD_EMU_REPORT;
    ev.text = text;
    ev.len = len;
    ev.t_start = ev.t_end = mono_ns();
    if (f) {
        ev.fault = 1;
        ev.kernel = f->kernel;
        ev.result = f->result;
        ev.has_thread = f->has_thread;
        for (int i = 0; i < 3; i++) {
            ev.fblock[i] = f->block[i];
            ev.thread[i] = f->thread[i];
        }
        ev.access = f->access == EMU_ACCESS_READ ? 1 : f->access == EMU_ACCESS_WRITE ? 2
                  : f->access == EMU_ACCESS_ATOMIC ? 3 : 0;
        ev.bytes = f->size;
        ev.space = f->space;
        ev.addr = f->addr;
        ev.file = f->file;
        ev.line = f->line;
    }
    fn(&ev);
    return 1;
}

void emu_report_image(int least_cc, int ptx_isa)
{
    td_emu_listener fn = atomic_load(&listener);
    if (!fn)
        return;
    struct td_emu_event ev;
    memset(&ev, 0, sizeof ev);
    ev.size = sizeof ev;
    ev.kind = TD_EMU_IMAGE;
    ev.t_start = ev.t_end = mono_ns();
    ev.image_cc = least_cc;
    ev.image_isa = ptx_isa;
    fn(&ev);
}

/* where an op ran: its stream's ordinal (0: the legacy stream) and device */
static void op_place(struct td_emu_event *ev, const struct emu_op *op)
{
    const struct emu_stream *s = op ? op->stream : NULL;
    if (!s)
        return;
    ev->corr = op->corr;
    ev->stream = s->kind == EMU_S_LEGACY ? 0 : s->id;
    ev->device = s->sctx && s->sctx->dev ? s->sctx->dev->ordinal : 0;
}

void emu_report_kernel(const char *kernel, const unsigned grid[3], const unsigned block[3], unsigned shared,
                       uint64_t t0, uint64_t t1, int result, const struct emu_op *op, int child,
                       const struct ptx_engine_report *er)
{
    td_emu_listener fn = atomic_load(&listener);
    if (!fn)
        return;
    struct td_emu_event ev;
    memset(&ev, 0, sizeof ev);
    ev.size = sizeof ev;
    ev.kind = TD_EMU_KERNEL;
    ev.kernel = kernel;
    ev.result = result;
    ev.t_start = t0;
    ev.t_end = t1;
    for (int i = 0; i < 3; i++) {
        ev.grid[i] = grid[i];
        ev.block[i] = block[i];
    }
    ev.shared = shared;
    ev.op = TD_EMU_OP_KERNEL;
    op_place(&ev, op);
    if (child)
        ev.corr = 0;
    if (er && er->compiled && er->engine == PTX_ENGINE_JIT) { /* the JIT's compile or load (the first launch) */
        ev.jit = er->from_cache ? 2 : 1;
        ev.jit_ms = er->compile_ms;
        ev.jit_code_bytes = er->code_bytes;
    }
    fn(&ev);
}

static uint64_t report_submit(void)
{
    td_emu_listener fn = atomic_load(&listener);
    if (!fn)
        return 0;
    uint64_t corr = 0;
    struct td_emu_event ev;
    memset(&ev, 0, sizeof ev);
    ev.size = sizeof ev;
    ev.kind = TD_EMU_SUBMIT;
    ev.corr_out = &corr;
    fn(&ev);
    return corr;
}

static void report_op(const struct emu_op *op, uint64_t t0, uint64_t t1)
{
    td_emu_listener fn = atomic_load(&listener);
    if (!fn || op->tl_kind <= EMU_TL_KERNEL || op->tl_kind > EMU_TL_MEMOP)
        return;
    struct td_emu_event ev;
    memset(&ev, 0, sizeof ev);
    ev.size = sizeof ev;
    ev.kind = TD_EMU_OP;
    ev.t_start = t0;
    ev.t_end = t1;
    ev.op = op->tl_kind;
    ev.dir = op->tl_dir;
    ev.op_bytes = op->tl_bytes;
    op_place(&ev, op);
    fn(&ev);
}

int emu_listening(void)
{
    return atomic_load(&listener) != NULL;
}

void emu_report_set_sink(emu_report_fn fn, void *cookie)
{
    pthread_mutex_lock(&sink_lock);
    sink_fn = fn;
    sink_cookie = cookie;
    pthread_mutex_unlock(&sink_lock);
}

void emu_reportf(const char *fmt, ...)
{
    char b[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b, sizeof b, fmt, ap);
    va_end(ap);
    if (n > 0)
        emu_report(b, (size_t)n < sizeof b ? (size_t)n : sizeof b - 1);
}

void emu_report(const char *text, size_t len)
{
    if (listen_report(text, len, NULL))
        return;
    pthread_mutex_lock(&sink_lock);
    if (sink_fn) {
        sink_fn(sink_cookie, text, len);
    } else { /* one write: reports of two kernels do not interleave */
        size_t off = 0;
        while (off < len) {
            ssize_t k = write(STDERR_FILENO, text + off, len - off);
            if (k < 0 && errno == EINTR)
                continue;
            if (k <= 0)
                break;
            off += (size_t)k;
        }
    }
    pthread_mutex_unlock(&sink_lock);
}

/* ---- names ---------------------------------------------------------------- */

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);
static demangle_fn demangler;
static pthread_once_t demangler_once = PTHREAD_ONCE_INIT;

static void find_demangler(void)
{
    void *f = dlsym(RTLD_DEFAULT, "__cxa_demangle");
    if (!f) {
        void *h = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL);
        if (h)
            f = dlsym(h, "__cxa_demangle"); /* the handle stays open */
    }
    demangler = (demangle_fn)f;
}

const char *emu_demangle(const char *name, char *buf, size_t len)
{
    if (!name || !len)
        return name;
    pthread_once(&demangler_once, find_demangler);
    if (demangler && name[0] == '_' && name[1] == 'Z') {
        int status = -1;
        char *d = demangler(name, NULL, NULL, &status);
        if (d && status == 0) {
            snprintf(buf, len, "%s", d);
            free(d);
            return buf;
        }
        free(d);
    }
    return name;
}

/* ---- the text ------------------------------------------------------------- */

struct out {
    char *buf;
    size_t len, at;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct out *o, const char *fmt, ...)
{
    if (o->at >= o->len)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(o->buf + o->at, o->len - o->at, fmt, ap);
    va_end(ap);
    if (n > 0)
        o->at = o->at + (size_t)n < o->len ? o->at + (size_t)n : o->len - 1;
}

static const char *kind_name(int kind)
{
    switch (kind) {
    case EMU_MEM_DEVICE: return "device allocation (cuMemAlloc)";
    case EMU_MEM_MANAGED: return "managed allocation (cuMemAllocManaged)";
    case EMU_MEM_HOST: return "page-locked host allocation (cuMemHostAlloc)";
    case EMU_MEM_REGISTERED: return "registered host range (cuMemHostRegister)";
    case EMU_MEM_GLOBAL: return "module variable";
    case EMU_MEM_VMM: return "mapped virtual memory (cuMemMap)";
    case EMU_MEM_IPC: return "allocation of another process (cuIpcOpenMemHandle)";
    default: return "allocation";
    }
}

static const char *what_of(const struct emu_fault *f)
{
    switch (f->status) {
    case EMU_FAULT_ADDRESS: return "invalid";
    case EMU_FAULT_MISALIGNED: return "misaligned";
    case EMU_FAULT_TRAP: return "trap";
    case EMU_FAULT_STACK: return "call stack overflow";
    case EMU_FAULT_DEADLOCK: return "deadlock";
    case EMU_FAULT_SYNC: return "warp-synchronous instruction used against its rules";
    case EMU_FAULT_TIMEOUT: return "time or instruction limit reached";
    case EMU_FAULT_UNSUPPORTED: return "unsupported instruction";
    case EMU_FAULT_NOMEM: return "out of host memory";
    case EMU_FAULT_ASSERT: return "assertion failed";
    case EMU_FAULT_OTHER:
    default: return "failure";
    }
}

static const char *access_name(int a)
{
    switch (a) {
    case EMU_ACCESS_READ: return "read";
    case EMU_ACCESS_WRITE: return "write";
    case EMU_ACCESS_ATOMIC: return "atomic";
    default: return "access";
    }
}

/* an access fault whose access is known */
static int is_memory(const struct emu_fault *f)
{
    return (f->status == EMU_FAULT_ADDRESS || f->status == EMU_FAULT_MISALIGNED) && f->access != EMU_ACCESS_NONE;
}

/* an offset in a shared, local or param window, not a host address */
static int in_window(const struct emu_fault *f)
{
    const char *sp = f->space ? f->space : "";
    return strcmp(sp, "shared") == 0 || strcmp(sp, "local") == 0 || strcmp(sp, "param") == 0;
}

/* where the address lies: in, past, before, or freed */
static void put_address(struct out *o, const struct emu_fault *f, const struct emu_mem_near *n)
{
    uint64_t a = f->addr;
    const char *sp = f->space ? f->space : "";
    if (strcmp(sp, "shared::cluster") == 0) { /* the PTX engine's encoding (ptx.h) */
        uint64_t hi = a >> PTX_CLUSTER_SHIFT, off = a & ((1ull << PTX_CLUSTER_SHIFT) - 1);
        put(o, "    address 0x%llx of the cluster's shared memory: %s, offset 0x%llx\n", (unsigned long long)a,
            hi ? "a block of the cluster by rank" : "the block's own", (unsigned long long)off);
        if (hi)
            put(o, "    (rank %llu; the cluster's blocks are numbered from 0)\n", (unsigned long long)(hi - 1));
        return;
    }
    if (in_window(f)) {
        put(o, "    offset 0x%llx in the %s %s window\n", (unsigned long long)a,
            strcmp(sp, "shared") == 0 ? "block's" : strcmp(sp, "local") == 0 ? "thread's" : "kernel's", sp);
        return;
    }
    put(o, "    address 0x%llx", (unsigned long long)a);
    if (a < 4096) { /* the page at 0 is never mapped: an offset from NULL */
        put(o, ": a null pointer plus %llu\n", (unsigned long long)a);
        return;
    }
    if (!n || !n->found) {
        put(o, ": not in or near any allocation\n");
        return;
    }
    uint64_t base = n->base, end = n->base + n->size;
    if (a < base)
        put(o, " = 0x%llx-0x%llx: %llu bytes before the start of a", (unsigned long long)base,
            (unsigned long long)(base - a), (unsigned long long)(base - a));
    else
        put(o, " = 0x%llx+0x%llx", (unsigned long long)base, (unsigned long long)(a - base));
    if (a >= base && n->freed)
        put(o, ", in a freed");
    else if (a >= end)
        put(o, ": %llu bytes past the end of a", (unsigned long long)(a - end));
    else if (a >= base)
        put(o, ", inside a");
    put(o, " %llu-byte %s", (unsigned long long)n->size, kind_name(n->kind));
    /* inside another device's memory: what made it unreachable */
    if (a >= base && a < end && !n->freed && n->device >= 0 && f->device >= 0 && n->device != f->device &&
        (n->kind == EMU_MEM_DEVICE || n->kind == EMU_MEM_GLOBAL))
        put(o, n->pooled ? " of a pool of device %d whose access list (cuMemPoolSetAccess) does not name device %d"
                         : " of device %d, and device %d has no peer access to it (cuCtxEnablePeerAccess)",
            n->device, f->device);
    put(o, "\n");
}

size_t emu_fault_format(const struct emu_fault *f, const struct emu_mem_near *near, char *buf, size_t len)
{
    struct out o = { buf, len, 0 };
    if (!buf || !len)
        return 0;
    buf[0] = 0;
    char dk[512], df[512];
    const char *kernel = emu_demangle(f->kernel ? f->kernel : "?", dk, sizeof dk);
    const char *result = td_xlat_name(TD_X_CUresult, (unsigned long long)f->result);
    if (f->status == EMU_FAULT_ASSERT && f->message && *f->message) {
        /* the device-side assert's line, as CUDA prints it */
        put(&o, "%s\n", f->message);
        return o.at;
    }
    int mem = is_memory(f);
    if (mem)
        put(&o, "tdtrace-emu: %s %s %s of %u bytes in kernel %s (%s)\n", what_of(f),
            f->space && *f->space ? f->space : "memory", access_name(f->access), f->size, kernel,
            result ? result : "?");
    else if (f->status == EMU_FAULT_ADDRESS || f->status == EMU_FAULT_MISALIGNED)
        put(&o, "tdtrace-emu: %s address in kernel %s (%s)\n", what_of(f), kernel, result ? result : "?");
    else
        put(&o, "tdtrace-emu: %s in kernel %s (%s)\n", what_of(f), kernel, result ? result : "?");
    if (f->has_thread)
        put(&o, "    by thread (%u,%u,%u) in block (%u,%u,%u)\n", f->thread[0], f->thread[1], f->thread[2],
            f->block[0], f->block[1], f->block[2]);
    if (f->depth && f->parent && *f->parent)
        put(&o, "    in a child grid (nesting depth %u) launched by kernel %s\n", f->depth,
            emu_demangle(f->parent, df, sizeof df));
    if (f->ptx_line > 0) {
        put(&o, "    at PTX line %d", f->ptx_line);
        if (f->opcode && *f->opcode)
            put(&o, ": %s", f->opcode);
        if (f->function && *f->function && (!f->kernel || strcmp(f->function, f->kernel) != 0))
            put(&o, " in %s", emu_demangle(f->function, df, sizeof df));
        if (f->file && *f->file && f->line > 0) {
            put(&o, " (%s:%d", f->file, f->line);
            if (f->column > 0)
                put(&o, ":%d", f->column);
            put(&o, ")");
        }
        put(&o, "\n");
    }
    if (mem)
        put_address(&o, f, near);
    /* the engine's account where the details above do not say it all */
    if (f->message && *f->message && (!mem || !f->has_thread || f->ptx_line <= 0))
        put(&o, "    %s\n", f->message);
    return o.at;
}

void emu_fault_report(const struct emu_fault *f)
{
    struct emu_mem_near n = { 0 };
    if (is_memory(f) && !in_window(f))
        emu_mem_nearest((uintptr_t)f->addr, &n);
    char text[4096];
    size_t len = emu_fault_format(f, &n, text, sizeof text);
    if (!listen_report(text, len, f))
        emu_report(text, len);
}

void emu_fault_report_host(const char *what, const char *why, uint64_t addr, size_t bytes, int device)
{
    struct emu_fault f;
    memset(&f, 0, sizeof f);
    f.status = EMU_FAULT_ADDRESS;
    f.result = CUDA_ERROR_ILLEGAL_ADDRESS;
    f.kernel = what && *what ? what : "a host library operation";
    f.space = "global";
    f.addr = addr;
    f.size = bytes > UINT32_MAX ? UINT32_MAX : (unsigned)bytes;
    f.device = device;
    struct emu_mem_near n = { 0 };
    if (!why)
        emu_mem_nearest((uintptr_t)addr, &n);
    char text[1024];
    struct out o = { text, sizeof text, 0 };
    text[0] = 0;
    if (!why) {
        put(&o, "tdtrace-emu: invalid global access of %zu bytes in host library call %s (CUDA_ERROR_ILLEGAL_ADDRESS)\n",
            bytes, f.kernel);
        put_address(&o, &f, &n);
        put(&o, "    the operand was checked when the call was captured into a graph and is checked again at each "
                "launch of the graph\n");
    } else {
        put(&o, "tdtrace-emu: host library call %s: %s (CUDA_ERROR_ILLEGAL_ADDRESS)\n", f.kernel, why);
    }
    if (!listen_report(text, o.at, &f))
        emu_report(text, o.at);
}
