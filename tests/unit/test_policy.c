/* SPDX-License-Identifier: Apache-2.0 */
/* The policy module: tables of (policy, call, verdict), one test per error
 * message, value parsing edge cases, normalisation round trips, the
 * shipped policies, command-line options and the file search. Runs from
 * the repository root. */
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "api.h"
#include "policy/policy.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define GiB (1ULL << 30)
#define MiB (1ULL << 20)

static struct td_policy *parse_ok(const char *text)
{
    struct td_policy *p = NULL;
    struct td_policy_error e;
    if (td_policy_parse(text, strlen(text), "t.policy", &p, &e) < 0)
        fail_msg("parse failed: %s:%d:%d: %s\n--- text:\n%s", e.file, e.line, e.col, e.msg, text);
    return p;
}

static char *written(const struct td_policy *p, int flags)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(td_policy_write_ex(p, f, flags), 0);
    fclose(f);
    return buf;
}

static int fn(const char *name)
{
    int id = td_api_find(name);
    if (id < 0)
        fail_msg("no function %s", name);
    return id;
}

/* ---- evaluation table ----------------------------------------------------- */

struct eval_case {
    const char *policy;
    const char *fn;
    unsigned long long nth;
    int device;
    unsigned long long alloc, in_use;
    enum td_action action;
    int result;
    int applied;
    int line;                     /* of the rule; 0 for PASS */
    unsigned long long delay_ns;
};

#define OOM CUDA_ERROR_OUT_OF_MEMORY
#define NP CUDA_ERROR_NOT_PERMITTED
#define ENF "mode enforce\n"
#define OOM3 ENF "inject cuMemAlloc_v2 error=CUDA_ERROR_OUT_OF_MEMORY when=3+\n"

static const struct eval_case eval_cases[] = {
    /* no policy rules */
    { "", "cuMemAlloc_v2", 1, 0, 100, 0, TD_ACT_PASS, 0, 0, 0, 0 },
    /* OOM from the 3rd cuMemAlloc_v2 */
    { OOM3, "cuMemAlloc_v2", 1, 0, 0, 0, TD_ACT_PASS, 0, 0, 0, 0 },
    { OOM3, "cuMemAlloc_v2", 2, 0, 0, 0, TD_ACT_PASS, 0, 0, 0, 0 },
    { OOM3, "cuMemAlloc_v2", 3, 0, 0, 0, TD_ACT_INJECT, OOM, 1, 2, 0 },
    { OOM3, "cuMemAlloc_v2", 4, 0, 0, 0, TD_ACT_INJECT, OOM, 1, 2, 0 },
    { OOM3, "cuMemAlloc_v2", 1000000, 0, 0, 0, TD_ACT_INJECT, OOM, 1, 2, 0 },
    { OOM3, "cuMemFree_v2", 3, 0, 0, 0, TD_ACT_PASS, 0, 0, 0, 0 },
    { OOM3, "cuMemAlloc", 3, 0, 0, 0, TD_ACT_PASS, 0, 0, 0, 0 },  /* exact name: not the older one */
    /* when=3: the 3rd only */
    { "inject cuInit error=2 when=3\n", "cuInit", 2, -1, 0, 0, TD_ACT_PASS, 0, 0, 0, 0 },
    { "inject cuInit error=2 when=3\n", "cuInit", 3, -1, 0, 0, TD_ACT_INJECT, 2, 0, 1, 0 },
    { "inject cuInit error=2 when=3\n", "cuInit", 4, -1, 0, 0, TD_ACT_PASS, 0, 0, 0, 0 },
    /* when=2..6 */
    { "inject cuInit error=2 when=2..6\n", "cuInit", 1, -1, 0, 0, TD_ACT_PASS, 0, 0, 0, 0 },
    { "inject cuInit error=2 when=2..6\n", "cuInit", 2, -1, 0, 0, TD_ACT_INJECT, 2, 0, 1, 0 },
    { "inject cuInit error=2 when=2..6\n", "cuInit", 6, -1, 0, 0, TD_ACT_INJECT, 2, 0, 1, 0 },
    { "inject cuInit error=2 when=2..6\n", "cuInit", 7, -1, 0, 0, TD_ACT_PASS, 0, 0, 0, 0 },
    /* when=3+2: 3, 5, 7, ... */
    { "inject cuInit error=2 when=3+2\n", "cuInit", 3, -1, 0, 0, TD_ACT_INJECT, 2, 0, 1, 0 },
    { "inject cuInit error=2 when=3+2\n", "cuInit", 4, -1, 0, 0, TD_ACT_PASS, 0, 0, 0, 0 },
    { "inject cuInit error=2 when=3+2\n", "cuInit", 5, -1, 0, 0, TD_ACT_INJECT, 2, 0, 1, 0 },
    { "inject cuInit error=2 when=3+2\n", "cuInit", 1001, -1, 0, 0, TD_ACT_INJECT, 2, 0, 1, 0 },
    { "inject cuInit error=2 when=3+2\n", "cuInit", 1002, -1, 0, 0, TD_ACT_PASS, 0, 0, 0, 0 },
    /* when=2..10+3: 2, 5, 8 */
    { "inject cuInit error=2 when=2..10+3\n", "cuInit", 2, -1, 0, 0, TD_ACT_INJECT, 2, 0, 1, 0 },
    { "inject cuInit error=2 when=2..10+3\n", "cuInit", 5, -1, 0, 0, TD_ACT_INJECT, 2, 0, 1, 0 },
    { "inject cuInit error=2 when=2..10+3\n", "cuInit", 8, -1, 0, 0, TD_ACT_INJECT, 2, 0, 1, 0 },
    { "inject cuInit error=2 when=2..10+3\n", "cuInit", 9, -1, 0, 0, TD_ACT_PASS, 0, 0, 0, 0 },
    { "inject cuInit error=2 when=2..10+3\n", "cuInit", 11, -1, 0, 0, TD_ACT_PASS, 0, 0, 0, 0 },
    /* when= absent: every call */
    { "inject cuInit error=2\n", "cuInit", 1, -1, 0, 0, TD_ACT_INJECT, 2, 0, 1, 0 },
    /* nth 0 never matches (calls count from 1) */
    { "inject cuInit error=2\n", "cuInit", 0, -1, 0, 0, TD_ACT_PASS, 0, 0, 0, 0 },
    /* delays */
    { ENF "inject cuInit error=2 delay=10ms\n", "cuInit", 1, -1, 0, 0, TD_ACT_INJECT, 2, 1, 2, 10000000 },
    { ENF "inject cuInit delay=500us when=2\n", "cuInit", 2, -1, 0, 0, TD_ACT_DELAY, 0, 1, 2, 500000 },
    { ENF "inject cuInit delay=500us when=2\n", "cuInit", 1, -1, 0, 0, TD_ACT_PASS, 0, 0, 0, 0 },
    /* deny by name, by class, default and given error */
    { ENF "deny cuCtxEnablePeerAccess\n", "cuCtxEnablePeerAccess", 1, 0, 0, 0, TD_ACT_DENY, NP, 1, 2, 0 },
    { ENF "deny cuCtxEnablePeerAccess\n", "cuCtxDisablePeerAccess", 1, 0, 0, 0, TD_ACT_PASS, 0, 0, 0, 0 },
    { ENF "deny %graph error=CUDA_ERROR_NOT_SUPPORTED\n", "cuGraphLaunch", 1, 0, 0, 0, TD_ACT_DENY,
      CUDA_ERROR_NOT_SUPPORTED, 1, 2, 0 },
    { ENF "deny %graph error=801\n", "cuGraphCreate", 9, 0, 0, 0, TD_ACT_DENY, 801, 1, 2, 0 },
    { ENF "deny %graph\n", "cuMemAlloc_v2", 1, 0, 0, 0, TD_ACT_PASS, 0, 0, 0, 0 },
    { ENF "deny cuMemcpyPeer,cuLaunchKernel\n", "cuLaunchKernel", 1, 0, 0, 0, TD_ACT_DENY, NP, 1, 2, 0 },
    /* a name covers its _vN and per-thread variants */
    { ENF "deny cuMemcpyPeer\n", "cuMemcpyPeer_ptds", 1, 0, 0, 0, TD_ACT_DENY, NP, 1, 2, 0 },
    { ENF "deny cuMemAlloc\n", "cuMemAlloc_v2", 1, 0, 0, 0, TD_ACT_DENY, NP, 1, 2, 0 },
    { ENF "deny cuMemAlloc\n", "cuMemAllocHost", 1, 0, 0, 0, TD_ACT_PASS, 0, 0, 0, 0 },
    /* audit: the same verdict, not applied */
    { "mode audit\ndeny cuInit\n", "cuInit", 1, -1, 0, 0, TD_ACT_DENY, NP, 0, 2, 0 },
    { "deny cuInit\n", "cuInit", 1, -1, 0, 0, TD_ACT_DENY, NP, 0, 1, 0 },
    { "memory-limit 1G\n", "cuMemAlloc_v2", 1, 0, 2 * GiB, 0, TD_ACT_LIMIT, OOM, 0, 1, 0 },
    /* precedence: exact name > name without suffix > class; later among equals */
    { ENF "deny %memory error=1\ndeny cuMemAlloc_v2 error=3\n", "cuMemAlloc_v2", 1, 0, 0, 0, TD_ACT_DENY, 3, 1, 3, 0 },
    { ENF "deny cuMemAlloc_v2 error=3\ndeny %memory error=1\n", "cuMemAlloc_v2", 1, 0, 0, 0, TD_ACT_DENY, 3, 1, 2, 0 },
    { ENF "deny cuMemAlloc error=4\ndeny cuMemAlloc_v2 error=3\n", "cuMemAlloc_v2", 1, 0, 0, 0, TD_ACT_DENY, 3, 1, 3, 0 },
    { ENF "deny cuMemAlloc_v2 error=3\ndeny cuMemAlloc error=4\n", "cuMemAlloc_v2", 1, 0, 0, 0, TD_ACT_DENY, 3, 1, 2, 0 },
    { ENF "deny cuMemAlloc_v2 error=3\ndeny cuMemAlloc error=4\n", "cuMemAlloc", 1, 0, 0, 0, TD_ACT_DENY, 4, 1, 3, 0 },
    { ENF "deny cuMemcpyPeer\ndeny cuMemcpyPeer_ptds error=5\n", "cuMemcpyPeer_ptds", 1, 0, 0, 0, TD_ACT_DENY, 5, 1, 3, 0 },
    /* deny wins over inject, inject over the limit, the limit over a delay */
    { ENF "inject cuMemAlloc_v2 error=2\ndeny cuMemAlloc_v2\n", "cuMemAlloc_v2", 1, 0, 0, 0, TD_ACT_DENY, NP, 1, 3, 0 },
    { ENF "deny %memory\ninject cuMemAlloc_v2 error=2\n", "cuMemAlloc_v2", 1, 0, 0, 0, TD_ACT_DENY, NP, 1, 2, 0 },
    { ENF "memory-limit 1K\ninject cuMemAlloc_v2 error=999\n", "cuMemAlloc_v2", 1, 0, 4096, 0, TD_ACT_INJECT, 999, 1, 3, 0 },
    { ENF "memory-limit 1K\ninject cuMemAlloc_v2 delay=1s\n", "cuMemAlloc_v2", 1, 0, 4096, 0, TD_ACT_LIMIT, OOM, 1, 2, 0 },
    { ENF "memory-limit 1M\ninject cuMemAlloc_v2 delay=1s\n", "cuMemAlloc_v2", 1, 0, 4096, 0, TD_ACT_DELAY, 0, 1, 3, 1000000000 },
    /* memory-limit arithmetic */
    { ENF "memory-limit 8G\n", "cuMemAlloc_v2", 1, 0, 8 * GiB, 0, TD_ACT_PASS, 0, 0, 0, 0 },
    { ENF "memory-limit 8G\n", "cuMemAlloc_v2", 1, 0, 8 * GiB + 1, 0, TD_ACT_LIMIT, OOM, 1, 2, 0 },
    { ENF "memory-limit 8G\n", "cuMemAlloc_v2", 1, 0, 1, 8 * GiB, TD_ACT_LIMIT, OOM, 1, 2, 0 },
    { ENF "memory-limit 8G\n", "cuMemAlloc_v2", 1, 0, 1, 8 * GiB - 1, TD_ACT_PASS, 0, 0, 0, 0 },
    { ENF "memory-limit 8G\n", "cuMemAlloc_v2", 1, 0, 1, ~0ULL, TD_ACT_LIMIT, OOM, 1, 2, 0 },
    { ENF "memory-limit 8G\n", "cuMemAlloc_v2", 1, 0, ~0ULL, 1, TD_ACT_LIMIT, OOM, 1, 2, 0 },
    { ENF "memory-limit 8G\n", "cuMemAlloc_v2", 1, 0, 0, 9 * GiB, TD_ACT_PASS, 0, 0, 0, 0 },   /* no bytes */
    { ENF "memory-limit 8G\n", "cuMemHostAlloc", 1, 0, 9 * GiB, 0, TD_ACT_PASS, 0, 0, 0, 0 },  /* host memory */
    { ENF "memory-limit 8G\n", "cuMemFree_v2", 1, 0, 9 * GiB, 0, TD_ACT_PASS, 0, 0, 0, 0 },
    { ENF "memory-limit 8G\n", "cuMemAllocPitch_v2", 1, 0, 9 * GiB, 0, TD_ACT_LIMIT, OOM, 1, 2, 0 },
    { ENF "memory-limit 8G\n", "cuMemAllocManaged", 1, 0, 9 * GiB, 0, TD_ACT_LIMIT, OOM, 1, 2, 0 },
    { ENF "memory-limit 8G\n", "cuMemAllocAsync_ptsz", 1, 0, 9 * GiB, 0, TD_ACT_LIMIT, OOM, 1, 2, 0 },
    { ENF "memory-limit 8G\n", "cuMemAllocFromPoolAsync", 1, 0, 9 * GiB, 0, TD_ACT_LIMIT, OOM, 1, 2, 0 },
    { ENF "memory-limit 8G\n", "cuMemCreate", 1, 0, 9 * GiB, 0, TD_ACT_LIMIT, OOM, 1, 2, 0 },
    { ENF "memory-limit 8G\n", "cuGraphAddMemAllocNode", 1, 0, 9 * GiB, 0, TD_ACT_LIMIT, OOM, 1, 2, 0 },
    { ENF "memory-limit 8G\n", "cuGraphInstantiateWithFlags", 1, 0, 9 * GiB, 0, TD_ACT_LIMIT, OOM, 1, 2, 0 },
    { ENF "memory-limit 8G\n", "cuArray3DCreate_v2", 1, 0, 9 * GiB, 0, TD_ACT_LIMIT, OOM, 1, 2, 0 },
    /* device= */
    { ENF "memory-limit 8G\nmemory-limit 1G device=1\n", "cuMemAlloc_v2", 1, 1, 2 * GiB, 0, TD_ACT_LIMIT, OOM, 1, 3, 0 },
    { ENF "memory-limit 8G\nmemory-limit 1G device=1\n", "cuMemAlloc_v2", 1, 0, 2 * GiB, 0, TD_ACT_PASS, 0, 0, 0, 0 },
    { ENF "memory-limit 8G\nmemory-limit 1G device=1\n", "cuMemAlloc_v2", 1, -1, 9 * GiB, 0, TD_ACT_LIMIT, OOM, 1, 2, 0 },
    { ENF "memory-limit 1G device=1\n", "cuMemAlloc_v2", 1, 0, 9 * GiB, 0, TD_ACT_PASS, 0, 0, 0, 0 },
    { ENF "memory-limit 1G device=1\n", "cuMemAlloc_v2", 1, -1, 9 * GiB, 0, TD_ACT_PASS, 0, 0, 0, 0 },
    { ENF "memory-limit 1G device=1\nmemory-limit 16G\n", "cuMemAlloc_v2", 1, 1, 1 * GiB + 1, 0, TD_ACT_LIMIT, OOM, 1, 2, 0 },
    { ENF "memory-limit 1.5G\n", "cuMemAlloc_v2", 1, 0, 512 * MiB, GiB, TD_ACT_PASS, 0, 0, 0, 0 },
    { ENF "memory-limit 1.5G\n", "cuMemAlloc_v2", 1, 0, 512 * MiB + 1, GiB, TD_ACT_LIMIT, OOM, 1, 2, 0 },
    /* require driver=: entry points newer than the release fail as a driver without them */
    { ENF "require driver=12.4\n", "cuCtxGetDevice_v2", 1, 0, 0, 0, TD_ACT_DENY, CUDA_ERROR_NOT_FOUND, 1, 2, 0 },
    { ENF "require driver=12.4\n", "cuCtxGetDevice", 1, 0, 0, 0, TD_ACT_PASS, 0, 0, 0, 0 },
    { ENF "require driver=12.4\n", "cuGreenCtxCreate", 1, 0, 0, 0, TD_ACT_PASS, 0, 0, 0, 0 },
    { ENF "require driver=12.3\n", "cuGreenCtxCreate", 1, 0, 0, 0, TD_ACT_DENY, CUDA_ERROR_NOT_FOUND, 1, 2, 0 },
    { ENF "require driver=11.8\n", "cuGetProcAddress_v2", 1, 0, 0, 0, TD_ACT_DENY, CUDA_ERROR_NOT_FOUND, 1, 2, 0 },
    { "require driver=12.4\n", "cuMemcpyBatchAsync", 1, 0, 0, 0, TD_ACT_DENY, CUDA_ERROR_NOT_FOUND, 0, 1, 0 },
    { ENF "deny cuCtxGetDevice_v2 error=3\nrequire driver=12.4\n", "cuCtxGetDevice_v2", 1, 0, 0, 0, TD_ACT_DENY, 3, 1, 2, 0 },
    { ENF "require driver=12.4\ninject cuMemcpyBatchAsync error=2\n", "cuMemcpyBatchAsync", 1, 0, 0, 0, TD_ACT_DENY,
      CUDA_ERROR_NOT_FOUND, 1, 2, 0 },
    /* the runtime's level (cudaError_t) and the libraries' (their status types) */
    { ENF "deny cudaMalloc\n", "cudaMalloc", 1, 0, 0, 0, TD_ACT_DENY, NP, 1, 2, 0 }, /* cudaErrorNotPermitted */
    { ENF "deny cudaMalloc\n", "cuMemAlloc_v2", 1, 0, 0, 0, TD_ACT_PASS, 0, 0, 0, 0 },
    { ENF "deny cudaMemcpy\n", "cudaMemcpy_ptds", 1, 0, 0, 0, TD_ACT_DENY, NP, 1, 2, 0 },
    { ENF "deny %memory\n", "cudaMalloc", 1, 0, 0, 0, TD_ACT_DENY, NP, 1, 2, 0 },
    { ENF "deny %memory error=CUDA_ERROR_OUT_OF_MEMORY\n", "cudaMalloc", 1, 0, 0, 0, TD_ACT_PASS, 0, 0, 0, 0 },
    { ENF "deny %memory error=CUDA_ERROR_OUT_OF_MEMORY\n", "cuMemAlloc_v2", 1, 0, 0, 0, TD_ACT_DENY, OOM, 1, 2, 0 },
    { ENF "deny %memory error=cudaErrorMemoryAllocation\n", "cudaMalloc", 1, 0, 0, 0, TD_ACT_DENY, 2, 1, 2, 0 },
    { ENF "deny %memory error=cudaErrorMemoryAllocation\n", "cuMemAlloc_v2", 1, 0, 0, 0, TD_ACT_PASS, 0, 0, 0, 0 },
    { ENF "deny %memory error=2\n", "cudaMalloc", 1, 0, 0, 0, TD_ACT_DENY, 2, 1, 2, 0 },
    { ENF "inject cudaMalloc error=cudaErrorMemoryAllocation when=2\n", "cudaMalloc", 1, 0, 0, 0, TD_ACT_PASS, 0, 0, 0,
      0 },
    { ENF "inject cudaMalloc error=cudaErrorMemoryAllocation when=2\n", "cudaMalloc", 2, 0, 0, 0, TD_ACT_INJECT, 2, 1, 2,
      0 },
    { ENF "inject cudaLaunchKernel delay=1ms\n", "cudaLaunchKernel", 1, 0, 0, 0, TD_ACT_DELAY, 0, 1, 2, 1000000 },
    { ENF "deny cublasSgemm_v2 error=CUBLAS_STATUS_NOT_SUPPORTED\n", "cublasSgemm_v2", 1, 0, 0, 0, TD_ACT_DENY, 15, 1, 2,
      0 },
    { ENF "deny cublasSgemm error=CUBLAS_STATUS_NOT_SUPPORTED\n", "cublasSgemm_v2", 1, 0, 0, 0, TD_ACT_DENY, 15, 1, 2,
      0 },
    { ENF "inject ncclAllReduce error=ncclSystemError when=2+\n", "ncclAllReduce", 3, 0, 0, 0, TD_ACT_INJECT, 2, 1, 2,
      0 },
    { ENF "deny %library error=7\n", "LIB.call", 1, 0, 0, 0, TD_ACT_DENY, 7, 1, 2, 0 },
    { ENF "deny %library error=7\n", "cublasSgemm_v2", 1, 0, 0, 0, TD_ACT_DENY, 7, 1, 2, 0 },
    { ENF "deny %library error=CUBLAS_STATUS_NOT_SUPPORTED\n", "cublasSgemm_v2", 1, 0, 0, 0, TD_ACT_DENY, 15, 1, 2, 0 },
    { ENF "deny %library error=CUBLAS_STATUS_NOT_SUPPORTED\n", "ncclAllReduce", 1, 0, 0, 0, TD_ACT_PASS, 0, 0, 0, 0 },
    { ENF "deny %library error=CUBLAS_STATUS_NOT_SUPPORTED\n", "LIB.call", 1, 0, 0, 0, TD_ACT_PASS, 0, 0, 0, 0 },
    /* out-of-range function ids pass */
    { ENF "deny %memory\n", NULL, 1, 0, 0, 0, TD_ACT_PASS, 0, 0, 0, 0 },
};

