/* SPDX-License-Identifier: Apache-2.0 */
/* Modules, libraries, functions and kernels. Images are parsed by
 * fatbin.c into PTX texts, kernels (with their parameter layout) and
 * global variables; a module allocates its globals as device memory of
 * its context. A launch validates everything, then hands the kernel to
 * launch.c, which runs its PTX on the stream's worker
 * (CUDA_ERROR_NO_BINARY_FOR_GPU for an image without PTX).
 *
 * Why one file of about 1,700 lines: modules, libraries, functions and
 * launches share the function reference (struct fn_ref, fn_resolve) and
 * the per-function attribute table under attr_lock; kept private here,
 * the launch checks and the attributes cannot disagree.
 */
#include "emu.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drvver.h"
#include "fatbin.h"
#include "xlat.h"

struct emu_library;

struct fattrs {                      /* settable function attributes */
    int max_dyn_shared, carveout, non_portable, sched_policy;
    int cache_config;                /* cuFuncSetCacheConfig, cuKernelSetCacheConfig */
    int shmem_config;                /* cuFuncSetSharedMemConfig */
};

struct emu_module {
    struct emu_obj o;
    struct emu_image own;            /* the image when loaded directly */
    const struct emu_image *img;     /* &own, or the library's */
    struct emu_library *lib;         /* referenced, or NULL */
    pthread_mutex_t lock;
    struct emu_func **funcs;         /* by entry, made on first use */
    uintptr_t *globals;              /* by global: device address */
    struct emu_ptxmod *px;           /* the parsed PTX (launch.c), referenced */
    struct emu_ptxglob *pg;          /* its globals' addresses */
};

struct legacy;                       /* the pre-4.0 launch API's settings */

struct emu_func {
    struct emu_obj o;
    struct emu_module *mod;          /* referenced */
    int entry;
    struct fattrs at;
    struct legacy *legacy;           /* made on first use, under attr_lock */
};

struct lib_mod { struct emu_ctx *c; struct emu_module *m; };

struct emu_library {
    struct emu_obj o;
    struct emu_image img;
    pthread_mutex_t lock;
    struct emu_kernel **kernels;     /* by entry, made on first use */
    struct lib_mod *mods;            /* one module per context */
    int nmods, capmods;
    struct emu_ptxmod *px;           /* the parsed PTX, parsed once */
    char *no_binary;                 /* lazy loading: why no context can load it
                                        (CUDA_ERROR_NO_BINARY_FOR_GPU at first use) */
    atomic_int told;                 /* no_binary reported */
    /* its __managed__ variables, by image global (0: not one): one copy
     * for every context, as the driver's, made and initialised on first
     * need (library_managed, under lock) */
    uintptr_t *managed;
    int managed_made;
    CUresult managed_r;
};

struct emu_kernel {
    struct emu_obj o;
    struct emu_library *lib;         /* referenced */
    int entry;
    struct fattrs *at;               /* by device ordinal: cuKernelSetAttribute
                                        is device-wide, and the functions
                                        cuKernelGetFunction gives on that
                                        device follow it (kernel_apply) */
};

static void fattrs_init(struct fattrs *a)
{
    a->max_dyn_shared = -1; /* 48 KiB less the static shared memory */
    a->carveout = -1;
    a->non_portable = 0;
    a->sched_policy = 0;
}

static int find_entry(const struct emu_image *img, const char *name)
{
    for (int i = 0; i < img->nentries; i++)
        if (strcmp(img->entries[i].name, name) == 0)
            return i;
    return -1;
}

static int find_global(const struct emu_image *img, const char *name)
{
    for (int i = 0; i < img->nglobals; i++)
        if (strcmp(img->globals[i].name, name) == 0)
            return i;
    return -1;
}

/* ---- modules --------------------------------------------------------- */

static void func_release(struct emu_obj *o)
{
    struct emu_func *f = (struct emu_func *)o;
    emu_obj_put(&f->mod->o);
    free(f->legacy);
    free(f);
}

static void library_put(struct emu_library *l)
{
    if (l)
        emu_obj_put(&l->o);
}

static void module_release(struct emu_obj *o)
{
    struct emu_module *m = (struct emu_module *)o;
    if (!m->lib)
        emu_image_free(&m->own);
    library_put(m->lib);
    emu_ptx_put(m->px);
    free(m->funcs);
    free(m->globals);
    pthread_mutex_destroy(&m->lock);
    emu_ctx_put(m->o.ctx);
    free(m);
}

/* Library l's __managed__ variables (under l->lock): allocated once, on
 * no context (every context's modules and cuLibraryGetManaged share them;
 * managed memory reaches every device), zeroed, and initialised from the
 * PTX. The result is kept: a second call answers the same. */
static CUresult library_managed(struct emu_library *l)
{
    if (l->managed_made)
        return l->managed_r;
    l->managed_made = 1;
    CUresult r = CUDA_SUCCESS;
    int any = 0;
    for (int i = 0; i < l->img.nglobals; i++)
        any |= l->img.globals[i].is_managed;
    if (any && emu_ndevices < 1)
        r = CUDA_ERROR_NO_DEVICE;
    else if (any && !(l->managed = calloc((size_t)l->img.nglobals, sizeof *l->managed)))
        r = CUDA_ERROR_OUT_OF_MEMORY;
    for (int i = 0; any && !r && i < l->img.nglobals; i++) {
        if (!l->img.globals[i].is_managed)
            continue;
        size_t sz = l->img.globals[i].size ? (size_t)l->img.globals[i].size : 1;
        r = emu_mem_alloc_global(&emu_devices[0], sz, EMU_ALLOC_MANAGED_VAR, &l->managed[i]);
        if (!r)
            memset((void *)l->managed[i], 0, sz);
    }
    if (any && !r)
        emu_ptx_init_shared(l->px, &l->img, l->managed);
    l->managed_r = r;
    return r;
}

/* a global of module m that its library owns (not m's to release) */
static int library_owns(const struct emu_module *m, int i)
{
    return m->lib && m->lib->managed && m->lib->managed[i] && m->lib->managed[i] == m->globals[i];
}

/* A module of c: of image img with its parsed PTX px (both taken, also on
 * failure), or of library lib (whose lock the caller holds). */
