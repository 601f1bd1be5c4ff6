"""Start the Waymark language server shipped inside the extension, on stdio.

Run as `python -I launch.py` so neither PYTHONPATH nor the user's site-packages can shadow the
bundled libraries. `--check` only verifies that this interpreter can run them and prints one
line: "ok" or the reason it cannot.
"""

import os
import sys

MINIMUM = (3, 11)
LIBS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "libs")


def problem():
    found = "%d.%d" % sys.version_info[:2]
    if sys.version_info < MINIMUM:
        return "Python %s is too old: Waymark needs 3.11 or newer" % found
    sys.path.insert(0, LIBS)
    try:
        import xxhash  # noqa: F401 - the one compiled dependency, built per CPython
    except ImportError:
        return "this extension carries no compiled libraries for Python %s (%s)" % (
            found,
            sys.implementation.name,
        )
    return None


def main():
    reason = problem()
    if "--check" in sys.argv[1:]:
        print(reason or "ok")
        sys.exit(1 if reason else 0)
    if reason:
        sys.stderr.write("Waymark: %s.\n" % reason)
        sys.exit(1)
    from waymark.doors.lsp.server import main as serve

    serve()


main()
