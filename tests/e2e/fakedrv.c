/* SPDX-License-Identifier: Apache-2.0 */
/* Run with --backend=driver --driver=libfakedrv.so: the real-driver path,
 * and a table slot of unknown signature reached through tdtrace's
 * trampoline with all its arguments intact. */
#include "tests.h"

int main(void)
{
    MUST(cuInit(0), CUDA_SUCCESS);
    line("cuInit(0) = CUDA_SUCCESS");
    int v;
    MUST(cuDriverGetVersion(&v), CUDA_SUCCESS);
    line("cuDriverGetVersion(&%d) = CUDA_SUCCESS", v);
    const void *t = NULL;
    MUST(cuGetExportTable(&t, &tools_tls), CUDA_SUCCESS);
    line("cuGetExportTable(&%p, TOOLS_TLS) = CUDA_SUCCESS", t);
    long (*slot1)(long, long, long, long, long, long, long, long, double) =
        (long (*)(long, long, long, long, long, long, long, long, double))((void *const *)t)[1];
    long r = slot1(1, 2, 3, 4, 5, 6, 7, 1000000, 0.25);
    long want = 1 + 4 + 9 + 16 + 25 + 36 + 49 + 8000000 + 25;
    if (r != want)
        return 5;
    line("EXPORT_TABLE.slot(TOOLS_TLS, 1, 0x1, 0x2, 0x3, 0x4) = %ld", r);
    exited(0);
    return 0;
}
