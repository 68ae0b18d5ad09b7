/* SPDX-License-Identifier: Apache-2.0 */
/* Relocatable device code (nvcc -rdc=true, CMake's
 * CUDA_SEPARABLE_COMPILATION): the runtime registers the image nvlink
 * made, machine code only, through its fatbin wrapper of version 2
 * (crt/link.stub: __cudaRegisterLinkedBinary fills __cudaPrelinkedFatbins,
 * the NULL-ended list of every translation unit's fatbinary, and hands
 * __cudaRegisterFatBinary the wrapper {0x466243B1, 2, linked fatbin,
 * that list}). Each unit's fatbinary still holds its PTX: for the device
 * the best PTX of each unit is chosen (arch.c's rules), the texts are
 * linked as nvlink links the machine code (ptxlink.c), and the image
 * becomes that one PTX text.
 *
 * The list and the fatbinaries are the program's memory, and hostile:
 * every pointer must lie in a readable loaded segment of the object (the
 * executable or shared object, found with dl_iterate_phdr) holding the
 * wrapper, and every fatbinary's extent within its segment. */
#include "emu.h"

#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fatbin.h"
#include "fatbinfmt.h"
#include "ptxlink.h"

#define MAX_UNITS     4096
#define MAX_SEGS      32

struct seg { uintptr_t a, b; };

struct object {
    uintptr_t at;                    /* the wrapper's address */
    struct seg seg[MAX_SEGS];
    int nseg, found;
};

static int find_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct object *o = arg;
    (void)size;
    struct object cand = { .at = o->at };
    int holds = 0;
    for (int i = 0; i < info->dlpi_phnum && cand.nseg < MAX_SEGS; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_R))
            continue;
        uintptr_t a = (uintptr_t)info->dlpi_addr + (uintptr_t)ph->p_vaddr;
        if (a + (uintptr_t)ph->p_memsz < a)
            continue;
        cand.seg[cand.nseg++] = (struct seg){ a, a + (uintptr_t)ph->p_memsz };
        if (o->at >= a && o->at < a + (uintptr_t)ph->p_memsz)
            holds = 1;
    }
    if (!holds)
        return 0;
    *o = cand;
    o->found = 1;
    return 1;
}

/* the bytes [p, p + n) lie in one segment: how many bytes from p to its end, else 0 */
static uintptr_t room(const struct object *o, uintptr_t p, uintptr_t n)
{
    for (int i = 0; i < o->nseg; i++)
        if (p >= o->seg[i].a && p < o->seg[i].b && o->seg[i].b - p >= n)
            return o->seg[i].b - p;
    return 0;
}

