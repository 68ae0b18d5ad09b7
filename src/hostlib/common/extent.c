/* SPDX-License-Identifier: Apache-2.0 */
/* Extents: the bytes an operand spans from its first address, from its
 * shape (a strided vector, a column-major matrix, a strided batch), with
 * every overflow an error. */
#include "hostlib.h"

int64_t hl_vec_bytes(int64_t n, int64_t inc, size_t elem)
{
    if (n <= 0)
        return 0;
    /* inc 0: every element is the first */
    uint64_t a = inc < 0 ? (uint64_t)0 - (uint64_t)inc : (uint64_t)inc;
    if ((uint64_t)(n - 1) > (uint64_t)INT64_MAX / (a ? a : 1) / elem)
        return -1;
    uint64_t span = (uint64_t)(n - 1) * a + 1;
    if (span > (uint64_t)INT64_MAX / elem)
        return -1;
    return (int64_t)(span * elem);
}

int64_t hl_mat_bytes(int64_t rows, int64_t cols, int64_t ld, size_t elem)
{
    if (rows <= 0 || cols <= 0)
        return 0;
    if (ld < rows)
        return -1;
    if ((uint64_t)(cols - 1) > (uint64_t)INT64_MAX / (uint64_t)ld / elem)
        return -1;
    uint64_t span = (uint64_t)(cols - 1) * (uint64_t)ld + (uint64_t)rows;
    if (span > (uint64_t)INT64_MAX / elem)
        return -1;
    return (int64_t)(span * elem);
}

int64_t hl_batch_bytes(int64_t one, int64_t batch, int64_t stride, size_t elem)
{
    if (one <= 0 || batch <= 0)
        return 0;
    if (stride < 0)
        return -1;
    if ((uint64_t)(batch - 1) > (uint64_t)INT64_MAX / elem / (stride ? (uint64_t)stride : 1))
        return -1;
    uint64_t last = (uint64_t)(batch - 1) * (uint64_t)stride * elem;
    if (last > (uint64_t)INT64_MAX - (uint64_t)one)
        return -1;
    return (int64_t)(last + (uint64_t)one);
}
