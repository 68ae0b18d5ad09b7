#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The host implementations of NVIDIA's libraries (src/hostlib) on the
# emulated GPU:
#   - each library's C test, built against tdtrace's own declarations;
#   - its exported symbols and versions against NVIDIA's library (when the
#     toolkit is installed);
#   - programs built with nvcc against NVIDIA's headers and libraries, run
#     with the host implementation in front (when nvcc is there).
# A library that was not built (its host back end missing) is skipped with
# the reason, and so is what needs the toolkit.
#   BUILD=build [TD_NVCC=...] [TD_CUDNN_FRONTEND=DIR] [EXTRA_CFLAGS=...] sh tests/hostlib/run.sh
# Prints "hostlib: N passed, N failed, N skipped"; exits nonzero on failure.
BUILD=${BUILD:-build}
CC=${CC:-cc}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
emu="$root/$BUILD/lib/tdtrace/emu"
host="$root/$BUILD/lib/tdtrace/host"
out="$root/$BUILD/tests/hostlib"
cuda=${CUDA_HOME:-/usr/local/cuda}
pass=0; fail=0; skip=0
ok()  { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -f "$2" ] && sed 's/^/    /' "$2"; }
skp() { skip=$((skip + 1)); echo "skip $1: $2"; }
. "$here/../nvcc-env.sh"
[ -f "$emu/libcuda.so.1" ] || { echo "hostlib: $emu/libcuda.so.1 missing (make BUILD=$BUILD emu)" >&2; exit 1; }
mkdir -p "$out"
export LD_LIBRARY_PATH="$emu:$host"
# OpenBLAS and oneDNN (OpenMP) hand work to their own threads with
# synchronisation ThreadSanitizer cannot see (the libraries are not
# instrumented): under TSan they get one thread
case "$BUILD ${EXTRA_CFLAGS:-}" in
*tsan*|*sanitize=thread*) export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 ;;
esac

# LIB SONAME CTEST: builds CTEST.c against tdtrace's own declarations and runs it
c_test() {
    lib=$1; so=$2; ctest=$3
    if $CC ${EXTRA_CFLAGS:-} -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror -pthread \
        -I "$root/include/tdtrace" -I "$root/include" -I "$root/$BUILD/gen" -I "$root/src/hostlib/$lib" \
        -o "$out/$ctest" "$here/$ctest.c" -L"$emu" -L"$host" -l:libcuda.so.1 -l:"$so" -lm -ldl >"$out/$ctest.build.log" 2>&1; then
        # NVIDIA's own library, where the toolkit is, as the reference
        if env NVIDIA_CURAND="$(ls "$cuda/lib64/libcurand.so.10" 2>/dev/null)" "$out/$ctest" >"$out/$ctest.log" 2>&1; then
            ok "$lib: $(tail -n 1 "$out/$ctest.log")"
            grep '^skip ' "$out/$ctest.log" | while read -r l; do echo "$l"; done
            skip=$((skip + $(grep -c '^skip ' "$out/$ctest.log")))
        else bad "$lib: $ctest" "$out/$ctest.log"; fi
    else
        bad "$lib: $ctest (build)" "$out/$ctest.build.log"
    fi
}

# LIB SONAME [C test] [nvcc tests...]
check_lib() {
    lib=$1; so=$2; ctest=$3; shift 3
    if [ ! -f "$host/$so" ]; then
        skp "$lib" "$host/$so was not built (its host back end is missing: see docs/hostlib.md)"
        return
    fi
    [ -z "$ctest" ] || c_test "$lib" "$so" "$ctest"
    # the same symbols, with the same version, as NVIDIA's
    if [ -f "$cuda/lib64/$so" ]; then
        nm -D --defined-only --with-symbol-versions "$cuda/lib64/$so" | awk '{print $3}' | sort >"$out/$lib.nvidia.syms"
        # (less tdtrace_host_note, what tdtrace -e lib= reads: src/hostlib/common/note.c)
        nm -D --defined-only --with-symbol-versions "$host/$so" | awk '{print $3}' | grep -v '^tdtrace_host_note@' |
            sort >"$out/$lib.host.syms"
        if diff "$out/$lib.nvidia.syms" "$out/$lib.host.syms" >"$out/$lib.syms.diff"; then
            ok "$lib: the $(wc -l <"$out/$lib.host.syms") symbols and versions of NVIDIA's $so"
        else
            bad "$lib: symbols differ from NVIDIA's $so (< NVIDIA, > host)" "$out/$lib.syms.diff"
        fi
    else
        skp "$lib symbols" "no $cuda/lib64/$so to compare with (NVIDIA's library is not installed here: the CUDA toolkit has all but NVML, which comes with the driver)"
    fi
    for t in "$@"; do
        nvcc_prog "$lib" "$t" "$so"
    done
}

