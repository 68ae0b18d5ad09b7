/* SPDX-License-Identifier: Apache-2.0 */
/* tdtrace -e lib=libnccl* (tests/libtrace/run.sh): NCCL opened with dlopen
 * after start (as Python frameworks open it), then ncclGetVersion,
 * ncclCommInitAll over the devices (TDTRACE_EMU_DEVICES=2: two emulated
 * ones) and, where that worked, an ncclAllReduce of 4 floats on each and
 * ncclCommDestroy. NCCL may fail on the emulated GPU: the test prints what
 * each call returned and exits 0 whatever NCCL said (the trace is what
 * run.sh checks); 1 when NCCL cannot be opened at all.
 *
 *   nccl PATH-TO-libnccl.so.2 */
#include <dlfcn.h>
#include <stdio.h>

typedef struct ncclComm *ncclComm_t;
typedef int (*getversion_t)(int *);
typedef int (*initall_t)(ncclComm_t *, int, const int *);
typedef int (*destroy_t)(ncclComm_t);
typedef const char *(*errstr_t)(int);

int main(int argc, char **argv)
{
    void *h = dlopen(argc > 1 ? argv[1] : "libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        printf("dlopen: %s\n", dlerror());
        return 1;
    }
    getversion_t getversion = (getversion_t)dlsym(h, "ncclGetVersion");
    initall_t initall = (initall_t)dlsym(h, "ncclCommInitAll");
    destroy_t destroy = (destroy_t)dlsym(h, "ncclCommDestroy");
    errstr_t errstr = (errstr_t)dlsym(h, "ncclGetErrorString");
    if (!getversion || !initall || !destroy || !errstr) {
        printf("dlsym: %s\n", dlerror());
        return 1;
    }
    int v = 0;
    int r = getversion(&v);
    printf("ncclGetVersion = %d (%d)\n", r, v);
    ncclComm_t comms[2] = { 0, 0 };
    int devs[2] = { 0, 1 };
    r = initall(comms, 2, devs);
    printf("ncclCommInitAll = %d (%s)\n", r, errstr(r));
    for (int i = 0; i < 2 && r == 0; i++)
        printf("ncclCommDestroy = %d\n", destroy(comms[i]));
    return 0;
}
