/* SPDX-License-Identifier: Apache-2.0 */
/* Emulator: the CUDA runtime's private export tables (docs:
 * cudart-private-interface §2-§4): the integrity check against the facts'
 * test vector and its version % 10 rules, the message it hashes, the
 * version gate, each table's size and slots, context-local storage with its
 * destructors, the context checks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pthread.h>
#include <cmocka.h>

#include "emu.h"
#include "exptab.h"
#include "md2.h"

#define OK(x) assert_int_equal((x), CUDA_SUCCESS)
#define NDEV 3

/* "6bd5fb6c-5bf4-e74a-8987-d93912fd9df9" -> the 16 bytes */
static CUuuid uuid(const char *s)
{
    CUuuid u;
    for (int i = 0; i < 16; i++) {
        if (*s == '-')
            s++;
        char h[3] = { s[0], s[1], 0 };
        u.bytes[i] = (char)strtoul(h, NULL, 16);
        s += 2;
    }
    return u;
}

#define ID_CUDART    "6bd5fb6c-5bf4-e74a-8987-d93912fd9df9"
#define ID_HOOKS     "a094798c-2e74-2e74-93f2-0800200c0a66"
#define ID_TLS       "42d85a81-23f6-cb47-8298-f6e78a3aecdc"
#define ID_CLS       "c693336e-1121-df11-a8c3-68f355d89593"
#define ID_CHECKS    "263e8860-7cd2-6143-92f6-bbd5006dfa7e"
#define ID_INTEGRITY "d4082055-bde6-704b-8d34-ba123c66e1f2"
#define ID_UNKNOWN   "f8cff951-2146-8b4e-b9e2-fb469e7c0dd9"

static void *const *table(const char *id)
{
    const void *t = NULL;
    CUuuid u = uuid(id);
    OK(cuGetExportTable(&t, &u));
    assert_non_null(t);
    return t;
}

typedef CUresult (*integrity_fn)(uint32_t, uint64_t, uint64_t[2]);
typedef CUresult (*primary_fn)(CUcontext *, CUdevice);
typedef void (*buf_fn)(void **, size_t *);
typedef void (*cls_dtor)(CUcontext, void *, void *);
typedef CUresult (*cls_put_fn)(CUcontext, void *, void *, cls_dtor);
typedef CUresult (*cls_delete_fn)(CUcontext, void *);
typedef CUresult (*cls_get_fn)(void **, CUcontext, void *);
typedef CUresult (*check_fn)(CUcontext, uint32_t *, void **);
typedef uint32_t (*u32_fn)(void);

static int setup(void **state)
{
    (void)state;
    setenv("TDTRACE_EMU_DEVICES", "3", 1);
    return cuInit(0) == CUDA_SUCCESS ? 0 : -1;
}

/* ---- the integrity check --------------------------------------------- */

static void test_hmac_vector(void **state)
{
    (void)state;
    unsigned char msg[100];
    for (int i = 0; i < 100; i++)
        msg[i] = (unsigned char)((i * 37 + 5) & 0xFF);
    uint64_t out[2];
    td_integrity_digest(msg, sizeof msg, out);
    /* c7ffeca045fbbdc59932722f24d3e6d3, little-endian halves */
    assert_true(out[0] == 0xc5bdfb45a0ecffc7ULL);
    assert_true(out[1] == 0xd3e6d3242f723299ULL);
    unsigned char d[16];
    td_md2("abc", 3, d);
    static const unsigned char abc[16] = {
        0xda, 0x85, 0x3b, 0x0d, 0x3f, 0x88, 0xd9, 0x9b, 0x30, 0x28, 0x3a, 0x69, 0xe6, 0xde, 0xd6, 0xbb,
    };
    assert_memory_equal(d, abc, 16);
}

