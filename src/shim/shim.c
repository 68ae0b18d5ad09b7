/* The shim's runtime: choosing and loading the backend, and recording. */
#include "shim.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <errno.h>
#include <execinfo.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "ring.h"

int td_shim_policy_active;
const uint8_t *td_shim_mask;
int td_use_tsc;

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static _Atomic(void *) backend_fns[TD_FN__COUNT];
static void *backend_handle;
static int backend_kind = TD_BK_NONE;
static char backend_text[PATH_MAX + 128];
struct td_ring td_shim_ring;
static int stacks;
static pid_t my_pid;
static __thread pid_t my_tid;

static void emit_hello(void);

static const char *own_dir(char *buf, size_t len)
{
    const char *d = getenv("TDTRACE_LIBDIR");
    if (d && *d) {
        snprintf(buf, len, "%s", d);
        return buf;
    }
    Dl_info info;
    if (dladdr((void *)&td_real, &info) && info.dli_fname) {
        snprintf(buf, len, "%s", info.dli_fname);
        char *slash = strrchr(buf, '/');
        if (slash) {
            *slash = '\0';
            return buf;
        }
    }
    buf[0] = '\0';
    return buf;
}

/* Load a backend library. The real driver is opened through /proc/self/fd
 * so that tdtrace's loader-audit library, which sends every other load of
 * libcuda.so.1 to this shim, lets this one through. */
static void *load_backend(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    char via[64];
    snprintf(via, sizeof(via), "/proc/self/fd/%d", fd);
    void *h = dlopen(via, RTLD_NOW | RTLD_LOCAL);
    close(fd);
    return h;
}

static int driver_has_devices(void *h)
{
    CUresult (*init)(unsigned) = (CUresult (*)(unsigned))dlsym(h, "cuInit");
    CUresult (*count)(int *) = (CUresult (*)(int *))dlsym(h, "cuDeviceGetCount");
    int n = 0;
    return init && count && init(0) == CUDA_SUCCESS && count(&n) == CUDA_SUCCESS && n > 0;
}

static void choose_backend(void)
{
    char dir[PATH_MAX], path[PATH_MAX];
    own_dir(dir, sizeof(dir));
    const char *want = getenv("TDTRACE_BACKEND");
    if (!want || !*want)
        want = "auto";
    const char *why = "";
    if (strcmp(want, "emulate") != 0) {
        const char *given = getenv("TDTRACE_DRIVER");
        int found = given && *given ? (snprintf(path, sizeof(path), "%s", given), 0)
                                    : td_find_driver(dir, path, sizeof(path));
        void *h = found == 0 ? load_backend(path) : NULL;
        if (h && (strcmp(want, "driver") == 0 || driver_has_devices(h))) {
            backend_handle = h;
            backend_kind = TD_BK_DRIVER;
            snprintf(backend_text, sizeof(backend_text), "driver %s", path);
            return;
        }
        why = found != 0 ? "no NVIDIA driver found" : !h ? "the NVIDIA driver did not load"
                                                        : "the NVIDIA driver sees no device";
        if (strcmp(want, "driver") == 0) {
            snprintf(backend_text, sizeof(backend_text), "none (%s)", why);
            return;
        }
        /* a driver that loaded but has no device stays loaded: unloading
         * a library that started threads is not safe */
    }
    const char *emu = getenv("TDTRACE_EMULATOR");
    if (emu && *emu)
        snprintf(path, sizeof(path), "%s", emu);
    else
        snprintf(path, sizeof(path), "%s/emu/libcuda.so.1", dir);
    backend_handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (backend_handle) {
        backend_kind = TD_BK_EMULATE;
        snprintf(backend_text, sizeof(backend_text), "emulate %s%s%s%s", path, *why ? " (" : "",
                 why, *why ? ")" : "");
    } else {
        snprintf(backend_text, sizeof(backend_text), "none (emulator %s did not load: %s)", path,
                 dlerror());
    }
}

static void atfork_child(void)
{
    my_pid = getpid();
    my_tid = 0;
    td_shim_policy_fork_child();
    emit_hello();
}

