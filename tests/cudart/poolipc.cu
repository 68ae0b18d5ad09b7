// SPDX-License-Identifier: Apache-2.0
// Exportable memory pools between two processes on the emulated GPU,
// through the real CUDA runtime (the pattern of NVIDIA's
// streamOrderedAllocationIPC sample): the parent makes a pool with POSIX
// file descriptor handles, allocates from it in stream order and fills the
// memory, exports the pool (a descriptor the child inherits as fd 3) and
// each pointer (the export data in hex on the child's command line); the
// child imports the pool and the pointers, adds its index to every element
// of one and writes a pattern into the other, frees them and exits; the
// parent checks both against the host. The errors: a pool that is not
// exportable, a descriptor that is no pool's, export data naming another
// pool or memory outside the pool, allocating from an imported pool,
// unsupported handle types. Prints PASS.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "common.h"

extern char **environ;

__global__ void add_index(int *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] += i;
}

__global__ void pattern(int *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = 7 * i + 1;
}

static const int N = 300000, M = 1000;

static std::string hex(const cudaMemPoolPtrExportData &d)
{
    std::string s;
    char b[3];
    for (size_t i = 0; i < sizeof d.reserved; i++) {
        std::snprintf(b, sizeof b, "%02x", (unsigned char)d.reserved[i]);
        s += b;
    }
    return s;
}

static int unhex(const char *s, cudaMemPoolPtrExportData *d)
{
    if (std::strlen(s) != 2 * sizeof d->reserved) return -1;
    for (size_t i = 0; i < sizeof d->reserved; i++) {
        unsigned v;
        if (std::sscanf(s + 2 * i, "%2x", &v) != 1) return -1;
        d->reserved[i] = (unsigned char)v;
    }
    return 0;
}

