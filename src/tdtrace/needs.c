/* SPDX-License-Identifier: Apache-2.0 */
/* The driver a run presents and what the traced program needed of one.
 *
 * --emulate=driver=V (or the policy's emulate driver=V) runs the program
 * on the libraries of lib/tdtrace/driver/R, R the release whose entry
 * points a driver V has (the Makefile links them from the API table), with
 * TDTRACE_EMU_DRIVER=V for what cuDriverGetVersion reports.
 *
 * The needs report: the newest driver release among the entry points the
 * program called and those it asked cuGetProcAddress for (the entry point
 * the API table gives for that name at that ABI version, whatever the
 * driver of this run answered), each entry point's release being the
 * oldest ABI version of its row (src/common/drvver.c). */
#include "needs.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "api.h"
#include "drvver.h"
#include "output.h"
#include "print.h"
#include "tdtrace.h"

#define MAX_MISSING 64

struct lookup { char symbol[96]; int abi; int fn; };

static int presented;       /* the release chosen; 0: the newest (TD_API_NEWEST) */
static int show_text, active;
static int need, need_fn = -1;          /* the newest release needed, and by what */
static struct lookup need_lookup;       /* ... when a lookup asked for it (symbol[0]) */
static int max_abi;                     /* the newest ABI version asked for */
static int seen_version;                /* what cuDriverGetVersion told the program */
static struct lookup missing[MAX_MISSING]; /* lookups this run's driver could not answer */
static int nmissing, more_missing;
static int required, required_line, required_enforced; /* require driver= */
static const char *required_file;
static unsigned long long beyond_required;  /* calls of entry points it lacks */
static int least_cc, max_isa;               /* over the images loaded */
static unsigned long long nimages;

void td_needs_init(const struct td_policy *p, int summary, int json, char *libdir, size_t n)
{
    struct td_emulate_cfg ec;
    td_policy_emulate(p, &ec);
    show_text = summary != 0;
    active = show_text || json;
    if ((required = td_policy_require_driver(p, &required_file, &required_line)) != 0) {
        required_enforced = td_policy_enforce(p);
        show_text = active = 1;
    }
    if (!(ec.given & TD_EMU_GIVEN_DRIVER) || !ec.driver)
        return;
    presented = ec.driver;
    show_text = active = 1;
    int set = td_drv_export_set(presented);
    if (set >= TD_API_NEWEST)
        return; /* the newest release: the libraries of libdir itself */
    char dir[4200];
    snprintf(dir, sizeof(dir), "%s/driver/%d", libdir, set);
    char shim[4300];
    snprintf(shim, sizeof(shim), "%s/libcuda.so.1", dir);
    if (access(shim, R_OK) != 0)
        die("cannot find the driver %d.%d's libraries in %s", presented / 1000,
            presented % 1000 / 10, dir);
    if (strlen(dir) >= n)
        die("%s: path too long", dir);
    snprintf(libdir, n, "%s", dir);
}

int td_needs_wants(int fn)
{
    return active && fn >= 0 && fn < TD_FN__ENTRY_POINTS;
}

static void need_of(int fn, const struct lookup *l)
{
    int since = td_drv_since(fn);
    if (since <= need)
        return;
    need = since;
    need_fn = fn;
    if (l)
        need_lookup = *l;
    else
        need_lookup.symbol[0] = '\0';
}

/* a string argument's text, NUL-terminated in buf */
static const char *str_arg(const struct td_rec *rec, uint32_t len, int arg, char *buf, size_t n)
{
    const struct td_item *it = td_rec_item(rec, len, arg, TD_IT_STR);
    if (!it || !n)
        return NULL;
    size_t k = it->len < n - 1 ? it->len : n - 1;
    memcpy(buf, it + 1, k);
    buf[k] = '\0';
    return buf;
}

static void lookup_call(const struct td_rec *rec, uint32_t len, const uint64_t *a)
{
    struct lookup l;
    if (!str_arg(rec, len, 0, l.symbol, sizeof(l.symbol)))
        return;
    l.abi = (int)(int32_t)a[2];
    int too_low;
    l.fn = td_proc_lookup(l.symbol, l.abi, (a[3] & 2) != 0, &too_low);
    if (l.abi > max_abi)
        max_abi = l.abi;
    if (l.fn < 0)
        return;
    need_of(l.fn, &l);
    if (rec->result == 0 || td_drv_has(l.fn, presented ? presented : TD_API_NEWEST))
        return;
    for (int i = 0; i < nmissing; i++)
        if (missing[i].fn == l.fn)
            return;
    if (nmissing < MAX_MISSING)
        missing[nmissing++] = l;
    else
        more_missing++;
}

