/* SPDX-License-Identifier: Apache-2.0 */
#include "apiparse.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

static int is_blank_or_comment(const char *p)
{
    p = skip_ws(p);
    return *p == '\0' || *p == '\n' || *p == '#';
}

/* copy a word of [A-Za-z0-9_] (and '.' when dotted) into out; returns the end */
static const char *word_ex(const char *p, char *out, size_t outlen, int dotted)
{
    size_t n = 0;
    while (isalnum((unsigned char)*p) || *p == '_' || (dotted && *p == '.')) {
        if (n + 1 < outlen)
            out[n++] = *p;
        p++;
    }
    out[n] = '\0';
    return p;
}

static const char *word(const char *p, char *out, size_t outlen)
{
    return word_ex(p, out, outlen, 0);
}

static void trim(char *s)
{
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    char *b = s;
    while (isspace((unsigned char)*b))
        b++;
    memmove(s, b, strlen(b) + 1);
}

/* normalise "T*", "T *", "T  * *" to "T *" / "T **" */
static void norm_type(const char *in, char *out, size_t outlen)
{
    size_t n = 0;
    int pending_space = 0;
    for (const char *p = in; *p && n + 2 < outlen; p++) {
        if (isspace((unsigned char)*p)) {
            pending_space = 1;
            continue;
        }
        if (*p == '*') {
            if (n && out[n - 1] != '*')
                out[n++] = ' ';
            out[n++] = '*';
            pending_space = 0;
            continue;
        }
        if (pending_space && n)
            out[n++] = ' ';
        pending_space = 0;
        out[n++] = *p;
    }
    out[n] = '\0';
}

static int parse_param(char *text, struct ap_param *pp, char *err, size_t errlen)
{
    memset(pp, 0, sizeof(*pp));
    trim(text);
    static const struct { const char *kw; enum ap_role role; } roles[] = {
        { "out ", AP_OUT }, { "str ", AP_STR }, { "outstr ", AP_OUTSTR },
        { "outpstr ", AP_OUTPSTR }, { "inp ", AP_INP },
    };
    for (size_t i = 0; i < sizeof(roles) / sizeof(roles[0]); i++) {
        size_t k = strlen(roles[i].kw);
        if (strncmp(text, roles[i].kw, k) == 0) {
            pp->role = roles[i].role;
            memmove(text, text + k, strlen(text + k) + 1);
            trim(text);
            break;
        }
    }
    char *eq = strchr(text, '=');
    if (eq) {
        *eq = '\0';
        word(eq + 1, pp->xlat, sizeof(pp->xlat));
        if (!pp->xlat[0]) {
            snprintf(err, errlen, "empty table name after '='");
            return -1;
        }
        trim(text);
    }
    size_t n = strlen(text);
    size_t e = n;
    while (e && (isalnum((unsigned char)text[e - 1]) || text[e - 1] == '_'))
        e--;
    if (e == n || e == 0) {
        snprintf(err, errlen, "parameter '%s' needs a type and a name", text);
        return -1;
    }
    if (n - e >= sizeof(pp->name)) {
        snprintf(err, errlen, "parameter name too long");
        return -1;
    }
    memcpy(pp->name, text + e, n - e);
    pp->name[n - e] = '\0';
    text[e] = '\0';
    norm_type(text, pp->type, sizeof(pp->type));
    if (!pp->type[0]) {
        snprintf(err, errlen, "parameter '%s' has no type", pp->name);
        return -1;
    }
    if ((pp->role == AP_OUT || pp->role == AP_OUTSTR || pp->role == AP_OUTPSTR || pp->role == AP_INP) &&
        !strchr(pp->type, '*')) {
        snprintf(err, errlen, "'%s' is read through but its type '%s' is no pointer",
                 pp->name, pp->type);
        return -1;
    }
    return 0;
}

const char *const ap_effect_ops[] = { "alloc", "free", "trim", "map", "unmap", "ctx", NULL };
const char *const ap_effect_keys[AP_EFF_ARGS] = {
    "ptr", "size", "rows", "pitch", "device", "stream", "pool", "handle", "desc",
};

