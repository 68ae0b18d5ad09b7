# SPDX-License-Identifier: Apache-2.0
# tdtrace --py, in strace's style: this script calls the (emulated) driver
# through ctypes and prints the lines tdtrace must print for each call,
# with the Python line that made it: "[calls.py:N in func]".
#   python3 calls.py [k|summary]
# k: only cuDeviceGet is traced (with -k); the script then prints its call
# line and the Python frames tdtrace must show among the native ones.
# ctypes.CDLL releases the GIL around every foreign call: each call below
# is made with the GIL released.
import ctypes
import os
import sys
import threading

MODE = sys.argv[1] if len(sys.argv) > 1 else "trace"
cu = ctypes.CDLL("libcuda.so.1")
out = []


def where(depth=1):
    """the frame `depth` levels up, as tdtrace names it: (path, line, func)"""
    f = sys._getframe(depth + 1)
    code = f.f_code
    return code.co_filename, f.f_lineno, getattr(code, "co_qualname", code.co_name)


def want(text, depth=1):
    path, line, func = where(depth)
    out.append("%s [%s:%d in %s]" % (text, os.path.basename(path), line, func))


def stack_of(depth):
    """the Python frames from `depth` levels up to the outermost"""
    frames = []
    f = sys._getframe(depth + 1)
    while f:
        code = f.f_code
        frames.append(" > [%s:%d in %s]" % (code.co_filename, f.f_lineno,
                                           getattr(code, "co_qualname", code.co_name)))
        f = f.f_back
    return frames


def level2():
    n = ctypes.c_int()
    r = cu.cuDeviceGet(ctypes.byref(n), 0); want("cuDeviceGet(&0, 0) = CUDA_SUCCESS"); here = stack_of(0)
    if MODE == "k":
        out.extend(here[:8])
    return r


def level1():
    return level2()


class Model:
    def step(self):
        n = ctypes.c_int()
        cu.cuDeviceGetCount(ctypes.byref(n)); want("cuDeviceGetCount(&%d) = CUDA_SUCCESS" % n.value)


def alloc():
    p = ctypes.c_uint64()
    cu.cuMemAlloc_v2(ctypes.byref(p), ctypes.c_size_t(1 << 20)); out.append("%s:%d in alloc" % where(0)[:2])
    return p


cu.cuInit(0); want("cuInit(0) = CUDA_SUCCESS")
if MODE == "k":
    out = []
level1()
if MODE == "k":
    print("\n".join(out + ["+++ exited with 0 +++"]))
    sys.exit(0)

# a thread made by Python: its own frames
t = threading.Thread(target=Model().step)
t.start()
t.join()

# a thread with no Python frames at all: a native thread that starts in
# cuDriverGetVersion itself (pthread_create through ctypes)
libc = ctypes.CDLL(None)
libc.pthread_create.argtypes = [ctypes.POINTER(ctypes.c_ulong), ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
tid = ctypes.c_ulong()
version = ctypes.c_int(-1)
fn = ctypes.cast(cu.cuDriverGetVersion, ctypes.c_void_p)
assert libc.pthread_create(ctypes.byref(tid), None, fn, ctypes.addressof(version)) == 0
assert libc.pthread_join(tid, None) == 0
out.append("cuDriverGetVersion(&%d) = CUDA_SUCCESS" % version.value)

if MODE == "summary":
    # three calls of one line allocate 3 MiB: the summary's Python table
    dev = ctypes.c_int()
    ctx = ctypes.c_void_p()
    cu.cuDeviceGet(ctypes.byref(dev), 0)
    cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev)
    cu.cuCtxSetCurrent(ctx)
    out = []
    ps = [alloc() for _ in range(3)]
    out = out[:1]  # the line the summary must name, with 3 MiB
print("\n".join(out + ["+++ exited with 0 +++"]))
