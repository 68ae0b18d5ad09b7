/* SPDX-License-Identifier: Apache-2.0 */
/* Not a test: prints "result" where the kernel lets tdtrace learn the
 * result of a GPU ioctl it let through (SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV,
 * Linux 5.19), "?" where it does not. run.sh passes it to tests/e2e/ioctl. */
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
    struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    struct sock_fprog fp = { 1, &allow };
    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    long fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
                      SECCOMP_FILTER_FLAG_NEW_LISTENER | (1UL << 5) /* WAIT_KILLABLE_RECV */, &fp);
    puts(fd >= 0 ? "result" : "?");
    return 0;
}
