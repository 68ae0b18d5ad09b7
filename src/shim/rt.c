/* SPDX-License-Identifier: Apache-2.0 */
/* tdtrace --runtime: the CUDA runtime's calls (src/api/cudart.api) traced
 * with the driver calls each one makes nested beneath it.
 *
 * The runtime is found where it is: linked statically into the executable
 * (nvcc's default; its functions are in the executable's .symtab) or the
 * shared libcudart.so.13 the loader mapped (.dynsym). In either, each
 * function of the table gets a jump at its entry to the shim's generated
 * wrapper (shim_rt_wrappers.c) through src/patch: the overwritten
 * instructions move to a trampoline (relocated with Zydis), which the
 * wrapper calls as the original. A function whose first instructions
 * cannot move is left alone, with a warning naming it and the reason; an
 * executable without a symbol table (stripped) whose runtime therefore
 * cannot be found gets one warning, and its driver calls are traced as
 * without --runtime.
 * The nesting of the calls is nest.c's. */
#include <dirent.h>
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../patch/elfsym.h"
#include "../patch/patch.h"
#include "shim.h"

/* ---- finding and patching the runtime ---------------------------------- */

int td_nthreads(void)
{
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

struct obj {
    char path[4096];
    uint64_t bias;
    int exe;
};
struct found {
    struct obj o[4];
    int n;
};

static int is_cudart(const char *path)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    return strncmp(b, "libcudart.so", 12) == 0;
}

static int each_obj(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct found *f = arg;
    if (f->n == (int)(sizeof(f->o) / sizeof(f->o[0])))
        return 1;
    const char *name = info->dlpi_name;
    int exe = f->n == 0 && (!name || !*name);
    if (!exe && (!name || !is_cudart(name)))
        return 0;
    struct obj *o = &f->o[f->n++];
    snprintf(o->path, sizeof(o->path), "%s", exe ? "/proc/self/exe" : name);
    o->bias = info->dlpi_addr;
    o->exe = exe;
    return 0;
}

static char warned[4096];
static size_t nwarned;

static void warn(const char *fmt, const char *a, const char *b)
{
    int n = snprintf(warned + nwarned, sizeof(warned) - nwarned, fmt, a, b);
    if (n > 0 && nwarned + (size_t)n < sizeof(warned) - 1) {
        nwarned += (size_t)n;
        warned[nwarned++] = '\n';
        warned[nwarned] = '\0';
    }
}

static char exe_name[256];

/* patch every function of the table that obj defines and no earlier one
 * did; the number patched */
static int patch_obj(struct td_patcher *pt, const struct obj *o, unsigned flags, int *stripped)
{
    struct td_elf *e;
    struct td_perr err;
    if (td_elf_open(o->path, o->bias, &e, &err) != 0) {
        warn("cannot read %s: %s", o->exe ? exe_name : o->path, err.msg);
        return 0;
    }
    if (o->exe)
        *stripped = td_elf_stripped(e);
    int n = 0;
    for (int fn = TD_FN__RT_FIRST; fn < TD_FN__LIB_FIRST; fn++) {
        int k = fn - TD_FN__RT_FIRST;
        if (td_rt_real[k])
            continue;
        struct td_elf_sym s;
        if (td_elf_find_func(e, td_fns[fn].name, &s, &err) != 0)
            continue; /* not linked in (the linker keeps what the program uses) */
        struct td_patch p;
        if (td_patch_prepare(pt, td_fns[fn].name, s.addr, s.size, (uint64_t)(uintptr_t)td_rt_wrappers[k], 0, &p,
                             &err) != 0) {
            warn("%s: not traced: %s", td_fns[fn].name, err.msg);
            continue;
        }
        td_rt_real[k] = (void *)(uintptr_t)p.original;
        if (td_patch_apply(pt, &p, flags, &err) != 0) {
            warn("%s: not traced: %s", td_fns[fn].name, err.msg);
            td_rt_real[k] = NULL;
            continue;
        }
        n++;
    }
    td_elf_close(e);
    return n;
}

/* a stripped executable nvcc built: its sections still hold the device
 * code (section headers survive strip) */
static int has_cuda_code(const char *path)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    Elf64_Ehdr eh;
    int found = 0;
    if (fread(&eh, sizeof(eh), 1, f) == 1 && memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
        eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_shentsize == sizeof(Elf64_Shdr) && eh.e_shnum < 4096 &&
        eh.e_shstrndx < eh.e_shnum) {
        Elf64_Shdr sh[4096 / 8];
        size_t n = eh.e_shnum < sizeof(sh) / sizeof(sh[0]) ? eh.e_shnum : sizeof(sh) / sizeof(sh[0]);
        if (eh.e_shstrndx < n && fseek(f, (long)eh.e_shoff, SEEK_SET) == 0 && fread(sh, sizeof(sh[0]), n, f) == n) {
            const Elf64_Shdr *ss = &sh[eh.e_shstrndx];
            size_t sl = ss->sh_size < 65536 ? ss->sh_size : 65536;
            char *names = malloc(sl + 1);
            if (names && fseek(f, (long)ss->sh_offset, SEEK_SET) == 0 && fread(names, 1, sl, f) == sl) {
                names[sl] = '\0';
                for (size_t i = 0; i < n && !found; i++)
                    if (sh[i].sh_name < sl && (strcmp(names + sh[i].sh_name, ".nv_fatbin") == 0 ||
                                               strcmp(names + sh[i].sh_name, ".nvFatBinSegment") == 0))
                        found = 1;
            }
            free(names);
        }
    }
    fclose(f);
    return found;
}

static int started;

const char *td_rt_start(void)
{
    if (started || !td_shim_ctl || !(td_shim_ctl->flags & TD_RING_RUNTIME))
        return NULL;
    started = 1;
    ssize_t l = readlink("/proc/self/exe", exe_name, sizeof(exe_name) - 1);
    exe_name[l > 0 ? l : 0] = '\0';
    struct found f = { .n = 0 };
    dl_iterate_phdr(each_obj, &f);
    struct td_patcher *pt = td_patcher_new(&td_patch_mem_self);
    if (!pt)
        return NULL;
    /* alone in the process (the preloaded start): plain writes in any
     * order; else the write protocol that running threads survive */
    unsigned flags = td_nthreads() == 1 ? TD_PATCH_STOPPED : 0;
    int patched = 0, stripped = 0, cudart = 0;
    for (int i = 0; i < f.n; i++) {
        cudart |= !f.o[i].exe;
        patched += patch_obj(pt, &f.o[i], flags, &stripped);
    }
    td_patcher_free(pt);
    if (!patched && stripped && !cudart && has_cuda_code("/proc/self/exe"))
        warn("%s is stripped: the CUDA runtime linked into it cannot be found (no symbol table); "
             "tracing its driver calls only%s",
             exe_name, "");
    return nwarned ? warned : NULL;
}
