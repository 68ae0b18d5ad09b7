/* The emulated GPU: internal interface shared by the src/emu family files.
 * The exported CUDA entry points are the emulator's public interface; every
 * entry point it does not implement gets a weak body (generated
 * emu_stubs.c) that returns emu_unsupported(). */
#ifndef TD_EMU_H
#define TD_EMU_H

#include "api.h"

#define TD_EXPORT __attribute__((visibility("default")))

/* CUDA_ERROR_NOT_SUPPORTED for an entry point the emulator lacks. */
CUresult emu_unsupported(int fn);

/* Every entry point's function in this library, by id (generated). */
extern void *const emu_fns[TD_FN__COUNT];

#endif
