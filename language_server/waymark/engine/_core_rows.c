/* A read's result in one call each: the 6-hex-digit tokens of 6-char prefixes, and the
 * {line, text, hash, quality} dict of every line of a full read or a page (Annotated.hashes,
 * Annotated.as_json and ShownPage.as_json in engine/, whose pure twins map a Python format
 * and build a dict per line). */
#include "_core.h"

static PyObject *KEYS[4];

static PyObject *
token_of(PyObject *value)
{
    unsigned long v = PyLong_Check(value) ? PyLong_AsUnsignedLong(value) : (unsigned long)-1;
    if (v <= 0xffffffUL)
        return hex6(v);
    /* What is no 6-char prefix (wider, negative, not an int) formats as "%06x" does it. */
    PyErr_Clear();
    PyObject *fmt = PyUnicode_FromString("%06x");
    PyObject *s = fmt == NULL ? NULL : PyUnicode_Format(fmt, value);
    Py_XDECREF(fmt);
    return s;
}

/* hex_tokens(prefixes) -> ["%06x" % p for p in prefixes]. */
PyObject *
wm_hex_tokens(PyObject *self, PyObject *arg)
{
    PyObject *seq = PySequence_Fast(arg, "prefixes must be a sequence");
    if (seq == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    PyObject *out = PyList_New(n);
    for (Py_ssize_t i = 0; out != NULL && i < n; i++) {
        PyObject *s = token_of(items[i]);
        if (s == NULL)
            Py_CLEAR(out);
        else
            PyList_SET_ITEM(out, i, s);
    }
    Py_DECREF(seq);
    return out;
}

static PyObject *
row(Py_ssize_t number, PyObject *text, PyObject *hash, PyObject *quality)
{
    PyObject *d = PyDict_New(), *n = PyLong_FromSsize_t(number);
    if (d == NULL || n == NULL || PyDict_SetItem(d, KEYS[0], n) < 0 ||
        PyDict_SetItem(d, KEYS[1], text) < 0 || PyDict_SetItem(d, KEYS[2], hash) < 0 ||
        PyDict_SetItem(d, KEYS[3], quality) < 0)
        Py_CLEAR(d);
    Py_XDECREF(n);
    return d;
}

/* Where each line's token or quality is not the usual one (NULL elsewhere): the keys of an
 * {index: value} scatter, as many as its values; the values borrowed from *held, which the
 * caller keeps until it is done with them (a sequence made here of an iterable holds the
 * only references). */
static int
scatter_into(PyObject **at, Py_ssize_t n, PyObject *keys, PyObject *values, PyObject **held)
{
    PyObject *ks = PySequence_Fast(keys, "indices must be a sequence");
    PyObject *vs = ks == NULL ? NULL : PySequence_Fast(values, "values must be a sequence");
    int rc = -1;
    if (vs == NULL)
        goto done;
    Py_ssize_t m = PySequence_Fast_GET_SIZE(ks);
    if (PySequence_Fast_GET_SIZE(vs) != m) {
        PyErr_SetString(PyExc_ValueError, "as many values as indices");
        goto done;
    }
    for (Py_ssize_t j = 0; j < m; j++) {
        Py_ssize_t k = PyLong_AsSsize_t(PySequence_Fast_GET_ITEM(ks, j));
        if (k == -1 && PyErr_Occurred())
            goto done;
        if (k < 0 || k >= n) {
            PyErr_SetString(PyExc_IndexError, "index out of range");
            goto done;
        }
        at[k] = PySequence_Fast_GET_ITEM(vs, j);
    }
    rc = 0;
    *held = Py_NewRef(vs);
done:
    Py_XDECREF(ks);
    Py_XDECREF(vs);
    return rc;
}

/* The token of a line that shows its own 6-char prefix, hashed from its text. */
static PyObject *
own_token(PyObject *line)
{
    uint64_t h;
    if (!PyUnicode_Check(line)) {
        PyErr_SetString(PyExc_TypeError, "lines must be str");
        return NULL;
    }
    return hash_str(line, &h) < 0 ? NULL : hex6((unsigned long)(h >> 40));
}

/* json_rows(lines, prefixes, special, tokens, odd_lines, odd_qualities, high, first=0) -> one
 * {line, text, hash, quality} dict per line, numbered from first + 1: its token the special
 * one's, else its prefix as 6 hex digits (prefixes None: hashed here from its text, as a
 * page, which has no prefix column, asks); its quality the odd one's, else high. */
PyObject *
wm_json_rows(PyObject *self, PyObject *args)
{
    PyObject *lines_arg, *p6_arg, *special, *tokens, *odd_k, *odd_v, *high;
    Py_ssize_t first = 0;
    if (!PyArg_ParseTuple(args, "OOOOOOO|n", &lines_arg, &p6_arg, &special, &tokens, &odd_k,
                          &odd_v, &high, &first))
        return NULL;
    if (first < 0) {
        PyErr_SetString(PyExc_ValueError, "first must be 0 or more");
        return NULL;
    }
    for (int k = 0; k < 4 && KEYS[3] == NULL; k++) {
        static const char *names[] = {"line", "text", "hash", "quality"};
        KEYS[k] = PyUnicode_InternFromString(names[k]);
        if (KEYS[k] == NULL)
            return NULL;
    }
    PyObject *out = NULL, **at = NULL, *held[2] = {NULL, NULL};
    PyObject *lines = PySequence_Fast(lines_arg, "lines must be a sequence");
    PyObject *p6 = lines == NULL || p6_arg == Py_None
                       ? NULL
                       : PySequence_Fast(p6_arg, "prefixes must be a sequence");
    if (lines == NULL || (p6 == NULL && p6_arg != Py_None))
        goto done;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(lines);
    if (p6 != NULL && PySequence_Fast_GET_SIZE(p6) != n) {
        PyErr_SetString(PyExc_ValueError, "a prefix for every line");
        goto done;
    }
    /* at[0:n]: the special tokens; at[n:2n]: the odd qualities. */
    at = calloc((size_t)(2 * n + 1), sizeof(PyObject *));
    if (at == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (scatter_into(at, n, special, tokens, &held[0]) < 0 ||
        scatter_into(at + n, n, odd_k, odd_v, &held[1]) < 0)
        goto done;
    out = PyList_New(n);
    for (Py_ssize_t i = 0; out != NULL && i < n; i++) {
        PyObject *line = PySequence_Fast_GET_ITEM(lines, i);
        PyObject *hash = at[i] != NULL ? Py_NewRef(at[i])
                         : p6 != NULL  ? token_of(PySequence_Fast_GET_ITEM(p6, i))
                                       : own_token(line);
        PyObject *quality = at[n + i] != NULL ? at[n + i] : high;
        PyObject *d = hash == NULL ? NULL : row(first + i + 1, line, hash, quality);
        Py_XDECREF(hash);
        if (d == NULL)
            Py_CLEAR(out);
        else
            PyList_SET_ITEM(out, i, d);
    }
done:
    free(at);
    Py_XDECREF(held[0]);
    Py_XDECREF(held[1]);
    Py_XDECREF(lines);
    Py_XDECREF(p6);
    return out;
}
