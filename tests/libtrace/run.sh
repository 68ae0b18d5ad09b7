#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tdtrace -e lib=PATTERN (docs/library-tracing.md) on the emulated GPU:
#   - sgemm.c through tdtrace's host cuBLAS: cublasSgemm_v2 decoded
#     (src/api/libs.api) with its status, [host: OpenBLAS sgemm], its
#     driver calls nested beneath it; an undescribed function
#     (cublasGetVersion_v2) by name with its raw registers; JSON (library,
#     host, parent; the schema holds), -c, -T, -e trace= by name;
#     nothing of cuBLAS without -e lib=
#   - tests/hostlib/mlp.cu (nvcc) with --runtime: both levels, cublasGemmEx
#     decoded (19 arguments, 13 of them on the stack)
#   - ltlibs.c: a library call inside another library's call, nested; a
#     library opened by dlopen in a program linked with the driver, closed
#     and opened again
#   - runpath.c: a library whose DT_RUNPATH (or DT_RPATH) $ORIGIN/sub
#     alone finds the library it opens by a bare name with dlopen, under
#     -e lib= and --runtime (libtdruntime.so's dlopen searches for it)
#   - policies (deny, inject) on described and undescribed library calls
#   - the host cuSPARSE (tests/hostlib/cusparse.c): cusparseSpMV decoded,
#     a function it does not implement named with its status
#   - tests/hostlib/cudnn_backend.c through tdtrace's host cuDNN:
#     cudnnBackendExecute decoded, with its host mark and its driver calls
#   - nccl.c: NCCL opened with dlopen, ncclCommInitAll on 2 emulated
#     devices: the calls by name whatever NCCL returned (skipped without
#     NCCL: TD_NCCL=path/to/libnccl.so.2)
#
#   BUILD=build [EXTRA_CFLAGS=...] sh tests/libtrace/run.sh
#
# Prints "libtrace: N passed, N failed, N skipped"; exits 1 on a failure.
BUILD=${BUILD:-build}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tdtrace="$root/$BUILD/bin/tdtrace"
emu="$root/$BUILD/lib/tdtrace/emu"
host="$root/$BUILD/lib/tdtrace/host"
out="$root/$BUILD/tests/libtrace"
CC=${CC:-cc}
# -e lib= preloads tdtrace's libtdruntime.so (built without the sanitizers) in
# front of a sanitized test program's ASan runtime: let ASan accept it; and
# LeakSanitizer does not work under ptrace (as in tests/cudart)
export ASAN_OPTIONS="detect_leaks=0:${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
pass=0; fail=0; skip=0
mkdir -p "$out"
ok()  { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1${2:+: $2}"; [ -f "${3:-}" ] && sed 's/^/    /' "$3" | tail -n 30; }
skp() { skip=$((skip + 1)); echo "skip $1: $2"; }
tmo=""
command -v timeout >/dev/null 2>&1 && tmo="timeout 120"
cflags="${EXTRA_CFLAGS:-} -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror -I$root/include/tdtrace -I$root/include -I$root/$BUILD/gen"

# trace NAME PROG-AND-ARGS...: the trace in $out/NAME.trace, the program's output in NAME.out
trace() {
    name=$1; shift
    opts=""
    while [ "$1" != "--" ]; do opts="$opts $1"; shift; done
    shift
    # shellcheck disable=SC2086
    $tmo "$tdtrace" --backend=emulate -o "$out/$name.trace" $opts -- "$@" >"$out/$name.out" 2>"$out/$name.err"
}

# nested FILE OUTER INNER: INNER( is indented beneath OUTER( (deeper, before the next line as shallow as OUTER)
nested() {
    awk -v o="$2(" -v i="$3(" '
        { line = $0; sub(/^ */, "", line); d = length($0) - length(line) }
        in_o && d <= od { in_o = 0 }
        in_o && d > od && index(line, i) == 1 { found = 1 }
        index(line, o) == 1 { in_o = 1; od = d }
        END { exit !found }' "$1"
}

# ---- cuBLAS (the host one) -------------------------------------------------
if [ ! -f "$host/libcublas.so.13" ]; then
    for t in sgemm json summary filters off; do skp "$t" "$host/libcublas.so.13 was not built (docs/hostlib.md)"; done
elif ! $CC $cflags -I"$root/src/hostlib/cublas" -o "$out/sgemm" "$here/sgemm.c" -L"$emu" -L"$host" \
        -l:libcuda.so.1 -l:libcublas.so.13 >"$out/sgemm.build" 2>&1; then
    bad "sgemm (build)" "" "$out/sgemm.build"
else
    t="sgemm"
    if ! trace sgemm -e 'lib=libcublas*' -T -- "$out/sgemm"; then
        bad "$t" "tdtrace failed" "$out/sgemm.err"
    elif ! grep -q 'sgemm ok' "$out/sgemm.out"; then
        bad "$t" "the program failed" "$out/sgemm.out"
    elif grep -q '^cublasSgemm_v2(0x[0-9a-f]*, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, 0x[0-9a-f]*, 0x[0-9a-f]*, 2, 0x[0-9a-f]*, 2, 0x[0-9a-f]*, 0x[0-9a-f]*, 2) = CUBLAS_STATUS_SUCCESS \[host: OpenBLAS sgemm\] <[0-9.]*>$' "$out/sgemm.trace" &&
         grep -q '^cublasCreate_v2(&0x[0-9a-f]*) = CUBLAS_STATUS_SUCCESS <' "$out/sgemm.trace" &&
         grep -q '^cublasGetVersion_v2(0x[0-9a-f]*, 0x[0-9a-f]*, [^)]*) = 0 <' "$out/sgemm.trace" &&
         nested "$out/sgemm.trace" cublasSgemm_v2 cuLaunchHostFunc &&
         nested "$out/sgemm.trace" cublasCreate_v2 cuInit; then
        ok "$t"
    else
        bad "$t" "a library call undecoded, without its host mark or its driver calls beneath it" "$out/sgemm.trace"
    fi

    t="json"
    if trace json -e 'lib=libcublas*' --json="$out/json.jsonl" -- "$out/sgemm" &&
       python3 "$root/tools/check-json.py" "$root/share/tdtrace-trace.schema.json" "$out/json.jsonl" >"$out/json.check" 2>&1 &&
       python3 - "$out/json.jsonl" >>"$out/json.check" 2>&1 <<'PY'
import json, sys
calls = [r for r in (json.loads(l) for l in open(sys.argv[1]) if l.strip()) if r.get("type") == "call"]
g = [r for r in calls if r["call"] == "cublasSgemm_v2"]
assert len(g) == 1, "one cublasSgemm_v2"
g = g[0]
assert g["library"] == "libcublas.so.13" and g["host"] == "OpenBLAS sgemm", g
assert g["retname"] == "CUBLAS_STATUS_SUCCESS" and g["args"]["transa"] == "CUBLAS_OP_N" and g["args"]["ldc"] == 2, g
h = [r for r in calls if r["call"] == "cuLaunchHostFunc"]
assert h and h[0]["parent"] == g["id"] and h[0]["depth"] == 1, h
assert calls.index(g) < calls.index(h[0]), "the library call comes first"
v = [r for r in calls if r["call"] == "cublasGetVersion_v2"]
assert v and v[0]["library"] == "libcublas.so.13" and "rdi" in v[0]["args"], v
PY
    then ok "$t"; else bad "$t" "" "$out/json.check"; fi

    t="summary"
    if trace summary -e 'lib=libcublas*' -c -- "$out/sgemm" && grep -q ' cublasSgemm_v2$' "$out/summary.trace" &&
       grep -q ' cublasGetVersion_v2$' "$out/summary.trace" && ! grep -q 'LIB.call' "$out/summary.trace"; then
        ok "$t"
    else
        bad "$t" "" "$out/summary.trace"
    fi

    t="filters"
    if trace f1 -e 'lib=libcublas*' -e trace=cublasGetVersion_v2 -- "$out/sgemm" &&
       [ "$(grep -c '^ *cu' "$out/f1.trace")" = 1 ] && grep -q '^cublasGetVersion_v2(' "$out/f1.trace" &&
       trace f2 -e 'lib=libcublas*' -e 'trace=%library' -- "$out/sgemm" && grep -q '^cublasSgemm_v2(' "$out/f2.trace" &&
       ! grep -q '^ *cuMem' "$out/f2.trace" &&
       trace f3 -e 'lib=libcublas*' -e 'trace=!cublasSgemm_v2' -- "$out/sgemm" && ! grep -q 'cublasSgemm_v2' "$out/f3.trace" &&
       grep -q '^cuLaunchHostFunc(' "$out/f3.trace" && grep -q '^cublasGetVersion_v2(' "$out/f3.trace"; then
        ok "$t"
    else
        bad "$t" "" "$out/f1.trace"
    fi

    # NVIDIA's own cuBLAS and cuBLASLt (the toolkit's; their kernels have no
    # PTX for the emulated device, so the sgemm fails): cuBLASLt's calls
    # nested in cublasSgemm_v2, the kernel launch beneath them
    t="NVIDIA's cuBLAS"
    cudalib=${CUDA_HOME:-/usr/local/cuda}/lib64
    if [ ! -f "$cudalib/libcublas.so.13" ] || [ ! -f "$cudalib/libcublasLt.so.13" ]; then
        skp "$t" "no $cudalib/libcublas.so.13 (the CUDA toolkit is not installed)"
    elif LD_LIBRARY_PATH="$cudalib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
             trace nv --library=cublas=nvidia,cublaslt=nvidia -e 'lib=libcublas*' -- "$out/sgemm";
         grep -q '^cublasSgemm_v2(0x[0-9a-f]*, CUBLAS_OP_N, .*) = CUBLAS_STATUS_' "$out/nv.trace" &&
         nested "$out/nv.trace" cublasSgemm_v2 cublasLtSSSMatmul &&
         nested "$out/nv.trace" cublasLtSSSMatmul cuLaunchKernel &&
         grep -q '^    cuLaunchKernel(' "$out/nv.trace"; then
        ok "$t ($(grep -o '^cublasSgemm_v2(.*' "$out/nv.trace" | sed 's/.*) = //'))"
    else
        bad "$t" "" "$out/nv.trace"
    fi

    t="off without -e lib="
    if trace off -- "$out/sgemm" && grep -q '^cuLaunchHostFunc(' "$out/off.trace" && ! grep -q '^ *cublas' "$out/off.trace"; then
        ok "$t"
    else
        bad "$t" "" "$out/off.trace"
    fi
fi

# ---- with --runtime: tests/hostlib/mlp.cu (nvcc; the toolkit's cuBLAS at link time) ------
. "$here/../nvcc-env.sh"
t="--runtime and -e lib="
if [ -z "$NVCC" ] || ! "$NVCC" --version >/dev/null 2>&1; then
    skp "$t" "nvcc not found (no CUDA toolkit on PATH or in /usr/local/cuda; set TD_NVCC=...)"
elif [ ! -f "$host/libcublas.so.13" ]; then
    skp "$t" "$host/libcublas.so.13 was not built (docs/hostlib.md)"
elif ! "$NVCC" $NVCC_XFLAGS -o "$out/mlp" "$root/tests/hostlib/mlp.cu" -lcublas >"$out/mlp.build" 2>&1; then
    skp "$t" "$NVCC cannot build tests/hostlib/mlp.cu here: $(head -n 1 "$out/mlp.build")"
elif trace mlp --runtime -e 'lib=libcublas*' -- "$out/mlp" && grep -q PASS "$out/mlp.out" &&
     nested "$out/mlp.trace" cudaMalloc cuMemAlloc_v2 &&
     grep -q '^cublasGemmEx(0x[0-9a-f]*, CUBLAS_OP_N, CUBLAS_OP_N, .*, CUDA_R_32F, .*, CUBLAS_COMPUTE_32F, -1) = CUBLAS_STATUS_SUCCESS \[host: OpenBLAS sgemm\]$' "$out/mlp.trace" &&
     grep -q '^cublasSetStream_v2(0x[0-9a-f]*, stream#[0-9]*) = CUBLAS_STATUS_SUCCESS$' "$out/mlp.trace"; then
    ok "$t"
else
    bad "$t" "" "$out/mlp.trace"
fi

# ---- a library call inside another ---------------------------------------------
t="library in library"
if $CC $cflags -fPIC -shared -DLT_INNER -o "$out/libltinner.so" "$here/ltlibs.c" -L"$emu" -l:libcuda.so.1 >"$out/lt.build" 2>&1 &&
   $CC $cflags -fPIC -shared -o "$out/libltouter.so" "$here/ltlibs.c" -L"$out" -lltinner -Wl,-rpath,"$out" >>"$out/lt.build" 2>&1 &&
   $CC $cflags -DLT_MAIN -o "$out/ltmain" "$here/ltlibs.c" -L"$out" -lltouter -Wl,-rpath,"$out" -Wl,-rpath-link,"$emu" >>"$out/lt.build" 2>&1; then
    if trace lt -e 'lib=liblt*' -- "$out/ltmain" && grep -q '^lt_outer(5) = 7' "$out/lt.out" &&
       grep -q '^lt_outer(0x5, ' "$out/lt.trace" && grep -q '^  lt_inner(0x5, .*) = 7$' "$out/lt.trace" &&
       grep -q '^    cuDriverGetVersion(&' "$out/lt.trace"; then
        ok "$t"
    else
        bad "$t" "" "$out/lt.trace"
    fi
else
    bad "$t (build)" "" "$out/lt.build"
fi

# ---- a library opened with dlopen by a program that has the shim from its start ----------
t="dlopen after start, dlclose, dlopen again"
if $CC $cflags -DLT_DLOPEN -o "$out/ltdl" "$here/ltlibs.c" -L"$emu" -l:libcuda.so.1 -ldl >"$out/ltdl.build" 2>&1; then
    if trace ltdl -e 'lib=libltouter*' -- "$out/ltdl" "$out/libltouter.so" && grep -q '^lt_outer(41) = 43' "$out/ltdl.out" &&
       grep -q '^lt_outer(0x28, .*) = 42$' "$out/ltdl.trace" && grep -q '^lt_outer(0x29, .*) = 43$' "$out/ltdl.trace" &&
       [ "$(grep -c '^  cuDriverGetVersion(&' "$out/ltdl.trace")" = 2 ] && ! grep -q 'lt_inner' "$out/ltdl.trace"; then
        ok "$t"
    else
        bad "$t" "" "$out/ltdl.trace"
    fi
else
    bad "$t (build)" "" "$out/ltdl.build"
fi

# ---- dlopen of a bare name found by the calling library's DT_RUNPATH / DT_RPATH ----------
# libA.so (RUNPATH, or RPATH, $ORIGIN/sub) opens "libB.so", which only
# sub/ holds; the program then opens "libB.so" itself (found loaded, by
# its soname). The interposed dlopen must search as ld.so does for libA;
# and not read a DT_RUNPATH/DT_RPATH offset outside libA's string table
# (runpath.c -DRP_HOSTILE corrupts it in memory; run under tdtrace only).
# Built without the sanitizers: a sanitizer's own dlopen interceptor loses
# the caller's RUNPATH too, so the program would fail without tdtrace.
rpflags="-std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror"
for dt in runpath rpath; do
    t="dlopen by $dt \$ORIGIN"
    d="$out/rp-$dt"
    rm -rf "$d" && mkdir -p "$d/sub"
    if [ $dt = runpath ]; then tags=-Wl,--enable-new-dtags; else tags=-Wl,--disable-new-dtags; fi
    if $CC $rpflags -fPIC -shared -DRP_B -Wl,-soname,libB.so -o "$d/sub/libB.so" "$here/runpath.c" >"$d/build" 2>&1 &&
       $CC $rpflags -fPIC -shared -DRP_A $tags -Wl,-rpath,'$ORIGIN/sub' -o "$d/libA.so" "$here/runpath.c" -ldl >>"$d/build" 2>&1 &&
       $CC $rpflags -o "$d/main" "$here/runpath.c" -L"$d" -lA -Wl,--enable-new-dtags -Wl,-rpath,"$d" -ldl >>"$d/build" 2>&1 &&
       $CC $rpflags -DRP_HOSTILE -o "$d/hostile" "$here/runpath.c" -L"$d" -lA -Wl,--enable-new-dtags -Wl,-rpath,"$d" -ldl >>"$d/build" 2>&1 &&
       mkdir -p "$d/llp" &&
       $CC $rpflags -fPIC -shared -DRP_B -DRP_FACTOR=5 -Wl,-soname,libB.so -o "$d/llp/libB.so" "$here/runpath.c" >>"$d/build" 2>&1; then
        # with another libB.so in LD_LIBRARY_PATH: the one ld.so picks (RUNPATH: LD_LIBRARY_PATH's, rp_a(4) = 21;
        # RPATH: its own, 13), traced or not
        LD_LIBRARY_PATH="$d/llp" "$d/main" >"$d/llp.plain" 2>&1
        env LD_LIBRARY_PATH="$d/llp${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" $tmo "$tdtrace" --backend=emulate \
            -o "$out/rp-$dt-llp.trace" -e 'lib=libA.so' -- "$d/main" >"$out/rp-$dt-llp.out" 2>"$out/rp-$dt-llp.err"
        if [ $dt = runpath ]; then want='rp_a(4) = 21'; else want=PASS; fi
        if ! "$d/main" >"$d/plain.out" 2>&1 || ! grep -q PASS "$d/plain.out"; then
            bad "$t (without tdtrace)" "" "$d/plain.out"
        elif trace "rp-$dt" -e 'lib=libA.so' -- "$d/main" && grep -q PASS "$out/rp-$dt.out" &&
             grep -q '^rp_a(0x4, .*) = 13$' "$out/rp-$dt.trace" &&
             trace "rp-$dt-rt" --runtime -- "$d/main" && grep -q PASS "$out/rp-$dt-rt.out" &&
             trace "rp-$dt-bad" --runtime -- "$d/hostile" && grep -q HOSTILE-OK "$out/rp-$dt-bad.out" &&
             grep -qF "$want" "$d/llp.plain" && cat "$out/rp-$dt-llp.out" "$out/rp-$dt-llp.err" | grep -qF "$want"; then
            ok "$t"
        else
            bad "$t" "" "$out/rp-$dt.err"
        fi
    else
        bad "$t (build)" "" "$d/build"
    fi
done

# ---- NCCL ----------------------------------------------------------------------------
nccl=${TD_NCCL:-}
[ -z "$nccl" ] && for f in /usr/local/cuda/lib/libnccl.so.2 /usr/local/cuda-13.0/lib/libnccl.so.2 \
                          /usr/lib/x86_64-linux-gnu/libnccl.so.2; do [ -f "$f" ] && { nccl=$f; break; }; done
t="nccl"
if [ -z "$nccl" ]; then
    skp "$t" "no libnccl.so.2 (set TD_NCCL=path/to/libnccl.so.2)"
elif ! $CC $cflags -o "$out/nccl" "$here/nccl.c" -ldl >"$out/nccl.build" 2>&1; then
    bad "$t (build)" "" "$out/nccl.build"
elif TDTRACE_EMU_DEVICES=2 trace nccl -e 'lib=libnccl*' -- "$out/nccl" "$nccl" &&
     grep -q '^ncclGetVersion(&[0-9]*) = ncclSuccess$' "$out/nccl.trace" &&
     grep -q '^ncclCommInitAll(&0x[0-9a-f]*, 2, 0x[0-9a-f]*) = nccl' "$out/nccl.trace" &&
     nested "$out/nccl.trace" ncclCommInitAll cuInit; then
    ok "$t ($(grep -o '^ncclCommInitAll(.*' "$out/nccl.trace" | sed 's/.*) = //'))"
else
    bad "$t" "" "$out/nccl.trace"
fi

# ---- policies on library calls ------------------------------------------------------
# a denied cublasSgemm_v2 returns the rule's cublasStatus_t without running
# (no host note, no driver call beneath); an inject with a number on
# %library reaches undescribed functions (LIB.call, one count for all of
# them: lt_outer is the 1st, lt_inner the 2nd), LIB.lt_inner that one by
# its name; a value of another status
# type is refused at load
t="policy on library calls"
if [ -x "$out/sgemm" ] && [ -x "$out/ltmain" ]; then
    trace pdeny -e 'lib=libcublas*' --deny=cublasSgemm_v2:error=CUBLAS_STATUS_NOT_SUPPORTED -- "$out/sgemm"
    trace pinj -e 'lib=liblt*' --inject=%library:error=9:when=2 -- "$out/ltmain"
    trace pname -e 'lib=liblt*' --inject=LIB.lt_inner:error=8 -- "$out/ltmain"
    if grep -q '^sgemm failed: 15' "$out/pdeny.out" &&
       grep -q '^cublasSgemm_v2(.*) = CUBLAS_STATUS_NOT_SUPPORTED (15) (DENIED by --deny)$' "$out/pdeny.trace" &&
       ! grep -q 'host: OpenBLAS' "$out/pdeny.trace" &&
       grep -q '^lt_outer(5) = 9' "$out/pinj.out" &&
       grep -q '^  lt_inner(0x5, .*) = 9 (INJECTED by --inject)$' "$out/pinj.trace" &&
       ! grep -q 'cuDriverGetVersion' "$out/pinj.trace" &&
       grep -q '^lt_outer(5) = 8' "$out/pname.out" && grep -q '^lt_outer(0x5, .*) = 8$' "$out/pname.trace" &&
       grep -q '^  lt_inner(0x5, .*) = 8 (INJECTED by --inject)$' "$out/pname.trace" &&
       ! "$tdtrace" --backend=emulate -e 'lib=libcublas*' --deny=cublasSgemm_v2:error=cudaErrorInvalidValue -- "$out/sgemm" \
           >"$out/pbad.err" 2>&1 &&
       grep -q 'cudaErrorInvalidValue is not a cublasStatus_t (what cublasSgemm_v2 returns)' "$out/pbad.err" &&
       ! "$tdtrace" --backend=emulate -e 'lib=libcublas*' --deny=cublasSgemm_v2 -- "$out/sgemm" >"$out/pbad2.err" 2>&1 &&
       grep -q "'deny cublasSgemm_v2' needs error=" "$out/pbad2.err"; then
        ok "$t"
    else
        bad "$t" "" "$out/pdeny.trace"
    fi
else
    skp "$t" "sgemm or ltmain was not built (see above)"
fi

# ---- cuDNN's backend API ----------------------------------------------------------------
# tests/hostlib/cudnn_backend.c through tdtrace's host cuDNN: cudnnBackendExecute
# decoded with its status and [host: cuDNN graph ...], its cuLaunchHostFunc
# beneath it; a refused one with its status, no host mark
t="cudnn backend"
if [ ! -f "$host/libcudnn.so.9" ]; then
    skp "$t" "$host/libcudnn.so.9 was not built (docs/hostlib.md)"
elif ! $CC $cflags -pthread -I"$root/src/hostlib/cudnn" -o "$out/cudnn_backend" "$root/tests/hostlib/cudnn_backend.c" \
        -L"$emu" -L"$host" -l:libcuda.so.1 -l:libcudnn.so.9 -lm >"$out/cudnn_backend.build" 2>&1; then
    bad "$t (build)" "" "$out/cudnn_backend.build"
elif trace cudnn_backend -e 'lib=libcudnn*' -- "$out/cudnn_backend" && grep -q ', 0 failed' "$out/cudnn_backend.out" &&
     grep -q '^cudnnBackendExecute(0x[0-9a-f]*, 0x[0-9a-f]*, 0x[0-9a-f]*) = CUDNN_STATUS_SUCCESS \[host: cuDNN graph: oneDNN convolutions, host loops\]$' "$out/cudnn_backend.trace" &&
     grep -q '^cudnnBackendExecute(0x[0-9a-f]*, 0x[0-9a-f]*, 0x[0-9a-f]*) = CUDNN_STATUS_BAD_PARAM_NULL_POINTER (2002)$' "$out/cudnn_backend.trace" &&
     nested "$out/cudnn_backend.trace" cudnnBackendExecute cuLaunchHostFunc; then
    ok "$t"
else
    bad "$t" "cudnnBackendExecute undecoded, without its host mark or its driver calls beneath it" "$out/cudnn_backend.trace"
fi

# ---- refusals ------------------------------------------------------------------------
t="refusals"
if ! "$tdtrace" -e 'lib=a:b' -- true >"$out/r1.err" 2>&1 && grep -q "invalid -e lib='a:b'" "$out/r1.err" &&
   ! "$tdtrace" -e 'lib=' -- true >"$out/r2.err" 2>&1 && grep -q "invalid -e lib=''" "$out/r2.err" &&
   ! "$tdtrace" -p $$ -e 'lib=x*' >"$out/r3.err" 2>&1 && grep -q "cannot attach with -e lib=" "$out/r3.err"; then
    ok "$t"
else
    cat "$out/r1.err" "$out/r2.err" "$out/r3.err" > "$out/r.err" 2>/dev/null
    bad "$t" "" "$out/r.err"
fi

# the host cuSPARSE (tests/hostlib/cusparse.c): cusparseSpMV decoded with
# its enums, its status and [host: ...]; a bad call's status by name; a
# function the host library does not implement (its stub) by its own name
# with CUSPARSE_STATUS_NOT_SUPPORTED's value
t="cusparse"
if [ ! -f "$host/libcusparse.so.12" ]; then
    skp "$t" "$host/libcusparse.so.12 was not built (docs/hostlib.md)"
elif ! $CC $cflags -I"$root/src/hostlib/cusparse" -o "$out/sparse" "$root/tests/hostlib/cusparse.c" -L"$emu" -L"$host" \
        -l:libcuda.so.1 -l:libcusparse.so.12 -lm >"$out/sparse.build" 2>&1; then
    bad "$t (build)" "" "$out/sparse.build"
elif ! trace sparse -e 'lib=libcusparse*' -e trace=%library -- "$out/sparse"; then
    bad "$t" "tdtrace failed" "$out/sparse.err"
elif grep -q '^cusparseSpMV(0x[0-9a-f]*, CUSPARSE_OPERATION_NON_TRANSPOSE, 0x[0-9a-f]*, 0x[0-9a-f]*, 0x[0-9a-f]*, 0x[0-9a-f]*, 0x[0-9a-f]*, CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, NULL) = CUSPARSE_STATUS_SUCCESS \[host: host loop (CSR SpMV)\]$' "$out/sparse.trace" &&
     grep -q '^cusparseSpMV(.*) = CUSPARSE_STATUS_INVALID_VALUE (3)$' "$out/sparse.trace" &&
     grep -q '^cusparseCreate(&0x[0-9a-f]*) = CUSPARSE_STATUS_SUCCESS$' "$out/sparse.trace" &&
     grep -q '^cusparseSpGEMM_createDescr(0x[0-9a-f]*, [^)]*) = 10$' "$out/sparse.trace"; then
    ok "$t: cusparseSpMV decoded with [host: host loop (CSR SpMV)]; a stub by name = 10"
else
    bad "$t" "a cuSPARSE call undecoded, or the stub not named" "$out/sparse.trace"
fi

echo "libtrace: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
