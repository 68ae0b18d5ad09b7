/* SPDX-License-Identifier: Apache-2.0 */
/* Where lines go and what stands before them: -o, -ff, [pid N], -t/-tt/-ttt,
 * -T, and the lines that are not calls (banners, process events).
 *
 * Every file is opened close-on-exec (the program must not inherit a way
 * to write into its own trace), and every write is checked: the first
 * error is reported once with the file's name and td_out_failed() turns
 * true (main.c then ends the run, see tdtrace(1), EXIT STATUS). -ff opens
 * FILE.PID when a process first has something to say, keeps at most
 * FF_OPEN files open (reopening in append mode), and closes it when the
 * process's exit line is written. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "demangle.h"
#include "fold.h"
#include "ioctl.h"
#include "ledger.h"
#include "output.h"
#include "pystack.h"
#include "stack.h"
#include "xlat.h"

static struct td_output out;
static _Atomic int failed; /* set by the printer thread, read by the loop */

/* -ff: one entry per process that has a file */
#define FF_OPEN 256
struct ff_ent { int pid, opened; FILE *f; unsigned long long used; };
static struct ff_ent *ff;
static size_t nff, capff;
static unsigned long long ff_clock;
static int ff_nopen;
/* one line buffer per format, reused for every line */
static struct tp text_tp, json_tp;
/* -e abbrev=, verbose=, raw= */
static const uint8_t *abbrev_mask, *verbose_mask, *raw_mask;

void td_out_decode_sets(const uint8_t *abbrev, const uint8_t *verbose, const uint8_t *raw)
{
    abbrev_mask = abbrev;
    verbose_mask = verbose;
    raw_mask = raw;
}

/* how rec is decoded (JSON: every structure in full, nothing by name) */
static struct td_dec dec_of(const struct td_rec *rec, enum tp_format fmt)
{
    struct td_dec d;
    memset(&d, 0, sizeof(d));
    d.pid = (int)rec->pid;
    d.names = fmt == TP_TEXT && out.opts->names;
    d.raw = fmt == TP_TEXT && raw_mask && td_mask_has(raw_mask, rec->fn);
    d.structs = !verbose_mask || td_mask_has(verbose_mask, rec->fn) || fmt == TP_JSON;
    d.abbrev = fmt == TP_TEXT && abbrev_mask && td_mask_has(abbrev_mask, rec->fn);
    d.explain = fmt == TP_TEXT && out.opts->verbose;
    for (int i = 0; i < out.opts->nattach && rec->result == 0; i++)
        d.before_attach |= out.opts->attach[i] == (pid_t)rec->pid;
    return d;
}

static struct tp *line_tp(enum tp_format fmt, FILE *f)
{
    struct tp *p = fmt == TP_JSON ? &json_tp : &text_tp;
    if (!p->cap)
        tp_init(p, fmt, f);
    p->f = f;
    p->strsize = out.opts->strsize;
    p->xmode = fmt == TP_TEXT ? out.opts->xmode : TP_X_ABBREV;
    return p;
}

static void check(FILE *f, int err);

static void line_end(struct tp *p)
{
    errno = 0;
    tp_line_end(p);
    check(p->f, 0);
}

struct td_output *td_out(void)
{
    return &out;
}

/* a trace file the user named: created or truncated (append: reopened),
 * close-on-exec; NULL with errno */
static FILE *open_trace(const char *path, int append)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC), 0666);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, append ? "a" : "w");
    if (!f) {
        int e = errno;
        close(fd);
        errno = e;
    }
    return f;
}

