/* Error codes and messages of src/patch. */
#include <stdarg.h>
#include <stdio.h>

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
