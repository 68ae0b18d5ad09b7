/* SPDX-License-Identifier: Apache-2.0 */
/* dlopen of a bare name that only the calling library's DT_RUNPATH (or
 * DT_RPATH) finds, for tests/libtrace/run.sh. Built from this one file:
 * -DRP_B gives libB.so (rp_b), put in a directory sub/ that nothing else
 * names; -DRP_A gives libA.so, linked with RUNPATH (or RPATH)
 * $ORIGIN/sub, whose rp_a opens "libB.so" with dlopen; the program calls
 * rp_a, then opens "libB.so" itself (it has no path to sub/: the loader
 * must find the object rp_a loaded, by its soname). Under tdtrace
 * --runtime or -e lib= the dlopen is libtdruntime.so's, which must search
 * as ld.so would for libA.so. Prints "PASS" and exits 0 when all worked.
 * -DRP_HOSTILE gives a program that first makes libA's DT_RUNPATH (or
 * DT_RPATH) offset point far outside its string table, as a hostile
 * object could: the interposed dlopen must not read it (the open then
 * fails as the plain search's would), and the program prints "HOSTILE-OK".
 * (Run only under tdtrace: ld.so itself would read the bad offset.) */
#include <dlfcn.h>
#include <stdio.h>

#if defined(RP_B)
#ifndef RP_FACTOR
#define RP_FACTOR 3 /* another libB.so, in LD_LIBRARY_PATH, is built with 5 */
#endif
__attribute__((visibility("default"))) int rp_b(int x);
int rp_b(int x)
{
    return x * RP_FACTOR;
}
#elif defined(RP_A)
__attribute__((visibility("default"))) int rp_a(int x);
int rp_a(int x)
{
    void *h = dlopen("libB.so", RTLD_NOW);
    if (!h) {
        fprintf(stderr, "rp_a: dlopen libB.so: %s\n", dlerror());
        return -1;
    }
    int (*b)(int) = (int (*)(int))dlsym(h, "rp_b");
    return b ? b(x) + 1 : -1;
}
#elif defined(RP_HOSTILE)
#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>
int rp_a(int x);
int main(void)
{
    void *h = dlopen("libA.so", RTLD_NOW | RTLD_NOLOAD);
    struct link_map *lm = NULL;
    if (!h || dlinfo(h, RTLD_DI_LINKMAP, &lm) != 0 || !lm)
        return fprintf(stderr, "libA.so not loaded\n"), 1;
    long pg = sysconf(_SC_PAGESIZE);
    int n = 0;
    for (ElfW(Dyn) *d = lm->l_ld; d->d_tag != DT_NULL; d++)
        if (d->d_tag == DT_RUNPATH || d->d_tag == DT_RPATH) {
            uintptr_t p = (uintptr_t)d & ~(uintptr_t)(pg - 1);
            if (mprotect((void *)p, (size_t)pg * 2, PROT_READ | PROT_WRITE) != 0)
                return perror("mprotect"), 1;
            d->d_un.d_val = 0x7ffffff0;
            n++;
        }
    if (n != 1)
        return fprintf(stderr, "libA.so has %d RUNPATH/RPATH entries\n", n), 1;
    int r = rp_a(4);
    if (r != -1)
        return fprintf(stderr, "rp_a(4) = %d with a bad RUNPATH\n", r), 1;
    printf("HOSTILE-OK\n");
    return 0;
}
#else
int rp_a(int x);
int main(void)
{
    int r = rp_a(4);
    if (r != 13)
        return fprintf(stderr, "rp_a(4) = %d\n", r), 1;
    void *h = dlopen("libB.so", RTLD_NOW | RTLD_NOLOAD);
    void *h2 = dlopen("libB.so", RTLD_NOW);
    if (!h || h2 != h)
        return fprintf(stderr, "libB.so loaded by rp_a not found by its soname: %p %p\n", h, h2), 1;
    printf("PASS\n");
    return 0;
}
#endif
