/* SPDX-License-Identifier: Apache-2.0 */
/* -k: symbolise the return addresses a record carries, with libdw: module,
 * function+offset, and file:line where debug information exists. One Dwfl
 * per process, rebuilt when an address falls outside every module it knows
 * (the program loaded a library since). A process that is gone prints raw
 * addresses. */
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "pystack.h"
#include "demangle.h"
#include "stack.h"

static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
};

static struct { int pid; Dwfl *dwfl; } cache[64];
static int ncache;

static Dwfl *dwfl_for(int pid, int refresh)
{
    int slot = -1;
    for (int i = 0; i < ncache; i++)
        if (cache[i].pid == pid)
            slot = i;
    if (slot >= 0 && !refresh)
        return cache[slot].dwfl;
    if (slot < 0) {
        if (ncache < (int)(sizeof(cache) / sizeof(cache[0]))) {
            slot = ncache++;
        } else {
            slot = pid % ncache;
        }
    }
    if (cache[slot].dwfl)
        dwfl_end(cache[slot].dwfl);
    cache[slot].pid = pid;
    cache[slot].dwfl = dwfl_begin(&callbacks);
    if (cache[slot].dwfl) {
        if (dwfl_linux_proc_report(cache[slot].dwfl, pid) != 0) {
            dwfl_end(cache[slot].dwfl);
            cache[slot].dwfl = NULL;
        } else {
            dwfl_report_end(cache[slot].dwfl, NULL, NULL);
        }
    }
    return cache[slot].dwfl;
}

void td_stack_forget(int pid)
{
    for (int i = 0; i < ncache; i++)
        if (cache[i].pid == pid && cache[i].dwfl) {
            dwfl_end(cache[i].dwfl);
            cache[i].dwfl = NULL;
            cache[i].pid = 0;
        }
}

struct frame { const char *module, *func, *file; unsigned long long addr, off, rel; int line; };

static void resolve(int pid, unsigned long long addr, struct frame *fr)
{
    memset(fr, 0, sizeof(*fr));
    fr->addr = addr;
    Dwfl *d = dwfl_for(pid, 0);
    Dwfl_Module *m = d ? dwfl_addrmodule(d, addr) : NULL;
    if (!m && d) {
        d = dwfl_for(pid, 1);
        m = d ? dwfl_addrmodule(d, addr) : NULL;
    }
    if (!m)
        return;
    Dwarf_Addr start;
    fr->module = dwfl_module_info(m, NULL, &start, NULL, NULL, NULL, NULL, NULL);
    fr->rel = addr - start;
    /* a return address points after the call: look up the call itself */
    GElf_Off off = 0;
    GElf_Sym sym;
    fr->func = dwfl_module_addrinfo(m, addr - 1, &off, &sym, NULL, NULL, NULL);
    fr->off = off + 1;
    Dwfl_Line *ln = dwfl_module_getsrc(m, addr - 1);
    if (ln) {
        int lineno = 0;
        fr->file = dwfl_lineinfo(ln, NULL, &lineno, NULL, NULL, NULL);
        fr->line = lineno;
    }
}

void td_stack_print(struct tp *p, int pid, const struct td_item *it, const struct td_pyview *py)
{
    const uint64_t *a = (const uint64_t *)(it + 1);
    size_t n = it->len / 8;
    unsigned k = 0, group = 0; /* the next Python frame; the eval loop's run */
    if (p->fmt == TP_JSON)
        py = NULL;
    for (size_t i = 0; i < n; i++) {
        struct frame fr;
        resolve(pid, a[i], &fr);
        if (py && fr.func && strcmp(fr.func, "_PyEval_EvalFrameDefault") == 0) {
            while (k < py->n && py->fr[k].group <= group)
                td_py_frame(p, py, k++);
            group++;
        }
        char dem[512];
        const char *func = fr.func ? td_demangle(fr.func, dem, sizeof(dem)) : NULL;
        if (p->fmt == TP_JSON) {
            tp_elem(p);
            tp_struct_begin(p);
            tp_field(p, "addr");
            tp_hex(p, fr.addr);
            if (fr.module) {
                tp_field(p, "module");
                tp_str(p, fr.module, strlen(fr.module), 0);
            }
            if (fr.func) {
                tp_field(p, "function");
                tp_str(p, func, strlen(func), 0);
                if (func != fr.func) {
                    tp_field(p, "mangled");
                    tp_str(p, fr.func, strlen(fr.func), 0);
                }
                tp_field(p, "offset");
                tp_hex(p, fr.off);
            }
            if (fr.file) {
                tp_field(p, "file");
                tp_str(p, fr.file, strlen(fr.file), 0);
                tp_field(p, "line");
                tp_int(p, fr.line);
            }
            tp_struct_end(p);
            continue;
        }
        tp_raw(p, " > ");
        if (fr.module) {
            tp_raw(p, fr.module);
            if (fr.func)
                tp_rawf(p, "(%s+%#llx)", func, fr.off);
            else
                tp_raw(p, "()");
            tp_rawf(p, " [%#llx]", fr.rel);
            if (fr.file)
                tp_rawf(p, " %s:%d", fr.file, fr.line);
        } else {
            tp_rawf(p, "[%#llx]", fr.addr);
        }
        tp_line_end(p);
    }
    if (py) { /* the native stack ended first (cut at TD_MAX_FRAMES, or no symbols) */
        while (k < py->n)
            td_py_frame(p, py, k++);
        if (py->more) {
            tp_raw(p, " > [...]");
            tp_line_end(p);
        }
    }
}
