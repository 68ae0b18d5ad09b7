/* SPDX-License-Identifier: Apache-2.0 */
/* The record ring: writer/reader protocol, wrap-around, full ring in both
 * modes, many writers, and a reader that survives garbage. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "ring.h"

#define SIZE 65536

static struct td_ring ring;
static int ring_fd = -1;

static int setup(void **state)
{
    (void)state;
    ring_fd = td_ring_create(&ring, SIZE, 0);
    return ring_fd < 0;
}

static int teardown(void **state)
{
    (void)state;
    td_ring_unmap(&ring);
    close(ring_fd);
    return 0;
}

static void put(struct td_ring *r, uint32_t len, uint32_t tag)
{
    struct td_rec *rec = td_ring_reserve(r, len, TD_REC_CALL, 1, 0);
    assert_non_null(rec);
    memset((char *)rec + 8, 0, len - 8);
    rec->pid = tag;
    rec->tid = len;
    td_ring_commit(rec);
}

/* the next record, past padding and skips (which return -1) */
static int rd(void *buf, int final, struct td_ring_loss *lost)
{
    int n;
    for (int guard = 0; guard < 1000; guard++)
        if ((n = td_ring_read(&ring, buf, final, lost)) >= 0)
            return n;
    fail_msg("the reader did not settle");
    return -1;
}

static void test_roundtrip_and_wrap(void **state)
{
    (void)state;
    _Alignas(8) unsigned char buf[TD_RING_MAXREC];
    struct td_ring_loss lost = { 0, 0, 0 };
    assert_int_equal(rd(buf, 0, &lost), 0);
    /* several passes around the ring, with sizes that never divide it */
    uint32_t tag = 0;
    for (int pass = 0; pass < 40; pass++) {
        uint32_t len = 48 + 8 * (uint32_t)(pass % 300);
        for (int k = 0; k < 20; k++)
            put(&ring, len, tag + (uint32_t)k);
        for (int k = 0; k < 20; k++) {
            int n = rd(buf, 0, &lost);
            assert_int_equal(n, (int)len);
            const struct td_rec *rec = (const void *)buf;
            assert_int_equal(rec->pid, tag + (uint32_t)k);
            assert_int_equal(rec->tid, len);
            assert_int_equal(TD_REC_TYPE(rec->word), TD_REC_CALL);
        }
        tag += 20;
        assert_int_equal(rd(buf, 0, &lost), 0);
    }
    assert_int_equal(lost.records + lost.bytes + lost.resyncs, 0);
}

static void test_reject_bad_lengths(void **state)
{
    (void)state;
    assert_null(td_ring_reserve(&ring, 12, TD_REC_CALL, 1, 0));
    assert_null(td_ring_reserve(&ring, 8, TD_REC_CALL, 1, 0));
    assert_null(td_ring_reserve(&ring, TD_RING_MAXREC + 8, TD_REC_CALL, 1, 0));
}

static void test_bounded_drops(void **state)
{
    (void)state;
    int stored = 0;
    for (int i = 0; i < 2000; i++) {
        struct td_rec *rec = td_ring_reserve(&ring, 256, TD_REC_CALL, 1, 1);
        if (rec) {
            td_ring_commit(rec);
            stored++;
        }
    }
    assert_int_equal(stored, SIZE / 256);
    assert_int_equal(ring.hdr->dropped, 2000 - SIZE / 256);
    _Alignas(8) unsigned char buf[TD_RING_MAXREC];
    struct td_ring_loss lost = { 0, 0, 0 };
    int n = 0;
    while (rd(buf, 0, &lost) > 0)
        n++;
    assert_int_equal(n, stored);
    ring.hdr->dropped = 0;
}

struct writer { int id, count; };

static void *writer_main(void *arg)
{
    struct writer *w = arg;
    for (int i = 0; i < w->count; i++) {
        uint32_t len = 48 + 8 * (uint32_t)(i % 7);
        struct td_rec *rec = td_ring_reserve(&ring, len, TD_REC_CALL, w->id + 1, 0);
        if (!rec)
            abort();
        rec->pid = (uint32_t)w->id;
        rec->tid = (uint32_t)i;
        td_ring_commit(rec);
    }
    return NULL;
}

/* lossless: writers wait for the reader; every record arrives once, in
 * order per writer */
static void test_many_writers_lossless(void **state)
{
    (void)state;
    enum { W = 8, N = 20000 };
    pthread_t th[W];
    struct writer w[W];
    for (int i = 0; i < W; i++) {
        w[i] = (struct writer){ i, N };
        pthread_create(&th[i], NULL, writer_main, &w[i]);
    }
    int next[W] = { 0 };
    int total = 0;
    _Alignas(8) unsigned char buf[TD_RING_MAXREC];
    struct td_ring_loss lost = { 0, 0, 0 };
    while (total < W * N) {
        int n = rd(buf, 0, &lost);
        if (n <= 0)
            continue;
        const struct td_rec *rec = (const void *)buf;
        assert_true(rec->pid < W);
        assert_int_equal(rec->tid, next[rec->pid]);
        next[rec->pid]++;
        total++;
    }
    for (int i = 0; i < W; i++)
        pthread_join(th[i], NULL);
    assert_int_equal(rd(buf, 0, &lost), 0);
    assert_int_equal(lost.records + lost.bytes + lost.resyncs, 0);
    assert_int_equal(ring.hdr->dropped, 0);
}

