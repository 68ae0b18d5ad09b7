/* SPDX-License-Identifier: Apache-2.0 */
/* /proc/PID/maps: the mappings of a process, and a free place near an
 * address for trampoline memory. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "patch.h"

/* the lowest address mmap gives by default (vm.mmap_min_addr) and the top
 * of a 47-bit user address space */
#define MAP_LOW 0x10000ULL
#define MAP_TOP 0x7ffffffff000ULL
/* room left above the program break for the heap to grow */
#define HEAP_GUARD (1ULL << 30)

int td_maps_foreach(int pid, int (*cb)(const struct td_map *m, void *arg), void *arg)
{
    char path[64];
    if (pid)
        snprintf(path, sizeof path, "/proc/%d/maps", pid);
    else
        snprintf(path, sizeof path, "/proc/self/maps");
    FILE *f = fopen(path, "re");
    if (!f)
        return -errno;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int rc = 0;
    while ((n = getline(&line, &cap, f)) > 0) {
        if (line[n - 1] == '\n')
            line[n - 1] = 0;
        unsigned long long s, e, off;
        char perms[8];
        int pos = 0;
        if (sscanf(line, "%llx-%llx %7s %llx %*s %*s%n", &s, &e, perms, &off, &pos) < 4 || pos <= 0)
            continue;
        const char *p = line + pos;
        while (*p == ' ')
            p++;
        struct td_map m = { s, e, off,
                            (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
                                (perms[2] == 'x' ? PROT_EXEC : 0),
                            p };
        if ((rc = cb(&m, arg)) != 0)
            break;
    }
    free(line);
    fclose(f);
    return rc;
}

/* the start of the program break (field 47 of /proc/PID/stat), 0 if unknown */
static uint64_t start_brk(int pid)
{
    char path[64], buf[1024];
    if (pid)
        snprintf(path, sizeof path, "/proc/%d/stat", pid);
    else
        snprintf(path, sizeof path, "/proc/self/stat");
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *p = strrchr(buf, ')'); /* the command name may hold anything */
    if (!p)
        return 0;
    /* p + 2 is field 3 */
    int field = 3;
    unsigned long long v = 0;
    for (p += 2; *p && field < 47; p++)
        if (*p == ' ')
            field++;
    if (field == 47 && sscanf(p, "%llu", &v) == 1)
        return v;
    return 0;
}

struct gap {
    uint64_t lo, hi, size, mid, best, bestdist;
    uint64_t prev_end, brk_lo, brk_hi, page;
    int found;
};

static void consider(struct gap *g, uint64_t g0, uint64_t g1)
{
    /* the program break's room is not free */
    if (g->brk_lo && g0 < g->brk_hi && g1 > g->brk_lo) {
        if (g0 < g->brk_lo)
            consider(g, g0, g->brk_lo);
        if (g1 > g->brk_hi)
            consider(g, g->brk_hi, g1);
        return;
    }
    if (g0 < MAP_LOW)
        g0 = MAP_LOW;
    if (g1 > MAP_TOP)
        g1 = MAP_TOP;
    g0 = (g0 + g->page - 1) & ~(g->page - 1);
    if (g1 <= g0 || g1 - g0 < g->size)
        return;
    uint64_t a = g0 > g->lo ? g0 : g->lo, b = g1 - g->size < g->hi ? g1 - g->size : g->hi;
    a = (a + g->page - 1) & ~(g->page - 1);
    b &= ~(g->page - 1);
    if (a > b)
        return;
    uint64_t x = g->mid < a ? a : g->mid > b ? b : g->mid & ~(g->page - 1);
    if (x < a)
        x = a;
    uint64_t dist = x > g->mid ? x - g->mid : g->mid - x;
    if (!g->found || dist < g->bestdist) {
        g->found = 1;
        g->best = x;
        g->bestdist = dist;
    }
}

static int gap_cb(const struct td_map *m, void *arg)
{
    struct gap *g = arg;
    if (m->start >= MAP_TOP)
        return 0; /* [vsyscall] */
    /* the room below the stack is its growth */
    if (strcmp(m->path, "[stack]") != 0 && m->start > g->prev_end)
        consider(g, g->prev_end, m->start);
    if (strcmp(m->path, "[heap]") == 0 && g->brk_lo && m->end + HEAP_GUARD > g->brk_hi)
        g->brk_hi = m->end + HEAP_GUARD;
    if (m->end > g->prev_end)
        g->prev_end = m->end;
    return 0;
}

int td_maps_find_gap(int pid, uint64_t lo, uint64_t hi, size_t size, uint64_t *addr)
{
    long ps = sysconf(_SC_PAGESIZE);
    struct gap g = { .lo = lo, .hi = hi, .size = size, .page = (uint64_t)(ps > 0 ? ps : 4096) };
    if (size == 0 || lo > hi)
        return -EINVAL;
    g.mid = lo / 2 + hi / 2;
    g.brk_lo = start_brk(pid);
    if (g.brk_lo)
        g.brk_hi = g.brk_lo + HEAP_GUARD;
    int rc = td_maps_foreach(pid, gap_cb, &g);
    if (rc < 0)
        return rc;
    if (!g.found)
        return -ENOMEM;
    *addr = g.best;
    return 0;
}