# LABEL PROG SONAME...: builds PROG.cu with nvcc against NVIDIA's libraries
# of those sonames and runs it with the host ones in their place
nvcc_prog() {
    label=$1 t=$2
    shift 2
    if [ -z "$NVCC" ] || ! "$NVCC" --version >/dev/null 2>&1; then
        skp "$label: $t.cu" "no nvcc (the CUDA toolkit is not installed)"
        return
    fi
    flags=""
    for so in "$@"; do
        if [ ! -f "$host/$so" ]; then
            skp "$label: $t.cu" "$host/$so was not built (its host back end is missing: see docs/hostlib.md)"
            return
        fi
        flags="$flags -l$(echo "$so" | sed "s/^lib//; s/\.so\..*//")"
    done
    if ! "$NVCC" $NVCC_XFLAGS ${NVCC_PROG_XFLAGS:-} -o "$out/$t" "$here/$t.cu" $flags >"$out/$t.build.log" 2>&1; then
        bad "$label: $t.cu (build)" "$out/$t.build.log"
        return
    fi
    if "$out/$t" >"$out/$t.log" 2>&1; then ok "$label: $t.cu $(tail -n 1 "$out/$t.log")"
    else bad "$label: $t.cu" "$out/$t.log"; fi
}

check_lib cublas libcublas.so.13 cublas order mlp
check_lib cublaslt libcublasLt.so.13 cublaslt ltorder
check_lib cudnn libcudnn.so.9 cudnn cnn
# the backend (graph) API: directly, and through NVIDIA's cudnn-frontend
# header library (not part of tdtrace nor of the toolkit): TD_CUDNN_FRONTEND
# names a checkout of it (the directory holding include/cudnn_frontend.h)
if [ -f "$host/libcudnn.so.9" ]; then
    c_test cudnn libcudnn.so.9 cudnn_backend
    fe=${TD_CUDNN_FRONTEND:-}
    if [ -n "$fe" ] && [ -f "$fe/include/cudnn_frontend.h" ]; then
        NVCC_PROG_XFLAGS="-std=c++17 -I$fe/include -lnvrtc -lcuda" nvcc_prog cudnn frontend libcudnn.so.9
    else
        skp "cudnn: frontend.cu" "no cudnn-frontend (TD_CUDNN_FRONTEND names a checkout of github.com/NVIDIA/cudnn-frontend)"
    fi
