# SPDX-License-Identifier: Apache-2.0
"""python3 tests/pyframes/frames.py LIBPYFT

src/pyframes' reader, called through ctypes from the places a CUDA call
can come from in a Python program: with the GIL held (ctypes.PyDLL) and
released (ctypes.CDLL), nested, from methods, lambdas, comprehensions,
generators, coroutines, exception handlers, deep recursion, several threads
at once, a C thread with no Python and a C thread calling back into Python.
Each read is checked two ways: against what this script knows of itself
(the lines marked "# @name" and the names it gave its functions) and, frame
by frame over the whole stack, against CPython's own view (f_lineno,
co_filename, co_qualname or co_name). Every read must allocate nothing.
The line-table decoder is checked against PyCode_Addr2Line at every
instruction of every code object of a few modules.

Prints "ok NAME" or "FAIL NAME: why" per check, then "N passed, N failed";
exits 1 on a failure.
"""
import ast
import ctypes
import dis
import os
import sys
import threading

LIB = sys.argv[1]
GIL = ctypes.PyDLL(LIB)  # the call keeps the GIL
NOGIL = ctypes.CDLL(LIB)  # ctypes releases it around the call
for lib in (GIL, NOGIL):
    lib.pyft_read.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int]
    lib.pyft_read_cthread.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int]
    lib.pyft_describe.restype = ctypes.c_char_p
    lib.pyft_version.restype = ctypes.c_ulong
    lib.pyft_line.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.c_int]
    lib.pyft_addr2line.argtypes = [ctypes.py_object, ctypes.c_int]
    lib.pyft_layout.argtypes = [ctypes.c_uint, ctypes.c_char_p, ctypes.c_int]

V = sys.version_info
QUAL = V >= (3, 11)  # co_qualname
ST_OK, ST_UNSUPPORTED, ST_NO_THREAD = 0, 2, 3
SUPPORTED = (3, 9) <= V[:2] <= (3, 13)
F_FILE_CUT, F_FUNC_CUT, F_QUALNAME = 1, 2, 4
STR_MAX = 200
HERE = __file__

MARK = {}
with open(HERE, encoding="utf-8") as src:
    for no, text in enumerate(src, 1):
        if "# @" in text and not text.lstrip().startswith(("#", '"')):
            MARK[text.split("# @", 1)[1].split()[0]] = no

passed = failed = 0


def report(name, problems):
    global passed, failed
    if problems:
        failed += 1
        print("FAIL %s: %s" % (name, "; ".join(problems[:3])))
    else:
        passed += 1
        print("ok   %s" % name)


def parse(raw):
    lines = raw.decode("utf-8", "surrogateescape").split("\n")
    head = {k: int(v) for k, v in (kv.split("=") for kv in lines[0].split())}
    frames = []
    for line in lines[1:]:
        if line:
            file, no, func, group, flags = line.split("\t")
            frames.append((file, int(no), func, int(group), int(flags)))
    return head, frames


def name_of(code):
    return code.co_qualname if QUAL else code.co_name


def cpython_view(frame):
    """what CPython says of the frames from frame outwards"""
    out = []
    while frame is not None:
        out.append((frame.f_code.co_filename, frame.f_lineno, name_of(frame.f_code)))
        frame = frame.f_back
    return out


class Read:
    def __init__(self, head, frames, want):
        self.head, self.frames, self.want = head, frames, want


def R(lib=None, max=64):
    """read the frames: R's own frame is the innermost"""
    lib = lib or MODE.lib
    want = [(HERE, MARK["R"], "R")] + cpython_view(sys._getframe(1))
    buf = ctypes.create_string_buffer(1 << 20)
    rc = lib.pyft_read(max, buf, len(buf))  # @R
    assert rc == 0, "result does not fit"
    return Read(*parse(buf.value), want)


class Mode(threading.local):
    lib = GIL


MODE = Mode()