static void shim_init(void)
{
    my_pid = getpid();
    const char *rp = getenv("TDTRACE_RING");
    if (rp && *rp && td_ring_attach(&td_shim_ring, rp) == 0) {
        stacks = (td_shim_ring.hdr->flags & TD_RING_STACKS) != 0;
        td_use_tsc = (td_shim_ring.hdr->flags & TD_RING_TSC) != 0;
        td_shim_mask = td_shim_ring.hdr->trace_mask;
    }
    choose_backend();
    for (int i = 0; i < TD_FN__ENTRY_POINTS; i++)
        atomic_store_explicit(&backend_fns[i],
                              backend_handle ? dlsym(backend_handle, td_fns[i].name) : NULL,
                              memory_order_relaxed);
    td_shim_policy_init();
    pthread_atfork(NULL, NULL, atfork_child);
    emit_hello();
}

/* load the backend when the shim is loaded, so no call's time includes it */
__attribute__((constructor)) static void shim_load(void)
{
    pthread_once(&init_once, shim_init);
}

void *td_backend_fn(int fn)
{
    pthread_once(&init_once, shim_init);
    return atomic_load_explicit(&backend_fns[fn], memory_order_relaxed);
}

void td_set_backend_fn(int fn, void *p)
{
    atomic_store_explicit(&backend_fns[fn], p, memory_order_relaxed);
}

void *td_real(int fn)
{
    void *o = td_shim_override(fn);
    return o ? o : td_backend_fn(fn);
}

CUresult td_missing(int fn)
{
    (void)fn;
    return backend_handle ? CUDA_ERROR_NOT_SUPPORTED : CUDA_ERROR_NOT_INITIALIZED;
}

/* ---- recording ------------------------------------------------------- */

struct rb {
    unsigned char buf[TD_RING_MAXREC];
    uint32_t len;
    uint8_t nitems;
};

static void *rb_item(struct rb *b, unsigned arg, unsigned kind, size_t len, uint32_t flags)
{
    size_t need = sizeof(struct td_item) + ((len + 7) & ~(size_t)7);
    if (b->len + need > sizeof(b->buf) || len > 0xffff)
        return NULL;
    struct td_item *it = (struct td_item *)(b->buf + b->len);
    it->arg = (uint8_t)arg;
    it->kind = (uint8_t)kind;
    it->len = (uint16_t)len;
    it->flags = flags;
    unsigned char *data = (unsigned char *)(it + 1);
    memset(data + len, 0, need - sizeof(*it) - len);
    b->len += (uint32_t)need;
    b->nitems++;
    return data;
}

/* copy a string from our own memory without trusting the pointer */
static void rb_str(struct rb *b, unsigned arg, const char *s)
{
    char tmp[TD_STR_MAX + 1];
    struct iovec local = { tmp, TD_STR_MAX + 1 }, remote = { (void *)s, TD_STR_MAX + 1 };
    ssize_t n = process_vm_readv(my_pid, &local, 1, &remote, 1, 0);
    if (n <= 0) { /* a page boundary may cut it: read up to the boundary */
        size_t room = 4096 - ((uintptr_t)s & 4095);
        local.iov_len = remote.iov_len = room < TD_STR_MAX + 1 ? room : TD_STR_MAX + 1;
        n = process_vm_readv(my_pid, &local, 1, &remote, 1, 0);
        if (n <= 0)
            return;
    }
    size_t len = strnlen(tmp, (size_t)n);
    uint32_t fl = 0;
    if (len > TD_STR_MAX) {
        len = TD_STR_MAX;
        fl = TD_ITF_TRUNCATED;
    } else if (len == (size_t)n && (size_t)n == TD_STR_MAX + 1) {
        fl = TD_ITF_TRUNCATED;
    }
    void *d = rb_item(b, arg, TD_IT_STR, len, fl);
    if (d)
        memcpy(d, tmp, len);
}

/* -k: the caller's stack, without the shim's own frames */
static void rb_stack(struct rb *b)
{
    void *frames[TD_MAX_FRAMES + 8];
    int n = backtrace(frames, TD_MAX_FRAMES + 8);
    uint64_t out[TD_MAX_FRAMES];
    int k = 0;
    static Dl_info self;
    static int have_self = -1;
    if (have_self < 0)
        have_self = dladdr((void *)&rb_stack, &self) != 0;
    for (int i = 0; i < n && k < TD_MAX_FRAMES; i++) {
        Dl_info info;
        if (have_self && dladdr(frames[i], &info) && info.dli_fbase == self.dli_fbase)
            continue;
        out[k++] = (uint64_t)(uintptr_t)frames[i];
    }
    void *d = rb_item(b, 0, TD_IT_STACK, (size_t)k * 8, 0);
    if (d)
        memcpy(d, out, (size_t)k * 8);
}