static int param_index(const struct ap_fn *fn, const char *name)
{
    for (int i = 0; i < fn->nparams; i++)
        if (strcmp(fn->params[i].name, name) == 0)
            return i;
    return -1;
}

/* "OP=KIND KEY=PARAM ...", or nothing */
static int parse_effect(const char *p, struct ap_fn *fn, char *err, size_t errlen)
{
    struct ap_effect *e = &fn->effect;
    for (p = skip_ws(p); *p && *p != '\n'; p = skip_ws(p)) {
        char key[AP_NAME], val[AP_NAME];
        const char *q = word(p, key, sizeof(key));
        if (!key[0] || *q != '=') {
            snprintf(err, errlen, "%s: text after ')': expected OP=KIND or KEY=PARAM at '%.20s'",
                     fn->name, p);
            return -1;
        }
        const char *r = word(q + 1, val, sizeof(val));
        if (!val[0] || (*r && *r != ' ' && *r != '\t' && *r != '\n')) {
            snprintf(err, errlen, "%s: %s= needs a name", fn->name, key);
            return -1;
        }
        p = r;
        if (!e->op[0]) {
            int k = 0;
            while (ap_effect_ops[k] && strcmp(ap_effect_ops[k], key) != 0)
                k++;
            if (!ap_effect_ops[k]) {
                snprintf(err, errlen, "%s: unknown effect '%s' (alloc, free, trim, map, unmap or ctx)",
                         fn->name, key);
                return -1;
            }
            if (strlen(val) >= sizeof(e->kind)) {
                snprintf(err, errlen, "%s: kind '%s' too long", fn->name, val);
                return -1;
            }
            snprintf(e->op, sizeof(e->op), "%s", key);
            snprintf(e->kind, sizeof(e->kind), "%s", val);
            continue;
        }
        int k = 0;
        while (k < AP_EFF_ARGS && strcmp(ap_effect_keys[k], key) != 0)
            k++;
        if (k == AP_EFF_ARGS) {
            snprintf(err, errlen, "%s: unknown effect key '%s'", fn->name, key);
            return -1;
        }
        if (e->arg[k] >= 0) {
            snprintf(err, errlen, "%s: %s= given twice", fn->name, key);
            return -1;
        }
        if ((e->arg[k] = param_index(fn, val)) < 0) {
            snprintf(err, errlen, "%s: %s=%s names no parameter", fn->name, key, val);
            return -1;
        }
    }
    return 0;
}