static void test_eval_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(eval_cases); i++) {
        const struct eval_case *c = &eval_cases[i];
        struct td_policy *p = parse_ok(c->policy);
        struct td_call_ctx ctx = { c->fn ? fn(c->fn) : TD_FN__COUNT, c->nth, c->device, c->alloc, c->in_use };
        struct td_verdict v;
        memset(&v, 0xa5, sizeof v);
        td_policy_eval(p, &ctx, &v);
        if (v.action != c->action || v.result != c->result || v.applied != c->applied ||
            v.line != c->line || v.delay_ns != c->delay_ns ||
            (c->line ? !v.file || strcmp(v.file, "t.policy") != 0 : v.file != NULL))
            fail_msg("case %zu (%s #%llu): got action %d result %d applied %d line %d delay %llu file %s\n"
                     "want action %d result %d applied %d line %d delay %llu\n--- policy:\n%s",
                     i, c->fn ? c->fn : "-", c->nth, v.action, v.result, v.applied, v.line, v.delay_ns,
                     v.file ? v.file : "(null)", c->action, c->result, c->applied, c->line, c->delay_ns,
                     c->policy);
        td_policy_free(p);
    }
}

static void test_eval_null(void **state)
{
    (void)state;
    struct td_verdict v;
    struct td_call_ctx ctx = { fn("cuInit"), 1, -1, 0, 0 };
    td_policy_eval(NULL, &ctx, &v);
    assert_int_equal(v.action, TD_ACT_PASS);
    struct td_policy *p = td_policy_defaults();
    ctx.fn = -1;
    td_policy_eval(p, &ctx, &v);
    assert_int_equal(v.action, TD_ACT_PASS);
    td_policy_eval(p, NULL, &v);
    assert_int_equal(v.action, TD_ACT_PASS);
    td_policy_free(p);
}

