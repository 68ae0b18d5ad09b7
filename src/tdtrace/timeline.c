/* SPDX-License-Identifier: Apache-2.0 */
/* --timeline=FILE: Chrome trace event JSON (docs/timeline.md, the contract
 * with `tdtrace report`). One event a line, written as the records come
 * (the viewers sort by time), through the print layer (tp_* escapes every
 * string the program had a hand in). Tracks: each process's threads with
 * their calls, and one per stream of the emulated device with its work
 * (tid STREAM_TID + device * 1000000 + stream); a flow from each call to
 * the work it queued (the correlation id the shim and the emulator agree
 * on); counters of the device memory each process holds (the ledger's);
 * instants for faults, policy actions, process events and leaks.
 *
 * Bounded: at most MAX_TRACKS named tracks and MAX_PROCS processes are
 * remembered (past them, events still go out, unnamed); at most MAX_LEAKS
 * leak instants a process. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "demangle.h"
#include "ledger.h"
#include "output.h"
#include "timeline.h"
#include "xlat.h"

#define STREAM_TID 1000000000u
#define MAX_TRACKS (1u << 16)
#define MAX_PROCS 4096
#define MAX_LEAKS 256

struct proc {
    int pid;
    int backend;                            /* its hello's TD_BK_* */
    unsigned long long cur[TD_MAX_DEVICES]; /* device memory last said */
};

static const struct td_opts *opts;
static FILE *tlf;
static struct tp jp, tx;        /* the event being written; a call's text */
static unsigned long long nev;  /* events written */
static int any_emulated, any_cupti; /* who measured the device's work */
static struct proc *procs;
static size_t nprocs;
static uint64_t *tracks;        /* open addressing, 2 * MAX_TRACKS slots: (pid << 32 | tid) + 1 */
static size_t ntracks;

static void check(void)
{
    if (tlf && ferror_unlocked(tlf)) {
        td_out_write_failed(opts->timeline, errno);
        clearerr_unlocked(tlf);
    }
}

