/* SPDX-License-Identifier: Apache-2.0 */
/* A process tree: a forked child makes calls, then a child that execs with
 * an empty environment (env -i), whose injection tdtrace restores at the
 * execve; every process shows its own calls and exit line, and the parent
 * the children it forked, the children what they exec'd. */
#include <limits.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "tests.h"

/* as in strace, lines carry [pid N] once there is a second process */
static void calls(int prefix)
{
    char pfx[32] = "";
    if (prefix)
        snprintf(pfx, sizeof(pfx), "[pid %5d] ", (int)getpid());
    MUST(cuInit(0), CUDA_SUCCESS);
    line("%scuInit(0) = CUDA_SUCCESS", pfx);
    int v;
    MUST(cuDriverGetVersion(&v), CUDA_SUCCESS);
    line("%scuDriverGetVersion(&%d) = CUDA_SUCCESS", pfx, v);
}

int main(int argc, char **argv)
{
    if (argc > 1) { /* the exec'd child */
        calls(1);
        line("[pid %5d] +++ exited with 3 +++", (int)getpid());
        fflush(stdout);
        return 3;
    }
    calls(0);
    fflush(stdout);
    pid_t c = fork();
    if (c == 0) { /* the child says what tdtrace says of its birth: it knows both pids */
        line("[pid %5d] forked %d", (int)getppid(), (int)getpid());
        calls(1);
        line("[pid %5d] +++ exited with 0 +++", (int)getpid());
        fflush(stdout);
        _exit(0);
    }
    int st;
    waitpid(c, &st, 0);
    c = fork();
    if (c == 0) {
        char self[PATH_MAX];
        if (!realpath("/proc/self/exe", self))
            _exit(97);
        line("[pid %5d] forked %d", (int)getppid(), (int)getpid());
        line("[pid %5d] exec'd /usr/bin/env", (int)getpid());
        line("[pid %5d] exec'd %s", (int)getpid(), self);
        fflush(stdout);
        /* a scrubbed environment; a TSan build keeps only the glibc tunable
         * it needs to load (see BUGS in tdtrace(1)) */
        const char *tun = getenv("GLIBC_TUNABLES");
        char keep[256];
        snprintf(keep, sizeof(keep), "GLIBC_TUNABLES=%s", tun ? tun : "");
        if (tun)
            execl("/usr/bin/env", "env", "-i", keep, argv[0], "child", (char *)NULL);
        else
            execl("/usr/bin/env", "env", "-i", argv[0], "child", (char *)NULL);
        _exit(98);
    }
    waitpid(c, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 3)
        return 99;
    int v;
    MUST(cuDriverGetVersion(&v), CUDA_SUCCESS);
    line("[pid %5d] cuDriverGetVersion(&%d) = CUDA_SUCCESS", (int)getpid(), v);
    line("[pid %5d] +++ exited with 0 +++", (int)getpid());
    fflush(stdout);
    return 0;
}