static void test_version_rules(void **state)
{
    (void)state;
    void *const *t = table(ID_INTEGRITY);
    assert_int_equal((uintptr_t)t[0], 3 * sizeof(void *));
    integrity_fn check = (integrity_fn)t[1];
    assert_non_null(check);
    uint64_t out[2];
    static const uint32_t zero[] = { 13000, 12000, 0, 13010, 4294967290u };
    for (size_t i = 0; i < sizeof zero / sizeof zero[0]; i++) {
        memset(out, 0, sizeof out);
        OK(check(zero[i], 1700000000, out));
        assert_true(out[0] == 0x3341181C03CB675CULL && out[1] == 0x8ED383AA1F4CD1E8ULL);
    }
    static const uint32_t one[] = { 13001, 1, 12991, 4294967291u };
    for (size_t i = 0; i < sizeof one / sizeof one[0]; i++) {
        memset(out, 0, sizeof out);
        OK(check(one[i], 1700000000, out));
        assert_true(out[0] == 0x1841181C03CB675CULL && out[1] == 0x8ED383AA1F4CD1E8ULL);
    }
    assert_int_equal(check(13002, 0, NULL), CUDA_ERROR_INVALID_VALUE);
}

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void put64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* what the runtime computes on its side, from the public entry points */
static void expected(uint32_t version, uint64_t secs, uint64_t out[2])
{
    unsigned char msg[48 + 28 * NDEV];
    int drv, n;
    OK(cuDriverGetVersion(&drv));
    OK(cuDeviceGetCount(&n));
    assert_int_equal(n, NDEV);
    void *const *integ = table(ID_INTEGRITY);
    put32(msg, (uint32_t)drv);
    put32(msg + 4, version);
    put32(msg + 8, (uint32_t)getpid());
    put32(msg + 12, (uint32_t)pthread_self());
    put64(msg + 16, (uint64_t)(uintptr_t)table(ID_CUDART));
    put64(msg + 24, (uint64_t)(uintptr_t)integ);
    put64(msg + 32, (uint64_t)(uintptr_t)integ[1]);
    put64(msg + 40, secs);
    for (int d = 0; d < n; d++) {
        unsigned char *p = msg + 48 + 28 * d;
        CUuuid u;
        OK(cuDeviceGetUuid(&u, d));
        memcpy(p, u.bytes, 16);
        int v;
        OK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, d));
        put32(p + 16, (uint32_t)v);
        OK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, d));
        put32(p + 20, (uint32_t)v);
        OK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, d));
        put32(p + 24, (uint32_t)v);
    }
    unsigned char dig[16];
    static const unsigned char key[16] = {
        0x14, 0x6A, 0xDD, 0xAE, 0x53, 0xA9, 0xA7, 0x52, 0xAA, 0x08, 0x41, 0x36, 0x0B, 0xF5, 0x5A, 0x9F,
    };
    td_hmac_md2(key, sizeof key, msg, sizeof msg, dig);
    out[0] = out[1] = 0;
    for (int i = 0; i < 8; i++) {
        out[0] |= (uint64_t)dig[i] << (8 * i);
        out[1] |= (uint64_t)dig[8 + i] << (8 * i);
    }
}

static void test_digest(void **state)
{
    (void)state;
    integrity_fn check = (integrity_fn)table(ID_INTEGRITY)[1];
    uint64_t secs = (uint64_t)time(NULL), got[2], want[2];
    static const uint32_t versions[] = { 13002, 13003, 13009, 12345 };
    for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++) {
        OK(check(versions[i], secs, got));
        expected(versions[i], secs, want);
        assert_true(got[0] == want[0] && got[1] == want[1]);
    }
    /* the time and the version enter it */
    uint64_t a[2], b[2];
    OK(check(13002, secs, a));
    OK(check(13002, secs + 1, b));
    assert_true(a[0] != b[0] || a[1] != b[1]);
    OK(check(13003, secs, b));
    assert_true(a[0] != b[0] || a[1] != b[1]);
}

/* the message the driver builds, field by field */
static void test_message_layout(void **state)
{
    (void)state;
    struct td_integrity_dev u[2] = { { { 0 }, 0, 0x41, 0 }, { { 0 }, 1, 0x42, 0x1f } };
    for (int i = 0; i < 16; i++) {
        u[0].uuid[i] = (unsigned char)i;
        u[1].uuid[i] = (unsigned char)(0xf0 + i);
    }
    unsigned char m[48 + 56];
    size_t n = td_integrity_message(13000, 13002, 0x01020304, 0xaabbccdd, 0x1122334455667788ULL,
                                    0x99, 0xdeadbeef, 1700000000, u, 2, m);
    assert_int_equal(n, 48 + 56);
    static const unsigned char head[48] = {
        0xc8, 0x32, 0, 0, 0xca, 0x32, 0, 0, 0x04, 0x03, 0x02, 0x01, 0xdd, 0xcc, 0xbb, 0xaa,
        0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0x99, 0, 0, 0, 0, 0, 0, 0,
        0xef, 0xbe, 0xad, 0xde, 0, 0, 0, 0, 0x00, 0xf1, 0x53, 0x65, 0, 0, 0, 0,
    };
    assert_memory_equal(m, head, 48);
    assert_memory_equal(m + 48, u[0].uuid, 16);
    static const unsigned char pci0[12] = { 0, 0, 0, 0, 0x41, 0, 0, 0, 0, 0, 0, 0 };
    assert_memory_equal(m + 64, pci0, 12);
    assert_memory_equal(m + 76, u[1].uuid, 16);
    static const unsigned char pci1[12] = { 1, 0, 0, 0, 0x42, 0, 0, 0, 0x1f, 0, 0, 0 };
    assert_memory_equal(m + 92, pci1, 12);
}

