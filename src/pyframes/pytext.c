/* SPDX-License-Identifier: Apache-2.0 */
/* A Python str's characters (1, 2 or 4 bytes each, copied out of the
 * process's memory and not trusted) as UTF-8 that keeps the string's end
 * when it does not fit. What UTF-8 cannot carry is kept readable: a NUL
 * or an impossible code point becomes '?', and a lone surrogate
 * U+DC80..U+DCFF (Python's "surrogateescape" for an undecodable byte of a
 * file name) becomes that byte again. */
#include "pyframes.h"

#include <string.h>

static uint32_t char_at(const void *chars, size_t i, unsigned kind)
{
    const unsigned char *p = (const unsigned char *)chars + i * kind;
    if (kind == 1)
        return p[0];
    if (kind == 2) {
        uint16_t c;
        memcpy(&c, p, 2);
        return c;
    }
    uint32_t c;
    memcpy(&c, p, 4);
    return c;
}

/* the bytes character c takes, and writes them when out is not NULL */
static size_t put(uint32_t c, int ascii, char *out)
{
    unsigned char b[4];
    size_t n;
    if (c == 0 || c > 0x10ffff || (ascii && c > 0x7f) || (c >= 0xd800 && c <= 0xdfff && (c < 0xdc80 || c > 0xdcff))) {
        b[0] = '?';
        n = 1;
    } else if (c >= 0xdc80 && c <= 0xdcff) {
        b[0] = (unsigned char)(c - 0xdc00);
        n = 1;
    } else if (c < 0x80) {
        b[0] = (unsigned char)c;
        n = 1;
    } else if (c < 0x800) {
        b[0] = (unsigned char)(0xc0 | c >> 6);
        b[1] = (unsigned char)(0x80 | (c & 0x3f));
        n = 2;
    } else if (c < 0x10000) {
        b[0] = (unsigned char)(0xe0 | c >> 12);
        b[1] = (unsigned char)(0x80 | (c >> 6 & 0x3f));
        b[2] = (unsigned char)(0x80 | (c & 0x3f));
        n = 3;
    } else {
        b[0] = (unsigned char)(0xf0 | c >> 18);
        b[1] = (unsigned char)(0x80 | (c >> 12 & 0x3f));
        b[2] = (unsigned char)(0x80 | (c >> 6 & 0x3f));
        b[3] = (unsigned char)(0x80 | (c & 0x3f));
        n = 4;
    }
    if (out)
        memcpy(out, b, n);
    return n;
}

size_t td_py_utf8(char *out, size_t cap, const void *chars, size_t nchars, unsigned kind,
                  int ascii, int *cut)
{
    *cut = 0;
    if (kind != 1 && kind != 2 && kind != 4) {
        out[0] = '\0';
        *cut = nchars > 0;
        return 0;
    }
    /* from the end, the characters that fit */
    size_t first = nchars, bytes = 0;
    while (first > 0) {
        size_t n = put(char_at(chars, first - 1, kind), ascii, NULL);
        if (bytes + n > cap)
            break;
        bytes += n;
        first--;
    }
    *cut = first > 0;
    size_t w = 0;
    for (size_t i = first; i < nchars; i++)
        w += put(char_at(chars, i, kind), ascii, out + w);
    out[w] = '\0';
    return w;
}
