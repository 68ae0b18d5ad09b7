/* SPDX-License-Identifier: Apache-2.0 */
/* A stand-in for a real libcuda.so.1 (tdtrace --backend=driver
 * --driver=PATH): a handful of entry points, and a TOOLS_TLS export table
 * whose slot 1 takes eight integer arguments (two on the stack) and a
 * double, so the test sees that tdtrace's trampoline passes them intact. */
#include <stdint.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

EXPORT int cuInit(unsigned flags);
EXPORT int cuDriverGetVersion(int *v);
EXPORT int cuDeviceGetCount(int *n);
EXPORT int cuGetExportTable(const void **table, const unsigned char *uuid);

int cuInit(unsigned flags)
{
    return flags ? 1 : 0;
}

int cuDriverGetVersion(int *v)
{
    *v = 13010;
    return 0;
}

int cuDeviceGetCount(int *n)
{
    *n = 0;
    return 0;
}

static long slot1(long a, long b, long c, long d, long e, long f, long g, long h, double x)
{
    return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h + (long)(x * 100);
}

static void *const tools_tls[4] = { (void *)(uintptr_t)32, (void *)slot1, 0, 0 };
static const unsigned char tls_uuid[16] = { 0x42, 0xd8, 0x5a, 0x81, 0x23, 0xf6, 0xcb, 0x47,
                                            0x82, 0x98, 0xf6, 0xe7, 0x8a, 0x3a, 0xec, 0xdc };

int cuGetExportTable(const void **table, const unsigned char *uuid)
{
    if (memcmp(uuid, tls_uuid, 16) != 0)
        return 500; /* CUDA_ERROR_NOT_FOUND */
    *table = tools_tls;
    return 0;
}
