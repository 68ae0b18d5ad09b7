/* SPDX-License-Identifier: Apache-2.0 */
/* Which binary of an image the device runs, chosen as the driver chooses
 * (docs/emulator-modules.md): machine code for the device if there is any
 * (the emulator cannot run machine code, so it goes on), else the PTX of
 * the highest architecture at or below the device's compute capability,
 * compiled for it. PTX for sm_XYa runs only on compute capability X.Y;
 * for sm_XYf on X.Z with Z >= Y. Machine code for the device without
 * such PTX loads, its kernels failing at launch. Nothing that fits: a
 * fatbinary is refused with CUDA_ERROR_NO_BINARY_FOR_GPU, PTX text with
 * CUDA_ERROR_INVALID_PTX (the JIT refuses a .target newer than the device),
 * each with the reason. */
#include "emu.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fatbin.h"
#include "ptxhead.h"

static void why(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void why(char *buf, size_t len, const char *fmt, ...)
{
    if (!buf || !len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
}

int emu_ptx_target(const char *text, size_t len, struct emu_arch *out)
{
    struct td_ptx_head h;
    out->arch = 0;
    out->variant = 0;
    if (td_ptx_head(text, len, &h) != 0 || !h.has_target)
        return -1;
    out->arch = (int)h.arch;
    out->variant = h.variant;
    return 0;
}

int emu_arch_runs_on(struct emu_arch a, int cc)
{
    if (a.arch <= 0)
        return 1; /* no .target: any device */
    switch (a.variant) {
    case 'a': return a.arch == cc;
    case 'f': return a.arch / 10 == cc / 10 && a.arch <= cc;
    default: return a.arch <= cc;
    }
}

static void arch_name(struct emu_arch a, char *buf, size_t len)
{
    if (a.variant)
        snprintf(buf, len, "%d%c", a.arch, a.variant);
    else
        snprintf(buf, len, "%d", a.arch);
}

/* "compute_120, compute_121" and "sm_100, sm_120": what the image has */
static void list_targets(const struct emu_image *img, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = 0;
    for (int i = 0; i < img->nptx && at < len; i++) {
        struct emu_arch a;
        char n[16];
        if (emu_ptx_target(img->ptx[i], img->ptx_len[i], &a))
            snprintf(n, sizeof n, "?");
        else
            arch_name(a, n, sizeof n);
        at += (size_t)snprintf(buf + at, len - at, "%sPTX for compute_%s", at ? ", " : "", n);
    }
    for (int i = 0; i < img->nsass && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, "%smachine code for sm_%d", at ? ", " : "",
                               img->sass_arch[i]);
    if (!img->nptx && !img->nsass && img->has_sass && at < len)
        snprintf(buf + at, len - at, "machine code only");
}

/* the PTX's .version X.Y as 10 * X + Y, or 0 */
static int ptx_isa(const char *text, size_t len)
{
    struct td_ptx_head h;
    if (td_ptx_head(text, len, &h) != 0 || !h.has_version || h.major > 99 || h.minor > 9)
        return 0;
    return (int)(h.major * 10 + h.minor);
}

void emu_image_needs(const struct emu_image *img, int *least_cc, int *isa)
{
    int least = -1;
    for (int i = 0; i < img->nptx; i++) {
        struct emu_arch a;
        if (emu_ptx_target(img->ptx[i], img->ptx_len[i], &a))
            a.arch = 0;
        if (least < 0 || a.arch < least)
            least = a.arch;
    }
    for (int i = 0; i < img->nsass; i++)
        if (least < 0 || img->sass_arch[i] < least)
            least = img->sass_arch[i];
    *least_cc = least < 0 ? 0 : least;
    *isa = img->chosen >= 0 && img->chosen < img->nptx ? ptx_isa(img->ptx[img->chosen], img->ptx_len[img->chosen]) : 0;
}

CUresult emu_image_choose(struct emu_image *img, int cc, char *err, size_t errlen)
{
    int best = -1;
    struct emu_arch best_a = { 0, 0 };
    for (int i = 0; i < img->nptx; i++) {
        struct emu_arch a;
        if (emu_ptx_target(img->ptx[i], img->ptx_len[i], &a))
            a = (struct emu_arch){ 0, 0 };
        if (!emu_arch_runs_on(a, cc))
            continue;
        /* the highest architecture; at the same one, the specific variant */
        if (best < 0 || a.arch > best_a.arch || (a.arch == best_a.arch && a.variant && !best_a.variant)) {
            best = i;
            best_a = a;
        }
    }
    if (best >= 0) {
        img->chosen = best;
        return emu_ptx_parse(img->ptx[best], img->ptx_len[best], img) ? CUDA_ERROR_OUT_OF_MEMORY
                                                                      : CUDA_SUCCESS;
    }
    img->chosen = -1;
    /* nothing runs here: the kernels' names, to say whether that matters */
    if (img->nptx > 0 && img->nentries == 0 &&
        emu_ptx_parse(img->ptx[img->nptx - 1], img->ptx_len[img->nptx - 1], img))
        return CUDA_ERROR_OUT_OF_MEMORY;
    if (img->nentries == 0 && img->nptx == 0)
        return CUDA_SUCCESS; /* no kernels: nothing to run (the runtime's own fatbinary) */
    /* machine code the device itself runs (sm_XY of its major version, Y at
     * most its minor): the driver loads the image, and so does the
     * emulator; its kernels cannot run here and fail at launch, naming
     * themselves. NVIDIA's libraries hold hundreds of such images, loaded
     * when a context is made, most of them never launched. */
    for (int i = 0; i < img->nsass; i++)
        if (img->sass_arch[i] / 10 == cc / 10 && img->sass_arch[i] <= cc)
            return CUDA_SUCCESS;
    char has[512];
    list_targets(img, has, sizeof has);
    if (img->is_text) {
        struct emu_arch a;
        char n[16] = "?";
        if (!emu_ptx_target(img->ptx[0], img->ptx_len[0], &a))
            arch_name(a, n, sizeof n);
        why(err, errlen, "PTX .target sm_%s does not run on a device of compute capability %d.%d: "
            "the JIT compiler refuses it (as for a real device)", n, cc / 10, cc % 10);
        return CUDA_ERROR_INVALID_PTX;
    }
    if (img->nptx > 0)
        why(err, errlen, "no binary for a device of compute capability %d.%d: the image has %s "
            "(a real device refuses it as well)", cc / 10, cc % 10, has);
    else
        why(err, errlen, "no PTX for a device of compute capability %d.%d: the image has %s, and the "
            "emulator runs PTX only (build with PTX, e.g. nvcc -gencode arch=compute_%d,code=compute_%d)",
            cc / 10, cc % 10, has, cc, cc);
    return CUDA_ERROR_NO_BINARY_FOR_GPU;
}
