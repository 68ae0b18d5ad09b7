/* SPDX-License-Identifier: Apache-2.0 */
/* The print layer: the only way tdtrace writes trace output.
 *
 * Every decoder describes a value through these helpers; the sink decides
 * the format (strace-like text or JSON lines), so both formats come from one
 * place. A decoder never formats text itself and never calls printf.
 *
 *   tp_call_begin(p, "cuMemAlloc_v2");         text: cuMemAlloc_v2(
 *   tp_arg(p, "dptr"); tp_out_begin(p);        text: &            json: "dptr":
 *   tp_hex(p, 0x7f2a40000000); tp_out_end(p);
 *   tp_arg(p, "bytesize"); tp_uint(p, 4096);   text: , 4096
 *   tp_call_end(p, 0, "CUDA_SUCCESS");         text: ) = CUDA_SUCCESS
 *
 * Structures: tp_struct_begin(p); tp_field(p, "hClient"); tp_hex(p, v); ...
 * tp_struct_end(p) prints {hClient=0x..., cmd=...} or a JSON object.
 * Arrays: tp_array_begin / tp_elem / tp_array_end.
 */
#ifndef TD_PRINT_H
#define TD_PRINT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum tp_format { TP_TEXT, TP_JSON };

/* -X: how named constants print in text (strace's -X): abbrev NAME,
 * raw the number only, verbose the number with the name in a comment */
enum tp_xmode { TP_X_ABBREV, TP_X_RAW, TP_X_VERBOSE };

struct tp {
    enum tp_format fmt;
    FILE *f;
    int depth;          /* nesting of structs/arrays */
    int first[16];      /* no separator yet at this depth */
    int strsize;        /* -s: string limit */
    int verbose;        /* -v */
    int xmode;          /* enum tp_xmode (text only: JSON always has names) */
    char *buf;          /* the line being built */
    size_t len, cap;
};

void tp_init(struct tp *p, enum tp_format fmt, FILE *f);
void tp_free(struct tp *p);

/* a whole line: prefix (pid, timestamps) is written by the caller through
 * tp_raw before tp_call_begin; tp_line_end flushes the line */
void tp_raw(struct tp *p, const char *s);
void tp_rawf(struct tp *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tp_line_end(struct tp *p);

void tp_call_begin(struct tp *p, const char *name);
void tp_arg(struct tp *p, const char *name);
void tp_call_end(struct tp *p, long long retval, const char *retname);
/* a call that returns nothing: text ")", JSON "ret":null */
void tp_call_end_void(struct tp *p);

/* values */
void tp_int(struct tp *p, long long v);
void tp_uint(struct tp *p, unsigned long long v);
void tp_hex(struct tp *p, unsigned long long v);
void tp_ptr(struct tp *p, unsigned long long v);            /* NULL or 0x... */
void tp_sym(struct tp *p, const char *name);               /* an enum name */
/* a named constant: its name, or the number when it has none; -X raw and
 * verbose as above. JSON: always a string (the number as a string when it
 * has no name), so a field has one type */
void tp_sym_or_num(struct tp *p, const char *name, unsigned long long v);
/* flags A|B|0x10 (names set in v, rest the bits without one); v is the
 * whole value (for -X raw / verbose) */
void tp_flags(struct tp *p, const char *const *names, int n, unsigned long long rest,
              unsigned long long v);
/* a byte count: text "4 MiB", "1000 B", "1000000 B (976.6 KiB)" (-X raw:
 * the number); JSON the number */
void tp_size(struct tp *p, unsigned long long v);
/* the text of a byte count into buf (for lines built elsewhere: summaries) */
const char *tp_size_text(unsigned long long v, char *buf, size_t n);
void tp_str(struct tp *p, const char *s, size_t len, int truncated);  /* "..." escaped */
void tp_esc(struct tp *p, const char *s, size_t len);               /* escaped as in tp_str, no quotes */
void tp_double(struct tp *p, double v);
void tp_bytes(struct tp *p, const unsigned char *b, size_t n);      /* hex dump */
void tp_unavailable(struct tp *p, unsigned long long addr); /* memory that could not be read: the address */

void tp_out_begin(struct tp *p);   /* an out-value: text "&", json nothing */
void tp_out_end(struct tp *p);
void tp_struct_begin(struct tp *p);
void tp_field(struct tp *p, const char *name);
void tp_struct_end(struct tp *p);
void tp_array_begin(struct tp *p);
void tp_elem(struct tp *p);
void tp_array_end(struct tp *p);
void tp_more(struct tp *p);        /* "..." : fields left out */

/* what was built so far, to take back what a printer could not finish */
struct tp_mark { size_t len; int depth, first; };
struct tp_mark tp_mark(const struct tp *p);
void tp_rewind(struct tp *p, const struct tp_mark *m);

#endif
