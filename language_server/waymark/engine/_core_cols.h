/* A file's lines as the annotation of _core_annotate.c reads them: str objects (a list of
 * lines), or spans of one buffer of valid UTF-8 (_core_page.c: a page decodes only its own
 * lines). Each accessor answers as its str twin in _core.h does for the decoded line. */
#ifndef WAYMARK_CORE_COLS_H
#define WAYMARK_CORE_COLS_H

#include "_core.h"

typedef struct {
    Py_ssize_t n;
    PyObject **lines;       /* NULL: the lines are spans of buf */
    const char *buf;        /* valid UTF-8 */
    const Py_ssize_t *off;  /* where each line starts in buf */
    const Py_ssize_t *len;  /* its length in bytes, without its terminator */
    uint64_t *hash;   /* each line's xxh3_64 */
    uint64_t *by_p6;  /* (6-char prefix << 32 | line), sorted by prefix, lines in file order */
    uint32_t *start;  /* where in by_p6 the line's prefix group starts */
    uint32_t *size;   /* how many lines are in it */
    uint32_t *rank;   /* the line's place in it, from 1 */
    uint32_t *texts;  /* how many lines have the line's text */
} Cols;

PyObject *wm_columns(Cols *c, Py_ssize_t start, Py_ssize_t stop);
/* c's tables (by_p6, texts, …, and the hashes unless c has them) and into out[i] the token
 * of each line of [start, stop) whose 6-char prefix another line shares (a new reference;
 * the others' stay NULL): 0, 1 when two texts have one full hash, -1 on error. The tables
 * stay c's: wm_tables_free (``hashed``: c had its hashes before). */
int wm_tokens(Cols *c, Py_ssize_t start, Py_ssize_t stop, PyObject **out);
void wm_tables_free(Cols *c, int hashed);
/* How many lines of by_p6[s:e) (one prefix group) have each text, into c->texts: 1 when two
 * texts have one full hash, -1 on error; ``pairs`` holds 2 * (e - s). */
int wm_count_texts(Cols *c, Py_ssize_t s, Py_ssize_t e, uint64_t *pairs);
/* The display token of a line of unique text whose 6-char prefix others share; c's by_p6,
 * start, size and rank need only hold its group. */
PyObject *wm_collided_token(const Cols *c, Py_ssize_t i);
/* A repeated line's token: the context prefix when no other repeated line's context and no
 * line's hash has it; ``.N`` in a run of identical contexts; else the ladder. ``group``: the
 * ``size`` repeated lines with its 6-char context prefix ((prefix << 32 | place in ctx), in
 * file order), ``same``: whether all their contexts are equal, ``place``: the line's among
 * them; ``own``: the ``lines`` entries of by_p6 with that prefix as a line's (NULL: none). */
PyObject *wm_repeated_token(const Cols *c, const uint64_t *ctx, const uint64_t *group,
                            Py_ssize_t size, int same, Py_ssize_t place, const uint64_t *own,
                            Py_ssize_t lines, Py_ssize_t line);
/* A file's tables kept to what some lines' tokens need (_core_near.c): how many lines have
 * each text (0 for 1) and the repeated lines with their context hashes, for every line; the
 * prefix groups of the lines asked. */
typedef struct {
    Cols c;                /* the caller's hashes (never freed here) and the tables */
    Py_ssize_t *rep, r;    /* the repeated lines, ascending */
    uint64_t *ctx;         /* their context hashes */
    Py_ssize_t own;        /* the entries of c.by_p6: the asked lines' prefix groups */
} Near;

/* The tables of c's lines (``c`` holding its hashes): 0, 1 when two texts have one full hash,
 * -1 on error; wm_near_close in every case. */
int wm_near_open(Near *t, Cols c);
/* The prefix groups the ascending ``want`` lines' tokens need, in place of any asked before:
 * 0, -1 on error. */
int wm_near_ask(Near *t, const Py_ssize_t *want, Py_ssize_t q);
/* A repeated line's context hash. */
uint64_t wm_near_context(const Near *t, Py_ssize_t i);
/* An asked line's display token (a new reference); NULL when its prefix is its own (no
 * error set) or on error. */
PyObject *wm_near_token(Near *t, Py_ssize_t i);
void wm_near_close(Near *t);
/* annotate_columns of the ascending ``lines`` alone: those whose 6-char prefix another line
 * shares, their display anchors, the low- and medium-quality ones. */
PyObject *wm_near_columns(Near *t, PyObject *lines);

/* A file's lines as span_find (_core_span.c) split and hashed them, kept in a capsule for
 * the columns of the file an edit makes from it (span_columns_near, _core_near.c), which
 * moves them in place. */
typedef struct {
    Py_ssize_t n, size; /* lines, bytes of the text */
    Py_ssize_t *off, *len;
    uint64_t *hash;
} Spans;

#define SPANS "waymark.engine._core.Spans"

/* The spans of the text buf[:size], which is the text of ``sp`` with its lines [w0, w1)
 * replaced, moved in place (_core_respan.c); -1 on error. */
