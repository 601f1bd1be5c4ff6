/* Shared by the compiled core's sed files (_core_sed.c, _core_sed_lines.c): finding a fixed
 * string a word at a time, and the lines one selects. */
#ifndef WAYMARK_CORE_SED_H
#define WAYMARK_CORE_SED_H

#include "_core.h"

static const uint64_t ONES = 0x0101010101010101ULL;

/* One bit (the top of its byte) for each byte of the 8 at ``at`` equal to the byte
 * repeated in ``pattern``: exact, no borrow between bytes, so both tests and counts hold. */
static inline uint64_t
equal_bits(const char *at, uint64_t pattern)
{
    const uint64_t low7 = 0x7f7f7f7f7f7f7f7fULL;
    uint64_t word;
    memcpy(&word, at, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    /* The first byte in the lowest bits, where counting trailing zeros finds it. */
    word = __builtin_bswap64(word);
#endif
    word ^= pattern;
    return ~(((word & low7) + low7) | word | low7);
}

#define NEWLINES (ONES * '\n')
#define FIRST_OF(bits) (__builtin_ctzll(bits) >> 3)

/* The first occurrence of ``needle`` (``length`` ≥ 1) in [from, stop), or NULL: words
 * whose bytes could start one (its first byte there and its last where it would end) are
 * the candidates. No set-up per call, unlike memmem's, and calls are per occurrence. */
static inline const char *
find(const char *from, const char *stop, const char *needle, Py_ssize_t length)
{
    if (length == 1)
        return memchr(from, needle[0], (size_t)(stop - from));
    uint64_t first = ONES * (unsigned char)needle[0];
    uint64_t last = ONES * (unsigned char)needle[length - 1];
    const char *p = from;
    for (; stop - p >= length - 1 + 8; p += 8) {
        uint64_t bits = equal_bits(p, first) & equal_bits(p + length - 1, last);
        for (; bits != 0; bits &= bits - 1) {
            const char *at = p + FIRST_OF(bits);
            if (memcmp(at + 1, needle + 1, (size_t)length - 2) == 0)
                return at;
        }
    }
    for (; stop - p >= length; p++)
        if (p[0] == needle[0] && memcmp(p, needle, (size_t)length) == 0)
            return p;
    return NULL;
}

/* Offsets in the text after which the written text goes, in order. */
typedef struct {
    Py_ssize_t *at;
    Py_ssize_t size;
    Py_ssize_t capacity;
} Offsets;

static inline int
offsets_add(Offsets *offsets, Py_ssize_t value)
{
    if (offsets->size == offsets->capacity) {
        Py_ssize_t capacity = offsets->capacity ? offsets->capacity * 2 : 1024;
        Py_ssize_t *grown = PyMem_Realloc(offsets->at, sizeof(Py_ssize_t) * capacity);
        if (grown == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        offsets->at = grown;
        offsets->capacity = capacity;
    }
    offsets->at[offsets->size++] = value;
    return 0;
}

/* The start and the end (its newline included: ``size`` for a last line without one) of
 * every selected line; ``starts`` may be NULL. A line is selected when it holds the
 * separator or, ``at_start``, when the separator (a newline, then the literal) ends the line
 * before it or the text starts with the literal. The newline that ends a selected line may
 * then open the next one's separator, so the search goes on from it. */
static inline int
selected_lines(const char *text, Py_ssize_t size, const char *separator, Py_ssize_t length,
               int at_start, Offsets *starts, Offsets *ends)
{
    Py_ssize_t search = 0;
    Py_ssize_t line_from = -1;
    if (at_start && size >= length - 1 && memcmp(text, separator + 1, (size_t)length - 1) == 0) {
        line_from = length - 1;
        if (starts != NULL && offsets_add(starts, 0) < 0)
            return -1;
    }
    for (;;) {
        if (line_from >= 0) {
            const char *newline = memchr(text + line_from, '\n', (size_t)(size - line_from));
            if (newline == NULL)
                return offsets_add(ends, size);
            Py_ssize_t end = newline - text + 1;
            if (offsets_add(ends, end) < 0)
                return -1;
            search = at_start ? end - 1 : end;
        }
        const char *hit = find(text + search, text + size, separator, length);
        if (hit == NULL)
            return 0;
        line_from = hit - text + length;
        if (starts == NULL)
            continue;
        /* Unanchored, the line starts after the search's start: that is a line start. */
        const char *before = at_start ? hit : memrchr(text + search, '\n', hit - (text + search));
        Py_ssize_t start = before == NULL ? search : before - text + 1;
        if (offsets_add(starts, start) < 0)
            return -1;
    }
}

#endif
