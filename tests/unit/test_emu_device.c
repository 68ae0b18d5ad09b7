/* SPDX-License-Identifier: Apache-2.0 */
/* Emulator: initialisation, version, error strings, cuGetProcAddress,
 * devices and their attributes. Two h100 devices (TDTRACE_EMU_DEVICES=2
 * is set before cuInit, which reads the environment once per process). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "emu.h"
#include "xlat.h"

#define OK(x) assert_int_equal((x), CUDA_SUCCESS)

/* must run first: nothing works before cuInit */
static void test_not_initialized(void **state)
{
    (void)state;
    int n;
    CUdevice d;
    CUcontext c;
    assert_int_equal(cuDeviceGetCount(&n), CUDA_ERROR_NOT_INITIALIZED);
    assert_int_equal(cuDeviceGet(&d, 0), CUDA_ERROR_NOT_INITIALIZED);
    assert_int_equal(cuCtxGetCurrent(&c), CUDA_ERROR_NOT_INITIALIZED);
    CUdeviceptr p;
    assert_int_equal(cuMemAlloc_v2(&p, 16), CUDA_ERROR_NOT_INITIALIZED);
    /* these work before cuInit */
    int v = 0;
    OK(cuDriverGetVersion(&v));
    assert_true(v >= 13000);
    assert_int_equal(cuInit(1), CUDA_ERROR_INVALID_VALUE);
    setenv("TDTRACE_EMU_DEVICES", "2", 1);
    unsetenv("TDTRACE_EMU_PROFILE");
    unsetenv("TDTRACE_EMU_MEMORY");
    unsetenv("CUDA_VISIBLE_DEVICES");
    OK(cuInit(0));
    OK(cuInit(0));
}

