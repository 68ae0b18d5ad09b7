/* SPDX-License-Identifier: Apache-2.0 */
/* Elements of the value types cuSPARSE's generic API takes, loaded as and
 * stored from complex doubles, the type combinations computed here, and
 * alpha/beta in either pointer mode. */
#include "sparse.h"

#include <string.h>

size_t sp_vsize(cudaDataType t)
{
    switch (t) {
    case CUDA_R_32F: return 4;
    case CUDA_R_64F: return 8;
    case CUDA_C_32F: return 8;
    case CUDA_C_64F: return 16;
    case CUDA_R_16F: case CUDA_R_16BF: return 2;
    case CUDA_C_16F: case CUDA_C_16BF: return 4;
    case CUDA_R_8I: return 1;
    case CUDA_R_32I: return 4;
    case CUDA_C_8I: case CUDA_R_8U: case CUDA_C_8U: case CUDA_C_32I: case CUDA_R_32U: case CUDA_C_32U:
        break;
    }
    return 0;
}

int sp_is_complex(cudaDataType t)
{
    return t == CUDA_C_32F || t == CUDA_C_64F || t == CUDA_C_16F || t == CUDA_C_16BF;
}

sp_c sp_ld(cudaDataType t, const void *p, int64_t i)
{
    switch ((int)t) {   /* the types sp_vsize handles */
    case CUDA_R_32F: return (sp_c){ ((const float *)p)[i], 0 };
    case CUDA_R_64F: return (sp_c){ ((const double *)p)[i], 0 };
    case CUDA_C_32F: return (sp_c){ ((const float *)p)[2 * i], ((const float *)p)[2 * i + 1] };
    case CUDA_C_64F: return (sp_c){ ((const double *)p)[2 * i], ((const double *)p)[2 * i + 1] };
    case CUDA_R_16F: return (sp_c){ hl_h2f(((const uint16_t *)p)[i]), 0 };
    case CUDA_R_16BF: return (sp_c){ hl_bf2f(((const uint16_t *)p)[i]), 0 };
    case CUDA_C_16F: return (sp_c){ hl_h2f(((const uint16_t *)p)[2 * i]), hl_h2f(((const uint16_t *)p)[2 * i + 1]) };
    case CUDA_C_16BF:
        return (sp_c){ hl_bf2f(((const uint16_t *)p)[2 * i]), hl_bf2f(((const uint16_t *)p)[2 * i + 1]) };
    case CUDA_R_8I: return (sp_c){ ((const int8_t *)p)[i], 0 };
    case CUDA_R_32I: return (sp_c){ ((const int32_t *)p)[i], 0 };
    default: break;
    }
    return (sp_c){ 0, 0 };
}

void sp_st(cudaDataType t, void *p, int64_t i, sp_c v)
{
    switch ((int)t) {
    case CUDA_R_32F: ((float *)p)[i] = (float)v.re; break;
    case CUDA_R_64F: ((double *)p)[i] = v.re; break;
    case CUDA_C_32F: ((float *)p)[2 * i] = (float)v.re; ((float *)p)[2 * i + 1] = (float)v.im; break;
    case CUDA_C_64F: ((double *)p)[2 * i] = v.re; ((double *)p)[2 * i + 1] = v.im; break;
    case CUDA_R_16F: ((uint16_t *)p)[i] = hl_f2h((float)v.re); break;
    case CUDA_R_16BF: ((uint16_t *)p)[i] = hl_f2bf((float)v.re); break;
    case CUDA_C_16F:
        ((uint16_t *)p)[2 * i] = hl_f2h((float)v.re);
        ((uint16_t *)p)[2 * i + 1] = hl_f2h((float)v.im);
        break;
    case CUDA_C_16BF:
        ((uint16_t *)p)[2 * i] = hl_f2bf((float)v.re);
        ((uint16_t *)p)[2 * i + 1] = hl_f2bf((float)v.im);
        break;
    case CUDA_R_32I: {
        /* integer sums are exact in double; the low 32 bits, as the GPU's
         * wrapping arithmetic gives them (NaN and beyond 2^63: 0) */
        double r = v.re;
        int64_t w = r > -9.2e18 && r < 9.2e18 ? (int64_t)r : 0;
        ((int32_t *)p)[i] = (int32_t)(uint32_t)(uint64_t)w;
        break;
    }
    default: break;
    }
}

sp_c sp_div(sp_c a, sp_c b)
{
    if (b.im == 0)
        return (sp_c){ a.re / b.re, a.im / b.re };
    double d = b.re * b.re + b.im * b.im;
    return (sp_c){ (a.re * b.re + a.im * b.im) / d, (a.im * b.re - a.re * b.im) / d };
}

cusparseStatus_t sp_types(cudaDataType a, cudaDataType x, cudaDataType y, cudaDataType compute, int uniform)
{
    /* one type throughout (S, D, C, Z): all SpSV takes */
    if (a == x && x == y && y == compute &&
        (a == CUDA_R_32F || a == CUDA_R_64F || a == CUDA_C_32F || a == CUDA_C_64F))
        return CUSPARSE_STATUS_SUCCESS;
    if (uniform)
        return CUSPARSE_STATUS_NOT_SUPPORTED;
    /* cuSPARSE's table for SpMV and SpMM: half and bfloat16 A and X
     * computed in float, Y of their type or float; their complex forms in
     * complex float; int8 A and X into int32 or float; a real A with
     * complex X and Y of its precision */
    if ((a == CUDA_R_16F || a == CUDA_R_16BF) && x == a && (y == a || y == CUDA_R_32F) && compute == CUDA_R_32F)
        return CUSPARSE_STATUS_SUCCESS;
    if ((a == CUDA_C_16F || a == CUDA_C_16BF) && x == a && y == a && compute == CUDA_C_32F)
        return CUSPARSE_STATUS_SUCCESS;
    if (a == CUDA_R_8I && x == a && (y == CUDA_R_32I || y == CUDA_R_32F) && compute == y)
        return CUSPARSE_STATUS_SUCCESS;
    if (((a == CUDA_R_32F && compute == CUDA_C_32F) || (a == CUDA_R_64F && compute == CUDA_C_64F)) && x == compute &&
        y == compute)
        return CUSPARSE_STATUS_SUCCESS;
    return CUSPARSE_STATUS_NOT_SUPPORTED;
}

int sp_scal_take(struct hl_job *j, cusparseHandle_t h, const void *p, cudaDataType t, struct sp_scal *s)
{
    size_t n = sp_vsize(t);
    if (!p || !n)
        return -1;
    if (h->pointer_mode == CUSPARSE_POINTER_MODE_DEVICE) {
        if (hl_job_hold(j, p, n))
            return -1;
        s->dev = p;
    } else {
        memcpy(s->v, p, n);
    }
    return 0;
}

sp_c sp_scal_get(const struct sp_scal *s, cudaDataType t)
{
    return sp_ld(t, s->dev ? s->dev : s->v, 0);
}
