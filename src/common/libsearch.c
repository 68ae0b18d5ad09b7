/* SPDX-License-Identifier: Apache-2.0 */
/* Find one of NVIDIA's libraries (libcuda.so.1, libnvrtc.so.13, ...) the
 * way the dynamic loader would, but never one of tdtrace's own:
 * LD_LIBRARY_PATH as the user had it, the loader cache (/etc/ld.so.cache),
 * then the default directories. */
#include "libsearch.h"

#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int is_candidate(const char *path, const char *own_dir)
{
    char real[PATH_MAX], own[PATH_MAX];
    if (!realpath(path, real))
        return 0;
    if (own_dir && own_dir[0] && realpath(own_dir, own)) {
        size_t n = strlen(own);
        if (strncmp(real, own, n) == 0 && (real[n] == '/' || real[n] == '\0'))
            return 0;
    }
    struct stat st;
    return stat(real, &st) == 0 && S_ISREG(st.st_mode);
}

static int try_dir(const char *dir, size_t dlen, const char *soname, const char *own_dir, char *out,
                   size_t outlen)
{
    if (dlen == 0 || dlen + 1 + strlen(soname) >= PATH_MAX)
        return -1;
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%.*s/%s", (int)dlen, dir, soname);
    if (!is_candidate(path, own_dir))
        return -1;
    snprintf(out, outlen, "%s", path);
    return 0;
}

/* glibc's cache: "glibc-ld.so.cache1.1" header, then entries whose string
 * offsets are relative to the start of the file */
struct cache_hdr { char magic[17]; char version[3]; uint32_t nlibs, len_strings; uint8_t flags;
                   uint8_t pad[3]; uint32_t extension_offset; uint32_t unused[3]; };
struct cache_entry { int32_t flags; uint32_t key, value; uint32_t osversion; uint64_t hwcap; };

static int try_cache(const char *soname, const char *own_dir, char *out, size_t outlen)
{
    int fd = open("/etc/ld.so.cache", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st;
    int rc = -1;
    if (fstat(fd, &st) == 0 && (size_t)st.st_size > sizeof(struct cache_hdr)) {
        size_t len = (size_t)st.st_size;
        const char *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m != MAP_FAILED) {
            const struct cache_hdr *h = (const void *)m;
            if (memcmp(h->magic, "glibc-ld.so.cache", 17) == 0) {
                size_t n = h->nlibs;
                const struct cache_entry *e = (const void *)(m + sizeof(*h));
                if (n <= (len - sizeof(*h)) / sizeof(*e)) {
                    for (size_t i = 0; i < n && rc < 0; i++) {
                        if (e[i].key >= len || e[i].value >= len)
                            continue;
                        const char *key = m + e[i].key, *val = m + e[i].value;
                        if (!memchr(key, 0, len - e[i].key) || !memchr(val, 0, len - e[i].value))
                            continue;
                        if (strcmp(key, soname) == 0 && is_candidate(val, own_dir)) {
                            snprintf(out, outlen, "%s", val);
                            rc = 0;
                        }
                    }
                }
            }
            munmap((void *)m, len);
        }
    }
    close(fd);
    return rc;
}

int td_find_library(const char *soname, const char *own_dir, char *out, size_t outlen)
{
    const char *lp = getenv("TDTRACE_ORIG_LD_LIBRARY_PATH");
    if (!lp)
        lp = getenv("LD_LIBRARY_PATH");
    for (const char *p = lp; p && *p;) {
        size_t n = strcspn(p, ":;");
        if (try_dir(p, n, soname, own_dir, out, outlen) == 0)
            return 0;
        p += n;
        if (*p)
            p++;
    }
    if (try_cache(soname, own_dir, out, outlen) == 0)
        return 0;
    static const char *const dirs[] = {
        "/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib64", "/lib64",
        "/usr/lib/aarch64-linux-gnu", "/usr/lib", "/lib", "/usr/local/nvidia/lib64",
        "/usr/local/nvidia/lib", "/usr/lib/wsl/lib",
    };
    for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
        if (try_dir(dirs[i], strlen(dirs[i]), soname, own_dir, out, outlen) == 0)
            return 0;
    return -1;
}
