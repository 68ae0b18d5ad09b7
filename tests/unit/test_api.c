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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_proc_versions),
        cmocka_unit_test(test_names_and_families),
        cmocka_unit_test(test_table_matches_source),
        cmocka_unit_test(test_params),
        cmocka_unit_test(test_xlat),
    };
    return cmocka_run_group_tests_name("api", tests, NULL, NULL);
}