static uint64_t rd64(const void *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static uint32_t rd32(const void *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* "TU 1 (compute_90: a, b), TU 2 (...)" into buf */
static void describe(char *buf, size_t len, int k, int arch, const struct emu_image *tu)
{
    size_t at = strlen(buf);
    if (at + 1 >= len)
        return;
    int n = snprintf(buf + at, len - at, "%sTU %d (compute_%d", k ? ", " : "", k + 1, arch);
    for (int i = 0; i < tu->nentries && i < 3 && n > 0; i++) {
        at = strlen(buf);
        n = snprintf(buf + at, len - at, "%s%s", i ? ", " : ": ", tu->entries[i].name);
    }
    at = strlen(buf);
    if (tu->nentries > 3)
        snprintf(buf + at, len - at, " and %d more kernels)", tu->nentries - 3);
    else
        snprintf(buf + at, len - at, ")");
}

CUresult emu_rdc_resolve(const void *image, int cc, struct emu_image *img, char *err, size_t errlen)
{
    if (!image || img->nptx > 0 || !img->has_sass || rd32(image) != TD_FATBIN_WRAPPER ||
        rd32((const char *)image + 4) != 2)
        return CUDA_SUCCESS; /* not a linked binary's image */
    struct object o = { .at = (uintptr_t)image };
    dl_iterate_phdr(find_object, &o);
    uintptr_t list = (uintptr_t)rd64((const char *)image + 16);
    if (!o.found || !list)
        return CUDA_SUCCESS; /* not from a loaded object, or no list: as before */
    uintptr_t lroom = room(&o, list, sizeof(void *));
    if (!lroom) {
        snprintf(err, errlen, "linked binary: its list of translation units lies outside the object");
        return CUDA_ERROR_INVALID_IMAGE;
    }
    int n = 0;
    while ((uintptr_t)(n + 1) * sizeof(void *) <= lroom && rd64((const char *)list + (size_t)n * 8) && n < MAX_UNITS)
        n++;
    if ((uintptr_t)(n + 1) * sizeof(void *) > lroom || n == MAX_UNITS) {
        snprintf(err, errlen, "linked binary: its list of translation units has no end");
        return CUDA_ERROR_INVALID_IMAGE;
    }
    if (n == 0)
        return CUDA_SUCCESS;
    struct emu_image *tus = calloc((size_t)n, sizeof *tus);
    const char **texts = calloc((size_t)n, sizeof *texts);
    size_t *lens = calloc((size_t)n, sizeof *lens);
    int *archs = calloc((size_t)n, sizeof *archs);
    char what[1536] = "", skipped[512] = "";
    CUresult r = tus && texts && lens && archs ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
    int m = 0, devrt_tu = 0;
    for (int k = 0; k < n && !r; k++) {
        uintptr_t fb = (uintptr_t)rd64((const char *)list + (size_t)k * 8);
        uintptr_t fr = room(&o, fb, 16);
        uint64_t ext = fr ? (uint64_t)((const unsigned char *)fb)[6] | (uint64_t)((const unsigned char *)fb)[7] << 8 : 0;
        if (fr)
            ext += rd64((const char *)fb + 8);
        if (!fr || rd32((const void *)fb) != TD_FATBIN_MAGIC || ext < 16 || ext > fr) {
            snprintf(err, errlen, "linked binary: translation unit %d of %d: no fatbinary within the object", k + 1, n);
            r = CUDA_ERROR_INVALID_IMAGE;
            break;
        }
        char why[400] = "";
        struct emu_image *tu = &tus[m];
        r = emu_image_load((const void *)fb, (size_t)ext, tu, why, sizeof why);
        if (!r)
            r = emu_image_choose(tu, cc, why, sizeof why);
        if (r) {
            snprintf(err, errlen, "linked binary: translation unit %d of %d: %s", k + 1, n, why);
            break;
        }
        if (tu->chosen < 0) {
            /* nothing the device runs: left out, named in the report; a
             * kernel calling one of its functions fails at its launch,
             * naming it, and its own kernels are not in the module.
             * libcudadevrt's unit (PTX for the newest devices only) is
             * the device runtime, which the PTX engine serves itself */
            if (tu->nentries && strstr(tu->entries[0].name, "cuda_device_runtime")) {
                devrt_tu = k + 1;
                emu_image_free(tu);
                continue;
            }
            size_t at = strlen(skipped);
            if (at + 1 < sizeof skipped)
                snprintf(skipped + at, sizeof skipped - at, "%sTU %d (%s%s)", at ? ", " : "", k + 1,
                         tu->nentries ? tu->entries[0].name : "no kernels", tu->nentries > 1 ? ", ..." : "");
            emu_image_free(tu);
            continue;
        }
        struct emu_arch a;
        archs[m] = emu_ptx_target(tu->ptx[tu->chosen], tu->ptx_len[tu->chosen], &a) ? 0 : a.arch;
        texts[m] = tu->ptx[tu->chosen];
        lens[m] = tu->ptx_len[tu->chosen];
        describe(what, sizeof what, m, archs[m], tu);
        m++;
    }
    char *linked = NULL;
    size_t llen = 0;
    if (!r && m > 0) {
        char why[400];
        linked = emu_ptx_link(texts, lens, m, &llen, why, sizeof why);
        if (!linked) {
            r = strcmp(why, "out of memory") ? CUDA_ERROR_INVALID_PTX : CUDA_ERROR_OUT_OF_MEMORY;
            snprintf(err, errlen, "linked binary: linking the PTX of %d translation units: %s", m, why);
        }
    }
    for (int k = 0; tus && k < n; k++)
        emu_image_free(&tus[k]);
    free(tus);
    free(texts);
    free(lens);
    free(archs);
    if (!r && linked) {
        struct emu_image li;
        char why[400];
        r = emu_image_load(linked, llen, &li, why, sizeof why);
        if (r) {
            snprintf(err, errlen, "linked binary: %s", why);
        } else {
            li.is_text = 0; /* it stands for the fatbinary */
            emu_image_free(img);
            *img = li;
            char text[2300], dv[96] = "";
            if (devrt_tu)
                snprintf(dv, sizeof dv, "; TU %d, libcudadevrt's device runtime, is the emulator's own", devrt_tu);
            int tl = snprintf(text, sizeof text, "tdtrace-emu: relocatable device code: linked the PTX of %d "
                              "translation unit%s: %s%s%s%s%s\n", m, m == 1 ? "" : "s", what,
                              skipped[0] ? "; left out, machine code only for this device: " : "", skipped,
                              skipped[0] ? " (their kernels and functions cannot run here)" : "", dv);
            emu_report(text, tl < 0 ? 0 : (size_t)tl < sizeof text ? (size_t)tl : sizeof text - 1);
        }
    }
    free(linked);
    return r;
}
