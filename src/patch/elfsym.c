/* SPDX-License-Identifier: Apache-2.0 */
/* ELF resolution with libelf (see elfsym.h). The file is read with
 * ELF_C_READ (pread as needed, no mapping that a truncated file could turn
 * into SIGBUS), and every value from it is checked before use. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfsym.h"
#include "internal.h"

#ifndef R_X86_64_GLOB_DAT
#define R_X86_64_GLOB_DAT 6
#define R_X86_64_JUMP_SLOT 7
#endif
#define VERSYM_HIDDEN 0x8000

struct seg {
    uint64_t vaddr, memsz, offset, filesz;
    uint32_t flags;
};

struct fsym {
    const char *name;
    uint64_t value, size;
    unsigned char bind, type, dynamic, hidden;
};

struct td_elf {
    Elf *elf;
    int fd;
    char *image; /* td_elf_open_mem's copy */
    uint64_t bias;
    struct seg *segs;
    size_t nsegs;
    struct fsym *funcs; /* sorted by name, then value */
    size_t nfuncs;
    int has_symtab;
    size_t dynsym_ndx;  /* section index, 0 if none */
    Elf_Data *dynsym;
    size_t ndynsym;
    size_t dynstr_ndx;
    struct { uint64_t lo, hi; } plt[4];
    size_t nplt;
};

static pthread_once_t version_once = PTHREAD_ONCE_INIT;
static void version_init(void)
{
    elf_version(EV_CURRENT);
}

static int elf_fail(struct td_perr *err, const char *what)
{
    const char *m = elf_errmsg(-1);
    return td_perr_set(err, TD_PE_ELF, 0, "%s: %s", what, m ? m : "corrupt ELF file");
}

static const char *machine_name(unsigned m)
{
    switch (m) {
    case EM_386: return "i386";
    case EM_AARCH64: return "aarch64";
    case EM_ARM: return "arm";
    case EM_PPC64: return "ppc64";
    case EM_RISCV: return "riscv";
    case EM_S390: return "s390";
    default: return "unknown";
    }
}

/* the executable segment that holds [v, v + len), NULL if none */
static const struct seg *seg_for(const struct td_elf *e, uint64_t v, uint64_t len, uint32_t need)
{
    for (size_t i = 0; i < e->nsegs; i++) {
        const struct seg *s = &e->segs[i];
        if ((s->flags & need) == need && v >= s->vaddr && v - s->vaddr <= s->memsz &&
            len <= s->memsz - (v - s->vaddr))
            return s;
    }
    return NULL;
}

static int load_segments(struct td_elf *e, struct td_perr *err)
{
    size_t n;
    if (elf_getphdrnum(e->elf, &n) != 0)
        return elf_fail(err, "program headers");
    e->segs = calloc(n ? n : 1, sizeof *e->segs);
    if (!e->segs)
        return td_perr_set(err, TD_PE_NOMEM, ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(e->elf, (int)i, &ph))
            return elf_fail(err, "program header");
        if (ph.p_type != PT_LOAD)
            continue;
        uint64_t end;
        if (__builtin_add_overflow(ph.p_vaddr, ph.p_memsz, &end) ||
            __builtin_add_overflow(ph.p_offset, ph.p_filesz, &end))
            return td_perr_set(err, TD_PE_ELF, 0, "a PT_LOAD segment wraps around");
        e->segs[e->nsegs++] = (struct seg){ ph.p_vaddr, ph.p_memsz, ph.p_offset, ph.p_filesz, ph.p_flags };
    }
    if (e->nsegs == 0)
        return td_perr_set(err, TD_PE_ELF, 0, "no PT_LOAD segment: not a loadable object");
    return 0;
}

/* the symbol section's data and count; NULL if unusable */
static Elf_Data *sym_data(Elf_Scn *scn, const GElf_Shdr *sh, size_t *count)
{
    Elf_Data *d = elf_getdata(scn, NULL);
    if (!d || d->d_type != ELF_T_SYM || !d->d_buf || sh->sh_entsize != sizeof(Elf64_Sym))
        return NULL;
    *count = d->d_size / sizeof(Elf64_Sym);
    return d;
}

