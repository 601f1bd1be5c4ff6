/* The compiled core's sed loops on an ASCII file's bytes, each the output of one shape of
 * program written into one bytes object: ``/literal/a TEXT`` and ``/^literal/a TEXT``,
 * ``c`` and ``d`` on such lines, ``s/fixed/text/g``, and ``s/^/TEXT/`` or ``s/$/TEXT/`` on
 * every line; and whether a line holds a literal twice (simulate.py asks it before a regex
 * does). Their pure twins (engine/sed/fasttext.py, fastpath.py, asciibytes.py) split
 * the text, work on the parts and join them back: the file copied three times, with
 * searches whose cost is per occurrence (CPython's fastsearch takes each first byte of
 * "\nimport" as a candidate; re.sub makes a match per "user"). Here a search looks at 8
 * bytes a word, and most copies are inlined.
 */
#include "_core_sed.h"

/* The text with each span [starts[k], ends[k]) replaced by ``written``, and a newline
 * before the last one when ``unterminated``; the text itself when there are no spans. */
static PyObject *
splice(PyObject *text, const Offsets *starts, const Offsets *ends, const Py_buffer *written,
       int unterminated)
{
    const char *data = PyBytes_AS_STRING(text);
    Py_ssize_t size = PyBytes_GET_SIZE(text), cut = 0;
    if (ends->size == 0)
        return Py_NewRef(text);
    for (Py_ssize_t k = 0; k < ends->size; k++)
        cut += ends->at[k] - starts->at[k];
    PyObject *out =
        PyBytes_FromStringAndSize(NULL, size - cut + ends->size * written->len + unterminated);
    if (out == NULL)
        return NULL;
    char *write = PyBytes_AS_STRING(out);
    Py_ssize_t previous = 0;
    for (Py_ssize_t k = 0; k < ends->size; k++) {
        memcpy(write, data + previous, (size_t)(starts->at[k] - previous));
        write += starts->at[k] - previous;
        if (unterminated && k == ends->size - 1)
            *write++ = '\n';
        memcpy(write, written->buf, (size_t)written->len);
        write += written->len;
        previous = ends->at[k];
    }
    memcpy(write, data + previous, (size_t)(size - previous));
    return out;
}

/* The selected lines' spans: where each selected line ends (``append``: ``written`` goes in
 * there, and a last line without a newline gets one first, as GNU writes it), or each whole
 * selected line, its newline included (``written`` replaces it). The text itself when no
 * line is selected. */
static PyObject *
on_selected_lines(PyObject *args, int append)
{
    PyObject *text;
    Py_buffer separator, written;
    int at_start;
    if (!PyArg_ParseTuple(args, "O!y*py*", &PyBytes_Type, &text, &separator, &at_start,
                          &written))
        return NULL;
    PyObject *out = NULL;
    Offsets starts = {NULL, 0, 0}, ends = {NULL, 0, 0};
    const char *data = PyBytes_AS_STRING(text);
    Py_ssize_t size = PyBytes_GET_SIZE(text);
    if (separator.len < 1 + at_start)
        PyErr_SetString(PyExc_ValueError, "the separator must hold the literal");
    else if (selected_lines(data, size, separator.buf, separator.len, at_start,
                            append ? NULL : &starts, &ends) == 0) {
        if (append) {
            int unterminated = ends.size && ends.at[ends.size - 1] == size && data[size - 1] != '\n';
            /* Empty spans at the ends: the text goes in after each line. */
            out = splice(text, &ends, &ends, &written, unterminated);
        } else
            out = splice(text, &starts, &ends, &written, 0);
    }
    PyMem_Free(starts.at);
    PyMem_Free(ends.at);
    PyBuffer_Release(&separator);
    PyBuffer_Release(&written);
    return out;
}

/* append_after(text, separator, at_start, written) -> bytes: ``written`` (ending with a
 * newline) after every selected line. */
PyObject *
wm_append_after(PyObject *self, PyObject *args)
{
    return on_selected_lines(args, 1);
}

/* replace_lines(text, separator, at_start, written) -> bytes: every selected line, its
 * newline included, replaced by ``written`` (``c``; ``d`` when empty). */
PyObject *
wm_replace_lines(PyObject *self, PyObject *args)
{
    return on_selected_lines(args, 0);
}

/* replace_all(text, old, new) -> bytes: every occurrence of ``old`` (not empty), leftmost
 * first and never overlapping, replaced by ``new``: ``s/old/new/g``. */
PyObject *
wm_replace_all(PyObject *self, PyObject *args)
{
    PyObject *text;
    Py_buffer old, new;
    if (!PyArg_ParseTuple(args, "O!y*y*", &PyBytes_Type, &text, &old, &new))
        return NULL;
    PyObject *out = NULL;
    Offsets starts = {NULL, 0, 0}, ends = {NULL, 0, 0};
    const char *data = PyBytes_AS_STRING(text), *stop = data + PyBytes_GET_SIZE(text);
    if (old.len < 1) {
        PyErr_SetString(PyExc_ValueError, "the string to replace must not be empty");
        goto done;
    }
    for (const char *hit = data; (hit = find(hit, stop, old.buf, old.len)) != NULL;) {
        if (offsets_add(&starts, hit - data) < 0 || offsets_add(&ends, hit - data + old.len) < 0)
            goto done;
        hit += old.len;
    }
    out = splice(text, &starts, &ends, &new, 0);
done:
    PyMem_Free(starts.at);
    PyMem_Free(ends.at);
    PyBuffer_Release(&old);
    PyBuffer_Release(&new);
    return out;
}