/* undescribed library functions by their own names (LIB.NAME) */
static void test_eval_lib(void **state)
{
    (void)state;
    static const struct {
        const char *policy, *name;
        unsigned long long nth, all;
        enum td_action action;
        int result, line;
    } cases[] = {
        { "", "lt_inner", 1, 1, TD_ACT_PASS, 0, 0 },
        { ENF "deny LIB.lt_inner error=3\n", "lt_inner", 1, 1, TD_ACT_DENY, 3, 2 },
        { ENF "deny LIB.lt_inner error=3\n", "lt_outer", 1, 1, TD_ACT_PASS, 0, 0 },
        { ENF "inject LIB.lt_inner error=9 when=2\n", "lt_inner", 1, 5, TD_ACT_PASS, 0, 0 },
        { ENF "inject LIB.lt_inner error=9 when=2\n", "lt_inner", 2, 1, TD_ACT_INJECT, 9, 2 },
        /* a class's deny first; then its own rule; else the class's inject */
        { ENF "deny %library error=4\ninject LIB.x error=9\n", "x", 1, 1, TD_ACT_DENY, 4, 2 },
        { ENF "inject %library error=4\ninject LIB.x error=9 when=2\n", "x", 1, 1, TD_ACT_PASS, 0, 0 },
        { ENF "inject %library error=4\ninject LIB.x error=9 when=2\n", "y", 1, 1, TD_ACT_INJECT, 4, 2 },
        { ENF "inject LIB.call error=5 when=3\n", "y", 1, 3, TD_ACT_INJECT, 5, 2 },
        { ENF "inject LIB.x delay=1ms\n", "x", 1, 1, TD_ACT_DELAY, 0, 2 },
        { "deny LIB.x error=3\n", "x", 1, 1, TD_ACT_DENY, 3, 1 }, /* audit: not applied */
    };
    for (size_t i = 0; i < N(cases); i++) {
        struct td_policy *p = parse_ok(cases[i].policy);
        struct td_verdict v;
        td_policy_eval_lib(p, cases[i].name, cases[i].nth, cases[i].all, &v);
        if (v.action != cases[i].action || v.result != cases[i].result || v.line != cases[i].line ||
            v.applied != (v.action != TD_ACT_PASS && strncmp(cases[i].policy, ENF, strlen(ENF)) == 0))
            fail_msg("case %zu: got action %d result %d line %d applied %d\n", i, v.action, v.result, v.line,
                     v.applied);
        td_policy_free(p);
    }
    struct td_verdict v;
    td_policy_eval_lib(NULL, "x", 1, 1, &v);
    assert_int_equal(v.action, TD_ACT_PASS);
}

/* ---- every error message ------------------------------------------------------ */

struct err_case { const char *text; const char *want; };

