#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# PTX engine benchmark: thread-instructions per second per core (one host
# thread) and with all cores, for an element-wise and a shared-memory
# kernel; the median of RUNS runs (default 5) of each.
#
# BUILD (default build) holds libemu.a. PTX_BASE, if set, names another
# build directory (for example one made from main: git archive main | tar
# -x -C /tmp/base && make -C /tmp/base build/libemu.a build/libtdcommon.a)
# whose engine runs side by side with this one, alternating run by run, and
# the ratio this/base is printed. Argument: elements.
# Then (JIT=0 skips it) the interpreter, the JIT and plain C (bench/ptx_c.c,
# -O3 -march=native -fopenmp) side by side in one run, on 1 core and on all:
# ptx_bench engines RUNS (bench/ptx_bench.c, docs/ptx-jit.md);
# PTX_BENCH_ENGINES="jit" leaves the interpreter out, PTX_BENCH_ONLY=NAME
# runs only the kernels whose name holds NAME; what a block itself costs
# each engine (ptx_bench blocks; with PTX_BASE, the base's too); and the
# JIT's compile time of
# the five kernels, cold (an empty cache on disk) and cached (a second
# process): ptx_bench compile, twice.
BUILD=${BUILD:-build}
CC=${CC:-cc}
RUNS=${RUNS:-5}
root=$(cd "$(dirname "$0")/.." && pwd)
b="$root/$BUILD"
[ -f "$b/libemu.a" ] || { echo "ptx bench: $b/libemu.a missing (make BUILD=$BUILD all)" >&2; exit 1; }
mkdir -p "$b/bench"
$CC -std=c11 -O3 -march=native -fopenmp -ffp-contract=off -Wall -Werror -c -o "$b/bench/ptx_c.o" \
    "$root/bench/ptx_c.c" || exit 1
build() { # output libdir
    $CC -std=c11 -fopenmp -D_GNU_SOURCE -O2 -Wall -Werror -I "$root/include" -I "$root/include/tdtrace" -I "$root/src/common" \
        -I "$root/src/emu" -I "$b/gen" -o "$1" "$root/bench/ptx_bench.c" "$b/bench/ptx_c.o" "$2/libemu.a" "$2/libtdcommon.a" \
        -lzstd -llz4 -lm -ldl -pthread
}
build "$b/bench/ptx_bench" "$b" || exit 1
names="this"
if [ -n "${PTX_BASE:-}" ]; then
    [ -f "$PTX_BASE/libemu.a" ] || { echo "ptx bench: $PTX_BASE/libemu.a missing" >&2; exit 1; }
    build "$b/bench/ptx_bench_base" "$PTX_BASE" || exit 1
    names="this base"
fi
echo "host cores: $(nproc); medians of $RUNS runs (M thread-instructions/s)"
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT
i=0
while [ $i -lt "$RUNS" ]; do
    for n in $names; do
        bin="$b/bench/ptx_bench"; [ $n = base ] && bin="$b/bench/ptx_bench_base"
        TDTRACE_EMU_THREADS=1 "$bin" "$@" | sed "s/^/$n /" >>"$out" || exit 1
        "$bin" "$@" | sed "s/^/$n /" >>"$out" || exit 1
    done
    i=$((i + 1))
done
# lines: NAME threads=T elementwise E M ..., shared reduction S M ...
awk -v names="$names" '
    function median(key,   n, i, j, t, a) {
        n = cnt[key]; for (i = 1; i <= n; i++) a[i] = v[key, i]
        for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    { k = $1 SUBSEP $2; e = k SUBSEP "e"; s = k SUBSEP "s"
      v[e, ++cnt[e]] = $4; v[s, ++cnt[s]] = $9 }
    END {
        split(names, ns, " ")
        for (t = 1; t <= 2; t++) {
            th = t == 1 ? "threads=1" : "threads=all"
            for (i = 1; i <= length(ns); i++) {
                k = ns[i] SUBSEP th
                me[i] = median(k SUBSEP "e"); ms[i] = median(k SUBSEP "s")
                printf "%-5s %-11s elementwise %5.0f  shared reduction %5.0f\n", ns[i], th, me[i], ms[i]
            }
            if (length(ns) == 2)
                printf "this/base %-11s elementwise %.3f  shared reduction %.3f\n", th, me[1] / me[2], ms[1] / ms[2]
            if (t == 1) { e1 = me[1]; s1 = ms[1] } else { ea = me[1]; sa = ms[1] }
        }
        if (e1 > 0 && s1 > 0) printf "speed-up with all cores: element-wise %.2fx, shared %.2fx\n", ea / e1, sa / s1
    }' "$out"
if [ "${JIT:-1}" != 0 ]; then
    echo "interpreter, JIT and plain C on 1 core and on all ($(nproc)), medians of $RUNS runs, load average $(cut -d" " -f1-3 /proc/loadavg):"
    "$b/bench/ptx_bench" engines "$RUNS" ${PTX_BENCH_ONLY:+"$PTX_BENCH_ONLY"} || exit 1
fi
if [ "${JIT:-1}" != 0 ]; then
    echo "what a block costs, one host thread, medians of $RUNS launches:"
    "$b/bench/ptx_bench" blocks "$RUNS" || exit 1
    [ -n "${PTX_BASE:-}" ] && { echo "the same, base:"; "$b/bench/ptx_bench_base" blocks "$RUNS" || exit 1; }
fi
if [ "${JIT:-1}" != 0 ]; then
    cache=$(mktemp -d) || exit 1
    cold=$(mktemp) || exit 1
    warm=$(mktemp) || exit 1
    TDTRACE_EMU_CACHE=$cache "$b/bench/ptx_bench" compile 2>"$cold" || { cat "$cold"; exit 1; }
    TDTRACE_EMU_CACHE=$cache "$b/bench/ptx_bench" compile 2>"$warm" || { cat "$warm"; exit 1; }
    echo "the JIT's compile time, cold (an empty cache) and cached (the next process), ms:"
    # lines: tdtrace-emu: kernel NAME: engine jit (compiled with LLVM in X ms) / (loaded from the cache in X ms)
    awk '
        FNR == 1 { f++ }
        /engine jit \(/ { k = $3; sub(/:$/, "", k); ms = $(NF - 1)
                          if (f == 1) { order[++n] = k; cold[k] = ms } else warm[k] = ms
                          how[f, k] = /loaded from the cache/ ? "cache" : "LLVM" }
        END { printf "%-12s %10s %10s %8s\n", "kernel", "cold", "cached", "ratio"
              for (i = 1; i <= n; i++) { k = order[i]
                  r = warm[k] > 0 ? cold[k] / warm[k] : 0
                  note = how[1, k] == "LLVM" && how[2, k] == "cache" ? "" : "  (not from the cache: " how[2, k] ")"
                  printf "%-12s %10.1f %10.1f %7.0fx%s\n", k, cold[k], warm[k], r, note } }
    ' "$cold" "$warm"
    rm -rf "$cache" "$cold" "$warm"
fi
