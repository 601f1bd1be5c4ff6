/* The file an anchored edit makes, from the old file's spans and hashes (span_find's): its
 * bytes spliced, its lines' spans moved; and the bracket balance the edit's safety check
 * asks of the old bytes. */
#include "_core_cols.h"

/* splice(data, a, middle, b) -> data[:a] + middle + data[b:], copied once into the result
 * (a join of three pieces made the slices first). Huge pages were measured for the result
 * and left out: with THP's defrag on "madvise" a fault there may wait on compaction. */
PyObject *
wm_splice(PyObject *self, PyObject *args)
{
    Py_buffer data, middle;
    Py_ssize_t a, b;
    PyObject *result = NULL;
    if (!PyArg_ParseTuple(args, "y*ny*n", &data, &a, &middle, &b))
        return NULL;
    if (a < 0 || b < a || b > data.len) {
        PyErr_SetString(PyExc_IndexError, "the replaced bytes are not the data's");
        goto done;
    }
    Py_ssize_t size = a + middle.len + (data.len - b);
    result = PyBytes_FromStringAndSize(NULL, size);
    if (result == NULL)
        goto done;
    char *out = PyBytes_AS_STRING(result);
    memcpy(out, data.buf, (size_t)a);
    memcpy(out + a, middle.buf, (size_t)middle.len);
    memcpy(out + a + middle.len, (const char *)data.buf + b, (size_t)(data.len - b));
done:
    PyBuffer_Release(&data);
    PyBuffer_Release(&middle);
    return result;
}

/* brackets(data) -> (open, close) per pair of "()", "[]", "{}": how many of each byte data
 * holds (in UTF-8, an ASCII byte is that character and part of no other). Blocks of 8-bit
 * counts, which the compiler vectorizes, summed into wide ones. */
PyObject *
wm_brackets(PyObject *self, PyObject *arg)
{
    static const unsigned char BYTES[6] = {'(', ')', '[', ']', '{', '}'};
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    const unsigned char *s = view.buf;
    Py_ssize_t n = view.len, total[6] = {0, 0, 0, 0, 0, 0};
    for (Py_ssize_t at = 0; at < n; at += 255) {
        Py_ssize_t end = n - at < 255 ? n : at + 255;
        for (int k = 0; k < 6; k++) {
            unsigned char count = 0, want = BYTES[k];
            for (Py_ssize_t i = at; i < end; i++)
                count += s[i] == want;
            total[k] += count;
        }
    }
    PyBuffer_Release(&view);
    return Py_BuildValue("((nn)(nn)(nn))", total[0], total[1], total[2], total[3], total[4],
                         total[5]);
}

int
wm_respan(Spans *sp, const char *buf, Py_ssize_t size, Py_ssize_t w0, Py_ssize_t w1)
{
    Py_ssize_t *mo = NULL, *ml = NULL;
    uint64_t *mh = NULL;
    int kinds, result = -1;
    if (w0 < 0 || w1 < w0 || w1 > sp->n) {
        PyErr_SetString(PyExc_IndexError, "the replaced lines are not the file's");
        return -1;
    }
    Py_ssize_t delta = size - sp->size;
    Py_ssize_t a = w0 < sp->n ? sp->off[w0] : sp->size, b = w1 < sp->n ? sp->off[w1] : sp->size;
    if (b + delta < a) {
        PyErr_SetString(PyExc_ValueError, "the bytes are not the file's with those lines replaced");
        return -1;
    }
    Py_ssize_t k = wm_split_spans(buf + a, b + delta - a, &mo, &ml, &kinds, &mh);
    if (k < 0)
        goto done;
    Py_ssize_t tail = sp->n - w1, n = w0 + k + tail, m = n ? n : 1;
    if (n > sp->n) {
        Py_ssize_t *off = realloc(sp->off, sizeof(Py_ssize_t) * (size_t)m);
        sp->off = off != NULL ? off : sp->off;
        Py_ssize_t *len = realloc(sp->len, sizeof(Py_ssize_t) * (size_t)m);
        sp->len = len != NULL ? len : sp->len;
        uint64_t *hash = realloc(sp->hash, sizeof(uint64_t) * (size_t)m);
        sp->hash = hash != NULL ? hash : sp->hash;
        if (off == NULL || len == NULL || hash == NULL) {
            PyErr_NoMemory();
            goto done;
        }
    }
    if (w0 + k != w1) { /* as many lines as were replaced: the rest stay where they are */
        memmove(sp->off + w0 + k, sp->off + w1, sizeof(Py_ssize_t) * (size_t)tail);
        memmove(sp->len + w0 + k, sp->len + w1, sizeof(Py_ssize_t) * (size_t)tail);
        memmove(sp->hash + w0 + k, sp->hash + w1, sizeof(uint64_t) * (size_t)tail);
    }
    for (Py_ssize_t i = w0 + k; delta != 0 && i < n; i++)
        sp->off[i] += delta;
    for (Py_ssize_t j = 0; j < k; j++) {
        sp->off[w0 + j] = a + mo[j];
        sp->len[w0 + j] = ml[j];
        sp->hash[w0 + j] = mh[j];
    }
    sp->n = n;
    sp->size = size;
    result = 0;
done:
    free(mo);
    free(ml);
    free(mh);
    return result;
}
