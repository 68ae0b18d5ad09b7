/* SPDX-License-Identifier: Apache-2.0 */
/* The PTX JIT's cache on disk (src/ptx/jit_cache.c, docs/ptx-jit.md):
 * a kernel compiled in one process is loaded in the next, which runs it
 * to the same bytes (each process a fresh exec of this program, so its
 * addresses differ: the code names none); entries corrupt, cut short or
 * of another format are ignored and replaced; a directory that is a
 * symbolic link, not ours or writable by others is refused with a note;
 * several processes writing the same entry at once; the size limit
 * evicting the entry used least recently; "off".
 * The tests skip, saying so, where LLVM 16 is missing. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../src/ptx/ptx.h"
#include "sha256.h"

#define HDR ".version 9.0\n.target sm_75\n.address_size 64\n"
#define GRID 3
#define BLOCK 64
#define OUTB (GRID * BLOCK * 4)

/* a kernel with a barrier, a per-lane instruction (popc) and global
 * stores: variant v differs by a constant */
static void kernel_src(char *buf, size_t n, int v)
{
    if (v >= 100) { /* a warp-shuffle reduction (warp rendezvous: jit_warp.c) */
        snprintf(buf, n, HDR
            ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %%r<20>; .reg .b64 %%rd<8>;\n"
            " mov.u32 %%r1, %%tid.x;\n mad.lo.u32 %%r2, %%r1, %%r1, %d;\n"
            " shfl.sync.bfly.b32 %%r3, %%r2, 16, 31, -1;\n add.u32 %%r2, %%r2, %%r3;\n"
            " shfl.sync.bfly.b32 %%r3, %%r2, 8, 31, -1;\n add.u32 %%r2, %%r2, %%r3;\n"
            " shfl.sync.bfly.b32 %%r3, %%r2, 1, 31, -1;\n add.u32 %%r2, %%r2, %%r3;\n"
            " ld.param.u64 %%rd1, [out];\n mov.u32 %%r16, %%ctaid.x;\n mad.lo.u32 %%r17, %%r16, 64, %%r1;\n"
            " mul.wide.u32 %%rd2, %%r17, 4;\n add.s64 %%rd3, %%rd1, %%rd2;\n st.global.u32 [%%rd3], %%r2;\n ret;\n}\n", v);
        return;
    }
    snprintf(buf, n, HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %%r<20>; .reg .b64 %%rd<8>; .reg .pred %%p<8>;\n"
        " .shared .align 4 .b8 sh[256];\n"
        " mov.u32 %%r1, %%tid.x;\n mad.lo.u32 %%r2, %%r1, 3, %d;\n shl.b32 %%r3, %%r1, 2;\n mov.u32 %%r4, sh;\n"
        " add.u32 %%r5, %%r4, %%r3;\n st.shared.u32 [%%r5], %%r2;\n bar.sync 0;\n"
        " xor.b32 %%r6, %%r3, 4;\n add.u32 %%r7, %%r4, %%r6;\n ld.shared.u32 %%r8, [%%r7];\n"
        " popc.b32 %%r9, %%r8;\n mad.lo.u32 %%r10, %%r9, 1000, %%r8;\n"
        " ld.param.u64 %%rd1, [out];\n mov.u32 %%r16, %%ctaid.x;\n mad.lo.u32 %%r17, %%r16, 64, %%r1;\n"
        " mul.wide.u32 %%rd2, %%r17, 4;\n add.s64 %%rd3, %%rd1, %%rd2;\n st.global.u32 [%%rd3], %%r10;\n ret;\n}\n", v);
}

/* ---- the child: one process, one launch ------------------------------------------ */
struct res {
    int status, engine, from_cache;
    double ms;
    uintptr_t self;              /* an address of this process (ASLR) */
    char note[400], why[256];
    unsigned char out[OUTB];
};

static _Alignas(64) unsigned char arena[OUTB];

