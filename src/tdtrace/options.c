/* SPDX-License-Identifier: Apache-2.0 */
/* Command-line options. Parsing only records what was asked; main.c acts. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "policy_int.h"
#include "tdtrace.h"

/* words from column col, lines of at most 78 columns, each new line
 * indented */
static void put_wrapped(FILE *f, const char *text, int col, int indent)
{
    for (const char *w = text; *w;) {
        int len = (int)strcspn(w, " ");
        if (w != text && col + 1 + len > 78) {
            fprintf(f, "\n%*s", indent, "");
            col = indent;
        } else if (w != text) {
            fputc(' ', f);
            col++;
        }
        fprintf(f, "%.*s", len, w);
        col += len;
        w += len;
        w += *w == ' ';
    }
}

void td_usage(FILE *f)
{
    fputs(
"usage: tdtrace [options] [--] command [args...]\n"
"       tdtrace report [-o OUT.html] TIMELINE.json\n"
"Run a command and trace every CUDA driver call it makes; report: make a\n"
"timeline file into one self-contained HTML page (tdtrace report -h).\n"
"\n"
"Output:\n"
"  -o FILE             write the trace to FILE (default: stderr)\n"
"  -ff                 with -o: one file per process, FILE.PID\n"
"  --json=FILE         also write JSON lines to FILE (- for stderr)\n"
"  --timeline=FILE     also write a timeline of the calls and of the device's\n"
"                      work (the emulator's times; on a real GPU, CUPTI's:\n"
"                      TDTRACE_CUPTI=PATH|off) to FILE (a new file), Chrome\n"
"                      trace event JSON for Perfetto or chrome://tracing\n"
"  --report=FILE       at the end, make the timeline (--timeline's, or one of\n"
"                      its own that is removed after) into the HTML page FILE\n"
"                      (a new file; as tdtrace report)\n"
"  -c                  print a summary of the calls instead of the trace\n"
"  -C                  print the trace, then the summary\n"
"  -S SORTBY           sort the summary by time (default), calls, errors,\n"
"                      avg, max or name\n"
"  -k                  print the native stack of the code that made each call\n"
"  --py, --python-frames\n"
"                      in a Python process, the Python line of each call\n"
"                      ([file.py:42 in func]); with -k, the Python frames\n"
"                      among the native ones; with -c/-C, a table of lines\n"
"  --runtime           also trace the CUDA runtime's calls (cudaMalloc, ...), each\n"
"                      with the driver calls it made indented beneath it\n"
"                      (class %runtime; static or shared libcudart)\n"
"  -U COLUMNS          the summary's columns: time-percent, total-time,\n"
"                      avg-time, min-time, max-time, calls, errors,\n"
"                      device-time, name\n"
"  -w                  summarise wall-clock time (always: see tdtrace(1))\n"
"  -T                  show the time spent in each call\n"
"  -t, -tt, -ttt       prefix each line with the time of day, with microseconds,\n"
"                      or as seconds since the epoch\n"
"  -r                  prefix each line with the time since the previous one\n"
"  -s STRSIZE          show at most STRSIZE characters of a string (default 64)\n"
"  -X raw|abbrev|verbose\n"
"                      named constants as numbers, names (default), or both\n"
"  -y, --decode-handles=names|none\n"
"                      handles by name (stream#2, fn add_one) and device\n"
"                      pointers in allocations (alloc#5+0x100): the default\n"
"  -q                  quieter: no backend and policy banner\n"
"  -v                  verbose: every call in full (no folded start-up lines),\n"
"                      structures unabbreviated, failed results explained\n"
"Processes:\n"
"  -f                  follow children (the default)\n"
"  --no-follow         trace the first process only\n"
"  -p, --attach=PID[,PID...]\n"
"                      attach to running processes (each -p adds); Ctrl-C,\n"
"                      SIGTERM or SIGHUP detach and let them go on\n"
"  --detach-after=DURATION\n"
"                      with -p: detach after DURATION (10s, 500ms, 2m)\n"
"Filtering:\n"
"  -e trace=SET        trace only SET: names (cuMemAlloc matches its _v2 too),\n"
"                      /regex, %class (", f);
    char list[512];
    put_wrapped(f, td_family_list(list, sizeof(list)), 38, 22);
    fputs("),\n"
"                      all, none;\n"
"                      a leading ! negates\n"
"  -e status=SET       only calls that were successful and/or failed\n"
"  -z, -Z              -e status=successful, -e status=failed\n"
"  -e abbrev=SET       abbreviate the structures of these calls (default all)\n"
"  -e verbose=SET      decode the structures of these calls (default all)\n"
"  -e raw=SET          print these calls' arguments undecoded, in hex\n"
"  -e lib=PATTERN      also trace the exported functions of the libraries whose\n"
"                      file name or soname matches the glob (libcublas*, libnccl*;\n"
"                      loaded at start or by dlopen; may be repeated), each with\n"
"                      the calls it made nested beneath it (class %library)\n"
"Backend:\n"
"  --backend=", f);
    fputs(td_policy_backend_list(list, sizeof(list), "|"), f);
    fputs("\n"
"                      where calls go: the real NVIDIA driver, the emulated GPU,\n"
"                      or the driver if it finds a device (default auto)\n"
"  --emulate[=devices=N,profile=NAME,memory=SIZE,timeout=T,max-instructions=N,\n"
"            driver=VERSION,engine=interp|jit|auto]\n"
"                      --backend=emulate, with the emulated devices' settings\n"
"                      (profiles and limits: tdtrace(1), THE EMULATED GPU);\n"
"                      driver=12.4: present that driver release and only its\n"
"                      entry points; profile=list: the profiles; engine=jit:\n"
"                      compile kernels with LLVM 16 where it can (default\n"
"                      interp: the interpreter runs them), kept on disk in\n"
"                      $TDTRACE_EMU_CACHE (off: not kept; default\n"
"                      ~/.cache/tdtrace), at most $TDTRACE_EMU_CACHE_MAX\n"
"                      bytes (default 256M); a warp's lanes run as vectors\n"
"                      where they agree ($TDTRACE_EMU_JIT_VECTOR=0: each\n"
"                      thread on its own)\n"
"  --driver=PATH       the real libcuda.so.1 to use\n"
"  --library=NAME=auto|host|nvidia[,...]\n"
"                      NVIDIA's library NAME (cublas, cublaslt, cufft, curand,\n"
"                      cudnn, nvml, cusolver, cusparse, nvrtc, nvjitlink, all)\n"
"                      or tdtrace's in front of it; auto (default): tdtrace's\n"
"                      when the GPU is emulated\n"
"Policy (tdtrace.policy(5); these override the policy file):\n"
"  --policy=FILE|none  the policy file (default: $TDTRACE_POLICY, else the\n"
"                      nearest tdtrace.policy here or above, else built-in)\n"
"  --check-policy=FILE validate a policy file and print it normalised\n"
"  --policy-mode=audit|enforce\n"
"                      audit marks what rules would do; enforce applies them\n"
"  --inject=NAME:error=RESULT[:when=WHEN][:delay=DURATION]\n"
"                      fail calls on purpose (strace's --inject); also runtime\n"
"                      (--runtime) and library (-e lib=) calls, RESULT of their type\n"
"  --deny=NAME|%class[:error=RESULT]\n"
"                      refuse calls\n"
"  --memory-limit=SIZE[:device=N]\n"
"                      cap device memory, shared by every process\n"
"  --require=driver=VERSION\n"
"                      fail calls of entry points that driver release lacks\n"
"GPU ioctls:\n"
"  --gpu-dev=GLOB      also treat files matching GLOB as GPU device nodes\n"
"  --ioctl-deny=NAME|NUMBER[:errno=E][:dev=GLOB]\n"
"                      make a GPU ioctl fail with errno E (default EPERM)\n"
"Transport:\n"
"  --bounded           never make the program wait for tdtrace: drop records\n"
"                      when the buffer is full, and say how many\n"
"  --buffer-size=SIZE  size of the record buffer (default 16M)\n"
"Misc:\n"
"  -h, --help          this help\n"
"  -V, --version       the version\n"
"\n"
"See tdtrace(1) and tdtrace.policy(5).\n", f);
}

