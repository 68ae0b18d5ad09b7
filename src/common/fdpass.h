/* SPDX-License-Identifier: Apache-2.0 */
/* File descriptors passed over a unix socket (SCM_RIGHTS) with a 4-byte
 * status, the one home of it: tdtrace hands each traced process its ring
 * (src/tdtrace/transport.c to src/shim/conn.c), and the child hands
 * tdtrace its seccomp listener (src/ioctl/seccomp.c). */
#ifndef TD_FDPASS_H
#define TD_FDPASS_H

#include <stdint.h>

#define TD_FDPASS_MAX 8

/* Sends status and n descriptors (0 to TD_FDPASS_MAX). 0, or -errno
 * (-EIO for a short send); never raises SIGPIPE. */
int td_fdpass_send(int sock, int32_t status, const int *fds, int n);

/* Receives a status into *status and descriptors (close-on-exec) into
 * fds[0..n-1], the ones not received set to -1. Returns how many came:
 * n, or 0 when the sender sent none or anything but n (those, and any of
 * truncated control data, are closed: none leaks); -errno on failure,
 * -ECONNRESET when the peer went away without sending. */
int td_fdpass_recv(int sock, int32_t *status, int *fds, int n);

#endif
