/* SPDX-License-Identifier: Apache-2.0 */
/* src/patch: ELF lookups (this test binary, programs and libraries built
 * here, the C library), x86-64 relocation (pure, at chosen addresses),
 * function-entry patches on functions written in assembly below (exact
 * prologues whatever the compiler and sanitizer), with and without other
 * threads running, GOT slots of a library built here, and the remote path
 * against a ptraced child. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "patch/elfsym.h"
#include "patch/patch.h"
#include "patch/x86.h"

/* ---- the functions patched ------------------------------------------ */

#define HID __attribute__((visibility("hidden")))
HID int tp_fp(int a, int b);       /* endbr64; push rbp; mov rbp, rsp: frame pointer */
HID int tp_fp2(int a, int b);      /* push rbp; mov rbp, rsp; sub rsp, 16 */
HID int tp_rip(int a);             /* mov rax, [rip + tp_data] first */
HID int tp_ripimm(int a);          /* cmp byte [rip + tp_flag], 0 (disp32, then imm8) */
HID int tp_jcc(int a);             /* test; je rel8 in the first bytes */
HID int tp_jcc32(int a);           /* test; je rel32 */
HID int tp_call(int a);            /* call rel32 first */
HID int tp_internal(int a);        /* a branch between moved instructions (14-byte patch) */
HID int tp_short(void);            /* 3 bytes: refused */
HID int tp_loop(int a);            /* a loop back into the first bytes: refused */
HID int tp_selfref(int a);         /* lea of an address inside the first bytes: refused */
HID int tp_int3(void);             /* a breakpoint at the entry: refused */
HID int tp_baddata(void);          /* undecodable bytes in the body: refused */
HID int tp_hot(int a);             /* one 5-byte instruction first, 8-byte aligned */
HID int tp_hot_odd(int a);         /* the same at 4 mod 8: the jump straddles two words */
HID int tp_hot_abs(int a);         /* one 14-byte instruction first */
int tp_nofp(int a, int b);         /* a local symbol (.symtab only) */
HID long tp_data = 1000;
HID unsigned char tp_flag = 0;

__asm__(".intel_syntax noprefix\n"
        ".text\n"
        ".p2align 4\n.globl tp_fp\n.type tp_fp,@function\n"
        "tp_fp: endbr64\n push rbp\n mov rbp, rsp\n sub rsp, 16\n lea eax, [rdi + rsi * 2]\n leave\n ret\n"
        ".size tp_fp, .-tp_fp\n"
        ".p2align 4\n.globl tp_fp2\n.type tp_fp2,@function\n"
        "tp_fp2: push rbp\n mov rbp, rsp\n sub rsp, 16\n mov [rbp - 4], edi\n mov eax, [rbp - 4]\n"
        " imul eax, esi\n leave\n ret\n"
        ".size tp_fp2, .-tp_fp2\n"
        ".p2align 4\n.type tp_nofp,@function\n"
        "tp_nofp: mov eax, edi\n imul eax, esi\n add eax, 7\n ret\n"
        ".size tp_nofp, .-tp_nofp\n"
        ".p2align 4\n.globl tp_rip\n.type tp_rip,@function\n"
        "tp_rip: mov rax, [rip + tp_data]\n movsxd rdi, edi\n add rax, rdi\n ret\n"
        ".size tp_rip, .-tp_rip\n"
        ".p2align 4\n.globl tp_ripimm\n.type tp_ripimm,@function\n"
        "tp_ripimm: cmp byte ptr [rip + tp_flag], 0\n je 1f\n lea eax, [rdi + 1]\n add eax, 16\n ret\n"
        "1: lea eax, [rdi + 2]\n ret\n"
        ".size tp_ripimm, .-tp_ripimm\n"
        ".p2align 4\n.globl tp_jcc\n.type tp_jcc,@function\n"
        "tp_jcc: test edi, edi\n je 1f\n lea eax, [rdi + rdi]\n .byte 0x0f, 0x1f, 0x44, 0, 0\n"
        " .byte 0x0f, 0x1f, 0x44, 0, 0\n ret\n"
        "1: mov eax, -1\n ret\n"
        ".size tp_jcc, .-tp_jcc\n"
        ".p2align 4\n.globl tp_jcc32\n.type tp_jcc32,@function\n"
        "tp_jcc32: test edi, edi\n .byte 0x0f, 0x84\n .long 1f - (. + 4)\n lea eax, [rdi + rdi * 2]\n ret\n"
        "1: mov eax, -3\n ret\n"
        ".size tp_jcc32, .-tp_jcc32\n"
        ".p2align 4\n.type tp_helper,@function\n"
        "tp_helper: mov eax, 100\n ret\n"
        ".size tp_helper, .-tp_helper\n"
        ".p2align 4\n.globl tp_call\n.type tp_call,@function\n"
        "tp_call: call tp_helper\n add eax, edi\n .byte 0x0f, 0x1f, 0x44, 0, 0\n .byte 0x0f, 0x1f, 0x44, 0, 0\n ret\n"
        ".size tp_call, .-tp_call\n"
        ".p2align 4\n.globl tp_internal\n.type tp_internal,@function\n"
        "tp_internal: xor eax, eax\n test edi, edi\n je 1f\n add eax, 100\n"
        "1: add eax, 1\n add eax, edi\n ret\n"
        ".size tp_internal, .-tp_internal\n"
        ".p2align 4\n.globl tp_short\n.type tp_short,@function\n"
        "tp_short: xor eax, eax\n ret\n"
        ".size tp_short, .-tp_short\n"
        " int3\n int3\n int3\n int3\n int3\n int3\n"
        ".p2align 4\n.globl tp_loop\n.type tp_loop,@function\n"
        "tp_loop: xor eax, eax\n"
        "1: add eax, edi\n dec edi\n jnz 1b\n ret\n"
        ".size tp_loop, .-tp_loop\n"
        ".p2align 4\n.globl tp_selfref\n.type tp_selfref,@function\n"
        "tp_selfref: mov eax, edi\n add eax, 1\n lea rcx, [rip + tp_selfref + 2]\n ret\n"
        ".size tp_selfref, .-tp_selfref\n"
        ".p2align 4\n.globl tp_int3\n.type tp_int3,@function\n"
        "tp_int3: int3\n mov eax, 1\n ret\n"
        ".size tp_int3, .-tp_int3\n"
        ".p2align 4\n.globl tp_baddata\n.type tp_baddata,@function\n"
        "tp_baddata: mov eax, 1\n ret\n .byte 0x06\n"
        ".size tp_baddata, .-tp_baddata\n"
        ".p2align 4\n.globl tp_hot\n.type tp_hot,@function\n"
        "tp_hot: mov eax, 0x1234\n add eax, edi\n ret\n"
        ".size tp_hot, .-tp_hot\n"
        ".p2align 4\n nop\n nop\n nop\n nop\n.globl tp_hot_odd\n.type tp_hot_odd,@function\n"
        "tp_hot_odd: mov eax, 0x1234\n add eax, edi\n ret\n"
        ".size tp_hot_odd, .-tp_hot_odd\n"
        ".p2align 4\n.globl tp_hot_abs\n.type tp_hot_abs,@function\n"
        "tp_hot_abs: .byte 0x66, 0x66, 0x66, 0x66, 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0\n"
        " mov eax, 0x1234\n add eax, edi\n ret\n"
        ".size tp_hot_abs, .-tp_hot_abs\n"
        ".att_syntax prefix\n");

/* replacements: each calls the original through its trampoline */
static int (*volatile orig2)(int, int);
static int (*volatile orig1)(int);
static int (*volatile orig1b)(int);
static int (*volatile orig2b)(int, int);
static int repl2(int a, int b)
{
    return orig2(a, b) * 10 + 1;
}
static int repl1(int a)
{
    return orig1(a) * 10 + 1;
}
static int repl1b(int a)
{
    return orig1b(a) * 100 + 2;
}
static int repl2b(int a, int b)
{
    return orig2b(a, b) * 100 + 2;
}

/* ---- helpers --------------------------------------------------------- */

static struct td_elf *self_elf;
static struct td_patcher *self_pt;

static int main_bias_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    *(uint64_t *)arg = info->dlpi_addr;
    return 1; /* the first one is the program */
}

