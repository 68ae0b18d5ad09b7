/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdtrace.h"

const char *td_progname = "tdtrace";

static void vmsg(int err, const char *fmt, va_list ap)
{
    char buf[1024];
    int n = snprintf(buf, sizeof(buf), "%s: ", td_progname);
    n += vsnprintf(buf + n, sizeof(buf) - (size_t)n, fmt, ap);
    if (n < (int)sizeof(buf) && err)
        n += snprintf(buf + n, sizeof(buf) - (size_t)n, ": %s", strerror(err));
    if (n >= (int)sizeof(buf) - 1)
        n = (int)sizeof(buf) - 2;
    buf[n++] = '\n';
    fflush(stdout);
    fwrite(buf, 1, (size_t)n, stderr); /* one write: never interleaved */
}

void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmsg(0, fmt, ap);
    va_end(ap);
    exit(1);
}

void die_errno(const char *fmt, ...)
{
    int e = errno;
    va_list ap;
    va_start(ap, fmt);
    vmsg(e, fmt, ap);
    va_end(ap);
    exit(1);
}

void warn_msg(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmsg(0, fmt, ap);
    va_end(ap);
}