static int lookup(void *cookie, uint64_t addr, uint64_t *lo, uint64_t *hi)
{
    (void)cookie;
    uintptr_t b = (uintptr_t)arena;
    if (addr < b || addr >= b + sizeof arena) return -1;
    *lo = b;
    *hi = b + sizeof arena;
    return 0;
}

static int child(int v, int engine)
{
    static struct res r;
    static struct ptx_fault fault;
    static struct ptx_engine_report rep;
    char src[4096], err[256];
    alarm(120); /* a child that hangs fails the test instead */
    kernel_src(src, sizeof src, v);
    struct ptx_module *m = ptx_parse(src, 0, err, sizeof err);
    if (!m) return 2;
    uint64_t out = (uint64_t)(uintptr_t)arena;
    struct ptx_launch l = { .grid = { GRID, 1, 1 }, .block = { BLOCK, 1, 1 }, .params = &out, .param_bytes = 8,
                            .smcount = 4, .fault = &fault, .engine = engine, .engine_report = &rep,
                            .host = { NULL, lookup, NULL, NULL, NULL, NULL, NULL } };
    r.status = (int)ptx_run(m, ptx_entry_find(m, "k"), &l, err, sizeof err);
    ptx_module_free(m);
    r.engine = rep.engine;
    r.from_cache = rep.from_cache;
    r.ms = rep.compile_ms;
    r.self = (uintptr_t)&child;
    memcpy(r.note, rep.note, sizeof r.note);
    memcpy(r.why, rep.why, sizeof r.why);
    memcpy(r.out, arena, OUTB);
    return write(1, &r, sizeof r) == (ssize_t)sizeof r ? 0 : 3;
}

/* ---- the parent ---------------------------------------------------------------- */
static char self_exe[4096];
static char dir[256];            /* this test's cache directory */

/* runs variant v in a fresh process with the cache dir d (NULL: unset; "off"),
 * the size limit max (NULL: unset), engine e */
static struct res spawn_env(int v, const char *d, const char *max, const char *xdg, int engine)
{
    struct res r;
    memset(&r, 0, sizeof r);
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (!pid) {
        dup2(p[1], 1);
        close(p[0]);
        close(p[1]);
        if (d) setenv("TDTRACE_EMU_CACHE", d, 1); else unsetenv("TDTRACE_EMU_CACHE");
        if (max) setenv("TDTRACE_EMU_CACHE_MAX", max, 1); else unsetenv("TDTRACE_EMU_CACHE_MAX");
        if (xdg) setenv("XDG_CACHE_HOME", xdg, 1);
        /* under LeakSanitizer: no scan of the threads' TLS. The child
         * compiles with libLLVM, whose TLS block glibc allocates on the
         * heap at its first __tls_get_addr; the sanitizer's runtime then
         * takes that block's bounds from the two words it guesses a
         * glibc >= 2.19 header holds ("glibc >=2.19 suspected" with
         * LSAN_OPTIONS=verbosity=2), which are whatever the heap had
         * there, and its leak check at exit faults reading them ("Tracer
         * caught signal 11"), or not, as the heap's history goes. The
         * child holds no heap pointer in TLS (it calls ptx_run, not the
         * driver's contexts), so no leak hides there */
        const char *lo = getenv("LSAN_OPTIONS");
        char lsan[512];
        snprintf(lsan, sizeof lsan, "%s%suse_tls=0", lo ? lo : "", lo && *lo ? ":" : "");
        setenv("LSAN_OPTIONS", lsan, 1);
        char vs[16], es[16];
        snprintf(vs, sizeof vs, "%d", v);
        snprintf(es, sizeof es, "%d", engine);
        execl(self_exe, self_exe, "--child", vs, es, (char *)NULL);
        _exit(127);
    }
    close(p[1]);
    size_t got = 0;
    while (got < sizeof r) {
        ssize_t k = read(p[0], (char *)&r + got, sizeof r - got);
        if (k <= 0) break;
        got += (size_t)k;
    }
    close(p[0]);
    int st;
    waitpid(pid, &st, 0);
    if (got != sizeof r || !WIFEXITED(st) || WEXITSTATUS(st)) fail_msg("child for variant %d failed (status 0x%x)", v, st);
    return r;
}
static struct res spawn(int v, const char *d) { return spawn_env(v, d, NULL, NULL, PTX_ENGINE_JIT); }

