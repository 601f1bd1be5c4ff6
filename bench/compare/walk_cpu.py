"""CPU µs (``time.process_time``, medians of interleaved rounds) of the no-symlink walk: the
one ``openat2`` call (``waymark.store._nofollow``) against the component walk it falls back
to, both in this tree and one process: ``walk()`` to a directory 3 and 7 components deep (an
LSP edit walks five times), ``read_state`` of a small file there, and ``Walks`` over 1,000
files in 100 directories visited in sorted order (a rewind's or a turn snapshot's pattern).

Usage: PYTHONPATH=language_server python bench/compare/walk_cpu.py [ROUNDS]
"""

import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from waymark.store import walk as walks
from waymark.store.files import read_state

rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 7
one_call = walks.one_call_built()
if one_call is None:
    sys.exit("waymark.store._nofollow is not built (or WAYMARK_PURE_PYTHON is set)")
top = Path(tempfile.mkdtemp())
shallow = top / "ws"  # /tmp/tmpXXXX/ws: 3 components
deep = top.joinpath("a", "b", "c", "d", "ws")  # 7
for folder in (shallow, deep):
    folder.mkdir(parents=True)
    (folder / "f.txt").write_text("value = 1\n" * 1000)
tree = top / "tree"
files = []
for i in range(100):
    folder = tree / f"p{i // 10}" / f"q{i}"
    folder.mkdir(parents=True)
    files += [walks.split_path(folder / f"f{j}.txt", False) for j in range(10)]


def walk_to(folder: Path) -> Callable[[], None]:
    absolute, dirs, _ = walks.split_path(folder / "f.txt", False)

    def run() -> None:
        for _ in range(2000):
            with walks.walk(absolute, dirs):
                pass

    return run


def read(folder: Path) -> Callable[[], None]:
    def run() -> None:
        for _ in range(2000):
            read_state(folder / "f.txt")

    return run


def rewind_pattern() -> None:
    for _ in range(20):
        with walks.Walks() as held:
            for absolute, dirs, _ in files:
                held.directory(absolute, dirs)


cases = [
    ("walk(), 3 components", walk_to(shallow), 2000),
    ("walk(), 7 components", walk_to(deep), 2000),
    ("read_state, 3 components", read(shallow), 2000),
    ("Walks, 1,000 files in 100 directories", rewind_pattern, 20),
]
for label, run, per in cases:
    found: dict[str, list[float]] = {"one call": [], "components": []}
    for index in range(rounds):
        order = [("one call", one_call), ("components", None)]
        for side, opener in order if index % 2 == 0 else order[::-1]:
            walks._one_call = opener
            start = time.process_time()
            run()
            found[side].append((time.process_time() - start) / per * 1e6)
    fast, slow = (statistics.median(found[side]) for side in ("one call", "components"))
    print(f"{label}: one call {fast:.1f} µs, components {slow:.1f} µs ({fast / slow:.2f}×)")
