/* SPDX-License-Identifier: Apache-2.0 */
/* The generated API table: lookups by name, class, and cuGetProcAddress's
 * version rule (docs/cuda-runtime-interface.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "api.h"
#include "apiparse.h"
#include "xlat.h"

static const char *lookup(const char *sym, int ver, int pt)
{
    int low;
    int id = td_proc_lookup(sym, ver, pt, &low);
    return id < 0 ? (low ? "<too low>" : "<none>") : td_fns[id].name;
}

static void test_proc_versions(void **state)
{
    (void)state;
    static const struct { const char *sym; int ver, pt; const char *want; } rows[] = {
        { "cuInit", 2000, 0, "cuInit" },
        { "cuMemAlloc", 3020, 0, "cuMemAlloc_v2" },
        { "cuMemAlloc", 2000, 0, "cuMemAlloc" },
        { "cuMemAlloc", 13000, 0, "cuMemAlloc_v2" },
        { "cuMemAlloc", 1000, 0, "<too low>" },
        { "cuCtxGetDevice", 2000, 0, "cuCtxGetDevice" },
        { "cuCtxGetDevice", 13000, 0, "cuCtxGetDevice_v2" },
        { "cuCtxSynchronize", 13000, 0, "cuCtxSynchronize_v2" },
        { "cuEventElapsedTime", 12080, 0, "cuEventElapsedTime_v2" },
        { "cuEventElapsedTime", 12000, 0, "cuEventElapsedTime" },
        { "cuGetProcAddress", 11030, 0, "cuGetProcAddress" },
        { "cuGetProcAddress", 12000, 0, "cuGetProcAddress_v2" },
        { "cuCtxCreate", 12050, 0, "cuCtxCreate_v4" },
        { "cuCtxCreate", 11040, 0, "cuCtxCreate_v3" },
        { "cuStreamGetCaptureInfo", 10010, 0, "cuStreamGetCaptureInfo" },
        { "cuStreamGetCaptureInfo", 11030, 0, "cuStreamGetCaptureInfo_v2" },
        { "cuStreamGetCaptureInfo", 12030, 0, "cuStreamGetCaptureInfo_v3" },
        { "cuMemcpyHtoD", 3020, 2, "cuMemcpyHtoD_v2_ptds" },
        { "cuMemcpyHtoD", 3020, 0, "cuMemcpyHtoD_v2" },
        { "cuLaunchKernel", 7000, 2, "cuLaunchKernel_ptsz" },
        { "cuLaunchKernel", 4000, 2, "cuLaunchKernel_ptsz" },
        { "cuMemAllocAsync", 11020, 2, "cuMemAllocAsync_ptsz" },
        { "cuEventRecord", 7000, 2, "cuEventRecord_ptsz" },
        { "cuDeviceGetCount", 2000, 2, "cuDeviceGetCount" }, /* no stream: no variant */
        { "cuNoSuchThing", 13000, 0, "<none>" },
        { "", 0, 0, "<none>" },
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        const char *got = lookup(rows[i].sym, rows[i].ver, rows[i].pt);
        if (strcmp(got, rows[i].want) != 0)
            fail_msg("%s@%d%s: got %s, want %s", rows[i].sym, rows[i].ver,
                     rows[i].pt ? " per-thread" : "", got, rows[i].want);
    }
}

static void test_names_and_families(void **state)
{
    (void)state;
    int id = td_api_find("cuMemAlloc_v2");
    assert_true(id >= 0);
    assert_string_equal(td_fns[id].name, "cuMemAlloc_v2");
    assert_string_equal(td_fns[id].base, "cuMemAlloc");
    assert_int_equal(td_fns[id].family, td_family_find("memory"));
    assert_int_equal(td_api_find("cuNope"), -1);
    assert_int_equal(td_family_find("launch"), td_fns[td_api_find("cuLaunchKernel")].family);
    assert_int_equal(td_family_find("nope"), -1);
    /* every entry point is findable by its own name */
    for (int i = 0; i < TD_FN__COUNT; i++)
        assert_int_equal(td_api_find(td_fns[i].name), i);
}

/* the generated table holds every row of src/api/cuda.api, in order, with
 * its parameter count, and nothing else (run from the source tree) */
static void test_table_matches_source(void **state)
{
    (void)state;
    FILE *f = fopen("src/api/cuda.api", "r");
    if (!f)
        fail_msg("src/api/cuda.api: run the unit tests from the source tree");
    char line[4096], err[256];
    int rows = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        struct ap_fn fn;
        int r = ap_parse_fn(line, &fn, err, sizeof err);
        assert_int_not_equal(r, -1);
        if (r != 1)
            continue;
        assert_true(rows < TD_FN__ENTRY_POINTS);
        assert_string_equal(td_fns[rows].name, fn.name);
        assert_int_equal(td_fns[rows].nparams, fn.nparams);
        rows++;
    }
    fclose(f);
    assert_int_equal(rows, TD_FN__ENTRY_POINTS);
}