static const struct err_case err_cases[] = {
    /* lexical */
    { "mode \001\n", "t.policy:1:6: invalid character 0x01" },
    { "deny cuInit\x7f\n", "t.policy:1:12: invalid character 0x7f" },
    { "a b c d e f g h i j k l m n o p q r s t u v w x y z 1 2 3 4 5 6 7\n",
      "t.policy:1:65: too many words (at most 32)" },
    /* statements */
    { "mod enforce\n", "t.policy:1:1: unknown statement 'mod'; did you mean 'mode'?" },
    { "\n\n  memroy-limit 8G\n", "t.policy:3:3: unknown statement 'memroy-limit'; did you mean 'memory-limit'?" },
    { "frobnicate\n", "t.policy:1:1: unknown statement 'frobnicate'" },
    { "Deny cuInit\n", "t.policy:1:1: unknown statement 'Deny'; did you mean 'deny'?" },
    /* mode */
    { "mode\n", "t.policy:1:1: 'mode' expects audit or enforce" },
    { "mode audit extra\n", "t.policy:1:12: unexpected 'extra' after 'mode audit'" },
    { "mode enforc\n", "t.policy:1:6: unknown mode 'enforc' (audit or enforce); did you mean 'enforce'?" },
    { "mode strict\n", "t.policy:1:6: unknown mode 'strict' (audit or enforce)" },
    { "mode audit\n# x\nmode enforce\n", "t.policy:3:1: 'mode' conflicts with line 1" },
    /* backend */
    { "backend\n", "t.policy:1:1: 'backend' expects auto, driver or emulate" },
    { "backend drivr\n", "t.policy:1:9: unknown backend 'drivr' (auto, driver or emulate); did you mean 'driver'?" },
    { "backend gpu\n", "t.policy:1:9: unknown backend 'gpu' (auto, driver or emulate)" },
    { "backend auto\nbackend driver\n", "t.policy:2:1: 'backend' conflicts with line 1" },
    /* emulate */
    { "emulate devices\n", "t.policy:1:9: expected KEY=VALUE for emulate, got 'devices'" },
    { "emulate memroy=1G\n", "t.policy:1:9: unknown emulate option 'memroy'; did you mean 'memory'?" },
    { "emulate devices=\n", "t.policy:1:9: missing value after 'devices='" },
    { "emulate devices=2 devices=3\n", "t.policy:1:19: 'devices' given twice" },
    { "emulate devices=0\n", "t.policy:1:17: devices= must be 1-64" },
    { "emulate devices=65\n", "t.policy:1:17: device count '65' out of range (0-64)" },
    { "emulate devices=two\n", "t.policy:1:17: expected a device count, got 'two'" },
    { "emulate profile=h10\n", "t.policy:1:17: unknown profile 'h10' (h100, a100, t4, b200, rtx5090, v100, a10, l4, l40s or rtx4090); did you mean 'h100'?" },
    { "emulate profile=gtx480\n", "t.policy:1:17: unknown profile 'gtx480' (h100, a100, t4, b200, rtx5090, v100, a10, l4, l40s or rtx4090)" },
    { "emulate memory=0\n", "t.policy:1:16: memory= must be more than 0" },
    { "emulate memory=lots\n", "t.policy:1:16: invalid size 'lots' (bytes, or a number with K, M, G or T)" },
    { "emulate timeout=30\n", "t.policy:1:17: timeout= needs a unit (30s, 500ms)" },
    { "emulate timeout=3x\n", "t.policy:1:17: timeout=3x: invalid duration" },
    { "emulate max-instructions=many\n", "t.policy:1:26: expected an instruction count, got 'many'" },
    { "emulate driver=abc\n", "t.policy:1:16: 'abc' is not a driver version (MAJOR.MINOR: 12.4)" },
    { "emulate driver=99.9\n", "t.policy:1:16: '99.9': newer than the newest driver the API table describes (13.0)" },
    { "emulate driver=10.2\n", "t.policy:1:16: '10.2': drivers before 11.0 are not emulated (11.0 to 13.0)" },
    { "emulate driver=12.4.1\n", "t.policy:1:16: '12.4.1' is not a driver version (MAJOR.MINOR: 12.4)" },
    { "emulate driver=12.\n", "t.policy:1:16: '12.' is not a driver version (MAJOR.MINOR: 12.4)" },
    { "emulate driver=-12.4\n", "t.policy:1:16: '-12.4' is not a driver version (MAJOR.MINOR: 12.4)" },
    { "emulate driver=\n", "t.policy:1:9: missing value after 'driver='" },
    { "require\n", "t.policy:1:1: 'require' expects driver=VERSION" },
    { "require driver=abc\n", "t.policy:1:16: 'abc' is not a driver version (MAJOR.MINOR: 12.4)" },
    { "require driver=99.9\n", "t.policy:1:16: '99.9': newer than the newest driver the API table describes (13.0)" },
    { "require driver=12.4 driver=12.8\n", "t.policy:1:21: 'driver' given twice" },
    { "require cuda=12.4\n", "t.policy:1:9: unknown require option 'cuda'" },
    { "require driver=12.4\nrequire driver=12.8\n", "t.policy:2:1: 'require' conflicts with line 1" },
    { "emulate\nemulate devices=2\n", "t.policy:2:1: 'emulate' conflicts with line 1" },
    { "backend driver\nemulate devices=2\n", "t.policy:2:1: 'emulate' conflicts with 'backend driver' on line 1" },
    /* device */
    { "device\n", "t.policy:1:1: 'device' expects N hide or N -> M" },
    { "device x hide\n", "t.policy:1:8: expected a device ordinal, got 'x'" },
    { "device 64 hide\n", "t.policy:1:8: device ordinal '64' out of range (0-63)" },
    { "device 1\n", "t.policy:1:8: expected 'hide' or '-> M' after 'device 1'" },
    { "device 1 hid\n", "t.policy:1:10: expected 'hide' or '-> M' after 'device 1', got 'hid'; did you mean 'hide'?" },
    { "device 1 hide now\n", "t.policy:1:15: unexpected 'now' after 'device 1 hide'" },
    { "device 1 ->\n", "t.policy:1:10: expected a device ordinal after '->'" },
    { "device 1 -> x\n", "t.policy:1:13: expected a device ordinal, got 'x'" },
    { "device 1 -> 0 1\n", "t.policy:1:15: unexpected '1' after 'device 1 -> 0'" },
    { "device 1->0->2\n", "t.policy:1:12: unexpected '->' after 'device 1 -> 0'" },
    { "device 1 -> -> -> -> ->\n", "t.policy:1:22: unexpected '->'" },
    { "device 1->->->->->\n", "t.policy:1:17: unexpected '->'" },
    { "device 1 a b c d e\n", "t.policy:1:18: unexpected 'e'" },
    { "device 1 hide\ndevice 1 hide\n", "t.policy:2:1: 'device 1 hide' conflicts with line 1" },
    { "device 1 hide\ndevice 1 -> 0\n", "t.policy:2:1: 'device 1 -> 0' conflicts with line 1" },
    { "device 1 -> 0\ndevice 1 hide\n", "t.policy:2:1: 'device 1 hide' conflicts with line 1" },
    { "device 1 -> 0\ndevice 0 hide\n", "t.policy:2:1: 'device 0 hide' conflicts with line 1" },
    { "device 0 hide\ndevice 1 -> 0\n", "t.policy:2:1: 'device 1 -> 0' conflicts with line 1" },
    { "device 1 -> 0\ndevice 1 -> 2\n", "t.policy:2:1: 'device 1 -> 2' conflicts with line 1" },
    /* devices */
    { "devices\n", "t.policy:1:1: 'devices' expects a device count" },
    { "devices 65\n", "t.policy:1:9: device count '65' out of range (0-64)" },
    { "devices 2\ndevices 3\n", "t.policy:2:1: 'devices' conflicts with line 1" },
    /* memory-limit and sizes */
    { "memory-limit\n", "t.policy:1:1: 'memory-limit' expects a size" },
    { "memory-limit 0\n", "t.policy:1:14: memory limit must be more than 0" },
    { "memory-limit 0G\n", "t.policy:1:14: memory limit must be more than 0" },
    { "memory-limit 8X\n", "t.policy:1:14: invalid size '8X' (bytes, or a number with K, M, G or T)" },
    { "memory-limit 1.1\n", "t.policy:1:14: size is not a whole number of bytes: '1.1'" },
    { "memory-limit 16777216T\n", "t.policy:1:14: size out of range: '16777216T'" },
    { "memory-limit 8G devce=1\n", "t.policy:1:17: unknown memory-limit option 'devce'; did you mean 'device'?" },
    { "memory-limit 8G device=x\n", "t.policy:1:24: expected a device ordinal, got 'x'" },
    { "memory-limit 8G device=1 device=2\n", "t.policy:1:26: 'device' given twice" },
    { "memory-limit 8G\nmemory-limit 4G\n", "t.policy:2:1: 'memory-limit' conflicts with line 1" },
    { "memory-limit 1G device=1\nmemory-limit 2G device=1\n",
      "t.policy:2:1: 'memory-limit' for device 1 conflicts with line 1" },
    /* deny */
    { "deny\n", "t.policy:1:1: 'deny' expects a function name or %class" },
    { "deny cuMemAloc_v2\n", "t.policy:1:6: unknown function 'cuMemAloc_v2'; did you mean 'cuMemAlloc_v2'?" },
    { "deny cumemalloc_v2\n", "t.policy:1:6: unknown function 'cumemalloc_v2'; did you mean 'cuMemAlloc_v2'?" },
    { "deny cuInit,cuCtxEnablePeerAcess\n",
      "t.policy:1:13: unknown function 'cuCtxEnablePeerAcess'; did you mean 'cuCtxEnablePeerAccess'?" },
    { "deny open\n", "t.policy:1:6: unknown function 'open'" },
    { "deny %memroy\n", "t.policy:1:6: unknown class '%memroy'; did you mean '%memory'?" },
    { "deny %file\n", "t.policy:1:6: unknown class '%file'" },
    { "deny cuMemAlloc,,cuMemFree\n", "t.policy:1:17: empty name in 'cuMemAlloc,,cuMemFree'" },
    { "deny cuMemAlloc,\n", "t.policy:1:17: empty name in 'cuMemAlloc,'" },
    { "deny cuMemAlloc,cuMemAlloc\n", "t.policy:1:17: 'cuMemAlloc' listed twice" },
    { "deny cuMemAlloc error=CUDA_ERROR_OUT_OF_MEMROY\n",
      "t.policy:1:23: unknown CUresult 'CUDA_ERROR_OUT_OF_MEMROY'; did you mean 'CUDA_ERROR_OUT_OF_MEMORY'?" },
    { "deny cuMemAlloc error=OUT_OF_MEMORY\n",
      "t.policy:1:23: unknown CUresult 'OUT_OF_MEMORY'; did you mean 'CUDA_ERROR_OUT_OF_MEMORY'?" },
    { "deny cuMemAlloc error=ERROR_NOT_PERMITTED\n",
      "t.policy:1:23: unknown CUresult 'ERROR_NOT_PERMITTED'; did you mean 'CUDA_ERROR_NOT_PERMITTED'?" },
    { "deny cuMemAlloc error=BAD\n", "t.policy:1:23: unknown CUresult 'BAD'" },
    { "deny cuMemAlloc error=CUDA_SUCCESS\n", "t.policy:1:23: CUDA_SUCCESS is not an error" },
    { "deny cuMemAlloc error=0\n", "t.policy:1:23: CUDA_SUCCESS is not an error" },
    { "deny cuMemAlloc error=2x\n", "t.policy:1:23: expected a CUresult number, got '2x'" },
    { "deny cuMemAlloc error=99999999999\n", "t.policy:1:23: CUresult number '99999999999' out of range (0-2147483647)" },
    { "deny cuMemAlloc eror=2\n", "t.policy:1:17: unknown deny option 'eror'; did you mean 'error'?" },
    { "deny cuMemAlloc error=2 error=3\n", "t.policy:1:25: 'error' given twice" },
    { "deny cuInit\ndeny cuInit\n", "t.policy:2:6: 'deny cuInit' conflicts with line 1" },
    /* runtime and library functions: error= of their own status type */
    { "deny cudaMalloc error=CUDA_ERROR_OUT_OF_MEMORY\n",
      "t.policy:1:23: CUDA_ERROR_OUT_OF_MEMORY is not a cudaError_t (what cudaMalloc returns)" },
    { "deny cudaMalloc,cuMemAlloc error=cudaErrorMemoryAllocation\n",
      "t.policy:1:34: cudaErrorMemoryAllocation is not a CUresult (what cuMemAlloc returns)" },
    { "inject cudaMalloc error=cudaErrorMemoryAlocation\n",
      "t.policy:1:25: unknown cudaError_t 'cudaErrorMemoryAlocation'; did you mean 'cudaErrorMemoryAllocation'?" },
    { "deny cudaMalloc error=cudaSuccess\n", "t.policy:1:23: cudaSuccess is not an error" },
    { "deny cudaMalloc error=0\n", "t.policy:1:23: cudaSuccess is not an error" },
    { "deny cudaMaloc\n", "t.policy:1:6: unknown function 'cudaMaloc'; did you mean 'cudaMalloc'?" },
    { "deny cublasSgemm_v2\n",
      "t.policy:1:6: 'deny cublasSgemm_v2' needs error= (a cublasStatus_t, what cublasSgemm_v2 returns)" },
    { "deny cublasSgemm_v2 error=cudaErrorInvalidValue\n",
      "t.policy:1:27: cudaErrorInvalidValue is not a cublasStatus_t (what cublasSgemm_v2 returns)" },
    { "inject cublasSgemm_v2 error=CUBLAS_STATUS_NOT_SUPORTED\n",
      "t.policy:1:29: unknown cublasStatus_t 'CUBLAS_STATUS_NOT_SUPORTED'; did you mean 'CUBLAS_STATUS_NOT_SUPPORTED'?" },
    { "deny cublasSgemm_v2 error=CUBLAS_STATUS_SUCCESS\n", "t.policy:1:27: CUBLAS_STATUS_SUCCESS is not an error" },
    { "deny cublasGetVersion_v2 error=1\n", "t.policy:1:6: unknown function 'cublasGetVersion_v2'" },
    { "deny %library\n",
      "t.policy:1:6: 'deny %library' needs error= (its functions return their libraries' status types)" },
    { "deny LIB.lt_inner\n", "t.policy:1:6: 'deny LIB.lt_inner' needs error= (a number: its result is a raw value)" },
    { "deny LIB.lt_inner error=CUBLAS_STATUS_NOT_SUPPORTED\n",
      "t.policy:1:25: CUBLAS_STATUS_NOT_SUPPORTED is not a value of LIB.lt_inner's result (a raw value: give a number)" },
    { "deny LIB.cublasSgemm_v2 error=1\n",
      "t.policy:1:6: 'LIB.cublasSgemm_v2' is a function of tdtrace's tables: name it as 'cublasSgemm_v2'" },
    { "deny LIB. error=1\n", "t.policy:1:6: 'LIB.': LIB. needs a library function's name (1 to 255 characters)" },
    { "deny LIB.a-b error=1\n", "t.policy:1:11: 'LIB.a-b': invalid character in a function name" },
    { "deny LIB.x error=1\ndeny LIB.x error=2\n", "t.policy:2:6: 'deny LIB.x' conflicts with line 1" },
    { "deny %memory error=CUBLAS_STATUS_NOT_SUPPORTED\n", "t.policy:1:20: no function of %memory returns a cublasStatus_t" },
    { "deny %memory\ndeny cuMemAlloc,%memory\n", "t.policy:2:17: 'deny %memory' conflicts with line 1" },
    /* inject and when= and durations */
    { "inject\n", "t.policy:1:1: 'inject' expects a function name or %class" },
    { "inject cuMemAlloc\n", "t.policy:1:1: 'inject' needs error= or delay=" },
    { "inject cuMemAlloc whn=3\n", "t.policy:1:19: unknown inject option 'whn'; did you mean 'when'?" },
    { "inject cuMemAlloc retval=0\n", "t.policy:1:19: unknown inject option 'retval'" },
    { "inject cuMemAlloc error=2 when=0\n", "t.policy:1:32: when=: calls are counted from 1, got '0'" },
    { "inject cuMemAlloc error=2 when=5..3\n", "t.policy:1:32: when=: last call 3 is before first call 5" },
    { "inject cuMemAlloc error=2 when=3+0\n", "t.policy:1:32: when=: step must be at least 1" },
    { "inject cuMemAlloc error=2 when=3x\n", "t.policy:1:32: invalid when= '3x' (first[..last][+step])" },
    { "inject cuMemAlloc error=2 when=..3\n", "t.policy:1:32: invalid when= '..3' (first[..last][+step])" },
    { "inject cuMemAlloc error=2 when=3..\n", "t.policy:1:32: invalid when= '3..' (first[..last][+step])" },
    { "inject cuMemAlloc error=2 when=3+2+\n", "t.policy:1:32: invalid when= '3+2+' (first[..last][+step])" },
    { "inject cuMemAlloc error=2 when=99999999999999999999\n",
      "t.policy:1:32: when=: number out of range in '99999999999999999999'" },
    { "inject cuMemAlloc delay=5m\n", "t.policy:1:25: invalid duration '5m' (a number with ns, us, ms or s)" },
    { "inject cuMemAlloc delay=1.5ns\n", "t.policy:1:25: duration is not a whole number of nanoseconds: '1.5ns'" },
    { "inject cuMemAlloc delay=99999999999s\n", "t.policy:1:25: duration out of range: '99999999999s'" },
    { "inject cuMemAlloc error=2\ninject cuMemAlloc delay=1s\n",
      "t.policy:2:8: 'inject cuMemAlloc' conflicts with line 1" },
    /* trace */
    { "trace\n", "t.policy:1:1: 'trace' expects a set of functions (strace -e trace= syntax)" },
    { "trace cuMemAloc\n", "t.policy:1:7: unknown function 'cuMemAloc'; did you mean 'cuMemAlloc'?" },
    { "trace !%memory,%memroy\n", "t.policy:1:16: unknown class '%memroy'; did you mean '%memory'?" },
    { "trace /a(\n", "t.policy:1:7: invalid regular expression 'a(': Unmatched ( or \\(" },
    { "trace /((((((((((((((((((((((((((((((((((a))))))))))))))))))))))))))))))))))\n",
      "t.policy:1:7: regular expression nests deeper than 32 groups" },
    { "trace /(a{255}){255}\n",
      "t.policy:1:7: regular expression too large once its repetitions are expanded (more than 20000 states)" },
    { "trace cuMemAlloc,,x\n", "t.policy:1:18: empty item in trace set" },
    { "trace !\n", "t.policy:1:8: empty item in trace set" },
    { "trace all\ntrace none\n", "t.policy:2:1: 'trace' conflicts with line 1" },
    /* gpu-dev */
    { "gpu-dev\n", "t.policy:1:1: 'gpu-dev' expects a device node glob such as /dev/nvidia*" },
    { "gpu-dev dev/nvidia*\n", "t.policy:1:9: 'gpu-dev' expects an absolute path or glob, got 'dev/nvidia*'" },
    { "gpu-dev /dev/a\ngpu-dev /dev/a\n", "t.policy:2:1: 'gpu-dev /dev/a' conflicts with line 1" },
    /* ioctl */
    { "ioctl\n", "t.policy:1:1: 'ioctl' expects deny NAME|NUMBER" },
    { "ioctl dny X\n", "t.policy:1:7: unknown ioctl action 'dny' (deny); did you mean 'deny'?" },
    { "ioctl deny\n", "t.policy:1:7: 'ioctl deny' expects an ioctl name or number" },
    { "ioctl deny nv_esc\n", "t.policy:1:12: invalid ioctl 'nv_esc' (a name like NV_ESC_RM_CONTROL, or a number)" },
    { "ioctl deny NV-ESC\n", "t.policy:1:12: invalid ioctl 'NV-ESC' (a name like NV_ESC_RM_CONTROL, or a number)" },
    { "ioctl deny 0x100000000\n", "t.policy:1:12: ioctl number '0x100000000' out of range (at most 0xffffffff)" },
    { "ioctl deny 0xZZ\n", "t.policy:1:12: invalid ioctl number '0xZZ'" },
    { "ioctl deny 0x\n", "t.policy:1:12: invalid ioctl number '0x'" },
    { "ioctl deny X errno=EPREM\n", "t.policy:1:20: unknown errno 'EPREM'; did you mean 'EPERM'?" },
    { "ioctl deny X errno=EFOO\n", "t.policy:1:20: unknown errno 'EFOO'" },
    { "ioctl deny X errno=0\n", "t.policy:1:20: errno must be 1-4095" },
    { "ioctl deny X errno=4096\n", "t.policy:1:20: errno '4096' out of range (0-4095)" },
    { "ioctl deny X dev=nvidia\n", "t.policy:1:18: dev= expects an absolute path or glob, got 'nvidia'" },
    { "ioctl deny X erno=1\n", "t.policy:1:14: unknown ioctl deny option 'erno'; did you mean 'errno'?" },
    { "ioctl deny X\nioctl deny X errno=EIO\n", "t.policy:2:1: 'ioctl deny X' conflicts with line 1" },
    { "ioctl deny 0x2a dev=/dev/a\nioctl deny 42 dev=/dev/a\n", "t.policy:2:1: 'ioctl deny 42' conflicts with line 1" },
    /* library */
    { "library\n", "t.policy:1:1: 'library' needs NAME=auto|host|nvidia (NAME: cublas, cublaslt, cufft, curand, cudnn, nvml, cusolver, nvrtc, nvjitlink or all)" },
    { "library cublas\n", "t.policy:1:9: 'cublas' is not NAME=auto|host|nvidia" },
    { "library cublaz=host\n", "t.policy:1:9: unknown library 'cublaz' (cublas, cublaslt, cufft, curand, cudnn, nvml, cusolver, nvrtc, nvjitlink or all); did you mean 'cublas'?" },
    { "library =host\n", "t.policy:1:9: unknown library '' (cublas, cublaslt, cufft, curand, cudnn, nvml, cusolver, nvrtc, nvjitlink or all)" },
    { "library cufft=hots\n", "t.policy:1:15: unknown choice 'hots' (auto, host or nvidia); did you mean 'host'?" },
    { "library cufft=\n", "t.policy:1:15: unknown choice '' (auto, host or nvidia)" },
    { "library all=host cudnn=nvidia\n", "t.policy:1:18: library cudnn is named twice" },
    { "library curand=host\nlibrary all=nvidia\n", "t.policy:2:9: this choice of library conflicts with line 1" },
    /* origins: a conflict names the other rule's file */
    { "#@ my.policy:7\ndeny cuInit\ndeny cuInit\n", "t.policy:3:6: 'deny cuInit' conflicts with my.policy:7" },
};

