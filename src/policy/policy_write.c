/* SPDX-License-Identifier: Apache-2.0 */
/* The normalised text of a policy (tdtrace --check-policy), and error
 * messages. Statements come in a fixed order, one per line, each value in
 * one spelling: parsing the text gives the same policy and the same text. */
#include "policy_int.h"
#include "drvver.h"

#include <string.h>


/* a setting nobody gave (the default mode, the backend an emulate
 * statement implies) comes from "<default>" */
static void origin(FILE *f, int flags, const char *file, int line)
{
    if (!(flags & TD_POLICY_WRITE_ORIGINS))
        return;
    fputs("#@ ", f);
    for (const char *s = file ? file : "<default>"; *s; s++) /* one line, whatever the name */
        fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, f);
    fprintf(f, ":%d\n", file ? line : 0);
}

/* error= by name: of the status type it was given in, else of the one
 * type the rule's functions return (a rule that names only functions);
 * else a number. A deny's default on a class is not written: it is
 * CUDA_ERROR_NOT_PERMITTED on the driver's functions and
 * cudaErrorNotPermitted on the runtime's, which no one name says. */
static void result(FILE *f, const struct pol_call *r)
{
    int x = r->error_x != TD_X_NONE ? r->error_x : td_pol_named_status_x(r);
    const char *name = x != TD_X_NONE ? td_xlat_name((enum td_xlat_id)x, (unsigned long long)r->error) : NULL;
    if (!r->has_error || (!r->error_given && x == TD_X_NONE))
        return;
    if (name)
        fprintf(f, " error=%s", name);
    else
        fprintf(f, " error=%d", r->error);
}

static void items(FILE *f, const struct pol_call *r)
{
    for (int i = 0; i < r->nitems; i++)
        fprintf(f, "%s%s", i ? "," : " ", r->items[i].text);
}

int td_policy_write_ex(const struct td_policy *p, FILE *f, int flags)
{
    char buf[64];
    if (!p || !f)
        return -1;
    origin(f, flags, p->mode_loc.file, p->mode_loc.line);
    fprintf(f, "mode %s\n", p->enforce ? "enforce" : "audit");
    origin(f, flags, p->backend_loc.file, p->backend_loc.line);
    fprintf(f, "backend %s\n", td_policy_backend_name(p->backend));
    if (p->emu_set) {
        origin(f, flags, p->emu_loc.file, p->emu_loc.line);
        fprintf(f, "emulate devices=%d profile=%s", p->emu_devices, td_pol_profiles[p->emu_profile]);
        if (p->emu_memory) {
            td_pol_write_size(p->emu_memory, buf, sizeof buf);
            fprintf(f, " memory=%s", buf);
        }
        if (p->emu_timeout_ns) {
            td_pol_write_duration(p->emu_timeout_ns, buf, sizeof buf);
            fprintf(f, " timeout=%s", buf);
        }
        if (p->emu_max_instructions)
            fprintf(f, " max-instructions=%llu", p->emu_max_instructions);
        if (p->emu_driver)
            fprintf(f, " driver=%s", td_drv_format(p->emu_driver, buf, sizeof buf));
        if (p->emu_engine)
            fprintf(f, " engine=%s", td_pol_engines[p->emu_engine]);
        fputc('\n', f);
    }
    if (p->require_driver) {
        origin(f, flags, p->require_loc.file, p->require_loc.line);
        fprintf(f, "require driver=%s\n", td_drv_format(p->require_driver, buf, sizeof buf));
    }
    for (int k = TD_DEV_COUNT; k >= TD_DEV_HIDE; k--) /* devices, remaps, hides */
        for (int i = 0; i < p->ndevs; i++) {
            const struct td_device_rule *d = &p->devs[i];
            if ((int)d->kind != k)
                continue;
            origin(f, flags, d->file, d->line);
            switch (d->kind) {
            case TD_DEV_COUNT: fprintf(f, "devices %d\n", d->n); break;
            case TD_DEV_REMAP: fprintf(f, "device %d -> %d\n", d->n, d->m); break;
            case TD_DEV_HIDE: fprintf(f, "device %d hide\n", d->n); break;
            }
        }
    for (int i = 0; i < p->nlimits; i++) {
        const struct pol_limit *l = &p->limits[i];
        origin(f, flags, l->loc.file, l->loc.line);
        td_pol_write_size(l->bytes, buf, sizeof buf);
        fprintf(f, "memory-limit %s", buf);
        if (l->device >= 0)
            fprintf(f, " device=%d", l->device);
        fputc('\n', f);
    }
    if (p->trace.s) {
        origin(f, flags, p->trace.loc.file, p->trace.loc.line);
        fprintf(f, "trace %s\n", p->trace.s);
    }
    for (int i = 0; i < p->ngpudevs; i++) {
        origin(f, flags, p->gpudevs[i].loc.file, p->gpudevs[i].loc.line);
        fprintf(f, "gpu-dev %s\n", p->gpudevs[i].s);
    }
    for (int i = 0; i < p->ndenies; i++) {
        const struct pol_call *r = &p->denies[i];
        origin(f, flags, r->loc.file, r->loc.line);
        fputs("deny", f);
        items(f, r);
        result(f, r);
        fputc('\n', f);
    }
    for (int i = 0; i < p->ninjects; i++) {
        const struct pol_call *r = &p->injects[i];
        origin(f, flags, r->loc.file, r->loc.line);
        fputs("inject", f);
        items(f, r);
        result(f, r);
        if (r->has_when && !(r->first == 1 && r->last == POL_UNBOUNDED && r->step == 1)) {
            fprintf(f, " when=%llu", r->first);
            if (r->last != POL_UNBOUNDED && r->last != r->first)
                fprintf(f, "..%llu", r->last);
            if (r->last == POL_UNBOUNDED || (r->step != 1 && r->last != r->first))
                fputc('+', f);
            if (r->step != 1 && r->last != r->first)
                fprintf(f, "%llu", r->step);
        }
        if (r->has_delay) {
            td_pol_write_duration(r->delay_ns, buf, sizeof buf);
            fprintf(f, " delay=%s", buf);
        }
        fputc('\n', f);
    }
    for (int i = 0; i < p->nioctls; i++) {
        const struct td_ioctl_deny *d = &p->ioctls[i];
        origin(f, flags, d->file, d->line);
        if (d->name)
            fprintf(f, "ioctl deny %s", d->name);
        else
            fprintf(f, "ioctl deny 0x%lx", d->number);
        const char *en = td_pol_errno_name(d->err);
        if (en)
            fprintf(f, " errno=%s", en);
        else
            fprintf(f, " errno=%d", d->err);
        if (d->dev)
            fprintf(f, " dev=%s", d->dev);
        fputc('\n', f);
    }
    td_pol_write_libraries(p, f, origin, flags);
    return ferror(f) ? -1 : 0;
}

int td_policy_write(const struct td_policy *p, FILE *f)
{
    return td_policy_write_ex(p, f, 0);
}

int td_policy_format_error(const struct td_policy_error *e, char *buf, size_t n)
{
    if (e->line > 0 && e->col > 0)
        return snprintf(buf, n, "%s:%d:%d: %s", e->file, e->line, e->col, e->msg);
    if (e->line > 0)
        return snprintf(buf, n, "%s:%d: %s", e->file, e->line, e->msg);
    return snprintf(buf, n, "%s: %s", e->file, e->msg);
}
