/* The executor's matrix instructions: tensor-core mma, wmma, ldmatrix,
 * stmatrix, movmatrix. */
#include "exec.h"

ex_fn ex_mma_select(const struct ir_ins *in)
{
    (void)in;
    return NULL;
}
