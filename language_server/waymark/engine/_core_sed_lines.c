/* The compiled core's ``/^literal/{s/a/b/;s/c/d/g}``: fixed strings replaced by fixed texts
 * on the lines a fixed string selects, on an ASCII file's bytes. The pure twin
 * (engine/sed/fastfixed.py) splits the text at every selected line with re, replaces in each
 * line with a bytes.replace per command and joins the items back; here the lines are found
 * a word at a time (_core_sed.h) and the rest of the text is copied as it lies. */
#include "_core_sed.h"

/* A growing run of bytes. */
typedef struct {
    char *data;
    Py_ssize_t size;
    Py_ssize_t capacity;
} Buffer;

static int
reserve(Buffer *buffer, Py_ssize_t more)
{
    if (buffer->size + more <= buffer->capacity)
        return 0;
    Py_ssize_t capacity = (buffer->size + more) * 2;
    char *grown = PyMem_Realloc(buffer->data, (size_t)capacity);
    if (grown == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    buffer->data = grown;
    buffer->capacity = capacity;
    return 0;
}

static int
add(Buffer *buffer, const char *from, Py_ssize_t size)
{
    if (reserve(buffer, size) < 0)
        return -1;
    memcpy(buffer->data + buffer->size, from, (size_t)size);
    buffer->size += size;
    return 0;
}

/* One command: ``old`` (not empty, no newline) replaced by ``new``, its first occurrence in
 * the line (count 1) or every one (count -1). */
typedef struct {
    Py_buffer old, new;
    int all;
} Replacement;

/* ``line`` with ``replacement`` done, written to ``out`` (emptied first). */
static int
replace_in(Buffer *out, const char *line, Py_ssize_t size, const Replacement *replacement)
{
    const char *stop = line + size, *from = line, *hit;
    const char *old = replacement->old.buf;
    Py_ssize_t length = replacement->old.len;
    out->size = 0;
    while ((hit = find(from, stop, old, length)) != NULL) {
        if (add(out, from, hit - from) < 0 ||
            add(out, replacement->new.buf, replacement->new.len) < 0)
            return -1;
        from = hit + length;
        if (!replacement->all)
            break;
    }
    return add(out, from, stop - from);
}

static void
release(Replacement *replacements, Py_ssize_t count)
{
    for (Py_ssize_t k = 0; k < count; k++) {
        PyBuffer_Release(&replacements[k].old);
        PyBuffer_Release(&replacements[k].new);
    }
    PyMem_Free(replacements);
}

/* replace_in_lines(text, separator, at_start, replacements) -> bytes: each selected line
 * (as append_after selects them) with the replacements ((old, new, count) tuples, count 1 or
 * -1) done in order; its newline stays. The text itself when no line is selected. */
PyObject *
wm_replace_in_lines(PyObject *self, PyObject *args)
{
    PyObject *text, *list, *out = NULL;
    Py_buffer separator;
    int at_start;
    if (!PyArg_ParseTuple(args, "O!y*pO!", &PyBytes_Type, &text, &separator, &at_start,
                          &PyList_Type, &list))
        return NULL;
    const char *data = PyBytes_AS_STRING(text);
    Py_ssize_t size = PyBytes_GET_SIZE(text), count = 0, wanted = PyList_GET_SIZE(list);
    Offsets starts = {NULL, 0, 0}, ends = {NULL, 0, 0};
    Buffer result = {NULL, 0, 0}, scratch[2] = {{NULL, 0, 0}, {NULL, 0, 0}};
    Replacement *replacements = PyMem_Calloc((size_t)(wanted ? wanted : 1), sizeof(Replacement));
    if (replacements == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (; count < wanted; count++) {
        Replacement *r = &replacements[count];
        int times;
        if (!PyArg_ParseTuple(PyList_GET_ITEM(list, count), "y*y*i", &r->old, &r->new, &times))
            goto done;
        r->all = times < 0;
        if (r->old.len < 1 || memchr(r->old.buf, '\n', (size_t)r->old.len) != NULL) {
            PyBuffer_Release(&r->old);
            PyBuffer_Release(&r->new);
            PyErr_SetString(PyExc_ValueError, "each string to replace must be one line's");
            goto done;
        }
    }
    if (separator.len < 1 + at_start) {
        PyErr_SetString(PyExc_ValueError, "the separator must hold the literal");
        goto done;
    }
    if (selected_lines(data, size, separator.buf, separator.len, at_start, &starts, &ends) < 0)
        goto done;
    if (ends.size == 0) {
        out = Py_NewRef(text);
        goto done;
    }
    if (reserve(&result, size + size / 8) < 0)
        goto done;
    Py_ssize_t previous = 0;
    for (Py_ssize_t k = 0; k < ends.size; k++) {
        Py_ssize_t start = starts.at[k], end = ends.at[k];
        Py_ssize_t content = end - (data[end - 1] == '\n');
        if (add(&result, data + previous, start - previous) < 0)
            goto done;
        const char *line = data + start;
        Py_ssize_t length = content - start;
        for (Py_ssize_t r = 0; r < count; r++) {
            Buffer *into = &scratch[r & 1];
            if (replace_in(into, line, length, &replacements[r]) < 0)
                goto done;
            line = into->data;
            length = into->size;
        }
        if (add(&result, line, length) < 0)
            goto done;
        previous = content;
    }
    if (add(&result, data + previous, size - previous) < 0)
        goto done;
    out = PyBytes_FromStringAndSize(result.data, result.size);
done:
    if (replacements != NULL)
        release(replacements, count);
    PyMem_Free(result.data);
    PyMem_Free(scratch[0].data);
    PyMem_Free(scratch[1].data);
    PyMem_Free(starts.at);
    PyMem_Free(ends.at);
    PyBuffer_Release(&separator);
    return out;
}
