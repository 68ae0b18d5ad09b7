/* SPDX-License-Identifier: Apache-2.0 */
/* tests/pyframes: this thread's allocations so far, to check that a read
 * makes none. A preloaded libmalcount.so counts them (plain builds); under
 * a sanitizer, which owns malloc, its allocator hooks do. -1: nothing
 * counts. The first call in a process installs the hooks. */
#ifndef TD_PYFT_ALLOCS_H
#define TD_PYFT_ALLOCS_H

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

static unsigned long (*malcount)(void);
/* per thread, by thread id (a dlopened library has no static TLS to spare,
 * and dynamic TLS would allocate inside the hook) */
static _Atomic unsigned long san_allocs[4096];
static void san_malloc(const volatile void *p, size_t n)
{
    (void)p;
    (void)n;
    atomic_fetch_add_explicit(&san_allocs[syscall(SYS_gettid) & 4095], 1, memory_order_relaxed);
}
static void san_free(const volatile void *p)
{
    (void)p;
}
int __sanitizer_install_malloc_and_free_hooks(void (*)(const volatile void *, size_t),
                                              void (*)(const volatile void *)) __attribute__((weak));
static pthread_once_t count_once = PTHREAD_ONCE_INIT;
static void count_init(void)
{
    malcount = (unsigned long (*)(void))dlsym(RTLD_DEFAULT, "malcount_thread");
    if (!malcount && __sanitizer_install_malloc_and_free_hooks)
        __sanitizer_install_malloc_and_free_hooks(san_malloc, san_free);
}
static long allocs(void)
{
    pthread_once(&count_once, count_init);
    if (malcount)
        return (long)malcount();
    if (__sanitizer_install_malloc_and_free_hooks)
        return (long)atomic_load_explicit(&san_allocs[syscall(SYS_gettid) & 4095], memory_order_relaxed);
    return -1;
}

#endif