void td_out_open(const struct td_opts *o)
{
    out.opts = o;
    out.fmt = TP_TEXT;
    out.main = stderr;
    if (o->outfile && !o->ff) {
        out.main = open_trace(o->outfile, 0);
        if (!out.main)
            die_errno("can't fopen '%s'", o->outfile);
        setvbuf(out.main, NULL, _IOFBF, 1 << 16);
    }
    if (o->json) {
        if (strcmp(o->json, "-") == 0) {
            out.json = stderr;
        } else {
            out.json = open_trace(o->json, 0);
            if (!out.json)
                die_errno("can't fopen '%s'", o->json);
        }
    }
    struct timespec mono, real;
    clock_gettime(CLOCK_MONOTONIC, &mono);
    clock_gettime(CLOCK_REALTIME, &real);
    out.real_minus_mono = ((int64_t)real.tv_sec - mono.tv_sec) * 1000000000LL +
                          (real.tv_nsec - mono.tv_nsec);
    if (out.json) { /* the first record says what the others are */
        struct tp *p = line_tp(TP_JSON, out.json);
        tp_rawf(p, "{\"type\":\"header\",\"version\":%d,\"tool\":\"tdtrace\",\"tool_version\":", TD_JSON_VERSION);
        tp_str(p, TD_VERSION, strlen(TD_VERSION), 0);
        tp_raw(p, ",\"schema\":\"tdtrace-trace.schema.json\"}");
        line_end(p);
        /* now, before a fork flushes it with the error's cause lost */
        if (fflush(out.json) != 0)
            check(out.json, errno);
    }
}

static const char *file_name(const FILE *f, char *buf, size_t n)
{
    if (f == out.json && out.opts->json)
        return out.opts->json;
    if (f == out.main)
        return f == stderr ? "standard error" : out.opts->outfile;
    for (size_t i = 0; i < nff; i++)
        if (ff[i].f == f) {
            snprintf(buf, n, "%s.%d", out.opts->outfile, ff[i].pid);
            return buf;
        }
    return "the trace";
}

/* after a write to f (err: its errno, 0 for "look at ferror") */
static void check(FILE *f, int err)
{
    /* one thread prints at a time (the printer, or the loop after
     * td_printer_sync): no need for the stream's lock */
    if (!f || failed || (!err && !ferror_unlocked(f)))
        return;
    char b[4200];
    failed = 1;
    warn_msg("cannot write %s: %s", file_name(f, b, sizeof(b)), strerror(err ? err : errno ? errno : EIO));
}

int td_out_failed(void)
{
    return failed;
}

static int ff_close(struct ff_ent *e)
{
    int rc = 0;
    if (e->f) {
        errno = 0;
        if (fclose(e->f) != 0 && !failed) {
            e->f = NULL; /* the name is still found through the pid */
            char b[4200];
            snprintf(b, sizeof(b), "%s.%d", out.opts->outfile, e->pid);
            failed = 1;
            warn_msg("cannot write %s: %s", b, strerror(errno ? errno : EIO));
            rc = -1;
        }
        e->f = NULL;
        ff_nopen--;
    }
    return rc;
}

FILE *td_out_file(int pid)
{
    if (!out.opts->ff || !out.opts->outfile)
        return out.main;
    struct ff_ent *e = NULL;
    for (size_t i = 0; i < nff && !e; i++)
        if (ff[i].pid == pid)
            e = &ff[i];
    if (!e) {
        if (nff == capff) {
            size_t cap = capff ? capff * 2 : 64;
            struct ff_ent *n = realloc(ff, cap * sizeof(*n));
            if (!n)
                die("out of memory");
            ff = n;
            capff = cap;
        }
        e = &ff[nff++];
        memset(e, 0, sizeof(*e));
        e->pid = pid;
    }
    e->used = ++ff_clock;
    if (e->f)
        return e->f;
    if (ff_nopen >= FF_OPEN) { /* close the least recently used */
        struct ff_ent *lru = NULL;
        for (size_t i = 0; i < nff; i++)
            if (ff[i].f && (!lru || ff[i].used < lru->used))
                lru = &ff[i];
        if (lru)
            ff_close(lru);
    }
    char path[4200];
    snprintf(path, sizeof(path), "%s.%d", out.opts->outfile, pid);
    /* the first time: a new file; after being closed to make room: append */
    e->f = open_trace(path, e->opened);
    if (!e->f)
        die_errno("can't fopen '%s'", path);
    e->opened = 1;
    ff_nopen++;
    return e->f;
}

void td_out_forget(int pid)
{
    for (size_t i = 0; i < nff; i++)
        if (ff[i].pid == pid) {
            ff_close(&ff[i]);
            ff[i] = ff[--nff];
            return;
        }
}

