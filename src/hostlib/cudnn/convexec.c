/* SPDX-License-Identifier: Apache-2.0 */
/* Running convolutions on oneDNN: forward, backward data, backward filter,
 * the fused bias-activation forward, and the bias gradient (a loop).
 *
 * At the call, after the checks, the operation is prepared: oneDNN's
 * convolution primitive (direct algorithm, f32, memory formats of its
 * choosing), reorders between those formats and the operands, a user-mode
 * scratchpad, all allocated now so that the queued work cannot fail. A
 * float operand is used where it lies, in its own layout (oneDNN's memory
 * descriptors take any strides; the reorders read and write it), and so is
 * a float output when alpha is 1 and beta 0. Other operands (half,
 * bfloat16, a filter to flip) go through dense row-major f32 buffers:
 * gathered before, and for the output scaled into it after,
 * y = alpha * result + beta * y, rounding once into its type.
 * CUDNN_CONVOLUTION (a true convolution) flips the filter's spatial
 * dimensions; CUDNN_CROSS_CORRELATION does not. oneDNN takes the padding
 * on the high side as what makes the output size exact (negative where
 * cuDNN's floor leaves input rows unused, which oneDNN accepts: the tests
 * cover it). Half and bfloat16 data are convolved in float (their compute
 * type, HALF or FLOAT, alike): each output is rounded once.
 *
 * Prepared convolutions are kept, when their work has run, for the next
 * call with the same problem (up to 256 MiB of them, least recently used
 * first out): oneDNN's primitives, reorders and buffers are then made once,
 * and the buffers' pages are not faulted in at every call. */
#include "dnn.h"

#include <dnnl.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static dnnl_engine_t engine;

static void make_engine(void)
{
    if (dnnl_engine_create(&engine, dnnl_cpu, 0) != dnnl_success)
        engine = NULL;
}

/* a prepared convolution; arguments: 0 x, 1 w, 2 y */
struct cx {
    struct cx *next;                  /* in the cache */
    struct conv_prob p;
    int direct[3];                    /* used where it lies (its user memory's handle is set per run) */
    int out;                          /* which argument is written */
    int arg[3];                       /* their oneDNN roles */
    float *dense[3];                  /* the others' f32 copies */
    int64_t count[3];
    dnnl_memory_t user[3], prim[3];   /* prim[i] == user[i] when no reorder is needed */
    dnnl_primitive_t reorder[3];
    dnnl_primitive_t conv;
    dnnl_memory_t scratch_mem;
    void *scratch;
    size_t bytes;                     /* what it holds */
};

static void cx_free(struct cx *c)
{
    for (int i = 0; i < 3; i++) {
        if (c->reorder[i])
            dnnl_primitive_destroy(c->reorder[i]);
        if (c->prim[i] && c->prim[i] != c->user[i])
            dnnl_memory_destroy(c->prim[i]);
        if (c->user[i])
            dnnl_memory_destroy(c->user[i]);
        free(c->dense[i]);
    }
    if (c->conv)
        dnnl_primitive_destroy(c->conv);
    if (c->scratch_mem)
        dnnl_memory_destroy(c->scratch_mem);
    free(c->scratch);
    free(c);
}

static void dense_strides(int nb, const dnnl_dim_t *dims, dnnl_dims_t strides)
{
    dnnl_dim_t s = 1;
    for (int d = nb - 1; d >= 0; d--) {
        strides[d] = s;
        s *= dims[d];
    }
}

/* the oneDNN status of one preparation step; 0 on success */
#define DN(call) do { if ((st = (call)) != dnnl_success) goto fail; } while (0)