int ap_parse_fn(const char *line, struct ap_fn *fn, char *err, size_t errlen)
{
    if (is_blank_or_comment(line) || *skip_ws(line) == '%') /* %directive: no row */
        return 0;
    memset(fn, 0, sizeof(*fn));
    for (int k = 0; k < AP_EFF_ARGS; k++)
        fn->effect.arg[k] = -1;
    const char *p = skip_ws(line);
    for (;;) { /* class[,class...] */
        if (fn->nclasses == AP_ROW_CLASSES) {
            snprintf(err, errlen, "too many classes");
            return -1;
        }
        char *c = fn->classes[fn->nclasses];
        p = word(p, c, AP_CLASS);
        if (!c[0]) {
            snprintf(err, errlen, "expected a family name");
            return -1;
        }
        for (int k = 0; k < fn->nclasses; k++)
            if (strcmp(fn->classes[k], c) == 0) {
                snprintf(err, errlen, "class '%s' given twice", c);
                return -1;
            }
        fn->nclasses++;
        if (*p != ',')
            break;
        p++;
    }
    snprintf(fn->family, sizeof(fn->family), "%s", fn->classes[0]);
    p = word_ex(skip_ws(p), fn->name, sizeof(fn->name), 1);
    const char *dot = strchr(fn->name, '.');
    if (dot ? (dot == fn->name || !dot[1] || strchr(dot + 1, '.'))
            : strncmp(fn->name, "cu", 2) != 0 && strcmp(fn->family, "library") != 0) {
        snprintf(err, errlen, "expected an entry point name starting with 'cu', TABLE.slot, or (class library) any");
        return -1;
    }
    p = skip_ws(p);
    if (*p != '@') {
        snprintf(err, errlen, "%s: expected '@versions'", fn->name);
        return -1;
    }
    p++;
    if (*p == '-') {
        p++;
    } else {
        for (;;) {
            char *end;
            long v = strtol(p, &end, 10);
            if (end == p || v <= 0 || v > 1000000) {
                snprintf(err, errlen, "%s: bad version list", fn->name);
                return -1;
            }
            if (fn->nversions == AP_MAX_VERSIONS) {
                snprintf(err, errlen, "%s: too many versions", fn->name);
                return -1;
            }
            fn->versions[fn->nversions++] = (int)v;
            p = end;
            if (*p != ',')
                break;
            p++;
        }
    }
    p = skip_ws(p);
    if (*p != '(') {
        snprintf(err, errlen, "%s: expected '('", fn->name);
        return -1;
    }
    const char *close = strrchr(p, ')');
    if (!close) {
        snprintf(err, errlen, "%s: missing ')'", fn->name);
        return -1;
    }
    const char *tail = skip_ws(close + 1);
    if (strncmp(tail, "->", 2) == 0) {
        char rt[AP_NAME];
        tail = word(skip_ws(tail + 2), rt, sizeof(rt));
        if (strcmp(rt, "void") == 0) {
            fn->ret = AP_RET_VOID;
        } else if (strcmp(rt, "u32") == 0) {
            fn->ret = AP_RET_U32;
        } else if (rt[0]) { /* an enum: apigen checks that src/xlat has it */
            fn->ret = AP_RET_XLAT;
            snprintf(fn->ret_xlat, sizeof(fn->ret_xlat), "%s", rt);
        } else {
            snprintf(err, errlen, "%s: no return type after '->' (void, u32 or an enum)", fn->name);
            return -1;
        }
        tail = skip_ws(tail);
    }
    const char *effect = tail;
    size_t len = (size_t)(close - p - 1);
    char *buf = malloc(len + 1);
    if (!buf) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    memcpy(buf, p + 1, len);
    buf[len] = '\0';
    int rc = 0;
    char *save = NULL;
    trim(buf);
    if (buf[0]) {
        for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            if (fn->nparams == AP_MAX_PARAMS) {
                snprintf(err, errlen, "%s: too many parameters", fn->name);
                rc = -1;
                break;
            }
            char perr[160];
            if (parse_param(tok, &fn->params[fn->nparams], perr, sizeof(perr)) < 0) {
                snprintf(err, errlen, "%s: %s", fn->name, perr);
                rc = -1;
                break;
            }
            fn->nparams++;
        }
    }
    free(buf);
    if (rc == 0 && parse_effect(effect, fn, err, errlen) < 0)
        rc = -1;
    return rc < 0 ? -1 : 1;
}

int ap_parse_classes(const char *line, char names[][AP_CLASS], int max, char *err, size_t errlen)
{
    const char *p = skip_ws(line);
    if (strncmp(p, "%classes", 8) != 0 || (p[8] != ' ' && p[8] != '\t'))
        return 0;
    int n = 0;
    for (p = skip_ws(p + 8); *p && *p != '\n'; p = skip_ws(p)) {
        char w[AP_CLASS * 2];
        const char *e = word(p, w, sizeof(w));
        if (e == p || (*e && *e != ' ' && *e != '\t' && *e != '\n')) {
            snprintf(err, errlen, "%%classes: expected a name at '%.20s'", p);
            return -1;
        }
        if (strlen(w) >= AP_CLASS) {
            snprintf(err, errlen, "%%classes: '%s' is too long", w);
            return -1;
        }
        for (int k = 0; k < n; k++)
            if (strcmp(names[k], w) == 0) {
                snprintf(err, errlen, "%%classes: '%s' given twice", w);
                return -1;
            }
        if (n == max) {
            snprintf(err, errlen, "%%classes: more than %d", max);
            return -1;
        }
        snprintf(names[n++], AP_CLASS, "%s", w);
        p = e;
    }
    if (!n) {
        snprintf(err, errlen, "%%classes: no names");
        return -1;
    }
    return n;
}

