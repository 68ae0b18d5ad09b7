/* SPDX-License-Identifier: Apache-2.0 */
/* The PTX JIT's cache of compiled kernels on disk (docs/ptx-jit.md).
 *
 * Where: $TDTRACE_EMU_CACHE ("off": no cache), else $XDG_CACHE_HOME/tdtrace,
 * else ~/.cache/tdtrace; made 0700; refused (the report says so, kernels
 * compile as without a cache) when it is a symbolic link, not ours, or
 * writable by group or others. At most $TDTRACE_EMU_CACHE_MAX bytes
 * (256 MiB by default): the entries used least recently go first.
 *
 * An entry, KEY.tdk: a header (magic, format, the key again, the length
 * and SHA-256 of the rest), what jit_run.c needs besides the code (the
 * barriers, the global accesses), the references the code reads (jitc_ref)
 * and the native object. The key is the SHA-256 of everything that makes
 * the code: the kernel's checked form, the code version (JIT_CODE_VERSION)
 * and the build of this library (its ELF build id), LLVM's version, the
 * target's triple, CPU and features. Entries are written to a fresh file
 * (O_EXCL) and renamed: readers see whole entries or none; an entry that
 * does not check out is ignored and written again. */
#include "jit_cache.h"
#undef L /* exec.h's lane macro: the API table is named so here */

#include "sha256.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define JITC_MAGIC "TDJITC\n"
#define JITC_FORMAT 1u
#define JITC_MAX_DEFAULT (256ull << 20)
#define JITC_MAX_ENTRY (64ull << 20)     /* larger files are not entries */
#define JITC_TMP_AGE 3600                /* temporary files older than this (s) are litter */

struct hdr {
    char magic[8];
    uint32_t format, hdrsize;
    unsigned char key[32];
    unsigned char sum[32];               /* SHA-256 of the payload */
    uint64_t paylen;
    uint32_t nbars, ngc, sregs_filled, nrefs;
    uint64_t objlen;
};
/* the payload: barid[nbars] (padded to 4 bytes), barpc[nbars] (int32, from
 * the function's start), refs[nrefs], the object */
struct ref { int32_t kind, arg; };
enum { R_MEM, R_POLL, R_EXEC, R_TRAP, R_INS, R_HANDLER, R_COUNT };

/* ---- the directory ---------------------------------------------------------- */
static pthread_once_t dir_once = PTHREAD_ONCE_INIT;
static int dfd = -1;
static unsigned long long max_bytes = JITC_MAX_DEFAULT;
static char note[400];
static int note_given;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void refuse(const char *dir, const char *why)
{
    snprintf(note, sizeof note, "the JIT's cache %s is not used: %s; kernels compile in each process", dir, why);
}

/* "256M", "1G", "65536": bytes, or -1 */
static long long parse_size(const char *s)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *s == '-') return -1;
    unsigned sh = 0;
    switch (*end) {
    case 'k': case 'K': sh = 10; end++; break;
    case 'm': case 'M': sh = 20; end++; break;
    case 'g': case 'G': sh = 30; end++; break;
    default: break;
    }
    if (sh && (*end == 'i' || *end == 'I') && (end[1] == 'b' || end[1] == 'B')) end += 2;
    if (*end || v > (1ull << 50) >> sh) return -1;
    return (long long)(v << sh);
}