static cudnnStatus_t cx_prepare(struct cx **out, const struct conv_prob *p, const int *direct, const char *fn)
{
    *out = NULL;
    pthread_once(&once, make_engine);
    if (!engine)
        return dnn_err(CUDNN_STATUS_INTERNAL_ERROR, "%s: oneDNN has no CPU engine", fn);
    struct cx *c = calloc(1, sizeof *c);
    if (!c)
        return dnn_err(CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED, "%s: out of memory", fn);
    c->p = *p;
    memcpy(c->direct, direct, sizeof c->direct);
    const struct cudnnConvolutionStruct *cv = &p->conv;
    int nsp = cv->nsp, nb = nsp + 2, g = cv->groups;
    /* dimensions, and each argument's strides: its own when used where it
     * lies, dense ones otherwise (the filter with groups as g x K/g x ...) */
    dnnl_dims_t dims[3], strd[3], strides, dil, pl, pr;
    const struct td *ts[3] = { &p->x, &p->w, &p->y };
    int nbs[3] = { nb, g > 1 ? nb + 1 : nb, nb };
    for (int i = 0; i < 3; i++) {
        const struct td *t = ts[i];
        int grouped = i == 1 && g > 1;
        for (int d = 0, e = 0; d < t->nb; d++, e++) {
            if (grouped && d == 0) {
                dims[i][0] = g;
                dims[i][1] = t->dim[0] / g;
                strd[i][0] = (dnnl_dim_t)t->stride[0] * (t->dim[0] / g);
                strd[i][1] = t->stride[0];
                e = 1;
                continue;
            }
            dims[i][e] = t->dim[d];
            strd[i][e] = t->stride[d];
        }
        if (!direct[i])
            dense_strides(nbs[i], dims[i], strd[i]);
    }
    for (int d = 0; d < nsp; d++) {
        int64_t k = p->w.dim[d + 2], eff = (k - 1) * cv->dil[d] + 1;
        strides[d] = cv->stride[d];
        dil[d] = cv->dil[d] - 1;
        pl[d] = cv->pad[d];
        pr[d] = (dims[2][d + 2] - 1) * cv->stride[d] + eff - dims[0][d + 2] - pl[d];
    }
    dnnl_memory_desc_t umd[3], any[3];
    dnnl_status_t st;
    dnnl_primitive_desc_t fwd_pd = NULL, pd = NULL;
    dnnl_primitive_attr_t attr = NULL;
    for (int i = 0; i < 3; i++) {
        DN(dnnl_memory_desc_init_by_strides(&umd[i], nbs[i], dims[i], dnnl_f32, strd[i]));
        DN(dnnl_memory_desc_init_by_tag(&any[i], nbs[i], dims[i], dnnl_f32, dnnl_format_tag_any));
    }
    DN(dnnl_primitive_attr_create(&attr));
    DN(dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user));
    dnnl_convolution_desc_t fd, bd;
    DN(dnnl_dilated_convolution_forward_desc_init(&fd, dnnl_forward_training, dnnl_convolution_direct, &any[0],
                                                  &any[1], NULL, &any[2], strides, dil, pl, pr));
    DN(dnnl_primitive_desc_create(&fwd_pd, &fd, p->kind == CK_FWD ? attr : NULL, engine, NULL));
    dnnl_query_t q[3];
    switch (p->kind) {
    case CK_FWD:
        pd = fwd_pd;
        fwd_pd = NULL;
        c->out = 2;
        c->arg[0] = DNNL_ARG_SRC, c->arg[1] = DNNL_ARG_WEIGHTS, c->arg[2] = DNNL_ARG_DST;
        q[0] = dnnl_query_src_md, q[1] = dnnl_query_weights_md, q[2] = dnnl_query_dst_md;
        break;
    case CK_BWD_DATA:
        DN(dnnl_dilated_convolution_backward_data_desc_init(&bd, dnnl_convolution_direct, &any[0], &any[1], &any[2],
                                                            strides, dil, pl, pr));
        DN(dnnl_primitive_desc_create(&pd, &bd, attr, engine, fwd_pd));
        c->out = 0;
        c->arg[0] = DNNL_ARG_DIFF_SRC, c->arg[1] = DNNL_ARG_WEIGHTS, c->arg[2] = DNNL_ARG_DIFF_DST;
        q[0] = dnnl_query_diff_src_md, q[1] = dnnl_query_weights_md, q[2] = dnnl_query_diff_dst_md;
        break;
    case CK_BWD_FILTER:
        DN(dnnl_dilated_convolution_backward_weights_desc_init(&bd, dnnl_convolution_direct, &any[0], &any[1], NULL,
                                                               &any[2], strides, dil, pl, pr));
        DN(dnnl_primitive_desc_create(&pd, &bd, attr, engine, fwd_pd));
        c->out = 1;
        c->arg[0] = DNNL_ARG_SRC, c->arg[1] = DNNL_ARG_DIFF_WEIGHTS, c->arg[2] = DNNL_ARG_DIFF_DST;
        q[0] = dnnl_query_src_md, q[1] = dnnl_query_diff_weights_md, q[2] = dnnl_query_diff_dst_md;
        break;
    }
    for (int i = 0; i < 3; i++) {
        c->count[i] = dnn_count(ts[i]);
        if (!direct[i]) {
            if (!(c->dense[i] = malloc((size_t)c->count[i] * sizeof(float)))) {
                st = dnnl_out_of_memory;
                goto fail;
            }
            c->bytes += (size_t)c->count[i] * sizeof(float);
        }
        /* a direct argument's handle is set at each run */
        DN(dnnl_memory_create(&c->user[i], &umd[i], engine, direct[i] ? DNNL_MEMORY_NONE : c->dense[i]));
        const dnnl_memory_desc_t *pmd = dnnl_primitive_desc_query_md(pd, q[i], 0);
        if (dnnl_memory_desc_equal(pmd, &umd[i])) {
            c->prim[i] = c->user[i];
            continue;
        }
        DN(dnnl_memory_create(&c->prim[i], pmd, engine, DNNL_MEMORY_ALLOCATE));
        c->bytes += dnnl_memory_desc_get_size(pmd);
        dnnl_primitive_desc_t rpd;
        int in = i != c->out;
        DN(dnnl_reorder_primitive_desc_create(&rpd, in ? &umd[i] : pmd, engine, in ? pmd : &umd[i], engine, NULL));
        st = dnnl_primitive_create(&c->reorder[i], rpd);
        dnnl_primitive_desc_destroy(rpd);
        if (st != dnnl_success)
            goto fail;
    }
    const dnnl_memory_desc_t *smd = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
    size_t ssize = smd ? dnnl_memory_desc_get_size(smd) : 0;
    if (ssize) {
        if (!(c->scratch = malloc(ssize))) {
            st = dnnl_out_of_memory;
            goto fail;
        }
        c->bytes += ssize;
        DN(dnnl_memory_create(&c->scratch_mem, smd, engine, c->scratch));
    }
    DN(dnnl_primitive_create(&c->conv, pd));
    dnnl_primitive_desc_destroy(pd);
    if (fwd_pd)
        dnnl_primitive_desc_destroy(fwd_pd);
    dnnl_primitive_attr_destroy(attr);
    *out = c;
    return CUDNN_STATUS_SUCCESS;
