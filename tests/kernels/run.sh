#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Kernels on the emulated GPU: builds kernels.cu with nvcc (PTX text,
# zstd-compressed fatbinary, uncompressed fatbinary) and runs every test of
# drv.c on each, loaded as a module, as a library (the kernel handle passed
# as the function, as the runtime does) and through cuLink*; then runtime
# programs (<<<>>>, static and shared runtime), and programs built with
# relocatable device code (-rdc=true: one and two translation units,
# dynamic parallelism).
# BUILD (default build): the build directory holding lib/tdtrace/emu.
# Without nvcc everything is skipped with the reason (the one skip: the
# toolkit is an absent prerequisite); with it every test runs, and a test
# that cannot run (an image nvcc did not build) is a failure.
# Prints "kernels: N passed, N failed, N skipped"; exits nonzero on failure.
# ENGINES (default interp): the PTX engines to run everything on, one
# after the other ("interp jit": both, each line marked with its engine;
# docs/ptx-jit.md).
BUILD=${BUILD:-build}
ENGINES=${ENGINES:-interp}
case $ENGINES in
*" "*)
    tp=0; tf=0; ts=0
    log=$(mktemp) || exit 1
    for e in $ENGINES; do
        ENGINES=$e sh "$0" "$@" >"$log" 2>&1
        sed "/^kernels: [0-9]* passed/d; s/^/[$e] /" "$log"
        set -- $(sed -n 's/^kernels: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped.*/\1 \2 \3/p' "$log") 0 1 0
        tp=$((tp + $1)); tf=$((tf + $2)); ts=$((ts + $3))
    done
    rm -f "$log"
    echo "kernels: $tp passed, $tf failed, $ts skipped"
    [ "$tf" -eq 0 ]
    exit
    ;;
esac
export TDTRACE_EMU_ENGINE=$ENGINES
CC=${CC:-cc}
here=$(dirname "$0")
root=$(cd "$here/../.." && pwd)
lib="$root/$BUILD/lib/tdtrace/emu"
out="$root/$BUILD/tests/kernels"
pass=0; fail=0; skip=0
# NVCC, and host-side sanitizer flags for nvcc's host compiler and linker
. "$(dirname "$0")/../nvcc-env.sh"
xc=$NVCC_XFLAGS
TESTS="elementwise reduce histogram warp matmul constant call intmath printf assert sticky freerun"
if [ -z "$NVCC" ] || ! "$NVCC" --version >/dev/null 2>&1; then
    echo "kernels: skipped: no nvcc (the CUDA toolkit is not installed)"
    echo "kernels: 0 passed, 0 failed, 1 skipped"
    exit 0
fi
[ -f "$lib/libcuda.so.1" ] || { echo "kernels: $lib/libcuda.so.1 missing (make BUILD=$BUILD emu)" >&2; exit 1; }
mkdir -p "$out"
ok()   { pass=$((pass + 1)); echo "ok   $1"; }
bad()  { fail=$((fail + 1)); echo "FAIL $1"; [ -f "$2" ] && sed 's/^/    /' "$2"; }


"$NVCC" -ptx -arch=sm_75 -o "$out/kernels.ptx" "$here/kernels.cu" >"$out/nvcc.log" 2>&1 || { bad nvcc-ptx "$out/nvcc.log"; }
"$NVCC" -fatbin -arch=sm_75 -o "$out/kernels.fatbin" "$here/kernels.cu" >"$out/nvcc.log" 2>&1 || { bad nvcc-fatbin "$out/nvcc.log"; }
"$NVCC" -fatbin -arch=sm_75 -no-compress -o "$out/kernels-plain.fatbin" "$here/kernels.cu" >"$out/nvcc.log" 2>&1 || { bad nvcc-fatbin-plain "$out/nvcc.log"; }
"$NVCC" -fatbin -gencode arch=compute_75,code=sm_75 -o "$out/kernels-sass.fatbin" "$here/kernels.cu" >"$out/nvcc.log" 2>&1 || { bad nvcc-fatbin-sass "$out/nvcc.log"; }
$CC ${EXTRA_CFLAGS:-} -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Werror -I "$root/include/tdtrace" -I "$root/include" -I "$root/$BUILD/gen" \
    -o "$out/drv" "$here/drv.c" -L"$lib" -l:libcuda.so.1 -lm || { echo "kernels: cannot build drv.c" >&2; exit 1; }

