/* The compiled core of line anchors: the whole-file loops of engine/text.py and
 * engine/line_index.py, one pass in C each, without a Python object per step:
 * _core_text.c, _core_index.c, _core_annotate.c, _core_columns.c, _core_render.c, _core_page.c,
 * _core_edit.c, _core_span.c, _core_respan.c, _core_near.c, _core_kept.c, _core_rows.c,
 * _core_plain.c; and
 * sed's, _core_sed.c and _core_sed_lines.c; helpers in _core.h (and _core_cols.h: the lines
 * annotation reads).
 *
 * Pure computation, no I/O. Every function returns exactly what its pure-Python twin in
 * waymark.engine returns (tests/unit/test_core_differential.py); engine/core.py decides
 * which runs. XXH3 comes from xxhash.h, inlined, so the module needs no shared library.
 */
#include "_core.h"

static PyMethodDef methods[] = {
    {"annotate_columns", wm_annotate_columns, METH_VARARGS, "Every line's display anchor."},
    {"utf8_valid", wm_utf8_valid, METH_O, "Whether bytes are valid UTF-8."},
    {"page_columns", wm_page_columns, METH_VARARGS, "A page of text bytes, annotated."},
    {"split_lines", wm_split_lines, METH_O, "Split on \\n, \\r\\n and \\r: (lines, eols)."},
    {"hash_lines", wm_hash_lines, METH_O, "xxh3_64 of each line's UTF-8 bytes."},
    {"prefixes", wm_prefixes, METH_VARARGS, "Prefixes, their counts, the lines sharing one."},
    {"low_by_text", wm_low_by_text, METH_O, "Lines only of ASCII punctuation and whitespace."},
    {"context_hashes", wm_context_hashes, METH_VARARGS, "Context hashes of the wanted lines."},
    {"render", wm_render, METH_VARARGS, "The model text of anchored lines."},
    {"own_displays", wm_own_displays, METH_VARARGS, "Own prefixes, and where they are not."},
    {"repeated_displays", wm_repeated_displays, METH_VARARGS, "Context prefixes of repeats."},
    {"context_keys_in", wm_context_keys_in, METH_VARARGS, "Lines whose context prefix is asked."},
    {"span_find", wm_span_find, METH_VARARGS, "Lines of text bytes whose hash starts so."},
    {"brackets", wm_brackets, METH_O, "How many of each bracket bytes hold."},
    {"span_anchors", wm_span_anchors, METH_VARARGS, "The anchors an edit reports."},
    {"stretch_edit", wm_stretch_edit, METH_VARARGS, "One replace of lines, planned at once."},
    {"append_after", wm_append_after, METH_VARARGS, "sed's a after fixed-string lines."},
    {"around_lines", wm_around_lines, METH_VARARGS, "Text before and after every line."},
    {"replace_lines", wm_replace_lines, METH_VARARGS, "sed's c and d on fixed-string lines."},
    {"replace_all", wm_replace_all, METH_VARARGS, "Every occurrence of a string replaced."},
    {"replace_in_lines", wm_replace_in_lines, METH_VARARGS, "Fixed s on fixed-string lines."},
    {"twice_on_a_line", wm_twice_on_a_line, METH_VARARGS, "A line with a literal twice."},
    {"splice", wm_splice, METH_VARARGS, "Bytes with a stretch replaced."},
    {"hex_tokens", wm_hex_tokens, METH_O, "Prefixes as 6 hex digits."},
    {"json_rows", wm_json_rows, METH_VARARGS, "A read's line dicts."},
    {"plain_rows", wm_plain_rows, METH_VARARGS, "A read's line dicts and text, no anchors."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "waymark.engine._core", NULL, -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC
PyInit__core(void)
{
    if (wm_text_init() < 0)
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

