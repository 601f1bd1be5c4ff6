/* An anchored edit planned from the file's bytes (engine/edits/from_bytes.py): the lines its
 * anchors name, where they start, and the display anchors around it, each in one pass over
 * the bytes as spans (no str per line, no Python table of the whole file). */
#include "_core_cols.h"

/* Where line i starts in data: the line past the last starts at its end. */
static PyObject *
start_of(Py_ssize_t i, Py_ssize_t n, Py_ssize_t skip, const Py_ssize_t *off, Py_ssize_t size)
{
    return PyLong_FromSsize_t(i < 0 ? skip : i >= n ? size : skip + off[i]);
}

static void
spans_free(PyObject *capsule)
{
    Spans *sp = PyCapsule_GetPointer(capsule, SPANS);
    if (sp != NULL) {
        free(sp->off);
        free(sp->len);
        free(sp->hash);
        free(sp);
    }
}

/* Line i as one answer of a key: appended to its lines, texts and counts, and the starts of
 * the lines up to ``margin`` from it put in ``starts``. */
static int
add_found(PyObject *lines, PyObject *texts, PyObject *counts, PyObject *starts, const Cols *c,
          Py_ssize_t i, Py_ssize_t count, Py_ssize_t skip, Py_ssize_t size, Py_ssize_t margin)
{
    PyObject *text = PyUnicode_DecodeUTF8(c->buf + c->off[i], c->len[i], "strict");
    int bad = text == NULL || PyList_Append(texts, text) < 0;
    Py_XDECREF(text);
    if (bad || append_index(lines, i) < 0 || append_index(counts, count) < 0)
        return -1;
    Py_ssize_t lo = i - margin < 0 ? 0 : i - margin, hi = i + margin > c->n ? c->n : i + margin;
    for (Py_ssize_t j = lo; j <= hi; j++) {
        PyObject *line = PyLong_FromSsize_t(j), *where = start_of(j, c->n, skip, c->off, size);
        bad = line == NULL || where == NULL || PyDict_SetItem(starts, line, where) < 0;
        Py_XDECREF(line);
        Py_XDECREF(where);
        if (bad)
            return -1;
    }
    return 0;
}

/* How many lines have each line's text, into c->texts, from a table of the distinct hashes;
 * 1 when two different texts have one hash (the caller leaves the file to the decoded
 * plan), -1 on error. */
static int
text_counts(Cols *c)
{
    Py_ssize_t slots = 16;
    while (slots < 2 * c->n)
        slots *= 2;
    Py_ssize_t *first = malloc(sizeof(Py_ssize_t) * (size_t)slots);
    uint32_t *count = calloc((size_t)slots, sizeof(uint32_t));
    uint32_t *slot_of = malloc(sizeof(uint32_t) * (size_t)(c->n ? c->n : 1));
    int result = -1;
    if (first == NULL || count == NULL || slot_of == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < c->n; i++) {
        Py_ssize_t at = (Py_ssize_t)((c->hash[i] * 0x9E3779B97F4A7C15ULL) & (uint64_t)(slots - 1));
        while (count[at] && c->hash[first[at]] != c->hash[i])
            at = (at + 1) & (slots - 1);
        if (!count[at])
            first[at] = i;
        else if (line_differs(c, first[at], i)) {
            result = 1;
            goto done;
        }
        count[at]++;
        slot_of[i] = (uint32_t)at;
    }
    for (Py_ssize_t i = 0; i < c->n; i++)
        c->texts[i] = count[slot_of[i]];
    result = 0;
done:
    free(first);
    free(count);
    free(slot_of);
    return result;
}

/* The keys no line hash answered, answered by the context hashes of the repeated lines (a
 * token of 6 chars or more: the ladder's second rung). 1 on a hash clash, -1 on error. */
