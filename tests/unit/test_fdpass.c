/* SPDX-License-Identifier: Apache-2.0 */
/* fdpass.c: descriptors and a status over a unix socket; whatever the
 * peer sends that is not what was asked for is closed, never leaked. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "fdpass.h"

/* open descriptors of this process */
static int nopen(void)
{
    int n = 0;
    for (int fd = 0; fd < 1024; fd++)
        n += fcntl(fd, F_GETFD) >= 0;
    return n;
}

static void pair(int sv[2])
{
    assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
}

static void test_roundtrip(void **state)
{
    (void)state;
    int sv[2], p[2];
    pair(sv);
    assert_int_equal(pipe(p), 0);
    const int out[4] = { p[0], p[1], p[0], p[1] };
    assert_int_equal(td_fdpass_send(sv[0], 7, out, 4), 0);
    int32_t st = -1;
    int in[4];
    assert_int_equal(td_fdpass_recv(sv[1], &st, in, 4), 4);
    assert_int_equal(st, 7);
    for (int i = 0; i < 4; i++) {
        assert_true(in[i] >= 0);
        assert_true(fcntl(in[i], F_GETFD) & FD_CLOEXEC);
        close(in[i]);
    }
    /* a status alone */
    assert_int_equal(td_fdpass_send(sv[0], -ENOSYS, NULL, 0), 0);
    assert_int_equal(td_fdpass_recv(sv[1], &st, in, 1), 0);
    assert_int_equal(st, -ENOSYS);
    assert_int_equal(in[0], -1);
    close(p[0]);
    close(p[1]);
    close(sv[0]);
    close(sv[1]);
}

/* a count other than asked for: 0 received, the descriptors closed */
static void test_wrong_count_closed(void **state)
{
    (void)state;
    int sv[2], p[2];
    pair(sv);
    assert_int_equal(pipe(p), 0);
    int before = nopen();
    const int two[2] = { p[0], p[1] };
    assert_int_equal(td_fdpass_send(sv[0], 0, two, 2), 0);
    int32_t st = -1;
    int in[4] = { 5, 5, 5, 5 };
    assert_int_equal(td_fdpass_recv(sv[1], &st, in, 4), 0);
    for (int i = 0; i < 4; i++)
        assert_int_equal(in[i], -1);
    assert_int_equal(nopen(), before); /* nothing leaked */
    /* more than TD_FDPASS_MAX sent by hand: closed as well */
    int many[TD_FDPASS_MAX + 2];
    for (int i = 0; i < TD_FDPASS_MAX + 2; i++)
        many[i] = p[i & 1];
    union { char b[CMSG_SPACE(sizeof many)]; struct cmsghdr a; } u;
    memset(&u, 0, sizeof u);
    int32_t s0 = 0;
    struct iovec iov = { &s0, sizeof s0 };
    struct msghdr m;
    memset(&m, 0, sizeof m);
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    m.msg_control = u.b;
    m.msg_controllen = sizeof u.b;
    struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof many);
    memcpy(CMSG_DATA(cm), many, sizeof many);
    assert_int_equal(sendmsg(sv[0], &m, 0), (ssize_t)sizeof s0);
    assert_int_equal(td_fdpass_recv(sv[1], &st, in, 4), 0);
    assert_int_equal(nopen(), before);
    close(p[0]);
    close(p[1]);
    close(sv[0]);
    close(sv[1]);
}

static void test_peer_gone_and_bad_args(void **state)
{
    (void)state;
    int sv[2];
    pair(sv);
    close(sv[0]);
    int32_t st = 3;
    int fd;
    assert_int_equal(td_fdpass_recv(sv[1], &st, &fd, 1), -ECONNRESET);
    assert_int_equal(st, 3); /* untouched */
    assert_int_equal(td_fdpass_send(sv[1], 0, NULL, 0), -EPIPE);
    assert_int_equal(td_fdpass_send(sv[1], 0, NULL, 1), -EINVAL);
    assert_int_equal(td_fdpass_send(sv[1], 0, &fd, -1), -EINVAL);
    assert_int_equal(td_fdpass_send(sv[1], 0, &fd, TD_FDPASS_MAX + 1), -EINVAL);
    assert_int_equal(td_fdpass_recv(sv[1], NULL, &fd, 1), -EINVAL);
    assert_int_equal(td_fdpass_send(-1, 0, NULL, 0), -EBADF);
    close(sv[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_wrong_count_closed),
        cmocka_unit_test(test_peer_gone_and_bad_args),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