static int setup_self(void **state)
{
    (void)state;
    uint64_t bias = 0;
    dl_iterate_phdr(main_bias_cb, &bias);
    struct td_perr err;
    if (td_elf_open("/proc/self/exe", bias, &self_elf, &err) != 0) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    self_pt = td_patcher_new(&td_patch_mem_self);
    return self_pt ? 0 : -1;
}

static int teardown_self(void **state)
{
    (void)state;
    td_elf_close(self_elf);
    td_patcher_free(self_pt);
    return 0;
}

static struct td_elf_sym lookup(const char *name)
{
    struct td_elf_sym s;
    struct td_perr err;
    int rc = td_elf_find_func(self_elf, name, &s, &err);
    if (rc)
        fprintf(stderr, "%s: %s\n", name, err.msg);
    assert_int_equal(rc, 0);
    return s;
}

#define ADDR(f) ((uint64_t)(uintptr_t)(f))

/* prepare a patch of the named test function to `repl` */
static int prep(const char *name, void *repl, unsigned flags, struct td_patch *p, struct td_perr *err)
{
    struct td_elf_sym s = lookup(name);
    return td_patch_prepare(self_pt, name, s.addr, s.size, ADDR(repl), flags, p, err);
}

static void expect_refused(const char *name, unsigned flags, enum td_perr_code code, const char *words)
{
    struct td_patch p;
    struct td_perr err = { 0 };
    struct td_elf_sym s = lookup(name);
    unsigned char before[32];
    memcpy(before, (void *)(uintptr_t)s.addr, s.size < 32 ? s.size : 32);
    int rc = td_patch_prepare(self_pt, name, s.addr, s.size, ADDR(repl1), flags, &p, &err);
    if (rc != (int)code || !strstr(err.msg, name) || !strstr(err.msg, words))
        fprintf(stderr, "%s: got %s: %s\n", name, td_perr_name((enum td_perr_code)rc), err.msg);
    assert_int_equal(rc, code);
    assert_non_null(strstr(err.msg, name));
    assert_non_null(strstr(err.msg, words));
    assert_memory_equal(before, (void *)(uintptr_t)s.addr, s.size < 32 ? s.size : 32);
}

static int prot_of_cb(const struct td_map *m, void *arg)
{
    uint64_t *a = arg;
    if (a[0] >= m->start && a[0] < m->end) {
        a[1] = (uint64_t)m->prot;
        return 1;
    }
    return 0;
}

static int prot_of(uint64_t addr)
{
    uint64_t a[2] = { addr, (uint64_t)-1 };
    td_maps_foreach(0, prot_of_cb, a);
    return (int)a[1];
}

/* apply, call, undo, call: the replacement sees the original's result */
static void roundtrip2(const char *name, int (*f)(int, int), unsigned flags, int a, int b, size_t expect_len)
{
    int (*volatile call)(int, int) = f;
    int want = call(a, b);
    struct td_patch p;
    struct td_perr err;
    unsigned char before[32];
    memcpy(before, (void *)f, sizeof before);
    int prot = prot_of(ADDR(f));
    int rc = prep(name, (void *)repl2, flags, &p, &err);
    if (rc)
        fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(rc, 0);
    assert_int_equal(p.len, expect_len);
    assert_true(p.covered >= p.len);
    assert_true(p.body_checked);
    orig2 = (int (*)(int, int))(uintptr_t)p.original;
    assert_int_equal(orig2(a, b), want); /* the trampoline alone */
    assert_int_equal(td_patch_apply(self_pt, &p, 0, &err), 0);
    assert_memory_equal((void *)f, p.bytes, p.len);
    assert_int_equal(prot_of(ADDR(f)), prot);
    assert_int_equal(call(a, b), want * 10 + 1);
    assert_int_equal(td_patch_undo(self_pt, &p, 0, &err), 0);
    assert_memory_equal(before, (void *)f, sizeof before);
    assert_int_equal(prot_of(ADDR(f)), prot);
    assert_int_equal(call(a, b), want);
}

static void roundtrip1(const char *name, int (*f)(int), unsigned flags, const int *args, size_t nargs)
{
    int (*volatile call)(int) = f;
    int want[8];
    for (size_t i = 0; i < nargs; i++)
        want[i] = call(args[i]);
    struct td_patch p;
    struct td_perr err;
    unsigned char before[32];
    memcpy(before, (void *)f, sizeof before);
    int rc = prep(name, (void *)repl1, flags, &p, &err);
    if (rc)
        fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(rc, 0);
    orig1 = (int (*)(int))(uintptr_t)p.original;
    assert_int_equal(td_patch_apply(self_pt, &p, 0, &err), 0);
    for (size_t i = 0; i < nargs; i++) {
        assert_int_equal(orig1(args[i]), want[i]);
        assert_int_equal(call(args[i]), want[i] * 10 + 1);
    }
    assert_int_equal(td_patch_undo(self_pt, &p, 0, &err), 0);
    assert_memory_equal(before, (void *)f, sizeof before);
    for (size_t i = 0; i < nargs; i++)
        assert_int_equal(call(args[i]), want[i]);
}

/* ---- ELF: this test binary ------------------------------------------ */

static void test_elf_self(void **state)
{
    (void)state;
    assert_false(td_elf_stripped(self_elf));
    struct td_elf_sym s = lookup("tp_nofp"); /* local: .symtab only */
    assert_int_equal(s.addr, ADDR(tp_nofp));
    assert_int_equal(s.size, 9);
    assert_int_equal(s.bind, STB_LOCAL);
    assert_int_equal(s.type, STT_FUNC);
    assert_false(s.dynamic);
    s = lookup("tp_fp");
    assert_int_equal(s.addr, ADDR(tp_fp));
    assert_int_equal(s.size, 17);
    assert_int_equal(s.bind, STB_GLOBAL);
    s = lookup("tp_short");
    assert_int_equal(s.size, 3);
    struct td_perr err;
    assert_int_equal(td_elf_find_func(self_elf, "tp_no_such_function", &s, &err), TD_PE_NOTFOUND);
    assert_non_null(strstr(err.msg, "tp_no_such_function"));
    /* data is not a function */
    assert_int_equal(td_elf_find_func(self_elf, "tp_data", &s, &err), TD_PE_NOTFOUND);
}

struct count {
    int n, saw_nofp, sorted;
    char last[128];
};

static int count_cb(const struct td_elf_sym *s, void *arg)
{
    struct count *c = arg;
    if (c->n && strcmp(c->last, s->name) > 0)
        c->sorted = 0;
    snprintf(c->last, sizeof c->last, "%s", s->name);
    c->n++;
    if (!strcmp(s->name, "tp_nofp") && s->addr == ADDR(tp_nofp))
        c->saw_nofp++;
    return 0;
}

static void test_elf_foreach(void **state)
{
    (void)state;
    struct count c = { .sorted = 1 };
    assert_int_equal(td_elf_foreach_func(self_elf, count_cb, &c), 0);
    assert_true(c.n > 20);
    assert_int_equal(c.saw_nofp, 1);
    assert_true(c.sorted);
}

/* the C library as the loader mapped it: bias from a mapping, dlopen */
struct libc_find {
    char path[512];
    uint64_t start, offset;
    int found;
};

static int libc_map_cb(const struct td_map *m, void *arg)
{
    struct libc_find *f = arg;
    const char *b = strrchr(m->path, '/');
    if (!f->found && b && !strncmp(b, "/libc.so.6", 10)) {
        snprintf(f->path, sizeof f->path, "%s", m->path);
        f->start = m->start;
        f->offset = m->offset;
        f->found = 1;
    }
    return 0;
}

static int libc_bias_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    const char *b = strrchr(info->dlpi_name, '/');
    if (b && !strcmp(b, "/libc.so.6")) {
        *(uint64_t *)arg = info->dlpi_addr;
        return 1;
    }
    return 0;
}