static void test_error_strings(void **state)
{
    (void)state;
    const char *s;
    OK(cuGetErrorName(CUDA_ERROR_INVALID_VALUE, &s));
    assert_string_equal(s, "CUDA_ERROR_INVALID_VALUE");
    OK(cuGetErrorName(CUDA_SUCCESS, &s));
    assert_string_equal(s, "CUDA_SUCCESS");
    OK(cuGetErrorString(CUDA_ERROR_OUT_OF_MEMORY, &s));
    assert_non_null(s);
    assert_true(strlen(s) > 10);
    /* every CUresult of CUDA 13.0 (101 codes) has both; the text is plain,
     * without the header's doxygen markup */
    const struct td_xlat *x = &td_xlats[TD_X_CUresult];
    assert_int_equal(x->n, 101);
    for (int i = 0; i < x->n; i++) {
        OK(cuGetErrorName((CUresult)x->v[i].value, &s));
        assert_string_equal(s, x->v[i].name);
        OK(cuGetErrorString((CUresult)x->v[i].value, &s));
        assert_non_null(s);
        assert_null(strstr(s, "::"));
        assert_null(strchr(s, '\\'));
    }
    static const struct { CUresult r; const char *name; } edges[] = {
        { CUDA_ERROR_INVALID_CLUSTER_SIZE, "CUDA_ERROR_INVALID_CLUSTER_SIZE" },
        { CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN" },
        { CUDA_ERROR_NO_BINARY_FOR_GPU, "CUDA_ERROR_NO_BINARY_FOR_GPU" },
        { CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED" },
    };
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
        OK(cuGetErrorName(edges[i].r, &s));
        assert_string_equal(s, edges[i].name);
    }
    OK(cuGetErrorString(CUDA_ERROR_NOT_INITIALIZED, &s));
    assert_non_null(strstr(s, "cuInit()"));
    assert_int_equal(cuGetErrorName((CUresult)12345, &s), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuGetErrorName((CUresult)-1, &s), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuGetErrorString((CUresult)3, NULL), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuGetErrorString((CUresult)12345, &s), CUDA_ERROR_INVALID_VALUE);
    assert_null(s);
    assert_int_equal(cuGetErrorName(CUDA_SUCCESS, NULL), CUDA_ERROR_INVALID_VALUE);
}

static void test_proc_address(void **state)
{
    (void)state;
    void *fn = NULL;
    CUdriverProcAddressQueryResult st = 99;
    OK(cuGetProcAddress_v2("cuInit", &fn, 2000, 0, &st));
    assert_ptr_equal(fn, (void *)cuInit);
    assert_int_equal(st, CU_GET_PROC_ADDRESS_SUCCESS);
    OK(cuGetProcAddress_v2("cuMemAlloc", &fn, 3020, 0, &st));
    assert_ptr_equal(fn, (void *)cuMemAlloc_v2);
    OK(cuGetProcAddress_v2("cuCtxGetDevice", &fn, 13000, 0, &st));
    assert_ptr_equal(fn, (void *)cuCtxGetDevice_v2);
    OK(cuGetProcAddress_v2("cuCtxSynchronize", &fn, 2000, 0, &st));
    assert_ptr_equal(fn, (void *)cuCtxSynchronize);
    OK(cuGetProcAddress_v2("cuMemcpyHtoD", &fn, 3020, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &st));
    assert_ptr_equal(fn, (void *)cuMemcpyHtoD_v2_ptds);
    OK(cuGetProcAddress_v2("cuMemcpyHtoD", &fn, 3020, 0, &st));
    assert_ptr_equal(fn, (void *)cuMemcpyHtoD_v2);
    OK(cuGetProcAddress("cuGetProcAddress", &fn, 12000, 0));
    assert_ptr_equal(fn, (void *)cuGetProcAddress_v2);
    OK(cuGetProcAddress("cuGetProcAddress", &fn, 11030, 0));
    assert_ptr_equal(fn, (void *)cuGetProcAddress);
    assert_int_equal(cuGetProcAddress_v2("", &fn, 0, 0, &st), CUDA_ERROR_NOT_FOUND);
    assert_null(fn);
    assert_int_equal(st, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
    assert_int_equal(cuGetProcAddress_v2("cuNoSuchThing", &fn, 13000, 0, &st), CUDA_ERROR_NOT_FOUND);
    assert_int_equal(st, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
    assert_int_equal(cuGetProcAddress_v2("cuMemAlloc", &fn, 1000, 0, &st), CUDA_ERROR_NOT_FOUND);
    assert_int_equal(st, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
    assert_int_equal(cuGetProcAddress_v2("cuInit", NULL, 2000, 0, &st), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuGetProcAddress_v2("cuInit", &fn, 2000, 7, &st), CUDA_ERROR_INVALID_VALUE);
    const void *tab;
    CUuuid id = { { 0 } };
    assert_int_equal(cuGetExportTable(&tab, &id), CUDA_ERROR_NOT_FOUND);
}

static void test_devices(void **state)
{
    (void)state;
    int n;
    OK(cuDeviceGetCount(&n));
    assert_int_equal(n, 2);
    CUdevice d;
    OK(cuDeviceGet(&d, 1));
    assert_int_equal(d, 1);
    assert_int_equal(cuDeviceGet(&d, 2), CUDA_ERROR_INVALID_DEVICE);
    assert_int_equal(cuDeviceGet(&d, -1), CUDA_ERROR_INVALID_DEVICE);
    assert_int_equal(cuDeviceGet(NULL, 0), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuDeviceGetCount(NULL), CUDA_ERROR_INVALID_VALUE);

    char name[256];
    OK(cuDeviceGetName(name, sizeof name, 0));
    assert_string_equal(name, "NVIDIA H100 80GB HBM3");
    char small[6];
    OK(cuDeviceGetName(small, sizeof small, 0));
    assert_string_equal(small, "NVIDI");
    assert_int_equal(cuDeviceGetName(name, 256, 7), CUDA_ERROR_INVALID_DEVICE);
    assert_int_equal(cuDeviceGetName(NULL, 256, 0), CUDA_ERROR_INVALID_VALUE);

    CUuuid u0, u1, u0b;
    OK(cuDeviceGetUuid(&u0, 0));
    OK(cuDeviceGetUuid_v2(&u1, 1));
    OK(cuDeviceGetUuid(&u0b, 0));
    assert_memory_not_equal(u0.bytes, u1.bytes, 16);
    assert_memory_equal(u0.bytes, u0b.bytes, 16);

    size_t total;
    OK(cuDeviceTotalMem_v2(&total, 0));
    assert_int_equal(total, emu_profile_default()->total_mem);
    int maj, min;
    OK(cuDeviceComputeCapability(&maj, &min, 0));
    assert_int_equal(maj, 9);
    assert_int_equal(min, 0);
    CUdevprop prop;
    OK(cuDeviceGetProperties(&prop, 1));
    assert_int_equal(prop.maxThreadsPerBlock, 1024);
    assert_int_equal(prop.SIMDWidth, 32);
}

static void test_attributes(void **state)
{
    (void)state;
    /* the ids the CUDA runtime queries at start-up must all answer */
    static const int ids[] = {
        75,76,40,16,18,19,21,77,22,23,73,74,70,71,72,45,46,24,25,26,47,48,49,52,42,43,27,
        28,29,53,54,55,56,57,58,59,60,61,62,63,64,65,66,67,68,31,32,33,34,50,35,41,37,38,
        108,39,30,51,8,97,81,12,82,10,11,1,2,3,4,5,6,7,9,14,78,79,80,83,84,85,86,88,89,90,
        91,95,100,101,106,109,111,99,112,113,114,115,116,117,118,119,120,121,125,129,130,
        131,133,134,139,140,143,
    };
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        int v = -12345;
        OK(cuDeviceGetAttribute(&v, (CUdevice_attribute)ids[i], 0));
    }
    /* every value of the CUdevice_attribute table answers */
    const struct td_xlat *x = &td_xlats[TD_X_CUdevice_attribute];
    for (int i = 0; i < x->n; i++) {
        if (x->v[i].value > 147)
            continue;
        int v;
        OK(cuDeviceGetAttribute(&v, (CUdevice_attribute)x->v[i].value, 1));
    }
    int v;
    assert_int_equal(cuDeviceGetAttribute(&v, (CUdevice_attribute)0, 0), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuDeviceGetAttribute(&v, (CUdevice_attribute)100000, 0), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 5), CUDA_ERROR_INVALID_DEVICE);
    assert_int_equal(cuDeviceGetAttribute(NULL, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 0), CUDA_ERROR_INVALID_VALUE);
    OK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0));
    assert_int_equal(v, 132);
    OK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, 0));
    assert_int_equal(v, 1);
}

