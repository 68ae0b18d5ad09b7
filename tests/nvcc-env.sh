# SPDX-License-Identifier: Apache-2.0
# Sourced by the test scripts that build programs with nvcc.
#
# NVCC: the compiler. TD_NVCC names it; TD_NVCC set but empty means there
# is none (what a machine without the CUDA toolkit sees: the tests skip);
# otherwise NVCC as given, nvcc on PATH, or /usr/local/cuda/bin/nvcc.
if [ "${TD_NVCC+set}" = set ]; then
    NVCC=$TD_NVCC
elif [ -z "${NVCC:-}" ]; then
    NVCC=$(command -v nvcc 2> /dev/null || true)
    [ -z "$NVCC" ] && [ -x /usr/local/cuda/bin/nvcc ] && NVCC=/usr/local/cuda/bin/nvcc
fi
#
# From the
# build's sanitizer flags (EXTRA_CFLAGS, as make passes them) it sets
# NVCC_XFLAGS for nvcc (one -Xcompiler per value: nvcc splits them at
# commas), and gives a TSan runtime loaded behind tdtrace's libraries room
# in static TLS (see BUGS in tdtrace(1)).
NVCC_XFLAGS=""
for f in ${EXTRA_CFLAGS:-}; do
    case $f in
    -fsanitize=*|-fno-sanitize-recover=*)
        opt=${f%%=*}
        for v in $(echo "${f#*=}" | tr , ' '); do NVCC_XFLAGS="$NVCC_XFLAGS -Xcompiler $opt=$v"; done ;;
    esac
done
[ -n "$NVCC_XFLAGS" ] && NVCC_XFLAGS="$NVCC_XFLAGS -Xcompiler -fno-omit-frame-pointer"
case "${BUILD:-} ${EXTRA_CFLAGS:-}" in
*tsan*|*sanitize=thread*) export GLIBC_TUNABLES=glibc.rtld.optional_static_tls=2097152 ;;
esac
