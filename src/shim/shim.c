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
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "emuevent.h"
#include "ring.h"

int td_shim_policy_active;
const uint8_t *td_shim_mask;
int td_use_tsc;

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static _Atomic(void *) backend_fns[TD_FN__COUNT];
static void *backend_handle;
static int backend_kind = TD_BK_NONE;
static char backend_text[PATH_MAX + 128];
/* this process's ring (replaced in a child: each process has its own) */
static struct td_ring *_Atomic ring;
const struct td_ctl *td_shim_ctl;
struct td_shared *td_shim_shared;
static size_t ctl_len;
static int wake_fd = -1;
static int stacks, bounded;
/* the process's pid, in a page the kernel clears in a child after any
 * fork (MADV_WIPEONFORK), even a raw fork(2) that runs no atfork handler:
 * 0 there means "a new process: get a ring of its own" */
static struct { _Atomic pid_t pid; } *self;
static pthread_mutex_t self_lock = PTHREAD_MUTEX_INITIALIZER;
static __thread pid_t my_tid, my_tid_pid;

static void emit_hello(void);
static void on_emu_event(const struct td_emu_event *ev);

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

/* ask tdtrace for this process's ring (and, the first time, the control
 * and shared areas); 0 or -1 (then the process is not traced) */
static int connect_tdtrace(int first)
{
    const char *name = getenv("TDTRACE_SOCK");
    if (!name || !*name || strlen(name) > sizeof(((struct sockaddr_un *)0)->sun_path) - 2)
        return -1;
    int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (s < 0)
        return -1;
    struct sockaddr_un a;
    memset(&a, 0, sizeof(a));
    a.sun_family = AF_UNIX;
    size_t n = strlen(name);
    memcpy(a.sun_path + 1, name, n); /* abstract: nothing in the file system */
    uint32_t st = 1;
    int fds[4] = { -1, -1, -1, -1 };
    if (connect(s, (struct sockaddr *)&a, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n)) == 0) {
        union { char b[CMSG_SPACE(sizeof(fds))]; struct cmsghdr align; } u;
        struct iovec iov = { &st, sizeof(st) };
        struct msghdr m;
        memset(&m, 0, sizeof(m));
        m.msg_iov = &iov;
        m.msg_iovlen = 1;
        m.msg_control = u.b;
        m.msg_controllen = sizeof(u.b);
        ssize_t got;
        do
            got = recvmsg(s, &m, MSG_CMSG_CLOEXEC);
        while (got < 0 && errno == EINTR);
        struct cmsghdr *c = got == (ssize_t)sizeof(st) ? CMSG_FIRSTHDR(&m) : NULL;
        if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
            c->cmsg_len == CMSG_LEN(sizeof(fds)))
            memcpy(fds, CMSG_DATA(c), sizeof(fds));
        else
            st = 1;
    }
    close(s);
    int rc = -1;
    struct td_ring *r = NULL;
    if (st == 0 && fds[0] >= 0 && (r = calloc(1, sizeof(*r))) && td_ring_map(r, fds[0]) == 0) {
        if (first) {
            struct stat sb;
            void *c = MAP_FAILED, *sh = MAP_FAILED;
            if (fstat(fds[1], &sb) == 0 && (size_t)sb.st_size >= sizeof(struct td_ctl))
                c = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_SHARED, fds[1], 0);
            if (c != MAP_FAILED)
                sh = mmap(NULL, sizeof(struct td_shared), PROT_READ | PROT_WRITE, MAP_SHARED, fds[2], 0);
            const struct td_ctl *ctl = c;
            if (sh != MAP_FAILED && ctl->magic == TD_CTL_MAGIC && ctl->version == TD_RING_VERSION &&
                sizeof(*ctl) + (size_t)ctl->policy_len <= (size_t)sb.st_size) {
                td_shim_ctl = ctl;
                ctl_len = (size_t)sb.st_size;
                td_shim_shared = sh;
                wake_fd = fds[3];
                fds[3] = -1;
                rc = 0;
            } else {
                if (c != MAP_FAILED)
                    munmap(c, (size_t)sb.st_size);
                if (sh != MAP_FAILED)
                    munmap(sh, sizeof(struct td_shared));
            }
        } else {
            rc = 0;
        }
    }
    for (int i = 0; i < 4; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    if (rc < 0) {
        if (r && r->hdr)
            td_ring_unmap(r);
        free(r);
        return -1;
    }
    /* the old ring (a parent's) stays mapped: a thread may still hold it */
    atomic_store_explicit(&ring, r, memory_order_release);
    return 0;
}

