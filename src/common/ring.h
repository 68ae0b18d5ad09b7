/* The shared ring of event records (see include/tdtrace/record.h). */
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
};

/* tdtrace: create the shared file (unlinked at td_ring_destroy) */
int td_ring_create(struct td_ring *r, char *path, size_t pathlen, uint64_t size, uint32_t flags);
/* the shim: map an existing ring; 0 or -errno */
int td_ring_attach(struct td_ring *r, const char *path);
void td_ring_detach(struct td_ring *r);

/* writer: reserve len bytes (multiple of 8, <= TD_RING_MAXREC) and return
 * the record's address, NULL if dropped; then td_ring_commit. */
struct td_rec *td_ring_reserve(struct td_ring *r, uint32_t len, unsigned type);
void td_ring_commit(struct td_ring *r, struct td_rec *rec, uint32_t len, unsigned type);

/* reader: copy the next committed record into buf (TD_RING_MAXREC bytes).
 * Returns its length, 0 if none is ready, -1 if the ring is corrupt (the
 * reader then resynchronises at head and counts the bytes lost).
 * When `final` is set, no writer is left: a record still reserved is
 * skipped and counted as lost. */
int td_ring_read(struct td_ring *r, void *buf, int final, uint64_t *lost_bytes);
/* reader: make what was consumed available to writers (td_ring_read does
 * this every few records and whenever it finds nothing to read) */
void td_ring_publish(struct td_ring *r);

#endif
