/* SPDX-License-Identifier: Apache-2.0 */
/* The JIT linker (cuLinkCreate, cuLinkAddData, cuLinkAddFile,
 * cuLinkComplete, cuLinkDestroy) on PTX: texts in, one PTX text out, which
 * cuModuleLoadData then takes. A link state is a handle of the current
 * context, in the registry like every other: a stale or made-up one is
 * CUDA_ERROR_INVALID_HANDLE, and the context's teardown destroys it.
 * libcudadevrt.a (what a program links for dynamic parallelism) is taken
 * and adds nothing: the PTX engine serves the device runtime itself. */
#include "emu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../ptx/ptx.h"

struct emu_link {
    struct emu_obj o;
    pthread_mutex_t lock;        /* all below */
    char *text;
    size_t len;
    int nptx;
    struct emu_jit jit;          /* cuLinkCreate's options: the driver keeps
                                    their arrays and writes the logs there */
    char log[1024];              /* the failures' reasons, one a line */
};

static void link_release(struct emu_obj *o)
{
    struct emu_link *l = (struct emu_link *)o;
    free(l->text);
    pthread_mutex_destroy(&l->lock);
    emu_ctx_put(l->o.ctx);
    free(l);
}

static void drop_one(struct emu_obj *o)
{
    emu_obj_put(o);
}

static void drop_ctx(struct emu_ctx *ctx)
{
    emu_obj_drop_ctx(ctx, EMU_T_LINK, drop_one);
}

void emu_link_init(void)
{
    emu_ctx_teardown_join(EMU_TEARDOWN_LINKS, drop_ctx);
}

