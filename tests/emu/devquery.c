/* SPDX-License-Identifier: Apache-2.0 */
/* deviceQueryDrv, checked: every device answers every query, consistently.
 * argv[1]: the device count to expect (optional). */
#include <string.h>
#include "common.h"

int main(int argc, char **argv)
{
    int ver = 0, n = 0;
    CHECK(cuDriverGetVersion(&ver));
    CHECK(cuInit(0));
    CHECK(cuDeviceGetCount(&n));
    printf("driver %d.%d, %d device(s)\n", ver / 1000, ver % 1000 / 10, n);
    EXPECT(ver >= 13000);
    if (argc > 1)
        EXPECT(n == atoi(argv[1]));
    CUuuid prev[64];
    for (int d = 0; d < n; d++) {
        CUdevice dev;
        char name[256], bus[32];
        int maj, min, sms, cc_maj, w, bx, pci, bus_attr;
        size_t mem;
        CUuuid u;
        CHECK(cuDeviceGet(&dev, d));
        CHECK(cuDeviceGetName(name, sizeof name, dev));
        CHECK(cuDeviceComputeCapability(&maj, &min, dev));
        CHECK(cuDeviceTotalMem_v2(&mem, dev));
        CHECK(cuDeviceGetUuid_v2(&u, dev));
        CHECK(cuDeviceGetPCIBusId(bus, sizeof bus, dev));
        CHECK(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
        CHECK(cuDeviceGetAttribute(&cc_maj, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
        CHECK(cuDeviceGetAttribute(&w, CU_DEVICE_ATTRIBUTE_WARP_SIZE, dev));
        CHECK(cuDeviceGetAttribute(&bx, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, dev));
        CHECK(cuDeviceGetAttribute(&pci, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, dev));
        CHECK(cuDeviceGetAttribute(&bus_attr, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, dev));
        printf("Device %d: \"%s\"\n  CUDA capability %d.%d, %d multiprocessors, %zu MiB\n"
               "  warp %d, max block x %d, PCI %s\n", d, name, maj, min, sms, mem >> 20, w, bx, bus);
        EXPECT(cc_maj == maj);
        EXPECT(w == 32);
        EXPECT(mem > 0);
        unsigned b2 = 0;
        EXPECT(sscanf(bus, "%*x:%x:", &b2) == 1 && (int)b2 == bus_attr);
        CUdevice back;
        CHECK(cuDeviceGetByPCIBusId(&back, bus));
        EXPECT(back == dev);
        for (int k = 0; k < d; k++)
            EXPECT(memcmp(prev[k].bytes, u.bytes, 16) != 0);
        prev[d] = u;
        for (int a = 1; a <= 147; a++) { /* every valid attribute answers */
            int v;
            CUresult r = cuDeviceGetAttribute(&v, (CUdevice_attribute)a, dev);
            EXPECT(r == CUDA_SUCCESS || r == CUDA_ERROR_INVALID_VALUE);
        }
    }
    return e2e_failed;
}