static void test_pci(void **state)
{
    (void)state;
    char id0[32], id1[32];
    OK(cuDeviceGetPCIBusId(id0, sizeof id0, 0));
    OK(cuDeviceGetPCIBusId(id1, sizeof id1, 1));
    assert_string_not_equal(id0, id1);
    int bus0, bus1;
    OK(cuDeviceGetAttribute(&bus0, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, 0));
    OK(cuDeviceGetAttribute(&bus1, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, 1));
    assert_int_not_equal(bus0, bus1);
    CUdevice d;
    OK(cuDeviceGetByPCIBusId(&d, id1));
    assert_int_equal(d, 1);
    OK(cuDeviceGetByPCIBusId(&d, id0));
    assert_int_equal(d, 0);
    assert_int_equal(cuDeviceGetByPCIBusId(&d, "zz:1"), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuDeviceGetByPCIBusId(&d, "0000:ff:1f.0"), CUDA_ERROR_INVALID_DEVICE);
    int can;
    /* every emulated device reaches every other, none is its own peer */
    OK(cuDeviceCanAccessPeer(&can, 0, 1));
    assert_int_equal(can, 1);
    OK(cuDeviceCanAccessPeer(&can, 1, 1));
    assert_int_equal(can, 0);
    assert_int_equal(cuDeviceCanAccessPeer(&can, 0, 9), CUDA_ERROR_INVALID_DEVICE);
    assert_int_equal(cuDeviceCanAccessPeer(&can, -1, 0), CUDA_ERROR_INVALID_DEVICE);
    assert_int_equal(cuDeviceCanAccessPeer(NULL, 0, 1), CUDA_ERROR_INVALID_VALUE);
    OK(cuDeviceGetP2PAttribute(&can, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 0, 1));
    assert_int_equal(can, 1);
    OK(cuDeviceGetP2PAttribute(&can, CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED, 0, 1));
    assert_int_equal(can, 0);
    assert_int_equal(cuDeviceGetP2PAttribute(&can, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 1, 1),
                     CUDA_ERROR_INVALID_DEVICE);
    assert_int_equal(cuDeviceGetP2PAttribute(&can, (CUdevice_P2PAttribute)99, 0, 1), CUDA_ERROR_INVALID_VALUE);
}

