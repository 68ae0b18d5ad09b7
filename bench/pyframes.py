# SPDX-License-Identifier: Apache-2.0
"""python3 bench/pyframes.py LIBPYFT RUNS READS: the cost of reading the
calling thread's Python frames (src/pyframes), measured in C inside
pyft_bench beside a call that reads nothing, at several stack depths, with
the GIL held; the median of RUNS runs of READS reads each."""
import ctypes
import statistics
import sys

lib = ctypes.PyDLL(sys.argv[1])
runs, reads = int(sys.argv[2]), int(sys.argv[3])
lib.pyft_bench.argtypes = [ctypes.c_int, ctypes.c_int] + [ctypes.POINTER(ctypes.c_double)] * 3
lib.pyft_describe.restype = ctypes.c_char_p


def at_depth(n, fn):
    return fn() if n <= 1 else at_depth(n - 1, fn)


def measure(depth, want):
    rd, em, sc = ctypes.c_double(), ctypes.c_double(), ctypes.c_double()
    got = at_depth(depth, lambda: lib.pyft_bench(reads, want, ctypes.byref(rd), ctypes.byref(em), ctypes.byref(sc)))
    return rd.value, em.value, sc.value, got


print("== Python frames: one read (%s; %d reads a run, median of %d runs) ==" % (lib.pyft_describe().decode(), reads, runs))
print("%-40s %10s %10s %10s %9s" % ("", "read ns", "empty ns", "added ns", "syscalls"))
for depth, want in ((1, 1), (10, 1), (10, 64), (50, 1), (50, 64)):
    r = [measure(depth, want) for _ in range(runs)]
    rd = statistics.median(x[0] for x in r)
    em = statistics.median(x[1] for x in r)
    sc = statistics.median(x[2] for x in r)
    got = r[0][3]
    label = "depth %d, innermost %s" % (depth, "frame" if want == 1 else "%d frames (%d read)" % (want, got))
    print("%-40s %10.0f %10.1f %10.0f %9.1f" % (label, rd, em, rd - em, sc))