static void test_elf_libc_dlopen(void **state)
{
    (void)state;
    struct libc_find f = { 0 };
    assert_int_equal(td_maps_foreach(0, libc_map_cb, &f), 0);
    assert_true(f.found);
    struct td_elf *e;
    struct td_perr err;
    assert_int_equal(td_elf_open(f.path, 0, &e, &err), 0);
    uint64_t bias = 0, want = 0;
    assert_int_equal(td_elf_bias_for_mapping(e, f.start, f.offset, &bias, &err), 0);
    dl_iterate_phdr(libc_bias_cb, &want);
    assert_int_equal(bias, want);
    td_elf_set_bias(e, bias);
    /* dlopen has an old version and the default one: the default wins,
     * as for the loader */
    struct td_elf_sym s;
    assert_int_equal(td_elf_find_func(e, "dlopen", &s, &err), 0);
    assert_true(s.dynamic);
    void *h = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    assert_non_null(h);
    assert_int_equal(s.addr, ADDR(dlsym(h, "dlopen")));
    dlclose(h);
    /* an IFUNC is reported as one (its address is the resolver) */
    assert_int_equal(td_elf_find_func(e, "memcpy", &s, &err), 0);
    assert_int_equal(s.type, STT_GNU_IFUNC);
    td_elf_close(e);
}

/* ---- ELF: programs and libraries built here ------------------------- */

static char tmpdir[256];

static int build(const char *out, const char *flags, const char *src)
{
    char srcpath[512], cmd[2048];
    snprintf(srcpath, sizeof srcpath, "%s/%s.c", tmpdir, out);
    FILE *f = fopen(srcpath, "w");
    if (!f)
        return -1;
    fputs(src, f);
    fclose(f);
    const char *cc = getenv("CC") && *getenv("CC") ? getenv("CC") : "cc";
    snprintf(cmd, sizeof cmd, "%s -O1 -o %s/%s %s %s 2>&1", cc, tmpdir, out, srcpath, flags);
    return system(cmd) == 0 ? 0 : -1;
}

static int setup_tmp(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/td_patch_XXXXXX");
    if (!mkdtemp(tmpdir))
        return -1;
    if (setup_self(state) != 0)
        return -1;
    return 0;
}

static int teardown_tmp(void **state)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    return teardown_self(state);
}

static int have_cc(void)
{
    const char *cc = getenv("CC") && *getenv("CC") ? getenv("CC") : "cc";
    char cmd[256];
    snprintf(cmd, sizeof cmd, "%s --version >/dev/null 2>&1", cc);
    if (system(cmd) == 0)
        return 1;
    printf("SKIP: no C compiler (%s) to build the test programs\n", cc);
    return 0;
}

static char *path_in_tmp(const char *name)
{
    static char p[4][512];
    static int i;
    i = (i + 1) % 4;
    snprintf(p[i], sizeof p[i], "%s/%s", tmpdir, name);
    return p[i];
}

static void test_elf_built_program(void **state)
{
    (void)state;
    if (!have_cc())
        skip();
    static const char prog[] =
        "__attribute__((noinline)) static int hidden_fn(int x) { return x * 3; }\n"
        "int visible_fn(int x) { return hidden_fn(x) + 1; }\n"
        "int main(int c, char **v) { (void)v; return visible_fn(c); }\n";
    assert_int_equal(build("prog", "", prog), 0);
    assert_int_equal(build("prog_s", "-s", prog), 0);
    struct td_elf *e;
    struct td_perr err;
    struct td_elf_sym s;
    assert_int_equal(td_elf_open(path_in_tmp("prog"), 0x1000, &e, &err), 0);
    assert_false(td_elf_stripped(e));
    assert_int_equal(td_elf_find_func(e, "hidden_fn", &s, &err), 0);
    assert_int_equal(s.bind, STB_LOCAL);
    assert_true(s.size > 0);
    uint64_t hidden = s.addr;
    assert_int_equal(td_elf_find_func(e, "main", &s, &err), 0);
    assert_int_equal(s.bind, STB_GLOBAL);
    td_elf_set_bias(e, 0x2000);
    assert_int_equal(td_elf_find_func(e, "hidden_fn", &s, &err), 0);
    assert_int_equal(s.addr, hidden + 0x1000);
    td_elf_close(e);

    assert_int_equal(td_elf_open(path_in_tmp("prog_s"), 0, &e, &err), 0);
    assert_true(td_elf_stripped(e));
    assert_int_equal(td_elf_find_func(e, "hidden_fn", &s, &err), TD_PE_NOTFOUND);
    assert_non_null(strstr(err.msg, "no .symtab"));
    td_elf_close(e);
}

static void test_elf_ambiguous_local(void **state)
{
    (void)state;
    if (!have_cc())
        skip();
    char flags[1024];
    FILE *f = fopen(path_in_tmp("b.c"), "w");
    assert_non_null(f);
    fputs("__attribute__((noinline)) static int dup(int x) { return x + 2; }\n"
          "int fb(int x) { return dup(x); }\n", f);
    fclose(f);
    snprintf(flags, sizeof flags, "%s", path_in_tmp("b.c"));
    assert_int_equal(build("amb", flags,
                           "__attribute__((noinline)) static int dup(int x) { return x + 1; }\n"
                           "int fb(int x);\n"
                           "int main(int c, char **v) { (void)v; return dup(c) + fb(c); }\n"),
                     0);
    struct td_elf *e;
    struct td_perr err;
    struct td_elf_sym s;
    assert_int_equal(td_elf_open(path_in_tmp("amb"), 0, &e, &err), 0);
    assert_int_equal(td_elf_find_func(e, "dup", &s, &err), TD_PE_AMBIGUOUS);
    assert_non_null(strstr(err.msg, "dup"));
    td_elf_close(e);
}

static void test_elf_rejects(void **state)
{
    (void)state;
    struct td_elf *e = (struct td_elf *)1;
    struct td_perr err;
    /* not a file, not ELF, truncated, another machine, a relocatable */
    assert_int_equal(td_elf_open("/proc/self", 0, &e, &err), TD_PE_ELF);
    assert_null(e);
    assert_int_equal(td_elf_open("/nonexistent/x", 0, &e, &err), TD_PE_ELF);
    assert_int_equal(err.sys_errno, ENOENT);
    /* a FIFO where a library was: refused at once, not waited on */
    char *fifo = path_in_tmp("fifo.so");
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_int_equal(td_elf_open(fifo, 0, &e, &err), TD_PE_ELF);
    assert_non_null(strstr(err.msg, "not a regular file"));
    unlink(fifo);
    assert_int_equal(td_elf_open_mem("hello", 5, 0, &e, &err), TD_PE_ELF);
    assert_int_equal(td_elf_open_mem("", 0, 0, &e, &err), TD_PE_ELF);

    FILE *f = fopen("/proc/self/exe", "rb");
    assert_non_null(f);
    static unsigned char img[1 << 16];
    size_t n = fread(img, 1, sizeof img, f);
    fclose(f);
    assert_true(n > sizeof(Elf64_Ehdr));
    for (size_t cut = 1; cut < sizeof(Elf64_Ehdr) + 64; cut += 7) {
        int rc = td_elf_open_mem(img, cut, 0, &e, &err);
        assert_int_not_equal(rc, 0);
        assert_null(e);
    }
    Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
    unsigned char save[sizeof *eh];
    memcpy(save, eh, sizeof save);
    eh->e_machine = EM_AARCH64;
    assert_int_equal(td_elf_open_mem(img, n, 0, &e, &err), TD_PE_ARCH);
    assert_non_null(strstr(err.msg, "aarch64"));
    memcpy(eh, save, sizeof save);
    eh->e_type = ET_REL;
    assert_int_equal(td_elf_open_mem(img, n, 0, &e, &err), TD_PE_ELF);
    memcpy(eh, save, sizeof save);
    /* section headers beyond the end of the bytes */
    assert_int_not_equal(td_elf_open_mem(img, n, 0, &e, &err), 0);
    assert_non_null(err.msg[0] ? err.msg : NULL);
}

/* ---- GOT slots of a library built here -------------------------------- */

static const char prov_src[] = "int cuTestAdd(int a, int b) { return a + b; }\n"
                               "int cuTestMul(int a, int b) { return a * b; }\n";
