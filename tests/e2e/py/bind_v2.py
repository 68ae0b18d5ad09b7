# SPDX-License-Identifier: Apache-2.0
# An older client's binding rule, with the standard library only: numba
# 0.56 (cuda/cudadrv/driver.py) binds NAME_v2 when the driver exports it,
# else NAME, and calls it with the signature it knew (CUDA 11/12). CUDA
# 13's cuCtxGetDevice_v2 takes a second argument (the context), so on a
# 13.0 driver the rule picks a function it calls wrongly; a 12.4 driver has
# no cuCtxGetDevice_v2 and the rule gives cuCtxGetDevice, which works.
#   python3 bind_v2.py 12.4   the calls, printed as tdtrace must print them
#   python3 bind_v2.py 13.0   says what the rule bound, exits 3 before the call
import ctypes
import sys

cu = ctypes.CDLL("libcuda.so.1")
out = []


def bind(name):
    """numba 0.56's rule"""
    try:
        return name + "_v2", getattr(cu, name + "_v2")
    except AttributeError:
        return name, getattr(cu, name)


def must(r, what):
    if r != 0:
        sys.stderr.write("%s = %d\n" % (what, r))
        sys.exit(99)


init = bind("cuInit")[1]
must(init(0), "cuInit")
out.append("cuInit(0) = CUDA_SUCCESS")
dev = ctypes.c_int(-1)
name, device_get = bind("cuDeviceGet")
must(device_get(ctypes.byref(dev), 0), name)
out.append("%s(&0, 0) = CUDA_SUCCESS" % name)
ctx = ctypes.c_void_p()
name, retain = bind("cuDevicePrimaryCtxRetain")
must(retain(ctypes.byref(ctx), dev), name)
out.append("%s(&ctx#1(dev 0), 0) = CUDA_SUCCESS" % name)
name, set_current = bind("cuCtxSetCurrent")
must(set_current(ctx), name)
out.append("%s(ctx#1(dev 0)) = CUDA_SUCCESS" % name)

name, get_device = bind("cuCtxGetDevice")
if name != "cuCtxGetDevice":
    sys.stderr.write("bound %s: its CUDA 13 signature takes (CUdevice *, CUcontext); "
                     "this client would call it with one argument\n" % name)
    sys.exit(3)
got = ctypes.c_int(-1)
must(get_device(ctypes.byref(got)), name)
if got.value != 0:
    sys.exit(99)
out.append("cuCtxGetDevice(&0) = CUDA_SUCCESS")

name, alloc = bind("cuMemAlloc")
ptr = ctypes.c_ulonglong()
must(alloc(ctypes.byref(ptr), ctypes.c_size_t(4096)), name)
out.append("%s(&%#x (alloc#1), 4 KiB) = CUDA_SUCCESS" % (name, ptr.value))
name, free = bind("cuMemFree")
must(free(ctypes.c_ulonglong(ptr.value)), name)
out.append("%s(%#x (alloc#1)) = CUDA_SUCCESS" % (name, ptr.value))
out.append("+++ exited with 0 +++")
# the needs report: the newest entry point it called came with CUDA 7.0
# (cuDevicePrimaryCtxRetain; cuMemAlloc_v2 3.2, the rest 2.0 to 4.0)
out.append("this run needs driver >= 7.0; cuDevicePrimaryCtxRetain needs 7.0")
out.append("the emulated driver presented %s" % sys.argv[1])
print("\n".join(out))
