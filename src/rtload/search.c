/* SPDX-License-Identifier: Apache-2.0 */
/* dlopen(NAME) as ld.so would run it for its caller. libtdruntime.so
 * interposes dlopen (rtload.c), so ld.so takes libtdruntime.so for the
 * object that called it and searches a bare name (no '/') without the
 * caller's DT_RUNPATH or DT_RPATH. Here the caller is found from the
 * return address (dladdr1 with its link map), and glibc's order
 * (elf/dl-load.c, _dl_map_object; ld.so(8)) is followed:
 *   1. an object already loaded under that name or soname (dlopen with
 *      RTLD_NOLOAD: the loader's own check);
 *   2. the caller's DT_RPATH, when it has no DT_RUNPATH, then the
 *      executable's DT_RPATH (same condition);
 *   3. LD_LIBRARY_PATH (':' or ';' separated), unless the process is
 *      secure-execution (AT_SECURE);
 *   4. the caller's DT_RUNPATH;
 *   5. the plain dlopen: ld.so's cache and default directories.
 * In the paths, $ORIGIN (the caller's directory) and $PLATFORM
 * (AT_PLATFORM) are expanded, in both spellings ($X and ${X}); an entry
 * with $LIB, whose expansion is ld.so's build-time choice, is skipped;
 * an empty entry is the current directory, an empty list none. The first candidate that is an
 * ELF object of this process's class and machine is opened with the
 * caller's mode, and its result is the answer (as ld.so stops at the
 * first it can use); others are passed over. A secure-execution process
 * (AT_SECURE) gets the plain dlopen.
 * Everything read from the caller's dynamic section is checked against
 * its program headers (dl_iterate_phdr): the section must be its
 * PT_DYNAMIC, the string table and each string inside one of its PT_LOAD
 * segments and inside DT_STRSZ. A caller whose section does not check
 * out gets the plain dlopen. */
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "search.h"

#define MAX_DYN 4096   /* entries of a dynamic section read at most */

static void *(*real_dlopen)(const char *, int);

void *td_real_dlopen(const char *file, int mode)
{
    if (!real_dlopen)
        real_dlopen = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
    return real_dlopen ? real_dlopen(file, mode) : NULL;
}

/* path is an ELF object ld.so could load into this process */
static int usable(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ElfW(Ehdr) eh;
    int ok = read(fd, &eh, sizeof(eh)) == (ssize_t)sizeof(eh) && memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
             eh.e_ident[EI_CLASS] == (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) &&
#if defined(__x86_64__)
             eh.e_machine == EM_X86_64 &&
#elif defined(__aarch64__)
             eh.e_machine == EM_AARCH64 &&
#endif
             (eh.e_type == ET_DYN || eh.e_type == ET_EXEC);
    close(fd);
    return ok;
}

struct seg { uintptr_t lo, hi; };
struct objinfo {
    uintptr_t bias;
    const char *name;
    struct seg load[16];
    int nload;
    uintptr_t dyn_lo, dyn_hi;
    int found;
};

static int find_obj(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct objinfo *o = arg;
    if (info->dlpi_addr != o->bias)
        return 0;
    const char *n = info->dlpi_name ? info->dlpi_name : "";
    if (strcmp(n, o->name ? o->name : "") != 0)
        return 0;
    o->nload = 0;
    o->dyn_lo = o->dyn_hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (hi < lo)
            continue;
        if (ph->p_type == PT_LOAD && o->nload < (int)(sizeof(o->load) / sizeof(o->load[0]))) {
            o->load[o->nload].lo = lo;
            o->load[o->nload].hi = hi;
            o->nload++;
        } else if (ph->p_type == PT_DYNAMIC) {
            o->dyn_lo = lo;
            o->dyn_hi = hi;
        }
    }
    o->found = 1;
    return 1;
}

/* [p, p + n) lies in one of the object's loaded segments */
static int in_load(const struct objinfo *o, uintptr_t p, size_t n)
{
    for (int i = 0; i < o->nload; i++)
        if (p >= o->load[i].lo && p <= o->load[i].hi && n <= o->load[i].hi - p)
            return 1;
    return 0;
}

