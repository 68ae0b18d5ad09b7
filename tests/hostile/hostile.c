/* SPDX-License-Identifier: Apache-2.0 */
/* Programs that attack or stress tdtrace's supervisor (tests/hostile/run.sh).
 * Each mode is one misbehaviour: forged, torn and garbage records written
 * straight into the program's own record ring, writers that die in the
 * middle of a record, floods while forking, exec'ing and making threads,
 * environments tdtrace must put back, signals. Where the mode makes real
 * driver calls it prints, on stdout, the lines tdtrace must print for them.
 *
 *   hostile MODE [ARGS...] */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "api.h"
#include "ring.h"
#include "td_api.h"

extern char **environ;

__attribute__((visibility("default"), used)) const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "detect_leaks=0";
}

static void die(const char *what)
{
    fprintf(stderr, "hostile: %s: %s\n", what, strerror(errno));
    exit(2);
}

#define MUST(call)                                                             \
    do {                                                                       \
        CUresult r_ = (call);                                                  \
        if (r_ != CUDA_SUCCESS) {                                              \
            fprintf(stderr, "hostile: %s = %d\n", #call, (int)r_);             \
            exit(2);                                                           \
        }                                                                      \
    } while (0)

static pid_t gettid_(void)
{
    return (pid_t)syscall(SYS_gettid);
}

/* ---- the program's own ring, found as an attacker would: a shared
 * mapping whose first word is the ring's magic ---- */

static struct td_ring ring;

static int find_ring(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        die("/proc/self/maps");
    char line[512];
    int found = 0;
    while (!found && fgets(line, sizeof(line), f)) {
        unsigned long lo, hi;
        char perms[8];
        if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3 || perms[0] != 'r' || perms[3] != 's')
            continue;
        const struct td_ring_hdr *h = (const void *)lo;
        if (h->magic != TD_RING_MAGIC || hi - lo != TD_RING_HDR + h->size)
            continue;
        ring.hdr = (struct td_ring_hdr *)h;
        ring.data = (unsigned char *)lo + TD_RING_HDR;
        ring.size = h->size;
        ring.mask = h->size - 1;
        found = perms[1] == 'w';
    }
    fclose(f);
    return found;
}

/* the start of the mapping of a memfd named name, or NULL */
static void *find_map(const char *name, unsigned long *len)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        die("/proc/self/maps");
    char line[512];
    void *at = NULL;
    while (!at && fgets(line, sizeof(line), f)) {
        unsigned long lo, hi;
        if (strstr(line, name) && sscanf(line, "%lx-%lx", &lo, &hi) == 2) {
            at = (void *)lo;
            *len = hi - lo;
        }
    }
    fclose(f);
    return at;
}

static void need_ring(void)
{
    if (!find_ring()) {
        fprintf(stderr, "hostile: no writable record ring in this process\n");
        exit(2);
    }
}

/* a call record with args and an optional 8-byte out item for arg 0 */
static struct td_rec *forge(const char *fn, int nargs, const uint64_t *args, int result,
                            const uint64_t *out0, uint32_t pid, int commit)
{
    int id = td_api_find(fn);
    if (id < 0)
        exit(3);
    uint32_t len = (uint32_t)(sizeof(struct td_rec) + (size_t)nargs * 8 +
                              (out0 ? sizeof(struct td_item) + 8 : 0));
    struct td_rec *r = td_ring_reserve(&ring, len, TD_REC_CALL, gettid_(), 0);
    if (!r)
        return NULL;
    memset((char *)r + 8, 0, len - 8);
    r->pid = pid;
    r->tid = (uint32_t)gettid_();
    r->fn = (uint16_t)id;
    r->nargs = (uint8_t)nargs;
    r->result = result;
    memcpy(r + 1, args, (size_t)nargs * 8);
    if (out0) {
        struct td_item *it = (struct td_item *)((char *)(r + 1) + (size_t)nargs * 8);
        it->arg = 0;
        it->kind = TD_IT_OUT;
        it->len = 8;
        memcpy(it + 1, out0, 8);
        r->nitems = 1;
    }
    if (commit)
        td_ring_commit(r);
    return r;
}

/* ---- modes ---- */

/* a context on device -0x20000000, then an allocation in it */
static int m_forge_dev(void)
{
    MUST(cuInit(0));
    need_ring();
    uint64_t ctx = 0x5a5a000, a1[] = { 0x1000, 0, (uint64_t)(int64_t)-0x20000000 };
    forge("cuCtxCreate_v2", 3, a1, 0, &ctx, (uint32_t)getpid(), 1);
    uint64_t dptr = 0x7000000, a2[] = { 0x2000, 4096 };
    forge("cuMemAlloc_v2", 2, a2, 0, &dptr, (uint32_t)getpid(), 1);
    /* a device index past every table, and a function id past the API */
    uint64_t a3[] = { 0x1000, 0, 1u << 30 };
    forge("cuCtxCreate_v2", 3, a3, 0, &ctx, (uint32_t)getpid(), 1);
    int v;
    MUST(cuDriverGetVersion(&v));
    printf("cuInit(0) = CUDA_SUCCESS\ncuDriverGetVersion(&%d) = CUDA_SUCCESS\n", v);
    return 0;
}

/* --py: a call record of cuDeviceGetCount (out value 3) with a Python
 * frames item: hdr, then frames, then nstr bytes of strings; extra: a
 * second frames item */
