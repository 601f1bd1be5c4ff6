/* The compiled core's index loops: prefix counts, the usual display anchors. */
#include "_core.h"

/* Sort (key << 32 | line) pairs by their 24-bit key, stably (so each key's lines stay in
 * file order): a radix sort, sequential passes where a hash table would miss the cache on
 * every line. */
int
wm_sort_pairs(uint64_t *a, Py_ssize_t n)
{
    uint64_t *b = malloc(sizeof(uint64_t) * (n ? n : 1));
    if (b == NULL)
        return -1;
    uint64_t *from = a, *to = b;
    for (int shift = 32; shift < 56; shift += 8) {
        Py_ssize_t at[257] = {0};
        for (Py_ssize_t i = 0; i < n; i++)
            at[((from[i] >> shift) & 0xff) + 1]++;
        for (int d = 0; d < 256; d++)
            at[d + 1] += at[d];
        for (Py_ssize_t i = 0; i < n; i++)
            to[at[(from[i] >> shift) & 0xff]++] = from[i];
        uint64_t *t = from;
        from = to;
        to = t;
    }
    if (from != a) /* three passes: the result is in b */
        memcpy(a, from, sizeof(uint64_t) * (size_t)n);
    free(b);
    return 0;
}

/* How many lines have each line's key, and whether the line is the first with its key. */
static int
count_keys(const uint32_t *keys, Py_ssize_t n, uint32_t *count, unsigned char *first)
{
    uint64_t *a = malloc(sizeof(uint64_t) * (n ? n : 1));
    if (a == NULL)
        return -1;
    for (Py_ssize_t i = 0; i < n; i++)
        a[i] = ((uint64_t)keys[i] << 32) | (uint64_t)i;
    if (wm_sort_pairs(a, n) < 0) {
        free(a);
        return -1;
    }
    for (Py_ssize_t s = 0, e; s < n; s = e) {
        for (e = s + 1; e < n && (a[e] >> 32) == (a[s] >> 32); e++)
            ;
        for (Py_ssize_t k = s; k < e; k++) {
            count[(uint32_t)a[k]] = (uint32_t)(e - s);
            first[(uint32_t)a[k]] = k == s;
        }
    }
    free(a);
    return 0;
}

/* prefixes(hashes, shift, counts) -> (p6, shared, several): each hash's top bits; ``counts``
 * (a Counter) gets how many lines have each, in first-seen order as Counter(p6) would;
 * ``shared``: the lines whose prefix several lines have; ``several``: those prefixes. */
PyObject *
wm_prefixes(PyObject *self, PyObject *args)
{
    PyObject *hashes, *counts;
    int shift;
    if (!PyArg_ParseTuple(args, "O!iO!", &PyList_Type, &hashes, &shift, &PyDict_Type, &counts))
        return NULL;
    if (shift < 40 || shift > 63) {
        PyErr_SetString(PyExc_ValueError, "prefixes are at most 24 bits");
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(hashes);
    uint32_t *keys = malloc(sizeof(uint32_t) * (n ? n : 1));
    uint32_t *count = malloc(sizeof(uint32_t) * (n ? n : 1));
    unsigned char *first = malloc(n ? n : 1);
    PyObject *p6 = PyList_New(n), *shared = NULL, *several = NULL;
    if (keys == NULL || count == NULL || first == NULL || p6 == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned long long h = PyLong_AsUnsignedLongLong(PyList_GET_ITEM(hashes, i));
        if (h == (unsigned long long)-1 && PyErr_Occurred())
            goto fail;
        keys[i] = (uint32_t)(h >> shift);
        PyObject *v = PyLong_FromUnsignedLong(keys[i]);
        if (v == NULL)
            goto fail;
        PyList_SET_ITEM(p6, i, v);
    }
    if (count_keys(keys, n, count, first) < 0) {
        PyErr_NoMemory();
        goto fail;
    }
    shared = PyList_New(0);
    several = PySet_New(NULL);
    if (shared == NULL || several == NULL)
        goto fail;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (first[i]) {
            PyObject *v = PyLong_FromSsize_t(count[i]);
            if (v == NULL || PyDict_SetItem(counts, PyList_GET_ITEM(p6, i), v) < 0) {
                Py_XDECREF(v);
                goto fail;
            }
            Py_DECREF(v);
            if (count[i] > 1 && PySet_Add(several, PyList_GET_ITEM(p6, i)) < 0)
                goto fail;
        }
        if (count[i] > 1) {
            PyObject *v = PyLong_FromSsize_t(i);
            if (v == NULL || PyList_Append(shared, v) < 0) {
                Py_XDECREF(v);
                goto fail;
            }
            Py_DECREF(v);
        }
    }
    free(keys);
    free(count);
    free(first);
    return Py_BuildValue("(NNN)", p6, shared, several);
fail:
    free(keys);
    free(count);
    free(first);
    Py_XDECREF(p6);
    Py_XDECREF(shared);
    Py_XDECREF(several);
    return NULL;
}

/* own_displays(indices, lines, p6, p6_count, text_count) -> (out, collided, repeated): each
 * line's own 6-char prefix, and where (positions in ``indices``) that is not its display: a
 * line of unique text whose prefix another line shares, a line whose text repeats. */
