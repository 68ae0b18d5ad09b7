/* SPDX-License-Identifier: Apache-2.0 */
// A memory pool on the driver's virtual memory management, grown the way
// llama.cpp's CUDA pool grows (one large reservation; physical chunks of
// the granularity mapped at its end as it fills; LIFO frees), used by
// kernels and runtime copies whose buffers straddle the chunks, checked
// against host computations. The driver entry points come through
// cudaGetDriverEntryPointByVersion, as a program that does not link
// libcuda gets them.
#include "common.h"
#include <cuda.h>
#include <cstring>
#include <vector>

#define DRV(name) static decltype(&name) p_##name;
DRV(cuMemGetAllocationGranularity) DRV(cuMemCreate) DRV(cuMemAddressReserve) DRV(cuMemMap)
DRV(cuMemSetAccess) DRV(cuMemUnmap) DRV(cuMemRelease) DRV(cuMemAddressFree) DRV(cuMemGetAccess)
DRV(cuDeviceGetAttribute)

#define CU(call) do { CUresult r_ = (call); if (r_ != CUDA_SUCCESS) { \
    std::fprintf(stderr, "%s:%d: %s = %d\n", __FILE__, __LINE__, #call, (int)r_); std::exit(1); } } while (0)

static void *entry(const char *name)
{
    void *fn = nullptr;
    cudaDriverEntryPointQueryResult q;
    CK(cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &q));
    if (q != cudaDriverEntryPointSuccess || !fn) {
        std::fprintf(stderr, "no driver entry point %s\n", name);
        std::exit(1);
    }
    return fn;
}
#define LOAD(name) p_##name = (decltype(p_##name))entry(#name)

struct pool {
    static constexpr size_t max_size = size_t(1) << 30; // the reservation
    int device = 0;
    CUdeviceptr base = 0;
    size_t size = 0, used = 0, gran = 0;
    std::vector<std::pair<CUdeviceptr, CUmemGenericAllocationHandle>> maps;

    pool()
    {
        CUmemAllocationProp prop = {};
        prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = device;
        CU(p_cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
        CU(p_cuMemAddressReserve(&base, max_size, 0, 0, 0));
    }
    void *alloc(size_t n)
    {
        n = (n + 255) & ~size_t(255);
        if (used + n > size) { // grow by whole chunks at the end
            size_t grow = ((used + n - size) + gran - 1) / gran * gran;
            if (size + grow > max_size)
                return nullptr;
            CUmemAllocationProp prop = {};
            prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
            prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
            prop.location.id = device;
            CUmemGenericAllocationHandle h;
            CU(p_cuMemCreate(&h, grow, &prop, 0));
            CU(p_cuMemMap(base + size, grow, 0, h, 0));
            CUmemAccessDesc acc = {};
            acc.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
            acc.location.id = device;
            acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
            CU(p_cuMemSetAccess(base + size, grow, &acc, 1));
            maps.push_back({base + size, h});
            size += grow;
        }
        void *p = (void *)(uintptr_t)(base + used);
        used += n;
        return p;
    }
    void free(void *p, size_t n)
    {
        n = (n + 255) & ~size_t(255);
        used -= n;
        EXPECT((uintptr_t)p == base + used); // LIFO
    }
    ~pool()
    {
        for (auto &m : maps) {
            CU(p_cuMemUnmap(m.first, chunk(m.first)));
            CU(p_cuMemRelease(m.second));
        }
        CU(p_cuMemAddressFree(base, max_size));
    }
    size_t chunk(CUdeviceptr at) const
    {
        for (size_t i = 0; i < maps.size(); i++)
            if (maps[i].first == at)
                return (i + 1 < maps.size() ? maps[i + 1].first : base + size) - at;
        return 0;
    }
};

__global__ void iota(int *x, int n, int k)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = (i % 1000) * k - 7;
}

__global__ void axpy(int *y, const int *x, int n, int a)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

