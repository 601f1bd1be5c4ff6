/* The compiled core's loops for an anchored edit: questions about a few lines that need a
 * look at every repeated line, answered without a Python object per line. */
#include "_core.h"

/* context_keys_in(lines, wanted, keys) -> list: the wanted lines (ascending) whose context
 * hash's 6-char prefix (its top 24 bits) is one of ``keys`` (a few ints). The context hashes
 * are those of context_hashes(), made and dropped in C: a display of one repeated line asks
 * whether another repeated line shares its prefix, and no line's hex is needed for that. */
PyObject *
wm_context_keys_in(PyObject *self, PyObject *args)
{
    PyObject *lines_arg, *wanted, *keys_arg;
    if (!PyArg_ParseTuple(args, "OO!O", &lines_arg, &PyList_Type, &wanted, &keys_arg))
        return NULL;
    PyObject *key_seq = PySequence_Fast(keys_arg, "keys must be a collection of ints");
    if (key_seq == NULL)
        return NULL;
    Py_ssize_t nkeys = PySequence_Fast_GET_SIZE(key_seq);
    uint64_t *keys = malloc(sizeof(uint64_t) * (nkeys ? nkeys : 1));
    PyObject *seq = PySequence_Fast(lines_arg, "lines must be a sequence");
    PyObject *out = PyList_New(0);
    XXH3_state_t *state = XXH3_createState();
    if (keys == NULL || seq == NULL || out == NULL || state == NULL) {
        if (!PyErr_Occurred())
            PyErr_NoMemory();
        goto fail;
    }
    for (Py_ssize_t k = 0; k < nkeys; k++) {
        keys[k] = PyLong_AsUnsignedLongLong(PySequence_Fast_GET_ITEM(key_seq, k));
        if (PyErr_Occurred())
            goto fail;
    }
    ContextWalk walk;
    context_walk_init(&walk, PySequence_Fast_ITEMS(seq), PySequence_Fast_GET_SIZE(seq), state);
    Py_ssize_t m = PyList_GET_SIZE(wanted);
    for (Py_ssize_t k = 0; k < m; k++) {
        Py_ssize_t i;
        uint64_t hash;
        if (context_hash_at(&walk, wanted, k, &i, &hash) < 0)
            goto fail;
        uint64_t top = hash >> 40;
        for (Py_ssize_t q = 0; q < nkeys; q++)
            if (keys[q] == top) {
                if (append_index(out, i) < 0)
                    goto fail;
                break;
            }
    }
    XXH3_freeState(state);
    free(keys);
    Py_DECREF(seq);
    Py_DECREF(key_seq);
    return out;
fail:
    if (state)
        XXH3_freeState(state);
    free(keys);
    Py_XDECREF(out);
    Py_XDECREF(seq);
    Py_DECREF(key_seq);
    return NULL;
}