static const char user_src[] = "#include <string.h>\n"
                               "int cuTestAdd(int, int); int cuTestMul(int, int);\n"
                               "int user_add(int a, int b) { return cuTestAdd(a, b); }\n"
                               "void *user_mulptr(void) { return (void *)&cuTestMul; }\n"
                               "size_t user_len(const char *s) { return strlen(s); }\n";

static int cu_prefix(const char *name, void *arg)
{
    (void)arg;
    return !strncmp(name, "cu", 2);
}

static int repl_add(int a, int b)
{
    return 1000 + a + b;
}

static int repl_mul(int a, int b)
{
    return 2000 + a * b;
}

struct libs {
    void *prov, *user;
    int (*user_add)(int, int);
    void *(*user_mulptr)(void);
    struct td_elf *elf;
    uint64_t add_slot, mul_slot;
};

static int lib_bias_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct { const char *name; uint64_t bias; } *q = arg;
    if (!strcmp(info->dlpi_name, q->name)) {
        q->bias = info->dlpi_addr;
        return 1;
    }
    return 0;
}

/* build libprov.so and libuser.so (linked as `link`), load and look them up */
static void load_libs(struct libs *L, const char *user, const char *link, int mode)
{
    char flags[1024];
    snprintf(flags, sizeof flags, "-shared -fPIC");
    if (access(path_in_tmp("libprov.so"), F_OK) != 0)
        assert_int_equal(build("libprov.so", flags, prov_src), 0);
    snprintf(flags, sizeof flags, "-shared -fPIC %s %s -Wl,-rpath,%s", link, path_in_tmp("libprov.so"), tmpdir);
    assert_int_equal(build(user, flags, user_src), 0);
    L->prov = dlopen(path_in_tmp("libprov.so"), RTLD_NOW);
    L->user = dlopen(path_in_tmp(user), mode);
    assert_non_null(L->prov);
    assert_non_null(L->user);
    *(void **)&L->user_add = dlsym(L->user, "user_add");
    *(void **)&L->user_mulptr = dlsym(L->user, "user_mulptr");
    struct { const char *name; uint64_t bias; } q = { path_in_tmp(user), 0 };
    dl_iterate_phdr(lib_bias_cb, &q);
    struct td_perr err;
    assert_int_equal(td_elf_open(q.name, q.bias, &L->elf, &err), 0);
    struct td_elf_slot *slots;
    size_t n;
    assert_int_equal(td_elf_got_slots(L->elf, cu_prefix, NULL, &slots, &n, &err), 0);
    assert_int_equal(n, 2);
    L->add_slot = L->mul_slot = 0;
    for (size_t i = 0; i < n; i++) {
        assert_false(slots[i].defined);
        if (!strcmp(slots[i].name, "cuTestAdd") && slots[i].type == R_X86_64_JUMP_SLOT)
            L->add_slot = slots[i].addr;
        if (!strcmp(slots[i].name, "cuTestMul") && slots[i].type == R_X86_64_GLOB_DAT)
            L->mul_slot = slots[i].addr;
    }
    free(slots);
    assert_int_not_equal(L->add_slot, 0);
    assert_int_not_equal(L->mul_slot, 0);
    /* without a filter, strlen's slot is there too */
    assert_int_equal(td_elf_got_slots(L->elf, NULL, NULL, &slots, &n, &err), 0);
    int saw_strlen = 0;
    for (size_t i = 0; i < n; i++)
        saw_strlen |= !strcmp(slots[i].name, "strlen");
    free(slots);
    assert_true(saw_strlen);
}

static void unload_libs(struct libs *L)
{
    td_elf_close(L->elf);
    dlclose(L->user);
    dlclose(L->prov);
}

static void test_got_rewrite(void **state)
{
    (void)state;
    if (!have_cc())
        skip();
    struct libs L;
    load_libs(&L, "libuser.so", "-Wl,-z,now -Wl,-z,relro", RTLD_NOW);
    uint64_t *add = (uint64_t *)(uintptr_t)L.add_slot, *mul = (uint64_t *)(uintptr_t)L.mul_slot;
    assert_int_equal(*add, ADDR(dlsym(L.prov, "cuTestAdd")));
    assert_int_equal(*mul, ADDR(dlsym(L.prov, "cuTestMul")));
    assert_false(td_elf_in_plt(L.elf, *add));
    int prot = prot_of(L.add_slot);
    assert_false(prot & PROT_WRITE); /* full RELRO: read-only */

    struct td_got_patch ra, rm;
    struct td_perr err;
    assert_int_equal(L.user_add(2, 3), 5);
    assert_int_equal(td_got_set(self_pt, L.add_slot, ADDR(repl_add), 0, &ra, &err), 0);
    assert_int_equal(td_got_set(self_pt, L.mul_slot, ADDR(repl_mul), 0, &rm, &err), 0);
    assert_int_equal(prot_of(L.add_slot), prot);
    assert_int_equal(L.user_add(2, 3), 1005);
    assert_ptr_equal(L.user_mulptr(), (void *)repl_mul);
    assert_int_equal(ra.orig, ADDR(dlsym(L.prov, "cuTestAdd")));

    /* someone else changed the slot: undo leaves it alone */
    struct td_got_patch other;
    assert_int_equal(td_got_set(self_pt, L.add_slot, ADDR(repl_mul), 0, &other, &err), 0);
    assert_int_equal(td_got_undo(self_pt, &ra, 0, &err), TD_PE_CHANGED);
    assert_int_equal(*add, ADDR(repl_mul));
    assert_int_equal(td_got_undo(self_pt, &other, 0, &err), 0);

    assert_int_equal(td_got_undo(self_pt, &ra, 0, &err), 0);
    assert_int_equal(td_got_undo(self_pt, &rm, 0, &err), 0);
    assert_int_equal(td_got_undo(self_pt, &rm, 0, &err), TD_PE_INVAL);
    assert_int_equal(L.user_add(2, 3), 5);
    assert_ptr_equal(L.user_mulptr(), dlsym(L.prov, "cuTestMul"));
    assert_int_equal(prot_of(L.add_slot), prot);
    assert_int_equal(td_got_set(self_pt, L.add_slot + 4, 0, 0, &ra, &err), TD_PE_INVAL);
    unload_libs(&L);
}

static void test_got_lazy(void **state)
{
    (void)state;
    if (!have_cc())
        skip();
    struct libs L;
    load_libs(&L, "libuser_lazy.so", "-Wl,-z,lazy -Wl,-z,norelro", RTLD_LAZY);
    uint64_t *add = (uint64_t *)(uintptr_t)L.add_slot;
    /* not bound yet: the slot points into the library's own PLT */
    assert_true(td_elf_in_plt(L.elf, *add));
    assert_int_equal(L.user_add(4, 5), 9);
    assert_int_equal(*add, ADDR(dlsym(L.prov, "cuTestAdd")));
    assert_false(td_elf_in_plt(L.elf, *add));
    unload_libs(&L);
}

/* ---- x86: plans and trampolines at chosen addresses -------------------- */

static int plan(const uint8_t *code, size_t len, uint64_t entry, unsigned need, struct td_x86_plan *p,
                struct td_perr *err)
{
    return td_x86_plan("f", code, len, entry, len, need, p, err);
}

static void test_x86_rip_window(void **state)
{
    (void)state;
    /* mov rax, [rip + 0x100]; ret: the operand is at entry + 7 + 0x100 */
    static const uint8_t code[] = { 0x48, 0x8b, 0x05, 0x00, 0x01, 0x00, 0x00, 0xc3 };
    const uint64_t entry = 0x7f0000000000ULL, target = entry + 7 + 0x100;
    struct td_x86_plan p;
    struct td_perr err;
    assert_int_equal(plan(code, sizeof code, entry, 5, &p, &err), 0);
    assert_int_equal(p.covered, 7);
    assert_int_equal(p.n, 1);
    assert_int_equal(p.insn[0].kind, TD_X86_RIPMEM);
    assert_int_equal(p.tramp_len, 7 + 14);
    assert_int_equal(p.lo, target - 7 - INT32_MAX);
    assert_int_equal(p.hi, target - 7 + 0x80000000ULL);
    uint8_t out[TD_X86_TRAMP_MAX];
    /* at both ends of the window the operand still points at target */
    uint64_t ends[2] = { p.lo, p.hi };
    for (int i = 0; i < 2; i++) {
        assert_int_equal(td_x86_emit("f", &p, code, ends[i], out, &err), 0);
        int32_t disp;
        memcpy(&disp, out + 3, 4);
        assert_int_equal(ends[i] + 7 + (int64_t)disp, target);
        assert_memory_equal(out, code, 3);
        /* then jmp [rip]; .quad entry + 7 */
        static const uint8_t jmp[6] = { 0xff, 0x25, 0, 0, 0, 0 };
        assert_memory_equal(out + 7, jmp, 6);
        uint64_t back;
        memcpy(&back, out + 13, 8);
        assert_int_equal(back, entry + 7);
    }
    /* one byte outside: refused */
    assert_int_equal(td_x86_emit("f", &p, code, p.lo - 1, out, &err), TD_PE_RANGE);
    assert_int_equal(td_x86_emit("f", &p, code, p.hi + 1, out, &err), TD_PE_RANGE);
}

