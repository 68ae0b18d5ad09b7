/* SPDX-License-Identifier: Apache-2.0 */
/* C++ names as people write them: the C++ runtime's own demangler. */
#ifndef TD_DEMANGLE_H
#define TD_DEMANGLE_H

#include <stddef.h>

/* name demangled into buf ("add_one(float*, int)"), or name itself when it
 * is no mangled C++ name or no demangler can be found */
const char *td_demangle(const char *name, char *buf, size_t len);

/* The parameter types of a demangled function name, each into types[i]
 * (at most max); the number there are, or -1 when the name has no
 * parameter list. *name_end: where the name (without its return type and
 * parameters) ends, *name_start where it starts. */
int td_demangled_params(const char *d, char types[][64], int max, size_t *name_start, size_t *name_end);

#endif
