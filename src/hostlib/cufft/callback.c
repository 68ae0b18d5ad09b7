/* SPDX-License-Identifier: Apache-2.0 */
/* cuFFT's LTO callbacks (cufftXtSetJITCallback) on the emulated GPU.
 *
 * The host cuFFT cannot run device code, but the emulated driver can: the
 * program's callback (LTO-IR, in a fatbinary or as nvrtcGetLTOIR gave it)
 * is linked with a trampoline kernel into PTX and loaded as a module of the
 * plan's context. NVIDIA's NVRTC compiles the trampoline (CUDA C, below) to
 * LTO-IR with -dlto for the device's architecture; NVIDIA's nvJitLink links
 * it with the callback with -lto -ptx. Both libraries are found as
 * src/jitwrap finds them (libsearch.c), skipping this library's directory.
 *
 * The trampoline walks every element of one side of the transform (the
 * batch, then the dimensions, the last fastest) and computes the element's
 * offset in memory, in elements from the array's start, the stride,
 * embeddings and distance included: the offset NVIDIA's callbacks are
 * given. A load calls the callback for each element and writes what it
 * returns at that offset of a scratch array, which the FFT then reads; a
 * store reads the FFT's scratch output at the offset and hands it to the
 * callback. exec.c queues them on the plan's stream around the FFTW job. */
#include "fft.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libsearch.h"

/* ---- NVIDIA's NVRTC and nvJitLink, opened once ----------------------- */
typedef int (*rtc_create_f)(void **prog, const char *src, const char *name, int nh, const char *const *h,
                            const char *const *hn);
typedef int (*rtc_destroy_f)(void **prog);
typedef int (*rtc_compile_f)(void *prog, int nopt, const char *const *opt);
typedef int (*rtc_size_f)(void *prog, size_t *n);
typedef int (*rtc_get_f)(void *prog, char *out);
typedef int (*lk_create_f)(void **h, uint32_t nopt, const char **opt);
typedef int (*lk_destroy_f)(void **h);
typedef int (*lk_add_f)(void *h, int type, const void *data, size_t size, const char *name);
typedef int (*lk_complete_f)(void *h);
typedef int (*lk_size_f)(void *h, size_t *n);
typedef int (*lk_get_f)(void *h, char *out);

#define LK_INPUT_LTOIR 3
#define LK_INPUT_ANY 10

static struct {
    rtc_create_f create;
    rtc_destroy_f destroy;
    rtc_compile_f compile;
    rtc_size_f ltoir_size;
    rtc_get_f ltoir;
    lk_create_f lcreate;
    lk_destroy_f ldestroy;
    lk_add_f add;
    lk_complete_f complete;
    lk_size_f ptx_size;
    lk_get_f ptx;
    const char *why;    /* why they are not there, or NULL */
} jl;
static pthread_once_t jl_once = PTHREAD_ONCE_INIT;

static void *open_nvidia(const char *soname)
{
    char dir[PATH_MAX] = "", path[PATH_MAX];
    Dl_info info;
    if (dladdr((void *)&fft_cb_build, &info) && info.dli_fname && realpath(info.dli_fname, dir)) {
        char *slash = strrchr(dir, '/');
        if (slash)
            *slash = 0;
    }
    if (td_find_library(soname, dir, path, sizeof path) != 0)
        return NULL;
    return dlopen(path, RTLD_NOW | RTLD_LOCAL);
}