static void test_x86_branches(void **state)
{
    (void)state;
    struct td_x86_plan p;
    struct td_perr err;
    uint8_t out[TD_X86_TRAMP_MAX];
    const uint64_t entry = 0x400000;
    uint64_t q;
    /* je rel32 (+0x1000), then nops */
    static const uint8_t jcc[] = { 0x0f, 0x84, 0x00, 0x10, 0x00, 0x00, 0x90 };
    assert_int_equal(plan(jcc, sizeof jcc, entry, 5, &p, &err), 0);
    assert_int_equal(p.insn[0].kind, TD_X86_JCC);
    assert_int_equal(td_x86_emit("f", &p, jcc, 0x10000000, out, &err), 0);
    static const uint8_t want_jcc[] = { 0x0f, 0x84, 2, 0, 0, 0, 0xeb, 14, 0xff, 0x25, 0, 0, 0, 0 };
    assert_memory_equal(out, want_jcc, sizeof want_jcc);
    memcpy(&q, out + sizeof want_jcc, 8);
    assert_int_equal(q, entry + 6 + 0x1000);
    /* jrcxz and loop keep their condition the same way */
    static const uint8_t jrcxz[] = { 0xe3, 0x10, 0xe2, 0xfc, 0x90 };
    assert_int_equal(plan(jrcxz, sizeof jrcxz, entry, 5, &p, &err), 0);
    assert_int_equal(p.n, 3);
    assert_int_equal(p.insn[0].kind, TD_X86_JCC);
    assert_int_equal(p.insn[1].kind, TD_X86_JCC);
    assert_int_equal(p.insn[1].internal, 0); /* loop to the entry: to its copy */
    assert_int_equal(td_x86_emit("f", &p, jrcxz, 0x10000000, out, &err), 0);
    assert_int_equal(out[0], 0xe3);
    assert_int_equal(out[1], 2);
    memcpy(&q, out + 18 + 2 + 2 + 6, 8);
    assert_int_equal(q, 0x10000000); /* loop goes to the trampoline's jrcxz */
    /* call rel32: absolute call returning into the trampoline */
    static const uint8_t call[] = { 0xe8, 0x00, 0x01, 0x00, 0x00, 0xc3 };
    assert_int_equal(plan(call, sizeof call, entry, 5, &p, &err), 0);
    assert_int_equal(td_x86_emit("f", &p, call, 0x10000000, out, &err), 0);
    static const uint8_t want_call[] = { 0xff, 0x15, 2, 0, 0, 0, 0xeb, 8 };
    assert_memory_equal(out, want_call, 8);
    memcpy(&q, out + 8, 8);
    assert_int_equal(q, entry + 5 + 0x100);
    /* the same call is not the last of 14 bytes: refused */
    static const uint8_t call2[] = { 0xe8, 0x00, 0x01, 0x00, 0x00, 0x48, 0x89, 0xe5, 0x48, 0x89, 0xe5,
                                     0x48, 0x89, 0xe5, 0x48, 0x89, 0xe5, 0xc3 };
    assert_int_equal(plan(call2, sizeof call2, entry, 14, &p, &err), TD_PE_INSN);
    assert_non_null(strstr(err.msg, "call"));
    /* jmp rel8 as the only instruction of a 2-byte stub: short */
    static const uint8_t jmp8[] = { 0xeb, 0x10, 0x90, 0x90, 0x90 };
    assert_int_equal(plan(jmp8, sizeof jmp8, entry, 5, &p, &err), TD_PE_SHORT);
    /* a 5-byte tail jump is fine */
    static const uint8_t jmp32[] = { 0xe9, 0x00, 0x00, 0x10, 0x00 };
    assert_int_equal(plan(jmp32, sizeof jmp32, entry, 5, &p, &err), 0);
    assert_int_equal(p.insn[0].kind, TD_X86_JMP);
    /* a branch into the middle of a moved instruction */
    static const uint8_t mid[] = { 0x74, 0x01, 0xb8, 0x01, 0x00, 0x00, 0x00, 0xc3 };
    assert_int_equal(plan(mid, sizeof mid, entry, 5, &p, &err), TD_PE_INSN);
}

static void test_x86_refusals(void **state)
{
    (void)state;
    struct td_x86_plan p;
    struct td_perr err;
    static const uint8_t ret[] = { 0xc3, 0x90, 0x90, 0x90, 0x90, 0x90 };
    assert_int_equal(plan(ret, sizeof ret, 0x1000, 5, &p, &err), TD_PE_SHORT);
    static const uint8_t int3[] = { 0xcc, 0x90, 0x90, 0x90, 0x90, 0x90 };
    assert_int_equal(plan(int3, sizeof int3, 0x1000, 5, &p, &err), TD_PE_INSN);
    assert_non_null(strstr(err.msg, "breakpoint"));
    static const uint8_t ud2[] = { 0x0f, 0x0b, 0x90, 0x90, 0x90, 0x90 };
    assert_int_equal(plan(ud2, sizeof ud2, 0x1000, 5, &p, &err), TD_PE_INSN);
    static const uint8_t xbegin[] = { 0xc7, 0xf8, 0, 0, 0, 0, 0x90 };
    assert_int_equal(plan(xbegin, sizeof xbegin, 0x1000, 5, &p, &err), TD_PE_INSN);
    assert_non_null(strstr(err.msg, "xbegin"));
    static const uint8_t eip[] = { 0x67, 0x8b, 0x05, 1, 2, 3, 4, 0xc3 };
    assert_int_equal(plan(eip, sizeof eip, 0x1000, 5, &p, &err), TD_PE_INSN);
    assert_non_null(strstr(err.msg, "eip-relative"));
    static const uint8_t bad[] = { 0x06, 0x90, 0x90, 0x90, 0x90, 0x90 };
    assert_int_equal(plan(bad, sizeof bad, 0x1000, 5, &p, &err), TD_PE_DECODE);
    static const uint8_t cut[] = { 0x48, 0x8b, 0x05, 1, 2 };
    assert_int_equal(plan(cut, sizeof cut, 0x1000, 5, &p, &err), TD_PE_DECODE);
    assert_int_equal(td_x86_plan("f", cut, sizeof cut, 0x1000, 0, 5, &p, &err), TD_PE_DECODE);
    /* an instruction that ends past the symbol's size */
    static const uint8_t past[] = { 0x90, 0x48, 0x8b, 0x05, 1, 2, 3, 4 };
    assert_int_equal(td_x86_plan("f", past, sizeof past, 0x1000, 4, 5, &p, &err), TD_PE_SHORT);
    /* the body scan: a loop back to +2 of a 6-byte range */
    static const uint8_t head[] = { 0x31, 0xc0, 0x01, 0xf8, 0xff, 0xcf, 0x75, 0xfa, 0xc3 };
    assert_int_equal(plan(head, sizeof head, 0x1000, 5, &p, &err), 0);
    size_t used;
    assert_int_equal(td_x86_scan("f", &p, head + 6, 3, 0x1006, 1, &used, &err), TD_PE_BRANCH);
    /* a cut instruction at the end of a chunk waits for the next one */
    static const uint8_t chunk[] = { 0x90, 0x48, 0x8b };
    assert_int_equal(td_x86_scan("f", &p, chunk, sizeof chunk, 0x2000, 0, &used, &err), 0);
    assert_int_equal(used, 1);
    assert_int_equal(td_x86_scan("f", &p, chunk, sizeof chunk, 0x2000, 1, &used, &err), TD_PE_DECODE);
}

