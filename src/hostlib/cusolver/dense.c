/* SPDX-License-Identifier: Apache-2.0 */
/* One dense call, of the legacy or the 64-bit API, or its bufferSize
 * query: its arguments checked in cuSOLVER's order, its device operands
 * validated and held, its workspace measured, its job queued. */
#include "solver.h"

#include <limits.h>
#include <stdlib.h>

static int64_t max1(int64_t v)
{
    return v > 1 ? v : 1;
}

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

static void free_piv(struct hl_job *base)
{
    free(((struct sv_job *)base)->ipiv);
}

/* the checks of one call; arg: the position of the first bad argument */
static int check(const struct sv_args *a, const signed char *pos, struct sv_job *j, int sizing, int *arg)
{
    enum st t = j->t;
    size_t rs = st_rsize[t];
    int64_t m = a->m, n = a->n, k = a->k, mn = min64(m, n);
#define BAD(p) do { *arg = pos[p]; return -1; } while (0)
#define NEED(c, p) do { if (!(c)) BAD(p); } while (0)
    /* pointers: only when the call computes (bufferSize reads none) */
#define HOLD(c, p) do { if (!sizing && !(c)) BAD(p); } while (0)
    switch (j->op) {
    case OP_POTRF:
    case OP_POTRI:
        NEED(j->uplo = sv_uplo(a->uplo), P_UPLO);
        NEED(n >= 0, P_N);
        NEED(a->lda >= max1(n), P_LDA);
        HOLD(!sv_hold_mat(j, a->A, n, n, a->lda), P_A);
        break;
    case OP_POTRS:
        NEED(j->uplo = sv_uplo(a->uplo), P_UPLO);
        NEED(n >= 0, P_N);
        NEED(a->nrhs >= 0, P_NRHS);
        NEED(a->lda >= max1(n), P_LDA);
        NEED(a->ldb >= max1(n), P_LDB);
        HOLD(!sv_hold_mat(j, a->A, n, n, a->lda), P_A);
        HOLD(!sv_hold_mat(j, a->B, n, a->nrhs, a->ldb), P_B);
        break;
    case OP_GETRF:
        NEED(m >= 0, P_M);
        NEED(n >= 0, P_N);
        NEED(a->lda >= max1(m), P_LDA);
        HOLD(!sv_hold_mat(j, a->A, m, n, a->lda), P_A);
        if (a->ipiv)
            HOLD(!sv_hold(j, a->ipiv, mn * (int64_t)sizeof(int)), P_IPIV);
        if (a->ipiv64)
            HOLD(!sv_hold(j, a->ipiv64, mn * (int64_t)sizeof(int64_t)), P_IPIV);
        break;
    case OP_GETRS:
        NEED(j->trans = sv_trans(a->trans, t, 1), P_TRANS);
        NEED(n >= 0, P_N);
        NEED(a->nrhs >= 0, P_NRHS);
        NEED(a->lda >= max1(n), P_LDA);
        NEED(a->ldb >= max1(n), P_LDB);
        HOLD(!sv_hold_mat(j, a->A, n, n, a->lda), P_A);
        if (a->ipiv)
            HOLD(!sv_hold(j, a->ipiv, n * (int64_t)sizeof(int)), P_IPIV);
        if (a->ipiv64)
            HOLD(!sv_hold(j, a->ipiv64, n * (int64_t)sizeof(int64_t)), P_IPIV);
        HOLD(!sv_hold_mat(j, a->B, n, a->nrhs, a->ldb), P_B);
        break;
    case OP_GEQRF:
        NEED(m >= 0, P_M);
        NEED(n >= 0, P_N);
        NEED(a->lda >= max1(m), P_LDA);
        HOLD(!sv_hold_mat(j, a->A, m, n, a->lda), P_A);
        HOLD(!sv_hold(j, a->tau, mn * (int64_t)st_size[t]), P_TAU);
        break;
    case OP_ORMQR: {
        NEED(j->side = sv_side(a->side), P_SIDE);
        NEED(j->trans = sv_trans(a->trans, t, 0), P_TRANS);
        NEED(m >= 0, P_M);
        NEED(n >= 0, P_N);
        int64_t nq = j->side == 'L' ? m : n;
        NEED(k >= 0 && k <= nq, P_K);
        NEED(a->lda >= max1(nq), P_LDA);
        NEED(a->ldb >= max1(m), P_LDB);
        HOLD(!sv_hold_mat(j, a->A, nq, k, a->lda), P_A);
        HOLD(!sv_hold(j, a->tau, k * (int64_t)st_size[t]), P_TAU);
        HOLD(!sv_hold_mat(j, a->B, m, n, a->ldb), P_B);
        break;
    }
    case OP_ORGQR:
        NEED(m >= 0, P_M);
        NEED(n >= 0 && n <= m, P_N);
        NEED(k >= 0 && k <= n, P_K);
        NEED(a->lda >= max1(m), P_LDA);
        HOLD(!sv_hold_mat(j, a->A, m, n, a->lda), P_A);
        HOLD(!sv_hold(j, a->tau, k * (int64_t)st_size[t]), P_TAU);
        break;
    case OP_SYEVD:
        NEED(a->jobz == CUSOLVER_EIG_MODE_NOVECTOR || a->jobz == CUSOLVER_EIG_MODE_VECTOR, P_JOBZ);
        j->jobz = a->jobz == CUSOLVER_EIG_MODE_VECTOR ? 'V' : 'N';
        NEED(j->uplo = sv_uplo(a->uplo), P_UPLO);
        NEED(n >= 0, P_N);
        NEED(a->lda >= max1(n), P_LDA);
        HOLD(!sv_hold_mat(j, a->A, n, n, a->lda), P_A);
        HOLD(!sv_hold(j, a->W, n * (int64_t)rs), P_W);
        break;
    case OP_GESVD: {
        int ju = a->jobu, jv = a->jobvt;
        NEED(ju == 'A' || ju == 'S' || ju == 'O' || ju == 'N', P_JOBU);
        NEED((jv == 'A' || jv == 'S' || jv == 'O' || jv == 'N') && !(ju == 'O' && jv == 'O'), P_JOBVT);
        j->jobu = (char)ju;
        j->jobvt = (char)jv;
        NEED(m >= 0, P_M);
        NEED(n >= 0 && n <= m, P_N); /* cuSOLVER's gesvd: m >= n only */
        NEED(a->lda >= max1(m), P_LDA);
        NEED(a->ldu >= 1 && (!(ju == 'A' || ju == 'S') || a->ldu >= m), P_LDU);
        NEED(a->ldvt >= 1 && (!(jv == 'A' || jv == 'S') || a->ldvt >= (jv == 'A' ? n : mn)), P_LDVT);
        HOLD(!sv_hold_mat(j, a->A, m, n, a->lda), P_A);
        HOLD(!sv_hold(j, a->W, mn * (int64_t)rs), P_W);
        if (ju == 'A' || ju == 'S')
            HOLD(!sv_hold_mat(j, a->U, m, ju == 'A' ? m : mn, a->ldu), P_U);
        if (jv == 'A' || jv == 'S')
            HOLD(!sv_hold_mat(j, a->VT, jv == 'A' ? n : mn, n, a->ldvt), P_VT);
        if (a->rwork && mn > 1)
            HOLD(!sv_hold(j, a->rwork, (mn - 1) * (int64_t)rs), P_RWORK);
        break;
    }
    case OP_INFO:
        break;
    }
    return 0;
#undef BAD
#undef NEED
#undef HOLD
}

