/* SPDX-License-Identifier: Apache-2.0 */
/* The API-table row parser used by the build-time generator. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "apiparse.h"

static void test_row(void **state)
{
    (void)state;
    struct ap_fn fn;
    char err[256];
    int rc = ap_parse_fn("memory   cuMemAllocPitch_v2  @3020  (out CUdeviceptr * dptr, out size_t * pPitch, "
                         "size_t WidthInBytes, size_t Height, unsigned int ElementSizeBytes)\n",
                         &fn, err, sizeof(err));
    assert_int_equal(rc, 1);
    assert_string_equal(fn.family, "memory");
    assert_string_equal(fn.name, "cuMemAllocPitch_v2");
    assert_int_equal(fn.nversions, 1);
    assert_int_equal(fn.versions[0], 3020);
    assert_int_equal(fn.nparams, 5);
    assert_int_equal(fn.params[0].role, AP_OUT);
    assert_string_equal(fn.params[0].type, "CUdeviceptr *");
    assert_string_equal(fn.params[0].name, "dptr");
    assert_string_equal(fn.params[4].type, "unsigned int");
    assert_int_equal(fn.params[4].role, AP_IN);
}

static void test_roles_and_tables(void **state)
{
    (void)state;
    struct ap_fn fn;
    char err[256];
    assert_int_equal(ap_parse_fn("driver cuGetProcAddress_v2 @12000 (str const char * symbol, out void ** pfn, "
                                 "int cudaVersion, cuuint64_t flags=CUdriverProcAddress_flags, "
                                 "out CUdriverProcAddressQueryResult * symbolStatus)",
                                 &fn, err, sizeof(err)), 1);
    assert_int_equal(fn.params[0].role, AP_STR);
    assert_string_equal(fn.params[0].type, "const char *");
    assert_string_equal(fn.params[3].xlat, "CUdriverProcAddress_flags");
    assert_string_equal(fn.params[1].type, "void **");
    assert_int_equal(ap_parse_fn("device cuDeviceGetName @2000,3000 (outstr char *name, int len, CUdevice dev)",
                                 &fn, err, sizeof(err)), 1);
    assert_int_equal(fn.nversions, 2);
    assert_int_equal(fn.versions[1], 3000);
    assert_int_equal(fn.params[0].role, AP_OUTSTR);
    assert_int_equal(ap_parse_fn("driver cuProfilerStart @- ()", &fn, err, sizeof(err)), 1);
    assert_int_equal(fn.nversions, 0);
    assert_int_equal(fn.nparams, 0);
}

static void test_blank_and_errors(void **state)
{
    (void)state;
    struct ap_fn fn;
    char err[256];
    assert_int_equal(ap_parse_fn("   # comment\n", &fn, err, sizeof(err)), 0);
    assert_int_equal(ap_parse_fn("\n", &fn, err, sizeof(err)), 0);
    static const struct { const char *line, *msg; } bad[] = {
        { "memory", "expected an entry point name" },
        { "memory foo @1 ()", "expected an entry point name" },
        { "memory cuX (int a)", "expected '@versions'" },
        { "memory cuX @x (int a)", "bad version list" },
        { "memory cuX @1 int a", "expected '('" },
        { "memory cuX @1 (int a", "missing ')'" },
        { "memory cuX @1 (int a) junk", "text after ')'" },
        { "memory cuX @1 (a)", "needs a type and a name" },
        { "memory cuX @1 (out int a)", "is no pointer" },
        { "memory cuX @1 (inp int a)", "is no pointer" },
        { "memory cuX @1 (int a=)", "empty table name" },
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        assert_int_equal(ap_parse_fn(bad[i].line, &fn, err, sizeof(err)), -1);
        if (!strstr(err, bad[i].msg))
            fail_msg("'%s': got '%s', want '%s'", bad[i].line, err, bad[i].msg);
    }
}

static void test_base_and_pointee(void **state)
{
    (void)state;
    char out[64];
    int pt;
    ap_base_name("cuMemcpyHtoD_v2_ptds", out, sizeof(out), &pt);
    assert_string_equal(out, "cuMemcpyHtoD");
    assert_int_equal(pt, 1);
    ap_base_name("cuLaunchKernel_ptsz", out, sizeof(out), &pt);
    assert_string_equal(out, "cuLaunchKernel");
    ap_base_name("cuCtxCreate_v4", out, sizeof(out), &pt);
    assert_string_equal(out, "cuCtxCreate");
    assert_int_equal(pt, 0);
    ap_base_name("cuMemcpy3D_v2", out, sizeof(out), &pt);
    assert_string_equal(out, "cuMemcpy3D");
    ap_base_name("cuInit", out, sizeof(out), &pt);
    assert_string_equal(out, "cuInit");
    ap_pointee("CUdeviceptr *", out, sizeof(out));
    assert_string_equal(out, "CUdeviceptr");
    ap_pointee("const char **", out, sizeof(out));
    assert_string_equal(out, "char *");
    ap_pointee("int", out, sizeof(out));
    assert_string_equal(out, "");
}

static void test_xlat_and_types(void **state)
{
    (void)state;
    struct ap_xlat_row row;
    struct ap_type t;
    char err[256];
    assert_int_equal(ap_parse_xlat("#flags\n", &row, err, sizeof(err)), 2);
    assert_int_equal(ap_parse_xlat("# c\n", &row, err, sizeof(err)), 0);
    assert_int_equal(ap_parse_xlat("CUDA_ERROR_OUT_OF_MEMORY 2 out of memory\n", &row, err, sizeof(err)), 1);
    assert_string_equal(row.name, "CUDA_ERROR_OUT_OF_MEMORY");
    assert_int_equal(row.value, 2);
    assert_string_equal(row.text, "out of memory");
    assert_int_equal(ap_parse_xlat("CU_X 0x10\n", &row, err, sizeof(err)), 1);
    assert_int_equal(row.value, 16);
    assert_int_equal(ap_parse_xlat("CU_X\n", &row, err, sizeof(err)), -1);
    assert_int_equal(ap_parse_type("unsigned long long   uint   8\n", &t, err, sizeof(err)), 1);
    assert_string_equal(t.type, "unsigned long long");
    assert_string_equal(t.kind, "uint");
    assert_int_equal(t.size, 8);
    assert_int_equal(ap_parse_type("void*  ptr 8\n", &t, err, sizeof(err)), 1);
    assert_string_equal(t.type, "void *");
    assert_int_equal(ap_parse_type("int int 99\n", &t, err, sizeof(err)), -1);
}

/* the class column and the effect clause */
static void test_classes_and_effects(void **state)
{
    (void)state;
    struct ap_fn fn;
    char err[256];
    assert_int_equal(ap_parse_fn("copy,memory cuMemsetD8 @2000 (CUdeviceptr_v1 dstDevice, unsigned char uc, "
                                 "unsigned int N)", &fn, err, sizeof(err)), 1);
    assert_int_equal(fn.nclasses, 2);
    assert_string_equal(fn.family, "copy");
    assert_string_equal(fn.classes[1], "memory");
    assert_string_equal(fn.effect.op, "");
    for (int k = 0; k < AP_EFF_ARGS; k++)
        assert_int_equal(fn.effect.arg[k], -1);
    assert_int_equal(ap_parse_fn("memory cuMemAllocPitch_v2 @3020 (out CUdeviceptr * dptr, out size_t * pPitch, "
                                 "size_t WidthInBytes, size_t Height, unsigned int ElementSizeBytes)  "
                                 "alloc=pitched ptr=dptr size=WidthInBytes rows=Height pitch=pPitch\n",
                                 &fn, err, sizeof(err)), 1);
    assert_int_equal(fn.nclasses, 1);
    assert_string_equal(fn.effect.op, "alloc");
    assert_string_equal(fn.effect.kind, "pitched");
    static const int want[AP_EFF_ARGS] = { 0, 2, 3, 1, -1, -1, -1, -1, -1 }; /* ptr size rows pitch ... */
    for (int k = 0; k < AP_EFF_ARGS; k++)
        if (fn.effect.arg[k] != want[k])
            fail_msg("%s: %d, want %d", ap_effect_keys[k], fn.effect.arg[k], want[k]);
    /* after "-> void" too */
    assert_int_equal(ap_parse_fn("exptab T.get @- (out CUcontext * ctx, CUdevice dev) -> void ctx=retain ptr=ctx "
                                 "device=dev", &fn, err, sizeof(err)), 1);
    assert_string_equal(fn.effect.op, "ctx");
    assert_int_equal(fn.effect.arg[4], 1);
    static const struct { const char *line, *msg; } bad[] = {
        { "memory cuX @1 (int a) alloc", "expected OP=KIND or KEY=PARAM" },
        { "memory cuX @1 (int a) grow=plain", "unknown effect 'grow'" },
        { "memory cuX @1 (int a) size=a", "unknown effect 'size'" },
        { "memory cuX @1 (int a) alloc=plain width=a", "unknown effect key 'width'" },
        { "memory cuX @1 (int a) alloc=plain size=b", "size=b names no parameter" },
        { "memory cuX @1 (int a) alloc=plain size=a size=a", "size= given twice" },
        { "memory cuX @1 (int a) alloc=", "alloc= needs a name" },
        { "memory cuX @1 (int a) alloc=plain ptr=a,", "ptr= needs a name" },
        { "memory, cuX @1 (int a)", "expected a family name" },
        { "memory,copy,memory cuX @1 (int a)", "class 'memory' given twice" },
        { "a,b,c,d,e,f,g,h,i cuX @1 (int a)", "too many classes" },
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        assert_int_equal(ap_parse_fn(bad[i].line, &fn, err, sizeof(err)), -1);
        if (!strstr(err, bad[i].msg))
            fail_msg("'%s': got '%s', want '%s'", bad[i].line, err, bad[i].msg);
    }
    /* a %directive line is no row */
    assert_int_equal(ap_parse_fn("%classes a b\n", &fn, err, sizeof(err)), 0);
}