static void open_dir(void)
{
    char path[4096];
    const char *env = secure_getenv("TDTRACE_EMU_CACHE");
    const char *mx = secure_getenv("TDTRACE_EMU_CACHE_MAX");
    if (env && !strcmp(env, "off")) return;
    if (mx && *mx) {
        long long v = parse_size(mx);
        if (v < 0) {
            snprintf(note, sizeof note, "TDTRACE_EMU_CACHE_MAX=%.64s is not a size (bytes, or with K, M or G): "
                     "the JIT's cache holds at most 256 MiB", mx);
        } else {
            max_bytes = (unsigned long long)v;
        }
    }
    if (env && *env) {
        snprintf(path, sizeof path, "%s", env);
    } else {
        const char *xdg = secure_getenv("XDG_CACHE_HOME"), *home = secure_getenv("HOME");
        if (xdg && *xdg == '/') {
            snprintf(path, sizeof path, "%s/tdtrace", xdg);
        } else if (home && *home == '/') {
            snprintf(path, sizeof path, "%s/.cache", home);
            if (mkdir(path, 0700) && errno != EEXIST) { refuse(path, strerror(errno)); return; }
            snprintf(path, sizeof path, "%s/.cache/tdtrace", home);
        } else {
            refuse("(none)", "neither TDTRACE_EMU_CACHE, XDG_CACHE_HOME nor HOME names a directory");
            return;
        }
    }
    if (mkdir(path, 0700) && errno != EEXIST) { refuse(path, strerror(errno)); return; }
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        refuse(path, errno == ELOOP || errno == ENOTDIR ? "it is a symbolic link or not a directory" : strerror(errno));
        return;
    }
    struct stat st;
    char why[96];
    if (fstat(fd, &st)) {
        refuse(path, strerror(errno));
    } else if (!S_ISDIR(st.st_mode)) {
        refuse(path, "not a directory");
    } else if (st.st_uid != geteuid()) {
        snprintf(why, sizeof why, "it belongs to uid %u, not to us (uid %u)", (unsigned)st.st_uid, (unsigned)geteuid());
        refuse(path, why);
    } else if (st.st_mode & 022) {
        snprintf(why, sizeof why, "others can write to it (mode %04o)", (unsigned)(st.st_mode & 07777));
        refuse(path, why);
    } else {
        dfd = fd;
        return;
    }
    close(fd);
}

/* ---- the key ----------------------------------------------------------------- */
static unsigned char build_id[64];
static size_t build_id_len;

static int find_build_id(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    uintptr_t me = (uintptr_t)arg;
    int mine = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && me >= info->dlpi_addr + ph->p_vaddr && me < info->dlpi_addr + ph->p_vaddr + ph->p_memsz)
            mine = 1;
    }
    if (!mine) return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE) continue;
        const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr), *e = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= e) {
            const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)(const void *)p;
            size_t nsz = (n->n_namesz + 3u) & ~3u, dsz = (n->n_descsz + 3u) & ~3u;
            const unsigned char *desc = p + sizeof *n + nsz;
            if (desc + dsz > e) break;
            if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && !memcmp(p + sizeof *n, "GNU", 4) &&
                n->n_descsz <= sizeof build_id) {
                memcpy(build_id, desc, n->n_descsz);
                build_id_len = n->n_descsz;
                return 1;
            }
            p = desc + dsz;
        }
    }
    return 1;
}

/* the target's description: the triple, the host CPU and its features (as
 * the target machine is made) */
static void *tm, *tm0;           /* the default code generator, and -O0's (light) */
static char *cpu, *features;
static const char *tm_why;

static int target(const struct llvm_api *L)
{
    if (tm && tm0) return 0;
    if (tm_why) return -1;
    const char *triple = L->LLVMOrcLLJITGetTripleString(L->jit);
    void *t = NULL;
    char *msg = NULL;
    if (L->LLVMGetTargetFromTriple(triple, &t, &msg) || !t) {
        L->LLVMDisposeMessage(msg);
        tm_why = "LLVM has no target for this host";
        return -1;
    }
    cpu = L->LLVMGetHostCPUName();
    features = L->LLVMGetHostCPUFeatures();
    /* as LLJIT makes its own: the default optimisation, relocation model
     * and the JIT's code model */
    tm = L->LLVMCreateTargetMachine(t, triple, cpu ? cpu : "", features ? features : "", 2 /* Default */,
                                    0 /* RelocDefault */, 1 /* CodeModelJITDefault */);
    /* big kernels' (jit_light): the selector and register allocator whose
     * time grows with the size */
    tm0 = L->LLVMCreateTargetMachine(t, triple, cpu ? cpu : "", features ? features : "", 0 /* None */,
                                     0 /* RelocDefault */, 1 /* CodeModelJITDefault */);
    if (!tm || !tm0) { tm_why = "LLVM could not make a target machine"; return -1; }
    return 0;
}

