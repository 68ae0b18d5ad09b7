/* SPDX-License-Identifier: Apache-2.0 */
/* The executor's matrix instructions: mma.sync, wmma.load/store/mma,
 * ldmatrix, stmatrix, movmatrix. All are .sync.aligned: the whole warp
 * executes them together, so the handler sees every lane's registers.
 *
 * mma: each lane's fragment elements sit at the (row, col) the PTX ISA
 * gives for the shape and type ("Matrix Fragments for mma.mMnNkK"); the
 * product is formed in full and scattered back. The ISA leaves the order
 * and rounding of float accumulation open: here the products (exact in
 * single precision for every input format) are added in k order with one
 * single-precision rounding each, f64 with fused multiply-adds in the
 * instruction's rounding mode, integers exactly then wrapped or saturated.
 *
 * wmma: the distribution of fragments over lanes is unspecified in PTX;
 * here lane l's element i is element (l * E + i) mod (rows * cols) of the
 * matrix in row-major order (E elements per lane), so loads, stores and
 * products agree with each other and with element-wise use of fragments. */
#include "exec.h"

#include <fenv.h>
#include <stdio.h>

/* ---- elements of fragments ------------------------------------------------ */
static int bits_of(int t)
{
    switch (t) {
    case T_F16: case T_BF16: case T_B16: return 16;
    case T_S8: case T_U8: case T_E4M3: case T_E5M2: return 8;
    case T_S4: case T_U4: return 4;
    case T_B1: return 1;
    case T_F64: return 64;
    default: return 32;
    }
}

/* element i of a fragment held in registers slots[], lane l */
static uint64_t frag_get(const uint64_t *R, const int32_t *slots, int i, int t, int l)
{
    int bits = bits_of(t), per = bits >= 32 ? 1 : 32 / bits;
    uint64_t v = R[(size_t)slots[i / per] * 32 + l];
    if (bits >= 64) return v;
    return (v >> ((i % per) * bits)) & ((1ull << bits) - 1);
}

static void frag_set(uint64_t *R, const int32_t *slots, int i, int t, int l, uint64_t val)
{
    int bits = bits_of(t), per = bits >= 32 ? 1 : 32 / bits;
    if (slots[i / per] < 0) return; /* the sink */
    uint64_t *v = &R[(size_t)slots[i / per] * 32 + l];
    if (bits >= 32) { *v = bits == 64 ? val : val & 0xffffffffu; return; }
    int sh = (i % per) * bits;
    uint64_t mk = ((1ull << bits) - 1) << sh;
    *v = ((*v & ~mk) | ((val << sh) & mk)) & 0xffffffffu;
}

/* a multiplicand or accumulator element as a number */
static double fval(uint64_t v, int t)
{
    switch (t) {
    case T_F16: return ptx_f16_to_f32((uint16_t)v);
    case T_BF16: return ptx_bf16_to_f32((uint16_t)v);
    case T_TF32: return F32(v & 0xffffe000u); /* the 13 low mantissa bits are not used */
    case T_E4M3: case T_E5M2: return ptx_fp8_value((unsigned)v, t == T_E5M2);
    case T_F64: return F64(v);
    default: return F32(v);
    }
}

static int64_t ival(uint64_t v, int t)
{
    switch (t) {
    case T_S8: return (int8_t)v;
    case T_S4: return (v & 8) ? (int64_t)v - 16 : (int64_t)v;
    case T_S32: return (int32_t)v;
    default: return (int64_t)v; /* u8, u4, b1 */
    }
}

static int is_float(int t) { return t != T_S8 && t != T_U8 && t != T_S4 && t != T_U4 && t != T_B1 && t != T_S32; }

