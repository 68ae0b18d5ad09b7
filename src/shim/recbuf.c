/* SPDX-License-Identifier: Apache-2.0 */
/* A record being built in the shim: its items (td_rb_item), and what goes
 * into them from this process's own memory, read without trusting the
 * address (td_self_read: a bad pointer from the program costs it nothing
 * but an address in the trace). Used by the records (shim.c) and by what
 * pointer arguments point to (deref.c). */
#include "shim.h"

#include <stdatomic.h>
#include <string.h>
#include <sys/uio.h>

#include "ring.h"

void *td_rb_item(struct td_rb *b, unsigned arg, unsigned kind, size_t len, uint32_t flags)
{
    size_t need = sizeof(struct td_item) + ((len + 7) & ~(size_t)7);
    if (b->len + need > sizeof(b->buf) || len > 0xffff)
        return NULL;
    struct td_item *it = (struct td_item *)(b->buf + b->len);
    it->arg = (uint8_t)arg;
    it->kind = (uint8_t)kind;
    it->len = (uint16_t)len;
    it->flags = flags;
    unsigned char *data = (unsigned char *)(it + 1);
    memset(data + len, 0, need - sizeof(*it) - len);
    b->len += (uint32_t)need;
    b->nitems++;
    b->last = it;
    return data;
}

void td_rb_shrink(struct td_rb *b, size_t len)
{
    struct td_item *it = b->last;
    if (!it || len >= it->len)
        return;
    size_t old = ((size_t)it->len + 7) & ~(size_t)7, now = (len + 7) & ~(size_t)7;
    unsigned char *data = (unsigned char *)(it + 1);
    memset(data + len, 0, old - len);
    it->len = (uint16_t)len;
    b->len -= (uint32_t)(old - now);
}

size_t td_self_read(void *dst, uint64_t addr, size_t len)
{
    if (!addr || !len)
        return 0;
    struct iovec local = { dst, len }, remote = { (void *)(uintptr_t)addr, len };
    pid_t me = atomic_load_explicit(&td_shim_self->pid, memory_order_relaxed);
    ssize_t n = process_vm_readv(me, &local, 1, &remote, 1, 0);
    if (n > 0)
        return (size_t)n;
    /* it may stop at a page it cannot read: what comes before it */
    size_t room = 4096 - (addr & 4095);
    if (room >= len)
        return 0;
    local.iov_len = remote.iov_len = room;
    n = process_vm_readv(me, &local, 1, &remote, 1, 0);
    return n > 0 ? (size_t)n : 0;
}

/* a string from this process's memory, without trusting the pointer: at
 * most TD_STR_MAX bytes (flagged truncated when longer) */
void td_rb_str(struct td_rb *b, unsigned arg, const char *s)
{
    char tmp[TD_STR_MAX + 1];
    size_t n = td_self_read(tmp, (uint64_t)(uintptr_t)s, sizeof(tmp));
    if (!n)
        return;
    size_t len = strnlen(tmp, n);
    uint32_t fl = 0;
    if (len > TD_STR_MAX) {
        len = TD_STR_MAX;
        fl = TD_ITF_TRUNCATED;
    }
    void *d = td_rb_item(b, arg, TD_IT_STR, len, fl);
    if (d)
        memcpy(d, tmp, len);
}
