/* SPDX-License-Identifier: Apache-2.0 */
/* The emulator's configuration, from the environment (read once, by cuInit):
 *
 *   TDTRACE_EMU_DEVICES=N     number of devices, 0..64 (default 1)
 *   TDTRACE_EMU_PROFILE=NAME  a profile of profiles.def (default h100)
 *   TDTRACE_EMU_MEMORY=SIZE   memory per device: bytes, or K/M/G/T
 *                             (binary), optionally followed by iB or B
 *   TDTRACE_EMU_TIMEOUT=T     a launch that runs longer fails with
 *                             CUDA_ERROR_LAUNCH_TIMEOUT: seconds ("30",
 *                             "2.5", "30s") or "500ms"; 0: no limit (default)
 *   TDTRACE_EMU_MAX_INSTRUCTIONS=N  the same for a launch that executes more
 *                             than N thread-instructions
 *   TDTRACE_EMU_THREADS=N     host threads a launch uses (1-64; default:
 *                             every core)
 *   TDTRACE_EMU_DRIVER=V      the driver release presented: 12.4 (or
 *                             12040), 11.0 to the API table's newest
 *   TDTRACE_EMU_ENGINE=E      who runs kernels (src/common/engines.def):
 *                             interp (default), jit or auto
 *   TDTRACE_EMU_LLVM=LIB      the LLVM 16 library the JIT loads (default
 *                             libLLVM-16.so.1); none: no LLVM
 *   CUDA_VISIBLE_DEVICES      as the real driver: indices or GPU-<uuid>
 *   CUDA_MODULE_LOADING       as the real driver: EAGER or LAZY (the
 *                             default; any other value is ignored)
 */
#include "emu.h"
#include "drvver.h"
#include "../ptx/ptx.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int emu_parse_size(const char *s, unsigned long long *out)
{
    if (!s)
        return -1;
    while (isspace((unsigned char)*s))
        s++;
    if (!isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno)
        return -1;
    unsigned shift = 0;
    switch (toupper((unsigned char)*end)) {
    case 'K': shift = 10; end++; break;
    case 'M': shift = 20; end++; break;
    case 'G': shift = 30; end++; break;
    case 'T': shift = 40; end++; break;
    default: break;
    }
    if (shift && (end[0] == 'i' || end[0] == 'I') && (end[1] == 'B' || end[1] == 'b'))
        end += 2;
    else if (*end == 'B' || *end == 'b')
        end++;
    while (isspace((unsigned char)*end))
        end++;
    if (*end)
        return -1;
    if (shift && v > (~0ULL >> shift))
        return -1;
    *out = v << shift;
    return 0;
}

int emu_parse_timeout(const char *s, unsigned *ms)
{
    if (!s)
        return -1;
    while (isspace((unsigned char)*s))
        s++;
    if (!isdigit((unsigned char)*s))
        return -1;
    /* digits, an optional fraction, then "", "s" or "ms" */
    unsigned long long whole = 0, frac = 0, scale = 1;
    while (isdigit((unsigned char)*s) && whole < (1ULL << 40))
        whole = whole * 10 + (unsigned long long)(*s++ - '0');
    if (isdigit((unsigned char)*s))
        return -1;
    if (*s == '.') {
        s++;
        while (isdigit((unsigned char)*s)) {
            if (scale < 1000000000ULL) {
                frac = frac * 10 + (unsigned long long)(*s - '0');
                scale *= 10;
            }
            s++;
        }
    }
    unsigned long long unit = 1000; /* ms per unit: seconds */
    if (strcmp(s, "ms") == 0)
        unit = 1;
    else if (*s && strcmp(s, "s") != 0)
        return -1;
    unsigned long long v = whole * unit + (frac * unit + scale / 2) / scale;
    if (whole > (1ULL << 31) || v > (1ULL << 31))
        return -1;
    if (v == 0 && (whole || frac))
        v = 1; /* a limit below a millisecond is still a limit */
    *ms = (unsigned)v;
    return 0;
}

int emu_parse_count(const char *s, int *out)
{
    if (!s || !isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    char *end;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < 0 || v > EMU_MAX_DEVICES)
        return -1;
    *out = (int)v;
    return 0;
}

/* splitmix64: a stable, well-mixed UUID from the profile name and index */
static unsigned long long mix64(unsigned long long x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

void emu_make_uuid(const struct emu_profile *p, int phys, CUuuid *out)
{
    unsigned long long h = 0xcbf29ce484222325ULL; /* FNV-1a of the name */
    for (const char *c = p->name; *c; c++)
        h = (h ^ (unsigned char)*c) * 0x100000001b3ULL;
    unsigned long long a = mix64(h ^ (unsigned long long)phys);
    unsigned long long b = mix64(a ^ 0x7464747261636521ULL); /* "tdtrace!" */
    for (int i = 0; i < 8; i++) {
        out->bytes[i] = (char)(a >> (8 * i));
        out->bytes[8 + i] = (char)(b >> (8 * i));
    }
}

void emu_format_uuid(const CUuuid *u, char out[41])
{
    const unsigned char *b = (const unsigned char *)u->bytes;
    snprintf(out, 41, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
             b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10],
             b[11], b[12], b[13], b[14], b[15]);
}

/* "GPU-xxxx..." (a prefix of the UUID, dashes optional) -> index, or -1
 * when it matches no device or more than one. */
