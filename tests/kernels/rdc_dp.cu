/* SPDX-License-Identifier: Apache-2.0 */
// Dynamic parallelism (CDP2, built with -rdc=true): kernels that launch
// kernels, checked against the host. Each check prints "NAME: ok" or
// "NAME: FAIL ..."; the last one (a child grid that faults) breaks the
// context, so it comes last. Exits 0 when every check passed.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    printf("%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorName(e_)); exit(2); } } while (0)

static int failures;
static void verdict(const char *name, bool ok, const char *detail = "")
{
    printf("%s: %s%s\n", name, ok ? "ok" : "FAIL ", ok ? "" : detail);
    failures += !ok;
}

// ---- children that write data --------------------------------------------
__global__ void fill(int *x, int base, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = base + i;
}

// each thread of the parent fills its own segment through a child grid
__global__ void fill_parent(int *x, int seg, int *errs)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    fill<<<(seg + 31) / 32, 32>>>(x + t * seg, 1000 * t, seg);
    if (cudaGetLastError() != cudaSuccess) atomicAdd(errs, 1);
}

// the first form: a buffer of a size, the kernel named at launch
__global__ void first_form_parent(int *x, int *status)
{
    void *buf = cudaGetParameterBuffer(8, 16);
    if (!buf) { *status = -1; return; }
    *(int **)buf = x;            // fill(int *x, int base, int n): offsets 0, 8, 12
    ((int *)buf)[2] = 42;
    ((int *)buf)[3] = 4;
    *status = (int)cudaLaunchDevice((void *)fill, buf, dim3(1), dim3(4), 0, 0);
}

// ---- recursion: a quicksort that launches itself on both halves ----------
#define QS_MAX_DEPTH 16
__device__ void selection_sort(unsigned *a, int lo, int hi)
{
    for (int i = lo; i <= hi; i++) {
        int m = i;
        for (int j = i + 1; j <= hi; j++) if (a[j] < a[m]) m = j;
        unsigned t = a[i]; a[i] = a[m]; a[m] = t;
    }
}

__global__ void qsort_rec(unsigned *a, int lo, int hi, int depth, int *maxdepth)
{
    atomicMax(maxdepth, depth);
    if (depth >= QS_MAX_DEPTH || hi - lo <= 16) { selection_sort(a, lo, hi); return; }
    unsigned pivot = a[(lo + hi) / 2];
    int l = lo, r = hi;
    while (l <= r) {
        while (a[l] < pivot) l++;
        while (a[r] > pivot) r--;
        if (l <= r) { unsigned t = a[l]; a[l] = a[r]; a[r] = t; l++; r--; }
    }
    cudaStream_t s1, s2;
    cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
    if (lo < r) qsort_rec<<<1, 1, 0, s1>>>(a, lo, r, depth + 1, maxdepth);
    if (l < hi) qsort_rec<<<1, 1, 0, s2>>>(a, l, hi, depth + 1, maxdepth);
    cudaStreamDestroy(s1);
    cudaStreamDestroy(s2);
}

// ---- the nesting limit: recurse until a launch is refused ----------------
__global__ void deep(int depth, int *reached, int *err)
{
    *reached = depth;
    deep<<<1, 1>>>(depth + 1, reached, err);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) *err = (int)e;
}

// ---- device streams: launch order within each stream ---------------------
__global__ void set_to(int *x, int v) { *x = v; }
__global__ void times10_plus(int *x, int v) { *x = *x * 10 + v; }
__global__ void streams_parent(int *x)
{
    cudaStream_t s[2];
    for (int k = 0; k < 2; k++) cudaStreamCreateWithFlags(&s[k], cudaStreamNonBlocking);
    for (int k = 0; k < 2; k++) set_to<<<1, 1, 0, s[k]>>>(&x[k], k + 1);
    for (int k = 0; k < 2; k++) times10_plus<<<1, 1, 0, s[k]>>>(&x[k], 2);
    for (int k = 0; k < 2; k++) times10_plus<<<1, 1, 0, s[k]>>>(&x[k], 3);
    for (int k = 0; k < 2; k++) cudaStreamDestroy(s[k]);
}

