/* SPDX-License-Identifier: Apache-2.0 */
/* The one memory ledger (ledger.c): every allocation each traced process
 * holds, fed by every call that allocates or frees whatever the trace
 * shows; the device each thread's current context is on. The summary, the
 * leak report, --memory-limit's account and alloc#N names all read it. */
#ifndef TD_LEDGER_H
#define TD_LEDGER_H

#include <stdint.h>

#include "tdtrace.h"

enum td_mem_kind { TD_MEM_DEVICE, TD_MEM_HOST };

struct td_alloc {
    int pid;
    int dev;                    /* TD_MEM_DEVICE: the device; -1 host */
    enum td_mem_kind kind;
    unsigned long long num;     /* alloc#N, per process from 1 */
    uint64_t ptr, size;
    uint64_t t;                 /* when (ns) */
    unsigned short fn;          /* the call that made it */
};

/* the ledger needs fn's records whatever the trace shows */
int td_ledger_wants(int fn);
/* a call record of a process (every call, shown or not); 0, or -1 with
 * why when it names what no table can hold (a device past the last) */
int td_ledger_check(const struct td_rec *rec, uint32_t len, char *why, size_t n);
void td_ledger_call(const struct td_rec *rec, uint32_t len);
/* the device memory the last td_ledger_call's call allocated (bytes) */
unsigned long long td_ledger_call_device_bytes(void);
/* ... once it is printed: what it freed is gone (its line still names it) */
void td_ledger_after(const struct td_rec *rec, uint32_t len);
/* the allocation of pid that holds addr: 0 and its number, base and size; -1 */
int td_ledger_find(int pid, uint64_t addr, unsigned long long *num, unsigned long long *base,
                   unsigned long long *size);
/* the allocation of pid at or below addr (addr may lie past its end) */
int td_ledger_nearest(int pid, uint64_t addr, unsigned long long *num, unsigned long long *base,
                      unsigned long long *size);
/* the device of context ctx of pid, or -1 */
int td_ledger_ctx_device(int pid, uint64_t ctx);
/* the device tid of pid works on now (its current context's) */
int td_ledger_current_device(int pid, int tid);
/* per process and device: bytes held now and at most; pinned host memory;
 * allocations made */
struct td_ledger_proc {
    int pid;
    unsigned long long dev_cur[TD_MAX_DEVICES], dev_peak[TD_MAX_DEVICES];
    unsigned long long host_cur, host_peak, nallocs;
};
/* the processes seen, in order (*n of them) */
const struct td_ledger_proc *td_ledger_procs(int *n);
/* the allocations pid still holds, in address order (*n of them) */
const struct td_alloc *td_ledger_live(int pid, size_t *n);
/* every process together: the most device memory held on dev */
unsigned long long td_ledger_device_peak(int dev);
void td_ledger_forget(int pid);   /* exec: a new address space (its allocations stay counted as leaks) */
void td_ledger_free(void);

#endif