/* another thread's id enters the digest: each thread gets its own answer */
static void *digest_thread(void *arg)
{
    uint64_t *res = arg;
    integrity_fn check = (integrity_fn)table(ID_INTEGRITY)[1];
    OK(check(13002, 1700000000, res));
    expected(13002, 1700000000, res + 2);
    return NULL;
}

static void test_digest_per_thread(void **state)
{
    (void)state;
    uint64_t res[4], mine[2];
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, digest_thread, res), 0);
    pthread_join(th, NULL);
    assert_true(res[0] == res[2] && res[1] == res[3]);
    integrity_fn check = (integrity_fn)table(ID_INTEGRITY)[1];
    OK(check(13002, 1700000000, mine));
    assert_true(mine[0] != res[0] || mine[1] != res[1]);
}

static void test_version_gate(void **state)
{
    (void)state;
    int v = 0;
    OK(cuDriverGetVersion(&v));
    assert_true(v >= 13000);
    assert_int_equal(cuDriverGetVersion(NULL), CUDA_ERROR_INVALID_VALUE);
}

/* ---- the tables ------------------------------------------------------ */

static void test_tables(void **state)
{
    (void)state;
    assert_int_equal((uintptr_t)table(ID_CUDART)[0], 13 * sizeof(void *));
    assert_true((uintptr_t)table(ID_HOOKS)[0] >= 56);
    assert_int_equal((uintptr_t)table(ID_TLS)[0], 4 * sizeof(void *));
    assert_int_equal((uintptr_t)table(ID_CHECKS)[0], 4 * sizeof(void *));
    /* storage is stable: the same address every time */
    assert_ptr_equal(table(ID_CUDART), table(ID_CUDART));
    assert_ptr_equal(table(ID_INTEGRITY), table(ID_INTEGRITY));
    /* CONTEXT_LOCAL_STORAGE has no size slot: put, delete, get */
    void *const *cls = table(ID_CLS);
    assert_non_null(cls[0]);
    assert_non_null(cls[1]);
    assert_non_null(cls[2]);
    const void *t = (const void *)1;
    CUuuid u = uuid(ID_UNKNOWN);
    assert_int_equal(cuGetExportTable(&t, &u), CUDA_ERROR_NOT_FOUND);
    assert_null(t);
    assert_int_equal(cuGetExportTable(NULL, &u), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuGetExportTable(&t, NULL), CUDA_ERROR_INVALID_VALUE);
}

static void test_get_primary_ctx(void **state)
{
    (void)state;
    primary_fn get = (primary_fn)table(ID_CUDART)[2];
    for (int d = 0; d < NDEV; d++) {
        CUcontext c = NULL, r;
        OK(get(&c, d));
        assert_non_null(c);
        unsigned flags;
        int active;
        OK(cuDevicePrimaryCtxGetState(d, &flags, &active));
        assert_int_equal(active, 0); /* not retained */
        OK(cuDevicePrimaryCtxRetain(&r, d));
        assert_ptr_equal(c, r);
        OK(cuDevicePrimaryCtxRelease_v2(d));
    }
    CUcontext c;
    assert_int_equal(get(&c, NDEV), CUDA_ERROR_INVALID_DEVICE);
    assert_int_equal(get(&c, -1), CUDA_ERROR_INVALID_DEVICE);
    assert_int_equal(get(NULL, 0), CUDA_ERROR_INVALID_VALUE);
}

static void test_hooks(void **state)
{
    (void)state;
    void *const *t = table(ID_HOOKS);
    void *b2 = NULL, *b6 = NULL;
    size_t n2 = 0, n6 = 0;
    ((buf_fn)t[2])(&b2, &n2);
    ((buf_fn)t[6])(&b6, &n6);
    assert_non_null(b2);
    assert_non_null(b6);
    assert_true(n2 >= 523);
    assert_true(n6 >= 14);
    for (size_t i = 0; i < n6; i++)
        assert_int_equal(((unsigned char *)b6)[i], 0);
    void *again;
    size_t n;
    ((buf_fn)t[2])(&again, &n);
    assert_ptr_equal(again, b2);
}