run() { # name log cmd...
    name=$1; log=$2; shift 2
    if env LD_LIBRARY_PATH="$lib" "$@" >"$log" 2>&1; then ok "$name"; else bad "$name" "$log"; fi
}
for img in kernels.ptx kernels.fatbin kernels-plain.fatbin; do
    [ -f "$out/$img" ] || { bad "$img: not built (see the nvcc failure above)"; continue; }
    for how in module library; do
        for t in $TESTS; do
            log="$out/$img.$how.$t.log"
            case $t in
            printf)
                env LD_LIBRARY_PATH="$lib" "$out/drv" "$out/$img" printf $how >"$log" 2>&1
                # the kernel's lines come at synchronisation, 8 of them (the
                # emulator's own notes on stderr, such as the JIT's engine
                # line, come when the stream's worker plans the kernel,
                # which may be before the program's first line)
                if [ "$(grep -v '^tdtrace-emu: ' "$log" | sed -n 1p)" = before-sync ] && [ "$(grep -c '^hello from block [01] thread [0-3]: 7 1.25 ok$' "$log")" = 8 ] &&
                   [ "$(tail -n 1 "$log")" = after-sync ]; then ok "$img $how printf"; else bad "$img $how printf" "$log"; fi ;;
            assert)
                if env LD_LIBRARY_PATH="$lib" "$out/drv" "$out/$img" assert $how >"$log" 2>&1 &&
                   grep -q 'block: \[0,0,0\], thread: \[37,0,0\] Assertion `in\[threadIdx.x\] > 0` failed' "$log"; then
                    ok "$img $how assert"; else bad "$img $how assert" "$log"; fi ;;
            *) run "$img $how $t" "$log" "$out/drv" "$out/$img" $t $how ;;
            esac
        done
    done
done
for t in elementwise matmul call; do run "kernels.ptx link $t" "$out/link.$t.log" "$out/drv" "$out/kernels.ptx" $t link; done
# a device-side launch in PTX that names the device runtime's public
# functions, linked with libcudadevrt.a through cuLink* (as NVIDIA's
# libNVVM sample device-side-launch does): the archive adds nothing
devrt_a="$(dirname "$(dirname "$(command -v "$NVCC")")")/lib64/libcudadevrt.a"
if [ -f "$devrt_a" ]; then
    log="$out/dsl.log"
    if env LD_LIBRARY_PATH="$lib" DEVRT="$devrt_a" "$out/drv" "$here/dsl.ptx" dsl link-devrt >"$log" 2>&1 &&
       grep -q "libcudadevrt, whose device runtime is the emulator's own: nothing to link" "$log"; then
        ok "dsl.ptx: device-side launch by the public names, linked with libcudadevrt.a"
    else bad "dsl.ptx: device-side launch linked with libcudadevrt.a" "$log"; fi
else skip=$((skip + 1)); echo "skip dsl.ptx: no libcudadevrt.a at $devrt_a (the toolkit beside nvcc has none)"; fi

# machine code only: the load must say CUDA_ERROR_NO_BINARY_FOR_GPU
if [ ! -f "$out/kernels-sass.fatbin" ]; then
    bad "sass-only fatbin: not built (see the nvcc failure above)"
else
    if env LD_LIBRARY_PATH="$lib" "$out/drv" "$out/kernels-sass.fatbin" elementwise >"$out/sass.log" 2>&1; then
        bad "sass-only fatbin" "$out/sass.log"
    elif grep -q CUDA_ERROR_NO_BINARY_FOR_GPU "$out/sass.log"; then ok "sass-only fatbin: no binary for GPU"
    else bad "sass-only fatbin" "$out/sass.log"; fi