void td_needs_call(const struct td_rec *rec, uint32_t len)
{
    if (rec->fn >= TD_FN__ENTRY_POINTS)
        return;
    const uint64_t *a = (const uint64_t *)(rec + 1);
    if ((rec->fn == TD_FN_cuGetProcAddress || rec->fn == TD_FN_cuGetProcAddress_v2) && rec->nargs >= 4) {
        lookup_call(rec, len, a);
    } else if (rec->fn == TD_FN_cuDriverGetVersion && rec->result == 0) {
        const struct td_item *it = td_rec_item(rec, len, 0, TD_IT_OUT);
        int32_t v;
        if (it && it->len >= sizeof(v)) {
            memcpy(&v, it + 1, sizeof(v));
            seen_version = v;
        }
    }
    need_of(rec->fn, NULL);
    if (required && !td_drv_has(rec->fn, required))
        beyond_required++;
}

void td_needs_json(struct tp *p)
{
    if (!active)
        return;
    tp_raw(p, ",\"needs\":");
    tp_struct_begin(p);
    int isa_need = td_drv_for_ptx_isa(max_isa);
    tp_field(p, "driver"); tp_int(p, need > isa_need ? need : isa_need);
    tp_field(p, "compute_capability"); tp_int(p, least_cc);
    tp_field(p, "ptx_isa"); tp_int(p, max_isa);
    tp_field(p, "images"); tp_uint(p, nimages);
    tp_field(p, "function");
    if (need_fn >= 0)
        tp_sym(p, td_fns[need_fn].name);
    else
        tp_raw(p, "null");
    tp_field(p, "lookup");
    if (need_fn >= 0 && need_lookup.symbol[0]) {
        tp_struct_begin(p);
        tp_field(p, "symbol"); tp_str(p, need_lookup.symbol, strlen(need_lookup.symbol), 0);
        tp_field(p, "abi"); tp_int(p, need_lookup.abi);
        tp_struct_end(p);
    } else {
        tp_raw(p, "null");
    }
    tp_field(p, "max_abi"); tp_int(p, max_abi);
    tp_field(p, "presented"); tp_int(p, presented ? presented : TD_API_NEWEST);
    tp_field(p, "missing");
    tp_array_begin(p);
    for (int i = 0; i < nmissing; i++) {
        tp_elem(p);
        tp_struct_begin(p);
        tp_field(p, "symbol"); tp_str(p, missing[i].symbol, strlen(missing[i].symbol), 0);
        tp_field(p, "abi"); tp_int(p, missing[i].abi);
        tp_field(p, "function"); tp_sym(p, td_fns[missing[i].fn].name);
        tp_field(p, "since"); tp_int(p, td_drv_since(missing[i].fn));
        tp_struct_end(p);
    }
    tp_array_end(p);
    tp_struct_end(p);
}

void td_needs_image(const struct td_rec *rec, uint32_t len)
{
    const struct td_item *it = td_rec_item(rec, len, 0, TD_IT_EVENT);
    struct td_ev_image im;
    if (!it || it->len != sizeof(im))
        return;
    memcpy(&im, it + 1, sizeof(im));
    nimages++;
    /* what a program's kernels make it need: the least device that loads
     * every image it loaded (values past any real one are ignored) */
    if (im.least_cc < 1000 && (int)im.least_cc > least_cc)
        least_cc = (int)im.least_cc;
    if (im.ptx_isa < 1000 && (int)im.ptx_isa > max_isa)
        max_isa = (int)im.ptx_isa;
}

static const char *ver(int v, char *buf, size_t n)
{
    return td_drv_format(v, buf, n);
}

/* the base names of the missing entry points a release added, "a, b,
 * c" (each once), into buf; returns how many lookups asked for them */