def verify(r, inner=(), gil=None, n=None, more=0):
    """problems with read r: inner lists (mark, name) of the innermost
    frames after R, as this script knows them"""
    p = []
    h = r.head
    if h["status"] != ST_OK:
        p.append("status %d" % h["status"])
    if h["allocs"] != 0:
        p.append("allocations during the read: %d" % h["allocs"])
    if gil is not None and h["gil"] != gil:
        p.append("GIL held %d, not %d" % (h["gil"], gil))
    want = r.want if n is None else r.want[:n]
    got = [f[:3] for f in r.frames]
    if got != want:
        for i, (g, w) in enumerate(zip(got + [None] * len(want), want + [None] * len(got))):
            if g != w:
                p.append("frame %d is %r, CPython says %r" % (i, g, w))
                break
    if h["n"] != len(r.frames) or h["more"] != more:
        p.append("n=%d more=%d" % (h["n"], h["more"]))
    for i, (mark, func) in enumerate(inner, 1):
        w = (HERE, MARK[mark], func)
        if i >= len(got) or got[i] != w:
            p.append("frame %d is %r, not %r" % (i, got[i] if i < len(got) else None, w))
    groups = [f[3] for f in r.frames]
    if groups and (groups[0] != 0 or any(b < a for a, b in zip(groups, groups[1:]))):
        p.append("groups %r" % groups)
    for f in r.frames:
        if f[4] != (F_QUALNAME if QUAL else 0):
            p.append("flags %d on %s" % (f[4], f[2]))
    return p


def q(qual, bare):
    return qual if QUAL else bare


# ---- where calls come from ---------------------------------------------


def case_nested():
    def inner():
        return R()  # @nested_inner

    return inner(), [("nested_inner", q("case_nested.<locals>.inner", "inner")), ("nested_outer", "case_nested")]  # @nested_outer


class K:
    def method(self):
        return R()  # @method

    @staticmethod
    def static():
        return R()  # @static


def case_method():
    return K().method(), [("method", q("K.method", "method"))]


def case_static():
    return K.static(), [("static", q("K.static", "static"))]


def case_lambda():
    return (lambda: R())(), [("lambda", q("case_lambda.<locals>.<lambda>", "<lambda>")), ("lambda", "case_lambda")]  # @lambda


def case_listcomp():
    r = [R() for _ in range(1)][0]  # @listcomp
    if V < (3, 12):  # comprehensions run in a frame of their own until 3.12
        return r, [("listcomp", q("case_listcomp.<locals>.<listcomp>", "<listcomp>")), ("listcomp", "case_listcomp")]
    return r, [("listcomp", "case_listcomp")]


def case_genexpr():
    r = next(R() for _ in range(1))  # @genexpr
    return r, [("genexpr", q("case_genexpr.<locals>.<genexpr>", "<genexpr>")), ("genexpr", "case_genexpr")]


def gen():
    yield R()  # @gen


def case_generator():
    for r in gen():  # @generator
        return r, [("gen", "gen"), ("generator", "case_generator")]


async def coro():
    return R()  # @coro


def case_coroutine():
    c = coro()
    try:
        c.send(None)  # @coroutine
    except StopIteration as e:
        return e.value, [("coro", "coro"), ("coroutine", "case_coroutine")]


def case_except():
    try:
        raise ValueError("x")
    except ValueError:
        return R(), [("except", "case_except")]  # @except


def case_finally():
    try:
        pass
    finally:
        r = R()  # @finally
    return r, [("finally", "case_finally")]


def case_multiline():
    # a call over several lines: the line is whichever CPython gives it
    return R(
        max=64,
    ), []


def case_decorated():
    def deco(fn):
        def wrapper():
            return fn()  # @wrapper

        return wrapper

    @deco
    def target():
        return R()  # @target

    return target(), [
        ("target", q("case_decorated.<locals>.target", "target")),
        ("wrapper", q("case_decorated.<locals>.deco.<locals>.wrapper", "wrapper")),
    ]


CASES = [case_nested, case_method, case_static, case_lambda, case_listcomp, case_genexpr,
         case_generator, case_coroutine, case_except, case_finally, case_multiline, case_decorated]


def run_cases():
    for lib, gil, what in ((GIL, 1, "GIL held"), (NOGIL, 0, "GIL released")):
        MODE.lib = lib
        for case in CASES:
            r, inner = case()
            report("%s, %s" % (case.__name__[5:], what), verify(r, inner, gil=gil))
    MODE.lib = GIL


# ---- deep stacks ---------------------------------------------------------


def rec(n, max):
    if n == 0:
        return R(max=max)  # @rec0
    return rec(n - 1, max)  # @rec


def case_deep():
    for lib, what in ((GIL, "GIL held"), (NOGIL, "GIL released")):
        r = rec(300, 1000) if lib is GIL else rec_in(NOGIL, 300, 1000)
        inner = [("rec0", "rec")] + [("rec", "rec")] * 300
        report("300 nested calls, all frames, %s" % what, verify(r, inner))
        r = rec(300, 64) if lib is GIL else rec_in(NOGIL, 300, 64)
        report("300 nested calls, the innermost 64, %s" % what, verify(r, inner[:63], n=64, more=1))
        r = rec(300, 1) if lib is GIL else rec_in(NOGIL, 300, 1)
        report("300 nested calls, the innermost 1, %s" % what, verify(r, n=1, more=1))


