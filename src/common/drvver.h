/* SPDX-License-Identifier: Apache-2.0 */
/* Driver releases: which entry points a CUDA driver of a given version
 * has, from the API table (each row's oldest cuGetProcAddress ABI
 * version, td_fn_since), and cuGetProcAddress as that driver answers.
 * A version is written as CUDA writes it: 1000 * major + 10 * minor
 * (12.4 is 12040). Used by the emulator (--emulate=driver=), the shim,
 * the policy (require driver=) and tdtrace's needs report. */
#ifndef TD_COMMON_DRVVER_H
#define TD_COMMON_DRVVER_H

#include <stddef.h>

#include "api.h"

/* the oldest driver the emulator presents; the newest is TD_API_NEWEST */
#define TD_DRV_OLDEST 11000

/* "12.4" (or "12040") -> 12040. 0, or -1 with a sentence in why: not a
 * version, older than TD_DRV_OLDEST, newer than TD_API_NEWEST. */
int td_drv_parse(const char *s, int *out, char *why, size_t n);
/* 12040 -> "12.4"; returns buf */
char *td_drv_format(int version, char *buf, size_t n);
/* the release that added fn (0: unknown, or not an entry point) */
int td_drv_since(int fn);
/* 1 when a driver of that version has fn */
int td_drv_has(int fn, int version);
/* The release whose set of entry points a driver of that version has: the
 * newest release at most version that added one (12.6 -> 12.5). */
int td_drv_export_set(int version);

/* The driver release whose JIT compiler first took PTX ISA version isa
 * (10 * major + minor: 84 is ISA 8.4, CUDA 12.4), from the PTX ISA
 * manual's release history; 0 for ISA before 7.0 (before CUDA 11.0), the
 * newest release known for an ISA newer than the table. */
int td_drv_for_ptx_isa(int isa);

/* cuGetProcAddress(symbol, version, per_thread) answered by a driver of
 * release driver (it knows only the rows up to its own release): the
 * function id, or -1 with *status 1 (CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND:
 * that driver has no such symbol) or 2 (..._VERSION_NOT_SUFFICIENT: it has
 * the symbol only at ABI versions newer than version). */
int td_drv_lookup(const char *symbol, int version, int per_thread, int driver, int *status);

#endif