fail:
    if (pd)
        dnnl_primitive_desc_destroy(pd);
    if (fwd_pd)
        dnnl_primitive_desc_destroy(fwd_pd);
    if (attr)
        dnnl_primitive_attr_destroy(attr);
    cx_free(c);
    if (st == dnnl_out_of_memory)
        return dnn_err(CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED, "%s: out of memory", fn);
    return dnn_err(CUDNN_STATUS_NOT_SUPPORTED, "%s: oneDNN cannot run this convolution (dnnl status %d)", fn, (int)st);
}

/* ---- the cache of prepared convolutions ------------------------------------- */
#define CACHE_BYTES ((size_t)256 << 20)
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cx *cache;              /* most recently used first */

static int same_td(const struct td *a, const struct td *b)
{
    if (a->type != b->type || a->nb != b->nb)
        return 0;
    for (int d = 0; d < a->nb; d++)
        if (a->dim[d] != b->dim[d] || a->stride[d] != b->stride[d])
            return 0;
    return 1;
}

static int same(const struct cx *c, const struct conv_prob *p, const int *direct)
{
    const struct cudnnConvolutionStruct *a = &c->p.conv, *b = &p->conv;
    if (c->p.kind != p->kind || memcmp(c->direct, direct, sizeof c->direct) || !same_td(&c->p.x, &p->x) ||
        !same_td(&c->p.w, &p->w) || !same_td(&c->p.y, &p->y) || a->nsp != b->nsp || a->groups != b->groups ||
        a->mode != b->mode)
        return 0;
    for (int d = 0; d < a->nsp; d++)
        if (a->pad[d] != b->pad[d] || a->stride[d] != b->stride[d] || a->dil[d] != b->dil[d])
            return 0;
    return 1;
}

