/* SPDX-License-Identifier: Apache-2.0 */
/* Device profiles: every CUDA 13 attribute answers, bad ids fail, and the
 * values agree with the real cards and with the profile structure. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "profiles.h"
#include "xlat.h"

static const char *const names[] = { "h100", "a100", "t4", "b200", "rtx5090",
                                      "v100", "a10", "l4", "l40s", "rtx4090" };
#define NPROF (sizeof names / sizeof names[0])

static int attr(const struct emu_profile *p, int ordinal, int a)
{
    int v = 0x5a5a5a5a;
    assert_int_equal(emu_profile_attr(p, ordinal, a, &v), CUDA_SUCCESS);
    return v;
}

/* The ids the CUDA runtime queries at initialisation, all of which must
 * succeed (cudart-private-interface §2). */
static const int runtime_ids[] = {
    75, 76, 40, 16, 18, 19, 21, 77, 22, 23, 73, 74, 70, 71, 72, 45, 46, 24, 25,
    26, 47, 48, 49, 52, 42, 43, 27, 28, 29, 53, 54, 55, 56, 57, 58, 59, 60, 61,
    62, 63, 64, 65, 66, 67, 68, 31, 32, 33, 34, 50, 35, 41, 37, 38, 108, 39, 30,
    51, 8, 97, 81, 12, 82, 10, 11, 1, 2, 3, 4, 5, 6, 7, 9, 14, 78, 79, 80, 83,
    84, 85, 86, 88, 89, 90, 91, 95, 100, 101, 106, 109, 111, 99, 112, 113, 114,
    115, 116, 117, 118, 119, 120, 121, 125, 129, 130, 131, 133, 134, 139, 140, 143,
};

static void test_every_attribute_answers(void **state)
{
    (void)state;
    const struct td_xlat *x = &td_xlats[TD_X_CUdevice_attribute];
    assert_true(x->n >= 147);
    for (size_t i = 0; i < NPROF; i++) {
        const struct emu_profile *p = emu_profile_find(names[i]);
        assert_non_null(p);
        for (int k = 0; k < x->n; k++)
            for (int ord = 0; ord < 3; ord++)
                (void)attr(p, ord, (int)x->v[k].value);
        for (size_t k = 0; k < sizeof runtime_ids / sizeof runtime_ids[0]; k++)
            (void)attr(p, 0, runtime_ids[k]);
    }
}

