/* SPDX-License-Identifier: Apache-2.0 */
/* lib/tdtrace/jit/libnvrtc.so.13: NVRTC in front of NVIDIA's.
 *
 * Every call goes to NVIDIA's libnvrtc.so.13 with the program's own
 * handles and arguments. One thing differs: when a compile made machine
 * code (-arch=sm_XX in any spelling), nvrtcGetCUBINSize/nvrtcGetCUBIN hand
 * out a fatbinary holding that compile's PTX beside the machine code, so
 * the emulated GPU, which runs PTX only, can load it. NVRTC 13 keeps the
 * PTX of a compile for a real architecture (nvrtcGetPTX answers after
 * -arch=sm_90 as after -arch=compute_90), so nothing is compiled twice and
 * the PTX is the very text the machine code came from.
 *
 * NVRTC hands out the machine code of an earlier compile when the last one
 * made none (a recompile for compute_XX or with -dlto): that goes out as it
 * is, so the options of each compile are read for whether it makes machine
 * code. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit.h"
#include "nvrtc.h"

/* NVRTC's functions the program may call and which go through unchanged:
 * name, parameters, arguments */
#define NVRTC_PASS(X)                                                                             \
    X(nvrtcVersion, (int *major, int *minor), (major, minor))                                     \
    X(nvrtcGetNumSupportedArchs, (int *numArchs), (numArchs))                                     \
    X(nvrtcGetSupportedArchs, (int *supportedArchs), (supportedArchs))                            \
    X(nvrtcGetPTXSize, (nvrtcProgram prog, size_t *ptxSizeRet), (prog, ptxSizeRet))               \
    X(nvrtcGetPTX, (nvrtcProgram prog, char *ptx), (prog, ptx))                                   \
    X(nvrtcGetLTOIRSize, (nvrtcProgram prog, size_t *LTOIRSizeRet), (prog, LTOIRSizeRet))         \
    X(nvrtcGetLTOIR, (nvrtcProgram prog, char *LTOIR), (prog, LTOIR))                             \
    X(nvrtcGetOptiXIRSize, (nvrtcProgram prog, size_t *optixirSizeRet), (prog, optixirSizeRet))   \
    X(nvrtcGetOptiXIR, (nvrtcProgram prog, char *optixir), (prog, optixir))                       \
    X(nvrtcGetProgramLogSize, (nvrtcProgram prog, size_t *logSizeRet), (prog, logSizeRet))        \
    X(nvrtcGetProgramLog, (nvrtcProgram prog, char *log), (prog, log))                            \
    X(nvrtcAddNameExpression, (nvrtcProgram prog, const char *const name_expression),             \
      (prog, name_expression))                                                                    \
    X(nvrtcGetLoweredName,                                                                        \
      (nvrtcProgram prog, const char *const name_expression, const char **lowered_name),          \
      (prog, name_expression, lowered_name))                                                      \
    X(nvrtcGetPCHHeapSize, (size_t *ret), (ret))                                                  \
    X(nvrtcSetPCHHeapSize, (size_t size), (size))                                                 \
    X(nvrtcGetPCHCreateStatus, (nvrtcProgram prog), (prog))                                       \
    X(nvrtcGetPCHHeapSizeRequired, (nvrtcProgram prog, size_t *size), (prog, size))               \
    X(nvrtcSetFlowCallback, (nvrtcProgram prog, int (*callback)(void *, void *), void *payload), \
      (prog, callback, payload))

/* and those this file looks at */
#define NVRTC_OWN(X)                                                                              \
    X(nvrtcGetErrorString) X(nvrtcCreateProgram) X(__nvrtcCPEx) X(nvrtcDestroyProgram)            \
    X(nvrtcCompileProgram) X(nvrtcGetCUBINSize) X(nvrtcGetCUBIN)

/* Not documented: nvrtcCreateProgram's body in NVIDIA's library is a call
 * of this with three more arguments, all zero (an int and two pointers,
 * read from the stack in 13.0); cuBLASLt and cuDNN call it directly. It
 * goes through unchanged. */
TD_EXPORT nvrtcResult __nvrtcCPEx(nvrtcProgram *prog, const char *src, const char *name,
                                  int numHeaders, const char *const *headers,
                                  const char *const *includeNames, int x, const void *y,
                                  const void *z);

