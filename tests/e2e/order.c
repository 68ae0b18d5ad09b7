/* SPDX-License-Identifier: Apache-2.0 */
/* In order with the program: the program's own output and the trace share
 * a pipe or a terminal, and a line the program writes comes after the
 * calls it made before writing it. argv[1]: where to write the lines the
 * merged output must hold (calls and the program's lines, in order). */
#include <fcntl.h>
#include <string.h>

#include "tests.h"

static FILE *want;

static void mine(int i)
{
    char b[64];
    int n = snprintf(b, sizeof(b), "program line %d\n", i);
    if (write(1, b, (size_t)n) != n) /* straight to the descriptor: no stdio buffer */
        exit(98);
    fprintf(want, "program line %d\n", i);
}

int main(int argc, char **argv)
{
    if (argc < 2 || !(want = fopen(argv[1], "w")))
        return 2;
    MUST(cuInit(0), CUDA_SUCCESS);
    fprintf(want, "cuInit(0) = CUDA_SUCCESS\n");
    for (int i = 0; i < 50; i++) {
        CUdevice d;
        MUST(cuDeviceGet(&d, 0), CUDA_SUCCESS);
        fprintf(want, "cuDeviceGet(&0, 0) = CUDA_SUCCESS\n");
        mine(i);
        if (i % 10 == 9) { /* two calls, then a line on stderr */
            int v;
            MUST(cuDriverGetVersion(&v), CUDA_SUCCESS);
            fprintf(want, "cuDriverGetVersion(&%d) = CUDA_SUCCESS\n", v);
            MUST(cuDriverGetVersion(&v), CUDA_SUCCESS);
            fprintf(want, "cuDriverGetVersion(&%d) = CUDA_SUCCESS\n", v);
            char b[64];
            int n = snprintf(b, sizeof(b), "program stderr %d\n", i);
            if (write(2, b, (size_t)n) != n)
                exit(98);
            fprintf(want, "program stderr %d\n", i);
        }
    }
    fprintf(want, "+++ exited with 0 +++\n");
    fclose(want);
    return 0;
}