static void test_checks(void **state)
{
    (void)state;
    void *const *t = table(ID_CHECKS);
    CUcontext c;
    OK(cuDevicePrimaryCtxRetain(&c, 0));
    uint32_t wrapped = 7;
    void *unwrapped = (void *)1;
    OK(((check_fn)t[2])(c, &wrapped, &unwrapped));
    assert_int_equal(wrapped, 0);
    wrapped = 7;
    OK(((check_fn)t[2])(NULL, &wrapped, &unwrapped));
    assert_int_equal(wrapped, 0);
    assert_int_equal(((check_fn)t[2])((CUcontext)&wrapped, &wrapped, &unwrapped), CUDA_ERROR_INVALID_CONTEXT);
    assert_non_null(t[3]);
    (void)((u32_fn)t[3])();
    OK(cuDevicePrimaryCtxRelease_v2(0));
}

/* ---- context-local storage ------------------------------------------- */

static int dtor_calls;
static CUcontext dtor_ctx;
static void *dtor_key, *dtor_value;

static void dtor(CUcontext c, void *key, void *value)
{
    dtor_calls++;
    dtor_ctx = c;
    dtor_key = key;
    dtor_value = value;
}

static void test_cls(void **state)
{
    (void)state;
    void *const *t = table(ID_CLS);
    cls_put_fn put = (cls_put_fn)t[0];
    cls_delete_fn del = (cls_delete_fn)t[1];
    cls_get_fn get = (cls_get_fn)t[2];
    static int key1, key2;
    void *v = NULL;

    /* no current context */
    OK(cuCtxSetCurrent(NULL));
    assert_int_equal(get(&v, NULL, &key1), CUDA_ERROR_INVALID_CONTEXT);

    CUcontext p;
    OK(cuDevicePrimaryCtxRetain(&p, 1));
    OK(cuCtxSetCurrent(p));
    assert_int_equal(get(&v, NULL, &key1), CUDA_ERROR_INVALID_HANDLE);
    OK(put(NULL, &key1, (void *)0x100, dtor));
    OK(get(&v, NULL, &key1));
    assert_ptr_equal(v, (void *)0x100);
    OK(get(&v, p, &key1));
    assert_ptr_equal(v, (void *)0x100);
    OK(put(p, &key1, (void *)0x101, dtor)); /* replaces */
    OK(get(&v, NULL, &key1));
    assert_ptr_equal(v, (void *)0x101);
    assert_int_equal(get(&v, NULL, &key2), CUDA_ERROR_INVALID_HANDLE);
    /* another context does not see it */
    CUcontext p0;
    OK(cuDevicePrimaryCtxRetain(&p0, 0));
    assert_int_equal(get(&v, p0, &key1), CUDA_ERROR_INVALID_HANDLE);

    /* delete forgets without the destructor */
    OK(put(p, &key2, (void *)0x200, dtor));
    dtor_calls = 0;
    OK(del(NULL, &key2));
    assert_int_equal(dtor_calls, 0);
    assert_int_equal(get(&v, NULL, &key2), CUDA_ERROR_INVALID_HANDLE);
    assert_int_equal(del(NULL, &key2), CUDA_ERROR_INVALID_HANDLE);

    /* a reset of the primary context runs the destructor, once */
    OK(cuDevicePrimaryCtxReset_v2(1));
    assert_int_equal(dtor_calls, 1);
    assert_ptr_equal(dtor_ctx, p);
    assert_ptr_equal(dtor_key, &key1);
    assert_ptr_equal(dtor_value, (void *)0x101);
    OK(cuDevicePrimaryCtxRetain(&p, 1));
    assert_int_equal(get(&v, p, &key1), CUDA_ERROR_INVALID_HANDLE);
    OK(cuDevicePrimaryCtxRelease_v2(1));
    assert_int_equal(dtor_calls, 1);

    /* so does the last release, and destroying a created context */
    OK(cuDevicePrimaryCtxRetain(&p, 1));
    OK(put(p, &key1, (void *)0x102, dtor));
    OK(cuDevicePrimaryCtxRelease_v2(1));
    assert_int_equal(dtor_calls, 2);
    assert_ptr_equal(dtor_value, (void *)0x102);
    CUcontext c;
    OK(cuCtxCreate_v2(&c, 0, 2));
    OK(put(NULL, &key1, (void *)0x103, dtor));
    OK(put(NULL, &key2, (void *)0x104, NULL)); /* no destructor is fine */
    OK(cuCtxDestroy_v2(c));
    assert_int_equal(dtor_calls, 3);
    assert_ptr_equal(dtor_ctx, c);
    assert_ptr_equal(dtor_value, (void *)0x103);

    /* a handle that is no context */
    assert_int_equal(put((CUcontext)&key1, &key1, NULL, NULL), CUDA_ERROR_INVALID_CONTEXT);
    assert_int_equal(get(NULL, p0, &key1), CUDA_ERROR_INVALID_VALUE);
    OK(cuCtxSetCurrent(NULL));
    OK(cuDevicePrimaryCtxRelease_v2(0));
}