static int add_funcs(struct td_elf *e, Elf_Data *d, size_t count, size_t strndx, Elf_Data *versym,
                     int dynamic, size_t *cap, struct td_perr *err)
{
    for (size_t i = 1; i < count; i++) {
        GElf_Sym s;
        if (!gelf_getsym(d, (int)i, &s))
            break;
        unsigned type = GELF_ST_TYPE(s.st_info);
        if ((type != STT_FUNC && type != STT_GNU_IFUNC) || s.st_shndx == SHN_UNDEF || s.st_shndx == SHN_ABS)
            continue;
        if (!seg_for(e, s.st_value, s.st_size ? s.st_size : 1, PF_X))
            continue;
        const char *name = elf_strptr(e->elf, strndx, s.st_name);
        if (!name || !*name)
            continue;
        unsigned char hidden = 0;
        if (versym) {
            GElf_Versym v;
            if (gelf_getversym(versym, (int)i, &v) && (v & VERSYM_HIDDEN))
                hidden = 1;
        }
        if (e->nfuncs == *cap) {
            size_t ncap = *cap ? *cap * 2 : 256;
            struct fsym *nf = realloc(e->funcs, ncap * sizeof *nf);
            if (!nf)
                return td_perr_set(err, TD_PE_NOMEM, ENOMEM, "out of memory");
            e->funcs = nf;
            *cap = ncap;
        }
        e->funcs[e->nfuncs++] = (struct fsym){ name, s.st_value, s.st_size, (unsigned char)GELF_ST_BIND(s.st_info),
                                               (unsigned char)type, (unsigned char)dynamic, hidden };
    }
    return 0;
}

static int fsym_cmp(const void *a, const void *b)
{
    const struct fsym *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (c)
        return c;
    return x->value < y->value ? -1 : x->value > y->value;
}

static int load_sections(struct td_elf *e, struct td_perr *err)
{
    size_t shnum, shstrndx;
    if (elf_getshdrnum(e->elf, &shnum) != 0 || elf_getshdrstrndx(e->elf, &shstrndx) != 0)
        return elf_fail(err, "section headers");
    if (shnum == 0)
        return td_perr_set(err, TD_PE_ELF, 0, "no section headers");
    Elf_Scn *symtab = NULL, *dynsym = NULL;
    GElf_Shdr symtab_sh = { 0 }, dynsym_sh = { 0 };
    for (Elf_Scn *scn = elf_nextscn(e->elf, NULL); scn; scn = elf_nextscn(e->elf, scn)) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh))
            return elf_fail(err, "section header");
        if (sh.sh_type == SHT_SYMTAB && !symtab) {
            symtab = scn;
            symtab_sh = sh;
        } else if (sh.sh_type == SHT_DYNSYM && !dynsym) {
            dynsym = scn;
            dynsym_sh = sh;
        } else if (sh.sh_type == SHT_PROGBITS && (sh.sh_flags & SHF_EXECINSTR) && e->nplt < 4) {
            const char *n = elf_strptr(e->elf, shstrndx, sh.sh_name);
            uint64_t hi;
            if (n && (!strcmp(n, ".plt") || !strcmp(n, ".plt.sec") || !strcmp(n, ".plt.got")) &&
                !__builtin_add_overflow(sh.sh_addr, sh.sh_size, &hi)) {
                e->plt[e->nplt].lo = sh.sh_addr;
                e->plt[e->nplt++].hi = hi;
            }
        }
    }
    size_t cap = 0;
    if (dynsym && dynsym_sh.sh_link > 0 && dynsym_sh.sh_link < shnum) {
        size_t n;
        Elf_Data *d = sym_data(dynsym, &dynsym_sh, &n);
        if (d) {
            Elf_Data *versym = NULL;
            size_t dndx = elf_ndxscn(dynsym);
            for (Elf_Scn *scn = elf_nextscn(e->elf, NULL); scn; scn = elf_nextscn(e->elf, scn)) {
                GElf_Shdr sh;
                if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_GNU_versym && sh.sh_link == dndx) {
                    Elf_Data *vd = elf_getdata(scn, NULL);
                    if (vd && vd->d_type == ELF_T_HALF && vd->d_buf && vd->d_size / sizeof(GElf_Versym) == n)
                        versym = vd;
                    break;
                }
            }
            e->dynsym_ndx = dndx;
            e->dynsym = d;
            e->ndynsym = n;
            e->dynstr_ndx = dynsym_sh.sh_link;
            int rc = add_funcs(e, d, n, dynsym_sh.sh_link, versym, 1, &cap, err);
            if (rc)
                return rc;
        }
    }
    if (symtab && symtab_sh.sh_link > 0 && symtab_sh.sh_link < shnum) {
        size_t n;
        Elf_Data *d = sym_data(symtab, &symtab_sh, &n);
        if (d) {
            e->has_symtab = 1;
            int rc = add_funcs(e, d, n, symtab_sh.sh_link, NULL, 0, &cap, err);
            if (rc)
                return rc;
        }
    }
    if (e->nfuncs)
        qsort(e->funcs, e->nfuncs, sizeof *e->funcs, fsym_cmp);
    return 0;
}

