/* SPDX-License-Identifier: Apache-2.0 */
#ifndef TD_CLOCK_H
#define TD_CLOCK_H

#include <stdint.h>

/* 1 if records will carry TSC ticks (tell the shim: TD_RING_TSC) */
int td_clock_init(void);
/* take a fresh (TSC, ns) pair: call now and then */
void td_clock_sample(void);
/* a record's stamp in CLOCK_MONOTONIC ns */
uint64_t td_clock_ns(uint64_t stamp);

#endif
