#!/bin/bash
# End-to-end tests in strace's style: each program prints the lines tdtrace
# must print; we run it under tdtrace and diff. Prints "e2e: N passed, N
# failed, N skipped" and exits nonzero on a failure.
set -u
BUILD=${BUILD:-build}
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
TDTRACE=$top/$BUILD/bin/tdtrace
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ulimit -c 0
mkdir -p "$work/fake"
cp "$BUILD/lib/tdtrace/emu/libcuda.so.1" "$work/fake/libcuda.so.1"
export FAKEDRV=$work/fake/libcuda.so.1
export GPUDIR=$work/gpu   # files declared GPU nodes with --gpu-dev
mkdir -p "$GPUDIR" && touch "$GPUDIR/nvidiactl" "$GPUDIR/nvidia-uvm"
# a TSan build needs more static TLS than glibc leaves once an audit
# library has its own namespace (see BUGS in tdtrace(1))
case $BUILD in *tsan*) export GLIBC_TUNABLES=glibc.rtld.optional_static_tls=2097152 ;; esac
pass=0 fail=0 skip=0

normalise() { sed -E 's/<[0-9]+\.[0-9]{6}>/<T>/g' "$1"; }

report() { # name result [detail-file]
    case $2 in
    ok) pass=$((pass + 1)); echo "PASS: $1" ;;
    skip) skip=$((skip + 1)); echo "SKIP: $1" ;;
    *) fail=$((fail + 1)); echo "FAIL: $1"; [ -n "${3:-}" ] && head -40 "$3" ;;
    esac
}