static void test_errors(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(err_cases); i++) {
        struct td_policy *p = (struct td_policy *)1;
        struct td_policy_error e;
        char got[1024];
        int rc = td_policy_parse(err_cases[i].text, strlen(err_cases[i].text), "t.policy", &p, &e);
        if (rc == 0)
            fail_msg("case %zu parsed, want error %s", i, err_cases[i].want);
        assert_null(p);
        td_policy_format_error(&e, got, sizeof got);
        if (strcmp(got, err_cases[i].want) != 0)
            fail_msg("case %zu:\n got: %s\nwant: %s", i, got, err_cases[i].want);
    }
}

/* command-line options: errors name the option */
struct opt_case { const char *opt, *value, *want; };

static const struct opt_case opt_err_cases[] = {
    { "injct", "x", "--injct: unknown policy option; did you mean '--inject'?" },
    { "frob", "x", "--frob: unknown policy option" },
    { "inject", NULL, "--inject: needs a value (--inject=...)" },
    { "deny", "", "--deny: needs a value (--deny=...)" },
    { "inject", "cuMemAlloc_v2:error=CUDA_ERROR_OUT_OF_MEMROY",
      "--inject: unknown CUresult 'CUDA_ERROR_OUT_OF_MEMROY'; did you mean 'CUDA_ERROR_OUT_OF_MEMORY'?" },
    { "inject", "cuMemAlloc_v2::error=2", "--inject: empty field in 'cuMemAlloc_v2::error=2'" },
    { "inject", "cuMemAloc_v2:error=2", "--inject: unknown function 'cuMemAloc_v2'; did you mean 'cuMemAlloc_v2'?" },
    { "inject", "cuMemAlloc_v2:when=3", "--inject: 'inject' needs error= or delay=" },
    { "inject", "a:b:c:d:e:f:g:h:i:j:k:l:m:n:o:p:q:r:s:t:u:v:w:x:y:z:1:2:3:4:5:6", "--inject: too many fields" },
    { "deny", "%grph", "--deny: unknown class '%grph'; did you mean '%graph'?" },
    { "memory-limit", "8Q", "--memory-limit: invalid size '8Q' (bytes, or a number with K, M, G or T)" },
    { "memory-limit", "0", "--memory-limit: memory limit must be more than 0" },
    { "backend", "emu", "--backend: unknown backend 'emu' (auto, driver or emulate)" },
    { "emulate", "profile=x100", "--emulate: unknown profile 'x100' (h100, a100, t4, b200, rtx5090, v100, a10, l4, l40s or rtx4090); did you mean 'h100'?" },
    { "policy-mode", "enforec", "--policy-mode: unknown mode 'enforec' (audit or enforce); did you mean 'enforce'?" },
    { "policy-mode", "enforcing", "--policy-mode: unknown mode 'enforcing' (audit or enforce)" },
    { "gpu-dev", "nvidia", "--gpu-dev: 'gpu-dev' expects an absolute path or glob, got 'nvidia'" },
    { "gpu-dev", "/dev/a b", "--gpu-dev: blanks and control characters are not allowed in '/dev/a b'" },
    { "deny", "cuInit:error=2\n", "--deny: blanks and control characters are not allowed in 'cuInit:error=2\n'" },
    { "ioctl-deny", "lower", "--ioctl-deny: invalid ioctl 'lower' (a name like NV_ESC_RM_CONTROL, or a number)" },
    { "library", "cublas=host,cufft=bad", "--library: unknown choice 'bad' (auto, host or nvidia)" },
    { "library", "cublas=host,cublas=nvidia", "--library: library cublas is named twice" },
};

static void test_option_errors(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(opt_err_cases); i++) {
        struct td_policy *p = parse_ok("deny cuInit\n");
        char *before = written(p, TD_POLICY_WRITE_ORIGINS);
        struct td_policy_error e;
        char got[1024];
        assert_int_equal(td_policy_apply_option(p, opt_err_cases[i].opt, opt_err_cases[i].value, &e), -1);
        td_policy_format_error(&e, got, sizeof got);
        if (strcmp(got, opt_err_cases[i].want) != 0)
            fail_msg("case %zu:\n got: %s\nwant: %s", i, got, opt_err_cases[i].want);
        char *after = written(p, TD_POLICY_WRITE_ORIGINS); /* a failed option changes nothing */
        assert_string_equal(before, after);
        free(before);
        free(after);
        td_policy_free(p);
    }
    struct td_policy_error e;
    assert_int_equal(td_policy_apply_option(NULL, "inject", "x", &e), -1);
}

/* ---- sizes and durations ---------------------------------------------------------- */

static void test_sizes(void **state)
{
    (void)state;
    static const struct { const char *s; int ok; unsigned long long v; } cases[] = {
        { "0", 1, 0 }, { "1", 1, 1 }, { "4096", 1, 4096 }, { "100B", 1, 100 },
        { "8G", 1, 8 * GiB }, { "8g", 1, 8 * GiB }, { "8GB", 1, 8 * GiB }, { "8GiB", 1, 8 * GiB },
        { "64MiB", 1, 64 * MiB }, { "64M", 1, 64 * MiB }, { "1K", 1, 1024 }, { "1KiB", 1, 1024 },
        { "2T", 1, 2ULL << 40 }, { "1.5G", 1, 3 * GiB / 2 }, { "0.5K", 1, 512 }, { "1.0", 1, 1 },
        { "0.25MiB", 1, 256 * 1024 }, { "16777215T", 1, 16777215ULL << 40 },
        { "18446744073709551615", 1, ~0ULL },
        { "18446744073709551616", 0, 0 }, { "16777216T", 0, 0 }, { "99999999999999999999999", 0, 0 },
        { "", 0, 0 }, { "G", 0, 0 }, { "-1", 0, 0 }, { "+1", 0, 0 }, { " 1", 0, 0 }, { "1 ", 0, 0 },
        { "1.", 0, 0 }, { ".5G", 0, 0 }, { "1.1", 0, 0 }, { "0.1K", 0, 0 }, { "8Gi", 0, 0 },
        { "8GiBs", 0, 0 }, { "8iB", 0, 0 }, { "8P", 0, 0 }, { "8kb", 0, 0 }, { "1e9", 0, 0 },
        { "0x10", 0, 0 }, { "1.0000000000000000000001G", 0, 0 },
    };
    for (size_t i = 0; i < N(cases); i++) {
        unsigned long long v = 12345;
        const char *why = NULL;
        int rc = td_policy_parse_size(cases[i].s, &v, &why);
        if ((rc == 0) != cases[i].ok || (rc == 0 && v != cases[i].v))
            fail_msg("size '%s': rc %d v %llu (%s)", cases[i].s, rc, v, why ? why : "");
        if (rc < 0)
            assert_non_null(why);
    }
}

static void test_durations(void **state)
{
    (void)state;
    static const struct { const char *s; int ok; unsigned long long ns; } cases[] = {
        { "10ms", 1, 10000000 }, { "1s", 1, 1000000000 }, { "500us", 1, 500000 }, { "20ns", 1, 20 },
        { "250", 1, 250000 }, { "0", 1, 0 }, { "0s", 1, 0 }, { "1.5s", 1, 1500000000 },
        { "0.001ms", 1, 1000 }, { "18446744073s", 1, 18446744073000000000ULL },
        { "18446744074s", 0, 0 }, { "1.5ns", 0, 0 }, { "5m", 0, 0 }, { "5 ms", 0, 0 }, { "ms", 0, 0 },
        { "", 0, 0 }, { "-1s", 0, 0 }, { "1S", 0, 0 }, { "1sec", 0, 0 }, { "1h", 0, 0 },
    };
    for (size_t i = 0; i < N(cases); i++) {
        unsigned long long v = 12345;
        const char *why = NULL;
        int rc = td_policy_parse_duration(cases[i].s, &v, &why);
        if ((rc == 0) != cases[i].ok || (rc == 0 && v != cases[i].ns))
            fail_msg("duration '%s': rc %d v %llu (%s)", cases[i].s, rc, v, why ? why : "");
    }
}

/* ---- normalisation ------------------------------------------------------------------- */

static const char *const roundtrip_cases[] = {
    "",
    "mode enforce\n",
    "  # only a comment\n\n\t\n",
    "emulate\n",
    "emulate devices=4 profile=t4 memory=16G\nmode enforce\n",
    "backend auto\nemulate profile=a100\n",
    "emulate profile=rtx5090 timeout=2500ms max-instructions=1000000000\n",
    "emulate profile=l4 driver=12.4\n",
    "emulate driver=11.8\n",
    "backend driver\n",
    "library cublas=host cufft=nvidia\nlibrary nvrtc=auto\n",
    "library all=nvidia\n",
    "devices 0\n",
    "device 1->0\ndevice 2 hide\ndevices 3\ndevice 5 ->6\ndevice 7-> 8\n",
    "memory-limit 1536M device=3\nmemory-limit 1000\nmemory-limit 1.5T device=0\n",
    "memory-limit 18446744073709551615\n",
    "trace !%memory,cuLaunchKernel,/^cuGraph,?cuFoo,all,none\n",
    "gpu-dev /dev/dri/renderD*\ngpu-dev /dev/accel/accel[0-9]\n",
    "deny cuInit,%graph error=CUDA_ERROR_NOT_SUPPORTED\ndeny cuMemAlloc error=9999\n",
    "inject cuMemAlloc_v2 error=CUDA_ERROR_OUT_OF_MEMORY when=3+ # oom\n"
    "inject cuLaunchKernel delay=1500us when=2..10+3\n"
    "inject cuInit error=3 when=5\ninject cuCtxCreate error=3 when=5..5+7\n"
    "inject cuStreamCreate error=3 when=1+\ninject cuEventCreate error=3 when=2..9\n"
    "inject cuModuleLoad error=3 when=4+1 delay=0\ninject cuModuleUnload delay=1.5s\n"
    "inject cuMemFree delay=7ns when=1..1\n",
    "ioctl deny NV_ESC_RM_CONTROL errno=EACCES dev=/dev/nvidiactl\nioctl deny 0x2a\n"
    "ioctl deny 42 errno=5 dev=/dev/x\nioctl deny _X errno=EWOULDBLOCK\nioctl deny 0 errno=4095\n",
    "#@ other.policy:42\ndeny cuInit\n",
    "deny cudaMalloc\ndeny cudaMemcpy error=cudaErrorInvalidValue\ninject cudaLaunchKernel error=3 when=2+ delay=1ms\n",
    "deny cublasSgemm_v2 error=CUBLAS_STATUS_NOT_SUPPORTED\ninject ncclAllReduce error=ncclSystemError when=1+\n",
    "deny %library error=7\ndeny %memory\ninject %runtime error=cudaErrorInvalidValue when=3\n",
    "deny LIB.lt_inner error=3\ninject LIB._ZN3foo3barEv,LIB.x error=9 when=2+ delay=1ms\n",
    /* the examples of man/tdtrace.policy.5 */
    "mode audit\nmemory-limit 16GiB\ndeny %graph\n",
    "mode enforce\ninject cudaMalloc error=cudaErrorMemoryAllocation when=3\n"
    "deny cublasGemmEx error=CUBLAS_STATUS_NOT_SUPPORTED\n",
    "backend emulate\nemulate devices=2 profile=h100\n",
    "mode enforce\ninject cuMemAlloc,cuMemAllocAsync error=CUDA_ERROR_OUT_OF_MEMORY when=3+\n"
    "inject cuLaunchKernel delay=1500us when=2..10+3\n",
    "mode enforce\ndevice 1 hide\nmemory-limit 8G device=0\n"
    "ioctl deny UVM_INITIALIZE errno=EACCES dev=/dev/nvidia-uvm\n",
    "mode audit\nrequire driver=12.4\n",
    "mode enforce\ndeny cuCtxEnablePeerAccess error=CUDA_ERROR_PEER_ACCESS_UNSUPPORTED\n"
    "deny cuMemcpyPeer,cuMemcpyPeerAsync,cuMemcpy3DPeer,cuMemcpy3DPeerAsync\n",
};