// ---- tail launch and fire-and-forget --------------------------------------
__global__ void add_to(int *x, int v) { atomicAdd(x, v); }
__global__ void snapshot(const int *x, int *seen) { *seen = *x; }
__global__ void tail_parent(int *x, int *seen)
{
    if (threadIdx.x == 0) snapshot<<<1, 1, 0, cudaStreamTailLaunch>>>(x, seen); // runs after the rest
    add_to<<<1, 1, 0, cudaStreamFireAndForget>>>(x, 1);
    add_to<<<1, 1>>>(x, 100);
}

// ---- device cudaMalloc/cudaFree, cudaMemcpyAsync and cudaMemsetAsync ------
__global__ void free_it(int *p) { cudaFree(p); }
__global__ void memory_parent(int *out, int n, int *status)
{
    int *buf = nullptr;
    cudaError_t e = cudaMalloc((void **)&buf, n * sizeof(int));
    if (e != cudaSuccess || !buf) { *status = 1000 + (int)e; return; }
    fill<<<(n + 31) / 32, 32>>>(buf, 7, n);
    e = cudaMemcpyAsync(out, buf, n * sizeof(int), cudaMemcpyDeviceToDevice, 0); // after fill: same stream
    if (e != cudaSuccess) { *status = 2000 + (int)e; return; }
    e = cudaMemsetAsync(out + n, 0x01, sizeof(int), 0);
    if (e != cudaSuccess) { *status = 3000 + (int)e; return; }
    free_it<<<1, 1, 0, cudaStreamTailLaunch>>>(buf);
    *status = (int)cudaGetLastError();
}

// ---- the 2D forms: a and b are 8 x 8 ints, rows 32 bytes apart ----------
__global__ void memory2d_parent(const int *a, int *b, int *status)
{
    status[0] = (int)cudaMemset2DAsync(b, 32, 0, 32, 8, 0);
    status[1] = (int)cudaMemcpy2DAsync(b + 1, 32, a + 2, 32, 3 * sizeof(int), 4, cudaMemcpyDeviceToDevice, 0);
    status[2] = (int)cudaMemcpy2DAsync(b, 4, a, 32, 8, 2, cudaMemcpyDeviceToDevice, 0); // pitch below the width
    status[3] = (int)cudaMemset2DAsync(b, 32, 0, 32, 9, 0);                             // a row past the end
}

// ---- the device heap's limit: 64 KiB blocks until cudaMalloc fails ----------
__global__ void heap_fill(int *out)
{
    void *p[64];
    int n = 0;
    while (n < 64 && cudaMalloc(&p[n], 65536) == cudaSuccess) n++;
    out[0] = n;
    out[1] = (int)cudaGetLastError();
    for (int i = 0; i < n; i++) cudaFree(p[i]);
    void *q = nullptr;
    out[2] = (int)cudaMalloc(&q, 65536); // room again
    cudaFree(q);
}

// ---- printf from children ---------------------------------------------------
__global__ void say(int v) { printf("child says %d from block %d thread %d\n", v, blockIdx.x, threadIdx.x); }
__global__ void say_parent() { say<<<2, 2>>>(7); }

// ---- queries ---------------------------------------------------------------
__global__ void query(int *out)
{
    int d = -1, v = 0;
    out[0] = (int)cudaGetDevice(&d);
    out[1] = d;
    out[2] = (int)cudaDeviceGetAttribute(&v, cudaDevAttrMaxThreadsPerBlock, d);
    out[3] = v;
    size_t lim = 0;
    out[4] = (int)cudaDeviceGetLimit(&lim, cudaLimitDevRuntimePendingLaunchCount);
    out[5] = (int)lim;
    cudaFuncAttributes fa;
    out[6] = (int)cudaFuncGetAttributes(&fa, (const void *)fill);
    out[7] = fa.maxThreadsPerBlock;
    const char *nm = cudaGetErrorName(cudaErrorInvalidConfiguration);
    out[8] = nm && nm[0] == 'c' && nm[4] == 'E'; // "cudaErrorInvalidConfiguration"
}