TD_EXPORT CUresult CUDAAPI cuLinkCreate_v2(unsigned int numOptions, CUjit_option *options, void **optionValues,
                                           CUlinkState *stateOut)
{
    struct emu_ctx *c;
    CUresult r = emu_ctx_current(&c);
    if (r)
        return r;
    struct emu_jit jit;
    if (!stateOut || emu_jit_options(numOptions, options, optionValues, &jit)) {
        emu_ctx_put(c);
        return CUDA_ERROR_INVALID_VALUE;
    }
    struct emu_link *l = calloc(1, sizeof *l);
    if (!l) {
        emu_ctx_put(c);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    l->jit = jit;
    emu_obj_init(&l->o, EMU_T_LINK, c, link_release); /* our reference on c goes to it */
    pthread_mutex_init(&l->lock, NULL);
    emu_obj_register(&l->o);
    *stateOut = (CUlinkState)(void *)l;
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuLinkCreate(unsigned int numOptions, CUjit_option *options, void **optionValues,
                                        CUlinkState *stateOut)
{
    return cuLinkCreate_v2(numOptions, options, optionValues, stateOut);
}

/* appends PTX text; after the first, its .version/.target/.address_size go
 * (l->lock held) */
static CUresult link_add(struct emu_link *l, const char *data, size_t size)
{
    size = strnlen(data, size ? size : (size_t)1 << 30);
    const char *p = data;
    if (l->nptx > 0) { /* drop the header lines of later texts */
        const char *q = data;
        while (q < data + size) {
            const char *eol = memchr(q, '\n', (size_t)(data + size - q));
            const char *e = eol ? eol + 1 : data + size;
            const char *s = q;
            while (s < e && (*s == ' ' || *s == '\t'))
                s++;
            if (strncmp(s, ".version", 8) && strncmp(s, ".target", 7) && strncmp(s, ".address_size", 13) &&
                strncmp(s, "//", 2) && s < e && *s != '\n')
                break;
            q = e;
        }
        p = q;
        size -= (size_t)(p - data);
    }
    char *nt = realloc(l->text, l->len + size + 2);
    if (!nt)
        return CUDA_ERROR_OUT_OF_MEMORY;
    l->text = nt;
    memcpy(l->text + l->len, p, size);
    l->len += size;
    l->text[l->len++] = '\n';
    l->text[l->len] = 0;
    l->nptx++;
    return CUDA_SUCCESS;
}

/* data (size bytes) is libcudadevrt.a: an ar archive holding cuda_device_runtime.o */
static int is_devrt(const void *data, size_t size)
{
    static const char member[] = "cuda_device_runtime.o/";
    return size >= 8 && memcmp(data, "!<arch>\n", 8) == 0 && memmem(data, size, member, sizeof member - 1) != NULL;
}

TD_EXPORT CUresult CUDAAPI cuLinkAddData_v2(CUlinkState state, CUjitInputType type, void *data, size_t size,
                                            const char *name, unsigned int numOptions, CUjit_option *options,
                                            void **optionValues)
{
    EMU_INIT_OR_RETURN();
    struct emu_link *l = emu_obj_get(state, EMU_T_LINK);
    if (!l)
        return CUDA_ERROR_INVALID_HANDLE;
    struct emu_jit own;
    char why[400] = "";
    CUresult r = CUDA_SUCCESS;
    int devrt = 0;
    if (!data || emu_jit_options(numOptions, options, optionValues, &own)) {
        r = CUDA_ERROR_INVALID_VALUE;
    } else if (type == CU_JIT_INPUT_LIBRARY && is_devrt(data, size)) {
        devrt = 1;
    } else if (type != CU_JIT_INPUT_PTX) {
        snprintf(why, sizeof why, "only PTX input can be linked by the emulator (input type %d)", (int)type);
        r = CUDA_ERROR_NOT_SUPPORTED;
    } else {
        struct emu_arch a;
        int cc = emu_device_cc(l->o.ctx->dev);
        if (emu_ptx_target(data, size ? size : (size_t)-1, &a) == 0 && !emu_arch_runs_on(a, cc)) {
            snprintf(why, sizeof why, "PTX .target sm_%d%.1s does not run on a device of compute capability %d.%d",
                     a.arch, a.variant ? &a.variant : "", cc / 10, cc % 10);
            r = CUDA_ERROR_INVALID_PTX;
        } else {
            char err[300];
            struct ptx_module *pm = ptx_parse(data, size, err, sizeof err);
            if (!pm) {
                snprintf(why, sizeof why, "invalid PTX: %s", err);
                r = CUDA_ERROR_INVALID_PTX;
            }
            ptx_module_free(pm);
        }
    }
    pthread_mutex_lock(&l->lock);
    if (r == CUDA_SUCCESS && devrt) {
        emu_reportf("tdtrace-emu: cuLinkAddData: %s: libcudadevrt, whose device runtime is the emulator's own: "
                    "nothing to link\n", name ? name : "input");
    } else if (r == CUDA_SUCCESS) {
        r = link_add(l, data, size);
    } else if (why[0]) { /* the link's error log gathers each input's reason */
        char line[480];
        snprintf(line, sizeof line, "%s: %s\n", name ? name : "input", why);
        size_t at = strlen(l->log);
        snprintf(l->log + at, sizeof l->log - at, "%s", line);
        emu_jit_done(&l->jit, l->log, "");
        char text[512];
        int n = snprintf(text, sizeof text, "tdtrace-emu: cuLinkAddData: %s", line);
        emu_report(text, n < 0 ? 0 : (size_t)n < sizeof text ? (size_t)n : sizeof text - 1);
    }
    pthread_mutex_unlock(&l->lock);
    emu_obj_put(&l->o);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuLinkAddData(CUlinkState state, CUjitInputType type, void *data, size_t size,
                                         const char *name, unsigned int numOptions, CUjit_option *options,
                                         void **optionValues)
{
    return cuLinkAddData_v2(state, type, data, size, name, numOptions, options, optionValues);
}

TD_EXPORT CUresult CUDAAPI cuLinkAddFile_v2(CUlinkState state, CUjitInputType type, const char *path,
                                            unsigned int numOptions, CUjit_option *options, void **optionValues)
{
    EMU_INIT_OR_RETURN();
    if (!path)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_link *l = emu_obj_get(state, EMU_T_LINK);
    if (!l)
        return CUDA_ERROR_INVALID_HANDLE;
    emu_obj_put(&l->o);
    FILE *f = fopen(path, "rb");
    if (!f)
        return CUDA_ERROR_FILE_NOT_FOUND;
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 65536 + 1 > cap) {
            cap = cap ? cap * 2 : 131072;
            char *nb = realloc(buf, cap);
            if (!nb || cap > ((size_t)1 << 30)) {
                free(nb ? nb : buf);
                fclose(f);
                return CUDA_ERROR_OUT_OF_MEMORY;
            }
            buf = nb;
        }
        size_t k = fread(buf + len, 1, 65536, f);
        len += k;
        if (k == 0)
            break;
    }
    fclose(f);
    buf[len] = 0;
    CUresult r = cuLinkAddData_v2(state, type, buf, len, path, numOptions, options, optionValues);
    free(buf);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuLinkAddFile(CUlinkState state, CUjitInputType type, const char *path,
                                         unsigned int numOptions, CUjit_option *options, void **optionValues)
{
    return cuLinkAddFile_v2(state, type, path, numOptions, options, optionValues);
}

/* The output stays the link state's until cuLinkDestroy. */
TD_EXPORT CUresult CUDAAPI cuLinkComplete(CUlinkState state, void **cubinOut, size_t *sizeOut)
{
    EMU_INIT_OR_RETURN();
    struct emu_link *l = emu_obj_get(state, EMU_T_LINK);
    if (!l)
        return CUDA_ERROR_INVALID_HANDLE;
    CUresult r = CUDA_SUCCESS;
    pthread_mutex_lock(&l->lock);
    if (!cubinOut || !l->nptx) {
        r = CUDA_ERROR_INVALID_VALUE;
    } else {
        *cubinOut = l->text; /* the "image" is PTX text: cuModuleLoadData takes it */
        if (sizeOut)
            *sizeOut = l->len + 1;
        emu_jit_done(&l->jit, "", "tdtrace-emu: linked PTX text: the emulator runs it\n");
    }
    pthread_mutex_unlock(&l->lock);
    emu_obj_put(&l->o);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuLinkDestroy(CUlinkState state)
{
    EMU_INIT_OR_RETURN();
    struct emu_link *l = emu_obj_get(state, EMU_T_LINK);
    if (!l)
        return CUDA_ERROR_INVALID_HANDLE;
    int mine = emu_obj_unregister(&l->o);
    emu_obj_put(&l->o);
    if (mine)
        emu_obj_put(&l->o); /* the registry's */
    return mine ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}
