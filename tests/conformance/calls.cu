/* SPDX-License-Identifier: Apache-2.0 */
// Calls: recursion (divergent depth per thread), indirect calls through
// function-pointer tables (call with a register target and a prototype),
// virtual functions (vtables: function addresses in .global
// initialisers), device-side new/delete and malloc/free (memory that
// outlives its kernel), printf through vprintf.
#include "common.h"
#include <stdint.h>
#include <unistd.h>

__device__ __noinline__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

// mutual recursion with a local array per frame (the stack holds it)
__device__ __noinline__ int odd_sum(int n, int acc);
__device__ __noinline__ int even_sum(int n, int acc)
{
    volatile int frame[4] = {n, n + 1, n + 2, n + 3};
    return n == 0 ? acc : odd_sum(n - 1, acc + frame[n & 3] - (n & 3));
}
__device__ __noinline__ int odd_sum(int n, int acc) { return n == 0 ? acc : even_sum(n - 1, acc + n * 2); }

__global__ void recursion(int *out)
{
    int t = threadIdx.x;
    out[t] = fib(t % 16);          // each lane recurses to its own depth
    out[32 + t] = even_sum(t * 3, 0); // up to 93 frames deep
}

typedef int (*binop)(int, int);
__device__ __noinline__ int op_add(int a, int b) { return a + b; }
__device__ __noinline__ int op_sub(int a, int b) { return a - b; }
__device__ __noinline__ int op_mul(int a, int b) { return a * b; }
__device__ __noinline__ int op_max(int a, int b) { return a > b ? a : b; }
__device__ binop table[4] = {op_add, op_sub, op_mul, op_max}; // addresses in a .global initialiser

__global__ void pointers(int *out, binop extra)
{
    int t = threadIdx.x;
    binop f = table[t % 4]; // four different targets in one warp
    out[t] = f(t, 7);
    out[32 + t] = (t & 1 ? extra : f)(t, 3); // a pointer passed in from another kernel
}
__global__ void get_pointer(binop *where) { *where = op_mul; }

struct Shape {
    __device__ virtual ~Shape() {}
    __device__ virtual int area() const = 0;
    __device__ virtual int sides() const { return 0; }
};
struct Rect : Shape {
    int w, h;
    __device__ Rect(int w_, int h_) : w(w_), h(h_) {}
    __device__ int area() const override { return w * h; }
    __device__ int sides() const override { return 4; }
};
struct Tri : Shape {
    int b, h;
    __device__ Tri(int b_, int h_) : b(b_), h(h_) {}
    __device__ int area() const override { return b * h / 2; }
    __device__ int sides() const override { return 3; }
};
struct Circle : Shape {
    int r;
    __device__ Circle(int r_) : r(r_) {}
    __device__ int area() const override { return 3 * r * r; }
};

__device__ Shape *shapes[64];

__global__ void make_shapes()
{
    int t = threadIdx.x;
    if (t % 3 == 0) shapes[t] = new Rect(t, 2);
    else if (t % 3 == 1) shapes[t] = new Tri(t, 4);
    else shapes[t] = new Circle(t);
}
__global__ void use_shapes(int *out)
{
    int t = threadIdx.x;
    Shape *s = shapes[t];
    out[t] = s ? s->area() * 10 + s->sides() : -1;
    delete s; // virtual destructor
    shapes[t] = nullptr;
}

__device__ int *blocks[32];
__global__ void alloc(int n)
{
    int t = threadIdx.x;
    int *p = (int *)malloc(n * sizeof(int) * (t + 1));
    if (p)
        for (int i = 0; i < n * (t + 1); i++) p[i] = t * 1000 + i;
    blocks[t] = p;
}
__global__ void check_free(int n, int *out)
{
    int t = threadIdx.x;
    int *p = blocks[t], bad = p ? 0 : 1;
    for (int i = 0; p && i < n * (t + 1); i++) bad += p[i] != t * 1000 + i;
    free(p);
    out[t] = bad;
}

__global__ void say(int n, int *ret)
{
    if (threadIdx.x < n) ret[threadIdx.x] = printf("calls: thread %d says %d %s %.2f\n", threadIdx.x, threadIdx.x * 11, "hi", 1.5);
    else ret[threadIdx.x] = printf("");
}

// two warps, a call some lanes skip: the interpreter's order (a warp runs
// until it exits; each call's lanes in lane order)
__global__ void say_warps()
{
    printf("a%d\n", threadIdx.x);
    if (threadIdx.x % 3 == 1) printf("b%d\n", threadIdx.x);
}

static int host_even_sum(int n, int acc);
static int host_odd_sum(int n, int acc) { return n == 0 ? acc : host_even_sum(n - 1, acc + n * 2); }
static int host_even_sum(int n, int acc)
{
    int frame[4] = {n, n + 1, n + 2, n + 3};
    return n == 0 ? acc : host_odd_sum(n - 1, acc + frame[n & 3] - (n & 3));
}
static int host_fib(int n) { return n < 2 ? n : host_fib(n - 1) + host_fib(n - 2); }

