/* SPDX-License-Identifier: Apache-2.0 */
// The runtime's version gate: the driver must report at least the
// runtime's version (13000), or every call fails with
// cudaErrorInsufficientDriver (35). Prints PASS.
#include "common.h"

int main(void)
{
    int drv = 0, rt = 0;
    CK(cudaDriverGetVersion(&drv));
    CK(cudaRuntimeGetVersion(&rt));
    std::printf("driver %d, runtime %d\n", drv, rt);
    EXPECT(drv >= 13000);
    EXPECT(drv >= rt);
    int n = 0;
    CK(cudaGetDeviceCount(&n)); // past the gate: not cudaErrorInsufficientDriver
    EXPECT(n >= 1);
    if (rt_failed)
        return 1;
    std::printf("PASS\n");
    return 0;
}