static int have_jit = -1;
static void need_jit(void)
{
    if (have_jit < 0) {
        char d[300];
        snprintf(d, sizeof d, "%s/probe", dir);
        struct res r = spawn(0, "off");
        have_jit = r.engine == PTX_ENGINE_JIT;
        if (!have_jit) fprintf(stderr, "(the JIT is not available here: %s)\n", r.why);
    }
    if (!have_jit) skip();
}

static void rmtree(const char *d)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "chmod -R u+rwx '%s' 2>/dev/null; rm -rf '%s'", d, d);
    if (system(cmd)) { /* nothing to do */ }
}

/* a fresh cache directory for a test: path in d */
static void fresh(char *d, size_t n, const char *name)
{
    snprintf(d, n, "%s/%s", dir, name);
    rmtree(d);
}

/* the entries in d: their count, and the name of one in first */
static int entries(const char *d, char *first, size_t n, int *tmps)
{
    DIR *D = opendir(d);
    int k = 0;
    if (tmps) *tmps = 0;
    if (!D) return -1;
    struct dirent *de;
    while ((de = readdir(D))) {
        size_t l = strlen(de->d_name);
        if (l > 4 && !strcmp(de->d_name + l - 4, ".tdk")) {
            if (first && !k) snprintf(first, n, "%s/%s", d, de->d_name);
            k++;
        } else if (tmps && !strncmp(de->d_name, ".tmp-", 5)) {
            ++*tmps;
        }
    }
    closedir(D);
    return k;
}

static struct res interp_ref(int v)
{
    struct res r = spawn_env(v, "off", NULL, NULL, PTX_ENGINE_INTERP);
    assert_int_equal(r.status, PTX_OK);
    return r;
}

