# SPDX-License-Identifier: Apache-2.0
"""python3 bench/pycalls.py N: N calls of a cheap driver entry point
(cuCtxGetCurrent) through ctypes, made 10 Python frames deep; prints the
ns per call. bench/pyframes.sh runs it untraced and under tdtrace, with
and without --py, side by side."""
import ctypes
import sys
import time

cu = ctypes.CDLL("libcuda.so.1")
n = int(sys.argv[1])
assert cu.cuInit(0) == 0
ctx = ctypes.c_void_p()
get = cu.cuCtxGetCurrent
ref = ctypes.byref(ctx)


def loop(depth):
    if depth > 1:
        return loop(depth - 1)
    t0 = time.perf_counter_ns()
    for _ in range(n):
        get(ref)
    return time.perf_counter_ns() - t0


print("%.1f" % (loop(10) / n))
