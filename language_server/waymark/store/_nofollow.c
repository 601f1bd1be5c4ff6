/* waymark.store._nofollow: a directory reached in one openat2(2) call that follows no
 * symlink (RESOLVE_NO_SYMLINKS), the fast path of store/walk.py's component walk.
 *
 * The walk opens "/" and then each component with O_NOFOLLOW, closing the one before: two
 * syscalls per component. openat2 resolves the whole path in the kernel under the same rule,
 * so a walk that meets no symlink, no missing component and no file on the way costs one.
 * Any failure is only reported (errno): walk.py then runs the component walk, which stays
 * the reference and words every refusal. Where openat2 is unknown to the headers (not Linux,
 * or too old) the call fails with ENOSYS and walk.py stops asking.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <unistd.h>

#ifdef __linux__
#include <sys/syscall.h>
#endif

/* struct open_how and the RESOLVE_ flags of <linux/openat2.h> (Linux 5.6), spelled out so
 * the module builds against older kernel headers; the ABI fixes their values. */
struct wm_open_how {
    uint64_t flags;
    uint64_t mode;
    uint64_t resolve;
};
#define WM_RESOLVE_NO_MAGICLINKS 0x02
#define WM_RESOLVE_NO_SYMLINKS 0x04

#ifndef O_PATH
#define O_PATH 0
#endif

static int
wm_openat2(int dir_fd, const char *path, int flags)
{
#ifdef SYS_openat2
    struct wm_open_how how = {
        .flags = (uint64_t)flags,
        .mode = 0,
        .resolve = WM_RESOLVE_NO_SYMLINKS | WM_RESOLVE_NO_MAGICLINKS,
    };
    return (int)syscall(SYS_openat2, dir_fd, path, &how, sizeof how);
#else
    (void)dir_fd;
    (void)path;
    (void)flags;
    errno = ENOSYS;
    return -1;
#endif
}

/* open_dir(path, dir_fd=AT_FDCWD) -> fd of the directory, O_PATH, close-on-exec. */
static PyObject *
open_dir(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs < 1 || nargs > 2) {
        PyErr_SetString(PyExc_TypeError, "open_dir(path, dir_fd=AT_FDCWD)");
        return NULL;
    }
    int dir_fd = AT_FDCWD;
    if (nargs == 2) {
        long value = PyLong_AsLong(args[1]);
        if (value == -1 && PyErr_Occurred())
            return NULL;
        if (value < INT_MIN || value > INT_MAX) {
            PyErr_SetString(PyExc_OverflowError, "dir_fd out of range");
            return NULL;
        }
        dir_fd = (int)value;
    }
    PyObject *encoded = NULL;
    if (!PyUnicode_FSConverter(args[0], &encoded))
        return NULL;
    const char *path = PyBytes_AS_STRING(encoded);
    int fd, error;
    Py_BEGIN_ALLOW_THREADS
    fd = wm_openat2(dir_fd, path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    error = errno;
    Py_END_ALLOW_THREADS
    Py_DECREF(encoded);
    if (fd < 0) {
        errno = error; /* as the call left it, whatever the decref did */
        return PyErr_SetFromErrno(PyExc_OSError);
    }
    PyObject *result = PyLong_FromLong(fd);
    if (result == NULL)
        close(fd);
    return result;
}

static PyMethodDef methods[] = {
    {"open_dir", (PyCFunction)(void (*)(void))open_dir, METH_FASTCALL,
     "An O_PATH fd of the directory path (relative to dir_fd), resolved in one openat2 call "
     "that follows no symlink; OSError with the errno otherwise."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "waymark.store._nofollow", NULL, -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC
PyInit__nofollow(void)
{
    return PyModule_Create(&module);
}