static int
by_context(Cols *c, const uint64_t *value, const int *chars, Py_ssize_t nkeys, PyObject *found,
           PyObject *texts, PyObject *counts, PyObject *starts, Py_ssize_t skip, Py_ssize_t size,
           Py_ssize_t margin)
{
    Py_ssize_t *rep = malloc(sizeof(Py_ssize_t) * (size_t)(c->n ? c->n : 1)), r = 0;
    uint64_t *ctx = malloc(sizeof(uint64_t) * (size_t)(c->n ? c->n : 1));
    c->texts = malloc(sizeof(uint32_t) * (size_t)(c->n ? c->n : 1));
    int result = -1;
    if (rep == NULL || ctx == NULL || c->texts == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    result = text_counts(c);
    if (result != 0)
        goto done;
    result = -1;
    for (Py_ssize_t i = 0; i < c->n; i++)
        if (c->texts[i] > 1)
            rep[r++] = i;
    if (wm_context_of(c, rep, r, ctx) < 0)
        goto done;
    for (Py_ssize_t k = 0; k < nkeys; k++) {
        if (chars[k] < 6 || PyList_GET_SIZE(PyList_GET_ITEM(found, k)) > 0)
            continue;
        for (Py_ssize_t q = 0; q < r; q++)
            if ((ctx[q] >> (64 - 4 * chars[k])) == value[k] &&
                add_found(PyList_GET_ITEM(found, k), PyList_GET_ITEM(texts, k),
                          PyList_GET_ITEM(counts, k), starts, c, rep[q], c->texts[rep[q]], skip,
                          size, margin) < 0)
                goto done;
    }
    result = 0;
done:
    free(rep);
    free(ctx);
    free(c->texts);
    c->texts = NULL;
    return result;
}

/* span_find(data, skip, keys, margin) -> (count, found, texts, counts, starts, spans) or None:
 * data[skip:] is valid UTF-8 text; ``keys``: (value, chars) pairs, a token of ``chars`` hex
 * digits (1 to 16) as an int. The file's line count; for each key, the lines (ascending)
 * whose xxh3_64 in hex starts with the token, else (6 chars or more) the repeated lines whose
 * context hash does, as LineIndex.candidates finds them; their texts, and how many lines
 * have each of those texts; and where in data each line up to ``margin`` lines from one
 * found starts ({line: offset}, the line past the last included); and the lines' spans and
 * hashes, for span_columns_near. None: two different texts have one hash. */
PyObject *
wm_span_find(PyObject *self, PyObject *args)
{
    Py_buffer view;
    Py_ssize_t skip, margin, *off = NULL, *len = NULL, nkeys = 0, unanswered = 0;
    PyObject *keys_arg, *keys = NULL, *found = NULL, *texts = NULL, *counts = NULL;
    PyObject *starts = NULL, *result = NULL;
    uint64_t *hash = NULL, *value = NULL;
    int *chars = NULL, kinds;
    if (!PyArg_ParseTuple(args, "y*nOn", &view, &skip, &keys_arg, &margin))
        return NULL;
    keys = PySequence_Fast(keys_arg, "keys must be a sequence of (value, chars)");
    if (keys == NULL)
        goto done;
    nkeys = PySequence_Fast_GET_SIZE(keys);
    value = malloc(sizeof(uint64_t) * (size_t)(nkeys ? nkeys : 1));
    chars = malloc(sizeof(int) * (size_t)(nkeys ? nkeys : 1));
    if (value == NULL || chars == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t k = 0; k < nkeys; k++) {
        unsigned long long v;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(keys, k), "Ki", &v, &chars[k]))
            goto done;
        if (chars[k] < 1 || chars[k] > 16) {
            PyErr_SetString(PyExc_ValueError, "a key has 1 to 16 hex digits");
            goto done;
        }
        value[k] = v;
    }
    skip = skip < 0 ? 0 : skip > view.len ? view.len : skip;
    const char *buf = (const char *)view.buf + skip;
    Py_ssize_t n = wm_split_spans(buf, view.len - skip, &off, &len, &kinds, &hash);
    if (n < 0)
        goto done;
    found = PyList_New(nkeys);
    texts = PyList_New(nkeys);
    counts = PyList_New(nkeys);
    starts = PyDict_New();
    if (found == NULL || texts == NULL || counts == NULL || starts == NULL) {
        if (!PyErr_Occurred())
            PyErr_NoMemory();
        goto done;
    }
    Cols c = {n, NULL, buf, off, len, hash};
    for (Py_ssize_t k = 0; k < nkeys; k++) {
        PyObject *at = PyList_New(0), *text = PyList_New(0), *same = PyList_New(0);
        if (at == NULL || text == NULL || same == NULL) {
            Py_XDECREF(at);
            Py_XDECREF(text);
            Py_XDECREF(same);
            goto done;
        }
        PyList_SET_ITEM(found, k, at);
        PyList_SET_ITEM(texts, k, text);
        PyList_SET_ITEM(counts, k, same);
        int shift = 64 - 4 * chars[k];
        /* A token names a repeated line's every copy: their count is the first copy's (a
         * count per copy made a blank line's token cost lines x copies). */
        Py_ssize_t counted = -1, count = 0;
        for (Py_ssize_t i = 0; i < n; i++) {
            if ((hash[i] >> shift) != value[k])
                continue;
            if (counted < 0 || hash[counted] != hash[i] || line_differs(&c, counted, i)) {
                /* Equal texts have equal hashes: only those are compared. */
                count = 0;
                for (Py_ssize_t j = 0; j < n; j++)
                    count += hash[j] == hash[i] && len[j] == len[i] &&
                             memcmp(buf + off[j], buf + off[i], (size_t)len[i]) == 0;
                counted = i;
            }
            if (add_found(at, text, same, starts, &c, i, count, skip, view.len, margin) < 0)
                goto done;
        }
        unanswered += PyList_GET_SIZE(at) == 0;
    }
    if (unanswered) {
        int clash = by_context(&c, value, chars, nkeys, found, texts, counts, starts, skip,
                               view.len, margin);
        if (clash < 0)
            goto done;
        if (clash) {
            result = Py_NewRef(Py_None);
            goto done;
        }
    }
    Spans *sp = malloc(sizeof(Spans));
    PyObject *spans = sp == NULL ? NULL : PyCapsule_New(sp, SPANS, spans_free);
    if (spans == NULL) {
        free(sp);
        if (!PyErr_Occurred())
            PyErr_NoMemory();
        goto done;
    }
    *sp = (Spans){n, view.len - skip, off, len, hash};
    off = len = NULL;
    hash = NULL;
    result = Py_BuildValue("(nOOOON)", n, found, texts, counts, starts, spans);
done:
    Py_XDECREF(keys);
    Py_XDECREF(found);
    Py_XDECREF(texts);
    Py_XDECREF(counts);
    Py_XDECREF(starts);
    free(value);
    free(chars);
    free(hash);
    free(off);
    free(len);
    PyBuffer_Release(&view);
    return result;
}
