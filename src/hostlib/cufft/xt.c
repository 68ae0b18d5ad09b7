/* SPDX-License-Identifier: Apache-2.0 */
/* cuFFT on several GPUs (cufftXtSetGPUs, cufftXtMalloc, cufftXtMemcpy,
 * cufftXtExecDescriptor*, cufftXtFree): the data of a plan lives in
 * pieces, one per selected device, in the distribution NVIDIA's
 * documentation gives.
 *
 * One transform (batch 1) of rank 2 or 3: CUFFT_XT_FORMAT_INPLACE in slabs
 * of the first dimension (x), CUFFT_XT_FORMAT_INPLACE_SHUFFLED, which a
 * transform leaves behind, in slabs of the second (y); in both, the first
 * (size % n) devices hold one slab more. The data are always in cuFFT's
 * in-place layout: the real side of R2C/C2R has its last dimension padded
 * to 2 (n/2 + 1) reals, the bytes of the complex side's n/2 + 1, so both
 * sides are counted here in complex cells (in 2-D the shuffled slabs are
 * of the complex side's n/2 + 1 columns). R2C takes INPLACE input and
 * leaves SHUFFLED output, C2R the reverse, as NVIDIA's cuFFTMp
 * documentation gives for the single-process layout; C2C either way.
 * A 1-D transform's "shuffled" order is NVIDIA's own permutation, which is
 * not reproduced here: its pieces hold natural order in both formats (what
 * a program does element by element between a forward and an inverse
 * transform comes out the same; code that reads a piece at a position it
 * computes from NVIDIA's permutation would not); a single 1-D real
 * transform over several GPUs has no documented layout and is refused.
 *
 * A batch (batch > 1): each transform on one device, the first
 * (batch % n) devices one transform more, in natural order in both
 * formats (the output's subFormat is INPLACE).
 *
 * An execution gathers the input into natural order on the host, runs
 * FFTW over the whole transform (in place, the in-place layout), and
 * scatters the result, after every device's queued work; it returns when
 * the result is in place. */
#include "fft.h"

#include "emuhost.h"

#include <stdlib.h>
#include <string.h>

#define XT_VERSION 1

HL_EXPORT cufftResult cufftXtSetGPUs(cufftHandle plan, int nGPUs, int *whichGPUs)
{
    struct fft_plan *p = fft_plan_get(plan);
    if (!p || p->made)
        return CUFFT_INVALID_PLAN; /* after cufftCreate, before the plan is made */
    if (nGPUs < 2) /* several */
        return CUFFT_INVALID_VALUE;
    switch (hl_check_devices(nGPUs, whichGPUs, 16)) {
    case HL_DEVS_OK: break;
    case HL_DEVS_NO_DRIVER: return CUFFT_SETUP_FAILED;
    case HL_DEVS_BAD_COUNT: return CUFFT_INVALID_VALUE;
    case HL_DEVS_BAD_DEVICE:
    default: return CUFFT_INVALID_DEVICE;
    }
    p->ngpus = nGPUs;
    memcpy(p->gpus, whichGPUs, (size_t)nGPUs * sizeof *whichGPUs);
    return CUFFT_SUCCESS;
}

/* the data's shape in complex cells (the in-place layout: a real side's
 * padded row has the bytes of the complex side's): x, split by INPLACE;
 * y, split by SHUFFLED when split2; rest, the cells below y. A batch is x
 * = batch transforms of rest cells each, y = 1, never split2. */
struct xshape {
    int64_t x, y, rest;
    size_t elem;      /* a cell: the plan's complex element */
    int split2;       /* SHUFFLED splits y (one transform of rank 2 or 3) */
};