static void hash_i64(struct sha256 *s, int64_t v) { sha256_update(s, &v, sizeof v); }
static void hash_str(struct sha256 *s, const char *p)
{
    if (!p) p = "";
    hash_i64(s, (int64_t)strlen(p));
    sha256_update(s, p, strlen(p));
}

/* ---- one compile ---------------------------------------------------------------- */
static struct cur {
    int on;                              /* the cache serves this kernel */
    unsigned char key[32];
    char name[80];                       /* KEY.tdk */
    char sym[80];
    const struct ptx_module *m;
    const struct ir_func *F;
    const ex_fn *h;
    const struct jit_helpers *hp;
    int nref, capref;
    struct ref *ref;
    const void **refp;                   /* by reference: the address it stands for */
    void **gv;                           /* and its global */
    unsigned char *obj;                  /* the object code (a copy) */
    size_t objlen;
    void *rt;
    double t0;
} cur;

/* the resource trackers of code this process holds: for the figures, and
 * so that one kernel's symbols are defined once */
static struct live { void *rt; unsigned char key[32]; int keyed; size_t bytes; } *live;
static int nlive, caplive;
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static struct jitc_stats stats;

static int key_live(const unsigned char *key)
{
    for (int i = 0; i < nlive; i++)
        if (live[i].keyed && !memcmp(live[i].key, key, 32)) return 1;
    return 0;
}

static void add_live(void *rt, size_t bytes)
{
    int keyed = !strncmp(cur.sym, "tdk_", 4);
    pthread_mutex_lock(&stats_lock);
    if (nlive == caplive) {
        int nc = caplive ? caplive * 2 : 16;
        struct live *nl = realloc(live, sizeof *nl * (size_t)nc);
        if (!nl) { pthread_mutex_unlock(&stats_lock); return; }
        live = nl;
        caplive = nc;
    }
    live[nlive].rt = rt;
    live[nlive].keyed = keyed;
    memcpy(live[nlive].key, cur.key, 32);
    live[nlive++].bytes = bytes;
    stats.code_bytes += bytes;
    if (stats.code_bytes > stats.code_peak) stats.code_peak = stats.code_bytes;
    pthread_mutex_unlock(&stats_lock);
}

void jitc_forget(void *rt)
{
    pthread_mutex_lock(&stats_lock);
    for (int i = 0; i < nlive; i++)
        if (live[i].rt == rt) {
            stats.code_bytes -= live[i].bytes;
            live[i] = live[--nlive];
            break;
        }
    pthread_mutex_unlock(&stats_lock);
}

void jitc_stats(struct jitc_stats *s)
{
    pthread_mutex_lock(&stats_lock);
    *s = stats;
    pthread_mutex_unlock(&stats_lock);
}

int jitc_note(char *buf, size_t n)
{
    pthread_once(&dir_once, open_dir);
    pthread_mutex_lock(&stats_lock);
    int r = note[0] && !note_given;
    if (r) snprintf(buf, n, "%s", note);
    note_given = 1;
    pthread_mutex_unlock(&stats_lock);
    return r;
}

static void cur_free(void)
{
    free(cur.ref);
    free(cur.refp);
    free(cur.gv);
    free(cur.obj);
    memset(&cur, 0, sizeof cur);
}

