/* SPDX-License-Identifier: Apache-2.0 */
/* What every cuSOLVER entry point does around its computation: the handle,
 * operand validation, the info of a bad argument, the queueing on the
 * handle's stream, and cuBLAS's enums as LAPACK's characters. */
#include "solver.h"

cusolverStatus_t sv_handle(cusolverDnHandle_t h)
{
    return hl_handle_live(h, DN_KIND) ? CUSOLVER_STATUS_SUCCESS : CUSOLVER_STATUS_NOT_INITIALIZED;
}

struct sv_job *sv_job(enum sv_op op, enum st t)
{
    struct sv_job *j = hl_job_new(sizeof *j, sv_run);
    if (j) {
        j->op = op;
        j->t = t;
    }
    return j;
}

int sv_hold(struct sv_job *j, const void *p, int64_t bytes)
{
    if (bytes < 0)
        return -1;
    if (bytes == 0)
        return 0;
    return hl_job_hold(&j->base, p, (size_t)bytes);
}

int sv_hold_mat(struct sv_job *j, const void *p, int64_t rows, int64_t cols, int64_t ld)
{
    return sv_hold(j, p, hl_mat_bytes(rows, cols, ld, st_size[j->t]));
}

static cusolverStatus_t submit(cusolverDnHandle_t h, struct sv_job *j)
{
    /* the dense factorisations and solves here write only device memory
     * (info included) and never wait: a graph being captured records them */
    j->base.capture = "cuSOLVER";
    switch (hl_job_submit(&j->base, h->stream, 0)) {
    case HL_SUBMITTED:
        return CUSOLVER_STATUS_SUCCESS;
    case HL_CAPTURING:
        return CUSOLVER_STATUS_NOT_SUPPORTED;   /* not expected: it never waits */
    case HL_SUBMIT_FAILED:
        break;
    }
    return CUSOLVER_STATUS_EXECUTION_FAILED;
}

cusolverStatus_t sv_bad(cusolverDnHandle_t h, struct sv_job *j, int *info, int arg)
{
    if (j)
        hl_job_free(&j->base);
    struct sv_job *w = sv_job(OP_INFO, ST_S);
    if (!w)
        return CUSOLVER_STATUS_INVALID_VALUE;
    w->info_value = -arg;
    if (!info || sv_hold(w, info, sizeof(int))) {
        hl_job_free(&w->base);
        return CUSOLVER_STATUS_INVALID_VALUE;
    }
    w->info = info;
    (void)submit(h, w);
    return CUSOLVER_STATUS_INVALID_VALUE;
}

cusolverStatus_t sv_submit(cusolverDnHandle_t h, struct sv_job *j, int *info)
{
    if (!info || sv_hold(j, info, sizeof(int))) {
        hl_job_free(&j->base);
        return CUSOLVER_STATUS_INVALID_VALUE; /* (nowhere to write an info) */
    }
    j->info = info;
    /* what runs it, for tdtrace -e lib= (on the caller's thread) */
    static const char *const ran[] = {
        [OP_INFO] = "the info of a bad argument", [OP_POTRF] = "OpenBLAS LAPACK potrf",
        [OP_POTRS] = "OpenBLAS LAPACK potrs", [OP_POTRI] = "OpenBLAS LAPACK potri",
        [OP_GETRF] = "OpenBLAS LAPACK getrf", [OP_GETRS] = "OpenBLAS swap and trsm (getrs)",
        [OP_GEQRF] = "OpenBLAS LAPACK geqrf", [OP_ORMQR] = "OpenBLAS LAPACK ormqr/unmqr",
        [OP_ORGQR] = "OpenBLAS LAPACK orgqr/ungqr", [OP_SYEVD] = "OpenBLAS LAPACK syevd/heevd",
        [OP_GESVD] = "OpenBLAS LAPACK gesvd",
    };
    hl_note(j->op == OP_GETRF && !j->ipiv ? "OpenBLAS ger (LU without pivoting)" : ran[j->op]);
    return submit(h, j);
}

char sv_uplo(cublasFillMode_t f)
{
    return f == CUBLAS_FILL_MODE_LOWER ? 'L' : f == CUBLAS_FILL_MODE_UPPER ? 'U' : 0;
}

char sv_side(cublasSideMode_t s)
{
    return s == CUBLAS_SIDE_LEFT ? 'L' : s == CUBLAS_SIDE_RIGHT ? 'R' : 0;
}

char sv_trans(cublasOperation_t op, enum st t, int all)
{
    int cplx = t == ST_C || t == ST_Z;
    if (op == CUBLAS_OP_N)
        return 'N';
    if (op == CUBLAS_OP_T)
        return !cplx || all ? 'T' : 0;
    if (op == CUBLAS_OP_C)
        return cplx ? 'C' : all ? 'T' : 0;
    return 0;
}
