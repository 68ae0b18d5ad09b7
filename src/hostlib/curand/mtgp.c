/* SPDX-License-Identifier: Apache-2.0 */
/* cuRAND's MTGP32 engine on the host: Saito and Matsumoto's Mersenne
 * Twister for Graphic Processors with the 200 parameter sets of Mersenne
 * exponent 11213 that NVIDIA's toolkit publishes
 * (curand_mtgp32dc_p_11213.h, included at build time when the toolkit is
 * there: make finds it under CUDA_HOME), initialised as curand_mtgp32_host.h
 * initialises a state (mtgp32_init_state) and stepped as
 * curand_mtgp32_kernel.h's curand() steps one: element k of a state is
 * made from words k, k+1 and k+pos of its 1024-word ring and stored at
 * k+351; a block's threads make consecutive elements, so one state's
 * sequence does not depend on how many threads made it. */
#include "rng.h"

#include <string.h>

#ifdef TD_HAVE_MTGP32
#include <curand_mtgp32dc_p_11213.h>

int mtgp_sets(void)
{
    return mtgpdc_params_11213_num;
}

void mtgp_init(struct mtgp *m, int set, uint64_t seed)
{
    const mtgp32_params_fast_t *p = &mtgp32dc_params_fast_11213[set];
    uint32_t s0 = (uint32_t)(seed ^ (seed >> 32)) + (uint32_t)set + 1;
    int size = p->mexp / 32 + 1;
    uint32_t hidden = p->tbl[4] ^ (p->tbl[8] << 16), t = hidden;
    t += t >> 16;
    t += t >> 8;
    memset(m, 0, sizeof *m);
    memset(m->s, t & 0xff, sizeof(uint32_t) * (size_t)size);
    m->s[0] = s0;
    m->s[1] = hidden;
    for (int i = 1; i < size; i++)
        m->s[i] ^= 1812433253u * (m->s[i - 1] ^ (m->s[i - 1] >> 30)) + (uint32_t)i;
    m->set = set;
    m->seed = seed;
}

/* the next element; single: the tempering for floats (curand_mtgp32_single) */
static uint32_t step(struct mtgp *m, int single)
{
    const mtgp32_params_fast_t *p = &mtgp32dc_params_fast_11213[m->set];
    uint32_t k = m->offset, mask = MTGP32_STATE_MASK;
    uint32_t x = (m->s[k & mask] & mtgp32dc_params_fast_11213[0].mask) ^ m->s[(k + 1) & mask];
    x ^= x << p->sh1;
    uint32_t y = x ^ (m->s[(k + (uint32_t)p->pos) & mask] >> p->sh2);
    uint32_t r = y ^ p->tbl[y & 0x0f];
    m->s[(k + MTGPDC_N) & mask] = r;
    uint32_t t = m->s[(k + (uint32_t)p->pos - 1) & mask];
    t ^= t >> 16;
    t ^= t >> 8;
    m->offset = (k + 1) & mask;
    return single ? (r >> 9) ^ p->flt_tmp_tbl[t & 0x0f] : r ^ p->tmp_tbl[t & 0x0f];
}

uint32_t mtgp_u32(struct mtgp *m)
{
    return step(m, 0);
}

float mtgp_float(struct mtgp *m)
{
    uint32_t u = step(m, 1);
    float f;
    memcpy(&f, &u, 4);
    return f;
}
#else
int mtgp_sets(void)
{
    return 0;
}

void mtgp_init(struct mtgp *m, int set, uint64_t seed)
{
    memset(m, 0, sizeof *m);
    m->set = set;
    m->seed = seed;
}

uint32_t mtgp_u32(struct mtgp *m)
{
    (void)m;
    return 0;
}

float mtgp_float(struct mtgp *m)
{
    (void)m;
    return 0;
}
#endif