static void test_params(void **state)
{
    (void)state;
    const struct td_fn_info *f = &td_fns[td_api_find("cuMemAlloc_v2")];
    assert_int_equal(f->nparams, 2);
    assert_int_equal(f->params[0].role, TD_R_OUT);
    assert_int_equal(f->params[0].kind, TD_K_DPTR);
    assert_int_equal(f->params[0].size, 8);
    assert_int_equal(f->params[1].kind, TD_K_SIZE); /* a byte count: 4 MiB */
    f = &td_fns[td_api_find("cuMemsetD8_v2")];
    assert_int_equal(f->params[2].kind, TD_K_UINT);  /* N counts elements */
    f = &td_fns[td_api_find("cuStreamSynchronize")];
    assert_int_equal(f->params[0].hclass, TD_H_stream);
    f = &td_fns[td_api_find("cuMemcpy2D_v2")];
    assert_int_equal(f->params[0].sid, TD_S_CUDA_MEMCPY2D);
    assert_int_equal(f->params[0].count, 1);
    f = &td_fns[td_api_find("cuMemSetAccess")];
    assert_int_equal(f->params[2].sid, TD_S_CUmemAccessDesc);
    assert_int_equal(f->params[2].countp, 3);
    f = &td_fns[td_api_find("cuLaunchKernel")];
    assert_int_equal(f->kfunc, 0);
    assert_int_equal(f->kparams, 9);
    assert_true(f->deref);
    f = &td_fns[td_api_find("cuDeviceGetAttribute")];
    assert_int_equal(f->params[1].kind, TD_K_ENUM);
    assert_int_equal(f->params[1].xlat, TD_X_CUdevice_attribute);
    f = &td_fns[td_api_find("cuStreamCreate")];
    assert_int_equal(f->params[1].kind, TD_K_FLAGS);
}

static void test_xlat(void **state)
{
    (void)state;
    assert_string_equal(td_result_name(0), "CUDA_SUCCESS");
    assert_string_equal(td_result_name(2), "CUDA_ERROR_OUT_OF_MEMORY");
    assert_string_equal(td_result_name(801), "CUDA_ERROR_NOT_SUPPORTED");
    assert_null(td_result_name(123456));
    unsigned long long v;
    assert_int_equal(td_xlat_value(TD_X_CUresult, "CUDA_ERROR_INVALID_VALUE", &v), 0);
    assert_int_equal(v, 1);
    assert_int_equal(td_xlat_value(TD_X_CUresult, "CUDA_NOPE", &v), -1);
    assert_int_equal(td_xlat_find("CUresult"), TD_X_CUresult);
    assert_int_equal(td_xlat_find("nope"), TD_X_NONE);
    assert_non_null(td_xlat_text(TD_X_CUresult, 2));
}

/* ---- classes and effects (td_api_roles.c) ---- */

static const struct td_effect *eff(const char *name)
{
    int id = td_api_find(name);
    if (id < 0)
        fail_msg("%s: no such entry point", name);
    return &td_fn_effects[id];
}

static void test_classes(void **state)
{
    (void)state;
    int memory = td_family_find("memory"), copy = td_family_find("copy");
    /* a function's own family is one of its classes */
    for (int i = 0; i < TD_FN__COUNT; i++)
        if (!td_fn_in_class(i, td_fns[i].family))
            fail_msg("%s: not in its own family", td_fns[i].name);
    /* a memset writes memory: both %copy and %memory; a copy is %copy only */
    assert_true(td_fn_in_class(td_api_find("cuMemsetD8"), memory));
    assert_true(td_fn_in_class(td_api_find("cuMemsetD8"), copy));
    assert_true(td_fn_in_class(td_api_find("cuMemsetD32Async_ptsz"), memory));
    assert_int_equal(td_fns[td_api_find("cuMemsetD8")].family, copy);
    assert_false(td_fn_in_class(td_api_find("cuMemcpyHtoD_v2"), memory));
    assert_false(td_fn_in_class(td_api_find("cuMemAlloc_v2"), copy));
    assert_false(td_fn_in_class(-1, memory));
    assert_false(td_fn_in_class(TD_FN__COUNT, memory));
    assert_false(td_fn_in_class(0, TD_FAM__COUNT));
    char list[256], want[256] = "";
    for (int i = 0; i < TD_FAM__COUNT; i++)
        snprintf(want + strlen(want), sizeof want - strlen(want), "%s%%%s", i ? " " : "", td_family_name(i));
    assert_string_equal(td_family_list(list, sizeof list), want);
    assert_int_equal(strncmp(list, "%device %context ", 17), 0);
    assert_string_equal(td_family_list(list, 9), "%device ");
}

