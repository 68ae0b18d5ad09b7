/* SPDX-License-Identifier: Apache-2.0 */
/* Where each CPython version keeps what the reader needs: offsets of
 * fields in PyThreadState, the frame, PyCodeObject and str, for x86-64 and
 * the default build (not free-threaded, no Py_TRACE_REFS). They are facts
 * of each version's headers (Include/cpython/pystate.h, frameobject.h,
 * code.h, unicodeobject.h; Include/internal/pycore_frame.h from 3.11),
 * the same in every release of a minor version; tests/pyframes checks
 * them against the headers of each version installed. 3.13 also says them
 * itself in _Py_DebugOffsets, which detection compares with these. */
#include "pyint.h"

static const struct td_pylayout layouts[] = {
    {
        .minor = 9, .frames = TD_PYFR_OBJECT, .lines = TD_PYL_LNOTAB, .lasti_scale = 1,
        .ts_frame = 24, .ts_thread_id = 176, .ts_read = 184,
        .fr_back = 24, .fr_code = 32, .fr_instr = 104, .fr_read = 112,
        .co_firstlineno = 40, .co_filename = 104, .co_name = 112, .co_lines = 120, .co_read = 128,
        .str_ascii_data = 48, .str_compact_data = 72, .str_ready = 1,
    },
    {
        .minor = 10, .frames = TD_PYFR_OBJECT, .lines = TD_PYL_LINETABLE, .lasti_scale = 2,
        .ts_frame = 24, .ts_thread_id = 176, .ts_read = 184,
        .fr_back = 24, .fr_code = 32, .fr_instr = 96, .fr_read = 104,
        .co_firstlineno = 40, .co_filename = 104, .co_name = 112, .co_lines = 120, .co_read = 128,
        .str_ascii_data = 48, .str_compact_data = 72, .str_ready = 1,
    },
    {
        .minor = 11, .frames = TD_PYFR_INTERP, .lines = TD_PYL_LOCATIONS,
        .ts_cframe = 56, .cf_frame = 8, .ts_chunk = 296, .ts_top = 304, .ts_thread_id = 152, .ts_read = 312,
        .fr_code = 32, .fr_back = 48, .fr_instr = 56, .fr_entry = 68, .fr_owner = 69, .fr_read = 72,
        .co_firstlineno = 72, .co_filename = 112, .co_name = 128, .co_lines = 136,
        .co_firsttraceable = 168, .co_code = 184, .co_read = 176,
        .str_ascii_data = 48, .str_compact_data = 72, .str_ready = 1,
    },
    {
        .minor = 12, .frames = TD_PYFR_INTERP, .lines = TD_PYL_LOCATIONS, .has_cstack = 1,
        .ts_cframe = 56, .cf_frame = 0, .ts_chunk = 232, .ts_top = 240, .ts_read = 248,
        .fr_code = 0, .fr_back = 8, .fr_instr = 56, .fr_owner = 70, .fr_read = 72,
        .co_firstlineno = 68, .co_filename = 112, .co_name = 128, .co_lines = 136,
        .co_firsttraceable = 176, .co_code = 192, .co_read = 184,
        .str_ascii_data = 40, .str_compact_data = 56,
    },
    {
        .minor = 13, .frames = TD_PYFR_INTERP, .lines = TD_PYL_LOCATIONS, .has_cstack = 1,
        .ts_frame = 72, .ts_chunk = 232, .ts_top = 240, .ts_read = 248,
        .fr_code = 0, .fr_back = 8, .fr_instr = 56, .fr_owner = 70, .fr_read = 72,
        .co_firstlineno = 68, .co_filename = 112, .co_name = 128, .co_lines = 136,
        .co_firsttraceable = 184, .co_code = 200, .co_read = 192,
        .str_ascii_data = 40, .str_compact_data = 56,
        /* _Py_DebugOffsets of 3.13: the field's place there, its value */
        .ndebug = 17,
        .debug = {
            { 184, 72 },  /* thread_state.current_frame */
            { 208, 232 }, /* thread_state.datastack_chunk */
            { 232, 8 },   /* interpreter_frame.previous */
            { 240, 0 },   /* interpreter_frame.executable */
            { 248, 56 },  /* interpreter_frame.instr_ptr */
            { 264, 70 },  /* interpreter_frame.owner */
            { 280, 112 }, /* code_object.filename */
            { 296, 128 }, /* code_object.qualname */
            { 304, 136 }, /* code_object.linetable */
            { 312, 68 },  /* code_object.firstlineno */
            { 344, 200 }, /* code_object.co_code_adaptive */
            { 360, 8 },   /* pyobject.ob_type */
            { 520, 16 },  /* bytes_object.ob_size */
            { 528, 32 },  /* bytes_object.ob_sval */
            { 544, 32 },  /* unicode_object.state */
            { 552, 16 },  /* unicode_object.length */
            { 560, 40 },  /* unicode_object.asciiobject_size */
        },
    },
};

const struct td_pylayout *td_pylayout_for(unsigned minor)
{
    for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
        if (layouts[i].minor == minor)
            return &layouts[i];
    return NULL;
}
