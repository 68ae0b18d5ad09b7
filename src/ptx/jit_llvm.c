/* SPDX-License-Identifier: Apache-2.0 */
/* LLVM at run time: libLLVM-16 loaded with dlopen, the functions of
 * llvm.def looked up into one table, the native target initialised and one
 * ORC LLJIT made for the process. Nothing links against LLVM: without the
 * library (or with one that lacks a function) the interpreter runs every
 * kernel and the report says why. TDTRACE_EMU_LLVM names another library
 * file (a path or a name for dlopen); "none" means no LLVM. */
#include "jit.h"
#undef L /* exec.h's lane macro: the API table is named so here */

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

static struct llvm_api api;
static const char *api_why;
static char api_name[256];
static pthread_once_t api_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t api_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long api_serial;

static const char *const libnames[] = { "libLLVM-16.so.1", "libLLVM-16.so", "libLLVM.so.16" };

static void load(void)
{
    static char why[320];
    const char *env = getenv("TDTRACE_EMU_LLVM");
    void *h = NULL;
    if (env && *env) {
        if (!strcmp(env, "none")) { api_why = "LLVM is off (TDTRACE_EMU_LLVM=none)"; return; }
        h = dlopen(env, RTLD_NOW | RTLD_LOCAL);
        snprintf(api_name, sizeof api_name, "%s", env);
    } else {
        for (size_t i = 0; !h && i < sizeof libnames / sizeof *libnames; i++) {
            h = dlopen(libnames[i], RTLD_NOW | RTLD_LOCAL);
            snprintf(api_name, sizeof api_name, "%s", libnames[i]);
        }
    }
    if (!h) {
        const char *e = dlerror();
        snprintf(why, sizeof why, "LLVM 16 is not available (%s): install libllvm16",
                 e ? e : "cannot load libLLVM-16.so.1");
        api_why = why;
        api_name[0] = 0;
        return;
    }
#define LLVM_FN(ret, name, params)                                                              \
    if (!(*(void **)(void *)&api.name = dlsym(h, #name))) {                                     \
        snprintf(why, sizeof why, "%s lacks %s: LLVM 16 is needed", api_name, #name);           \
        api_why = why;                                                                          \
        return;                                                                                 \
    }
#include "llvm.def"
#undef LLVM_FN
#if defined(__x86_64__)
    api.LLVMInitializeX86TargetInfo();
    api.LLVMInitializeX86Target();
    api.LLVMInitializeX86TargetMC();
    api.LLVMInitializeX86AsmPrinter();
#else
    api_why = "the PTX JIT generates code for x86-64 hosts only";
    return;
#endif
    void *err = api.LLVMOrcCreateLLJIT(&api.jit, NULL);
    if (err) {
        char *msg = api.LLVMGetErrorMessage(err);
        snprintf(why, sizeof why, "LLVM's JIT could not start: %s", msg ? msg : "?");
        api.LLVMDisposeErrorMessage(msg);
        api_why = why;
        return;
    }
    api.jd = api.LLVMOrcLLJITGetMainJITDylib(api.jit);
    api_why = NULL;
}

const struct llvm_api *jit_llvm(const char **why)
{
    pthread_once(&api_once, load);
    if (api_why || !api.jit) {
        if (why) *why = api_why ? api_why : "LLVM's JIT is not available";
        return NULL;
    }
    return &api;
}

const char *jit_llvm_name(void)
{
    return jit_llvm(NULL) ? api_name : NULL;
}

void jit_llvm_symbol(char *buf, size_t n)
{
    snprintf(buf, n, "tdtrace_kernel_%lu", ++api_serial); /* under jit_llvm_lock */
}

void jit_llvm_lock(void) { pthread_mutex_lock(&api_lock); }
void jit_llvm_unlock(void) { pthread_mutex_unlock(&api_lock); }
