/* SPDX-License-Identifier: Apache-2.0 */
/* Reads of this process's own memory that never fault: process_vm_readv
 * on our own pid copies what is mapped readable and stops at what is not,
 * so a pointer from a broken frame chain costs an error, not a SIGSEGV.
 * One system call copies many pieces; a piece it stops in is short (or
 * empty) and the rest are tried again after it. */
#include "pyint.h"

#include <errno.h>
#include <stdatomic.h>
#include <sys/uio.h>
#include <unistd.h>

static _Atomic pid_t self_pid;
static _Atomic unsigned long nsyscalls;

void td_py_read_setpid(void)
{
    atomic_store_explicit(&self_pid, getpid(), memory_order_relaxed);
}

unsigned long td_py_syscalls(void)
{
    return atomic_load_explicit(&nsyscalls, memory_order_relaxed);
}

#define BATCH 16 /* pieces per system call: the reader asks for at most 12 */

int td_py_readv(struct td_pyseg *s, unsigned n)
{
    pid_t pid = atomic_load_explicit(&self_pid, memory_order_relaxed);
    for (unsigned i = 0; i < n; i++)
        s[i].got = 0;
    unsigned i = 0;
    while (i < n) {
        struct iovec local[BATCH], remote[BATCH];
        unsigned k = 0;
        for (; k < BATCH && i + k < n; k++) {
            local[k].iov_base = s[i + k].dst;
            remote[k].iov_base = (void *)s[i + k].addr;
            local[k].iov_len = remote[k].iov_len = s[i + k].len;
        }
        atomic_fetch_add_explicit(&nsyscalls, 1, memory_order_relaxed);
        ssize_t r = process_vm_readv(pid, local, k, remote, k, 0);
        if (r < 0) {
            if (errno != EFAULT)
                return -1;
            i++; /* the first piece is not readable at all */
            continue;
        }
        size_t left = (size_t)r;
        unsigned j = 0;
        for (; j < k && left >= s[i + j].len; j++) {
            s[i + j].got = s[i + j].len;
            left -= s[i + j].len;
        }
        if (j < k) /* it stopped in this piece: keep what came */
            s[i + j++].got = (uint32_t)left;
        i += j;
    }
    return 0;
}
