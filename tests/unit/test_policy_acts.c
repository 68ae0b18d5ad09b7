/* SPDX-License-Identifier: Apache-2.0 */
/* Which policies make the shim look at every call. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "policy.h"

static int acts(const char *text)
{
    struct td_policy *p;
    struct td_policy_error e;
    assert_int_equal(td_policy_parse(text, strlen(text), "t", &p, &e), 0);
    int r = td_policy_acts_on_calls(p);
    td_policy_free(p);
    return r;
}

static void test_acts(void **state)
{
    (void)state;
    assert_false(acts(""));
    assert_false(acts("mode enforce\nbackend emulate\nemulate devices=2\ntrace %memory\ngpu-dev /tmp/x\n"));
    assert_false(acts("ioctl deny NV_ESC_RM_CONTROL\n")); /* the kernel enforces those */
    assert_true(acts("deny cuMemAlloc\n"));
    assert_true(acts("inject cuMemAlloc error=CUDA_ERROR_OUT_OF_MEMORY\n"));
    assert_true(acts("memory-limit 8G\n"));
    assert_true(acts("device 1 hide\n"));
    assert_true(acts("device 1 -> 0\n"));
    assert_false(td_policy_acts_on_calls(NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = { cmocka_unit_test(test_acts) };
    return cmocka_run_group_tests_name("policy_acts", tests, NULL, NULL);
}
