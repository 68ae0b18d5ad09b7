/* SPDX-License-Identifier: Apache-2.0 */
/* What the two libraries of the layer share (jit.h): NVIDIA's library
 * behind them, the log line, and building the image handed out. */
#include "jit.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fatwrite.h"
#include "libsearch.h"

/* ---- the log ----------------------------------------------------------- */

static pthread_once_t log_once = PTHREAD_ONCE_INIT;
static int log_on;

static void log_init(void)
{
    const char *v = getenv("TDTRACE_JIT_LOG");
    log_on = v && *v && strcmp(v, "0") != 0;
}

int td_jit_logging(void)
{
    pthread_once(&log_once, log_init);
    return log_on;
}

void td_jit_say(const char *fmt, ...)
{
    /* one write, so lines of several threads do not mix */
    char line[1024] = "tdtrace-jit: ";
    size_t n = strlen(line);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - n - 1, fmt, ap);
    va_end(ap);
    n = strlen(line);
    line[n++] = '\n';
    fwrite(line, 1, n, stderr);
}

/* ---- NVIDIA's library -------------------------------------------------- */

/* The directory holding this library's file: its files are never taken
 * for NVIDIA's. The file, not the name it was loaded by: tdtrace loads it
 * through a link in a directory of its own (lib/tdtrace/front/NAME/). */
static void own_dir(char *buf, size_t len)
{
    Dl_info info;
    char real[PATH_MAX];
    buf[0] = 0;
    if (dladdr((void *)&td_jit_real, &info) && info.dli_fname) {
        snprintf(buf, len, "%s", realpath(info.dli_fname, real) ? real : info.dli_fname);
        char *slash = strrchr(buf, '/');
        if (slash)
            *slash = 0;
        else
            snprintf(buf, len, ".");
    }
}

/* Each library of the layer carries this note: another copy of the layer
 * found where NVIDIA's library should be (two tdtrace trees on the library
 * path) is refused, for it would call back into this one. */
#define NOTE_TYPE 0x7464726au
struct layer_note {
    uint32_t namesz, descsz, type;
    char name[8];
    uint32_t desc;
};
__attribute__((section(".note.tdtrace"), used, aligned(4)))
static const struct layer_note note = { 8, 4, NOTE_TYPE, "tdtrace", 1 };

struct note_query {
    const char *path;
    int found;
};

static int find_note(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct note_query *q = arg;
    if (!info->dlpi_name || strcmp(info->dlpi_name, q->path) != 0)
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
        const unsigned char *end = p + ph->p_memsz;
        while (end - p >= 12) {
            uint32_t nn, dn, type;
            memcpy(&nn, p, 4);
            memcpy(&dn, p + 4, 4);
            memcpy(&type, p + 8, 4);
            size_t adv = 12 + ((nn + 3u) & ~3u) + ((dn + 3u) & ~3u);
            if (adv > (size_t)(end - p))
                break;
            if (type == NOTE_TYPE && nn == 8 && memcmp(p + 12, "tdtrace", 8) == 0)
                q->found = 1;
            p += adv;
        }
    }
    return 1;
}

static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;

static void open_lib(struct td_jit_lib *lib)
{
    char dir[PATH_MAX];
    own_dir(dir, sizeof dir);
    if (td_find_library(lib->soname, dir, lib->path, sizeof lib->path) != 0) {
        td_jit_say("%s: NVIDIA's library was not found (searched LD_LIBRARY_PATH, "
                   "/etc/ld.so.cache and the default directories, skipping %s): every call fails",
                   lib->soname, dir[0] ? dir : "tdtrace's own directory");
        return;
    }
    lib->handle = dlopen(lib->path, RTLD_NOW | RTLD_LOCAL);
    if (!lib->handle) {
        td_jit_say("%s: NVIDIA's library %s did not load: %s: every call fails", lib->soname,
                   lib->path, dlerror());
        return;
    }
    struct note_query q = { lib->path, 0 };
    dl_iterate_phdr(find_note, &q);
    if (q.found) {
        td_jit_say("%s: %s is another copy of tdtrace's layer, not NVIDIA's library: every call "
                   "fails", lib->soname, lib->path);
        dlclose(lib->handle);
        lib->handle = NULL;
    }
}