static cufftResult xt_plan(cufftHandle plan, struct fft_plan **out, struct xshape *sh)
{
    struct fft_plan *p = fft_plan_get(plan);
    if (!p || !p->made || p->ngpus < 2)
        return CUFFT_INVALID_PLAN;
    if (p->prec != FP_F32 && p->prec != FP_F64) {
        hl_note("several GPUs: half and bfloat16 plans are not supported");
        return CUFFT_NOT_SUPPORTED;
    }
    if (p->advanced) {
        hl_note("several GPUs: only the basic layout (no embeddings, strides or distances)");
        return CUFFT_NOT_SUPPORTED;
    }
    int last = p->rank - 1;
    int64_t n[3];   /* the complex side's sizes */
    for (int d = 0; d < p->rank; d++)
        n[d] = p->n[d];
    if (p->kind != FK_C2C)
        n[last] = n[last] / 2 + 1;
    sh->elem = fft_elem(p, 1);
    if (p->batch > 1) {
        if (p->batch < p->ngpus) {
            hl_note("several GPUs: a batch smaller than the number of GPUs");
            return CUFFT_INVALID_SIZE; /* a transform for each device */
        }
        sh->x = p->batch;
        sh->y = 1;
        sh->rest = n[0] * (p->rank >= 2 ? n[1] : 1) * (p->rank >= 3 ? n[2] : 1);
        sh->split2 = 0;
    } else {
        if (p->rank == 1 && p->kind != FK_C2C) {
            hl_note("several GPUs: one 1-D real transform (its distribution is not documented)");
            return CUFFT_NOT_SUPPORTED;
        }
        sh->x = n[0];
        sh->y = p->rank >= 2 ? n[1] : 1;
        sh->rest = p->rank >= 3 ? n[2] : 1;
        sh->split2 = p->rank >= 2;
        if (sh->x < p->ngpus || (sh->split2 && sh->y < p->ngpus)) {
            hl_note("several GPUs: fewer slabs than GPUs in the first or second dimension");
            return CUFFT_INVALID_SIZE; /* a slab for each device */
        }
    }
    *out = p;
    return CUFFT_SUCCESS;
}

/* device g's slab of a dimension of size len over n devices: [*lo, *hi) */
static void slab(int64_t len, int n, int g, int64_t *lo, int64_t *hi)
{
    int64_t q = len / n, r = len % n;
    *lo = g * q + (g < r ? g : r);
    *hi = *lo + q + (g < r ? 1 : 0);
}

/* whether format f splits y */
static int by_y(const struct xshape *sh, int f)
{
    return f == CUFFT_XT_FORMAT_INPLACE_SHUFFLED && sh->split2;
}

/* device g's elements in format f: bytes */
static size_t piece_bytes(const struct fft_plan *p, const struct xshape *sh, int f, int g)
{
    int64_t lo, hi;
    int shuffled = by_y(sh, f);
    slab(shuffled ? sh->y : sh->x, p->ngpus, g, &lo, &hi);
    int64_t n = (hi - lo) * (shuffled ? sh->x : sh->y) * sh->rest;
    return (size_t)n * sh->elem;
}

/* natural order <-> pieces: to_pieces 1 scatters nat into d, 0 gathers */
static void move(const struct fft_plan *p, const struct xshape *sh, const cudaLibXtDesc *d, unsigned char *nat,
                 int to_pieces)
{
    size_t row = (size_t)sh->rest * sh->elem; /* the innermost dimensions */
    int shuffled = by_y(sh, d->subFormat);
    for (int g = 0; g < p->ngpus; g++) {
        unsigned char *piece = d->descriptor->data[g];
        int64_t lo, hi;
        slab(shuffled ? sh->y : sh->x, p->ngpus, g, &lo, &hi);
        if (!shuffled) { /* rows [lo, hi) of x: contiguous */
            size_t n = (size_t)(hi - lo) * (size_t)sh->y * row;
            unsigned char *at = nat + (size_t)lo * (size_t)sh->y * row;
            memcpy(to_pieces ? piece : at, to_pieces ? at : piece, n);
            continue;
        }
        size_t w = (size_t)(hi - lo) * row; /* columns [lo, hi) of y, each x */
        for (int64_t x = 0; x < sh->x; x++) {
            unsigned char *at = nat + ((size_t)x * (size_t)sh->y + (size_t)lo) * row;
            unsigned char *pc = piece + (size_t)x * w;
            memcpy(to_pieces ? pc : at, to_pieces ? at : pc, w);
        }
    }
}

