/* SPDX-License-Identifier: Apache-2.0 */
/* A program tdtrace attaches to (tests/attach/run.sh): T threads run a
 * loop on the GPU until the file STOP exists, then it checks every round
 * trip, prints "result OK <rounds>" (or what went wrong) and exits 3.
 *
 * Its driver calls go two ways: cuMemAlloc_v2, cuMemcpyHtoD_v2,
 * cuMemcpyDtoH_v2 and cuMemFree_v2 through pointers obtained with
 * cuGetProcAddress at start (as the CUDA runtime does), cuMemsetD32_v2 and
 * cuCtxSynchronize by their symbols (GOT slots), or (with "dlopen PATH")
 * every one through dlsym of the driver loaded by absolute path. "map
 * FILE" maps a file executable without loading it (a decoy for tdtrace);
 * "fork" forks a child when the file READY.fork appears; "spin" adds a
 * thread calling cuCtxGetCurrent in a tight loop. Before
 * the loop it allocates 4 KiB that thread 0 reads in every round (an
 * allocation made before any attach) and writes "ready" to the file
 * READY. */
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "td_api.h"

/* a sanitizer build (make check): LeakSanitizer's exit-time scan stops
 * the threads with ptrace of its own, which fails in a process that was
 * traced; off, as in tests/e2e */
__attribute__((visibility("default"), used)) const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "detect_leaks=0";
}

enum { T = 4, WORDS = 256 };

typedef CUresult (*alloc_t)(CUdeviceptr *, size_t);
typedef CUresult (*htod_t)(CUdeviceptr, const void *, size_t);
typedef CUresult (*dtoh_t)(void *, CUdeviceptr, size_t);
typedef CUresult (*free_t)(CUdeviceptr);
typedef CUresult (*set32_t)(CUdeviceptr, unsigned, size_t);
typedef CUresult (*sync_t)(void);
typedef CUresult (*setcur_t)(CUcontext);
typedef CUresult (*getcur_t)(CUcontext *);

static alloc_t p_alloc;
static htod_t p_htod;
static dtoh_t p_dtoh;
static free_t p_free;
static set32_t p_set32;
static sync_t p_sync;
static setcur_t p_setcur;
static getcur_t p_getcur;
static CUcontext ctx;
static const char *stop_file;
static atomic_long rounds, bad;
static CUdeviceptr keep; /* allocated before any attach, used in every round, freed at the end */

/* "spin": a thread that calls cuCtxGetCurrent in a tight loop, so some
 * attach finds it inside a driver entry's first instructions */
static void *spinner(void *arg)
{
    (void)arg;
    CUcontext c;
    while (access(stop_file, F_OK) != 0)
        for (int i = 0; i < 10000; i++)
            if (p_getcur(&c) != CUDA_SUCCESS) {
                atomic_fetch_add(&bad, 1);
                return NULL;
            }
    return NULL;
}

