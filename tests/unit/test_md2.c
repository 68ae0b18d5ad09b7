/* SPDX-License-Identifier: Apache-2.0 */
/* MD2 against RFC 1319 §A.5 and HMAC-MD2 against the runtime facts' vector. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "md2.h"

static void hex(const unsigned char d[16], char out[33])
{
    for (int i = 0; i < 16; i++)
        snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static const struct { const char *msg, *md; } rfc1319[] = {
    { "", "8350e5a3e24c153df2275c9f80692773" },
    { "a", "32ec01ec4a6dac72c0ab96fb34c0b5d1" },
    { "abc", "da853b0d3f88d99b30283a69e6ded6bb" },
    { "message digest", "ab4f496bfb2a530b219ff33031fe06b0" },
    { "abcdefghijklmnopqrstuvwxyz", "4e8ddff3650292ab5a4108c3aa47940b" },
    { "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
      "da33def2a42df13975352846c30338cd" },
    { "1234567890123456789012345678901234567890"
      "1234567890123456789012345678901234567890",
      "d5976f79d83d3a0dc9806c3c66f3efd8" },
};

static void test_rfc1319_suite(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof rfc1319 / sizeof rfc1319[0]; i++) {
        unsigned char d[16];
        char h[33];
        td_md2(rfc1319[i].msg, strlen(rfc1319[i].msg), d);
        hex(d, h);
        assert_string_equal(h, rfc1319[i].md);
    }
}

/* Across the block boundaries (16, 32, 48, 64): the digest is deterministic
 * and each extra byte changes it (padding is length-dependent). */
static void test_lengths_stable(void **state)
{
    (void)state;
    unsigned char buf[70], a[16], b[16];
    for (int i = 0; i < 70; i++)
        buf[i] = (unsigned char)(i * 7);
    for (size_t n = 0; n < sizeof buf; n++) {
        td_md2(buf, n, a);
        td_md2(buf, n, b);
        assert_memory_equal(a, b, 16);
        if (n) {
            td_md2(buf, n - 1, b);
            assert_memory_not_equal(a, b, 16);
        }
    }
}

static const unsigned char cudart_key[16] = {
    0x14, 0x6A, 0xDD, 0xAE, 0x53, 0xA9, 0xA7, 0x52,
    0xAA, 0x08, 0x41, 0x36, 0x0B, 0xF5, 0x5A, 0x9F,
};

static void test_hmac_vector(void **state)
{
    (void)state;
    unsigned char msg[100], d[16];
    char h[33];
    for (int i = 0; i < 100; i++)
        msg[i] = (unsigned char)((i * 37 + 5) & 0xFF);
    td_hmac_md2(cudart_key, sizeof cudart_key, msg, sizeof msg, d);
    hex(d, h);
    assert_string_equal(h, "c7ffeca045fbbdc59932722f24d3e6d3");
}

/* A key longer than the block is hashed first (RFC 2104 §2), so HMAC with
 * K and with MD2(K) agree. */
static void test_hmac_long_key(void **state)
{
    (void)state;
    unsigned char key[40], hk[16], a[16], b[16];
    for (int i = 0; i < 40; i++)
        key[i] = (unsigned char)i;
    td_md2(key, sizeof key, hk);
    td_hmac_md2(key, sizeof key, "abc", 3, a);
    td_hmac_md2(hk, sizeof hk, "abc", 3, b);
    assert_memory_equal(a, b, 16);
    td_hmac_md2(key, 16, "abc", 3, b);
    assert_memory_not_equal(a, b, 16);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rfc1319_suite),
        cmocka_unit_test(test_lengths_stable),
        cmocka_unit_test(test_hmac_vector),
        cmocka_unit_test(test_hmac_long_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
