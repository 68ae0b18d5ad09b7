/* SPDX-License-Identifier: Apache-2.0 */
/* The injection environment: what every traced process must have in its
 * environment for the loader to put tdtrace's shim in front of the driver.
 * Built once; used for the first exec and to restore it at any later
 * execve whose environment lacks it (env -i, execve with its own envp). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"

static struct td_env_var vars[TD_ENV_MAX];
static int nvars;

static void add(const char *name, const char *value)
{
    if (nvars == TD_ENV_MAX)
        die("too many environment variables");
    size_t n = strlen(name) + strlen(value) + 2;
    char *s = malloc(n);
    if (!s)
        die("out of memory");
    snprintf(s, n, "%s=%s", name, value);
    vars[nvars].name = name;
    vars[nvars].entry = s;
    nvars++;
}

void td_env_build(const char *libdir, const char *front, const char *sock_name,
                  const struct td_opts *o)
{
    char buf[8192];
    const char *ldp = getenv("LD_LIBRARY_PATH");
    int n = snprintf(buf, sizeof(buf), "%s%s%s%s%s", libdir, *front ? ":" : "", front,
                     ldp && *ldp ? ":" : "", ldp && *ldp ? ldp : "");
    if (n < 0 || (size_t)n >= sizeof(buf))
        die("LD_LIBRARY_PATH is too long (%zu bytes) to put tdtrace's libraries in front",
            ldp ? strlen(ldp) : 0);
    add("LD_LIBRARY_PATH", buf);
    const char *aud = getenv("LD_AUDIT");
    if (aud && *aud)
        snprintf(buf, sizeof(buf), "%s/libtdaudit.so:%s", libdir, aud);
    else
        snprintf(buf, sizeof(buf), "%s/libtdaudit.so", libdir);
    add("LD_AUDIT", buf);
    add("TDTRACE_LIBDIR", libdir);
    add("TDTRACE_SOCK", sock_name);
    add("TDTRACE_ORIG_LD_LIBRARY_PATH", ldp ? ldp : "");
    if (o->driver)
        add("TDTRACE_DRIVER", o->driver);
    if (o->runtime)
        add("TDTRACE_RUNTIME", "1");
    if (o->libs)
        add("TDTRACE_LIBS", o->libs);
    if (o->runtime || o->libs) { /* the shim loaded before the runtime's or a library's first call
                                  * (src/rtload), after the program's own preloads (a sanitizer's
                                  * runtime must come first) */
        const char *pre = getenv("LD_PRELOAD");
        n = snprintf(buf, sizeof(buf), "%s%s%s/libtdruntime.so", pre && *pre ? pre : "", pre && *pre ? ":" : "",
                     libdir);
        if (n < 0 || (size_t)n >= sizeof(buf))
            die("LD_PRELOAD is too long (%zu bytes) to add tdtrace's library", pre ? strlen(pre) : 0);
        add("LD_PRELOAD", buf);
    }
}

void td_env_add(const char *name, const char *value)
{
    add(name, value);
}

static int is_ours(const char *entry)
{
    for (int i = 0; i < nvars; i++) {
        size_t k = strlen(vars[i].name);
        if (strncmp(entry, vars[i].name, k) == 0 && entry[k] == '=')
            return 1;
    }
    return 0;
}

int td_env_complete(char *const *envp, int n)
{
    int found = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < nvars; j++)
            if (strcmp(envp[i], vars[j].entry) == 0)
                found++;
    return found >= nvars;
}

char **td_env_merge(char *const *envp, int n)
{
    char **out = calloc((size_t)n + (size_t)nvars + 1, sizeof(char *));
    if (!out)
        return NULL;
    int k = 0;
    for (int i = 0; i < n; i++)
        if (!is_ours(envp[i]))
            out[k++] = envp[i];
    for (int j = 0; j < nvars; j++)
        out[k++] = vars[j].entry;
    out[k] = NULL;
    return out;
}