static void jl_open(void)
{
    void *rtc = open_nvidia("libnvrtc.so.13");
    void *lk = open_nvidia("libnvJitLink.so.13");
    if (!rtc || !lk) {
        jl.why = !rtc ? "LTO callback: NVIDIA's NVRTC (libnvrtc.so.13) was not found"
                      : "LTO callback: NVIDIA's nvJitLink (libnvJitLink.so.13) was not found";
        return;
    }
    *(void **)&jl.create = dlsym(rtc, "nvrtcCreateProgram");
    *(void **)&jl.destroy = dlsym(rtc, "nvrtcDestroyProgram");
    *(void **)&jl.compile = dlsym(rtc, "nvrtcCompileProgram");
    *(void **)&jl.ltoir_size = dlsym(rtc, "nvrtcGetLTOIRSize");
    *(void **)&jl.ltoir = dlsym(rtc, "nvrtcGetLTOIR");
    *(void **)&jl.lcreate = dlsym(lk, "__nvJitLinkCreate_13_0");
    *(void **)&jl.ldestroy = dlsym(lk, "__nvJitLinkDestroy_13_0");
    *(void **)&jl.add = dlsym(lk, "__nvJitLinkAddData_13_0");
    *(void **)&jl.complete = dlsym(lk, "__nvJitLinkComplete_13_0");
    *(void **)&jl.ptx_size = dlsym(lk, "__nvJitLinkGetLinkedPtxSize_13_0");
    *(void **)&jl.ptx = dlsym(lk, "__nvJitLinkGetLinkedPtx_13_0");
    if (!jl.create || !jl.destroy || !jl.compile || !jl.ltoir_size || !jl.ltoir || !jl.lcreate ||
        !jl.ldestroy || !jl.add || !jl.complete || !jl.ptx_size || !jl.ptx)
        jl.why = "LTO callback: NVIDIA's NVRTC or nvJitLink lacks a function of version 13";
}

/* ---- the trampoline ----------------------------------------------------- */
struct cbtype {
    const char *val;    /* the element's type */
    int store;
};
static const struct cbtype types[8] = {
    [CUFFT_CB_LD_COMPLEX] = { "float2", 0 },  [CUFFT_CB_LD_COMPLEX_DOUBLE] = { "double2", 0 },
    [CUFFT_CB_LD_REAL] = { "float", 0 },      [CUFFT_CB_LD_REAL_DOUBLE] = { "double", 0 },
    [CUFFT_CB_ST_COMPLEX] = { "float2", 1 },  [CUFFT_CB_ST_COMPLEX_DOUBLE] = { "double2", 1 },
    [CUFFT_CB_ST_REAL] = { "float", 1 },      [CUFFT_CB_ST_REAL_DOUBLE] = { "double", 1 },
};

int fft_cb_dir_of(int type)
{
    if (type < 0 || type >= 8)
        return -1;
    return types[type].store ? FCB_STORE : FCB_LOAD;
}

/* The kernel's name; a callback of this name fails to link. */
#define KERNEL "tdtrace_cufft_callback"

/* the trampoline's CUDA C for a callback of that type and name (a C
 * identifier: checked by the caller), or NULL without memory */
static char *trampoline(int type, const char *name)
{
    const char *t = types[type].val;
    const char *fmt =
        "typedef %s td_t;\n"
        "extern \"C\" __device__ %s %s(void *, unsigned long long, %svoid *, void *);\n"
        "extern \"C\" __global__ void " KERNEL "(char *data, td_t *tmp, void *info, long long n0,\n"
        "    long long n1, long long n2, long long s0, long long s1, long long s2, long long dist,\n"
        "    long long total)\n"
        "{\n"
        "    extern __shared__ __align__(16) char td_shared[];\n"
        "    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total;\n"
        "         i += (long long)gridDim.x * blockDim.x) {\n"
        "        long long r = i;\n"
        "        long long i2 = r %% n2; r /= n2;\n"
        "        long long i1 = r %% n1; r /= n1;\n"
        "        long long i0 = r %% n0; r /= n0;\n"
        "        unsigned long long off = r * dist + i0 * s0 + i1 * s1 + i2 * s2;\n"
        "        %s\n"
        "    }\n"
        "}\n";
    char call[1400];
    if (types[type].store)
        snprintf(call, sizeof call, "%s(data, off, tmp[off], info, td_shared);", name);
    else
        snprintf(call, sizeof call, "tmp[off] = %s(data, off, info, td_shared);", name);
    size_t n = strlen(fmt) + 3 * strlen(t) + strlen(name) + strlen(call) + 64;
    char *src = malloc(n);
    if (src)
        snprintf(src, n, fmt, t, types[type].store ? "void" : t, name, types[type].store ? "td_t, " : "",
                 call);
    return src;
}

