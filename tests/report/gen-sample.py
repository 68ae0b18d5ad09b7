#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes a timeline file as tdtrace --timeline=FILE does (the contract:
docs/report.md, /work/wt/timeline-format.md), made up but complete: two
processes (a parent and the child it forks), two threads, two devices with
two streams each, runtime calls holding driver calls, kernels, copies and
memsets with their flows, device memory counters, leaks, a fault, policy
actions (deny, inject, cap), failed calls, process events, Python lines,
and hostile names (</script>, U+2028, &, <!--).

    gen-sample.py [--seed N] [--scale N] [--plain] OUT.json

Deterministic for a seed; --scale multiplies the iterations (for size);
--plain leaves the hostile names out (the picture in the docs)."""
import argparse
import json
import random

STREAM_BASE = 1000000000


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--scale", type=int, default=1)
    ap.add_argument("--plain", action="store_true", help="no hostile names (for docs/report.png)")
    ap.add_argument("out")
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    ev = []
    corr = [0]

    def us(t):  # ns -> microseconds with 3 decimals, as the writer does
        return round(t / 1000.0, 3)

    def meta(pid, what, tid=None, **args):
        e = {"ph": "M", "name": what, "pid": pid, "args": args}
        if tid is not None:
            e["tid"] = tid
        ev.append(e)

    def stream_tid(dev, s):
        return STREAM_BASE + dev * 1000000 + s

    class Proc:
        def __init__(self, pid, comm, t0, py):
            self.pid, self.comm, self.t, self.py = pid, comm, t0, py
            self.mem = {}      # device -> bytes in use
            self.allocs = []   # (ptr, bytes, device, site)
            self.next_ptr = 0x7f3000000000 + pid * 0x10000000
            self.stream_free = {}
            meta(pid, "process_name", name="%d %s" % (pid, comm))

        def thread(self, tid):
            meta(self.pid, "thread_name", tid, name="thread %d" % tid)
            meta(self.pid, "thread_sort_index", tid, sort_index=tid - self.pid)

        def stream(self, dev, s):
            tid = stream_tid(dev, s)
            meta(self.pid, "thread_name", tid, name="device %d stream %d" % (dev, s))
            meta(self.pid, "thread_sort_index", tid, sort_index=1000 + dev * 100 + s)

        def call(self, tid, name, dur_ns, ret="CUDA_SUCCESS", text=None, cat="driver", inner=None,
                 extra=None, line=None):
            start = self.t
            args = {"ret": ret, "call": text or "%s(...) = %s" % (name, ret)}
            if extra:
                args.update(extra)
            if self.py and line:
                args["py"] = line
            e = {"ph": "X", "cat": cat, "name": name, "pid": self.pid, "tid": tid,
                 "ts": us(start), "dur": 0, "args": args}
            ev.append(e)
            self.t += rnd.randint(200, 900)
            if inner:
                inner()
            self.t += dur_ns
            e["dur"] = round(us(self.t) - us(start), 3)
            self.t += rnd.randint(300, 2000)
            return e

        def counter(self, tid):
            ev.append({"ph": "C", "name": "device memory", "pid": self.pid, "ts": us(self.t),
                       "args": {"device %d" % d: b for d, b in sorted(self.mem.items())}})

        def malloc(self, tid, size, dev, line, site, rt=True):
            ptr = self.next_ptr
            self.next_ptr += (size + 0xfffff) & ~0xfffff

            def drv():
                self.call(tid, "cuMemAlloc_v2", rnd.randint(2000, 9000),
                          text="cuMemAlloc_v2(&0x%x, %d) = CUDA_SUCCESS" % (ptr, size), line=line)
            if rt:
                self.call(tid, "cudaMalloc", 1000, cat="runtime", ret="cudaSuccess",
                          text="cudaMalloc(&0x%x, %d) = cudaSuccess" % (ptr, size), inner=drv, line=line)
            else:
                drv()
            self.mem[dev] = self.mem.get(dev, 0) + size
            self.allocs.append((ptr, size, dev, site))
            self.counter(tid)
            return ptr

        def free(self, tid, ptr, line):
            for i, (p, size, dev, _site) in enumerate(self.allocs):
                if p == ptr:
                    self.call(tid, "cuMemFree_v2", rnd.randint(1000, 5000),
                              text="cuMemFree_v2(0x%x) = CUDA_SUCCESS" % ptr, line=line)
                    self.mem[dev] -= size
                    del self.allocs[i]
                    self.counter(tid)
                    return

        def device_work(self, tid, call_name, dev, s, cat, name, dur_ns, line, extra_args, call_text=None):
            corr[0] += 1
            c = corr[0]
            strack = stream_tid(dev, s)
            launch = self.call(tid, call_name, rnd.randint(3000, 12000), extra={"corr": c}, line=line,
                               text=call_text)
            ev.append({"ph": "s", "cat": "flow", "name": "launch", "id": c, "pid": self.pid, "tid": tid,
                       "ts": round(launch["ts"] + launch["dur"] / 2, 3)})
            start = max(launch["ts"] * 1000 + 1500, self.stream_free.get(strack, 0))
            args = {"corr": c, "device": dev, "stream": s}
            args.update(extra_args)
            ev.append({"ph": "X", "cat": cat, "name": name, "pid": self.pid, "tid": strack,
                       "ts": us(start), "dur": us(dur_ns), "args": args})
            ev.append({"ph": "f", "bp": "e", "cat": "flow", "name": "launch", "id": c, "pid": self.pid,
                       "tid": strack, "ts": us(start)})
            self.stream_free[strack] = start + dur_ns + 500

        def instant(self, tid, cat, name, args, scope="t"):
            e = {"ph": "i", "s": scope, "cat": cat, "name": name, "pid": self.pid, "ts": us(self.t),
                 "args": args}
            if tid is not None:
                e["tid"] = tid
            ev.append(e)
            self.t += rnd.randint(100, 400)

    t0 = 5_000_000_000_123
    parent = Proc(4242, "python3", t0, py=True)
    parent.thread(4242)
    parent.thread(4250)
    for d in (0, 1):
        for s in (0, 1):
            parent.stream(d, s)
    parent.instant(4242, "process", "start", {"comm": "python3", "argv": "python3 train.py"}, scope="p")
    parent.call(4242, "cuInit", 150000, text="cuInit(0) = CUDA_SUCCESS", line="train.py:3")
    parent.call(4242, "cuDeviceGetCount", 2000, text="cuDeviceGetCount(&2) = CUDA_SUCCESS", line="train.py:4")
    kernels = ["add_one", "matmul_tiled<float, 32>", "reduce_sum(float const*, float*, int)",
               "evil</script><script>document.body.setAttribute('data-pwned', 1)</script>", "line\u2028sep\u2029para & <!-- c -->"]
    if a.plain:
        kernels[3:] = ["softmax_fwd<half>", "layernorm(float*, float const*, int)"]
    bufs = {}
    for d in (0, 1):
        bufs[d] = [parent.malloc(4242, (d + 1) * 4 << 20, d, "train.py:10", "train.py:10 in setup")
                   for _ in range(2)]
    for it in range(6 * a.scale):
        d = it % 2
        s = it % 2 if it % 3 else 1 - it % 2
        parent.device_work(4242, "cuMemcpyHtoDAsync_v2", d, s, "memcpy", "memcpy HtoD",
                           rnd.randint(20000, 80000), "train.py:21",
                           {"bytes": 1 << 22, "direction": "HtoD"})
        for k in range(3):
            kname = kernels[(it + k) % len(kernels)]
            parent.device_work(4242, "cuLaunchKernel", d, s, "kernel", kname, rnd.randint(30000, 250000),
                               "train.py:%d" % (30 + k),
                               {"grid": [128, 1, 1], "block": [256, 1, 1], "shared": 1024 * k})
        parent.device_work(4242, "cuMemsetD32Async", d, s, "memset", "memset",
                           rnd.randint(5000, 9000), "train.py:40", {"bytes": 1 << 20})
        parent.device_work(4242, "cuMemcpyDtoHAsync_v2", d, s, "memcpy", "memcpy DtoH",
                           rnd.randint(20000, 60000), "train.py:41", {"bytes": 1 << 22, "direction": "DtoH"})
        if it % 2 == 1:
            tmp = parent.malloc(4250, 64 << 20, d, "train.py:50", "train.py:50 in worker")
            parent.call(4250, "cuStreamSynchronize", rnd.randint(50000, 200000),
                        text="cuStreamSynchronize(stream#%d) = CUDA_SUCCESS" % s, line="train.py:51")
            parent.free(4250, tmp, "train.py:52")
        parent.call(4242, "cuCtxSynchronize", rnd.randint(100000, 300000), line="train.py:60",
                    text="cuCtxSynchronize() = CUDA_SUCCESS")
    # failures: an injected one, a denied one, a real one, a runtime error
    parent.instant(4242, "policy", "inject", {"call": "cuMemAlloc_v2", "error": "CUDA_ERROR_OUT_OF_MEMORY",
                                              "rule": "tdtrace.policy:4"})
    parent.call(4242, "cuMemAlloc_v2", 3000, ret="CUDA_ERROR_OUT_OF_MEMORY",
                text="cuMemAlloc_v2(0x7ffc0000, 1073741824) = CUDA_ERROR_OUT_OF_MEMORY (INJECTED by tdtrace.policy:4)",
                line="train.py:70")
    parent.instant(4242, "policy", "deny", {"call": "cuCtxSetLimit", "rule": "tdtrace.policy:7"})
    parent.call(4242, "cuCtxSetLimit", 800, ret="CUDA_ERROR_NOT_PERMITTED",
                text="cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE, 0) = CUDA_ERROR_NOT_PERMITTED (DENIED by tdtrace.policy:7)",
                line="train.py:71")
    parent.call(4242, "cudaFree", 1500, cat="runtime", ret="cudaErrorInvalidValue",
                text="cudaFree(0xdead) = cudaErrorInvalidValue", line="train.py:72",
                inner=lambda: parent.call(4242, "cuMemFree_v2", 900, ret="CUDA_ERROR_INVALID_VALUE",
                                          text="cuMemFree_v2(0xdead) = CUDA_ERROR_INVALID_VALUE",
                                          line="train.py:72"))
    parent.instant(4242, "policy", "cap", {"device": 1, "limit": 1 << 30, "rule": "--memory-limit=1G:device=1"})
    parent.call(4242, "cublasSgemm_v2", 90000, cat="library", ret="CUBLAS_STATUS_SUCCESS",
                text="cublasSgemm_v2(...) = CUBLAS_STATUS_SUCCESS", line="train.py:80")
    parent.call(4242, "cuModuleLoadData", 4000, ret="CUDA_ERROR_INVALID_PTX", line="train.py:81",
                text="cuModuleLoadData(&?, \"bad.ptx\") = CUDA_ERROR_INVALID_PTX" if a.plain else
                     "cuModuleLoadData(&?, \"<img src=x onerror=\\\"document.body.setAttribute('data-pwned', 2)\\\">\") "
                     "= CUDA_ERROR_INVALID_PTX")

    # the child: forked, no Python, one device, a fault, leaks
    child = Proc(4300, "worker" if a.plain else "worker <child>", parent.t + 1_000_000, py=False)
    parent.instant(4242, "process", "fork", {"child": 4300})
    child.thread(4300)
    child.stream(0, 0)
    child.stream(0, 3)
    child.instant(4300, "process", "exec", {"path": "/usr/bin/worker"}, scope="p")
    child.call(4300, "cuInit", 120000, text="cuInit(0) = CUDA_SUCCESS")
    cb = [child.malloc(4300, 16 << 20, 0, None, "worker.c:12 in main", rt=False) for _ in range(3)]
    for it in range(4 * a.scale):
        child.device_work(4300, "cuLaunchKernel", 0, 3 if it % 2 else 0, "kernel", kernels[it % 2],
                          rnd.randint(40000, 90000), None, {"grid": [64, 1, 1], "block": [128, 1, 1], "shared": 0})
    child.device_work(4300, "cuLaunchKernel", 0, 3, "kernel", "oob_write", 20000, None,
                      {"grid": [1, 1, 1], "block": [32, 1, 1], "shared": 0})
    child.instant(4300, "fault", "illegal address", {"kernel": "oob_write", "address": "0x7f3000fff000",
                                                     "access": "write", "block": [0, 0, 0], "thread": [7, 0, 0],
                                                     "site": "oob.cu:9"})
    child.call(4300, "cuCtxSynchronize", 50000, ret="CUDA_ERROR_ILLEGAL_ADDRESS",
               text="cuCtxSynchronize() = CUDA_ERROR_ILLEGAL_ADDRESS")
    child.free(4300, cb[0], None)
    child.instant(4300, "error", "records dropped", {"count": 3})
    child.instant(4300, "process", "exit", {"status": 1}, scope="p")
    for ptr, size, dev, site in child.allocs:
        child.instant(4300, "leak", "leak", {"ptr": "0x%x" % ptr, "bytes": size, "kind": "device",
                                                  "device": dev, "alloc": 1, "site": site})
    # the parent ends: frees one buffer per device, leaks the rest
    parent.t = max(parent.t, child.t) + 200000
    for d in (0, 1):
        parent.free(4242, bufs[d][0], "train.py:90")
    parent.instant(4242, "process", "exit", {"status": 0}, scope="p")
    for ptr, size, dev, site in parent.allocs:
        parent.instant(4242, "leak", "leak", {"ptr": "0x%x" % ptr, "bytes": size, "kind": "device",
                                                  "device": dev, "alloc": 1, "site": site})

    doc = {"displayTimeUnit": "ns",
           "otherData": {"tool": "tdtrace", "version": "0.1.0", "command": "python3 train.py --epochs 1",
                         "clock": "CLOCK_MONOTONIC", "device_times": "emulator"},
           "traceEvents": ev}
    with open(a.out, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
