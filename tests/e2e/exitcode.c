/* SPDX-License-Identifier: Apache-2.0 */
/* tdtrace exits with the program's status, or dies of its signal. */
#include <signal.h>
#include <string.h>

#include "tests.h"

int main(int argc, char **argv)
{
    MUST(cuInit(0), CUDA_SUCCESS);
    line("cuInit(0) = CUDA_SUCCESS");
    if (argc > 1 && strcmp(argv[1], "segv") == 0) {
        line("+++ killed by SIGSEGV +++");
        fflush(stdout);
        signal(SIGSEGV, SIG_DFL);
        raise(SIGSEGV);
    }
    exited(7);
    return 7;
}