static int finish_open(struct td_elf *e, uint64_t bias, const char *what, struct td_elf **out, struct td_perr *err)
{
    int rc;
    e->bias = bias;
    if (!e->elf) {
        rc = elf_fail(err, what);
        goto fail;
    }
    if (elf_kind(e->elf) != ELF_K_ELF) {
        rc = td_perr_set(err, TD_PE_ELF, 0, "%s: not an ELF file", what);
        goto fail;
    }
    GElf_Ehdr eh;
    if (!gelf_getehdr(e->elf, &eh)) {
        rc = elf_fail(err, what);
        goto fail;
    }
    if (eh.e_machine != EM_X86_64) {
        rc = td_perr_set(err, TD_PE_ARCH, 0, "%s: machine %u (%s): only x86-64 is supported", what,
                         (unsigned)eh.e_machine, machine_name(eh.e_machine));
        goto fail;
    }
    if (gelf_getclass(e->elf) != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB) {
        rc = td_perr_set(err, TD_PE_ELF, 0, "%s: not a 64-bit little-endian ELF file", what);
        goto fail;
    }
    if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) {
        rc = td_perr_set(err, TD_PE_ELF, 0, "%s: ELF type %u is neither an executable nor a shared object", what,
                         (unsigned)eh.e_type);
        goto fail;
    }
    if ((rc = load_segments(e, err)) != 0 || (rc = load_sections(e, err)) != 0)
        goto fail;
    *out = e;
    return 0;
fail:
    td_elf_close(e);
    return rc;
}

int td_elf_open(const char *path, uint64_t bias, struct td_elf **out, struct td_perr *err)
{
    *out = NULL;
    pthread_once(&version_once, version_init);
    struct td_elf *e = calloc(1, sizeof *e);
    if (!e)
        return td_perr_set(err, TD_PE_NOMEM, ENOMEM, "out of memory");
    /* O_NONBLOCK: a FIFO put where a library was must not block us */
    e->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    struct stat st;
    int en = 0;
    if (e->fd < 0 || fstat(e->fd, &st) != 0)
        en = errno;
    else if (!S_ISREG(st.st_mode))
        en = EINVAL;
    if (en) {
        td_elf_close(e);
        return td_perr_set(err, TD_PE_ELF, en, "%s: %s", path, en == EINVAL ? "not a regular file" : strerror(en));
    }
    e->elf = elf_begin(e->fd, ELF_C_READ, NULL);
    return finish_open(e, bias, path, out, err);
}