static CUresult module_new(struct emu_ctx *c, struct emu_image *img, struct emu_ptxmod *px,
                           struct emu_library *lib, struct emu_module **out)
{
    struct emu_module *m = calloc(1, sizeof *m);
    if (!m) {
        if (img)
            emu_image_free(img);
        emu_ptx_put(px);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    if (lib) {
        m->img = &lib->img;
        m->lib = lib;
        emu_obj_ref(&lib->o);
    } else {
        m->own = *img;
        m->img = &m->own;
    }
    emu_obj_init(&m->o, EMU_T_MODULE, c, module_release);
    emu_obj_ref(&c->o); /* an unload waits for the context's work */
    pthread_mutex_init(&m->lock, NULL);
    const struct emu_image *im = m->img;
    m->funcs = calloc((size_t)im->nentries + 1, sizeof *m->funcs);
    m->globals = calloc((size_t)im->nglobals + 1, sizeof *m->globals);
    unsigned char *shared = calloc((size_t)im->nglobals + 1, 1);
    CUresult r = m->funcs && m->globals && shared ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
    if (r == CUDA_SUCCESS && lib)
        r = library_managed(lib);
    for (int i = 0; i < im->nglobals && r == CUDA_SUCCESS; i++) {
        if (lib && lib->managed && lib->managed[i]) { /* the library's, initialised already */
            m->globals[i] = lib->managed[i];
            shared[i] = 1;
            continue;
        }
        size_t sz = im->globals[i].size ? (size_t)im->globals[i].size : 1;
        /* a __managed__ variable's flags say so (cuStreamAttachMemAsync takes it) */
        r = emu_mem_alloc(c, sz, EMU_MEM_GLOBAL, im->globals[i].is_managed ? EMU_ALLOC_MANAGED_VAR : 0, NULL,
                          &m->globals[i]);
        if (r == CUDA_SUCCESS)
            memset((void *)m->globals[i], 0, sz);
    }
    /* the PTX, parsed once per image; its globals initialised */
    if (lib)
        emu_ptx_ref(m->px = lib->px);
    else
        m->px = px;
    if (r == CUDA_SUCCESS)
        r = emu_ptx_bind(m->px, im, m->globals, shared, c, &m->pg);
    free(shared);
    if (r) {
        for (int i = 0; i < im->nglobals && m->globals; i++)
            if (m->globals[i] && !library_owns(m, i))
                emu_mem_release(m->globals[i], 1u << EMU_MEM_GLOBAL);
        emu_obj_put(&m->o); /* frees the image and the PTX with it */
        return r;
    }
    emu_obj_register(&m->o);
    *out = m;
    return CUDA_SUCCESS;
}

/* unregistered already; takes the registry's reference. Kernels of the
 * module still running use its globals: the unload waits for the work of
 * the module's context first, as the driver's does. */
static void module_kill(struct emu_module *m)
{
    emu_ctx_sync(m->o.ctx);
    pthread_mutex_lock(&m->lock);
    for (int i = 0; i < m->img->nentries; i++) {
        struct emu_func *f = m->funcs[i];
        if (f && emu_obj_unregister(&f->o))
            emu_obj_put(&f->o);
        m->funcs[i] = NULL;
    }
    emu_ptx_unbind(m->pg);
    m->pg = NULL;
    for (int i = 0; i < m->img->nglobals; i++) {
        if (m->globals[i] && !library_owns(m, i))
            emu_mem_release(m->globals[i], 1u << EMU_MEM_GLOBAL);
        m->globals[i] = 0;
    }
    pthread_mutex_unlock(&m->lock);
    emu_obj_put(&m->o);
}

static void drop_module(struct emu_obj *o)
{
    module_kill((struct emu_module *)o);
}

static void drop_func(struct emu_obj *o)
{
    emu_obj_put(o);
}

static void drop_ctx(struct emu_ctx *ctx)
{
    emu_obj_drop_ctx(ctx, EMU_T_MODULE, drop_module);
    emu_obj_drop_ctx(ctx, EMU_T_FUNC, drop_func);
}

void emu_module_init(void)
{
    emu_ctx_teardown_join(EMU_TEARDOWN_MODULES, drop_ctx);
}

/* module h, referenced, for a lookup in it: its context's sticky error
 * fails the call */
static CUresult module_get(CUmodule h, struct emu_module **out)
{
    struct emu_module *m = emu_obj_get(h, EMU_T_MODULE);
    if (!m)
        return CUDA_ERROR_INVALID_HANDLE;
    CUresult r = emu_ctx_sticky(m->o.ctx);
    if (r) {
        emu_obj_put(&m->o);
        return r;
    }
    *out = m;
    return CUDA_SUCCESS;
}

/* An image for a device of compute capability cc: its containers read,
 * the binary the device runs chosen (arch.c), that PTX parsed. On failure
 * nothing is kept and err says why; with keep_no_binary, an image with
 * nothing for the device is kept (its kernels' names read, no PTX) and
 * CUDA_ERROR_NO_BINARY_FOR_GPU returned. */
static CUresult load_image(const void *image, size_t len, int cc, struct emu_image *img,
                           struct emu_ptxmod **px, char *err, size_t errlen, int keep_no_binary)
{
    memset(img, 0, sizeof *img);
    *px = NULL;
    if (!image)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = emu_image_load(image, len, img, err, errlen);
    if (r)
        return r;
    if ((r = emu_rdc_resolve(image, cc, img, err, errlen))) {
        emu_image_free(img);
        return r;
    }
    r = emu_image_choose(img, cc, err, errlen);
    int least = 0, isa = 0;
    if (r == CUDA_SUCCESS)
        emu_image_needs(img, &least, &isa);
    /* the driver presented (--emulate=driver=) JIT-compiles only the PTX
     * ISA of its release; machine code for the device would not need it */
    int drv = emu_driver_version(), isa_drv = td_drv_for_ptx_isa(isa);
    int own_sass = 0;
    for (int i = 0; i < img->nsass; i++)
        own_sass |= img->sass_arch[i] / 10 == cc / 10 && img->sass_arch[i] <= cc;
    if (r == CUDA_SUCCESS && isa_drv > drv && !own_sass) {
        snprintf(err, errlen, "PTX ISA %d.%d needs a driver of CUDA %d.%d or newer; the driver is %d.%d",
                 isa / 10, isa % 10, isa_drv / 1000, isa_drv % 1000 / 10, drv / 1000, drv % 1000 / 10);
        r = CUDA_ERROR_UNSUPPORTED_PTX_VERSION;
    }
    if (r == CUDA_SUCCESS)
        r = emu_ptx_load(img, px, err, errlen);
    /* for tdtrace's needs report: what the image needs, loaded or refused for its ISA */
    if ((r == CUDA_SUCCESS || r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION) && (img->nptx || img->nsass))
        emu_report_image(least, isa);
    if (r && !(keep_no_binary && r == CUDA_ERROR_NO_BINARY_FOR_GPU))
        emu_image_free(img);
    return r;
}

/* A load's end: the JIT logs; a failure's reason also to the report sink
 * (the real driver says it only in the JIT log, which few programs ask for) */
static CUresult load_done(const char *fn, CUresult r, const char *err, const struct emu_image *img,
                          struct emu_jit *j)
{
    char info[128] = "";
    if (r == CUDA_SUCCESS && img->chosen >= 0) {
        struct emu_arch a;
        if (emu_ptx_target(img->ptx[img->chosen], img->ptx_len[img->chosen], &a) == 0)
            snprintf(info, sizeof info, "tdtrace-emu: runs the PTX for compute_%d%.1s on the emulator\n",
                     a.arch, a.variant ? &a.variant : "");
    }
    emu_jit_done(j, r ? err : "", info);
    if (r && r != CUDA_ERROR_INVALID_VALUE && r != CUDA_ERROR_OUT_OF_MEMORY) {
        const char *name = td_xlat_name(TD_X_CUresult, (unsigned long long)r);
        char text[768];
        int n = snprintf(text, sizeof text, "tdtrace-emu: %s: %s (%s)\n", fn, err[0] ? err : "refused",
                         name ? name : "?");
        emu_report(text, n < 0 ? 0 : (size_t)n < sizeof text ? (size_t)n : sizeof text - 1);
    }
    return r;
}

static CUresult read_file(const char *fname, void **buf, size_t *len)
{
    if (!fname)
        return CUDA_ERROR_INVALID_VALUE;
    FILE *f = fopen(fname, "rb");
    if (!f)
        return errno == ENOENT || errno == ENOTDIR ? CUDA_ERROR_FILE_NOT_FOUND
                                                   : CUDA_ERROR_OPERATING_SYSTEM;
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap + 1);
    while (b) {
        size_t k = fread(b + n, 1, cap - n, f);
        n += k;
        if (n < cap)
            break;
        if (cap > ((size_t)1 << 31)) { /* no image is that big */
            free(b);
            b = NULL;
            break;
        }
        char *nb = realloc(b, cap * 2 + 1);
        if (!nb) {
            free(b);
            b = NULL;
        }
        b = nb;
        cap *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (!b)
        return CUDA_ERROR_OUT_OF_MEMORY;
    if (bad || n == 0) {
        free(b);
        return CUDA_ERROR_INVALID_IMAGE;
    }
    b[n] = 0; /* PTX text is read as a string */
    *buf = b;
    *len = n;
    return CUDA_SUCCESS;
}

static CUresult module_load(const char *fn, CUmodule *out, const void *image, size_t len, unsigned nopt,
                            CUjit_option *opts, void **vals)
{
    struct emu_ctx *c;
    CUresult r = emu_ctx_current(&c);
    if (r)
        return r;
    struct emu_jit j;
    if (!out || emu_jit_options(nopt, opts, vals, &j)) {
        emu_ctx_put(c);
        return CUDA_ERROR_INVALID_VALUE;
    }
    struct emu_image img;
    struct emu_ptxmod *px;
    char err[512] = "";
    r = load_image(image, len, emu_device_cc(c->dev), &img, &px, err, sizeof err, 0);
    load_done(fn, r, err, &img, &j);
    struct emu_module *m = NULL;
    if (r == CUDA_SUCCESS)
        r = module_new(c, &img, px, NULL, &m);
    emu_ctx_put(c);
    if (r == CUDA_SUCCESS)
        *out = (CUmodule)m;
    return r;
}

TD_EXPORT CUresult CUDAAPI cuModuleLoadData(CUmodule *module, const void *image)
{
    return module_load("cuModuleLoadData", module, image, 0, 0, NULL, NULL);
}

TD_EXPORT CUresult CUDAAPI cuModuleLoadFatBinary(CUmodule *module, const void *fatCubin)
{
    return module_load("cuModuleLoadFatBinary", module, fatCubin, 0, 0, NULL, NULL);
}

TD_EXPORT CUresult CUDAAPI cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int numOptions,
                                              CUjit_option *options, void **optionValues)
{
    return module_load("cuModuleLoadDataEx", module, image, 0, numOptions, options, optionValues);
}

