/* SPDX-License-Identifier: Apache-2.0 */
/* Error codes and messages of src/patch. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

static const char *const names[] = {
    [TD_PE_OK] = "TD_PE_OK",
    [TD_PE_INVAL] = "TD_PE_INVAL",
    [TD_PE_ELF] = "TD_PE_ELF",
    [TD_PE_ARCH] = "TD_PE_ARCH",
    [TD_PE_NOTFOUND] = "TD_PE_NOTFOUND",
    [TD_PE_AMBIGUOUS] = "TD_PE_AMBIGUOUS",
    [TD_PE_SHORT] = "TD_PE_SHORT",
    [TD_PE_DECODE] = "TD_PE_DECODE",
    [TD_PE_INSN] = "TD_PE_INSN",
    [TD_PE_BRANCH] = "TD_PE_BRANCH",
    [TD_PE_RANGE] = "TD_PE_RANGE",
    [TD_PE_MEM] = "TD_PE_MEM",
    [TD_PE_CHANGED] = "TD_PE_CHANGED",
    [TD_PE_UNSAFE] = "TD_PE_UNSAFE",
    [TD_PE_NOMEM] = "TD_PE_NOMEM",
};

const char *td_perr_name(enum td_perr_code code)
{
    if ((unsigned)code < sizeof names / sizeof names[0] && names[code])
        return names[code];
    return "TD_PE_?";
}

int td_perr_set(struct td_perr *err, enum td_perr_code code, int sys_errno, const char *fmt, ...)
{
    if (err) {
        err->code = code;
        err->sys_errno = sys_errno;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return (int)code;
}

int td_perr_replace(const char *what, const char *name, uint64_t addr, int r, struct td_perr *err)
{
    if (r == -ECANCELED)
        return td_perr_set(err, TD_PE_CHANGED, 0, "%s %s: the bytes at 0x%llx are not the expected ones (changed "
                           "by someone else?); nothing written", what, name, (unsigned long long)addr);
    if (r == -ENOTSUP)
        return td_perr_set(err, TD_PE_UNSAFE, 0, "%s %s: no write order at 0x%llx is safe while other threads "
                           "run; stop them and pass TD_PATCH_STOPPED", what, name, (unsigned long long)addr);
    return td_perr_set(err, TD_PE_MEM, -r, "%s %s at 0x%llx: %s%s", what, name, (unsigned long long)addr,
                       strerror(-r), r == -EACCES ? " (a policy forbids writable code here?)" : "");
}
