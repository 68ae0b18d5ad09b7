/* SPDX-License-Identifier: Apache-2.0 */
// NVIDIA's header-only libraries on the engine: thrust sort, reduce,
// scan, sort_by_key and CUB DeviceReduce, DeviceRadixSort (onesweep),
// DeviceScan (decoupled look-back between blocks), DeviceSelect,
// DeviceHistogram, each against the host's std:: algorithms.
#include "common.h"
#include <vector>
#include <algorithm>
#include <numeric>
#include <thrust/device_vector.h>
#include <thrust/sort.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <cub/cub.cuh>
#include <thrust/copy.h>
#include <thrust/functional.h>
#define CHECK(c, name) check((c), name)
struct odd {
    __host__ __device__ bool operator()(unsigned v) const { return v & 1; }
};
int main() {
    const int n = 100000;
    std::vector<unsigned> h(n); unsigned x = 12345;
    for (auto &v : h) { x = x * 1664525u + 1013904223u; v = x >> 3; }
    thrust::device_vector<unsigned> d(h.begin(), h.end());
    thrust::sort(d.begin(), d.end());
    std::vector<unsigned> s(h); std::sort(s.begin(), s.end());
    std::vector<unsigned> got(n); thrust::copy(d.begin(), d.end(), got.begin());
    CHECK(got == s, "thrust::sort (radix, 100000 u32)");
    thrust::device_vector<unsigned> d2(h.begin(), h.end());
    unsigned long long sum = thrust::reduce(d2.begin(), d2.end(), 0ull);
    CHECK(sum == std::accumulate(h.begin(), h.end(), 0ull), "thrust::reduce");
    thrust::device_vector<unsigned> sc(n);
    thrust::inclusive_scan(d2.begin(), d2.end(), sc.begin());
    std::vector<unsigned> hs(n); std::partial_sum(h.begin(), h.end(), hs.begin());
    thrust::copy(sc.begin(), sc.end(), got.begin());
    CHECK(got == hs, "thrust::inclusive_scan");
    std::vector<float> hf(n); for (int i = 0; i < n; i++) hf[i] = (float)((h[i] % 20001) - 10000) / 7.0f;
    thrust::device_vector<float> df(hf.begin(), hf.end()); thrust::device_vector<int> dv(n); thrust::sequence(dv.begin(), dv.end());
    thrust::sort_by_key(df.begin(), df.end(), dv.begin(), thrust::greater<float>());
    std::vector<float> sf(hf); std::stable_sort(sf.begin(), sf.end(), std::greater<float>());
    std::vector<float> gf(n); thrust::copy(df.begin(), df.end(), gf.begin());
    CHECK(gf == sf, "thrust::sort_by_key (float keys, descending)");
    // CUB
    unsigned *in = thrust::raw_pointer_cast(d2.data()); unsigned long long *out; cudaMalloc(&out, 8);
    void *tmp = nullptr; size_t tb = 0;
    cub::DeviceReduce::Sum(tmp, tb, in, out, n); cudaMalloc(&tmp, tb);
    cub::DeviceReduce::Sum(tmp, tb, in, out, n);
    unsigned long long cs = 0; cudaMemcpy(&cs, out, 8, cudaMemcpyDeviceToHost);
    CHECK(cs == sum, "cub::DeviceReduce::Sum");
    thrust::device_vector<unsigned> ko(n), vi(n), vo(n); thrust::sequence(vi.begin(), vi.end());
    void *t2 = nullptr; size_t tb2 = 0;
    cub::DeviceRadixSort::SortPairs(t2, tb2, in, thrust::raw_pointer_cast(ko.data()), thrust::raw_pointer_cast(vi.data()), thrust::raw_pointer_cast(vo.data()), n);
    cudaMalloc(&t2, tb2);
    cub::DeviceRadixSort::SortPairs(t2, tb2, in, thrust::raw_pointer_cast(ko.data()), thrust::raw_pointer_cast(vi.data()), thrust::raw_pointer_cast(vo.data()), n);
    thrust::copy(ko.begin(), ko.end(), got.begin());
    std::vector<unsigned> gv(n); thrust::copy(vo.begin(), vo.end(), gv.begin());
    bool pairs_ok = got == s; for (int i = 0; i < n && pairs_ok; i++) pairs_ok = h[gv[i]] == got[i] && (i == 0 || got[i] != got[i-1] || gv[i] > gv[i-1]);
    CHECK(pairs_ok, "cub::DeviceRadixSort::SortPairs (stable)");
    void *t3 = nullptr; size_t tb3 = 0;
    cub::DeviceScan::ExclusiveSum(t3, tb3, in, thrust::raw_pointer_cast(sc.data()), n); cudaMalloc(&t3, tb3);
    cub::DeviceScan::ExclusiveSum(t3, tb3, in, thrust::raw_pointer_cast(sc.data()), n);
    thrust::copy(sc.begin(), sc.end(), got.begin());
    std::vector<unsigned> ex(n); ex[0] = 0; for (int i = 1; i < n; i++) ex[i] = ex[i-1] + h[i-1];
    CHECK(got == ex, "cub::DeviceScan::ExclusiveSum");
    // DeviceSelect::If and DeviceHistogram::HistogramEven
    int *nsel;
    cudaMalloc(&nsel, sizeof(int));
    void *t4 = nullptr;
    size_t tb4 = 0;
    cub::DeviceSelect::If(t4, tb4, in, thrust::raw_pointer_cast(ko.data()), nsel, n, odd());
    cudaMalloc(&t4, tb4);
    cub::DeviceSelect::If(t4, tb4, in, thrust::raw_pointer_cast(ko.data()), nsel, n, odd());
    int hn = 0;
    cudaMemcpy(&hn, nsel, sizeof hn, cudaMemcpyDeviceToHost);
    std::vector<unsigned> so;
    for (unsigned v : h)
        if (v & 1) so.push_back(v);
    got.resize(hn > 0 && hn <= n ? hn : 0);
    thrust::copy(ko.begin(), ko.begin() + got.size(), got.begin());
    CHECK(got == so, "cub::DeviceSelect::If");
    got.resize(n);
    int *hist;
    cudaMalloc(&hist, 64 * sizeof(int));
    void *t5 = nullptr;
    size_t tb5 = 0;
    cub::DeviceHistogram::HistogramEven(t5, tb5, in, hist, 65, 0u, 1u << 29, n);
    cudaMalloc(&t5, tb5);
    cub::DeviceHistogram::HistogramEven(t5, tb5, in, hist, 65, 0u, 1u << 29, n);
    int hh[64], wh[64] = {0};
    cudaMemcpy(hh, hist, sizeof hh, cudaMemcpyDeviceToHost);
    for (unsigned v : h) wh[v >> 23]++;
    CHECK(memcmp(hh, wh, sizeof hh) == 0, "cub::DeviceHistogram::HistogramEven");
    CK(cudaDeviceSynchronize());
    return finish("libs");
}