fi
# cuDNN's descriptor functions need no GPU: one sequence of calls through
# dlopen, on the host library and on NVIDIA's, must print the same
if [ -f "$host/libcudnn.so.9" ] && [ -f "$cuda/lib64/libcudnn.so.9" ]; then
    # NVIDIA's library runs in an uninstrumented build, the host one in the
    # build's own (a sanitizer's runtime must come first)
    if $CC -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror -I "$root/src/hostlib/cudnn" \
        -o "$out/cudnn_desc.plain" "$here/cudnn_desc.c" -ldl >"$out/cudnn_desc.build.log" 2>&1 &&
        $CC ${EXTRA_CFLAGS:-} -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror -I "$root/src/hostlib/cudnn" \
        -o "$out/cudnn_desc" "$here/cudnn_desc.c" -ldl >>"$out/cudnn_desc.build.log" 2>&1; then
        env LD_LIBRARY_PATH="$cuda/lib64" "$out/cudnn_desc.plain" "$cuda/lib64/libcudnn.so.9" >"$out/cudnn_desc.nvidia" 2>&1
        "$out/cudnn_desc" "$host/libcudnn.so.9" >"$out/cudnn_desc.host" 2>&1
        if diff "$out/cudnn_desc.nvidia" "$out/cudnn_desc.host" >"$out/cudnn_desc.diff"; then
            ok "cudnn: the $(wc -l <"$out/cudnn_desc.host") answers of NVIDIA's descriptor functions"
        else bad "cudnn: descriptor functions answer otherwise than NVIDIA's (< NVIDIA, > host)" "$out/cudnn_desc.diff"; fi
    else bad "cudnn: cudnn_desc.c (build)" "$out/cudnn_desc.build.log"; fi
elif [ -f "$host/libcudnn.so.9" ]; then
    skp "cudnn descriptors" "no $cuda/lib64/libcudnn.so.9 to compare with (the CUDA toolkit is not installed)"
fi
check_lib cufft libcufft.so.12 cufft fftconv fftmgpu
# cuFFT's LTO callbacks: fftcb_cb.cu made into LTO-IR in a fatbinary as
# NVIDIA documents (nvcc -dlto -rdc=true -fatbin), which fftcb.cu hands to
# cufftXtSetJITCallback; the host cuFFT links them with NVIDIA's NVRTC and
# nvJitLink at run time (exit 77: those are not found)
rm -f "$out/fftcb" "$out/fftcb_cb.fatbin"   # no earlier run's for the trace check below
if [ -z "$NVCC" ] || ! "$NVCC" --version >/dev/null 2>&1; then
    skp "cufft: fftcb.cu" "no nvcc (the CUDA toolkit is not installed)"
elif [ ! -f "$host/libcufft.so.12" ]; then
    skp "cufft: fftcb.cu" "$host/libcufft.so.12 was not built (its host back end is missing: see docs/hostlib.md)"
elif ! "$NVCC" -dlto -rdc=true -fatbin -o "$out/fftcb_cb.fatbin" "$here/fftcb_cb.cu" >"$out/fftcb.build.log" 2>&1 ||
    ! "$NVCC" $NVCC_XFLAGS -o "$out/fftcb" "$here/fftcb.cu" -lcufft >>"$out/fftcb.build.log" 2>&1; then
    bad "cufft: fftcb.cu (build)" "$out/fftcb.build.log"
else
    # two devices: a plan over several GPUs is refused callbacks
    # (under ASan, leaks inside NVIDIA's nvJitLink and NVRTC are not ours: nvjit.lsan)
    TDTRACE_EMU_DEVICES=2 LSAN_OPTIONS="suppressions=$here/nvjit.lsan${LSAN_OPTIONS:+:$LSAN_OPTIONS}" \
        "$out/fftcb" "$out/fftcb_cb.fatbin" >"$out/fftcb.log" 2>&1
    case $? in
    0) ok "cufft: fftcb.cu $(grep "^fftcb: " "$out/fftcb.log" | tail -n 1)" ;;
    77) skp "cufft: fftcb.cu" "$(tail -n 1 "$out/fftcb.log")" ;;
    *) bad "cufft: fftcb.cu" "$out/fftcb.log" ;;
    esac
