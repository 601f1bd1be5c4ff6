/* The columns of the few lines an edit's result shows (its diff's rows), as wm_columns gives
 * them, without its tables of every line: a line's token depends on the rest of the file
 * only through the lines sharing its 6-char prefix, how many lines have its text, and (a
 * repeated line) the repeated lines sharing its context prefix. Those are found by passes
 * over the hashes and a sort of the few lines a filter says may be repeated, rather than a
 * sort of every line: in a fresh process each table of a large file is also its pages'
 * first touch. */
#include "_core_cols.h"

/* Bits of the filter of possibly repeated lines: a unique line passes it when another line's
 * hash has the same low bits (about lines / 2**bits of them). Sized to the file, 16 bits a
 * line up to 2**22: two maps of 2**22 bits each (1 MiB, zeroed at every call) were ~0.7 ms
 * of the ~0.75 ms a 1,000-line file's edit planned from its bytes took. */
#define FILTER_MIN_BITS 10
#define FILTER_MAX_BITS 22

static int
cmp_key(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

/* Where in the ascending a[0:n] the first entry whose top 32 bits are >= key is. */
static Py_ssize_t
lower_bound(const uint64_t *a, Py_ssize_t n, uint64_t key)
{
    Py_ssize_t lo = 0, hi = n;
    while (lo < hi) {
        Py_ssize_t mid = lo + (hi - lo) / 2;
        if ((a[mid] >> 32) < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Line i's place in the ascending rep[0:r]. */
static Py_ssize_t
place_of(const Py_ssize_t *rep, Py_ssize_t r, Py_ssize_t i)
{
    Py_ssize_t lo = 0, hi = r;
    while (lo < hi) {
        Py_ssize_t mid = lo + (hi - lo) / 2;
        if (rep[mid] < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The (prefix << 32 | line) entries of the lines whose hash's low bits another line's has
 * (every repeated line among them), in line order; their count, -1 when out of memory. */
static Py_ssize_t
maybe_repeated(const Cols *c, uint64_t **out)
{
    int bits = FILTER_MIN_BITS;
    while (bits < FILTER_MAX_BITS && ((Py_ssize_t)1 << bits) < 16 * c->n)
        bits++;
    const uint64_t mask = (1ULL << bits) - 1;
    uint64_t *once = calloc((size_t)1 << (bits - 6), sizeof(uint64_t));
    uint64_t *twice = calloc((size_t)1 << (bits - 6), sizeof(uint64_t));
    Py_ssize_t count = 0, cap = 1024;
    *out = malloc(sizeof(uint64_t) * (size_t)cap);
    if (once == NULL || twice == NULL || *out == NULL)
        goto fail;
    for (Py_ssize_t i = 0; i < c->n; i++) {
        uint64_t b = c->hash[i] & mask, bit = 1ULL << (b & 63);
        if (once[b >> 6] & bit)
            twice[b >> 6] |= bit;
        once[b >> 6] |= bit;
    }
    for (Py_ssize_t i = 0; i < c->n; i++) {
        uint64_t b = c->hash[i] & mask;
        if (!(twice[b >> 6] >> (b & 63) & 1))
            continue;
        if (count == cap) {
            cap *= 2;
            uint64_t *more = realloc(*out, sizeof(uint64_t) * (size_t)cap);
            if (more == NULL)
                goto fail;
            *out = more;
        }
        (*out)[count++] = (c->hash[i] >> 40) << 32 | (uint64_t)i;
    }
    free(once);
    free(twice);
    return count;
fail:
    free(once);
    free(twice);
    free(*out);
    *out = NULL;
    return -1;
}

/* c->texts of the lines that may be repeated (0 for the others: their text is their own),
 * and the repeated ones, ascending, into rep (their count in *r). 0, 1 when two texts have
 * one full hash, -1 on error. */
static int
repeated(Cols *c, Py_ssize_t *rep, Py_ssize_t *r)
{
    uint64_t *may = NULL, *sorted = NULL, *pairs = NULL;
    Py_ssize_t m = maybe_repeated(c, &may);
    int result = -1;
    if (m < 0) {
        PyErr_NoMemory();
        return -1;
    }
    sorted = malloc(sizeof(uint64_t) * (size_t)(m ? m : 1));
    pairs = malloc(sizeof(uint64_t) * 2 * (size_t)(m ? m : 1));
    if (sorted == NULL || pairs == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    memcpy(sorted, may, sizeof(uint64_t) * (size_t)m);
    if (wm_sort_pairs(sorted, m) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    c->by_p6 = sorted;
    for (Py_ssize_t s = 0, e; s < m; s = e) {
        for (e = s + 1; e < m && (sorted[e] >> 32) == (sorted[s] >> 32); e++)
            ;
        int clash = e - s > 1 ? wm_count_texts(c, s, e, pairs) : 0;
        if (clash) {
            result = clash;
            goto done;
        }
    }
    *r = 0;
    for (Py_ssize_t k = 0; k < m; k++) {
        Py_ssize_t i = (uint32_t)may[k];
        if (c->texts[i] > 1)
            rep[(*r)++] = i;
    }
    result = 0;
done:
    c->by_p6 = NULL;
    free(may);
    free(sorted);
    free(pairs);
    return result;
}

/* The (prefix << 32 | line) entries of every line whose 6-char prefix is one of the sorted,
 * distinct ``keys`` (each prefix << 32), sorted as by_p6 is; their count in *got. */
static uint64_t *
lines_with_prefixes(const Cols *c, const uint64_t *keys, Py_ssize_t nkeys, Py_ssize_t *got)
{
    /* A bit per low 16 bits of a key: most lines are passed over on one test. */
    uint64_t bits[1024] = {0};
    for (Py_ssize_t k = 0; k < nkeys; k++)
        bits[(keys[k] >> 32 & 0xffff) >> 6] |= 1ULL << (keys[k] >> 32 & 63);
    Py_ssize_t size = 0, cap = 64;
    uint64_t *out = malloc(sizeof(uint64_t) * (size_t)cap);
    if (out == NULL)
        return NULL;
    for (Py_ssize_t j = 0; j < c->n; j++) {
        uint64_t p = c->hash[j] >> 40;
        if (!(bits[(p & 0xffff) >> 6] >> (p & 63) & 1))
            continue;
        Py_ssize_t at = lower_bound(keys, nkeys, p);
        if (at == nkeys || keys[at] != p << 32)
            continue;
        if (size == cap) {
            cap *= 2;
            uint64_t *more = realloc(out, sizeof(uint64_t) * (size_t)cap);
            if (more == NULL) {
                free(out);
                return NULL;
            }
            out = more;
        }
        out[size++] = p << 32 | (uint64_t)j;
    }
    if (wm_sort_pairs(out, size) < 0) {
        free(out);
        return NULL;
    }
    *got = size;
    return out;
}

int
wm_near_open(Near *t, Cols c)
{
    Py_ssize_t m = c.n ? c.n : 1;
    *t = (Near){c, NULL, 0, NULL, 0};
    t->rep = malloc(sizeof(Py_ssize_t) * (size_t)m);
    t->c.texts = calloc((size_t)m, sizeof(uint32_t));
    /* Only the asked lines' places are written: the rest of these pages stay untouched. */
    t->c.start = malloc(sizeof(uint32_t) * (size_t)m);
    t->c.size = malloc(sizeof(uint32_t) * (size_t)m);
    t->c.rank = malloc(sizeof(uint32_t) * (size_t)m);
    if (!t->rep || !t->c.texts || !t->c.start || !t->c.size || !t->c.rank) {
        PyErr_NoMemory();
        return -1;
    }
    if (c.n > (Py_ssize_t)UINT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "at most 2**32 lines");
        return -1;
    }
    int got = repeated(&t->c, t->rep, &t->r);
    if (got != 0)
        return got;
    t->ctx = malloc(sizeof(uint64_t) * (size_t)(t->r ? t->r : 1));
    if (t->ctx == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    return wm_context_of(&t->c, t->rep, t->r, t->ctx);
}

uint64_t
wm_near_context(const Near *t, Py_ssize_t i)
{
    return t->ctx[place_of(t->rep, t->r, i)];
}

int
wm_near_ask(Near *t, const Py_ssize_t *want, Py_ssize_t q)
{
    Cols *c = &t->c;
    Py_ssize_t nkeys = 0;
    uint64_t *keys = malloc(sizeof(uint64_t) * (size_t)(2 * q + 1));
    if (keys == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t k = 0; k < q; k++) {
        keys[nkeys++] = (c->hash[want[k]] >> 40) << 32;
        if (c->texts[want[k]] > 1)
            keys[nkeys++] = (wm_near_context(t, want[k]) >> 40) << 32;
    }
    qsort(keys, (size_t)nkeys, sizeof(uint64_t), cmp_key);
    Py_ssize_t distinct = 0;
    for (Py_ssize_t k = 0; k < nkeys; k++)
        if (distinct == 0 || keys[distinct - 1] != keys[k])
            keys[distinct++] = keys[k];
    free(c->by_p6);
    c->by_p6 = lines_with_prefixes(c, keys, distinct, &t->own);
    free(keys);
    if (c->by_p6 == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t k = 0; k < q; k++) {
        Py_ssize_t i = want[k], s = lower_bound(c->by_p6, t->own, c->hash[i] >> 40), e = s;
        while (e < t->own && (c->by_p6[e] >> 32) == (c->hash[i] >> 40))
            e++;
        c->start[i] = (uint32_t)s;
        c->size[i] = (uint32_t)(e - s);
        for (Py_ssize_t p = s; p < e; p++)
            if ((Py_ssize_t)(uint32_t)c->by_p6[p] == i)
                c->rank[i] = (uint32_t)(p - s + 1);
    }
    return 0;
}

PyObject *
wm_near_token(Near *t, Py_ssize_t i)
{
    Cols *c = &t->c;
    if (c->size[i] == 1)
        return NULL;
    if (c->texts[i] <= 1)
        return wm_collided_token(c, i);
    Py_ssize_t k = place_of(t->rep, t->r, i), size = 0, pos = 0;
    uint64_t c6 = t->ctx[k] >> 40;
    int same = 1;
    uint64_t *group = malloc(sizeof(uint64_t) * (size_t)(t->r ? t->r : 1));
    if (group == NULL)
        return PyErr_NoMemory();
    for (Py_ssize_t q = 0; q < t->r; q++) {
        if ((t->ctx[q] >> 40) != c6)
            continue;
        same &= t->ctx[q] == t->ctx[k];
        pos = q == k ? size : pos;
        group[size++] = c6 << 32 | (uint64_t)q;
    }
    Py_ssize_t at = lower_bound(c->by_p6, t->own, c6), lines = 0;
    while (at + lines < t->own && (c->by_p6[at + lines] >> 32) == c6)
        lines++;
    PyObject *token = wm_repeated_token(c, t->ctx, group, size, same, pos,
                                        lines ? c->by_p6 + at : NULL, lines, i);
    free(group);
    return token;
}

void
wm_near_close(Near *t)
{
    free(t->rep);
    free(t->ctx);
    t->rep = NULL;
    t->ctx = NULL;
    wm_tables_free(&t->c, 1);
}

/* The ascending ``want`` lines' columns into the four lists: 0, -1 on error. */
static int
columns_of(Near *t, const Py_ssize_t *want, Py_ssize_t q, PyObject *special, PyObject *tokens,
           PyObject *low, PyObject *medium)
{
    if (wm_near_ask(t, want, q) < 0)
        return -1;
    for (Py_ssize_t k = 0; k < q; k++) {
        Py_ssize_t i = want[k];
        int again = t->c.texts[i] > 1;
        if (line_punct(&t->c, i) || (again && line_words(&t->c, i) <= 2)) {
            if (append_index(low, i) < 0)
                return -1;
        }
        else if (again && append_index(medium, i) < 0)
            return -1;
        PyObject *token = wm_near_token(t, i);
        if (token == NULL && PyErr_Occurred())
            return -1;
        if (token == NULL)
            continue;
        int bad = append_index(special, i) < 0 || PyList_Append(tokens, token) < 0;
        Py_DECREF(token);
        if (bad)
            return -1;
    }
    return 0;
}

PyObject *
wm_near_columns(Near *t, PyObject *lines_arg)
{
    PyObject *lines, *result = NULL, *special = NULL, *tokens = NULL, *low = NULL, *medium = NULL;
    Py_ssize_t *want = NULL;
    lines = PySequence_Fast(lines_arg, "lines must be a sequence of ints");
    if (lines == NULL)
        return NULL;
    Py_ssize_t q = PySequence_Fast_GET_SIZE(lines);
    want = malloc(sizeof(Py_ssize_t) * (size_t)(q ? q : 1));
    if (want == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t k = 0; k < q; k++) {
        want[k] = PyLong_AsSsize_t(PySequence_Fast_GET_ITEM(lines, k));
        if (want[k] == -1 && PyErr_Occurred())
            goto done;
        if (want[k] < 0 || want[k] >= t->c.n || (k && want[k] <= want[k - 1])) {
            PyErr_SetString(PyExc_ValueError, "the lines ascend, each one of the file's");
            goto done;
        }
    }
    special = PyList_New(0);
    tokens = PyList_New(0);
    low = PyList_New(0);
    medium = PyList_New(0);
    if (special && tokens && low && medium &&
        columns_of(t, want, q, special, tokens, low, medium) == 0)
        result = Py_BuildValue("(OOOO)", special, tokens, low, medium);
done:
    Py_DECREF(lines);
    Py_XDECREF(special);
    Py_XDECREF(tokens);
    Py_XDECREF(low);
    Py_XDECREF(medium);
    free(want);
    return result;
}
