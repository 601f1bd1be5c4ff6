/* A read without anchors in one call: the {line, text} dict of every line and the text a
 * model reads, "%6d\t" and the line per line (commands/read.py's pure twins format and build
 * each line in Python, which cost a page or a full read more than all the rest of it). */
#include "_core.h"

static PyObject *KEYS[2];

/* n in decimal, right-aligned in 6 places as "%6d" writes it (wider when it needs more). */
static int
padded(char *out, Py_ssize_t n)
{
    char digits[24];
    int len = decimal(digits, n);
    int pad = len < 6 ? 6 - len : 0;
    memset(out, ' ', (size_t)pad);
    memcpy(out + pad, digits, (size_t)len);
    return pad + len;
}

/* plain_rows(lines, first) -> (rows, text): {"line": first + k + 1, "text": line} for the
 * k-th line, and "%6d\t%s\n" of the same per line, joined. */
PyObject *
wm_plain_rows(PyObject *self, PyObject *args)
{
    PyObject *lines_arg, *rows = NULL, *text = NULL, *result = NULL;
    Py_ssize_t first;
    if (!PyArg_ParseTuple(args, "On", &lines_arg, &first))
        return NULL;
    if (first < 0) {
        PyErr_SetString(PyExc_ValueError, "first must be 0 or more");
        return NULL;
    }
    for (int k = 0; k < 2 && KEYS[1] == NULL; k++) {
        KEYS[k] = PyUnicode_InternFromString(k == 0 ? "line" : "text");
        if (KEYS[k] == NULL)
            return NULL;
    }
    PyObject *seq = PySequence_Fast(lines_arg, "lines must be a sequence");
    if (seq == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq), total = 0;
    PyObject **items = PySequence_Fast_ITEMS(seq);
    Py_UCS4 maxchar = 127;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!PyUnicode_Check(items[i])) {
            PyErr_SetString(PyExc_TypeError, "lines must be str");
            goto done;
        }
        Py_UCS4 mc = PyUnicode_MAX_CHAR_VALUE(items[i]);
        maxchar = mc > maxchar ? mc : maxchar;
        char number[32];
        total += padded(number, first + i + 1) + 2 + PyUnicode_GET_LENGTH(items[i]);
    }
    rows = PyList_New(n);
    text = rows == NULL ? NULL : PyUnicode_New(total, maxchar);
    if (text == NULL)
        goto done;
    int kind = PyUnicode_KIND(text);
    void *data = PyUnicode_DATA(text);
    Py_ssize_t pos = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *line = items[i], *d = PyDict_New(), *number = PyLong_FromSsize_t(first + i + 1);
        if (d == NULL || number == NULL || PyDict_SetItem(d, KEYS[0], number) < 0 ||
            PyDict_SetItem(d, KEYS[1], line) < 0) {
            Py_XDECREF(d);
            Py_XDECREF(number);
            goto done;
        }
        Py_DECREF(number);
        PyList_SET_ITEM(rows, i, d);
        char head[32];
        int len = padded(head, first + i + 1);
        head[len++] = '\t';
        put_ascii(kind, data, &pos, head, len);
        Py_ssize_t size = PyUnicode_GET_LENGTH(line);
        if (PyUnicode_KIND(line) == kind)
            memcpy((char *)data + pos * kind, PyUnicode_DATA(line), (size_t)(size * kind));
        else if (PyUnicode_CopyCharacters(text, pos, line, 0, size) < 0)
            goto done;
        pos += size;
        put_ascii(kind, data, &pos, "\n", 1);
    }
    result = PyTuple_Pack(2, rows, text);
done:
    Py_XDECREF(rows);
    Py_XDECREF(text);
    Py_DECREF(seq);
    return result;
}
