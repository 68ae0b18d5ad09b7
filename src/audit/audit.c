/* SPDX-License-Identifier: Apache-2.0 */
/* The loader-audit library (LD_AUDIT): programs that load libcuda.so.1 by
 * absolute path (Triton, JAX) or find it through DT_RPATH/DT_RUNPATH
 * (PyTorch's bundled libraries) never search LD_LIBRARY_PATH, so the
 * loader asks us first: every request for libcuda.so.1 or libcuda.so is
 * answered with tdtrace's shim. Two loads pass unchanged: tdtrace's own
 * libraries, and the shim's load of the real driver, which goes through
 * /proc/self/fd/N.
 *
 * It needs no libc (on x86-64): an audit library gets a namespace of its
 * own, and a libc there is a second copy the loader maps and relocates at
 * the start of every traced program. It reads TDTRACE_LIBDIR from
 * /proc/self/environ with raw system calls. */
#include <link.h>
#include <stdint.h>

#define EXPORT __attribute__((visibility("default")))
#define PATHMAX 4096

static char shim[PATHMAX];
static char libdir[PATHMAX];
static unsigned long libdir_len;

EXPORT unsigned int la_version(unsigned int version);
EXPORT char *la_objsearch(const char *name, uintptr_t *cookie, unsigned int flag);

static unsigned long len_of(const char *s)
{
    unsigned long n = 0;
    while (s[n])
        n++;
    return n;
}

static int same(const char *a, const char *b)
{
    while (*a && *a == *b)
        a++, b++;
    return *a == *b;
}

static int starts(const char *s, const char *prefix, unsigned long n)
{
    for (unsigned long i = 0; i < n; i++)
        if (s[i] != prefix[i])
            return 0;
    return 1;
}

#if defined(__x86_64__)
static long sys3(long nr, long a, long b, long c)
{
    long r;
    __asm__ volatile("syscall" : "=a"(r) : "a"(nr), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
    return r;
}

/* the value of TDTRACE_LIBDIR in the environment the program started with */
static void read_libdir(void)
{
    static const char key[] = "TDTRACE_LIBDIR=";
    const unsigned long klen = sizeof(key) - 1;
    long fd = sys3(2 /* open */, (long)"/proc/self/environ", 0 /* O_RDONLY */, 0);
    if (fd < 0)
        return;
    char buf[4096];
    unsigned long pos = 0; /* position in the current entry */
    int state = 0;         /* 0 matching the key, 1 copying the value, 2 skipping */
    unsigned long out = 0;
    for (;;) {
        long n = sys3(0 /* read */, fd, (long)buf, sizeof(buf));
        if (n <= 0)
            break;
        for (long i = 0; i < n; i++) {
            char c = buf[i];
            if (c == '\0') {
                if (state == 1)
                    goto done;
                state = 0;
                pos = 0;
                continue;
            }
            if (state == 0) {
                if (c != key[pos])
                    state = 2;
                else if (++pos == klen)
                    state = 1;
            } else if (state == 1) {
                if (out + 1 >= sizeof(libdir)) {
                    out = 0; /* too long: not ours */
                    goto done;
                }
                libdir[out++] = c;
            }
        }
    }
done:
    libdir[out] = '\0';
    sys3(3 /* close */, fd, 0, 0);
}
#else
#include <stdlib.h>
#include <string.h>

static void read_libdir(void)
{
    const char *d = getenv("TDTRACE_LIBDIR");
    if (d && strlen(d) < sizeof(libdir))
        strcpy(libdir, d);
}
#endif

unsigned int la_version(unsigned int version)
{
    read_libdir();
    static const char tail[] = "/libcuda.so.1";
    libdir_len = len_of(libdir);
    if (libdir_len && libdir_len + sizeof(tail) <= sizeof(shim)) {
        for (unsigned long i = 0; i < libdir_len; i++)
            shim[i] = libdir[i];
        for (unsigned long i = 0; i < sizeof(tail); i++)
            shim[libdir_len + i] = tail[i];
    }
    return version < LAV_CURRENT ? version : LAV_CURRENT;
}

static int is_driver_name(const char *name)
{
    const char *base = name;
    for (const char *p = name; *p; p++)
        if (*p == '/')
            base = p + 1;
    return same(base, "libcuda.so.1") || same(base, "libcuda.so");
}

char *la_objsearch(const char *name, uintptr_t *cookie, unsigned int flag)
{
    (void)cookie;
    if (flag != LA_SER_ORIG || !shim[0] || !is_driver_name(name))
        return (char *)name;
    if (starts(name, "/proc/self/fd/", 14))
        return (char *)name;
    if (starts(name, libdir, libdir_len) && name[libdir_len] == '/')
        return (char *)name;
    return shim;
}