PyObject *
wm_own_displays(PyObject *self, PyObject *args)
{
    PyObject *indices, *lines_arg, *p6, *p6_count, *text_count;
    if (!PyArg_ParseTuple(args, "O!OO!O!O!", &PyList_Type, &indices, &lines_arg, &PyList_Type,
                          &p6, &PyDict_Type, &p6_count, &PyDict_Type, &text_count))
        return NULL;
    PyObject *seq = PySequence_Fast(lines_arg, "lines must be a sequence");
    if (seq == NULL)
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(indices), size = PySequence_Fast_GET_SIZE(seq);
    PyObject **lines = PySequence_Fast_ITEMS(seq);
    PyObject *out = PyList_New(n), *collided = PyList_New(0), *repeated = PyList_New(0);
    if (out == NULL || collided == NULL || repeated == NULL)
        goto fail;
    for (Py_ssize_t k = 0; k < n; k++) {
        Py_ssize_t i = PyLong_AsSsize_t(PyList_GET_ITEM(indices, k));
        if (i == -1 && PyErr_Occurred())
            goto fail;
        if (i < 0 || i >= size || i >= PyList_GET_SIZE(p6)) {
            PyErr_SetString(PyExc_IndexError, "line index out of range");
            goto fail;
        }
        PyObject *key = PyList_GET_ITEM(p6, i);
        unsigned long value = PyLong_AsUnsignedLong(key);
        if (value == (unsigned long)-1 && PyErr_Occurred())
            goto fail;
        PyObject *token = hex6(value);
        if (token == NULL)
            goto fail;
        PyList_SET_ITEM(out, k, token);
        Py_ssize_t texts = count_of(text_count, lines[i]);
        if (texts < 0 && PyErr_Occurred())
            goto fail;
        if (texts > 1) {
            if (append_index(repeated, k) < 0)
                goto fail;
            continue;
        }
        Py_ssize_t shared = count_of(p6_count, key);
        if (shared < 0 && PyErr_Occurred())
            goto fail;
        if (shared != 1 && append_index(collided, k) < 0)
            goto fail;
    }
    Py_DECREF(seq);
    return Py_BuildValue("(NNN)", out, collided, repeated);
fail:
    Py_DECREF(seq);
    Py_XDECREF(out);
    Py_XDECREF(collided);
    Py_XDECREF(repeated);
    return NULL;
}

/* repeated_displays(out, indices, rep_at, ctx, counts6, p6_count) -> fall: a repeated line
 * shows the 6-char prefix of its context hash (written into ``out``); ``fall``: the places
 * in ``rep_at`` where that is not the answer, because another repeated line's context has
 * the same prefix or some line's hash does. */
PyObject *
wm_repeated_displays(PyObject *self, PyObject *args)
{
    PyObject *out, *indices, *rep_at, *ctx, *counts6, *p6_count;
    if (!PyArg_ParseTuple(args, "O!O!O!O!O!O!", &PyList_Type, &out, &PyList_Type, &indices,
                          &PyList_Type, &rep_at, &PyDict_Type, &ctx, &PyDict_Type, &counts6,
                          &PyDict_Type, &p6_count))
        return NULL;
    PyObject *fall = PyList_New(0);
    if (fall == NULL)
        return NULL;
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(rep_at); k++) {
        Py_ssize_t pos = PyLong_AsSsize_t(PyList_GET_ITEM(rep_at, k));
        if (pos == -1 && PyErr_Occurred())
            goto fail;
        if (pos < 0 || pos >= PyList_GET_SIZE(out) || pos >= PyList_GET_SIZE(indices)) {
            PyErr_SetString(PyExc_IndexError, "position out of range");
            goto fail;
        }
        PyObject *full = PyDict_GetItemWithError(ctx, PyList_GET_ITEM(indices, pos));
        if (full == NULL) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_KeyError, "a repeated line without its context hash");
            goto fail;
        }
        if (!PyUnicode_Check(full) || !PyUnicode_IS_ASCII(full) ||
            PyUnicode_GET_LENGTH(full) < 6) {
            PyErr_SetString(PyExc_ValueError, "context hashes are hex strings");
            goto fail;
        }
        const char *hex = (const char *)PyUnicode_DATA(full);
        unsigned long value = 0;
        for (int d = 0; d < 6; d++) {
            char c = hex[d];
            int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
            if (digit < 0) {
                PyErr_SetString(PyExc_ValueError, "context hashes are lowercase hex");
                goto fail;
            }
            value = value << 4 | (unsigned long)digit;
        }
        PyObject *shown = PyUnicode_FromStringAndSize(hex, 6);
        if (shown == NULL)
            goto fail;
        PyList_SetItem(out, pos, shown); /* steals shown */
        Py_ssize_t same = count_of(counts6, shown);
        if (same < 0 && PyErr_Occurred())
            goto fail;
        PyObject *key = PyLong_FromUnsignedLong(value);
        if (key == NULL)
            goto fail;
        /* A count of 0 is a prefix no line has any more (an edited file's index keeps it). */
        Py_ssize_t taken = count_of(p6_count, key);
        Py_DECREF(key);
        if (taken < 0 && PyErr_Occurred())
            goto fail;
        taken = taken > 0;
        if ((taken || same != 1) && append_index(fall, k) < 0)
            goto fail;
    }
    return fall;
fail:
    Py_DECREF(fall);
    return NULL;
}

