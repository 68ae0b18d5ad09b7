# SPDX-License-Identifier: Apache-2.0
# Sourced by the test suites: the sanitizer runtime of a sanitizer build
# (make SAN=asan|tsan passes EXTRA_CFLAGS), which must come first in a
# traced program's initial library list when tdtrace preloads a library of
# its own (--runtime's libtdruntime.so) or the program is built without
# sanitizers. san_preload prints the library, or nothing in plain builds.
san_preload() {
    case " ${EXTRA_CFLAGS:-} " in
    *sanitize=address*) ${CC:-cc} -print-file-name=libasan.so ;;
    *sanitize=thread*) ${CC:-cc} -print-file-name=libtsan.so ;;
    esac
}