int jitc_begin(const struct llvm_api *L, const struct ptx_module *m, int entry, const ex_fn *h,
               const struct jit_helpers *hp, char *sym, size_t n)
{
    cur_free();
    cur.t0 = now_ms();
    cur.m = m;
    cur.F = &m->funcs[entry];
    cur.h = h;
    cur.hp = hp;
    pthread_once(&dir_once, open_dir);
    if (dfd < 0 || target(L)) {
        jit_llvm_symbol(sym, n);
        snprintf(cur.sym, sizeof cur.sym, "%s", sym);
        return 0;
    }
    if (!build_id_len) dl_iterate_phdr(find_build_id, (void *)(uintptr_t)&find_build_id);
    const struct ir_func *F = cur.F;
    struct sha256 s;
    sha256_init(&s);
    hash_str(&s, "tdtrace PTX JIT cache");
    hash_i64(&s, JITC_FORMAT);
    hash_i64(&s, JIT_CODE_VERSION);
    hash_i64(&s, (int64_t)build_id_len);
    sha256_update(&s, build_id, build_id_len);
    hash_str(&s, TD_VERSION);
    hash_i64(&s, (int64_t)sizeof(struct ir_ins));
    hash_i64(&s, (int64_t)sizeof(struct jit_ctx));
    unsigned v[3] = { 0, 0, 0 };
    L->LLVMGetVersion(&v[0], &v[1], &v[2]);
    for (int i = 0; i < 3; i++) hash_i64(&s, v[i]);
    hash_str(&s, L->LLVMOrcLLJITGetTripleString(L->jit));
    hash_str(&s, cpu);
    hash_str(&s, features);
    hash_str(&s, L->LLVMOrcLLJITGetDataLayoutStr(L->jit));
    /* the kernel's checked form: the function, its instructions (their
     * spelling too), which have a per-lane handler, its constants */
    const int64_t fv[] = { entry, F->is_entry, F->start, F->end, F->nslots, F->cstart, F->cend, F->param_bytes,
                           F->local_bytes, F->fparam_bytes, F->shared_bytes, F->nparams };
    for (size_t i = 0; i < sizeof fv / sizeof *fv; i++) hash_i64(&s, fv[i]);
    for (int i = 0; i < F->nparams && F->params; i++) {
        hash_i64(&s, F->params[i].offset); hash_i64(&s, F->params[i].size); hash_i64(&s, F->params[i].align);
    }
    for (int i = F->start; i < F->end; i++) {
        const struct ir_ins *in = &m->ins[i];
        const int64_t iv[] = { in->op, in->type, in->type2, in->sub, in->sub2, in->space, in->vec, in->flags,
                               in->gneg, in->guard, in->d, in->d2, in->a, in->b, in->c, in->e, in->vr[0],
                               in->vr[1], in->vr[2], in->vr[3], in->imm, in->line, in->fn, h[i] != NULL };
        sha256_update(&s, iv, sizeof iv);
        hash_str(&s, in->name >= 0 && m->strings && (size_t)in->name < m->nstrings ? m->strings + in->name : "");
    }
    for (int k = F->cstart; k < F->cend; k++) {
        const int64_t cv[] = { m->consts[k].slot, m->consts[k].kind, m->consts[k].val };
        sha256_update(&s, cv, sizeof cv);
    }
    sha256_final(&s, cur.key);
    char hex[65];
    for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", cur.key[i]);
    snprintf(cur.name, sizeof cur.name, "%s.tdk", hex);
    pthread_mutex_lock(&stats_lock);
    int twice = key_live(cur.key);
    pthread_mutex_unlock(&stats_lock);
    if (twice) { /* the same kernel in another module: its symbols are taken */
        jit_llvm_symbol(sym, n);
        snprintf(cur.sym, sizeof cur.sym, "%s", sym);
        return 0;
    }
    snprintf(cur.sym, sizeof cur.sym, "tdk_%.40s", hex); /* 160 bits of the key: one per kernel */
    if (strlen(cur.sym) >= n) {
        jit_llvm_symbol(sym, n);
        snprintf(cur.sym, sizeof cur.sym, "%s", sym);
        return 0;
    }
    snprintf(sym, n, "%s", cur.sym);
    cur.on = 1;
    return 1;
}