/* each device's queued work done (its primary context, where the pieces are) */
static int sync_devices(const struct fft_plan *p)
{
    for (int g = 0; g < p->ngpus; g++) {
        CUcontext c;
        if (cuDevicePrimaryCtxRetain(&c, p->gpus[g]) != CUDA_SUCCESS)
            return -1;
        CUresult r = cuCtxPushCurrent(c);
        if (r == CUDA_SUCCESS) {
            r = cuCtxSynchronize();
            cuCtxPopCurrent(&c);
        }
        cuDevicePrimaryCtxRelease_v2(p->gpus[g]);
        if (r != CUDA_SUCCESS)
            return -1;
    }
    return 0;
}

/* whether each piece of d is device memory of at least the bytes format f
 * puts there (and the descriptor says so) */
static int pieces_hold(const struct fft_plan *p, const struct xshape *sh, const cudaLibXtDesc *d, int f)
{
    const struct td_emuhost *eh = hl_emuhost();
    for (int g = 0; g < p->ngpus; g++) {
        size_t want = piece_bytes(p, sh, f, g);
        void *tok;
        if (d->descriptor->size[g] < want || !eh ||
            eh->hold((CUdeviceptr)(uintptr_t)d->descriptor->data[g], want, &tok) != CUDA_SUCCESS)
            return 0;
        eh->release(tok);
    }
    return 1;
}

/* a descriptor cufftXtMalloc made for this plan's devices and shape, whole */
static int desc_ok(const struct fft_plan *p, const struct xshape *sh, const cudaLibXtDesc *d)
{
    if (!d || d->version != XT_VERSION || d->library != LIB_FORMAT_CUFFT || !d->descriptor ||
        d->descriptor->nGPUs != p->ngpus ||
        (d->subFormat != CUFFT_XT_FORMAT_INPLACE && d->subFormat != CUFFT_XT_FORMAT_INPLACE_SHUFFLED))
        return 0;
    for (int g = 0; g < p->ngpus; g++)
        if (d->descriptor->GPUs[g] != p->gpus[g])
            return 0;
    return pieces_hold(p, sh, d, d->subFormat);
}

/* the pieces freed, and the primary contexts each one kept retained */
static void free_pieces(cudaXtDesc *x)
{
    for (int g = 0; g < x->nGPUs; g++)
        if (x->data[g]) {
            cuMemFree_v2((CUdeviceptr)(uintptr_t)x->data[g]);
            cuDevicePrimaryCtxRelease_v2(x->GPUs[g]);
        }
}

HL_EXPORT cufftResult cufftXtMalloc(cufftHandle plan, cudaLibXtDesc **descriptor, cufftXtSubFormat format)
{
    struct fft_plan *p;
    struct xshape sh;
    cufftResult r = xt_plan(plan, &p, &sh);
    if (r)
        return r;
    if (!descriptor || (format != CUFFT_XT_FORMAT_INPLACE && format != CUFFT_XT_FORMAT_INPLACE_SHUFFLED))
        return CUFFT_INVALID_VALUE;
    cudaLibXtDesc *d = calloc(1, sizeof *d);
    cudaXtDesc *x = calloc(1, sizeof *x);
    if (!d || !x) {
        free(d);
        free(x);
        return CUFFT_ALLOC_FAILED;
    }
    d->version = XT_VERSION;
    d->descriptor = x;
    d->library = LIB_FORMAT_CUFFT;
    d->subFormat = format;
    x->version = XT_VERSION;
    x->nGPUs = p->ngpus;
    for (int g = 0; g < p->ngpus && !r; g++) {
        CUcontext c;
        CUdeviceptr dp = 0;
        x->GPUs[g] = p->gpus[g];
        /* room for the slab in either format: a transform turns one into the other */
        size_t a = piece_bytes(p, &sh, CUFFT_XT_FORMAT_INPLACE, g), b = piece_bytes(p, &sh, CUFFT_XT_FORMAT_INPLACE_SHUFFLED, g);
        x->size[g] = a > b ? a : b;
        if (cuDevicePrimaryCtxRetain(&c, p->gpus[g]) != CUDA_SUCCESS) {
            r = CUFFT_SETUP_FAILED;
            break;
        }
        if (cuCtxPushCurrent(c) == CUDA_SUCCESS) {
            if (cuMemAlloc_v2(&dp, x->size[g]) != CUDA_SUCCESS)
                r = CUFFT_ALLOC_FAILED;
            cuCtxPopCurrent(&c);
        } else {
            r = CUFFT_SETUP_FAILED;
        }
        x->data[g] = (void *)(uintptr_t)dp;
        /* the primary context stays retained while the piece lives (cufftXtFree) */
        if (r)
            cuDevicePrimaryCtxRelease_v2(p->gpus[g]);
    }
    if (r) {
        free_pieces(x);
        free(x);
        free(d);
        return r;
    }
    *descriptor = d;
    return CUFFT_SUCCESS;
}