int wm_respan(Spans *sp, const char *buf, Py_ssize_t size, Py_ssize_t w0, Py_ssize_t w1);

int wm_context_of(const Cols *c, const Py_ssize_t *rep, Py_ssize_t r, uint64_t *ctx);
Py_ssize_t wm_split_spans(const char *buf, Py_ssize_t size, Py_ssize_t **off, Py_ssize_t **len,
                          int *kinds, uint64_t **hash);

/* The code point at p[*i] of valid UTF-8, moving *i past it. */
static inline Py_UCS4
next_cp(const unsigned char *p, Py_ssize_t *i)
{
    unsigned char b = p[*i];
    if (b < 0x80) {
        *i += 1;
        return b;
    }
    if (b < 0xE0) {
        *i += 2;
        return (Py_UCS4)(b & 0x1F) << 6 | (p[*i - 1] & 0x3F);
    }
    if (b < 0xF0) {
        *i += 3;
        return (Py_UCS4)(b & 0x0F) << 12 | (Py_UCS4)(p[*i - 2] & 0x3F) << 6 | (p[*i - 1] & 0x3F);
    }
    *i += 4;
    return (Py_UCS4)(b & 0x07) << 18 | (Py_UCS4)(p[*i - 3] & 0x3F) << 12 |
           (Py_UCS4)(p[*i - 2] & 0x3F) << 6 | (p[*i - 1] & 0x3F);
}

static inline int
line_hash(const Cols *c, Py_ssize_t i, uint64_t *out)
{
    if (c->lines != NULL)
        return hash_str(c->lines[i], out);
    *out = XXH3_64bits(c->buf + c->off[i], (size_t)c->len[i]);
    return 0;
}

static inline int
line_update(const Cols *c, XXH3_state_t *state, Py_ssize_t i)
{
    if (c->lines != NULL)
        return hash_update_str(state, c->lines[i]);
    XXH3_64bits_update(state, c->buf + c->off[i], (size_t)c->len[i]);
    return 0;
}

static inline int
line_blank(const Cols *c, Py_ssize_t i)
{
    if (c->lines != NULL)
        return is_blank(c->lines[i]);
    const unsigned char *p = (const unsigned char *)c->buf + c->off[i];
    for (Py_ssize_t k = 0; k < c->len[i];) {
        Py_UCS4 ch = next_cp(p, &k); /* the macro reads its argument twice */
        if (!Py_UNICODE_ISSPACE(ch))
            return 0;
    }
    return 1;
}

static inline int
line_punct(const Cols *c, Py_ssize_t i)
{
    if (c->lines != NULL)
        return is_punct_ws(c->lines[i]);
    const unsigned char *p = (const unsigned char *)c->buf + c->off[i];
    for (Py_ssize_t k = 0; k < c->len[i]; k++) {
        unsigned char ch = p[k];
        int alnum = (ch >= '0' && ch <= '9') || (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z');
        if (!(ch == ' ' || (ch >= '\t' && ch <= '\r') || (ch > ' ' && ch < 0x7f && !alnum)))
            return 0;
    }
    return 1;
}

/* Whether two lines differ (1), are equal (0); -1 on error. */
static inline int
line_differs(const Cols *c, Py_ssize_t a, Py_ssize_t b)
{
    if (c->lines != NULL) {
        int same = PyUnicode_Compare(c->lines[a], c->lines[b]);
        return (same == -1 && PyErr_Occurred()) ? -1 : same != 0;
    }
    return c->len[a] != c->len[b] || memcmp(c->buf + c->off[a], c->buf + c->off[b], (size_t)c->len[a]);
}

/* The count of re's \w+ runs in the line. */
static inline Py_ssize_t
line_words(const Cols *c, Py_ssize_t i)
{
    Py_ssize_t count = 0, k = 0, n;
    int inside = 0, kind = 0;
    const void *data;
    if (c->lines != NULL) {
        kind = PyUnicode_KIND(c->lines[i]);
        data = PyUnicode_DATA(c->lines[i]);
        n = PyUnicode_GET_LENGTH(c->lines[i]);
    }
    else {
        data = c->buf + c->off[i];
        n = c->len[i];
    }
    while (k < n) {
        Py_UCS4 ch = kind ? PyUnicode_READ(kind, data, k++) : next_cp(data, &k);
        int word = Py_UNICODE_ISALNUM(ch) || ch == '_';
        count += word && !inside;
        inside = word;
    }
    return count;
}

/* The nearest non-blank line before i: prev_nonblank of _core.h over either kind of line. */
static inline Py_ssize_t
cols_prev_nonblank(const Cols *c, Py_ssize_t i, Py_ssize_t *last, Py_ssize_t *last_prev)
{
    Py_ssize_t j = i - 1, found;
    while (j > *last && line_blank(c, j))
        j--;
    if (j > *last)
        found = j;
    else if (*last >= 0 && !line_blank(c, *last))
        found = *last;
    else
        found = *last_prev;
    *last = i;
    *last_prev = found;
    return found;
}

#endif
