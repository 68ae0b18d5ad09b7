/* SPDX-License-Identifier: Apache-2.0 */
/* Finding the policy file (--policy=, $TDTRACE_POLICY, or the nearest
 * tdtrace.policy here or above) and whether a file found by the search is
 * to be trusted. */
#include "policy_int.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int put_path(char *path, size_t pathlen, const char *s)
{
    if (strlen(s) >= pathlen) {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(path, s);
    return 0;
}

/* someone other than the user (or root) could have put this there */
static int not_ours(const struct stat *st, int dir)
{
    if (st->st_uid != geteuid() && st->st_uid != 0)
        return 1;
    /* writable by others: only a sticky directory (/tmp) keeps what is
     * in it safe from them */
    return (st->st_mode & S_IWOTH) && !(dir && (st->st_mode & S_ISVTX));
}

int td_policy_untrusted(const char *path, char *why, size_t n)
{
    struct stat st;
    char dir[PATH_MAX];
    if (stat(path, &st) < 0 || strlen(path) >= sizeof dir) {
        snprintf(why, n, "%s: %s", path, strerror(errno ? errno : ENAMETOOLONG));
        return 1;
    }
    if (not_ours(&st, 0)) {
        if (st.st_uid != geteuid() && st.st_uid != 0)
            snprintf(why, n, "%s is owned by uid %u, not by you (uid %u) or root", path,
                     (unsigned)st.st_uid, (unsigned)geteuid());
        else
            snprintf(why, n, "%s is writable by others", path);
        return 1;
    }
    strcpy(dir, path);
    for (;;) {
        char *slash = strrchr(dir, '/');
        if (!slash)
            break;
        if (slash == dir)
            slash[1] = 0; /* "/" */
        else
            *slash = 0;
        if (stat(dir, &st) == 0 && not_ours(&st, 1)) {
            if (st.st_uid != geteuid() && st.st_uid != 0)
                snprintf(why, n, "the directory %s above %s is owned by uid %u, not by you (uid %u) or root",
                         dir, path, (unsigned)st.st_uid, (unsigned)geteuid());
            else
                snprintf(why, n, "the directory %s above %s is writable by others", dir, path);
            return 1;
        }
        if (strcmp(dir, "/") == 0)
            break;
    }
    return 0;
}

int td_policy_locate(const char *cli_path, const char *env_value, const char *cwd,
                     char *path, size_t pathlen)
{
    const char *given = cli_path && *cli_path ? cli_path : env_value && *env_value ? env_value : NULL;
    struct stat st;
    if (!path || pathlen == 0) {
        errno = EINVAL;
        return -1;
    }
    path[0] = 0;
    if (given) {
        if (strcmp(given, "none") == 0)
            return 0;
        if (stat(given, &st) < 0 || access(given, R_OK) < 0)
            return -1;
        if (S_ISDIR(st.st_mode)) {
            errno = EISDIR;
            return -1;
        }
        return put_path(path, pathlen, given);
    }
    if (!cwd || !*cwd)
        return 0;
    char dir[PATH_MAX], cand[PATH_MAX + 32];
    if (strlen(cwd) >= sizeof dir)
        return 0;
    strcpy(dir, cwd);
    for (;;) {
        size_t l = strlen(dir);
        while (l > 0 && dir[l - 1] == '/')
            dir[--l] = 0;
        snprintf(cand, sizeof cand, "%s/tdtrace.policy", dir);
        if (stat(cand, &st) == 0 && !S_ISDIR(st.st_mode)) {
            if (put_path(path, pathlen, cand) < 0)
                return -1;
            char why[16];
            if (td_policy_untrusted(cand, why, sizeof why)) {
                errno = EPERM; /* found, but not to be trusted: path names it */
                return -1;
            }
            return 0;
        }
        char *slash = strrchr(dir, '/');
        if (!slash)
            break;
        *slash = 0;
        if (slash == dir && l == 0)
            break;
    }
    return 0;
}