/* cuCtxEnablePeerAccess / cuCtxDisablePeerAccess: the errors the driver
 * documents, in its order */
static void test_peer(void **state)
{
    (void)state;
    CUcontext c0, c1, none = NULL;
    OK(cuDevicePrimaryCtxRetain(&c0, 0));
    OK(cuDevicePrimaryCtxRetain(&c1, 1));
    OK(cuCtxSetCurrent(NULL));
    assert_int_equal(cuCtxEnablePeerAccess(c1, 0), CUDA_ERROR_INVALID_CONTEXT); /* no current context */
    OK(cuCtxSetCurrent(c0));
    assert_int_equal(cuCtxEnablePeerAccess(none, 0), CUDA_ERROR_INVALID_CONTEXT);
    assert_int_equal(cuCtxEnablePeerAccess((CUcontext)(uintptr_t)0x1234, 0), CUDA_ERROR_INVALID_CONTEXT);
    assert_int_equal(cuCtxEnablePeerAccess(c0, 0), CUDA_ERROR_INVALID_DEVICE); /* its own device */
    assert_int_equal(cuCtxEnablePeerAccess(c1, 1), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuCtxDisablePeerAccess(c1), CUDA_ERROR_PEER_ACCESS_NOT_ENABLED);
    OK(cuCtxEnablePeerAccess(c1, 0));
    assert_int_equal(cuCtxEnablePeerAccess(c1, 0), CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED);
    /* one way only: device 1's context has no access to device 0 */
    OK(cuCtxSetCurrent(c1));
    assert_int_equal(cuCtxDisablePeerAccess(c0), CUDA_ERROR_PEER_ACCESS_NOT_ENABLED);
    OK(cuCtxSetCurrent(c0));
    OK(cuCtxDisablePeerAccess(c1));
    assert_int_equal(cuCtxDisablePeerAccess(c1), CUDA_ERROR_PEER_ACCESS_NOT_ENABLED);
    /* a reset forgets it */
    OK(cuCtxEnablePeerAccess(c1, 0));
    OK(cuCtxSetCurrent(NULL));
    OK(cuDevicePrimaryCtxReset(0));
    OK(cuDevicePrimaryCtxRetain(&c0, 0));
    OK(cuCtxSetCurrent(c0));
    OK(cuCtxEnablePeerAccess(c1, 0));
    OK(cuCtxSetCurrent(NULL));
    OK(cuDevicePrimaryCtxRelease(0));
    OK(cuDevicePrimaryCtxRelease(1));
}

