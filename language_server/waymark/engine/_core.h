/* Shared by the compiled core's files (see _core.c). */
#ifndef WAYMARK_CORE_H
#define WAYMARK_CORE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

static const char HEX[] = "0123456789abcdef";

/* The UTF-8 (surrogateescape) bytes of a str: its own buffer when ASCII, else a new bytes
 * object left in *owner. An unencodable lone surrogate raises, as str.encode does. */
static inline int
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

static inline int
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

static inline int
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

/* Whether str.strip() leaves nothing of the line (a non-str is not blank: hashing it then
 * raises). */
static inline int
is_blank(PyObject *s)
{
    if (!PyUnicode_Check(s))
        return 0;
    int kind = PyUnicode_KIND(s);
    const void *data = PyUnicode_DATA(s);
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    for (Py_ssize_t i = 0; i < n; i++)
        if (!Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, i)))
            return 0;
    return 1;
}

/* The nearest non-blank line before ``i`` (-1: none), for lines asked in ascending order: the
 * walk back stops at the line asked before (*last), whose answer (*last_prev) holds past it,
 * so each line is looked at about once however long the blank runs, and only the lines near
 * the ones asked (each visit to a line object is a cache miss in a large file). */
static inline Py_ssize_t
prev_nonblank(PyObject **lines, Py_ssize_t i, Py_ssize_t *last, Py_ssize_t *last_prev)
{
    Py_ssize_t j = i - 1, found;
    while (j > *last && is_blank(lines[j]))
        j--;
    if (j > *last)
        found = j;
    else if (*last >= 0 && !is_blank(lines[*last]))
        found = *last;
    else
        found = *last_prev;
    *last = i;
    *last_prev = found;
    return found;
}

/* Context hashes of wanted lines taken in ascending order: xxh3_64 of
 * "prev_nonblank\nline\nnext_nonblank" ("" past a file edge), the walks shared between lines. */
typedef struct {
    PyObject **items;
    Py_ssize_t n, next_nb, last, last_prev;
    XXH3_state_t *state;
} ContextWalk;

static inline void
context_walk_init(ContextWalk *w, PyObject **items, Py_ssize_t n, XXH3_state_t *state)
{
    w->items = items;
    w->n = n;
    w->next_nb = w->last = w->last_prev = -1;
    w->state = state;
}

/* The context hash of the line wanted[k] into *hash (the line into *line); -1 with an
 * exception set when the index is not ascending and in range or a line is not str. */
static inline int
context_hash_at(ContextWalk *w, PyObject *wanted, Py_ssize_t k, Py_ssize_t *line, uint64_t *hash)
{
    Py_ssize_t i = PyLong_AsSsize_t(PyList_GET_ITEM(wanted, k));
    if (i == -1 && PyErr_Occurred())
        return -1;
    if (i < 0 || i >= w->n || i <= w->last) {
        PyErr_SetString(PyExc_ValueError, "wanted lines must be ascending and in range");
        return -1;
    }
    PyObject **items = w->items;
    Py_ssize_t prev_nb = prev_nonblank(items, i, &w->last, &w->last_prev);
    if (w->next_nb <= i)
        for (w->next_nb = i + 1; w->next_nb < w->n && is_blank(items[w->next_nb]); w->next_nb++)
            ;
    XXH3_64bits_reset(w->state);
    if (prev_nb >= 0 && hash_update_str(w->state, items[prev_nb]) < 0)
        return -1;
    XXH3_64bits_update(w->state, "\n", 1);
    if (hash_update_str(w->state, items[i]) < 0)
        return -1;
    XXH3_64bits_update(w->state, "\n", 1);
    if (w->next_nb < w->n && hash_update_str(w->state, items[w->next_nb]) < 0)
        return -1;
    *line = i;
    *hash = XXH3_64bits_digest(w->state);
    return 0;
}

/* Whether the line is only ASCII punctuation and whitespace (or empty). */
static inline int
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

/* A Counter's count of ``key`` (0 when missing, as Counter answers); -1 on error. */
static inline Py_ssize_t
count_of(PyObject *counter, PyObject *key)
{
    PyObject *v = PyDict_GetItemWithError(counter, key);
    if (v == NULL)
        return PyErr_Occurred() ? -1 : 0;
    return PyLong_AsSsize_t(v);
}

/* n (0 or more) in decimal at out, no sign, no padding; the number of digits (snprintf per
 * line would cost more than the line's copy). */
static inline int
decimal(char *out, Py_ssize_t n)
{
    char digits[24];
    int len = 0;
    do {
        digits[len++] = (char)('0' + n % 10);
        n /= 10;
    } while (n > 0);
    for (int k = 0; k < len; k++)
        out[k] = digits[len - 1 - k];
    return len;
}

/* ASCII bytes written into a str being built, of any kind, at *pos (moved past them). */
static inline void
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

static inline PyObject *
hex6(unsigned long key)
{
    /* Written into a new ASCII str: no UTF-8 decode of the digits. */
    PyObject *s = PyUnicode_New(6, 127);
    if (s == NULL)
        return NULL;
    Py_UCS1 *text = PyUnicode_1BYTE_DATA(s);
    for (int k = 0; k < 6; k++)
        text[k] = (Py_UCS1)HEX[(key >> (20 - 4 * k)) & 0xf];
    return s;
}

static inline int
append_index(PyObject *list, Py_ssize_t k)
{
    PyObject *v = PyLong_FromSsize_t(k);
    int bad = v == NULL || PyList_Append(list, v) < 0;
    Py_XDECREF(v);
    return bad ? -1 : 0;
}


int wm_text_init(void);
int wm_sort_pairs(uint64_t *a, Py_ssize_t n);
PyObject *wm_annotate_columns(PyObject *self, PyObject *arg);
PyObject *wm_page_columns(PyObject *self, PyObject *arg);
PyObject *wm_utf8_valid(PyObject *self, PyObject *arg);
PyObject *wm_split_lines(PyObject *self, PyObject *arg);
PyObject *wm_hash_lines(PyObject *self, PyObject *arg);
PyObject *wm_prefixes(PyObject *self, PyObject *arg);
PyObject *wm_low_by_text(PyObject *self, PyObject *arg);
PyObject *wm_context_hashes(PyObject *self, PyObject *arg);
PyObject *wm_render(PyObject *self, PyObject *arg);
PyObject *wm_own_displays(PyObject *self, PyObject *arg);
PyObject *wm_repeated_displays(PyObject *self, PyObject *arg);
PyObject *wm_context_keys_in(PyObject *self, PyObject *arg);
PyObject *wm_span_find(PyObject *self, PyObject *arg);
PyObject *wm_brackets(PyObject *self, PyObject *arg);
PyObject *wm_span_anchors(PyObject *self, PyObject *arg);
PyObject *wm_stretch_edit(PyObject *self, PyObject *args);
PyObject *wm_append_after(PyObject *self, PyObject *args);
PyObject *wm_around_lines(PyObject *self, PyObject *args);
PyObject *wm_replace_lines(PyObject *self, PyObject *args);
PyObject *wm_replace_all(PyObject *self, PyObject *args);
PyObject *wm_replace_in_lines(PyObject *self, PyObject *args);
PyObject *wm_twice_on_a_line(PyObject *self, PyObject *args);
PyObject *wm_splice(PyObject *self, PyObject *args);
PyObject *wm_hex_tokens(PyObject *self, PyObject *arg);
PyObject *wm_json_rows(PyObject *self, PyObject *args);
PyObject *wm_plain_rows(PyObject *self, PyObject *args);

#endif
