/* SPDX-License-Identifier: Apache-2.0 */
/* --py: a call's Python frames (struct td_pyview, read with td_rec_py)
 * through the print layer: the innermost one after the call, the frames
 * among a -k stack, the frames as JSON data. */
#ifndef TD_PYSTACK_H
#define TD_PYSTACK_H

#include "tdtrace.h"

/* text " [file.py:42 in func]": the innermost frame, the file's last component */
void td_py_brief(struct tp *p, const struct td_pyview *v);
/* text: one " > [/path/file.py:42 in func]" line for frame i */
void td_py_frame(struct tp *p, const struct td_pyview *v, unsigned i);
/* JSON: [{"file":...,"line":42,"func":...,"group":0}, ...], innermost first */
void td_py_json(struct tp *p, const struct td_pyview *v);

#endif