int td_elf_open_mem(const void *data, size_t len, uint64_t bias, struct td_elf **out, struct td_perr *err)
{
    *out = NULL;
    pthread_once(&version_once, version_init);
    struct td_elf *e = calloc(1, sizeof *e);
    if (!e)
        return td_perr_set(err, TD_PE_NOMEM, ENOMEM, "out of memory");
    e->fd = -1;
    e->image = malloc(len ? len : 1);
    if (!e->image) {
        td_elf_close(e);
        return td_perr_set(err, TD_PE_NOMEM, ENOMEM, "out of memory");
    }
    if (len)
        memcpy(e->image, data, len);
    e->elf = elf_memory(e->image, len);
    return finish_open(e, bias, "ELF image", out, err);
}

void td_elf_close(struct td_elf *e)
{
    if (!e)
        return;
    if (e->elf)
        elf_end(e->elf);
    if (e->fd >= 0)
        close(e->fd);
    free(e->image);
    free(e->segs);
    free(e->funcs);
    free(e);
}

void td_elf_set_bias(struct td_elf *e, uint64_t bias)
{
    e->bias = bias;
}

int td_elf_bias_for_mapping(const struct td_elf *e, uint64_t start, uint64_t offset, uint64_t *bias,
                            struct td_perr *err)
{
    long page = sysconf(_SC_PAGESIZE);
    uint64_t pmask = (uint64_t)(page > 0 ? page : 4096) - 1;
    for (size_t i = 0; i < e->nsegs; i++) {
        const struct seg *s = &e->segs[i];
        if (offset >= (s->offset & ~pmask) && offset - (s->offset & ~pmask) < s->filesz + (s->offset & pmask) &&
            ((s->vaddr - s->offset) & pmask) == 0) {
            /* the address the file would give the byte at `offset` */
            uint64_t v = s->vaddr - s->offset + offset;
            *bias = start - v;
            return 0;
        }
    }
    return td_perr_set(err, TD_PE_NOTFOUND, 0, "no PT_LOAD segment maps file offset 0x%llx",
                       (unsigned long long)offset);
}

int td_elf_stripped(const struct td_elf *e)
{
    return !e->has_symtab;
}

static struct td_elf_sym to_sym(const struct td_elf *e, const struct fsym *f, int dynamic)
{
    return (struct td_elf_sym){ f->name, f->value + e->bias, f->size, f->bind, f->type, (unsigned char)dynamic };
}

static int is_global(const struct fsym *f)
{
    return f->bind == STB_GLOBAL || f->bind == STB_WEAK || f->bind == STB_GNU_UNIQUE;
}

/* choose among the entries [lo, hi) of one name (sorted by value): the
 * index, or -1 when only locals at several addresses have it */
static long choose(const struct td_elf *e, size_t lo, size_t hi, int *dynamic, size_t *nlocal)
{
    long best = -1;
    int rank = -1;
    size_t locals = 0;
    for (size_t i = lo; i < hi; i++) {
        const struct fsym *f = &e->funcs[i];
        /* exported default version > .symtab global > other exported version > local */
        int r = !is_global(f) ? 0 : !f->dynamic ? 2 : f->hidden ? 1 : 3;
        if (r == 0 && (locals == 0 || f->value != e->funcs[i - 1].value))
            locals++;
        if (r > rank) {
            rank = r;
            best = (long)i;
        }
    }
    *nlocal = locals;
    if (rank == 0 && locals > 1)
        return -1;
    *dynamic = 0;
    for (size_t i = lo; i < hi; i++)
        if (e->funcs[i].dynamic && e->funcs[i].value == e->funcs[best].value)
            *dynamic = 1;
    return best;
}