static void test_classes_line(void **state)
{
    (void)state;
    char names[4][AP_CLASS], err[256];
    assert_int_equal(ap_parse_classes("# %classes a\n", names, 4, err, sizeof(err)), 0);
    assert_int_equal(ap_parse_classes("memory cuX @1 ()\n", names, 4, err, sizeof(err)), 0);
    assert_int_equal(ap_parse_classes("%classes device  memory\tcopy\n", names, 4, err, sizeof(err)), 3);
    assert_string_equal(names[0], "device");
    assert_string_equal(names[2], "copy");
    static const struct { const char *line, *msg; } bad[] = {
        { "%classes\t\n", "no names" },
        { "%classes a b a", "'a' given twice" },
        { "%classes a b c d e", "more than 4" },
        { "%classes a,b", "expected a name" },
        { "%classes abcdefghijklmnopq", "too long" },
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        assert_int_equal(ap_parse_classes(bad[i].line, names, 4, err, sizeof(err)), -1);
        if (!strstr(err, bad[i].msg))
            fail_msg("'%s': got '%s', want '%s'", bad[i].line, err, bad[i].msg);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_row),
        cmocka_unit_test(test_roles_and_tables),
        cmocka_unit_test(test_blank_and_errors),
        cmocka_unit_test(test_base_and_pointee),
        cmocka_unit_test(test_xlat_and_types),
        cmocka_unit_test(test_classes_and_effects),
        cmocka_unit_test(test_classes_line),
    };
    return cmocka_run_group_tests_name("apiparse", tests, NULL, NULL);
}
