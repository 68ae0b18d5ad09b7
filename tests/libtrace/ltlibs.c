/* SPDX-License-Identifier: Apache-2.0 */
/* Two small libraries for tests/libtrace/run.sh, built from this one file:
 * -DLT_INNER gives libltinner.so (lt_inner asks the driver its version),
 * else libltouter.so (lt_outer calls lt_inner), and -DLT_MAIN the program
 * that calls lt_outer. Traced with -e lib=liblt*, none of them described
 * in src/api/libs.api: lt_outer's line, lt_inner's nested beneath it and
 * cuDriverGetVersion beneath that. */
#include <stdio.h>

#if defined(LT_INNER)
#include "cuda.h"
#include "td_api.h"
__attribute__((visibility("default"))) int lt_inner(int x);
int lt_inner(int x)
{
    int v = 0;
    return cuDriverGetVersion(&v) == CUDA_SUCCESS ? x + 2 : -1;
}
#elif defined(LT_MAIN)
int lt_outer(int x);
int main(void)
{
    int r = lt_outer(5);
    printf("lt_outer(5) = %d\n", r);
    return r == 7 ? 0 : 1;
}
#else
int lt_inner(int x);
__attribute__((visibility("default"))) int lt_outer(int x);
int lt_outer(int x)
{
    return lt_inner(x);
}
#endif