void ap_pointee(const char *type, char *out, size_t outlen)
{
    out[0] = '\0';
    const char *t = type;
    if (strncmp(t, "const ", 6) == 0)
        t += 6;
    size_t n = strlen(t);
    if (n < 2 || t[n - 1] != '*')
        return;
    n--;
    while (n && t[n - 1] == ' ')
        n--;
    if (n + 1 > outlen)
        n = outlen - 1;
    memcpy(out, t, n);
    out[n] = '\0';
}

void ap_base_name(const char *name, char *out, size_t outlen, int *per_thread)
{
    snprintf(out, outlen, "%s", name);
    size_t n = strlen(out);
    *per_thread = 0;
    if (n > 5 && (strcmp(out + n - 5, "_ptds") == 0 || strcmp(out + n - 5, "_ptsz") == 0)) {
        out[n - 5] = '\0';
        *per_thread = 1;
        n -= 5;
    }
    /* strip a trailing _v<digits> */
    size_t e = n;
    while (e && isdigit((unsigned char)out[e - 1]))
        e--;
    if (e < n && e >= 2 && out[e - 1] == 'v' && out[e - 2] == '_')
        out[e - 2] = '\0';
}

int ap_parse_xlat(const char *line, struct ap_xlat_row *row, char *err, size_t errlen)
{
    const char *p = skip_ws(line);
    if (strncmp(p, "#flags", 6) == 0)
        return 2;
    if (is_blank_or_comment(line))
        return 0;
    memset(row, 0, sizeof(*row));
    p = word(p, row->name, sizeof(row->name));
    if (!row->name[0]) {
        snprintf(err, errlen, "expected a constant name");
        return -1;
    }
    p = skip_ws(p);
    char *end;
    int neg = 0;
    if (*p == '-') {
        neg = 1;
        p++;
    }
    row->value = strtoull(p, &end, 0);
    if (end == p) {
        snprintf(err, errlen, "%s: expected a value", row->name);
        return -1;
    }
    if (neg)
        row->value = (unsigned long long)-(long long)row->value;
    p = skip_ws(end);
    snprintf(row->text, sizeof(row->text), "%s", p);
    trim(row->text);
    return 1;
}

int ap_parse_type(const char *line, struct ap_type *t, char *err, size_t errlen)
{
    if (is_blank_or_comment(line))
        return 0;
    memset(t, 0, sizeof(*t));
    /* the type is everything before the last two words */
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", line);
    trim(buf);
    char *last = strrchr(buf, ' ');
    if (!last) {
        snprintf(err, errlen, "expected: type kind size");
        return -1;
    }
    char *end;
    long size = strtol(last + 1, &end, 10);
    if (*end || size <= 0 || size > 64) {
        snprintf(err, errlen, "bad size '%s'", last + 1);
        return -1;
    }
    t->size = (int)size;
    *last = '\0';
    trim(buf);
    char *kind = strrchr(buf, ' ');
    if (!kind) {
        snprintf(err, errlen, "expected: type kind size");
        return -1;
    }
    snprintf(t->kind, sizeof(t->kind), "%s", kind + 1);
    *kind = '\0';
    trim(buf);
    norm_type(buf, t->type, sizeof(t->type));
    return 1;
}

/* ---- structs.api ------------------------------------------------------------ */

/* the next blank-separated word of *p into out; 0 at the end */
static int next_word(const char **p, char *out, size_t outlen)
{
    const char *s = skip_ws(*p);
    size_t n = 0;
    while (*s && !isspace((unsigned char)*s)) {
        if (n + 1 < outlen)
            out[n++] = *s;
        s++;
    }
    out[n] = '\0';
    *p = s;
    return n > 0;
}

