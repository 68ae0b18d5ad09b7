/* SPDX-License-Identifier: Apache-2.0 */
/* LD_PRELOADed into the Python under test: counts each thread's calls of
 * the C allocator, then lets glibc's own allocator do the work.
 * libpyft.c reads the count before and after each read of the frames. */
#include <malloc.h>
#include <stddef.h>
#include <stdlib.h>

#define API __attribute__((visibility("default")))

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void *__libc_valloc(size_t);
extern void *__libc_pvalloc(size_t);
extern void __libc_free(void *);

static __thread unsigned long count __attribute__((tls_model("initial-exec")));

API unsigned long malcount_thread(void);
API unsigned long malcount_thread(void)
{
    return count;
}

API void *malloc(size_t n)
{
    count++;
    return __libc_malloc(n);
}

API void *calloc(size_t k, size_t n)
{
    count++;
    return __libc_calloc(k, n);
}

API void *realloc(void *p, size_t n)
{
    count++;
    return __libc_realloc(p, n);
}

API void *memalign(size_t a, size_t n)
{
    count++;
    return __libc_memalign(a, n);
}

API void *aligned_alloc(size_t a, size_t n)
{
    count++;
    return __libc_memalign(a, n);
}

API int posix_memalign(void **p, size_t a, size_t n)
{
    count++;
    if (a < sizeof(void *) || (a & (a - 1)))
        return 22; /* EINVAL */
    *p = __libc_memalign(a, n);
    return *p ? 0 : 12; /* ENOMEM */
}

API void *valloc(size_t n)
{
    count++;
    return __libc_valloc(n);
}

API void *pvalloc(size_t n)
{
    count++;
    return __libc_pvalloc(n);
}

API void free(void *p)
{
    __libc_free(p);
}