/* ---- the mma fragment layouts (PTX ISA 9.7.14.5.1 to .13) ----------------- */
/* (row, col) of element i of lane l in matrix which ('a', 'b', 'c') */
static void mma_rc(const struct ir_mma *x, char which, int l, int i, int *r, int *c)
{
    int g = l >> 2, t = l & 3, hi = l >= 16, k = x->k;
    int ty = which == 'a' ? x->atype : which == 'b' ? x->btype : x->ctype;
    if (x->m == 8 && k == 4 && x->atype == T_F16) { /* four 8x8x4 products: quad pairs */
        if (which == 'a') {
            if (!x->alayout) { *r = (l & 3) + 4 * hi; *c = i; }
            else { *r = (i & 3) + 4 * hi; *c = l & 3; }
        } else if (which == 'b') {
            if (!x->blayout) { *r = l & 3; *c = i + 4 * hi; }
            else { *r = i; *c = (l & 3) + 4 * hi; }
        } else if (x->ctype == T_F16) { *r = (l & 3) + 4 * hi; *c = i; }
        else { *r = (l & 1) + (i & 2) + 4 * hi; *c = (i & 4) + (l & 2) + (i & 1); }
        return;
    }
    if (which == 'c') { /* every other shape */
        if (x->m == 8) { *r = g; *c = t * 2 + i; }
        else { *r = i < 2 ? g : g + 8; *c = t * 2 + (i & 1); }
        return;
    }
    int bits = ty == T_F64 || ty == T_TF32 ? 32 : bits_of(ty);
    int per = 32 / bits; /* elements per register: one 32-bit register's run along k */
    if (x->m == 8) { /* m8n8k4 f64, k16 8-bit, k32 4-bit, k128 1-bit: one register */
        if (which == 'a') { *r = g; *c = t * per + i; }
        else { *r = t * per + i; *c = g; }
        return;
    }
    /* m16n8: registers run along k in groups of per elements; A's rows
     * alternate g and g+8 by register, its halves of k follow */
    int reg = i / per, e = i % per;
    if (which == 'a') {
        int kregs = k / (4 * per);             /* registers along k for one row */
        *r = (reg % 2) ? g + 8 : g;
        *c = t * per + e + (reg / 2) * 4 * per;
        if (kregs == 1) { *r = reg ? g + 8 : g; *c = t * per + e; }
        return;
    }
    *r = t * per + e + reg * 4 * per;
    *c = g;
}

/* ---- products ---------------------------------------------------------------- */
union cell { double f; int64_t i; };

/* D = A * B + C for one product, into D */
static void product(const struct ir_mma *x, int M, int N, int K, const union cell *A, const union cell *B,
                    const union cell *C, union cell *D)
{
    if (x->atype == T_F64) {
        int old = fegetround();
        int mode = x->rnd == RND_RZ ? FE_TOWARDZERO : x->rnd == RND_RM ? FE_DOWNWARD : x->rnd == RND_RP ? FE_UPWARD : FE_TONEAREST;
        if (mode != old) fesetround(mode);
        for (int r = 0; r < M; r++)
            for (int c = 0; c < N; c++) {
                volatile double d = C[r * N + c].f;
                for (int k = 0; k < K; k++) d = fma(A[r * K + k].f, B[k * N + c].f, d);
                D[r * N + c].f = d;
            }
        if (mode != old) fesetround(old);
        return;
    }
    if (is_float(x->atype)) {
        for (int r = 0; r < M; r++)
            for (int c = 0; c < N; c++) {
                float d = (float)C[r * N + c].f;
                for (int k = 0; k < K; k++) d = fmaf((float)A[r * K + k].f, (float)B[k * N + c].f, d);
                D[r * N + c].f = d;
            }
        return;
    }
    for (int r = 0; r < M; r++)
        for (int c = 0; c < N; c++) {
            int64_t d = C[r * N + c].i;
            for (int k = 0; k < K; k++) {
                int64_t a = A[r * K + k].i, b = B[k * N + c].i;
                d += x->atype == T_B1 ? (x->bitop == 1 ? (a ^ b) : (a & b)) : a * b;
            }
            if (x->satfinite) d = d > INT32_MAX ? INT32_MAX : d < INT32_MIN ? INT32_MIN : d;
            D[r * N + c].i = (int32_t)(uint32_t)d;
        }
}

static union cell cell_of(uint64_t v, int t)
{
    union cell c;
    if (is_float(t)) c.f = fval(v, t);
    else c.i = ival(v, t);
    return c;
}

static uint64_t cell_bits(union cell c, int t)
{
    switch (t) {
    case T_F16: return ptx_f32_to_f16((float)c.f, RND_RN);
    case T_F32: return UF32((float)c.f);
    case T_F64: return UF64(c.f);
    default: return (uint32_t)c.i; /* s32 */
    }
}

static int whole_warp(struct blk *b, struct warp *w, const struct ir_ins *in, uint32_t m)
{
    if (m == 0xffffffffu) return 0;
    ex_fail_at(b, w, __builtin_ctz(m), in, PTX_E_SYNC, "%s needs all 32 lanes of the warp together; lanes 0x%08x run it",
               ex_name(b, in), m);
    return -1;
}