/* V|V|V into cases */
static int split_cases(const char *v, struct ap_sline *sl, char *err, size_t errlen)
{
    sl->ncases = 0;
    while (*v) {
        size_t n = strcspn(v, "|");
        if (!n || n >= sizeof(sl->cases[0])) {
            snprintf(err, errlen, "bad value list");
            return -1;
        }
        if (sl->ncases == AP_MAX_CASES) {
            snprintf(err, errlen, "more than %d values", AP_MAX_CASES);
            return -1;
        }
        memcpy(sl->cases[sl->ncases], v, n);
        sl->cases[sl->ncases++][n] = '\0';
        v += n;
        if (*v == '|')
            v++;
    }
    return 0;
}

/* ->C or ->C-1 */
static int parse_follow(const char *v, struct ap_sline *sl, char *err, size_t errlen)
{
    size_t n = strlen(v);
    if (n > 2 && strcmp(v + n - 2, "-1") == 0) {
        sl->follow_adj = -1;
        n -= 2;
    }
    if (!n || n >= sizeof(sl->follow)) {
        snprintf(err, errlen, "'->' needs a count");
        return -1;
    }
    memcpy(sl->follow, v, n);
    sl->follow[n] = '\0';
    return 0;
}

static int is_attr(const char *w)
{
    return strcmp(w, "bytes") == 0 || strcmp(w, "hidden") == 0 || w[0] == '=' ||
           strncmp(w, "if=", 3) == 0 || strncmp(w, "case=", 5) == 0 || strncmp(w, "by=", 3) == 0 ||
           strncmp(w, "->", 2) == 0 || strncmp(w, "values=", 7) == 0;
}

static int parse_attr(const char *w, struct ap_sline *sl, int is_param, char *err, size_t errlen)
{
    if (!is_param && strcmp(w, "bytes") == 0) {
        sl->bytes = 1;
    } else if (!is_param && strcmp(w, "hidden") == 0) {
        sl->hidden = 1;
    } else if (!is_param && w[0] == '=') {
        snprintf(sl->xlat, sizeof(sl->xlat), "%s", w + 1);
    } else if (!is_param && strncmp(w, "if=", 3) == 0) {
        const char *c = strchr(w + 3, ':');
        if (!c || c == w + 3 || (size_t)(c - w - 3) >= sizeof(sl->cond)) {
            snprintf(err, errlen, "'%s': expected if=FIELD:VALUE|VALUE", w);
            return -1;
        }
        memcpy(sl->cond, w + 3, (size_t)(c - w - 3));
        sl->cond[c - w - 3] = '\0';
        return split_cases(c + 1, sl, err, errlen);
    } else if (!is_param && strncmp(w, "case=", 5) == 0) {
        return split_cases(w + 5, sl, err, errlen);
    } else if (strncmp(w, "by=", 3) == 0 && w[3]) {
        snprintf(sl->cond, sizeof(sl->cond), "%s", w + 3);
        sl->by = 1;
    } else if (strncmp(w, "->", 2) == 0) {
        return parse_follow(w + 2, sl, err, errlen);
    } else if (is_param && strncmp(w, "values=", 7) == 0 && w[7]) {
        snprintf(sl->values, sizeof(sl->values), "%s", w + 7);
    } else {
        snprintf(err, errlen, "unknown attribute '%s'", w);
        return -1;
    }
    return 0;
}