static unsigned long long parse_size_opt(const char *s, const char *what)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    unsigned shift = 0;
    switch (*end) {
    case 'K': case 'k': shift = 10; end++; break;
    case 'M': case 'm': shift = 20; end++; break;
    case 'G': case 'g': shift = 30; end++; break;
    default: break;
    }
    if (shift && *end == 'i')
        end++;
    if (shift && (*end == 'B' || *end == 'b'))
        end++;
    if (end == s || *end || (shift && v > (~0ULL >> shift)))
        die("invalid %s '%s': must be a size (4096, 64K, 16M, 1G)", what, s);
    return v << shift;
}

enum {
    OPT_JSON = 256, OPT_NO_FOLLOW, OPT_ATTACH, OPT_POLICY, OPT_CHECK_POLICY, OPT_POLICY_OPT, OPT_BACKEND, OPT_DRIVER, OPT_EMULATE, OPT_BOUNDED, OPT_PY, OPT_RUNTIME,
    OPT_BUFSIZE, OPT_DECODE_HANDLES, OPT_DETACH_AFTER, OPT_TIMELINE, OPT_REPORT,
};

/* one word of a list, against its accepted spellings: the index, or dies
 * naming the option, the word and (when one is near) what was meant */
static int pick(const char *opt, const char *word, const char *const *words, const char *list)
{
    for (int i = 0; words[i]; i++)
        if (strcmp(words[i], word) == 0)
            return i;
    const char *near = td_pol_suggest_list(word, words);
    if (near)
        die("invalid %s '%s' (use %s); did you mean '%s'?", opt, word, list, near);
    die("invalid %s '%s' (use %s)", opt, word, list);
}