fi

# the fault report: kernel (demangled), thread, address against the
# allocation, PTX line, and the .cu line where the PTX has line info
oobline=$(grep -n 'OOB-LINE' "$here/kernels.cu" | cut -d: -f1)
if "$NVCC" -ptx -lineinfo -arch=sm_75 -o "$out/kernels-lineinfo.ptx" "$here/kernels.cu" >"$out/nvcc.log" 2>&1; then
    for img in kernels-lineinfo.ptx kernels.fatbin; do
        log="$out/$img.oob.log"
        env LD_LIBRARY_PATH="$lib" "$out/drv" "$out/$img" oob >"$log" 2>&1
        rc=$?
        if [ $rc -eq 0 ] &&
           grep -q '^tdtrace-emu: invalid global write of 4 bytes in kernel oob_write(unsigned int\*, int) (CUDA_ERROR_ILLEGAL_ADDRESS)$' "$log" &&
           grep -q '^    by thread (100,0,0) in block (0,0,0)$' "$log" &&
           grep -q '^    address 0x[0-9a-f]* = 0x[0-9a-f]*+0x190: 0 bytes past the end of a 400-byte device allocation (cuMemAlloc)$' "$log" &&
           grep -q '^    at PTX line [0-9]*: st\.global\.u32' "$log" &&
           { [ $img != kernels-lineinfo.ptx ] || grep -q "(.*kernels\.cu:$oobline:[0-9]*)\$" "$log"; }; then
            ok "$img fault report"
        else bad "$img fault report" "$log"; fi
    done
else
    bad nvcc-ptx-lineinfo "$out/nvcc.log"
fi

