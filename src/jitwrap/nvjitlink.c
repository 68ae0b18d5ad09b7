/* SPDX-License-Identifier: Apache-2.0 */
/* lib/tdtrace/jit/libnvJitLink.so.13: nvJitLink in front of NVIDIA's.
 *
 * Every call goes to NVIDIA's libnvJitLink.so.13 with the program's own
 * handle. Beside a link that makes machine code (no -ptx among its
 * options) this layer keeps a second one, NVIDIA's too, with the same
 * options plus -lto -ptx, and gives it the same inputs: nvJitLink turns
 * LTO-IR into PTX only with -ptx, and a link makes either PTX or machine
 * code. When the program's link completes, the second one does; its PTX
 * goes beside the machine code in the fatbinary that
 * nvJitLinkGetLinkedCubinSize/nvJitLinkGetLinkedCubin hand out. Inputs
 * from which no PTX can come (machine code, PTX text: -ptx takes LTO-IR
 * only) stop the second link; the machine code then goes out unchanged and
 * the log says why. The program's link, its logs and its results are
 * NVIDIA's, untouched. */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit.h"
#include "nvjitlink.h"

/* Not documented: with key 0xc0fd NVIDIA's library returns a function that
 * adds an input to a link (an LLVM bitcode check opens it); cuBLASLt and
 * cuDNN use it. It goes through unchanged, but inputs added that way would
 * miss the PTX link, so none is made after it has been asked for. */
TD_EXPORT void *__nvJitLinkAPI(unsigned int key);

/* name (without __ and _13_0), parameters, arguments: the calls that go
 * through unchanged */
#define JL_PASS(X)                                                                                \
    X(GetLinkedPtxSize, (nvJitLinkHandle handle, size_t *size), (handle, size))                   \
    X(GetLinkedPtx, (nvJitLinkHandle handle, char *ptx), (handle, ptx))                           \
    X(GetErrorLogSize, (nvJitLinkHandle handle, size_t *size), (handle, size))                    \
    X(GetErrorLog, (nvJitLinkHandle handle, char *log), (handle, log))                            \
    X(GetInfoLogSize, (nvJitLinkHandle handle, size_t *size), (handle, size))                     \
    X(GetInfoLog, (nvJitLinkHandle handle, char *log), (handle, log))

/* and those this file looks at */
#define JL_OWN(X)                                                                                 \
    X(Create) X(Destroy) X(AddData) X(AddFile) X(Complete) X(GetLinkedCubinSize) X(GetLinkedCubin)

#define ID_PASS(n, params, args) F_##n,
#define ID_OWN(n) F_##n,
#define NAME_PASS(n, params, args) "__nvJitLink" #n "_13_0",
#define NAME_OWN(n) "__nvJitLink" #n "_13_0",
enum { JL_PASS(ID_PASS) JL_OWN(ID_OWN) F_Version, F_API, F__COUNT };
static const char *const names[] = { JL_PASS(NAME_PASS) JL_OWN(NAME_OWN) "nvJitLinkVersion",
                                     "__nvJitLinkAPI" };
static _Atomic(void *) fns[F__COUNT];
static struct td_jit_lib jitlink = { "libnvJitLink.so.13", names, fns, F__COUNT, 0, NULL, "" };

