/* SPDX-License-Identifier: Apache-2.0 */
/* tdtrace -e lib=PATTERN: which loaded libraries are traced (libmatch.h). */
#include "libmatch.h"

#include <elf.h>
#include <fnmatch.h>
#include <stdint.h>
#include <string.h>

const char *td_lib_soname(const struct dl_phdr_info *info)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        if (info->dlpi_phdr[i].p_type != PT_DYNAMIC)
            continue;
        const ElfW(Dyn) *d = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
        uintptr_t strtab = 0, soname = (uintptr_t)-1;
        for (; d->d_tag != DT_NULL; d++) {
            if (d->d_tag == DT_STRTAB)
                strtab = d->d_un.d_ptr;
            else if (d->d_tag == DT_SONAME)
                soname = d->d_un.d_val;
        }
        if (!strtab || soname == (uintptr_t)-1)
            return NULL;
        if (strtab < info->dlpi_addr) /* not relocated by the loader (the vdso) */
            strtab += info->dlpi_addr;
        return (const char *)(strtab + soname);
    }
    return NULL;
}

/* never traced: what the shim itself runs on, and tdtrace's own libraries */
static const char *const never[] = { "libc.so*", "ld-linux*", "ld64.so*", "libpthread.so*", "libdl.so*",
                                     "libm.so*", "librt.so*", "libgcc_s.so*", "libstdc++.so*", "libelf.so*",
                                     "libz.so*", "libzstd.so*", "libtd*", "libcuda.so*", "linux-vdso.so*",
                                     "libcudart.so*", NULL };

int td_lib_match(const char *patterns, const char *path, const char *soname)
{
    if (!patterns || !*patterns || !path || !*path)
        return 0;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    for (int i = 0; never[i]; i++)
        if (fnmatch(never[i], base, 0) == 0 || (soname && fnmatch(never[i], soname, 0) == 0))
            return 0;
    char pat[512];
    for (const char *p = patterns; *p;) {
        size_t n = strcspn(p, ":");
        if (n && n < sizeof(pat)) {
            memcpy(pat, p, n);
            pat[n] = '\0';
            if (fnmatch(pat, base, 0) == 0 || (soname && fnmatch(pat, soname, 0) == 0))
                return 1;
        }
        p += n + (p[n] == ':');
    }
    return 0;
}
