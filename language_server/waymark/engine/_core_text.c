/* The compiled core's text loops: lines split, hashed, context-hashed, classified. */
#include "_core.h"

static PyObject *EOL_LF, *EOL_CRLF, *EOL_CR, *EOL_NONE;

/* split_lines(text) -> (lines, eols): on "\n", "\r\n" and "\r" only. */
PyObject *
wm_split_lines(PyObject *self, PyObject *text)
{
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "text must be str");
        return NULL;
    }
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    PyObject *lines = PyList_New(0), *eols = PyList_New(0);
    if (lines == NULL || eols == NULL)
        goto fail;
    Py_ssize_t start = 0, i = 0;
    while (start < n) {
        PyObject *eol = EOL_NONE;
        Py_ssize_t end = n, next = n;
        for (i = start; i < n; i++) {
            Py_UCS4 c = PyUnicode_READ(kind, data, i);
            if (c == '\n') {
                eol = EOL_LF;
                end = i;
                next = i + 1;
                break;
            }
            if (c == '\r') {
                end = i;
                if (i + 1 < n && PyUnicode_READ(kind, data, i + 1) == '\n') {
                    eol = EOL_CRLF;
                    next = i + 2;
                }
                else {
                    eol = EOL_CR;
                    next = i + 1;
                }
                break;
            }
        }
        PyObject *line = PyUnicode_Substring(text, start, end);
        if (line == NULL)
            goto fail;
        int bad = PyList_Append(lines, line) < 0 || PyList_Append(eols, eol) < 0;
        Py_DECREF(line);
        if (bad)
            goto fail;
        start = next;
    }
    return Py_BuildValue("(NN)", lines, eols);
fail:
    Py_XDECREF(lines);
    Py_XDECREF(eols);
    return NULL;
}

/* hash_lines(lines) -> list[int]: xxh3_64 of each line's UTF-8 (surrogateescape) bytes. */
PyObject *
wm_hash_lines(PyObject *self, PyObject *arg)
{
    PyObject *seq = PySequence_Fast(arg, "lines must be a sequence");
    if (seq == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    PyObject *out = PyList_New(n);
    if (out == NULL)
        goto fail;
    for (Py_ssize_t i = 0; i < n; i++) {
        uint64_t h;
        if (hash_str(items[i], &h) < 0)
            goto fail;
        PyObject *v = PyLong_FromUnsignedLongLong(h);
        if (v == NULL)
            goto fail;
        PyList_SET_ITEM(out, i, v);
    }
    Py_DECREF(seq);
    return out;
fail:
    Py_XDECREF(out);
    Py_DECREF(seq);
    return NULL;
}

static PyObject *
lines_where(PyObject *arg, int (*test)(PyObject *))
{
    PyObject *seq = PySequence_Fast(arg, "lines must be a sequence");
    if (seq == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    PyObject *out = PyList_New(0);
    for (Py_ssize_t i = 0; out != NULL && i < n; i++) {
        if (!PyUnicode_Check(items[i])) {
            PyErr_SetString(PyExc_TypeError, "lines must be str");
            Py_CLEAR(out);
            break;
        }
        if (test(items[i])) {
            PyObject *v = PyLong_FromSsize_t(i);
            if (v == NULL || PyList_Append(out, v) < 0)
                Py_CLEAR(out);
            Py_XDECREF(v);
        }
    }
    Py_DECREF(seq);
    return out;
}

/* low_by_text(lines) -> list[int]: lines that are blank or only ASCII punctuation. */
PyObject *
wm_low_by_text(PyObject *self, PyObject *arg)
{
    return lines_where(arg, is_punct_ws);
}

/* context_hashes(lines, wanted) -> list[str]: for each wanted line (ascending), the hex
 * xxh3_64 of "prev_nonblank\nline\nnext_nonblank" ("" past a file edge). */
PyObject *
wm_context_hashes(PyObject *self, PyObject *args)
{
    PyObject *lines_arg, *wanted;
    if (!PyArg_ParseTuple(args, "OO!", &lines_arg, &PyList_Type, &wanted))
        return NULL;
    PyObject *seq = PySequence_Fast(lines_arg, "lines must be a sequence");
    if (seq == NULL)
        return NULL;
    Py_ssize_t m = PyList_GET_SIZE(wanted);
    PyObject *out = PyList_New(m);
    XXH3_state_t *state = XXH3_createState();
    if (out == NULL || state == NULL)
        goto fail;
    ContextWalk walk;
    context_walk_init(&walk, PySequence_Fast_ITEMS(seq), PySequence_Fast_GET_SIZE(seq), state);
    for (Py_ssize_t k = 0; k < m; k++) {
        Py_ssize_t i;
        uint64_t hash;
        if (context_hash_at(&walk, wanted, k, &i, &hash) < 0)
            goto fail;
        char hex[17];
        snprintf(hex, sizeof hex, "%016llx", (unsigned long long)hash);
        PyObject *v = PyUnicode_FromStringAndSize(hex, 16);
        if (v == NULL)
            goto fail;
        PyList_SET_ITEM(out, k, v);
    }
    XXH3_freeState(state);
    Py_DECREF(seq);
    return out;
fail:
    if (state)
        XXH3_freeState(state);
    Py_XDECREF(out);
    Py_DECREF(seq);
    return NULL;
}


int
wm_text_init(void)
{
    EOL_LF = PyUnicode_InternFromString("\n");
    EOL_CRLF = PyUnicode_InternFromString("\r\n");
    EOL_CR = PyUnicode_InternFromString("\r");
    EOL_NONE = PyUnicode_InternFromString("");
    return (EOL_LF && EOL_CRLF && EOL_CR && EOL_NONE) ? 0 : -1;
}