/* a new process: its own ring, its own per-process policy counters */
static void new_process(void)
{
    pthread_mutex_lock(&self_lock);
    if (atomic_load_explicit(&self->pid, memory_order_acquire) == 0) {
        if (connect_tdtrace(0) < 0)
            atomic_store_explicit(&ring, NULL, memory_order_release);
        td_shim_policy_fork_child();
        atomic_store_explicit(&self->pid, (pid_t)syscall(SYS_getpid), memory_order_release);
        emit_hello();
    }
    pthread_mutex_unlock(&self_lock);
}

static void atfork_child(void)
{
    pthread_mutex_init(&self_lock, NULL);
    if (self)
        new_process();
}

/* the ring of the process the caller runs in, or NULL (not traced) */
static inline struct td_ring *my_ring(void)
{
    if (!self)
        return NULL;
    if (__builtin_expect(atomic_load_explicit(&self->pid, memory_order_relaxed) == 0, 0))
        new_process();
    return atomic_load_explicit(&ring, memory_order_acquire);
}

static void shim_init(void)
{
    if (connect_tdtrace(1) == 0) {
        void *pg = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (pg != MAP_FAILED && madvise(pg, 4096, MADV_WIPEONFORK) == 0) {
            self = pg;
            atomic_store(&self->pid, (pid_t)syscall(SYS_getpid));
        } else { /* no way to tell a child from its parent: do not trace */
            atomic_store(&ring, NULL);
        }
        stacks = (td_shim_ctl->flags & TD_RING_STACKS) != 0;
        bounded = (td_shim_ctl->flags & TD_RING_BOUNDED) != 0;
        td_use_tsc = (td_shim_ctl->flags & TD_RING_TSC) != 0;
        td_shim_mask = td_shim_ctl->trace_mask;
    }
    choose_backend();
    if (backend_kind == TD_BK_EMULATE && td_shim_ctl) { /* its reports and kernels into the trace */
        void (*listen)(td_emu_listener) = (void (*)(td_emu_listener))dlsym(backend_handle, TD_EMU_LISTEN);
        if (listen)
            listen(on_emu_event);
    }
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

void *td_rb_item(struct td_rb *b, unsigned arg, unsigned kind, size_t len, uint32_t flags)
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
    b->last = it;
    return data;
}

void td_rb_shrink(struct td_rb *b, size_t len)
{
    struct td_item *it = b->last;
    if (!it || len >= it->len)
        return;
    size_t old = ((size_t)it->len + 7) & ~(size_t)7, now = (len + 7) & ~(size_t)7;
    unsigned char *data = (unsigned char *)(it + 1);
    memset(data + len, 0, old - len);
    it->len = (uint16_t)len;
    b->len -= (uint32_t)(old - now);
}

size_t td_self_read(void *dst, uint64_t addr, size_t len)
{
    if (!addr || !len)
        return 0;
    struct iovec local = { dst, len }, remote = { (void *)(uintptr_t)addr, len };
    pid_t me = atomic_load_explicit(&self->pid, memory_order_relaxed);
    ssize_t n = process_vm_readv(me, &local, 1, &remote, 1, 0);
    if (n > 0)
        return (size_t)n;
    /* it may stop at a page it cannot read: what comes before it */
    size_t room = 4096 - (addr & 4095);
    if (room >= len)
        return 0;
    local.iov_len = remote.iov_len = room;
    n = process_vm_readv(me, &local, 1, &remote, 1, 0);
    return n > 0 ? (size_t)n : 0;
}

