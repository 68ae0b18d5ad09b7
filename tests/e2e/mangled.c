/* SPDX-License-Identifier: Apache-2.0 */
/* A caller with a C++ (mangled) name, for -k's demangling: the function
 * that calls cuInit is td::demo::call_init(int) in the symbol table
 * (_ZN2td4demo9call_initEi), written in C with an assembler name so the
 * test needs no C++ compiler. */
#include "tests.h"

__attribute__((noinline, used)) int call_init(int flags) __asm__("_ZN2td4demo9call_initEi");
__attribute__((noinline, used)) int call_init(int flags)
{
    int r = (int)cuInit((unsigned)flags);
    __asm__ volatile("" ::: "memory"); /* not a tail call: the frame stays */
    return r;
}

int main(void)
{
    line("cuInit(0) = CUDA_SUCCESS");
    return call_init(0) != CUDA_SUCCESS;
}