/* the trampoline's LTO-IR (malloc'd) for sm_<arch>, or NULL (*st says why) */
static char *compile(int type, const char *name, int arch, size_t *len, cufftResult *st)
{
    char *src = trampoline(type, name);
    if (!src) {
        *st = CUFFT_ALLOC_FAILED;
        return NULL;
    }
    char archopt[32];
    snprintf(archopt, sizeof archopt, "-arch=compute_%d", arch);
    const char *opts[] = { archopt, "-dlto", "-rdc=true" };
    void *prog = NULL;
    char *ir = NULL;
    *st = CUFFT_NVRTC_FAILURE;
    if (jl.create(&prog, src, "tdtrace_cufft_callback.cu", 0, NULL, NULL) == 0) {
        if (jl.compile(prog, 3, opts) == 0 && jl.ltoir_size(prog, len) == 0 && *len > 0) {
            ir = malloc(*len);
            if (!ir)
                *st = CUFFT_ALLOC_FAILED;
            else if (jl.ltoir(prog, ir) != 0) {
                free(ir);
                ir = NULL;
            }
        }
        jl.destroy(&prog);
    }
    free(src);
    if (!ir)
        hl_note(*st == CUFFT_ALLOC_FAILED ? NULL
                                          : "LTO callback: NVIDIA's NVRTC did not compile the trampoline kernel");
    return ir;
}

/* the PTX of trampoline and callback linked (malloc'd, NUL-terminated), or
 * NULL (*st says why) */
static char *link_ptx(const char *ir, size_t irlen, const void *fatbin, size_t size, int arch, cufftResult *st)
{
    char archopt[32];
    snprintf(archopt, sizeof archopt, "-arch=sm_%d", arch);
    const char *opts[] = { archopt, "-lto", "-ptx" };
    void *h = NULL;
    char *ptx = NULL;
    size_t n = 0;
    *st = CUFFT_NVJITLINK_FAILURE;
    if (jl.lcreate(&h, 3, opts) != 0) {
        hl_note("LTO callback: NVIDIA's nvJitLink refused the link's options");
        return NULL;
    }
    if (jl.add(h, LK_INPUT_LTOIR, ir, irlen, "tdtrace_cufft_callback") != 0 ||
        jl.add(h, LK_INPUT_ANY, fatbin, size, "lto_callback_fatbin") != 0) {
        hl_note("LTO callback: NVIDIA's nvJitLink did not take the callback (not LTO-IR or a fatbinary holding it, "
                "or for a later architecture than the device's)");
    } else if (jl.complete(h) != 0) {
        hl_note("LTO callback: NVIDIA's nvJitLink did not link it (is the symbol name the callback's, with this "
                "type's signature?)");
    } else if (jl.ptx_size(h, &n) == 0 && n > 0 && (ptx = malloc(n + 1))) {
        if (jl.ptx(h, ptx) != 0) {
            free(ptx);
            ptx = NULL;
        } else {
            ptx[n] = 0;
        }
    } else if (n > 0) {
        *st = CUFFT_ALLOC_FAILED;
    }
    jl.ldestroy(&h);
    return ptx;
}

/* whether the linked PTX still declares the callback .extern: nvJitLink's
 * -ptx leaves a symbol no input defines unresolved rather than failing */
static int unresolved(const char *ptx, const char *name)
{
    size_t nl = strlen(name);
    for (const char *l = ptx; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        if (strncmp(l, ".extern .func", 13) != 0)
            continue;
        const char *e = strchr(l, '\n');
        size_t len = e ? (size_t)(e - l) : strlen(l);
        while (len > 0 && (l[len - 1] == ' ' || l[len - 1] == '\r' || l[len - 1] == '('))
            len--;
        if (len > nl && memcmp(l + len - nl, name, nl) == 0 && (l[len - nl - 1] == ' ' || l[len - nl - 1] == ')'))
            return 1;
    }
    return 0;
}

