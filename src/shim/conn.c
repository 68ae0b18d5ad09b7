/* SPDX-License-Identifier: Apache-2.0 */
/* The shim's connection to tdtrace: the process's ring, tdtrace's control
 * area (flags, trace mask, the policy) and the area every traced process
 * shares, asked for on tdtrace's socket (include/tdtrace/record.h); and
 * which process this is. */
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "fdpass.h"
#include "pyframes.h"
#include "ring.h"
#include "shim.h"

const struct td_ctl *td_shim_ctl;
struct td_shared *td_shim_shared;
const uint8_t *td_shim_mask;
int td_use_tsc;
int td_shim_stacks, td_shim_bounded, td_shim_pyframes, td_shim_device;
struct td_ring *_Atomic td_shim_ring;
struct td_shim_self *td_shim_self;
static int wake_fd = -1;
/* tdtrace's socket: TDTRACE_SOCK, or what tdtrace -p named (attach.c) */
static char sock_name[108];
static int sock_set;

void td_conn_set_sock(const char *name)
{
    snprintf(sock_name, sizeof(sock_name), "%s", name);
    sock_set = 1;
}

/* ask tdtrace for this process's ring (and, the first time, the control
 * and shared areas); 0 or -1 (then the process is not traced) */
int td_conn_connect(int first)
{
    const char *name = sock_set ? sock_name : getenv("TDTRACE_SOCK");
    if (!name || !*name || strlen(name) > sizeof(((struct sockaddr_un *)0)->sun_path) - 2)
        return -1;
    int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (s < 0)
        return -1;
    struct sockaddr_un a;
    memset(&a, 0, sizeof(a));
    a.sun_family = AF_UNIX;
    size_t n = strlen(name);
    memcpy(a.sun_path + 1, name, n); /* abstract: nothing in the file system */
    int32_t st = 1;
    int fds[4] = { -1, -1, -1, -1 };
    if (connect(s, (struct sockaddr *)&a, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n)) == 0 &&
        td_fdpass_recv(s, &st, fds, 4) != 4)
        st = 1;
    close(s);
    int rc = -1;
    struct td_ring *r = NULL;
    if (st == 0 && fds[0] >= 0 && (r = calloc(1, sizeof(*r))) && td_ring_map(r, fds[0]) == 0) {
        if (first) {
            struct stat sb;
            void *c = MAP_FAILED, *sh = MAP_FAILED;
            if (fstat(fds[1], &sb) == 0 && (size_t)sb.st_size >= sizeof(struct td_ctl))
                c = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_SHARED, fds[1], 0);
            if (c != MAP_FAILED)
                sh = mmap(NULL, sizeof(struct td_shared), PROT_READ | PROT_WRITE, MAP_SHARED, fds[2], 0);
            const struct td_ctl *ctl = c;
            if (sh != MAP_FAILED && ctl->magic == TD_CTL_MAGIC && ctl->version == TD_RING_VERSION &&
                sizeof(*ctl) + (size_t)ctl->policy_len <= (size_t)sb.st_size) {
                td_shim_ctl = ctl;
                td_shim_shared = sh;
                wake_fd = fds[3];
                fds[3] = -1;
                rc = 0;
            } else {
                if (c != MAP_FAILED)
                    munmap(c, (size_t)sb.st_size);
                if (sh != MAP_FAILED)
                    munmap(sh, sizeof(struct td_shared));
            }
        } else {
            rc = 0;
        }
    }
    for (int i = 0; i < 4; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    if (rc < 0) {
        if (r && r->hdr)
            td_ring_unmap(r);
        free(r);
        return -1;
    }
    /* the old ring (a parent's) stays mapped: a thread may still hold it */
    atomic_store_explicit(&td_shim_ring, r, memory_order_release);
    return 0;
}

void td_conn_start(void)
{
    if (td_conn_connect(1) < 0)
        return;
    void *pg = td_shim_self ? (void *)td_shim_self /* attached again (tdtrace -p) */
                            : mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (pg != MAP_FAILED && (pg == td_shim_self || madvise(pg, 4096, MADV_WIPEONFORK) == 0)) {
        td_shim_self = pg;
        atomic_store(&td_shim_self->pid, (pid_t)syscall(SYS_getpid));
    } else { /* no way to tell a child from its parent: do not trace */
        atomic_store(&td_shim_ring, NULL);
    }
    td_shim_stacks = (td_shim_ctl->flags & TD_RING_STACKS) != 0;
    td_shim_bounded = (td_shim_ctl->flags & TD_RING_BOUNDED) != 0;
    td_shim_pyframes = (td_shim_ctl->flags & TD_RING_PYFRAMES) != 0;
    td_shim_device = (td_shim_ctl->flags & TD_RING_DEVICE) != 0;
    if (td_shim_pyframes)
        td_py_state(); /* look for CPython now (it may allocate), not in a traced call */
    td_use_tsc = (td_shim_ctl->flags & TD_RING_TSC) != 0;
    __atomic_store_n(&td_shim_mask, td_shim_ctl->trace_mask, __ATOMIC_RELAXED); /* tdtrace -p: threads run */
}

void td_conn_wake(void)
{
    uint64_t one = 1;
    if (write(wake_fd, &one, sizeof(one)) < 0) {
        /* the program closed it: tdtrace wakes on its own soon */
    }
}
