/* SPDX-License-Identifier: Apache-2.0 */
/* The host cuDNN's backend (graph) API on the emulated GPU, called as
 * cudnn-frontend calls it (tensor, operation, graph, heuristics, engine
 * config, plan, variant pack descriptors), built against tdtrace's own
 * declarations (src/hostlib/cudnn/cudnn_api.h): a convolution forward,
 * backward data and backward filter alone; convolution + bias + ReLU with
 * virtual tensors in between (NHWC); matmul + bias + GELU with a
 * broadcast batch; pointwise-only graphs (scaled ADD, RELU_BWD, ReLU in
 * place); a reduction; against plain double loops on the host. Inputs are multiples
 * of 1/64 in [-1, 1). Tolerances relative to 1 + |reference|: float 1e-4
 * (1e-5 for the pointwise and reduction graphs), half 2e-3 (a half
 * convolution + bias + ReLU through float virtual tensors). Also the attribute
 * errors (statuses as NVIDIA's cuDNN 9.19 gives them where it needs no
 * GPU), graphs it does not run (NOT_SUPPORTED at finalize, no heuristics
 * result), stream order, bad input at execution.
 *
 *   LD_LIBRARY_PATH=build/lib/tdtrace/emu:build/lib/tdtrace/host ./cudnn_backend */
#include <unistd.h>

#include "check.h"
#include "cudnn_api.h"

static cudnnHandle_t h;
typedef cudnnBackendDescriptor_t D;

#define CD(call) ST(call, CUDNN_STATUS_SUCCESS)
#define SETA(d, name, type, n, p) cudnnBackendSetAttribute(d, name, type, n, p)

static double rval(void)
{
    return floor(urand() * 64) / 64;
}

/* ---- building descriptors ---------------------------------------------------------- */
static D mk(cudnnBackendDescriptorType_t t)
{
    D d = NULL;
    CD(cudnnBackendCreateDescriptor(t, &d));
    return d;
}