#define REAL(n) ((__typeof__(&__nvJitLink##n##_13_0))td_jit_real(&jitlink, F_##n))
/* each function under both names, as NVIDIA's library exports it */
#define BOTH_NAMES(n) \
    TD_EXPORT __typeof__(nvJitLink##n) nvJitLink##n __attribute__((alias("__nvJitLink" #n "_13_0")));

#define PASS_FN(n, params, args)                                                                  \
    TD_EXPORT nvJitLinkResult __nvJitLink##n##_13_0 params                                        \
    {                                                                                             \
        __typeof__(&__nvJitLink##n##_13_0) f = REAL(n);                                           \
        return f ? f args : NVJITLINK_ERROR_INTERNAL;                                             \
    }                                                                                             \
    BOTH_NAMES(n)
JL_PASS(PASS_FN)

TD_EXPORT nvJitLinkResult nvJitLinkVersion(unsigned int *major, unsigned int *minor)
{
    __typeof__(&nvJitLinkVersion) f = (__typeof__(&nvJitLinkVersion))td_jit_real(&jitlink, F_Version);
    return f ? f(major, minor) : NVJITLINK_ERROR_INTERNAL;
}

static atomic_int private_api_used;

TD_EXPORT void *__nvJitLinkAPI(unsigned int key)
{
    __typeof__(&__nvJitLinkAPI) f = (__typeof__(&__nvJitLinkAPI))td_jit_real(&jitlink, F_API);
    void *r = f ? f(key) : NULL;
    if (r)
        atomic_store(&private_api_used, 1);
    return r;
}

/* ---- links ------------------------------------------------------------- */

static const char *const result_names[] = {
    "NVJITLINK_SUCCESS",
    "NVJITLINK_ERROR_UNRECOGNIZED_OPTION",
    "NVJITLINK_ERROR_MISSING_ARCH",
    "NVJITLINK_ERROR_INVALID_INPUT",
    "NVJITLINK_ERROR_PTX_COMPILE",
    "NVJITLINK_ERROR_NVVM_COMPILE",
    "NVJITLINK_ERROR_INTERNAL",
    "NVJITLINK_ERROR_THREADPOOL",
    "NVJITLINK_ERROR_UNRECOGNIZED_INPUT",
    "NVJITLINK_ERROR_FINALIZE",
    "NVJITLINK_ERROR_NULL_INPUT",
    "NVJITLINK_ERROR_INCOMPATIBLE_OPTIONS",
    "NVJITLINK_ERROR_INCORRECT_INPUT_TYPE",
    "NVJITLINK_ERROR_ARCH_MISMATCH",
    "NVJITLINK_ERROR_OUTDATED_LIBRARY",
    "NVJITLINK_ERROR_MISSING_FATBIN",
    "NVJITLINK_ERROR_UNRECOGNIZED_ARCH",
    "NVJITLINK_ERROR_UNSUPPORTED_ARCH",
    "NVJITLINK_ERROR_LTO_NOT_ENABLED",
};

static const char *result_name(nvJitLinkResult r)
{
    unsigned i = (unsigned)r;
    return i < sizeof result_names / sizeof result_names[0] ? result_names[i] : "an unknown result";
}

/* What this layer knows of a live link. */
struct link {
    nvJitLinkHandle h;
    nvJitLinkHandle ptx_link;  /* the second link, while it is useful */
    char why[320];             /* why there is no PTX ("": the program asked for PTX) */
    char *ptx;                 /* the second link's PTX, once complete */
    size_t ptxlen;
    int decided;               /* the image below is chosen */
    unsigned char *image;      /* the fatbinary; NULL: the machine code as it is */
    size_t len;
    struct link *next;
};

static pthread_mutex_t links_lock = PTHREAD_MUTEX_INITIALIZER;
static struct link *links;

static struct link *find(nvJitLinkHandle h)
{
    pthread_mutex_lock(&links_lock);
    struct link *l = links;
    while (l && l->h != h)
        l = l->next;
    pthread_mutex_unlock(&links_lock);
    return l;
}

static void drop_ptx_link(struct link *l)
{
    if (l->ptx_link) {
        __typeof__(&__nvJitLinkDestroy_13_0) destroy = REAL(Destroy);
        if (destroy)
            destroy(&l->ptx_link);
        l->ptx_link = NULL;
    }
}

/* The second link gives up: why, from fmt. */
static void no_ptx(struct link *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void no_ptx(struct link *l, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(l->why, sizeof l->why, fmt, ap);
    va_end(ap);
    drop_ptx_link(l);
}

/* The first line of the second link's error log, for a reason. */
static void error_line(struct link *l, char *buf, size_t len)
{
    __typeof__(&__nvJitLinkGetErrorLogSize_13_0) size = REAL(GetErrorLogSize);
    __typeof__(&__nvJitLinkGetErrorLog_13_0) get = REAL(GetErrorLog);
    size_t n = 0;
    char *log;
    buf[0] = 0;
    if (!size || !get || size(l->ptx_link, &n) != NVJITLINK_SUCCESS || n <= 1 || !(log = malloc(n)))
        return;
    if (get(l->ptx_link, log) == NVJITLINK_SUCCESS) {
        log[n - 1] = 0;
        snprintf(buf, len, "%.*s", (int)strcspn(log, "\n"), log);
    }
    free(log);
}

static int has_option(uint32_t n, const char *const *opts, const char *want)
{
    for (uint32_t i = 0; opts && i < n; i++)
        if (opts[i] && strcmp(opts[i], want) == 0)
            return 1;
    return 0;
}

TD_EXPORT nvJitLinkResult __nvJitLinkCreate_13_0(nvJitLinkHandle *handle, uint32_t numOptions,
                                                 const char *const *options)
{
    __typeof__(&__nvJitLinkCreate_13_0) create = REAL(Create);
    if (!create)
        return NVJITLINK_ERROR_INTERNAL;
    nvJitLinkResult r = create(handle, numOptions, options);
    if (r != NVJITLINK_SUCCESS || !handle || !*handle)
        return r;
    struct link *l = calloc(1, sizeof *l);
    if (!l) {
        td_jit_say("nvJitLinkCreate: out of memory: link %p goes on without its PTX", (void *)*handle);
        return r;
    }
    l->h = *handle;
    if (!has_option(numOptions, options, "-ptx")) {
        /* the program's options, then -lto (if missing) and -ptx */
        const char **o = numOptions < 1u << 20 ? malloc((numOptions + 2) * sizeof *o) : NULL;
        if (!o) {
            snprintf(l->why, sizeof l->why, "out of memory");
        } else {
            uint32_t k = 0;
            for (uint32_t i = 0; i < numOptions; i++)
                o[k++] = options[i];
            if (!has_option(numOptions, options, "-lto"))
                o[k++] = "-lto";
            o[k++] = "-ptx";
            nvJitLinkResult pr = create(&l->ptx_link, k, o);
            if (pr != NVJITLINK_SUCCESS) {
                l->ptx_link = NULL;
                snprintf(l->why, sizeof l->why, "nvJitLink refused the options with -lto -ptx: %s",
                         result_name(pr));
            }
            free(o);
        }
    }
    pthread_mutex_lock(&links_lock);
    l->next = links;
    links = l;
    pthread_mutex_unlock(&links_lock);
    return r;
}
BOTH_NAMES(Create)

TD_EXPORT nvJitLinkResult __nvJitLinkDestroy_13_0(nvJitLinkHandle *handle)
{
    __typeof__(&__nvJitLinkDestroy_13_0) destroy = REAL(Destroy);
    if (!destroy)
        return NVJITLINK_ERROR_INTERNAL;
    nvJitLinkHandle h = handle ? *handle : NULL;
    nvJitLinkResult r = destroy(handle);
    if (r != NVJITLINK_SUCCESS || !h)
        return r;
    struct link *l = NULL;
    pthread_mutex_lock(&links_lock);
    for (struct link **pp = &links; *pp; pp = &(*pp)->next) {
        if ((*pp)->h == h) {
            l = *pp;
            *pp = l->next;
            break;
        }
    }
    pthread_mutex_unlock(&links_lock);
    if (l) {
        drop_ptx_link(l);
        free(l->ptx);
        free(l->image);
        free(l);
    }
    return r;
}
BOTH_NAMES(Destroy)

/* An input went into the program's link: give it to the PTX link too.
 * add_data/add_file: the call to repeat on the PTX link. */
static void also_add(struct link *l, nvJitLinkInputType type, const char *name,
                     const void *data, size_t size, const char *file)
{
    if (!l || !l->ptx_link)
        return;
    if (!name)
        name = "(unnamed)";
    if (type == NVJITLINK_INPUT_CUBIN) {
        no_ptx(l, "input \"%.200s\" is machine code (CUBIN): no PTX can come from it", name);
        return;
    }
    if (type == NVJITLINK_INPUT_PTX) {
        no_ptx(l, "input \"%.200s\" is PTX: nvJitLink makes PTX from LTO-IR only", name);
        return;
    }
    nvJitLinkResult r;
    if (file) {
        __typeof__(&__nvJitLinkAddFile_13_0) add = REAL(AddFile);
        r = add ? add(l->ptx_link, type, file) : NVJITLINK_ERROR_INTERNAL;
    } else {
        __typeof__(&__nvJitLinkAddData_13_0) add = REAL(AddData);
        r = add ? add(l->ptx_link, type, data, size, name) : NVJITLINK_ERROR_INTERNAL;
    }
    if (r != NVJITLINK_SUCCESS) {
        char line[200];
        error_line(l, line, sizeof line);
        no_ptx(l, "the PTX link did not take input \"%.60s\": %s%s%s", name, result_name(r),
               line[0] ? ": " : "", line);
    }
}

TD_EXPORT nvJitLinkResult __nvJitLinkAddData_13_0(nvJitLinkHandle handle,
                                                  nvJitLinkInputType inputType, const void *data,
                                                  size_t size, const char *name)
{
    __typeof__(&__nvJitLinkAddData_13_0) add = REAL(AddData);
    if (!add)
        return NVJITLINK_ERROR_INTERNAL;
    nvJitLinkResult r = add(handle, inputType, data, size, name);
    if (r == NVJITLINK_SUCCESS)
        also_add(find(handle), inputType, name, data, size, NULL);
    return r;
}
BOTH_NAMES(AddData)

TD_EXPORT nvJitLinkResult __nvJitLinkAddFile_13_0(nvJitLinkHandle handle,
                                                  nvJitLinkInputType inputType,
                                                  const char *fileName)
{
    __typeof__(&__nvJitLinkAddFile_13_0) add = REAL(AddFile);
    if (!add)
        return NVJITLINK_ERROR_INTERNAL;
    nvJitLinkResult r = add(handle, inputType, fileName);
    if (r == NVJITLINK_SUCCESS)
        also_add(find(handle), inputType, fileName, NULL, 0, fileName);
    return r;
}
BOTH_NAMES(AddFile)

TD_EXPORT nvJitLinkResult __nvJitLinkComplete_13_0(nvJitLinkHandle handle)
{
    __typeof__(&__nvJitLinkComplete_13_0) complete = REAL(Complete);
    if (!complete)
        return NVJITLINK_ERROR_INTERNAL;
    nvJitLinkResult r = complete(handle);
    struct link *l = find(handle);
    if (r != NVJITLINK_SUCCESS || !l || !l->ptx_link)
        return r;
    if (atomic_load(&private_api_used)) {
        no_ptx(l, "the program used nvJitLink's private interface (__nvJitLinkAPI), "
                  "whose inputs the PTX link would miss");
        return r;
    }
    nvJitLinkResult pr = complete(l->ptx_link);
    if (pr != NVJITLINK_SUCCESS) {
        char line[200];
        error_line(l, line, sizeof line);
        no_ptx(l, "the PTX link failed: %s%s%s", result_name(pr), line[0] ? ": " : "", line);
        return r;
    }
    __typeof__(&__nvJitLinkGetLinkedPtxSize_13_0) size = REAL(GetLinkedPtxSize);
    __typeof__(&__nvJitLinkGetLinkedPtx_13_0) get = REAL(GetLinkedPtx);
    size_t n = 0;
    if (!size || !get || size(l->ptx_link, &n) != NVJITLINK_SUCCESS || n <= 1) {
        no_ptx(l, "the PTX link made no PTX");
    } else if (!(l->ptx = malloc(n))) {
        no_ptx(l, "out of memory");
    } else if (get(l->ptx_link, l->ptx) != NVJITLINK_SUCCESS) {
        free(l->ptx);
        l->ptx = NULL;
        no_ptx(l, "nvJitLinkGetLinkedPtx failed on the PTX link");
    } else {
        l->ptxlen = strnlen(l->ptx, n);
        drop_ptx_link(l);
    }
    return r;
}
BOTH_NAMES(Complete)

/* ---- the machine code -------------------------------------------------- */

/* Choose, once, the image handed out for l's machine code (n > 0 bytes). */
static nvJitLinkResult decide(const char *call, struct link *l, size_t n)
{
    if (l->decided)
        return NVJITLINK_SUCCESS;
    __typeof__(&__nvJitLinkGetLinkedCubin_13_0) get = REAL(GetLinkedCubin);
    if (!get)
        return NVJITLINK_ERROR_INTERNAL;
    void *elf = malloc(n);
    if (!elf)
        return NVJITLINK_ERROR_INTERNAL;
    nvJitLinkResult r = get(l->h, elf);
    if (r != NVJITLINK_SUCCESS) {
        free(elf);
        return r;
    }
    char what[128];
    snprintf(what, sizeof what, "%s: link %p", call, (void *)l->h);
    const char *why = l->ptx ? NULL : l->why[0] ? l->why : "no PTX link was made";
    int rc = td_jit_substitute(what, elf, n, l->ptx, l->ptxlen, why, &l->image, &l->len);
    free(elf);
    if (rc)
        return NVJITLINK_ERROR_INTERNAL;
    l->decided = 1;
    return NVJITLINK_SUCCESS;
}

TD_EXPORT nvJitLinkResult __nvJitLinkGetLinkedCubinSize_13_0(nvJitLinkHandle handle, size_t *size)
{
    __typeof__(&__nvJitLinkGetLinkedCubinSize_13_0) f = REAL(GetLinkedCubinSize);
    if (!f)
        return NVJITLINK_ERROR_INTERNAL;
    /* nvJitLink's own answer first, then the size alone (0: none) */
    nvJitLinkResult r = f(handle, size);
    size_t n = 0;
    struct link *l;
    if (r != NVJITLINK_SUCCESS || !size || f(handle, &n) != NVJITLINK_SUCCESS || n == 0 ||
        !(l = find(handle)))
        return r;
    pthread_mutex_lock(&links_lock);
    r = decide("nvJitLinkGetLinkedCubinSize", l, n);
    if (r == NVJITLINK_SUCCESS && l->image)
        *size = l->len;
    pthread_mutex_unlock(&links_lock);
    return r;
}
BOTH_NAMES(GetLinkedCubinSize)

TD_EXPORT nvJitLinkResult __nvJitLinkGetLinkedCubin_13_0(nvJitLinkHandle handle, void *cubin)
{
    __typeof__(&__nvJitLinkGetLinkedCubinSize_13_0) size = REAL(GetLinkedCubinSize);
    __typeof__(&__nvJitLinkGetLinkedCubin_13_0) f = REAL(GetLinkedCubin);
    if (!f || !size)
        return NVJITLINK_ERROR_INTERNAL;
    size_t n = 0;
    struct link *l;
    if (!cubin || size(handle, &n) != NVJITLINK_SUCCESS || n == 0 || !(l = find(handle)))
        return f(handle, cubin);
    pthread_mutex_lock(&links_lock);
    nvJitLinkResult r = decide("nvJitLinkGetLinkedCubin", l, n);
    int mine = r == NVJITLINK_SUCCESS && l->image;
    if (mine)
        memcpy(cubin, l->image, l->len);
    pthread_mutex_unlock(&links_lock);
    return r != NVJITLINK_SUCCESS || mine ? r : f(handle, cubin);
}
BOTH_NAMES(GetLinkedCubin)
