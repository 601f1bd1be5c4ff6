"""An anchored edit's bytes, the whole new file encoded against the changed lines spliced in:
CPU ms (best of RUNS, the two interleaved in one process) for the 3-op edit of
``bench/anchors_speed.py``'s 200k-line file, in several encodings and terminators. Both give
the same bytes (asserted here; tests/unit/test_spliced_bytes.py checks it at random).

Usage: PYTHONPATH=language_server python bench/compare/edit_bytes_cpu.py [RUNS]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench.anchors_speed import make_file

from waymark.commands.edit_ops import parse_operations
from waymark.engine import anchors
from waymark.engine.edits.anchored import plan_anchored_edit
from waymark.engine.text import TextFile


def _variants(base: bytes) -> dict[str, tuple[bytes, str | None]]:
    return {
        "ASCII, LF (the bench file)": (base, None),
        "ASCII, CRLF": (base.replace(b"\n", b"\r\n"), None),
        "UTF-8, one é on line 1": ("é".encode() + base, None),
        "UTF-8 with BOM": (b"\xef\xbb\xbf" + base, None),
        "UTF-16-LE with BOM": (b"\xff\xfe" + base.decode().encode("utf-16-le"), None),
        "Windows-1252, é on line 1": (b"\xe9" + base, "windows-1252"),
    }


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    print("| file | whole file encoded | changed lines spliced | ratio |")
    print("|---|---|---|---|")
    for name, (data, declared) in _variants(make_file()).items():
        tf = TextFile.decode(data, declared)
        picks = [a for a in anchors.annotate(tf) if a.quality == "high"]
        ops = parse_operations(
            [
                {"op": "replace_line", "hash": picks[10].hash, "content": "changed = 1"},
                {"op": "insert_after", "hash": picks[len(picks) // 2].hash, "content": "i = 2"},
                {"op": "delete_line", "hash": picks[-10].hash},
            ]
        )
        plan = plan_anchored_edit(tf, ops)
        assert plan.encode(data) == plan.text_file.encode()
        full, spliced = [], []
        for _ in range(runs):
            started = time.process_time()
            plan.text_file.encode()
            full.append(time.process_time() - started)
            started = time.process_time()
            plan.encode(data)
            spliced.append(time.process_time() - started)
        whole, part = min(full) * 1e3, min(spliced) * 1e3
        print(f"| {name} | {whole:.1f} ms | {part:.1f} ms | {part / whole:.2f}× |")


if __name__ == "__main__":
    main()