void td_out_close(void)
{
    for (size_t i = 0; i < nff; i++)
        ff_close(&ff[i]);
    nff = 0;
    free(ff);
    ff = NULL;
    check(out.main, 0);
    check(out.json, 0);
    if (out.main) {
        errno = 0;
        if (out.main != stderr ? fclose(out.main) != 0 : fflush(out.main) != 0)
            check(out.main, errno ? errno : EIO);
    }
    if (out.json && out.json != stderr) {
        errno = 0;
        if (fclose(out.json) != 0)
            check(out.json, errno ? errno : EIO);
    }
    out.main = out.json = NULL;
    tp_free(&text_tp);
    tp_free(&json_tp);
}

void td_out_note_pid(int pid)
{
    for (int i = 0; i < out.npids; i++)
        if (out.pids[i] == pid)
            return;
    if (out.npids < (int)(sizeof(out.pids) / sizeof(out.pids[0])))
        out.pids[out.npids++] = pid;
    else
        out.many = 1;
}

/* text prefix: [pid N] and the timestamp */
static void text_prefix(struct tp *p, int pid, uint64_t mono_ns)
{
    static uint64_t prev_ns;
    if ((out.npids > 1 || out.many) && !out.opts->ff)
        tp_rawf(p, "[pid %5d] ", pid);
    if (out.opts->rtstamp) { /* -r: since the previous line (strace's layout) */
        uint64_t d = prev_ns && mono_ns >= prev_ns ? mono_ns - prev_ns : 0;
        if (mono_ns > prev_ns)
            prev_ns = mono_ns;
        tp_rawf(p, "%6llu.%06llu ", (unsigned long long)(d / 1000000000), (unsigned long long)(d % 1000000000) / 1000);
    }
    if (out.opts->tstamp) {
        int64_t ns = (int64_t)mono_ns + out.real_minus_mono;
        time_t s = (time_t)(ns / 1000000000);
        long us = (long)(ns % 1000000000) / 1000;
        if (out.opts->tstamp >= 3) {
            tp_rawf(p, "%lld.%06ld ", (long long)s, us);
        } else {
            struct tm tm;
            localtime_r(&s, &tm);
            char b[16];
            strftime(b, sizeof(b), "%H:%M:%S", &tm);
            if (out.opts->tstamp == 2)
                tp_rawf(p, "%s.%06ld ", b, us);
            else
                tp_rawf(p, "%s ", b);
        }
    }
}

static void json_head(struct tp *p, const char *type, int pid, int tid, uint64_t mono_ns)
{
    int64_t ns = (int64_t)mono_ns + out.real_minus_mono;
    tp_rawf(p, "{\"type\":\"%s\",\"pid\":%d,", type, pid);
    if (tid)
        tp_rawf(p, "\"tid\":%d,", tid);
    tp_rawf(p, "\"time\":%lld.%06lld,", (long long)(ns / 1000000000), (long long)(ns % 1000000000) / 1000);
}

static void time_suffix(struct tp *p, uint64_t t0, uint64_t t1)
{
    uint64_t d = t1 >= t0 ? t1 - t0 : 0;
    tp_rawf(p, " <%llu.%06llu>", (unsigned long long)(d / 1000000000), (unsigned long long)(d % 1000000000) / 1000);
}

void td_out_call_text(struct tp *p, const struct td_rec *rec, uint32_t len)
{
    p->strsize = out.opts->strsize;
    p->xmode = out.opts->xmode;
    struct td_dec d = dec_of(rec, TP_TEXT);
    td_print_call(p, rec, len, &d);
}

void td_out_write_failed(const char *name, int err)
{
    if (failed)
        return;
    failed = 1;
    warn_msg("cannot write %s: %s", name, strerror(err ? err : EIO));
}

static int out_depth;

void td_out_depth(int depth)
{
    out_depth = depth < 0 ? 0 : depth > TD_NEST_MAX ? TD_NEST_MAX : depth;
}