#define ID_PASS(n, params, args) F_##n,
#define ID_OWN(n) F_##n,
#define NAME_PASS(n, params, args) #n,
#define NAME_OWN(n) #n,
enum { NVRTC_PASS(ID_PASS) NVRTC_OWN(ID_OWN) F__COUNT };
static const char *const names[] = { NVRTC_PASS(NAME_PASS) NVRTC_OWN(NAME_OWN) };
static _Atomic(void *) fns[F__COUNT];
static struct td_jit_lib nvrtc = { "libnvrtc.so.13", names, fns, F__COUNT, 0, NULL, "" };

#define REAL(n) ((__typeof__(&n))td_jit_real(&nvrtc, F_##n))

#define PASS_FN(n, params, args)                                                                  \
    TD_EXPORT nvrtcResult n params                                                                \
    {                                                                                             \
        __typeof__(&n) f = REAL(n);                                                               \
        return f ? f args : NVRTC_ERROR_INTERNAL_ERROR;                                           \
    }
NVRTC_PASS(PASS_FN)

/* ---- programs ---------------------------------------------------------- */

/* What this layer knows of a live program: its name, and the image it
 * hands out for the machine code of the last compile. */
struct prog {
    nvrtcProgram h;
    char name[128];
    int made_code;             /* the last compile made machine code */
    int decided;               /* the image below is chosen for this compile */
    unsigned char *image;      /* the fatbinary; NULL: the machine code as it is */
    size_t len;
    struct prog *next;
};

static pthread_mutex_t progs_lock = PTHREAD_MUTEX_INITIALIZER;
static struct prog *progs;

/* under progs_lock */
static struct prog *find(nvrtcProgram h, int create)
{
    for (struct prog *p = progs; p; p = p->next)
        if (p->h == h)
            return p;
    if (!create)
        return NULL;
    struct prog *p = calloc(1, sizeof *p);
    if (p) {
        p->h = h;
        p->next = progs;
        progs = p;
    }
    return p;
}

static void forget_image(struct prog *p)
{
    free(p->image);
    p->image = NULL;
    p->len = 0;
    p->decided = 0;
}

static void created(nvrtcProgram h, const char *name)
{
    pthread_mutex_lock(&progs_lock);
    struct prog *p = find(h, 1);
    if (p) {
        forget_image(p);
        p->made_code = 0;
        /* NVRTC's default name for a program given none */
        snprintf(p->name, sizeof p->name, "%s", name ? name : "default_program");
    }
    pthread_mutex_unlock(&progs_lock);
}

TD_EXPORT nvrtcResult nvrtcCreateProgram(nvrtcProgram *prog, const char *src, const char *name,
                                         int numHeaders, const char *const *headers,
                                         const char *const *includeNames)
{
    __typeof__(&nvrtcCreateProgram) f = REAL(nvrtcCreateProgram);
    if (!f)
        return NVRTC_ERROR_INTERNAL_ERROR;
    nvrtcResult r = f(prog, src, name, numHeaders, headers, includeNames);
    if (r == NVRTC_SUCCESS && prog)
        created(*prog, name);
    return r;
}

TD_EXPORT nvrtcResult __nvrtcCPEx(nvrtcProgram *prog, const char *src, const char *name,
                                  int numHeaders, const char *const *headers,
                                  const char *const *includeNames, int x, const void *y,
                                  const void *z)
{
    __typeof__(&__nvrtcCPEx) f = REAL(__nvrtcCPEx);
    if (!f)
        return NVRTC_ERROR_INTERNAL_ERROR;
    nvrtcResult r = f(prog, src, name, numHeaders, headers, includeNames, x, y, z);
    if (r == NVRTC_SUCCESS && prog)
        created(*prog, name);
    return r;
}

TD_EXPORT nvrtcResult nvrtcDestroyProgram(nvrtcProgram *prog)
{
    __typeof__(&nvrtcDestroyProgram) f = REAL(nvrtcDestroyProgram);
    if (!f)
        return NVRTC_ERROR_INTERNAL_ERROR;
    nvrtcProgram h = prog ? *prog : NULL;
    nvrtcResult r = f(prog);
    if (r == NVRTC_SUCCESS && h) {
        pthread_mutex_lock(&progs_lock);
        for (struct prog **pp = &progs; *pp; pp = &(*pp)->next) {
            if ((*pp)->h == h) {
                struct prog *p = *pp;
                *pp = p->next;
                forget_image(p);
                free(p);
                break;
            }
        }
        pthread_mutex_unlock(&progs_lock);
    }
    return r;
}

