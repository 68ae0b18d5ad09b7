/* SPDX-License-Identifier: Apache-2.0 */
/* cuRAND's Poisson distribution: the square histogram (Marsaglia, Tsang
 * and Wang, "Fast generation of discrete random variables", 2004) that
 * NVIDIA's library builds for a lambda below 2000, built the same way so
 * that the same uniform gives the same result. Everything here was read off
 * NVIDIA's host generator (curandCreateGeneratorHost) and checked table
 * entry for table entry:
 *   - the probabilities p(k) = exp(-lambda + k log lambda - sum log i, i <= k),
 *     the sum carried from k = 0 up; the histogram holds the k whose p(k)
 *     is not 0 in double (shift is the first, length their count), not
 *     normalised;
 *   - the Robin Hood fill: with a = 1 / length, passes over k ascending
 *     give each k still below a (the small ones) the excess of the current
 *     donor, which starts at the largest k at or above a and moves down to
 *     the next one at or above a when it falls below a itself; passes
 *     repeat until no small k is left; V[k] = k a + p(k) as k is served
 *     (or at the end, for what is left) and K[k] its donor (k itself for
 *     what is left);
 *   - one entry more than length, V 0 and K 0, for u = 1.
 * Drawing (curand_discrete's _curand_M2_double): j = floor(length u);
 * shift + (u < V[j] ? j : K[j]). */
#include "rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LEN (1u << 16) /* lambda < 2000 needs about 3,500 */

int poisson_hist(double lambda, struct poisson_hist *h)
{
    memset(h, 0, sizeof *h);
    if (!(lambda > 0 && lambda < POISSON_NORMAL_MIN))
        return -2;
    double *p = malloc(MAX_LEN * sizeof *p), lf = 0, ll = log(lambda);
    if (!p)
        return -1;
    uint32_t shift = 0, n = 0;
    for (uint32_t k = 0; k < (1u << 20); k++) {
        if (k)
            lf += log((double)k);
        double x = exp(-lambda + (double)k * ll - lf);
        if (x == 0 && n)
            break;
        if (x == 0)
            continue;
        if (!n)
            shift = k;
        if (n == MAX_LEN - 1)
            break;
        p[n++] = x;
    }
    double *v = calloc(n + 1, sizeof *v);
    uint32_t *kk = calloc(n + 1, sizeof *kk);
    unsigned char *done = calloc(n + 1, 1);
    if (!n || !v || !kk || !done) {
        free(p);
        free(v);
        free(kk);
        free(done);
        return n ? -1 : -2;
    }
    double a = 1.0 / n;
    for (uint32_t i = 0; i < n; i++)
        kk[i] = i;
    int64_t g = (int64_t)n - 1;
    while (g >= 0 && p[g] < a)
        g--;
    for (int progress = 1; progress && g >= 0;) {
        progress = 0;
        for (uint32_t i = 0; i < n && g >= 0; i++) {
            if (p[i] >= a || done[i] || i == g)
                continue;
            kk[i] = (uint32_t)g;
            v[i] = i * a + p[i];
            p[g] -= a - p[i];
            p[i] = a;
            done[i] = 1;
            progress = 1;
            if (p[g] < a)
                for (g--; g >= 0 && (p[g] < a || done[g]); g--)
                    ;
        }
    }
    for (uint32_t i = 0; i < n; i++)
        if (!done[i])
            v[i] = i * a + p[i];
    free(p);
    free(done);
    h->shift = shift;
    h->length = n;
    h->v = v;
    h->k = kk;
    return 0;
}

void poisson_hist_free(struct poisson_hist *h)
{
    free(h->v);
    free(h->k);
    memset(h, 0, sizeof *h);
}

uint32_t poisson_draw(const struct poisson_hist *h, double u)
{
    double j = floor(h->length * u);
    uint32_t i = j >= 0 && j <= h->length ? (uint32_t)j : h->length; /* u in (0, 1] */
    return h->shift + (u < h->v[i] ? i : h->k[i]);
}
