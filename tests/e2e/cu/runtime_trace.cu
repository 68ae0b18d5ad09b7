// Built by tests/e2e/run.sh with nvcc (static runtime, nvcc's default) when
// the toolkit is there: under tdtrace its trace must show the runtime's
// cuGetProcAddress lookups and its export-table calls by name.
#include <cstdio>
#include <cuda_runtime.h>

// LeakSanitizer cannot work in a ptraced process (sanitizer builds)
extern "C" __attribute__((visibility("default"), used)) const char *__asan_default_options()
{
    return "detect_leaks=0";
}

int main()
{
    int n = -1;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n < 1)
        return 1;
    void *p = nullptr;
    if (cudaMalloc(&p, 4096) != cudaSuccess || cudaMemset(p, 7, 4096) != cudaSuccess)
        return 2;
    unsigned char h[4096];
    if (cudaMemcpy(h, p, sizeof(h), cudaMemcpyDeviceToHost) != cudaSuccess || h[4095] != 7)
        return 3;
    if (cudaFree(p) != cudaSuccess)
        return 4;
    std::printf("runtime ok\n");
    return 0;
}