fi
check_lib curand libcurand.so.10 curand randkern
check_lib nvml libnvidia-ml.so.1 nvml
check_lib cusolver libcusolver.so.12 cusolver
# a program built against NVIDIA's cuSOLVER header and library, run with
# the host cuSOLVER (and cuBLAS) in front of NVIDIA's
check_lib cusparse libcusparse.so.12 cusparse
# cuSPARSE's descriptor functions need no GPU either: the same comparison
if [ -f "$host/libcusparse.so.12" ] && [ -f "$cuda/lib64/libcusparse.so.12" ]; then
    if $CC -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror \
        -o "$out/cusparse_desc.plain" "$here/cusparse_desc.c" -ldl >"$out/cusparse_desc.build.log" 2>&1 &&
        $CC ${EXTRA_CFLAGS:-} -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror \
        -o "$out/cusparse_desc" "$here/cusparse_desc.c" -ldl >>"$out/cusparse_desc.build.log" 2>&1; then
        # NVIDIA's library prints its own diagnostics on stderr
        env LD_LIBRARY_PATH="$cuda/lib64" "$out/cusparse_desc.plain" "$cuda/lib64/libcusparse.so.12" \
            >"$out/cusparse_desc.nvidia" 2>/dev/null
        "$out/cusparse_desc" "$host/libcusparse.so.12" >"$out/cusparse_desc.host" 2>&1
        if diff "$out/cusparse_desc.nvidia" "$out/cusparse_desc.host" >"$out/cusparse_desc.diff"; then
            ok "cusparse: the $(wc -l <"$out/cusparse_desc.host") answers of NVIDIA's descriptor functions"
        else bad "cusparse: descriptor functions answer otherwise than NVIDIA's (< NVIDIA, > host)" "$out/cusparse_desc.diff"; fi
    else bad "cusparse: cusparse_desc.c (build)" "$out/cusparse_desc.build.log"; fi
elif [ -f "$host/libcusparse.so.12" ]; then
    skp "cusparse descriptors" "no $cuda/lib64/libcusparse.so.12 to compare with (the CUDA toolkit is not installed)"
fi
# (tests/hostlib/solver.c says what it checks)
if [ ! -f "$host/libcusolver.so.12" ]; then
    skp "cusolver: solver.c" "$host/libcusolver.so.12 was not built (its host back end is missing: see docs/hostlib.md)"
elif [ ! -f "$cuda/lib64/libcusolver.so.12" ] || [ ! -f "$cuda/include/cusolverDn.h" ]; then
    skp "cusolver" "no $cuda/lib64/libcusolver.so.12 or its header (the CUDA toolkit is not installed)"
elif $CC ${EXTRA_CFLAGS:-} -std=c11 -O1 -g -Wall -Wextra -Werror -I "$cuda/include" -o "$out/solver" "$here/solver.c" \
    -L"$cuda/lib64" -lcusolver -lcudart -lm >"$out/solver.build.log" 2>&1; then
    if env LD_LIBRARY_PATH="$emu:$host:$cuda/lib64" "$out/solver" >"$out/solver.log" 2>/dev/null; then
        ok "cusolver: solver.c: $(tail -n 1 "$out/solver.log")"
    else bad "cusolver: solver.c" "$out/solver.log"; fi
    # NVIDIA's own cuSOLVER with only the host cuBLAS in front (its
    # cusolverDnCreate sets the cuBLAS handle's environment mode; potrf's
    # kernels ship PTX)
    if [ ! -f "$root/$BUILD/lib/tdtrace/front/cublas/libcublas.so.13" ]; then
        skp "cusolver: solver.c on NVIDIA's cuSOLVER" "the host cuBLAS was not built"
    elif env LD_LIBRARY_PATH="$emu:$root/$BUILD/lib/tdtrace/front/cublas:$cuda/lib64" "$out/solver" \
        >"$out/solver.nv.log" 2>/dev/null; then
        ok "cusolver: solver.c on NVIDIA's cuSOLVER and the host cuBLAS: $(tail -n 1 "$out/solver.nv.log")"
    else bad "cusolver: solver.c on NVIDIA's cuSOLVER and the host cuBLAS" "$out/solver.nv.log"; fi