static void forge_py(struct td_pyitem h, const struct td_pyrecframe *fr, unsigned nfr, const char *str,
                     unsigned nstr, int extra)
{
    size_t body = sizeof(h) + nfr * sizeof(*fr) + nstr, pad = (body + 7) & ~(size_t)7;
    uint32_t len = (uint32_t)(sizeof(struct td_rec) + 8 + sizeof(struct td_item) + 8 +
                              (1 + (extra != 0)) * (sizeof(struct td_item) + pad));
    struct td_rec *r = td_ring_reserve(&ring, len, TD_REC_CALL, gettid_(), 0);
    if (!r)
        return;
    memset((char *)r + 8, 0, len - 8);
    r->pid = (uint32_t)getpid();
    r->tid = (uint32_t)gettid_();
    r->fn = (uint16_t)td_api_find("cuDeviceGetCount");
    r->nargs = 1;
    uint64_t arg = 0x1000, three = 3;
    unsigned char *d = (unsigned char *)(r + 1);
    memcpy(d, &arg, 8);
    d += 8;
    struct td_item it = { 0, TD_IT_OUT, 8, 0 };
    memcpy(d, &it, sizeof(it));
    memcpy(d + sizeof(it), &three, 8);
    d += sizeof(it) + 8;
    for (int k = 0; k < 1 + (extra != 0); k++) {
        it = (struct td_item){ 0, TD_IT_PYFRAMES, (uint16_t)body, 0 };
        memcpy(d, &it, sizeof(it));
        memcpy(d + sizeof(it), &h, sizeof(h));
        memcpy(d + sizeof(it) + sizeof(h), fr, nfr * sizeof(*fr));
        memcpy(d + sizeof(it) + sizeof(h) + nfr * sizeof(*fr), str, nstr);
        d += sizeof(it) + pad;
    }
    r->nitems = (uint8_t)(2 + (extra != 0));
    td_ring_commit(r);
}

/* forged Python frames: one well formed (its odd file name escaped), then
 * each way a frames item can lie */
static int m_forge_py(void)
{
    MUST(cuInit(0));
    need_ring();
    static const char str[] = "ev\til.py\0f\0"; /* file at 0, func at 9: 11 bytes */
    struct td_pyrecframe fr[2] = { { 0, 9, 7, 0, 0 }, { 0, 9, 9, 1, 0 } };
    forge_py((struct td_pyitem){ 2, 0, 0, 11 }, fr, 2, str, 11, 0);
    struct td_pyrecframe past[1] = { { 11, 9, 7, 0, 0 } };          /* a file past the strings */
    forge_py((struct td_pyitem){ 1, 0, 0, 11 }, past, 1, str, 11, 0);
    struct td_pyrecframe open_[1] = { { 0, 9, 7, 0, 0 } };          /* the strings end without a NUL */
    forge_py((struct td_pyitem){ 1, 0, 0, 10 }, open_, 1, str, 10, 0);
    struct td_pyrecframe many[9];
    for (int i = 0; i < 9; i++)
        many[i] = (struct td_pyrecframe){ 0, 9, 7, 0, 0 };
    forge_py((struct td_pyitem){ 9, 0, 0, 11 }, many, 9, str, 11, 0);  /* more frames than the shim keeps */
    struct td_pyrecframe back[2] = { { 0, 9, 7, 1, 0 }, { 0, 9, 9, 0, 0 } }; /* groups going back */
    forge_py((struct td_pyitem){ 2, 0, 0, 11 }, back, 2, str, 11, 0);
    forge_py((struct td_pyitem){ 1, 0, 0, 4000 }, fr, 1, str, 11, 0);  /* strings longer than the item */
    forge_py((struct td_pyitem){ 1, 0, 0, 11 }, fr, 1, str, 11, 1);    /* two frames items */
    struct td_pyrecframe neg[1] = { { 0, 9, -5, 0, 0 } };           /* a line below -1 */
    forge_py((struct td_pyitem){ 1, 0, 0, 11 }, neg, 1, str, 11, 0);
    int v;
    MUST(cuDriverGetVersion(&v));
    printf("cuInit(0) = CUDA_SUCCESS\ncuDeviceGetCount(&3) = CUDA_SUCCESS [ev\\til.py:7 in f]\n"
           "cuDriverGetVersion(&%d) = CUDA_SUCCESS\n", v);
    return 0;
}

/* --runtime: a call record of fn (no arguments, or one with an 8-byte out
 * value) with nitems nest items of len bytes each holding n */
static void forge_nest(const char *fn, uint64_t out0, struct td_nest n, unsigned len, int nitems)
{
    int id = td_api_find(fn);
    if (id < 0)
        exit(3);
    int nargs = td_fns[id].nparams;
    size_t pad = (len + 7) & ~7u;
    uint32_t rlen = (uint32_t)(sizeof(struct td_rec) + (size_t)nargs * 8 + (nargs ? sizeof(struct td_item) + 8 : 0) +
                               (size_t)nitems * (sizeof(struct td_item) + pad));
    struct td_rec *r = td_ring_reserve(&ring, rlen, TD_REC_CALL, gettid_(), 0);
    if (!r)
        return;
    memset((char *)r + 8, 0, rlen - 8);
    r->pid = (uint32_t)getpid();
    r->tid = (uint32_t)gettid_();
    r->fn = (uint16_t)id;
    r->nargs = (uint8_t)nargs;
    unsigned char *d = (unsigned char *)(r + 1);
    if (nargs) {
        uint64_t arg = 0x1000;
        memcpy(d, &arg, 8);
        d += 8;
        struct td_item it = { 0, TD_IT_OUT, 8, 0 };
        memcpy(d, &it, sizeof(it));
        memcpy(d + sizeof(it), &out0, 8);
        d += sizeof(it) + 8;
    }
    for (int k = 0; k < nitems; k++) {
        struct td_item it = { 0, TD_IT_NEST, (uint16_t)len, 0 };
        memcpy(d, &it, sizeof(it));
        memcpy(d + sizeof(it), &n, len < sizeof(n) ? len : sizeof(n));
        d += sizeof(it) + pad;
    }
    r->nitems = (uint8_t)((nargs ? 1 : 0) + nitems);
    td_ring_commit(r);
}