# of a fatbinary's PTX images the device runs the best at or below its
# compute capability, as the driver chooses; none: CUDA_ERROR_NO_BINARY_FOR_GPU
if "$NVCC" -fatbin -gencode arch=compute_75,code=compute_75 -gencode arch=compute_90,code=compute_90 \
        -gencode arch=compute_120,code=compute_120 -o "$out/kernels-multi.fatbin" "$here/kernels.cu" >"$out/nvcc.log" 2>&1; then
    for pa in t4:750 a100:750 h100:900 b200:900 rtx5090:1200; do
        p=${pa%%:*}; want=${pa#*:}
        for how in module library; do
            log="$out/multi.$p.$how.log"
            if env LD_LIBRARY_PATH="$lib" TDTRACE_EMU_PROFILE=$p "$out/drv" "$out/kernels-multi.fatbin" arch $how >"$log" 2>&1 &&
               grep -qx "arch $want" "$log"; then ok "multi-arch fatbin $p $how: compute_${want%0}"; else bad "multi-arch fatbin $p $how" "$log"; fi
        done
    done
else
    bad nvcc-fatbin-multi "$out/nvcc.log"
fi
if "$NVCC" -fatbin -gencode arch=compute_120,code=compute_120 -o "$out/kernels-120.fatbin" "$here/kernels.cu" >"$out/nvcc.log" 2>&1; then
    log="$out/newer.h100.log"
    if env LD_LIBRARY_PATH="$lib" TDTRACE_EMU_PROFILE=h100 "$out/drv" "$out/kernels-120.fatbin" arch >"$log" 2>&1; then
        bad "compute_120 PTX on h100 is refused" "$log"
    elif grep -q CUDA_ERROR_NO_BINARY_FOR_GPU "$log" && grep -q 'PTX for compute_120' "$log"; then
        ok "compute_120 PTX on h100: no binary for GPU, and why"
    else bad "compute_120 PTX on h100 is refused" "$log"; fi
    run "compute_120 PTX on rtx5090 elementwise" "$out/newer.rtx5090.log" env TDTRACE_EMU_PROFILE=rtx5090 "$out/drv" "$out/kernels-120.fatbin" elementwise
else
    bad nvcc-fatbin-120 "$out/nvcc.log"
fi

# runtime programs
for v in static shared; do
    flags=""
    [ $v = shared ] && flags="-cudart shared"
    if ! "$NVCC" $xc $flags -o "$out/rt-$v" "$here/rt.cu" >"$out/rt-$v.build.log" 2>&1; then bad "runtime $v (build)" "$out/rt-$v.build.log"; continue; fi
    run "runtime $v" "$out/rt-$v.log" "$out/rt-$v"
done

# cooperative launches: grid.sync() with every block resident, on all the
# host threads and on one (where the blocks take turns)
if "$NVCC" $xc -o "$out/coop" "$here/coop.cu" >"$out/coop.build.log" 2>&1; then
    for th in "" 1; do # TDTRACE_EMU_THREADS empty: every core
        log="$out/coop.${th:-all}.log"
        if env LD_LIBRARY_PATH="$lib" TDTRACE_EMU_THREADS="$th" "$out/coop" >"$log" 2>&1 && grep -qx PASS "$log"; then
            ok "cooperative launch, grid.sync() (${th:-all} host threads)"
        else bad "cooperative launch (${th:-all} host threads)" "$log"; fi
    done
else
    bad "cooperative launch (build)" "$out/coop.build.log"
fi

# relocatable device code (nvcc -rdc=true): the runtime registers nvlink's
# machine code; the emulator links the PTX of every translation unit
rdcg="-gencode arch=compute_90,code=[sm_90,compute_90]"
rdc_run() { # name: runs $out/$name on an H100 profile into $out/$name.log
    env LD_LIBRARY_PATH="$lib" TDTRACE_EMU_PROFILE=h100 "$out/$1" >"$out/$1.log" 2>&1
}
if "$NVCC" $xc -rdc=true $rdcg -o "$out/rdc-rt" "$here/rt.cu" >"$out/rdc-rt.build.log" 2>&1; then
    if rdc_run rdc-rt && grep -q 'linked the PTX of 1 translation unit: TU 1 (compute_90: ' "$out/rdc-rt.log"; then
        ok "rdc: runtime program, one translation unit"; else bad "rdc: runtime program, one translation unit" "$out/rdc-rt.log"; fi
else bad "rdc: runtime program (build)" "$out/rdc-rt.build.log"; fi
if "$NVCC" $xc -rdc=true $rdcg -o "$out/rdc-ab" "$here/rdc_a.cu" "$here/rdc_b.cu" >"$out/rdc-ab.build.log" 2>&1; then
    if rdc_run rdc-ab && grep -qx 'rdc: ok (0 wrong)' "$out/rdc-ab.log" && grep -qx 'a_kernel: from a.cu' "$out/rdc-ab.log" &&
       grep -qx 'b_fill: from b.cu' "$out/rdc-ab.log" &&
       grep -q 'linked the PTX of 2 translation units: TU 1 (compute_90: .*), TU 2 (compute_90: .*)$' "$out/rdc-ab.log"; then
        ok "rdc: two translation units (calls, globals, statics, weak functions across them)"
    else bad "rdc: two translation units" "$out/rdc-ab.log"; fi
else bad "rdc: two translation units (build)" "$out/rdc-ab.build.log"; fi
# dynamic parallelism (CDP2): the device runtime is the engine's own;
# each check of rdc_dp.cu is a test (children writing data, recursion,
# the depth and pending-launch limits, device streams, tail launch,
# device-side memory functions and their 2D forms, the heap limit, queries, bad launches returning errors,
# a child's fault failing the host launch), and printf from children
if "$NVCC" $xc -rdc=true $rdcg -o "$out/rdc-dp" "$here/rdc_dp.cu" >"$out/rdc-dp.build.log" 2>&1; then
    rdc_run rdc-dp
    log="$out/rdc-dp.log"
    n=0
    while IFS= read -r line; do
        case $line in
        *": ok") n=$((n + 1)); ok "rdc: dynamic parallelism: ${line%: ok}" ;;
        *": FAIL "*) n=$((n + 1)); bad "rdc: dynamic parallelism: $line" ;;
        esac
    done <"$log"
    if [ "$n" -eq 13 ] && grep -qx PASSED "$log"; then ok "rdc: dynamic parallelism: every check ran"
    else bad "rdc: dynamic parallelism: $n of 13 checks ran" "$log"; fi
    if [ "$(grep -c '^child says 7 from block [01] thread [01]$' "$log")" = 4 ]; then ok "rdc: dynamic parallelism: printf from child grids"
    else bad "rdc: dynamic parallelism: printf from child grids" "$log"; fi
    if grep -q "^tdtrace-emu: kernel _Z10bad_parentPiPv: device runtime: __cudaCDP2RuntimeGetVersion is not supported by the emulator" "$log" &&
       grep -q '^    in a child grid (nesting depth 1) launched by kernel oob_parent(int\*)$' "$log" &&
       grep -q "TU 2, libcudadevrt's device runtime, is the emulator's own" "$log"; then
        ok "rdc: dynamic parallelism: the report names unsupported calls and a faulting child grid"
    else bad "rdc: dynamic parallelism: the report" "$log"; fi
