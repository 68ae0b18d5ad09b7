/* SPDX-License-Identifier: Apache-2.0 */
/* cuSPARSE SpMV (CSR, generic API) of a random 1000x1000 matrix with about
 * 2% fill, against a host product in double: NVIDIA's csrmv kernels run on
 * the emulated GPU from the PTX libcusparse ships. */
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <cusparse.h>
#include <cuda_runtime.h>
#define CK(x) do { auto r_ = (x); if (r_) { printf("FAIL %s = %d line %d\n", #x, (int)r_, __LINE__); return 1; } } while (0)
int main() {
  const int n = 1000; std::vector<int> rp(n + 1), ci; std::vector<float> v, x(n), y(n), ref(n);
  srand(1);
  for (int i = 0; i < n; i++) { rp[i] = ci.size(); for (int j = 0; j < n; j++) if (i == j || rand() % 50 == 0) { ci.push_back(j); v.push_back((rand() % 100) / 10.0f - 5); } }
  rp[n] = ci.size(); int nnz = ci.size();
  for (int i = 0; i < n; i++) x[i] = (rand() % 100) / 25.0f;
  for (int i = 0; i < n; i++) { double s = 0; for (int k = rp[i]; k < rp[i + 1]; k++) s += (double)v[k] * x[ci[k]]; ref[i] = s; }
  int *drp, *dci; float *dv, *dx, *dy;
  CK(cudaMalloc(&drp, (n + 1) * 4)); CK(cudaMalloc(&dci, nnz * 4)); CK(cudaMalloc(&dv, nnz * 4)); CK(cudaMalloc(&dx, n * 4)); CK(cudaMalloc(&dy, n * 4));
  CK(cudaMemcpy(drp, rp.data(), (n + 1) * 4, cudaMemcpyHostToDevice)); CK(cudaMemcpy(dci, ci.data(), nnz * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dv, v.data(), nnz * 4, cudaMemcpyHostToDevice)); CK(cudaMemcpy(dx, x.data(), n * 4, cudaMemcpyHostToDevice));
  cusparseHandle_t h; CK(cusparseCreate(&h));
  cusparseSpMatDescr_t A; cusparseDnVecDescr_t X, Y;
  CK(cusparseCreateCsr(&A, n, n, nnz, drp, dci, dv, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  CK(cusparseCreateDnVec(&X, n, dx, CUDA_R_32F)); CK(cusparseCreateDnVec(&Y, n, dy, CUDA_R_32F));
  float one = 1, zero = 0; size_t ws = 0; void *dws = nullptr;
  CK(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, X, &zero, Y, CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, &ws));
  if (ws) CK(cudaMalloc(&dws, ws));
  CK(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, X, &zero, Y, CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, dws));
  CK(cudaMemcpy(y.data(), dy, n * 4, cudaMemcpyDeviceToHost));
  double maxe = 0; for (int i = 0; i < n; i++) maxe = fmax(maxe, fabs(y[i] - ref[i]) / (1 + fabs(ref[i])));
  printf("spmv n=%d nnz=%d max rel err %.3g %s\n", n, nnz, maxe, maxe < 1e-4 ? "PASS" : "FAIL");
  CK(cusparseDestroySpMat(A)); CK(cusparseDestroyDnVec(X)); CK(cusparseDestroyDnVec(Y)); CK(cusparseDestroy(h));
  CK(cudaFree(drp)); CK(cudaFree(dci)); CK(cudaFree(dv)); CK(cudaFree(dx)); CK(cudaFree(dy)); if (dws) CK(cudaFree(dws));
  return maxe < 1e-4 ? 0 : 1;
}
