/* The display anchors and qualities of every line of a file at once, as engine/displays.py
 * and anchors.Annotated decide them, from arrays rather than Python tables: a full read's
 * whole cost past decoding and hashing. The rare lines the ladder decides are left None
 * for LineIndex.display. */
#include "_core_cols.h"


static int
cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

/* Lines of one shared prefix group with the same text: (hash, line) pairs sorted, equal
 * hashes checked to be equal texts. 1 when two different texts have one full hash (the
 * caller then leaves the file to the Python path), -1 on error. */
int
wm_count_texts(Cols *c, Py_ssize_t s, Py_ssize_t e, uint64_t *pairs)
{
    Py_ssize_t m = e - s;
    for (Py_ssize_t k = 0; k < m; k++) {
        uint64_t line = (uint32_t)c->by_p6[s + k];
        pairs[2 * k] = c->hash[line];
        pairs[2 * k + 1] = line;
    }
    int one_hash = 1;
    for (Py_ssize_t k = 1; k < m && one_hash; k++)
        one_hash = pairs[2 * k] == pairs[0];
    /* A group of one text (blank lines, a lone brace) is in line order already. */
    if (!one_hash)
        qsort(pairs, (size_t)m, 2 * sizeof(uint64_t), cmp_u64);
    for (Py_ssize_t a = 0, b; a < m; a = b) {
        for (b = a + 1; b < m && pairs[2 * b] == pairs[2 * a]; b++) {
            int differs = line_differs(c, (Py_ssize_t)pairs[2 * b + 1], (Py_ssize_t)pairs[2 * a + 1]);
            if (differs != 0)
                return differs;
        }
        for (Py_ssize_t k = a; k < b; k++)
            c->texts[pairs[2 * k + 1]] = (uint32_t)(b - a);
    }
    return 0;
}

static PyObject *
hex_token(uint64_t value, int chars, uint32_t rank)
{
    char text[40];
    for (int k = 0; k < chars; k++)
        text[k] = HEX[(value >> (60 - 4 * k)) & 0xf];
    int len = chars;
    if (rank)
        len += snprintf(text + chars, sizeof text - (size_t)chars, ".%u", rank);
    return PyUnicode_FromStringAndSize(text, len);
}

/* A line of unique text sharing its 6-char prefix: 8, then 16 chars when they single it
 * out in its group, else the group's ``.N``. */
PyObject *
wm_collided_token(const Cols *c, Py_ssize_t i)
{
    uint64_t h = c->hash[i];
    Py_ssize_t same8 = 0, same16 = 0;
    for (uint32_t k = 0; k < c->size[i]; k++) {
        uint64_t other = c->hash[(uint32_t)c->by_p6[c->start[i] + k]];
        same8 += (other >> 32) == (h >> 32);
        same16 += other == h;
    }
    if (same8 == 1)
        return hex_token(h, 8, 0);
    if (same16 == 1)
        return hex_token(h, 16, 0);
    return hex_token(h, 6, c->rank[i]);
}

