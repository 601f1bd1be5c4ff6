/* sed's whole-file output, built in one bytes object (engine/sed/pieces.py, its pure twin).
 *
 * A step runs on a file a piece of lines at a time; joining the pieces' results at the end
 * keeps all of them alive beside the joined copy: on 8 MB that pushes the heap past glibc's
 * trim threshold, and every later run faults the freed pages back in. Here each result is
 * copied into the output as soon as the step returns it and freed before the next piece is
 * cut, so the output and one piece's work are all that live at once.
 */
#include "_core.h"

typedef struct {
    PyObject *bytes; /* NULL until a piece changed: until then the input stands for itself */
    Py_ssize_t used;
    Py_ssize_t cap;
} Output;

static int
output_add(Output *out, const char *from, Py_ssize_t size)
{
    if (out->used + size > out->cap) {
        Py_ssize_t want = out->used + size;
        want += want >> 3;
        if (_PyBytes_Resize(&out->bytes, want) < 0)
            return -1;
        out->cap = want;
    }
    memcpy(PyBytes_AS_STRING(out->bytes) + out->used, from, (size_t)size);
    out->used += size;
    return 0;
}

/* join_pieces(step, data, size, start=0, stop=len(data)): data[start:stop] cut after the
 * first newline at or past each piece's start + size (the last piece takes the rest),
 * step(piece, offset) called on each in turn (one empty piece when start == stop), the results joined between data[:start] and
 * data[stop:]: ``data`` itself when every result equals its piece, None as soon as one is
 * None. */
PyObject *
wm_join_pieces(PyObject *self, PyObject *args)
{
    PyObject *step, *data;
    Py_ssize_t size, start = 0, stop = PY_SSIZE_T_MAX;
    if (!PyArg_ParseTuple(args, "OSn|nn", &step, &data, &size, &start, &stop))
        return NULL;
    if (size < 1) {
        PyErr_SetString(PyExc_ValueError, "size must be positive");
        return NULL;
    }
    const char *base = PyBytes_AS_STRING(data);
    Py_ssize_t total = PyBytes_GET_SIZE(data);
    if (stop > total)
        stop = total;
    if (start < 0 || start > stop) {
        PyErr_SetString(PyExc_ValueError, "start must be within 0..stop");
        return NULL;
    }
    Output out = {NULL, 0, 0};
    do { /* an empty span is one empty piece: a span of lines holds at least one line */
        Py_ssize_t end = stop;
        if (stop - start > size) {
            const char *cut = memchr(base + start + size, '\n', (size_t)(stop - start - size));
            if (cut != NULL)
                end = cut - base + 1;
        }
        PyObject *piece = PyBytes_FromStringAndSize(base + start, end - start);
        if (piece == NULL)
            goto fail;
        PyObject *result = PyObject_CallFunction(step, "On", piece, start);
        Py_DECREF(piece);
        if (result == NULL)
            goto fail;
        if (result == Py_None) {
            Py_DECREF(result);
            Py_XDECREF(out.bytes);
            Py_RETURN_NONE;
        }
        if (!PyBytes_Check(result)) {
            Py_DECREF(result);
            PyErr_SetString(PyExc_TypeError, "the step must return bytes or None");
            goto fail;
        }
        const char *new = PyBytes_AS_STRING(result);
        Py_ssize_t length = PyBytes_GET_SIZE(result);
        int same = length == end - start && memcmp(new, base + start, (size_t)length) == 0;
        if (!same && out.bytes == NULL) {
            /* The first change: what came before it is the input's own bytes. Room for the
             * rest as it is; output_add grows it when the pieces grow. */
            out.cap = total - (end - start) + length;
            out.cap += out.cap >> 3;
            out.bytes = PyBytes_FromStringAndSize(NULL, out.cap);
            if (out.bytes == NULL || output_add(&out, base, start) < 0) {
                Py_DECREF(result);
                goto fail;
            }
        }
        if (out.bytes != NULL &&
            output_add(&out, same ? base + start : new, same ? end - start : length) < 0) {
            Py_DECREF(result);
            goto fail;
        }
        Py_DECREF(result);
        start = end;
    } while (start < stop);
    if (out.bytes == NULL) {
        Py_INCREF(data);
        return data;
    }
    if (output_add(&out, base + stop, total - stop) < 0)
        goto fail;
    if (out.used != out.cap && _PyBytes_Resize(&out.bytes, out.used) < 0)
        return NULL;
    return out.bytes;
fail:
    Py_XDECREF(out.bytes);
    return NULL;
}
