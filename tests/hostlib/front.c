/* SPDX-License-Identifier: Apache-2.0 */
/* Which library the loader gives a program for each soname on the command
 * line: prints "SONAME tdtrace" when it is one of tdtrace's (a file under
 * a lib/tdtrace/ directory), "SONAME other" when it is another library or
 * none was found. Run under tdtrace, it shows what --library= and the
 * policy's library statements put in front. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        void *h = dlopen(argv[i], RTLD_NOW | RTLD_LOCAL);
        struct link_map *lm = NULL;
        char real[PATH_MAX];
        int ours = h && dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name &&
                   realpath(lm->l_name, real) && strstr(real, "/lib/tdtrace/");
        printf("%s %s\n", argv[i], ours ? "tdtrace" : "other");
    }
    return 0;
}