HL_EXPORT cufftResult cufftXtFree(cudaLibXtDesc *descriptor)
{
    if (!descriptor || descriptor->version != XT_VERSION || !descriptor->descriptor ||
        descriptor->descriptor->nGPUs < 1 || descriptor->descriptor->nGPUs > MAX_CUDA_DESCRIPTOR_GPUS)
        return CUFFT_INVALID_VALUE;
    cudaXtDesc *x = descriptor->descriptor;
    free_pieces(x);
    free(x);
    free(descriptor);
    return CUFFT_SUCCESS;
}

static size_t total_bytes(const struct xshape *sh)
{
    return (size_t)sh->x * (size_t)sh->y * (size_t)sh->rest * sh->elem;
}

HL_EXPORT cufftResult cufftXtMemcpy(cufftHandle plan, void *dstPointer, void *srcPointer, cufftXtCopyType type)
{
    struct fft_plan *p;
    struct xshape sh;
    cufftResult r = xt_plan(plan, &p, &sh);
    if (r)
        return r;
    if (!dstPointer || !srcPointer)
        return CUFFT_INVALID_VALUE;
    cudaLibXtDesc *dst = dstPointer, *src = srcPointer;
    switch (type) {
    case CUFFT_COPY_HOST_TO_DEVICE:
        if (!desc_ok(p, &sh, dst))
            return CUFFT_INVALID_VALUE;
        if (sync_devices(p))
            return CUFFT_EXEC_FAILED;
        move(p, &sh, dst, srcPointer, 1);
        return CUFFT_SUCCESS;
    case CUFFT_COPY_DEVICE_TO_HOST:
        if (!desc_ok(p, &sh, src))
            return CUFFT_INVALID_VALUE;
        if (sync_devices(p))
            return CUFFT_EXEC_FAILED;
        move(p, &sh, src, dstPointer, 0);
        return CUFFT_SUCCESS;
    case CUFFT_COPY_DEVICE_TO_DEVICE: { /* redistributed into the destination's format */
        if (!desc_ok(p, &sh, dst) || !desc_ok(p, &sh, src))
            return CUFFT_INVALID_VALUE;
        unsigned char *nat = malloc(total_bytes(&sh));
        if (!nat)
            return CUFFT_ALLOC_FAILED;
        if (sync_devices(p)) {
            free(nat);
            return CUFFT_EXEC_FAILED;
        }
        move(p, &sh, src, nat, 0);
        move(p, &sh, dst, nat, 1);
        free(nat);
        return CUFFT_SUCCESS;
    }
    case CUFFT_COPY_UNDEFINED:
    default:
        return CUFFT_INVALID_VALUE;
    }
}

/* the format a transform of plan p leaves, given its input's; -1 if the
 * plan does not take input in that format */
static int out_format(const struct fft_plan *p, const struct xshape *sh, int infmt)
{
    if (!sh->split2) /* a batch, or 1-D: natural order either way */
        return CUFFT_XT_FORMAT_INPLACE;
    if ((p->kind == FK_R2C && infmt != CUFFT_XT_FORMAT_INPLACE) ||
        (p->kind == FK_C2R && infmt != CUFFT_XT_FORMAT_INPLACE_SHUFFLED))
        return -1; /* R2C from natural order, C2R from shuffled, as NVIDIA documents */
    return infmt == CUFFT_XT_FORMAT_INPLACE ? CUFFT_XT_FORMAT_INPLACE_SHUFFLED : CUFFT_XT_FORMAT_INPLACE;
}