/* --runtime: forged nesting. A well-formed runtime call with a driver call
 * inside; then each way a nest item can lie (refused, counted); then
 * well-formed items whose parents never come: 5000 driver calls under a
 * runtime call that never returns (more than a thread may hold), and a
 * runtime call nested in one that never comes. tdtrace prints them all,
 * never waits for what does not come, and survives. */
static int m_forge_nest(void)
{
    MUST(cuInit(0));
    need_ring();
    const unsigned L = sizeof(struct td_nest);
    forge_nest("cuDriverGetVersion", 1111, (struct td_nest){ 0, 7, 1, 0 }, L, 1);
    forge_nest("cudaGetLastError", 0, (struct td_nest){ 7, 0, 0, 0 }, L, 1);
    /* refused: */
    forge_nest("cuDriverGetVersion", 9001, (struct td_nest){ 0, 1, 1000, 0 }, L, 1);  /* too deep */
    forge_nest("cuDriverGetVersion", 9002, (struct td_nest){ 5, 1, 1, 0 }, L, 1);     /* a driver call with an id */
    forge_nest("cuDriverGetVersion", 9003, (struct td_nest){ 0, 0, 1, 0 }, L, 1);     /* nested in nothing */
    forge_nest("cudaGetLastError", 0, (struct td_nest){ 0, 0, 0, 0 }, L, 1);          /* a runtime call without id */
    forge_nest("cudaGetLastError", 0, (struct td_nest){ 3, 2, 0, 0 }, L, 1);          /* depth 0 with a parent */
    forge_nest("cudaGetLastError", 0, (struct td_nest){ 3, 0, 0, 0 }, L, 0);          /* no nest item */
    forge_nest("cuDriverGetVersion", 9004, (struct td_nest){ 0, 1, 1, 0 }, 12, 1);    /* a short item */
    forge_nest("cuDriverGetVersion", 9005, (struct td_nest){ 0, 1, 1, 0 }, L, 2);     /* two items */
    forge_nest("cuDriverGetVersion", 9006, (struct td_nest){ 0, 1, 1, 77 }, L, 1);    /* pad set */
    /* parents that never come */
    for (int i = 0; i < 5000; i++)
        forge_nest("cuDriverGetVersion", 2222, (struct td_nest){ 0, 99, 5, 0 }, L, 1);
    forge_nest("cudaPeekAtLastError", 0, (struct td_nest){ 8, 77, 3, 0 }, L, 1);
    int v;
    MUST(cuDriverGetVersion(&v));
    printf("%d\n", v);
    return 0;
}

/* an event record (TD_REC_EVENT of kind fn): its TD_IT_EVENT body, and a
 * kernel name (arg 1) when name is not NULL */
static void forge_event(unsigned fn, const void *body, uint16_t blen, const char *name)
{
    size_t nlen = name ? strlen(name) : 0;
    uint32_t len = (uint32_t)(sizeof(struct td_rec) + sizeof(struct td_item) + ((blen + 7u) & ~7u) +
                              (name ? sizeof(struct td_item) + ((nlen + 7) & ~(size_t)7) : 0));
    struct td_rec *r = td_ring_reserve(&ring, len, TD_REC_EVENT, gettid_(), 0);
    if (!r)
        return;
    memset((char *)r + 8, 0, len - 8);
    r->pid = (uint32_t)getpid();
    r->tid = (uint32_t)gettid_();
    r->fn = (uint16_t)fn;
    r->t_enter = 1000000;
    r->t_exit = 2000000;
    unsigned char *d = (unsigned char *)(r + 1);
    struct td_item it = { 0, TD_IT_EVENT, blen, 0 };
    memcpy(d, &it, sizeof(it));
    memcpy(d + sizeof(it), body, blen);
    d += sizeof(it) + ((blen + 7u) & ~7u);
    r->nitems = 1;
    if (name) {
        it = (struct td_item){ 1, TD_IT_STR, (uint16_t)nlen, 0 };
        memcpy(d, &it, sizeof(it));
        memcpy(d + sizeof(it), name, nlen);
        r->nitems = 2;
    }
    td_ring_commit(r);
}