/* ---- references -------------------------------------------------------------- */
void *jitc_ref(const struct llvm_api *L, void *ctx, void *mod, void *b, const void *p)
{
    void *ptr = L->LLVMPointerTypeInContext(ctx, 0), *i8 = L->LLVMIntTypeInContext(ctx, 8),
         *i64 = L->LLVMIntTypeInContext(ctx, 64);
    const struct jit_helpers *hp = cur.hp;
    const struct ptx_module *m = cur.m;
    struct ref r = { -1, 0 };
    const void *base = p;
    uint64_t off = 0;
    const unsigned char *ip = p, *i0 = (const unsigned char *)m->ins;
    if (p == (const void *)(uintptr_t)hp->mem) r.kind = R_MEM;
    else if (p == (const void *)(uintptr_t)hp->poll) r.kind = R_POLL;
    else if (p == (const void *)(uintptr_t)hp->exec) r.kind = R_EXEC;
    else if (p == (const void *)(uintptr_t)hp->trap) r.kind = R_TRAP;
    else if (ip >= i0 && ip < i0 + sizeof *m->ins * (size_t)m->nins) {
        r.kind = R_INS;
        base = m->ins;
        off = (uint64_t)(ip - i0);
    } else {
        for (int i = cur.F->start; i < cur.F->end; i++)
            if (cur.h[i] && (const void *)(uintptr_t)cur.h[i] == p) { r.kind = R_HANDLER; r.arg = i - cur.F->start; break; }
    }
    if (r.kind < 0) { /* an address the cache cannot name: as a constant, and no cache */
        cur.on = 0;
        return L->LLVMBuildIntToPtr(b, L->LLVMConstInt(i64, (uint64_t)(uintptr_t)p, 0), ptr, "");
    }
    int j = 0;
    while (j < cur.nref && cur.refp[j] != base) j++;
    if (j == cur.nref) {
        if (cur.nref == cur.capref) {
            int nc = cur.capref ? cur.capref * 2 : 16;
            struct ref *nr = realloc(cur.ref, sizeof *nr * (size_t)nc);
            if (nr) cur.ref = nr;
            const void **np = realloc(cur.refp, sizeof *np * (size_t)nc);
            if (np) cur.refp = np;
            void **ng = realloc(cur.gv, sizeof *ng * (size_t)nc);
            if (ng) cur.gv = ng;
            if (!nr || !np || !ng) { /* out of memory: the address itself, no cache */
                cur.on = 0;
                return L->LLVMBuildIntToPtr(b, L->LLVMConstInt(i64, (uint64_t)(uintptr_t)p, 0), ptr, "");
            }
            cur.capref = nc;
        }
        char name[100];
        snprintf(name, sizeof name, "%s.r%d", cur.sym, j);
        void *gv = L->LLVMAddGlobal(mod, ptr, name);
        L->LLVMSetInitializer(gv, L->LLVMConstNull(ptr));
        cur.ref[j] = r;
        cur.refp[j] = base;
        cur.gv[j] = gv;
        cur.nref++;
    }
    void *v = L->LLVMBuildLoad2(b, ptr, cur.gv[j], "");
    if (r.kind == R_INS) {
        void *idx = L->LLVMConstInt(i64, off, 0);
        v = L->LLVMBuildGEP2(b, i8, v, &idx, 1, "");
    }
    return v;
}

/* the value reference r stands for in this process */
static const void *ref_value(const struct ref *r)
{
    switch (r->kind) {
    case R_MEM: return (const void *)(uintptr_t)cur.hp->mem;
    case R_POLL: return (const void *)(uintptr_t)cur.hp->poll;
    case R_EXEC: return (const void *)(uintptr_t)cur.hp->exec;
    case R_TRAP: return (const void *)(uintptr_t)cur.hp->trap;
    case R_INS: return cur.m->ins;
    case R_HANDLER:
        if (r->arg < 0 || r->arg >= cur.F->end - cur.F->start) return NULL;
        return (const void *)(uintptr_t)cur.h[cur.F->start + r->arg];
    default: return NULL;
    }
}

static void llvm_why(const struct llvm_api *L, void *err, const char *what, char *why, size_t n)
{
    char *msg = L->LLVMGetErrorMessage(err);
    snprintf(why, n, "LLVM %s: %s", what, msg ? msg : "?");
    L->LLVMDisposeErrorMessage(msg);
}

/* the address of symbol name in the JIT, or 0 */
static uint64_t lookup(const struct llvm_api *L, const char *name, char *why, size_t n)
{
    char full[120];
    char pfx = L->LLVMOrcLLJITGetGlobalPrefix(L->jit);
    snprintf(full, sizeof full, "%s%s", pfx ? (char[]){ pfx, 0 } : "", name);
    uint64_t addr = 0;
    void *err = L->LLVMOrcLLJITLookup(L->jit, &addr, full);
    if (err) { llvm_why(L, err, "could not link the code", why, n); return 0; }
    if (!addr) snprintf(why, n, "LLVM: no address for %s", name);
    return addr;
}

