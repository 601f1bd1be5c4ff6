/* The commonest edit planned from the bytes (engine/edits/from_bytes.py, _Stretch.plan) in
 * one call: one replace of whole lines, in a stretch whose every line ends in the file's
 * dominant terminator, by lines sharing none of the lines they replace. Then the diff's
 * opcodes are that one replace, the bytes are the stretch's lines joined, and no terminator
 * moves; the call makes the new bytes, the anchored diff's rows (their anchors from
 * span_anchors, as _columns takes them), the details and the unified diff's hunk. Anything
 * else (a bracket count that moves, a new copy of a line next to itself, text that is not
 * plain lines) answers None before anything is changed, and the Python plan decides. */
#include "_core.h"

#define MARGIN 4
#define ANCHOR_CONTEXT 2
#define DIFF_CONTEXT 3
#define MAX_LINES 5000
#define MAX_PAIRS 4096

typedef struct {
    const char *p;
    Py_ssize_t n;
} Line;

static int
same(Line x, Line y)
{
    return x.n == y.n && memcmp(x.p, y.p, (size_t)x.n) == 0;
}

/* Whether str.strip() leaves nothing of the line: 1, 0, or -1 for a line that is not ASCII. */
static int
blank(Line l)
{
    for (Py_ssize_t i = 0; i < l.n; i++) {
        unsigned char c = (unsigned char)l.p[i];
        if (c >= 0x80)
            return -1;
        if (!(c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f)))
            return 0;
    }
    return 1;
}

/* How many more opening than closing brackets of each pair the lines hold. */
static void
brackets(const Line *lines, Py_ssize_t n, Py_ssize_t moved[3], int sign)
{
    for (Py_ssize_t k = 0; k < n; k++)
        for (Py_ssize_t i = 0; i < lines[k].n; i++) {
            switch (lines[k].p[i]) {
            case '(': moved[0] += sign; break;
            case ')': moved[0] -= sign; break;
            case '[': moved[1] += sign; break;
            case ']': moved[1] -= sign; break;
            case '{': moved[2] += sign; break;
            case '}': moved[2] -= sign; break;
            }
        }
}

static Py_ssize_t
start_of(PyObject *starts, Py_ssize_t line)
{
    PyObject *key = PyLong_FromSsize_t(line);
    if (key == NULL)
        return -2;
    PyObject *at = PyDict_GetItemWithError(starts, key);
    Py_DECREF(key);
    if (at == NULL)
        return PyErr_Occurred() ? -2 : -1;
    return PyLong_AsSsize_t(at);
}

/* The stretch [a, b) split into lines ending in eol (1 or 2 bytes); -1 when it is not that. */
static Py_ssize_t
split(const char *data, Py_ssize_t a, Py_ssize_t b, Py_ssize_t eol, Line *out, Py_ssize_t cap)
{
    Py_ssize_t n = 0, pos = a;
    while (pos < b) {
        const char *nl = memchr(data + pos, '\n', (size_t)(b - pos));
        if (nl == NULL || n == cap)
            return -1;
        Py_ssize_t end = nl - data - (eol - 1);
        if (end < pos || (eol == 2 && data[end] != '\r'))
            return -1;
        if (memchr(data + pos, '\r', (size_t)(end - pos)) != NULL)
            return -1;
        out[n++] = (Line){data + pos, end - pos};
        pos = nl - data + 1;
    }
    return n;
}

static int
set_new(PyObject *dict, const char *key, PyObject *value)
{
    if (value == NULL)
        return -1;
    int failed = PyDict_SetItemString(dict, key, value);
    Py_DECREF(value);
    return failed;
}

static PyObject *
text_of(Line l)
{
    return PyUnicode_DecodeUTF8(l.p, l.n, NULL);
}