/* a call record of cuCtxSynchronize with correlation id items (n of them, each len bytes) */
static void forge_corr(uint64_t corr, uint16_t len, int n)
{
    uint32_t rlen = (uint32_t)(sizeof(struct td_rec) + (size_t)n * (sizeof(struct td_item) + 8));
    struct td_rec *r = td_ring_reserve(&ring, rlen, TD_REC_CALL, gettid_(), 0);
    if (!r)
        return;
    memset((char *)r + 8, 0, rlen - 8);
    r->pid = (uint32_t)getpid();
    r->tid = (uint32_t)gettid_();
    r->fn = (uint16_t)td_api_find("cuCtxSynchronize");
    r->nargs = 0;
    unsigned char *d = (unsigned char *)(r + 1);
    for (int i = 0; i < n; i++) {
        struct td_item it = { 0, TD_IT_CORR, len, 0 };
        memcpy(d, &it, sizeof(it));
        memcpy(d + sizeof(it), &corr, 8);
        d += sizeof(it) + 8;
    }
    r->nitems = (uint8_t)n;
    td_ring_commit(r);
}

/* --timeline: the emulated device's work, forged. One kernel whose name
 * needs escaping (accepted: the timeline must stay valid JSON), then a
 * device, a stream, a kind, a direction and correlation ids no table holds */
static int m_forge_device(void)
{
    MUST(cuInit(0));
    need_ring();
    struct td_ev_kernel k = { { 1, 1, 1 }, { 1, 1, 1 }, 0, 0, 3, 7, 0, 0, 0 };
    forge_event(TD_EV_KERNEL, &k, sizeof(k), "evil\"\\name\n\x01</script>");
    struct td_ev_devop o = { TD_DOP_MEMCPY, TD_DIR_HTOD, 64, 0, 1, 8, 4096 };
    forge_event(TD_EV_DEVOP, &o, sizeof(o), NULL);                 /* device 64 */
    o.device = 0;
    o.stream = 1ULL << 40;
    forge_event(TD_EV_DEVOP, &o, sizeof(o), NULL);                 /* stream 2^40 */
    o.stream = 1;
    o.kind = 99;
    forge_event(TD_EV_DEVOP, &o, sizeof(o), NULL);                 /* kind 99 */
    o.kind = TD_DOP_MEMCPY;
    o.dir = 7;
    forge_event(TD_EV_DEVOP, &o, sizeof(o), NULL);                 /* direction 7 */
    k.corr = 1ULL << 53;
    forge_event(TD_EV_KERNEL, &k, sizeof(k), "k");                 /* a JSON number no parser holds */
    forge_event(TD_EV_DEVOP, &o, sizeof(o) - 8, NULL);             /* a short body */
    forge_corr(1ULL << 60, 8, 1);                                  /* corr 2^60 */
    forge_corr(5, 4, 1);                                           /* 4 bytes */
    forge_corr(5, 8, 2);                                           /* two */
    forge_corr(0, 8, 1);                                           /* 0 */
    int v;
    MUST(cuDriverGetVersion(&v));
    printf("cuInit(0) = CUDA_SUCCESS\ncuDriverGetVersion(&%d) = CUDA_SUCCESS\n", v);
    return 0;
}

/* -e lib=: a record of function id with nargs zero arguments and these
 * items (kind, claimed length, the bytes: padded to 8) */
struct fitem { uint8_t kind; uint16_t len; const void *data; size_t n; };
static void forge_items(int id, int nargs, const struct fitem *its, int n)
{
    uint32_t rlen = (uint32_t)(sizeof(struct td_rec) + (size_t)nargs * 8);
    for (int k = 0; k < n; k++)
        rlen += (uint32_t)(sizeof(struct td_item) + ((its[k].len + 7u) & ~7u));
    struct td_rec *r = td_ring_reserve(&ring, rlen, TD_REC_CALL, gettid_(), 0);
    if (!r)
        return;
    memset((char *)r + 8, 0, rlen - 8);
    r->pid = (uint32_t)getpid();
    r->tid = (uint32_t)gettid_();
    r->fn = (uint16_t)id;
    r->nargs = (uint8_t)nargs;
    unsigned char *d = (unsigned char *)(r + 1) + (size_t)nargs * 8;
    for (int k = 0; k < n; k++) {
        struct td_item it = { 0, its[k].kind, its[k].len, 0 };
        memcpy(d, &it, sizeof(it));
        memcpy(d + sizeof(it), its[k].data, its[k].n < its[k].len ? its[k].n : its[k].len);
        d += sizeof(it) + ((its[k].len + 7u) & ~7u);
    }
    r->nitems = (uint8_t)n;
    td_ring_commit(r);
}

/* a library item: the header, then the strings */
struct libitem { struct td_libcall h; char s[1024]; };
static size_t libitem(struct libitem *li, const char *lib, const char *fn, const char *host)
{
    memset(li, 0, sizeof(*li));
    li->h.lib_len = (uint16_t)strlen(lib);
    li->h.fn_len = (uint16_t)strlen(fn);
    li->h.host_len = (uint16_t)strlen(host);
    snprintf(li->s, sizeof(li->s), "%s%s%s", lib, fn, host);
    return sizeof(li->h) + strlen(li->s);
}

/* -e lib=: forged library calls. A well-formed undescribed call (LIB.call
 * named fakeLibFn) with a driver call inside, a described one with a host
 * mark; then each way a library record can lie (refused, counted): a bad
 * function id, lengths that do not add up or are too long, names that are
 * empty or not printable, a name on a described function, the item on a
 * driver call, two items, a pad, a library call without its library or
 * nest item. */
