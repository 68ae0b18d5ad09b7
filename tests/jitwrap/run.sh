#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# NVRTC and nvJitLink asked for machine code, on the emulated GPU, with
# tdtrace's layer (lib/tdtrace/jit) in front of NVIDIA's libraries:
#   - the layer's symbols and versions against NVIDIA's libraries;
#   - nvrtc.c: kernels compiled with every spelling of -arch=sm_XX, loaded
#     from what nvrtcGetCUBIN hands out and checked against the host;
#     recompiles, threads, bad input;
#   - nvjitlink.c: LTO-IR (from NVRTC, and from nvcc -dlto as fatbinaries
#     and objects) linked for sm_90 and run; machine code and PTX inputs,
#     from which no PTX can come, passed through with the reason; bad input;
#   - TDTRACE_JIT_LOG: one line per substitution, none without it;
#   - without the layer the same programs fail (CUDA_ERROR_NO_BINARY_FOR_GPU).
# Needs nvcc and NVIDIA's libnvrtc.so.13 and libnvJitLink.so.13 beside it
# (its ../lib64): without them every test is skipped with the reason.
#   BUILD=build [TD_NVCC=...] [EXTRA_CFLAGS=...] sh tests/jitwrap/run.sh
# Prints "jitwrap: N passed, N failed, N skipped"; exits nonzero on failure.
BUILD=${BUILD:-build}
CC=${CC:-cc}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
emu="$root/$BUILD/lib/tdtrace/emu"
jit="$root/$BUILD/lib/tdtrace/jit"
out="$root/$BUILD/tests/jitwrap"
pass=0; fail=0; skip=0
ok()  { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1${2:+: $2}"; [ -f "${3:-}" ] && sed 's/^/    /' "$3" | tail -n 30; }
. "$here/../nvcc-env.sh"
for f in "$emu/libcuda.so.1" "$jit/libnvrtc.so.13" "$jit/libnvJitLink.so.13"; do
    [ -f "$f" ] || { echo "jitwrap: $f missing (make BUILD=$BUILD)" >&2; exit 1; }
done
mkdir -p "$out"

why=""
if [ -z "$NVCC" ] || ! "$NVCC" --version >/dev/null 2>&1; then
    why="no nvcc (the CUDA toolkit is not installed; TD_NVCC names it)"
else
    tk=$(cd "$(dirname "$NVCC")/.." && pwd)/lib64
    for so in libnvrtc.so.13 libnvJitLink.so.13; do
        [ -f "$tk/$so" ] || why="no NVIDIA $so in $tk beside $NVCC"
    done
fi
# the tests, for the count when they are skipped
TESTS="symbols-nvrtc symbols-nvJitLink build
       nvrtc-sm_90 nvrtc-gpu-architecture= nvrtc-arch-sep nvrtc-gpu-architecture-sep
       nvrtc-compute-then-sm nvrtc-two-sm nvrtc-sm_90a nvrtc-sm_75 nvrtc-sm_120 nvrtc-compute_90
       nvrtc-rdc nvrtc-log nvrtc-no-log nvrtc-recompile nvrtc-threads nvrtc-errors nvrtc-layer-twice
       nvrtc-without-layer
       nvjitlink-nvrtc-ltoir nvjitlink-fatbin nvjitlink-object-file nvjitlink-any nvjitlink-sm_120
       nvjitlink-cubin nvjitlink-ptx nvjitlink-any-cubin nvjitlink-log nvjitlink-errors
       nvjitlink-without-layer"
if [ -n "$why" ]; then
    for t in $TESTS; do skip=$((skip + 1)); done
    echo "jitwrap: skipped: $why"
    echo "jitwrap: $pass passed, $fail failed, $skip skipped"
    exit 0
fi

# ---- the layer's symbols: NVIDIA's, in NVIDIA's version node ----------
for so in libnvrtc.so.13 libnvJitLink.so.13; do
    name=$(echo "$so" | sed 's/^lib//; s/\.so.*//')
    nm -D --defined-only --with-symbol-versions "$tk/$so" | awk '{print $2, $3}' | sort >"$out/$name.nvidia.syms"
    nm -D --defined-only --with-symbol-versions "$jit/$so" | awk '{print $2, $3}' | sort >"$out/$name.jit.syms"
    if diff "$out/$name.nvidia.syms" "$out/$name.jit.syms" >"$out/$name.syms.diff"; then
        ok "symbols-$name: the $(wc -l <"$out/$name.jit.syms") symbols, types and versions of NVIDIA's $so"
    else
        bad "symbols-$name" "< NVIDIA, > layer" "$out/$name.syms.diff"
    fi
done

# ---- the programs and their inputs --------------------------------------
cflags="${EXTRA_CFLAGS:-} -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror -pthread"
incs="-I $root/include/tdtrace -I $root/include -I $root/$BUILD/gen -I $root/src/jitwrap"
lto="-gencode arch=compute_90,code=lto_90"
if $CC $cflags $incs -o "$out/nvrtc" "$here/nvrtc.c" -L"$emu" -L"$jit" -l:libcuda.so.1 \
       -l:libnvrtc.so.13 -lm >"$out/build.log" 2>&1 &&
   $CC $cflags $incs -o "$out/nvjitlink" "$here/nvjitlink.c" -L"$emu" -L"$jit" -l:libcuda.so.1 \
       -l:libnvrtc.so.13 -l:libnvJitLink.so.13 -lm >>"$out/build.log" 2>&1 &&
   (cd "$out" &&
    "$NVCC" -dc $lto -fatbin "$here/lto_a.cu" -o lto_a.fatbin &&
    "$NVCC" -dc $lto -fatbin "$here/lto_b.cu" -o lto_b.fatbin &&
    "$NVCC" -dc $lto -c "$here/lto_a.cu" -o lto_a.o &&
    "$NVCC" -dc $lto -c "$here/lto_b.cu" -o lto_b.o &&
    "$NVCC" -dc -cubin -arch=sm_90 "$here/lto_b.cu" -o lto_b.cubin &&
    "$NVCC" -dc -ptx -arch=compute_90 "$here/lto_b.cu" -o lto_b.ptx) >>"$out/build.log" 2>&1; then
    ok build
else
    bad build "" "$out/build.log"
    echo "jitwrap: $pass passed, $fail failed, $skip skipped"
    exit 1
fi

tmo=""
command -v timeout >/dev/null 2>&1 && tmo="timeout 120"
with="$emu:$jit:$tk"
without="$emu:$tk"

# t NAME LIBPATH EXPECT [VAR=VALUE...] -- PROGRAM ARGS...: runs it (stdout
# in NAME.log, stderr in NAME.err). EXPECT: "pass" (exit 0 and a PASS
# line) or an extended regex its output must match after a nonzero exit.
# The checks after it add to $res; end() gives the verdict.
t() {
    cur=$1; lp=$2; want=$3; shift 3
    vars=""
    while [ $# -gt 0 ] && [ "$1" != -- ]; do vars="$vars $1"; shift; done
    shift
    log="$out/$cur.log"; err="$out/$cur.err"; res=""
    # shellcheck disable=SC2086
    env LD_LIBRARY_PATH="$lp" $vars $tmo "$@" >"$log" 2>"$err"
    rc=$?
    if [ "$want" = pass ]; then
        [ $rc -eq 0 ] && grep -q '^PASS' "$log" || res="exit $rc"
    elif [ $rc -eq 0 ] || ! cat "$log" "$err" | grep -Eq "$want"; then
        res="exit $rc, want a failure matching $want"
    fi
}
# image REGEX: what the program was handed
image() {
    [ -n "$res" ] || grep -Eq "^image $1 [0-9]+ bytes$" "$log" ||
        res="handed out \"$(grep '^image' "$log")\", want \"image $1\""
}
# line REGEX: stderr is that one line
line() {
    [ -n "$res" ] || { [ "$(grep -c . "$err")" -eq 1 ] && grep -Eq "$1" "$err"; } ||
        res="stderr is not one line matching $1"
}
# has REGEX: stderr has such a line
has() { [ -n "$res" ] || grep -Eq "$1" "$err" || res="no line on stderr matching $1"; }
# size: the size of the image handed out
size() { sed -n 's/^image .* \([0-9]*\) bytes$/\1/p' "$log"; }
end() {
    if [ -z "$res" ]; then ok "$cur"; else cat "$err" >>"$log"; bad "$cur" "$res" "$log"; fi
}
nr="$out/nvrtc"; jl="$out/nvjitlink"
fat90="fatbinary elf sm_90 ptx sm_90"

# ---- NVRTC --------------------------------------------------------------
t nvrtc-sm_90 "$with" pass -- "$nr" run -arch=sm_90; image "$fat90"; end
t nvrtc-gpu-architecture= "$with" pass -- "$nr" run --gpu-architecture=sm_90; image "$fat90"; end
t nvrtc-arch-sep "$with" pass -- "$nr" run -arch sm_90; image "$fat90"; end
t nvrtc-gpu-architecture-sep "$with" pass -- "$nr" run --gpu-architecture sm_90; image "$fat90"; end
t nvrtc-compute-then-sm "$with" pass -- "$nr" run -arch=compute_90 -arch=sm_90; image "$fat90"; end
t nvrtc-two-sm "$with" pass -- "$nr" run -arch=sm_80 -arch=sm_90; image "$fat90"; end
t nvrtc-sm_90a "$with" pass -- "$nr" run -arch=sm_90a; image "$fat90"; end
t nvrtc-sm_75 "$with" pass -- "$nr" run -arch=sm_75; image "fatbinary elf sm_75 ptx sm_75"; end
# machine code of sm_100 and later: the PTX alone (nvcc gives its
# fatbinary entry a record tdtrace does not know), on a device that takes it
t nvrtc-sm_120 "$with" pass TDTRACE_EMU_PROFILE=rtx5090 -- "$nr" run -arch=sm_120
image "fatbinary ptx sm_120"; end
# PTX asked for: nothing to do
t nvrtc-compute_90 "$with" pass -- "$nr" run -arch=compute_90; image other; end
# relocatable machine code is for a linker: unchanged, with the reason
t nvrtc-rdc "$with" CUDA_ERROR_NO_BINARY_FOR_GPU TDTRACE_JIT_LOG=1 -- "$nr" run -arch=sm_90 -rdc=true
has '^tdtrace-jit: nvrtcGetCUBINSize: program "kernels.cu": machine code \([0-9]+ bytes, sm_90\) handed out unchanged: it is relocatable \(-rdc\): it goes to a linker, which takes a cubin$'
end
# the log: one line for the substitution, naming what was handed out
t nvrtc-log "$with" pass TDTRACE_JIT_LOG=1 -- "$nr" run -arch=sm_90
line "^tdtrace-jit: nvrtcGetCUBINSize: program \"kernels.cu\": machine code \([0-9]+ bytes, sm_90\) handed out as a fatbinary \($(size) bytes\) holding its PTX \([0-9]+ bytes, \.target sm_90\) and the machine code\$"
end
t nvrtc-no-log "$with" pass -- "$nr" run -arch=sm_90
[ -n "$res" ] || ! grep -q tdtrace-jit "$err" || res="a tdtrace-jit line without TDTRACE_JIT_LOG"
end
t nvrtc-recompile "$with" pass -- "$nr" recompile; end
t nvrtc-threads "$with" pass -- "$nr" threads; end
t nvrtc-errors "$with" pass -- "$nr" errors; end
# another copy of the layer where NVIDIA's library should be: refused,
# with the reason, never called (it would call back into the first)
rm -rf "$out/jit-copy" && mkdir -p "$out/jit-copy" && cp "$jit"/*.so.13 "$out/jit-copy/"
t nvrtc-layer-twice "$emu:$jit:$out/jit-copy:$tk" NVRTC_ERROR_INTERNAL_ERROR -- "$nr" run -arch=sm_90
has "^tdtrace-jit: libnvrtc.so.13: $out/jit-copy/libnvrtc.so.13 is another copy of tdtrace's layer, not NVIDIA's library: every call fails\$"
end
# without the layer: what the layer is for
t nvrtc-without-layer "$without" CUDA_ERROR_NO_BINARY_FOR_GPU -- "$nr" run -arch=sm_90; end

# ---- nvJitLink ----------------------------------------------------------
o="$out"
t nvjitlink-nvrtc-ltoir "$with" pass -- "$jl" run nvrtc:a nvrtc:b; image "$fat90"; end
t nvjitlink-fatbin "$with" pass -- "$jl" run data:fatbin:"$o/lto_a.fatbin" data:fatbin:"$o/lto_b.fatbin"
image "$fat90"; end
t nvjitlink-object-file "$with" pass -- "$jl" run file:object:"$o/lto_a.o" file:object:"$o/lto_b.o"
image "$fat90"; end
t nvjitlink-any "$with" pass -- "$jl" run data:any:"$o/lto_a.o" file:any:"$o/lto_b.fatbin"
image "$fat90"; end
t nvjitlink-sm_120 "$with" pass TDTRACE_EMU_PROFILE=rtx5090 -- "$jl" run -o -lto -o -arch=sm_120 nvrtc:a nvrtc:b
image "fatbinary ptx sm_120"; end
# inputs from which no PTX can come: the machine code unchanged, and why
unchanged='^tdtrace-jit: nvJitLinkGetLinkedCubinSize: link 0x[0-9a-f]+: machine code \([0-9]+ bytes, sm_90\) handed out unchanged: '
t nvjitlink-cubin "$with" pass TDTRACE_JIT_LOG=1 -- "$jl" run -x nobinary data:fatbin:"$o/lto_a.fatbin" data:cubin:"$o/lto_b.cubin"
image elf; has "${unchanged}input \"lto_b.cubin\" is machine code \(CUBIN\): no PTX can come from it\$"; end
t nvjitlink-ptx "$with" pass TDTRACE_JIT_LOG=1 -- "$jl" run -x nobinary data:fatbin:"$o/lto_a.fatbin" data:ptx:"$o/lto_b.ptx"
image elf; has "${unchanged}input \"lto_b.ptx\" is PTX: nvJitLink makes PTX from LTO-IR only\$"; end
t nvjitlink-any-cubin "$with" pass TDTRACE_JIT_LOG=1 -- "$jl" run -x nobinary data:fatbin:"$o/lto_a.fatbin" data:any:"$o/lto_b.cubin"
image elf; has "${unchanged}the PTX link failed: NVJITLINK_ERROR_INCORRECT_INPUT_TYPE: ERROR: -ptx requires that all inputs have LTOIR\$"; end
t nvjitlink-log "$with" pass TDTRACE_JIT_LOG=1 -- "$jl" run nvrtc:a nvrtc:b
line "^tdtrace-jit: nvJitLinkGetLinkedCubinSize: link 0x[0-9a-f]+: machine code \([0-9]+ bytes, sm_90\) handed out as a fatbinary \($(size) bytes\) holding its PTX \([0-9]+ bytes, \.target sm_90\) and the machine code\$"
end
t nvjitlink-errors "$with" pass -- "$jl" errors; end
t nvjitlink-without-layer "$without" CUDA_ERROR_NO_BINARY_FOR_GPU -- "$jl" run nvrtc:a nvrtc:b; end

echo "jitwrap: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