void td_tl_open(const struct td_opts *o)
{
    opts = o;
    if (!o->timeline)
        return;
    int fd = open(o->timeline, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        if (errno == EEXIST)
            die("cannot create the timeline '%s': the file exists (tdtrace writes a new file only)", o->timeline);
        die_errno("cannot create the timeline '%s'", o->timeline);
    }
    tlf = fdopen(fd, "w");
    if (!tlf)
        die_errno("cannot create the timeline '%s'", o->timeline);
    setvbuf(tlf, NULL, _IOFBF, 1 << 20);
    tracks = calloc(2 * MAX_TRACKS, sizeof(*tracks));
    if (!tracks)
        die("out of memory");
    tp_init(&jp, TP_JSON, tlf);
    tp_init(&tx, TP_TEXT, NULL);
    tp_raw(&jp, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
    tp_line_end(&jp);
    check();
}

int td_tl_active(void)
{
    return tlf != NULL;
}

/* ---- writing ---------------------------------------------------------- */

/* a number's digits into b (at least 21 bytes), without printf: the
 * timeline writes several numbers an event */
static char *digits(char *b, unsigned long long v)
{
    char *e = b + 20;
    *e = '\0';
    do
        *--e = (char)('0' + v % 10);
    while (v /= 10);
    return e;
}

static void num(struct tp *p, const char *before, unsigned long long v)
{
    char b[21];
    tp_raw(p, before);
    tp_raw(p, digits(b, v));
}

static struct tp *ev(const char *ph, int pid, unsigned tid)
{
    if (nev++)
        tp_raw(&jp, ",");
    tp_raw(&jp, "{\"ph\":\"");
    tp_raw(&jp, ph);
    num(&jp, "\",\"pid\":", (unsigned)pid);
    num(&jp, ",\"tid\":", tid);
    return &jp;
}

static void ev_end(void)
{
    tp_raw(&jp, "}");
    tp_line_end(&jp);
    check();
}

/* microseconds with three decimals: nanoseconds exactly */
static void us(struct tp *p, const char *key, uint64_t ns)
{
    char b[21], frac[5] = { '.', (char)('0' + ns / 100 % 10), (char)('0' + ns / 10 % 10), (char)('0' + ns % 10), 0 };
    tp_raw(p, ",\"");
    tp_raw(p, key);
    tp_raw(p, "\":");
    tp_raw(p, digits(b, ns / 1000));
    tp_raw(p, frac);
}

static void str(struct tp *p, const char *key, const char *s)
{
    tp_raw(p, ",\"");
    tp_raw(p, key);
    tp_raw(p, "\":");
    tp_str(p, s, strlen(s), 0);
}

static void meta(int pid, unsigned tid, const char *what, const char *name)
{
    struct tp *p = ev("M", pid, tid);
    str(p, "name", what);
    tp_raw(p, ",\"args\":{\"name\":");
    tp_str(p, name, strlen(name), 0);
    tp_raw(p, "}");
    ev_end();
}

static void sort_index(int pid, unsigned tid, unsigned idx)
{
    struct tp *p = ev("M", pid, tid);
    tp_rawf(p, ",\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":%u}", idx);
    ev_end();
}

static void process_name(int pid, const char *comm)
{
    char name[64];
    snprintf(name, sizeof(name), "%d %s", pid, comm);
    meta(pid, (unsigned)pid, "process_name", name);
}

/* the process's record; new: named, and its start said at t */
static struct proc *proc_of(int pid, uint64_t t)
{
    for (size_t i = nprocs; i-- > 0;)
        if (procs[i].pid == pid)
            return &procs[i];
    if (nprocs == MAX_PROCS)
        return NULL;
    if (!procs && !(procs = calloc(MAX_PROCS, sizeof(*procs))))
        die("out of memory");
    struct proc *pr = &procs[nprocs++];
    memset(pr, 0, sizeof(*pr));
    pr->pid = pid;
    char path[64], comm[32] = "";
    snprintf(path, sizeof(path), "/proc/%d/comm", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t n = read(fd, comm, sizeof(comm) - 1);
        comm[n > 0 ? n : 0] = '\0';
        close(fd);
        comm[strcspn(comm, "\n")] = '\0';
    }
    process_name(pid, *comm ? comm : "?");
    struct tp *p = ev("i", pid, (unsigned)pid);
    tp_raw(p, ",\"s\":\"p\",\"cat\":\"process\",\"name\":\"start\"");
    us(p, "ts", t);
    tp_raw(p, ",\"args\":{}");
    ev_end();
    return pr;
}

/* a track named once: a thread, or a stream (tid >= STREAM_TID) */
static void track(int pid, unsigned tid)
{
    uint64_t key = ((uint64_t)(uint32_t)pid << 32 | tid) + 1;
    size_t mask = 2 * MAX_TRACKS - 1, h = (size_t)((key * 0x9e3779b97f4a7c15ULL) >> 40) & mask;
    while (tracks[h]) {
        if (tracks[h] == key)
            return;
        h = (h + 1) & mask;
    }
    if (ntracks == MAX_TRACKS)
        return;
    tracks[h] = key;
    ntracks++;
    char name[64];
    if (tid >= STREAM_TID) {
        unsigned v = tid - STREAM_TID;
        snprintf(name, sizeof(name), "device %u stream %u", v / 1000000u, v % 1000000u);
    } else {
        snprintf(name, sizeof(name), "thread %u", tid);
    }
    meta(pid, tid, "thread_name", name);
    sort_index(pid, tid, tid);
}

/* a call's thread: a thread id the program claims, kept off the streams' tracks */
static unsigned thread_tid(const struct td_rec *rec)
{
    return rec->tid && rec->tid < STREAM_TID ? rec->tid : rec->pid;
}

/* ---- records ---------------------------------------------------------- */

void td_tl_hello(const struct td_rec *rec, uint32_t len)
{
    (void)len;
    if (!tlf)
        return;
    any_emulated |= rec->fn == TD_BK_EMULATE;
    struct proc *pr = proc_of((int)rec->pid, rec->t_enter);
    if (pr)
        pr->backend = rec->fn;
}

static const char *call_cat(int fn)
{
    return fn >= TD_FN__LIB_FIRST ? "library" : fn >= TD_FN__RT_FIRST ? "runtime" : "driver"; /* -e lib=, --runtime */
}

void td_tl_call(const struct td_rec *rec, uint32_t len, const char *mark)
{
    if (!tlf)
        return;
    int pid = (int)rec->pid;
    unsigned tid = thread_tid(rec);
    proc_of(pid, rec->t_enter);
    track(pid, tid);
    uint64_t t0 = rec->t_enter, t1 = rec->t_exit >= rec->t_enter ? rec->t_exit : rec->t_enter;
    const struct td_fn_info *info = &td_fns[rec->fn];
    struct tp *p = ev("X", pid, tid);
    str(p, "cat", call_cat(rec->fn));
    struct td_libview lv;
    char lname[TD_STR_MAX + 1];
    int lib = td_rec_lib(rec, len, &lv);
    if (lib && lv.fn_len) /* an undescribed library function (LIB.call): its own name */
        snprintf(lname, sizeof(lname), "%.*s", (int)lv.fn_len, lv.fn);
    str(p, "name", lib && lv.fn_len ? lname : info->name);
    us(p, "ts", t0);
    us(p, "dur", t1 - t0);
    tp_raw(p, ",\"args\":{\"ret\":");
    unsigned r = (unsigned)rec->result;
    if (info->ret == TD_RET_VOID) {
        tp_raw(p, "null");
    } else if (info->ret == TD_RET_U32) {
        tp_uint(p, r);
    } else {
        const char *rn = info->ret == TD_RET_CUDART ? td_xlat_name(TD_X_cudaError_t, r)
                         : info->ret == TD_RET_XLAT ? td_xlat_name(info->ret_xlat, r) /* a library's status */
                                                    : td_result_name(r);
        if (rn)
            tp_str(p, rn, strlen(rn), 0);
        else
            tp_rawf(p, "\"%u\"", r);
    }
    struct tp_mark m0 = tp_mark(&tx);
    td_out_call_text(&tx, rec, len);
    tp_raw(p, ",\"call\":");
    tp_str(p, tx.buf ? tx.buf : "", tx.buf ? tx.len : 0, 0);
    tp_rewind(&tx, &m0);
    const struct td_item *ci = td_rec_item(rec, len, 0, TD_IT_CORR);
    uint64_t corr = 0;
    if (ci) { /* checked: 8 bytes, under 2^53 */
        memcpy(&corr, ci + 1, sizeof(corr));
        num(p, ",\"corr\":", corr);
    }
    if (lib) {
        tp_raw(p, ",\"library\":");
        tp_str(p, lv.lib, lv.lib_len, 0);
        if (lv.host_len) {
            tp_raw(p, ",\"host\":");
            tp_str(p, lv.host, lv.host_len, 0);
        }
    }
    struct td_pyview pv;
    char why[160];
    if (opts->pyframes && td_rec_py(rec, len, &pv, why, sizeof(why)) == 1 && pv.n) {
        const char *file = pv.str + pv.fr[0].file, *slash = strrchr(file, '/');
        char place[300];
        snprintf(place, sizeof(place), "%s:%d", slash && slash[1] ? slash + 1 : file, pv.fr[0].line);
        str(p, "py", place);
    }
    tp_raw(p, "}");
    ev_end();
    if (corr) { /* the flow starts inside the call */
        p = ev("s", pid, tid);
        num(p, ",\"cat\":\"flow\",\"name\":\"launch\",\"id\":", corr);
        us(p, "ts", t0 + (t1 - t0) / 2);
        ev_end();
    }
    if (mark) {
        p = ev("i", pid, tid);
        tp_raw(p, ",\"s\":\"t\",\"cat\":\"policy\"");
        str(p, "name", mark);
        us(p, "ts", t0);
        tp_raw(p, ",\"args\":{");
        tp_raw(p, "\"function\":");
        tp_str(p, info->name, strlen(info->name), 0);
        tp_raw(p, "}");
        ev_end();
    }
}

void td_tl_memory(const struct td_rec *rec)
{
    if (!tlf || td_fn_effects[rec->fn].op == TD_EFF_NONE)
        return;
    struct proc *pr = proc_of((int)rec->pid, rec->t_enter);
    int np;
    const struct td_ledger_proc *lp = td_ledger_procs(&np);
    const struct td_ledger_proc *me = NULL;
    for (int i = np; i-- > 0 && !me;)
        if (lp[i].pid == (int)rec->pid)
            me = &lp[i];
    if (!pr || !me || !memcmp(pr->cur, me->dev_cur, sizeof(pr->cur)))
        return;
    memcpy(pr->cur, me->dev_cur, sizeof(pr->cur));
    struct tp *p = ev("C", pr->pid, (unsigned)pr->pid);
    tp_raw(p, ",\"name\":\"device memory\"");
    us(p, "ts", rec->t_exit >= rec->t_enter ? rec->t_exit : rec->t_enter);
    tp_raw(p, ",\"args\":{");
    int first = 1;
    for (int d = 0; d < TD_MAX_DEVICES; d++) {
        if (!me->dev_peak[d])
            continue;
        tp_rawf(p, "%s\"device %d\":%llu", first ? "" : ",", d, me->dev_cur[d]);
        first = 0;
    }
    tp_raw(p, "}");
    ev_end();
}

static const char *const dir_names[TD_DIR__COUNT] = { "HtoD", "DtoH", "DtoD", "HtoH" };

void td_tl_device(const struct td_rec *rec, uint32_t len)
{
    if (!tlf)
        return;
    const struct td_item *it = td_rec_item(rec, len, 0, TD_IT_EVENT);
    struct td_ev_kernel k;
    struct td_ev_devop o;
    uint32_t device;
    uint64_t stream, corr;
    int kernel = rec->fn == TD_EV_KERNEL;
    if (kernel) {
        if (!it || it->len != sizeof(k))
            return;
        memcpy(&k, it + 1, sizeof(k));
        device = k.device, stream = k.stream, corr = k.corr;
    } else {
        if (!it || it->len != sizeof(o))
            return;
        memcpy(&o, it + 1, sizeof(o));
        device = o.device, stream = o.stream, corr = o.corr;
    }
    if (device >= TD_MAX_DEVICES || stream >= TD_MAX_STREAM) /* checked (td_rec_check): never here */
        return;
    int pid = (int)rec->pid;
    unsigned tid = STREAM_TID + device * 1000000u + (unsigned)stream;
    const struct proc *pr = proc_of(pid, rec->t_enter);
    any_cupti |= pr && pr->backend == TD_BK_DRIVER; /* the shim's CUPTI reader (src/shim/cupti.c) */
    track(pid, tid);
    uint64_t t0 = rec->t_enter, t1 = rec->t_exit >= rec->t_enter ? rec->t_exit : rec->t_enter;
    struct tp *p = ev("X", pid, tid);
    if (kernel) {
        const struct td_item *ni = td_rec_item(rec, len, 1, TD_IT_STR);
        char mangled[TD_STR_MAX + 1], dem[1024];
        snprintf(mangled, sizeof(mangled), "%.*s", ni ? (int)ni->len : 1, ni ? (const char *)(ni + 1) : "?");
        const char *name = td_demangle(mangled, dem, sizeof(dem));
        tp_raw(p, ",\"cat\":\"kernel\"");
        str(p, "name", name);
    } else {
        static const char *const cats[] = { [TD_DOP_MEMCPY] = "memcpy", [TD_DOP_MEMSET] = "memset",
                                            [TD_DOP_HOST] = "host", [TD_DOP_EVENT] = "event",
                                            [TD_DOP_MEMOP] = "memop" };
        static const char *const names[] = { [TD_DOP_MEMCPY] = "memcpy", [TD_DOP_MEMSET] = "memset",
                                             [TD_DOP_HOST] = "host function", [TD_DOP_EVENT] = "event record",
                                             [TD_DOP_MEMOP] = "memop" };
        unsigned kind = o.kind >= TD_DOP_MEMCPY && o.kind <= TD_DOP_MEMOP ? o.kind : TD_DOP_MEMOP;
        str(p, "cat", cats[kind]);
        if (kind == TD_DOP_MEMCPY)
            tp_rawf(p, ",\"name\":\"memcpy %s\"", dir_names[o.dir < TD_DIR__COUNT ? o.dir : 0]);
        else
            str(p, "name", names[kind]);
    }
    us(p, "ts", t0);
    us(p, "dur", t1 - t0);
    tp_raw(p, ",\"args\":{");
    if (corr)
        num(p, "\"corr\":", corr);
    num(p, corr ? ",\"device\":" : "\"device\":", device);
    num(p, ",\"stream\":", stream);
    if (kernel) {
        tp_rawf(p, ",\"grid\":[%u,%u,%u],\"block\":[%u,%u,%u],\"shared\":%u", k.grid[0], k.grid[1], k.grid[2],
                k.block[0], k.block[1], k.block[2], k.shared);
        if (rec->result) {
            const char *rn = td_result_name((unsigned)rec->result);
            str(p, "result", rn ? rn : "?");
        }
    } else if (o.kind == TD_DOP_MEMCPY || o.kind == TD_DOP_MEMSET) {
        num(p, ",\"bytes\":", o.bytes);
        if (o.kind == TD_DOP_MEMCPY)
            tp_rawf(p, ",\"direction\":\"%s\"", dir_names[o.dir < TD_DIR__COUNT ? o.dir : 0]);
    }
    tp_raw(p, "}");
    ev_end();
    if (corr) {
        p = ev("f", pid, tid);
        num(p, ",\"bp\":\"e\",\"cat\":\"flow\",\"name\":\"launch\",\"id\":", corr);
        us(p, "ts", t0);
        ev_end();
    }
}

void td_tl_report(const struct td_rec *rec, uint32_t len)
{
    if (!tlf)
        return;
    const struct td_item *ti = td_rec_item(rec, len, 0, TD_IT_TEXT);
    char text[4096];
    snprintf(text, sizeof(text), "%.*s", ti ? (int)ti->len : 0, ti ? (const char *)(ti + 1) : "");
    size_t tl = strlen(text);
    while (tl && text[tl - 1] == '\n')
        text[--tl] = '\0';
    int pid = (int)rec->pid;
    unsigned tid = thread_tid(rec);
    proc_of(pid, rec->t_enter);
    const struct td_item *fi = td_rec_item(rec, len, 0, TD_IT_EVENT);
    int fault = fi && fi->len == sizeof(struct td_ev_fault);
    struct tp *p = ev("i", pid, tid);
    tp_rawf(p, ",\"s\":\"p\",\"cat\":\"%s\",\"name\":\"%s\"", fault ? "fault" : "error",
            fault ? "kernel fault" : "emulator report");
    us(p, "ts", rec->t_enter);
    tp_raw(p, ",\"args\":{\"text\":");
    tp_str(p, text, strlen(text), 0);
    const struct td_item *ni = td_rec_item(rec, len, 1, TD_IT_STR);
    if (ni) {
        char mangled[TD_STR_MAX + 1], dem[1024];
        snprintf(mangled, sizeof(mangled), "%.*s", (int)ni->len, (const char *)(ni + 1));
        str(p, "kernel", td_demangle(mangled, dem, sizeof(dem)));
    }
    if (rec->result) {
        const char *rn = td_result_name((unsigned)rec->result);
        str(p, "result", rn ? rn : "?");
    }
    tp_raw(p, "}");
    ev_end();
}

static void leaks(int pid, uint64_t t)
{
    size_t n;
    const struct td_alloc *a = td_ledger_live(pid, &n);
    for (size_t i = 0; i < n && i < MAX_LEAKS; i++) {
        struct tp *p = ev("i", pid, (unsigned)pid);
        tp_raw(p, ",\"s\":\"p\",\"cat\":\"leak\",\"name\":\"leak\"");
        us(p, "ts", t);
        tp_rawf(p, ",\"args\":{\"ptr\":\"%#llx\",\"bytes\":%llu,\"kind\":\"%s\",\"device\":%d,\"alloc\":%llu",
                (unsigned long long)a[i].ptr, (unsigned long long)a[i].size,
                a[i].kind == TD_MEM_DEVICE ? "device" : "host", a[i].dev, a[i].num);
        str(p, "site", a[i].fn < TD_FN__COUNT ? td_fns[a[i].fn].name : "?");
        tp_raw(p, "}");
        ev_end();
    }
}

void td_tl_process(int pid, uint64_t mono_ns, const char *what, const char *detail)
{
    if (!tlf)
        return;
    proc_of(pid, mono_ns);
    if (!strcmp(what, "exec")) { /* the new program's name */
        const char *slash = strrchr(detail, '/');
        char comm[16];
        snprintf(comm, sizeof(comm), "%s", slash ? slash + 1 : detail);
        process_name(pid, comm);
    }
    struct tp *p = ev("i", pid, (unsigned)pid);
    tp_raw(p, ",\"s\":\"p\",\"cat\":\"process\"");
    str(p, "name", what);
    us(p, "ts", mono_ns);
    tp_raw(p, ",\"args\":{");
    if (!strcmp(what, "fork"))
        tp_raw(p, "\"child\":");
    else if (!strcmp(what, "exec"))
        tp_raw(p, "\"path\":");
    else
        tp_raw(p, "\"status\":");
    tp_str(p, detail, strlen(detail), 0);
    tp_raw(p, "}");
    ev_end();
    if (!strcmp(what, "fork"))
        proc_of(atoi(detail), mono_ns);
    if (!strcmp(what, "exit"))
        leaks(pid, mono_ns);
}

void td_tl_close(void)
{
    if (!tlf)
        return;
    tp_raw(&jp, "],");
    tp_line_end(&jp);
    tp_raw(&jp, "\"otherData\":{\"tool\":\"tdtrace\",\"version\":");
    tp_str(&jp, TD_VERSION, strlen(TD_VERSION), 0);
    tp_raw(&jp, ",\"command\":");
    char cmd[4096];
    size_t n = 0;
    cmd[0] = '\0';
    if (opts->nattach) {
        for (int i = 0; i < opts->nattach && n < sizeof(cmd); i++)
            n += (size_t)snprintf(cmd + n, sizeof(cmd) - n, "%s-p %d", i ? " " : "", (int)opts->attach[i]);
    } else {
        for (int i = 0; opts->cmd && opts->cmd[i] && n < sizeof(cmd); i++)
            n += (size_t)snprintf(cmd + n, sizeof(cmd) - n, "%s%s", i ? " " : "", opts->cmd[i]);
    }
    tp_str(&jp, cmd, strlen(cmd), 0);
    /* device times: the emulator's stream workers, CUPTI on a real GPU */
    tp_rawf(&jp, ",\"clock\":\"CLOCK_MONOTONIC\",\"device_times\":\"%s\"}}",
            any_emulated && any_cupti ? "emulator+cupti" : any_emulated ? "emulator" : any_cupti ? "cupti" : "none");
    tp_line_end(&jp);
    check();
    errno = 0;
    if (fclose(tlf) != 0)
        td_out_write_failed(opts->timeline, errno);
    tlf = NULL;
    tp_free(&jp);
    tp_free(&tx);
    free(tracks);
    tracks = NULL;
    free(procs);
    procs = NULL;
    nprocs = ntracks = 0; /* a new file starts from nothing (the unit tests write several) */
    nev = 0;
    any_emulated = any_cupti = 0;
}
