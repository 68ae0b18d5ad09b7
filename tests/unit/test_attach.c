/* SPDX-License-Identifier: Apache-2.0 */
/* tdtrace -p's refusals (src/tdtrace/attach.c): the executable checks on
 * real and doctored ELF files (another machine, 32-bit, static, truncated,
 * not ELF, a FIFO), and the process checks (tdtrace itself, no such
 * process, a thread, a process traced already). */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "attach.h"

static char dir[64];

/* a copy of this test's own executable (x86-64, dynamically linked),
 * changed by fix(bytes, len) */
static const char *doctored(const char *name, void (*fix)(unsigned char *b, size_t *len))
{
    static char path[128];
    int in = open("/proc/self/exe", O_RDONLY);
    assert_true(in >= 0);
    struct stat st;
    assert_int_equal(fstat(in, &st), 0);
    size_t len = (size_t)st.st_size;
    unsigned char *b = malloc(len);
    assert_non_null(b);
    assert_int_equal(read(in, b, len), (ssize_t)len);
    close(in);
    if (fix)
        fix(b, &len);
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    int out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0700);
    assert_true(out >= 0);
    assert_int_equal(write(out, b, len), (ssize_t)len);
    close(out);
    free(b);
    return path;
}

static void to_aarch64(unsigned char *b, size_t *len)
{
    (void)len;
    Elf64_Ehdr *e = (Elf64_Ehdr *)b;
    e->e_machine = EM_AARCH64;
}

static void to_i386(unsigned char *b, size_t *len)
{
    (void)len;
    b[EI_CLASS] = ELFCLASS32;
    ((Elf64_Ehdr *)b)->e_machine = EM_386;
}

static void drop_interp(unsigned char *b, size_t *len)
{
    (void)len;
    Elf64_Ehdr *e = (Elf64_Ehdr *)b;
    for (unsigned i = 0; i < e->e_phnum; i++) {
        Elf64_Phdr *ph = (Elf64_Phdr *)(b + e->e_phoff + i * sizeof(Elf64_Phdr));
        if (ph->p_type == PT_INTERP)
            ph->p_type = PT_NULL;
    }
}

static void truncate_to_40(unsigned char *b, size_t *len)
{
    (void)b;
    *len = 40;
}

static void garbage_tables(unsigned char *b, size_t *len)
{
    Elf64_Ehdr *e = (Elf64_Ehdr *)b;
    e->e_shoff = (uint64_t)*len * 4; /* past the end */
    e->e_phoff = (uint64_t)-64;      /* wraps */
}

static void test_exe_ok(void **state)
{
    (void)state;
    char why[600] = "";
    assert_int_equal(td_attach_check_exe(doctored("ok", NULL), why, sizeof(why)), 0);
}

static void expect_exe(void (*fix)(unsigned char *, size_t *), const char *want)
{
    char why[600] = "";
    assert_int_equal(td_attach_check_exe(doctored("bad", fix), why, sizeof(why)), -1);
    if (!strstr(why, want))
        fail_msg("got \"%s\", want \"%s\"", why, want);
}

static void test_exe_refused(void **state)
{
    (void)state;
    expect_exe(to_aarch64, "it is a aarch64 program (ELF machine 183, class 2): tdtrace attaches to x86-64 programs only");
    expect_exe(to_i386, "it is a i386 program (ELF machine 3, class 1)");
    expect_exe(drop_interp, "it is statically linked: without a dynamic loader");
    expect_exe(truncate_to_40, "its executable cannot be read: ");
    expect_exe(garbage_tables, "its executable cannot be read");
}

static void test_exe_not_elf(void **state)
{
    (void)state;
    char why[600] = "", path[128];
    snprintf(path, sizeof(path), "%s/text", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("#!/bin/sh\necho hello, this is not ELF\n", f);
    fclose(f);
    assert_int_equal(td_attach_check_exe(path, why, sizeof(why)), -1);
    assert_non_null(strstr(why, "is not an ELF file"));
    snprintf(path, sizeof(path), "%s/fifo", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_int_equal(td_attach_check_exe(path, why, sizeof(why)), -1); /* no hang: opened non-blocking */
    assert_int_equal(td_attach_check_exe("/nonexistent/x", why, sizeof(why)), -1);
    assert_non_null(strstr(why, "cannot read its executable /nonexistent/x"));
}

static void *sleeper(void *arg)
{
    _Atomic pid_t *tid = arg;
    atomic_store(tid, (pid_t)syscall(SYS_gettid));
    pause();
    return NULL;
}

static void test_process_refused(void **state)
{
    (void)state;
    char why[600];
    assert_int_equal(td_attach_check(getpid(), why, sizeof(why)), -1);
    assert_string_equal(why, "it is tdtrace itself");
    assert_int_equal(td_attach_check(0, why, sizeof(why)), -1);
    assert_int_equal(td_attach_check(-5, why, sizeof(why)), -1);
    assert_string_equal(why, "not a process id");
    assert_int_equal(td_attach_check(0x7ffffff0, why, sizeof(why)), -1);
    assert_string_equal(why, "no such process");
    /* a thread of this process */
    pthread_t th;
    _Atomic pid_t tid = 0;
    assert_int_equal(pthread_create(&th, NULL, sleeper, (void *)&tid), 0);
    while (!atomic_load(&tid))
        usleep(1000);
    assert_int_equal(td_attach_check(atomic_load(&tid), why, sizeof(why)), -1);
    char want[128];
    snprintf(want, sizeof(want), "it is a thread of process %d: attach to the process", (int)getpid());
    assert_string_equal(why, want);
    /* a child this test traces: traced already, and by whom */
    pid_t c = fork();
    assert_true(c >= 0);
    if (c == 0) {
        pause();
        _exit(0);
    }
    assert_int_equal(ptrace(PTRACE_SEIZE, c, 0, 0), 0);
    assert_int_equal(td_attach_check(c, why, sizeof(why)), -1);
    snprintf(want, sizeof(want), "it is already traced by process %d (", (int)getpid());
    if (strncmp(why, want, strlen(want)) != 0)
        fail_msg("got \"%s\"", why);
    kill(c, SIGKILL);
    waitpid(c, NULL, __WALL);
    /* and one that can be attached to */
    c = fork();
    if (c == 0) {
        pause();
        _exit(0);
    }
    assert_int_equal(td_attach_check(c, why, sizeof(why)), 0);
    kill(c, SIGKILL);
    waitpid(c, NULL, 0);
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof(dir), "/tmp/td-attach-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* each Yama setting gets its own reason and remedy (no Yama here to set) */
static void test_eperm_text(void **state)
{
    (void)state;
    assert_non_null(strstr(td_attach_eperm_text(1), "ptrace_scope is 1"));
    assert_non_null(strstr(td_attach_eperm_text(1), "sysctl kernel.yama.ptrace_scope=0"));
    assert_non_null(strstr(td_attach_eperm_text(1), "PR_SET_PTRACER"));
    assert_non_null(strstr(td_attach_eperm_text(2), "CAP_SYS_PTRACE"));
    assert_non_null(strstr(td_attach_eperm_text(3), "until the next boot"));
    assert_non_null(strstr(td_attach_eperm_text(0), "not Yama"));
    assert_null(strstr(td_attach_eperm_text(-1), "yama"));
    assert_null(strstr(td_attach_eperm_text(7), "yama"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_eperm_text),
        cmocka_unit_test(test_exe_ok),
        cmocka_unit_test(test_exe_refused),
        cmocka_unit_test(test_exe_not_elf),
        cmocka_unit_test(test_process_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
