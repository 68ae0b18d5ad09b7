/* SPDX-License-Identifier: Apache-2.0 */
/* Which of NVIDIA's libraries the traced programs get tdtrace's library
 * in front of (src/common/frontlibs.def): the policy's `library`
 * statements and --library= choose per library; auto, the default, means
 * tdtrace's exactly when the traced programs will use the emulated GPU.
 * The loader finds a library by its soname along LD_LIBRARY_PATH, so each
 * chosen library's directory of its own (lib/tdtrace/front/NAME/, made by
 * the build) goes there, after the shim's. */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "frontlibs.h"
#include "libsearch.h"

static const char *const dirs[] = {
#define FRONTLIB(name, soname, dir) #dir,
#include "frontlibs.def"
#undef FRONTLIB
};
/* Whether the traced programs will use the emulated GPU, as far as can be
 * told before they start; why, into why. The shim decides for itself in
 * the same way (src/shim/backend.c), except that with backend auto it
 * also asks a driver it finds whether it sees a device, which tdtrace
 * does not load: it takes a missing /dev/nvidiactl for "no device". */
static int emulating(const struct td_policy *p, const struct td_opts *o, const char *libdir,
                     const char **why)
{
    switch (td_policy_backend(p)) {
    case TD_BACKEND_EMULATE:
        *why = "backend emulate";
        return 1;
    case TD_BACKEND_DRIVER:
        *why = "backend driver";
        return 0;
    default:
        break;
    }
    char path[PATH_MAX];
    if (!(o->driver && *o->driver) && td_find_library("libcuda.so.1", libdir, path, sizeof path) != 0) {
        *why = "backend auto, no NVIDIA driver found";
        return 1;
    }
    if (access("/dev/nvidiactl", F_OK) != 0) {
        *why = "backend auto, no /dev/nvidiactl";
        return 1;
    }
    *why = "backend auto, an NVIDIA driver found";
    return 0;
}

static void where(char *buf, size_t n, const char *file, int line)
{
    if (line)
        snprintf(buf, n, "%s:%d", file, line);
    else
        snprintf(buf, n, "%s", file);
}

/* append " NAME" to the list in buf, or ", NAME" after the first */
static void list_add(char *buf, size_t n, const char *head, const char *name)
{
    size_t l = strlen(buf);
    if (l + 1 < n)
        snprintf(buf + l, n - l, "%s%s", l ? ", " : head, name);
}

void td_frontlibs_setup(const struct td_policy *p, const struct td_opts *o, const char *libdir,
                        char *path, size_t n, char *desc, size_t dn)
{
    const char *why;
    int emu = emulating(p, o, libdir, &why);
    char at[300], ours[256] = "", theirs[256] = "";
    size_t pl = 0;
    path[0] = 0;
    for (int l = 0; l < TD_FRONTLIB__COUNT; l++) {
        const char *file;
        int fline;
        int c = td_policy_library(p, l, &file, &fline);
        const char *name = td_policy_frontlib_name(l), *so = td_policy_frontlib_soname(l);
        int host = c == TD_LIBRARY_HOST || (c == TD_LIBRARY_AUTO && emu);
        if (c == TD_LIBRARY_HOST && !emu && strcmp(dirs[l], "host") == 0) {
            where(at, sizeof at, file, fline);
            die("%s: library %s=host needs the emulated GPU (%s): tdtrace's %s works on the "
                "emulated device memory; use --backend=emulate", at, name, why, so);
        }
        char dir[PATH_MAX], lib[PATH_MAX + 64];
        snprintf(dir, sizeof dir, "%s/front/%s", libdir, name);
        snprintf(lib, sizeof lib, "%s/%s", dir, so);
        if (host && access(lib, F_OK) != 0) {
            warn_msg("warning: library %s=host: tdtrace's %s was not built (its host back end was "
                     "missing when tdtrace was built: see docs/hostlib.md); the program gets NVIDIA's",
                     name, so);
            host = 0;
        }
        if (host) {
            size_t dl = strlen(dir);
            if (pl + dl + 2 > n)
                die("the library directories under %s do not fit the library path", libdir);
            if (pl)
                path[pl++] = ':';
            memcpy(path + pl, dir, dl + 1);
            pl += dl;
            list_add(ours, sizeof ours, "tdtrace's ", name);
        } else if (file) { /* NVIDIA's where a statement said so */
            list_add(theirs, sizeof theirs, "NVIDIA's ", name);
        }
    }
    snprintf(desc, dn, "%s%s%s%s", ours, *ours ? " in front of NVIDIA's" : "", *ours && *theirs ? "; " : "",
             theirs);
}
