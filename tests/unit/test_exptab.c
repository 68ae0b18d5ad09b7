/* SPDX-License-Identifier: Apache-2.0 */
/* Export tables by UUID, and the integrity answer (docs/cuda-runtime-interface.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "exptab.h"
#include "md2.h"

static void test_find(void **state)
{
    (void)state;
    const unsigned char cls[16] = { 0xc6, 0x93, 0x33, 0x6e, 0x11, 0x21, 0xdf, 0x11,
                                    0xa8, 0xc3, 0x68, 0xf3, 0x55, 0xd8, 0x95, 0x93 };
    assert_int_equal(td_exptab_find(cls), TD_EXPTAB_CONTEXT_LOCAL_STORAGE);
    assert_false(td_exptabs[TD_EXPTAB_CONTEXT_LOCAL_STORAGE].sized);
    assert_true(td_exptabs[TD_EXPTAB_INTEGRITY_CHECK].sized);
    unsigned char other[16] = { 0xf8, 0xcf, 0xf9, 0x51 };
    assert_int_equal(td_exptab_find(other), -1);
    for (int i = 0; i < TD_EXPTAB__COUNT; i++)
        assert_int_equal(td_exptab_find(td_exptabs[i].uuid), i);
}

static void test_constant_answers(void **state)
{
    (void)state;
    uint64_t out[2];
    td_integrity_answer(13000, 13000, 1, 2, 3, 4, 5, 6, NULL, 0, out);
    assert_true(out[0] == 0x3341181C03CB675CULL && out[1] == 0x8ED383AA1F4CD1E8ULL);
    td_integrity_answer(13000, 13001, 1, 2, 3, 4, 5, 6, NULL, 0, out);
    assert_true(out[0] == 0x1841181C03CB675CULL && out[1] == 0x8ED383AA1F4CD1E8ULL);
}

/* version 13002: HMAC-MD2 over the packed little-endian record, built here
 * independently, byte by byte */
static void test_hmac_answer(void **state)
{
    (void)state;
    struct td_integrity_dev d[2] = {
        { { 0 }, 0, 0x18, 0 },
        { { 0 }, 0, 0x2a, 0 },
    };
    for (int i = 0; i < 16; i++) {
        d[0].uuid[i] = (unsigned char)(i * 7);
        d[1].uuid[i] = (unsigned char)(255 - i);
    }
    unsigned char msg[48 + 56];
    memset(msg, 0, sizeof(msg));
    uint32_t w32[4] = { 13000, 13002, 4242, 0xdeadbeef };
    uint64_t w64[4] = { 0x7f0000001000ULL, 0x7f0000002000ULL, 0x7f0000003000ULL, 1790000000ULL };
    for (int k = 0; k < 4; k++)
        for (int b = 0; b < 4; b++)
            msg[k * 4 + b] = (unsigned char)(w32[k] >> (8 * b));
    for (int k = 0; k < 4; k++)
        for (int b = 0; b < 8; b++)
            msg[16 + k * 8 + b] = (unsigned char)(w64[k] >> (8 * b));
    for (int i = 0; i < 2; i++) {
        unsigned char *p = msg + 48 + 28 * i;
        memcpy(p, d[i].uuid, 16);
        p[20] = (unsigned char)d[i].pci_bus;
    }
    static const unsigned char key[16] = { 0x14, 0x6A, 0xDD, 0xAE, 0x53, 0xA9, 0xA7, 0x52,
                                           0xAA, 0x08, 0x41, 0x36, 0x0B, 0xF5, 0x5A, 0x9F };
    unsigned char want[16];
    td_hmac_md2(key, 16, msg, sizeof(msg), want);
    uint64_t out[2];
    td_integrity_answer(w32[0], w32[1], w32[2], w32[3], w64[0], w64[1], w64[2], w64[3], d, 2, out);
    assert_memory_equal(out, want, 16); /* little-endian u64s are the digest's bytes */
    /* every input matters */
    uint64_t other[2];
    td_integrity_answer(w32[0], w32[1], w32[2], w32[3], w64[0], w64[1], w64[2] + 8, w64[3], d, 2, other);
    assert_memory_not_equal(out, other, 16);
    td_integrity_answer(w32[0], w32[1], w32[2], w32[3], w64[0], w64[1], w64[2], w64[3], d, 1, other);
    assert_memory_not_equal(out, other, 16);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_find),
        cmocka_unit_test(test_constant_answers),
        cmocka_unit_test(test_hmac_answer),
    };
    return cmocka_run_group_tests_name("exptab", tests, NULL, NULL);
}