/* Whether a compile with these options makes machine code: an
 * architecture option (-arch or --gpu-architecture, "=VALUE" or VALUE as
 * the next option) names a real one (sm_XX; with several, NVRTC makes
 * machine code if any does), and LTO-IR is not asked for (-dlto,
 * --dlink-time-opt). */
static int makes_code(int n, const char *const *opts)
{
    int real = 0, lto = 0;
    for (int i = 0; opts && i < n; i++) {
        const char *o = opts[i], *v = NULL;
        if (!o)
            continue;
        static const char *const arch[] = { "-arch", "--gpu-architecture" };
        for (int k = 0; k < 2 && !v; k++) {
            size_t len = strlen(arch[k]);
            if (strncmp(o, arch[k], len) == 0 && o[len] == '=')
                v = o + len + 1;
            else if (strcmp(o, arch[k]) == 0 && i + 1 < n)
                v = opts[++i];
        }
        if (v && strncmp(v, "sm_", 3) == 0)
            real = 1;
        if (strcmp(o, "-dlto") == 0 || strcmp(o, "--dlink-time-opt") == 0)
            lto = 1;
    }
    return real && !lto;
}

TD_EXPORT nvrtcResult nvrtcCompileProgram(nvrtcProgram prog, int numOptions,
                                          const char *const *options)
{
    __typeof__(&nvrtcCompileProgram) f = REAL(nvrtcCompileProgram);
    if (!f)
        return NVRTC_ERROR_INTERNAL_ERROR;
    nvrtcResult r = f(prog, numOptions, options);
    /* whatever came of it, an image of an earlier compile is stale */
    pthread_mutex_lock(&progs_lock);
    struct prog *p = find(prog, r == NVRTC_SUCCESS);
    if (p) {
        forget_image(p);
        p->made_code = r == NVRTC_SUCCESS && makes_code(numOptions, options);
    }
    pthread_mutex_unlock(&progs_lock);
    return r;
}

/* ---- the machine code -------------------------------------------------- */

/* Choose, once per compile, the image handed out for prog's machine code
 * (n bytes, n > 0). Under progs_lock. */
static nvrtcResult decide(const char *call, nvrtcProgram h, size_t n, struct prog **out)
{
    *out = NULL;
    struct prog *p = find(h, 1);
    if (!p)
        return NVRTC_ERROR_OUT_OF_MEMORY;
    if (p->decided) {
        *out = p;
        return NVRTC_SUCCESS;
    }
    __typeof__(&nvrtcGetCUBIN) get_cubin = REAL(nvrtcGetCUBIN);
    __typeof__(&nvrtcGetPTXSize) ptx_size = REAL(nvrtcGetPTXSize);
    __typeof__(&nvrtcGetPTX) get_ptx = REAL(nvrtcGetPTX);
    if (!get_cubin || !ptx_size || !get_ptx)
        return NVRTC_ERROR_INTERNAL_ERROR;
    char *elf = malloc(n), *ptx = NULL;
    if (!elf)
        return NVRTC_ERROR_OUT_OF_MEMORY;
    nvrtcResult r = get_cubin(h, elf);
    if (r != NVRTC_SUCCESS) {
        free(elf);
        return r;
    }
    size_t pn = 0;
    const char *why = NULL;
    if (!p->made_code) {
        why = "it is left from an earlier compile (the last one made none)";
    } else if (ptx_size(h, &pn) != NVRTC_SUCCESS || pn <= 1) {
        why = "NVRTC kept no PTX of this compile";
    } else if (!(ptx = malloc(pn))) {
        free(elf);
        return NVRTC_ERROR_OUT_OF_MEMORY;
    } else if (get_ptx(h, ptx) != NVRTC_SUCCESS) {
        why = "nvrtcGetPTX failed";
        free(ptx);
        ptx = NULL;
    }
    char what[256];
    snprintf(what, sizeof what, "%s: program \"%s\"", call, p->name[0] ? p->name : "?");
    int rc = td_jit_substitute(what, elf, n, ptx, ptx ? strnlen(ptx, pn) : 0, why, &p->image,
                               &p->len);
    free(elf);
    free(ptx);
    if (rc)
        return NVRTC_ERROR_OUT_OF_MEMORY;
    p->decided = 1;
    *out = p;
    return NVRTC_SUCCESS;
}

