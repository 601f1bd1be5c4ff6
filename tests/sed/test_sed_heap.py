"""A large file's run leaves its memory in the heap for the next run (``engine/sed/heap.py``).

Without it, glibc gave the heap's top back to the kernel after every run whose output is
larger than its input, and the next run faulted each page in again (about 2,000 page faults
per run on 4 MB: as much time as the work). Counted, not timed: the minor page faults of
each run in a fresh process, as a language server runs one ``sed -i`` after another.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from bench.sed_speed import _sample

CHILD = """
import json, resource, sys
from waymark.engine.sed import apply_script, parse_command_line

script = parse_command_line(sys.argv[1]).script
faults = []
for _ in range(6):
    with open(sys.argv[2], "rb") as handle:
        data = handle.read()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    new = apply_script(script, data)
    faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
    del new, data
print(json.dumps(faults))
"""

# Each output is larger than its file: the runs that were given back every time.
LINES = [
    "sed -i '/^import/a\\import re' f",
    "sed -i 's/$/;/' f",
    "sed -i '/^import/{s/os/pathlib/;s/sys/io/}' f",
    "sed -i 's/getUserById/fetchUserById/g' f",
]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's heap")
@pytest.mark.parametrize("line", LINES)
def test_later_runs_reuse_the_heap(line: str, tmp_path: Path) -> None:
    path = tmp_path / "file.txt"
    data = _sample(4 * 1024 * 1024)
    path.write_bytes(data)
    child = subprocess.run(
        [sys.executable, "-c", CHILD, line, str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    faults = json.loads(child.stdout)
    pages = len(data) // 4096
    # The first runs find the heap empty; after them a run touches pages it already has
    # (a few, from the interpreter's own small objects, may still be new).
    assert max(faults[2:]) < pages // 8, faults
