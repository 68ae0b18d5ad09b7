/* SPDX-License-Identifier: Apache-2.0 */
/* Emulator: CUDA_VISIBLE_DEVICES set but empty hides every device. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "emu.h"

static void test_no_devices(void **state)
{
    (void)state;
    setenv("CUDA_VISIBLE_DEVICES", "", 1);
    assert_int_equal(cuInit(0), CUDA_ERROR_NO_DEVICE);
    assert_int_equal(cuInit(0), CUDA_ERROR_NO_DEVICE);
    int n;
    assert_int_equal(cuDeviceGetCount(&n), CUDA_ERROR_NOT_INITIALIZED);
}

int main(void)
{
    const struct CMUnitTest tests[] = { cmocka_unit_test(test_no_devices) };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