static int missing_of(int release, char *buf, size_t n)
{
    size_t at = 0;
    int lookups = 0;
    buf[0] = '\0';
    for (int i = 0; i < nmissing; i++) {
        if (td_drv_since(missing[i].fn) != release)
            continue;
        lookups++;
        const char *base = td_fns[missing[i].fn].base;
        int seen = 0;
        for (int k = 0; k < i && !seen; k++)
            seen = td_drv_since(missing[k].fn) == release && strcmp(td_fns[missing[k].fn].base, base) == 0;
        if (!seen && at < n)
            at += (size_t)snprintf(buf + at, n - at, "%s%s", at ? ", " : "", base);
    }
    return lookups;
}

void td_needs_print(void)
{
    if (!show_text)
        return;
    FILE *f = td_out_summary_file();
    struct tp p;
    tp_init(&p, TP_TEXT, f);
    char a[16], b[16];
    int isa_need = td_drv_for_ptx_isa(max_isa), all = need > isa_need ? need : isa_need;
    if (need_fn < 0 && !nimages) {
        tp_raw(&p, "this run needs no driver: it made no driver call that tdtrace saw");
        tp_line_end(&p);
    } else {
        tp_rawf(&p, "this run needs driver >= %s", ver(all, a, sizeof a));
        if (least_cc)
            tp_rawf(&p, " and a device of compute capability >= %d.%d", least_cc / 10, least_cc % 10);
        if (need_fn >= 0) {
            tp_rawf(&p, "; %s needs %s", td_fns[need_fn].name, ver(need, b, sizeof b));
            if (need_lookup.symbol[0])
                tp_rawf(&p, " (cuGetProcAddress(\"%s\", %d))", need_lookup.symbol, need_lookup.abi);
        }
        if (isa_need)
            tp_rawf(&p, "; its PTX (ISA %d.%d) needs %s", max_isa / 10, max_isa % 10, ver(isa_need, b, sizeof b));
        tp_line_end(&p);
    }
    if (max_abi) {
        tp_rawf(&p, "it asked cuGetProcAddress for ABI versions up to %d (CUDA %s)", max_abi,
                ver(max_abi, a, sizeof a));
        tp_line_end(&p);
    }
    if (presented) {
        tp_rawf(&p, "the emulated driver presented %s", ver(presented, a, sizeof a));
        if (seen_version)
            tp_rawf(&p, " (cuDriverGetVersion gave %d)", seen_version);
        if (all > presented)
            tp_rawf(&p, ", older than the %s this run needs", ver(all, b, sizeof b));
        tp_line_end(&p);
        /* what CUDA's compatibility rules say of a runtime built for
         * max_abi on this driver */
        if (max_abi / 1000 > presented / 1000) {
            tp_rawf(&p, "a CUDA %d runtime needs a driver of CUDA %d or newer (an older one: "
                    "cudaErrorInsufficientDriver)", max_abi / 1000, max_abi / 1000);
            tp_line_end(&p);
        } else if (max_abi > presented) {
            tp_rawf(&p, "within CUDA %d, a newer runtime runs on an older driver (minor version "
                    "compatibility), without the entry points the driver lacks", max_abi / 1000);
            tp_line_end(&p);
        }
    }
    if (required) {
        tp_rawf(&p, "the policy requires driver %s (", ver(required, a, sizeof a));
        if (required_line)
            tp_rawf(&p, "%s:%d", required_file ? required_file : "?", required_line);
        else
            tp_rawf(&p, "%s", required_file ? required_file : "?");
        tp_rawf(&p, "): %llu call%s of entry points it lacks%s", beyond_required,
                beyond_required == 1 ? "" : "s",
                !beyond_required ? "" : required_enforced ? ", failed" : ", marked (audit)");
        tp_line_end(&p);
    }
    for (int r = 1; r <= TD_API_NEWEST; r++) {
        char names[400];
        int k = 0;
        for (int i = 0; i < nmissing && !k; i++)
            k = td_drv_since(missing[i].fn) == r;
        if (!k)
            continue;
        int lookups = missing_of(r, names, sizeof names);
        tp_rawf(&p, "  not in %s, new in %s: %s (%d lookup%s found nothing)", ver(presented, a, sizeof a),
                ver(r, b, sizeof b), names, lookups, lookups == 1 ? "" : "s");
        tp_line_end(&p);
    }
    if (more_missing) {
        tp_rawf(&p, "  and %d more lookups found nothing", more_missing);
        tp_line_end(&p);
    }
    if (f)
        fflush(f);
    tp_free(&p);
}