/* ---- patches of this process's functions -------------------------------- */

static void test_patch_prologues(void **state)
{
    (void)state;
    roundtrip2("tp_fp", tp_fp, 0, 3, 4, 5);
    roundtrip2("tp_fp2", tp_fp2, 0, 6, 7, 5);
    roundtrip2("tp_nofp", tp_nofp, 0, 5, 6, 5);
    roundtrip2("tp_fp", tp_fp, TD_PATCH_ABS, 3, 4, 14);
    roundtrip2("tp_fp2", tp_fp2, TD_PATCH_ABS, 6, 7, 14);
}

static void test_patch_rip_relative(void **state)
{
    (void)state;
    static const int args[] = { 0, 5, -7 };
    roundtrip1("tp_rip", tp_rip, 0, args, 3);
    roundtrip1("tp_rip", tp_rip, TD_PATCH_ABS, args, 3);
    tp_flag = 0;
    roundtrip1("tp_ripimm", tp_ripimm, 0, args, 3);
    tp_flag = 1;
    roundtrip1("tp_ripimm", tp_ripimm, TD_PATCH_ABS, args, 3);
    tp_flag = 0;
}

static void test_patch_branches(void **state)
{
    (void)state;
    static const int args[] = { 0, 5, -7 };
    roundtrip1("tp_jcc", tp_jcc, 0, args, 3);
    roundtrip1("tp_jcc", tp_jcc, TD_PATCH_ABS, args, 3);
    roundtrip1("tp_jcc32", tp_jcc32, 0, args, 3);
    roundtrip1("tp_call", tp_call, 0, args, 3);
    roundtrip1("tp_internal", tp_internal, 0, args, 3);
    struct td_patch p;
    struct td_perr err;
    assert_int_equal(prep("tp_internal", (void *)repl1, TD_PATCH_ABS, &p, &err), 0);
    assert_int_equal(p.covered, 14);
    roundtrip1("tp_internal", tp_internal, TD_PATCH_ABS, args, 3);
}

static void test_patch_refused(void **state)
{
    (void)state;
    expect_refused("tp_short", 0, TD_PE_SHORT, "3 bytes long");
    expect_refused("tp_loop", 0, TD_PE_BRANCH, "inside the instructions the patch overwrites");
    expect_refused("tp_selfref", 0, TD_PE_BRANCH, "uses the address +2");
    expect_refused("tp_int3", 0, TD_PE_INSN, "breakpoint");
    expect_refused("tp_baddata", 0, TD_PE_DECODE, "not an instruction");
    expect_refused("tp_call", TD_PATCH_ABS, TD_PE_INSN, "not the last instruction");
    /* without the body check the loop is not seen (the caller's choice) */
    struct td_patch p;
    struct td_perr err;
    assert_int_equal(prep("tp_loop", (void *)repl1, TD_PATCH_NO_BODY_CHECK, &p, &err), 0);
    assert_false(p.body_checked);
    assert_int_equal(td_patch_prepare(self_pt, "x", 0, 0, ADDR(repl1), 0, &p, &err), TD_PE_INVAL);
    /* an unmapped address */
    assert_int_equal(td_patch_prepare(self_pt, "nowhere", 8, 0, ADDR(repl1), 0, &p, &err), TD_PE_MEM);
    assert_non_null(strstr(err.msg, "nowhere"));
}

/* glibc's own strtol (code nobody here wrote): it starts with a
 * rip-relative load (the TLS offset of the locale) and ends with a jmp */
static long (*volatile orig_strtol)(const char *, char **, int);
static long repl_strtol(const char *s, char **end, int base)
{
    return orig_strtol(s, end, base) + 1000000;
}

static void test_patch_libc(void **state)
{
    (void)state;
    struct libc_find f = { 0 };
    assert_int_equal(td_maps_foreach(0, libc_map_cb, &f), 0);
    struct td_elf *e;
    struct td_perr err;
    uint64_t bias;
    assert_int_equal(td_elf_open(f.path, 0, &e, &err), 0);
    assert_int_equal(td_elf_bias_for_mapping(e, f.start, f.offset, &bias, &err), 0);
    td_elf_set_bias(e, bias);
    struct td_elf_sym s;
    assert_int_equal(td_elf_find_func(e, "strtol", &s, &err), 0);
    /* called at its address: a sanitizer's interceptor would sit in front */
    long (*volatile call)(const char *, char **, int) = (long (*)(const char *, char **, int))(uintptr_t)s.addr;
    unsigned char before[32];
    memcpy(before, (void *)(uintptr_t)s.addr, sizeof before);
    for (unsigned flags = 0; flags <= TD_PATCH_ABS; flags += TD_PATCH_ABS) {
        struct td_patch p;
        int rc = td_patch_prepare(self_pt, "strtol", s.addr, s.size, ADDR(repl_strtol), flags, &p, &err);
        if (rc)
            fprintf(stderr, "%s\n", err.msg);
        assert_int_equal(rc, 0);
        assert_true(p.body_checked);
        orig_strtol = (long (*)(const char *, char **, int))(uintptr_t)p.original;
        assert_int_equal(td_patch_apply(self_pt, &p, 0, &err), 0);
        char *end;
        static const char num[] = "  -12345xyz";
        assert_int_equal(call(num, &end, 10), 1000000 - 12345);
        assert_ptr_equal(end, num + 8);
        assert_int_equal(call("7f", NULL, 16), 1000000 + 0x7f);
        assert_int_equal(orig_strtol("42", NULL, 10), 42);
        assert_int_equal(td_patch_undo(self_pt, &p, 0, &err), 0);
        assert_memory_equal(before, (void *)(uintptr_t)s.addr, sizeof before);
        assert_int_equal(call("42", NULL, 10), 42);
    }
    td_elf_close(e);
}

/* two patches of one function: the second moves the first one's jump;
 * the bytes must be the expected ones for each write */
static void test_patch_stacked(void **state)
{
    (void)state;
    int (*volatile call)(int, int) = tp_fp;
    unsigned char before[16];
    memcpy(before, (void *)tp_fp, sizeof before);
    struct td_patch a, b, c;
    struct td_perr err;
    assert_int_equal(prep("tp_fp", (void *)repl2, 0, &a, &err), 0);
    assert_int_equal(prep("tp_fp", (void *)repl2, 0, &c, &err), 0);
    orig2 = (int (*)(int, int))(uintptr_t)a.original;
    assert_int_equal(td_patch_apply(self_pt, &a, 0, &err), 0);
    assert_int_equal(td_patch_apply(self_pt, &c, 0, &err), TD_PE_CHANGED); /* prepared before a */
    assert_memory_equal((void *)tp_fp, a.bytes, a.len);
    assert_int_equal(call(1, 2), 51);
    /* b on top of a: its trampoline holds a's jump, made absolute */
    assert_int_equal(prep("tp_fp", (void *)repl2b, 0, &b, &err), 0);
    orig2b = (int (*)(int, int))(uintptr_t)b.original;
    assert_int_equal(orig2b(1, 2), 51); /* b's original is a's replacement */
    assert_int_equal(td_patch_apply(self_pt, &b, 0, &err), 0);
    assert_int_equal(td_patch_undo(self_pt, &a, 0, &err), TD_PE_CHANGED); /* b is on top */
    assert_int_equal(call(1, 2), 5102);
    assert_int_equal(td_patch_apply(self_pt, &b, 0, &err), TD_PE_INVAL);
    assert_int_equal(td_patch_undo(self_pt, &b, 0, &err), 0);
    assert_int_equal(td_patch_undo(self_pt, &a, 0, &err), 0);
    assert_memory_equal(before, (void *)tp_fp, sizeof before);
    assert_int_equal(call(1, 2), 5);
}

/* a mapper that finds nothing within +-2 GiB: the 14-byte jump, with its
 * trampoline anywhere, unless rip-relative operands need it near */
