/* SPDX-License-Identifier: Apache-2.0 */
/* Decoding and printing on a thread of their own (printer.c), so the
 * loop that reads the rings, and with it the traced program's writers,
 * never waits for the output. */
#ifndef TD_PRINTER_H
#define TD_PRINTER_H

#include <sys/types.h>

#include "tdtrace.h"

enum td_pev_kind { TD_PEV_RECORD = 1, TD_PEV_EXIT = 2, TD_PEV_FORK = 3, TD_PEV_EXEC = 4,
                   TD_PEV_SYNC = 5 };

/* one event for the printer: a checked record of pid (len bytes), pid's
 * exit line (status), pid forked status, pid exec'd the file that follows
 * (len bytes), or a point where everything so far must be out (SYNC) */
struct td_pev {
    uint32_t kind, len;
    int32_t pid, status;
};

/* start the thread; handle() runs there for every event, in order */
void td_printer_start(void (*handle)(const struct td_pev *ev, const void *data));
/* queue (main thread) */
void td_printer_record(pid_t pid, const struct td_rec *rec, uint32_t len);
void td_printer_exit(pid_t pid, int status);
void td_printer_fork(pid_t parent, pid_t child);
void td_printer_exec(pid_t pid, const char *path);
/* hand over what was queued (the end of a turn of the loop) */
void td_printer_flush(void);
/* the reader should pause: the printer is this far behind (memory) */
int td_printer_behind(void);
/* hand over what was queued and wait until it is printed: afterwards the
 * main thread may print itself (nothing else is printing) */
void td_printer_sync(void);
/* print what is left and end the thread */
void td_printer_stop(void);

#endif
