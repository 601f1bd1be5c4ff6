/* The compiled core's rendering of the model text. */
#include "_core.h"

/* "N#": a line number in decimal. */
static int
number_sign(char *out, Py_ssize_t n)
{
    int len = decimal(out, n);
    out[len] = '#';
    return len + 1;
}

/* render(lines, tokens, low, first=0) -> str: "N#TOKEN|text\n" per line, numbered from
 * first + 1, "~|" for a low line.
 * ``tokens``: None for a line that shows its own 6-char prefix (hashed here, while the line
 * is copied: cheaper than reading a column of integers), else its display anchor; ``low``: a
 * bytes-like flag per line. */
PyObject *
wm_render(PyObject *self, PyObject *args)
{
    PyObject *lines_arg, *tokens;
    Py_buffer low;
    Py_ssize_t first = 0;
    if (!PyArg_ParseTuple(args, "OO!y*|n", &lines_arg, &PyList_Type, &tokens, &low, &first))
        return NULL;
    if (first < 0) {
        PyBuffer_Release(&low);
        PyErr_SetString(PyExc_ValueError, "first must be 0 or more");
        return NULL;
    }
    PyObject *seq = PySequence_Fast(lines_arg, "lines must be a sequence");
    PyObject *out = NULL;
    if (seq == NULL)
        goto done;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    const char *flags = low.buf;
    if (PyList_GET_SIZE(tokens) != n || low.len != n) {
        PyErr_SetString(PyExc_ValueError, "columns of different lengths");
        goto done;
    }
    Py_ssize_t total = 0;
    Py_UCS4 maxchar = 127;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *line = items[i], *token = PyList_GET_ITEM(tokens, i);
        if (!PyUnicode_Check(line) || (token != Py_None && !PyUnicode_IS_ASCII(token))) {
            PyErr_SetString(PyExc_TypeError, "lines must be str and tokens ASCII str or None");
            goto done;
        }
        Py_UCS4 mc = PyUnicode_MAX_CHAR_VALUE(line);
        if (mc > maxchar)
            maxchar = mc;
        char number[24];
        total += number_sign(number, first + i + 1) + 2 + (flags[i] ? 1 : 0);
        total += token == Py_None ? 6 : PyUnicode_GET_LENGTH(token);
        total += PyUnicode_GET_LENGTH(line);
    }
    out = PyUnicode_New(total, maxchar);
    if (out == NULL)
        goto done;
    int kind = PyUnicode_KIND(out);
    void *data = PyUnicode_DATA(out);
    Py_ssize_t pos = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *line = items[i], *token = PyList_GET_ITEM(tokens, i);
        char head[48];
        int len = number_sign(head, first + i + 1);
        put_ascii(kind, data, &pos, head, len);
        if (token == Py_None) {
            uint64_t h;
            if (hash_str(line, &h) < 0) {
                Py_CLEAR(out);
                goto done;
            }
            unsigned long key = (unsigned long)(h >> 40);
            for (int k = 0; k < 6; k++)
                head[k] = HEX[(key >> (20 - 4 * k)) & 0xf];
            put_ascii(kind, data, &pos, head, 6);
        }
        else
            put_ascii(kind, data, &pos, (const char *)PyUnicode_DATA(token),
                      PyUnicode_GET_LENGTH(token));
        put_ascii(kind, data, &pos, flags[i] ? "~|" : "|", flags[i] ? 2 : 1);
        Py_ssize_t size = PyUnicode_GET_LENGTH(line);
        if (PyUnicode_KIND(line) == kind)
            memcpy((char *)data + pos * kind, PyUnicode_DATA(line), (size_t)(size * kind));
        else if (PyUnicode_CopyCharacters(out, pos, line, 0, size) < 0) {
            Py_CLEAR(out);
            goto done;
        }
        pos += size;
        put_ascii(kind, data, &pos, "\n", 1);
    }
done:
    PyBuffer_Release(&low);
    Py_XDECREF(seq);
    return out;
}

