/* The compiled core of line anchors: the whole-file loops of engine/text.py and
 * engine/line_index.py, one pass in C each, without a Python object per step.
 *
 * Pure computation, no I/O. Every function returns exactly what its pure-Python twin in
 * waymark.engine returns (tests/unit/test_core_differential.py); engine/core.py decides
 * which runs. XXH3 comes from xxhash.h, inlined, so the module needs no shared library.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

static PyObject *EOL_LF, *EOL_CRLF, *EOL_CR, *EOL_NONE;

/* The UTF-8 (surrogateescape) bytes of a str: its own buffer when ASCII, else a new bytes
 * object left in *owner. An unencodable lone surrogate raises, as str.encode does. */
static int
utf8_of(PyObject *s, const char **data, Py_ssize_t *size, PyObject **owner)
{
    *owner = NULL;
    if (!PyUnicode_Check(s)) {
        PyErr_SetString(PyExc_TypeError, "lines must be str");
        return -1;
    }
    if (PyUnicode_IS_ASCII(s)) {
        *data = (const char *)PyUnicode_DATA(s);
        *size = PyUnicode_GET_LENGTH(s);
        return 0;
    }
    *owner = PyUnicode_AsEncodedString(s, "utf-8", "surrogateescape");
    if (*owner == NULL)
        return -1;
    *data = PyBytes_AS_STRING(*owner);
    *size = PyBytes_GET_SIZE(*owner);
    return 0;
}

static int
hash_str(PyObject *s, uint64_t *out)
{
    const char *data;
    Py_ssize_t size;
    PyObject *owner;
    if (utf8_of(s, &data, &size, &owner) < 0)
        return -1;
    *out = XXH3_64bits(data, (size_t)size);
    Py_XDECREF(owner);
    return 0;
}

/* split_lines(text) -> (lines, eols): on "\n", "\r\n" and "\r" only. */
static PyObject *
split_lines(PyObject *self, PyObject *text)
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
static PyObject *
hash_lines(PyObject *self, PyObject *arg)
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

/* How many lines have each line's key, and whether the line is the first with its key: a
 * radix sort of (key, line) pairs, sequential passes where a hash table would miss the cache
 * on every line. Keys are at most 24 bits. */
static int
count_keys(const uint32_t *keys, Py_ssize_t n, uint32_t *count, unsigned char *first)
{
    uint64_t *a = malloc(sizeof(uint64_t) * (n ? n : 1));
    uint64_t *b = malloc(sizeof(uint64_t) * (n ? n : 1));
    if (a == NULL || b == NULL) {
        free(a);
        free(b);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        a[i] = ((uint64_t)keys[i] << 32) | (uint64_t)i;
    for (int shift = 32; shift < 56; shift += 8) {
        Py_ssize_t at[257] = {0};
        for (Py_ssize_t i = 0; i < n; i++)
            at[((a[i] >> shift) & 0xff) + 1]++;
        for (int d = 0; d < 256; d++)
            at[d + 1] += at[d];
        for (Py_ssize_t i = 0; i < n; i++)
            b[at[(a[i] >> shift) & 0xff]++] = a[i];
        uint64_t *t = a;
        a = b;
        b = t;
    }
    /* Stable passes keep each key's lines in file order: a run's first is its first line. */
    for (Py_ssize_t s = 0, e; s < n; s = e) {
        for (e = s + 1; e < n && (a[e] >> 32) == (a[s] >> 32); e++)
            ;
        for (Py_ssize_t k = s; k < e; k++) {
            count[(uint32_t)a[k]] = (uint32_t)(e - s);
            first[(uint32_t)a[k]] = k == s;
        }
    }
    free(a);
    free(b);
    return 0;
}

/* prefixes(hashes, shift, counts) -> (p6, shared): each hash's top bits; ``counts`` (a
 * Counter) gets how many lines have each, in first-seen order as Counter(p6) would;
 * ``shared``: the lines whose prefix several lines have. */
static PyObject *
prefixes(PyObject *self, PyObject *args)
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
    PyObject *p6 = PyList_New(n), *shared = NULL;
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
    if (shared == NULL)
        goto fail;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (first[i]) {
            PyObject *v = PyLong_FromSsize_t(count[i]);
            if (v == NULL || PyDict_SetItem(counts, PyList_GET_ITEM(p6, i), v) < 0) {
                Py_XDECREF(v);
                goto fail;
            }
            Py_DECREF(v);
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
    return Py_BuildValue("(NN)", p6, shared);
fail:
    free(keys);
    free(count);
    free(first);
    Py_XDECREF(p6);
    Py_XDECREF(shared);
    return NULL;
}

/* Whether str.strip() leaves nothing of the line. */
static int
is_blank(PyObject *s)
{
    int kind = PyUnicode_KIND(s);
    const void *data = PyUnicode_DATA(s);
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    for (Py_ssize_t i = 0; i < n; i++)
        if (!Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, i)))
            return 0;
    return 1;
}