static void test_invalid_attribute(void **state)
{
    (void)state;
    const struct emu_profile *p = emu_profile_default();
    int v = 7;
    static const int bad[] = { 0, -1, 148, 149, 200, 1000, -2147483647 - 1, 2147483647 };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(emu_profile_attr(p, 0, bad[i], &v), CUDA_ERROR_INVALID_VALUE);
        assert_int_equal(v, 7);
    }
    assert_int_equal(emu_profile_attr(NULL, 0, 1, &v), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(emu_profile_attr(p, 0, 1, NULL), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(emu_profile_attr(p, -1, 1, &v), CUDA_ERROR_INVALID_VALUE);
}

static void test_known_values(void **state)
{
    (void)state;
    const struct emu_profile *h = emu_profile_find("h100");
    const struct emu_profile *a = emu_profile_find("a100");
    const struct emu_profile *t = emu_profile_find("t4");

    assert_int_equal(attr(h, 0, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT), 132);
    assert_int_equal(attr(h, 0, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR), 9);
    assert_int_equal(attr(h, 0, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR), 0);
    assert_int_equal(attr(h, 0, CU_DEVICE_ATTRIBUTE_WARP_SIZE), 32);
    assert_int_equal(attr(h, 0, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK), 1024);
    assert_int_equal(attr(h, 0, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN), 232448);
    assert_int_equal(attr(h, 0, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE), 50 << 20);

    assert_int_equal(attr(a, 0, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT), 108);
    assert_int_equal(attr(a, 0, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR), 8);
    assert_int_equal(attr(a, 0, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR), 2048);

    assert_int_equal(attr(t, 0, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT), 40);
    assert_int_equal(attr(t, 0, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR), 7);
    assert_int_equal(attr(t, 0, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR), 5);
    assert_int_equal(attr(t, 0, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR), 1024);
    assert_int_equal(attr(t, 0, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH), 256);
    /* a 16 GB card : deviceQuery reports 15110 MBytes (15843721216 bytes) */
    assert_true(t->total_mem == 15843721216ULL);

    /* B200 (compute capability 10.0) and RTX 5090 (12.0), as those cards
     * report them (docs/emulator-profiles.md) */
    const struct emu_profile *b = emu_profile_find("b200");
    const struct emu_profile *r = emu_profile_find("rtx5090");
    assert_int_equal(emu_profile_cc(b), 100);
    assert_int_equal(attr(b, 0, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT), 148);
    assert_int_equal(attr(b, 0, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR), 2048);
    assert_int_equal(attr(b, 0, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN), 232448);
    assert_int_equal(attr(b, 0, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH), 7680);
    assert_int_equal((unsigned)attr(b, 0, CU_DEVICE_ATTRIBUTE_GPU_PCI_DEVICE_ID) >> 16, 0x2901);
    assert_int_equal(emu_profile_cc(r), 120);
    assert_int_equal(attr(r, 0, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT), 170);
    assert_int_equal(attr(r, 0, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR), 1536);
    assert_int_equal(attr(r, 0, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR), 102400);
    assert_int_equal(attr(r, 0, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE), 100663296);
    assert_int_equal(attr(r, 0, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH), 512);
    assert_true(r->total_mem == 33680457728ULL);
    assert_int_equal((unsigned)attr(r, 0, CU_DEVICE_ATTRIBUTE_GPU_PCI_DEVICE_ID) >> 16, 0x2B85);

    /* aliases answer like the names they share an id with */
    assert_int_equal(attr(h, 0, CU_DEVICE_ATTRIBUTE_SHARED_MEMORY_PER_BLOCK), 49152);
    assert_int_equal(attr(h, 0, CU_DEVICE_ATTRIBUTE_REGISTERS_PER_BLOCK), 65536);
    assert_int_equal(attr(h, 0, CU_DEVICE_ATTRIBUTE_NUMA_ID), -1);
}

/* What the table says of every profile holds together. */
static void test_struct_matches_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < NPROF; i++) {
        const struct emu_profile *p = emu_profile_find(names[i]);
        assert_string_equal(p->name, names[i]);
        assert_non_null(p->gpu_name);
        assert_true(p->total_mem > 1ULL << 30);
        assert_int_equal(emu_profile_cc(p), attr(p, 0, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR) * 10 +
                                                attr(p, 0, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR));
        int pci = attr(p, 0, CU_DEVICE_ATTRIBUTE_GPU_PCI_DEVICE_ID);
        assert_int_equal(pci & 0xffff, 0x10de);
        /* opt-in shared memory never exceeds what an SM has */
        assert_true(attr(p, 0, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN) <=
                    attr(p, 0, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR));
    }
}

/* A feature the emulator does not implement is off on every profile:
 * a program that reads the attribute takes the path that works. */
static void test_stubs_are_off(void **state)
{
    (void)state;
    static const int off[] = {
        CU_DEVICE_ATTRIBUTE_COOPERATIVE_MULTI_DEVICE_LAUNCH,
        CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES, CU_DEVICE_ATTRIBUTE_TIMELINE_SEMAPHORE_INTEROP_SUPPORTED, CU_DEVICE_ATTRIBUTE_SPARSE_CUDA_ARRAY_SUPPORTED,
        CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED,
        CU_DEVICE_ATTRIBUTE_HOST_MEMORY_POOLS_SUPPORTED, CU_DEVICE_ATTRIBUTE_HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED,
    };
    for (size_t i = 0; i < NPROF; i++)
        for (size_t k = 0; k < sizeof off / sizeof off[0]; k++)
            assert_int_equal(attr(emu_profile_find(names[i]), 0, off[k]), 0);
}

/* features that work are on everywhere: stream memory operations (memop.c),
 * virtual memory management with POSIX file descriptors (vmm.c),
 * cooperative launches (launchcoop.c), IPC event handles (ipc.c), exportable
 * pools (pool.c); clusters
 * on the profiles of compute capability 9.0 and later */
