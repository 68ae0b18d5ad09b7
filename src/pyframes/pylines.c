/* SPDX-License-Identifier: Apache-2.0 */
/* CPython's line tables, decoded from copies that may be partial or
 * garbage: every byte read is inside the piece given, a walk ends at the
 * table's end, and a malformed table yields "no line", never a read past
 * the end. The three formats (Objects/lnotab_notes.txt of 3.9 and 3.10,
 * Objects/locations.md of 3.11 on):
 *   3.9  co_lnotab: (address increment, signed line increment) byte pairs;
 *        the line of an address is the first line plus the increments of
 *        the pairs whose running address is at most it.
 *   3.10 co_linetable: (address delta, signed line delta) byte pairs, each
 *        an address range; line delta -128 means "no line".
 *   3.11+ entries of one first byte 1cccclll (code c, lll+1 code units)
 *        and varints: c=15 no line; 14 long form and 13 "no columns" start
 *        with a zigzag varint line delta; 10..12 have line delta c-10;
 *        0..9 keep the line. Varints are 6-bit groups, low first, bit 6
 *        set when another group follows. */
#include "pyframes.h"

#include <limits.h>

void td_pylt_init(struct td_pylt *w, int fmt, int firstlineno, int target)
{
    w->fmt = fmt;
    w->target = target;
    w->pos = 0;
    w->ar_start = -1;
    w->ar_end = 0;
    w->line = firstlineno;
    w->ar_line = -1;
}

/* 3.9: (address increment, line increment) pairs */
static int feed_lnotab(struct td_pylt *w, const uint8_t *b, size_t n, size_t total, int *line)
{
    size_t i = 0;
    for (;;) {
        if (w->pos + 2 > total) {
            *line = w->line;
            return 1;
        }
        if (i + 2 > n)
            return 0;
        int addr = w->ar_end + b[i];
        if (addr > w->target) {
            *line = w->line;
            return 1;
        }
        w->ar_end = addr;
        w->line += (int8_t)b[i + 1];
        i += 2;
        w->pos += 2;
    }
}

/* 3.10: (address delta, line delta) pairs; ranges of zero length only
 * carry line deltas */
static int feed_linetable(struct td_pylt *w, const uint8_t *b, size_t n, size_t total, int *line)
{
    size_t i = 0;
    while (w->ar_end <= w->target || w->ar_start == w->ar_end) {
        if (w->pos + 2 > total) {
            /* past the last range: CPython says "no line" */
            *line = w->ar_end <= w->target ? -1 : w->ar_line;
            return 1;
        }
        if (i + 2 > n)
            return 0;
        w->ar_start = w->ar_end;
        w->ar_end += b[i];
        int8_t d = (int8_t)b[i + 1];
        if (d == -128) {
            w->ar_line = -1;
        } else {
            w->line += d;
            w->ar_line = w->line;
        }
        i += 2;
        w->pos += 2;
    }
    *line = w->ar_line;
    return 1;
}

/* a varint at b[i..end): 1 with *v, 0 if it runs past end or overflows */
static int varint(const uint8_t *b, size_t i, size_t end, unsigned *v)
{
    unsigned val = 0;
    for (unsigned shift = 0; i < end; shift += 6, i++) {
        if (shift > 30)
            return 0;
        val |= (unsigned)(b[i] & 63) << shift;
        if (!(b[i] & 64)) {
            *v = val;
            return 1;
        }
    }
    return 0;
}

/* 3.11+: one entry per range; its bytes run to the next byte with bit 7 */
static int feed_locations(struct td_pylt *w, const uint8_t *b, size_t n, size_t total, int *line)
{
    size_t i = 0;
    while (w->ar_end <= w->target) {
        if (w->pos >= total) {
            *line = -1;
            return 1;
        }
        if (i >= n)
            return 0;
        uint8_t first = b[i];
        if (!(first & 128)) { /* not the start of an entry: garbage */
            *line = -1;
            return 1;
        }
        /* the entry's end: the next first byte, or the table's end */
        size_t end = i + 1;
        while (end < n && !(b[end] & 128))
            end++;
        if (end == n && w->pos + (n - i) < total)
            return 0; /* the entry may go on in the next piece */
        int code = (first >> 3) & 15, delta = 0;
        if (code == 13 || code == 14) {
            unsigned u;
            if (!varint(b, i + 1, end, &u)) {
                *line = -1;
                return 1;
            }
            delta = (u & 1) ? -(int)(u >> 1) : (int)(u >> 1);
        } else if (code >= 10 && code <= 12) {
            delta = code - 10;
        }
        if ((delta > 0 && w->line > INT_MAX - delta) || (delta < 0 && w->line < INT_MIN - delta)) {
            *line = -1;
            return 1;
        }
        w->line += delta;
        w->ar_line = code == 15 ? -1 : w->line;
        w->ar_start = w->ar_end;
        w->ar_end += ((first & 7) + 1) * 2;
        w->pos += end - i;
        i = end;
    }
    *line = w->ar_line;
    return 1;
}

int td_pylt_feed(struct td_pylt *w, const uint8_t *buf, size_t n, size_t total, int *line)
{
    if (w->pos > total)
        w->pos = total;
    if (n > total - w->pos)
        n = total - w->pos;
    if (w->target < 0) { /* a frame not started: CPython says the first line */
        *line = w->line;
        return 1;
    }
    /* addresses are ints: a garbage table of huge deltas ends here */
    if (w->ar_end > INT_MAX / 2) {
        *line = -1;
        return 1;
    }
    switch (w->fmt) {
    case TD_PYL_LNOTAB:
        return feed_lnotab(w, buf, n, total, line);
    case TD_PYL_LINETABLE:
        return feed_linetable(w, buf, n, total, line);
    case TD_PYL_LOCATIONS:
        return feed_locations(w, buf, n, total, line);
    default:
        *line = -1;
        return 1;
    }
}