void td_out_call(const struct td_rec *rec, uint32_t len, const char *mark, unsigned what)
{
    const struct td_opts *o = out.opts;
    struct td_pyview pv;
    char why[160];
    int py = o->pyframes && td_rec_py(rec, len, &pv, why, sizeof(why)) == 1;
    if (o->summary != 1 && (what & TD_OUT_TEXT)) {
        struct tp *p = line_tp(TP_TEXT, td_out_file((int)rec->pid));
        text_prefix(p, (int)rec->pid, rec->t_enter);
        if (out_depth)
            tp_rawf(p, "%*s", 2 * out_depth, "");
        struct td_dec d = dec_of(rec, TP_TEXT);
        td_print_call(p, rec, len, &d);
        struct td_libview lv;
        if (td_rec_lib(rec, len, &lv) && lv.host_len) /* -e lib=: what a tdtrace host library ran */
            tp_rawf(p, " [host: %.*s]", (int)lv.host_len, lv.host);
        if (mark)
            tp_rawf(p, " (%s)", mark);
        if (py)
            td_py_brief(p, &pv);
        if (o->show_time)
            time_suffix(p, rec->t_enter, rec->t_exit);
        line_end(p);
        const struct td_item *st = o->stacks ? td_rec_item(rec, len, 0, TD_IT_STACK) : NULL;
        if (st)
            td_stack_print(p, (int)rec->pid, st, py ? &pv : NULL);
        check(p->f, 0);
    }
    if (out.json && (what & TD_OUT_JSON)) {
        struct tp *p = line_tp(TP_JSON, out.json);
        json_head(p, "call", (int)rec->pid, (int)rec->tid, rec->t_enter);
        tp_rawf(p, "\"duration\":%.9f,",
                rec->t_exit >= rec->t_enter ? (double)(rec->t_exit - rec->t_enter) / 1e9 : 0.0);
        if (mark) {
            tp_raw(p, "\"policy\":");
            tp_str(p, mark, strlen(mark), 0);
            tp_raw(p, ",");
        }
        if (rec->result != 0 && td_is_probe(rec, len))
            tp_raw(p, "\"probe\":true,");
        if (what & TD_OUT_FOLDED)
            tp_raw(p, "\"folded\":true,");
        struct td_nest nv;
        if (td_rec_nest(rec, len, &nv)) { /* --runtime: where it sits among the runtime calls */
            if (nv.id)
                tp_rawf(p, "\"id\":%u,", nv.id);
            if (nv.parent)
                tp_rawf(p, "\"parent\":%u,", nv.parent);
            tp_rawf(p, "\"depth\":%u,", nv.depth);
        }
        struct td_libview lv;
        if (td_rec_lib(rec, len, &lv)) { /* -e lib=: the library, what a tdtrace host library ran */
            tp_raw(p, "\"library\":");
            tp_str(p, lv.lib, lv.lib_len, 0);
            tp_raw(p, ",");
            if (lv.host_len) {
                tp_raw(p, "\"host\":");
                tp_str(p, lv.host, lv.host_len, 0);
                tp_raw(p, ",");
            }
        }
        struct td_dec d = dec_of(rec, TP_JSON);
        td_print_call(p, rec, len, &d);
        const struct td_item *st = o->stacks ? td_rec_item(rec, len, 0, TD_IT_STACK) : NULL;
        if (st) {
            tp_raw(p, ",\"stack\":");
            tp_array_begin(p);
            td_stack_print(p, (int)rec->pid, st, NULL);
            tp_array_end(p);
        }
        if (py) {
            tp_raw(p, ",\"python\":");
            td_py_json(p, &pv);
        }
        tp_raw(p, "}");
        line_end(p);
    }
}

void td_out_text(int pid, uint64_t mono_ns, const char *text)
{
    if (out.opts->summary == 1)
        return;
    struct tp *p = line_tp(TP_TEXT, td_out_file(pid));
    text_prefix(p, pid, mono_ns);
    if (out_depth) /* --runtime: a folded line, at the depth of the call that ended the fold */
        tp_rawf(p, "%*s", 2 * out_depth, "");
    tp_raw(p, text);
    line_end(p);
}

