/* SPDX-License-Identifier: Apache-2.0 */
/* C++ names demangled with the C++ runtime's own __cxa_demangle, looked up
 * at run time (in the process, else libstdc++.so.6 opened at the first
 * use), so nothing here links against the C++ runtime; without it a name
 * stays as the compiler spelt it. */
#include "demangle.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);
static demangle_fn demangler;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void find_demangler(void)
{
    void *f = dlsym(RTLD_DEFAULT, "__cxa_demangle");
    if (!f) {
        void *h = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL);
        if (h)
            f = dlsym(h, "__cxa_demangle"); /* the handle stays open */
    }
    demangler = (demangle_fn)f;
}

const char *td_demangle(const char *name, char *buf, size_t len)
{
    if (!name || !len || name[0] != '_' || name[1] != 'Z')
        return name;
    pthread_once(&once, find_demangler);
    if (!demangler)
        return name;
    int status = -1;
    char *d = demangler(name, NULL, NULL, &status);
    if (d && status == 0) {
        snprintf(buf, len, "%s", d);
        free(d);
        return buf;
    }
    free(d);
    return name;
}

int td_demangled_params(const char *d, char types[][64], int max, size_t *name_start, size_t *name_end)
{
    size_t n = strlen(d);
    /* the parameter list: the last top-level (...) (a const qualifier may follow it) */
    size_t close = n;
    while (close > 0 && d[close - 1] != ')')
        close--;
    if (!close)
        return -1;
    close--;
    int depth = 0;
    size_t open = close + 1;
    for (size_t i = close + 1; i-- > 0;) {
        if (d[i] == ')' || d[i] == '>' || d[i] == ']')
            depth++;
        else if (d[i] == '(' || d[i] == '<' || d[i] == '[')
            depth--;
        if (depth == 0) {
            open = i;
            break;
        }
    }
    if (open > close || d[open] != '(')
        return -1;
    /* the name: back from '(' to a space at depth 0 (a return type before it) */
    size_t start = 0;
    depth = 0;
    for (size_t i = open; i-- > 0;) {
        if (d[i] == '>' || d[i] == ')')
            depth++;
        else if (d[i] == '<' || d[i] == '(')
            depth--;
        else if (d[i] == ' ' && depth == 0) {
            start = i + 1;
            break;
        }
    }
    *name_start = start;
    *name_end = open;
    int k = 0;
    size_t from = open + 1;
    depth = 0;
    for (size_t i = open + 1; i <= close; i++) {
        char c = d[i];
        if (c == '(' || c == '<' || c == '[')
            depth++;
        else if ((c == ')' || c == '>' || c == ']') && i != close)
            depth--;
        if ((c == ',' && depth == 0) || i == close) {
            size_t a = from, b = i;
            while (a < b && d[a] == ' ')
                a++;
            while (b > a && d[b - 1] == ' ')
                b--;
            if (b > a && k < max) {
                size_t m = b - a < 63 ? b - a : 63;
                memcpy(types[k], d + a, m);
                types[k][m] = '\0';
            }
            if (b > a)
                k++;
            from = i + 1;
        }
    }
    if (k == 1 && strcmp(types[0], "void") == 0)
        k = 0;
    return k;
}