static int mma(struct blk *b, struct warp *w, const struct ir_ins *in, uint32_t m, uint64_t *R)
{
    const struct ir_mma *x = &b->P->m->mmas[in->e];
    if (whole_warp(b, w, in, m)) return -1;
    int quad = x->m == 8 && x->k == 4 && x->atype == T_F16;
    int M = x->m, N = x->n, K = x->k;
    int ea = quad ? 4 : M * K / 32, eb = quad ? 4 : K * N / 32, ec = quad ? 8 : M * N / 32;
    static _Thread_local union cell A[16 * 256], B[256 * 8], C[16 * 8], D[16 * 8];
    for (int q = 0; q < (quad ? 4 : 1); q++) {
        for (int l = 0; l < 32; l++) {
            if (quad && ((l >> 2) & 3) != q) continue;
            int r, c;
            for (int i = 0; i < ea; i++) { mma_rc(x, 'a', l, i, &r, &c); A[r * K + c] = cell_of(frag_get(R, x->a, i, x->atype, l), x->atype); }
            for (int i = 0; i < eb; i++) { mma_rc(x, 'b', l, i, &r, &c); B[r * N + c] = cell_of(frag_get(R, x->b, i, x->btype, l), x->btype); }
            for (int i = 0; i < ec; i++) { mma_rc(x, 'c', l, i, &r, &c); C[r * N + c] = cell_of(frag_get(R, x->c, i, x->ctype, l), x->ctype); }
        }
        product(x, M, N, K, A, B, C, D);
        for (int l = 0; l < 32; l++) {
            if (quad && ((l >> 2) & 3) != q) continue;
            int r, c;
            for (int i = 0; i < ec; i++) { mma_rc(x, 'c', l, i, &r, &c); frag_set(R, x->d, i, x->dtype, l, cell_bits(D[r * N + c], x->dtype)); }
        }
    }
    return 0;
}

/* ---- wmma ---------------------------------------------------------------------- */
/* the rows and columns of a wmma fragment's matrix */
static void wmma_dims(const struct ir_mma *x, int frag, int *rows, int *cols)
{
    if (frag == 'a') { *rows = x->m; *cols = x->k; }
    else if (frag == 'b') { *rows = x->k; *cols = x->n; }
    else { *rows = x->m; *cols = x->n; }
}

/* elements per lane of a fragment of nregs registers of type t */
static int wmma_elems(int nregs, int t)
{
    int bits = bits_of(t);
    return bits >= 32 ? nregs : nregs * (32 / bits);
}

static int wmma_ldst(struct blk *b, struct warp *w, const struct ir_ins *in, uint32_t m, uint64_t *R)
{
    const struct ir_mma *x = &b->P->m->mmas[in->e];
    if (whole_warp(b, w, in, m)) return -1;
    int rows, cols, t = x->atype, ld = x->kind == MX_WMMA_LOAD;
    wmma_dims(x, x->frag, &rows, &cols);
    int E = wmma_elems(x->nd, t), bits = bits_of(t);
    const uint64_t *A = R + (size_t)in->a * 32;
    for (int l = 0; l < 32; l++) {
        uint64_t stride = x->stride >= 0 ? (uint32_t)R[(size_t)x->stride * 32 + l] : (uint64_t)(x->alayout ? rows : cols);
        for (int i = 0; i < E; i++) {
            int idx = (l * E + i) % (rows * cols), r = idx / cols, c = idx % cols;
            uint64_t el = x->alayout ? (uint64_t)c * stride + (uint64_t)r : (uint64_t)r * stride + (uint64_t)c;
            uint64_t bit = el * (uint64_t)bits, a = A[l] + (uint64_t)in->imm + bit / 8;
            unsigned n = bits >= 8 ? (unsigned)bits / 8 : 1;
            unsigned char *p = ex_addr(b, in->space, a, n, (unsigned)(w->id * 32 + l));
            if ((bits >= 8 && a % n) || !p) { ex_mem_fault(b, w, l, in, a, n, p != NULL); return -1; }
            if (ld) {
                uint64_t v = 0;
                memcpy(&v, p, n);
                if (bits < 8) v = (v >> (bit % 8)) & ((1u << bits) - 1);
                frag_set(R, x->d, i, t, l, v);
            } else {
                uint64_t v = frag_get(R, x->d, i, t, l);
                memcpy(p, &v, n); /* stores are of f16, f32, f64, s32: whole bytes */
            }
        }
    }
    return 0;
}