static void status_set(struct td_opts *o, const char *list)
{
    static const char *const words[] = { "successful", "failed", "all", "none", NULL };
    static const int bits[] = { TD_STATUS_SUCCESSFUL, TD_STATUS_FAILED,
                                TD_STATUS_SUCCESSFUL | TD_STATUS_FAILED, 0 };
    char *copy = strdup(list), *save = NULL;
    if (!copy)
        die("out of memory");
    o->status = 0;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
        o->status |= bits[pick("status", t, words, "successful, failed, all or none")];
    free(copy);
    if (!o->status) /* none: nothing is printed (strace's -e status=none) */
        o->status = TD_STATUS_NONE;
}

/* -U: strace's column names and their aliases */
static void columns_set(struct td_opts *o, const char *list)
{
    static const char *const words[] = {
        "time-percent", "percent", "time", "total-time", "seconds", "avg-time", "time-avg",
        "usecs", "min-time", "shortest", "max-time", "longest", "calls", "count", "errors", "error",
        "name", "function", "syscall", "device-time", "device", NULL,
    };
    static const int col[] = {
        TD_COL_PERCENT, TD_COL_PERCENT, TD_COL_PERCENT, TD_COL_SECONDS, TD_COL_SECONDS, TD_COL_AVG,
        TD_COL_AVG, TD_COL_AVG, TD_COL_MIN, TD_COL_MIN, TD_COL_MAX, TD_COL_MAX, TD_COL_CALLS,
        TD_COL_CALLS, TD_COL_ERRORS, TD_COL_ERRORS, TD_COL_NAME, TD_COL_NAME, TD_COL_NAME,
        TD_COL_DEVICE, TD_COL_DEVICE,
    };
    char *copy = strdup(list), *save = NULL;
    if (!copy)
        die("out of memory");
    o->ncolumns = 0;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int c = col[pick("-U column", t, words, "time-percent, total-time, avg-time, min-time, "
                         "max-time, calls, errors, device-time or name")];
        if (o->ncolumns == TD_MAX_COLUMNS)
            die("invalid -U '%s': at most %d columns", list, TD_MAX_COLUMNS);
        o->columns[o->ncolumns++] = c;
    }
    free(copy);
    if (!o->ncolumns)
        die("invalid -U '%s': no column", list);
}

/* -e lib=PATTERN[,PATTERN...]: the patterns joined by ':' (TDTRACE_LIBS) */
static void lib_pattern(struct td_opts *o, const char *arg)
{
    static char buf[2048];
    size_t n = strlen(buf);
    if (!*arg)
        die("invalid -e lib='': each pattern a glob of 1 to 255 characters without ':'");
    for (const char *p = arg; *p;) {
        size_t k = strcspn(p, ",");
        if (!k || memchr(p, ':', k) || k > 255)
            die("invalid -e lib='%s': each pattern a glob of 1 to 255 characters without ':'", arg);
        if (n + k + 2 > sizeof(buf))
            die("-e lib=: too many patterns (%zu bytes at most)", sizeof(buf) - 1);
        if (n)
            buf[n++] = ':';
        memcpy(buf + n, p, k);
        n += k;
        buf[n] = '\0';
        p += k + (p[k] == ',');
    }
    o->libs = buf;
}