static int fits(int64_t v)
{
    return v >= INT_MIN && v <= INT_MAX;
}

cusolverStatus_t sv_call(cusolverDnHandle_t h, enum sv_op op, enum st t, const struct sv_args *a,
                         const signed char *pos, int64_t *size)
{
    cusolverStatus_t r = sv_handle(h);
    if (r)
        return r;
    int sizing = size != NULL;
    /* LAPACK takes int: the 64-bit API's larger sizes are refused, not truncated */
    if (!fits(a->m) || !fits(a->n) || !fits(a->k) || !fits(a->nrhs) || !fits(a->lda) || !fits(a->ldb) ||
        !fits(a->ldu) || !fits(a->ldvt))
        return CUSOLVER_STATUS_NOT_SUPPORTED;
    struct sv_job *j = sv_job(op, t);
    if (!j)
        return CUSOLVER_STATUS_ALLOC_FAILED;
    int arg = 0;
    if (check(a, pos, j, sizing, &arg))
        return sizing ? sv_bad(h, j, NULL, arg) : sv_bad(h, j, a->info, arg);
    j->m = (int)a->m;
    j->n = (int)a->n;
    j->k = (int)a->k;
    j->nrhs = (int)a->nrhs;
    j->lda = (int)a->lda;
    j->ldb = (int)a->ldb;
    j->ldu = (int)a->ldu;
    j->ldvt = (int)a->ldvt;
    j->A = (void *)a->A;
    j->B = (void *)a->B;
    j->tau = (void *)a->tau;
    j->W = (void *)a->W;
    j->U = (void *)a->U;
    j->VT = (void *)a->VT;
    j->rwork = (void *)a->rwork;
    j->ipiv = a->ipiv;
    j->ipiv64 = a->ipiv64;
    j->ipiv_arg = pos[P_IPIV];
    int64_t need = sv_lwork(j);
    if (need < 0) {
        hl_job_free(&j->base);
        return CUSOLVER_STATUS_NOT_SUPPORTED;
    }
    if (sizing) {
        hl_job_free(&j->base);
        *size = need;
        return CUSOLVER_STATUS_SUCCESS;
    }
    /* the workspace: LAPACK's is carved from it (potrs and getrs take none) */
    if (op != OP_POTRS && op != OP_GETRS) {
        int64_t lwork = a->no_lwork ? need : a->lwork; /* getrf: no size given */
        if (lwork < need)
            return sv_bad(h, j, a->info, pos[P_LWORK]);
        if (sv_hold(j, a->work, lwork * (int64_t)st_size[t]))
            return sv_bad(h, j, a->info, pos[P_WORK]);
        j->work = (void *)a->work;
    }
    /* the 64-bit API's pivots: LAPACK's 32-bit ones first, then widened */
    if (op == OP_GETRF && a->ipiv64) {
        j->ipiv = malloc((size_t)(j->m < j->n ? j->m : j->n) * sizeof(int) + 1);
        if (!j->ipiv) {
            hl_job_free(&j->base);
            return CUSOLVER_STATUS_ALLOC_FAILED;
        }
        j->base.fini = free_piv;
    }
    return sv_submit(h, j, a->info);
}
