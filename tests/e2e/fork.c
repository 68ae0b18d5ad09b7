/* A process tree: a forked child makes calls, then a child that execs with
 * an empty environment (env -i), whose injection tdtrace restores at the
 * execve; every process shows its own calls and exit line. */
#include <sys/wait.h>

#include "tests.h"

static void calls(void)
{
    MUST(cuInit(0), CUDA_SUCCESS);
    line("[pid %5d] cuInit(0) = CUDA_SUCCESS", (int)getpid());
    int v;
    MUST(cuDriverGetVersion(&v), CUDA_SUCCESS);
    line("[pid %5d] cuDriverGetVersion(&%d) = CUDA_SUCCESS", (int)getpid(), v);
}

int main(int argc, char **argv)
{
    if (argc > 1) { /* the exec'd child */
        calls();
        line("[pid %5d] +++ exited with 3 +++", (int)getpid());
        fflush(stdout);
        return 3;
    }
    calls();
    fflush(stdout);
    pid_t c = fork();
    if (c == 0) {
        calls();
        line("[pid %5d] +++ exited with 0 +++", (int)getpid());
        fflush(stdout);
        _exit(0);
    }
    int st;
    waitpid(c, &st, 0);
    c = fork();
    if (c == 0) {
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
