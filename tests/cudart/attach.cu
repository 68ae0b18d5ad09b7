/* SPDX-License-Identifier: Apache-2.0 */
// Managed memory attached to streams (cudaStreamAttachMemAsync, the
// pattern of NVIDIA's UnifiedMemoryStreams sample): each host thread's
// data attached singly to its stream, a kernel on it, the host reading it
// after that stream's work; and the errors: bad
// flags, single attachment to the NULL stream, a part of an allocation,
// memory that is not managed. Prints "PASS".
#include <thread>
#include <vector>

#include "common.h"

__global__ void scale(int *v, int n, int k, int *counter)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] *= k;
    if (i == 0) atomicAdd(counter, 1);
}

int main(void)
{
    const int nthreads = 4, n = 1000;
    std::vector<cudaStream_t> streams(nthreads);
    std::vector<int *> data(nthreads);
    int *counter;
    CK(cudaMallocManaged((void **)&counter, sizeof(int)));
    *counter = 0;
    for (int t = 0; t < nthreads; t++) {
        CK(cudaStreamCreate(&streams[t]));
        CK(cudaMallocManaged((void **)&data[t], n * sizeof(int), cudaMemAttachHost));
    }
    std::vector<std::thread> th;
    for (int t = 0; t < nthreads; t++)
        th.emplace_back([&, t] {
            for (int i = 0; i < n; i++) data[t][i] = i + t; // attached to the host: the host may write
            CK(cudaStreamAttachMemAsync(streams[t], data[t], 0, cudaMemAttachSingle));
            scale<<<(n + 127) / 128, 128, 0, streams[t]>>>(data[t], n, t + 2, counter);
            CK(cudaStreamSynchronize(streams[t]));
            for (int i = 0; i < n; i++) EXPECT(data[t][i] == (i + t) * (t + 2));
            CK(cudaStreamAttachMemAsync(streams[t], data[t], n * sizeof(int), cudaMemAttachGlobal)); // the whole size
        });
    for (auto &x : th) x.join();
    CK(cudaDeviceSynchronize());
    EXPECT(*counter == nthreads);
    CK(cudaStreamAttachMemAsync(streams[0], counter, 0, cudaMemAttachSingle));
    CK(cudaStreamAttachMemAsync(0, data[0], 0, cudaMemAttachHost));

    // the errors
    EXPECT(cudaStreamAttachMemAsync(streams[0], data[0], 0, 0) == cudaErrorInvalidValue);
    EXPECT(cudaStreamAttachMemAsync(streams[0], data[0], 0, cudaMemAttachGlobal | cudaMemAttachHost) ==
           cudaErrorInvalidValue);
    EXPECT(cudaStreamAttachMemAsync(0, data[0], 0, cudaMemAttachSingle) == cudaErrorInvalidValue);
    EXPECT(cudaStreamAttachMemAsync(streams[0], data[0] + 10, 16, cudaMemAttachSingle) == cudaErrorInvalidValue);
    int *plain;
    CK(cudaMalloc((void **)&plain, 64));
    EXPECT(cudaStreamAttachMemAsync(streams[0], plain, 0, cudaMemAttachGlobal) == cudaErrorInvalidValue);
    int host[4];
    EXPECT(cudaStreamAttachMemAsync(streams[0], host, sizeof host, cudaMemAttachGlobal) == cudaErrorInvalidValue);
    cudaGetLastError();
    for (int t = 0; t < nthreads; t++) {
        CK(cudaStreamDestroy(streams[t]));
        CK(cudaFree(data[t]));
    }
    CK(cudaFree(plain));
    if (rt_failed) return 1;
    std::printf("PASS\n");
    return 0;
}