def case_many_names():
    """9 frames of one recursive function, under 40 nested functions each of
    its own name and file: the reader keeps copies of fewer strings than
    the walk meets before it comes to frames that share theirs"""
    ns = {"R": R}
    for i in range(40):
        exec(compile("def f%d():\n    return f%d()\n" % (i, i + 1), "/tmp/many_%d.py" % i, "exec"), ns)
    exec(compile("def f40():\n    return R(max=1000)\ndef g(n):\n    return g(n - 1) if n else f0()\n",
                 "/tmp/many_40.py", "exec"), ns)
    report("9 frames of one function under 41 of their own names and files", verify(ns["g"](8)))


def rec_in(lib, n, max):
    MODE.lib = lib
    try:
        return rec(n, max)
    finally:
        MODE.lib = GIL


# ---- names that are not plain ASCII, names too long --------------------


def make_fn(name, filename):
    ns = {"R": R}
    exec(compile("def f():\n    return R()\n", filename, "exec"), ns)
    fn = ns["f"]
    kw = {"co_name": name}
    if QUAL:
        kw["co_qualname"] = name
    fn.__code__ = fn.__code__.replace(**kw)
    return fn


def utf8_tail(s, cap):
    b = s.encode("utf-8", "surrogateescape")
    if len(b) <= cap:
        return b, 0
    chars = len(s)
    while len(s[len(s) - chars:].encode("utf-8", "surrogateescape")) > cap:
        chars -= 1
    return s[len(s) - chars:].encode("utf-8", "surrogateescape"), 1


def case_names():
    long_file = "/tmp/" + "dir/" * 80 + "long_file_name.py"
    for what, name, filename in (
        ("latin-1 name", "größe", "/tmp/latin.py"),
        ("UCS-2 name", "関数の名前", "/tmp/ucs2.py"),
        ("UCS-4 name", "f\U0001F600g", "/tmp/\U0001F600.py"),
        ("undecodable byte in the file name", "f", "/tmp/\udcff\udcfe.py"),
        ("name longer than the cap", "n" * 150 + "関" * 100 + "_end", "/tmp/x.py"),
        ("file name longer than the cap", "f", long_file),
        ("NUL in the name", "a\0b", "/tmp/nul.py"),
    ):
        r = make_fn(name, filename)()
        p = []
        if r.head["status"] != ST_OK or r.head["allocs"] != 0 or len(r.frames) < 2:
            p.append("head %r" % r.head)
        else:
            f = r.frames[1]
            want_file, file_cut = utf8_tail(filename, STR_MAX)
            want_name, name_cut = utf8_tail(name.replace("\0", "?"), STR_MAX)
            got_file = f[0].encode("utf-8", "surrogateescape")
            got_name = f[2].encode("utf-8", "surrogateescape")
            if got_file != want_file:
                p.append("file %r, not %r" % (got_file, want_file))
            if got_name != want_name:
                p.append("name %r, not %r" % (got_name, want_name))
            want_flags = (F_QUALNAME if QUAL else 0) | (F_FILE_CUT if file_cut else 0) | (F_FUNC_CUT if name_cut else 0)
            if f[4] != want_flags:
                p.append("flags %d, not %d" % (f[4], want_flags))
            if f[1] != 2:
                p.append("line %d, not 2" % f[1])
        report(what, p)


# ---- threads -------------------------------------------------------------


def level(n, errors, reads):
    if n == 0:
        for _ in range(reads):
            r = R(NOGIL)  # @level0
            p = verify(r, [("level0", "level")], gil=0)
            if p:
                errors.append("; ".join(p))
                return
        return
    return level(n - 1, errors, reads)  # @level


def case_threads():
    errors = []
    stop = threading.Event()

    def churn():  # Python runs in another thread while the GIL is free
        while not stop.is_set():
            [str(i) * 3 for i in range(300)]

    workers = [threading.Thread(target=level, args=(k, errors, 60)) for k in range(1, 7)]
    others = [threading.Thread(target=churn) for _ in range(2)]
    for t in others + workers:
        t.start()
    level(3, errors, 60)  # the main thread too
    for t in workers:
        t.join()
    stop.set()
    for t in others:
        t.join()
    report("7 threads reading at once, GIL released, 2 more running Python", errors[:3])