/* a writer that died after reserving: the reader names it and waits;
 * skipped when the caller says it is gone, or in the final drain */
static void test_reserved_never_committed(void **state)
{
    (void)state;
    _Alignas(8) unsigned char buf[TD_RING_MAXREC];
    struct td_ring_loss lost = { 0, 0, 0 };
    assert_non_null(td_ring_reserve(&ring, 64, TD_REC_CALL, 4321, 0));
    put(&ring, 64, 7);
    assert_int_equal(rd(buf, 0, &lost), 0); /* waits for it */
    assert_int_equal(ring.stall_tid, 4321);
    td_ring_skip(&ring, &lost);
    assert_int_equal(lost.records, 1);
    assert_int_equal(rd(buf, 0, &lost), 64);
    assert_int_equal(((const struct td_rec *)buf)->pid, 7);
    /* final: skipped without being asked */
    assert_non_null(td_ring_reserve(&ring, 64, TD_REC_CALL, 4321, 0));
    put(&ring, 64, 8);
    assert_int_equal(rd(buf, 1, &lost), 64);
    assert_int_equal(((const struct td_rec *)buf)->pid, 8);
    assert_int_equal(lost.records, 2);
}

/* a writer killed between its CAS on head and its first store leaves a
 * hole of zeros: the final drain finds the next record after it */
static void test_hole(void **state)
{
    (void)state;
    _Alignas(8) unsigned char buf[TD_RING_MAXREC];
    struct td_ring_loss lost = { 0, 0, 0 };
    put(&ring, 48, 1);
    __atomic_fetch_add(&ring.hdr->head, 80, __ATOMIC_RELEASE); /* the dead writer's reservation */
    put(&ring, 56, 2);
    put(&ring, 64, 3);
    assert_int_equal(rd(buf, 0, &lost), 48);
    assert_int_equal(rd(buf, 0, &lost), 0); /* not final: it may still come */
    assert_int_equal(rd(buf, 1, &lost), 56);
    assert_int_equal(((const struct td_rec *)buf)->pid, 2);
    assert_int_equal(rd(buf, 1, &lost), 64);
    assert_int_equal(rd(buf, 1, &lost), 0);
    assert_int_equal(lost.records, 1);
    assert_int_equal(lost.bytes, 80);
}

/* garbage from a hostile program never crashes or hangs the reader */
static void test_garbage(void **state)
{
    (void)state;
    _Alignas(8) unsigned char buf[TD_RING_MAXREC];
    srand(1234);
    for (int round = 0; round < 500; round++) {
        for (int k = 0; k < 3; k++)
            put(&ring, 48 + 8 * (uint32_t)k, (uint32_t)k);
        /* scribble over data and, sometimes, the header's counters */
        for (int k = 0; k < 16; k++)
            ring.data[rand() % SIZE] = (unsigned char)rand();
        if (round % 7 == 0)
            ring.hdr->head += (uint64_t)(rand() % 5000) - 2500;
        if (round % 11 == 0)
            ring.hdr->tail += (uint64_t)(rand() % 9) * 8;
        struct td_ring_loss lost = { 0, 0, 0 };
        int guard = 0;
        while (td_ring_read(&ring, buf, round & 1, &lost) != 0 && guard < 100000)
            guard++;
        assert_true(guard < 100000);
        /* reset to a clean state for the next round */
        ring.hdr->head = ring.hdr->tail = ring.rtail;
        memset(ring.data, 0, SIZE);
    }
}

static void test_map(void **state)
{
    (void)state;
    struct td_ring r2;
    assert_int_equal(td_ring_map(&r2, ring_fd), 0);
    put(&r2, 48, 99);
    _Alignas(8) unsigned char buf[TD_RING_MAXREC];
    struct td_ring_loss lost = { 0, 0, 0 };
    assert_int_equal(rd(buf, 0, &lost), 48);
    assert_int_equal(((const struct td_rec *)buf)->pid, 99);
    td_ring_unmap(&r2);
    /* not a ring: refused; the memfd cannot be shrunk under the reader */
    int fd = open("/proc/self/status", O_RDONLY);
    assert_true(td_ring_map(&r2, fd) < 0);
    close(fd);
    assert_true(ftruncate(ring_fd, 4096) < 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_roundtrip_and_wrap, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reject_bad_lengths, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bounded_drops, setup, teardown),
        cmocka_unit_test_setup_teardown(test_many_writers_lossless, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reserved_never_committed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hole, setup, teardown),
        cmocka_unit_test_setup_teardown(test_garbage, setup, teardown),
        cmocka_unit_test_setup_teardown(test_map, setup, teardown),
    };
    return cmocka_run_group_tests_name("ring", tests, NULL, NULL);
}