else bad "rdc: dynamic parallelism (build)" "$out/rdc-dp.build.log"; fi
# under tdtrace: child grids are kernel runs without launches in -c's table
if [ -x "$root/$BUILD/bin/tdtrace" ] && [ -x "$out/rdc-dp" ]; then
    log="$out/rdc-dp.tdtrace.log"
    env ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}" "$root/$BUILD/bin/tdtrace" -c --emulate=profile=h100 -- "$out/rdc-dp" >"$log" 2>&1
    if grep -Eq '^ +[0-9.]+ +[0-9.]+ +[0-9]+ +[0-9]+ +[0-9]+ +0 +66 fill\(int\*, int, int\)$' "$log" &&
       grep -Eq '^ +[0-9.]+ +[0-9.]+ +[0-9]+ +[0-9]+ +[0-9]+ +1 +1 fill_parent\(int\*, int, int\*\)$' "$log" &&
       grep -Eq '^ +[0-9.]+ +[0-9.]+ +[0-9]+ +[0-9]+ +[0-9]+ +1 +25 deep\(int, int\*, int\*\)$' "$log"; then
        ok "rdc: dynamic parallelism under tdtrace: child grids are kernel runs in the summary"
    else bad "rdc: dynamic parallelism under tdtrace" "$log"; fi
else bad "rdc: dynamic parallelism under tdtrace: $root/$BUILD/bin/tdtrace or $out/rdc-dp missing"; fi
# a tree of child grids without end: the host launch's time limit ends it
if "$NVCC" $xc -rdc=true $rdcg -o "$out/rdc-dp-bomb" "$here/rdc_dp_bomb.cu" >"$out/rdc-dp-bomb.build.log" 2>&1; then
    if env LD_LIBRARY_PATH="$lib" TDTRACE_EMU_PROFILE=h100 TDTRACE_EMU_TIMEOUT=1 "$out/rdc-dp-bomb" >"$out/rdc-dp-bomb.log" 2>&1 &&
       grep -qx 'bomb: cudaErrorLaunchTimeout' "$out/rdc-dp-bomb.log" &&
       grep -q '^    in a child grid (nesting depth [0-9]*) launched by kernel bomb(int)$' "$out/rdc-dp-bomb.log"; then
        ok "rdc: dynamic parallelism: the time limit covers a launch's child grids"
    else bad "rdc: dynamic parallelism: time limit" "$out/rdc-dp-bomb.log"; fi
else bad "rdc: dynamic parallelism: time limit (build)" "$out/rdc-dp-bomb.build.log"; fi
echo "kernels: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
