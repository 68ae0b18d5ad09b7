/* SPDX-License-Identifier: Apache-2.0 */
// Shared by the conformance programs: each check prints "ok NAME" or
// "FAIL NAME: why"; the program exits with the number of failures. CUDA
// errors are failures (the program goes on to the next check).
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

static int failures;

static bool check(bool ok, const char *name, const char *fmt = "", ...) __attribute__((format(printf, 3, 4)));
static bool check(bool ok, const char *name, const char *fmt, ...)
{
    if (ok) {
        printf("ok   %s\n", name);
        return true;
    }
    printf("FAIL %s: ", name);
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    failures++;
    return false;
}

// a CUDA call that must succeed; false (and a failure) if it did not
#define CK(x) ck_((x), #x, __LINE__)
static bool ck_(cudaError_t e, const char *what, int line)
{
    if (e == cudaSuccess) return true;
    printf("FAIL line %d: %s: %s (%s)\n", line, what, cudaGetErrorName(e), cudaGetErrorString(e));
    failures++;
    return false;
}

// a launch and its completion
#define LAUNCHED(name) launched_(name, __LINE__)
static bool launched_(const char *name, int line)
{
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e == cudaSuccess) return true;
    printf("FAIL %s (line %d): %s (%s)\n", name, line, cudaGetErrorName(e), cudaGetErrorString(e));
    failures++;
    return false;
}

static int finish(const char *prog)
{
    printf("%s: %d failure%s\n", prog, failures, failures == 1 ? "" : "s");
    return failures ? 1 : 0;
}