/* a created context is still usable in its destructors */
static CUresult dtor_ctx_result;
static void live_dtor(CUcontext c, void *key, void *value)
{
    (void)key;
    (void)value;
    unsigned long long id;
    dtor_ctx_result = cuCtxGetId(c, &id);
}

static void test_cls_destroy_live(void **state)
{
    (void)state;
    void *const *t = table(ID_CLS);
    static int key;
    CUcontext c;
    OK(cuCtxCreate_v2(&c, 0, 0));
    OK(((cls_put_fn)t[0])(c, &key, &key, live_dtor));
    dtor_ctx_result = CUDA_ERROR_UNKNOWN;
    OK(cuCtxDestroy_v2(c));
    OK(dtor_ctx_result);
}

/* a destructor may call back into the driver, storage included */
static void reentrant_dtor(CUcontext c, void *key, void *value)
{
    (void)value;
    void *const *t = table(ID_CLS);
    void *v;
    if (((cls_get_fn)t[2])(&v, c, key) == CUDA_ERROR_INVALID_HANDLE)
        dtor_calls++;
}

static void test_cls_reentrant(void **state)
{
    (void)state;
    void *const *t = table(ID_CLS);
    static int key;
    CUcontext p;
    OK(cuDevicePrimaryCtxRetain(&p, 2));
    OK(((cls_put_fn)t[0])(p, &key, &key, reentrant_dtor));
    dtor_calls = 0;
    OK(cuDevicePrimaryCtxReset_v2(2));
    assert_int_equal(dtor_calls, 1);
}

/* many threads: each its own key, all on the same context */
static CUcontext mt_ctx;
static void *cls_thread(void *arg)
{
    void *const *t = table(ID_CLS);
    cls_put_fn put = (cls_put_fn)t[0];
    cls_get_fn get = (cls_get_fn)t[2];
    cls_delete_fn del = (cls_delete_fn)t[1];
    char *key = arg;
    int bad = 0;
    if (cuCtxSetCurrent(mt_ctx))
        return (void *)1;
    for (int i = 0; i < 2000; i++) {
        void *v = NULL;
        bad |= put(NULL, key, (void *)(uintptr_t)(i + 1), NULL) != CUDA_SUCCESS;
        bad |= get(&v, NULL, key) != CUDA_SUCCESS || v != (void *)(uintptr_t)(i + 1);
        if (i % 3 == 0)
            bad |= del(NULL, key) != CUDA_SUCCESS;
    }
    return (void *)(uintptr_t)bad;
}

static void test_cls_threads(void **state)
{
    (void)state;
    OK(cuDevicePrimaryCtxRetain(&mt_ctx, 0));
    static char keys[8];
    pthread_t th[8];
    for (int i = 0; i < 8; i++)
        assert_int_equal(pthread_create(&th[i], NULL, cls_thread, &keys[i]), 0);
    for (int i = 0; i < 8; i++) {
        void *r;
        pthread_join(th[i], &r);
        assert_null(r);
    }
    OK(cuDevicePrimaryCtxReset_v2(0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hmac_vector),
        cmocka_unit_test(test_message_layout),
        cmocka_unit_test(test_version_rules),
        cmocka_unit_test(test_digest),
        cmocka_unit_test(test_digest_per_thread),
        cmocka_unit_test(test_version_gate),
        cmocka_unit_test(test_tables),
        cmocka_unit_test(test_get_primary_ctx),
        cmocka_unit_test(test_hooks),
        cmocka_unit_test(test_checks),
        cmocka_unit_test(test_cls),
        cmocka_unit_test(test_cls_destroy_live),
        cmocka_unit_test(test_cls_reentrant),
        cmocka_unit_test(test_cls_threads),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
