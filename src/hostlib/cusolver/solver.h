/* SPDX-License-Identifier: Apache-2.0 */
/* cuSOLVER's dense API on the host: what its files share.
 *
 *   handle.c   handles, streams, versions, the 64-bit API's params
 *   call.c     a call's handle, operands, workspace, the info of a bad
 *              argument, the queueing on the handle's stream
 *   lapack.c   the computations (LAPACK and CBLAS through OpenBLAS, for
 *              the four types) and the workspace each needs
 *   dense.c    the legacy (32-bit) entry points, S/D/C/Z
 *   generic.c  the 64-bit generic API (cusolverDnX*)
 *
 * Every entry point checks its handle and arguments in the order of the
 * call (a bad one is CUSOLVER_STATUS_INVALID_VALUE, and -i, i the
 * argument's position not counting the handle, is written to the device
 * info when that is valid device memory), validates and holds every
 * device operand, then queues one job on the handle's stream that calls
 * LAPACK on the emulated device memory and writes the info LAPACK gave. */
#ifndef TD_HOSTLIB_SOLVER_H
#define TD_HOSTLIB_SOLVER_H

#include "cusolver_api.h"
#include "hostlib.h"

#define DN_KIND 1      /* cusolverDnHandle_t, in hostlib's handle registry */
#define PARAMS_KIND 2  /* cusolverDnParams_t */

struct cusolverDnContext {
    CUstream stream;
    cusolverDeterministicMode_t deterministic;  /* kept: LAPACK is deterministic */
    cusolverMathMode_t math;                    /* kept: LAPACK computes in the type's precision */
};
struct cusolverDnParams {
    cusolverAlgMode_t getrf_alg, potrf_alg, syevbatched_alg;
};

/* the four types */
enum st { ST_S, ST_D, ST_C, ST_Z };
extern const size_t st_size[4];   /* bytes of one element (lapack.c) */
extern const size_t st_rsize[4];  /* bytes of its real part */

/* the operations */
enum sv_op { OP_INFO, OP_POTRF, OP_POTRS, OP_POTRI, OP_GETRF, OP_GETRS, OP_GEQRF, OP_ORMQR, OP_ORGQR, OP_SYEVD,
             OP_GESVD };

/* One call: its arguments (already checked) and the job that runs it. */
struct sv_job {
    struct hl_job base;
    enum sv_op op;
    enum st t;
    int m, n, k, nrhs, lda, ldb, ldu, ldvt;
    int lw, lrw, liw;   /* LAPACK's work, rwork, iwork, carved from work (sv_lwork) */
    char uplo, trans, side, jobz, jobu, jobvt;
    void *A, *B, *tau, *W, *U, *VT, *work, *rwork;
    int *ipiv;          /* LAPACK's pivots (NULL: no pivoting) */
    int64_t *ipiv64;    /* the 64-bit API's pivots, copied from ipiv (getrf) or read (getrs) */
    int ipiv_arg;       /* the pivots' argument position (a bad pivot: info -ipiv_arg) */
    int *info;          /* device */
    int info_value;     /* OP_INFO: what it writes */
};

/* ---- dense.c: one call of either API ---- */
/* the arguments a call can have */
struct sv_args {
    cublasFillMode_t uplo;
    cublasOperation_t trans;
    cublasSideMode_t side;
    cusolverEigMode_t jobz;
    int jobu, jobvt;
    int64_t m, n, k, nrhs, lda, ldb, ldu, ldvt;
    int64_t lwork;      /* elements of the type */
    int no_lwork;       /* getrf: the call gives no size (the workspace must hold bufferSize's) */
    const void *A, *B, *tau, *W, *U, *VT, *work, *rwork;  /* B: ormqr's C; W: gesvd's S */
    int *ipiv;
    int64_t *ipiv64;
    int *info;
};
/* where each argument is in a call, not counting the handle (the info
 * of a bad one is minus that) */
enum { P_UPLO, P_TRANS, P_SIDE, P_JOBZ, P_JOBU, P_JOBVT, P_M, P_N, P_K, P_NRHS, P_A, P_LDA, P_B, P_LDB, P_TAU,
       P_W, P_U, P_LDU, P_VT, P_LDVT, P_WORK, P_LWORK, P_RWORK, P_IPIV, P__COUNT };
/* Checks the handle and the call (pos: each argument's position), then
 * size NULL: validates and holds the device operands and the workspace
 * and queues the job; size set: *size is the workspace the call needs, in
 * elements of t, and nothing is queued. Sizes beyond int (the 64-bit API)
 * are CUSOLVER_STATUS_NOT_SUPPORTED. */
cusolverStatus_t sv_call(cusolverDnHandle_t h, enum sv_op op, enum st t, const struct sv_args *a,
                         const signed char *pos, int64_t *size);

/* ---- call.c ---- */
/* CUSOLVER_STATUS_NOT_INITIALIZED unless h is a live handle */
cusolverStatus_t sv_handle(cusolverDnHandle_t h);
/* a new job of operation op, type t, or NULL */
struct sv_job *sv_job(enum sv_op op, enum st t);
/* Holds [p, p + bytes) for the job; bytes < 0 (an overflowed extent) or
 * memory the emulator does not have is -1; bytes 0 holds nothing. */
int sv_hold(struct sv_job *j, const void *p, int64_t bytes);
/* a column-major rows x cols matrix of type t with leading dimension ld */
int sv_hold_mat(struct sv_job *j, const void *p, int64_t rows, int64_t cols, int64_t ld);
/* Argument number arg is bad: frees j (may be NULL), queues -arg into the
 * device info when info is valid device memory, and returns
 * CUSOLVER_STATUS_INVALID_VALUE. */
cusolverStatus_t sv_bad(cusolverDnHandle_t h, struct sv_job *j, int *info, int arg);
/* Holds the info and queues j on the handle's stream (an invalid info:
 * CUSOLVER_STATUS_INVALID_VALUE, j freed). */
cusolverStatus_t sv_submit(cusolverDnHandle_t h, struct sv_job *j, int *info);
/* LAPACK's characters for cuBLAS's enums; 0 for an invalid value */
char sv_uplo(cublasFillMode_t f);
char sv_side(cublasSideMode_t s);
/* ormqr's (all 0): N, and T for the real types, C for the complex ones;
 * getrs's (all 1): N, T, and C (T for the real types); 0 otherwise */
char sv_trans(cublasOperation_t op, enum st t, int all);

/* ---- lapack.c ---- */
/* The workspace (elements of the type) the job's operation uses, at
 * least 1, from the job's checked arguments (sizes, uplo, trans, side,
 * jobz); sets j->lw, lrw, liw. -1 if it is too large for int. */
int64_t sv_lwork(struct sv_job *j);
/* runs the job (the stream's worker) */
void sv_run(struct hl_job *base);

#endif
