/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mt19937-jump: print the first 624-word block (untempered, MT19937 order)
 * of the MT19937 stream seeded with init_genrand(SEED) and jumped ahead by
 * 2^K steps (K = -1: no jump). Experiment tool for docs/hostlib.md's cuRAND
 * MT19937 paragraph: cuRAND's host generator g starts at jump g x 2^2048.
 *
 * The characteristic polynomial comes from Berlekamp-Massey on one output
 * bit; x^(2^K) mod p by K squarings; the jump is applied by Horner's rule
 * over single MT steps on a ring state, then rotated to index 0.
 *   cc -std=c11 -O2 -Wall -Wextra -o mt19937-jump tools/mt19937-jump.c
 *   ./mt19937-jump SEED K > block.bin      (624 little-endian uint32)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NN = 624, MM = 397, DEG = 19937, PW = (DEG + 63) / 64 + 1 };

typedef struct { uint32_t m[NN]; int p; } ring_t;

static uint32_t mix(uint32_t a, uint32_t b)
{
	uint32_t y = (a & 0x80000000u) | (b & 0x7fffffffu);
	return (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
}

static void step(ring_t *s)
{
	int p = s->p;
	s->m[p] = s->m[(p + MM) % NN] ^ mix(s->m[p], s->m[(p + 1) % NN]);
	s->p = (p + 1) % NN;
}

static void add(ring_t *a, const ring_t *b)
{
	for (int i = 0; i < NN; i++)
		a->m[(a->p + i) % NN] ^= b->m[(b->p + i) % NN];
}

static void seed_ring(ring_t *s, uint32_t x)
{
	s->m[0] = x;
	for (int i = 1; i < NN; i++)
		s->m[i] = 1812433253u * (s->m[i - 1] ^ (s->m[i - 1] >> 30)) + (uint32_t)i;
	s->p = 0;
}

static uint64_t P[PW];

static void sqrmod(uint64_t *a)
{
	static uint64_t t[2 * PW + 2];
	memset(t, 0, sizeof t);
	for (int i = 0; i < PW; i++) {
		uint64_t lo = 0, hi = 0;
		for (int b = 0; b < 32; b++) {
			lo |= ((a[i] >> b) & 1u) << (2 * b);
			hi |= ((a[i] >> (b + 32)) & 1u) << (2 * b);
		}
		t[2 * i] = lo;
		t[2 * i + 1] = hi;
	}
	for (int i = 2 * DEG; i >= DEG; i--) {
		if (!((t[i >> 6] >> (i & 63)) & 1u))
			continue;
		int s = i - DEG, w = s >> 6, b = s & 63;
		for (int j = 0; j < PW && j + w + 1 < 2 * PW + 2; j++) {
			t[j + w] ^= P[j] << b;
			if (b)
				t[j + w + 1] ^= P[j] >> (64 - b);
		}
	}
	memcpy(a, t, PW * sizeof *a);
}

static int charpoly(void)
{
	const int n = 2 * DEG + 100;
	unsigned char *s = malloc((size_t)n), *c = calloc((size_t)n + 1, 1),
		      *b = calloc((size_t)n + 1, 1), *t = malloc((size_t)n + 1);
	if (!s || !c || !b || !t)
		return -1;
	ring_t g;
	seed_ring(&g, 5489u);
	for (int i = 0; i < n; i++) {
		step(&g);
		s[i] = g.m[(g.p + NN - 1) % NN] & 1u;
	}
	c[0] = b[0] = 1;
	int l = 0, m = 1;
	for (int k = 0; k < n; k++) {
		int d = s[k];
		for (int i = 1; i <= l; i++)
			d ^= c[i] & s[k - i];
		if (!d) {
			m++;
			continue;
		}
		int grow = 2 * l <= k;
		if (grow)
			memcpy(t, c, (size_t)n + 1);
		for (int i = 0; i + m <= n; i++)
			c[i + m] ^= b[i];
		if (grow) {
			l = k + 1 - l;
			memcpy(b, t, (size_t)n + 1);
			m = 1;
		} else {
			m++;
		}
	}
	for (int i = 0; i <= l; i++)
		if (c[i])
			P[(l - i) >> 6] |= 1ull << ((l - i) & 63);
	free(s), free(c), free(b), free(t);
	return l;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fputs("usage: mt19937-jump SEED K\n", stderr);
		return 2;
	}
	uint32_t sd = (uint32_t)strtoul(argv[1], NULL, 0);
	int k = atoi(argv[2]);
	if (charpoly() != DEG) {
		fputs("mt19937-jump: characteristic polynomial not of degree 19937\n", stderr);
		return 1;
	}
	static uint64_t r[PW];
	r[0] = 1; /* x^0 */
	if (k >= 0) {
		r[0] = 2; /* x */
		for (int i = 0; i < k; i++)
			sqrmod(r);
	}
	ring_t s0, acc, o;
	seed_ring(&s0, sd);
	memset(&acc, 0, sizeof acc);
	for (int i = DEG - 1; i >= 0; i--) {
		step(&acc);
		if ((r[i >> 6] >> (i & 63)) & 1u)
			add(&acc, &s0);
	}
	for (int i = 0; i < NN; i++)
		o.m[i] = acc.m[(acc.p + i) % NN];
	o.p = 0;
	for (int i = 0; i < NN; i++)
		step(&o);
	return fwrite(o.m, 4, NN, stdout) == NN ? 0 : 1;
}
