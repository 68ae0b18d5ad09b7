/* The loader-audit library (LD_AUDIT): programs that load libcuda.so.1 by
 * absolute path (Triton, JAX) or find it through DT_RPATH/DT_RUNPATH
 * (PyTorch's bundled libraries) never search LD_LIBRARY_PATH, so the
 * loader asks us first: every request for libcuda.so.1 or libcuda.so is
 * answered with tdtrace's shim. Two loads pass unchanged: tdtrace's own
 * libraries, and the shim's load of the real driver, which goes through
 * /proc/self/fd/N. */
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

static char shim[PATH_MAX];
static char libdir[PATH_MAX];

EXPORT unsigned int la_version(unsigned int version);
EXPORT char *la_objsearch(const char *name, uintptr_t *cookie, unsigned int flag);

unsigned int la_version(unsigned int version)
{
    const char *d = getenv("TDTRACE_LIBDIR");
    if (d && *d && strlen(d) + sizeof("/libcuda.so.1") < sizeof(shim)) {
        snprintf(libdir, sizeof(libdir), "%s", d);
        snprintf(shim, sizeof(shim), "%s/libcuda.so.1", d);
    }
    return version < LAV_CURRENT ? version : LAV_CURRENT;
}

static int is_driver_name(const char *name)
{
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    return strcmp(base, "libcuda.so.1") == 0 || strcmp(base, "libcuda.so") == 0;
}

char *la_objsearch(const char *name, uintptr_t *cookie, unsigned int flag)
{
    (void)cookie;
    if (flag != LA_SER_ORIG || !shim[0] || !is_driver_name(name))
        return (char *)name;
    if (strncmp(name, "/proc/self/fd/", 14) == 0)
        return (char *)name;
    size_t n = strlen(libdir);
    if (strncmp(name, libdir, n) == 0 && name[n] == '/')
        return (char *)name;
    return shim;
}
