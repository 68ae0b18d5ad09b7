#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Probe NVIDIA's host MT19937 (cuRAND) output layout.

Loads NVIDIA's libcurand.so with ctypes, makes a host generator of type
CURAND_RNG_PSEUDO_MT19937 (142), generates 156 x 65536 words and checks
the 8-thread x 8192-generator layout written up in docs/hostlib.md:
result 0 is std::mt19937(low 32 bits of seed)'s first output, and for the listed
generators block 1 (untempered) is one MT19937 twist of block 0.
With MT19937_JUMP=path to a build of tools/mt19937-jump.c, also checks
that generator g (g = 1, 2, 4) starts at the seeded state jumped ahead by
g x 2^2048 steps.
Usage: curand_mt19937_probe.py [libcurand.so path] [seed]
"""
import ctypes
import os
import struct
import subprocess
import sys

N, M = 624, 397
THREADS = 65536
SPECIAL = [0, 113, 170, 283, 340, 397, 510, 567]
OFFS = [1, 57, 114, 171, 227, 284, 341, 398, 454, 511, 568]


def temper(y):
    y ^= y >> 11
    y ^= (y << 7) & 0x9D2C5680
    y ^= (y << 15) & 0xEFC60000
    return y ^ (y >> 18)


def untemper(y):
    y ^= y >> 18
    y ^= (y << 15) & 0xEFC60000
    t = y
    for _ in range(5):
        t = y ^ ((t << 7) & 0x9D2C5680)
    y = t
    for _ in range(3):
        t = y ^ (t >> 11)
    return t & 0xFFFFFFFF


def init_genrand(s):
    st = [s & 0xFFFFFFFF]
    for i in range(1, N):
        st.append((1812433253 * (st[-1] ^ (st[-1] >> 30)) + i) & 0xFFFFFFFF)
    return st


def twist(s):
    for i in range(N):
        y = (s[i] & 0x80000000) | (s[(i + 1) % N] & 0x7FFFFFFF)
        s[i] = s[(i + M) % N] ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)


def word(lane, j):
    """State index held by thread lane (0..7) at its j-th word of a block."""
    return SPECIAL[lane] if j == 0 else OFFS[(j - 1) // 7] + 7 * lane + (j - 1) % 7


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "/usr/local/cuda/lib64/libcurand.so"
    seed = int(sys.argv[2], 0) if len(sys.argv) > 2 else 1234
    lib = ctypes.CDLL(path)
    gen = ctypes.c_void_p()
    if lib.curandCreateGeneratorHost(ctypes.byref(gen), 142) != 0:
        print("curandCreateGeneratorHost(MT19937) failed")
        return 1
    lib.curandSetPseudoRandomGeneratorSeed(gen, ctypes.c_ulonglong(seed))
    n = 156 * THREADS
    out = (ctypes.c_uint * n)()
    if lib.curandGenerate(gen, out, ctypes.c_size_t(n)) != 0:
        print("curandGenerate failed")
        return 1
    folded = seed & 0xFFFFFFFF  # NVIDIA keeps the low 32 bits
    s = init_genrand(folded)
    twist(s)
    print("result 0 == std::mt19937(low 32 bits of seed) output 0:", out[0] == temper(s[0]))
    for g in (0, 1, 5, 8191):
        blocks = []
        for b in range(2):
            st = [0] * N
            for lane in range(8):
                for j in range(78):
                    st[word(lane, j)] = untemper(out[8 * g + lane + (78 * b + j) * THREADS])
            blocks.append(st)
        nxt = list(blocks[0])
        twist(nxt)
        same = sum(x == y for x, y in zip(nxt, blocks[1]))
        print("generator %d: block 1 == twist(block 0) in %d of %d words" % (g, same, N))
    tool = os.environ.get("MT19937_JUMP")
    if tool:
        for g, k in ((1, 2048), (2, 2049), (4, 2050)):
            raw = subprocess.run([tool, str(folded), str(k)], check=True,
                                 stdout=subprocess.PIPE).stdout
            ref = struct.unpack("%dI" % N, raw)
            got = [0] * N
            for lane in range(8):
                for j in range(78):
                    got[word(lane, j)] = untemper(out[8 * g + lane + j * THREADS])
            same = sum(x == y for x, y in zip(ref, got))
            print("generator %d: block 0 == seeded state jumped 2^%d, %d of %d words"
                  % (g, k, same, N))
    return 0


if __name__ == "__main__":
    sys.exit(main())
