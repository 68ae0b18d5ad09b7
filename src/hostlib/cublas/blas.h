/* SPDX-License-Identifier: Apache-2.0 */
/* cuBLAS on the host: what the family files (handle.c, level1.c, level2.c,
 * level3.c, gemmex.c, copies.c) share.
 *
 * Every entry point is one line that passes its type (enum bt) to a
 * type-generic function: that function checks the handle and the
 * arguments in cuBLAS's order, validates and holds each device operand
 * (src/hostlib/common), and queues a job whose run function calls the host
 * BLAS (CBLAS: OpenBLAS) for that type. */
#ifndef TD_HOSTLIB_BLAS_H
#define TD_HOSTLIB_BLAS_H

#include <cblas.h>
#include <string.h>

#include "cublas_api.h"
#include "hostlib.h"

#define HANDLE_KIND 1     /* cublasHandle_t, in hostlib's handle registry */
#define XT_HANDLE_KIND 2  /* cublasXtHandle_t (xt.c) */

struct cublasContext {
    CUstream stream;
    cublasPointerMode_t pointer_mode;
    cublasAtomicsMode_t atomics_mode;
    cublasMath_t math_mode;
    cublasEmulationStrategy_t emulation;
    int sm_count;
    int env_mode;   /* cublasSetEnvironmentMode: kept, changes nothing here */
    void *workspace;
    size_t workspace_size;
};

/* the four BLAS types */
enum bt { BT_S, BT_D, BT_C, BT_Z };
extern const size_t bt_size[4];   /* bytes of one element */
extern const size_t bt_rsize[4];  /* bytes of its real part */

/* Checks the handle: CUBLAS_STATUS_NOT_INITIALIZED for anything that is
 * not a live handle. */
cublasStatus_t blas_handle(cublasHandle_t h);

/* A scalar argument: copied at the call in host pointer mode, read when
 * the job runs (held) in device pointer mode. */
struct scal {
    const void *dev;
    _Alignas(16) unsigned char v[16];
};
/* 0, or -1 for a NULL or invalid pointer */
int scal_take(struct hl_job *j, cublasHandle_t h, const void *p, size_t size, struct scal *s);
static inline const void *scal_val(const struct scal *s)
{
    return s->dev ? s->dev : s->v;
}
/* is the scalar zero (both parts)? (its value now: host pointer mode) */
int scal_is_zero(const struct scal *s, enum bt t);

/* A result written by the job: to host memory (the call waits) in host
 * pointer mode, to held device memory otherwise. 0 or -1. */
int result_take(struct hl_job *j, cublasHandle_t h, void *p, size_t size, int *wait);

/* Holds an operand for the job; -1 if it is not valid device memory.
 * A negative size (an extent that overflowed) is invalid too. */
int blas_hold(struct hl_job *j, const void *p, int64_t bytes);

/* Queues j on the handle's stream (wait: the call returns once it ran). */
cublasStatus_t blas_submit(cublasHandle_t h, struct hl_job *j, int wait);

/* cuBLAS arguments to CBLAS's */
int op_ok(cublasOperation_t op);       /* N, T or C */
int fill_ok(cublasFillMode_t f);        /* LOWER or UPPER */
int side_ok(cublasSideMode_t s);
int diag_ok(cublasDiagType_t d);
enum CBLAS_TRANSPOSE cb_op(cublasOperation_t op, enum bt t);
enum CBLAS_UPLO cb_uplo(cublasFillMode_t f);
enum CBLAS_SIDE cb_side(cublasSideMode_t s);
enum CBLAS_DIAG cb_diag(cublasDiagType_t d);

/* CBLAS takes int sizes: cuBLAS's 64-bit forms beyond that are refused
 * (CUBLAS_STATUS_NOT_SUPPORTED) rather than truncated */
int fits(int64_t v);

/* element access for loops: complex (and real) values as (re, im) doubles */
void blas_ld(enum bt t, const void *p, size_t i, double *re, double *im);
void blas_st(enum bt t, void *p, size_t i, double re, double im);

/* The pointer arrays of a batched call (device memory a kernel queued just
 * before may write), read once the stream has reached the call, each of
 * the n arrays held and every pointer in array k validated and held for
 * bytes[k]. *out: n * batch pointers, array k's from out[k * batch]
 * (malloc'ed, also on error once set: the caller frees it). */
cublasStatus_t blas_read_arrays(struct hl_job *j, cublasHandle_t h, int n, const void *const *const arrays[],
                                const int64_t bytes[], int64_t batch, void ***out);

/* level 3 (level3.c): the operations, and a call's arguments */
enum l3op { SYMM, HEMM, SYRK, HERK, SYR2K, HER2K, SYRKX, HERKX, TRMM, TRSM, GEAM, DGMM, GEMM };
struct l3args {
    cublasOperation_t ta, tb;
    cublasSideMode_t side;
    cublasFillMode_t uplo;
    cublasDiagType_t diag;
    int64_t m, n, k, lda, ldb, ldc, incx;
    const void *alpha, *beta, *A, *B;  /* alpha, beta: host values */
    void *C;
};
/* Checks a call as cuBLAS does and computes it now, on the calling thread,
 * on memory the caller has checked (cuBLAS-XT: xt.c); a NULL operand the
 * call reads is CUBLAS_STATUS_INVALID_VALUE. */
cublasStatus_t blas_l3_now(enum bt t, enum l3op op, const struct l3args *a);

/* one gemv and one trsm of type t (level2.c, level3.c; batched.c too) */
void blas_gemv(enum bt t, enum CBLAS_TRANSPOSE tr, int m, int n, const void *a, const void *A, int lda, const void *x,
               int incx, const void *b, void *y, int incy);
void blas_trsm(enum bt t, cublasSideMode_t side, cublasFillMode_t uplo, cublasOperation_t trans,
               cublasDiagType_t diag, int m, int n, const void *a, const void *A, int lda, void *B, int ldb);

/* GemmEx and its batched forms (gemmex.c); level3.c's Sgemm comes here
 * too when the handle's math mode asks for TF32 */
struct gex {
    cublasOperation_t ta, tb;
    int64_t m, n, k, lda, ldb, ldc, batch;
    long long sa, sb, sc;
    const void *alpha, *beta, *A, *B;
    void *C;
    const void *const *pa, *const *pb;   /* batched: device arrays of pointers */
    void *const *pc;
    int batched;                         /* 0: one; 1: pointer arrays; 2: strided */
    cudaDataType at, bt, ct;
    cublasComputeType_t compute;
};
cublasStatus_t blas_gemm_ex(cublasHandle_t h, const struct gex *g);

/* the legacy API's last error (stubs record CUBLAS_STATUS_NOT_SUPPORTED) */
void hl_cublas_legacy(void);

#endif
