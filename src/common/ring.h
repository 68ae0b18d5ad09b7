/* SPDX-License-Identifier: Apache-2.0 */
/* One process's ring of event records (see include/tdtrace/record.h). */
#ifndef TD_RING_H
#define TD_RING_H

#include <stddef.h>
#include <stdint.h>

#include "tdtrace/record.h"

struct td_ring {
    struct td_ring_hdr *hdr;
    unsigned char *data;
    uint64_t size, mask;
    size_t maplen;
    uint64_t rtail;     /* reader: consumed up to here, published in batches */
    unsigned unpublished;
    int32_t stall_tid;  /* reader: the writer of the reserved record it waits for (0: unknown) */
    int consumer_gone;  /* writer: the reader was found gone; every later record is dropped at once */
};

/* what the reader had to give up */
struct td_ring_loss {
    uint64_t records;   /* records whose writer never finished them */
    uint64_t bytes;     /* bytes skipped without a record boundary (holes, garbage) */
    uint64_t resyncs;   /* times head was not believable and the reader started over */
};

/* tdtrace: a new ring in a memfd sealed against resizing, mapped; returns
 * the descriptor (close-on-exec) or -errno */
int td_ring_create(struct td_ring *r, uint64_t size, uint32_t flags);
/* map a ring from its descriptor (checked: magic, version, sizes); 0 or -errno */
int td_ring_map(struct td_ring *r, int fd);
void td_ring_unmap(struct td_ring *r);

/* writer: reserve len bytes (multiple of 8, <= TD_RING_MAXREC) for thread
 * tid and return the record's address, NULL if dropped; then
 * td_ring_commit. bounded: drop rather than wait when full. */
struct td_rec *td_ring_reserve(struct td_ring *r, uint32_t len, unsigned type, int32_t tid,
                               int bounded);
void td_ring_commit(struct td_rec *rec);

/* reader: copy the next committed record into buf (TD_RING_MAXREC bytes).
 * Returns its length; 0 if none is ready (stall_tid then names the writer
 * of a reserved record that blocks the way, if any); -1 if it skipped
 * something instead (padding, or what it could not trust, counted in
 * loss): call again. Each call does a bounded amount of work.
 * final: the ring's process is gone, so no writer is left: reserved
 * records and holes are skipped and counted, everything committed is
 * returned. */
int td_ring_read(struct td_ring *r, void *buf, int final, struct td_ring_loss *loss);
/* reader: the reserved record at the read position will never be
 * finished (the kernel says its writer is gone): skip it, count it */
void td_ring_skip(struct td_ring *r, struct td_ring_loss *loss);
/* reader: make what was consumed available to writers */
void td_ring_publish(struct td_ring *r);

#endif