static int far_map(void *ctx, uint64_t lo, uint64_t hi, size_t size, uint64_t *addr)
{
    if (hi - lo < (1ULL << 34))
        return -ENOMEM;
    return td_patch_mem_self.map(ctx, lo, hi, size, addr);
}

static void test_patch_no_island_near(void **state)
{
    (void)state;
    struct td_patch_mem mem = td_patch_mem_self;
    mem.map = far_map;
    struct td_patcher *pt = td_patcher_new(&mem);
    struct td_patcher *saved = self_pt;
    self_pt = pt;
    struct td_patch p;
    struct td_perr err;
    /* a replacement out of reach of a 5-byte jump: abs() in the C library */
    void *far = dlsym(RTLD_DEFAULT, "abs");
    int64_t d = (int64_t)(ADDR(far) - ADDR(tp_fp2));
    if (d > INT32_MIN && d < INT32_MAX) {
        printf("SKIP: the C library is within 2 GiB of the program: no far replacement\n");
    } else {
        assert_int_equal(prep("tp_fp2", far, 0, &p, &err), 0);
        assert_int_equal(p.len, 14);
        assert_int_equal(td_patch_apply(pt, &p, 0, &err), 0);
        int (*volatile call)(int, int) = tp_fp2;
        assert_int_equal(call(-6, 7), 6);
        assert_int_equal(((int (*)(int, int))(uintptr_t)p.original)(-6, 7), -42);
        assert_int_equal(td_patch_undo(pt, &p, 0, &err), 0);
        assert_int_equal(call(-6, 7), -42);
    }
    self_pt = saved;
    self_pt = pt;
    expect_refused("tp_rip", 0, TD_PE_RANGE, "no free memory for a trampoline within reach");
    self_pt = saved;
    td_patcher_free(pt);
}

/* other threads call the function while it is patched and restored */
struct hot {
    int (*volatile f)(int);
    volatile int stop;
    long calls, bad;
};

static int hot_want;