/* copy a string from our own memory without trusting the pointer */
static void rb_str(struct td_rb *b, unsigned arg, const char *s)
{
    char tmp[TD_STR_MAX + 1];
    struct iovec local = { tmp, TD_STR_MAX + 1 }, remote = { (void *)s, TD_STR_MAX + 1 };
    pid_t me = atomic_load_explicit(&self->pid, memory_order_relaxed);
    ssize_t n = process_vm_readv(me, &local, 1, &remote, 1, 0);
    if (n <= 0) { /* a page boundary may cut it: read up to the boundary */
        size_t room = 4096 - ((uintptr_t)s & 4095);
        local.iov_len = remote.iov_len = room < TD_STR_MAX + 1 ? room : TD_STR_MAX + 1;
        n = process_vm_readv(me, &local, 1, &remote, 1, 0);
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
    void *d = td_rb_item(b, arg, TD_IT_STR, len, fl);
    if (d)
        memcpy(d, tmp, len);
}

/* -k: the caller's stack, without the shim's own frames */
static void rb_stack(struct td_rb *b)
{
    void *frames[TD_MAX_FRAMES + 8];
    int n = backtrace(frames, TD_MAX_FRAMES + 8);
    uint64_t out[TD_MAX_FRAMES];
    int k = 0;
    static Dl_info shim_info;
    static int have_self = -1;
    if (have_self < 0)
        have_self = dladdr((void *)&rb_stack, &shim_info) != 0;
    for (int i = 0; i < n && k < TD_MAX_FRAMES; i++) {
        Dl_info info;
        if (have_self && dladdr(frames[i], &info) && info.dli_fbase == shim_info.dli_fbase)
            continue;
        out[k++] = (uint64_t)(uintptr_t)frames[i];
    }
    void *d = td_rb_item(b, 0, TD_IT_STACK, (size_t)k * 8, 0);
    if (d)
        memcpy(d, out, (size_t)k * 8);
}

static void rb_commit(struct td_ring *r, struct td_rb *b, unsigned type)
{
    struct td_rec *rec = td_ring_reserve(r, b->len, type, ((struct td_rec *)b->buf)->tid, bounded);
    if (!rec)
        return;
    /* the word is the ring's: copy what follows it */
    memcpy((unsigned char *)rec + 8, b->buf + 8, b->len - 8);
    td_ring_commit(rec);
    /* tdtrace sleeps: wake it (rare: only when it had nothing to do) */
    if (atomic_load_explicit((_Atomic uint32_t *)&td_shim_shared->reader_waiting, memory_order_relaxed) &&
        atomic_exchange_explicit((_Atomic uint32_t *)&td_shim_shared->reader_waiting, 0, memory_order_relaxed)) {
        uint64_t one = 1;
        if (write(wake_fd, &one, sizeof(one)) < 0) {
            /* the program closed it: tdtrace wakes on its own soon */
        }
    }
}

static pid_t tid(void)
{
    pid_t p = atomic_load_explicit(&self->pid, memory_order_relaxed);
    if (my_tid_pid != p) {
        my_tid = (pid_t)syscall(SYS_gettid);
        my_tid_pid = p;
    }
    return my_tid;
}

static void emit_hello(void)
{
    struct td_ring *r = atomic_load_explicit(&ring, memory_order_acquire);
    if (!r || !self)
        return;
    struct td_rb b;
    memset(b.buf, 0, sizeof(struct td_rec));
    b.len = sizeof(struct td_rec);
    b.nitems = 0;
    b.last = NULL;
    struct td_rec *h = (struct td_rec *)b.buf;
    h->pid = (uint32_t)atomic_load_explicit(&self->pid, memory_order_relaxed);
    h->tid = (uint32_t)tid();
    h->fn = (uint16_t)backend_kind;
    h->t_enter = h->t_exit = td_now();
    size_t n = strlen(backend_text);
    void *d = td_rb_item(&b, 0, TD_IT_TEXT, n, 0);
    if (d)
        memcpy(d, backend_text, n);
    h->nitems = b.nitems;
    rb_commit(r, &b, TD_REC_HELLO);
}

/* what the emulator reports (a fault, a diagnostic, a kernel that ran):
 * a TD_REC_EVENT record, on the thread that reports */
static void on_emu_event(const struct td_emu_event *ev)
{
    struct td_ring *ring_ = my_ring();
    if (!ring_ || !ev || ev->size < sizeof(*ev))
        return;
    struct td_rb b;
    struct td_rec *h = (struct td_rec *)b.buf;
    memset(h, 0, sizeof(*h));
    h->pid = (uint32_t)atomic_load_explicit(&self->pid, memory_order_relaxed);
    h->tid = (uint32_t)tid();
    h->fn = ev->kind == TD_EMU_KERNEL ? TD_EV_KERNEL : TD_EV_REPORT;
    h->result = ev->result;
    h->t_enter = ev->t_start;
    h->t_exit = ev->t_end;
    b.len = sizeof(*h);
    b.nitems = 0;
    b.last = NULL;
    if (ev->kind == TD_EMU_KERNEL) {
        struct td_ev_kernel k;
        memset(&k, 0, sizeof(k));
        for (int i = 0; i < 3; i++) {
            k.grid[i] = ev->grid[i];
            k.block[i] = ev->block[i];
        }
        k.shared = ev->shared;
        void *d = td_rb_item(&b, 0, TD_IT_EVENT, sizeof(k), 0);
        if (d)
            memcpy(d, &k, sizeof(k));
    } else {
        size_t n = ev->text ? (ev->len < 3000 ? ev->len : 3000) : 0;
        void *d = td_rb_item(&b, 0, TD_IT_TEXT, n, n < ev->len ? TD_ITF_TRUNCATED : 0);
        if (d && n)
            memcpy(d, ev->text, n);
        if (ev->fault) {
            struct td_ev_fault f;
            memset(&f, 0, sizeof(f));
            f.has_thread = (uint32_t)ev->has_thread;
            for (int i = 0; i < 3; i++) {
                f.block[i] = ev->fblock[i];
                f.thread[i] = ev->thread[i];
            }
            f.access = (uint32_t)ev->access;
            f.size = ev->bytes;
            f.line = ev->line;
            f.addr = ev->addr;
            if (ev->space)
                memcpy(f.space, ev->space, strnlen(ev->space, sizeof(f.space)));
            if ((d = td_rb_item(&b, 0, TD_IT_EVENT, sizeof(f), 0)) != NULL)
                memcpy(d, &f, sizeof(f));
        }
    }
    if (ev->kernel)
        rb_str(&b, 1, ev->kernel);
    if (ev->kind == TD_EMU_REPORT && ev->fault && ev->file)
        rb_str(&b, 2, ev->file);
    h->nitems = b.nitems;
    rb_commit(ring_, &b, TD_REC_EVENT);
}

void td_leave(struct td_call *c, const uint64_t *a, CUresult r)
{
    if (td_shim_policy_active)
        td_shim_policy_after(c, a, r);
    if (__builtin_expect(c->fn == TD_FN_cuModuleUnload || c->fn == TD_FN_cuLibraryUnload, 0))
        td_deref_forget(); /* its functions' handles may come back as others */
    if (!c->record && !c->verdict)
        return;
    uint64_t t1 = td_now();
    struct td_ring *ring_ = my_ring();
    if (!ring_)
        return;
    unsigned fn = (unsigned)c->fn;
    const struct td_fn_info *info = &td_fns[fn];
    struct td_rb b;
    struct td_rec *h = (struct td_rec *)b.buf;
    memset(h, 0, sizeof(*h));
    h->pid = (uint32_t)atomic_load_explicit(&self->pid, memory_order_relaxed);
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
    b.last = NULL;
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
                void *d = td_rb_item(&b, i, TD_IT_OUT, p->size, 0);
                if (d)
                    memcpy(d, ptr, p->size);
            }
            break;
        case TD_R_OUT:
            if (ptr && r == CUDA_SUCCESS) {
                void *d = td_rb_item(&b, i, TD_IT_OUT, p->size, 0);
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
    if (info->deref)
        td_deref(&b, fn, a, r);
    if (c->verdict && c->rule_file) {
        size_t n = strnlen(c->rule_file, 256);
        void *d = td_rb_item(&b, 0xff, TD_IT_TEXT, n, 0);
        if (d)
            memcpy(d, c->rule_file, n);
    }
    if (stacks)
        rb_stack(&b);
    h->nitems = b.nitems;
    rb_commit(ring_, &b, TD_REC_CALL);
}