TD_EXPORT nvrtcResult nvrtcGetCUBINSize(nvrtcProgram prog, size_t *cubinSizeRet)
{
    __typeof__(&nvrtcGetCUBINSize) f = REAL(nvrtcGetCUBINSize);
    if (!f)
        return NVRTC_ERROR_INTERNAL_ERROR;
    /* NVRTC's own answer into the program's variable first (an error, or
     * the size, 0 without machine code), then the size into ours */
    nvrtcResult r = f(prog, cubinSizeRet);
    size_t n = 0;
    if (r != NVRTC_SUCCESS || !cubinSizeRet || f(prog, &n) != NVRTC_SUCCESS || n == 0)
        return r;
    pthread_mutex_lock(&progs_lock);
    struct prog *p;
    r = decide("nvrtcGetCUBINSize", prog, n, &p);
    if (r == NVRTC_SUCCESS && p->image)
        *cubinSizeRet = p->len;
    pthread_mutex_unlock(&progs_lock);
    return r;
}

TD_EXPORT nvrtcResult nvrtcGetCUBIN(nvrtcProgram prog, char *cubin)
{
    __typeof__(&nvrtcGetCUBINSize) size = REAL(nvrtcGetCUBINSize);
    __typeof__(&nvrtcGetCUBIN) f = REAL(nvrtcGetCUBIN);
    if (!f || !size)
        return NVRTC_ERROR_INTERNAL_ERROR;
    size_t n = 0;
    if (!cubin || size(prog, &n) != NVRTC_SUCCESS || n == 0)
        return f(prog, cubin); /* NVRTC says what is wrong, or copies nothing */
    pthread_mutex_lock(&progs_lock);
    struct prog *p;
    nvrtcResult r = decide("nvrtcGetCUBIN", prog, n, &p);
    int mine = r == NVRTC_SUCCESS && p->image;
    if (mine)
        memcpy(cubin, p->image, p->len);
    pthread_mutex_unlock(&progs_lock);
    return r != NVRTC_SUCCESS || mine ? r : f(prog, cubin);
}

/* ---- without NVIDIA's library ------------------------------------------ */

/* The names NVRTC gives its codes (nvrtcGetErrorString), for when its
 * library is missing and every call fails. */
static const char *const result_names[] = {
    "NVRTC_SUCCESS",
    "NVRTC_ERROR_OUT_OF_MEMORY",
    "NVRTC_ERROR_PROGRAM_CREATION_FAILURE",
    "NVRTC_ERROR_INVALID_INPUT",
    "NVRTC_ERROR_INVALID_PROGRAM",
    "NVRTC_ERROR_INVALID_OPTION",
    "NVRTC_ERROR_COMPILATION",
    "NVRTC_ERROR_BUILTIN_OPERATION_FAILURE",
    "NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION",
    "NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION",
    "NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID",
    "NVRTC_ERROR_INTERNAL_ERROR",
    "NVRTC_ERROR_TIME_FILE_WRITE_FAILED",
    "NVRTC_ERROR_NO_PCH_CREATE_ATTEMPTED",
    "NVRTC_ERROR_PCH_CREATE_HEAP_EXHAUSTED",
    "NVRTC_ERROR_PCH_CREATE",
    "NVRTC_ERROR_CANCELLED",
    "NVRTC_ERROR_TIME_TRACE_FILE_WRITE_FAILED",
};

TD_EXPORT const char *nvrtcGetErrorString(nvrtcResult result)
{
    __typeof__(&nvrtcGetErrorString) f = REAL(nvrtcGetErrorString);
    if (f)
        return f(result);
    unsigned i = (unsigned)result;
    return i < sizeof result_names / sizeof result_names[0] ? result_names[i] : "NVRTC_ERROR unknown";
}