static void test_hit_in_second_process(void **state)
{
    (void)state;
    need_jit();
    char d[300], e[600];
    fresh(d, sizeof d, "hit");
    struct res want = interp_ref(1);
    struct res a = spawn(1, d);
    assert_int_equal(a.status, PTX_OK);
    assert_int_equal(a.engine, PTX_ENGINE_JIT);
    assert_int_equal(a.from_cache, 0);
    assert_int_equal(entries(d, e, sizeof e, NULL), 1);
    struct stat st;
    assert_int_equal(stat(d, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);
    assert_int_equal(stat(e, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    struct res b = spawn(1, d);
    assert_int_equal(b.status, PTX_OK);
    assert_int_equal(b.engine, PTX_ENGINE_JIT);
    assert_int_equal(b.from_cache, 1);
    assert_memory_equal(a.out, want.out, OUTB);
    assert_memory_equal(b.out, want.out, OUTB);
    fprintf(stderr, "(compiled in %.1f ms, loaded from the cache in %.1f ms)\n", a.ms, b.ms);
    FILE *f = fopen("/proc/sys/kernel/randomize_va_space", "r");
    int aslr = f ? fgetc(f) != '0' : 0;
    if (f) fclose(f);
    if (aslr) assert_true(a.self != b.self); /* so the code of the first named none of its addresses */
    else fprintf(stderr, "(no ASLR here: both processes had the same addresses)\n");
    /* a kernel with warp rendezvous, if the JIT takes it: the same */
    struct res wi = interp_ref(100), w1 = spawn(100, d), w2 = spawn(100, d);
    if (w1.engine == PTX_ENGINE_JIT) {
        assert_int_equal(w1.from_cache, 0);
        assert_int_equal(w2.from_cache, 1);
        assert_int_equal(w2.engine, PTX_ENGINE_JIT);
        assert_memory_equal(w1.out, wi.out, OUTB);
        assert_memory_equal(w2.out, wi.out, OUTB);
    } else {
        fprintf(stderr, "(the JIT does not take the warp kernel: %s)\n", w1.why);
    }
    assert_int_equal(entries(d, NULL, 0, NULL), 1 + (w1.engine == PTX_ENGINE_JIT));
    /* another kernel: another entry */
    struct res c = spawn(2, d);
    assert_int_equal(c.from_cache, 0);
    assert_int_equal(entries(d, NULL, 0, NULL), 2 + (w1.engine == PTX_ENGINE_JIT));
}

/* spoils the entry of variant 1 in d with how, then: ignored (compiled,
 * right results), replaced (the next process loads it) */
static void spoiled(const char *name, void (*how)(const char *path))
{
    char d[300], e[600];
    fresh(d, sizeof d, name);
    struct res want = interp_ref(1);
    spawn(1, d);
    assert_int_equal(entries(d, e, sizeof e, NULL), 1);
    how(e);
    struct res b = spawn(1, d);
    assert_int_equal(b.status, PTX_OK);
    assert_int_equal(b.engine, PTX_ENGINE_JIT);
    assert_int_equal(b.from_cache, 0);
    assert_memory_equal(b.out, want.out, OUTB);
    struct res c = spawn(1, d);
    assert_int_equal(c.from_cache, 1);
    assert_memory_equal(c.out, want.out, OUTB);
}

static void patch_byte(const char *path, long off)
{
    int fd = open(path, O_RDWR);
    assert_true(fd >= 0);
    struct stat st;
    assert_int_equal(fstat(fd, &st), 0);
    if (off < 0) off += st.st_size;
    unsigned char c;
    assert_int_equal(pread(fd, &c, 1, off), 1);
    c ^= 0x5a;
    assert_int_equal(pwrite(fd, &c, 1, off), 1);
    close(fd);
}
static void flip_last(const char *path) { patch_byte(path, -1); }      /* in the object: the checksum */
static void flip_format(const char *path) { patch_byte(path, 8); }     /* the format number */
static void flip_key(const char *path) { patch_byte(path, 16); }       /* the key in the header */
static void cut(const char *path)
{
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(truncate(path, st.st_size / 2), 0);
}
static void empty(const char *path) { assert_int_equal(truncate(path, 0), 0); }
static void garbage(const char *path)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    for (int i = 0; i < 5000; i++) fputc(i * 7 & 0xff, f);
    fclose(f);
}

/* an entry whose checksum is right but whose object does not define the
 * symbols the header promises (they are renamed): LLVM's lookup fails */
static void renamed(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static unsigned char b[1 << 20];
    size_t n = fread(b, 1, sizeof b, f);
    fclose(f);
    uint32_t hdrsize;
    memcpy(&hdrsize, b + 12, 4);
    assert_true(hdrsize < n);
    int k = 0;
    for (size_t i = hdrsize; i + 4 <= n; i++)
        if (!memcmp(b + i, "tdk_", 4)) { b[i] = 'x'; k++; }
    assert_true(k > 0);
    sha256(b + hdrsize, n - hdrsize, b + 48); /* the payload's checksum, right again */
    f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b, 1, n, f), n);
    fclose(f);
}

static void test_corrupt_ignored_and_replaced(void **state)
{
    (void)state;
    need_jit();
    spoiled("flip", flip_last);
    spoiled("format", flip_format);
    spoiled("key", flip_key);
    spoiled("cut", cut);
    spoiled("empty", empty);
    spoiled("garbage", garbage);
    spoiled("renamed", renamed);
}

/* a directory refused: the note says why, the kernel compiles and runs,
 * nothing is written there */
static void refused(const char *d, const char *says)
{
    struct res want = interp_ref(1);
    struct res r = spawn(1, d);
    assert_int_equal(r.status, PTX_OK);
    assert_int_equal(r.engine, PTX_ENGINE_JIT);
    assert_int_equal(r.from_cache, 0);
    assert_memory_equal(r.out, want.out, OUTB);
    if (!strstr(r.note, says)) fail_msg("note '%s' does not say '%s'", r.note, says);
    assert_int_equal(entries(d, NULL, 0, NULL) > 0, 0);
}

