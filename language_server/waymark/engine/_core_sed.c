/* The compiled core's sed loops: GNU's output of ``/literal/a TEXT`` and ``/^literal/a TEXT``
 * on an ASCII file's bytes, found with memmem and written into one bytes object.
 *
 * The pure twin (engine/sed/fasttext.py append_after) splits the text at the separator,
 * replaces a newline in each part and joins them back: the file copied three times, and a
 * bytes.split whose search stops at every newline (CPython's fastsearch takes each first
 * byte of "\nimport" as a candidate). glibc's memmem skips by a hash of byte pairs instead.
 */
#include "_core.h"

/* Offsets in the text after which the written text goes, in order. */
typedef struct {
    Py_ssize_t *at;
    Py_ssize_t size;
    Py_ssize_t capacity;
} Offsets;

static int
offsets_add(Offsets *offsets, Py_ssize_t value)
{
    if (offsets->size == offsets->capacity) {
        Py_ssize_t capacity = offsets->capacity ? offsets->capacity * 2 : 1024;
        Py_ssize_t *grown = PyMem_Realloc(offsets->at, sizeof(Py_ssize_t) * capacity);
        if (grown == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        offsets->at = grown;
        offsets->capacity = capacity;
    }
    offsets->at[offsets->size++] = value;
    return 0;
}

/* The end of every selected line, its newline included (``size`` for a last line without
 * one). A line is selected when it holds the separator or, ``at_start``, when the separator
 * (a newline, then the literal) ends the line before it or the text starts with the
 * literal. The newline that ends a selected line may then open the next one's separator,
 * so the search goes on from it. */
static int
selected_line_ends(const char *text, Py_ssize_t size, const char *separator,
                   Py_ssize_t length, int at_start, Offsets *ends)
{
    Py_ssize_t search = 0;
    Py_ssize_t line_from = -1;
    if (at_start && size >= length - 1 && memcmp(text, separator + 1, (size_t)length - 1) == 0)
        line_from = length - 1;
    for (;;) {
        if (line_from >= 0) {
            const char *newline = memchr(text + line_from, '\n', (size_t)(size - line_from));
            if (newline == NULL)
                return offsets_add(ends, size);
            Py_ssize_t end = newline - text + 1;
            if (offsets_add(ends, end) < 0)
                return -1;
            search = at_start ? end - 1 : end;
        }
        const char *hit = memmem(text + search, (size_t)(size - search), separator,
                                 (size_t)length);
        if (hit == NULL)
            return 0;
        line_from = hit - text + length;
    }
}

/* append_after(text, separator, at_start, written) -> bytes: ``written`` (ending with a
 * newline) after every selected line; a last line without a newline gets one first, as GNU
 * writes it. The text itself when no line is selected. */
PyObject *
wm_append_after(PyObject *self, PyObject *args)
{
    PyObject *text;
    Py_buffer separator, written;
    int at_start;
    if (!PyArg_ParseTuple(args, "O!y*py*", &PyBytes_Type, &text, &separator, &at_start,
                          &written))
        return NULL;
    PyObject *out = NULL;
    Offsets ends = {NULL, 0, 0};
    const char *data = PyBytes_AS_STRING(text);
    Py_ssize_t size = PyBytes_GET_SIZE(text);
    if (separator.len < 1 + at_start) {
        PyErr_SetString(PyExc_ValueError, "the separator must hold the literal");
        goto done;
    }
    if (selected_line_ends(data, size, separator.buf, separator.len, at_start, &ends) < 0)
        goto done;
    if (ends.size == 0) {
        out = Py_NewRef(text);
        goto done;
    }
    int unterminated = ends.at[ends.size - 1] == size && (size == 0 || data[size - 1] != '\n');
    out = PyBytes_FromStringAndSize(NULL, size + ends.size * written.len + unterminated);
    if (out == NULL)
        goto done;
    char *write = PyBytes_AS_STRING(out);
    Py_ssize_t previous = 0;
    for (Py_ssize_t k = 0; k < ends.size; k++) {
        Py_ssize_t end = ends.at[k];
        memcpy(write, data + previous, (size_t)(end - previous));
        write += end - previous;
        if (end == size && unterminated)
            *write++ = '\n';
        memcpy(write, written.buf, (size_t)written.len);
        write += written.len;
        previous = end;
    }
    memcpy(write, data + previous, (size_t)(size - previous));
done:
    PyMem_Free(ends.at);
    PyBuffer_Release(&separator);
    PyBuffer_Release(&written);
    return out;
}
