/* SPDX-License-Identifier: Apache-2.0 */
/* What a CPython version's own headers say of the fields src/pyframes
 * reads, in the lines libpyft.c's pyft_layout prints from the reader's
 * table (tests/pyframes/run.sh compares the two). Built against each
 * installed interpreter's headers, internal ones included. */
#define Py_BUILD_CORE 1
#include <Python.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#if PY_VERSION_HEX >= 0x030B0000
#include "internal/pycore_frame.h"
#else
#include <frameobject.h>
#endif
#if PY_VERSION_HEX >= 0x030D0000
#include "internal/pycore_runtime.h"
#endif

#define P(name, v) printf("%s %u\n", name, (unsigned)(v))
#define O(name, T, f) P(name, offsetof(T, f))

/* the bit where a field of str's state starts */
#define BIT(name, field)                                                                                               \
    do {                                                                                                               \
        PyASCIIObject o;                                                                                               \
        unsigned w, b = 0;                                                                                             \
        memset(&o, 0, sizeof(o));                                                                                      \
        o.state.field = 1;                                                                                             \
        memcpy(&w, (char *)&o + offsetof(PyASCIIObject, state), 4);                                                    \
        while (w && !(w & 1)) {                                                                                        \
            w >>= 1;                                                                                                   \
            b++;                                                                                                       \
        }                                                                                                              \
        P(name, b);                                                                                                    \
    } while (0)

int main(void)
{
#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030D0000
    O("ts_cframe", PyThreadState, cframe);
    O("cf_frame", _PyCFrame, current_frame);
#elif PY_VERSION_HEX >= 0x030D0000
    O("ts_frame", PyThreadState, current_frame);
#else
    O("ts_frame", PyThreadState, frame);
#endif
#if PY_VERSION_HEX < 0x030C0000
    O("ts_thread_id", PyThreadState, thread_id);
#endif
#if PY_VERSION_HEX >= 0x030B0000
    O("ts_chunk", PyThreadState, datastack_chunk);
    O("ts_top", PyThreadState, datastack_top);
    O("fr_back", _PyInterpreterFrame, previous);
#if PY_VERSION_HEX >= 0x030D0000
    O("fr_code", _PyInterpreterFrame, f_executable);
    O("fr_instr", _PyInterpreterFrame, instr_ptr);
#else
    O("fr_code", _PyInterpreterFrame, f_code);
    O("fr_instr", _PyInterpreterFrame, prev_instr);
#endif
    O("fr_owner", _PyInterpreterFrame, owner);
#if PY_VERSION_HEX < 0x030C0000
    O("fr_entry", _PyInterpreterFrame, is_entry);
#endif
    O("co_firsttraceable", PyCodeObject, _co_firsttraceable);
    O("co_code", PyCodeObject, co_code_adaptive);
#else
    O("fr_back", PyFrameObject, f_back);
    O("fr_code", PyFrameObject, f_code);
    O("fr_instr", PyFrameObject, f_lasti);
#endif
    O("co_firstlineno", PyCodeObject, co_firstlineno);
    O("co_filename", PyCodeObject, co_filename);
#if PY_VERSION_HEX >= 0x030B0000
    O("co_name", PyCodeObject, co_qualname);
#else
    O("co_name", PyCodeObject, co_name);
#endif
#if PY_VERSION_HEX >= 0x030A0000
    O("co_lines", PyCodeObject, co_linetable);
#else
    O("co_lines", PyCodeObject, co_lnotab);
#endif
    P("str_ascii_data", sizeof(PyASCIIObject));
    P("str_compact_data", sizeof(PyCompactUnicodeObject));
    O("ob_type", PyObject, ob_type);
    O("ob_size", PyVarObject, ob_size);
    O("bytes_data", PyBytesObject, ob_sval);
    O("str_length", PyASCIIObject, length);
    O("str_state", PyASCIIObject, state);
    BIT("str_kind_bit", kind);
    BIT("str_compact_bit", compact);
    BIT("str_ascii_bit", ascii);
#if PY_VERSION_HEX < 0x030C0000
    BIT("str_ready_bit", ready);
#endif
#if PY_VERSION_HEX >= 0x030D0000
#define D(f, v) printf("debug %u %u\n", (unsigned)offsetof(_Py_DebugOffsets, f), (unsigned)(v))
    D(thread_state.current_frame, offsetof(PyThreadState, current_frame));
    D(thread_state.datastack_chunk, offsetof(PyThreadState, datastack_chunk));
    D(interpreter_frame.previous, offsetof(_PyInterpreterFrame, previous));
    D(interpreter_frame.executable, offsetof(_PyInterpreterFrame, f_executable));
    D(interpreter_frame.instr_ptr, offsetof(_PyInterpreterFrame, instr_ptr));
    D(interpreter_frame.owner, offsetof(_PyInterpreterFrame, owner));
    D(code_object.filename, offsetof(PyCodeObject, co_filename));
    D(code_object.qualname, offsetof(PyCodeObject, co_qualname));
    D(code_object.linetable, offsetof(PyCodeObject, co_linetable));
    D(code_object.firstlineno, offsetof(PyCodeObject, co_firstlineno));
    D(code_object.co_code_adaptive, offsetof(PyCodeObject, co_code_adaptive));
    D(pyobject.ob_type, offsetof(PyObject, ob_type));
    D(bytes_object.ob_size, offsetof(PyVarObject, ob_size));
    D(bytes_object.ob_sval, offsetof(PyBytesObject, ob_sval));
    D(unicode_object.state, offsetof(PyASCIIObject, state));
    D(unicode_object.length, offsetof(PyASCIIObject, length));
    D(unicode_object.asciiobject_size, sizeof(PyASCIIObject));
#endif
    return 0;
}