int main()
{
    CK(cudaSetDevice(0));
    CK(cudaFree(0));
    LOAD(cuMemGetAllocationGranularity); LOAD(cuMemCreate); LOAD(cuMemAddressReserve); LOAD(cuMemMap);
    LOAD(cuMemSetAccess); LOAD(cuMemUnmap); LOAD(cuMemRelease); LOAD(cuMemAddressFree); LOAD(cuMemGetAccess);
    LOAD(cuDeviceGetAttribute);
    int vmm = 0; // as llama.cpp asks before it builds its pool
    CU(p_cuDeviceGetAttribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 0));
    EXPECT(vmm == 1);
    size_t free0, total;
    CK(cudaMemGetInfo(&free0, &total));
    size_t chunks = 0, grown = 0;
    {
        pool P;
        EXPECT(P.gran == (size_t(2) << 20));
        // sizes chosen so the buffers straddle chunk boundaries
        const int na = 700000, nb = 300000, nc = 900000; // 2.8 MB, 1.2 MB, 3.6 MB of ints
        int *a = (int *)P.alloc(na * sizeof(int));
        int *b = (int *)P.alloc(nb * sizeof(int));
        int *c = (int *)P.alloc(nc * sizeof(int));
        EXPECT(P.maps.size() == 2); // c straddles the two
        iota<<<(na + 255) / 256, 256>>>(a, na, 3);
        iota<<<(nb + 255) / 256, 256>>>(b, nb, 5);
        std::vector<int> hc(nc);
        for (int i = 0; i < nc; i++)
            hc[i] = i ^ 0x5a5a;
        CK(cudaMemcpy(c, hc.data(), nc * sizeof(int), cudaMemcpyHostToDevice));
        axpy<<<(nb + 255) / 256, 256>>>(c + 1000, b, nb, 2); // c[1000..] += 2 * b
        axpy<<<(na + 255) / 256, 256>>>(c + 150000, a, na, -1);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        // host computation
        for (int i = 0; i < nb; i++)
            hc[1000 + i] += 2 * ((i % 1000) * 5 - 7);
        for (int i = 0; i < na; i++)
            hc[150000 + i] += -((i % 1000) * 3 - 7);
        std::vector<int> got(nc);
        CK(cudaMemcpy(got.data(), c, nc * sizeof(int), cudaMemcpyDeviceToHost));
        int bad = 0;
        for (int i = 0; i < nc; i++)
            bad += got[i] != hc[i];
        EXPECT(bad == 0);
        // device-to-device across the chunks, then LIFO frees and reuse
        CK(cudaMemcpy(a, c + 1000, na * sizeof(int), cudaMemcpyDeviceToDevice));
        std::vector<int> ga(na);
        CK(cudaMemcpy(ga.data(), a, na * sizeof(int), cudaMemcpyDeviceToHost));
        EXPECT(std::memcmp(ga.data(), hc.data() + 1000, na * sizeof(int)) == 0);
        P.free(c, nc * sizeof(int));
        P.free(b, nb * sizeof(int));
        int *d = (int *)P.alloc(4000000 * sizeof(int)); // grows again
        iota<<<(4000000 + 255) / 256, 256>>>(d, 4000000, 1);
        CK(cudaDeviceSynchronize());
        int tail[4];
        CK(cudaMemcpy(tail, d + 4000000 - 4, sizeof tail, cudaMemcpyDeviceToHost));
        for (int i = 0; i < 4; i++)
            EXPECT(tail[i] == ((4000000 - 4 + i) % 1000) - 7);
        size_t free1;
        CK(cudaMemGetInfo(&free1, &total));
        EXPECT(free0 - free1 == P.size); // the physical chunks are counted
        CUmemLocation loc = {CU_MEM_LOCATION_TYPE_DEVICE, 0};
        unsigned long long fl = 0;
        CU(p_cuMemGetAccess(&fl, &loc, (CUdeviceptr)(uintptr_t)d));
        EXPECT(fl == CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
        chunks = P.maps.size();
        grown = P.size;
    }
    size_t free2;
    CK(cudaMemGetInfo(&free2, &total));
    EXPECT(free2 == free0);
    if (rt_failed)
        return 1;
    std::printf("PASS vmm: %zu chunks, %zu MiB mapped\n", chunks, grown >> 20);
    return 0;
}