int td_elf_find_func(const struct td_elf *e, const char *name, struct td_elf_sym *out, struct td_perr *err)
{
    size_t lo = 0, hi = e->nfuncs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(e->funcs[mid].name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t end = lo;
    while (end < e->nfuncs && strcmp(e->funcs[end].name, name) == 0)
        end++;
    if (end == lo)
        return td_perr_set(err, TD_PE_NOTFOUND, 0, "no function %s%s", name,
                           e->has_symtab ? "" : " (the file has no .symtab: only exported functions are known)");
    int dynamic;
    size_t nlocal;
    long i = choose(e, lo, end, &dynamic, &nlocal);
    if (i < 0)
        return td_perr_set(err, TD_PE_AMBIGUOUS, 0, "%zu local functions named %s at different addresses", nlocal,
                           name);
    *out = to_sym(e, &e->funcs[i], dynamic);
    return 0;
}

int td_elf_foreach_func(const struct td_elf *e, int (*cb)(const struct td_elf_sym *s, void *arg), void *arg)
{
    for (size_t lo = 0; lo < e->nfuncs;) {
        size_t end = lo + 1;
        while (end < e->nfuncs && strcmp(e->funcs[end].name, e->funcs[lo].name) == 0)
            end++;
        int dynamic;
        size_t nlocal;
        long i = choose(e, lo, end, &dynamic, &nlocal);
        if (i >= 0) {
            struct td_elf_sym s = to_sym(e, &e->funcs[i], dynamic);
            int rc = cb(&s, arg);
            if (rc)
                return rc;
        } else {
            for (size_t k = lo; k < end; k++) {
                if (k > lo && e->funcs[k].value == e->funcs[k - 1].value)
                    continue;
                struct td_elf_sym s = to_sym(e, &e->funcs[k], 0);
                int rc = cb(&s, arg);
                if (rc)
                    return rc;
            }
        }
        lo = end;
    }
    return 0;
}

int td_elf_got_slots(const struct td_elf *e, int (*match)(const char *name, void *arg), void *arg,
                     struct td_elf_slot **out, size_t *n, struct td_perr *err)
{
    *out = NULL;
    *n = 0;
    if (!e->dynsym)
        return 0;
    size_t cap = 0;
    for (Elf_Scn *scn = elf_nextscn(e->elf, NULL); scn; scn = elf_nextscn(e->elf, scn)) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || sh.sh_link != e->dynsym_ndx)
            continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        if (!d || d->d_type != ELF_T_RELA || !d->d_buf)
            continue;
        size_t count = d->d_size / sizeof(Elf64_Rela);
        for (size_t i = 0; i < count; i++) {
            GElf_Rela r;
            if (!gelf_getrela(d, (int)i, &r))
                break;
            unsigned type = (unsigned)GELF_R_TYPE(r.r_info);
            size_t si = GELF_R_SYM(r.r_info);
            if ((type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) || si == 0 || si >= e->ndynsym)
                continue;
            if ((r.r_offset & 7) != 0 || !seg_for(e, r.r_offset, 8, PF_W))
                continue;
            GElf_Sym s;
            if (!gelf_getsym(e->dynsym, (int)si, &s))
                continue;
            const char *name = elf_strptr(e->elf, e->dynstr_ndx, s.st_name);
            if (!name || !*name || (match && !match(name, arg)))
                continue;
            if (*n == cap) {
                size_t ncap = cap ? cap * 2 : 16;
                struct td_elf_slot *ns = realloc(*out, ncap * sizeof *ns);
                if (!ns) {
                    free(*out);
                    *out = NULL;
                    *n = 0;
                    return td_perr_set(err, TD_PE_NOMEM, ENOMEM, "out of memory");
                }
                *out = ns;
                cap = ncap;
            }
            (*out)[(*n)++] = (struct td_elf_slot){ name, r.r_offset + e->bias, type, s.st_shndx != SHN_UNDEF };
        }
    }
    return 0;
}

int td_elf_in_plt(const struct td_elf *e, uint64_t addr)
{
    uint64_t v = addr - e->bias;
    for (size_t i = 0; i < e->nplt; i++)
        if (v >= e->plt[i].lo && v < e->plt[i].hi)
            return 1;
    return 0;
}
