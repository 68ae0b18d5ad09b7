/* SPDX-License-Identifier: Apache-2.0 */
/* cuRAND's MT19937 engine (src/hostlib/curand/mt19937.c) without NVIDIA's
 * library: the jump table's polynomials for 2^15 and 2^16 steps (made by
 * tools/mt19937-jump.c as the one for 2^2048 is) against single steps, and
 * the host layout's word stream read in one call, in pieces, backwards and
 * with seeds that share their low 32 bits. tests/hostlib/curand.c compares
 * the stream itself with NVIDIA's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rng.h"

static void test_jump_against_steps(void **state)
{
    (void)state;
    for (int k = 15; k <= 16; k++) {
        uint32_t a[MT19937_N], b[MT19937_N];
        mt19937_init_genrand(a, 1234u + (uint32_t)k);
        memcpy(b, a, sizeof a);
        assert_int_equal(mt19937_jump_k(a, k), 0);
        mt19937_step(b, 1ull << k);
        assert_memory_equal(a, b, sizeof a);
        /* one step more is not the same state */
        mt19937_step(b, 1);
        assert_memory_not_equal(a, b, sizeof a);
    }
    /* 2^15 twice is 2^16 */
    uint32_t a[MT19937_N], b[MT19937_N];
    mt19937_init_genrand(a, 7);
    memcpy(b, a, sizeof a);
    assert_int_equal(mt19937_jump_k(a, 15), 0);
    assert_int_equal(mt19937_jump_k(a, 15), 0);
    assert_int_equal(mt19937_jump_k(b, 16), 0);
    assert_memory_equal(a, b, sizeof a);
    assert_int_equal(mt19937_jump_k(a, 17), -2); /* not in the table */
}

static void test_first_word(void **state)
{
    (void)state;
    struct mt19937 *m = mt19937_new();
    assert_non_null(m);
    uint32_t x;
    mt19937_words(m, 5489, 0, &x, 1);
    assert_int_equal(x, 3499211612u); /* std::mt19937's first output */
    mt19937_free(m);
}

static void test_stream_in_pieces(void **state)
{
    (void)state;
    const size_t n = 3 * MT19937_THREADS + 123;
    uint32_t *all = malloc(n * 4), *part = malloc(n * 4);
    struct mt19937 *m = mt19937_new(), *o = mt19937_new();
    assert_true(all && part && m && o);
    mt19937_words(m, 42, 0, all, n);
    /* pieces of odd sizes, one generator */
    for (size_t p = 0, step = 1; p < n; p += step, step = step * 7 + 3) {
        size_t k = n - p < step ? n - p : step;
        mt19937_words(o, 42, p, part + p, k);
    }
    assert_memory_equal(all, part, n * 4);
    /* backwards (the chain of start states walked again) */
    mt19937_words(o, 42, 17, part, 9000);
    assert_memory_equal(all + 17, part, 9000 * 4);
    /* the low 32 bits of the seed */
    mt19937_words(o, 42 + (1ull << 32), 0, part, n);
    assert_memory_equal(all, part, n * 4);
    mt19937_words(o, 43, 0, part, 64);
    assert_memory_not_equal(all, part, 64 * 4);
    mt19937_free(m);
    mt19937_free(o);
    free(all);
    free(part);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jump_against_steps),
        cmocka_unit_test(test_first_word),
        cmocka_unit_test(test_stream_in_pieces),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
