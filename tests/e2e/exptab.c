/* Calls through cuGetExportTable's tables are traced: a known slot by name,
 * any other slot as EXPORT_TABLE.slot(TABLE, N, first arguments) with the
 * low 32 bits of its result. */
#include "tests.h"

int main(void)
{
    MUST(cuInit(0), CUDA_SUCCESS);
    line("cuInit(0) = CUDA_SUCCESS");
    const void *t = NULL;
    MUST(cuGetExportTable(&t, &tools_tls), CUDA_SUCCESS);
    line("cuGetExportTable(&%p, TOOLS_TLS) = CUDA_SUCCESS", t);
    /* slot 1 of TOOLS_TLS: nobody is known to call it; the emulator answers
     * CUDA_ERROR_NOT_SUPPORTED */
    CUresult (*slot1)(long, long, long, long, long, long, long, long) =
        (CUresult (*)(long, long, long, long, long, long, long, long))((void *const *)t)[1];
    CUresult r = slot1(1, 2, 3, 4, 5, 6, 7, 8); /* two arguments on the stack */
    if (r != CUDA_ERROR_NOT_SUPPORTED)
        return 3;
    line("EXPORT_TABLE.slot(TOOLS_TLS, 1, 0x1, 0x2, 0x3, 0x4) = 801");
    /* slot 2: the thread's current context, traced by name */
    CUresult (*current)(CUcontext *) = (CUresult (*)(CUcontext *))((void *const *)t)[2];
    CUcontext c = (CUcontext)1, p = NULL;
    MUST(current(&c), CUDA_SUCCESS);
    if (c)
        return 5;
    line("TOOLS_TLS.get_current_ctx(&NULL) = CUDA_SUCCESS");
    MUST(cuDevicePrimaryCtxRetain(&p, 0), CUDA_SUCCESS);
    line("cuDevicePrimaryCtxRetain(&%p, 0) = CUDA_SUCCESS", (void *)p);
    MUST(cuCtxSetCurrent(p), CUDA_SUCCESS);
    line("cuCtxSetCurrent(%p) = CUDA_SUCCESS", (void *)p);
    MUST(current(&c), CUDA_SUCCESS);
    if (c != p)
        return 6;
    line("TOOLS_TLS.get_current_ctx(&%p) = CUDA_SUCCESS", (void *)c);
    MUST(current(NULL), CUDA_ERROR_INVALID_VALUE);
    line("TOOLS_TLS.get_current_ctx(NULL) = CUDA_ERROR_INVALID_VALUE (1)");
    /* the same table twice is the same copy */
    const void *t2 = NULL;
    MUST(cuGetExportTable(&t2, &tools_tls), CUDA_SUCCESS);
    line("cuGetExportTable(&%p, TOOLS_TLS) = CUDA_SUCCESS", t2);
    if (t2 != t)
        return 4;
    exited(0);
    return 0;
}
