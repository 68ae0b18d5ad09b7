// SPDX-License-Identifier: Apache-2.0
// A CUDA runtime program (nvcc's default: the runtime linked statically,
// reaching the driver only through cuGetProcAddress pointers it caches at
// start) that tdtrace attaches to (tests/attach/run.sh): a kernel loop
// until the file STOP exists, every round checked on the host; prints
// "result OK <rounds>" and exits 3. Writes "ready" to READY first.
#include <cstdio>
#include <cuda_runtime.h>
#include <unistd.h>

__global__ void axpy(float a, const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    enum { N = 256 };
    float hx[N], hy[N], out[N];
    float *dx, *dy;
    if (cudaMalloc(&dx, sizeof(hx)) != cudaSuccess || cudaMalloc(&dy, sizeof(hy)) != cudaSuccess)
        return 2;
    FILE *f = fopen(argv[1], "w");
    if (!f || fputs("ready\n", f) < 0 || fclose(f))
        return 2;
    long rounds = 0, bad = 0;
    for (int r = 0; access(argv[2], F_OK) != 0; r++) {
        for (int i = 0; i < N; i++) {
            hx[i] = (float)(i + r);
            hy[i] = (float)(2 * i);
        }
        float a = (float)(r % 7) + 0.5f;
        cudaMemcpy(dx, hx, sizeof(hx), cudaMemcpyHostToDevice);
        cudaMemcpy(dy, hy, sizeof(hy), cudaMemcpyHostToDevice);
        axpy<<<(N + 127) / 128, 128>>>(a, dx, dy, N);
        if (cudaMemcpy(out, dy, sizeof(out), cudaMemcpyDeviceToHost) != cudaSuccess)
            bad++;
        for (int i = 0; i < N; i++)
            if (out[i] != a * hx[i] + hy[i])
                bad++;
        rounds++;
        usleep(2000);
    }
    cudaFree(dx);
    cudaFree(dy);
    if (bad || !rounds) {
        printf("result BAD %ld of %ld\n", bad, rounds);
        return 1;
    }
    printf("result OK %ld\n", rounds);
    return 3;
}