/* a function looked for and not found */
static char absent;

void *td_jit_real(struct td_jit_lib *lib, int id)
{
    if (id < 0 || id >= lib->nfns)
        return NULL;
    void *f = atomic_load_explicit(&lib->fns[id], memory_order_acquire);
    if (!f) {
        pthread_mutex_lock(&open_lock);
        if (!lib->tried) {
            lib->tried = 1;
            open_lib(lib);
        }
        f = atomic_load_explicit(&lib->fns[id], memory_order_relaxed);
        if (!f && lib->handle) {
            f = dlsym(lib->handle, lib->names[id]);
            if (!f) {
                td_jit_say("%s is not in %s: the call fails", lib->names[id], lib->path);
                f = &absent;
            }
            atomic_store_explicit(&lib->fns[id], f, memory_order_release);
        }
        pthread_mutex_unlock(&open_lock);
    }
    return f == &absent ? NULL : f;
}

/* ---- the substitution -------------------------------------------------- */

/* nvcc 13's fatbinary gives ELF entries of sm_100 and later a longer
 * header with a per-architecture record whose content is not documented:
 * such machine code is left out (a real driver would compile the PTX) */
#define ELF_LAYOUT_KNOWN_BELOW 100

int td_jit_substitute(const char *what, const void *elf, size_t len, const char *ptx,
                      size_t ptxlen, const char *why, unsigned char **out, size_t *outlen)
{
    unsigned arch = 0;
    int rel = 0;
    *out = NULL;
    *outlen = 0;
    struct td_fat_entry e[2];
    memset(e, 0, sizeof e);
    int elf_ok = td_cubin_facts(elf, len, &arch, &rel) == 0;
    if (!ptx)
        why = why ? why : "there is no PTX";
    else if (!elf_ok)
        why = "it is not a CUDA ELF file";
    else if (rel)
        why = "it is relocatable (-rdc): it goes to a linker, which takes a cubin";
    else if (td_ptx_facts(ptx, ptxlen, &e[0]) != 0)
        why = "its PTX has no .version and .target";
    else
        why = NULL;
    if (why) {
        if (td_jit_logging())
            td_jit_say("%s: machine code (%zu bytes%s%u) handed out unchanged: %s", what, len,
                       arch ? ", sm_" : "", arch, why);
        return 0;
    }
    e[0].kind = TD_FAT_PTX;
    e[0].data = ptx;
    e[0].size = ptxlen;
    int n = 1;
    if (arch < ELF_LAYOUT_KNOWN_BELOW) {
        /* the machine code first, as nvcc orders them */
        e[1] = e[0];
        e[0] = (struct td_fat_entry){ .kind = TD_FAT_ELF, .arch = arch, .variant = e[1].variant,
                                      .data = elf, .size = len };
        n = 2;
    }
    unsigned char *fat = td_fatbin_write(e, n, outlen);
    if (!fat)
        return -1;
    *out = fat;
    if (td_jit_logging())
        td_jit_say("%s: machine code (%zu bytes, sm_%u) handed out as a fatbinary (%zu bytes) "
                   "holding its PTX (%zu bytes, .target sm_%u%s)%s",
                   what, len, arch, *outlen, ptxlen, e[n - 1].arch,
                   e[n - 1].variant == TD_FAT_ARCH_SPECIFIC     ? "a"
                   : e[n - 1].variant == TD_FAT_FAMILY_SPECIFIC ? "f"
                                                                : "",
                   n == 2 ? " and the machine code" : ", without the machine code (sm_100 and later)");
    return 0;
}