/* -e QUALIFIER=SET */
static void qualifier(struct td_opts *o, const char *arg)
{
    static const char *const quals[] = { "trace", "status", "abbrev", "verbose", "raw", "lib", NULL };
    const char *eq = strchr(arg, '=');
    if (!eq) { /* -e SET is -e trace=SET */
        o->trace_expr = arg;
        return;
    }
    char q[32];
    snprintf(q, sizeof(q), "%.*s", (int)(eq - arg), arg);
    switch (pick("-e qualifier", q, quals, "trace, status, abbrev, verbose, raw or lib")) {
    case 0: o->trace_expr = eq + 1; break;
    case 1: status_set(o, eq + 1); break;
    case 2: o->abbrev_expr = eq + 1; break;
    case 3: o->verbose_expr = eq + 1; break;
    case 4: o->raw_expr = eq + 1; break;
    default: lib_pattern(o, eq + 1); break;
    }
}

void td_parse_options(struct td_opts *o, int argc, char **argv)
{
    static const struct option longopts[] = {
        { "help", no_argument, 0, 'h' },
        { "version", no_argument, 0, 'V' },
        { "output", required_argument, 0, 'o' },
        { "backend", required_argument, 0, OPT_BACKEND },
        { "emulate", optional_argument, 0, OPT_EMULATE },
        { "driver", required_argument, 0, OPT_DRIVER },
        { "bounded", no_argument, 0, OPT_BOUNDED },
        { "py", no_argument, 0, OPT_PY },
        { "python-frames", no_argument, 0, OPT_PY },
        { "runtime", no_argument, 0, OPT_RUNTIME },
        { "json", required_argument, 0, OPT_JSON },
        { "timeline", required_argument, 0, OPT_TIMELINE },
        { "report", required_argument, 0, OPT_REPORT },
        { "no-follow", no_argument, 0, OPT_NO_FOLLOW },
        { "attach", required_argument, 0, OPT_ATTACH },
        { "policy", required_argument, 0, OPT_POLICY },
        { "check-policy", required_argument, 0, OPT_CHECK_POLICY },
        { "policy-mode", required_argument, 0, OPT_POLICY_OPT },
        { "inject", required_argument, 0, OPT_POLICY_OPT },
        { "deny", required_argument, 0, OPT_POLICY_OPT },
        { "memory-limit", required_argument, 0, OPT_POLICY_OPT },
        { "gpu-dev", required_argument, 0, OPT_POLICY_OPT },
        { "ioctl-deny", required_argument, 0, OPT_POLICY_OPT },
        { "library", required_argument, 0, OPT_POLICY_OPT },
        { "require", required_argument, 0, OPT_POLICY_OPT },
        { "buffer-size", required_argument, 0, OPT_BUFSIZE },
        { "decode-handles", required_argument, 0, OPT_DECODE_HANDLES },
        { "detach-after", required_argument, 0, OPT_DETACH_AFTER },
        { 0, 0, 0, 0 },
    };
    memset(o, 0, sizeof(*o));
    o->follow = 1;
    o->strsize = 64;
    o->names = 1;
    o->bufsize = 16u << 20;
    int c, nf = 0;
    opterr = 0;
    o->popts = calloc((size_t)argc + 1, sizeof(*o->popts));
    if (!o->popts)
        die("out of memory");
    int li = -1;
    while ((c = getopt_long(argc, argv, "+:o:Tte:s:qvhVfcCS:kp:rzZywU:X:", longopts, &li)) != -1) {
        switch (c) {
        case 'o':
            o->outfile = optarg;
            break;
        case 'f':
            if (++nf >= 2)
                o->ff = 1;
            o->follow = 1;
            break;
        case 'c':
            o->summary = 1;
            break;
        case 'C':
            o->summary = 2;
            break;
        case 'S': {
            static const char *const by[] = { "time", "calls", "errors", "avg", "max", "name", NULL };
            o->sortby = by[pick("-S", optarg, by, "time, calls, errors, avg, max or name")];
            break;
        }
        case 'U':
            columns_set(o, optarg);
            break;
        case 'w':
            break; /* the summary's times are wall-clock times always */
        case 'r':
            o->rtstamp = 1;
            break;
        case 'z':
            o->status = TD_STATUS_SUCCESSFUL;
            break;
        case 'Z':
            o->status = TD_STATUS_FAILED;
            break;
        case 'y':
            o->names = 1;
            break;
        case OPT_DECODE_HANDLES: {
            static const char *const w[] = { "names", "none", NULL };
            o->names = pick("--decode-handles", optarg, w, "names or none") == 0;
            break;
        }
        case 'X': {
            static const char *const w[] = { "abbrev", "raw", "verbose", NULL };
            static const int m[] = { TP_X_ABBREV, TP_X_RAW, TP_X_VERBOSE };
            o->xmode = m[pick("-X", optarg, w, "raw, abbrev or verbose")];
            break;
        }
        case 'k':
            o->stacks = 1;
            break;
        case 'p':
        case OPT_ATTACH:
            for (char *s = optarg, *end; *s; s = *end ? end + 1 : end) {
                long v = strtol(s, &end, 10);
                if (end == s || (*end && *end != ',') || v <= 0 || v > INT32_MAX)
                    die("invalid process id '%s'", optarg);
                pid_t *na = realloc(o->attach, ((size_t)o->nattach + 1) * sizeof(*na));
                if (!na)
                    die("out of memory");
                o->attach = na;
                o->attach[o->nattach++] = (pid_t)v;
            }
            break;
        case OPT_DETACH_AFTER: {
            const char *why;
            if (td_policy_parse_duration(optarg, &o->detach_after_ns, &why) < 0 || !o->detach_after_ns)
                die("invalid --detach-after '%s': %s", optarg, o->detach_after_ns ? why : "must be more than 0");
            break;
        }
        case OPT_JSON:
            o->json = optarg;
            break;
        case OPT_TIMELINE:
            if (!*optarg)
                die("invalid --timeline '': a file name is needed");
            o->timeline = optarg;
            break;
        case OPT_REPORT:
            if (!*optarg)
                die("invalid --report '': a file name is needed");
            o->report = optarg;
            break;
        case OPT_NO_FOLLOW:
            o->follow = 0;
            break;
        case 'T':
            o->show_time = 1;
            break;
        case 't':
            if (o->tstamp < 3)
                o->tstamp++;
            break;
        case 'e':
            qualifier(o, optarg);
            break;
        case 's': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || end == optarg || v < 0 || v > 1 << 20)
                die("invalid -s '%s': must be a number from 0 to %d", optarg, 1 << 20);
            o->strsize = (int)v;
            break;
        }
        case 'q':
            o->quiet = 1;
            break;
        case 'v':
            o->verbose = 1;
            break;
        case 'h':
            td_usage(stdout);
            exit(0);
        case 'V':
            printf("tdtrace %s\n", TD_VERSION);
            exit(0);
        case OPT_BACKEND: {
            static const char *const w[] = {
#define TD_BACKEND_WORD(id, name) #name,
                TD_BACKENDS(TD_BACKEND_WORD)
#undef TD_BACKEND_WORD
                NULL };
            char list[128];
            pick("--backend", optarg, w, td_policy_backend_list(list, sizeof(list), NULL));
            o->popts[o->npopts++] = (struct td_opt_kv){ "backend", optarg };
            break;
        }
        case OPT_EMULATE:
            o->popts[o->npopts++] = (struct td_opt_kv){ "emulate", optarg };
            break;
        case OPT_POLICY:
            o->policy = optarg;
            break;
        case OPT_CHECK_POLICY:
            o->check_policy = optarg;
            break;
        case OPT_POLICY_OPT:
            o->popts[o->npopts++] = (struct td_opt_kv){ longopts[li].name, optarg };
            break;
        case OPT_DRIVER:
            o->driver = optarg;
            break;
        case OPT_PY:
            o->pyframes = 1;
            break;
        case OPT_RUNTIME:
            o->runtime = 1;
            break;
        case OPT_BOUNDED:
            o->bounded = 1;
            break;
        case OPT_BUFSIZE:
            o->bufsize = parse_size_opt(optarg, "--buffer-size");
            if (o->bufsize < 65536 || o->bufsize > (1ULL << 40) || (o->bufsize & (o->bufsize - 1)))
                die("invalid --buffer-size '%s': must be a power of two from 64K to 1T", optarg);
            break;
        case ':':
            die("option '%s' requires an argument\nTry 'tdtrace -h' for more information.",
                argv[optind - 1]);
        case '?':
        default:
            if (optopt)
                die("invalid option -- '%c'\nTry 'tdtrace -h' for more information.", optopt);
            die("unrecognized option '%s'\nTry 'tdtrace -h' for more information.",
                argv[optind - 1]);
        }
    }
    if (o->ff && !o->outfile)
        die("-ff needs -o FILE");
    if (o->check_policy)
        return;
    td_profiles_list_if_asked(o);
    if (o->nattach) {
        if (optind < argc)
            die("-p and a command cannot be given together");
        return;
    }
    if (o->detach_after_ns)
        die("--detach-after needs -p PID");
    if (optind >= argc)
        die("must have PROG [ARGS]\nTry 'tdtrace -h' for more information.");
    o->cmd = argv + optind;
}
