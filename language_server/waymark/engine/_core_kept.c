/* Which lines above an edit keep their displayed anchor, with the tokens made only for the
 * lines whose token the edit can change. A line's token depends on the rest of the file only
 * through (a) the lines sharing its 6-char prefix, (b) whether its text repeats, and for a
 * repeated line (c) its context and (d) the repeated lines sharing its context prefix and
 * the lines whose hash starts so. The edit replaces the lines of its window: (a) changes
 * only for prefixes of the window's old or new lines (a line repeated in both files has no
 * use for its own group); (b), (c) and the membership of (d) only for the repeated lines the
 * two files do not share with one context, found by walking both files' repeated lines
 * together; (d) then only for their context prefixes and the window's. */
#include "_core_cols.h"

static int
cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

/* A growing array of 64-bit values. */
typedef struct {
    uint64_t *v;
    Py_ssize_t n, cap;
} Values;

static int
push(Values *a, uint64_t value)
{
    if (a->n == a->cap) {
        Py_ssize_t cap = a->cap ? 2 * a->cap : 64;
        uint64_t *more = realloc(a->v, sizeof(uint64_t) * (size_t)cap);
        if (more == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        a->v = more;
        a->cap = cap;
    }
    a->v[a->n++] = value;
    return 0;
}

/* a sorted, its duplicates dropped. */
static void
settle(Values *a)
{
    qsort(a->v, (size_t)a->n, sizeof(uint64_t), cmp_u64);
    Py_ssize_t kept = 0;
    for (Py_ssize_t k = 0; k < a->n; k++)
        if (kept == 0 || a->v[kept - 1] != a->v[k])
            a->v[kept++] = a->v[k];
    a->n = kept;
}

static int
holds(const Values *a, uint64_t value)
{
    Py_ssize_t lo = 0, hi = a->n;
    while (lo < hi) {
        Py_ssize_t mid = lo + (hi - lo) / 2;
        if (a->v[mid] < value)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < a->n && a->v[lo] == value;
}

/* The repeated lines the two files do not share with one context: their context prefixes
 * into ``prefixes``, and those above ``first`` into ``lines``. Old line q is new line q
 * above the window [w0, w1) (new: [w0, w0 + k)), q + k - (w1 - w0) below it. */
static int
walk(const Near *o, const Near *nw, Py_ssize_t w0, Py_ssize_t w1, Py_ssize_t k,
     Py_ssize_t first, Values *prefixes, Values *lines)
{
    Py_ssize_t a = 0, b = 0, delta = k - (w1 - w0);
    while (a < o->r || b < nw->r) {
        Py_ssize_t qo = a < o->r ? o->rep[a] : PY_SSIZE_T_MAX;
        Py_ssize_t qn = b < nw->r ? nw->rep[b] : PY_SSIZE_T_MAX;
        int in_old = qo >= w0 && qo < w1, in_new = qn >= w0 && qn < w0 + k;
        Py_ssize_t mapped = qo == PY_SSIZE_T_MAX || qo < w0 ? qo : in_old ? -1 : qo + delta;
        int old_only = a < o->r && (in_old || mapped < qn);
        int new_only = b < nw->r && !old_only && (in_new || qn < mapped);
        int moved = !old_only && !new_only && o->ctx[a] != nw->ctx[b];
        if ((old_only || moved) && push(prefixes, o->ctx[a] >> 40) < 0)
            return -1;
        if ((new_only || moved) && push(prefixes, nw->ctx[b] >> 40) < 0)
            return -1;
        Py_ssize_t line = old_only ? qo : qn;
        if ((old_only || new_only || moved) && line < first && push(lines, (uint64_t)line) < 0)
            return -1;
        a += !new_only;
        b += !old_only;
    }
    return 0;
}

/* The lines above ``first`` whose token may differ, ascending, into ``lines``. */
static int
candidates(const Near *o, const Near *nw, Py_ssize_t w0, Py_ssize_t w1, Py_ssize_t k,
           Py_ssize_t first, Values *lines)
{
    Values p6 = {0}, c6 = {0};
    int result = -1;
    for (Py_ssize_t i = w0; i < w1; i++)
        if (push(&p6, o->c.hash[i] >> 40) < 0)
            goto done;
    for (Py_ssize_t i = w0; i < w0 + k; i++)
        if (push(&p6, nw->c.hash[i] >> 40) < 0)
            goto done;
    if (walk(o, nw, w0, w1, k, first, &c6, lines) < 0)
        goto done;
    for (Py_ssize_t k6 = 0; k6 < p6.n; k6++)
        if (push(&c6, p6.v[k6]) < 0)
            goto done;
    settle(&p6);
    settle(&c6);
    for (Py_ssize_t i = 0; i < first; i++) {
        int alone = o->c.texts[i] <= 1 || nw->c.texts[i] <= 1;
        if (alone && holds(&p6, nw->c.hash[i] >> 40) && push(lines, (uint64_t)i) < 0)
            goto done;
    }
    for (int side = 0; side < 2; side++) {
        const Near *t = side ? nw : o;
        for (Py_ssize_t q = 0; q < t->r && t->rep[q] < first; q++)
            if (holds(&c6, t->ctx[q] >> 40) && push(lines, (uint64_t)t->rep[q]) < 0)
                goto done;
    }
    settle(lines);
    result = 0;
done:
    free(p6.v);
    free(c6.v);
    return result;
}

/* Whether line i shows another anchor: ``was`` and ``now`` its tokens (NULL: its own 6-char
 * prefix, ``hash``'s), -1 on error. */
static int
shown_differs(uint64_t hash, PyObject *was, PyObject *now)
{
    PyObject *own = NULL;
    if (was == NULL || now == NULL) {
        char text[6];
        for (int k = 0; k < 6; k++)
            text[k] = HEX[(hash >> (60 - 4 * k)) & 0xf];
        own = PyUnicode_FromStringAndSize(text, 6);
        if (own == NULL)
            return -1;
    }
    int same = PyUnicode_Compare(was ? was : own, now ? now : own);
    Py_XDECREF(own);
    return same == -1 && PyErr_Occurred() ? -1 : same != 0;
}

/* The first of the ascending ``want`` lines whose token differs in the two files, else
 * ``first``; -2 when the ladder decides one, -1 on error. */
static Py_ssize_t
moved_among(Near *o, Near *nw, const Py_ssize_t *want, Py_ssize_t q, Py_ssize_t first)
{
    if (wm_near_ask(o, want, q) < 0 || wm_near_ask(nw, want, q) < 0)
        return -1;
    for (Py_ssize_t k = 0; k < q; k++) {
        Py_ssize_t i = want[k];
        PyObject *was = wm_near_token(o, i);
        if (was == NULL && PyErr_Occurred())
            return -1;
        PyObject *now = wm_near_token(nw, i);
        if (now == NULL && PyErr_Occurred()) {
            Py_XDECREF(was);
            return -1;
        }
        int differs = was == Py_None || now == Py_None ? -2
                                                       : shown_differs(nw->c.hash[i], was, now);
        Py_XDECREF(was);
        Py_XDECREF(now);
        if (differs != 0)
            return differs < 0 ? differs : i;
    }
    return first;
}

/* The first of ``lines`` whose token differs in the two files, else ``first``; -2 when the
 * ladder decides one, -1 on error. */
static Py_ssize_t
first_moved(Near *o, Near *nw, const Values *lines, Py_ssize_t first)
{
    if (lines->n == 0)
        return first;
    Py_ssize_t *want = malloc(sizeof(Py_ssize_t) * (size_t)lines->n), valid = -1;
    if (want == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t k = 0; k < lines->n; k++)
        want[k] = (Py_ssize_t)lines->v[k];
    valid = moved_among(o, nw, want, lines->n, first);
    free(want);
    return valid;
}

/* span_anchors(spans, old, new, skip, w0, w1, first, lines) -> (valid, columns) or None: the
 * anchors an edit reports when the text old[skip:] of ``spans`` (span_find's) becomes
 * new[skip:], its lines [w0, w1) replaced and none above ``first`` changed: how many leading
 * lines keep their displayed anchor (the first line above ``first`` whose token differs,
 * else ``first``), and annotate_columns of the new file's ascending ``lines`` alone. Only
 * the window's lines are split and hashed again (``spans`` then holds the new file's). None:
 * the ladder decides a token above the edit, or two texts have one full hash. */
PyObject *
wm_span_anchors(PyObject *self, PyObject *args)
{
    Py_buffer old, new;
    PyObject *capsule, *lines_arg, *result = NULL;
    Py_ssize_t skip, w0, w1, first, valid = 0;
    Near o = {{0}}, nw = {{0}};
    Values lines = {0};
    uint64_t *hash = NULL;
    if (!PyArg_ParseTuple(args, "Oy*y*nnnnO", &capsule, &old, &new, &skip, &w0, &w1, &first,
                          &lines_arg))
        return NULL;
    Spans *sp = PyCapsule_GetPointer(capsule, SPANS);
    if (sp == NULL)
        goto done;
    if (w0 < 0 || first < w0 || first > w1 || w1 > sp->n || skip < 0 || skip > old.len ||
        skip > new.len) {
        PyErr_SetString(PyExc_IndexError, "the lines above the edit are not the file's");
        goto done;
    }
    Py_ssize_t n = sp->n;
    int got = 0;
    if (first) {
        /* The old file's hashes outlive its spans, which become the new file's. */
        hash = malloc(sizeof(uint64_t) * (size_t)(n ? n : 1));
        if (hash == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        memcpy(hash, sp->hash, sizeof(uint64_t) * (size_t)n);
        got = wm_near_open(&o, (Cols){n, NULL, (const char *)old.buf + skip, sp->off, sp->len,
                                      hash});
    }
    if (got == 0 && wm_respan(sp, (const char *)new.buf + skip, new.len - skip, w0, w1) < 0)
        goto done;
    if (got == 0)
        got = wm_near_open(&nw, (Cols){sp->n, NULL, (const char *)new.buf + skip, sp->off,
                                       sp->len, sp->hash});
    if (got != 0) {
        result = got < 0 ? NULL : Py_NewRef(Py_None);
        goto done;
    }
    if (first) {
        if (candidates(&o, &nw, w0, w1, sp->n - (n - (w1 - w0)), first, &lines) < 0)
            goto done;
        valid = first_moved(&o, &nw, &lines, first);
        if (valid == -2)
            result = Py_NewRef(Py_None);
        if (valid < 0)
            goto done;
    }
    PyObject *columns = wm_near_columns(&nw, lines_arg);
    if (columns != NULL)
        result = Py_BuildValue("(nN)", valid, columns);
done:
    wm_near_close(&o);
    wm_near_close(&nw);
    free(lines.v);
    free(hash);
    PyBuffer_Release(&old);
    PyBuffer_Release(&new);
    return result;
}