static void test_effects_are_sound(void **state)
{
    (void)state;
    int freed[TD_ALLOC_RESERVE + 1] = { 0 }, made[TD_ALLOC_RESERVE + 1] = { 0 };
    for (int i = 0; i < TD_FN__COUNT; i++) {
        const struct td_effect *e = &td_fn_effects[i];
        const struct td_fn_info *f = &td_fns[i];
        const signed char idx[] = { e->ptr, e->size, e->rows, e->pitch, e->device,
                                    e->stream, e->pool, e->handle, e->desc };
        for (size_t k = 0; k < sizeof idx; k++)
            if (idx[k] < -1 || idx[k] >= f->nparams)
                fail_msg("%s: parameter %d out of range", f->name, idx[k]);
        if (e->op == TD_EFF_NONE) {
            assert_int_equal(e->kind, 0);
            for (size_t k = 0; k < sizeof idx; k++)
                assert_int_equal(idx[k], -1);
            continue;
        }
        if (e->op == TD_EFF_CTX) {
            assert_true(e->kind <= TD_CTX_RESET);
            if (e->kind == TD_CTX_CREATE || e->kind == TD_CTX_RETAIN || e->kind == TD_CTX_POP)
                if (e->ptr < 0 || f->params[e->ptr].role != TD_R_OUT)
                    fail_msg("%s: the context made is no out-parameter", f->name);
            if ((e->kind == TD_CTX_CREATE || e->kind == TD_CTX_RETAIN) && e->device < 0)
                fail_msg("%s: no device", f->name);
            continue;
        }
        assert_true(e->kind > TD_ALLOC_NONE && e->kind <= TD_ALLOC_RESERVE);
        /* a memory operation is in the memory or graph class */
        if (!td_fn_in_class(i, TD_FAM_memory) && !td_fn_in_class(i, TD_FAM_graph))
            fail_msg("%s: a memory effect outside %%memory and %%graph", f->name);
        if (e->op == TD_EFF_ALLOC) {
            made[e->kind]++;
            /* what is made comes back through an out-parameter, except
             * memory the program registers, or an address in a structure */
            if (e->ptr >= 0 && (f->params[e->ptr].role == TD_R_OUT) == (e->kind == TD_ALLOC_REGISTERED))
                fail_msg("%s: ptr", f->name);
            if (e->ptr < 0 && e->desc < 0)
                fail_msg("%s: an allocation with neither ptr nor desc", f->name);
            if (e->pitch >= 0 && (e->rows < 0 || f->params[e->pitch].role != TD_R_OUT))
                fail_msg("%s: pitch", f->name);
        } else if (e->op == TD_EFF_FREE || e->op == TD_EFF_TRIM) {
            freed[e->kind]++;
            if (e->op == TD_EFF_FREE && (e->ptr < 0 || f->params[e->ptr].role != TD_R_IN))
                fail_msg("%s: a free names what it frees", f->name);
        } else {
            assert_true(e->op == TD_EFF_MAP || e->op == TD_EFF_UNMAP);
            assert_true(e->ptr >= 0 && e->size >= 0);
        }
    }
    /* every kind of memory that can be made can be given back */
    for (int k = TD_ALLOC_PLAIN; k <= TD_ALLOC_RESERVE; k++)
        if (made[k] && !freed[k] && k != TD_ALLOC_MANAGED && k != TD_ALLOC_PITCHED &&
            k != TD_ALLOC_POOL && k != TD_ALLOC_MULTICAST)
            fail_msg("kind %d is allocated, never freed", k);
}

