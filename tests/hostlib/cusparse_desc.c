/* SPDX-License-Identifier: Apache-2.0 */
/* cuSPARSE's descriptor functions need no GPU: one sequence of calls, good
 * and bad, through dlopen on the library named by argv[1], printing each
 * status. tests/hostlib/run.sh runs it on NVIDIA's libcusparse.so.12 and on
 * the host one; the outputs must be equal. (Left out: what differs on
 * purpose, docs/hostlib.md: a diagonal type outside the enum, which
 * NVIDIA's accepts; csrilu02/csric02 infos, which NVIDIA's allocates on the
 * GPU.) */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>

typedef int (*fn)();
typedef const char *(*sfn)(int);

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    void *l = argc > 1 ? dlopen(argv[1], RTLD_NOW | RTLD_LOCAL) : NULL;
    if (!l) {
        printf("dlopen: %s\n", argc > 1 ? dlerror() : "no library named");
        return 1;
    }
#define F(n) fn n = (fn)(uintptr_t)dlsym(l, #n); if (!n) { printf("no %s\n", #n); return 1; }
    F(cusparseCreateMatDescr) F(cusparseDestroyMatDescr) F(cusparseSetMatType) F(cusparseCreateCsr)
    F(cusparseDestroySpMat) F(cusparseCreateDnVec) F(cusparseDestroyDnVec) F(cusparseCreateDnMat)
    F(cusparseSpMatSetAttribute) F(cusparseSpMatGetAttribute) F(cusparseCreateSpVec) F(cusparseCreateCoo)
    F(cusparseSetMatIndexBase) F(cusparseGetMatType) F(cusparseGetMatIndexBase) F(cusparseSpSV_createDescr)
    F(cusparseSpSV_destroyDescr) F(cusparseSpMatGetSize) F(cusparseCsrSetPointers) F(cusparseDnVecSetValues)
    F(cusparseSetMatFillMode) F(cusparseSetMatDiagType) F(cusparseGetMatFillMode) F(cusparseGetMatDiagType)
    F(cusparseCreateCsc) F(cusparseDestroyDnMat) F(cusparseDestroySpVec) F(cusparseGetProperty)
    sfn name = (sfn)(uintptr_t)dlsym(l, "cusparseGetErrorName"), text = (sfn)(uintptr_t)dlsym(l, "cusparseGetErrorString");
    if (!name || !text) {
        printf("no status names\n");
        return 1;
    }
    void *d = 0, *a = 0;
    char buf[64];
    void *p = buf;
    int v = -1;
    int64_t r, c, z;
    printf("CreateMatDescr %d\n", cusparseCreateMatDescr(&d));
    printf("defaults %d %d %d %d\n", cusparseGetMatType(d), cusparseGetMatFillMode(d), cusparseGetMatDiagType(d),
           cusparseGetMatIndexBase(d));
    printf("SetMatType 3 %d, 4 %d\n", cusparseSetMatType(d, 3), cusparseSetMatType(d, 4));
    printf("SetMatIndexBase 1 %d, 2 %d\n", cusparseSetMatIndexBase(d, 1), cusparseSetMatIndexBase(d, 2));
    printf("SetMatFillMode 1 %d, 2 %d\n", cusparseSetMatFillMode(d, 1), cusparseSetMatFillMode(d, 2));
    printf("SetMatDiagType 1 %d, 2 %d\n", cusparseSetMatDiagType(d, 1), cusparseSetMatDiagType(d, 2));
    printf("after %d %d %d %d\n", cusparseGetMatType(d), cusparseGetMatFillMode(d), cusparseGetMatDiagType(d),
           cusparseGetMatIndexBase(d));
    printf("DestroyMatDescr %d, NULL %d\n", cusparseDestroyMatDescr(d), cusparseDestroyMatDescr(NULL));
    printf("CreateMatDescr NULL %d\n", cusparseCreateMatDescr(NULL));
    printf("CreateCsr %d\n", cusparseCreateCsr(&a, (int64_t)4, (int64_t)5, (int64_t)6, p, p, p, 2, 2, 0, 0));
    int fm = 1, got = -1;
    printf("GetAttr fill %d", cusparseSpMatGetAttribute(a, 0, &got, (size_t)4));
    printf(" = %d\n", got);
    printf("SetAttr fill 1 %d\n", cusparseSpMatSetAttribute(a, 0, &fm, (size_t)4));
    printf("SetAttr fill size 8 %d\n", cusparseSpMatSetAttribute(a, 0, &fm, (size_t)8));
    printf("SetAttr diag 1 %d\n", cusparseSpMatSetAttribute(a, 1, &fm, (size_t)4));
    printf("SetAttr attribute 5 %d\n", cusparseSpMatSetAttribute(a, 5, &fm, (size_t)4));
    printf("GetAttr fill %d", cusparseSpMatGetAttribute(a, 0, &got, (size_t)4));
    printf(" = %d\n", got);
    printf("CsrSetPointers NULLs %d\n", cusparseCsrSetPointers(a, NULL, NULL, NULL));
    printf("GetSize NULLs %d\n", cusparseSpMatGetSize(a, NULL, NULL, NULL));
    printf("GetSize %d", cusparseSpMatGetSize(a, &r, &c, &z));
    printf(" = %lld %lld %lld\n", (long long)r, (long long)c, (long long)z);
    printf("DestroySpMat %d, NULL %d\n", cusparseDestroySpMat(a), cusparseDestroySpMat(NULL));
    printf("CreateCsr nnz > rows * cols %d\n", cusparseCreateCsr(&a, (int64_t)2, (int64_t)2, (int64_t)5, p, p, p, 2, 2, 0, 0));
    printf("CreateCsr rows -1 %d\n", cusparseCreateCsr(&a, (int64_t)-1, (int64_t)2, (int64_t)0, p, p, p, 2, 2, 0, 0));
    printf("CreateCsr cols -1 %d\n", cusparseCreateCsr(&a, (int64_t)2, (int64_t)-1, (int64_t)0, p, p, p, 2, 2, 0, 0));
    printf("CreateCsr nnz -1 %d\n", cusparseCreateCsr(&a, (int64_t)2, (int64_t)2, (int64_t)-1, p, p, p, 2, 2, 0, 0));
    printf("CreateCsr offsets type 9 %d\n", cusparseCreateCsr(&a, (int64_t)2, (int64_t)2, (int64_t)2, p, p, p, 9, 2, 0, 0));
    printf("CreateCsr base 3 %d\n", cusparseCreateCsr(&a, (int64_t)2, (int64_t)2, (int64_t)2, p, p, p, 2, 2, 3, 0));
    printf("CreateCsr NULL output %d\n", cusparseCreateCsr(NULL, (int64_t)2, (int64_t)2, (int64_t)2, p, p, p, 2, 2, 0, 0));
    printf("CreateCsr NULL column indices %d\n", cusparseCreateCsr(&a, (int64_t)2, (int64_t)2, (int64_t)2, p, NULL, p, 2, 2, 0, 0));
    printf("  DestroySpMat %d\n", cusparseDestroySpMat(a));
    printf("CreateCsr all NULL %d\n", cusparseCreateCsr(&a, (int64_t)2, (int64_t)2, (int64_t)0, NULL, NULL, NULL, 2, 2, 0, 0));
    printf("  DestroySpMat %d\n", cusparseDestroySpMat(a));
    printf("CreateCsc %d\n", cusparseCreateCsc(&a, (int64_t)4, (int64_t)5, (int64_t)6, p, p, p, 2, 2, 1, 5));
    printf("  DestroySpMat %d\n", cusparseDestroySpMat(a));
    printf("CreateCoo %d\n", cusparseCreateCoo(&a, (int64_t)4, (int64_t)5, (int64_t)6, p, p, p, 3, 0, 1));
    printf("  DestroySpMat %d\n", cusparseDestroySpMat(a));
    printf("CreateDnVec size -1 %d\n", cusparseCreateDnVec(&a, (int64_t)-1, p, 0));
    printf("CreateDnVec NULL values %d\n", cusparseCreateDnVec(&a, (int64_t)4, NULL, 0));
    printf("  DnVecSetValues NULL %d\n", cusparseDnVecSetValues(a, NULL));
    printf("  DestroyDnVec %d, NULL %d\n", cusparseDestroyDnVec(a), cusparseDestroyDnVec(NULL));
    printf("CreateDnMat row-major ld < cols %d\n", cusparseCreateDnMat(&a, (int64_t)3, (int64_t)4, (int64_t)3, p, 1, 2));
    printf("CreateDnMat column-major ld < rows %d\n", cusparseCreateDnMat(&a, (int64_t)3, (int64_t)4, (int64_t)2, p, 1, 1));
    printf("CreateDnMat order 0 %d\n", cusparseCreateDnMat(&a, (int64_t)3, (int64_t)4, (int64_t)3, p, 1, 0));
    printf("CreateDnMat %d\n", cusparseCreateDnMat(&a, (int64_t)3, (int64_t)4, (int64_t)3, p, 1, 1));
    printf("  DestroyDnMat %d\n", cusparseDestroyDnMat(a));
    printf("CreateSpVec nnz > size %d\n", cusparseCreateSpVec(&a, (int64_t)2, (int64_t)3, p, p, 2, 1, 4));
    printf("CreateSpVec %d\n", cusparseCreateSpVec(&a, (int64_t)5, (int64_t)3, p, p, 2, 1, 4));
    printf("  DestroySpVec %d\n", cusparseDestroySpVec(a));
    printf("SpSV_createDescr %d", cusparseSpSV_createDescr(&d));
    printf(", destroy %d, NULL %d\n", cusparseSpSV_destroyDescr(d), cusparseSpSV_destroyDescr(NULL));
    for (int s = 0; s <= 12; s++)
        printf("status %d: %s, %s\n", s, name(s), text(s));
    printf("GetProperty major %d", cusparseGetProperty(0, &v));
    printf(" = %d; 5: %d\n", v, cusparseGetProperty(5, &v));
    return 0;
}