static void test_hostile_dirs_refused(void **state)
{
    (void)state;
    need_jit();
    char real[300], link[300];
    fresh(real, sizeof real, "real");
    fresh(link, sizeof link, "link");
    assert_int_equal(mkdir(real, 0700), 0);
    assert_int_equal(symlink(real, link), 0);
    refused(link, "symbolic link");
    assert_int_equal(entries(real, NULL, 0, NULL), 0);
    char w[300];
    fresh(w, sizeof w, "writable");
    assert_int_equal(mkdir(w, 0700), 0);
    assert_int_equal(chmod(w, 0777), 0);
    refused(w, "others can write");
    assert_int_equal(chmod(w, 0770), 0);
    refused(w, "others can write");
    if (geteuid() == 0) { /* another owner: root can make one */
        char o[300];
        fresh(o, sizeof o, "foreign");
        assert_int_equal(mkdir(o, 0700), 0);
        assert_int_equal(chown(o, 4242, 4242), 0);
        refused(o, "belongs to uid 4242");
    } else {
        refused("/", "belongs to uid 0"); /* a directory of root's */
    }
    /* a file where the directory should be */
    char f[300];
    fresh(f, sizeof f, "file");
    FILE *fp = fopen(f, "w");
    assert_non_null(fp);
    fclose(fp);
    struct res r = spawn(1, f);
    assert_int_equal(r.engine, PTX_ENGINE_JIT);
    assert_true(r.note[0]);
}

static void test_concurrent_writers(void **state)
{
    (void)state;
    need_jit();
    char d[300];
    fresh(d, sizeof d, "concurrent");
    struct res want = interp_ref(3);
    enum { N = 6 };
    pid_t pids[N];
    int fds[N];
    for (int i = 0; i < N; i++) {
        int p[2];
        assert_int_equal(pipe(p), 0);
        pids[i] = fork();
        assert_true(pids[i] >= 0);
        if (!pids[i]) {
            dup2(p[1], 1);
            close(p[0]);
            close(p[1]);
            setenv("TDTRACE_EMU_CACHE", d, 1);
            execl(self_exe, self_exe, "--child", "3", "1", (char *)NULL);
            _exit(127);
        }
        close(p[1]);
        fds[i] = p[0];
    }
    for (int i = 0; i < N; i++) {
        struct res r;
        size_t got = 0;
        while (got < sizeof r) {
            ssize_t k = read(fds[i], (char *)&r + got, sizeof r - got);
            if (k <= 0) break;
            got += (size_t)k;
        }
        close(fds[i]);
        int st;
        waitpid(pids[i], &st, 0);
        assert_int_equal(got, sizeof r);
        assert_int_equal(r.status, PTX_OK);
        assert_int_equal(r.engine, PTX_ENGINE_JIT);
        assert_memory_equal(r.out, want.out, OUTB);
    }
    int tmps;
    assert_int_equal(entries(d, NULL, 0, &tmps), 1);
    assert_int_equal(tmps, 0);
    struct res r = spawn(3, d);
    assert_int_equal(r.from_cache, 1);
    assert_memory_equal(r.out, want.out, OUTB);
}

