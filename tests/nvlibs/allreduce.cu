/* SPDX-License-Identifier: Apache-2.0 */
/* NCCL (NVIDIA's libnccl.so.2, unmodified) across 2 emulated devices in one
 * process: ncclCommInitAll, then an all-reduce (sum), a broadcast and an
 * all-gather of floats on each device's own stream, each checked against
 * the host. NCCL asks NVML about the devices: tdtrace's NVML
 * (src/hostlib/nvml) answers. */
#include <cstdio>
#include <cmath>
#include <vector>
#include <nccl.h>
#include <cuda_runtime.h>
#define CK(x) do { auto r_ = (x); if (r_) { printf("FAIL %s = %d line %d\n", #x, (int)r_, __LINE__); return 1; } } while (0)
int main() {
  const int nd = 2, n = 1000;
  int devs[nd] = {0, 1}, have = 0;
  CK(cudaGetDeviceCount(&have));
  if (have < nd) { printf("FAIL %d devices, 2 needed\n", have); return 1; }
  ncclComm_t comm[nd];
  CK(ncclCommInitAll(comm, nd, devs));
  float *buf[nd], *gat[nd]; cudaStream_t st[nd];
  std::vector<float> h(n), want(n, 0.f);
  for (int d = 0; d < nd; d++) {
    CK(cudaSetDevice(d)); CK(cudaStreamCreate(&st[d]));
    CK(cudaMalloc(&buf[d], n * 4)); CK(cudaMalloc(&gat[d], nd * n * 4));
    for (int i = 0; i < n; i++) { h[i] = (float)(d * 1000 + i) * 0.5f; want[i] += h[i]; }
    CK(cudaMemcpy(buf[d], h.data(), n * 4, cudaMemcpyHostToDevice));
  }
  CK(ncclGroupStart());
  for (int d = 0; d < nd; d++) CK(ncclAllReduce(buf[d], buf[d], n, ncclFloat, ncclSum, comm[d], st[d]));
  CK(ncclGroupEnd());
  int bad = 0;
  for (int d = 0; d < nd; d++) {
    CK(cudaSetDevice(d)); CK(cudaStreamSynchronize(st[d]));
    CK(cudaMemcpy(h.data(), buf[d], n * 4, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) if (h[i] != want[i]) { if (bad++ < 3) printf("all-reduce dev %d [%d] = %g, expected %g\n", d, i, h[i], want[i]); }
  }
  // broadcast from rank 1: a new value there, the sum everywhere else
  CK(cudaSetDevice(1));
  for (int i = 0; i < n; i++) h[i] = -(float)i;
  CK(cudaMemcpy(buf[1], h.data(), n * 4, cudaMemcpyHostToDevice));
  CK(ncclGroupStart());
  for (int d = 0; d < nd; d++) CK(ncclBroadcast(buf[d], buf[d], n, ncclFloat, 1, comm[d], st[d]));
  CK(ncclGroupEnd());
  // all-gather: each rank's broadcast result, rank by rank
  CK(ncclGroupStart());
  for (int d = 0; d < nd; d++) CK(ncclAllGather(buf[d], gat[d], n, ncclFloat, comm[d], st[d]));
  CK(ncclGroupEnd());
  std::vector<float> g(nd * n);
  for (int d = 0; d < nd; d++) {
    CK(cudaSetDevice(d)); CK(cudaStreamSynchronize(st[d]));
    CK(cudaMemcpy(g.data(), gat[d], nd * n * 4, cudaMemcpyDeviceToHost));
    for (int i = 0; i < nd * n; i++) if (g[i] != -(float)(i % n)) { if (bad++ < 6) printf("all-gather dev %d [%d] = %g, expected %g\n", d, i, g[i], -(float)(i % n)); }
  }
  for (int d = 0; d < nd; d++) { CK(ncclCommDestroy(comm[d])); CK(cudaSetDevice(d)); CK(cudaFree(buf[d])); CK(cudaFree(gat[d])); CK(cudaStreamDestroy(st[d])); }
  printf("nccl: all-reduce, broadcast and all-gather of %d floats across %d devices %s\n", n, nd, bad ? "FAIL" : "PASS");
  return bad ? 1 : 0;
}