static D tensor_t(cudnnDataType_t f, int64_t uid, int nb, const int64_t *dim, const int64_t *stride, int virt)
{
    D d = mk(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    int64_t al = 16, st[8];
    if (!stride) {   /* packed row-major */
        int64_t s = 1;
        for (int i = nb - 1; i >= 0; i--)
            st[i] = s, s *= dim[i];
        stride = st;
    }
    unsigned char v = (unsigned char)virt;
    CD(SETA(d, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &f));
    CD(SETA(d, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, nb, dim));
    CD(SETA(d, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, nb, stride));
    CD(SETA(d, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid));
    CD(SETA(d, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &al));
    CD(SETA(d, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &v));
    CD(cudnnBackendFinalize(d));
    return d;
}

static D tensor(int64_t uid, int nb, const int64_t *dim, const int64_t *stride, int virt)
{
    return tensor_t(CUDNN_DATA_FLOAT, uid, nb, dim, stride, virt);
}

static D convdesc(int64_t pad, int64_t post, int64_t stride)
{
    D d = mk(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
    int64_t n = 2, pre[2] = { pad, pad }, po[2] = { post, post }, s[2] = { stride, stride }, dil[2] = { 1, 1 };
    cudnnDataType_t f = CUDNN_DATA_FLOAT;
    cudnnConvolutionMode_t m = CUDNN_CROSS_CORRELATION;
    CD(SETA(d, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &n));
    CD(SETA(d, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &f));
    CD(SETA(d, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &m));
    CD(SETA(d, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, pre));
    CD(SETA(d, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 2, po));
    CD(SETA(d, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2, s));
    CD(SETA(d, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2, dil));
    CD(cudnnBackendFinalize(d));
    return d;
}

/* a convolution operation: kind 0 forward (x, w, y), 1 backward data (dx, w, dy), 2 backward filter (x, dw, dy) */
static D op_conv(int kind, D x, D w, D y, D c, double alpha, double beta)
{
    static const cudnnBackendDescriptorType_t types[3] = {
        CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR,
        CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR,
        CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR };
    static const int base[3] = { 700, 706, 712 };
    static const int xn[3] = { 704, 710, 716 }, wn[3] = { 703, 709, 715 }, yn[3] = { 705, 711, 717 };
    D d = mk(types[kind]);
    CD(SETA(d, (cudnnBackendAttributeName_t)xn[kind], CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x));
    CD(SETA(d, (cudnnBackendAttributeName_t)wn[kind], CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &w));
    CD(SETA(d, (cudnnBackendAttributeName_t)yn[kind], CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y));
    CD(SETA(d, (cudnnBackendAttributeName_t)(base[kind] + 2), CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &c));
    CD(SETA(d, (cudnnBackendAttributeName_t)base[kind], CUDNN_TYPE_DOUBLE, 1, &alpha));
    float b = (float)beta;
    CD(SETA(d, (cudnnBackendAttributeName_t)(base[kind] + 1), CUDNN_TYPE_FLOAT, 1, &b));
    CD(cudnnBackendFinalize(d));
    return d;
}

static D pwdesc(int mode)
{
    D d = mk(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
    cudnnDataType_t f = CUDNN_DATA_FLOAT;
    CD(SETA(d, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &mode));
    CD(SETA(d, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &f));
    CD(cudnnBackendFinalize(d));
    return d;
}

/* y = op(a1 * x, a2 * b); backward modes: b is dy, y is dx */
static D op_pw(int mode, D x, D b, D y, float a1, float a2)
{
    D pw = pwdesc(mode), d = mk(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
    int bwd = mode >= 200 && mode < 300;
    CD(SETA(d, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &pw));
    CD(SETA(d, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x));
    if (b)
        CD(SETA(d, bwd ? CUDNN_ATTR_OPERATION_POINTWISE_DYDESC : CUDNN_ATTR_OPERATION_POINTWISE_BDESC,
                CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &b));
    CD(SETA(d, bwd ? CUDNN_ATTR_OPERATION_POINTWISE_DXDESC : CUDNN_ATTR_OPERATION_POINTWISE_YDESC,
            CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y));
    CD(SETA(d, CUDNN_ATTR_OPERATION_POINTWISE_ALPHA1, CUDNN_TYPE_FLOAT, 1, &a1));
    CD(SETA(d, CUDNN_ATTR_OPERATION_POINTWISE_ALPHA2, CUDNN_TYPE_FLOAT, 1, &a2));
    CD(cudnnBackendFinalize(d));
    CD(cudnnBackendDestroyDescriptor(pw));   /* the operation keeps a copy */
    return d;
}

static D graph(D *ops, int n)
{
    D g = mk(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    CD(SETA(g, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &h));
    CD(SETA(g, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, n, ops));
    CD(cudnnBackendFinalize(g));
    int64_t cnt = 0, ng = 0;
    CD(cudnnBackendGetAttribute(g, CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT, CUDNN_TYPE_INT64, 1, &cnt, &ng));
    if (cnt != 1 || ng != 1)
        bad("ENGINE_GLOBAL_COUNT: %lld elements, %lld engines", (long long)cnt, (long long)ng);
    return g;
}

/* the plan of the heuristics' first engine config (as cudnn-frontend makes it); NULL when there is none */
static D plan_of(D *ops, int n)
{
    D g = graph(ops, n), heur = mk(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR), cfg = mk(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
    int mode = CUDNN_HEUR_MODE_INSTANT;
    CD(SETA(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g));
    CD(SETA(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode));
    CD(cudnnBackendFinalize(heur));
    int64_t cnt = -1;
    CD(cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cnt, &cfg));
    D plan = NULL;
    if (cnt == 1) {
        int64_t ws = -1;
        CD(cudnnBackendGetAttribute(cfg, CUDNN_ATTR_ENGINECFG_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &cnt, &ws));
        plan = mk(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
        CD(SETA(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &h));
        CD(SETA(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cfg));
        CD(cudnnBackendFinalize(plan));
        ws = -1;
        CD(cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &cnt, &ws));
        if (ws != 0)
            bad("workspace size %lld", (long long)ws);
    }
    CD(cudnnBackendDestroyDescriptor(cfg));
    CD(cudnnBackendDestroyDescriptor(heur));
    CD(cudnnBackendDestroyDescriptor(g));
    return plan;
}

static D vpack(int n, const int64_t *uids, void **ptrs)
{
    D v = mk(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
    void *ws = NULL;
    CD(SETA(v, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, n, uids));
    CD(SETA(v, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, n, ptrs));
    CD(SETA(v, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &ws));
    CD(cudnnBackendFinalize(v));
    return v;
}

static void destroy(D *d, int n)
{
    for (int i = 0; i < n; i++)
        CD(cudnnBackendDestroyDescriptor(d[i]));
}

/* ---- device buffers of floats ----------------------------------------------------- */
static float *dev_rand(int64_t n, float *host)
{
    for (int64_t i = 0; i < n; i++)
        host[i] = (float)rval();
    float *d = dalloc((size_t)n * 4);
    DRV(cuMemcpyHtoD_v2((CUdeviceptr)(uintptr_t)d, host, (size_t)n * 4));
    return d;
}

static void down(float *host, const float *d, int64_t n)
{
    DRV(cuMemcpyDtoH_v2(host, (CUdeviceptr)(uintptr_t)d, (size_t)n * 4));
}

static int close_f(const char *what, const float *got, const double *want, int64_t n, double tol)
{
    for (int64_t i = 0; i < n; i++)
        if (!(fabs(got[i] - want[i]) <= tol * (1 + fabs(want[i])))) {
            bad("%s[%lld] = %.9g, expected %.9g (tolerance %g)", what, (long long)i, got[i], want[i], tol);
            return 0;
        }
    return 1;
}

/* reference convolution, NCHW logical indexing through strides: y[n][k][p][q] = sum x * w */
#define N_ 2
#define C_ 3
#define H_ 6
#define W_ 6
#define K_ 4
#define R_ 3
static double ref_conv(const float *x, const int64_t *xs, const float *w, int n, int k, int p, int q)
{
    double s = 0;
    for (int c = 0; c < C_; c++)
        for (int r = 0; r < R_; r++)
            for (int t = 0; t < R_; t++) {
                int i = p + r - 1, j = q + t - 1;
                if (i < 0 || j < 0 || i >= H_ || j >= W_)
                    continue;
                s += (double)x[n * xs[0] + c * xs[1] + i * xs[2] + j * xs[3]] * w[((k * C_ + c) * R_ + r) * R_ + t];
            }
    return s;
}

static void test_conv_fwd(int fused)
{
    begin(fused ? "graph: conv forward + bias ADD + RELU_FWD, virtual tensors between, NHWC x and y"
                : "graph: conv forward alone (alpha 2, beta 0.5), NCHW");
    int64_t xd[4] = { N_, C_, H_, W_ }, wd[4] = { K_, C_, R_, R_ }, yd[4] = { N_, K_, H_, W_ }, bd[4] = { 1, K_, 1, 1 };
    int64_t xnhwc[4] = { H_ * W_ * C_, 1, W_ * C_, C_ }, ynhwc[4] = { H_ * W_ * K_, 1, W_ * K_, K_ };
    int64_t xnchw[4] = { C_ * H_ * W_, H_ * W_, W_, 1 }, ynchw[4] = { K_ * H_ * W_, H_ * W_, W_, 1 };
    const int64_t *xs = fused ? xnhwc : xnchw, *ys = fused ? ynhwc : ynchw;
    int64_t nx = N_ * C_ * H_ * W_, nw = K_ * C_ * R_ * R_, ny = N_ * K_ * H_ * W_;
    float *hx = malloc(nx * 4), *hw = malloc(nw * 4), *hy = malloc(ny * 4), hb[K_], *got = malloc(ny * 4);
    double *want = malloc(ny * sizeof *want);
    float *dx = dev_rand(nx, hx), *dw = dev_rand(nw, hw), *dy = dev_rand(ny, hy), *db = dev_rand(K_, hb);
    D X = tensor(1, 4, xd, xs, 0), Wt = tensor(2, 4, wd, NULL, 0), Y = tensor(3, 4, yd, ys, 0), c = convdesc(1, 1, 1);
    D all[16];
    int n = 0;
    all[n++] = X, all[n++] = Wt, all[n++] = Y, all[n++] = c;
    D ops[3];
    int nops;
    if (!fused) {
        ops[0] = op_conv(0, X, Wt, Y, c, 2, 0.5);
        nops = 1;
    } else {
        D v1 = tensor(10, 4, yd, NULL, 1), v2 = tensor(11, 4, yd, NULL, 1), B = tensor(4, 4, bd, NULL, 0);
        all[n++] = v1, all[n++] = v2, all[n++] = B;
        ops[0] = op_conv(0, X, Wt, v1, c, 1, 0);
        ops[1] = op_pw(CUDNN_POINTWISE_ADD, v1, B, v2, 1, 1);
        ops[2] = op_pw(CUDNN_POINTWISE_RELU_FWD, v2, NULL, Y, 1, 1);
        nops = 3;
    }
    /* the operations in another order than they run: the graph sorts them */
    if (fused) {
        D t = ops[0];
        ops[0] = ops[2], ops[2] = t;
    }
    D plan = plan_of(ops, nops);
    if (!plan) {
        bad("no engine config for the graph");
    } else {
        int64_t uids[4] = { 1, 2, 3, 4 };
        void *ptrs[4] = { dx, dw, dy, db };
        D vp = vpack(fused ? 4 : 3, uids, ptrs);
        CD(cudnnBackendExecute(h, plan, vp));
        DRV(cuCtxSynchronize());
        down(got, dy, ny);
        for (int i = 0; i < N_; i++)
            for (int k = 0; k < K_; k++)
                for (int p = 0; p < H_; p++)
                    for (int q = 0; q < W_; q++) {
                        int64_t o = i * ys[0] + k * ys[1] + p * ys[2] + q * ys[3];
                        double s = ref_conv(hx, xs, hw, i, k, p, q);
                        want[o] = fused ? fmax(s + hb[k], 0) : 2 * s + 0.5 * hy[o];
                    }
        close_f(fused ? "relu(conv + bias)" : "2 conv + 0.5 y", got, want, ny, 1e-4);
        char json[256] = "";
        int64_t cnt = 0;
        CD(cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION, CUDNN_TYPE_CHAR, sizeof json,
                                    &cnt, json));
        if (!strstr(json, fused ? "conv_fwd+pointwise+pointwise" : "conv_fwd"))
            bad("the plan's JSON: %s", json);
        destroy(&vp, 1);
        destroy(&plan, 1);
    }
    destroy(ops, nops);
    destroy(all, n);
    DRV(cuMemFree_v2((CUdeviceptr)(uintptr_t)dx));
    DRV(cuMemFree_v2((CUdeviceptr)(uintptr_t)dw));
    DRV(cuMemFree_v2((CUdeviceptr)(uintptr_t)dy));
    DRV(cuMemFree_v2((CUdeviceptr)(uintptr_t)db));
    free(hx), free(hw), free(hy), free(got), free(want);
    end();
}

/* half data, float virtual tensors between (what frameworks build for
 * half convolutions with a float intermediate type) */
static void test_conv_half(void)
{
    begin("graph: half conv forward + bias ADD + RELU_FWD through float virtual tensors, NHWC");
    int64_t xd[4] = { N_, C_, H_, W_ }, wd[4] = { K_, C_, R_, R_ }, yd[4] = { N_, K_, H_, W_ }, bd[4] = { 1, K_, 1, 1 };
    int64_t xs[4] = { H_ * W_ * C_, 1, W_ * C_, C_ }, ys[4] = { H_ * W_ * K_, 1, W_ * K_, K_ };
    int64_t ws[4] = { C_ * R_ * R_, R_ * R_, R_, 1 };
    int64_t nx = N_ * C_ * H_ * W_, nw = K_ * C_ * R_ * R_, ny = N_ * K_ * H_ * W_;
    float *fx = malloc(nx * 4), *fw = malloc(nw * 4), fb[K_];
    _Float16 *hx = malloc(nx * 2), *hw = malloc(nw * 2), hb[K_], *got = malloc(ny * 2);
    double *want = malloc(ny * sizeof *want);
    for (int64_t i = 0; i < nx; i++)
        hx[i] = (_Float16)(fx[i] = (float)rval());
    for (int64_t i = 0; i < nw; i++)
        hw[i] = (_Float16)(fw[i] = (float)rval());
    for (int i = 0; i < K_; i++)
        hb[i] = (_Float16)(fb[i] = (float)rval());
    void *dx = dalloc(nx * 2), *dw = dalloc(nw * 2), *db = dalloc(K_ * 2), *dy = dalloc(ny * 2);
    DRV(cuMemcpyHtoD_v2((CUdeviceptr)(uintptr_t)dx, hx, nx * 2));
    DRV(cuMemcpyHtoD_v2((CUdeviceptr)(uintptr_t)dw, hw, nw * 2));
    DRV(cuMemcpyHtoD_v2((CUdeviceptr)(uintptr_t)db, hb, K_ * 2));
    cudnnDataType_t hf = CUDNN_DATA_HALF;
    D X = tensor_t(hf, 1, 4, xd, xs, 0), Wt = tensor_t(hf, 2, 4, wd, ws, 0), Y = tensor_t(hf, 3, 4, yd, ys, 0);
    D B = tensor_t(hf, 4, 4, bd, NULL, 0), v1 = tensor(10, 4, yd, NULL, 1), v2 = tensor(11, 4, yd, NULL, 1);
    D c = convdesc(1, 1, 1);
    D ops[3] = { op_conv(0, X, Wt, v1, c, 1, 0), op_pw(CUDNN_POINTWISE_ADD, v1, B, v2, 1, 1),
                 op_pw(CUDNN_POINTWISE_RELU_FWD, v2, NULL, Y, 1, 1) };
    D plan = plan_of(ops, 3);
    if (!plan) {
        bad("no engine config for the graph");
    } else {
        int64_t uids[4] = { 1, 2, 3, 4 };
        void *ptrs[4] = { dx, dw, dy, db };
        D vp = vpack(4, uids, ptrs);
        CD(cudnnBackendExecute(h, plan, vp));
        DRV(cuCtxSynchronize());
        DRV(cuMemcpyDtoH_v2(got, (CUdeviceptr)(uintptr_t)dy, ny * 2));
        float *gotf = malloc(ny * 4);
        for (int64_t i = 0; i < ny; i++)
            gotf[i] = (float)got[i];
        for (int i = 0; i < N_; i++)
            for (int k = 0; k < K_; k++)
                for (int p = 0; p < H_; p++)
                    for (int q = 0; q < W_; q++)
                        want[i * ys[0] + k * ys[1] + p * ys[2] + q * ys[3]] =
                            fmax(ref_conv(fx, xs, fw, i, k, p, q) + fb[k], 0);
        close_f("relu(conv + bias), half", gotf, want, ny, 2e-3);
        free(gotf);
        destroy(&vp, 1);
        destroy(&plan, 1);
    }
    destroy(ops, 3);
    D all[7] = { X, Wt, Y, B, v1, v2, c };
    destroy(all, 7);
    free(fx), free(fw), free(hx), free(hw), free(got), free(want);
    end();
}

static void test_conv_bwd(void)
{
    begin("graph: conv backward data and backward filter alone");
    int64_t xd[4] = { N_, C_, H_, W_ }, wd[4] = { K_, C_, R_, R_ }, yd[4] = { N_, K_, H_, W_ };
    int64_t nx = N_ * C_ * H_ * W_, nw = K_ * C_ * R_ * R_, ny = N_ * K_ * H_ * W_;
    int64_t xs[4] = { C_ * H_ * W_, H_ * W_, W_, 1 };
    float *hx = malloc(nx * 4), *hw = malloc(nw * 4), *hy = malloc(ny * 4), *got = malloc(nx * 4);
    double *want = calloc(nx, sizeof *want), *wantw = calloc(nw, sizeof *wantw);
    float *dx = dev_rand(nx, hx), *dw = dev_rand(nw, hw), *dy = dev_rand(ny, hy);
    D X = tensor(1, 4, xd, NULL, 0), Wt = tensor(2, 4, wd, NULL, 0), Y = tensor(3, 4, yd, NULL, 0), c = convdesc(1, 1, 1);
    /* references: dx[n][c][i][j] = sum dy * w, dw[k][c][r][t] = sum x * dy */
    for (int n = 0; n < N_; n++)
        for (int k = 0; k < K_; k++)
            for (int p = 0; p < H_; p++)
                for (int q = 0; q < W_; q++)
                    for (int ch = 0; ch < C_; ch++)
                        for (int r = 0; r < R_; r++)
                            for (int t = 0; t < R_; t++) {
                                int i = p + r - 1, j = q + t - 1;
                                if (i < 0 || j < 0 || i >= H_ || j >= W_)
                                    continue;
                                double g = hy[((n * K_ + k) * H_ + p) * W_ + q];
                                want[n * xs[0] + ch * xs[1] + i * xs[2] + j] += g * hw[((k * C_ + ch) * R_ + r) * R_ + t];
                                wantw[((k * C_ + ch) * R_ + r) * R_ + t] += g * hx[n * xs[0] + ch * xs[1] + i * xs[2] + j];
                            }
    int64_t uids[3] = { 1, 2, 3 };
    float *dxo = dalloc((size_t)nx * 4), *dwo = dalloc((size_t)nw * 4);
    for (int kind = 1; kind <= 2; kind++) {
        void *ptrs[3] = { kind == 1 ? dxo : dx, kind == 1 ? dw : dwo, dy };   /* the inputs are kept */
        D op = op_conv(kind, X, Wt, Y, c, 1, 0), plan = plan_of(&op, 1);
        if (!plan) {
            bad("no engine config for backward %s", kind == 1 ? "data" : "filter");
        } else {
            D vp = vpack(3, uids, ptrs);
            CD(cudnnBackendExecute(h, plan, vp));
            DRV(cuCtxSynchronize());
            if (kind == 1) {
                down(got, dxo, nx);
                close_f("dx", got, want, nx, 1e-4);
            } else {
                down(got, dwo, nw);
                close_f("dw", got, wantw, nw, 1e-4);
            }
            destroy(&vp, 1);
            destroy(&plan, 1);
        }
        destroy(&op, 1);
    }
    D all[4] = { X, Wt, Y, c };
    destroy(all, 4);
    free(hx), free(hw), free(hy), free(got), free(want), free(wantw);
    end();
}

static void test_matmul(void)
{
    begin("graph: matmul (batch 2 x 1 broadcast) + bias ADD + GELU_FWD");
    enum { B = 2, M = 3, K = 4, N = 5 };
    int64_t ad[3] = { B, M, K }, bd[3] = { 1, K, N }, cd[3] = { B, M, N }, biasd[3] = { 1, 1, N };
    float ha[B * M * K], hb[K * N], hbias[N], got[B * M * N];
    double want[B * M * N];
    float *da = dev_rand(B * M * K, ha), *db = dev_rand(K * N, hb), *dbias = dev_rand(N, hbias);
    float *dc = dalloc(sizeof got);
    D A = tensor(1, 3, ad, NULL, 0), Bt = tensor(2, 3, bd, NULL, 0), C = tensor(3, 3, cd, NULL, 0);
    D bias = tensor(4, 3, biasd, NULL, 0), v1 = tensor(5, 3, cd, NULL, 1), v2 = tensor(6, 3, cd, NULL, 1);
    D mm = mk(CUDNN_BACKEND_MATMUL_DESCRIPTOR), op = mk(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
    cudnnDataType_t f = CUDNN_DATA_FLOAT;
    CD(SETA(mm, CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &f));
    CD(cudnnBackendFinalize(mm));
    CD(SETA(op, CUDNN_ATTR_OPERATION_MATMUL_ADESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &A));
    CD(SETA(op, CUDNN_ATTR_OPERATION_MATMUL_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &Bt));
    CD(SETA(op, CUDNN_ATTR_OPERATION_MATMUL_CDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &v1));
    CD(SETA(op, CUDNN_ATTR_OPERATION_MATMUL_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &mm));
    CD(cudnnBackendFinalize(op));
    D ops[3] = { op, op_pw(CUDNN_POINTWISE_ADD, v1, bias, v2, 1, 1), op_pw(CUDNN_POINTWISE_GELU_FWD, v2, NULL, C, 1, 1) };
    D plan = plan_of(ops, 3);
    if (!plan) {
        bad("no engine config");
    } else {
        int64_t uids[4] = { 1, 2, 3, 4 };
        void *ptrs[4] = { da, db, dc, dbias };
        D vp = vpack(4, uids, ptrs);
        CD(cudnnBackendExecute(h, plan, vp));
        DRV(cuCtxSynchronize());
        down(got, dc, B * M * N);
        for (int b = 0; b < B; b++)
            for (int m = 0; m < M; m++)
                for (int n = 0; n < N; n++) {
                    double s = hbias[n];
                    for (int k = 0; k < K; k++)
                        s += (double)ha[(b * M + m) * K + k] * hb[k * N + n];
                    want[(b * M + m) * N + n] = 0.5 * s * (1 + erf(s / sqrt(2.0)));
                }
        close_f("gelu(a b + bias)", got, want, B * M * N, 1e-4);
        destroy(&vp, 1);
        destroy(&plan, 1);
    }
    destroy(ops, 3);
    D all[8] = { A, Bt, C, bias, v1, v2, mm };
    destroy(all, 7);
    end();
}

static void test_pointwise_reduction(void)
{
    begin("graph: pointwise only (2 x + 0.5 b with b broadcast, RELU_BWD) and a reduction (ADD over H, W)");
    int64_t d[4] = { 2, 3, 4, 5 }, bd[4] = { 1, 3, 1, 1 }, rd[4] = { 2, 3, 1, 1 };
    enum { NE = 120 };
    float hx[NE], hb[3], hg[NE], got[NE];
    double want[NE];
    float *dx = dev_rand(NE, hx), *db = dev_rand(3, hb), *dg = dev_rand(NE, hg), *dy = dalloc(NE * 4);
    D X = tensor(1, 4, d, NULL, 0), B = tensor(2, 4, bd, NULL, 0), Y = tensor(3, 4, d, NULL, 0);
    D G = tensor(4, 4, d, NULL, 0), R = tensor(5, 4, rd, NULL, 0);
    int64_t uids[5] = { 1, 2, 3, 4, 5 };
    void *ptrs[5] = { dx, db, dy, dg, dy };
    /* y = 2 x + 0.5 b */
    D op = op_pw(CUDNN_POINTWISE_ADD, X, B, Y, 2, 0.5f), plan = plan_of(&op, 1), vp = vpack(3, uids, ptrs);
    if (plan) {
        CD(cudnnBackendExecute(h, plan, vp));
        DRV(cuCtxSynchronize());
        down(got, dy, NE);
        for (int i = 0; i < NE; i++)
            want[i] = 2.0 * hx[i] + 0.5 * hb[i / 20 % 3];
        close_f("2 x + 0.5 b", got, want, NE, 1e-5);
        destroy(&plan, 1);
    } else {
        bad("no engine config for ADD");
    }
    destroy(&op, 1);
    destroy(&vp, 1);
    /* dx = dy * (x > 0): x = X, dy = G, dx = Y */
    uids[1] = 4, ptrs[1] = dg;
    op = op_pw(CUDNN_POINTWISE_RELU_BWD, X, G, Y, 1, 1), plan = plan_of(&op, 1), vp = vpack(3, uids, ptrs);
    if (plan) {
        CD(cudnnBackendExecute(h, plan, vp));
        DRV(cuCtxSynchronize());
        down(got, dy, NE);
        for (int i = 0; i < NE; i++)
            want[i] = hx[i] > 0 ? hg[i] : 0;
        close_f("relu backward", got, want, NE, 1e-5);
        destroy(&plan, 1);
    } else {
        bad("no engine config for RELU_BWD");
    }
    destroy(&op, 1);
    destroy(&vp, 1);
    /* in place: x = relu(x), x one tensor (one unique id) for both */
    uids[0] = 4, ptrs[0] = dg;
    op = op_pw(CUDNN_POINTWISE_RELU_FWD, G, NULL, G, 1, 1), plan = plan_of(&op, 1), vp = vpack(1, uids, ptrs);
    if (plan) {
        CD(cudnnBackendExecute(h, plan, vp));
        DRV(cuCtxSynchronize());
        down(got, dg, NE);
        for (int i = 0; i < NE; i++)
            want[i] = hg[i] > 0 ? hg[i] : 0;
        close_f("relu in place", got, want, NE, 1e-5);
        destroy(&plan, 1);
    } else {
        bad("no engine config for an operation in place");
    }
    destroy(&op, 1);
    destroy(&vp, 1);
    uids[0] = 1, ptrs[0] = dx;
    /* r = sum over H, W of x */
    D red = mk(CUDNN_BACKEND_REDUCTION_DESCRIPTOR);
    cudnnReduceTensorOp_t add = CUDNN_REDUCE_TENSOR_ADD;
    cudnnDataType_t f = CUDNN_DATA_FLOAT;
    CD(SETA(red, CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, 1, &add));
    CD(SETA(red, CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &f));
    CD(cudnnBackendFinalize(red));
    op = mk(CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR);
    CD(SETA(op, CUDNN_ATTR_OPERATION_REDUCTION_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &X));
    CD(SETA(op, CUDNN_ATTR_OPERATION_REDUCTION_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &R));
    CD(SETA(op, CUDNN_ATTR_OPERATION_REDUCTION_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &red));
    CD(cudnnBackendFinalize(op));
    uids[1] = 5, ptrs[1] = dy;
    plan = plan_of(&op, 1), vp = vpack(2, uids, ptrs);
    if (plan) {
        CD(cudnnBackendExecute(h, plan, vp));
        DRV(cuCtxSynchronize());
        down(got, dy, 6);
        for (int i = 0; i < 6; i++) {
            want[i] = 0;
            for (int e = 0; e < 20; e++)
                want[i] += hx[i * 20 + e];
        }
        close_f("sum over H, W", got, want, 6, 1e-5);
        destroy(&plan, 1);
    } else {
        bad("no engine config for the reduction");
    }
    destroy(&op, 1);
    destroy(&vp, 1);
    D all[6] = { X, B, Y, G, R, red };
    destroy(all, 6);
    end();
}

/* ---- attributes --------------------------------------------------------------------- */
static void test_attributes(void)
{
    begin("attributes: types, counts, finalize, set after finalize, get before finalize, NULL");
    D t = mk(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    cudnnDataType_t f = CUDNN_DATA_FLOAT;
    int64_t dims[4] = { 2, 3, 4, 5 }, str[4] = { 60, 20, 5, 1 }, uid = 7, al = 16, al3 = 3, v = 0, cnt = -1;
    ST(cudnnBackendGetAttribute(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &cnt, &v),
       CUDNN_STATUS_NOT_INITIALIZED);
    ST(cudnnBackendFinalize(t), CUDNN_STATUS_BAD_PARAM);
    ST(SETA(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_INT64, 1, &f), CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE);
    ST(SETA(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 2, &f), CUDNN_STATUS_BAD_PARAM);
    ST(SETA(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 0, &f), CUDNN_STATUS_BAD_PARAM);
    ST(SETA(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, NULL), CUDNN_STATUS_BAD_PARAM);
    ST(SETA(t, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &f), CUDNN_STATUS_BAD_PARAM);
    ST(SETA(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 0, dims), CUDNN_STATUS_BAD_PARAM);
    CD(SETA(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &f));
    CD(SETA(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dims));
    ST(cudnnBackendFinalize(t), CUDNN_STATUS_BAD_PARAM);   /* no strides */
    CD(SETA(t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 3, str));
    CD(SETA(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid));
    CD(SETA(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &al));
    ST(cudnnBackendFinalize(t), CUDNN_STATUS_BAD_PARAM);   /* 3 strides for 4 dimensions */
    CD(SETA(t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, str));
    CD(SETA(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &al3));
    ST(cudnnBackendFinalize(t), CUDNN_STATUS_BAD_PARAM);   /* alignment 3 */
    CD(SETA(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &al));
    CD(cudnnBackendFinalize(t));
    ST(cudnnBackendFinalize(t), CUDNN_STATUS_BAD_PARAM);
    ST(SETA(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid), CUDNN_STATUS_BAD_PARAM);
    CD(cudnnBackendGetAttribute(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &cnt, &v));
    if (cnt != 1 || v != 7)
        bad("unique id: %lld elements, %lld", (long long)cnt, (long long)v);
    ST(cudnnBackendGetAttribute(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT32, 1, &cnt, &v),
       CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE);
    int64_t d2[8] = { 0 };
    CD(cudnnBackendGetAttribute(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 2, &cnt, d2));
    if (cnt != 2 || d2[0] != 2 || d2[1] != 3 || d2[2] != 0)
        bad("dimensions, 2 requested: %lld elements, %lld %lld %lld", (long long)cnt, (long long)d2[0],
            (long long)d2[1], (long long)d2[2]);
    CD(cudnnBackendGetAttribute(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 0, &cnt, NULL));
    if (cnt != 4)
        bad("dimensions, none requested: %lld elements", (long long)cnt);
    unsigned char b = 9;
    CD(cudnnBackendGetAttribute(t, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &cnt, &b));
    if (b != 0)
        bad("is virtual: %d", b);
    ST(cudnnBackendGetAttribute(t, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &cnt, &f),
       CUDNN_STATUS_BAD_PARAM);
    ST(cudnnBackendGetAttribute(NULL, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &cnt, &v),
       CUDNN_STATUS_BAD_PARAM);
    ST(SETA(NULL, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid), CUDNN_STATUS_BAD_PARAM_NULL_POINTER);
    ST(cudnnBackendFinalize(NULL), CUDNN_STATUS_BAD_PARAM_NULL_POINTER);
    ST(cudnnBackendDestroyDescriptor(NULL), CUDNN_STATUS_BAD_PARAM_NULL_POINTER);
    ST(cudnnBackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR, NULL), CUDNN_STATUS_BAD_PARAM_NULL_POINTER);
    D x = NULL;
    ST(cudnnBackendCreateDescriptor((cudnnBackendDescriptorType_t)999, &x), CUDNN_STATUS_BAD_PARAM);
    ST(cudnnBackendCreateDescriptor((cudnnBackendDescriptorType_t)41, &x), CUDNN_STATUS_NOT_SUPPORTED); /* SDPA */
    /* a descriptor attribute: unfinalized, of the wrong type */
    D op = mk(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR), t2 = mk(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    ST(SETA(op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &t2),
       CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED);
    D c = convdesc(1, 1, 1);
    ST(SETA(op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &c),
       CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE);
    void *junk = &uid;
    ST(SETA(op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &junk), CUDNN_STATUS_BAD_PARAM);
    ST(cudnnBackendFinalize(op), CUDNN_STATUS_BAD_PARAM);   /* no pointwise descriptor, x, y */
    /* the operation keeps a copy of the tensor: destroying it changes nothing */
    D pw = pwdesc(CUDNN_POINTWISE_RELU_FWD), got = mk(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    CD(SETA(op, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &pw));
    CD(SETA(op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &t));
    CD(SETA(op, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &t));
    CD(cudnnBackendDestroyDescriptor(t));
    CD(cudnnBackendFinalize(op));
    CD(cudnnBackendGetAttribute(op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cnt, &got));
    v = 0;
    CD(cudnnBackendGetAttribute(got, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &cnt, &v));
    if (v != 7)
        bad("the operation's x: unique id %lld", (long long)v);
    double lower = -1, a1 = 0;
    CD(cudnnBackendGetAttribute(pw, CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP, CUDNN_TYPE_DOUBLE, 1, &cnt, &lower));
    CD(cudnnBackendGetAttribute(op, CUDNN_ATTR_OPERATION_POINTWISE_ALPHA1, CUDNN_TYPE_DOUBLE, 1, &cnt, &a1));
    if (lower != 0 || a1 != 1)
        bad("defaults: lower clip %g, alpha1 %g", lower, a1);
    ST(cudnnBackendDestroyDescriptor(t), CUDNN_STATUS_BAD_PARAM);   /* destroyed already */
    /* convolution descriptor: counts must match the spatial dimensions */
    D cv = mk(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
    int64_t n2 = 2, one[3] = { 1, 1, 1 };
    CD(SETA(cv, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &n2));
    CD(SETA(cv, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &f));
    cudnnConvolutionMode_t m = CUDNN_CONVOLUTION;
    CD(SETA(cv, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &m));
    CD(SETA(cv, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, one));
    CD(SETA(cv, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 2, one));
    CD(SETA(cv, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2, one));
    ST(cudnnBackendFinalize(cv), CUDNN_STATUS_BAD_PARAM);   /* no strides */
    CD(SETA(cv, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 3, one));
    ST(cudnnBackendFinalize(cv), CUDNN_STATUS_BAD_PARAM);   /* 3 strides */
    CD(SETA(cv, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2, one));
    CD(cudnnBackendFinalize(cv));
    CD(cudnnBackendGetAttribute(cv, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 0, &cnt, NULL));
    if (cnt != 2)
        bad("pre paddings: %lld elements", (long long)cnt);
    /* a graph: no operations BAD_PARAM; the handle optional, a made-up one refused; an
     * operation not finalized BAD_PARAM_NOT_FINALIZED (as NVIDIA's library answers) */
    D g = mk(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR), op2 = mk(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
    ST(cudnnBackendFinalize(g), CUDNN_STATUS_BAD_PARAM);
    ST(SETA(g, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &op2),
       CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED);
    cudnnHandle_t fake = (cudnnHandle_t)&uid;
    ST(SETA(g, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &fake), CUDNN_STATUS_BAD_PARAM);
    CD(SETA(g, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &op));
    /* Initialize resets */
    CD(cudnnBackendInitialize(g));
    ST(cudnnBackendFinalize(g), CUDNN_STATUS_BAD_PARAM);
    CD(SETA(g, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &op));
    CD(cudnnBackendFinalize(g));
    /* an engine without its graph, a plan without its engine config */
    D e = mk(CUDNN_BACKEND_ENGINE_DESCRIPTOR), pl = mk(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
    ST(cudnnBackendFinalize(e), CUDNN_STATUS_BAD_PARAM_NULL_POINTER);
    ST(cudnnBackendFinalize(pl), CUDNN_STATUS_BAD_PARAM_NULL_POINTER);
    ST(SETA(pl, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &e),
       CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE);
    destroy(&op2, 1);
    destroy(&e, 1);
    destroy(&pl, 1);
    D all[8] = { op, t2, c, pw, got, cv, g };
    destroy(all, 7);
    end();
}

/* ---- graphs it does not run -------------------------------------------------------- */
static void test_unsupported(void)
{
    begin("graphs not run: NOT_SUPPORTED at engine finalize, no heuristics result; wrong graphs BAD_PARAM");
    int64_t xd[4] = { 1, 2, 5, 5 }, wd[4] = { 2, 2, 3, 3 }, yd[4] = { 1, 2, 4, 4 };
    D X = tensor(1, 4, xd, NULL, 0), Wt = tensor(2, 4, wd, NULL, 0), Y = tensor(3, 4, yd, NULL, 0);
    /* asymmetric padding: 5 + 1 + 0 - 3 + 1 = 4 */
    D c = convdesc(1, 0, 1), op = op_conv(0, X, Wt, Y, c, 1, 0), g = graph(&op, 1);
    D e = mk(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
    int64_t idx = 0, cnt = -1;
    CD(SETA(e, CUDNN_ATTR_ENGINE_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g));
    CD(SETA(e, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &idx));
    ST(cudnnBackendFinalize(e), CUDNN_STATUS_NOT_SUPPORTED_PADDING);
    char msg[256];
    cudnnGetLastErrorString(msg, sizeof msg);
    if (!strstr(msg, "symmetric"))
        bad("the message: %s", msg);
    D heur = mk(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR), cfg = mk(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
    int mode = CUDNN_HEUR_MODE_A;
    CD(SETA(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g));
    CD(SETA(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode));
    CD(cudnnBackendFinalize(heur));
    CD(cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cnt, &cfg));
    if (cnt != 0)
        bad("%lld heuristics results for a graph not run", (long long)cnt);
    /* an engine index past the one engine */
    D e2 = mk(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
    idx = 1;
    CD(SETA(e2, CUDNN_ATTR_ENGINE_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g));
    CD(SETA(e2, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &idx));
    ST(cudnnBackendFinalize(e2), CUDNN_STATUS_BAD_PARAM);
    /* a pointwise mode not implemented (CUDNN_POINTWISE_COS = 12) */
    D p = op_pw(12, Y, NULL, Y, 1, 1), g2 = graph(&p, 1), e3 = mk(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
    idx = 0;
    CD(SETA(e3, CUDNN_ATTR_ENGINE_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g2));
    CD(SETA(e3, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &idx));
    ST(cudnnBackendFinalize(e3), CUDNN_STATUS_NOT_SUPPORTED);
    /* a virtual tensor nobody writes; dimensions past 2^31 */
    int64_t big[4] = { 1, 2, (int64_t)1 << 31, 4 };
    D V = tensor(9, 4, yd, NULL, 1), Big = tensor(10, 4, big, NULL, 0);
    D p2 = op_pw(CUDNN_POINTWISE_RELU_FWD, V, NULL, Y, 1, 1), p3 = op_pw(CUDNN_POINTWISE_RELU_FWD, Big, NULL, Big, 1, 1);
    D g3 = graph(&p2, 1), g4 = graph(&p3, 1), e4 = mk(CUDNN_BACKEND_ENGINE_DESCRIPTOR),
      e5 = mk(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
    CD(SETA(e4, CUDNN_ATTR_ENGINE_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g3));
    CD(SETA(e4, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &idx));
    ST(cudnnBackendFinalize(e4), CUDNN_STATUS_BAD_PARAM);
    CD(SETA(e5, CUDNN_ATTR_ENGINE_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g4));
    CD(SETA(e5, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &idx));
    ST(cudnnBackendFinalize(e5), CUDNN_STATUS_NOT_SUPPORTED_SHAPE);
    /* dimensions each below 2^31 whose product overflows */
    int64_t huge[4] = { (int64_t)1 << 30, (int64_t)1 << 30, (int64_t)1 << 30, (int64_t)1 << 30 };
    int64_t ones[4] = { 1, 1, 1, 1 };
    D Huge = tensor(12, 4, huge, ones, 0), p4 = op_pw(CUDNN_POINTWISE_RELU_FWD, Huge, NULL, Huge, 1, 1);
    D g6 = graph(&p4, 1), e7 = mk(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
    CD(SETA(e7, CUDNN_ATTR_ENGINE_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g6));
    CD(SETA(e7, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &idx));
    ST(cudnnBackendFinalize(e7), CUDNN_STATUS_BAD_PARAM);
    D more[4] = { Huge, p4, g6, e7 };
    destroy(more, 4);
    /* two operations that read each other's output */
    D V2 = tensor(11, 4, yd, NULL, 1), c1 = op_pw(CUDNN_POINTWISE_RELU_FWD, V, NULL, V2, 1, 1),
      c2 = op_pw(CUDNN_POINTWISE_TANH_FWD, V2, NULL, V, 1, 1), cyc[2] = { c1, c2 };
    D g5 = graph(cyc, 2), e6 = mk(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
    CD(SETA(e6, CUDNN_ATTR_ENGINE_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g5));
    CD(SETA(e6, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &idx));
    ST(cudnnBackendFinalize(e6), CUDNN_STATUS_BAD_PARAM);
    D all[27] = { X, Wt, Y, c, op, g, e, heur, cfg, e2, p, g2, e3, V, Big, p2, p3, g3, g4, e4, e5, V2, c1, c2, g5, e6 };
    destroy(all, 26);
    end();
}

/* ---- execution: bad input, stream order ------------------------------------------- */
struct slow { float *p; int n; _Atomic int open, waited_out; };
static void CUDAAPI slow_fill(void *arg)
{
    struct slow *s = arg;
    for (int i = 0; i < 20000 && !s->open; i++)
        usleep(1000);
    s->waited_out = !s->open;
    for (int i = 0; i < s->n; i++)
        s->p[i] = -1.0f;
}

static void test_execute(void)
{
    begin("execute: stream order; missing unique id, NULL, misaligned, outside allocations, too small, not finalized");
    int64_t d[2] = { 4, 8 };
    D X = tensor(1, 2, d, NULL, 0), Y = tensor(2, 2, d, NULL, 0);
    D op = op_pw(CUDNN_POINTWISE_SIGMOID_FWD, X, NULL, Y, 1, 1), plan = plan_of(&op, 1);
    float *dx = dalloc(32 * 4), *dy = dalloc(32 * 4), *small = dalloc(16 * 4), got[32];
    int64_t uids[2] = { 1, 2 };
    void *ptrs[2] = { dx, dy };
    if (!plan) {
        bad("no engine config");
        goto out;
    }
    /* order: a slow host function fills x first; the graph must run after it */
    CUstream s;
    CUevent e;
    DRV(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    DRV(cuEventCreate(&e, 0));
    CD(cudnnSetStream(h, (cudaStream_t)s));
    struct slow sl = { dx, 32, 0, 0 };
    DRV(cuLaunchHostFunc(s, slow_fill, &sl));
    D vp = vpack(2, uids, ptrs);
    CD(cudnnBackendExecute(h, plan, vp));
    DRV(cuEventRecord(e, s));
    if (cuEventQuery(e) != CUDA_ERROR_NOT_READY)
        bad("the graph completed before the work queued ahead of it");
    sl.open = 1;
    DRV(cuEventSynchronize(e));
    if (sl.waited_out)
        bad("cudnnBackendExecute waited for the stream");
    down(got, dy, 32);
    double want[32];
    for (int i = 0; i < 32; i++)
        want[i] = 1 / (1 + exp(1.0));
    close_f("sigmoid after the host function", got, want, 32, 1e-6);
    CD(cudnnSetStream(h, NULL));
    DRV(cuEventDestroy_v2(e));
    DRV(cuStreamDestroy_v2(s));
    destroy(&vp, 1);
    /* bad input: nothing is queued */
    int64_t other[2] = { 1, 3 };
    vp = vpack(2, other, ptrs);
    ST(cudnnBackendExecute(h, plan, vp), CUDNN_STATUS_BAD_PARAM);
    destroy(&vp, 1);
    void *nul[2] = { dx, NULL };
    vp = vpack(2, uids, nul);
    ST(cudnnBackendExecute(h, plan, vp), CUDNN_STATUS_BAD_PARAM_NULL_POINTER);
    destroy(&vp, 1);
    void *mis[2] = { (char *)dx + 2, dy };
    vp = vpack(2, uids, mis);
    ST(cudnnBackendExecute(h, plan, vp), CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER);
    destroy(&vp, 1);
    float hostbuf[32];
    void *hst[2] = { dx, hostbuf };
    vp = vpack(2, uids, hst);
    ST(cudnnBackendExecute(h, plan, vp), CUDNN_STATUS_BAD_PARAM);
    destroy(&vp, 1);
    void *sm[2] = { dx, small };   /* 16 floats for 32 */
    vp = vpack(2, uids, sm);
    ST(cudnnBackendExecute(h, plan, vp), CUDNN_STATUS_BAD_PARAM);
    ST(cudnnBackendExecute(NULL, plan, vp), CUDNN_STATUS_BAD_PARAM);
    ST(cudnnBackendExecute(h, NULL, vp), CUDNN_STATUS_BAD_PARAM_NULL_POINTER);
    ST(cudnnBackendExecute(h, vp, plan), CUDNN_STATUS_BAD_PARAM);
    D unfinished = mk(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
    ST(cudnnBackendExecute(h, plan, unfinished), CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED);
    destroy(&unfinished, 1);
    destroy(&vp, 1);
    DRV(cuCtxSynchronize());
    down(got, dy, 32);
    close_f("y after refused calls", got, want, 32, 1e-6);
    destroy(&plan, 1);
out:
    destroy(&op, 1);
    D all[2] = { X, Y };
    destroy(all, 2);
    end();
}

int main(void)
{
    begin("cudnnCreate");
    CD(cudnnCreate(&h));
    end();
    if (n_fail)
        return summary("cudnn backend");
    test_attributes();
    test_conv_fwd(0);
    test_conv_fwd(1);
    test_conv_half();
    test_conv_bwd();
    test_matmul();
    test_pointwise_reduction();
    test_unsupported();
    test_execute();
    begin("cudnnDestroy");
    CD(cudnnDestroy(h));
    end();
    return summary("cudnn backend");
}
