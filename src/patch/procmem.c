/* SPDX-License-Identifier: Apache-2.0 */
/* td_procmem: another process's memory through /proc/PID/mem. Its writes
 * ignore page protections (as ptrace's do), so code pages stay as they
 * are; they are not atomic, so every live replacement requires
 * TD_PATCH_STOPPED: the caller has stopped all the threads. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

int td_procmem_open(struct td_procmem *pm, int pid,
                    int (*map)(void *arg, uint64_t lo, uint64_t hi, size_t size, uint64_t *addr),
                    void *map_arg, struct td_perr *err)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/mem", pid);
    pm->pid = pid;
    pm->map = map;
    pm->map_arg = map_arg;
    pm->fd = open(path, O_RDWR | O_CLOEXEC);
    if (pm->fd < 0) {
        int en = errno;
        return td_perr_set(err, TD_PE_MEM, en, "%s: %s%s", path, strerror(en),
                           en == EACCES || en == EPERM ? " (writing another process's memory needs ptrace access to it)"
                                                       : "");
    }
    return 0;
}

void td_procmem_close(struct td_procmem *pm)
{
    if (pm->fd >= 0)
        close(pm->fd);
    pm->fd = -1;
}

static int pm_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
    struct td_procmem *pm = ctx;
    size_t done = 0;
    while (done < len) {
        ssize_t n = pread(pm->fd, (char *)buf + done, len - done, (off_t)(addr + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? -errno : -EFAULT;
        done += (size_t)n;
    }
    return 0;
}

static int pm_write(void *ctx, uint64_t addr, const void *buf, size_t len)
{
    struct td_procmem *pm = ctx;
    size_t done = 0;
    while (done < len) {
        ssize_t n = pwrite(pm->fd, (const char *)buf + done, len - done, (off_t)(addr + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? -errno : -EFAULT;
        done += (size_t)n;
    }
    return 0;
}

static int pm_replace(void *ctx, uint64_t addr, const void *expect, const void *bytes, size_t len, unsigned flags)
{
    uint8_t cur[16];
    if (len == 0 || len > sizeof cur)
        return -EINVAL;
    if (!(flags & TD_PATCH_STOPPED))
        return -ENOTSUP;
    int rc = pm_read(ctx, addr, cur, len);
    if (rc)
        return rc;
    if (memcmp(cur, expect, len) != 0)
        return -ECANCELED;
    return pm_write(ctx, addr, bytes, len);
}

static int pm_map(void *ctx, uint64_t lo, uint64_t hi, size_t size, uint64_t *addr)
{
    struct td_procmem *pm = ctx;
    if (!pm->map)
        return -ENOSYS;
    return pm->map(pm->map_arg, lo, hi, size, addr);
}

struct td_patch_mem td_procmem_ops(struct td_procmem *pm)
{
    return (struct td_patch_mem){ pm_read, pm_write, pm_replace, pm_map, pm };
}