def in_child():
    return R()  # @child


def case_fork():
    """a forked child reads its own frames, not its parent's"""
    pid = os.fork()
    if pid == 0:
        r = in_child()
        os._exit(1 if verify(r, [("child", "in_child")]) else 0)
    _, status = os.waitpid(pid, 0)
    report("after fork, the child's own frames", [] if status == 0 else ["child: wait status %d" % status])


def case_cthread():
    buf = ctypes.create_string_buffer(1 << 16)
    rc = NOGIL.pyft_read_cthread(16, buf, len(buf))
    head, frames = parse(buf.value)
    p = []
    if rc != 0 or head["status"] != ST_NO_THREAD or head["n"] != 0 or frames:
        p.append("rc %d, %r %r" % (rc, head, frames))
    if head.get("allocs") != 0:
        p.append("allocations during the read: %r" % head.get("allocs"))
    report("a C thread with no Python: not a Python thread, nothing read", p)


def case_callback():
    out = []

    @ctypes.CFUNCTYPE(None)
    def callback():
        out.append(R())  # @callback

    NOGIL.pyft_callback_cthread(callback)
    p = verify(out[0], [("callback", q("case_callback.<locals>.callback", "callback"))], gil=1) if out else ["no call"]
    if out and len(out[0].frames) != 2:
        p.append("%d frames: a C thread's callback has R and itself only" % len(out[0].frames))
    report("a C thread calling back into Python", p)


def case_subinterpreter():
    """Python code in a subinterpreter: with the GIL held, its frames (the
    thread state holding the GIL is this thread's); with it released, the
    same from 3.12 (the GIL-state API follows the thread's current state),
    up to 3.11 the main interpreter's frames of this thread, the call that
    entered the subinterpreter (nothing says more while the GIL is free)"""
    try:
        import _xxsubinterpreters as interpreters
    except ImportError:
        try:
            import _interpreters as interpreters
        except ImportError:
            report("subinterpreter: no _xxsubinterpreters here (skipped)", [])
            return
    try:
        interp = interpreters.create(isolated=False)
    except TypeError:
        try:
            interp = interpreters.create("legacy")
        except TypeError:
            interp = interpreters.create()
    out = ctypes.create_string_buffer(1 << 16)
    for libname, gil in (("PyDLL", 1), ("CDLL", 0)):
        code = (
            "import ctypes\n"
            "lib = ctypes.%s(%r)\n"
            "lib.pyft_read.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int]\n"
            "buf = ctypes.create_string_buffer(1 << 16)\n"
            "def inside():\n"
            "    lib.pyft_read(16, buf, len(buf))\n"
            "inside()\n"
            "ctypes.memmove(%d, buf, len(buf))\n" % (libname, LIB, ctypes.addressof(out))
        )
        want_main = cpython_view(sys._getframe())
        interpreters.run_string(interp, code)  # @subinterp
        head, frames = parse(out.value)
        got = [f[:3] for f in frames]
        if gil or V >= (3, 12):
            want = [("<string>", 6, "inside"), ("<string>", 7, "<module>")]
        else:
            want = [(HERE, MARK["subinterp"], want_main[0][2])] + want_main[1:]
        p = []
        # (PyGILState_Check says 1 once a subinterpreter exists: not checked)
        if head["status"] != ST_OK or head["allocs"] != 0:
            p.append("head %r" % head)
        if got != want:
            p.append("frames %r, not %r" % (got[:3], want[:3]))
        report("subinterpreter, GIL %s" % ("held" if gil else "released"), p)
    interpreters.destroy(interp)


def broken(what, max=16):
    buf = ctypes.create_string_buffer(1 << 16)
    rc = GIL.pyft_read_broken(what, max, buf, len(buf))  # @broken
    assert rc == 0
    return parse(buf.value)