/* a C identifier of at most 1023 characters */
static int identifier(const char *s)
{
    size_t n = strnlen(s, 1024);
    if (n == 0 || n == 1024 || (s[0] >= '0' && s[0] <= '9'))
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
            return 0;
    }
    return 1;
}

cufftResult fft_cb_build(struct fft_cb *cb, int type, const char *name, const void *fatbin, size_t size)
{
    if (fft_cb_dir_of(type) < 0)
        return CUFFT_INVALID_TYPE;
    if (!name || !fatbin || size == 0)
        return CUFFT_INVALID_VALUE;
    if (!identifier(name)) {
        hl_note("LTO callback: the symbol name is not an identifier of at most 1023 characters");
        return CUFFT_INVALID_VALUE;
    }
    if (hl_init() != HL_OK)
        return CUFFT_SETUP_FAILED;
    pthread_once(&jl_once, jl_open);
    if (jl.why) {
        hl_note(jl.why);
        return CUFFT_MISSING_DEPENDENCY;
    }
    CUcontext ctx = NULL;
    CUdevice dev;
    int major = 0, minor = 0;
    if (cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || !ctx || cuCtxGetDevice(&dev) != CUDA_SUCCESS ||
        cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev) != CUDA_SUCCESS ||
        cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev) != CUDA_SUCCESS)
        return CUFFT_SETUP_FAILED;
    int arch = major * 10 + minor;
    cufftResult st;
    size_t irlen = 0;
    char *ir = compile(type, name, arch, &irlen, &st);
    if (!ir)
        return st;
    char *ptx = link_ptx(ir, irlen, fatbin, size, arch, &st);
    free(ir);
    if (!ptx)
        return st;
    if (unresolved(ptx, name)) {
        free(ptx);
        hl_note("LTO callback: the fatbinary defines no device function of that symbol name");
        return CUFFT_NVJITLINK_FAILURE;
    }
    CUmodule mod;
    CUfunction fn;
    CUresult r = cuModuleLoadData(&mod, ptx);
    free(ptx);
    if (r != CUDA_SUCCESS) {
        hl_note("LTO callback: the emulated GPU did not load the linked PTX");
        return CUFFT_INTERNAL_ERROR;
    }
    if (cuModuleGetFunction(&fn, mod, KERNEL) != CUDA_SUCCESS) {
        cuModuleUnload(mod);
        return CUFFT_INTERNAL_ERROR;
    }
    fft_cb_clear(cb);
    cb->set = 1;
    cb->type = type;
    cb->ctx = ctx;
    cb->mod = mod;
    cb->fn = fn;
    return CUFFT_SUCCESS;
}

void fft_cb_clear(struct fft_cb *cb)
{
    if (!cb->set)
        return;
    if (cuCtxPushCurrent(cb->ctx) == CUDA_SUCCESS) {
        cuModuleUnload(cb->mod);
        CUcontext c;
        cuCtxPopCurrent(&c);
    }
    memset(cb, 0, sizeof *cb);
}

/* the callback types a plan of this kind and precision takes, load and store */
cufftResult fft_cb_fits(const struct fft_plan *p)
{
    if (!p->cb[FCB_LOAD].set && !p->cb[FCB_STORE].set)
        return CUFFT_SUCCESS;
    if (p->ngpus > 1 || (p->prec != FP_F32 && p->prec != FP_F64))
        return CUFFT_NOT_SUPPORTED;
    int dbl = p->prec == FP_F64;
    int ld = p->kind == FK_R2C ? CUFFT_CB_LD_REAL : CUFFT_CB_LD_COMPLEX;
    int st = p->kind == FK_C2R ? CUFFT_CB_ST_REAL : CUFFT_CB_ST_COMPLEX;
    if ((p->cb[FCB_LOAD].set && p->cb[FCB_LOAD].type != ld + dbl) ||
        (p->cb[FCB_STORE].set && p->cb[FCB_STORE].type != st + dbl))
        return CUFFT_INVALID_TYPE;
    return CUFFT_SUCCESS;
}

