/* The columns a read or a page shows, as lists (wm_tokens decides the tokens): which lines
 * share their 6-char prefix and their display anchors, and which are of low or medium
 * quality. */
#include "_core_cols.h"

/* annotate_columns(lines, start=0, stop=len) -> (special, tokens, low, medium) or None: of
 * lines [start, stop), those whose 6-char prefix another line shares (ascending) and their
 * display anchors (None where the ladder decides), the low- and medium-quality ones; the
 * whole file decides them. None: two texts with one full hash. */
PyObject *
wm_annotate_columns(PyObject *self, PyObject *args)
{
    PyObject *lines_arg, *seq, *result;
    Py_ssize_t start = 0, stop = PY_SSIZE_T_MAX;
    if (!PyArg_ParseTuple(args, "O|nn", &lines_arg, &start, &stop))
        return NULL;
    seq = PySequence_Fast(lines_arg, "lines must be a sequence");
    if (seq == NULL)
        return NULL;
    Cols c = {PySequence_Fast_GET_SIZE(seq), PySequence_Fast_ITEMS(seq)};
    result = wm_columns(&c, start, stop);
    Py_DECREF(seq);
    return result;
}

/* annotate_columns over c's lines (their columns are filled here). */
PyObject *
wm_columns(Cols *c, Py_ssize_t start, Py_ssize_t stop)
{
    PyObject *result = NULL;
    PyObject *special = NULL, *tokens = NULL, *low = NULL, *medium = NULL;
    Py_ssize_t n = c->n, m = n ? n : 1, shared = 0;
    start = start < 0 ? 0 : start > n ? n : start;
    stop = stop < start ? start : stop > n ? n : stop;
    PyObject **out = calloc((size_t)m, sizeof(PyObject *));
    /* Hashes the caller made already (an edit's new file, from the old file's) are its own. */
    int hashed = c->hash != NULL, got = -1;
    if (out == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    got = wm_tokens(c, start, stop, out);
    if (got != 0) {
        result = got < 0 ? NULL : Py_NewRef(Py_None);
        goto done;
    }
    for (Py_ssize_t i = start; i < stop; i++)
        shared += out[i] != NULL;
    special = PyList_New(shared);
    tokens = PyList_New(shared);
    low = PyList_New(0);
    medium = PyList_New(0);
    if (!special || !tokens || !low || !medium)
        goto done;
    /* Only the page's qualities are asked, so only its lines are scanned for punctuation. */
    for (Py_ssize_t i = start, k = 0; i < stop; i++) {
        if (line_punct(c, i) || (c->texts[i] > 1 && line_words(c, i) <= 2)) {
            if (append_index(low, i) < 0)
                goto done;
        }
        else if (c->texts[i] > 1 && append_index(medium, i) < 0)
            goto done;
        if (out[i] == NULL)
            continue;
        PyObject *at = PyLong_FromSsize_t(i);
        if (at == NULL)
            goto done;
        PyList_SET_ITEM(special, k, at);
        PyList_SET_ITEM(tokens, k, out[i]); /* stolen */
        out[i] = NULL;
        k++;
    }
    result = Py_BuildValue("(OOOO)", special, tokens, low, medium);
done:
    if (out != NULL) /* only the page's tokens are made: the rest stays untouched zeros */
        for (Py_ssize_t i = start; i < stop; i++)
            Py_XDECREF(out[i]);
    Py_XDECREF(special);
    Py_XDECREF(tokens);
    Py_XDECREF(low);
    Py_XDECREF(medium);
    free(out);
    wm_tables_free(c, hashed);
    return result;
}
