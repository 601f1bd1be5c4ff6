/* A page of a file straight from its bytes: the lines split and annotated as spans of the
 * buffer, only the page's lines decoded. What a paged read costs past reading the file is
 * then one pass over its bytes, not a str per line. */
#include "_core_cols.h"

/* Terminator kinds, as bits of the file's set of them. */
enum { LF = 1, CRLF = 2, CR = 4 };

/* Split buf[0, size) on \n, \r\n and \r as text.split_lines does: each line's offset and
 * length, and in *kinds the bits of the terminators met (8: the last line has none); with
 * ``hash`` (else NULL), each line's xxh3_64, taken as the line is split (its bytes are then
 * in the cache: a second pass over a large file's would read them from memory again). The
 * line count, -1 on error. */
Py_ssize_t
wm_split_spans(const char *buf, Py_ssize_t size, Py_ssize_t **off, Py_ssize_t **len, int *kinds,
               uint64_t **hash)
{
    int has_cr = memchr(buf, '\r', (size_t)size) != NULL;
    Py_ssize_t n = 0, at = 0, cap = size / 32 + 16;
    *kinds = 0;
    *off = malloc(sizeof(Py_ssize_t) * (size_t)cap);
    *len = malloc(sizeof(Py_ssize_t) * (size_t)cap);
    if (hash != NULL)
        *hash = malloc(sizeof(uint64_t) * (size_t)cap);
    while (*off != NULL && *len != NULL && (hash == NULL || *hash != NULL) && at < size) {
        if (n == cap) {
            cap *= 2;
            Py_ssize_t *o = realloc(*off, sizeof(Py_ssize_t) * (size_t)cap);
            if (o == NULL)
                break;
            *off = o;
            Py_ssize_t *l = realloc(*len, sizeof(Py_ssize_t) * (size_t)cap);
            if (l == NULL)
                break;
            *len = l;
            uint64_t *h = hash == NULL ? NULL : realloc(*hash, sizeof(uint64_t) * (size_t)cap);
            if (hash != NULL && h == NULL)
                break;
            if (hash != NULL)
                *hash = h;
        }
        Py_ssize_t end = at;
        if (has_cr)
            while (end < size && buf[end] != '\n' && buf[end] != '\r')
                end++;
        else {
            const char *nl = memchr(buf + at, '\n', (size_t)(size - at));
            end = nl == NULL ? size : nl - buf;
        }
        if (hash != NULL)
            (*hash)[n] = XXH3_64bits(buf + at, (size_t)(end - at));
        (*off)[n] = at;
        (*len)[n++] = end - at;
        if (end == size) {
            *kinds |= 8;
            return n;
        }
        int crlf = buf[end] == '\r' && end + 1 < size && buf[end + 1] == '\n';
        *kinds |= crlf ? CRLF : buf[end] == '\n' ? LF : CR;
        at = end + 1 + crlf;
    }
    if (*off == NULL || *len == NULL || (hash != NULL && *hash == NULL) || at < size) {
        PyErr_NoMemory();
        return -1;
    }
    return n;
}

/* utf8_valid(data) -> bool: whether bytes.decode("utf-8") would take data (the well-formed
 * sequences of Unicode's table 3-7: no overlong form, surrogate or code point past
 * U+10FFFF), without making its text. */
PyObject *
wm_utf8_valid(PyObject *self, PyObject *arg)
{
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    const unsigned char *s = view.buf;
    Py_ssize_t n = view.len, i = 0;
    int valid = 1;
    while (valid && i < n) {
        uint64_t word;
        if (i + 8 <= n && (memcpy(&word, s + i, 8), !(word & 0x8080808080808080ULL))) {
            i += 8;
            continue;
        }
        unsigned char b = s[i], lo = 0x80, hi = 0xBF;
        int more = b < 0x80 ? 0 : b < 0xC2 ? -1 : b < 0xE0 ? 1 : b < 0xF0 ? 2 : b < 0xF5 ? 3 : -1;
        lo = b == 0xE0 ? 0xA0 : b == 0xF0 ? 0x90 : lo;
        hi = b == 0xED ? 0x9F : b == 0xF4 ? 0x8F : hi;
        valid = more >= 0 && n - i > more && (more == 0 || (s[i + 1] >= lo && s[i + 1] <= hi));
        for (int k = 2; valid && k <= more; k++)
            valid = (s[i + k] & 0xC0) == 0x80;
        i += more + 1;
    }
    PyBuffer_Release(&view);
    return PyBool_FromLong(valid);
}

/* page_columns(data, skip, start, stop, anchors=True) -> (lines, count, kinds, columns) or
 * None: data[skip:] is valid UTF-8 text; lines [start, stop) of it, how many lines it has,
 * the bits of the terminators it holds (8: its last line has none), and annotate_columns of
 * that page (None without anchors); None where annotate_columns is None. */
PyObject *
wm_page_columns(PyObject *self, PyObject *args)
{
    Py_buffer view;
    Py_ssize_t skip, start, stop, *off = NULL, *len = NULL;
    uint64_t *hash = NULL;
    int kinds, anchors = 1;
    PyObject *columns = NULL, *lines = NULL, *result = NULL;
    if (!PyArg_ParseTuple(args, "y*nnn|p", &view, &skip, &start, &stop, &anchors))
        return NULL;
    skip = skip < 0 ? 0 : skip > view.len ? view.len : skip;
    const char *buf = (const char *)view.buf + skip;
    Py_ssize_t n =
        wm_split_spans(buf, view.len - skip, &off, &len, &kinds, anchors ? &hash : NULL);
    if (n < 0)
        goto done;
    start = start < 0 ? 0 : start > n ? n : start;
    stop = stop < start ? start : stop > n ? n : stop;
    Cols c = {n, NULL, buf, off, len, hash};
    columns = anchors ? wm_columns(&c, start, stop) : Py_NewRef(Py_None);
    if (columns == NULL || (anchors && columns == Py_None)) {
        result = columns;
        columns = NULL;
        goto done;
    }
    lines = PyList_New(stop - start);
    if (lines == NULL)
        goto done;
    for (Py_ssize_t i = start; i < stop; i++) {
        PyObject *line = PyUnicode_DecodeUTF8(buf + off[i], len[i], "strict");
        if (line == NULL)
            goto done;
        PyList_SET_ITEM(lines, i - start, line);
    }
    result = Py_BuildValue("(OniO)", lines, n, kinds, columns);
done:
    Py_XDECREF(columns);
    Py_XDECREF(lines);
    free(off);
    free(len);
    free(hash);
    PyBuffer_Release(&view);
    return result;
}