struct paths {
    const char *rpath, *runpath; /* in the object's string table; NULL if none */
};

/* the object's DT_RPATH and DT_RUNPATH, checked; 0, or -1 when its
 * dynamic section cannot be trusted */
static int read_paths(const struct link_map *lm, struct paths *out)
{
    out->rpath = out->runpath = NULL;
    struct objinfo o;
    memset(&o, 0, sizeof(o));
    o.bias = lm->l_addr;
    o.name = lm->l_name;
    dl_iterate_phdr(find_obj, &o);
    uintptr_t dyn = (uintptr_t)lm->l_ld;
    if (!o.found || !o.dyn_lo || dyn != o.dyn_lo || !in_load(&o, o.dyn_lo, o.dyn_hi - o.dyn_lo))
        return -1;
    size_t n = (o.dyn_hi - o.dyn_lo) / sizeof(ElfW(Dyn));
    if (n > MAX_DYN)
        n = MAX_DYN;
    const ElfW(Dyn) *d = (const ElfW(Dyn) *)dyn;
    uintptr_t strtab = 0;
    uint64_t strsz = 0, rp = 0, rn = 0;
    int has_rp = 0, has_rn = 0, has_strsz = 0, ended = 0;
    for (size_t i = 0; i < n; i++) {
        if (d[i].d_tag == DT_NULL) {
            ended = 1;
            break;
        }
        switch (d[i].d_tag) {
        case DT_STRTAB: strtab = (uintptr_t)d[i].d_un.d_ptr; break;
        case DT_STRSZ: strsz = d[i].d_un.d_val; has_strsz = 1; break;
        case DT_RPATH: rp = d[i].d_un.d_val; has_rp = 1; break;
        case DT_RUNPATH: rn = d[i].d_un.d_val; has_rn = 1; break;
        default: break;
        }
    }
    if (!ended || !has_strsz || !strtab)
        return -1;
    if (!has_rp && !has_rn)
        return 0;
    /* ld.so relocates DT_STRTAB in place on most architectures, not on all */
    if (!in_load(&o, strtab, strsz)) {
        strtab += lm->l_addr;
        if (!in_load(&o, strtab, strsz))
            return -1;
    }
    const char *tab = (const char *)strtab;
    if (strsz == 0 || tab[strsz - 1] != '\0')
        return -1;
    if ((has_rp && rp >= strsz) || (has_rn && rn >= strsz))
        return -1;
    out->rpath = has_rp ? tab + rp : NULL;
    out->runpath = has_rn ? tab + rn : NULL;
    return 0;
}

/* the directory of the object (for $ORIGIN): its name's, or the
 * executable's for the main program; 0 or -1 */
static int origin_of(const struct link_map *lm, char *buf, size_t n)
{
    if (lm->l_name && lm->l_name[0] == '/') {
        if (strlen(lm->l_name) >= n)
            return -1;
        strcpy(buf, lm->l_name);
    } else if (!lm->l_name || !lm->l_name[0]) {
        ssize_t l = readlink("/proc/self/exe", buf, n - 1);
        if (l <= 0)
            return -1;
        buf[l] = '\0';
    } else {
        return -1; /* a relative name: ld.so resolves it against a cwd that may have changed */
    }
    char *s = strrchr(buf, '/');
    if (s == buf)
        s[1] = '\0';
    else if (s)
        *s = '\0';
    return 0;
}

/* one entry of a path list (len bytes at e) with its dynamic string tokens
 * expanded into out; 0, or -1 when it is to be skipped */