/* a prepared convolution for p: one the cache keeps, or a new one */
static cudnnStatus_t cx_get(struct cx **out, const struct conv_prob *p, const int *direct, const char *fn)
{
    pthread_mutex_lock(&cache_lock);
    for (struct cx **pc = &cache; *pc; pc = &(*pc)->next) {
        if (same(*pc, p, direct)) {
            *out = *pc;
            *pc = (*pc)->next;
            pthread_mutex_unlock(&cache_lock);
            (*out)->next = NULL;
            (*out)->p = *p;   /* the descriptors' other settings */
            return CUDNN_STATUS_SUCCESS;
        }
    }
    pthread_mutex_unlock(&cache_lock);
    return cx_prepare(out, p, direct, fn);
}

/* keeps c for the next call, dropping the least recently used beyond the cap */
static void cx_put(struct cx *c)
{
    pthread_mutex_lock(&cache_lock);
    c->next = cache;
    cache = c;
    size_t total = 0;
    struct cx **pc = &cache, *drop = NULL;
    for (; *pc; pc = &(*pc)->next) {
        total += (*pc)->bytes;
        if (total > CACHE_BYTES && *pc != c) {
            drop = *pc;
            *pc = NULL;
            break;
        }
    }
    pthread_mutex_unlock(&cache_lock);
    while (drop) {
        struct cx *next = drop->next;
        cx_free(drop);
        drop = next;
    }
}

/* reverses every spatial block of a dense filter (K x C/g x spatial...) */
static void flip(const struct td *w, float *v)
{
    int64_t block = 1;
    for (int d = 2; d < w->nb; d++)
        block *= w->dim[d];
    int64_t nblocks = dnn_count(w) / block;
    for (int64_t b = 0; b < nblocks; b++)
        for (int64_t i = 0, j = block - 1; i < j; i++, j--) {
            float t = v[b * block + i];
            v[b * block + i] = v[b * block + j];
            v[b * block + j] = t;
        }
}

/* reorders in, convolves, reorders out; ptr: the operands where they lie */
static void cx_compute(struct cx *c, void *const *ptr)
{
    dnnl_stream_t s;
    if (dnnl_stream_create(&s, engine, dnnl_stream_default_flags) != dnnl_success)
        return;   /* cannot happen for the CPU engine once it exists */
    for (int i = 0; i < 3; i++)
        if (c->direct[i])
            dnnl_memory_set_data_handle(c->user[i], ptr[i]);
    for (int i = 0; i < 3; i++) {
        if (i == c->out || !c->reorder[i])
            continue;
        dnnl_exec_arg_t a[2] = { { DNNL_ARG_FROM, c->user[i] }, { DNNL_ARG_TO, c->prim[i] } };
        dnnl_primitive_execute(c->reorder[i], s, 2, a);
    }
    dnnl_exec_arg_t args[4] = { { c->arg[0], c->prim[0] }, { c->arg[1], c->prim[1] }, { c->arg[2], c->prim[2] },
                                { DNNL_ARG_SCRATCHPAD, c->scratch_mem } };
    dnnl_primitive_execute(c->conv, s, c->scratch_mem ? 4 : 3, args);
    if (c->reorder[c->out]) {
        dnnl_exec_arg_t a[2] = { { DNNL_ARG_FROM, c->prim[c->out] }, { DNNL_ARG_TO, c->user[c->out] } };
        dnnl_primitive_execute(c->reorder[c->out], s, 2, a);
    }
    dnnl_stream_wait(s);
    dnnl_stream_destroy(s);
}