else bad "cusolver: solver.c (build)" "$out/solver.build.log"; fi
# a training step through cuBLAS, cuBLASLt and cuDNN together
nvcc_prog "cublas+cublaslt+cudnn" train libcublas.so.13 libcublasLt.so.13 libcudnn.so.9
# library calls inside stream capture: recorded into the graph, replayed
# at each launch (tests/hostlib/capture.cu says what it checks)
nvcc_prog "cublas+cufft+cusparse+cudnn" capture libcublas.so.13 libcufft.so.12 libcusparse.so.12 libcudnn.so.9
# the same program: a sparse index made bad after the capture is reported
# at the launch (the context faults, so a process of its own)
if [ -x "$out/capture" ] && [ -f "$host/libcusparse.so.12" ]; then
    if "$out/capture" badindex >"$out/capture.badindex.log" 2>&1 &&
        grep -q '^tdtrace-emu: host library call cuSPARSE \[host loop \[CSR SpMV\]\]: an index of the sparse matrix is out of range' \
            "$out/capture.badindex.log"; then
        ok "cusparse: capture.cu badindex: $(grep '^a bad index' "$out/capture.badindex.log")"
    else bad "cusparse: capture.cu badindex" "$out/capture.badindex.log"; fi
else skp "cusparse: capture.cu badindex" "no capture program (nvcc or a host library missing)"; fi

