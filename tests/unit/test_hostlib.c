/* SPDX-License-Identifier: Apache-2.0 */
/* The host libraries' shared pieces that need no device: the half,
 * bfloat16 and TF32 roundings, operand extents, the handle registry. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "hostlib.h"

static float f(uint32_t u)
{
    float x;
    memcpy(&x, &u, 4);
    return x;
}

static uint32_t u(float x)
{
    uint32_t v;
    memcpy(&v, &x, 4);
    return v;
}

static void test_half(void **state)
{
    (void)state;
    assert_int_equal(hl_f2h(1.0f), 0x3c00);
    assert_int_equal(hl_f2h(-2.0f), 0xc000);
    assert_int_equal(hl_f2h(65504.0f), 0x7bff);
    assert_int_equal(hl_f2h(65519.0f), 0x7bff);          /* below the midpoint */
    assert_int_equal(hl_f2h(65520.0f), 0x7c00);          /* the midpoint rounds to even: inf */
    assert_int_equal(hl_f2h(INFINITY), 0x7c00);
    assert_int_equal(hl_f2h(-0.0f), 0x8000);
    assert_true((hl_f2h(NAN) & 0x7c00) == 0x7c00 && (hl_f2h(NAN) & 0x3ff) != 0);
    /* 1 + 2^-11 is a tie between 1 and 1 + 2^-10: to even (1) */
    assert_int_equal(hl_f2h(1.0f + 0x1p-11f), 0x3c00);
    assert_int_equal(hl_f2h(1.0f + 0x1p-10f + 0x1p-11f), 0x3c02); /* tie to even upward */
    assert_int_equal(hl_f2h(1.0f + 0x1p-11f + 0x1p-20f), 0x3c01); /* above the tie */
    /* subnormals: 2^-24 is the smallest; 2^-25 is a tie with 0 */
    assert_int_equal(hl_f2h(0x1p-24f), 0x0001);
    assert_int_equal(hl_f2h(0x1p-25f), 0x0000);
    assert_int_equal(hl_f2h(0x1.8p-25f), 0x0001);
    assert_int_equal(hl_f2h(0x1p-14f), 0x0400);          /* the smallest normal */
    assert_int_equal(hl_f2h(0x1p-14f - 0x1p-25f), 0x0400); /* rounds up into the normals */
    /* every half converts back exactly, and again to itself */
    for (uint32_t h = 0; h < 0x10000; h++) {
        if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff))
            continue; /* NaN */
        assert_int_equal(hl_f2h(hl_h2f((uint16_t)h)), h);
    }
    assert_true(hl_h2f(0x0001) == 0x1p-24f);
}

static void test_bf16_tf32(void **state)
{
    (void)state;
    assert_int_equal(hl_f2bf(1.0f), 0x3f80);
    assert_int_equal(hl_f2bf(f(0x3f808000)), 0x3f80);    /* tie, even below */
    assert_int_equal(hl_f2bf(f(0x3f818000)), 0x3f82);    /* tie, even above */
    assert_int_equal(hl_f2bf(f(0x3f808001)), 0x3f81);
    assert_int_equal(hl_f2bf(f(0x7f7fffff)), 0x7f80);    /* the largest float rounds to inf */
    assert_true((hl_f2bf(NAN) & 0x7f80) == 0x7f80 && (hl_f2bf(NAN) & 0x7f) != 0);
    assert_true(hl_bf2f(0x3f80) == 1.0f);
    /* TF32 keeps 10 mantissa bits; ties go away from zero */
    assert_int_equal(u(hl_tf32(f(0x3f801000))), 0x3f802000);
    assert_int_equal(u(hl_tf32(f(0xbf801000))), 0xbf802000);
    assert_int_equal(u(hl_tf32(f(0x3f800fff))), 0x3f800000);
    assert_int_equal(u(hl_tf32(f(0x3f803000))), 0x3f804000);
    assert_true(hl_tf32(INFINITY) == INFINITY);
    assert_true(isnan(hl_tf32(NAN)));
}

static void test_extents(void **state)
{
    (void)state;
    assert_int_equal(hl_vec_bytes(0, 1, 4), 0);
    assert_int_equal(hl_vec_bytes(-3, 1, 4), 0);
    assert_int_equal(hl_vec_bytes(10, 1, 4), 40);
    assert_int_equal(hl_vec_bytes(10, -3, 8), (9 * 3 + 1) * 8);
    assert_int_equal(hl_vec_bytes(10, 0, 8), 8);
    assert_int_equal(hl_vec_bytes(INT64_MAX, 2, 4), -1);
    assert_int_equal(hl_vec_bytes(3, INT64_MIN, 4), -1);
    assert_int_equal(hl_mat_bytes(3, 4, 5, 4), (3 * 5 + 3) * 4);
    assert_int_equal(hl_mat_bytes(0, 4, 5, 4), 0);
    assert_int_equal(hl_mat_bytes(6, 4, 5, 4), -1);         /* ld < rows */
    assert_int_equal(hl_mat_bytes(1, INT64_MAX, 1 << 20, 8), -1);
    assert_int_equal(hl_batch_bytes(100, 3, 40, 4), 2 * 40 * 4 + 100);
    assert_int_equal(hl_batch_bytes(100, 3, 0, 4), 100);    /* a broadcast operand */
    assert_int_equal(hl_batch_bytes(100, 3, -1, 4), -1);
    assert_int_equal(hl_batch_bytes(100, INT64_MAX, INT64_MAX, 4), -1);
}

static void test_handles(void **state)
{
    (void)state;
    static char objs[5000];
    assert_false(hl_handle_live(NULL, 1));
    assert_false(hl_handle_live(&objs[0], 1));
    for (int i = 0; i < 5000; i++)
        assert_int_equal(hl_handle_add(&objs[i], 1 + (i & 1)), 0);
    for (int i = 0; i < 5000; i++) {
        assert_true(hl_handle_live(&objs[i], 1 + (i & 1)));
        assert_false(hl_handle_live(&objs[i], 2 - (i & 1))); /* the wrong kind */
    }
    for (int i = 0; i < 5000; i += 2)
        assert_true(hl_handle_remove(&objs[i], 1));
    assert_false(hl_handle_remove(&objs[0], 1));              /* twice */
    assert_false(hl_handle_remove(&objs[1], 1));              /* the wrong kind */
    for (int i = 0; i < 5000; i++)
        assert_int_equal(hl_handle_live(&objs[i], 1 + (i & 1)), i & 1);
    /* tombstones are reused and the set still finds everything */
    for (int i = 0; i < 5000; i += 2)
        assert_int_equal(hl_handle_add(&objs[i], 3), 0);
    for (int i = 0; i < 5000; i++)
        assert_true(hl_handle_live(&objs[i], i & 1 ? 2 : 3));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_half),
        cmocka_unit_test(test_bf16_tf32),
        cmocka_unit_test(test_extents),
        cmocka_unit_test(test_handles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
