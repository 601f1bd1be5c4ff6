"""Start the Waymark language server shipped inside the extension, on stdio.

Run as `python -I launch.py` so neither PYTHONPATH nor the user's site-packages can shadow the
bundled libraries. `--check` imports the server as a start would, without starting it, and
prints one line: "ok" or the reason this interpreter cannot run it.
"""

import gc
import os
import sys

MINIMUM = (3, 11)
LIBS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "libs")


def load():
    """The server's entry point, or the one-line reason it cannot be imported."""
    found = "%d.%d" % sys.version_info[:2]
    if sys.version_info < MINIMUM:
        return None, "Python %s is too old: Waymark needs 3.11 or newer" % found
    sys.path.insert(0, LIBS)
    try:
        import xxhash  # noqa: F401 - the one compiled dependency, built per CPython
    except ImportError:
        return None, "this extension carries no compiled libraries for Python %s (%s)" % (
            found,
            sys.implementation.name,
        )
    # The whole server, as a start imports it: a module missing from the bundle, or one that
    # this platform's Python lacks, fails here rather than after the check said "ok".
    # The collector paused while the server imports (waymark/doors/quiet_start.py says why).
    gc.disable()
    try:
        from waymark.doors.lsp.server import main as serve
    except Exception as exc:
        return None, "the bundled language server does not import with Python %s: %s" % (
            found,
            exc,
        )
    return serve, None


def main():
    serve, reason = load()
    if "--check" in sys.argv[1:]:
        print(reason or "ok")
        sys.exit(1 if reason else 0)
    if reason:
        sys.stderr.write("Waymark: %s.\n" % reason)
        sys.exit(1)
    gc.freeze()
    gc.enable()
    serve()


main()