static int m_forge_lib(void)
{
    MUST(cuInit(0));
    need_ring();
    const int libcall = td_api_find("LIB.call"), sgemm = td_api_find("cublasSgemm_v2"),
              drv = td_api_find("cuDriverGetVersion");
    if (libcall < 0 || sgemm < 0 || drv < 0)
        return 3;
    struct libitem li;
    struct td_nest top = { 5, 0, 0, 0 }, in5 = { 0, 5, 1, 0 }, top6 = { 6, 0, 0, 0 };
    uint64_t out = 1111;
    size_t n;
    /* well-formed: the driver call (written first, as the shim does), then its library call */
    {
        struct fitem it[] = { { TD_IT_OUT, 8, &out, 8 }, { TD_IT_NEST, sizeof(in5), &in5, sizeof(in5) } };
        forge_items(drv, 1, it, 2);
        n = libitem(&li, "libfake.so.1", "fakeLibFn", "");
        struct fitem lt[] = { { TD_IT_LIB, (uint16_t)n, &li, n }, { TD_IT_NEST, sizeof(top), &top, sizeof(top) } };
        forge_items(libcall, 6, lt, 2);
        n = libitem(&li, "libcublas.so.13", "", "forged host");
        struct fitem gt[] = { { TD_IT_LIB, (uint16_t)n, &li, n }, { TD_IT_NEST, sizeof(top6), &top6, sizeof(top6) } };
        forge_items(sgemm, 14, gt, 2);
    }
    /* refused: */
    struct td_nest t7 = { 7, 0, 0, 0 };
    const struct fitem nest7 = { TD_IT_NEST, sizeof(t7), &t7, sizeof(t7) };
    n = libitem(&li, "libfake.so.1", "fakeLibFn", "");
    {
        struct fitem it[] = { { TD_IT_LIB, (uint16_t)n, &li, n }, nest7 };
        forge_items(TD_FN__COUNT + 5, 6, it, 2); /* a function id past the table */
        forge_items(0xffff, 6, it, 2);
    }
    const char *bad[][3] = {
        { "", "fakeLibFn", "" },                /* no library name */
        { "libfake.so.1", "", "" },             /* LIB.call without its name */
        { "libfake.so.1", "fake\x1b[31m", "" }, /* not printable */
        { "libfake.so.1", "fakeLibFn", "\x7f" },
    };
    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        n = libitem(&li, bad[k][0], bad[k][1], bad[k][2]);
        struct fitem it[] = { { TD_IT_LIB, (uint16_t)n, &li, n }, nest7 };
        forge_items(libcall, 6, it, 2);
    }
    n = libitem(&li, "libcublas.so.13", "cublasSgemm_v2", ""); /* a name on a described function */
    {
        struct fitem it[] = { { TD_IT_LIB, (uint16_t)n, &li, n }, nest7 };
        forge_items(sgemm, 14, it, 2);
    }
    n = libitem(&li, "libfake.so.1", "fakeLibFn", "");
    {
        struct libitem l2 = li;
        l2.h.lib_len = 60000; /* lengths that do not add up */
        struct fitem it[] = { { TD_IT_LIB, (uint16_t)n, &l2, n }, nest7 };
        forge_items(libcall, 6, it, 2);
        l2 = li;
        l2.h.pad = 1; /* pad set */
        struct fitem it2[] = { { TD_IT_LIB, (uint16_t)n, &l2, n }, nest7 };
        forge_items(libcall, 6, it2, 2);
        struct fitem it3[] = { { TD_IT_LIB, 4, &li, 4 }, nest7 }; /* shorter than its header */
        forge_items(libcall, 6, it3, 2);
        struct fitem it4[] = { { TD_IT_LIB, (uint16_t)n, &li, n }, { TD_IT_LIB, (uint16_t)n, &li, n }, nest7 };
        forge_items(libcall, 6, it4, 3); /* two items */
        struct fitem it5[] = { { TD_IT_LIB, (uint16_t)n, &li, n } };
        forge_items(libcall, 6, it5, 1); /* no nest item */
        struct fitem it6[] = { nest7 };
        forge_items(libcall, 6, it6, 1); /* no library item */
        struct fitem it7[] = { { TD_IT_OUT, 8, &out, 8 }, { TD_IT_LIB, (uint16_t)n, &li, n } };
        forge_items(drv, 1, it7, 2); /* on a driver call */
    }
    {
        static char longname[400];
        memset(longname, 'x', 300); /* a name longer than TD_STR_MAX */
        n = libitem(&li, "libfake.so.1", longname, "");
        struct fitem it[] = { { TD_IT_LIB, (uint16_t)n, &li, n }, nest7 };
        forge_items(libcall, 6, it, 2);
    }
    int v;
    MUST(cuDriverGetVersion(&v));
    printf("%d\n", v);
    return 0;
}

/* records that claim another process */
static int m_forge_pid(void)
{
    MUST(cuInit(0));
    need_ring();
    int v;
    uint64_t a[] = { 0x1000 }, out = 4242;
    forge("cuDriverGetVersion", 1, a, 0, &out, 1, 1);
    forge("cuDriverGetVersion", 1, a, 0, &out, (uint32_t)getppid(), 1);
    MUST(cuDriverGetVersion(&v));
    printf("cuInit(0) = CUDA_SUCCESS\ncuDriverGetVersion(&%d) = CUDA_SUCCESS\n", v);
    return 0;
}