static void *hot_thread(void *arg)
{
    struct hot *h = arg;
    while (!__atomic_load_n(&h->stop, __ATOMIC_RELAXED)) {
        int r = h->f(3);
        if (r != hot_want && r != hot_want * 10 + 1)
            __atomic_add_fetch(&h->bad, 1, __ATOMIC_RELAXED);
        __atomic_add_fetch(&h->calls, 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

static void hammer(const char *name, int (*f)(int), unsigned flags, unsigned len)
{
    struct hot h = { .f = f };
    hot_want = f(3);
    struct td_patch p;
    struct td_perr err;
    assert_int_equal(prep(name, (void *)repl1, flags, &p, &err), 0);
    assert_int_equal(p.len, len);
    assert_int_equal(p.covered, len); /* one instruction: no thread can be inside it */
    orig1 = (int (*)(int))(uintptr_t)p.original;
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&t[i], NULL, hot_thread, &h), 0);
    for (int i = 0; i < 200; i++) {
        assert_int_equal(td_patch_apply(self_pt, &p, 0, &err), 0);
        assert_int_equal(td_patch_undo(self_pt, &p, 0, &err), 0);
    }
    __atomic_store_n(&h.stop, 1, __ATOMIC_RELAXED);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    assert_int_equal(h.bad, 0);
    assert_true(h.calls > 0);
}

static void test_patch_running_threads(void **state)
{
    (void)state;
    assert_int_equal(ADDR(tp_hot) % 8, 0);
    assert_int_equal(ADDR(tp_hot_odd) % 8, 4);
    hammer("tp_hot", tp_hot, 0, 5);         /* one compare-and-swap */
    hammer("tp_hot_odd", tp_hot_odd, 0, 5); /* jmp . first, then the rest */
    hammer("tp_hot_abs", tp_hot_abs, TD_PATCH_ABS, 14);
    printf("running threads: membarrier core serialisation %s\n",
           td_patch_self_sync_core() ? "used" : "not available");
}

/* ---- threads --------------------------------------------------------- */

static void test_threads_inside(void **state)
{
    (void)state;
    struct td_patch p = { .addr = 0x1000, .len = 5, .covered = 7 };
    struct td_range r[2] = { td_patch_busy_range(&p), { 0x2000, 0x2010 } };
    assert_int_equal(r[0].lo, 0x1001);
    assert_int_equal(r[0].hi, 0x1007);
    struct td_thread_ip t[4] = { { 1, 0x1000, 0 }, { 2, 0x1007, 0 }, { 3, 0x0fff, 0 }, { 4, 0x3000, 0 } };
    size_t which = 99;
    int restart = 9;
    assert_int_equal(td_threads_inside(r, 2, t, 4, &which, &restart), -1);
    t[2].ip = 0x1003;
    assert_int_equal(td_threads_inside(r, 2, t, 4, &which, &restart), 2);
    assert_int_equal(which, 0);
    assert_int_equal(restart, 0);
    t[2].ip = 0x0fff;
    t[3] = (struct td_thread_ip){ 4, 0x2011, 1 }; /* would restart the syscall at 0x200f */
    assert_int_equal(td_threads_inside(r, 2, t, 4, &which, &restart), 3);
    assert_int_equal(which, 1);
    assert_int_equal(restart, 1);
    t[3].in_syscall = 0;
    assert_int_equal(td_threads_inside(r, 2, t, 4, NULL, NULL), -1);
}

/* ---- remote: a ptraced child ---------------------------------------- */

struct child {
    pid_t pid;
    int to[2], from[2];
};

/* the child: 'c' computes with the patched functions, 'q' leaves */
static void child_loop(struct child *c, struct libs *L)
{
    char cmd;
    while (read(c->to[0], &cmd, 1) == 1 && cmd == 'c') {
        int r[3] = { tp_jcc(5), tp_rip(3), L->user_add(2, 3) };
        if (write(c->from[1], r, sizeof r) != (ssize_t)sizeof r)
            break;
    }
    _exit(0);
}

static void child_results(struct child *c, int r[3])
{
    assert_int_equal(write(c->to[1], "c", 1), 1);
    assert_int_equal(read(c->from[0], r, 3 * sizeof(int)), 3 * (ssize_t)sizeof(int));
}

static void child_stop(struct child *c)
{
    int st;
    assert_int_equal(ptrace(PTRACE_INTERRUPT, c->pid, 0, 0), 0);
    assert_int_equal(waitpid(c->pid, &st, __WALL), c->pid);
    assert_true(WIFSTOPPED(st));
}

static void child_cont(struct child *c)
{
    assert_int_equal(ptrace(PTRACE_CONT, c->pid, 0, 0), 0);
}

/* run one system call in the stopped child, as the supervisor will: at the
 * syscall instruction it is stopped after, with orig_rax = -1 so that no
 * restart logic applies, then every register back */
static long remote_syscall(pid_t pid, long nr, long a1, long a2, long a3, long a4, long a5, long a6)
{
    struct user_regs_struct saved, r;
    if (ptrace(PTRACE_GETREGS, pid, 0, &saved) != 0)
        return -errno;
    errno = 0;
    long word = ptrace(PTRACE_PEEKTEXT, pid, (void *)(saved.rip - 2), 0);
    if (errno || (word & 0xffff) != 0x050f)
        return -ENOSYS; /* not stopped in a system call: the test expects it to be */
    r = saved;
    r.rax = (unsigned long long)nr;
    r.rdi = (unsigned long long)a1;
    r.rsi = (unsigned long long)a2;
    r.rdx = (unsigned long long)a3;
    r.r10 = (unsigned long long)a4;
    r.r8 = (unsigned long long)a5;
    r.r9 = (unsigned long long)a6;
    r.orig_rax = (unsigned long long)-1;
    r.rip = saved.rip - 2;
    int st;
    if (ptrace(PTRACE_SETREGS, pid, 0, &r) != 0 || ptrace(PTRACE_SINGLESTEP, pid, 0, 0) != 0 ||
        waitpid(pid, &st, __WALL) != pid || !WIFSTOPPED(st) || ptrace(PTRACE_GETREGS, pid, 0, &r) != 0)
        return -EIO;
    long ret = (long)r.rax;
    if (ptrace(PTRACE_SETREGS, pid, 0, &saved) != 0)
        return -EIO;
    return ret;
}

static int inject_mmap(void *arg, uint64_t lo, uint64_t hi, size_t size, uint64_t *addr)
{
    struct child *c = arg;
    uint64_t hint;
    int rc = td_maps_find_gap(c->pid, lo, hi, size, &hint);
    if (rc)
        return rc;
    long r = remote_syscall(c->pid, SYS_mmap, (long)hint, (long)size, PROT_READ | PROT_EXEC,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (r < 0 && r > -4096)
        return (int)r;
    if ((uint64_t)r != hint)
        return -ENOMEM;
    *addr = hint;
    return 0;
}

struct island_seen {
    uint64_t addr;
    int prot;
    int anon;
};

static int island_cb(const struct td_map *m, void *arg)
{
    struct island_seen *s = arg;
    if (s->addr >= m->start && s->addr < m->end) {
        s->prot = m->prot;
        s->anon = !m->path[0];
        return 1;
    }
    return 0;
}

static void test_remote(void **state)
{
    (void)state;
    if (!have_cc())
        skip();
    struct libs L;
    load_libs(&L, "libuser_remote.so", "-Wl,-z,now", RTLD_NOW);
    struct child c;
    assert_int_equal(pipe(c.to), 0);
    assert_int_equal(pipe(c.from), 0);
    fflush(NULL);
    c.pid = fork();
    assert_true(c.pid >= 0);
    if (c.pid == 0)
        child_loop(&c, &L);
    int want[3], got[3];
    want[0] = tp_jcc(5);
    want[1] = tp_rip(3);
    want[2] = L.user_add(2, 3);
    assert_int_equal(ptrace(PTRACE_SEIZE, c.pid, 0, PTRACE_O_EXITKILL), 0);
    child_results(&c, got);
    assert_memory_equal(got, want, sizeof want);

    child_stop(&c);
    struct td_procmem pm;
    struct td_perr err;
    assert_int_equal(td_procmem_open(&pm, c.pid, inject_mmap, &c, &err), 0);
    struct td_patch_mem mem = td_procmem_ops(&pm);
    struct td_patcher *pt = td_patcher_new(&mem);
    struct td_patch pj, pr;
    struct td_elf_sym sj = lookup("tp_jcc"), sr = lookup("tp_rip");
    assert_int_equal(td_patch_prepare(pt, "tp_jcc", sj.addr, sj.size, ADDR(repl1), 0, &pj, &err), 0);
    assert_int_equal(td_patch_prepare(pt, "tp_rip", sr.addr, sr.size, ADDR(repl1b), 0, &pr, &err), 0);
    /* the trampolines are in the child, in memory it mapped near the code */
    struct island_seen is = { pj.island, -1, 0 };
    td_maps_foreach(c.pid, island_cb, &is);
    assert_int_equal(is.prot, PROT_READ | PROT_EXEC);
    assert_true(is.anon);
    assert_int_equal(prot_of(pj.island), -1); /* not here */
    int64_t dist = (int64_t)(pj.island - sj.addr);
    assert_true(dist > INT32_MIN && dist < INT32_MAX);
    /* the replacements' pointers to the originals, in the child */
    uint64_t o1 = pj.original;
    assert_int_equal(mem.write(mem.ctx, ADDR(&orig1), &o1, sizeof o1), 0);
    uint64_t o2 = pr.original;
    assert_int_equal(mem.write(mem.ctx, ADDR(&orig1b), &o2, sizeof o2), 0);

    /* no thread inside the bytes about to change */
    struct user_regs_struct regs;
    assert_int_equal(ptrace(PTRACE_GETREGS, c.pid, 0, &regs), 0);
    struct td_thread_ip t = { c.pid, regs.rip, (long)regs.orig_rax >= 0 };
    struct td_range busy[2] = { td_patch_busy_range(&pj), td_patch_busy_range(&pr) };
    assert_int_equal(td_threads_inside(busy, 2, &t, 1, NULL, NULL), -1);

    /* live replacement in another process needs its threads stopped */
    assert_int_equal(td_patch_apply(pt, &pj, 0, &err), TD_PE_UNSAFE);
    assert_non_null(strstr(err.msg, "TD_PATCH_STOPPED"));
    assert_int_equal(td_patch_apply(pt, &pj, TD_PATCH_STOPPED, &err), 0);
    assert_int_equal(td_patch_apply(pt, &pr, TD_PATCH_STOPPED, &err), 0);
    struct td_got_patch g;
    assert_int_equal(td_got_set(pt, L.add_slot, ADDR(repl_add), TD_PATCH_STOPPED, &g, &err), 0);
    /* this process is untouched */
    assert_int_equal(tp_jcc(5), want[0]);
    assert_int_equal(L.user_add(2, 3), want[2]);
    child_cont(&c);
    child_results(&c, got);
    assert_int_equal(got[0], want[0] * 10 + 1);
    assert_int_equal(got[1], want[1] * 100 + 2);
    assert_int_equal(got[2], 1005);

    child_stop(&c);
    assert_int_equal(td_patch_undo(pt, &pj, TD_PATCH_STOPPED, &err), 0);
    assert_int_equal(td_patch_undo(pt, &pr, TD_PATCH_STOPPED, &err), 0);
    assert_int_equal(td_got_undo(pt, &g, TD_PATCH_STOPPED, &err), 0);
    unsigned char back[16];
    assert_int_equal(mem.read(mem.ctx, sj.addr, back, sizeof back), 0);
    assert_memory_equal(back, (void *)tp_jcc, sizeof back);
    assert_int_equal(mem.read(mem.ctx, sr.addr, back, sizeof back), 0);
    assert_memory_equal(back, (void *)tp_rip, sizeof back);
    child_cont(&c);
    child_results(&c, got);
    assert_memory_equal(got, want, sizeof want);

    assert_int_equal(write(c.to[1], "q", 1), 1);
    int st;
    assert_int_equal(waitpid(c.pid, &st, __WALL), c.pid);
    while (!WIFEXITED(st) && !WIFSIGNALED(st)) {
        ptrace(PTRACE_CONT, c.pid, 0, 0);
        assert_int_equal(waitpid(c.pid, &st, __WALL), c.pid);
    }
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    td_patcher_free(pt);
    td_procmem_close(&pm);
    for (int i = 0; i < 2; i++) {
        close(c.to[i]);
        close(c.from[i]);
    }
    unload_libs(&L);
}

static void test_maps_gap(void **state)
{
    (void)state;
    uint64_t a;
    uint64_t code = ADDR(tp_fp);
    assert_int_equal(td_maps_find_gap(0, code - (1ULL << 31), code + (1ULL << 31), 1 << 16, &a), 0);
    assert_int_equal(a % 4096, 0);
    assert_int_equal(prot_of(a), -1);
    assert_int_equal(prot_of(a + (1 << 16) - 1), -1);
    /* a window inside this mapping: nothing */
    assert_int_equal(td_maps_find_gap(0, code, code, 4096, &a), -ENOMEM);
    assert_int_equal(td_maps_find_gap(0, 10, 5, 4096, &a), -EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_elf_self),
        cmocka_unit_test(test_elf_foreach),
        cmocka_unit_test(test_elf_libc_dlopen),
        cmocka_unit_test(test_elf_rejects),
        cmocka_unit_test(test_elf_built_program),
        cmocka_unit_test(test_elf_ambiguous_local),
        cmocka_unit_test(test_got_rewrite),
        cmocka_unit_test(test_got_lazy),
        cmocka_unit_test(test_x86_rip_window),
        cmocka_unit_test(test_x86_branches),
        cmocka_unit_test(test_x86_refusals),
        cmocka_unit_test(test_patch_prologues),
        cmocka_unit_test(test_patch_rip_relative),
        cmocka_unit_test(test_patch_branches),
        cmocka_unit_test(test_patch_refused),
        cmocka_unit_test(test_patch_libc),
        cmocka_unit_test(test_patch_stacked),
        cmocka_unit_test(test_patch_no_island_near),
        cmocka_unit_test(test_patch_running_threads),
        cmocka_unit_test(test_threads_inside),
        cmocka_unit_test(test_maps_gap),
        cmocka_unit_test(test_remote),
    };
    return cmocka_run_group_tests_name("patch", tests, setup_tmp, teardown_tmp);
}
