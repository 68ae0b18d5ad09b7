/* Calls through cuGetExportTable's tables are traced: a known slot by name,
 * any other slot as EXPORT_TABLE.slot(TABLE, N, first arguments) with the
 * low 32 bits of its result. */
#include "tests.h"

int main(void)
{
    MUST(cuInit(0), CUDA_SUCCESS);
    line("cuInit(0) = CUDA_SUCCESS");
    static const CUuuid tls = { { 0x42, (char)0xd8, 0x5a, (char)0x81, 0x23, (char)0xf6, (char)0xcb, 0x47,
                                  (char)0x82, (char)0x98, (char)0xf6, (char)0xe7, (char)0x8a, 0x3a,
                                  (char)0xec, (char)0xdc } };
    const void *t = NULL;
    MUST(cuGetExportTable(&t, &tls), CUDA_SUCCESS);
    line("cuGetExportTable(&%p, TOOLS_TLS) = CUDA_SUCCESS", t);
    /* slot 1 of TOOLS_TLS: nobody is known to call it; the emulator answers
     * CUDA_ERROR_NOT_SUPPORTED */
    CUresult (*slot1)(long, long, long, long, long, long, long, long) =
        (CUresult (*)(long, long, long, long, long, long, long, long))((void *const *)t)[1];
    CUresult r = slot1(1, 2, 3, 4, 5, 6, 7, 8); /* two arguments on the stack */
    if (r != CUDA_ERROR_NOT_SUPPORTED)
        return 3;
    line("EXPORT_TABLE.slot(TOOLS_TLS, 1, 0x1, 0x2, 0x3, 0x4) = 801");
    /* the same table twice is the same copy */
    const void *t2 = NULL;
    MUST(cuGetExportTable(&t2, &tls), CUDA_SUCCESS);
    line("cuGetExportTable(&%p, TOOLS_TLS) = CUDA_SUCCESS", t2);
    if (t2 != t)
        return 4;
    exited(0);
    return 0;
}