/* the references refs[0, nref) of the code just linked, filled */
static int bind_refs(const struct llvm_api *L, const struct ref *refs, int nref, char *why, size_t n)
{
    for (int j = 0; j < nref; j++) {
        char name[100];
        snprintf(name, sizeof name, "%s.r%d", cur.sym, j);
        const void *v = ref_value(&refs[j]);
        uint64_t a = v ? lookup(L, name, why, n) : 0;
        if (!a) {
            if (!v) snprintf(why, n, "internal error: reference %d of the code names nothing", j);
            return -1;
        }
        *(const void **)(uintptr_t)a = v;
    }
    return 0;
}

int jitc_bind(const struct llvm_api *L, char *why, size_t n)
{
    return bind_refs(L, cur.ref, cur.nref, why, n);
}

/* ---- native code ------------------------------------------------------------- */
void *jitc_target(const struct llvm_api *L)
{
    return target(L) ? NULL : tm;
}

int jitc_add(const struct llvm_api *L, void *mod, void *rt, int light, char *why, size_t n)
{
    if (target(L)) {
        L->LLVMDisposeModule(mod);
        snprintf(why, n, "%s", tm_why);
        return -1;
    }
    char *msg = NULL;
    void *buf = NULL;
    int bad = L->LLVMTargetMachineEmitToMemoryBuffer(light ? tm0 : tm, mod, 1 /* LLVMObjectFile */, &msg, &buf);
    L->LLVMDisposeModule(mod);
    if (bad || !buf) {
        snprintf(why, n, "LLVM could not generate code: %.200s", msg ? msg : "?");
        L->LLVMDisposeMessage(msg);
        return -1;
    }
    size_t len = L->LLVMGetBufferSize(buf);
    if (cur.on && (cur.obj = malloc(len ? len : 1))) {
        memcpy(cur.obj, L->LLVMGetBufferStart(buf), len);
        cur.objlen = len;
    } else {
        cur.on = 0;
    }
    void *err = L->LLVMOrcLLJITAddObjectFileWithRT(L->jit, rt, buf); /* takes buf */
    if (err) { llvm_why(L, err, "could not add the code", why, n); return -1; }
    cur.rt = rt;
    add_live(rt, len);
    return 0;
}

/* ---- entries ----------------------------------------------------------------- */
static size_t pad4(size_t n) { return (n + 3) & ~(size_t)3; }

