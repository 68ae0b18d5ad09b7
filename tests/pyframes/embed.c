/* SPDX-License-Identifier: Apache-2.0 */
/* A program that is not Python, and then embeds it:
 *   embed LIBPYTHON local|global [noread]
 * Before: no Python, and a read reads nothing (not one system call).
 * Then it dlopens LIBPYTHON (RTLD_LOCAL: only the loader's list of objects
 * shows it; RTLD_GLOBAL: dlsym finds it), and the reader must find it
 * without being told. It runs a script with a C profile function that
 * reads the frames at each call of a C function from Python, as a CUDA
 * call from Python would be read, and a C thread reads too. After
 * Py_FinalizeEx, reads stop. Once Python is found, no read allocates.
 * With noread, a seccomp filter forbids process_vm_readv first (as some
 * containers do): Python is found and refused, with the reason.
 * Prints what it sees; tests/pyframes/run.sh compares it exactly. */
#include <dlfcn.h>
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "allocs.h"
#include "pyframes.h"

static struct td_pyframe fr[16];
static char str[4096];

/* one read; with `counted`, says if it allocated */
static void show(const char *when, int counted)
{
    struct td_pyread r = { .frames = fr, .max = 16, .str = str, .str_size = sizeof(str) };
    long a0 = allocs();
    td_py_read(&r);
    long a1 = allocs();
    printf("%s: %s", when, td_py_status_name(r.status));
    for (unsigned i = 0; i < r.n; i++)
        printf(" [%s:%d in %s]", str + fr[i].file, fr[i].line, str + fr[i].func);
    if (counted && (a0 < 0 || a1 != a0))
        printf(" (allocations: %ld)", a0 < 0 ? -1 : a1 - a0);
    printf("\n");
}

static void *cthread(void *arg)
{
    (void)arg;
    show("C thread", 1);
    return NULL;
}

#define PYTRACE_C_CALL 4

static int profile(void *obj, void *frame, int what, void *arg)
{
    (void)obj;
    (void)frame;
    (void)arg;
    if (what == PYTRACE_C_CALL)
        show("C call", 1);
    return 0;
}

/* process_vm_readv fails with EPERM from here on */
static int forbid_reads(void)
{
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_process_vm_readv, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };
    return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
}

static const char script[] = "def inner():\n"
                             "    return abs(-4)\n"
                             "inner()\n";

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    if (argc > 3 && strcmp(argv[3], "noread") == 0 && forbid_reads() != 0) {
        printf("seccomp: %s\n", strerror(errno));
        return 1;
    }
    printf("state: %s\n", td_py_describe());
    show("before", 0); /* the first look may allocate (dlsym) */
    printf("system calls: %lu\n", td_py_syscalls());
    void *h = dlopen(argv[1], RTLD_NOW | (strcmp(argv[2], "local") == 0 ? RTLD_LOCAL : RTLD_GLOBAL));
    if (!h) {
        printf("dlopen: %s\n", dlerror());
        return 1;
    }
    const char *d = td_py_describe();
    int st = td_py_state();
    const char *why = strstr(d, ": not supported: ");
    if (!strstr(d, argv[1]) || (st != TD_PY_READY && (st != TD_PY_UNSUPPORTED || !why)))
        printf("found: %s\n", d);
    else
        printf("found: %s\n", st == TD_PY_READY ? "yes" : why + 2);
    show("loaded", 0); /* so may the next, after a library was loaded */
    void (*init)(int) = (void (*)(int))dlsym(h, "Py_InitializeEx");
    int (*run)(const char *) = (int (*)(const char *))dlsym(h, "PyRun_SimpleString");
    void (*setprofile)(void *, void *) = (void (*)(void *, void *))dlsym(h, "PyEval_SetProfile");
    int (*fini)(void) = (int (*)(void))dlsym(h, "Py_FinalizeEx");
    if (!init || !run || !setprofile || !fini)
        return 1;
    init(0);
    show("initialized", 1);
    pthread_t t;
    if (pthread_create(&t, NULL, cthread, NULL) != 0)
        return 1;
    pthread_join(t, NULL);
    setprofile((void *)profile, NULL);
    if (run(script) != 0)
        return 1;
    setprofile(NULL, NULL);
    if (fini() != 0)
        return 1;
    show("finalized", 1);
    return 0;
}