/* clear the trace mask: tdtrace must still show every call it asked for */
static int m_zero_mask(void)
{
    MUST(cuInit(0));
    unsigned long len;
    struct td_ctl *ctl = find_map("memfd:tdtrace-control", &len);
    if (!ctl) {
        fprintf(stderr, "hostile: no control area\n");
        return 2;
    }
    int wrote = 0;
    if (mprotect(ctl, len, PROT_READ | PROT_WRITE) == 0) {
        memset(ctl->trace_mask, 0, sizeof(ctl->trace_mask));
        wrote = 1;
    }
    /* or through the file itself */
    char path[128];
    snprintf(path, sizeof(path), "/proc/self/map_files/%lx-%lx", (unsigned long)ctl,
             (unsigned long)ctl + len);
    int fd = open(path, O_RDWR);
    if (fd >= 0) {
        static const uint8_t zero[1024];
        if (pwrite(fd, zero, sizeof(zero), offsetof(struct td_ctl, trace_mask)) > 0)
            wrote = 1;
        void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (m != MAP_FAILED) {
            memset(((struct td_ctl *)m)->trace_mask, 0, sizeof(ctl->trace_mask));
            wrote = 1;
        }
        close(fd);
    }
    fprintf(stderr, "hostile: the trace mask %s\n", wrote ? "was cleared" : "is read-only");
    int v;
    MUST(cuDriverGetVersion(&v));
    printf("cuInit(0) = CUDA_SUCCESS\ncuDriverGetVersion(&%d) = CUDA_SUCCESS\n", v);
    return 0;
}

/* reset the shared device-memory counters to get past --memory-limit */
static int m_reset_mem(void)
{
    MUST(cuInit(0));
    CUcontext c;
    MUST(cuDevicePrimaryCtxRetain(&c, 0));
    MUST(cuCtxSetCurrent(c));
    CUdeviceptr p1, p2;
    MUST(cuMemAlloc_v2(&p1, 12 << 20));
    unsigned long len;
    struct td_shared *sh = find_map("memfd:tdtrace-shared", &len);
    if (sh)
        for (int i = 0; i < TD_MAX_DEVICES; i++)
            sh->mem_in_use[i] = 0;
    CUresult r = cuMemAlloc_v2(&p2, 12 << 20);
    printf("second allocation: %d\n", (int)r);
    return 0;
}

/* a writer that reserves a record and never commits it, in a process
 * that dies (SIGKILL) or a thread that exits; the others go on */
static void *reserve_and_exit(void *arg)
{
    (void)arg;
    uint64_t a[] = { 0x1000 }, out = 1;
    forge("cuDriverGetVersion", 1, a, 0, &out, (uint32_t)getpid(), 0);
    return NULL;
}

static int m_die_mid(const char *how, long calls)
{
    MUST(cuInit(0));
    printf("cuInit(0) = CUDA_SUCCESS\n");
    if (strcmp(how, "thread") == 0) {
        need_ring();
        pthread_t t;
        pthread_create(&t, NULL, reserve_and_exit, NULL);
        pthread_join(t, NULL);
    } else {
        fflush(stdout);
        pid_t c = fork();
        if (c == 0) {
            need_ring();
            reserve_and_exit(NULL);
            raise(SIGKILL);
        }
        waitpid(c, NULL, 0);
    }
    CUdevice d;
    for (long i = 0; i < calls; i++) {
        MUST(cuDeviceGet(&d, 0));
        printf("cuDeviceGet(&0, 0) = CUDA_SUCCESS\n");
    }
    return 0;
}

/* garbage at full speed into the ring while calling; the calls made by
 * the child process (its own ring) must all arrive */
