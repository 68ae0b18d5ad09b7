/* SPDX-License-Identifier: Apache-2.0 */
/* File descriptors over a unix socket (fdpass.h). */
#include "fdpass.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

union ctl {
    char buf[CMSG_SPACE(sizeof(int) * TD_FDPASS_MAX)];
    struct cmsghdr align;
};

int td_fdpass_send(int sock, int32_t status, const int *fds, int n)
{
    if (n < 0 || n > TD_FDPASS_MAX || (n && !fds))
        return -EINVAL;
    struct iovec iov = { &status, sizeof status };
    union ctl u;
    struct msghdr m;
    memset(&m, 0, sizeof m);
    memset(&u, 0, sizeof u);
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    if (n) {
        m.msg_control = u.buf;
        m.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)n);
        struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
        cm->cmsg_level = SOL_SOCKET;
        cm->cmsg_type = SCM_RIGHTS;
        cm->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)n);
        memcpy(CMSG_DATA(cm), fds, sizeof(int) * (size_t)n);
    }
    ssize_t w;
    do
        w = sendmsg(sock, &m, MSG_NOSIGNAL);
    while (w < 0 && errno == EINTR);
    return w == (ssize_t)sizeof status ? 0 : w < 0 ? -errno : -EIO;
}

int td_fdpass_recv(int sock, int32_t *status, int *fds, int n)
{
    if (n < 0 || n > TD_FDPASS_MAX || (n && !fds) || !status)
        return -EINVAL;
    for (int i = 0; i < n; i++)
        fds[i] = -1;
    int32_t st = 0;
    struct iovec iov = { &st, sizeof st };
    union ctl u;
    struct msghdr m;
    memset(&m, 0, sizeof m);
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    m.msg_control = u.buf;
    m.msg_controllen = sizeof u.buf;
    ssize_t got;
    do
        got = recvmsg(sock, &m, MSG_CMSG_CLOEXEC);
    while (got < 0 && errno == EINTR);
    if (got < 0)
        return -errno;
    int taken = 0;
    for (struct cmsghdr *cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm)) {
        if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS || cm->cmsg_len < CMSG_LEN(0))
            continue;
        size_t k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        int in[TD_FDPASS_MAX * 2];
        if (k > sizeof in / sizeof in[0])
            k = sizeof in / sizeof in[0];
        memcpy(in, CMSG_DATA(cm), k * sizeof(int));
        /* exactly n, once, with nothing cut off: kept; anything else closed */
        int keep = !taken && (int)k == n && !(m.msg_flags & MSG_CTRUNC) && got == (ssize_t)sizeof st;
        for (size_t i = 0; i < k; i++) {
            if (keep)
                fds[i] = in[i];
            else if (in[i] >= 0)
                close(in[i]);
        }
        if (keep)
            taken = n;
    }
    if (got != (ssize_t)sizeof st)
        return -ECONNRESET; /* the peer went away before sending */
    *status = st;
    return taken;
}
