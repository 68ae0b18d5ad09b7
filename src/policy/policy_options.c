/* SPDX-License-Identifier: Apache-2.0 */
/* Command-line options (--inject=, --deny=, --memory-limit=, --backend=,
 * --emulate=, --policy-mode=, --gpu-dev=, --ioctl-deny=, --library=,
 * --require=) as statements applied on top of the policy file: an option replaces the file's rule
 * for the same target instead of conflicting with it. */
#include "policy_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const options[] = {
    "inject", "deny", "memory-limit", "backend", "emulate", "policy-mode", "gpu-dev", "ioctl-deny", "library",
    "require", NULL,
};

int td_policy_apply_option(struct td_policy *p, const char *opt, const char *value,
                           struct td_policy_error *err)
{
    struct pol_state ps;
    struct pol_tok t[POL_MAX_WORDS];
    char oname[64];
    memset(&ps, 0, sizeof ps);
    if (err)
        memset(err, 0, sizeof *err);
    ps.p = p;
    ps.err = err;
    ps.cli = 1;
    snprintf(oname, sizeof oname, "--%.60s", opt ? opt : "");
    ps.efile = oname;
    if (!p || !opt)
        return perr(&ps, 0, "no policy or option");
    int o = -1;
    for (int i = 0; options[i]; i++)
        if (strcmp(options[i], opt) == 0)
            o = i;
    if (o < 0) {
        const char *s = td_pol_suggest_list(opt, options);
        char sugg[64];
        if (s)
            snprintf(sugg, sizeof sugg, "--%s", s);
        return td_pol_perr_dym(&ps, 0, s ? sugg : NULL, "unknown policy option");
    }
    if (!(ps.file = td_pol_intern(p, oname)))
        return td_pol_oom(&ps);
    ps.efile = ps.file;
    ps.line = 0;
    if ((!value || !*value) && strcmp(opt, "emulate") != 0)
        return perr(&ps, 0, "needs a value (--%s=...)", opt);

    /* the value must survive being written as a policy line */
    for (const char *q = value ? value : ""; *q; q++)
        if (*q == ' ' || *q == '\t' || (unsigned char)*q < 0x20 || *q == 0x7f)
            return perr(&ps, 0, "blanks and control characters are not allowed in '%s'", value);
    char *copy = strdup(value ? value : "");
    if (!copy)
        return td_pol_oom(&ps);
    int n = 0, rc;
    static const char *const kw[] = { "inject", "deny", "memory-limit", "backend", "emulate", "mode",
                                      "gpu-dev", "ioctl", "library", "require" };
    t[n].s = (char *)kw[o];
    t[n++].col = 0;
    if (o == 7) { /* ioctl-deny NAME[:errno=E][:dev=GLOB] */
        t[n].s = (char *)"deny";
        t[n++].col = 0;
    }
    if (o == 3 || o == 5 || o == 6) { /* one value */
        t[n].s = copy;
        t[n++].col = 1;
    } else if (*copy) { /* split at ':' (and ',' between emulate's settings) */
        const char *seps = o == 4 || o == 8 ? ":," : ":";
        char *s = copy;
        rc = 0;
        for (;;) {
            size_t l = strcspn(s, seps);
            if (n == POL_MAX_WORDS) {
                free(copy);
                return perr(&ps, 0, "too many fields");
            }
            t[n].s = s;
            t[n++].col = (int)(s - copy) + 1;
            if (!s[l])
                break;
            s[l] = 0;
            s += l + 1;
        }
    }
    for (int i = 1; i < n; i++)
        if (!*t[i].s) {
            free(copy);
            return perr(&ps, 0, "empty field in '%s'", value);
        }
    rc = td_pol_statement(&ps, t, n);
    free(copy);
    if (rc < 0)
        return -1;
    /* a rule asked for on the command line is meant to act, as with strace
     * --inject, unless a mode was chosen */
    if ((o == 0 || o == 1 || o == 2 || o == 7 || o == 9) && !p->mode_set) {
        p->enforce = 1;
        p->mode_loc = td_pol_here(&ps);
    }
    td_pol_resolve(p);
    return 0;
}

