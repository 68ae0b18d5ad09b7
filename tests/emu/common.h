/* SPDX-License-Identifier: Apache-2.0 */
/* Shared by the end-to-end programs: check a call, report what failed. */
#ifndef EMU_E2E_COMMON_H
#define EMU_E2E_COMMON_H
#include <stdio.h>
#include <stdlib.h>
#include "td_api.h"

static int e2e_failed;
#define CHECK(call) do { CUresult r_ = (call); if (r_ != CUDA_SUCCESS) { \
    const char *n_ = "?"; cuGetErrorName(r_, &n_); \
    fprintf(stderr, "%s:%d: %s = %s\n", __FILE__, __LINE__, #call, n_); exit(1); } } while (0)
#define EXPECT(cond) do { if (!(cond)) { \
    fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond); e2e_failed = 1; } } while (0)
#endif