// ---- bad input: the child launch fails, the parent reads the error ---------
__device__ void not_a_kernel(int *) {}
__device__ void (*volatile not_a_kernel_ptr)(int *) = not_a_kernel; // opaque: nvcc refuses a known one
__global__ void bad_parent(int *codes, void *bogus)
{
    codes[0] = cudaGetParameterBufferV2((void *)not_a_kernel_ptr, dim3(1), dim3(1), 0) == nullptr; // a function, not a kernel
    codes[1] = (int)cudaGetLastError();
    codes[2] = cudaGetParameterBufferV2(bogus, dim3(1), dim3(1), 0) == nullptr;     // not code at all
    codes[3] = (int)cudaGetLastError();
    fill<<<1, 2048>>>(codes + 16, 0, 1);                                          // too big a block
    codes[4] = (int)cudaGetLastError();
    fill<<<1, 32, 1 << 20>>>(codes + 16, 0, 1);                                   // too much shared memory
    codes[5] = (int)cudaGetLastError();
    codes[6] = (int)cudaLaunchDeviceV2(bogus, 0);                                 // not a parameter buffer
    codes[7] = (int)cudaGetLastError();
    codes[8] = (int)cudaGetLastError();                                           // read and cleared
    cudaStream_t s;
    codes[9] = (int)cudaStreamCreateWithFlags(&s, cudaStreamDefault);             // must be non-blocking
    fill<<<1, 1, 0, (cudaStream_t)bogus>>>(codes + 16, 0, 1);                     // not a stream
    codes[10] = (int)cudaGetLastError();
    int version = 0;
    codes[11] = (int)cudaRuntimeGetVersion(&version);                             // not served
    codes[12] = (int)cudaPeekAtLastError();
}

__global__ void pending_parent(int n, int *ok, int *refused)
{
    for (int i = 0; i < n; i++) {
        set_to<<<1, 1>>>(ok + 1, i);
        cudaError_t e = cudaGetLastError();
        if (e == cudaSuccess) (*ok)++;
        else if (e == cudaErrorLaunchPendingCountExceeded) (*refused)++;
    }
}

// ---- a child grid that faults: the host launch fails -------------------------
__global__ void oob(int *x) { x[threadIdx.x + (1 << 26)] = 1; }
__global__ void oob_parent(int *x) { oob<<<1, 1>>>(x); }