static int child(const char *a, const char *b)
{
    cudaMemPoolPtrExportData da, db;
    if (unhex(a, &da) || unhex(b, &db)) return 2;
    CK(cudaSetDevice(0));
    cudaMemPool_t pool;
    CK(cudaMemPoolImportFromShareableHandle(&pool, (void *)(uintptr_t)3, cudaMemHandleTypePosixFileDescriptor, 0));
    cudaMemAccessDesc acc = {};
    acc.location.type = cudaMemLocationTypeDevice;
    acc.location.id = 0;
    acc.flags = cudaMemAccessFlagsProtReadWrite;
    CK(cudaMemPoolSetAccess(pool, &acc, 1));
    int *pa, *pb;
    CK(cudaMemPoolImportPointer((void **)&pa, pool, &da));
    CK(cudaMemPoolImportPointer((void **)&pb, pool, &db));
    add_index<<<(N + 255) / 256, 256>>>(pa, N);
    pattern<<<(M + 255) / 256, 256>>>(pb, M);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    // an imported pool gives no allocations; export data with its offset
    // moved past the pool's memory names nothing
    int *x = nullptr;
    EXPECT(cudaMallocFromPoolAsync((void **)&x, 64, pool, 0) != cudaSuccess);
    cudaGetLastError();
    cudaMemPoolPtrExportData bad = db;
    bad.reserved[16 + 5] = 0x40; // the offset (bytes 16-23): 2^46 more
    int *y = nullptr;
    EXPECT(cudaMemPoolImportPointer((void **)&y, pool, &bad) == cudaErrorInvalidValue);
    bad = db;
    bad.reserved[8] ^= 1; // another pool's number
    EXPECT(cudaMemPoolImportPointer((void **)&y, pool, &bad) == cudaErrorInvalidValue);
    cudaGetLastError();
    CK(cudaFree(pa));
    CK(cudaFreeAsync(pb, 0));
    CK(cudaDeviceSynchronize());
    CK(cudaMemPoolDestroy(pool));
    if (rt_failed) return 1;
    std::printf("CHILD OK\n");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && std::strcmp(argv[1], "child") == 0)
        return child(argv[2], argv[3]);

    int handles = 0;
    CK(cudaDeviceGetAttribute(&handles, cudaDevAttrMemoryPoolSupportedHandleTypes, 0));
    EXPECT(handles & cudaMemHandleTypePosixFileDescriptor);

    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    props.handleTypes = cudaMemHandleTypePosixFileDescriptor;
    cudaMemPool_t pool;
    CK(cudaMemPoolCreate(&pool, &props));
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    int *pa, *pb;
    CK(cudaMallocFromPoolAsync((void **)&pa, N * sizeof(int), pool, s));
    CK(cudaMallocFromPoolAsync((void **)&pb, M * sizeof(int), pool, s));
    std::vector<int> ha(N), got(N);
    for (int i = 0; i < N; i++) ha[i] = 3 * i - 17;
    CK(cudaMemcpyAsync(pa, ha.data(), N * sizeof(int), cudaMemcpyHostToDevice, s));
    CK(cudaMemsetAsync(pb, 0, M * sizeof(int), s));
    CK(cudaStreamSynchronize(s));

    int fd = -1;
    CK(cudaMemPoolExportToShareableHandle(&fd, pool, cudaMemHandleTypePosixFileDescriptor, 0));
    EXPECT(fd >= 0);
    cudaMemPoolPtrExportData da, db;
    CK(cudaMemPoolExportPointer(&da, pa));
    CK(cudaMemPoolExportPointer(&db, pb));

    // the child, with the pool's descriptor as its fd 3
    std::string a = hex(da), b = hex(db);
    char *args[] = { argv[0], (char *)"child", (char *)a.c_str(), (char *)b.c_str(), nullptr };
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd, 3);
    pid_t pid;
    if (posix_spawn(&pid, argv[0], &fa, nullptr, args, environ) != 0) {
        std::fprintf(stderr, "cannot start the child\n");
        return 1;
    }
    posix_spawn_file_actions_destroy(&fa);
    int st = 0;
    waitpid(pid, &st, 0);
    EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    close(fd);

    CK(cudaMemcpy(got.data(), pa, N * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        if (got[i] != ha[i] + i) {
            std::fprintf(stderr, "element %d: %d, expected %d\n", i, got[i], ha[i] + i);
            rt_failed = 1;
            break;
        }
    CK(cudaMemcpy(got.data(), pb, M * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < M; i++)
        if (got[i] != 7 * i + 1) {
            std::fprintf(stderr, "pattern %d: %d, expected %d\n", i, got[i], 7 * i + 1);
            rt_failed = 1;
            break;
        }

    // the errors
    cudaMemPool_t plain, imp;
    props.handleTypes = cudaMemHandleTypeNone;
    CK(cudaMemPoolCreate(&plain, &props));
    int *pc;
    CK(cudaMallocFromPoolAsync((void **)&pc, 256, plain, s));
    cudaMemPoolPtrExportData dc;
    EXPECT(cudaMemPoolExportPointer(&dc, pc) == cudaErrorInvalidValue); // a pool that is not exportable
    EXPECT(cudaMemPoolExportPointer(&dc, pa + 4) == cudaErrorInvalidValue); // not the start
    int fd2 = -1;
    EXPECT(cudaMemPoolExportToShareableHandle(&fd2, plain, cudaMemHandleTypePosixFileDescriptor, 0) ==
           cudaErrorInvalidValue);
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    EXPECT(cudaMemPoolImportFromShareableHandle(&imp, (void *)(uintptr_t)devnull,
                                                cudaMemHandleTypePosixFileDescriptor, 0) == cudaErrorInvalidValue);
    EXPECT(cudaMemPoolImportFromShareableHandle(&imp, (void *)(intptr_t)-1, cudaMemHandleTypePosixFileDescriptor,
                                                0) == cudaErrorInvalidValue);
    close(devnull);
    props.handleTypes = cudaMemHandleTypeWin32;
    EXPECT(cudaMemPoolCreate(&imp, &props) == cudaErrorNotSupported);
    cudaGetLastError();
    CK(cudaFreeAsync(pa, s));
    CK(cudaFreeAsync(pb, s));
    CK(cudaFreeAsync(pc, s));
    CK(cudaStreamSynchronize(s));
    CK(cudaMemPoolDestroy(plain));
    CK(cudaMemPoolDestroy(pool));
    if (rt_failed) return 1;
    std::printf("PASS\n");
    return 0;
}