static void test_features_on(void **state)
{
    (void)state;
    static const int on[] = {
        CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1, CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS_V1,
        CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR_V1, CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS,
        CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR,
        CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED,
        CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED,
        CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES, /* 1: CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR */
    };
    for (size_t i = 0; i < NPROF; i++)
        for (size_t k = 0; k < sizeof on / sizeof on[0]; k++)
            assert_int_equal(attr(emu_profile_find(names[i]), 0, on[k]), 1);
    /* thread-block clusters (src/ptx/exec_cluster.c): compute capability 9.0 and later */
    for (size_t i = 0; i < NPROF; i++) {
        const struct emu_profile *p = emu_profile_find(names[i]);
        assert_int_equal(attr(p, 0, CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH),
                         attr(p, 0, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR) >= 9);
        /* tensor-map copies (src/ptx/exec_tensor.c): likewise */
        assert_int_equal(attr(p, 0, CU_DEVICE_ATTRIBUTE_TENSOR_MAP_ACCESS_SUPPORTED),
                         attr(p, 0, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR) >= 9);
    }
}

static void test_pci_per_ordinal(void **state)
{
    (void)state;
    const struct emu_profile *p = emu_profile_default();
    int seen[256] = {0};
    for (int ord = 0; ord < 64; ord++) {
        int bus = attr(p, ord, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID);
        assert_in_range(bus, 0, 255);
        assert_int_equal(seen[bus], 0);
        seen[bus] = 1;
        assert_int_equal(attr(p, ord, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID), 0);
        assert_int_equal(attr(p, ord, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID), 0);
        /* and stable */
        assert_int_equal(attr(p, ord, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID), bus);
    }
    assert_int_equal(attr(p, 0, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID), 0x18);
}

/* The limits that follow from the compute capability, from the CUDA C++
 * Programming Guide's table of compute capabilities (written out here, not
 * read from profiles.def): threads and resident blocks per SM, shared
 * memory per SM and per block (opt-in), shared memory reserved per block. */
static void test_limits_follow_cc(void **state)
{
    (void)state;
    static const struct { int cc, threads, blocks, smem_sm, smem_block, reserved; } lim[] = {
        { 70, 2048, 32, 98304, 98304, 0 },        { 75, 1024, 16, 65536, 65536, 0 },
        { 80, 2048, 32, 167936, 166912, 1024 },   { 86, 1536, 16, 102400, 101376, 1024 },
        { 89, 1536, 24, 102400, 101376, 1024 },   { 90, 2048, 32, 233472, 232448, 1024 },
        { 100, 2048, 32, 233472, 232448, 1024 },  { 120, 1536, 32, 102400, 101376, 1024 },
    };
    for (size_t i = 0; i < NPROF; i++) {
        const struct emu_profile *p = emu_profile_find(names[i]);
        size_t k = 0;
        while (k < sizeof lim / sizeof lim[0] && lim[k].cc != emu_profile_cc(p))
            k++;
        assert_true(k < sizeof lim / sizeof lim[0]);
        assert_int_equal(attr(p, 0, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR), lim[k].threads);
        assert_int_equal(attr(p, 0, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR), lim[k].blocks);
        assert_int_equal(attr(p, 0, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR), lim[k].smem_sm);
        assert_int_equal(attr(p, 0, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN), lim[k].smem_block);
        assert_int_equal(attr(p, 0, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK), lim[k].reserved);
    }
}

static void test_names_and_find(void **state)
{
    (void)state;
    assert_ptr_equal(emu_profile_default(), emu_profile_find("h100"));
    assert_string_equal(emu_profile_default()->gpu_name, "NVIDIA H100 80GB HBM3");
    assert_ptr_equal(emu_profile_find("H100"), emu_profile_find("h100"));
    assert_ptr_equal(emu_profile_find("A100"), emu_profile_find("a100"));
    assert_ptr_equal(emu_profile_find("T4"), emu_profile_find("t4"));
    assert_null(emu_profile_find("v200"));
    assert_null(emu_profile_find(""));
    assert_null(emu_profile_find("h1000"));
    assert_null(emu_profile_find(NULL));
    assert_string_equal(emu_profile_names(), "h100, a100, t4, b200, rtx5090, v100, a10, l4, l40s, rtx4090");
    assert_ptr_equal(emu_profile_find("RTX5090"), emu_profile_find("rtx5090"));
    for (size_t i = 0; i < NPROF; i++)
        assert_non_null(strstr(emu_profile_names(), names[i]));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_attribute_answers),
        cmocka_unit_test(test_stubs_are_off),
        cmocka_unit_test(test_features_on),
        cmocka_unit_test(test_invalid_attribute),
        cmocka_unit_test(test_known_values),
        cmocka_unit_test(test_struct_matches_table),
        cmocka_unit_test(test_pci_per_ordinal),
        cmocka_unit_test(test_limits_follow_cc),
        cmocka_unit_test(test_names_and_find),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
