/* SPDX-License-Identifier: Apache-2.0 */
/* What a host library ran for the call in progress on this thread, for
 * tdtrace -e lib= (docs/library-tracing.md): a library function says it
 * (hl_note) on the caller's thread before it returns; the shim, which
 * traces the call, reads it with the exported tdtrace_host_note after the
 * call returns and prints it as [host: ...]. Reading clears it, so a note
 * belongs to one call. The text is a string constant (never freed). */
#include "hostlib.h"

static __thread const char *note;

void hl_note(const char *what)
{
    note = what;
}

HL_EXPORT const char *tdtrace_host_note(void);
HL_EXPORT const char *tdtrace_host_note(void)
{
    const char *n = note;
    note = NULL;
    return n;
}