def case_broken():
    """a frame chain damaged on purpose (and mended): the walk ends where the
    damage is, with the frames before it, and never faults"""
    GIL.pyft_read_broken.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_char_p, ctypes.c_int]
    ST_BAD = 6
    me = name_of(sys._getframe().f_code)
    inner = (HERE, MARK["broken"], "broken")
    for what, text, status, frames in (
        (1, "code object pointer to unmapped memory", ST_BAD, []),
        (2, "code object pointer to an object that is not code", ST_BAD, []),
        (3, "caller pointer to unmapped memory", ST_BAD, [inner]),
        (4, "caller pointer to the frame itself", ST_BAD, [inner]),
        (5, "a cycle of two frames", ST_BAD, [inner, (HERE, MARK["broken_call"], me)]),
        (6, "frame pointer misaligned", ST_BAD, []),
        (7, "file name pointer to unmapped memory", ST_OK, [(b"?", MARK["broken"], "broken")]),
        (8, "line table pointer to a str", ST_OK, [(HERE, -1, "broken")]),
        (9, "function name pointer to a code object", ST_OK, [(HERE, MARK["broken"], "?")]),
    ):
        head, got = broken(what)  # @broken_call
        got = [f[:3] for f in got]
        if what in (7,):
            got = [(f[0].encode(),) + f[1:] for f in got]
        p = []
        if head["status"] != status or head["allocs"] != 0:
            p.append("head %r" % head)
        if status == ST_BAD and got != frames:
            p.append("frames %r, not %r" % (got, frames))
        if status == ST_OK and got[:1] != frames:
            p.append("innermost %r, not %r" % (got[:1], frames))
        if status == ST_OK and len(got) < 3:
            p.append("only %d frames" % len(got))
        report("broken chain: %s" % text, p)


# ---- the line tables -----------------------------------------------------


def codes(co):
    yield co
    for c in co.co_consts:
        if hasattr(c, "co_code"):
            yield from codes(c)


def case_linetable():
    fmt = 1 if V < (3, 10) else 2 if V < (3, 11) else 3
    checked = 0
    bad = []
    for path in (threading.__file__, ast.__file__, dis.__file__, HERE):
        with open(path, encoding="utf-8") as f:
            top = compile(f.read(), path, "exec")
        for co in codes(top):
            table = co.co_lnotab if fmt == 1 else co.co_linetable
            for addr in range(-2, len(co.co_code) + 4, 2):
                mine = GIL.pyft_line(fmt, table, len(table), co.co_firstlineno, addr)
                checked += 1
                if mine <= -997:
                    bad.append("%s:%s at %d: pieces differ (%d)" % (path, co.co_name, addr, mine))
                elif addr < len(co.co_code) and mine != GIL.pyft_addr2line(co, addr):
                    bad.append("%s:%s at %d: %d, CPython %d" % (path, co.co_name, addr, mine, GIL.pyft_addr2line(co, addr)))
    report("line table decoder = PyCode_Addr2Line at %d instructions" % checked, bad[:3])


def case_garbage_tables():
    """a garbage line table never reads past its end (ASan would see it) and
    gives a line or -1"""
    import random

    rnd = random.Random(1)
    p = []
    for fmt in (1, 2, 3):
        for _ in range(3000):
            n = rnd.randrange(0, 40)
            table = bytes(rnd.randrange(256) for _ in range(n))
            line = GIL.pyft_line(fmt, table, n, rnd.randrange(-5, 1000), rnd.randrange(-4, 600))
            if line <= -997:
                p.append("fmt %d table %s: %d" % (fmt, table.hex(), line))
                break
    report("garbage line tables: no read past the end, pieces agree", p)


def case_detection():
    p = []
    desc = GIL.pyft_describe().decode()
    want = "CPython %d.%d.%d (" % V[:3]
    if not desc.startswith(want) or "not supported" in desc:
        p.append("describe %r" % desc)
    if GIL.pyft_version() >> 8 != sys.hexversion >> 8:
        p.append("version %#x, sys.hexversion %#x" % (GIL.pyft_version(), sys.hexversion))
    report("detection: %s" % desc, p)


def case_unsupported():
    """a CPython the reader does not know: it says so and reads nothing"""
    p = []
    desc = GIL.pyft_describe().decode()
    if "not supported" not in desc:
        p.append("describe %r" % desc)
    for lib in (GIL, NOGIL):
        buf = ctypes.create_string_buffer(1 << 16)
        lib.pyft_read(16, buf, len(buf))
        head, frames = parse(buf.value)
        if head["status"] != ST_UNSUPPORTED or frames or head["allocs"] != 0:
            p.append("read: %r %r" % (head, frames))
    report("not supported: %s" % desc, p)


def main():
    if not SUPPORTED:
        case_unsupported()
        return
    case_detection()
    run_cases()
    case_deep()
    case_many_names()
    case_names()
    case_threads()
    case_cthread()
    case_fork()
    case_callback()
    case_broken()
    case_subinterpreter()  # last of the reads: it turns PyGILState_Check off
    case_linetable()
    case_garbage_tables()


main()  # @main
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