static int match_uuid(const char *s, size_t n, int ndev, const CUuuid *uuids)
{
    if (n < 5 || strncasecmp(s, "GPU-", 4) != 0)
        return -1;
    int found = -1;
    for (int d = 0; d < ndev; d++) {
        char full[41];
        emu_format_uuid(&uuids[d], full);
        size_t i = 4, j = 4;
        while (i < n && full[j]) {
            if (s[i] == '-' && full[j] != '-') { i++; continue; }
            if (full[j] == '-' && s[i] != '-') { j++; continue; }
            if (tolower((unsigned char)s[i]) != full[j])
                break;
            i++, j++;
        }
        if (i == n) {
            if (found >= 0)
                return -1; /* ambiguous */
            found = d;
        }
    }
    return found;
}

int emu_parse_visible(const char *s, int ndev, const CUuuid *uuids, int *out)
{
    int n = 0;
    while (*s && n < ndev) {
        while (isspace((unsigned char)*s))
            s++;
        size_t len = strcspn(s, ",");
        size_t tl = len;
        while (tl && isspace((unsigned char)s[tl - 1]))
            tl--;
        int idx = -1;
        if (tl && isdigit((unsigned char)s[0])) {
            size_t k = 0;
            long v = 0;
            while (k < tl && isdigit((unsigned char)s[k]) && v <= EMU_MAX_DEVICES)
                v = v * 10 + (s[k++] - '0');
            if (k == tl && v < ndev)
                idx = (int)v;
        } else if (tl) {
            idx = match_uuid(s, tl, ndev, uuids);
        }
        if (idx < 0)
            break;
        for (int i = 0; i < n; i++)
            if (out[i] == idx)
                return n; /* a repeated device ends the list */
        out[n++] = idx;
        s += len;
        if (*s == ',')
            s++;
        else
            break;
    }
    return n;
}

int emu_parse_loading(const char *s)
{
    return s && strcasecmp(s, "EAGER") == 0;
}

/* the release of a per-release library: its generated drv/V.c (none in
 * the library of the newest release) */
extern const int emu_export_set __attribute__((weak));

int emu_driver_version(void)
{
    int v;
    char why[160];
    const char *e = getenv("TDTRACE_EMU_DRIVER");
    if (e && *e && td_drv_parse(e, &v, why, sizeof(why)) == 0)
        return v;
    return &emu_export_set ? emu_export_set : TD_API_NEWEST;
}

int emu_config_load(struct emu_config *cfg, char *err, size_t errlen)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->ndevices = 1;
    cfg->profile = emu_profile_default();
    const char *v;
    if ((v = getenv("TDTRACE_EMU_DEVICES")) && *v && emu_parse_count(v, &cfg->ndevices)) {
        snprintf(err, errlen, "TDTRACE_EMU_DEVICES=%s: not a number of devices (0 to %d)",
                 v, EMU_MAX_DEVICES);
        return -1;
    }
    if ((v = getenv("TDTRACE_EMU_PROFILE")) && *v && !(cfg->profile = emu_profile_find(v))) {
        snprintf(err, errlen, "TDTRACE_EMU_PROFILE=%s: unknown profile (known: %s)",
                 v, emu_profile_names());
        return -1;
    }
    if ((v = getenv("TDTRACE_EMU_DRIVER")) && *v) {
        int ver;
        char why[160];
        if (td_drv_parse(v, &ver, why, sizeof(why)) < 0) {
            snprintf(err, errlen, "TDTRACE_EMU_DRIVER=%s: %s", v, why);
            return -1;
        }
    }
    if ((v = getenv("TDTRACE_EMU_MEMORY")) && *v &&
        (emu_parse_size(v, &cfg->memory) || cfg->memory == 0)) {
        snprintf(err, errlen, "TDTRACE_EMU_MEMORY=%s: not a size (bytes, or K/M/G/T with optional iB/B)", v);
        return -1;
    }
    if ((v = getenv("TDTRACE_EMU_TIMEOUT")) && *v && emu_parse_timeout(v, &cfg->timeout_ms)) {
        snprintf(err, errlen, "TDTRACE_EMU_TIMEOUT=%s: not a time limit (seconds, or with s or ms; 0: none)", v);
        return -1;
    }
    if ((v = getenv("TDTRACE_EMU_MAX_INSTRUCTIONS")) && *v) {
        char *end;
        errno = 0;
        cfg->max_instructions = strtoull(v, &end, 10);
        if (!isdigit((unsigned char)*v) || *end || errno) {
            snprintf(err, errlen, "TDTRACE_EMU_MAX_INSTRUCTIONS=%s: not a number of instructions", v);
            return -1;
        }
    }
    if ((v = getenv("TDTRACE_EMU_THREADS")) && *v &&
        (emu_parse_count(v, &cfg->threads) || cfg->threads < 1)) {
        snprintf(err, errlen, "TDTRACE_EMU_THREADS=%s: not a number of host threads (1 to %d)", v, EMU_MAX_DEVICES);
        return -1;
    }
    if ((v = getenv("TDTRACE_EMU_ENGINE")) && *v && (cfg->engine = ptx_engine_find(v)) < 0) {
        snprintf(err, errlen, "TDTRACE_EMU_ENGINE=%s: not an engine (interp, jit or auto)", v);
        return -1;
    }
    cfg->eager_loading = emu_parse_loading(getenv("CUDA_MODULE_LOADING"));
    CUuuid uuids[EMU_MAX_DEVICES];
    for (int i = 0; i < cfg->ndevices; i++)
        emu_make_uuid(cfg->profile, i, &uuids[i]);
    v = getenv("CUDA_VISIBLE_DEVICES");
    if (v) {
        cfg->nvisible = emu_parse_visible(v, cfg->ndevices, uuids, cfg->visible);
    } else {
        cfg->nvisible = cfg->ndevices;
        for (int i = 0; i < cfg->ndevices; i++)
            cfg->visible[i] = i;
    }
    return 0;
}
