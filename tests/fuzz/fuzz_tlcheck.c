/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target for tdtrace report's input check and escaping
 * (src/tdtrace/tlcheck.c; see tests/fuzz/README).
 *
 * Any input: checked as a timeline file, from an exact-size copy (a read
 * past its end is a sanitizer report). A refusal must say why; an
 * accepted input must be JSON whose escaped text holds no '<', '>', '&',
 * U+2028 or U+2029, whatever the room the escaping is given, and be as
 * long as the input plus 5 bytes per '<', '>', '&' and 3 per U+2028/9. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdtrace/tlcheck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t escape_all(const char *in, size_t len, char *out, size_t cap)
{
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        size_t used, n = td_script_escape(in + i, len - i, &used, out + o, cap);
        if (!used && !n)
            abort(); /* no progress */
        o += n;
        i += used;
    }
    return o;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *in = malloc(size ? size : 1);
    if (!in)
        abort();
    memcpy(in, data, size);
    char why[256] = "";
    struct td_tl_stats st;
    int r = td_tl_check(in, size, &st, why, sizeof why);
    if (r != 0) {
        if (r != -1 || !why[0] || !strcmp(why, "?"))
            abort();
        free(in);
        return 0;
    }
    size_t expect = size;
    for (size_t i = 0; i < size; i++) {
        if (in[i] == '<' || in[i] == '>' || in[i] == '&')
            expect += 5;
        if (i + 2 < size && (unsigned char)in[i] == 0xe2 && (unsigned char)in[i + 1] == 0x80 &&
            ((unsigned char)in[i + 2] == 0xa8 || (unsigned char)in[i + 2] == 0xa9))
            expect += 3;
    }
    char *out = malloc(expect + 8), *out2 = malloc(expect + 8);
    if (!out || !out2)
        abort();
    size_t n = escape_all(in, size, out, expect + 8);
    size_t n2 = escape_all(in, size, out2, 6 + size % 7); /* little room: the same text */
    if (n != expect || n2 != n || memcmp(out, out2, n) != 0)
        abort();
    for (size_t i = 0; i < n; i++) {
        if (out[i] == '<' || out[i] == '>' || out[i] == '&')
            abort();
        if (i + 2 < n && (unsigned char)out[i] == 0xe2 && (unsigned char)out[i + 1] == 0x80 &&
            ((unsigned char)out[i + 2] == 0xa8 || (unsigned char)out[i + 2] == 0xa9))
            abort();
    }
    free(out);
    free(out2);
    free(in);
    return 0;
}

#ifdef TD_FUZZ_STANDALONE
#include <time.h>

static const char *const seeds[] = {
    "{\"traceEvents\":[]}",
    "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"tool\":\"tdtrace\",\"version\":\"0.1.0\",\"command\":\"a <b> & c\","
    "\"clock\":\"CLOCK_MONOTONIC\",\"device_times\":\"emulator\"},\"traceEvents\":["
    "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":7,\"args\":{\"name\":\"7 a\"}},"
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":7,\"tid\":1000000001,\"args\":{\"name\":\"device 0 stream 1\"}},"
    "{\"ph\":\"X\",\"cat\":\"driver\",\"name\":\"cuLaunchKernel\",\"pid\":7,\"tid\":7,\"ts\":10.5,\"dur\":3.25,"
    "\"args\":{\"ret\":\"CUDA_SUCCESS\",\"call\":\"cuLaunchKernel(fn </script>) = CUDA_SUCCESS\",\"corr\":1,"
    "\"py\":\"a.py:3\"}},"
    "{\"ph\":\"s\",\"cat\":\"flow\",\"name\":\"launch\",\"id\":1,\"pid\":7,\"tid\":7,\"ts\":11},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\xe2\x80\xa8\xe2\x80\xa9\\u2028\",\"pid\":7,\"tid\":1000000001,"
    "\"ts\":12,\"dur\":1e2,\"args\":{\"grid\":[1,1,1],\"block\":[32,1,1],\"shared\":0,\"corr\":1}},"
    "{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"flow\",\"name\":\"launch\",\"id\":1,\"pid\":7,\"tid\":1000000001,\"ts\":12},"
    "{\"ph\":\"C\",\"name\":\"device memory\",\"pid\":7,\"ts\":13,\"args\":{\"device 0\":1048576}},"
    "{\"ph\":\"i\",\"s\":\"p\",\"cat\":\"leak\",\"name\":\"leak\",\"pid\":7,\"ts\":14,"
    "\"args\":{\"ptr\":\"0x7f00\",\"bytes\":4096,\"site\":\"a.c:3\"}}]}",
};

static const char *const dict[] = {
    "{", "}", "[", "]", ",", ":", "\"", "\\", "\\u", "\\ud800", "\\\"", "true", "false", "null", "-", "0", "1e9",
    "1e999", ".5", "E+", "\"ph\":", "\"X\"", "\"M\"", "\"i\"", "\"pid\":", "\"tid\":", "\"ts\":", "\"dur\":",
    "\"args\":", "\"name\":", "\"id\":", "\"traceEvents\":", "\"otherData\":", "<", ">", "&", "</script>",
    "\xe2\x80\xa8", "\xe2\x80\xa9", "\xe2\x80", "\xc3\xa9", "\xf0\x9f\x9a\x80", "\xed\xa0\x80", "\xc0\xaf", "\xff",
    "\x00", "\x1f", " ", "\t", "\r\n", "[[[[[[[[[[[[[[[[", "]]]]]]]]]]]]]]]]",
};

#define FUZZ_NAME "fuzz_tlcheck"
#include "standalone.h"
#endif