static void rb_commit(struct rb *b, unsigned type)
{
    struct td_rec *rec = td_ring_reserve(&td_shim_ring, b->len, type);
    if (!rec)
        return;
    /* the word is the ring's: copy what follows it */
    memcpy((unsigned char *)rec + 8, b->buf + 8, b->len - 8);
    td_ring_commit(&td_shim_ring, rec, b->len, type);
}

static pid_t tid(void)
{
    if (!my_tid)
        my_tid = (pid_t)syscall(SYS_gettid);
    return my_tid;
}

static void emit_hello(void)
{
    if (!td_shim_ring.hdr)
        return;
    struct rb b;
    memset(b.buf, 0, sizeof(struct td_rec));
    b.len = sizeof(struct td_rec);
    b.nitems = 0;
    struct td_rec *h = (struct td_rec *)b.buf;
    h->pid = (uint32_t)my_pid;
    h->tid = (uint32_t)tid();
    h->fn = (uint16_t)backend_kind;
    h->t_enter = h->t_exit = td_now();
    size_t n = strlen(backend_text);
    void *d = rb_item(&b, 0, TD_IT_TEXT, n, 0);
    if (d)
        memcpy(d, backend_text, n);
    h->nitems = b.nitems;
    rb_commit(&b, TD_REC_HELLO);
}

void td_leave(struct td_call *c, const uint64_t *a, CUresult r)
{
    if (td_shim_policy_active)
        td_shim_policy_after(c, a, r);
    if (!c->record && !c->verdict)
        return;
    uint64_t t1 = td_now();
    if (!td_shim_ring.hdr)
        return;
    unsigned fn = (unsigned)c->fn;
    const struct td_fn_info *info = &td_fns[fn];
    struct rb b;
    struct td_rec *h = (struct td_rec *)b.buf;
    memset(h, 0, sizeof(*h));
    h->pid = (uint32_t)my_pid;
    h->tid = (uint32_t)tid();
    h->fn = (uint16_t)fn;
    h->nargs = info->nparams;
    h->result = (int32_t)r;
    h->t_enter = c->t0;
    h->t_exit = t1;
    h->verdict = c->verdict;
    h->applied = c->applied;
    h->rule_line = c->rule_line;
    b.len = sizeof(*h);
    b.nitems = 0;
    memcpy(b.buf + b.len, a, (size_t)info->nparams * 8);
    b.len += (uint32_t)info->nparams * 8;
    for (unsigned i = 0; i < info->nparams; i++) {
        const struct td_param *p = &info->params[i];
        const void *ptr = (const void *)(uintptr_t)a[i];
        switch ((enum td_role)p->role) {
        case TD_R_IN:
            break;
        case TD_R_STR:
            if (ptr)
                rb_str(&b, i, ptr);
            break;
        case TD_R_INP:
            if (ptr) {
                void *d = rb_item(&b, i, TD_IT_OUT, p->size, 0);
                if (d)
                    memcpy(d, ptr, p->size);
            }
            break;
        case TD_R_OUT:
            if (ptr && r == CUDA_SUCCESS) {
                void *d = rb_item(&b, i, TD_IT_OUT, p->size, 0);
                if (d)
                    memcpy(d, ptr, p->size);
            }
            break;
        case TD_R_OUTSTR:
            if (ptr && r == CUDA_SUCCESS)
                rb_str(&b, i, ptr);
            break;
        case TD_R_OUTPSTR:
            if (ptr && r == CUDA_SUCCESS) {
                const char *s = *(const char *const *)ptr;
                if (s)
                    rb_str(&b, i, s);
            }
            break;
        }
    }
    if (c->verdict && c->rule_file) {
        size_t n = strnlen(c->rule_file, 256);
        void *d = rb_item(&b, 0xff, TD_IT_TEXT, n, 0);
        if (d)
            memcpy(d, c->rule_file, n);
    }
    if (stacks)
        rb_stack(&b);
    h->nitems = b.nitems;
    rb_commit(&b, TD_REC_CALL);
}
