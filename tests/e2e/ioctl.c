/* SPDX-License-Identifier: Apache-2.0 */
/* GPU ioctls through the whole supervisor: a file declared a GPU node with
 * --gpu-dev gets NVIDIA-style ioctls, decoded by name with their results
 * (a plain file answers ENOTTY); ioctls on other
 * files are neither touched nor printed; with "deny" an --ioctl-deny rule
 * refuses RM_CONTROL even when the program calls the raw syscall. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tests.h"

struct nvos54 { uint32_t hClient, hObject, cmd, flags; uint64_t params; uint32_t paramsSize, status; };
struct uvm_init { uint64_t flags; uint32_t rmStatus, pad; };
#define RM_CONTROL _IOWR('F', 0x2a, struct nvos54)
#define UVM_INITIALIZE 0x30000001UL

int main(int argc, char **argv)
{
    if (argc < 4)
        return 2;
    char gpu[PATH_MAX], uvm[PATH_MAX];
    if (!realpath(argv[1], gpu) || !realpath(argv[2], uvm))
        return 2;
    /* argv[3]: what tdtrace says of a call it let through ("?" where the
     * kernel cannot tell it the result: see tests/e2e/killable.c) */
    const char *let = argc > 3 ? argv[3] : "?";
    int deny = argc > 4 && strcmp(argv[4], "deny") == 0;
    int fd = open(gpu, O_RDWR), ufd = open(uvm, O_RDWR);
    if (fd < 0 || ufd < 0)
        return 2;
    unsigned char params[16] = { 0 };
    struct nvos54 c = { 0xc1d00001, 0x5c000001, 0x20800110, 0, (uintptr_t)params, 16, 0x55 };
    long rc = syscall(SYS_ioctl, fd, RM_CONTROL, &c);
    if (deny) {
        if (rc != -1 || errno != EACCES)
            return 3;
        line("ioctl(%d<%s>, NV_ESC_RM_CONTROL, {hClient=0xc1d00001, hObject=0x5c000001, cmd=0x20800110, "
             "flags=0, params=%p, paramsSize=16}) = EACCES (-13) (DENIED by --ioctl-deny)", fd, gpu,
             (void *)params);
    } else {
        if (rc != -1 || errno != ENOTTY) /* a plain file: the kernel says ENOTTY */
            return 3;
        line("ioctl(%d<%s>, NV_ESC_RM_CONTROL, {hClient=0xc1d00001, hObject=0x5c000001, cmd=0x20800110, "
             "flags=0, params=%p, paramsSize=16}) = %s", fd, gpu, (void *)params, strcmp(let, "?") ? "ENOTTY (-25)" : "?");
    }
    struct uvm_init u = { 2, 0, 0 };
    rc = ioctl(ufd, UVM_INITIALIZE, &u);
    line("ioctl(%d<%s>, UVM_INITIALIZE, {flags=0x2}) = %s", ufd, uvm, strcmp(let, "?") ? "ENOTTY (-25)" : "?");
    /* not GPU nodes: FIONREAD on a pipe, and a GPU-looking request on /dev/null */
    int p[2];
    if (pipe(p) || write(p[1], "abc", 3) != 3)
        return 2;
    int avail = 0;
    if (ioctl(p[0], FIONREAD, &avail) != 0 || avail != 3)
        return 4;
    int dn = open("/dev/null", O_RDWR);
    ioctl(dn, RM_CONTROL, &c);
    exited(0);
    return 0;
}