int ap_parse_sline(const char *line, struct ap_sline *sl, char *err, size_t errlen)
{
    if (is_blank_or_comment(line))
        return 0;
    memset(sl, 0, sizeof(*sl));
    sl->count = 1;
    const char *p = line;
    char w[1024];
    next_word(&p, w, sizeof(w));
    int indented = line[0] == ' ' || line[0] == '\t';
    if (!indented && (strcmp(w, "struct") == 0 || strcmp(w, "union") == 0)) {
        sl->kind = w[0] == 's' ? AP_SL_STRUCT : AP_SL_UNION;
        if (!next_word(&p, sl->name, sizeof(sl->name))) {
            snprintf(err, errlen, "%s without a name", w);
            return -1;
        }
        while (next_word(&p, w, sizeof(w))) {
            if (sl->kind == AP_SL_UNION && isdigit((unsigned char)w[0]) && !sl->size) {
                sl->size = atoi(w);
            } else if (sl->kind == AP_SL_UNION && strcmp(w, "selftag") == 0) {
                sl->selftag = 1;
            } else if (sl->naliases < AP_MAX_ALIASES) {
                snprintf(sl->aliases[sl->naliases++], AP_NAME, "%s", w);
            } else {
                snprintf(err, errlen, "%s: more than %d aliases", sl->name, AP_MAX_ALIASES);
                return -1;
            }
        }
        return 1;
    }
    if (!indented && strcmp(w, "end") == 0) {
        sl->kind = AP_SL_END;
        return 1;
    }
    if (!indented && strcmp(w, "param") == 0) {
        sl->kind = AP_SL_PARAM;
        if (!next_word(&p, sl->name, sizeof(sl->name)) || !next_word(&p, sl->param, sizeof(sl->param))) {
            snprintf(err, errlen, "expected: param FUNCTION PARAMETER ATTRIBUTE...");
            return -1;
        }
        int any = 0;
        while (next_word(&p, w, sizeof(w))) {
            if (parse_attr(w, sl, 1, err, errlen) < 0)
                return -1;
            any = 1;
        }
        if (!any) {
            snprintf(err, errlen, "param %s %s: nothing said of it", sl->name, sl->param);
            return -1;
        }
        return 1;
    }
    if (!indented && strcmp(w, "optvalues") == 0) {
        sl->kind = AP_SL_OPTVALUES;
        if (!next_word(&p, sl->name, sizeof(sl->name))) {
            snprintf(err, errlen, "optvalues without a table");
            return -1;
        }
        while (next_word(&p, w, sizeof(w))) {
            if (!strchr(w, '=') || sl->nopts == AP_MAX_OPTS || strlen(w) >= sizeof(sl->opts[0])) {
                snprintf(err, errlen, "optvalues %s: bad '%s'", sl->name, w);
                return -1;
            }
            snprintf(sl->opts[sl->nopts++], sizeof(sl->opts[0]), "%s", w);
        }
        return 1;
    }
    /* a field: NAME[N] TYPE... ATTR..., indented */
    if (!indented) {
        snprintf(err, errlen, "'%s': a field must be indented, a keyword not", w);
        return -1;
    }
    sl->kind = AP_SL_FIELD;
    char *br = strchr(w, '[');
    if (br) {
        char *end;
        long n = strtol(br + 1, &end, 10);
        if (n <= 0 || n > 4096 || strcmp(end, "]") != 0) {
            snprintf(err, errlen, "'%s': bad array length", w);
            return -1;
        }
        sl->count = (int)n;
        *br = '\0';
    }
    if (!w[0] || strlen(w) >= sizeof(sl->name)) {
        snprintf(err, errlen, "expected a field name");
        return -1;
    }
    snprintf(sl->name, sizeof(sl->name), "%s", w);
    char type[AP_TYPE * 2] = "";
    const char *q = p;
    while (next_word(&q, w, sizeof(w)) && !is_attr(w)) {
        size_t k = strlen(type);
        snprintf(type + k, sizeof(type) - k, "%s%s", k ? " " : "", w);
        p = q;
    }
    if (!type[0]) {
        snprintf(err, errlen, "%s: no type", sl->name);
        return -1;
    }
    norm_type(type, sl->type, sizeof(sl->type));
    while (next_word(&p, w, sizeof(w)))
        if (parse_attr(w, sl, 0, err, errlen) < 0) {
            char e2[200];
            snprintf(e2, sizeof(e2), "%s: %s", sl->name, err);
            snprintf(err, errlen, "%s", e2);
            return -1;
        }
    return 1;
}