int main()
{
    int *d, h[64];
    if (!CK(cudaMalloc(&d, 1024))) return finish("calls");
    CK(cudaDeviceSetLimit(cudaLimitStackSize, 8192)); // 93 frames deep
    recursion<<<1, 32>>>(d);
    if (LAUNCHED("recursion") && CK(cudaMemcpy(h, d, 64 * sizeof(int), cudaMemcpyDeviceToHost))) {
        int bad = -1;
        for (int t = 0; t < 32 && bad < 0; t++)
            if (h[t] != host_fib(t % 16) || h[32 + t] != host_even_sum(t * 3, 0)) bad = t;
        check(bad < 0, "recursion (divergent depths, mutual, frames with arrays)", "lane %d: %d %d", bad,
              bad < 0 ? 0 : h[bad], bad < 0 ? 0 : h[32 + bad]);
    }
    binop *dp, hp;
    if (CK(cudaMalloc(&dp, sizeof *dp))) {
        get_pointer<<<1, 1>>>(dp);
        if (LAUNCHED("get_pointer") && CK(cudaMemcpy(&hp, dp, sizeof hp, cudaMemcpyDeviceToHost))) {
            pointers<<<1, 32>>>(d, hp);
            if (LAUNCHED("pointers") && CK(cudaMemcpy(h, d, 64 * sizeof(int), cudaMemcpyDeviceToHost))) {
                int bad = -1;
                for (int t = 0; t < 32 && bad < 0; t++) {
                    int w[4] = {t + 7, t - 7, t * 7, t > 7 ? t : 7};
                    int w3[4] = {t + 3, t - 3, t * 3, t > 3 ? t : 3};
                    if (h[t] != w[t % 4] || h[32 + t] != (t & 1 ? t * 3 : w3[t % 4])) bad = t;
                }
                check(bad < 0, "indirect calls: a table in .global and a pointer from another kernel", "lane %d: %d %d",
                      bad, bad < 0 ? 0 : h[bad], bad < 0 ? 0 : h[32 + bad]);
            }
        }
    }
    make_shapes<<<1, 64>>>();
    if (LAUNCHED("make_shapes")) {
        use_shapes<<<1, 64>>>(d);
        int hs[64];
        if (LAUNCHED("use_shapes") && CK(cudaMemcpy(hs, d, sizeof hs, cudaMemcpyDeviceToHost))) {
            int bad = -1;
            for (int t = 0; t < 64 && bad < 0; t++) {
                int want = t % 3 == 0 ? t * 2 * 10 + 4 : t % 3 == 1 ? t * 4 / 2 * 10 + 3 : 3 * t * t * 10;
                if (hs[t] != want) bad = t;
            }
            check(bad < 0, "virtual functions on objects from device new, deleted through the base", "thread %d: %d",
                  bad, bad < 0 ? 0 : hs[bad]);
        }
    }
    CK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 8 << 20));
    for (int round = 0; round < 3; round++) { // freed memory is reused; nothing leaks into the next round
        alloc<<<1, 32>>>(100 + round);
        if (!LAUNCHED("alloc")) break;
        check_free<<<1, 32>>>(100 + round, d);
        if (!LAUNCHED("check_free") || !CK(cudaMemcpy(h, d, 32 * sizeof(int), cudaMemcpyDeviceToHost))) break;
        int bad = -1;
        for (int t = 0; t < 32 && bad < 0; t++)
            if (h[t]) bad = t;
        if (round == 2) check(bad < 0, "malloc in one kernel, read and free in the next (3 rounds)", "thread %d: %d", bad, bad < 0 ? 0 : h[bad]);
        else if (bad >= 0) check(false, "malloc/free", "round %d thread %d: %d", round, bad, h[bad]);
    }
    // printf: the device's lines, captured from our stdout
    fflush(stdout);
    FILE *tf = tmpfile();
    int saved = dup(1);
    if (tf && saved >= 0 && dup2(fileno(tf), 1) >= 0) {
        say<<<1, 32>>>(3, d);
        bool ran = LAUNCHED("say");
        fflush(stdout);
        dup2(saved, 1);
        char text[512] = "";
        rewind(tf);
        size_t n = fread(text, 1, sizeof text - 1, tf);
        text[n] = 0;
        const char *want = "calls: thread 0 says 0 hi 1.50\ncalls: thread 1 says 11 hi 1.50\ncalls: thread 2 says 22 hi 1.50\n";
        if (ran) check(strcmp(text, want) == 0, "printf through vprintf", "printed [%s]", text);
        if (ran && CK(cudaMemcpy(h, d, 32 * sizeof(int), cudaMemcpyDeviceToHost)))
            check(h[0] == 4 && h[2] == 4 && h[3] == 0 && h[31] == 0, "printf returns the number of arguments it parsed",
                  "%d %d %d", h[0], h[3], h[31]);
    }
    fflush(stdout);
    if (tf && saved >= 0 && ftruncate(fileno(tf), 0) == 0 && dup2(fileno(tf), 1) >= 0) {
        rewind(tf);
        say_warps<<<1, 64>>>();
        bool ran = LAUNCHED("say_warps");
        fflush(stdout);
        dup2(saved, 1);
        static char text[2048], want[2048];
        size_t w = 0;
        for (int warp = 0; warp < 2; warp++) {
            for (int l = 0; l < 32; l++) w += (size_t)snprintf(want + w, sizeof want - w, "a%d\n", warp * 32 + l);
            for (int l = 0; l < 32; l++)
                if ((warp * 32 + l) % 3 == 1) w += (size_t)snprintf(want + w, sizeof want - w, "b%d\n", warp * 32 + l);
        }
        rewind(tf);
        size_t n = fread(text, 1, sizeof text - 1, tf);
        text[n] = 0;
        if (ran) check(strcmp(text, want) == 0, "printf of two warps: warp by warp, each call's lanes in lane order", "printed [%s]", text);
    }
    return finish("calls");
}
