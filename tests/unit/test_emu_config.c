/* SPDX-License-Identifier: Apache-2.0 */
/* Emulator configuration: the parsers (pure functions), then one process
 * configured through the environment: 3 t4 devices of 1 GiB, of which
 * CUDA_VISIBLE_DEVICES shows physical 2 then 0. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "emu.h"

#define OK(x) assert_int_equal((x), CUDA_SUCCESS)

static void test_parse_size(void **state)
{
    (void)state;
    static const struct { const char *s; unsigned long long v; } good[] = {
        { "0", 0 }, { "123", 123 }, { "4K", 4096 }, { "4k", 4096 }, { "16M", 16ULL << 20 },
        { "16MiB", 16ULL << 20 }, { "2G", 2ULL << 30 }, { "2GB", 2ULL << 30 }, { "1T", 1ULL << 40 },
        { "100B", 100 }, { " 8G ", 8ULL << 30 },
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        unsigned long long v = 1;
        assert_int_equal(emu_parse_size(good[i].s, &v), 0);
        assert_true(v == good[i].v);
    }
    static const char *bad[] = { "", "G", "-1", "1X", "1.5G", "12 34", "99999999999999999999",
                                 "20000000000T", "1iB", NULL };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        unsigned long long v;
        assert_int_equal(emu_parse_size(bad[i], &v), -1);
    }
    int n;
    assert_int_equal(emu_parse_count("8", &n), 0);
    assert_int_equal(n, 8);
    assert_int_equal(emu_parse_count("0", &n), 0);
    assert_int_equal(emu_parse_count("65", &n), -1);
    assert_int_equal(emu_parse_count("two", &n), -1);
    assert_int_equal(emu_parse_count("-1", &n), -1);
}

static void test_uuid(void **state)
{
    (void)state;
    const struct emu_profile *p = emu_profile_find("h100"), *q = emu_profile_find("a100");
    CUuuid a, b, c, a2;
    emu_make_uuid(p, 0, &a);
    emu_make_uuid(p, 1, &b);
    emu_make_uuid(q, 0, &c);
    emu_make_uuid(p, 0, &a2);
    assert_memory_not_equal(a.bytes, b.bytes, 16);
    assert_memory_not_equal(a.bytes, c.bytes, 16);
    assert_memory_equal(a.bytes, a2.bytes, 16);
    char s[41];
    emu_format_uuid(&a, s);
    assert_int_equal(strlen(s), 40);
    assert_memory_equal(s, "GPU-", 4);
    assert_int_equal(s[12], '-');
}

static void test_parse_visible(void **state)
{
    (void)state;
    const struct emu_profile *p = emu_profile_default();
    CUuuid u[4];
    for (int i = 0; i < 4; i++)
        emu_make_uuid(p, i, &u[i]);
    int out[EMU_MAX_DEVICES];
    assert_int_equal(emu_parse_visible("", 4, u, out), 0);
    assert_int_equal(emu_parse_visible("2,0", 4, u, out), 2);
    assert_int_equal(out[0], 2);
    assert_int_equal(out[1], 0);
    assert_int_equal(emu_parse_visible("1, 3", 4, u, out), 2);
    assert_int_equal(out[1], 3);
    /* parsing stops at the first invalid entry */
    assert_int_equal(emu_parse_visible("1,7,2", 4, u, out), 1);
    assert_int_equal(emu_parse_visible("1,x,2", 4, u, out), 1);
    assert_int_equal(emu_parse_visible("-1", 4, u, out), 0);
    assert_int_equal(emu_parse_visible("0,0,1", 4, u, out), 1);
    /* UUIDs, full or as a unique prefix */
    char s[64], full[41];
    emu_format_uuid(&u[3], full);
    snprintf(s, sizeof s, "%s,1", full);
    assert_int_equal(emu_parse_visible(s, 4, u, out), 2);
    assert_int_equal(out[0], 3);
    assert_int_equal(out[1], 1);
    snprintf(s, sizeof s, "%.12s", full);
    assert_int_equal(emu_parse_visible(s, 4, u, out), 1);
    assert_int_equal(out[0], 3);
    assert_int_equal(emu_parse_visible("GPU-zzzz", 4, u, out), 0);
    assert_int_equal(emu_parse_visible("GPU-", 4, u, out), 0);
}

static void test_parse_timeout(void **state)
{
    (void)state;
    static const struct { const char *s; unsigned ms; } ok[] = {
        { "30", 30000 }, { "30s", 30000 }, { "2.5", 2500 }, { "0.25s", 250 }, { "500ms", 500 },
        { "0", 0 }, { "0.0001", 1 }, { " 7", 7000 }, { "2147483648ms", 2147483648u },
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        unsigned ms = 12345;
        assert_int_equal(emu_parse_timeout(ok[i].s, &ms), 0);
        assert_int_equal(ms, ok[i].ms);
    }
    static const char *const bad[] = { "", "s", "-1", "1m", "1 s", "ten", "1.5.2", "99999999999999999999",
                                       "2147484s", "1e3", NULL };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        unsigned ms = 12345;
        assert_int_equal(emu_parse_timeout(bad[i], &ms), -1);
        assert_int_equal(ms, 12345);
    }
}

