/* SPDX-License-Identifier: Apache-2.0 */
/* Benchmark for src/ioctl (prints figures, asserts nothing):
 *   ioctl_bench work N          N cheap syscalls (half getppid, half 1-byte
 *                               reads of /dev/zero); prints ns per call
 *   ioctl_bench ioctls N FILE   N NV_ESC_RM_CONTROL ioctls on FILE; prints
 *                               microseconds per call
 *   ioctl_bench trace GLOB -- PROG ARGS
 *                               run PROG under the GPU ioctl filter with FILE
 *                               globs as GPU nodes, answering notifications
 *                               (decode included, nothing printed) */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ioctl/ioctl.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int work(long n)
{
    int fd = open("/dev/zero", O_RDONLY);
    char c;
    double t0 = now();
    for (long i = 0; i < n / 2; i++) {
        if (getppid() < 0)
            return 1;
        if (read(fd, &c, 1) != 1)
            return 1;
    }
    double t = now() - t0;
    printf("%.1f\n", t * 1e9 / (double)n);
    return 0;
}

static int ioctls(long n, const char *file)
{
    int fd = open(file, O_RDWR);
    if (fd < 0)
        return 1;
    struct { uint32_t hClient, hObject, cmd, flags; uint64_t params; uint32_t paramsSize, status; } p = {
        0xc1d00001, 0x5c000001, 0x20800110, 0, 0, 0, 0 };
    double t0 = now();
    for (long i = 0; i < n; i++)
        ioctl(fd, 0xC020462AUL, &p);
    double t = now() - t0;
    printf("%.2f\n", t * 1e6 / (double)n);
    return 0;
}

static unsigned long long events;
static void count(void *o, const struct td_ioctl_event *ev)
{
    (void)o;
    (void)ev;
    events++;
}

static int trace(const char *glob, char **prog)
{
    if (td_ioctl_prepare(0) < 0)
        return 77;
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
        return 2;
    pid_t pid = fork();
    if (pid == 0) {
        close(sv[0]);
        if (td_ioctl_child_install(sv[1]) < 0)
            _exit(77);
        close(sv[1]);
        execv(prog[0], prog);
        _exit(127);
    }
    close(sv[1]);
    int l = td_ioctl_parent_receive(sv[0]);
    close(sv[0]);
    if (l < 0)
        return 77;
    const char *globs[] = { glob };
    struct td_ioctl_ctx *c = td_ioctl_new(globs, 1, NULL, 0, 1);
    for (;;) {
        struct pollfd pfd = { l, POLLIN, 0 };
        if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
            break;
        if (td_ioctl_handle(c, l, count, NULL) < 0)
            break;
    }
    int st;
    waitpid(pid, &st, 0);
    td_ioctl_free(c);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && !strcmp(argv[1], "work"))
        return work(atol(argv[2]));
    if (argc >= 4 && !strcmp(argv[1], "ioctls"))
        return ioctls(atol(argv[2]), argv[3]);
    if (argc >= 5 && !strcmp(argv[1], "trace") && !strcmp(argv[3], "--"))
        return trace(argv[2], argv + 4);
    fprintf(stderr, "usage: ioctl_bench work N | ioctls N FILE | trace GLOB -- PROG ARGS\n");
    return 2;
}
