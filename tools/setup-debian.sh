#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Installs what tdtrace's build, demo and tests need on Debian (12 or
# later), as root or through sudo. The one list of packages: the README's
# commands and CI (.ci/run) both run this.
set -eu
if [ "$(id -u)" = 0 ]; then SUDO=; elif command -v sudo >/dev/null; then SUDO=sudo; else
    echo "tools/setup-debian.sh: run it as root, or install sudo" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# llvm-16-dev: LLVM 16, which the PTX JIT loads at run time (docs/ptx-jit.md;
# without it the interpreter runs every kernel)
$SUDO apt-get install -y -qq --no-install-recommends \
    build-essential pkg-config python3 python3-dev python3-jsonschema strace \
    libseccomp-dev libelf-dev libdw-dev libcmocka-dev libzstd-dev liblz4-dev \
    libzydis-dev libopenblas-dev libfftw3-dev libdnnl-dev python3-scipy graphviz chromium \
    llvm-16-dev >/dev/null