/* The unified diff's hunk of the one replace: old [s0, s1) became new [s0, s0 + k). */
static PyObject *
unified_body(const Line *old, Py_ssize_t L, const Line *added, Py_ssize_t k, Py_ssize_t s0,
             Py_ssize_t s1, Py_ssize_t first_line, const char *eol, Py_ssize_t eol_n)
{
    Py_ssize_t a1 = s0 > DIFF_CONTEXT ? s0 - DIFF_CONTEXT : 0;
    Py_ssize_t a2 = s1 + DIFF_CONTEXT < L ? s1 + DIFF_CONTEXT : L;
    Py_ssize_t b2 = s0 + k + (a2 - s1);
    PyObject *old_range = (a2 - a1) == 1 ? PyUnicode_FromFormat("%zd", a1 + first_line + 1)
                                         : PyUnicode_FromFormat("%zd,%zd", a1 + first_line + 1,
                                                                a2 - a1);
    PyObject *new_range = (b2 - a1) == 1 ? PyUnicode_FromFormat("%zd", a1 + first_line + 1)
                                         : PyUnicode_FromFormat("%zd,%zd", a1 + first_line + 1,
                                                                b2 - a1);
    PyObject *head = NULL, *body = NULL;
    if (old_range && new_range)
        head = PyUnicode_FromFormat("@@ -%U +%U @@\n", old_range, new_range);
    Py_XDECREF(old_range);
    Py_XDECREF(new_range);
    if (head == NULL)
        return NULL;
    Py_ssize_t head_n, size = 0;
    const char *head_p = PyUnicode_AsUTF8AndSize(head, &head_n);
    if (head_p == NULL)
        goto done;
    size = head_n;
    for (Py_ssize_t i = a1; i < a2; i++)
        size += 1 + old[i].n + eol_n;
    for (Py_ssize_t j = 0; j < k; j++)
        size += 1 + added[j].n + eol_n;
    char *buf = PyMem_Malloc((size_t)size);
    if (buf == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    char *w = buf;
    memcpy(w, head_p, (size_t)head_n);
    w += head_n;
#define PUT(prefix, line)                                                                     \
    do {                                                                                      \
        *w++ = (prefix);                                                                      \
        memcpy(w, (line).p, (size_t)(line).n);                                                \
        w += (line).n;                                                                        \
        memcpy(w, eol, (size_t)eol_n);                                                        \
        w += eol_n;                                                                           \
    } while (0)
    for (Py_ssize_t i = a1; i < s0; i++)
        PUT(' ', old[i]);
    for (Py_ssize_t i = s0; i < s1; i++)
        PUT('-', old[i]);
    for (Py_ssize_t j = 0; j < k; j++)
        PUT('+', added[j]);
    for (Py_ssize_t i = s1; i < a2; i++)
        PUT(' ', old[i]);
#undef PUT
    body = PyUnicode_DecodeUTF8(buf, size, NULL);
    PyMem_Free(buf);
done:
    Py_DECREF(head);
    return body;
}

/* The rows' anchors, as _Stretch._columns gives them: 0, 1 when the ladder decides one (the
 * plan is then the decoded file's), -1 on error. */
static int
shown(PyObject *answer, PyObject *hunk_rows, Py_ssize_t *valid)
{
    PyObject *cols = PyTuple_GET_ITEM(answer, 1);
    PyObject *special = PyTuple_GET_ITEM(cols, 0), *tokens = PyTuple_GET_ITEM(cols, 1);
    PyObject *low = PyTuple_GET_ITEM(cols, 2), *medium = PyTuple_GET_ITEM(cols, 3);
    *valid = PyLong_AsSsize_t(PyTuple_GET_ITEM(answer, 0));
    Py_ssize_t rows = PyList_GET_SIZE(hunk_rows);
    for (int pass = 0; pass < 2; pass++)
        for (Py_ssize_t r = 0; r < rows; r++) {
            PyObject *row = PyList_GET_ITEM(hunk_rows, r);
            PyObject *at = PyDict_GetItemString(row, "line");
            if (at == NULL)
                continue; /* a removed line */
            Py_ssize_t i = PyLong_AsSsize_t(at) - 1, found = -1;
            for (Py_ssize_t q = 0; q < PyList_GET_SIZE(special) && found < 0; q++)
                if (PyLong_AsSsize_t(PyList_GET_ITEM(special, q)) == i)
                    found = q;
            PyObject *token = found < 0 ? NULL : PyList_GET_ITEM(tokens, found);
            if (pass == 0) {
                if (token == Py_None)
                    return 1;
                continue;
            }
            PyObject *hash;
            if (token != NULL && PyObject_IsTrue(token)) {
                hash = Py_NewRef(token);
            } else {
                Py_ssize_t n;
                const char *text = PyUnicode_AsUTF8AndSize(PyDict_GetItemString(row, "text"), &n);
                if (text == NULL)
                    return -1;
                uint64_t h = XXH3_64bits(text, (size_t)n) >> 40;
                char hex[6];
                for (int d = 0; d < 6; d++)
                    hex[d] = HEX[(h >> (20 - 4 * d)) & 0xf];
                hash = PyUnicode_FromStringAndSize(hex, 6);
            }
            const char *quality = "high";
            for (Py_ssize_t q = 0; q < PyList_GET_SIZE(medium); q++)
                if (PyLong_AsSsize_t(PyList_GET_ITEM(medium, q)) == i)
                    quality = "medium";
            for (Py_ssize_t q = 0; q < PyList_GET_SIZE(low); q++)
                if (PyLong_AsSsize_t(PyList_GET_ITEM(low, q)) == i)
                    quality = "low";
            if (set_new(row, "hash", hash) < 0 ||
                set_new(row, "quality", PyUnicode_InternFromString(quality)) < 0)
                return -1;
        }
    return 0;
}

/* A row of the anchored diff, as diff_hunks makes it (``text`` is taken over). */
static PyObject *
row(const char *kind, const char *where, Py_ssize_t line, PyObject *text)
{
    PyObject *r = PyDict_New();
    if (r == NULL || set_new(r, "kind", PyUnicode_InternFromString(kind)) < 0 ||
        set_new(r, where, PyLong_FromSsize_t(line)) < 0) {
        Py_XDECREF(r);
        Py_XDECREF(text);
        return NULL;
    }
    if (set_new(r, "text", text) < 0) {
        Py_DECREF(r);
        return NULL;
    }
    return r;
}

/* stretch_edit(data, skip, starts, count, spans, eol, start, end, content, ops) -> None, False
 * or (new_data, details, hunks, untouched, unified_body, insertions, deletions): the edit of
 * _Stretch.plan replacing lines [start, end) of the file by ``content`` (a tuple of str);
 * None: not this edit's shape (nothing changed: the Python plan decides); False: the plan is
 * the decoded file's (span_anchors found a token the ladder decides). */
PyObject *
wm_stretch_edit(PyObject *self, PyObject *args)
{
    PyObject *data, *starts, *spans, *content, *result = NULL, *new_data = NULL;
    PyObject *lines = NULL, *hunks = NULL, *details = NULL, *body = NULL, *answer = NULL;
    const char *eol;
    Py_ssize_t skip, count, eol_n, start, end, ops;
    Line *old = NULL, *added = NULL;
    if (!PyArg_ParseTuple(args, "SnO!nOs#nnOn", &data, &skip, &PyDict_Type, &starts, &count,
                          &spans, &eol, &eol_n, &start, &end, &content, &ops))
        return NULL;
    if (!PyTuple_Check(content))
        Py_RETURN_NONE;
    Py_ssize_t k = PyTuple_GET_SIZE(content);
    if (!(eol_n == 1 || (eol_n == 2 && eol[0] == '\r')) || eol[eol_n - 1] != '\n' ||
        start < 0 || end <= start || end > count || k == 0 || k > MAX_LINES ||
        end - start > MAX_LINES || (end - start) * k > MAX_PAIRS)
        Py_RETURN_NONE;
    const char *bytes = PyBytes_AS_STRING(data);
    Py_ssize_t w0 = start > MARGIN ? start - MARGIN : 0;
    Py_ssize_t w1 = end + MARGIN < count ? end + MARGIN : count;
    Py_ssize_t a = w0 == 0 ? skip : start_of(starts, w0), b = start_of(starts, w1);
    if (a == -2 || b == -2)
        return NULL;
    if (a < 0 || b < a || b > PyBytes_GET_SIZE(data))
        Py_RETURN_NONE;
    Py_ssize_t cap = w1 - w0, s0 = start - w0, s1 = end - w0;
    old = PyMem_Malloc(sizeof(Line) * (size_t)(cap ? cap : 1));
    added = PyMem_Malloc(sizeof(Line) * (size_t)k);
    if (old == NULL || added == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (split(bytes, a, b, eol_n, old, cap) != cap)
        goto decline;
    for (Py_ssize_t j = 0; j < k; j++) {
        PyObject *s = PyTuple_GET_ITEM(content, j);
        if (!PyUnicode_Check(s))
            goto decline;
        added[j].p = PyUnicode_AsUTF8AndSize(s, &added[j].n);
        if (added[j].p == NULL) { /* a lone surrogate: the Python plan refuses it */
            PyErr_Clear();
            goto decline;
        }
        if (memchr(added[j].p, '\n', (size_t)added[j].n) ||
            memchr(added[j].p, '\r', (size_t)added[j].n))
            goto decline;
        for (Py_ssize_t i = s0; i < s1; i++)
            if (same(old[i], added[j]))
                goto decline; /* the diff may then match them: difflib's to decide */
    }
    Py_ssize_t moved[3] = {0, 0, 0};
    brackets(old + s0, s1 - s0, moved, -1);
    brackets(added, k, moved, 1);
    if (moved[0] || moved[1] || moved[2])
        goto decline; /* the whole file's balance decides: check_safety's */
    Py_ssize_t L = cap, M = L - (s1 - s0) + k;
#define NEW(i) ((i) < s0 ? old[i] : (i) < s0 + k ? added[(i) - s0] : old[(i) - k + (s1 - s0)])
    for (Py_ssize_t i = s0 > 0 ? s0 - 1 : 0; i + 1 < (s0 + k + 1 < M ? s0 + k + 1 : M); i++)
        if (same(NEW(i), NEW(i + 1)) && blank(NEW(i)) != 1)
            goto decline; /* a line next to a copy of itself: check_safety's */

    /* The new bytes: the file's, the stretch's lines joined in between. */
    Py_ssize_t middle = 0;
    for (Py_ssize_t i = 0; i < M; i++)
        middle += NEW(i).n + eol_n;
    Py_ssize_t size = a + middle + (PyBytes_GET_SIZE(data) - b);
    new_data = PyBytes_FromStringAndSize(NULL, size);
    if (new_data == NULL)
        goto done;
    char *w = PyBytes_AS_STRING(new_data);
    memcpy(w, bytes, (size_t)a);
    w += a;
    for (Py_ssize_t i = 0; i < M; i++) {
        memcpy(w, NEW(i).p, (size_t)NEW(i).n);
        w += NEW(i).n;
        memcpy(w, eol, (size_t)eol_n);
        w += eol_n;
    }
    memcpy(w, bytes + b, (size_t)(PyBytes_GET_SIZE(data) - b));

    /* The anchored diff: ANCHOR_CONTEXT lines of context, rows numbered in the file. */
    Py_ssize_t c0 = s0 > ANCHOR_CONTEXT ? s0 - ANCHOR_CONTEXT : 0;
    Py_ssize_t c1 = s0 + k + ANCHOR_CONTEXT < M ? s0 + k + ANCHOR_CONTEXT : M;
    lines = PyList_New(0);
    if (lines == NULL)
        goto done;
    for (Py_ssize_t i = c0; i < c1 + (s1 - s0); i++) {
        PyObject *r;
        if (i < s0 || i >= s1 + k) { /* context: new line i, or i - (s1 - s0) below */
            Py_ssize_t j = i < s0 ? i : i - (s1 - s0);
            r = row("context", "line", j + 1 + w0, text_of(NEW(j)));
        } else if (i < s1) {
            r = row("removed", "old_line", i + 1 + w0, text_of(old[i]));
        } else {
            PyObject *text = Py_NewRef(PyTuple_GET_ITEM(content, i - s1));
            r = row("added", "line", i - (s1 - s0) + 1 + w0, text);
        }
        if (r == NULL || PyList_Append(lines, r) < 0) {
            Py_XDECREF(r);
            goto done;
        }
        Py_DECREF(r);
    }
    PyObject *wanted = PyList_New(c1 - c0);
    if (wanted == NULL)
        goto done;
    for (Py_ssize_t i = c0; i < c1; i++)
        PyList_SET_ITEM(wanted, i - c0, PyLong_FromSsize_t(i + w0));
    PyObject *ask = Py_BuildValue("(OOOnnnnN)", spans, data, new_data, skip, w0, w1, start,
                                  wanted);
    if (ask == NULL)
        goto done;
    answer = wm_span_anchors(NULL, ask);
    Py_DECREF(ask);
    if (answer == NULL)
        goto done;
    Py_ssize_t valid = 0;
    int got = answer == Py_None ? 1 : shown(answer, lines, &valid);
    if (got < 0)
        goto done;
    if (got > 0) {
        result = Py_NewRef(Py_False);
        goto done;
    }
    hunks = Py_BuildValue("[{s:n,s:n,s:n,s:n,s:O}]", "old_start", c0 + 1 + w0, "old_lines",
                          s1 + (c1 - (s0 + k)) - c0, "new_start", c0 + 1 + w0, "new_lines",
                          c1 - c0, "lines", lines);
    details = Py_BuildValue("{s:n,s:n,s:n,s:n,s:n,s:n}", "operations_applied", ops,
                            "lines_before", count, "lines_after", count + M - L, "net_change",
                            M - L, "anchors_valid_through", valid, "must_refresh_from_line",
                            valid + 1);
    body = unified_body(old, L, added, k, s0, s1, w0, eol, eol_n);
    if (hunks && details && body)
        result = Py_BuildValue("(OOO(nn)Onn)", new_data, details, hunks,
                               (s0 > 0 ? s0 - 1 : 0) + w0, (L - s1) + count - w1, body, k,
                               s1 - s0);
#undef NEW
    goto done;
decline:
    result = Py_NewRef(Py_None);
done:
    PyMem_Free(old);
    PyMem_Free(added);
    Py_XDECREF(new_data);
    Py_XDECREF(lines);
    Py_XDECREF(hunks);
    Py_XDECREF(details);
    Py_XDECREF(body);
    Py_XDECREF(answer);
    return result;
}
