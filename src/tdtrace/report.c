/* SPDX-License-Identifier: Apache-2.0 */
/* tdtrace report IN.json -o OUT.html: the timeline file, checked
 * (tlcheck.c), escaped into the page's template (report.h). The page
 * computes and draws everything itself, offline. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report.h"
#include "tdtrace.h"
#include "tlcheck.h"

static void report_usage(FILE *f)
{
    fputs("usage: tdtrace report [-o OUT.html] TIMELINE.json\n"
          "Make one self-contained HTML page (it needs no network) from a timeline file\n"
          "written by tdtrace --timeline=FILE: the timeline per process, thread and\n"
          "stream (zoom: wheel, pan: drag), device memory over time, the top calls and\n"
          "kernels, leaks, errors, policy actions and, with --py, the Python lines.\n"
          "\n"
          "  -o, --output=FILE   the page (default TIMELINE.html); an existing file is\n"
          "                      not overwritten; - for standard output\n"
          "  -h, --help          this help\n"
          "\n"
          "The file must be a JSON object with a traceEvents array (docs/report.md),\n"
          "of at most 256 MiB. See tdtrace(1), REPORT.\n", f);
}

/* the whole of a regular file, at most TD_REPORT_MAX_INPUT bytes */
static char *read_input(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        die_errno("report: can't open '%s'", path);
    struct stat st;
    if (fstat(fd, &st) < 0)
        die_errno("report: can't stat '%s'", path);
    if (!S_ISREG(st.st_mode))
        die("report: '%s' is not a regular file", path);
    if ((unsigned long long)st.st_size > TD_REPORT_MAX_INPUT)
        die("report: '%s' is too large (%lld bytes; at most %u MiB)", path, (long long)st.st_size,
            TD_REPORT_MAX_INPUT >> 20);
    size_t cap = (size_t)st.st_size, n = 0;
    char *buf = malloc(cap ? cap : 1);
    if (!buf)
        die("report: out of memory for '%s' (%zu bytes)", path, cap);
    while (n < cap) { /* a file that shrinks meanwhile: what it holds */
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            die_errno("report: can't read '%s'", path);
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    *len = n;
    return buf;
}

struct sink {
    int fd;
    const char *path;
    int created;
};

static void sink_fail(const struct sink *s)
{
    int e = errno;
    if (s->created)
        unlink(s->path);
    errno = e;
    die_errno("report: can't write '%s'", s->path);
}

static void put(const struct sink *s, const void *data, size_t n)
{
    const char *p = data;
    while (n) {
        ssize_t w = write(s->fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            sink_fail(s);
        p += w;
        n -= (size_t)w;
    }
}

static void open_output(struct sink *s, const char *path)
{
    s->path = path;
    s->created = 0;
    if (strcmp(path, "-") == 0) {
        s->fd = STDOUT_FILENO;
        s->path = "standard output";
        return;
    }
    s->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (s->fd < 0 && errno == EEXIST)
        die("report: '%s' exists: not overwriting it (remove it, or name another file with -o)", path);
    if (s->fd < 0)
        die_errno("report: can't create '%s'", path);
    s->created = 1;
}

/* the template's text before and after the marker */
static void template_parts(size_t *before, size_t *after)
{
    const char *t = (const char *)td_report_html, *m = TD_REPORT_MARKER;
    size_t ml = strlen(m);
    const char *at = memmem(t, td_report_html_len, m, ml);
    if (!at || memmem(at + ml, td_report_html_len - (size_t)(at - t) - ml, m, ml))
        die("report: internal error: the page's template holds its marker %s not exactly once", m);
    *before = (size_t)(at - t);
    *after = (size_t)(at - t) + ml;
}

void td_report_write(const char *in, const char *out)
{
    size_t len, before, after;
    template_parts(&before, &after);
    char *buf = read_input(in, &len);
    char why[512];
    struct td_tl_stats st;
    if (td_tl_check(buf, len, &st, why, sizeof(why)) < 0) {
        /* a run tdtrace could not finish (SIGKILL) leaves its file without
         * its closing lines: the page shows what came before the cut */
        char why2[512];
        size_t tl = st.cut_at ? strlen(st.cut_tail) : 0;
        char *fixed = st.cut_at ? realloc(buf, st.cut_at + tl) : NULL;
        if (!fixed)
            die("report: '%s': %s", in, why);
        buf = fixed;
        memcpy(buf + st.cut_at, st.cut_tail, tl);
        len = st.cut_at + tl;
        if (td_tl_check(buf, len, &st, why2, sizeof(why2)) < 0)
            die("report: '%s': %s", in, why);
        warn_msg("report: '%s' ends early (%s): the page shows the %zu whole events before the cut", in, why,
                 st.events);
    }

    struct sink s;
    open_output(&s, out);
    put(&s, td_report_html, before);
    static char chunk[1 << 16];
    for (size_t i = 0; i < len;) {
        size_t used, n = td_script_escape(buf + i, len - i, &used, chunk, sizeof(chunk));
        put(&s, chunk, n);
        i += used;
    }
    put(&s, td_report_html + after, td_report_html_len - after);
    if (s.created && close(s.fd) < 0)
        sink_fail(&s);
    free(buf);
}

int td_report_main(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "output", required_argument, 0, 'o' },
        { "help", no_argument, 0, 'h' },
        { 0, 0, 0, 0 },
    };
    const char *out = NULL;
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'o':
            out = optarg;
            break;
        case 'h':
            report_usage(stdout);
            return 0;
        case ':':
            die("report: option '%s' requires an argument\nTry 'tdtrace report -h' for more information.",
                argv[optind - 1]);
        default:
            if (optopt)
                die("report: invalid option -- '%c'\nTry 'tdtrace report -h' for more information.", optopt);
            die("report: unrecognized option '%s'\nTry 'tdtrace report -h' for more information.",
                argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        die("report: %s\nTry 'tdtrace report -h' for more information.",
            optind >= argc ? "must have a timeline file (tdtrace --timeline=FILE writes one)"
                           : "one timeline file only");
    const char *in = argv[optind];
    char *defout = NULL;
    if (!out) { /* IN.json -> IN.html */
        size_t l = strlen(in);
        if (l > 5 && strcmp(in + l - 5, ".json") == 0)
            l -= 5;
        defout = malloc(l + 6);
        if (!defout)
            die("out of memory");
        snprintf(defout, l + 6, "%.*s.html", (int)l, in);
        out = defout;
    }

    td_report_write(in, out);
    free(defout);
    return 0;
}