static void *worker(void *arg)
{
    unsigned id = (unsigned)(uintptr_t)arg;
    if (p_setcur(ctx) != CUDA_SUCCESS) {
        atomic_fetch_add(&bad, 1);
        return NULL;
    }
    unsigned host[WORDS], back[WORDS];
    for (unsigned it = 0;; it++) {
        if (it % 16 == 0 && access(stop_file, F_OK) == 0)
            break;
        CUdeviceptr d;
        if (p_alloc(&d, sizeof(host)) != CUDA_SUCCESS) {
            atomic_fetch_add(&bad, 1);
            break;
        }
        for (unsigned i = 0; i < WORDS; i++)
            host[i] = id * 1000003u + it * 7919u + i;
        int ok = (id || p_dtoh(back, keep, sizeof(unsigned)) == CUDA_SUCCESS) &&
                 p_set32(d, 0xdeadbeef, WORDS) == CUDA_SUCCESS && p_sync() == CUDA_SUCCESS &&
                 p_dtoh(back, d, sizeof(back)) == CUDA_SUCCESS && back[WORDS - 1] == 0xdeadbeef &&
                 p_htod(d, host, sizeof(host)) == CUDA_SUCCESS && p_dtoh(back, d, sizeof(back)) == CUDA_SUCCESS &&
                 memcmp(host, back, sizeof(host)) == 0 && p_free(d) == CUDA_SUCCESS;
        if (!ok)
            atomic_fetch_add(&bad, 1);
        atomic_fetch_add(&rounds, 1);
        usleep(1000);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: target READY STOP [dlopen PATH]\n");
        return 2;
    }
    stop_file = argv[2];
    const char *dl = NULL;
    int forks = 0, spin = 0;
    for (int i = 3; i < argc; i++) {
        if (strcmp(argv[i], "fork") == 0) {
            forks = 1;
        } else if (strcmp(argv[i], "spin") == 0) {
            spin = 1;
        } else if (i + 1 == argc) {
            return 2;
        } else if (strcmp(argv[i], "dlopen") == 0) {
            dl = argv[++i];
        } else if (strcmp(argv[i], "map") == 0) { /* a file mapped executable, not loaded */
            int fd = open(argv[++i], O_RDONLY);
            struct stat st;
            if (fd < 0 || fstat(fd, &st) < 0 ||
                mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) == MAP_FAILED)
                return 2;
            close(fd);
        } else {
            return 2;
        }
    }
    if (dl) {
        void *h = dlopen(dl, RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            fprintf(stderr, "dlopen %s: %s\n", dl, dlerror());
            return 2;
        }
        CUresult (*init)(unsigned) = (CUresult (*)(unsigned))dlsym(h, "cuInit");
        CUresult (*get)(CUdevice *, int) = (CUresult (*)(CUdevice *, int))dlsym(h, "cuDeviceGet");
        CUresult (*create)(CUcontext *, unsigned, CUdevice) =
            (CUresult (*)(CUcontext *, unsigned, CUdevice))dlsym(h, "cuCtxCreate_v2");
        CUdevice dev;
        if (!init || !get || !create || init(0) || get(&dev, 0) || create(&ctx, 0, dev))
            return 2;
        p_alloc = (alloc_t)dlsym(h, "cuMemAlloc_v2");
        p_htod = (htod_t)dlsym(h, "cuMemcpyHtoD_v2");
        p_dtoh = (dtoh_t)dlsym(h, "cuMemcpyDtoH_v2");
        p_free = (free_t)dlsym(h, "cuMemFree_v2");
        p_set32 = (set32_t)dlsym(h, "cuMemsetD32_v2");
        p_sync = (sync_t)dlsym(h, "cuCtxSynchronize");
        p_setcur = (setcur_t)dlsym(h, "cuCtxSetCurrent");
        p_getcur = (getcur_t)dlsym(h, "cuCtxGetCurrent");
    } else {
        CUdevice dev;
        if (cuInit(0) || cuDeviceGet(&dev, 0) || cuCtxCreate_v2(&ctx, 0, dev))
            return 2;
        CUdriverProcAddressQueryResult q;
        if (cuGetProcAddress_v2("cuMemAlloc", (void **)&p_alloc, 12000, 0, &q) ||
            cuGetProcAddress_v2("cuMemcpyHtoD", (void **)&p_htod, 12000, 0, &q) ||
            cuGetProcAddress_v2("cuMemcpyDtoH", (void **)&p_dtoh, 12000, 0, &q) ||
            cuGetProcAddress_v2("cuMemFree", (void **)&p_free, 12000, 0, &q) ||
            cuGetProcAddress_v2("cuCtxSetCurrent", (void **)&p_setcur, 12000, 0, &q) ||
            cuGetProcAddress_v2("cuCtxGetCurrent", (void **)&p_getcur, 12000, 0, &q))
            return 2;
        p_set32 = cuMemsetD32_v2;
        p_sync = cuCtxSynchronize;
    }
    if (!p_alloc || !p_htod || !p_dtoh || !p_free || !p_set32 || !p_sync || !p_setcur || !p_getcur)
        return 2;
    if (p_alloc(&keep, 4096) != CUDA_SUCCESS)
        return 2;
    pthread_t th[T], sp;
    for (unsigned t = 0; t < T; t++)
        pthread_create(&th[t], NULL, worker, (void *)(uintptr_t)t);
    if (spin && pthread_create(&sp, NULL, spinner, NULL) != 0)
        return 2;
    FILE *f = fopen(argv[1], "w");
    if (!f || fprintf(f, "ready\n") < 0 || fclose(f) != 0)
        return 2;
    pid_t child = 0;
    if (forks) { /* at the file READY.fork: a child that waits for STOP (READY.child: its pid) */
        char trigger[4096], note[4096];
        snprintf(trigger, sizeof(trigger), "%s.fork", argv[1]);
        snprintf(note, sizeof(note), "%s.child", argv[1]);
        while (access(trigger, F_OK) != 0 && access(stop_file, F_OK) != 0)
            usleep(2000);
        child = fork();
        if (child == 0) {
            while (access(stop_file, F_OK) != 0)
                usleep(2000);
            _exit(0);
        }
        FILE *c = fopen(note, "w");
        if (child < 0 || !c || fprintf(c, "%d\n", (int)child) < 0 || fclose(c))
            return 2;
    }
    for (unsigned t = 0; t < T; t++)
        pthread_join(th[t], NULL);
    if (spin)
        pthread_join(sp, NULL);
    int cst;
    if (child > 0 && (waitpid(child, &cst, 0) != child || !WIFEXITED(cst) || WEXITSTATUS(cst) != 0))
        atomic_fetch_add(&bad, 1);
    if (p_free(keep) != CUDA_SUCCESS)
        atomic_fetch_add(&bad, 1);
    if (atomic_load(&bad) || atomic_load(&rounds) == 0) {
        printf("result BAD %ld of %ld\n", atomic_load(&bad), atomic_load(&rounds));
        return 1;
    }
    printf("result OK %ld\n", atomic_load(&rounds));
    return 3;
}