/* the kernel's name in an event record (arg 1), demangled, and mangled */
static int event_kernel(const struct td_rec *rec, uint32_t len, char *mangled, size_t mn, char *dem, size_t dn,
                        const char **name)
{
    const struct td_item *it = td_rec_item(rec, len, 1, TD_IT_STR);
    if (!it) {
        *name = NULL;
        return 0;
    }
    snprintf(mangled, mn, "%.*s", (int)it->len, (const char *)(it + 1));
    for (char *c = mangled; *c; c++)
        if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
            *c = '?';
    *name = td_demangle(mangled, dem, dn);
    return 1;
}

void td_out_kernel(const struct td_rec *rec, uint32_t len, int cupti)
{
    if (!out.json)
        return;
    const struct td_item *it = td_rec_item(rec, len, 0, TD_IT_EVENT);
    struct td_ev_kernel k;
    memset(&k, 0, sizeof(k));
    if (it && it->len == sizeof(k))
        memcpy(&k, it + 1, sizeof(k));
    char mangled[TD_STR_MAX + 1], dem[1024];
    const char *name;
    struct tp *p = line_tp(TP_JSON, out.json);
    json_head(p, "emulator", (int)rec->pid, (int)rec->tid, rec->t_enter);
    tp_raw(p, "\"event\":\"kernel\"");
    if (cupti)
        tp_raw(p, ",\"source\":\"cupti\"");
    if (event_kernel(rec, len, mangled, sizeof(mangled), dem, sizeof(dem), &name)) {
        tp_raw(p, ",\"kernel\":");
        tp_str(p, name, strlen(name), 0);
        tp_raw(p, ",\"mangled\":");
        tp_str(p, mangled, strlen(mangled), 0);
    }
    tp_rawf(p, ",\"duration\":%.9f,\"grid\":[%u,%u,%u],\"block\":[%u,%u,%u],\"shared\":%u",
            rec->t_exit >= rec->t_enter ? (double)(rec->t_exit - rec->t_enter) / 1e9 : 0.0, k.grid[0], k.grid[1],
            k.grid[2], k.block[0], k.block[1], k.block[2], k.shared);
    if (k.jit == 1 || k.jit == 2) /* the emulator's JIT took the kernel up at this launch */
        tp_rawf(p, ",\"jit\":\"%s\",\"jit_seconds\":%.6f,\"jit_code_bytes\":%llu", k.jit == 1 ? "compiled" : "cache",
                (double)k.jit_us / 1e6, (unsigned long long)k.jit_code_bytes);
    tp_raw(p, "}");
    line_end(p);
}

/* "wrote 4 B at alloc#2+0x400000 (past its end)" */
static void fault_access(char *buf, size_t n, int pid, const struct td_ev_fault *f)
{
    static const char *const verbs[] = { "touched", "read", "wrote", "atomic on" };
    char where[128];
    unsigned long long num, base, size;
    const char *space = f->space[0] ? f->space : "global";
    if (strcmp(space, "global") && strcmp(space, "generic"))
        snprintf(where, sizeof(where), "offset %#llx of %s memory", (unsigned long long)f->addr, space);
    else if (out.opts->names && td_ledger_nearest(pid, f->addr, &num, &base, &size) == 0 && f->addr - base < (1ULL << 30))
        snprintf(where, sizeof(where), "alloc#%llu+%#llx%s", num, (unsigned long long)(f->addr - base),
                 f->addr >= base + size ? " (past its end)" : "");
    else
        snprintf(where, sizeof(where), "%#llx", (unsigned long long)f->addr);
    snprintf(buf, n, "%s %u B at %s", verbs[f->access < 4 ? f->access : 0], f->size, where);
}