static void test_environment(void **state)
{
    (void)state;
    char err[256];
    struct emu_config cfg;
    setenv("TDTRACE_EMU_PROFILE", "nosuch", 1);
    assert_int_equal(emu_config_load(&cfg, err, sizeof err), -1);
    assert_non_null(strstr(err, "h100"));
    setenv("TDTRACE_EMU_PROFILE", "T4", 1);
    setenv("TDTRACE_EMU_DEVICES", "100", 1);
    assert_int_equal(emu_config_load(&cfg, err, sizeof err), -1);
    setenv("TDTRACE_EMU_DEVICES", "3", 1);
    setenv("TDTRACE_EMU_MEMORY", "lots", 1);
    assert_int_equal(emu_config_load(&cfg, err, sizeof err), -1);
    setenv("TDTRACE_EMU_MEMORY", "1GiB", 1);
    /* the launch limits and threads: a bad value says so */
    setenv("TDTRACE_EMU_TIMEOUT", "soon", 1);
    assert_int_equal(emu_config_load(&cfg, err, sizeof err), -1);
    assert_non_null(strstr(err, "TDTRACE_EMU_TIMEOUT=soon"));
    setenv("TDTRACE_EMU_TIMEOUT", "1.5", 1);
    setenv("TDTRACE_EMU_MAX_INSTRUCTIONS", "1e9", 1);
    assert_int_equal(emu_config_load(&cfg, err, sizeof err), -1);
    assert_non_null(strstr(err, "TDTRACE_EMU_MAX_INSTRUCTIONS=1e9"));
    setenv("TDTRACE_EMU_MAX_INSTRUCTIONS", "1000000000", 1);
    setenv("TDTRACE_EMU_THREADS", "0", 1);
    assert_int_equal(emu_config_load(&cfg, err, sizeof err), -1);
    setenv("TDTRACE_EMU_THREADS", "65", 1);
    assert_int_equal(emu_config_load(&cfg, err, sizeof err), -1);
    assert_non_null(strstr(err, "TDTRACE_EMU_THREADS=65"));
    setenv("TDTRACE_EMU_THREADS", "2", 1);
    /* the PTX engine: one of engines.def's names */
    setenv("TDTRACE_EMU_ENGINE", "fast", 1);
    assert_int_equal(emu_config_load(&cfg, err, sizeof err), -1);
    assert_non_null(strstr(err, "TDTRACE_EMU_ENGINE=fast: not an engine (interp, jit or auto)"));
    setenv("TDTRACE_EMU_ENGINE", "jit", 1);
    assert_int_equal(emu_config_load(&cfg, err, sizeof err), 0);
    assert_int_equal(cfg.engine, 1);
    unsetenv("TDTRACE_EMU_ENGINE");
    assert_int_equal(emu_config_load(&cfg, err, sizeof err), 0);
    assert_int_equal(cfg.engine, 0);
    setenv("CUDA_VISIBLE_DEVICES", "2,0", 1);
    /* the module loading mode as the driver reads it; nonsense is ignored */
    assert_int_equal(emu_config_load(&cfg, err, sizeof err), 0);
    assert_int_equal(cfg.eager_loading, 0);
    setenv("CUDA_MODULE_LOADING", "sometimes", 1);
    assert_int_equal(emu_config_load(&cfg, err, sizeof err), 0);
    assert_int_equal(cfg.eager_loading, 0);
    setenv("CUDA_MODULE_LOADING", "eager", 1);
    assert_int_equal(emu_config_load(&cfg, err, sizeof err), 0);
    assert_int_equal(cfg.eager_loading, 1);
    CUmoduleLoadingMode mode;
    OK(cuModuleGetLoadingMode(&mode)); /* before cuInit: from the environment */
    assert_int_equal(mode, CU_MODULE_EAGER_LOADING);
    setenv("CUDA_MODULE_LOADING", "LAZY", 1);
    assert_int_equal(emu_config_load(&cfg, err, sizeof err), 0);
    assert_int_equal(cfg.eager_loading, 0);
    assert_int_equal(cfg.ndevices, 3);
    assert_int_equal(cfg.nvisible, 2);
    assert_int_equal(cfg.timeout_ms, 1500);
    assert_int_equal(cfg.max_instructions, 1000000000ULL);
    assert_int_equal(cfg.threads, 2);

    OK(cuInit(0));
    int n;
    OK(cuDeviceGetCount(&n));
    assert_int_equal(n, 2);
    char name[64];
    OK(cuDeviceGetName(name, sizeof name, 0));
    assert_string_equal(name, "Tesla T4");
    size_t total;
    OK(cuDeviceTotalMem_v2(&total, 1));
    assert_int_equal(total, 1ULL << 30);
    /* visible device 0 is physical 2: its UUID and PCI bus */
    CUuuid u, want;
    OK(cuDeviceGetUuid(&u, 0));
    emu_make_uuid(emu_profile_find("t4"), 2, &want);
    assert_memory_equal(u.bytes, want.bytes, 16);
    int bus0, bus2;
    OK(cuDeviceGetAttribute(&bus0, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, 0));
    assert_int_equal(emu_profile_attr(emu_profile_find("t4"), 2, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, &bus2), 0);
    assert_int_equal(bus0, bus2);
    /* memory counts against the configured size */
    CUcontext c;
    OK(cuCtxCreate(&c, 0, 1));
    CUdeviceptr p;
    assert_int_equal(cuMemAlloc_v2(&p, (1ULL << 30) + 1), CUDA_ERROR_OUT_OF_MEMORY);
    OK(cuMemAlloc_v2(&p, 1ULL << 29));
    size_t fr;
    OK(cuMemGetInfo_v2(&fr, &total));
    assert_int_equal(fr, 1ULL << 29);
    OK(cuMemFree_v2(p));
    OK(cuCtxDestroy(c));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_size),
        cmocka_unit_test(test_uuid),
        cmocka_unit_test(test_parse_visible),
        cmocka_unit_test(test_parse_timeout),
        cmocka_unit_test(test_environment),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