/* frees the plan's scratch arrays (cuMemFree waits for the work using them) */
static void tmp_free(struct fft_plan *p)
{
    if ((p->tmp[0] || p->tmp[1]) && cuCtxPushCurrent(p->tmpctx) == CUDA_SUCCESS) {
        for (int i = 0; i < 2; i++)
            if (p->tmp[i])
                cuMemFree_v2((CUdeviceptr)(uintptr_t)p->tmp[i]);
        CUcontext c;
        cuCtxPopCurrent(&c);
    }
    p->tmp[0] = p->tmp[1] = NULL;
    p->tmplen[0] = p->tmplen[1] = 0;
    p->tmpctx = NULL;
}

void *fft_cb_tmp(struct fft_plan *p, int which, size_t bytes)
{
    if (which < 0 || which > 1)
        return NULL;
    CUcontext ctx = NULL;
    if (cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || !ctx)
        return NULL;
    if (p->tmp[which] && p->tmplen[which] >= bytes && p->tmpctx == ctx)
        return p->tmp[which];
    if ((p->tmp[0] || p->tmp[1]) && p->tmpctx != ctx)
        tmp_free(p);   /* the scratch of another context: both go */
    if (p->tmp[which]) {
        cuMemFree_v2((CUdeviceptr)(uintptr_t)p->tmp[which]);   /* waits for the work using it */
        p->tmp[which] = NULL;
        p->tmplen[which] = 0;
    }
    CUdeviceptr d;
    if (cuMemAlloc_v2(&d, bytes ? bytes : 1) != CUDA_SUCCESS)
        return NULL;
    p->tmp[which] = (void *)(uintptr_t)d;
    p->tmplen[which] = bytes;
    p->tmpctx = ctx;
    return p->tmp[which];
}

cufftResult fft_cb_prepare(struct fft_plan *p)
{
    size_t need[2] = { 0, 0 };
    for (int inplace = 0; inplace < 2; inplace++) {
        struct fft_side is, os;
        int64_t span[2];
        if (fft_extents(p, inplace, &is, &os, span))
            return CUFFT_INVALID_SIZE;
        for (int d = 0; d < 2; d++)
            need[d] = need[d] > (size_t)span[d] ? need[d] : (size_t)span[d];
    }
    for (int d = 0; d < 2; d++)
        if (p->cb[d].set && !fft_cb_tmp(p, d, need[d]))
            return CUFFT_ALLOC_FAILED;
    return CUFFT_SUCCESS;
}

int fft_cb_launch(struct fft_plan *p, int dir, void *data, void *tmp, const struct fft_side *s)
{
    const struct fft_cb *cb = &p->cb[dir];
    long long n[3] = { 1, 1, 1 }, st[3] = { 0, 0, 0 };
    long long total = p->batch;
    for (int d = 0; d < p->rank; d++) {
        long long m = 1;
        for (int j = d + 1; j < p->rank; j++)
            m *= s->embed[j];
        n[3 - p->rank + d] = s->n[d];
        st[3 - p->rank + d] = s->stride * m;
        total *= s->n[d];   /* the spans were checked for overflow when the plan was made */
    }
    long long dist = s->dist;
    void *info = cb->info;
    char *dp = data;
    void *args[] = { &dp, &tmp, &info, &n[0], &n[1], &n[2], &st[0], &st[1], &st[2], &dist, &total };
    unsigned block = 128;
    long long blocks = (total + block - 1) / block;
    unsigned grid = blocks > 1024 ? 1024 : blocks < 1 ? 1 : (unsigned)blocks;
    size_t shared = p->cbshared[dir];
    if (shared > 48 * 1024 &&
        cuFuncSetAttribute(cb->fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)shared) != CUDA_SUCCESS)
        return -1;
    return cuLaunchKernel(cb->fn, grid, 1, 1, block, 1, 1, (unsigned)shared, p->stream, args, NULL) == CUDA_SUCCESS
               ? 0
               : -1;
}

void fft_cb_drop(struct fft_plan *p)
{
    fft_cb_clear(&p->cb[FCB_LOAD]);
    fft_cb_clear(&p->cb[FCB_STORE]);
    tmp_free(p);
}