static void check_roundtrip(const char *text)
{
    struct td_policy *p = parse_ok(text);
    char *w1 = written(p, 0);
    struct td_policy *q = parse_ok(w1);
    char *w2 = written(q, 0);
    if (strcmp(w1, w2) != 0)
        fail_msg("not stable:\n%s\n---\n%s", w1, w2);
    /* with origins, a reparse keeps every rule's file:line */
    char *o1 = written(p, TD_POLICY_WRITE_ORIGINS);
    struct td_policy *r = parse_ok(o1);
    char *o2 = written(r, TD_POLICY_WRITE_ORIGINS);
    if (strcmp(o1, o2) != 0)
        fail_msg("origins not kept:\n%s\n---\n%s", o1, o2);
    free(w1);
    free(w2);
    free(o1);
    free(o2);
    td_policy_free(p);
    td_policy_free(q);
    td_policy_free(r);
}

static void test_roundtrip(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(roundtrip_cases); i++)
        check_roundtrip(roundtrip_cases[i]);
}

static void test_normal_form(void **state)
{
    (void)state;
    struct td_policy *p = parse_ok("inject cuInit error=2 when=3..3\r\n"
                                   "memory-limit 8192M device=1\n"
                                   "emulate devices=2\n"
                                   "deny cuMemcpyPeer   # comment\n"
                                   "device 1->0\n"
                                   "devices 2\n"
                                   "ioctl deny 42 errno=1\n");
    char *w = written(p, 0);
    assert_string_equal(w, "mode audit\n"
                           "backend emulate\n"
                           "emulate devices=2 profile=h100\n"
                           "devices 2\n"
                           "device 1 -> 0\n"
                           "memory-limit 8GiB device=1\n"
                           "deny cuMemcpyPeer error=CUDA_ERROR_NOT_PERMITTED\n"
                           "inject cuInit error=CUDA_ERROR_OUT_OF_MEMORY when=3\n"
                           "ioctl deny 0x2a errno=EPERM\n");
    free(w);
    td_policy_free(p);
}

/* ---- the shipped policies ------------------------------------------------------------ */

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t cap = 0;
    ssize_t n = getdelim(&buf, &cap, '\0', f);
    fclose(f);
    if (n < 0) {
        free(buf);
        return strdup("");
    }
    return buf;
}

static void test_shipped(void **state)
{
    (void)state;
    glob_t g;
    assert_int_equal(glob("policies/*.policy", 0, NULL, &g), 0);
    assert_true(g.gl_pathc >= 7);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        const char *path = g.gl_pathv[i];
        struct td_policy *p;
        struct td_policy_error e;
        if (td_policy_load(path, &p, &e) < 0)
            fail_msg("%s:%d:%d: %s", e.file, e.line, e.col, e.msg);
        char *text = slurp(path);
        assert_non_null(text);
        assert_non_null(strstr(text, "\n# ")); /* commented */
        assert_true(text[0] == '#');
        check_roundtrip(text);
        /* the normalised form is recorded in tests/policies/NAME.out */
        const char *base = strrchr(path, '/') + 1;
        char want_path[PATH_MAX];
        snprintf(want_path, sizeof want_path, "tests/policies/%.*s.out", (int)(strlen(base) - 7), base);
        char *want = slurp(want_path);
        if (!want)
            fail_msg("missing %s", want_path);
        char *got = written(p, 0);
        if (strcmp(got, want) != 0)
            fail_msg("%s normalises to\n%s\nnot\n%s", path, got, want);
        free(got);
        free(want);
        free(text);
        td_policy_free(p);
    }
    globfree(&g);
}

static struct td_policy *load_ok(const char *path)
{
    struct td_policy *p;
    struct td_policy_error e;
    if (td_policy_load(path, &p, &e) < 0)
        fail_msg("%s:%d:%d: %s", e.file, e.line, e.col, e.msg);
    return p;
}

static void eval_at(const struct td_policy *p, const char *name, unsigned long long nth,
                    unsigned long long alloc, unsigned long long in_use, struct td_verdict *v)
{
    struct td_call_ctx c = { fn(name), nth, 0, alloc, in_use };
    td_policy_eval(p, &c, v);
}

static void test_shipped_behaviour(void **state)
{
    (void)state;
    struct td_verdict v;
    struct td_policy *p = load_ok("policies/oom-drill.policy");
    eval_at(p, "cuMemAlloc_v2", 2, 1024, 0, &v);
    assert_int_equal(v.action, TD_ACT_PASS);
    eval_at(p, "cuMemAlloc_v2", 3, 1024, 0, &v);
    assert_int_equal(v.action, TD_ACT_INJECT);
    assert_int_equal(v.result, CUDA_ERROR_OUT_OF_MEMORY);
    assert_int_equal(v.applied, 1);
    assert_string_equal(v.file, "policies/oom-drill.policy");
    eval_at(p, "cuMemAllocAsync_ptsz", 3, 1024, 0, &v);
    assert_int_equal(v.action, TD_ACT_INJECT);
    eval_at(p, "cuMemAllocManaged", 4, 1024, 0, &v);
    assert_int_equal(v.action, TD_ACT_PASS);
    eval_at(p, "cuMemAllocManaged", 5, 1024, 0, &v);
    assert_int_equal(v.action, TD_ACT_INJECT);
    assert_int_equal(v.delay_ns, 10000000);
    td_policy_free(p);

    p = load_ok("policies/memory-8g.policy");
    assert_int_equal(td_policy_memory_limit(p, 0, NULL, NULL), 8 * GiB);
    eval_at(p, "cuMemCreate", 1, 4 * GiB, 5 * GiB, &v);
    assert_int_equal(v.action, TD_ACT_LIMIT);
    td_policy_free(p);

    p = load_ok("policies/no-peer.policy");
    eval_at(p, "cuCtxEnablePeerAccess", 1, 0, 0, &v);
    assert_int_equal(v.result, CUDA_ERROR_PEER_ACCESS_UNSUPPORTED);
    eval_at(p, "cuMemcpyPeerAsync_ptsz", 1, 0, 0, &v);
    assert_int_equal(v.action, TD_ACT_DENY);
    assert_int_equal(v.result, CUDA_ERROR_NOT_PERMITTED);
    eval_at(p, "cuDeviceCanAccessPeer", 1, 0, 0, &v);
    assert_int_equal(v.action, TD_ACT_PASS);
    td_policy_free(p);

    p = load_ok("policies/audit-all.policy");
    assert_int_equal(td_policy_enforce(p), 0);
    eval_at(p, "cuGraphLaunch", 1, 0, 0, &v);
    assert_int_equal(v.action, TD_ACT_DENY);
    assert_int_equal(v.applied, 0);
    td_policy_free(p);

    int map[8];
    p = load_ok("policies/hide-gpu1.policy");
    assert_int_equal(td_policy_device_map(p, 4, map, 8), 3);
    assert_int_equal(map[0], 0);
    assert_int_equal(map[1], 2);
    assert_int_equal(map[2], 3);
    td_policy_free(p);
    p = load_ok("policies/remap-1-to-0.policy");
    assert_int_equal(td_policy_device_map(p, 1, map, 8), 2);
    assert_int_equal(map[0], 0);
    assert_int_equal(map[1], 0);
    td_policy_free(p);

    p = load_ok("policies/emulate-2xh100.policy");
    struct td_emulate_cfg ec;
    td_policy_emulate(p, &ec);
    assert_int_equal(td_policy_backend(p), TD_BACKEND_EMULATE);
    assert_int_equal(ec.devices, 2);
    assert_string_equal(ec.profile, "h100");
    assert_int_equal(ec.memory, 80 * GiB);
    assert_int_equal(ec.line, 11);
    td_policy_free(p);
}

/* ---- queries --------------------------------------------------------------------------- */

static void test_defaults(void **state)
{
    (void)state;
    struct td_policy *p = td_policy_defaults();
    assert_int_equal(td_policy_backend(p), TD_BACKEND_AUTO);
    assert_int_equal(td_policy_enforce(p), 0);
    assert_null(td_policy_trace(p));
    assert_int_equal(td_policy_memory_limit(p, 0, NULL, NULL), 0);
    assert_int_equal(td_policy_gpu_dev_count(p), 0);
    assert_int_equal(td_policy_ioctl_deny_count(p), 0);
    assert_int_equal(td_policy_device_rule_count(p), 0);
    struct td_emulate_cfg ec;
    td_policy_emulate(p, &ec);
    assert_int_equal(ec.devices, 1);
    assert_string_equal(ec.profile, "h100");
    assert_null(ec.file);
    char *w = written(p, 0);
    assert_string_equal(w, "mode audit\nbackend auto\n");
    free(w);
    int map[4];
    assert_int_equal(td_policy_device_map(p, 2, map, 4), 2);
    assert_int_equal(map[1], 1);
    td_policy_free(p);
    td_policy_free(NULL);
    assert_int_equal(td_policy_backend(NULL), TD_BACKEND_AUTO);
}

static void test_device_map(void **state)
{
    (void)state;
    int map[16];
    struct td_policy *p = parse_ok("device 0 hide\ndevice 2 hide\n");
    assert_int_equal(td_policy_device_map(p, 4, map, 16), 2);
    assert_int_equal(map[0], 1);
    assert_int_equal(map[1], 3);
    assert_int_equal(td_policy_device_map(p, 1, map, 16), 0);
    td_policy_free(p);

    p = parse_ok("devices 2\n");
    assert_int_equal(td_policy_device_map(p, 4, map, 16), 2);
    assert_int_equal(td_policy_device_map(p, 1, map, 16), 1);
    td_policy_free(p);

    p = parse_ok("devices 0\n");
    assert_int_equal(td_policy_device_map(p, 4, map, 16), 0);
    td_policy_free(p);

    /* hide, then count, then remap; a remap past the end adds slots */
    p = parse_ok("device 0 hide\ndevices 1\ndevice 3 -> 2\n");
    assert_int_equal(td_policy_device_map(p, 4, map, 16), 4);
    assert_int_equal(map[0], 1);
    assert_int_equal(map[1], -1);
    assert_int_equal(map[2], -1);
    assert_int_equal(map[3], 2);
    assert_int_equal(td_policy_device_map(p, 4, map, 2), 4); /* only 2 written */
    assert_int_equal(td_policy_device_map(p, 4, NULL, 0), 4);
    /* a remap to a device the backend lacks */
    assert_int_equal(td_policy_device_map(p, 2, map, 16), 4);
    assert_int_equal(map[3], -1);
    assert_int_equal(td_policy_device_rule_count(p), 3);
    const struct td_device_rule *d = td_policy_device_rule(p, 2);
    assert_int_equal(d->kind, TD_DEV_REMAP);
    assert_int_equal(d->n, 3);
    assert_int_equal(d->m, 2);
    assert_int_equal(d->line, 3);
    assert_null(td_policy_device_rule(p, 3));
    td_policy_free(p);
}

