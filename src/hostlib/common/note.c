/* SPDX-License-Identifier: Apache-2.0 */
/* What a host library ran for the call in progress on this thread, for
 * tdtrace -e lib= (docs/library-tracing.md): a library function says it
 * (hl_note) on the caller's thread before it returns; the shim, which
 * traces the call, reads it with the exported tdtrace_host_note after the
 * call returns and prints it as [host: ...]. Reading clears it, so a note
 * belongs to one call. The text is a string constant, or for a call
 * captured into a graph (hl_note_captured) this thread's buffer, valid
 * until the thread's next read. */
#include "hostlib.h"

#include <stdio.h>

static __thread const char *note;
static __thread int captured;
static __thread char text[160];

void hl_note(const char *what)
{
    note = what;
}

const char *hl_note_peek(void)
{
    return note;
}

void hl_note_captured(void)
{
    captured = 1;
}

HL_EXPORT const char *tdtrace_host_note(void);
HL_EXPORT const char *tdtrace_host_note(void)
{
    const char *n = note;
    note = NULL;
    if (captured) {
        captured = 0;
        snprintf(text, sizeof text, "captured into a graph%s%s", n ? ": " : "", n ? n : "");
        return text;
    }
    return n;
}