static int wmma_mma(struct blk *b, struct warp *w, const struct ir_ins *in, uint32_t m, uint64_t *R)
{
    const struct ir_mma *x = &b->P->m->mmas[in->e];
    if (whole_warp(b, w, in, m)) return -1;
    int M = x->m, N = x->n, K = x->k;
    static _Thread_local union cell A[16 * 128], B[128 * 32], C[32 * 32], D[32 * 32];
    static const struct { char f; } f[3] = { { 'a' }, { 'b' }, { 'c' } };
    for (int q = 0; q < 3; q++) {
        int rows, cols, t = q == 0 ? x->atype : q == 1 ? x->btype : x->ctype;
        const int32_t *slots = q == 0 ? x->a : q == 1 ? x->b : x->c;
        int nregs = q == 0 ? x->na : q == 1 ? x->nb : x->nc;
        union cell *dst = q == 0 ? A : q == 1 ? B : C;
        wmma_dims(x, f[q].f, &rows, &cols);
        int E = wmma_elems(nregs, t);
        for (int l = 31; l >= 0; l--) /* lower lanes last: the first holder of an element wins */
            for (int i = E - 1; i >= 0; i--)
                dst[(l * E + i) % (rows * cols)] = cell_of(frag_get(R, slots, i, t, l), t);
    }
    product(x, M, N, K, A, B, C, D);
    int E = wmma_elems(x->nd, x->dtype);
    for (int l = 0; l < 32; l++)
        for (int i = 0; i < E; i++) frag_set(R, x->d, i, x->dtype, l, cell_bits(D[(l * E + i) % (M * N)], x->dtype));
    return 0;
}

/* ---- ldmatrix, stmatrix, movmatrix: 8x8 matrices of 16-bit elements ----------- */
/* lane t holds row t / 4, columns 2 (t % 4) and 2 (t % 4) + 1 (or the
 * transpose's); the rows' addresses come from lanes 8 j .. 8 j + 7 */
static int ldst_matrix(struct blk *b, struct warp *w, const struct ir_ins *in, uint32_t m, uint64_t *R)
{
    const struct ir_mma *x = &b->P->m->mmas[in->e];
    if (whole_warp(b, w, in, m)) return -1;
    const uint64_t *A = R + (size_t)in->a * 32;
    int ld = x->kind == MX_LDMATRIX;
    for (int j = 0; j < x->num; j++) {
        uint16_t M[8][8];
        unsigned char *row[8];
        for (int r = 0; r < 8; r++) {
            int l = 8 * j + r;
            uint64_t a = A[l] + (uint64_t)in->imm;
            unsigned char *p = ex_addr(b, in->space == SP_GENERIC ? SP_GENERIC : SP_SHARED, a, 16, (unsigned)(w->id * 32 + l));
            if (a % 16 || !p) { ex_mem_fault(b, w, l, in, a, 16, p != NULL); return -1; }
            row[r] = p;
            if (ld) memcpy(M[r], p, 16);
        }
        for (int t = 0; t < 32; t++) {
            int r0 = t / 4, c0 = 2 * (t % 4);
            if (ld) {
                uint32_t v = x->trans ? (uint32_t)M[c0][r0] | (uint32_t)M[c0 + 1][r0] << 16
                                      : (uint32_t)M[r0][c0] | (uint32_t)M[r0][c0 + 1] << 16;
                if (x->d[j] >= 0) R[(size_t)x->d[j] * 32 + t] = v;
            } else {
                uint32_t v = (uint32_t)R[(size_t)x->d[j] * 32 + t];
                if (x->trans) { M[c0][r0] = (uint16_t)v; M[c0 + 1][r0] = (uint16_t)(v >> 16); }
                else { M[r0][c0] = (uint16_t)v; M[r0][c0 + 1] = (uint16_t)(v >> 16); }
            }
        }
        if (!ld)
            for (int r = 0; r < 8; r++) memcpy(row[r], M[r], 16);
    }
    return 0;
}

static int movmatrix(struct blk *b, struct warp *w, const struct ir_ins *in, uint32_t m, uint64_t *R)
{
    const struct ir_mma *x = &b->P->m->mmas[in->e];
    if (whole_warp(b, w, in, m)) return -1;
    uint16_t M[8][8];
    for (int t = 0; t < 32; t++) {
        uint32_t v = (uint32_t)R[(size_t)x->a[0] * 32 + t];
        M[t / 4][2 * (t % 4)] = (uint16_t)v;
        M[t / 4][2 * (t % 4) + 1] = (uint16_t)(v >> 16);
    }
    for (int t = 0; t < 32; t++) {
        int r0 = t / 4, c0 = 2 * (t % 4);
        if (x->d[0] >= 0) R[(size_t)x->d[0] * 32 + t] = (uint32_t)M[c0][r0] | (uint32_t)M[c0 + 1][r0] << 16;
    }
    return 0;
}

ex_fn ex_mma_select(const struct ptx_module *m, const struct ir_ins *in)
{
    if (in->op != OP_MMA) return NULL;
    switch (m->mmas[in->e].kind) {
    case MX_MMA: return mma;
    case MX_WMMA_MMA: return wmma_mma;
    case MX_WMMA_LOAD: case MX_WMMA_STORE: return wmma_ldst;
    case MX_LDMATRIX: case MX_STMATRIX: return ldst_matrix;
    default: return movmatrix;
    }
}
