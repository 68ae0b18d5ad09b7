/* SPDX-License-Identifier: Apache-2.0 */
/* The `library` statement (and --library=): for each of NVIDIA's libraries
 * in src/common/frontlibs.def, whether the traced programs get tdtrace's
 * library in front of it (host), NVIDIA's own (nvidia), or tdtrace's
 * exactly when the emulated GPU is used (auto, the default).
 *
 *   library cublas=host cufft=nvidia
 *   library all=nvidia */
#include "policy_int.h"

#include <string.h>

static const char *const libs[] = {
#define FRONTLIB(name, soname, dir) #name,
#include "frontlibs.def"
#undef FRONTLIB
    NULL,
};
static const char *const sonames[] = {
#define FRONTLIB(name, soname, dir) soname,
#include "frontlibs.def"
#undef FRONTLIB
};
static const char *const choices[] = { "auto", "host", "nvidia", NULL };

const char *td_policy_frontlib_name(int lib)
{
    return lib >= 0 && lib < TD_FRONTLIB__COUNT ? libs[lib] : "?";
}

const char *td_policy_frontlib_soname(int lib)
{
    return lib >= 0 && lib < TD_FRONTLIB__COUNT ? sonames[lib] : "?";
}

const char *td_policy_library_choice_name(int choice)
{
    return choice >= 0 && choice < TD_LIBRARY__COUNT ? choices[choice] : "?";
}

static int find(const char *const *list, const char *s)
{
    for (int i = 0; list[i]; i++)
        if (strcmp(list[i], s) == 0)
            return i;
    return -1;
}

int td_policy_library(const struct td_policy *p, int lib, const char **file, int *line)
{
    if (!p || lib < 0 || lib >= TD_FRONTLIB__COUNT) {
        if (file)
            *file = NULL;
        if (line)
            *line = 0;
        return TD_LIBRARY_AUTO;
    }
    if (file)
        *file = p->lib_loc[lib].file;
    if (line)
        *line = p->lib_loc[lib].line;
    return p->lib_choice[lib];
}

int td_pol_st_library(struct pol_state *ps, struct pol_tok *t, int n)
{
    struct td_policy *p = ps->p;
    char list[200];
    if (n < 2)
        return perr(ps, t[0].col, "'library' needs NAME=auto|host|nvidia (NAME: %s or all)",
                    td_pol_name_list(libs, list, sizeof list, ", "));
    int choice[TD_FRONTLIB__COUNT];
    for (int l = 0; l < TD_FRONTLIB__COUNT; l++)
        choice[l] = -1;
    for (int i = 1; i < n; i++) {
        char *eq = strchr(t[i].s, '=');
        if (!eq)
            return perr(ps, t[i].col, "'%s' is not NAME=auto|host|nvidia", t[i].s);
        *eq = 0;
        int all = strcmp(t[i].s, "all") == 0;
        int lib = all ? -1 : find(libs, t[i].s);
        if (!all && lib < 0) {
            int rc = td_pol_perr_dym(ps, t[i].col, td_pol_suggest_list(t[i].s, libs),
                                     "unknown library '%s' (%s or all)", t[i].s,
                                     td_pol_name_list(libs, list, sizeof list, ", "));
            *eq = '=';
            return rc;
        }
        *eq = '=';
        int col = t[i].col + (int)(eq + 1 - t[i].s);
        int c = find(choices, eq + 1);
        if (c < 0)
            return td_pol_perr_dym(ps, col, td_pol_suggest_list(eq + 1, choices),
                                   "unknown choice '%s' (auto, host or nvidia)", eq + 1);
        for (int l = all ? 0 : lib; l < (all ? TD_FRONTLIB__COUNT : lib + 1); l++) {
            if (choice[l] >= 0)
                return perr(ps, t[i].col, "library %s is named twice", libs[l]);
            if (p->lib_loc[l].file && !ps->cli)
                return td_pol_conflict(ps, t[i].col, "this choice of library", &p->lib_loc[l]);
            choice[l] = c;
        }
    }
    for (int l = 0; l < TD_FRONTLIB__COUNT; l++)
        if (choice[l] >= 0) {
            p->lib_choice[l] = (signed char)choice[l];
            p->lib_loc[l] = td_pol_here(ps);
        }
    return 0;
}

void td_pol_write_libraries(const struct td_policy *p, FILE *f,
                            void (*origin)(FILE *, int, const char *, int), int flags)
{
    for (int l = 0; l < TD_FRONTLIB__COUNT; l++)
        if (p->lib_loc[l].file) {
            origin(f, flags, p->lib_loc[l].file, p->lib_loc[l].line);
            fprintf(f, "library %s=%s\n", libs[l], choices[p->lib_choice[l]]);
        }
}