static void test_queries(void **state)
{
    (void)state;
    struct td_policy *p = parse_ok("trace %memory\n"
                                   "gpu-dev /dev/dri/*\n"
                                   "ioctl deny NV_ESC_RM_ALLOC errno=EACCES dev=/dev/nvidiactl\n"
                                   "ioctl deny 0xc020462a\n"
                                   "memory-limit 2G device=1\n"
                                   "memory-limit 3G\n");
    assert_string_equal(td_policy_trace(p), "%memory");
    assert_int_equal(td_policy_gpu_dev_count(p), 1);
    assert_string_equal(td_policy_gpu_dev(p, 0), "/dev/dri/*");
    assert_null(td_policy_gpu_dev(p, 1));
    assert_int_equal(td_policy_ioctl_deny_count(p), 2);
    const struct td_ioctl_deny *d = td_policy_ioctl_deny(p, 0);
    assert_string_equal(d->name, "NV_ESC_RM_ALLOC");
    assert_int_equal(d->err, EACCES);
    assert_string_equal(d->dev, "/dev/nvidiactl");
    assert_int_equal(d->line, 3);
    d = td_policy_ioctl_deny(p, 1);
    assert_null(d->name);
    assert_int_equal(d->number, 0xc020462aUL);
    assert_int_equal(d->err, EPERM);
    assert_null(d->dev);
    assert_null(td_policy_ioctl_deny(p, 2));
    const char *file;
    int line;
    assert_int_equal(td_policy_memory_limit(p, 1, &file, &line), 2 * GiB);
    assert_int_equal(line, 5);
    assert_string_equal(file, "t.policy");
    assert_int_equal(td_policy_memory_limit(p, 0, &file, &line), 3 * GiB);
    assert_int_equal(line, 6);
    assert_int_equal(td_policy_memory_limit(p, -1, NULL, NULL), 3 * GiB);
    td_policy_free(p);
}

static void test_alloc_table(void **state)
{
    (void)state;
    static const struct { const char *name; int kind; } cases[] = {
        { "cuMemAlloc", TD_ALLOC_PLAIN }, { "cuMemAlloc_v2", TD_ALLOC_PLAIN },
        { "cuMemAllocPitch_v2", TD_ALLOC_PITCHED }, { "cuMemAllocManaged", TD_ALLOC_MANAGED },
        { "cuMemAllocAsync", TD_ALLOC_ASYNC }, { "cuMemAllocAsync_ptsz", TD_ALLOC_ASYNC },
        { "cuMemAllocFromPoolAsync", TD_ALLOC_POOL }, { "cuMemAllocFromPoolAsync_ptsz", TD_ALLOC_POOL },
        { "cuMemCreate", TD_ALLOC_VMM }, { "cuArrayCreate_v2", TD_ALLOC_ARRAY },
        { "cuMipmappedArrayCreate", TD_ALLOC_ARRAY }, { "cuGraphAddMemAllocNode", TD_ALLOC_GRAPH_NODE },
        { "cuGraphAddNode_v2", TD_ALLOC_GRAPH_NODE }, { "cuGraphInstantiate", TD_ALLOC_GRAPH_EXEC },
        { "cuGraphInstantiateWithParams_ptsz", TD_ALLOC_GRAPH_EXEC },
        { "cuMemAllocHost_v2", TD_ALLOC_NONE }, { "cuMemHostAlloc", TD_ALLOC_NONE },
        { "cuMemMap", TD_ALLOC_NONE }, { "cuMemFree_v2", TD_ALLOC_NONE }, { "cuInit", TD_ALLOC_NONE },
    };
    for (size_t i = 0; i < N(cases); i++)
        if (td_policy_is_alloc(fn(cases[i].name)) != cases[i].kind)
            fail_msg("%s: %d", cases[i].name, td_policy_is_alloc(fn(cases[i].name)));
    assert_int_equal(td_policy_is_alloc(-1), TD_ALLOC_NONE);
    assert_true(td_policy_is_free(fn("cuMemFree_v2")));
    assert_true(td_policy_is_free(fn("cuMemFreeAsync_ptsz")));
    assert_true(td_policy_is_free(fn("cuMemRelease")));
    assert_true(td_policy_is_free(fn("cuGraphExecDestroy")));
    assert_false(td_policy_is_free(fn("cuMemFreeHost")));
    assert_false(td_policy_is_free(fn("cuMemAlloc_v2")));
    /* every allocation entry point is in the memory or graph class */
    for (int f = 0; f < TD_FN__COUNT; f++)
        if (td_policy_is_alloc(f))
            assert_true(td_fns[f].family == TD_FAM_memory || td_fns[f].family == TD_FAM_graph);
}

/* backend and errno names: one table each (policy.h's TD_BACKENDS, the C
 * library's <errno.h>) */
static void test_names(void **state)
{
    (void)state;
    char list[64];
    assert_string_equal(td_policy_backend_list(list, sizeof list, NULL), "auto, driver or emulate");
    assert_string_equal(td_policy_backend_list(list, sizeof list, "|"), "auto|driver|emulate");
    assert_int_equal(td_policy_backend_find("emulate"), TD_BACKEND_EMULATE);
    assert_int_equal(td_policy_backend_find("driver"), TD_BACKEND_DRIVER);
    assert_int_equal(td_policy_backend_find("Driver"), -1);
    assert_int_equal(td_policy_backend_find(NULL), -1);
    assert_string_equal(td_policy_backend_name(TD_BACKEND_DRIVER), "driver");
    assert_string_equal(td_policy_backend_name(99), "auto");
    assert_string_equal(td_policy_backend_name(-1), "auto");
    /* every errno the C library names, by that name; its aliases too; a
     * value is written with its own name */
    int named = 0;
    for (int e = 1; e < 4096; e++) {
        const char *name = strerrorname_np(e);
        if (!name)
            continue;
        char text[64], want[64];
        snprintf(text, sizeof text, "ioctl deny X errno=%s\n", name);
        struct td_policy *p = parse_ok(text);
        char *w = written(p, 0);
        snprintf(want, sizeof want, "\n%s", text);
        if (!strstr(w, want))
            fail_msg("errno %d: wrote %s", e, w);
        free(w);
        td_policy_free(p);
        named++;
    }
    assert_true(named > 100);
    struct td_policy *p = parse_ok("ioctl deny X errno=EWOULDBLOCK\nioctl deny Y errno=ENOTSUP\n"
                                   "ioctl deny Z errno=11\n");
    char *w = written(p, 0);
    assert_non_null(strstr(w, "ioctl deny X errno=EAGAIN\nioctl deny Y errno=EOPNOTSUPP\n"
                              "ioctl deny Z errno=EAGAIN\n"));
    free(w);
    td_policy_free(p);
}

/* ---- command-line options ---------------------------------------------------------------- */

static void apply_ok(struct td_policy *p, const char *opt, const char *value)
{
    struct td_policy_error e;
    if (td_policy_apply_option(p, opt, value, &e) < 0)
        fail_msg("--%s=%s: %s: %s", opt, value ? value : "", e.file, e.msg);
}

static void test_options(void **state)
{
    (void)state;
    struct td_verdict v;
    /* an injection from the command line acts (enforce) unless a mode was chosen */
    struct td_policy *p = td_policy_defaults();
    apply_ok(p, "inject", "cuMemAlloc_v2:error=CUDA_ERROR_OUT_OF_MEMORY:when=3+");
    assert_int_equal(td_policy_enforce(p), 1);
    eval_at(p, "cuMemAlloc_v2", 3, 0, 0, &v);
    assert_int_equal(v.action, TD_ACT_INJECT);
    assert_int_equal(v.applied, 1);
    assert_string_equal(v.file, "--inject");
    assert_int_equal(v.line, 0);
    char *w = written(p, 0);
    assert_string_equal(w, "mode enforce\nbackend auto\n"
                           "inject cuMemAlloc_v2 error=CUDA_ERROR_OUT_OF_MEMORY when=3+\n");
    free(w);
    td_policy_free(p);

    /* --library= replaces the file's choice for the libraries it names */
    p = parse_ok("library cublas=host curand=nvidia\n");
    apply_ok(p, "library", "curand=host,nvrtc=nvidia");
    const char *lf;
    int ll;
    assert_int_equal(td_policy_library(p, TD_FRONTLIB_cublas, &lf, &ll), TD_LIBRARY_HOST);
    assert_string_equal(lf, "t.policy");
    assert_int_equal(ll, 1);
    assert_int_equal(td_policy_library(p, TD_FRONTLIB_curand, &lf, &ll), TD_LIBRARY_HOST);
    assert_string_equal(lf, "--library");
    assert_int_equal(td_policy_library(p, TD_FRONTLIB_nvrtc, NULL, NULL), TD_LIBRARY_NVIDIA);
    assert_int_equal(td_policy_library(p, TD_FRONTLIB_cufft, &lf, &ll), TD_LIBRARY_AUTO);
    assert_null(lf);
    assert_int_equal(td_policy_library(p, -1, NULL, NULL), TD_LIBRARY_AUTO);
    assert_int_equal(td_policy_library(p, TD_FRONTLIB__COUNT, NULL, NULL), TD_LIBRARY_AUTO);
    assert_string_equal(td_policy_frontlib_name(-1), "?");
    assert_string_equal(td_policy_frontlib_soname(TD_FRONTLIB_cufft), "libcufft.so.12");
    assert_int_equal(td_policy_enforce(p), 0); /* a choice of library is no rule that acts */
    td_policy_free(p);

    p = parse_ok("mode audit\n");
    apply_ok(p, "deny", "cuInit");
    assert_int_equal(td_policy_enforce(p), 0);
    apply_ok(p, "policy-mode", "enforce");
    assert_int_equal(td_policy_enforce(p), 1);
    td_policy_free(p);

    /* options override the file's rules for the same target */
    p = parse_ok("deny cuInit,cuMemAlloc error=2\n"
                 "inject cuLaunchKernel error=3 when=2\n"
                 "memory-limit 8G\nmemory-limit 2G device=1\n"
                 "backend driver\n"
                 "ioctl deny X dev=/dev/a\n");
    apply_ok(p, "deny", "cuInit:error=CUDA_ERROR_NOT_SUPPORTED");
    apply_ok(p, "inject", "cuLaunchKernel:error=4:when=1");
    apply_ok(p, "inject", "cuLaunchKernel:error=5:when=7"); /* the later option wins */
    apply_ok(p, "memory-limit", "4G");
    apply_ok(p, "memory-limit", "1G:device=2");
    apply_ok(p, "backend", "auto");
    apply_ok(p, "emulate", NULL);
    apply_ok(p, "emulate", "devices=3,profile=a100:memory=40G");
    apply_ok(p, "gpu-dev", "/dev/dri/card*");
    apply_ok(p, "gpu-dev", "/dev/dri/card*");
    apply_ok(p, "ioctl-deny", "X:dev=/dev/a:errno=EIO");
    apply_ok(p, "ioctl-deny", "UVM_INITIALIZE");
    w = written(p, 0);
    assert_string_equal(w, "mode enforce\n"
                           "backend emulate\n"
                           "emulate devices=3 profile=a100 memory=40GiB\n"
                           "memory-limit 4GiB\n"
                           "memory-limit 2GiB device=1\n"
                           "memory-limit 1GiB device=2\n"
                           "gpu-dev /dev/dri/card*\n"
                           "deny cuMemAlloc error=CUDA_ERROR_OUT_OF_MEMORY\n"
                           "deny cuInit error=CUDA_ERROR_NOT_SUPPORTED\n"
                           "inject cuLaunchKernel error=CUDA_ERROR_PROFILER_DISABLED when=7\n"
                           "ioctl deny X errno=EIO dev=/dev/a\n"
                           "ioctl deny UVM_INITIALIZE errno=EPERM\n");
    check_roundtrip(w);
    free(w);
    eval_at(p, "cuInit", 1, 0, 0, &v);
    assert_int_equal(v.result, CUDA_ERROR_NOT_SUPPORTED);
    assert_string_equal(v.file, "--deny");
    eval_at(p, "cuMemAlloc_v2", 1, 0, 0, &v);
    assert_int_equal(v.result, 2);
    assert_string_equal(v.file, "t.policy");
    assert_int_equal(v.line, 1);
    eval_at(p, "cuLaunchKernel", 1, 0, 0, &v);
    assert_int_equal(v.action, TD_ACT_PASS);
    eval_at(p, "cuLaunchKernel", 7, 0, 0, &v);
    assert_int_equal(v.result, 5);
    const char *file;
    assert_int_equal(td_policy_memory_limit(p, 0, &file, NULL), 4 * GiB);
    assert_string_equal(file, "--memory-limit");
    td_policy_free(p);

    /* --backend overrides the file's emulate-implies-backend */
    p = parse_ok("emulate devices=2\n");
    assert_int_equal(td_policy_backend(p), TD_BACKEND_EMULATE);
    apply_ok(p, "backend", "driver");
    assert_int_equal(td_policy_backend(p), TD_BACKEND_DRIVER);
    td_policy_free(p);
}

