#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""NVIDIA's cuda-samples on the emulated GPU: the yardstick of
docs/cuda-samples.md. Not part of `make check` (it needs the toolkit, a
checkout of github.com/NVIDIA/cuda-samples and an hour of CPU).

Each sample of 0_Introduction, 1_Utilities, 2_Concepts_and_Techniques,
3_CUDA_Features, 4_CUDA_Libraries and 6_Performance is built from what its
CMakeLists.txt says (sources, CUDA:: libraries, compile options), with nvcc
for one architecture, in two variants:
  a: -gencode arch=compute_90,code=[sm_90,compute_90]
  b: the same with -rdc=true (what CUDA_SEPARABLE_COMPILATION gives)
and run on the emulated GPU (LD_LIBRARY_PATH: the emulated driver first,
then --extra-libdir: tdtrace's host libraries), in its own source folder
(its data files), with 2 emulated devices. Samples that need graphics
interop, MPI, NvSci, NPP or nvJPEG are left out, with the reason.

A sample passes when it exits 0, its output shows none of the failure
marks (FAIL, mismatch, "Test failed", CUDA error lines, waived) and at
least one of the samples' success marks (PASS, "Test passed", "Result =
PASS", ...), or for the few that print no mark, a clean exit. Writes
OUT/results-VARIANT.tsv (name, verdict, seconds, reason) and prints the
counts.

  python3 tests/samples/run.py --src CUDA_SAMPLES --emu build/lib/tdtrace/emu \\
      [--extra-libdir build/lib/tdtrace/host] [--variant a|b|both] [--only REGEX] \\
      [--timeout 120] [--out /tmp/samples] [--jobs 2]
"""
import argparse
import concurrent.futures
import glob
import os
import re
import shutil
import subprocess
import sys
import time

GROUPS = ["0_Introduction", "1_Utilities", "2_Concepts_and_Techniques", "3_CUDA_Features",
          "4_CUDA_Libraries", "6_Performance"]
LEFT_OUT = [  # (regex over the CMakeLists.txt without comments, reason)
    (r"find_package\((OpenGL|GLUT|Vulkan|X11|EGL)|OpenGL::|GLUT::|glfw|EGL", "graphics interop"),
    (r"find_package\(MPI|MPI::", "MPI"),
    (r"nvsci|NvSci", "NvSci"),
    (r"CUDA::npp", "NPP"),
    (r"CUDA::nvjpeg", "nvJPEG"),
    (r"FreeImage", "FreeImage (NPP samples)"),
]
LIBS = {"cudart": None, "cudart_static": None, "cuda_driver": "-lcuda", "cublas": "-lcublas",
        "cublasLt": "-lcublasLt", "cufft": "-lcufft", "curand": "-lcurand",
        "cusolver": "-lcusolver -lcusparse -lcublasLt -lcublas",  # what CMake's CUDA::cusolver brings
        "cusparse": "-lcusparse", "nvrtc": "-lnvrtc", "nvJitLink": "-lnvJitLink", "nvjitlink": "-lnvJitLink",
        "cudadevrt": "-lcudadevrt", "nvtx3": None, "cufft_static": "-lcufft"}
FAIL = re.compile(r"FAIL|[Mm]ismatch|Test failed|TEST FAILED|CUDA error|CUDA_ERROR|code=\d+\(cuda|[Ww]aived|"
                  r"Result = FAIL|does not match|INCORRECT|Errors? found|verification failed", re.S)
# samples whose expected output carries a failure mark: their own success line
OWN_CHECK = {"0_Introduction/simpleAssert": "simpleAssert completed, returned OK"}
PASS = re.compile(r"PASS|[Tt]est passed|Result = PASS|[Cc]orrect|\bpassed\b|[Cc]omplete|SUCCESS|[Dd]one|[Rr]esults: OK|"
                  r"Error amount = 0\.0+\s|Counted total of 0 errors", re.S)


def cmake_facts(d):
    text = re.sub(r"#[^\n]*", "", open(os.path.join(d, "CMakeLists.txt")).read())
    for rx, why in LEFT_OUT:
        if re.search(rx, text):
            return None, why
    m = re.search(r"add_executable\(\s*(\S+)\s+([^)]*)\)", text)
    if not m:
        return None, "no executable in its CMakeLists.txt"
    srcs = [s for s in m.group(2).split() if re.search(r"\.(cu|cpp|c|cxx)$", s)]
    libs = []
    for lib in re.findall(r"CUDA::(\w+)", text):
        if lib not in LIBS:
            return None, "links CUDA::%s, which this harness does not know" % lib
        for flag in (LIBS[lib] or "").split():
            if flag not in libs:
                libs.append(flag)
    if "NVJITLINK_LIB" in text:
        libs.append("-lnvJitLink")
    # kernels the sample loads from a file: built as its CMakeLists.txt does
    kernels = []
    src = re.search(r'set\(CUDA_KERNEL_SOURCE\s+"\$\{CMAKE_CURRENT_SOURCE_DIR\}/([^"]+)"', text)
    for kind, name in re.findall(r'set\(CUDA_(FATBIN|PTX|CUBIN)_FILE\s+"\$\{CMAKE_CURRENT_BINARY_DIR\}/([^"]+)"', text):
        if src:
            kernels.append((kind.lower(), name, src.group(1)))
    opts = []
    if "--extended-lambda" in text:
        opts.append("--extended-lambda")
    if "-use_fast_math" in text or "--use_fast_math" in text:
        opts.append("-use_fast_math")
    for extra in re.findall(r"target_link_libraries\([^)]*\)", text):
        for dl in ("dl", "pthread", "gomp"):
            if re.search(r"\b%s\b" % dl, extra) and "-l" + dl not in libs:
                libs.append("-l" + dl)
        if "OpenMP" in extra:
            opts.append("-Xcompiler=-fopenmp")
            libs.append("-lgomp")
    # what the sample's POST_BUILD steps copy beside the executable: (sources, destination)
    copies = []
    for cmd in re.findall(r"add_custom_command\(\s*TARGET\s+\S+\s+POST_BUILD\s+COMMAND\s+\$\{CMAKE_COMMAND\}\s+-E\s+"
                          r"(copy|copy_if_different|copy_directory)\s+([^)]*)\)", text):
        args = cmd[1].split()
        if len(args) >= 2:
            copies.append((cmd[0] == "copy_directory", args[:-1], args[-1]))
    # the lists those steps may name: file(GLOB NAME "pattern") in the source folder
    globs = {g[0]: sorted(glob.glob(os.path.join(d, g[1]))) for g in re.findall(r'file\(GLOB\s+(\w+)\s+"([^"]+)"\)', text)}
    return {"name": m.group(1), "srcs": srcs, "libs": libs, "opts": opts, "kernels": kernels,
            "separable": bool(re.search(r"CUDA_SEPARABLE_COMPILATION\s+ON", text)), "copies": copies,
            "globs": globs}, None


NEEDS_RDC = "requires separate compilation mode"


def compile_sample(nvcc, common, d, facts, rdc, exe):
    cmd = [nvcc, "-std=c++17", "-I", common, "-I", d, "-gencode", "arch=compute_90,code=[sm_90,compute_90]",
           "-o", exe] + facts["opts"]
    if rdc:
        cmd += ["-rdc=true"]
    cmd += [os.path.join(d, s) for s in facts["srcs"]] + facts["libs"]
    if rdc:
        cmd += ["-lcudadevrt"]
    return subprocess.run(cmd, capture_output=True, text=True)


def build(nvcc, common, d, facts, variant, out):
    """The executable, a note on how it was built, or None and the error."""
    exe = os.path.join(out, "bin-" + variant, facts["name"])
    os.makedirs(os.path.dirname(exe), exist_ok=True)
    note = ""
    p = compile_sample(nvcc, common, d, facts, variant == "b", exe)
    if p.returncode and variant == "a" and facts["separable"] and NEEDS_RDC in p.stderr:
        # kernels launching kernels cannot be built without -rdc=true, which
        # the sample's own CMakeLists.txt turns on: built as it says
        p = compile_sample(nvcc, common, d, facts, True, exe)
        note = "built with -rdc=true (device-side launches need it; its CMakeLists.txt sets it) | "
    if p.returncode:
        return None, (p.stderr or p.stdout).strip().splitlines()[-1:] or ["nvcc failed"]
    for kind, name, src in facts["kernels"]:  # beside the sources: the samples look there
        arch = ["-arch=compute_90"] if kind == "ptx" else ["-gencode", "arch=compute_90,code=[sm_90,compute_90]"]
        k = subprocess.run([nvcc, "-I", common] + arch + ["-" + kind, "-o", os.path.join(d, name),
                            os.path.join(d, src)], capture_output=True, text=True)
        if k.returncode:
            return None, ["the kernel file %s: " % name + ((k.stderr or "nvcc failed").strip().splitlines() or [""])[-1]]
    return (exe, note), None


def copy_files(src, files, dst):
    """Copies the files into dst; a link on the way (to the source
    folder) is replaced, never written through."""
    if os.path.islink(dst):
        os.unlink(dst)
    os.makedirs(dst, exist_ok=True)
    for f in files:
        t = os.path.join(dst, f)
        if os.path.lexists(t):
            os.unlink(t)
        shutil.copy(os.path.join(src, f), t)


def run_folder(args, d, facts, variant):
    """Where the sample runs, and a note: its source folder, or, where its
    POST_BUILD steps copy files beside the executable (the NVRTC samples'
    headers), a folder at the same depth below OUT/run-V holding links to
    everything in the source folder and those copies. A step naming what
    this harness cannot resolve is left out, and the note says so."""
    if not facts["copies"]:
        return d, ""
    rel = os.path.relpath(d, args.src)
    root = os.path.join(os.path.abspath(args.out), "run-" + variant)
    here = os.path.join(root, rel)
    shutil.rmtree(here, ignore_errors=True)
    os.makedirs(here)
    common = os.path.join(root, "Common")
    if not os.path.lexists(common):  # the samples' ../../../Common/data
        os.symlink(os.path.join(os.path.abspath(args.src), "Common"), common)
    for e in os.listdir(d):
        os.symlink(os.path.join(d, e), os.path.join(here, e))
    inc = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(args.nvcc))), "include")
    names = {"CMAKE_CURRENT_SOURCE_DIR": d, "CMAKE_CURRENT_BINARY_DIR": here, "CUDA_INCLUDE_DIR": inc,
             "CUDAToolkit_INCLUDE_DIRS": inc}
    note = ""

    def resolve(a):
        """the paths an argument names (a glob's list), or None"""
        whole = re.fullmatch(r"\$\{(\w+)\}", a)
        if whole and whole.group(1) in facts["globs"]:
            return facts["globs"][whole.group(1)]
        if any(v not in names for v in re.findall(r"\$\{(\w+)\}", a)):
            return None
        return [re.sub(r"\$\{(\w+)\}", lambda m: names[m.group(1)], a)]
    for is_dir, srcs, dst in facts["copies"]:
        dsts, paths = resolve(dst), [resolve(x) for x in srcs]
        if not dsts or len(dsts) != 1 or any(p is None for p in paths):
            note += "left out a POST_BUILD step naming what this harness does not know: %s | " % " ".join(srcs + [dst])
            continue
        dst = dsts[0]
        real = os.path.realpath(dst)
        if real != os.path.realpath(here) and not real.startswith(os.path.realpath(here) + os.sep):
            # never write through a link into the samples' checkout
            note += "left out a POST_BUILD step copying into the source folder: %s | " % dst
            continue
        for x in [p for ps in paths for p in ps]:
            if is_dir:
                for top, _, files in os.walk(x):
                    copy_files(top, files, os.path.normpath(os.path.join(dst, os.path.relpath(top, x))))
            else:
                copy_files(os.path.dirname(x), [os.path.basename(x)], dst)
    return here, note


def run(exe, d, env, timeout, name=""):
    t0 = time.time()
    try:
        p = subprocess.run([exe], cwd=d, env=env, capture_output=True, text=True, timeout=timeout,
                           errors="replace", stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return "timeout", time.time() - t0, "over %d s" % timeout
    dt = time.time() - t0
    text = p.stdout + p.stderr
    tail = " | ".join(l.strip() for l in text.strip().splitlines()[-3:])[:300]
    if p.returncode != 0:
        return "fail", dt, "exit %d: %s" % (p.returncode, tail)
    if name in OWN_CHECK:
        return ("pass" if OWN_CHECK[name] in text else "fail"), dt, tail
    if FAIL.search(text):
        return "fail", dt, "failure mark: " + FAIL.search(text).group(0) + ": " + tail
    return ("pass" if PASS.search(text) else "pass-nomark"), dt, tail


def one(args, env, common, d, variant):
    name = os.path.relpath(d, os.path.join(args.src, "Samples"))
    facts, why = cmake_facts(d)
    if not facts:
        return name, "left-out", 0.0, why
    built, err = build(args.nvcc, common, d, facts, variant, args.out)
    if not built:
        return name, "build-fail", 0.0, err[0]
    here, note = run_folder(args, d, facts, variant)
    verdict, dt, tail = run(built[0], here, env, args.timeout, name)
    return name, verdict, dt, built[1] + note + tail


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", required=True)
    ap.add_argument("--emu", required=True)
    ap.add_argument("--extra-libdir", action="append", default=[])
    ap.add_argument("--variant", default="a", choices=["a", "b", "both"])
    ap.add_argument("--only", default="")
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--out", default="/tmp/samples")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--nvcc", default=os.environ.get("TD_NVCC", "/usr/local/cuda/bin/nvcc"))
    args = ap.parse_args()
    common = os.path.join(args.src, "Common")
    dirs = sorted(os.path.join(args.src, "Samples", g, s) for g in GROUPS
                  for s in os.listdir(os.path.join(args.src, "Samples", g))
                  if os.path.isfile(os.path.join(args.src, "Samples", g, s, "CMakeLists.txt")))
    dirs = [d for d in dirs if re.search(args.only, d)]
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = ":".join([os.path.abspath(args.emu)] + [os.path.abspath(x) for x in args.extra_libdir] +
                                      ["/usr/local/cuda/lib64"])
    env["TDTRACE_EMU_DEVICES"] = "2"
    os.makedirs(args.out, exist_ok=True)
    for variant in (["a", "b"] if args.variant == "both" else [args.variant]):
        # each result as it comes (a run cut short keeps what it found), then all in order
        part = os.path.join(args.out, "results-%s.partial.tsv" % variant)
        with open(part, "w") as pf, concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
            def done(d):
                r = one(args, env, common, d, variant)
                pf.write("%s\t%s\t%.1f\t%s\n" % (r[0], r[1], r[2], r[3].replace("\t", " ")))
                pf.flush()
                return r
            res = list(ex.map(done, dirs))
        path = os.path.join(args.out, "results-%s.tsv" % variant)
        with open(path, "w") as f:
            for name, verdict, dt, why in res:
                f.write("%s\t%s\t%.1f\t%s\n" % (name, verdict, dt, why.replace("\t", " ")))
        counts = {}
        for r in res:
            counts[r[1]] = counts.get(r[1], 0) + 1
        tried = len(res) - counts.get("left-out", 0)
        passed = counts.get("pass", 0) + counts.get("pass-nomark", 0)
        print("variant %s: %d of %d pass (%s); %d left out; %s" %
              (variant, passed, tried, ", ".join("%s %d" % kv for kv in sorted(counts.items())),
               counts.get("left-out", 0), path))
    return 0


if __name__ == "__main__":
    sys.exit(main())