static int read_all(int fd, unsigned char *p, size_t n)
{
    while (n) {
        ssize_t r = read(fd, p, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        p += r; n -= (size_t)r;
    }
    return 0;
}

static int write_all(int fd, const unsigned char *p, size_t n)
{
    while (n) {
        ssize_t r = write(fd, p, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        p += r; n -= (size_t)r;
    }
    return 0;
}

/* the entry's file, checked: its bytes (malloc'd) or NULL */
static unsigned char *read_entry(size_t *len)
{
    int fd = openat(dfd, cur.name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return NULL;
    struct stat st;
    unsigned char *p = NULL;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() || st.st_size < (off_t)sizeof(struct hdr) ||
        (unsigned long long)st.st_size > JITC_MAX_ENTRY)
        goto out;
    *len = (size_t)st.st_size;
    if (!(p = malloc(*len)) || read_all(fd, p, *len)) { free(p); p = NULL; goto out; }
    futimens(fd, NULL); /* used now: the last to go */
out:
    close(fd);
    return p;
}

int jitc_load(const struct llvm_api *L, struct jit_kernel *k)
{
    if (!cur.on) return 0;
    size_t len = 0;
    unsigned char *p = read_entry(&len);
    if (!p) return 0;
    struct hdr h;
    memcpy(&h, p, sizeof h);
    const struct ir_func *F = cur.F;
    uint32_t nins = (uint32_t)(F->end - F->start);
    unsigned char sum[32];
    const unsigned char *pay = p + sizeof h;
    if (memcmp(h.magic, JITC_MAGIC, 8) || h.format != JITC_FORMAT || h.hdrsize != sizeof h ||
        memcmp(h.key, cur.key, 32) || h.paylen != len - sizeof h || h.nbars > nins || h.ngc > 4 * nins + 4 ||
        h.sregs_filled > 1 || h.nrefs > nins + R_COUNT || h.objlen > JITC_MAX_ENTRY ||
        h.paylen != pad4(h.nbars) + 4ull * h.nbars + sizeof(struct ref) * h.nrefs + h.objlen || !h.objlen)
        goto bad;
    sha256(pay, (size_t)h.paylen, sum);
    if (memcmp(sum, h.sum, 32)) goto bad;
    uint8_t *barid = malloc(h.nbars + 1u);
    int *barpc = malloc(sizeof *barpc * (h.nbars + 1u));
    struct ref *refs = malloc(sizeof *refs * (h.nrefs + 1u));
    if (!barid || !barpc || !refs) { free(barid); free(barpc); free(refs); goto miss; }
    memcpy(barid, pay, h.nbars);
    const unsigned char *q = pay + pad4(h.nbars);
    int ok = 1, nwstops = 0;
    for (uint32_t i = 0; i < h.nbars; i++) { /* each resume point: a bar, or a warp rendezvous */
        int32_t pc;
        memcpy(&pc, q + 4 * i, 4);
        if (pc < 0 || (uint32_t)pc >= nins) ok = 0;
        else if (barid[i] == JIT_WSTOP) nwstops++;
        else if (cur.m->ins[F->start + pc].op != OP_BAR) ok = 0;
        barpc[i] = F->start + pc;
    }
    q += 4ull * h.nbars;
    memcpy(refs, q, sizeof *refs * h.nrefs);
    q += sizeof *refs * h.nrefs;
    for (uint32_t i = 0; i < h.nrefs; i++)
        if (refs[i].kind < 0 || refs[i].kind >= R_COUNT || !ref_value(&refs[i])) ok = 0;
    if (!ok) { free(barid); free(barpc); free(refs); goto bad; }
    /* the code into the JIT */
    void *buf = L->LLVMCreateMemoryBufferWithMemoryRangeCopy((const char *)q, (size_t)h.objlen, cur.sym);
    void *rt = L->LLVMOrcJITDylibCreateResourceTracker(L->jd);
    void *err = L->LLVMOrcLLJITAddObjectFileWithRT(L->jit, rt, buf);
    char why[256];
    uint64_t addr = 0;
    if (err) {
        L->LLVMDisposeErrorMessage(L->LLVMGetErrorMessage(err));
        L->LLVMOrcReleaseResourceTracker(rt);
        free(barid); free(barpc); free(refs);
        goto bad;
    }
    if (!(addr = lookup(L, cur.sym, why, sizeof why)) || bind_refs(L, refs, (int)h.nrefs, why, sizeof why)) {
        void *e2 = L->LLVMOrcResourceTrackerRemove(rt);
        if (e2) L->LLVMDisposeErrorMessage(L->LLVMGetErrorMessage(e2));
        L->LLVMOrcReleaseResourceTracker(rt);
        free(barid); free(barpc); free(refs);
        goto bad;
    }
    free(refs);
    k->fn = (jit_fn)(uintptr_t)addr;
    k->rt = rt;
    k->nbars = (int)h.nbars;
    k->nwstops = nwstops;
    k->ngc = (int)h.ngc;
    k->sregs_filled = (int)h.sregs_filled;
    k->barid = barid;
    k->barpc = barpc;
    k->from_cache = 1;
    k->state = 1;
    k->why[0] = 0;
    cur.rt = rt;
    add_live(rt, (size_t)h.objlen);
    free(p);
    return 1;
bad:
    unlinkat(dfd, cur.name, 0); /* compiled again and replaced */
miss:
    free(p);
    return 0;
}

/* the cache back under its size: entries used least recently go first,
 * with temporary files left by processes that died */
struct ent { time_t t; long ns; off_t size; char name[80]; };
static int by_age(const void *a, const void *b)
{
    const struct ent *x = a, *y = b;
    if (x->t != y->t) return x->t < y->t ? -1 : 1;
    return x->ns < y->ns ? -1 : x->ns > y->ns;
}

static void evict(void)
{
    int fd = dup(dfd);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) { if (fd >= 0) close(fd); return; }
    rewinddir(d);
    struct ent *e = NULL;
    size_t n = 0, cap = 0;
    unsigned long long total = 0;
    time_t now = time(NULL);
    struct dirent *de;
    while ((de = readdir(d))) {
        struct stat st;
        size_t nl = strlen(de->d_name);
        int tmp = !strncmp(de->d_name, ".tmp-", 5);
        int entry = nl == 68 && !strcmp(de->d_name + 64, ".tdk");
        if ((!tmp && !entry) || nl >= sizeof e->name) continue;
        if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode)) continue;
        if (tmp) {
            if (now - st.st_mtime > JITC_TMP_AGE) unlinkat(dfd, de->d_name, 0);
            continue;
        }
        if (n == cap) {
            size_t nc = cap ? cap * 2 : 64;
            struct ent *ne = realloc(e, sizeof *ne * nc);
            if (!ne) break;
            e = ne;
            cap = nc;
        }
        e[n].t = st.st_mtim.tv_sec;
        e[n].ns = st.st_mtim.tv_nsec;
        e[n].size = st.st_size;
        memcpy(e[n].name, de->d_name, nl + 1);
        total += (unsigned long long)st.st_size;
        n++;
    }
    closedir(d);
    if (total > max_bytes && e) {
        qsort(e, n, sizeof *e, by_age);
        for (size_t i = 0; i < n && total > max_bytes; i++)
            if (!unlinkat(dfd, e[i].name, 0) || errno == ENOENT) total -= (unsigned long long)e[i].size;
    }
    free(e);
}

