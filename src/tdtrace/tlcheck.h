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
    size_t events;      /* elements of traceEvents (cut short: the whole ones) */
    /* refused because the text ends early (a run tdtrace could not finish)
     * once its events had begun: its first cut_at bytes followed by
     * cut_tail ("]}" or "}") close it after its last whole event or
     * member; cut_at 0: it cannot be closed so */
    size_t cut_at;
    const char *cut_tail;
};

/* buf[0..len) (not NUL-terminated; untrusted): 0, or -1 with why (the
 * byte offset, or the event's index and field); st may be NULL */
int td_tl_check(const char *buf, size_t len, struct td_tl_stats *st, char *why, size_t n);

/* checked JSON text escaped for a <script> element: '<', '>', '&', U+2028
 * and U+2029 as \u escapes (they are only ever inside strings of checked
 * JSON, where the escapes mean the same). Converts in[0..inlen) (the whole
 * rest of the text, never cut inside a character) into out (cap bytes, at
 * least 6) as far as it fits: the bytes written, *used the bytes of in
 * consumed */
size_t td_script_escape(const char *in, size_t inlen, size_t *used, char *out, size_t cap);

#endif