int main()
{
    int *d;
    CHECK(cudaMalloc(&d, 1 << 20));

    // children that write data
    {
        const int seg = 50, nt = 64, n = seg * nt;
        CHECK(cudaMemset(d, 0, 1 << 20));
        int *errs = d + n;
        fill_parent<<<2, nt / 2>>>(d, seg, errs);
        CHECK(cudaDeviceSynchronize());
        int *h = (int *)malloc((n + 1) * sizeof(int));
        CHECK(cudaMemcpy(h, d, (n + 1) * sizeof(int), cudaMemcpyDeviceToHost));
        int bad = h[n];
        for (int t = 0; t < nt; t++)
            for (int i = 0; i < seg; i++) bad += h[t * seg + i] != 1000 * t + i;
        char det[64];
        snprintf(det, sizeof det, "%d wrong", bad);
        verdict("children write", bad == 0, det);
        free(h);
    }
    // the first launch form
    {
        CHECK(cudaMemset(d, 0xff, 32));
        first_form_parent<<<1, 1>>>(d, d + 4);
        CHECK(cudaDeviceSynchronize());
        int h[5];
        CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
        char det[96];
        snprintf(det, sizeof det, "%d %d %d %d, status %d", h[0], h[1], h[2], h[3], h[4]);
        verdict("first launch form (cudaGetParameterBuffer, cudaLaunchDevice)",
                h[0] == 42 && h[1] == 43 && h[2] == 44 && h[3] == 45 && h[4] == 0, det);
    }
    // recursion: quicksort
    {
        const int n = 5000;
        unsigned *h = (unsigned *)malloc(n * sizeof(unsigned)), *ref = (unsigned *)malloc(n * sizeof(unsigned));
        srand(7);
        for (int i = 0; i < n; i++) ref[i] = h[i] = (unsigned)rand() % 100000;
        qsort(ref, n, sizeof *ref, [](const void *a, const void *b) {
            unsigned x = *(const unsigned *)a, y = *(const unsigned *)b; return x < y ? -1 : x > y; });
        unsigned *da;
        int *dmax = d;
        CHECK(cudaMemset(dmax, 0, sizeof(int)));
        CHECK(cudaMalloc(&da, n * sizeof(unsigned)));
        CHECK(cudaMemcpy(da, h, n * sizeof(unsigned), cudaMemcpyHostToDevice));
        qsort_rec<<<1, 1>>>(da, 0, n - 1, 0, dmax);
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(h, da, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
        int maxdepth = 0;
        CHECK(cudaMemcpy(&maxdepth, dmax, sizeof(int), cudaMemcpyDeviceToHost));
        char det[64];
        snprintf(det, sizeof det, "max depth %d", maxdepth);
        verdict("recursive quicksort", memcmp(h, ref, n * sizeof(unsigned)) == 0 && maxdepth > 2, det);
        CHECK(cudaFree(da));
        free(h);
        free(ref);
    }
    // the nesting limit
    {
        CHECK(cudaMemset(d, 0, 8));
        deep<<<1, 1>>>(0, d, d + 1);
        CHECK(cudaDeviceSynchronize());
        int h[2];
        CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
        char det[96];
        snprintf(det, sizeof det, "reached depth %d, error %d", h[0], h[1]);
        verdict("depth limit 24 (cudaErrorLaunchMaxDepthExceeded)", h[0] == 24 && h[1] == cudaErrorLaunchMaxDepthExceeded, det);
    }
    // device streams
    {
        streams_parent<<<1, 1>>>(d);
        CHECK(cudaDeviceSynchronize());
        int h[2];
        CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
        char det[64];
        snprintf(det, sizeof det, "%d %d", h[0], h[1]);
        verdict("device streams keep launch order", h[0] == 123 && h[1] == 223, det);
    }
    // tail launch
    {
        CHECK(cudaMemset(d, 0, 8));
        tail_parent<<<1, 4>>>(d, d + 1);
        CHECK(cudaDeviceSynchronize());
        int h[2];
        CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
        char det[64];
        snprintf(det, sizeof det, "total %d, the tail saw %d", h[0], h[1]);
        verdict("tail launch after fire-and-forget and the rest", h[0] == 404 && h[1] == 404, det);
    }
    // device memory functions
    {
        const int n = 100;
        CHECK(cudaMemset(d, 0, (n + 2) * sizeof(int)));
        memory_parent<<<1, 1>>>(d, n, d + n + 1);
        CHECK(cudaDeviceSynchronize());
        int h[n + 2];
        CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
        int bad = 0;
        for (int i = 0; i < n; i++) bad += h[i] != 7 + i;
        char det[96];
        snprintf(det, sizeof det, "%d wrong, set %#x, status %d", bad, h[n], h[n + 1]);
        verdict("device cudaMalloc, cudaMemcpyAsync, cudaMemsetAsync, cudaFree", !bad && h[n] == 0x01010101 && h[n + 1] == 0, det);
    }
    // the 2D forms
    {
        int ha[64], hb[64], want[64];
        for (int i = 0; i < 64; i++) { ha[i] = i; hb[i] = -1; want[i] = 0; }
        for (int r = 0; r < 4; r++)
            for (int c = 1; c < 4; c++) want[r * 8 + c] = ha[r * 8 + c + 1];
        int *da, *db, *ds = d; // b: a 256-byte allocation of its own
        CHECK(cudaMalloc(&da, sizeof ha));
        CHECK(cudaMalloc(&db, sizeof hb));
        CHECK(cudaMemcpy(da, ha, sizeof ha, cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(db, hb, sizeof hb, cudaMemcpyHostToDevice));
        memory2d_parent<<<1, 1>>>(da, db, ds);
        CHECK(cudaDeviceSynchronize());
        int st[4];
        CHECK(cudaMemcpy(hb, db, sizeof hb, cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(st, ds, sizeof st, cudaMemcpyDeviceToHost));
        char det[96];
        snprintf(det, sizeof det, "status %d %d %d %d, %s", st[0], st[1], st[2], st[3],
                 memcmp(hb, want, sizeof hb) ? "wrong data" : "right data");
        verdict("device cudaMemcpy2DAsync, cudaMemset2DAsync",
                !memcmp(hb, want, sizeof hb) && !st[0] && !st[1] && st[2] == cudaErrorInvalidPitchValue &&
                st[3] == cudaErrorInvalidValue, det);
        CHECK(cudaFree(da));
        CHECK(cudaFree(db));
    }
    // the device heap's limit
    {
        CHECK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 1 << 20));
        heap_fill<<<1, 1>>>(d);
        CHECK(cudaDeviceSynchronize());
        int h[3];
        CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
        CHECK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 8 << 20));
        char det[96];
        snprintf(det, sizeof det, "%d blocks, then %d; after the frees %d", h[0], h[1], h[2]);
        verdict("cudaLimitMallocHeapSize bounds device cudaMalloc", h[0] == 16 && h[1] == cudaErrorMemoryAllocation && h[2] == 0, det);
    }
    // printf
    say_parent<<<1, 1>>>();
    CHECK(cudaDeviceSynchronize());
    // queries
    {
        query<<<1, 1>>>(d);
        CHECK(cudaDeviceSynchronize());
        int h[9];
        CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
        char det[128];
        snprintf(det, sizeof det, "%d %d %d %d %d %d %d %d %d", h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], h[8]);
        verdict("device queries", !h[0] && h[1] == 0 && !h[2] && h[3] == 1024 && !h[4] && h[5] == 2048 && !h[6] && h[7] == 1024 && h[8], det);
    }
    // bad input
    {
        CHECK(cudaMemset(d, 0, 64 * sizeof(int)));
        bad_parent<<<1, 1>>>(d, (void *)0x1234);
        CHECK(cudaDeviceSynchronize());
        int h[13];
        CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
        const int want[13] = { 1, cudaErrorInvalidDeviceFunction, 1, cudaErrorInvalidDeviceFunction,
                               cudaErrorInvalidConfiguration, cudaErrorInvalidConfiguration, cudaErrorInvalidValue,
                               cudaErrorInvalidValue, cudaSuccess, cudaErrorInvalidValue, cudaErrorInvalidResourceHandle,
                               cudaErrorNotSupported, cudaErrorNotSupported };
        char det[256] = "";
        int bad = 0;
        for (int i = 0; i < 13; i++)
            if (h[i] != want[i]) {
                bad++;
                snprintf(det + strlen(det), sizeof det - strlen(det), " [%d] %d, not %d;", i, h[i], want[i]);
            }
        verdict("bad launches return errors", bad == 0, det);
    }
    // the pending-launch limit
    {
        CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, 5));
        CHECK(cudaMemset(d, 0, 16));
        pending_parent<<<1, 1>>>(8, d, d + 2);
        CHECK(cudaDeviceSynchronize());
        int h[3];
        CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
        char det[96];
        snprintf(det, sizeof det, "%d launched, %d refused, last value %d", h[0], h[2], h[1]);
        verdict("pending launch limit (cudaErrorLaunchPendingCountExceeded)", h[0] == 5 && h[2] == 3 && h[1] == 4, det);
        CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, 2048));
    }
    // a child's fault fails the host launch
    {
        oob_parent<<<1, 1>>>(d);
        cudaError_t e = cudaDeviceSynchronize();
        verdict("a child grid's fault fails the launch", e == cudaErrorIllegalAddress, cudaGetErrorName(e));
    }
    printf("%s\n", failures ? "FAILED" : "PASSED");
    return failures != 0;
}