run_listed() {
    local n=0
    while read -r name status rest; do
        case $name in ''|'#'*) continue ;; esac
        n=$((n + 1))
        local mode=exact
        if [[ $rest == sorted* ]]; then mode=sorted; rest=${rest#sorted}; fi
        rest=$(eval echo "\"$rest\"")
        local opts=$rest args=
        if [[ " $rest " == *" -- "* ]]; then opts=${rest%% -- *}; args=${rest#* -- }; fi
        [[ $rest == "-- "* ]] && { opts=; args=${rest#-- }; }
        local id="$name#$n" out="$work/$name.$n"
        # shellcheck disable=SC2086
        "$TDTRACE" $opts -o "$out.trace" -- "$BUILD/e2e/$name" $args > "$out.want" 2> "$out.err"
        local rc=$?
        if [ "$rc" -eq 77 ]; then report "$id" skip; continue; fi
        if [ "$rc" -ne "$status" ]; then
            echo "exit status $rc, want $status" >> "$out.err"
            report "$id ($opts$args)" fail "$out.err"; continue
        fi
        if [ "$mode" = sorted ]; then
            diff -u <(normalise "$out.want" | sort) <(normalise "$out.trace" | sort) > "$out.diff"
        else
            diff -u <(normalise "$out.want") <(normalise "$out.trace") > "$out.diff"
        fi
        if [ $? -eq 0 ]; then report "$id" ok; else report "$id ($opts$args)" fail "$out.diff"; fi
    done < tests/e2e/list
}

# bad input: one clear line on stderr, a nonzero exit, nothing started
expect_error() { # name expected-stderr-substring args...
    local name=$1 want=$2; shift 2
    "$TDTRACE" "$@" > "$work/err.out" 2> "$work/err.txt" < /dev/null
    local rc=$?
    if [ "$rc" -ne 0 ] && grep -qF -- "$want" "$work/err.txt"; then report "$name" ok
    else echo "exit $rc, stderr:" > "$work/err.diff"; cat "$work/err.txt" >> "$work/err.diff"; report "$name" fail "$work/err.diff"; fi
}

run_errors() {
    expect_error "error: unknown option" "unrecognized option '--frobnicate'" --frobnicate true
    expect_error "error: unknown short option" "invalid option -- 'Z'" -Z true
    expect_error "error: no command" "must have PROG [ARGS]"
    expect_error "error: command not found" "Can't stat 'no-such-command-xyz'" no-such-command-xyz
    expect_error "error: unwritable output" "can't fopen '/nonexistent/dir/out'" -o /nonexistent/dir/out true
    expect_error "error: bad trace set" "invalid function name 'cuNope'" -e trace=cuNope true
    expect_error "error: bad backend" "invalid --backend 'gpu'" --backend=gpu true
    # the target is never half-started: a marker file it would create stays absent
    "$TDTRACE" -o /nonexistent/x -- touch "$work/marker" 2>/dev/null
    if [ -e "$work/marker" ]; then report "error: nothing launched" fail; else report "error: nothing launched" ok; fi
}

run_options() {
    # -T appends <seconds>; -tt prefixes a time of day with microseconds
    "$TDTRACE" -q -T -tt -o "$work/opt.trace" -- "$BUILD/e2e/exitcode" > /dev/null 2>&1
    if grep -qE '^[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6} cuInit\(0\) = CUDA_SUCCESS <[0-9]+\.[0-9]{6}>$' "$work/opt.trace"
    then report "options: -T -tt" ok; else report "options: -T -tt" fail "$work/opt.trace"; fi
    # -e status=failed keeps only failed calls
    "$TDTRACE" -q -e status=failed -o "$work/st.trace" -- "$BUILD/e2e/basic" > /dev/null 2>&1
    if [ "$(grep -c '= CUDA_SUCCESS' "$work/st.trace")" -eq 0 ] && [ "$(grep -c 'CUDA_ERROR' "$work/st.trace")" -eq 2 ]
    then report "options: -e status=failed" ok; else report "options: -e status=failed" fail "$work/st.trace"; fi
    # -e trace=%class
    "$TDTRACE" -q -e trace=%memory -o "$work/cl.trace" -- "$BUILD/e2e/basic" > /dev/null 2>&1
    if ! grep -v -E '^(cuMem(Alloc|Free)_v2|\+\+\+)' "$work/cl.trace" | grep -q . && grep -q cuMemFree_v2 "$work/cl.trace"
    then report "options: -e trace=%memory" ok; else report "options: -e trace=%memory" fail "$work/cl.trace"; fi
    # the banner names the backend; output goes to stderr by default
    "$TDTRACE" -- "$BUILD/e2e/exitcode" > /dev/null 2> "$work/banner.txt"
    if head -1 "$work/banner.txt" | grep -q '^tdtrace: policy built-in defaults (mode audit, backend auto)$' &&
       sed -n 2p "$work/banner.txt" | grep -q '^tdtrace: backend emulate '
    then report "options: backend banner on stderr" ok; else report "options: backend banner on stderr" fail "$work/banner.txt"; fi
    # --backend=driver without a driver: said clearly, calls fail with a CUresult
    "$TDTRACE" --backend=driver -- "$BUILD/e2e/exitcode" > /dev/null 2> "$work/drv.txt"
    if grep -q '^tdtrace: backend none' "$work/drv.txt" && grep -q '^cuInit(0) = CUDA_ERROR_NOT_INITIALIZED (3)' "$work/drv.txt"
    then report "options: --backend=driver without a driver" ok; else report "options: --backend=driver without a driver" fail "$work/drv.txt"; fi
    # -s truncates strings
    "$TDTRACE" -q -s 5 -e trace=cuDeviceGetName -o "$work/s.trace" -- "$BUILD/e2e/basic" > /dev/null 2>&1
    if grep -qE '^cuDeviceGetName\("[^"]{5}"\.\.\., 256, 0\)' "$work/s.trace"
    then report "options: -s" ok; else report "options: -s" fail "$work/s.trace"; fi
}

# --help and tdtrace(1) name the same options
run_manpage() {
    local missing=
    for opt in $("$TDTRACE" -h | grep -oE '(^|[ ,])--?[a-zA-Z][a-zA-Z-]*' | tr -d ' ,' | sort -u); do
        grep -qF -- "$(printf '%s' "$opt" | sed 's/-/\\-/g')" man/tdtrace.1 || missing="$missing $opt"
    done
    for opt in $(grep -oE '^\.B[IR]* \\-[a-zA-Z\\-]+' man/tdtrace.1 | sed 's/^[^ ]* //; s/\\//g' | sort -u); do
        "$TDTRACE" -h | grep -qE -- "(^|[ ,])$opt([ ,=]|$)" || missing="$missing $opt(man)"
    done
    if [ -z "$missing" ]; then report "man page and --help agree" ok
    else echo "missing:$missing" > "$work/man.diff"; report "man page and --help agree" fail "$work/man.diff"; fi
}

run_listed
run_errors
run_options
run_manpage
echo "e2e: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