static void test_eviction_lru(void **state)
{
    (void)state;
    need_jit();
    char d[300], e[600];
    fresh(d, sizeof d, "evict");
    spawn(10, d);
    assert_int_equal(entries(d, e, sizeof e, NULL), 1);
    struct stat st;
    assert_int_equal(stat(e, &st), 0);
    char max[32];
    snprintf(max, sizeof max, "%lld", (long long)st.st_size * 3 + st.st_size / 2); /* three fit, not four */
    struct timespec pause = { 0, 20 * 1000 * 1000 };
    nanosleep(&pause, NULL);
    spawn_env(11, d, max, NULL, PTX_ENGINE_JIT);
    nanosleep(&pause, NULL);
    spawn_env(12, d, max, NULL, PTX_ENGINE_JIT);
    assert_int_equal(entries(d, NULL, 0, NULL), 3);
    nanosleep(&pause, NULL);
    assert_int_equal(spawn_env(10, d, max, NULL, PTX_ENGINE_JIT).from_cache, 1); /* 10 used: 11 is the oldest now */
    nanosleep(&pause, NULL);
    spawn_env(13, d, max, NULL, PTX_ENGINE_JIT);
    assert_int_equal(entries(d, NULL, 0, NULL), 3);
    assert_int_equal(spawn_env(10, d, max, NULL, PTX_ENGINE_JIT).from_cache, 1);
    assert_int_equal(spawn_env(12, d, max, NULL, PTX_ENGINE_JIT).from_cache, 1);
    assert_int_equal(spawn_env(13, d, max, NULL, PTX_ENGINE_JIT).from_cache, 1);
    assert_int_equal(spawn_env(11, d, max, NULL, PTX_ENGINE_JIT).from_cache, 0); /* evicted */
    /* a limit below one entry: nothing kept */
    char z[300];
    fresh(z, sizeof z, "tiny");
    spawn_env(10, z, "100", NULL, PTX_ENGINE_JIT);
    assert_int_equal(entries(z, NULL, 0, NULL), 0);
    /* a limit that is not a size: said, and the default used */
    struct res r = spawn_env(10, z, "lots", NULL, PTX_ENGINE_JIT);
    if (!strstr(r.note, "TDTRACE_EMU_CACHE_MAX=lots")) fail_msg("note: '%s'", r.note);
    assert_int_equal(entries(z, NULL, 0, NULL), 1);
}

static void test_off_and_default_dir(void **state)
{
    (void)state;
    need_jit();
    char x[300], t[400];
    fresh(x, sizeof x, "xdg");
    assert_int_equal(mkdir(x, 0700), 0);
    snprintf(t, sizeof t, "%s/tdtrace", x);
    struct res r = spawn_env(1, "off", NULL, x, PTX_ENGINE_JIT);
    assert_int_equal(r.engine, PTX_ENGINE_JIT);
    assert_int_equal(r.note[0], 0);
    r = spawn_env(1, "off", NULL, x, PTX_ENGINE_JIT);
    assert_int_equal(r.from_cache, 0);
    struct stat st;
    assert_int_equal(stat(t, &st), -1); /* nothing made */
    /* unset: $XDG_CACHE_HOME/tdtrace, made 0700 */
    r = spawn_env(1, NULL, NULL, x, PTX_ENGINE_JIT);
    assert_int_equal(r.from_cache, 0);
    assert_int_equal(stat(t, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);
    assert_int_equal(entries(t, NULL, 0, NULL), 1);
    assert_int_equal(spawn_env(1, NULL, NULL, x, PTX_ENGINE_JIT).from_cache, 1);
    /* the interpreter never touches it */
    r = spawn_env(5, NULL, NULL, x, PTX_ENGINE_INTERP);
    assert_int_equal(entries(t, NULL, 0, NULL), 1);
}

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "--child")) return child(atoi(argv[2]), atoi(argv[3]));
    ssize_t n = readlink("/proc/self/exe", self_exe, sizeof self_exe - 1);
    if (n <= 0) return 1;
    self_exe[n] = 0;
    snprintf(dir, sizeof dir, "/tmp/tdtrace-jitcache-test.XXXXXX");
    if (!mkdtemp(dir)) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hit_in_second_process),
        cmocka_unit_test(test_corrupt_ignored_and_replaced),
        cmocka_unit_test(test_hostile_dirs_refused),
        cmocka_unit_test(test_concurrent_writers),
        cmocka_unit_test(test_eviction_lru),
        cmocka_unit_test(test_off_and_default_dir),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    rmtree(dir);
    return rc;
}