TD_EXPORT CUresult CUDAAPI cuModuleLoad(CUmodule *module, const char *fname)
{
    CUresult r = emu_ctx_require();
    if (r)
        return r;
    if (!module)
        return CUDA_ERROR_INVALID_VALUE;
    void *buf;
    size_t len;
    if ((r = read_file(fname, &buf, &len)))
        return r;
    r = module_load("cuModuleLoad", module, buf, len, 0, NULL, NULL);
    free(buf);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuModuleUnload(CUmodule hmod)
{
    EMU_INIT_OR_RETURN();
    struct emu_module *m = emu_obj_get(hmod, EMU_T_MODULE);
    if (!m)
        return CUDA_ERROR_INVALID_HANDLE;
    CUresult r = CUDA_SUCCESS;
    if (m->lib)
        r = CUDA_ERROR_NOT_PERMITTED; /* a library's module goes with the library */
    else if (emu_obj_unregister(&m->o))
        module_kill(m);
    else
        r = CUDA_ERROR_INVALID_HANDLE;
    emu_obj_put(&m->o);
    return r;
}

/* Functions' and kernels' attributes (struct fattrs). Lock order: a
 * library's lock, then a module's, then this one. */
static pthread_mutex_t attr_lock = PTHREAD_MUTEX_INITIALIZER;

/* What kernel `entry` of library l has on device d into *out, when a kernel
 * handle was made for it (else *out is left as it is). */
static void kernel_attrs(struct emu_library *l, int entry, const struct emu_device *d, struct fattrs *out)
{
    pthread_mutex_lock(&l->lock);
    struct emu_kernel *k = l->kernels[entry];
    if (k) {
        pthread_mutex_lock(&attr_lock);
        *out = k->at[d->ordinal];
        pthread_mutex_unlock(&attr_lock);
    }
    pthread_mutex_unlock(&l->lock);
}

static struct emu_func *module_func(struct emu_module *m, int entry)
{
    /* a library's function starts with what its kernel has on the device */
    struct fattrs at;
    fattrs_init(&at);
    if (m->lib)
        kernel_attrs(m->lib, entry, m->o.ctx->dev, &at);
    pthread_mutex_lock(&m->lock);
    struct emu_func *f = m->funcs[entry];
    if (!f && (f = calloc(1, sizeof *f))) {
        emu_obj_init(&f->o, EMU_T_FUNC, m->o.ctx, func_release);
        f->mod = m;
        emu_obj_ref(&m->o);
        f->entry = entry;
        f->at = at;
        emu_obj_register(&f->o);
        m->funcs[entry] = f;
    }
    pthread_mutex_unlock(&m->lock);
    return f;
}

TD_EXPORT CUresult CUDAAPI cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name)
{
    EMU_INIT_OR_RETURN();
    if (!hfunc || !name)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_module *m;
    CUresult r = module_get(hmod, &m);
    if (r)
        return r;
    int e = find_entry(m->img, name);
    r = CUDA_ERROR_NOT_FOUND;
    if (e >= 0) {
        struct emu_func *f = module_func(m, e);
        r = f ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
        if (f)
            *hfunc = (CUfunction)f;
    }
    emu_obj_put(&m->o);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuModuleGetFunctionCount(unsigned int *count, CUmodule mod)
{
    EMU_INIT_OR_RETURN();
    if (!count)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_module *m = emu_obj_get(mod, EMU_T_MODULE);
    if (!m)
        return CUDA_ERROR_INVALID_HANDLE;
    *count = (unsigned)m->img->nentries;
    emu_obj_put(&m->o);
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuModuleEnumerateFunctions(CUfunction *functions, unsigned int numFunctions,
                                                      CUmodule mod)
{
    EMU_INIT_OR_RETURN();
    if (!functions && numFunctions)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_module *m = emu_obj_get(mod, EMU_T_MODULE);
    if (!m)
        return CUDA_ERROR_INVALID_HANDLE;
    CUresult r = CUDA_SUCCESS;
    for (unsigned i = 0; i < numFunctions && i < (unsigned)m->img->nentries; i++) {
        struct emu_func *f = module_func(m, (int)i);
        if (!f) {
            r = CUDA_ERROR_OUT_OF_MEMORY;
            break;
        }
        functions[i] = (CUfunction)f;
    }
    emu_obj_put(&m->o);
    return r;
}

static CUresult module_global(struct emu_module *m, const char *name, CUdeviceptr *dptr, size_t *bytes)
{
    int g = find_global(m->img, name);
    if (g < 0)
        return CUDA_ERROR_NOT_FOUND;
    pthread_mutex_lock(&m->lock);
    uintptr_t p = m->globals[g];
    pthread_mutex_unlock(&m->lock);
    if (!p)
        return CUDA_ERROR_NOT_FOUND;
    if (dptr)
        *dptr = (CUdeviceptr)p;
    if (bytes)
        *bytes = (size_t)m->img->globals[g].size;
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuModuleGetGlobal_v2(CUdeviceptr *dptr, size_t *bytes, CUmodule hmod, const char *name)
{
    EMU_INIT_OR_RETURN();
    if (!name)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_module *m;
    CUresult r = module_get(hmod, &m);
    if (r)
        return r;
    r = module_global(m, name, dptr, bytes);
    emu_obj_put(&m->o);
    return r;
}

/* CUDA_MODULE_LOADING, as read by cuInit (before it, from the environment) */
TD_EXPORT CUresult CUDAAPI cuModuleGetLoadingMode(CUmoduleLoadingMode *mode)
{
    if (!mode)
        return CUDA_ERROR_INVALID_VALUE;
    int eager = emu_check_init() == CUDA_SUCCESS ? emu_eager_loading
                                                 : emu_parse_loading(getenv("CUDA_MODULE_LOADING"));
    *mode = eager ? CU_MODULE_EAGER_LOADING : CU_MODULE_LAZY_LOADING;
    return CUDA_SUCCESS;
}

/* ---- libraries ------------------------------------------------------- */

static void kernel_release(struct emu_obj *o)
{
    struct emu_kernel *k = (struct emu_kernel *)o;
    library_put(k->lib);
    free(k->at);
    free(k);
}

static void library_release(struct emu_obj *o)
{
    struct emu_library *l = (struct emu_library *)o;
    for (int i = 0; l->managed && i < l->img.nglobals; i++)
        if (l->managed[i])
            emu_mem_release(l->managed[i], 1u << EMU_MEM_GLOBAL);
    free(l->managed);
    emu_image_free(&l->img);
    emu_ptx_put(l->px);
    free(l->kernels);
    free(l->mods);
    free(l->no_binary);
    pthread_mutex_destroy(&l->lock);
    free(l);
}

/* Library options: CU_LIBRARY_BINARY_IS_PRESERVED takes no value (cuBLASLt
 * passes no value array with it) and is invalid for a file; the host
 * function and data table needs its value. Both are hints the emulator
 * has no use for (it keeps its own copy of the image). */
static CUresult check_library_options(unsigned n, const CUlibraryOption *keys, void *const *values, int from_file)
{
    if (n && !keys)
        return CUDA_ERROR_INVALID_VALUE;
    for (unsigned i = 0; i < n; i++) {
        switch (keys[i]) {
        case CU_LIBRARY_BINARY_IS_PRESERVED:
            if (from_file)
                return CUDA_ERROR_INVALID_VALUE;
            break;
        case CU_LIBRARY_HOST_UNIVERSAL_FUNCTION_AND_DATA_TABLE:
            if (!values || !values[i])
                return CUDA_ERROR_INVALID_VALUE;
            break;
        case CU_LIBRARY_NUM_OPTIONS:
        default:
            return CUDA_ERROR_INVALID_VALUE;
        }
    }
    return CUDA_SUCCESS;
}

/* A library is context-independent; its image is chosen for the devices'
 * compute capability (every device has the process's one profile). Eager
 * loading (CUDA_MODULE_LOADING=EAGER) loads it into the contexts at once,
 * so an image with nothing for the device fails here; lazy loading (the
 * default) loads it into a context when a function is first needed there,
 * and that use fails with CUDA_ERROR_NO_BINARY_FOR_GPU instead. */
static CUresult library_load(const char *fn, CUlibrary *out, const void *code, size_t len, struct emu_jit *j)
{
    if (!out)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_library *l = calloc(1, sizeof *l);
    if (!l)
        return CUDA_ERROR_OUT_OF_MEMORY;
    char err[512] = "";
    int lazy = !emu_eager_loading;
    CUresult r = load_image(code, len, emu_device_cc(emu_device(0)), &l->img, &l->px, err, sizeof err, lazy);
    if (lazy && r == CUDA_ERROR_NO_BINARY_FOR_GPU) {
        r = (l->no_binary = strdup(err)) ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
        if (r)
            emu_image_free(&l->img);
    }
    load_done(fn, r, err, &l->img, j);
    if (r == CUDA_SUCCESS && !(l->kernels = calloc((size_t)l->img.nentries + 1, sizeof *l->kernels))) {
        emu_image_free(&l->img);
        emu_ptx_put(l->px);
        r = CUDA_ERROR_OUT_OF_MEMORY;
    }
    if (r) {
        free(l);
        return r;
    }
    /* context-independent: modules are made per context on first use */
    emu_obj_init(&l->o, EMU_T_LIBRARY, NULL, library_release);
    pthread_mutex_init(&l->lock, NULL);
    emu_obj_register(&l->o);
    *out = (CUlibrary)l;
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuLibraryLoadData(CUlibrary *library, const void *code, CUjit_option *jitOptions,
                                             void **jitOptionsValues, unsigned int numJitOptions,
                                             CUlibraryOption *libraryOptions, void **libraryOptionValues,
                                             unsigned int numLibraryOptions)
{
    EMU_INIT_OR_RETURN();
    struct emu_jit j;
    if (emu_jit_options(numJitOptions, jitOptions, jitOptionsValues, &j) ||
        check_library_options(numLibraryOptions, libraryOptions, libraryOptionValues, 0))
        return CUDA_ERROR_INVALID_VALUE;
    return library_load("cuLibraryLoadData", library, code, 0, &j);
}

TD_EXPORT CUresult CUDAAPI cuLibraryLoadFromFile(CUlibrary *library, const char *fileName,
                                                 CUjit_option *jitOptions, void **jitOptionsValues,
                                                 unsigned int numJitOptions, CUlibraryOption *libraryOptions,
                                                 void **libraryOptionValues, unsigned int numLibraryOptions)
{
    EMU_INIT_OR_RETURN();
    struct emu_jit j;
    if (!library || emu_jit_options(numJitOptions, jitOptions, jitOptionsValues, &j) ||
        check_library_options(numLibraryOptions, libraryOptions, libraryOptionValues, 1))
        return CUDA_ERROR_INVALID_VALUE;
    void *buf;
    size_t len;
    CUresult r = read_file(fileName, &buf, &len);
    if (r)
        return r;
    r = library_load("cuLibraryLoadFromFile", library, buf, len, &j);
    free(buf);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuLibraryUnload(CUlibrary library)
{
    EMU_INIT_OR_RETURN();
    struct emu_library *l = emu_obj_get(library, EMU_T_LIBRARY);
    if (!l)
        return CUDA_ERROR_INVALID_HANDLE;
    if (!emu_obj_unregister(&l->o)) {
        library_put(l);
        return CUDA_ERROR_INVALID_HANDLE;
    }
    pthread_mutex_lock(&l->lock);
    for (int i = 0; i < l->img.nentries; i++) {
        struct emu_kernel *k = l->kernels[i];
        if (k && emu_obj_unregister(&k->o))
            emu_obj_put(&k->o);
        l->kernels[i] = NULL;
    }
    int n = l->nmods;
    struct lib_mod *mods = l->mods;
    l->mods = NULL;
    l->nmods = l->capmods = 0;
    pthread_mutex_unlock(&l->lock);
    for (int i = 0; i < n; i++) {
        if (emu_obj_unregister(&mods[i].m->o))
            module_kill(mods[i].m);
        emu_obj_put(&mods[i].m->o); /* the library's own reference */
    }
    free(mods);
    library_put(l); /* ours */
    library_put(l); /* the registry's */
    return CUDA_SUCCESS;
}

/* Lazy loading: a library the device cannot run fails its first use in a
 * context, saying why on the report (once per library). */
static CUresult library_runs(struct emu_library *l)
{
    if (!l->no_binary)
        return CUDA_SUCCESS;
    if (!atomic_exchange(&l->told, 1)) {
        char text[768];
        int n = snprintf(text, sizeof text, "tdtrace-emu: library %p: %s (CUDA_ERROR_NO_BINARY_FOR_GPU)\n",
                         (void *)l, l->no_binary);
        emu_report(text, n < 0 ? 0 : (size_t)n < sizeof text ? (size_t)n : sizeof text - 1);
    }
    return CUDA_ERROR_NO_BINARY_FOR_GPU;
}

/* The library's module in context c, made on first use. */
static CUresult library_module_in(struct emu_library *l, struct emu_ctx *c, struct emu_module **out)
{
    CUresult r = library_runs(l);
    if (r)
        return r;
    pthread_mutex_lock(&l->lock);
    struct emu_module *m = NULL;
    for (int i = 0; i < l->nmods && !m; i++) {
        if (l->mods[i].c != c)
            continue;
        m = emu_obj_get(l->mods[i].m, EMU_T_MODULE);
        if (!m) { /* its context was reset or destroyed */
            emu_obj_put(&l->mods[i].m->o);
            l->mods[i] = l->mods[--l->nmods];
        }
    }
    if (!m) {
        if (l->nmods == l->capmods) {
            int cap = l->capmods ? l->capmods * 2 : 4;
            struct lib_mod *nm = realloc(l->mods, (size_t)cap * sizeof *nm);
            if (nm) {
                l->mods = nm;
                l->capmods = cap;
            }
        }
        if (l->nmods == l->capmods)
            r = CUDA_ERROR_OUT_OF_MEMORY;
        else if ((r = module_new(c, NULL, NULL, l, &m)) == CUDA_SUCCESS) {
            emu_obj_ref(&m->o); /* the library's */
            emu_obj_ref(&m->o); /* the caller's */
            l->mods[l->nmods].c = c;
            l->mods[l->nmods++].m = m;
        }
    }
    pthread_mutex_unlock(&l->lock);
    if (r == CUDA_SUCCESS)
        *out = m;
    return r;
}

/* The library's module in the current context. */
static CUresult library_module(struct emu_library *l, struct emu_module **out)
{
    struct emu_ctx *c;
    CUresult r = emu_ctx_current(&c);
    if (r)
        return r;
    r = library_module_in(l, c, out);
    emu_ctx_put(c);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuLibraryGetModule(CUmodule *pMod, CUlibrary library)
{
    EMU_INIT_OR_RETURN();
    if (!pMod)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_library *l = emu_obj_get(library, EMU_T_LIBRARY);
    if (!l)
        return CUDA_ERROR_INVALID_HANDLE;
    struct emu_module *m;
    CUresult r = library_module(l, &m);
    if (r == CUDA_SUCCESS) {
        *pMod = (CUmodule)m;
        emu_obj_put(&m->o);
    }
    library_put(l);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuLibraryGetKernel(CUkernel *pKernel, CUlibrary library, const char *name)
{
    EMU_INIT_OR_RETURN();
    if (!pKernel || !name)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_library *l = emu_obj_get(library, EMU_T_LIBRARY);
    if (!l)
        return CUDA_ERROR_INVALID_HANDLE;
    int e = find_entry(&l->img, name);
    CUresult r = CUDA_ERROR_NOT_FOUND;
    if (e >= 0) {
        pthread_mutex_lock(&l->lock);
        struct emu_kernel *k = l->kernels[e];
        if (!k && (k = calloc(1, sizeof *k)) && !(k->at = calloc((size_t)emu_ndevices, sizeof *k->at))) {
            free(k);
            k = NULL;
        }
        if (k && !l->kernels[e]) {
            emu_obj_init(&k->o, EMU_T_KERNEL, NULL, kernel_release);
            k->lib = l;
            emu_obj_ref(&l->o);
            k->entry = e;
            for (int i = 0; i < emu_ndevices; i++)
                fattrs_init(&k->at[i]);
            emu_obj_register(&k->o);
            l->kernels[e] = k;
        }
        pthread_mutex_unlock(&l->lock);
        r = k ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
        if (k)
            *pKernel = (CUkernel)k;
    }
    library_put(l);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuLibraryGetKernelCount(unsigned int *count, CUlibrary lib)
{
    EMU_INIT_OR_RETURN();
    if (!count)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_library *l = emu_obj_get(lib, EMU_T_LIBRARY);
    if (!l)
        return CUDA_ERROR_INVALID_HANDLE;
    *count = (unsigned)l->img.nentries;
    library_put(l);
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuLibraryEnumerateKernels(CUkernel *kernels, unsigned int numKernels, CUlibrary lib)
{
    EMU_INIT_OR_RETURN();
    if (!kernels && numKernels)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_library *l = emu_obj_get(lib, EMU_T_LIBRARY);
    if (!l)
        return CUDA_ERROR_INVALID_HANDLE;
    CUresult r = CUDA_SUCCESS;
    for (unsigned i = 0; i < numKernels && i < (unsigned)l->img.nentries && !r; i++)
        r = cuLibraryGetKernel(&kernels[i], lib, l->img.entries[i].name);
    library_put(l);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuKernelGetFunction(CUfunction *pFunc, CUkernel kernel)
{
    EMU_INIT_OR_RETURN();
    if (!pFunc)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_kernel *k = emu_obj_get(kernel, EMU_T_KERNEL);
    if (!k)
        return CUDA_ERROR_INVALID_HANDLE;
    struct emu_module *m;
    CUresult r = library_module(k->lib, &m);
    if (r == CUDA_SUCCESS) {
        struct emu_func *f = module_func(m, k->entry);
        if (f)
            *pFunc = (CUfunction)f;
        else
            r = CUDA_ERROR_OUT_OF_MEMORY;
        emu_obj_put(&m->o);
    }
    emu_obj_put(&k->o);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuKernelGetLibrary(CUlibrary *pLib, CUkernel kernel)
{
    EMU_INIT_OR_RETURN();
    if (!pLib)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_kernel *k = emu_obj_get(kernel, EMU_T_KERNEL);
    if (!k)
        return CUDA_ERROR_INVALID_HANDLE;
    *pLib = (CUlibrary)k->lib;
    emu_obj_put(&k->o);
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuKernelGetName(const char **name, CUkernel hfunc)
{
    EMU_INIT_OR_RETURN();
    if (!name)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_kernel *k = emu_obj_get(hfunc, EMU_T_KERNEL);
    if (!k)
        return CUDA_ERROR_INVALID_HANDLE;
    *name = k->lib->img.entries[k->entry].name;
    emu_obj_put(&k->o);
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuLibraryGetGlobal(CUdeviceptr *dptr, size_t *bytes, CUlibrary library, const char *name)
{
    EMU_INIT_OR_RETURN();
    if (!name)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_library *l = emu_obj_get(library, EMU_T_LIBRARY);
    if (!l)
        return CUDA_ERROR_INVALID_HANDLE;
    CUresult r = find_global(&l->img, name) < 0 ? CUDA_ERROR_NOT_FOUND : CUDA_SUCCESS;
    struct emu_module *m;
    if (r == CUDA_SUCCESS && (r = library_module(l, &m)) == CUDA_SUCCESS) {
        r = module_global(m, name, dptr, bytes);
        emu_obj_put(&m->o);
    }
    library_put(l);
    return r;
}

/* A __managed__ variable of the library: the library's module in the
 * current context holds it (one copy per context: a process with one
 * context, as the runtime makes per device, sees the driver's behaviour). */
TD_EXPORT CUresult CUDAAPI cuLibraryGetManaged(CUdeviceptr *dptr, size_t *bytes, CUlibrary library, const char *name)
{
    EMU_INIT_OR_RETURN();
    if (!name || (!dptr && !bytes))
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_library *l = emu_obj_get(library, EMU_T_LIBRARY);
    if (!l)
        return CUDA_ERROR_INVALID_HANDLE;
    int g = find_global(&l->img, name);
    CUresult r = g < 0 || !l->img.globals[g].is_managed ? CUDA_ERROR_NOT_FOUND : library_runs(l);
    if (r == CUDA_SUCCESS) { /* the library's own: no context needed, as the driver's */
        pthread_mutex_lock(&l->lock);
        r = library_managed(l);
        if (r == CUDA_SUCCESS) {
            if (dptr)
                *dptr = (CUdeviceptr)l->managed[g];
            if (bytes)
                *bytes = l->img.globals[g].size;
        }
        pthread_mutex_unlock(&l->lock);
    }
    library_put(l);
    return r;
}

/* No device has unified function pointers (the attribute is 0 on every
 * profile): there is no unified function to find, as documented. */
TD_EXPORT CUresult CUDAAPI cuLibraryGetUnifiedFunction(void **fptr, CUlibrary library, const char *symbol)
{
    EMU_INIT_OR_RETURN();
    if (!fptr || !symbol)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_library *l = emu_obj_get(library, EMU_T_LIBRARY);
    if (!l)
        return CUDA_ERROR_INVALID_HANDLE;
    library_put(l);
    return CUDA_ERROR_NOT_FOUND;
}

/* ---- functions: names, attributes ------------------------------------- */

/* A CUfunction handle may also be a CUkernel (the runtime passes one as
 * the other). Referenced object, its image, entry and attributes. */
struct fn_ref {
    struct emu_obj *o;
    const struct emu_image *img;
    int entry;
    struct fattrs *at;
    struct emu_device *dev;     /* the function's context's, or NULL */
    struct emu_ptxmod *px;      /* its parsed PTX, or NULL */
};

static int fn_resolve(const void *h, struct fn_ref *out)
{
    struct emu_func *f = emu_obj_get(h, EMU_T_FUNC);
    if (f) {
        out->o = &f->o;
        out->img = f->mod->img;
        out->entry = f->entry;
        out->at = &f->at;
        out->dev = f->mod->o.ctx->dev;
        out->px = f->mod->px;
        return 0;
    }
    struct emu_kernel *k = emu_obj_get(h, EMU_T_KERNEL);
    if (k) { /* a kernel used as a function: the current context's device */
        struct emu_ctx *c;
        int dev = 0;
        if (emu_ctx_query(&c) == CUDA_SUCCESS) {
            dev = c->dev->ordinal;
            emu_ctx_put(c);
        }
        out->o = &k->o;
        out->img = &k->lib->img;
        out->entry = k->entry;
        out->at = &k->at[dev];
        out->dev = NULL;
        out->px = k->lib->px;
        return 0;
    }
    return -1;
}

static unsigned static_shared(const struct fn_ref *f)
{
    return emu_ptx_static_shared(f->px, f->img->entries[f->entry].name);
}

/* the dynamic shared memory a launch may ask for: as set, else the 48 KiB a
 * block has without opting in, less the static (under attr_lock) */
static int max_dyn_shared(const struct fn_ref *f)
{
    if (f->at->max_dyn_shared >= 0)
        return f->at->max_dyn_shared;
    unsigned st = static_shared(f);
    return st >= 49152 ? 0 : 49152 - (int)st;
}

/* CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED of f */
static int fn_non_portable(const struct fn_ref *f)
{
    pthread_mutex_lock(&attr_lock);
    int v = f->at->non_portable;
    pthread_mutex_unlock(&attr_lock);
    return v;
}

static CUresult func_attr(int *pi, int attr, struct fn_ref *f, struct emu_device *d)
{
    pthread_mutex_lock(&attr_lock);
    struct fattrs at = *f->at;
    pthread_mutex_unlock(&attr_lock);
    switch (attr) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
        *pi = emu_device_attr_or(d, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 1024);
        break;
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES:
        *pi = (int)static_shared(f);
        break;
    case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES:
    case CU_FUNC_ATTRIBUTE_NUM_REGS:
    case CU_FUNC_ATTRIBUTE_CACHE_MODE_CA:
        *pi = 0;
        break;
    case CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET: /* __cluster_dims__ (.explicitcluster) without a size */
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH: {
        unsigned dims[3];
        int expl = emu_ptx_cluster(f->px, f->img->entries[f->entry].name, dims);
        *pi = attr == CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET ? expl && !dims[0]
                                                                 : (int)dims[attr - CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH];
        break;
    }
    case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES: {
        unsigned long long sum = 0;
        for (int i = 0; i < f->img->nglobals; i++)
            if (f->img->globals[i].is_const)
                sum += f->img->globals[i].size;
        *pi = sum > 0x7fffffff ? 0x7fffffff : (int)sum;
        break;
    }
    case CU_FUNC_ATTRIBUTE_PTX_VERSION: { /* the architecture of the PTX that runs */
        struct emu_arch a = { 0, 0 };
        if (f->img->chosen >= 0)
            emu_ptx_target(f->img->ptx[f->img->chosen], f->img->ptx_len[f->img->chosen], &a);
        *pi = a.arch > 0 ? a.arch : emu_device_cc(d);
        break;
    }
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION: /* compiled for the device */
        *pi = emu_device_cc(d);
        break;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
        pthread_mutex_lock(&attr_lock);
        *pi = max_dyn_shared(f);
        pthread_mutex_unlock(&attr_lock);
        break;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: *pi = at.carveout; break;
    case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED: *pi = at.non_portable; break;
    case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE: *pi = at.sched_policy; break;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

static CUresult func_set_attr(int attr, int value, struct fn_ref *f, struct emu_device *d)
{
    CUresult r = CUDA_SUCCESS;
    pthread_mutex_lock(&attr_lock);
    switch (attr) {
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: /* at most the opt-in less the static */
        if (value < 0 || (long long)value + static_shared(f) >
                             emu_device_attr_or(d, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 49152))
            r = CUDA_ERROR_INVALID_VALUE;
        else
            f->at->max_dyn_shared = value;
        break;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
        if (value < -1 || value > 100)
            r = CUDA_ERROR_INVALID_VALUE;
        else
            f->at->carveout = value;
        break;
    case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
        f->at->non_portable = value != 0;
        break;
    case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
        if (value < 0 || value > 2)
            r = CUDA_ERROR_INVALID_VALUE;
        else
            f->at->sched_policy = value;
        break;
    default:
        r = CUDA_ERROR_INVALID_VALUE;
        break;
    }
    pthread_mutex_unlock(&attr_lock);
    return r;
}

/* A setting made on kernel k for device d, made again on each function of
 * k already made in a context of d (the later ones start from it:
 * module_func). */
typedef void kernel_apply_fn(struct emu_func *f, struct emu_device *d, int what, int value);

static void kernel_apply(struct emu_kernel *k, struct emu_device *d, kernel_apply_fn *fn, int what, int value)
{
    struct emu_library *l = k->lib;
    pthread_mutex_lock(&l->lock);
    for (int i = 0; i < l->nmods; i++) {
        struct emu_module *m = emu_obj_get(l->mods[i].m, EMU_T_MODULE);
        if (!m)
            continue;
        if (m->o.ctx->dev == d) {
            pthread_mutex_lock(&m->lock);
            if (m->funcs[k->entry])
                fn(m->funcs[k->entry], d, what, value);
            pthread_mutex_unlock(&m->lock);
        }
        emu_obj_put(&m->o);
    }
    pthread_mutex_unlock(&l->lock);
}

static void set_attr_on(struct emu_func *f, struct emu_device *d, int attr, int value)
{
    struct fn_ref ff = { &f->o, f->mod->img, f->entry, &f->at, d, f->mod->px };
    (void)func_set_attr(attr, value, &ff, d); /* checked on the kernel */
}

static void set_cache_on(struct emu_func *f, struct emu_device *d, int config, int unused)
{
    (void)d, (void)unused;
    pthread_mutex_lock(&attr_lock);
    f->at.cache_config = config;
    pthread_mutex_unlock(&attr_lock);
}

/* the device for a function reference: its context's, else the current one's */
static CUresult fn_device(struct fn_ref *f, struct emu_device **d)
{
    if (f->dev) {
        *d = f->dev;
        return CUDA_SUCCESS;
    }
    struct emu_ctx *c;
    CUresult r = emu_ctx_query(&c);
    if (r)
        return r;
    *d = c->dev;
    emu_ctx_put(c);
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuFuncGetAttribute(int *pi, CUfunction_attribute attrib, CUfunction hfunc)
{
    EMU_INIT_OR_RETURN();
    if (!pi)
        return CUDA_ERROR_INVALID_VALUE;
    struct fn_ref f;
    if (fn_resolve(hfunc, &f))
        return CUDA_ERROR_INVALID_HANDLE;
    struct emu_device *d;
    CUresult r = fn_device(&f, &d);
    if (r == CUDA_SUCCESS)
        r = func_attr(pi, (int)attrib, &f, d);
    emu_obj_put(f.o);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib, int value)
{
    EMU_INIT_OR_RETURN();
    struct fn_ref f;
    if (fn_resolve(hfunc, &f))
        return CUDA_ERROR_INVALID_HANDLE;
    struct emu_device *d;
    CUresult r = fn_device(&f, &d);
    if (r == CUDA_SUCCESS)
        r = func_set_attr((int)attrib, value, &f, d);
    emu_obj_put(f.o);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuKernelGetAttribute(int *pi, CUfunction_attribute attrib, CUkernel kernel, CUdevice dev)
{
    EMU_INIT_OR_RETURN();
    if (!pi)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_device *d = emu_device(dev);
    if (!d)
        return CUDA_ERROR_INVALID_DEVICE;
    struct emu_kernel *k = emu_obj_get(kernel, EMU_T_KERNEL);
    if (!k)
        return CUDA_ERROR_INVALID_HANDLE;
    struct fn_ref f = { &k->o, &k->lib->img, k->entry, &k->at[d->ordinal], d, k->lib->px };
    CUresult r = library_runs(k->lib);
    if (r == CUDA_SUCCESS)
        r = func_attr(pi, (int)attrib, &f, d);
    emu_obj_put(&k->o);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuKernelSetAttribute(CUfunction_attribute attrib, int val, CUkernel kernel, CUdevice dev)
{
    EMU_INIT_OR_RETURN();
    struct emu_device *d = emu_device(dev);
    if (!d)
        return CUDA_ERROR_INVALID_DEVICE;
    struct emu_kernel *k = emu_obj_get(kernel, EMU_T_KERNEL);
    if (!k)
        return CUDA_ERROR_INVALID_HANDLE;
    struct fn_ref f = { &k->o, &k->lib->img, k->entry, &k->at[d->ordinal], d, k->lib->px };
    CUresult r = library_runs(k->lib);
    if (r == CUDA_SUCCESS)
        r = func_set_attr((int)attrib, val, &f, d);
    if (r == CUDA_SUCCESS)
        kernel_apply(k, d, set_attr_on, (int)attrib, val);
    emu_obj_put(&k->o);
    return r;
}

/* Cache and shared memory bank preferences: checked and kept (the emulated
 * device has neither an L1 to split nor configurable banks). */
static CUresult set_pref(CUfunction hfunc, int *(*field)(struct fattrs *), int value, int max)
{
    EMU_INIT_OR_RETURN();
    CUresult r = emu_ctx_require();
    if (r)
        return r;
    if (value < 0 || value > max)
        return CUDA_ERROR_INVALID_VALUE;
    struct fn_ref f;
    if (fn_resolve(hfunc, &f))
        return CUDA_ERROR_INVALID_HANDLE;
    pthread_mutex_lock(&attr_lock);
    *field(f.at) = value;
    pthread_mutex_unlock(&attr_lock);
    emu_obj_put(f.o);
    return CUDA_SUCCESS;
}

static int *cache_field(struct fattrs *a) { return &a->cache_config; }
static int *shmem_field(struct fattrs *a) { return &a->shmem_config; }

TD_EXPORT CUresult CUDAAPI cuFuncSetCacheConfig(CUfunction hfunc, CUfunc_cache config)
{
    return set_pref(hfunc, cache_field, (int)config, CU_FUNC_CACHE_PREFER_EQUAL);
}

TD_EXPORT CUresult CUDAAPI cuFuncSetSharedMemConfig(CUfunction hfunc, CUsharedconfig config)
{
    return set_pref(hfunc, shmem_field, (int)config, CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE);
}

TD_EXPORT CUresult CUDAAPI cuKernelSetCacheConfig(CUkernel kernel, CUfunc_cache config, CUdevice dev)
{
    EMU_INIT_OR_RETURN();
    if (!emu_device(dev))
        return CUDA_ERROR_INVALID_DEVICE;
    if ((unsigned)config > CU_FUNC_CACHE_PREFER_EQUAL)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_kernel *k = emu_obj_get(kernel, EMU_T_KERNEL);
    if (!k)
        return CUDA_ERROR_INVALID_HANDLE;
    CUresult r = library_runs(k->lib);
    if (r == CUDA_SUCCESS) {
        struct emu_device *d = emu_device(dev);
        pthread_mutex_lock(&attr_lock);
        k->at[d->ordinal].cache_config = (int)config;
        pthread_mutex_unlock(&attr_lock);
        kernel_apply(k, d, set_cache_on, (int)config, 0);
    }
    emu_obj_put(&k->o);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuFuncGetName(const char **name, CUfunction hfunc)
{
    EMU_INIT_OR_RETURN();
    if (!name)
        return CUDA_ERROR_INVALID_VALUE;
    struct fn_ref f;
    if (fn_resolve(hfunc, &f))
        return CUDA_ERROR_INVALID_HANDLE;
    *name = f.img->entries[f.entry].name;
    emu_obj_put(f.o);
    return CUDA_SUCCESS;
}

/* where parameter i lies in the parameter buffer, from the PTX .entry */
static CUresult param_info(const struct emu_image *img, int entry, size_t i, size_t *off, size_t *size)
{
    const struct emu_ptx_entry *e = &img->entries[entry];
    if (!off || i >= (size_t)e->nparams)
        return CUDA_ERROR_INVALID_VALUE;
    *off = e->params[i].offset;
    if (size)
        *size = e->params[i].size;
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuFuncGetParamInfo(CUfunction func, size_t paramIndex, size_t *paramOffset,
                                              size_t *paramSize)
{
    EMU_INIT_OR_RETURN();
    struct fn_ref f;
    if (fn_resolve(func, &f))
        return CUDA_ERROR_INVALID_HANDLE;
    CUresult r = param_info(f.img, f.entry, paramIndex, paramOffset, paramSize);
    emu_obj_put(f.o);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuKernelGetParamInfo(CUkernel kernel, size_t paramIndex, size_t *paramOffset,
                                                size_t *paramSize)
{
    EMU_INIT_OR_RETURN();
    struct emu_kernel *k = emu_obj_get(kernel, EMU_T_KERNEL);
    if (!k)
        return CUDA_ERROR_INVALID_HANDLE;
    CUresult r = param_info(&k->lib->img, k->entry, paramIndex, paramOffset, paramSize);
    emu_obj_put(&k->o);
    return r;
}

/* A function's PTX is parsed when its module is loaded: it is loaded. */
TD_EXPORT CUresult CUDAAPI cuFuncIsLoaded(CUfunctionLoadingState *state, CUfunction function)
{
    EMU_INIT_OR_RETURN();
    if (!state)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_func *f = emu_obj_get(function, EMU_T_FUNC);
    if (!f)
        return CUDA_ERROR_INVALID_HANDLE;
    *state = CU_FUNCTION_LOADING_STATE_LOADED;
    emu_obj_put(&f->o);
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuFuncLoad(CUfunction function)
{
    EMU_INIT_OR_RETURN();
    struct emu_func *f = emu_obj_get(function, EMU_T_FUNC);
    if (!f)
        return CUDA_ERROR_INVALID_HANDLE;
    emu_obj_put(&f->o);
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuFuncGetModule(CUmodule *hmod, CUfunction hfunc)
{
    EMU_INIT_OR_RETURN();
    if (!hmod)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_func *f = emu_obj_get(hfunc, EMU_T_FUNC);
    if (!f)
        return CUDA_ERROR_INVALID_HANDLE;
    *hmod = (CUmodule)f->mod;
    emu_obj_put(&f->o);
    return CUDA_SUCCESS;
}

/* ---- launches ---------------------------------------------------------- */

/* A launch of f on device d, checked: dimensions, shared memory */
static CUresult launch_check(struct fn_ref *f, struct emu_device *d, const unsigned g[3], const unsigned b[3],
                             unsigned shmem)
{
    if (!g[0] || !g[1] || !g[2] || !b[0] || !b[1] || !b[2] ||
        g[0] > (unsigned)emu_device_attr_or(d, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, 0) ||
        g[1] > (unsigned)emu_device_attr_or(d, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, 0) ||
        g[2] > (unsigned)emu_device_attr_or(d, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, 0) ||
        b[0] > (unsigned)emu_device_attr_or(d, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, 0) ||
        b[1] > (unsigned)emu_device_attr_or(d, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, 0) ||
        b[2] > (unsigned)emu_device_attr_or(d, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, 0) ||
        (unsigned long long)b[0] * b[1] * b[2] >
            (unsigned long long)emu_device_attr_or(d, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 0))
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&attr_lock);
    int maxdyn = max_dyn_shared(f);
    pthread_mutex_unlock(&attr_lock);
    return shmem > (unsigned)maxdyn ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

/* the arguments for entry e: every kernelParams entry set, or an extra
 * block {BUFFER_POINTER, p, BUFFER_SIZE, &n, END}: its n bytes are the
 * start of the parameters, the rest zero (NCCL passes the part of its
 * 4 KiB argument struct that it uses; the driver takes that) */
static CUresult args_check(const struct emu_ptx_entry *e, void **params, void **extra, void **buf, size_t *nbuf)
{
    *buf = NULL;
    *nbuf = 0;
    if (params && extra)
        return CUDA_ERROR_INVALID_VALUE;
    if (e->nparams > 0 && !params && !extra)
        return CUDA_ERROR_INVALID_VALUE;
    if (params)
        for (int i = 0; i < e->nparams; i++)
            if (!params[i])
                return CUDA_ERROR_INVALID_VALUE;
    if (extra) {
        size_t *size = NULL;
        int i = 0;
        for (; i < 16 && extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
            if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
                *buf = extra[i + 1];
            else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE)
                size = extra[i + 1];
            else
                break;
        }
        if (i >= 16 || extra[i] != CU_LAUNCH_PARAM_END || !*buf || !size)
            return CUDA_ERROR_INVALID_VALUE;
        *nbuf = *size < e->param_bytes ? *size : e->param_bytes;
    }
    return CUDA_SUCCESS;
}

CUresult emu_kargs_pack(CUfunction fh, void **params, void **extra, struct emu_kargs *out)
{
    struct fn_ref f;
    if (fn_resolve(fh, &f))
        return CUDA_ERROR_INVALID_HANDLE;
    const struct emu_ptx_entry *e = &f.img->entries[f.entry];
    void *buf;
    size_t nbuf;
    CUresult r = args_check(e, params, extra, &buf, &nbuf);
    if (r == CUDA_SUCCESS) {
        memset(out, 0, sizeof *out);
        out->n = e->nparams;
        out->bytes = e->param_bytes;
        out->buf = calloc(1, e->param_bytes ? e->param_bytes : 1);
        out->off = calloc((size_t)e->nparams + 1, sizeof *out->off);
        out->ptrs = calloc((size_t)e->nparams + 1, sizeof *out->ptrs);
        if (!out->buf || !out->off || !out->ptrs) {
            emu_kargs_free(out);
            r = CUDA_ERROR_OUT_OF_MEMORY;
        } else {
            if (buf)
                memcpy(out->buf, buf, nbuf);
            for (int i = 0; i < e->nparams; i++) {
                const struct emu_ptx_param *p = &e->params[i];
                out->off[i] = p->offset;
                out->ptrs[i] = out->buf + p->offset;
                if (params && p->offset + p->size <= e->param_bytes)
                    memcpy(out->buf + p->offset, params[i], p->size);
            }
        }
    }
    emu_obj_put(f.o);
    return r;
}

CUresult emu_kernel_node_args(CUfunction fh, struct emu_ctx *c, const unsigned grid[3], const unsigned block[3],
                              unsigned shmem, void **params, void **extra, struct emu_kargs *out)
{
    struct fn_ref f;
    if (fn_resolve(fh, &f))
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = launch_check(&f, f.dev ? f.dev : c->dev, grid, block, shmem);
    emu_obj_put(f.o);
    return r ? r : emu_kargs_pack(fh, params, extra, out);
}

/* the module f runs from in context c: a function's own, a kernel's library's */
static CUresult fn_module(struct fn_ref *f, struct emu_ctx *c, struct emu_module **m)
{
    if (f->img->chosen < 0) { /* machine code for the device, no PTX it can compile */
        char text[512];
        int n = snprintf(text, sizeof text, "tdtrace-emu: kernel %s: its image has machine code and no PTX "
                         "for a device of compute capability %d.%d; the emulator runs PTX only "
                         "(CUDA_ERROR_NO_BINARY_FOR_GPU)\n", f->img->entries[f->entry].name,
                         emu_device_cc(c->dev) / 10, emu_device_cc(c->dev) % 10);
        emu_report(text, n < 0 ? 0 : (size_t)n < sizeof text ? (size_t)n : sizeof text - 1);
        return CUDA_ERROR_NO_BINARY_FOR_GPU;
    }
    if (f->o->type == EMU_T_FUNC) {
        *m = ((struct emu_func *)f->o)->mod;
        emu_obj_ref(&(*m)->o);
        return CUDA_SUCCESS;
    }
    return library_module_in(((struct emu_kernel *)f->o)->lib, c, m);
}

CUresult emu_kernel_op(CUfunction fh, struct emu_ctx *c, const unsigned grid[3], const unsigned block[3],
                       unsigned shmem, void **params, const struct emu_cluster *cl_in, struct emu_op **out)
{
    struct fn_ref f;
    if (fn_resolve(fh, &f))
        return CUDA_ERROR_INVALID_HANDLE;
    if (f.o->type == EMU_T_FUNC)
        c = ((struct emu_func *)f.o)->mod->o.ctx;
    const struct emu_ptx_entry *e = &f.img->entries[f.entry];
    void *buf;
    size_t nbuf;
    CUresult r = launch_check(&f, c->dev, grid, block, shmem);
    if (!r)
        r = args_check(e, params, NULL, &buf, &nbuf);
    struct emu_module *m = NULL;
    if (!r)
        r = fn_module(&f, c, &m);
    struct emu_cluster cl = { 0, { 0, 0, 0 }, fn_non_portable(&f) };
    if (cl_in && cl_in->given) {
        cl.given = 1;
        for (int k = 0; k < 3; k++)
            cl.dim[k] = cl_in->dim[k];
    }
    if (!r)
        r = emu_launch_op(c, m->px, &m->o, m->pg, e->name, grid, block, shmem, params, NULL, &cl, out);
    if (m)
        emu_obj_put(&m->o);
    emu_obj_put(f.o);
    return r;
}

CUresult emu_launch_fn(CUfunction fh, const unsigned grid_in[3], const unsigned block_in[3], unsigned shmem,
                       CUstream hs, void **params, void **extra, int ptds, int coop, const struct emu_cluster *cl_in)
{
    struct emu_ctx *c;
    CUresult r = emu_ctx_current(&c);
    if (r)
        return r;
    struct emu_device *d = c->dev;
    emu_ctx_put(c);
    struct fn_ref f;
    if (fn_resolve(fh, &f))
        return CUDA_ERROR_INVALID_HANDLE;
    unsigned grid[3] = { grid_in[0], grid_in[1], grid_in[2] }, block[3] = { block_in[0], block_in[1], block_in[2] };
    const struct emu_ptx_entry *e = &f.img->entries[f.entry];
    void *buf;
    size_t nbuf;
    r = launch_check(&f, d, grid, block, shmem);
    if (!r)
        r = args_check(e, params, extra, &buf, &nbuf);
    struct emu_stream *s = NULL;
    if (!r)
        r = emu_stream_resolve(hs, ptds, &s);
    if (!r && emu_capturing(s)) { /* a kernel node */
        if (coop) {
            static const char msg[] = "tdtrace-emu: a cooperative launch on a capturing stream: the "
                                      "emulator's kernel nodes are not cooperative (CUDA_ERROR_NOT_SUPPORTED)\n";
            emu_report(msg, sizeof msg - 1);
            r = CUDA_ERROR_NOT_SUPPORTED;
        } else if (f.img->chosen < 0) {
            r = CUDA_ERROR_NO_BINARY_FOR_GPU;
        } else {
            struct emu_kargs a;
            r = emu_kargs_pack(fh, params, extra, &a);
            if (!r)
                r = emu_capture_kernel(s, fh, grid, block, shmem, &a, cl_in);
        }
        emu_stream_put(s);
        emu_obj_put(f.o);
        return r;
    }
    /* the module in this context: a function's own, a kernel's library's */
    struct emu_cluster cl = { 0, { 0, 0, 0 }, fn_non_portable(&f) };
    if (cl_in && cl_in->given) {
        cl.given = 1;
        for (int k = 0; k < 3; k++)
            cl.dim[k] = cl_in->dim[k];
    }
    struct emu_module *m = NULL;
    if (!r)
        r = fn_module(&f, s->sctx, &m);
    if (!r)
        r = emu_launch_submit(s, m->px, &m->o, m->pg, e->name, grid, block, shmem, params, extra, coop, &cl);
    if (m)
        emu_obj_put(&m->o);
    emu_stream_put(s);
    emu_obj_put(f.o);
    return r;
}

#define LAUNCH_ARGS(f, ptds)                                                                           \
    const unsigned grid[3] = { gridDimX, gridDimY, gridDimZ }, block[3] = { blockDimX, blockDimY, blockDimZ }; \
    return emu_launch_fn(f, grid, block, sharedMemBytes, hStream, kernelParams, extra, ptds, 0, NULL)

TD_EXPORT CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                          unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                                          unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
                                          void **kernelParams, void **extra)
{
    LAUNCH_ARGS(f, 0);
}

TD_EXPORT CUresult CUDAAPI cuLaunchKernel_ptsz(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                               unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                                               unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
                                               void **kernelParams, void **extra)
{
    LAUNCH_ARGS(f, 1);
}

/* ---- the pre-4.0 launch API ------------------------------------------- */
/* cuFuncSetBlockShape, cuFuncSetSharedSize and cuParamSet* store a
 * function's block shape, dynamic shared memory and parameter buffer (4 KiB,
 * the old API's parameter space); cuLaunch, cuLaunchGrid and
 * cuLaunchGridAsync launch it with them, through the checks every launch
 * has (the buffer as CU_LAUNCH_PARAM_BUFFER_POINTER). */
#define LEGACY_PARAMS 4096

struct legacy {
    unsigned block[3];
    unsigned shared;
    unsigned size;                   /* cuParamSetSize */
    unsigned char params[LEGACY_PARAMS];
};

/* f's settings, made on first use; with attr_lock held on success */
static CUresult legacy_get(CUfunction hfunc, struct emu_func **fo, struct legacy **out)
{
    EMU_INIT_OR_RETURN();
    CUresult r = emu_ctx_require();
    if (r)
        return r;
    struct emu_func *f = emu_obj_get(hfunc, EMU_T_FUNC);
    if (!f)
        return CUDA_ERROR_INVALID_HANDLE;
    pthread_mutex_lock(&attr_lock);
    if (!f->legacy && (f->legacy = calloc(1, sizeof *f->legacy)))
        f->legacy->block[0] = f->legacy->block[1] = f->legacy->block[2] = 1;
    if (!f->legacy) {
        pthread_mutex_unlock(&attr_lock);
        emu_obj_put(&f->o);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *fo = f;
    *out = f->legacy;
    return CUDA_SUCCESS;
}

static void legacy_put(struct emu_func *f)
{
    pthread_mutex_unlock(&attr_lock);
    emu_obj_put(&f->o);
}

TD_EXPORT CUresult CUDAAPI cuFuncSetBlockShape(CUfunction hfunc, int x, int y, int z)
{
    struct emu_func *f;
    struct legacy *lg;
    CUresult r = legacy_get(hfunc, &f, &lg);
    if (r)
        return r;
    if (x <= 0 || y <= 0 || z <= 0) {
        r = CUDA_ERROR_INVALID_VALUE;
    } else {
        lg->block[0] = (unsigned)x;
        lg->block[1] = (unsigned)y;
        lg->block[2] = (unsigned)z;
    }
    legacy_put(f);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuFuncSetSharedSize(CUfunction hfunc, unsigned int bytes)
{
    struct emu_func *f;
    struct legacy *lg;
    CUresult r = legacy_get(hfunc, &f, &lg);
    if (r)
        return r;
    lg->shared = bytes; /* checked at the launch, as every launch's */
    legacy_put(f);
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuParamSetSize(CUfunction hfunc, unsigned int numbytes)
{
    struct emu_func *f;
    struct legacy *lg;
    CUresult r = legacy_get(hfunc, &f, &lg);
    if (r)
        return r;
    if (numbytes > LEGACY_PARAMS)
        r = CUDA_ERROR_INVALID_VALUE;
    else
        lg->size = numbytes;
    legacy_put(f);
    return r;
}

static CUresult param_set(CUfunction hfunc, int offset, const void *p, unsigned n)
{
    struct emu_func *f;
    struct legacy *lg;
    CUresult r = legacy_get(hfunc, &f, &lg);
    if (r)
        return r;
    if (offset < 0 || !p || (unsigned)offset > LEGACY_PARAMS || n > LEGACY_PARAMS - (unsigned)offset)
        r = CUDA_ERROR_INVALID_VALUE;
    else
        memcpy(lg->params + offset, p, n);
    legacy_put(f);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuParamSeti(CUfunction hfunc, int offset, unsigned int value)
{
    return param_set(hfunc, offset, &value, sizeof value);
}

TD_EXPORT CUresult CUDAAPI cuParamSetf(CUfunction hfunc, int offset, float value)
{
    return param_set(hfunc, offset, &value, sizeof value);
}

TD_EXPORT CUresult CUDAAPI cuParamSetv(CUfunction hfunc, int offset, void *ptr, unsigned int numbytes)
{
    return param_set(hfunc, offset, ptr, numbytes);
}

static CUresult legacy_launch(CUfunction hfunc, int gw, int gh, CUstream hs)
{
    struct emu_func *f;
    struct legacy *lg;
    CUresult r = legacy_get(hfunc, &f, &lg);
    if (r)
        return r;
    struct legacy copy = *lg; /* the settings at the time of the launch */
    /* cuParamSetSize must cover the kernel's parameters (a packed buffer
     * of cuLaunchKernel may be shorter: args_check) */
    size_t need = f->mod->img->entries[f->entry].param_bytes;
    legacy_put(f);
    if (gw <= 0 || gh <= 0 || copy.size < need)
        return CUDA_ERROR_INVALID_VALUE;
    size_t size = copy.size;
    void *extra[] = { CU_LAUNCH_PARAM_BUFFER_POINTER, copy.params, CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
                      CU_LAUNCH_PARAM_END };
    const unsigned grid[3] = { (unsigned)gw, (unsigned)gh, 1 };
    return emu_launch_fn(hfunc, grid, copy.block, copy.shared, hs, NULL, extra, 0, 0, NULL);
}

TD_EXPORT CUresult CUDAAPI cuLaunch(CUfunction f)
{
    return legacy_launch(f, 1, 1, NULL);
}

TD_EXPORT CUresult CUDAAPI cuLaunchGrid(CUfunction f, int grid_width, int grid_height)
{
    return legacy_launch(f, grid_width, grid_height, NULL);
}

TD_EXPORT CUresult CUDAAPI cuLaunchGridAsync(CUfunction f, int grid_width, int grid_height, CUstream hStream)
{
    return legacy_launch(f, grid_width, grid_height, hStream);
}