void td_out_report(const struct td_rec *rec, uint32_t len)
{
    const struct td_item *ti = td_rec_item(rec, len, 0, TD_IT_TEXT);
    const struct td_item *fi = td_rec_item(rec, len, 0, TD_IT_EVENT);
    char text[4096];
    snprintf(text, sizeof(text), "%.*s", ti ? (int)ti->len : 0, ti ? (const char *)(ti + 1) : "");
    for (char *c = text; *c; c++)
        if (((unsigned char)*c < 0x20 && *c != '\n') || (unsigned char)*c == 0x7f)
            *c = '?';
    size_t tl = strlen(text);
    while (tl && text[tl - 1] == '\n')
        text[--tl] = '\0';
    struct td_ev_fault f;
    int fault = fi && fi->len == sizeof(f);
    if (fault)
        memcpy(&f, fi + 1, sizeof(f));
    char mangled[TD_STR_MAX + 1], dem[1024], file[TD_STR_MAX + 1] = "";
    const char *name = NULL;
    event_kernel(rec, len, mangled, sizeof(mangled), dem, sizeof(dem), &name);
    const struct td_item *fl = td_rec_item(rec, len, 2, TD_IT_STR);
    if (fl) {
        snprintf(file, sizeof(file), "%.*s", (int)fl->len, (const char *)(fl + 1));
        for (char *c = file; *c; c++)
            if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
                *c = '?';
    }
    if (out.opts->summary != 1) {
        char line[8192];
        size_t k = 0;
        const char *nl = strchr(text, '\n');
        if (fault) { /* --- fault: add_one block (3,0,0) thread (17,0,0) wrote 4 B at alloc#2+0x400000 vecadd.cu:12 --- */
            char shortname[512] = "?";
            if (name) {
                char types[1][64];
                size_t s0 = 0, s1 = strlen(name);
                if (td_demangled_params(name, types, 0, &s0, &s1) < 0) {
                    s0 = 0;
                    s1 = strlen(name);
                }
                snprintf(shortname, sizeof(shortname), "%.*s", (int)(s1 - s0), name + s0);
            }
            /* the report's headline: what went wrong, when no access says it */
            const char *h = text;
            if (!strncmp(h, "tdtrace-emu: ", 13))
                h += 13;
            int hl = (int)(nl ? nl - h : (long)strlen(h));
            /* a headline that names the kernel or library call itself is not prefixed with it */
            if (f.access || !memmem(h, (size_t)hl, shortname, strlen(shortname)))
                k += (size_t)snprintf(line + k, sizeof(line) - k, "--- fault: %s", shortname);
            else
                k += (size_t)snprintf(line + k, sizeof(line) - k, "--- fault");
            if (f.has_thread)
                k += (size_t)snprintf(line + k, sizeof(line) - k, " block (%u,%u,%u) thread (%u,%u,%u)", f.block[0],
                                      f.block[1], f.block[2], f.thread[0], f.thread[1], f.thread[2]);
            if (f.access) {
                char acc[256];
                fault_access(acc, sizeof(acc), (int)rec->pid, &f);
                k += (size_t)snprintf(line + k, sizeof(line) - k, " %s", acc);
            } else {
                k += (size_t)snprintf(line + k, sizeof(line) - k, ": %.*s", hl, h);
            }
            if (file[0] && f.line > 0)
                k += (size_t)snprintf(line + k, sizeof(line) - k, " %s:%d", file, f.line);
            snprintf(line + (k < sizeof(line) ? k : sizeof(line) - 1), sizeof(line) - (k < sizeof(line) ? k : sizeof(line) - 1), " ---");
        } else {
            const char *h = text;
            if (!strncmp(h, "tdtrace-emu: ", 13))
                h += 13;
            snprintf(line, sizeof(line), "--- emulator: %.*s ---", (int)(nl ? nl - h : (long)strlen(h)), h);
        }
        td_out_text((int)rec->pid, rec->t_enter, line);
        /* the rest of the report, for -v (or a diagnostic's other lines always) */
        if (nl && (out.opts->verbose || !fault)) {
            for (const char *l = nl + 1; *l;) {
                const char *e = strchr(l, '\n');
                size_t n = e ? (size_t)(e - l) : strlen(l);
                snprintf(line, sizeof(line), "    %.*s", (int)n, l);
                td_out_text((int)rec->pid, rec->t_enter, line);
                l += n + (e ? 1 : 0);
            }
        }
    }
    if (out.json) {
        struct tp *p = line_tp(TP_JSON, out.json);
        json_head(p, "emulator", (int)rec->pid, (int)rec->tid, rec->t_enter);
        tp_raw(p, fault ? "\"event\":\"fault\"" : "\"event\":\"diagnostic\"");
        if (name) {
            tp_raw(p, ",\"kernel\":");
            tp_str(p, name, strlen(name), 0);
            tp_raw(p, ",\"mangled\":");
            tp_str(p, mangled, strlen(mangled), 0);
        }
        if (fault) {
            static const char *const acc[] = { "none", "read", "write", "atomic" };
            tp_rawf(p, ",\"result\":%d", rec->result);
            const char *rn = td_result_name((unsigned)rec->result);
            if (rn)
                tp_rawf(p, ",\"retname\":\"%s\"", rn);
            if (f.has_thread)
                tp_rawf(p, ",\"block\":[%u,%u,%u],\"thread\":[%u,%u,%u]", f.block[0], f.block[1], f.block[2],
                        f.thread[0], f.thread[1], f.thread[2]);
            tp_rawf(p, ",\"access\":\"%s\",\"size\":%u,\"address\":", acc[f.access < 4 ? f.access : 0], f.size);
            tp_hex(p, f.addr);
            char space[9];
            snprintf(space, sizeof(space), "%.8s", f.space);
            for (char *c = space; *c; c++)
                if (*c < 'a' || *c > 'z')
                    *c = '?';
            tp_raw(p, ",\"space\":");
            tp_str(p, space, strlen(space), 0);
            if (file[0]) {
                tp_raw(p, ",\"file\":");
                tp_str(p, file, strlen(file), 0);
                tp_rawf(p, ",\"line\":%d", f.line);
            }
        }
        tp_raw(p, ",\"text\":");
        tp_str(p, text, strlen(text), 0);
        tp_raw(p, "}");
        line_end(p);
    }
}

