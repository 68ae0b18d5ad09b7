/* SPDX-License-Identifier: Apache-2.0 */
/* --py: a call's Python frames, printed. The record's strings were checked
 * (td_rec_py: each ends inside the item); every byte is still escaped. */
#include <string.h>

#include "pyframes.h"
#include "pystack.h"

static const char *str_of(const struct td_pyview *v, uint32_t off)
{
    return v->str + off;
}

static void place(struct tp *p, const struct td_pyview *v, unsigned i, int base)
{
    const struct td_pyrecframe *f = &v->fr[i];
    const char *file = str_of(v, f->file), *slash = base ? strrchr(file, '/') : NULL;
    if (slash && slash[1])
        file = slash + 1;
    else if (f->flags & TD_PYF_FILE_CUT)
        tp_raw(p, "...");
    tp_esc(p, file, strlen(file));
    if (f->line >= 0)
        tp_rawf(p, ":%d", f->line);
    tp_raw(p, " in ");
    const char *func = str_of(v, f->func);
    if (f->flags & TD_PYF_FUNC_CUT)
        tp_raw(p, "...");
    tp_esc(p, func, strlen(func));
}

void td_py_brief(struct tp *p, const struct td_pyview *v)
{
    tp_raw(p, " [");
    place(p, v, 0, 1);
    tp_raw(p, "]");
}

static void json_frame(struct tp *p, const struct td_pyview *v, unsigned i)
{
    const struct td_pyrecframe *f = &v->fr[i];
    tp_elem(p);
    tp_struct_begin(p);
    tp_field(p, "file");
    tp_str(p, str_of(v, f->file), strlen(str_of(v, f->file)), 0);
    tp_field(p, "line");
    tp_int(p, f->line);
    tp_field(p, "func");
    tp_str(p, str_of(v, f->func), strlen(str_of(v, f->func)), 0);
    tp_field(p, "group");
    tp_uint(p, f->group);
    tp_struct_end(p);
}

void td_py_frame(struct tp *p, const struct td_pyview *v, unsigned i)
{
    tp_raw(p, " > [");
    place(p, v, i, 0);
    tp_raw(p, "]");
    tp_line_end(p);
}

void td_py_json(struct tp *p, const struct td_pyview *v)
{
    tp_array_begin(p);
    for (unsigned i = 0; i < v->n; i++)
        json_frame(p, v, i);
    tp_array_end(p);
}