static void store(const struct jit_kernel *k)
{
    const struct ir_func *F = cur.F;
    struct hdr h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, JITC_MAGIC, 8);
    h.format = JITC_FORMAT;
    h.hdrsize = sizeof h;
    memcpy(h.key, cur.key, 32);
    h.nbars = (uint32_t)k->nbars;
    h.ngc = (uint32_t)k->ngc;
    h.sregs_filled = (uint32_t)!!k->sregs_filled;
    h.nrefs = (uint32_t)cur.nref;
    h.objlen = cur.objlen;
    h.paylen = pad4(h.nbars) + 4ull * h.nbars + sizeof(struct ref) * h.nrefs + h.objlen;
    if (sizeof h + h.paylen > JITC_MAX_ENTRY || sizeof h + h.paylen > max_bytes) return;
    unsigned char *p = calloc(1, sizeof h + h.paylen);
    if (!p) return;
    unsigned char *q = p + sizeof h;
    if (h.nbars) memcpy(q, k->barid, h.nbars);
    q += pad4(h.nbars);
    for (uint32_t i = 0; i < h.nbars; i++) {
        int32_t pc = k->barpc[i] - F->start;
        memcpy(q + 4 * i, &pc, 4);
    }
    q += 4ull * h.nbars;
    if (h.nrefs) memcpy(q, cur.ref, sizeof(struct ref) * h.nrefs); /* no references: no array */
    q += sizeof(struct ref) * h.nrefs;
    memcpy(q, cur.obj, cur.objlen);
    sha256(p + sizeof h, (size_t)h.paylen, h.sum);
    memcpy(p, &h, sizeof h);
    static unsigned long serial;
    char tmp[96];
    unsigned r = (unsigned)now_ms() ^ (unsigned)(uintptr_t)p;
    snprintf(tmp, sizeof tmp, ".tmp-%ld-%lu-%08x", (long)getpid(), __atomic_add_fetch(&serial, 1, __ATOMIC_RELAXED), r);
    int fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) {
        int bad = write_all(fd, p, sizeof h + h.paylen);
        if (close(fd)) bad = 1;
        if (bad || renameat(dfd, tmp, dfd, cur.name)) unlinkat(dfd, tmp, 0);
        else evict();
    }
    free(p);
}

void jitc_end(const struct jit_kernel *k)
{
    double ms = now_ms() - cur.t0;
    if (k->state == 1 && cur.on && !k->from_cache && cur.obj) store(k);
    pthread_mutex_lock(&stats_lock);
    if (k->state == 1 && k->from_cache) { stats.loaded++; stats.load_ms += ms; }
    else if (k->state == 1) { stats.compiled++; stats.compile_ms += ms; }
    pthread_mutex_unlock(&stats_lock);
    cur_free();
}