void td_out_ioctl(const struct td_ioctl_event *ev)
{
    const struct td_opts *o = out.opts;
    if (o->summary != 1) {
        struct tp *p = line_tp(TP_TEXT, td_out_file(ev->pid));
        text_prefix(p, ev->pid, ev->t_enter_ns);
        td_ioctl_print(p, ev);
        if (o->show_time) {
            uint64_t d = ev->t_exit_ns >= ev->t_enter_ns ? ev->t_exit_ns - ev->t_enter_ns : 0;
            tp_rawf(p, " <%llu.%06llu>", (unsigned long long)(d / 1000000000),
                    (unsigned long long)(d % 1000000000) / 1000);
        }
        line_end(p);
    }
    if (out.json) {
        struct tp *p = line_tp(TP_JSON, out.json);
        json_head(p, "ioctl", ev->pid, ev->tid, ev->t_enter_ns);
        td_ioctl_print(p, ev);
        tp_raw(p, "}");
        line_end(p);
    }
}

FILE *td_out_summary_file(void)
{
    return out.opts->ff && out.opts->outfile ? stderr : out.main;
}

void td_out_event(int pid, uint64_t mono_ns, const char *event, const char *text)
{
    int banner = strcmp(event, "banner") == 0;
    if (out.opts->summary != 1 || banner) {
        /* -ff: tdtrace's own lines are no process's: standard error, as strace's */
        struct tp *p = line_tp(TP_TEXT, banner && out.opts->ff && out.opts->outfile ? stderr : td_out_file(pid));
        if (!banner)
            text_prefix(p, pid, mono_ns);
        tp_raw(p, text);
        line_end(p);
    }
    if (out.json) {
        struct tp *p = line_tp(TP_JSON, out.json);
        json_head(p, "process", pid, 0, mono_ns);
        tp_raw(p, "\"event\":");
        tp_sym(p, event);
        tp_raw(p, ",\"text\":");
        tp_str(p, text, strlen(text), 0);
        tp_raw(p, "}");
        line_end(p);
    }
}

void td_out_flush(void)
{
    if (out.main && fflush(out.main) != 0)
        check(out.main, errno);
    for (size_t i = 0; i < nff; i++)
        if (ff[i].f && fflush(ff[i].f) != 0)
            check(ff[i].f, errno);
    if (out.json && fflush(out.json) != 0)
        check(out.json, errno);
}
