#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# src/pyframes inside real CPython interpreters:
#   BUILD=build [EXTRA_CFLAGS=...] [TD_PYTHONS="/path/python3.9 ..."] sh tests/pyframes/run.sh
# The interpreters: Debian's /usr/bin/python3, python3 on PATH if it is
# another one, and those named in TD_PYTHONS. For each:
#   frames.py   the reader through ctypes, every read checked (see there)
#   layout      the reader's table for that version = what its headers say
#   embed       a C program that loads that version's libpython later
#               (RTLD_LOCAL, then RTLD_GLOBAL) and must be found
# A missing prerequisite (headers, libpython) skips that part, with why.
# Prints "pyframes: N passed, N failed, N skipped"; exits nonzero on a failure.
BUILD=${BUILD:-build}
CC=${CC:-cc}
cd "$(dirname "$0")/../.." || exit 2
OUT=$(pwd)/$BUILD/pyframes
LIB=$OUT/libpyft.so
for f in "$LIB" "$OUT/libmalcount.so" "$OUT/embed"; do
    [ -f "$f" ] || { echo "pyframes: $f missing (make BUILD=$BUILD tests)"; exit 1; }
done
pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && sed 's/^/     /' "$2" | head -40; }
skipped() { skip=$((skip + 1)); echo "SKIP $1"; }
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM

# the sanitizer runtime goes first into an interpreter that has none; the
# allocation count then comes from its hooks, else from libmalcount.so
PRE=$OUT/libmalcount.so PRE_EMBED=$OUT/libmalcount.so
case " ${EXTRA_CFLAGS:-} " in
*sanitize=address*) PRE=$($CC -print-file-name=libasan.so) PRE_EMBED= ;;
*sanitize=thread*) PRE=$($CC -print-file-name=libtsan.so) PRE_EMBED= ;;
esac
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}"
. tests/nvcc-env.sh # GLIBC_TUNABLES for a TSan build

pythons=""
add() { # an interpreter that runs, once, by its real path (not a wrapper)
    real=$("$1" -c 'import os, sys; print(os.path.realpath(sys.executable))' 2> /dev/null) || return
    [ -x "$real" ] || return
    case " $pythons " in *" $real "*) return ;; esac
    pythons="$pythons $real"
}
[ -x /usr/bin/python3 ] && add /usr/bin/python3
p=$(command -v python3 2> /dev/null) && add "$p"
for p in ${TD_PYTHONS:-}; do add "$p"; done
if [ -z "$pythons" ]; then
    skipped "no python3 here (apt-get install python3)"
    echo "pyframes: $pass passed, $fail failed, $skip skipped"
    exit 0
fi

for py in $pythons; do
    info=$("$py" -c 'import sys, sysconfig as s
v = sys.version_info
print("%d.%d.%d" % v[:3], v[1], s.get_paths()["include"], s.get_config_var("LIBDIR") or "-",
      s.get_config_var("MULTIARCH") or "-", s.get_config_var("INSTSONAME") or "-", sys.prefix)')
    # shellcheck disable=SC2086 # split on purpose
    set -- $info
    ver=$1 minor=$2 inc=$3 libdir=$4 multiarch=$5 soname=$6 prefix=$7
    name="CPython $ver ($py)"

    # the reader through ctypes
    if env LD_PRELOAD="$PRE" "$py" tests/pyframes/frames.py "$LIB" > "$tmp/frames" 2>&1; then
        ok "$name: $(tail -1 "$tmp/frames")"
    else
        grep -v '^ok' "$tmp/frames" > "$tmp/frames.bad"
        bad "$name: frames.py" "$tmp/frames.bad"
    fi

    supported=$([ "$minor" -ge 9 ] && [ "$minor" -le 13 ] && [ "${ver%%.*}" = 3 ] && echo yes)
    # the layout table against the headers
    if [ -z "$supported" ]; then
        : # no table: frames.py checked that nothing is read
    elif [ -f "$inc/Python.h" ] && [ -d "$inc/internal" ]; then
        if $CC -std=c11 -O0 -w -I"$inc" -I"$inc/internal" -o "$tmp/layout" tests/pyframes/layout.c 2> "$tmp/cc"; then
            "$tmp/layout" > "$tmp/want"
            env LD_PRELOAD="$PRE" "$py" -c 'import ctypes, sys
lib = ctypes.CDLL(sys.argv[1]); buf = ctypes.create_string_buffer(8192)
sys.exit(lib.pyft_layout(int(sys.argv[2]), buf, len(buf)) or print(buf.value.decode(), end=""))' "$LIB" "$minor" > "$tmp/got" 2>&1
            if diff -u "$tmp/want" "$tmp/got" > "$tmp/diff"; then ok "$name: layout table = its headers"
            else bad "$name: layout table differs from its headers (- headers, + table)" "$tmp/diff"; fi
        else
            bad "$name: tests/pyframes/layout.c does not build against $inc" "$tmp/cc"
        fi
    else
        skipped "$name: layout table vs headers: no headers in $inc (apt-get install python3-dev)"
    fi

    # a program that loads libpython later
    so=""
    for d in "$libdir" "$libdir/$multiarch"; do [ -f "$d/$soname" ] && so="$d/$soname" && break; done
    if [ -z "$so" ]; then
        skipped "$name: embedding: no $soname (apt-get install libpython3.$minor)"
        continue
    fi
    if [ -n "$supported" ]; then
        found=yes loaded="not a Python thread" initialized="no Python frame" cthread="not a Python thread"
        ccall="ok [<string>:2 in inner] [<string>:3 in <module>]" finalized="Python finalizing"
    else
        found="not supported: older than 3.9" loaded="Python not supported" initialized=$loaded cthread=$loaded
        ccall=$loaded finalized=$loaded
    fi
    for how in local global noread; do
        if [ "$how" = noread ]; then # process_vm_readv forbidden (seccomp): refused, with the reason
            [ -n "$supported" ] || continue
            found="not supported: reading its own memory with process_vm_readv fails here (Operation not permitted)"
            loaded="Python not supported" initialized=$loaded cthread=$loaded ccall=$loaded finalized=$loaded
        fi
        printf '%s\n' "state: no Python" "before: no Python" "system calls: 0" "found: $found" "loaded: $loaded" \
            "initialized: $initialized" "C thread: $cthread" "C call: $ccall" "finalized: $finalized" > "$tmp/want"
        mode=$how; [ "$how" = noread ] && mode="global noread"
        # shellcheck disable=SC2086
        PYTHONHOME=$prefix env LD_PRELOAD="$PRE_EMBED" "$OUT/embed" "$so" $mode > "$tmp/got" 2>&1
        echo "exit $?" >> "$tmp/got"
        echo "exit 0" >> "$tmp/want"
        flag=RTLD_$(echo "$how" | tr "[:lower:]" "[:upper:]")
        what="found after dlopen($so, $flag); nothing read before"
        [ -n "$supported" ] || what="refused after dlopen($so, $flag); nothing read"
        [ "$how" = noread ] && what="refused, with the reason, where process_vm_readv is forbidden"
        if diff -u "$tmp/want" "$tmp/got" > "$tmp/diff"; then ok "$name: $what"
        else bad "$name: embedding, $how" "$tmp/diff"; fi
    done
done
echo "pyframes: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