/* ---- files ------------------------------------------------------------------------------- */

static char tmpdir[PATH_MAX];

static void put(const char *rel, const char *text)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", tmpdir, rel);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_locate(void **state)
{
    (void)state;
    char path[PATH_MAX], sub[PATH_MAX + 64], want[PATH_MAX + 64];
    snprintf(tmpdir, sizeof tmpdir, "%s/tdpolXXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    assert_non_null(mkdtemp(tmpdir));
    snprintf(sub, sizeof sub, "%s/a/b", tmpdir);
    char a[PATH_MAX + 64];
    snprintf(a, sizeof a, "%s/a", tmpdir);
    assert_int_equal(mkdir(a, 0700), 0);
    assert_int_equal(mkdir(sub, 0700), 0);
    put("tdtrace.policy", "mode enforce\n");
    put("x.policy", "deny cuInit\n");

    /* nearest in cwd or a parent */
    assert_int_equal(td_policy_locate(NULL, NULL, sub, path, sizeof path), 0);
    snprintf(want, sizeof want, "%s/tdtrace.policy", tmpdir);
    assert_string_equal(path, want);
    put("a/tdtrace.policy", "\n");
    assert_int_equal(td_policy_locate(NULL, "", sub, path, sizeof path), 0);
    snprintf(want, sizeof want, "%s/a/tdtrace.policy", tmpdir);
    assert_string_equal(path, want);
    /* trailing slashes */
    char subslash[PATH_MAX + 64];
    snprintf(subslash, sizeof subslash, "%s//", sub);
    assert_int_equal(td_policy_locate(NULL, NULL, subslash, path, sizeof path), 0);
    assert_string_equal(path, want);
    /* $TDTRACE_POLICY before the search, --policy before both */
    snprintf(want, sizeof want, "%s/x.policy", tmpdir);
    assert_int_equal(td_policy_locate(NULL, want, sub, path, sizeof path), 0);
    assert_string_equal(path, want);
    assert_int_equal(td_policy_locate(want, "/nonexistent", sub, path, sizeof path), 0);
    assert_string_equal(path, want);
    /* none */
    assert_int_equal(td_policy_locate("none", want, sub, path, sizeof path), 0);
    assert_string_equal(path, "");
    assert_int_equal(td_policy_locate(NULL, "none", sub, path, sizeof path), 0);
    assert_string_equal(path, "");
    /* unreadable or missing explicit files */
    errno = 0;
    assert_int_equal(td_policy_locate("/nonexistent/p", NULL, sub, path, sizeof path), -1);
    assert_int_equal(errno, ENOENT);
    assert_int_equal(td_policy_locate(NULL, "/nonexistent/p", sub, path, sizeof path), -1);
    assert_int_equal(td_policy_locate(tmpdir, NULL, sub, path, sizeof path), -1);
    assert_int_equal(errno, EISDIR);
    assert_int_equal(td_policy_locate(want, NULL, sub, path, 4), -1);
    assert_int_equal(errno, ENAMETOOLONG);
    /* nothing found: the defaults */
    assert_int_equal(td_policy_locate(NULL, NULL, "/proc/self/fdinfo", path, sizeof path), 0);
    assert_string_equal(path, "");
    assert_int_equal(td_policy_locate(NULL, NULL, NULL, path, sizeof path), 0);
    assert_string_equal(path, "");
    assert_int_equal(td_policy_locate(NULL, NULL, "/", path, sizeof path), 0);
    /* found, but others could have written it: refused (EPERM), named */
    char why[PATH_MAX * 2];
    snprintf(want, sizeof want, "%s/a/tdtrace.policy", tmpdir);
    assert_int_equal(chmod(want, 0666), 0);
    errno = 0;
    assert_int_equal(td_policy_locate(NULL, NULL, sub, path, sizeof path), -1);
    assert_int_equal(errno, EPERM);
    assert_string_equal(path, want);
    assert_int_equal(td_policy_untrusted(want, why, sizeof why), 1);
    assert_non_null(strstr(why, "writable by others"));
    assert_int_equal(chmod(want, 0644), 0);
    assert_int_equal(chmod(a, 0777), 0);
    assert_int_equal(td_policy_locate(NULL, NULL, sub, path, sizeof path), -1);
    assert_int_equal(td_policy_untrusted(want, why, sizeof why), 1);
    assert_non_null(strstr(why, "the directory"));
    assert_int_equal(chmod(a, 01777), 0); /* sticky, as /tmp */
    assert_int_equal(td_policy_locate(NULL, NULL, sub, path, sizeof path), 0);
    assert_int_equal(chmod(a, 0700), 0);
    if (geteuid() == 0) { /* another user's file */
        assert_int_equal(chown(want, 65534, 65534), 0);
        assert_int_equal(td_policy_locate(NULL, NULL, sub, path, sizeof path), -1);
        assert_int_equal(td_policy_untrusted(want, why, sizeof why), 1);
        assert_non_null(strstr(why, "owned by uid 65534"));
        assert_int_equal(chown(want, 0, 0), 0);
    }
    /* named explicitly: the user's choice */
    assert_int_equal(chmod(want, 0666), 0);
    assert_int_equal(td_policy_locate(want, NULL, sub, path, sizeof path), 0);
    assert_int_equal(chmod(want, 0644), 0);

    /* load: errors without a position */
    struct td_policy *p;
    struct td_policy_error e;
    char msg[1024];
    assert_int_equal(td_policy_load("/nonexistent/p", &p, &e), -1);
    assert_null(p);
    td_policy_format_error(&e, msg, sizeof msg);
    assert_string_equal(msg, "/nonexistent/p: No such file or directory");
    assert_int_equal(td_policy_load(tmpdir, &p, &e), -1);
    td_policy_format_error(&e, msg, sizeof msg);
    assert_non_null(strstr(msg, ": Is a directory"));
    /* too large */
    char *big = malloc(TD_POLICY_MAX_SIZE + 2);
    memset(big, '\n', TD_POLICY_MAX_SIZE + 1);
    big[TD_POLICY_MAX_SIZE + 1] = 0;
    put("big.policy", big);
    free(big);
    snprintf(want, sizeof want, "%s/big.policy", tmpdir);
    assert_int_equal(td_policy_load(want, &p, &e), -1);
    assert_non_null(strstr(e.msg, "file too large"));
    /* a parse error names the path */
    put("bad.policy", "mode audit\n\nmode x\n");
    snprintf(want, sizeof want, "%s/bad.policy", tmpdir);
    assert_int_equal(td_policy_load(want, &p, &e), -1);
    assert_int_equal(e.line, 3);
    assert_int_equal(e.col, 6);
    assert_string_equal(e.file, want);

    const char *rm[] = { "tdtrace.policy", "x.policy", "a/tdtrace.policy", "big.policy", "bad.policy" };
    for (size_t i = 0; i < N(rm); i++) {
        snprintf(want, sizeof want, "%s/%s", tmpdir, rm[i]);
        unlink(want);
    }
    rmdir(sub);
    rmdir(a);
    rmdir(tmpdir);
}

static void test_parse_edges(void **state)
{
    (void)state;
    struct td_policy *p;
    struct td_policy_error e;
    /* not NUL-terminated: only len bytes are read */
    const char text[] = "mode enforce\nmode audit";
    assert_int_equal(td_policy_parse(text, 12, NULL, &p, &e), 0);
    assert_int_equal(td_policy_enforce(p), 1);
    td_policy_free(p);
    /* NULL text, NULL err, NUL bytes */
    assert_int_equal(td_policy_parse(NULL, 5, NULL, &p, NULL), 0);
    td_policy_free(p);
    assert_int_equal(td_policy_parse("mode\0audit", 10, NULL, &p, &e), -1);
    assert_string_equal(e.file, "<policy>");
    assert_int_equal(e.col, 5);
    /* no newline at the end, CRLF, a '#' inside a word is not a comment */
    p = parse_ok("gpu-dev /dev/x#1\r\nmode enforce");
    assert_string_equal(td_policy_gpu_dev(p, 0), "/dev/x#1");
    assert_int_equal(td_policy_enforce(p), 1);
    td_policy_free(p);
    /* malformed origin lines are plain comments */
    p = parse_ok("#@ nocolon\n#@ :5\n#@ f:x\n#@ f:\ndeny cuInit\n");
    struct td_verdict v;
    eval_at(p, "cuInit", 1, 0, 0, &v);
    assert_string_equal(v.file, "t.policy");
    assert_int_equal(v.line, 5);
    td_policy_free(p);
    /* an origin applies to the next statement only */
    p = parse_ok("#@ a.policy:9\n\n# c\ndeny cuInit\ndeny cuCtxCreate\n");
    eval_at(p, "cuInit", 1, 0, 0, &v);
    assert_string_equal(v.file, "a.policy");
    assert_int_equal(v.line, 9);
    eval_at(p, "cuCtxCreate", 1, 0, 0, &v);
    assert_string_equal(v.file, "t.policy");
    assert_int_equal(v.line, 5);
    td_policy_free(p);
    /* many rules */
    char *many = malloc(64 * 5000);
    size_t off = 0;
    for (int i = 0; i < 4097; i++)
        off += (size_t)sprintf(many + off, "gpu-dev /dev/x%d\n", i);
    assert_int_equal(td_policy_parse(many, off, "m", &p, &e), -1);
    assert_string_equal(e.msg, "too many gpu-dev rules");
    assert_int_equal(e.line, 4097);
    off = 0;
    for (int i = 0; i < 4097; i++)
        off += (size_t)sprintf(many + off, "deny cuInit,cuCtxCreate\n");
    assert_int_equal(td_policy_parse(many, off, "m", &p, &e), -1);
    assert_string_equal(e.msg, "'deny cuInit' conflicts with line 1");
    free(many);
}

/* the one regex helper: limits, and what stays accepted */
static void test_regex_bounds(void **state)
{
    (void)state;
    char err[200];
    regex_t re;
    static const char *const ok[] = { "cuMem.*", "^cu(Mem|Ctx)[A-Z]", "[[:alpha:]]{3,8}_v2$", "a{100}",
                                      "(((((a)))))", "[]a]", "\\(", "x{2,}" };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        if (td_regex_compile(&re, ok[i], REG_EXTENDED | REG_NOSUB, err, sizeof err) != 0)
            fail_msg("%s: %s", ok[i], err);
        regfree(&re);
    }
    char *deep = malloc(100001);
    assert_non_null(deep);
    memset(deep, '(', 50000);
    memset(deep + 50000, ')', 50000);
    deep[100000] = 0;
    assert_int_equal(td_regex_compile(&re, deep, REG_EXTENDED, err, sizeof err), -1);
    assert_string_equal(err, "regular expression longer than 1024 characters");
    deep[1000] = 0;
    memset(deep + 500, ')', 500);
    assert_int_equal(td_regex_check(deep, err, sizeof err), -1);
    assert_string_equal(err, "regular expression nests deeper than 32 groups");
    free(deep);
    assert_int_equal(td_regex_check("((a{30}){30}){30}", err, sizeof err), -1);
    assert_int_equal(td_regex_check("a{20000}", err, sizeof err), 0);
    assert_int_equal(td_regex_check("a{20001}", err, sizeof err), -1);
    assert_int_equal(td_regex_compile(&re, "a(", REG_EXTENDED, err, sizeof err), -1);
    assert_non_null(strstr(err, "invalid regular expression 'a('"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_eval_table),
        cmocka_unit_test(test_eval_null),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_option_errors),
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_durations),
        cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_eval_lib),
        cmocka_unit_test(test_normal_form),
        cmocka_unit_test(test_shipped),
        cmocka_unit_test(test_shipped_behaviour),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_device_map),
        cmocka_unit_test(test_queries),
        cmocka_unit_test(test_alloc_table),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_options),
        cmocka_unit_test(test_locate),
        cmocka_unit_test(test_parse_edges),
        cmocka_unit_test(test_regex_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
