/* SPDX-License-Identifier: Apache-2.0 */
/* A fork-heavy program: N children, each makes a few driver calls. */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "td_api.h"

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 200;
    for (int i = 0; i < n; i++) {
        pid_t p = fork();
        if (p == 0) {
            int v;
            cuInit(0);
            cuDriverGetVersion(&v);
            _exit(0);
        }
        int st;
        waitpid(p, &st, 0);
    }
    return 0;
}