static Py_ssize_t
count_newlines(const char *data, Py_ssize_t size)
{
    Py_ssize_t count = 0, i = 0;
    for (; i + 8 <= size; i += 8)
        count += (Py_ssize_t)(((equal_bits(data + i, NEWLINES) >> 7) * ONES) >> 56);
    for (; i < size; i++)
        count += data[i] == '\n';
    return count;
}

/* Bytes to copy, and where they may be read and written by whole blocks: most lines and
 * inserted texts are shorter than a block, whose copy of constant size the compiler inlines
 * (a libc memcpy call per line cost more than the copy; the bytes written past ``size`` are
 * written over by the next copy). */
#define BLOCK 32

typedef struct {
    const char *from;
    Py_ssize_t size;
    const char *readable;
} Span;

static inline char *
copy(char *write, const char *write_end, Span span)
{
    if (span.size <= BLOCK && write + BLOCK <= write_end && span.from + BLOCK <= span.readable)
        memcpy(write, span.from, BLOCK);
    else
        memcpy(write, span.from, (size_t)span.size);
    return write + span.size;
}

/* The inserted text as a Span, readable by whole blocks from ``room`` when it is short. */
static Span
inserted(const Py_buffer *text, char room[BLOCK])
{
    if (text->len > BLOCK)
        return (Span){text->buf, text->len, (const char *)text->buf + text->len};
    memcpy(room, text->buf, (size_t)text->len);
    return (Span){room, text->len, room + BLOCK};
}

/* around_lines(text, before, after) -> bytes: every line of the text with ``before`` in
 * front and ``after`` at its end (before its newline): ``s/^/TEXT/`` and ``s/$/TEXT/`` on
 * every line. The text after a final newline is not a line; an empty text has none. */
PyObject *
wm_around_lines(PyObject *self, PyObject *args)
{
    PyObject *text;
    Py_buffer before, after;
    if (!PyArg_ParseTuple(args, "O!y*y*", &PyBytes_Type, &text, &before, &after))
        return NULL;
    PyObject *out = NULL;
    const char *data = PyBytes_AS_STRING(text);
    Py_ssize_t size = PyBytes_GET_SIZE(text);
    if (size == 0) {
        out = Py_NewRef(text);
        goto done;
    }
    int terminated = data[size - 1] == '\n';
    Py_ssize_t lines = count_newlines(data, size) + !terminated;
    out = PyBytes_FromStringAndSize(NULL, size + lines * (before.len + after.len));
    if (out == NULL)
        goto done;
    char before_room[BLOCK], after_room[BLOCK];
    Span front = inserted(&before, before_room), back = inserted(&after, after_room);
    char *write = PyBytes_AS_STRING(out);
    const char *end = write + PyBytes_GET_SIZE(out);
    write = copy(write, end, front);
    /* The final newline, if any, is written after the loop: no line follows it. */
    Py_ssize_t body = size - terminated, line = 0, i = 0;
    for (;; i += 8) {
        uint64_t bits;
        if (i + 8 <= body)
            bits = equal_bits(data + i, NEWLINES);
        else {
            bits = 0;
            for (Py_ssize_t k = i; k < body; k++)
                bits |= (uint64_t)(data[k] == '\n') << (8 * (k - i) + 7);
        }
        for (; bits != 0; bits &= bits - 1) {
            Py_ssize_t at = i + FIRST_OF(bits);
            write = copy(write, end, (Span){data + line, at - line, data + size});
            write = copy(write, end, back);
            *write++ = '\n';
            write = copy(write, end, front);
            line = at + 1;
        }
        if (i + 8 >= body)
            break;
    }
    write = copy(write, end, (Span){data + line, body - line, data + size});
    write = copy(write, end, back);
    if (terminated)
        *write = '\n';
done:
    PyBuffer_Release(&before);
    PyBuffer_Release(&after);
    return out;
}

/* twice_on_a_line(text, literal) -> bool: whether a line of the ASCII text (str or bytes)
 * holds two occurrences of ``literal`` (not empty, no newline) apart from each other.
 * Two matches of a regex that every match holds the literal in need that. */
PyObject *
wm_twice_on_a_line(PyObject *self, PyObject *args)
{
    PyObject *text;
    Py_buffer literal;
    if (!PyArg_ParseTuple(args, "Oy*", &text, &literal))
        return NULL;
    const char *data = NULL;
    Py_ssize_t size = 0;
    if (PyBytes_Check(text)) {
        data = PyBytes_AS_STRING(text);
        size = PyBytes_GET_SIZE(text);
    } else if (PyUnicode_Check(text) && PyUnicode_IS_ASCII(text)) {
        data = (const char *)PyUnicode_DATA(text);
        size = PyUnicode_GET_LENGTH(text);
    }
    PyObject *out = NULL;
    if (data == NULL || literal.len < 1) {
        PyErr_SetString(PyExc_ValueError, "an ASCII text and a literal are needed");
        goto done;
    }
    const char *stop = data + size, *hit = data;
    out = Py_False;
    while ((hit = find(hit, stop, literal.buf, literal.len)) != NULL) {
        const char *after = hit + literal.len;
        const char *newline = memchr(after, '\n', (size_t)(stop - after));
        const char *line_end = newline == NULL ? stop : newline;
        hit = find(after, line_end, literal.buf, literal.len);
        if (hit != NULL) {
            out = Py_True;
            break;
        }
        if (newline == NULL)
            break;
        hit = newline + 1;
    }
    Py_INCREF(out);
done:
    PyBuffer_Release(&literal);
    return out;
}