/* The context hashes of the repeated lines (ascending) into ctx. */
int
wm_context_of(const Cols *c, const Py_ssize_t *rep, Py_ssize_t r, uint64_t *ctx)
{
    XXH3_state_t *state = XXH3_createState();
    if (state == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t prev = -1, next = -1, last = -1, last_prev = -1;
    char joined[1024];
    for (Py_ssize_t k = 0; k < r; k++) {
        Py_ssize_t i = rep[k];
#if defined(__GNUC__) || defined(__clang__)
        if (c->lines == NULL && k + 8 < r) {
            /* A large file's repeated lines are far apart: their bytes are fetched ahead,
             * several at once, rather than each waited for in turn. */
            Py_ssize_t ahead = rep[k + 8];
            __builtin_prefetch(c->buf + c->off[ahead]);
            if (ahead > 0)
                __builtin_prefetch(c->buf + c->off[ahead - 1]);
            if (ahead + 1 < c->n)
                __builtin_prefetch(c->buf + c->off[ahead + 1]);
        }
#endif
        prev = cols_prev_nonblank(c, i, &last, &last_prev);
        if (next <= i)
            for (next = i + 1; next < c->n && line_blank(c, next); next++)
                ;
        if (c->lines == NULL) {
            /* Spans: the three lines joined in a buffer hash in one call, the state's
             * updates cost more than short lines' hashing. */
            Py_ssize_t lp = prev >= 0 ? c->len[prev] : 0, ln = next < c->n ? c->len[next] : 0;
            if (lp + c->len[i] + ln + 2 <= (Py_ssize_t)sizeof joined) {
                char *at = joined;
                if (lp)
                    memcpy(at, c->buf + c->off[prev], (size_t)lp);
                at += lp;
                *at++ = '\n';
                memcpy(at, c->buf + c->off[i], (size_t)c->len[i]);
                at += c->len[i];
                *at++ = '\n';
                if (ln)
                    memcpy(at, c->buf + c->off[next], (size_t)ln);
                at += ln;
                ctx[k] = XXH3_64bits(joined, (size_t)(at - joined));
                continue;
            }
        }
        XXH3_64bits_reset(state);
        if (prev >= 0 && line_update(c, state, prev) < 0)
            goto fail;
        XXH3_64bits_update(state, "\n", 1);
        if (line_update(c, state, i) < 0)
            goto fail;
        XXH3_64bits_update(state, "\n", 1);
        if (next < c->n && line_update(c, state, next) < 0)
            goto fail;
        ctx[k] = XXH3_64bits_digest(state);
    }
    XXH3_freeState(state);
    return 0;
fail:
    XXH3_freeState(state);
    return -1;
}

static int
top_equal(uint64_t a, uint64_t b, int chars)
{
    return chars == 16 ? a == b : (a >> (64 - 4 * chars)) == (b >> (64 - 4 * chars));
}

/* The ladder of LineIndex.display for a repeated line whose context prefix is not simply its
 * own: the first of 6, 8, 16 chars of its context hash that no line hash starts with and that
 * only its context does, else the first prefix among whose candidates it is, with its ``.N``.
 * ``group``: the repeated lines' places in ``ctx`` with its 6-char context prefix (file
 * order), ``k`` its own place; ``own``: the ``lines`` entries of by_p6 with that prefix
 * as a line's. */
static PyObject *
ladder(const Cols *c, const uint64_t *ctx, const uint64_t *group, Py_ssize_t size,
       Py_ssize_t k, const uint64_t *own, Py_ssize_t lines, Py_ssize_t line)
{
    static const int CHARS[3] = {6, 8, 16};
    uint64_t full = ctx[k];
    Py_ssize_t in_lines[3] = {0, 0, 0}, in_ctx[3] = {0, 0, 0};
    for (int t = 0; t < 3; t++) {
        for (Py_ssize_t q = 0; q < lines; q++)
            in_lines[t] += top_equal(c->hash[(uint32_t)own[q]], full, CHARS[t]);
        for (Py_ssize_t q = 0; q < size; q++)
            in_ctx[t] += top_equal(ctx[(uint32_t)group[q]], full, CHARS[t]);
    }
    for (int t = 0; t < 3; t++)
        if (in_lines[t] == 0 && in_ctx[t] == 1)
            return hex_token(full, CHARS[t], 0);
    for (int t = 0; t < 3; t++) {
        uint32_t place = 0;
        if (in_lines[t] > 0) {
            for (Py_ssize_t q = 0; q < lines; q++) {
                Py_ssize_t j = (uint32_t)own[q];
                place += top_equal(c->hash[j], full, CHARS[t]);
                if (j == line)
                    return hex_token(full, CHARS[t], place);
            }
            continue;
        }
        for (Py_ssize_t q = 0; q < size; q++) {
            place += top_equal(ctx[(uint32_t)group[q]], full, CHARS[t]);
            if ((Py_ssize_t)(uint32_t)group[q] == k)
                return hex_token(full, CHARS[t], place);
        }
    }
    return Py_NewRef(Py_None); /* never: a line is among its own context's candidates */
}

PyObject *
wm_repeated_token(const Cols *c, const uint64_t *ctx, const uint64_t *group, Py_ssize_t size,
                  int same, Py_ssize_t place, const uint64_t *own, Py_ssize_t lines,
                  Py_ssize_t line)
{
    uint64_t full = ctx[(uint32_t)group[place]];
    if (own == NULL && size == 1)
        return hex_token(full, 6, 0);
    if (own == NULL && same)
        return hex_token(full, 6, (uint32_t)(place + 1));
    return ladder(c, ctx, group, size, (uint32_t)group[place], own, lines, line);
}

/* The tokens of the repeated lines of [start, stop) (wm_repeated_token's). */
static int
repeated_tokens(const Cols *c, const Py_ssize_t *rep, Py_ssize_t r, PyObject **out,
                Py_ssize_t start, Py_ssize_t stop)
{
    uint64_t *ctx = malloc(sizeof(uint64_t) * (size_t)(r ? r : 1));
    uint64_t *by_c6 = malloc(sizeof(uint64_t) * (size_t)(r ? r : 1));
    int result = -1;
    if (ctx == NULL || by_c6 == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (wm_context_of(c, rep, r, ctx) < 0)
        goto done;
    for (Py_ssize_t k = 0; k < r; k++)
        by_c6[k] = (ctx[k] >> 40) << 32 | (uint64_t)k;
    if (wm_sort_pairs(by_c6, r) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    /* Both by_c6 and by_p6 ascend: one walk along by_p6 finds each context prefix among the
     * lines' (a search per prefix would jump about a large file's table). */
    Py_ssize_t p = 0;
    for (Py_ssize_t s = 0, e; s < r; s = e) {
        uint64_t c6 = by_c6[s] >> 32;
        int same = 1;
        for (e = s + 1; e < r && (by_c6[e] >> 32) == c6; e++)
            same &= ctx[(uint32_t)by_c6[e]] == ctx[(uint32_t)by_c6[s]];
        while (p < c->n && (c->by_p6[p] >> 32) < c6)
            p++;
        Py_ssize_t at = p < c->n && (c->by_p6[p] >> 32) == c6 ? p : -1, lines = 0;
        while (at >= 0 && at + lines < c->n && (c->by_p6[at + lines] >> 32) == c6)
            lines++;
        for (Py_ssize_t k = s; k < e; k++) {
            Py_ssize_t j = rep[(uint32_t)by_c6[k]];
            if (j < start || j >= stop)
                continue;
            PyObject *token = wm_repeated_token(c, ctx, by_c6 + s, e - s, same, k - s,
                                                at < 0 ? NULL : c->by_p6 + at, lines, j);
            if (token == NULL)
                goto done;
            out[j] = token;
        }
    }
    result = 0;
done:
    free(ctx);
    free(by_c6);
    return result;
}

void
wm_tables_free(Cols *c, int hashed)
{
    if (!hashed) {
        free(c->hash);
        c->hash = NULL;
    }
    free(c->by_p6);
    free(c->start);
    free(c->size);
    free(c->rank);
    free(c->texts);
    c->by_p6 = NULL;
    c->start = c->size = c->rank = c->texts = NULL;
}

int
wm_tokens(Cols *c, Py_ssize_t start, Py_ssize_t stop, PyObject **out)
{
    Py_ssize_t n = c->n, m = n ? n : 1, r = 0;
    int result = -1, hashed = c->hash != NULL;
    Py_ssize_t *rep = malloc(sizeof(Py_ssize_t) * (size_t)m);
    uint64_t *pairs = malloc(sizeof(uint64_t) * 2 * (size_t)m);
    if (!hashed)
        c->hash = malloc(sizeof(uint64_t) * (size_t)m);
    c->by_p6 = malloc(sizeof(uint64_t) * (size_t)m);
    c->start = malloc(sizeof(uint32_t) * (size_t)m);
    c->size = malloc(sizeof(uint32_t) * (size_t)m);
    c->rank = malloc(sizeof(uint32_t) * (size_t)m);
    c->texts = malloc(sizeof(uint32_t) * (size_t)m);
    if (!rep || !pairs || !c->hash || !c->by_p6 || !c->start || !c->size || !c->rank ||
        !c->texts) {
        PyErr_NoMemory();
        goto done;
    }
    if (n > (Py_ssize_t)UINT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "at most 2**32 lines");
        goto done;
    }
    /* One visit per line object: each is a cache miss in a large file. */
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!hashed && line_hash(c, i, &c->hash[i]) < 0)
            goto done;
        c->by_p6[i] = (c->hash[i] >> 40) << 32 | (uint64_t)i;
        c->texts[i] = 1;
    }
    if (wm_sort_pairs(c->by_p6, n) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t s = 0, e; s < n; s = e) {
        for (e = s + 1; e < n && (c->by_p6[e] >> 32) == (c->by_p6[s] >> 32); e++)
            ;
        /* Only the page's lines are asked their group: the others' places stay unwritten
         * (a large file's pages of them are never touched). */
        for (Py_ssize_t k = s; k < e; k++) {
            Py_ssize_t i = (uint32_t)c->by_p6[k];
            if (i < start || i >= stop)
                continue;
            c->start[i] = (uint32_t)s;
            c->size[i] = (uint32_t)(e - s);
            c->rank[i] = (uint32_t)(k - s + 1);
        }
        if (e - s > 1) {
            int clash = wm_count_texts(c, s, e, pairs);
            if (clash) {
                result = clash;
                goto done;
            }
        }
    }
    for (Py_ssize_t i = 0; i < n; i++)
        if (c->texts[i] > 1)
            rep[r++] = i;
    if (repeated_tokens(c, rep, r, out, start, stop) < 0)
        goto done;
    for (Py_ssize_t i = start; i < stop; i++)
        if (c->size[i] > 1 && c->texts[i] <= 1 && (out[i] = wm_collided_token(c, i)) == NULL)
            goto done;
    result = 0;
done:
    free(rep);
    free(pairs);
    return result;
}