/* a pool's access list: its own device always, others as set */
static void test_pool_access(void **state)
{
    (void)state;
    CUmemoryPool pool;
    OK(cuDeviceGetDefaultMemPool(&pool, 0));
    CUmemAccess_flags f;
    CUmemLocation l0 = { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 0 }, l1 = l0, l9 = l0, host = l0;
    l1.id = 1;
    l9.id = 9;
    host.type = CU_MEM_LOCATION_TYPE_HOST;
    OK(cuMemPoolGetAccess(&f, pool, &l0));
    assert_int_equal(f, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    OK(cuMemPoolGetAccess(&f, pool, &l1));
    assert_int_equal(f, CU_MEM_ACCESS_FLAGS_PROT_NONE);
    assert_int_equal(cuMemPoolGetAccess(&f, pool, &l9), CUDA_ERROR_INVALID_DEVICE);
    assert_int_equal(cuMemPoolGetAccess(&f, pool, &host), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemPoolGetAccess(NULL, pool, &l1), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemPoolGetAccess(&f, (CUmemoryPool)(uintptr_t)0x99, &l1), CUDA_ERROR_INVALID_VALUE);
    CUmemAccessDesc d[2] = { { .location = l1, .flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE },
                             { .location = l9, .flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE } };
    /* one bad entry: nothing changes */
    assert_int_equal(cuMemPoolSetAccess(pool, d, 2), CUDA_ERROR_INVALID_DEVICE);
    OK(cuMemPoolGetAccess(&f, pool, &l1));
    assert_int_equal(f, CU_MEM_ACCESS_FLAGS_PROT_NONE);
    assert_int_equal(cuMemPoolSetAccess(pool, NULL, 1), CUDA_ERROR_INVALID_VALUE);
    d[1] = (CUmemAccessDesc){ .location = l0, .flags = CU_MEM_ACCESS_FLAGS_PROT_NONE };
    assert_int_equal(cuMemPoolSetAccess(pool, d, 2), CUDA_ERROR_INVALID_VALUE); /* its own device */
    d[1] = (CUmemAccessDesc){ .location = host, .flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
    assert_int_equal(cuMemPoolSetAccess(pool, d, 2), CUDA_ERROR_INVALID_VALUE);
    d[1] = (CUmemAccessDesc){ .location = l1, .flags = (CUmemAccess_flags)7 };
    assert_int_equal(cuMemPoolSetAccess(pool, d, 2), CUDA_ERROR_INVALID_VALUE);
    d[1].flags = CU_MEM_ACCESS_FLAGS_PROT_READ;
    assert_int_equal(cuMemPoolSetAccess(pool, d, 2), CUDA_ERROR_NOT_SUPPORTED);
    OK(cuMemPoolGetAccess(&f, pool, &l1));
    assert_int_equal(f, CU_MEM_ACCESS_FLAGS_PROT_NONE);
    OK(cuMemPoolSetAccess(pool, d, 1));
    OK(cuMemPoolGetAccess(&f, pool, &l1));
    assert_int_equal(f, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    d[0].flags = CU_MEM_ACCESS_FLAGS_PROT_NONE;
    OK(cuMemPoolSetAccess(pool, d, 1));
    OK(cuMemPoolGetAccess(&f, pool, &l1));
    assert_int_equal(f, CU_MEM_ACCESS_FLAGS_PROT_NONE);
}

static void test_unsupported(void **state)
{
    (void)state;
    /* an entry point without an implementation says so (graphics
     * interoperability is not emulated) */
    assert_int_equal(cuGraphicsUnregisterResource(NULL), CUDA_ERROR_NOT_SUPPORTED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_not_initialized),
        cmocka_unit_test(test_error_strings),
        cmocka_unit_test(test_proc_address),
        cmocka_unit_test(test_devices),
        cmocka_unit_test(test_attributes),
        cmocka_unit_test(test_pci),
        cmocka_unit_test(test_peer),
        cmocka_unit_test(test_pool_access),
        cmocka_unit_test(test_unsupported),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