# tdtrace puts the host libraries in front by itself (src/tdtrace/frontlibs.c):
# with no LD_LIBRARY_PATH, on the emulated GPU, the loader finds each
# library tdtrace built there; --library= takes it back per library; a host
# library where the GPU is not emulated is refused
tdtrace="$root/$BUILD/bin/tdtrace"
# nothing on the library path; sanitizer builds: LeakSanitizer does not run
# under a tracer, and tdtrace's libraries come before the ASan runtime
tdt() { env -u LD_LIBRARY_PATH ASAN_OPTIONS="detect_leaks=0:verify_asan_link_order=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}" "$tdtrace" "$@"; }
front_libs="libcublas.so.13 libcublasLt.so.13 libcufft.so.12 libcurand.so.10 libcudnn.so.9 libnvidia-ml.so.1 libcusolver.so.12 libcusparse.so.12 libnvrtc.so.13 libnvJitLink.so.13"
# what tdtrace built: the host libraries whose back end was there, and the JIT layer
front_want() { # the sonames that must be tdtrace's, one per line, the rest other
    for so in $front_libs; do
        case " $* " in *" $so "*) echo "$so other"; continue ;; esac
        if [ -e "$host/$so" ] || [ -e "$root/$BUILD/lib/tdtrace/jit/$so" ]; then echo "$so tdtrace"
        else echo "$so other"; fi
    done
}
if $CC ${EXTRA_CFLAGS:-} -std=c11 -O1 -g -Wall -Wextra -Werror -o "$out/front" "$here/front.c" -ldl \
    >"$out/front.build.log" 2>&1; then
    front_want >"$out/front.want"
    if tdt -q --backend=emulate -o /dev/null -- "$out/front" $front_libs \
        >"$out/front.got" 2>&1 && diff "$out/front.want" "$out/front.got" >"$out/front.diff"; then
        ok "tdtrace --backend=emulate: the loader finds tdtrace's $(grep -c ' tdtrace$' "$out/front.got") libraries first"
    else bad "tdtrace --backend=emulate: libraries (< wanted, > got)" "$out/front.diff"; fi
    front_want libcufft.so.12 libnvrtc.so.13 >"$out/front2.want"
    if tdt -q --backend=emulate --library=cufft=nvidia,nvrtc=nvidia -o /dev/null \
        -- "$out/front" $front_libs >"$out/front2.got" 2>&1 && diff "$out/front2.want" "$out/front2.got" >"$out/front2.diff"; then
        ok "tdtrace --library=cufft=nvidia,nvrtc=nvidia: NVIDIA's (or none) for those two"
    else bad "tdtrace --library=cufft=nvidia,nvrtc=nvidia (< wanted, > got)" "$out/front2.diff"; fi
    # the banner says what was chosen, and why
    tdt --backend=emulate --library=cufft=nvidia -o "$out/front3.trace" -- true >/dev/null 2>&1
    if grep -q "^tdtrace: policy .*(mode audit, backend emulate; tdtrace's cublas, cublaslt, .* in front of NVIDIA's; NVIDIA's cufft)$" "$out/front3.trace"; then
        ok "tdtrace: the library banner"
    else bad "tdtrace: no library banner" "$out/front3.trace"; fi
    if tdt --backend=driver --library=cublas=host -- true >"$out/front4.log" 2>&1; then
        bad "tdtrace --backend=driver --library=cublas=host was not refused" "$out/front4.log"
    elif grep -q "^tdtrace: --library: library cublas=host needs the emulated GPU (backend driver)" "$out/front4.log"; then
        ok "tdtrace --backend=driver --library=cublas=host: refused"
    else bad "tdtrace --backend=driver --library=cublas=host: wrong message" "$out/front4.log"; fi
    # a program built with nvcc against NVIDIA's cuBLAS, started by tdtrace
    # with nothing on the library path
    if [ -x "$out/mlp" ] && [ -f "$host/libcublas.so.13" ]; then
        if tdt -q --backend=emulate -o "$out/mlp.trace" -- "$out/mlp" >"$out/mlp.tdtrace.log" 2>&1; then
            ok "tdtrace --backend=emulate -- mlp: $(tail -n 1 "$out/mlp.tdtrace.log")"
        else bad "tdtrace --backend=emulate -- mlp" "$out/mlp.tdtrace.log"; fi
    else skp "tdtrace -- mlp" "no mlp program (nvcc or the host cuBLAS missing)"; fi
    # -e lib=: a cuSOLVER call decoded with what ran it, and one the host
    # library does not implement, by its name with NOT_SUPPORTED (9)
    if [ -x "$out/cusolver" ] && [ -f "$host/libcusolver.so.12" ]; then
        if tdt --backend=emulate -e 'lib=libcusolver*' -o "$out/cusolver.trace" -- "$out/cusolver" \
            >"$out/cusolver.tdtrace.log" 2>&1 &&
            grep -q '^cusolverDnDpotrf(0x[0-9a-f]*, CUBLAS_FILL_MODE_LOWER, 30, .*) = CUSOLVER_STATUS_SUCCESS \[host: OpenBLAS LAPACK potrf\]$' "$out/cusolver.trace" &&
            grep -q '^cusolverDnDsytrf_bufferSize(.*) = 9$' "$out/cusolver.trace"; then
            ok "tdtrace -e lib=libcusolver*: Dpotrf decoded, [host: OpenBLAS LAPACK potrf]; Dsytrf_bufferSize = 9 (not implemented)"
        else bad "tdtrace -e lib=libcusolver* -- cusolver" "$out/cusolver.tdtrace.log"; fi
    else skp "tdtrace -e lib=libcusolver*" "no cusolver test program (the host cuSOLVER missing)"; fi
    # -e lib=: a call captured into a graph says so; a refused one says why
    if [ -x "$out/capture" ] && [ -f "$host/libcublas.so.13" ]; then
        if tdt --backend=emulate -e 'lib=libcublas*,libcufft*' -o "$out/capture.trace" -- "$out/capture" \
            >"$out/capture.tdtrace.log" 2>&1 &&
            grep -q '^cublasSgemm_v2(.*) = CUBLAS_STATUS_SUCCESS \[host: captured into a graph: OpenBLAS sgemm\]$' "$out/capture.trace" &&
            grep -q '^cufftExecC2C(.*) = CUFFT_SUCCESS \[host: captured into a graph: FFTW\]$' "$out/capture.trace" &&
            grep -q '^cublasSdot_v2(.*) = 15 \[host: not captured: the call returns its result in host memory' "$out/capture.trace" &&
            grep -q '^--- fault: invalid global access of 1024 bytes in host library call cuBLAS \[OpenBLAS level 1\] (CUDA_ERROR_ILLEGAL_ADDRESS) ---$' \
                "$out/capture.trace"; then
            ok "tdtrace -e lib=: calls captured into a graph say so, a refused one says why, a freed operand is reported"
        else bad "tdtrace -e lib= -- capture" "$out/capture.tdtrace.log"; fi
    else skp "tdtrace -e lib= -- capture" "no capture program (nvcc or the host cuBLAS missing)"; fi
    # -e lib=: an execution with LTO callbacks says where they ran
    if [ -x "$out/fftcb" ] && [ -f "$out/fftcb_cb.fatbin" ]; then
        if tdt --backend=emulate -e 'lib=libcufft*' -o "$out/fftcb.trace" -- "$out/fftcb" "$out/fftcb_cb.fatbin" \
            >"$out/fftcb.tdtrace.log" 2>&1 &&
            grep -q '^cufftXtSetJITCallback(.*) = CUFFT_SUCCESS \[host: NVRTC and nvJitLink: the load callback linked into PTX for the emulated GPU\]$' "$out/fftcb.trace" &&
            grep -q '^cufftXtExec(.*) = CUFFT_SUCCESS \[host: FFTW, load and store callbacks on the emulated GPU\]$' "$out/fftcb.trace" &&
            grep -q '^cufftXtExec(.*) = CUFFT_SUCCESS \[host: captured into a graph: FFTW, load and store callbacks on the emulated GPU\]$' "$out/fftcb.trace" &&
            grep -q '^cufftXtSetJITCallback(.*) = CUFFT_NVJITLINK_FAILURE (19) \[host: LTO callback: the fatbinary defines no device function of that symbol name\]$' "$out/fftcb.trace"; then
            ok "tdtrace -e lib=libcufft*: LTO callbacks linked, executions say the callbacks ran on the emulated GPU, an unknown symbol says why"
        else bad "tdtrace -e lib=libcufft* -- fftcb" "$out/fftcb.tdtrace.log"; fi
    else skp "tdtrace -e lib=libcufft* -- fftcb" "no fftcb program (nvcc or the host cuFFT missing)"; fi
    # -e lib=: the multi-GPU calls decoded; executions over several GPUs say
    # so, a refused one says why
    if [ -x "$out/fftmgpu" ]; then
        if tdt --backend=emulate -e 'lib=libcufft*' -o "$out/fftmgpu.trace" -- "$out/fftmgpu" \
            >"$out/fftmgpu.tdtrace.log" 2>&1 &&
            grep -q '^cufftXtExecDescriptorD2Z([0-9]*, 0x[0-9a-f]*, 0x[0-9a-f]*) = CUFFT_SUCCESS \[host: FFTW (cuFFT on several GPUs)\]$' "$out/fftmgpu.trace" &&
            grep -q '^cufftXtExecDescriptorR2C(.*) = CUFFT_NOT_SUPPORTED (16) \[host: R2C over several GPUs takes its input in CUFFT_XT_FORMAT_INPLACE\]$' "$out/fftmgpu.trace" &&
            grep -q '^cufftXtMalloc([0-9]*, 0x[0-9a-f]*, CUFFT_XT_FORMAT_INPLACE) = CUFFT_NOT_SUPPORTED (16) \[host: several GPUs: one 1-D real transform (its distribution is not documented)\]$' "$out/fftmgpu.trace" &&
            grep -q '^cufftXtMemcpy([0-9]*, 0x[0-9a-f]*, 0x[0-9a-f]*, CUFFT_COPY_DEVICE_TO_HOST) = CUFFT_SUCCESS$' "$out/fftmgpu.trace" &&
            grep -q '^cufftXtSetGPUs([0-9]*, 3, 0x[0-9a-f]*) = CUFFT_SUCCESS$' "$out/fftmgpu.trace"; then
            ok "tdtrace -e lib=libcufft*: the multi-GPU calls decoded, executions over several GPUs say so, refused ones say why"
        else bad "tdtrace -e lib=libcufft* -- fftmgpu" "$out/fftmgpu.tdtrace.log"; fi
    else skp "tdtrace -e lib=libcufft* -- fftmgpu" "no fftmgpu program (nvcc or the host cuFFT missing)"; fi
else bad "front.c (build)" "$out/front.build.log"; fi

echo "hostlib: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