/* gather, transform in natural order, scatter in the format it leaves */
static cufftResult exec_desc(cufftHandle plan, enum fft_kind kind, enum fft_prec pr, cudaLibXtDesc *in,
                             cudaLibXtDesc *out, int dir)
{
    struct fft_plan *p;
    struct xshape sh;
    cufftResult r = xt_plan(plan, &p, &sh);
    if (r)
        return r;
    if (p->kind != kind || p->prec != pr)
        return CUFFT_INVALID_VALUE; /* a plan of another type or precision */
    if (kind == FK_C2C && dir != CUFFT_FORWARD && dir != CUFFT_INVERSE)
        return CUFFT_INVALID_VALUE;
    if (!desc_ok(p, &sh, in) || !desc_ok(p, &sh, out))
        return CUFFT_INVALID_VALUE;
    int outfmt = out_format(p, &sh, in->subFormat);
    if (outfmt < 0) {
        hl_note(p->kind == FK_R2C ? "R2C over several GPUs takes its input in CUFFT_XT_FORMAT_INPLACE"
                                  : "C2R over several GPUs takes its input in CUFFT_XT_FORMAT_INPLACE_SHUFFLED");
        return CUFFT_NOT_SUPPORTED;
    }
    /* the output's pieces must hold the format it will get */
    if (!pieces_hold(p, &sh, out, outfmt))
        return CUFFT_INVALID_VALUE;
    unsigned char *nat = malloc(total_bytes(&sh));
    if (!nat)
        return CUFFT_ALLOC_FAILED;
    struct fft_var *v = fft_var_get(p, 1, nat, nat, dir);
    if (!v) {
        free(nat);
        return CUFFT_NOT_SUPPORTED;
    }
    hl_note("FFTW (cuFFT on several GPUs)"); /* tdtrace -e lib= shows it */
    if (sync_devices(p)) {
        fft_var_unref(v);
        free(nat);
        return CUFFT_EXEC_FAILED;
    }
    move(p, &sh, in, nat, 0);
    fft_var_execute(v, nat, nat);
    out->subFormat = outfmt;
    move(p, &sh, out, nat, 1);
    fft_var_unref(v);
    free(nat);
    return CUFFT_SUCCESS;
}

HL_EXPORT cufftResult cufftXtExecDescriptorC2C(cufftHandle plan, cudaLibXtDesc *input, cudaLibXtDesc *output,
                                               int direction)
{
    return exec_desc(plan, FK_C2C, FP_F32, input, output, direction);
}

HL_EXPORT cufftResult cufftXtExecDescriptorZ2Z(cufftHandle plan, cudaLibXtDesc *input, cudaLibXtDesc *output,
                                               int direction)
{
    return exec_desc(plan, FK_C2C, FP_F64, input, output, direction);
}

HL_EXPORT cufftResult cufftXtExecDescriptorR2C(cufftHandle plan, cudaLibXtDesc *input, cudaLibXtDesc *output)
{
    return exec_desc(plan, FK_R2C, FP_F32, input, output, CUFFT_FORWARD);
}

HL_EXPORT cufftResult cufftXtExecDescriptorD2Z(cufftHandle plan, cudaLibXtDesc *input, cudaLibXtDesc *output)
{
    return exec_desc(plan, FK_R2C, FP_F64, input, output, CUFFT_FORWARD);
}

HL_EXPORT cufftResult cufftXtExecDescriptorC2R(cufftHandle plan, cudaLibXtDesc *input, cudaLibXtDesc *output)
{
    return exec_desc(plan, FK_C2R, FP_F32, input, output, CUFFT_INVERSE);
}

HL_EXPORT cufftResult cufftXtExecDescriptorZ2D(cufftHandle plan, cudaLibXtDesc *input, cudaLibXtDesc *output)
{
    return exec_desc(plan, FK_C2R, FP_F64, input, output, CUFFT_INVERSE);
}

/* the plan's own type; the direction counts for C2C and Z2Z only */
HL_EXPORT cufftResult cufftXtExecDescriptor(cufftHandle plan, cudaLibXtDesc *input, cudaLibXtDesc *output,
                                            int direction)
{
    struct fft_plan *p = fft_plan_get(plan);
    if (!p || !p->made)
        return CUFFT_INVALID_PLAN;
    return exec_desc(plan, p->kind, p->prec, input, output,
                     p->kind == FK_C2C ? direction : p->kind == FK_R2C ? CUFFT_FORWARD : CUFFT_INVERSE);
}