static int expand(const char *e, size_t len, const char *origin, char *out, size_t n)
{
    size_t w = 0;
    if (len == 0) /* an empty entry: the current directory */
        e = ".", len = 1;
    for (size_t i = 0; i < len;) {
        const char *val = NULL;
        size_t skip = 0;
        if (e[i] == '$') {
            static const char *const toks[] = { "ORIGIN", "PLATFORM", "LIB" };
            for (size_t t = 0; t < 3 && !skip; t++) {
                size_t tl = strlen(toks[t]);
                if (i + 1 + tl <= len && strncmp(e + i + 1, toks[t], tl) == 0 &&
                    (i + 1 + tl == len || !(e[i + 1 + tl] == '_' || (e[i + 1 + tl] >= 'A' && e[i + 1 + tl] <= 'Z') ||
                                            (e[i + 1 + tl] >= 'a' && e[i + 1 + tl] <= 'z') ||
                                            (e[i + 1 + tl] >= '0' && e[i + 1 + tl] <= '9'))))
                    skip = 1 + tl;
                else if (i + 3 + tl <= len && e[i + 1] == '{' && strncmp(e + i + 2, toks[t], tl) == 0 &&
                         e[i + 2 + tl] == '}')
                    skip = 3 + tl;
                if (skip) {
                    if (t == 0)
                        val = origin;
                    else if (t == 1)
                        val = (const char *)getauxval(AT_PLATFORM);
                    if (!val)
                        return -1; /* $LIB, or no origin or platform known */
                }
            }
        }
        if (skip) {
            size_t vl = strlen(val);
            if (w + vl >= n)
                return -1;
            memcpy(out + w, val, vl);
            w += vl;
            i += skip;
        } else {
            if (w + 1 >= n)
                return -1;
            out[w++] = e[i++];
        }
    }
    out[w] = '\0';
    return 0;
}

/* each directory of list (separated by any of seps) tried for name */
static void *try_list(const char *list, const char *seps, const char *name, int mode, const char *origin,
                      int *done)
{
    if (!list || !*list) /* an empty list is none (an empty entry in one is ".") */
        return NULL;
    const char *s = list;
    for (;;) {
        size_t len = strcspn(s, seps);
        char dir[4096], path[4096];
        if (expand(s, len, origin, dir, sizeof(dir)) == 0 &&
            snprintf(path, sizeof(path), "%s/%s", dir, name) < (int)sizeof(path) && usable(path)) {
            *done = 1;
            return td_real_dlopen(path, mode);
        }
        if (!s[len])
            return NULL;
        s += len + 1;
    }
}

void *td_dlopen_as(const char *name, int mode, const void *caller)
{
    if (!name || strchr(name, '/') || (mode & RTLD_NOLOAD) || getauxval(AT_SECURE))
        return td_real_dlopen(name, mode);
    /* 1: loaded already under that name or soname */
    void *h = td_real_dlopen(name, mode | RTLD_NOLOAD);
    if (h)
        return h;
    Dl_info info;
    struct link_map *lm = NULL;
    if (!caller || !dladdr1(caller, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm)
        return td_real_dlopen(name, mode);
    struct paths cp;
    if (read_paths(lm, &cp) != 0 || (!cp.rpath && !cp.runpath))
        return td_real_dlopen(name, mode); /* what the plain search does for it */
    char origin[4096];
    const char *org = origin_of(lm, origin, sizeof(origin)) == 0 ? origin : NULL;
    int done = 0;
    /* 2: DT_RPATH of the caller and of the executable, without a DT_RUNPATH */
    if (!cp.runpath) {
        h = try_list(cp.rpath, ":", name, mode, org, &done);
        if (done)
            return h;
        struct link_map *exe = lm;
        while (exe->l_prev)
            exe = exe->l_prev;
        struct paths ep;
        char eorigin[4096];
        if (exe != lm && read_paths(exe, &ep) == 0 && ep.rpath) {
            h = try_list(ep.rpath, ":", name, mode, origin_of(exe, eorigin, sizeof(eorigin)) == 0 ? eorigin : NULL,
                         &done);
            if (done)
                return h;
        }
    }
    /* 3: LD_LIBRARY_PATH */
    h = try_list(getenv("LD_LIBRARY_PATH"), ":;", name, mode, org, &done);
    if (done)
        return h;
    /* 4: the caller's DT_RUNPATH */
    h = try_list(cp.runpath, ":", name, mode, org, &done);
    if (done)
        return h;
    /* 5: the cache and the default directories */
    return td_real_dlopen(name, mode);
}