float dnn_conv_time(const struct conv_prob *p)
{
    static const int none[3] = { 0, 0, 0 };
    struct cx *c;
    if (cx_get(&c, p, none, "timing"))
        return -1;
    void *const ptr[3] = { NULL, NULL, NULL };
    for (int i = 0; i < 3; i++)
        memset(c->dense[i], 0, (size_t)c->count[i] * sizeof(float));
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    cx_compute(c, ptr);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    cx_put(c);
    return (float)((double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-6);
}

/* ---- the job ------------------------------------------------------------- */
struct cj {
    struct hl_job h;
    struct cx *c;
    const void *ptr[3];           /* x, w, y in the program's memory */
    double alpha, beta;
    /* cudnnConvolutionBiasActivationForward: y = act(alpha * conv + alpha2 * z + bias) */
    int fused;
    double alpha2;
    struct td z, b;
    const void *Z, *B;
    struct cudnnActivationStruct act;
};

/* gathers the inputs that are not used where they lie, convolves, and
 * writes the output (unless oneDNN wrote it where it lies) as
 * alpha * result + beta * out; 1 if the result is left in c->dense for the
 * caller (fused: the output was not written) */
static int conv_exec(struct cx *c, void *const *ptr, double alpha, double beta, int fused)
{
    const struct td *t[3] = { &c->p.x, &c->p.w, &c->p.y };
    int flipped = c->p.conv.mode == CUDNN_CONVOLUTION;
    for (int i = 0; i < 3; i++) {
        if (i == c->out || c->direct[i])
            continue;
        dnn_gather_f(t[i], ptr[i], c->dense[i]);
        if (i == 1 && flipped)
            flip(t[1], c->dense[1]);
    }
    cx_compute(c, ptr);
    if (c->direct[c->out])
        return 0;   /* written where it lies, alpha 1 and beta 0 */
    if (c->out == 1 && flipped)
        flip(t[1], c->dense[1]);
    if (fused)
        return 1;
    dnn_scatter_f(t[c->out], ptr[c->out], c->dense[c->out], alpha, beta);
    return 0;
}

static void run_conv(struct hl_job *hj)
{
    struct cj *j = (struct cj *)hj;
    struct cx *c = j->c;
    if (!conv_exec(c, (void *const *)j->ptr, j->alpha, j->beta, j->fused))
        return;
    const struct td *y = &c->p.y;
    struct dnn_it iy, iz;
    dnn_it_init(&iy, y);
    dnn_it_init(&iz, &j->z);
    for (int64_t i = 0; i < c->count[2]; i++, dnn_next(&iy), dnn_next(&iz)) {
        double v = j->alpha * c->dense[2][i] + dnn_load(j->b.type, j->B, (int64_t)iy.idx[1] * j->b.stride[1]);
        if (j->alpha2 != 0)
            v += j->alpha2 * dnn_load(j->z.type, j->Z, iz.off);
        dnn_store(y->type, (void *)j->ptr[2], iy.off, dnn_act(&j->act, v));
    }
}

static void fini_conv(struct hl_job *hj)
{
    struct cj *j = (struct cj *)hj;
    if (j->c)
        cx_put(j->c);
}

/* a prepared convolution for p: float operands where they lie (the output
 * too when out_direct: it is just the result), or, for a layout oneDNN
 * does not take as it is (overlapping strides...), all through copies */
static cudnnStatus_t cx_for(struct cx **c, const struct conv_prob *p, int out_direct, const char *fn)
{
    int direct[3], flip_w = p->conv.mode == CUDNN_CONVOLUTION;
    const struct td *ts[3] = { &p->x, &p->w, &p->y };
    for (int i = 0; i < 3; i++)
        direct[i] = ts[i]->type == CUDNN_DATA_FLOAT && !(i == 1 && flip_w);
    int out = p->kind == CK_FWD ? 2 : p->kind == CK_BWD_DATA ? 0 : 1;
    direct[out] = direct[out] && out_direct;
    if (!cx_get(c, p, direct, fn))
        return CUDNN_STATUS_SUCCESS;
    static const int none[3] = { 0, 0, 0 };
    return cx_get(c, p, none, fn);
}

cudnnStatus_t dnn_conv_prepare(struct cx **c, const struct conv_prob *p, double alpha, double beta, const char *fn)
{
    return cx_for(c, p, alpha == 1 && beta == 0, fn);
}

void dnn_conv_run(struct cx *c, void *const ptr[3], double alpha, double beta)
{
    conv_exec(c, ptr, alpha, beta, 0);
}

void dnn_conv_release(struct cx *c)
{
    cx_put(c);
}

/* checks the algorithm and the operands, prepares, holds, queues */
static cudnnStatus_t conv_call(cudnnHandle_t handle, struct cj *t, const struct conv_prob *p, int algo,
                               const char *fn)
{
    if (!dnn_conv_algo_ok(p->kind, algo))
        return dnn_err(CUDNN_STATUS_NOT_SUPPORTED, "%s: algorithm %d is not implemented here (see docs/hostlib.md)", fn,
                       algo);
    hl_note("oneDNN convolution"); /* tdtrace -e lib= shows it */
    struct cj *j = hl_job_new(sizeof *j, run_conv);
    if (!j)
        return dnn_err(CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED, "%s: out of memory", fn);
    struct hl_job keep = j->h;
    *j = *t;
    j->h = keep;
    static const char *const names[3][3] = { { "x", "w", "y" }, { "dx", "w", "dy" }, { "x", "dw", "dy" } };
    const struct td *ts[3] = { &p->x, &p->w, &p->y };
    cudnnStatus_t r = CUDNN_STATUS_SUCCESS;
    for (int i = 0; i < 3 && !r; i++)
        r = dnn_hold(&j->h, ts[i], j->ptr[i], names[p->kind][i]);
    if (!r && j->fused && !(r = dnn_hold(&j->h, &j->b, j->B, "bias")) && j->alpha2 != 0)
        r = dnn_hold(&j->h, &j->z, j->Z, "z");
    if (!r)
        r = cx_for(&j->c, p, !j->fused && j->alpha == 1 && j->beta == 0, fn);
    if (!r)
        j->h.fini = fini_conv;
    if (r) {
        hl_job_free(&j->h);
        return r;
    }
    return dnn_submit(handle, &j->h);
}

HL_EXPORT cudnnStatus_t cudnnConvolutionForward(cudnnHandle_t handle, const void *alpha,
                                                const cudnnTensorDescriptor_t xDesc, const void *x,
                                                const cudnnFilterDescriptor_t wDesc, const void *w,
                                                const cudnnConvolutionDescriptor_t convDesc,
                                                cudnnConvolutionFwdAlgo_t algo, void *workSpace,
                                                size_t workSpaceSizeInBytes, const void *beta,
                                                const cudnnTensorDescriptor_t yDesc, void *y)
{
    static const char fn[] = "cudnnConvolutionForward";
    (void)workSpace, (void)workSpaceSizeInBytes;   /* none is needed */
    struct conv_prob p;
    struct cj t;
    memset(&t, 0, sizeof t);
    cudnnStatus_t r = dnn_handle(handle);
    if (r || (r = dnn_conv_check(fn, xDesc, wDesc, convDesc, yDesc, CK_FWD, &p)))
        return r;
    if (dnn_scale(p.y.type, alpha, &t.alpha) || dnn_scale(p.y.type, beta, &t.beta))
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: alpha or beta is NULL", fn);
    t.ptr[0] = x, t.ptr[1] = w, t.ptr[2] = y;
    return conv_call(handle, &t, &p, algo, fn);
}

HL_EXPORT cudnnStatus_t cudnnConvolutionBackwardData(cudnnHandle_t handle, const void *alpha,
                                                     const cudnnFilterDescriptor_t wDesc, const void *w,
                                                     const cudnnTensorDescriptor_t dyDesc, const void *dy,
                                                     const cudnnConvolutionDescriptor_t convDesc,
                                                     cudnnConvolutionBwdDataAlgo_t algo, void *workSpace,
                                                     size_t workSpaceSizeInBytes, const void *beta,
                                                     const cudnnTensorDescriptor_t dxDesc, void *dx)
{
    static const char fn[] = "cudnnConvolutionBackwardData";
    (void)workSpace, (void)workSpaceSizeInBytes;
    struct conv_prob p;
    struct cj t;
    memset(&t, 0, sizeof t);
    cudnnStatus_t r = dnn_handle(handle);
    if (r || (r = dnn_conv_check(fn, dxDesc, wDesc, convDesc, dyDesc, CK_BWD_DATA, &p)))
        return r;
    if (dnn_scale(p.x.type, alpha, &t.alpha) || dnn_scale(p.x.type, beta, &t.beta))
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: alpha or beta is NULL", fn);
    t.ptr[0] = dx, t.ptr[1] = w, t.ptr[2] = dy;
    return conv_call(handle, &t, &p, algo, fn);
}

HL_EXPORT cudnnStatus_t cudnnConvolutionBackwardFilter(cudnnHandle_t handle, const void *alpha,
                                                       const cudnnTensorDescriptor_t xDesc, const void *x,
                                                       const cudnnTensorDescriptor_t dyDesc, const void *dy,
                                                       const cudnnConvolutionDescriptor_t convDesc,
                                                       cudnnConvolutionBwdFilterAlgo_t algo, void *workSpace,
                                                       size_t workSpaceSizeInBytes, const void *beta,
                                                       const cudnnFilterDescriptor_t dwDesc, void *dw)
{
    static const char fn[] = "cudnnConvolutionBackwardFilter";
    (void)workSpace, (void)workSpaceSizeInBytes;
    struct conv_prob p;
    struct cj t;
    memset(&t, 0, sizeof t);
    cudnnStatus_t r = dnn_handle(handle);
    if (r || (r = dnn_conv_check(fn, xDesc, dwDesc, convDesc, dyDesc, CK_BWD_FILTER, &p)))
        return r;
    if (dnn_scale(p.w.type, alpha, &t.alpha) || dnn_scale(p.w.type, beta, &t.beta))
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: alpha or beta is NULL", fn);
    t.ptr[0] = x, t.ptr[1] = dw, t.ptr[2] = dy;
    return conv_call(handle, &t, &p, algo, fn);
}

/* y = act(alpha1 * conv(x, w) + alpha2 * z + bias), activation RELU, or
 * IDENTITY with IMPLICIT_PRECOMP_GEMM, as cuDNN documents */
HL_EXPORT cudnnStatus_t cudnnConvolutionBiasActivationForward(
    cudnnHandle_t handle, const void *alpha1, const cudnnTensorDescriptor_t xDesc, const void *x,
    const cudnnFilterDescriptor_t wDesc, const void *w, const cudnnConvolutionDescriptor_t convDesc,
    cudnnConvolutionFwdAlgo_t algo, void *workSpace, size_t workSpaceSizeInBytes, const void *alpha2,
    const cudnnTensorDescriptor_t zDesc, const void *z, const cudnnTensorDescriptor_t biasDesc, const void *bias,
    const cudnnActivationDescriptor_t activationDesc, const cudnnTensorDescriptor_t yDesc, void *y)
{
    static const char fn[] = "cudnnConvolutionBiasActivationForward";
    (void)workSpace, (void)workSpaceSizeInBytes;
    struct conv_prob p;
    struct cj t;
    memset(&t, 0, sizeof t);
    cudnnStatus_t r = dnn_handle(handle);
    if (r || (r = dnn_conv_check(fn, xDesc, wDesc, convDesc, yDesc, CK_FWD, &p)) ||
        (r = dnn_td(zDesc, &t.z, "zDesc")) || (r = dnn_td(biasDesc, &t.b, "biasDesc")))
        return r;
    const struct cudnnActivationStruct *a = dnn_desc(activationDesc, DK_ACT);
    if (!a)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: not an activation descriptor that was created and set", fn);
    if (a->mode != CUDNN_ACTIVATION_RELU && a->mode != CUDNN_ACTIVATION_IDENTITY)
        return dnn_err(CUDNN_STATUS_NOT_SUPPORTED, "%s: activation %d (RELU and IDENTITY only)", fn, (int)a->mode);
    if (a->mode == CUDNN_ACTIVATION_IDENTITY && algo != CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM)
        return dnn_err(CUDNN_STATUS_NOT_SUPPORTED, "%s: IDENTITY needs CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM",
                       fn);
    if (!dnn_same_shape(&t.z, &p.y) || t.b.nb != p.y.nb || t.b.dim[1] != p.y.dim[1] || dnn_count(&t.b) != p.y.dim[1] ||
        !dnn_float_type(t.z.type) || !dnn_float_type(t.b.type))
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: z must be y's shape, the bias 1 x K x 1 x 1", fn);
    if (dnn_scale(p.y.type, alpha1, &t.alpha) || dnn_scale(p.y.type, alpha2, &t.alpha2))
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: alpha1 or alpha2 is NULL", fn);
    t.fused = 1;
    t.act = *a;
    t.Z = z, t.B = bias;
    t.ptr[0] = x, t.ptr[1] = w, t.ptr[2] = y;
    return conv_call(handle, &t, &p, algo, fn);
}

/* ---- the bias gradient ------------------------------------------------------ */
struct bgj {
    struct hl_job h;
    struct td dy, db;
    const void *DY;
    void *DB;
    double alpha, beta;
};

static void run_bgrad(struct hl_job *hj)
{
    struct bgj *j = (struct bgj *)hj;
    int C = j->dy.dim[1];
    struct dnn_it it;
    dnn_it_init(&it, &j->dy);
    int64_t n = dnn_count(&j->dy);
    double *sum = (double *)(j + 1);
    memset(sum, 0, (size_t)C * sizeof *sum);
    for (int64_t i = 0; i < n; i++, dnn_next(&it))
        sum[it.idx[1]] += dnn_load(j->dy.type, j->DY, it.off);
    for (int c = 0; c < C; c++) {
        int64_t o = (int64_t)c * j->db.stride[1];
        double v = j->alpha * sum[c];
        if (j->beta != 0)
            v += j->beta * dnn_load(j->db.type, j->DB, o);
        dnn_store(j->db.type, j->DB, o, v);
    }
}

HL_EXPORT cudnnStatus_t cudnnConvolutionBackwardBias(cudnnHandle_t handle, const void *alpha,
                                                     const cudnnTensorDescriptor_t dyDesc, const void *dy,
                                                     const void *beta, const cudnnTensorDescriptor_t dbDesc, void *db)
{
    static const char fn[] = "cudnnConvolutionBackwardBias";
    struct td tdy, tdb;
    cudnnStatus_t r = dnn_handle(handle);
    if (r || (r = dnn_td(dyDesc, &tdy, "dyDesc")) || (r = dnn_td(dbDesc, &tdb, "dbDesc")))
        return r;
    if (!dnn_float_type(tdy.type) || !dnn_float_type(tdb.type))
        return dnn_err(CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE, "%s: only float, double, half and bfloat16 data", fn);
    if (tdy.nb < 2 || tdb.nb != tdy.nb || tdb.dim[1] != tdy.dim[1] || dnn_count(&tdb) != tdy.dim[1])
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: db must be 1 x C x 1 x 1 for dy's C", fn);
    struct bgj *j = hl_job_new(sizeof *j + (size_t)tdy.dim[1] * sizeof(double), run_bgrad);
    if (!j)
        return dnn_err(CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED, "%s: out of memory", fn);
    j->dy = tdy, j->db = tdb, j->DY = dy, j->DB = db;
    if (dnn_scale(tdb.type, alpha, &j->alpha) || dnn_scale(tdb.type, beta, &j->beta)) {
        hl_job_free(&j->h);
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "%s: alpha or beta is NULL", fn);
    }
    if ((r = dnn_hold(&j->h, &tdy, dy, "dy")) || (r = dnn_hold(&j->h, &tdb, db, "db"))) {
        hl_job_free(&j->h);
        return r;
    }
    return dnn_submit(handle, &j->h);
}