/* Whether the line is only ASCII punctuation and whitespace (or empty). */
static int
is_punct_ws(PyObject *s)
{
    if (!PyUnicode_IS_ASCII(s))
        return PyUnicode_GET_LENGTH(s) == 0;
    const unsigned char *data = PyUnicode_DATA(s);
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned char c = data[i];
        int alnum = (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
        if (!(c == ' ' || (c >= '\t' && c <= '\r') || (c > ' ' && c < 0x7f && !alnum)))
            return 0;
    }
    return 1;
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
static PyObject *
low_by_text(PyObject *self, PyObject *arg)
{
    return lines_where(arg, is_punct_ws);
}

static int
hash_update_str(XXH3_state_t *state, PyObject *s)
{
    const char *data;
    Py_ssize_t size;
    PyObject *owner;
    if (utf8_of(s, &data, &size, &owner) < 0)
        return -1;
    XXH3_64bits_update(state, data, (size_t)size);
    Py_XDECREF(owner);
    return 0;
}

/* context_hashes(lines, wanted) -> list[str]: for each wanted line (ascending), the hex
 * xxh3_64 of "prev_nonblank\nline\nnext_nonblank" ("" past a file edge). */
static PyObject *
context_hashes(PyObject *self, PyObject *args)
{
    PyObject *lines_arg, *wanted;
    if (!PyArg_ParseTuple(args, "OO!", &lines_arg, &PyList_Type, &wanted))
        return NULL;
    PyObject *seq = PySequence_Fast(lines_arg, "lines must be a sequence");
    if (seq == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    Py_ssize_t m = PyList_GET_SIZE(wanted);
    PyObject *out = PyList_New(m);
    XXH3_state_t *state = XXH3_createState();
    /* The nearest non-blank line before and after, answered per line asked: a wanted line
     * remembers the last non-blank line seen so far (lines are asked in ascending order). */
    Py_ssize_t prev_nb = -1, scanned = 0, next_nb = -1, last = -1;
    if (out == NULL || state == NULL)
        goto fail;
    for (Py_ssize_t k = 0; k < m; k++) {
        Py_ssize_t i = PyLong_AsSsize_t(PyList_GET_ITEM(wanted, k));
        if (i == -1 && PyErr_Occurred())
            goto fail;
        if (i < 0 || i >= n || i <= last) {
            PyErr_SetString(PyExc_ValueError, "wanted lines must be ascending and in range");
            goto fail;
        }
        last = i;
        for (; scanned < i; scanned++) {
            if (!PyUnicode_Check(items[scanned])) {
                PyErr_SetString(PyExc_TypeError, "lines must be str");
                goto fail;
            }
            if (!is_blank(items[scanned]))
                prev_nb = scanned;
        }
        if (next_nb <= i) {
            next_nb = i + 1;
            while (next_nb < n) {
                if (!PyUnicode_Check(items[next_nb])) {
                    PyErr_SetString(PyExc_TypeError, "lines must be str");
                    goto fail;
                }
                if (!is_blank(items[next_nb]))
                    break;
                next_nb++;
            }
        }
        XXH3_64bits_reset(state);
        if ((prev_nb >= 0 && hash_update_str(state, items[prev_nb]) < 0))
            goto fail;
        XXH3_64bits_update(state, "\n", 1);
        if (hash_update_str(state, items[i]) < 0)
            goto fail;
        XXH3_64bits_update(state, "\n", 1);
        if (next_nb < n && hash_update_str(state, items[next_nb]) < 0)
            goto fail;
        char hex[17];
        snprintf(hex, sizeof hex, "%016llx", (unsigned long long)XXH3_64bits_digest(state));
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

static const char HEX[] = "0123456789abcdef";

/* "N#": a line number in decimal (snprintf per line would cost more than the copy). */
static int
number_sign(char *out, Py_ssize_t n)
{
    char digits[24];
    int len = 0;
    do {
        digits[len++] = (char)('0' + n % 10);
        n /= 10;
    } while (n > 0);
    for (int k = 0; k < len; k++)
        out[k] = digits[len - 1 - k];
    out[len] = '#';
    return len + 1;
}

static void
put_ascii(int kind, void *data, Py_ssize_t *pos, const char *s, Py_ssize_t len)
{
    if (kind == PyUnicode_1BYTE_KIND) {
        memcpy((char *)data + *pos, s, (size_t)len);
        *pos += len;
        return;
    }
    for (Py_ssize_t i = 0; i < len; i++)
        PyUnicode_WRITE(kind, data, (*pos)++, (Py_UCS4)(unsigned char)s[i]);
}

/* render(lines, p6, tokens, low) -> str: "N#TOKEN|text\n" per line, "~|" for a low line.
 * ``tokens``: None for a line that shows its own 6-char prefix (from ``p6``), else its
 * display anchor; ``low``: a bytes-like flag per line. */
static PyObject *
render(PyObject *self, PyObject *args)
{
    PyObject *lines_arg, *p6, *tokens;
    Py_buffer low;
    if (!PyArg_ParseTuple(args, "OO!O!y*", &lines_arg, &PyList_Type, &p6, &PyList_Type, &tokens,
                          &low))
        return NULL;
    PyObject *seq = PySequence_Fast(lines_arg, "lines must be a sequence");
    PyObject *out = NULL;
    if (seq == NULL)
        goto done;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    const char *flags = low.buf;
    if (PyList_GET_SIZE(p6) != n || PyList_GET_SIZE(tokens) != n || low.len != n) {
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
        total += number_sign(number, i + 1) + 2 + (flags[i] ? 1 : 0);
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
        int len = number_sign(head, i + 1);
        put_ascii(kind, data, &pos, head, len);
        if (token == Py_None) {
            unsigned long key = PyLong_AsUnsignedLong(PyList_GET_ITEM(p6, i));
            if (key == (unsigned long)-1 && PyErr_Occurred()) {
                Py_CLEAR(out);
                goto done;
            }
            if (key > 0xffffff) {
                PyErr_SetString(PyExc_ValueError, "a 6-char prefix is at most 24 bits");
                Py_CLEAR(out);
                goto done;
            }
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

/* A Counter's count of ``key`` (0 when missing, as Counter answers); -1 on error. */
static Py_ssize_t
count_of(PyObject *counter, PyObject *key)
{
    PyObject *v = PyDict_GetItemWithError(counter, key);
    if (v == NULL)
        return PyErr_Occurred() ? -1 : 0;
    return PyLong_AsSsize_t(v);
}

static PyObject *
hex6(unsigned long key)
{
    char text[6];
    for (int k = 0; k < 6; k++)
        text[k] = HEX[(key >> (20 - 4 * k)) & 0xf];
    return PyUnicode_FromStringAndSize(text, 6);
}

static int
append_index(PyObject *list, Py_ssize_t k)
{
    PyObject *v = PyLong_FromSsize_t(k);
    int bad = v == NULL || PyList_Append(list, v) < 0;
    Py_XDECREF(v);
    return bad ? -1 : 0;
}

/* own_displays(indices, lines, p6, p6_count, text_count) -> (out, collided, repeated): each
 * line's own 6-char prefix, and where (positions in ``indices``) that is not its display: a
 * line of unique text whose prefix another line shares, a line whose text repeats. */
static PyObject *
own_displays(PyObject *self, PyObject *args)
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
static PyObject *
repeated_displays(PyObject *self, PyObject *args)
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
        int taken = PyDict_Contains(p6_count, key);
        Py_DECREF(key);
        if (taken < 0)
            goto fail;
        if ((taken || same != 1) && append_index(fall, k) < 0)
            goto fail;
    }
    return fall;
fail:
    Py_DECREF(fall);
    return NULL;
}

static PyMethodDef methods[] = {
    {"split_lines", split_lines, METH_O, "Split on \\n, \\r\\n and \\r: (lines, eols)."},
    {"hash_lines", hash_lines, METH_O, "xxh3_64 of each line's UTF-8 bytes."},
    {"prefixes", prefixes, METH_VARARGS, "Prefixes, their counts, the lines sharing one."},
    {"low_by_text", low_by_text, METH_O, "Lines only of ASCII punctuation and whitespace."},
    {"context_hashes", context_hashes, METH_VARARGS, "Context hashes of the wanted lines."},
    {"render", render, METH_VARARGS, "The model text of anchored lines."},
    {"own_displays", own_displays, METH_VARARGS, "Own prefixes, and where they are not."},
    {"repeated_displays", repeated_displays, METH_VARARGS, "Context prefixes of repeats."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "waymark.engine._core", NULL, -1, methods,
};

PyMODINIT_FUNC
PyInit__core(void)
{
    EOL_LF = PyUnicode_InternFromString("\n");
    EOL_CRLF = PyUnicode_InternFromString("\r\n");
    EOL_CR = PyUnicode_InternFromString("\r");
    EOL_NONE = PyUnicode_InternFromString("");
    if (!EOL_LF || !EOL_CRLF || !EOL_CR || !EOL_NONE)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    /* Read here, once: the engine itself reads no environment. */
    const char *pure = getenv("WAYMARK_PURE_PYTHON");
    if (PyModule_AddIntConstant(m, "PURE_REQUESTED", pure != NULL && pure[0] != '\0' &&
                                                         strcmp(pure, "0") != 0) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
