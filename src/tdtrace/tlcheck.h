/* SPDX-License-Identifier: Apache-2.0 */
/* A timeline file (--timeline, docs/timeline-format.md) checked before
 * tdtrace report puts it into a page: strict JSON (RFC 8259, UTF-8), the
 * object form with a traceEvents array, each event's fields of the
 * contract's types; and its text escaped for a <script> element. */
#ifndef TD_TLCHECK_H
#define TD_TLCHECK_H

#include <stddef.h>

/* nesting deeper than this is refused (the contract's is 4) */
#define TD_TL_MAX_DEPTH 64

struct td_tl_stats {
    size_t events;      /* elements of traceEvents */
};

/* buf[0..len) (not NUL-terminated; untrusted): 0, or -1 with why (the
 * byte offset, or the event's index and field) */
int td_tl_check(const char *buf, size_t len, struct td_tl_stats *st, char *why, size_t n);

/* checked JSON text escaped for a <script> element: '<', '>', '&', U+2028
 * and U+2029 as \u escapes (they are only ever inside strings of checked
 * JSON, where the escapes mean the same). Converts in[0..inlen) (the whole
 * rest of the text, never cut inside a character) into out (cap bytes, at
 * least 6) as far as it fits: the bytes written, *used the bytes of in
 * consumed */
size_t td_script_escape(const char *in, size_t inlen, size_t *used, char *out, size_t cap);

#endif