/* the allocation model summary.c and policy_eval.c kept by hand, now rows */
static void test_effects_of_known_calls(void **state)
{
    (void)state;
    static const struct {
        const char *fn;
        int op, kind, ptr, size, rows, pitch, device, stream;
    } rows[] = {
        { "cuMemAlloc", TD_EFF_ALLOC, TD_ALLOC_PLAIN, 0, 1, -1, -1, -1, -1 },
        { "cuMemAlloc_v2", TD_EFF_ALLOC, TD_ALLOC_PLAIN, 0, 1, -1, -1, -1, -1 },
        { "cuMemAllocPitch_v2", TD_EFF_ALLOC, TD_ALLOC_PITCHED, 0, 2, 3, 1, -1, -1 },
        { "cuMemAllocManaged", TD_EFF_ALLOC, TD_ALLOC_MANAGED, 0, 1, -1, -1, -1, -1 },
        { "cuMemAllocAsync_ptsz", TD_EFF_ALLOC, TD_ALLOC_ASYNC, 0, 1, -1, -1, -1, 2 },
        { "cuMemAllocFromPoolAsync", TD_EFF_ALLOC, TD_ALLOC_POOL, 0, 1, -1, -1, -1, 3 },
        { "cuMemCreate", TD_EFF_ALLOC, TD_ALLOC_VMM, 0, 1, -1, -1, -1, -1 },
        { "cuArray3DCreate_v2", TD_EFF_ALLOC, TD_ALLOC_ARRAY, 0, -1, -1, -1, -1, -1 },
        { "cuGraphAddMemAllocNode", TD_EFF_ALLOC, TD_ALLOC_GRAPH_NODE, -1, -1, -1, -1, -1, -1 },
        { "cuGraphInstantiateWithFlags", TD_EFF_ALLOC, TD_ALLOC_GRAPH_EXEC, 0, -1, -1, -1, -1, -1 },
        { "cuMemAllocHost_v2", TD_EFF_ALLOC, TD_ALLOC_HOST, 0, 1, -1, -1, -1, -1 },
        { "cuMemHostAlloc", TD_EFF_ALLOC, TD_ALLOC_HOST, 0, 1, -1, -1, -1, -1 },
        { "cuMemHostRegister_v2", TD_EFF_ALLOC, TD_ALLOC_REGISTERED, 0, 1, -1, -1, -1, -1 },
        { "cuMemFree_v2", TD_EFF_FREE, TD_ALLOC_PLAIN, 0, -1, -1, -1, -1, -1 },
        { "cuMemFreeAsync", TD_EFF_FREE, TD_ALLOC_ASYNC, 0, -1, -1, -1, -1, 1 },
        { "cuMemFreeHost", TD_EFF_FREE, TD_ALLOC_HOST, 0, -1, -1, -1, -1, -1 },
        { "cuMemRelease", TD_EFF_FREE, TD_ALLOC_VMM, 0, -1, -1, -1, -1, -1 },
        { "cuDeviceGraphMemTrim", TD_EFF_TRIM, TD_ALLOC_GRAPH_NODE, -1, -1, -1, -1, 0, -1 },
        { "cuMemMap", TD_EFF_MAP, TD_ALLOC_VMM, 0, 1, -1, -1, -1, -1 },
        { "cuCtxCreate_v4", TD_EFF_CTX, TD_CTX_CREATE, 0, -1, -1, -1, 3, -1 },
        { "cuDevicePrimaryCtxRetain", TD_EFF_CTX, TD_CTX_RETAIN, 0, -1, -1, -1, 1, -1 },
        { "CUDART_INTERFACE.get_primary_ctx", TD_EFF_CTX, TD_CTX_RETAIN, 0, -1, -1, -1, 1, -1 },
        { "cuCtxSetCurrent", TD_EFF_CTX, TD_CTX_SET, 0, -1, -1, -1, -1, -1 },
        { "cuCtxPushCurrent_v2", TD_EFF_CTX, TD_CTX_PUSH, 0, -1, -1, -1, -1, -1 },
        { "cuCtxPopCurrent_v2", TD_EFF_CTX, TD_CTX_POP, 0, -1, -1, -1, -1, -1 },
        { "cuMemcpyHtoD_v2", TD_EFF_NONE, 0, -1, -1, -1, -1, -1, -1 },
        { "cuMemGetInfo_v2", TD_EFF_NONE, 0, -1, -1, -1, -1, -1, -1 },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const struct td_effect *e = eff(rows[i].fn);
        if (e->op != rows[i].op || e->kind != rows[i].kind || e->ptr != rows[i].ptr ||
            e->size != rows[i].size || e->rows != rows[i].rows || e->pitch != rows[i].pitch ||
            e->device != rows[i].device || e->stream != rows[i].stream)
            fail_msg("%s: op %d kind %d ptr %d size %d rows %d pitch %d device %d stream %d", rows[i].fn,
                     e->op, e->kind, e->ptr, e->size, e->rows, e->pitch, e->device, e->stream);
    }
    assert_int_equal(eff("cuMemCreate")->desc, 2);
    assert_int_equal(eff("cuMemMap")->handle, 3);
    assert_int_equal(eff("cuMemPoolTrimTo")->pool, 0);
    assert_true(td_alloc_is_device(TD_ALLOC_PLAIN) && td_alloc_is_device(TD_ALLOC_GRAPH_EXEC));
    assert_false(td_alloc_is_device(TD_ALLOC_NONE) || td_alloc_is_device(TD_ALLOC_HOST) ||
                 td_alloc_is_device(TD_ALLOC_IPC));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_proc_versions),
        cmocka_unit_test(test_names_and_families),
        cmocka_unit_test(test_table_matches_source),
        cmocka_unit_test(test_classes),
        cmocka_unit_test(test_effects_are_sound),
        cmocka_unit_test(test_effects_of_known_calls),
        cmocka_unit_test(test_params),
        cmocka_unit_test(test_xlat),
    };
    return cmocka_run_group_tests_name("api", tests, NULL, NULL);
}
