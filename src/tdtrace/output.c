/* Where lines go and what stands before them: -o, -ff, [pid N], -t/-tt/-ttt,
 * -T, and the lines that are not calls (banners, process events). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ioctl.h"
#include "output.h"
#include "stack.h"
#include "xlat.h"

static struct td_output out;
/* one line buffer per format, reused for every line */
static struct tp text_tp, json_tp;

static struct tp *line_tp(enum tp_format fmt, FILE *f)
{
    struct tp *p = fmt == TP_JSON ? &json_tp : &text_tp;
    if (!p->cap)
        tp_init(p, fmt, f);
    p->f = f;
    p->strsize = out.opts->strsize;
    return p;
}

struct td_output *td_out(void)
{
    return &out;
}

void td_out_open(const struct td_opts *o)
{
    out.opts = o;
    out.fmt = TP_TEXT;
    out.main = stderr;
    if (o->outfile && !o->ff) {
        out.main = fopen(o->outfile, "w");
        if (!out.main)
            die_errno("can't fopen '%s'", o->outfile);
        setvbuf(out.main, NULL, _IOFBF, 1 << 16);
    }
    if (o->json) {
        if (strcmp(o->json, "-") == 0) {
            out.json = stderr;
        } else {
            out.json = fopen(o->json, "w");
            if (!out.json)
                die_errno("can't fopen '%s'", o->json);
        }
    }
    struct timespec mono, real;
    clock_gettime(CLOCK_MONOTONIC, &mono);
    clock_gettime(CLOCK_REALTIME, &real);
    out.real_minus_mono = ((int64_t)real.tv_sec - mono.tv_sec) * 1000000000LL +
                          (real.tv_nsec - mono.tv_nsec);
}

FILE *td_out_file(int pid)
{
    if (!out.opts->ff || !out.opts->outfile)
        return out.main;
    for (int i = 0; i < out.nff; i++)
        if (out.ff[i].pid == pid)
            return out.ff[i].f;
    if (out.nff == (int)(sizeof(out.ff) / sizeof(out.ff[0])))
        return out.main;
    char path[4096];
    snprintf(path, sizeof(path), "%s.%d", out.opts->outfile, pid);
    FILE *f = fopen(path, "w");
    if (!f) {
        warn_msg("can't fopen '%s': %s", path, strerror(errno));
        return out.main;
    }
    out.ff[out.nff].pid = pid;
    out.ff[out.nff].f = f;
    out.nff++;
    return f;
}

void td_out_close(void)
{
    for (int i = 0; i < out.nff; i++)
        fclose(out.ff[i].f);
    if (out.main && out.main != stderr)
        fclose(out.main);
    if (out.json && out.json != stderr)
        fclose(out.json);
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
    if ((out.npids > 1 || out.many) && !out.opts->ff)
        tp_rawf(p, "[pid %5d] ", pid);
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

void td_out_call(const struct td_rec *rec, uint32_t len, const char *mark)
{
    const struct td_opts *o = out.opts;
    if (o->summary != 1) {
        struct tp *p = line_tp(TP_TEXT, td_out_file((int)rec->pid));
        text_prefix(p, (int)rec->pid, rec->t_enter);
        td_print_call(p, rec, len, o->verbose);
        if (mark)
            tp_rawf(p, " (%s)", mark);
        if (o->show_time) {
            uint64_t d = rec->t_exit >= rec->t_enter ? rec->t_exit - rec->t_enter : 0;
            tp_rawf(p, " <%llu.%06llu>", (unsigned long long)(d / 1000000000),
                    (unsigned long long)(d % 1000000000) / 1000);
        }
        tp_line_end(p);
        const struct td_item *st = o->stacks ? td_rec_item(rec, len, 0, TD_IT_STACK) : NULL;
        if (st)
            td_stack_print(p, (int)rec->pid, st);
    }
    if (out.json) {
        struct tp *p = line_tp(TP_JSON, out.json);
        json_head(p, "call", (int)rec->pid, (int)rec->tid, rec->t_enter);
        tp_rawf(p, "\"duration\":%.9f,",
                rec->t_exit >= rec->t_enter ? (double)(rec->t_exit - rec->t_enter) / 1e9 : 0.0);
        if (mark) {
            tp_raw(p, "\"policy\":");
            tp_str(p, mark, strlen(mark), 0);
            tp_raw(p, ",");
        }
        td_print_call(p, rec, len, 0);
        const struct td_item *st = o->stacks ? td_rec_item(rec, len, 0, TD_IT_STACK) : NULL;
        if (st) {
            tp_raw(p, ",\"stack\":");
            tp_array_begin(p);
            td_stack_print(p, (int)rec->pid, st);
            tp_array_end(p);
        }
        tp_raw(p, "}");
        tp_line_end(p);
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
        tp_line_end(p);
    }
    if (out.json) {
        struct tp *p = line_tp(TP_JSON, out.json);
        json_head(p, "ioctl", ev->pid, ev->tid, ev->t_enter_ns);
        td_ioctl_print(p, ev);
        tp_raw(p, "}");
        tp_line_end(p);
    }
}

void td_out_event(int pid, uint64_t mono_ns, const char *event, const char *text)
{
    if (out.opts->summary != 1 || strcmp(event, "banner") == 0) {
        struct tp *p = line_tp(TP_TEXT, td_out_file(pid));
        if (strcmp(event, "banner") != 0)
            text_prefix(p, pid, mono_ns);
        tp_raw(p, text);
        tp_line_end(p);
    }
    if (out.json) {
        struct tp *p = line_tp(TP_JSON, out.json);
        json_head(p, "process", pid, 0, mono_ns);
        tp_raw(p, "\"event\":");
        tp_sym(p, event);
        tp_raw(p, ",\"text\":");
        tp_str(p, text, strlen(text), 0);
        tp_raw(p, "}");
        tp_line_end(p);
    }
}

void td_out_flush(void)
{
    if (out.main)
        fflush(out.main);
    for (int i = 0; i < out.nff; i++)
        fflush(out.ff[i].f);
    if (out.json)
        fflush(out.json);
}