static int m_garbage(long calls)
{
    MUST(cuInit(0));
    fflush(stdout);
    pid_t c = fork();
    if (c == 0) { /* the honest one */
        CUdevice d;
        for (long i = 0; i < calls; i++)
            MUST(cuDeviceGet(&d, 0));
        _exit(0);
    }
    if (find_ring()) {
        uint64_t x = 88172645463325252ULL;
        for (long i = 0; i < calls * 4; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            switch (x % 6) {
            case 0:
                ring.data[x % ring.size] = (unsigned char)(x >> 8);
                break;
            case 1:
                *(uint64_t *)(ring.data + ((x >> 3) % (ring.size / 8)) * 8) = x;
                break;
            case 2:
                __atomic_store_n(&ring.hdr->head, x >> 40, __ATOMIC_RELAXED);
                break;
            case 3:
                __atomic_store_n(&ring.hdr->tail, x >> 44, __ATOMIC_RELAXED);
                break;
            case 4: { /* a torn record: reserved, half written, committed with a wrong length */
                uint64_t a[] = { 0x1000, x };
                struct td_rec *r = forge("cuMemAlloc_v2", 2, a, 0, NULL, (uint32_t)getpid(), 0);
                if (r)
                    __atomic_store_n(&r->word, TD_REC_WORD(x & 0xffff, TD_ST_COMMITTED, TD_REC_CALL, x >> 32),
                                     __ATOMIC_RELEASE);
                break;
            }
            default: { /* a well-formed record with hostile fields */
                uint64_t a[] = { x, x >> 3, x >> 7, x >> 11, x >> 13 };
                uint64_t out = x;
                struct td_rec *r = forge("cuCtxCreate_v2", 3, a, (int)x, &out, (uint32_t)x, 0);
                if (r) {
                    r->nargs = (uint8_t)(x >> 20);
                    r->nitems = (uint8_t)(x >> 28);
                    r->fn = (uint16_t)(x >> 36);
                    td_ring_commit(r);
                }
                break;
            }
            }
        }
    }
    int st;
    waitpid(c, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

/* many threads calling while others come and go and processes fork and
 * exec: every thread stopped at a clone event must be let go at once */
static atomic_int stop_flood;

static void *flood(void *arg)
{
    (void)arg;
    CUdevice d;
    while (!atomic_load(&stop_flood))
        cuDeviceGet(&d, 0);
    return NULL;
}

static void *nothing(void *arg)
{
    return arg;
}

static int m_busy(int rounds, const char *self)
{
    MUST(cuInit(0));
    pthread_t f[3];
    for (int i = 0; i < 3; i++)
        pthread_create(&f[i], NULL, flood, NULL);
    for (int i = 0; i < rounds; i++) {
        pthread_t t;
        pthread_create(&t, NULL, nothing, NULL);
        pthread_join(t, NULL);
        if (self && i % 20 == 0) {
            pid_t c = fork();
            if (c == 0) {
                execl(self, self, "calls", "50", (char *)NULL);
                _exit(127);
            }
            waitpid(c, NULL, 0);
        }
    }
    atomic_store(&stop_flood, 1);
    for (int i = 0; i < 3; i++)
        pthread_join(f[i], NULL);
    return 0;
}

static int m_calls(long n)
{
    MUST(cuInit(0));
    CUdevice d;
    for (long i = 0; i < n; i++)
        MUST(cuDeviceGet(&d, 0));
    return 0;
}

/* a child made by a raw fork system call (no atfork handlers run) */
static int m_rawfork(void)
{
    MUST(cuInit(0));
    printf("cuInit(0) = CUDA_SUCCESS\n");
    int v;
    MUST(cuDriverGetVersion(&v));
    printf("cuDriverGetVersion(&%d) = CUDA_SUCCESS\n", v);
    fflush(stdout);
    long c = syscall(SYS_fork);
    if (c == 0) {
        pid_t me = (pid_t)syscall(SYS_getpid);
        MUST(cuDriverGetVersion(&v));
        printf("[pid %5d] cuDriverGetVersion(&%d) = CUDA_SUCCESS\n", (int)me, v);
        printf("[pid %5d] +++ exited with 0 +++\n", (int)me);
        fflush(stdout);
        syscall(SYS_exit_group, 0);
    }
    waitpid((pid_t)c, NULL, 0);
    printf("[pid %5d] cuDriverGetVersion(&%d) = CUDA_SUCCESS\n", (int)getpid(), v);
    MUST(cuDriverGetVersion(&v));
    return 0;
}

/* ---- environments tdtrace must put back ---- */

/* a sanitizer build needs its GLIBC_TUNABLES in every process (see BUGS in
 * tdtrace(1)); the environments below keep only that of the caller's */
static char *tunables(void)
{
    static char buf[256];
    const char *t = getenv("GLIBC_TUNABLES");
    if (!t)
        return NULL;
    snprintf(buf, sizeof(buf), "GLIBC_TUNABLES=%s", t);
    return buf;
}

static char *big_env[8];

/* n strings of 50 KiB (one string may not pass 128 KiB) */
static void make_big_env(int n)
{
    for (int i = 0; i < n; i++) {
        size_t len = 50 * 1024;
        char *s = malloc(len + 1);
        if (!s)
            die("malloc");
        snprintf(s, 8, "BIG%d=", i);
        memset(s + 5, 'x', len - 5);
        s[len] = '\0';
        big_env[i] = s;
    }
    big_env[n] = (char *)"PATH=/usr/bin:/bin";
    big_env[n + 1] = tunables();
    big_env[n + 2] = NULL;
}

/* posix_spawn with a 200 KiB environment that lacks tdtrace's variables */
static int m_spawn_env(const char *self)
{
    make_big_env(4);
    pid_t c;
    char *argv[] = { (char *)self, (char *)"calls", (char *)"1", NULL };
    int e = posix_spawn(&c, self, NULL, NULL, argv, big_env);
    if (e) {
        errno = e;
        die("posix_spawn");
    }
    int st;
    waitpid(c, &st, 0);
    printf("spawned %d\n", (int)c);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

/* clone(CLONE_VM|CLONE_VFORK): the child shares our memory; nothing of
 * ours below its stack may change */
static char *vf_self;

static int vf_child(void *arg)
{
    (void)arg;
    char *argv[] = { vf_self, (char *)"calls", (char *)"1", NULL };
    char *envp[] = { (char *)"PATH=/usr/bin:/bin", tunables(), NULL };
    execve(vf_self, argv, envp);
    _exit(127);
}

static int m_vfork_env(char *self)
{
    vf_self = self;
    size_t sz = 1 << 20;
    unsigned char *area = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (area == MAP_FAILED)
        die("mmap");
    memset(area, 0xa5, sz);
    /* the child's stack is the top 64 KiB; everything below is ours */
    unsigned char *stack_top = area + sz;
    pid_t c = clone(vf_child, stack_top, CLONE_VM | CLONE_VFORK | SIGCHLD, NULL);
    if (c < 0)
        die("clone");
    int st;
    waitpid(c, &st, 0);
    size_t bad = 0;
    for (size_t i = 0; i < sz - 65536; i++)
        bad += area[i] != 0xa5;
    printf("parent memory below the child's stack: %zu bytes changed\n", bad);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

/* exec from a thread whose stack is 64 KiB, with an empty environment */
static void *exec_thread(void *arg)
{
    char *argv[] = { (char *)arg, (char *)"calls", (char *)"1", NULL };
    char *envp[] = { tunables(), NULL };
    execve((char *)arg, argv, envp);
    return NULL;
}

static int m_thread_exec(char *self)
{
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setstacksize(&at, 65536);
    pthread_t t;
    pthread_create(&t, &at, exec_thread, self);
    pthread_join(t, NULL);
    return 1; /* not reached: the exec replaces us */
}

/* N children alive at once, each with one call (-ff with many files) */
static int m_children(long n)
{
    int pfd[2];
    if (pipe(pfd) < 0)
        die("pipe");
    fflush(stdout);
    for (long i = 0; i < n; i++) {
        pid_t c = fork();
        if (c < 0)
            die("fork");
        if (c == 0) {
            close(pfd[1]);
            int v;
            MUST(cuDriverGetVersion(&v));
            char b;
            while (read(pfd[0], &b, 1) < 0 && errno == EINTR)
                ;
            _exit(0);
        }
    }
    close(pfd[1]);
    close(pfd[0]);
    while (wait(NULL) > 0)
        ;
    return 0;
}

/* ask tdtrace for a ring again and again: it must hand out a few at most */
static int m_reconnect(long n)
{
    MUST(cuInit(0));
    const char *name = getenv("TDTRACE_SOCK");
    int got = 0;
    for (long i = 0; name && i < n; i++) {
        int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
        struct sockaddr_un a;
        memset(&a, 0, sizeof(a));
        a.sun_family = AF_UNIX;
        size_t len = strlen(name);
        memcpy(a.sun_path + 1, name, len);
        if (connect(s, (struct sockaddr *)&a, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + len)) == 0) {
            char buf[64], cbuf[CMSG_SPACE(4 * sizeof(int))];
            struct iovec iov = { buf, sizeof(buf) };
            struct msghdr m;
            memset(&m, 0, sizeof(m));
            m.msg_iov = &iov;
            m.msg_iovlen = 1;
            m.msg_control = cbuf;
            m.msg_controllen = sizeof(cbuf);
            if (recvmsg(s, &m, MSG_CMSG_CLOEXEC) > 0 && CMSG_FIRSTHDR(&m)) {
                int fds[4];
                memcpy(fds, CMSG_DATA(CMSG_FIRSTHDR(&m)), sizeof(fds));
                for (int k = 0; k < 4; k++)
                    close(fds[k]);
                got++;
            }
        }
        close(s);
    }
    fprintf(stderr, "hostile: %d rings out of %ld asked for\n", got, n);
    int v;
    MUST(cuDriverGetVersion(&v));
    printf("cuInit(0) = CUDA_SUCCESS\ncuDriverGetVersion(&%d) = CUDA_SUCCESS\n", v);
    return got > 8;
}

/* ---- signals ---- */

/* SIGSTOP stops a traced child, SIGCONT lets it go on */
static int m_stop(void)
{
    _Atomic long *counter = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (counter == MAP_FAILED)
        die("mmap");
    pid_t c = fork();
    if (c == 0) {
        for (;;)
            atomic_fetch_add(counter, 1);
    }
    struct timespec ms100 = { 0, 100000000 };
    nanosleep(&ms100, NULL);
    kill(c, SIGSTOP);
    nanosleep(&ms100, NULL);
    long a = atomic_load(counter);
    nanosleep(&ms100, NULL);
    long b = atomic_load(counter);
    printf("after SIGSTOP: %s\n", a == b ? "stopped" : "still running");
    kill(c, SIGCONT);
    nanosleep(&ms100, NULL);
    long d = atomic_load(counter);
    printf("after SIGCONT: %s\n", d != b ? "running" : "still stopped");
    kill(c, SIGKILL);
    waitpid(c, NULL, 0);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: hostile MODE [ARGS]\n");
        return 2;
    }
    const char *m = argv[1];
    long n = argc > 2 ? atol(argv[2]) : 1000;
    if (!strcmp(m, "forge-dev"))
        return m_forge_dev();
    if (!strcmp(m, "forge-py"))
        return m_forge_py();
    if (!strcmp(m, "forge-nest"))
        return m_forge_nest();
    if (!strcmp(m, "forge-lib"))
        return m_forge_lib();
    if (!strcmp(m, "forge-pid"))
        return m_forge_pid();
    if (!strcmp(m, "forge-device"))
        return m_forge_device();
    if (!strcmp(m, "zero-mask"))
        return m_zero_mask();
    if (!strcmp(m, "reset-mem"))
        return m_reset_mem();
    if (!strcmp(m, "die-mid"))
        return m_die_mid(argc > 3 ? argv[3] : "process", n);
    if (!strcmp(m, "garbage"))
        return m_garbage(n);
    if (!strcmp(m, "busy"))
        return m_busy((int)n, argc > 3 ? argv[0] : NULL);
    if (!strcmp(m, "calls"))
        return m_calls(n);
    if (!strcmp(m, "rawfork"))
        return m_rawfork();
    if (!strcmp(m, "spawn-env"))
        return m_spawn_env(argv[0]);
    if (!strcmp(m, "vfork-env"))
        return m_vfork_env(argv[0]);
    if (!strcmp(m, "thread-exec"))
        return m_thread_exec(argv[0]);
    if (!strcmp(m, "reconnect"))
        return m_reconnect(n);
    if (!strcmp(m, "children"))
        return m_children(n);
    if (!strcmp(m, "stop"))
        return m_stop();
    fprintf(stderr, "hostile: unknown mode %s\n", m);
    return 2;
}
