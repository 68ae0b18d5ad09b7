/* SPDX-License-Identifier: Apache-2.0 */
/* cuSOLVER dense Cholesky (cusolverDnDpotrf, lower) of a 200x200 SPD matrix
 * through NVIDIA's cuSOLVER and cuBLAS on the emulated GPU; L L^T must give
 * back A, and info (set to garbage first) must be 0. */
#include <cstdio>
#include <cmath>
#include <vector>
#include <cusolverDn.h>
#include <cuda_runtime.h>
#define CK(x) do { auto r_ = (x); if (r_) { printf("FAIL %s = %d line %d\n", #x, (int)r_, __LINE__); return 1; } } while (0)
int main() {
  const int n = 200; std::vector<double> A(n * n), L(n * n);
  // SPD: A = M M^T + n I
  std::vector<double> M(n * n); unsigned s = 7; for (auto &m : M) { s = s * 1103515245 + 12345; m = ((s >> 16) % 1000) / 500.0 - 1; }
  for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) { double t = 0; for (int k = 0; k < n; k++) t += M[i * n + k] * M[j * n + k]; A[i + j * n] = t + (i == j ? n : 0); }
  double *dA; int *dinfo; CK(cudaMalloc(&dA, n * n * 8)); CK(cudaMalloc(&dinfo, 4));
  CK(cudaMemcpy(dA, A.data(), n * n * 8, cudaMemcpyHostToDevice)); CK(cudaMemset(dinfo, 0x7f, 4));
  cusolverDnHandle_t h; CK(cusolverDnCreate(&h)); int lw = 0;
  CK(cusolverDnDpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, dA, n, &lw));
  double *w; CK(cudaMalloc(&w, lw * 8 + 8));
  CK(cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, n, dA, n, w, lw, dinfo));
  int info = -1; CK(cudaMemcpy(&info, dinfo, 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(L.data(), dA, n * n * 8, cudaMemcpyDeviceToHost));
  double maxe = 0;
  for (int i = 0; i < n; i++) for (int j = 0; j <= i; j++) { double t = 0; for (int k = 0; k <= j; k++) t += L[i + k * n] * L[j + k * n]; maxe = fmax(maxe, fabs(t - A[i + j * n]) / (1 + fabs(A[i + j * n]))); }
  printf("potrf n=%d info=%d max rel err of L L^T %.3g %s\n", n, info, maxe, info == 0 && maxe < 1e-10 ? "PASS" : "FAIL");
  CK(cusolverDnDestroy(h)); CK(cudaFree(dA)); CK(cudaFree(dinfo)); CK(cudaFree(w));
  return info == 0 && maxe < 1e-10 ? 0 : 1;
}
