"""Coverage: the share of corpora of realistic agent ``sed -i`` lines that is simulated.

Usage: PYTHONPATH=language_server python bench/sed_coverage.py
Two corpora: the original one (mostly ``s``), and a held-out one of the forms issue #16 names
(several files, addresses, d, a/i/c, -n, the I flag, -i.SUFFIX, ...). Every simulated line is
also run by GNU sed, each file operand on its own copy of a realistic sample file, next to
the files its ``r``/``R`` commands read (a short snippet each); a wrong output is any byte
difference in an operand or a ``w`` file.

A line whose result is not determined by the line and the files — an unknown shell
variable's value, a command substitution, the ``e`` command or flag, which run programs — is
declined by design ("needs the shell") and counted apart. Goal: >= 98% of the determined
lines simulated, 0 wrong; the share of all lines is printed too.
"""

from __future__ import annotations

import os
import sys
import time
from collections import Counter
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench.goals
from bench.goals import Goal

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "sed"))

from sed_oracle import gnu_args_for_line, gnu_sed_in_place, gnu_sed_with_files

from waymark.engine.sed import SedDecline, apply_files, apply_with_files, parse_command_line

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
CORPORA = {
    "agent lines": os.path.join(DATA, "sed_corpus.txt"),
    "held-out program lines": os.path.join(DATA, "sed_corpus_programs.txt"),
}

# A bit of everything the corpus touches, with CRLF lines, a BOM-free UTF-8 line and no final
# newline, so each line has something to change or to leave alone.
SAMPLE = (
    "# config for the service (café edition)\n"
    'version = "1.2.3"\n'
    '__version__ = "0.1.0"\n'
    '  "version": "1.2.3",\n'
    '  "debug": true,\n'
    '  "react": "^17.0.2",\n'
    '  "typescript": "4.9.5",\n'
    "DEBUG = True\n"
    "MAX_RETRIES = 3\n"
    "from old_pkg.utils import helper\n"
    "from ..utils import thing\n"
    "import utils\n"
    "import React from 'react'\n"
    "import { foo } from '../utils'\n"
    "const x = require('lodash');\n"
    "var count = 0;   \n"
    "def old_helper(user_id, foo_bar):\n"
    "\tprint(getUserById(user_id))  \n"
    "    return None\n"
    "    # print('debug')\n"
    "# debug = on\n"
    "#export PATH=/opt/bin:$PATH\n"
    "console.log('hi') ;\n"
    "// console.log('off')\n"
    "it('works', () => {\n"
    "  self.assertEquals(a, b)\n"
    "http://localhost:8000/api\r\n"
    "API_KEY=secret\r\n"
    "API_URL=http://old\r\n"
    "LOG_LEVEL=debug\r\n"
    "FROM python:3.9-slim\n"
    "FROM node:16\n"
    "    uses: actions/checkout@v2\n"
    '    python-version: "3.8"\n'
    "branches: [ master ]\n"
    "requests==2.28.0\n"
    "numpy==1.21.0\n"
    "go 1.19\n"
    'edition = "2018"\n'
    'serde = "1.0.100"\n'
    "CFLAGS = -O2\n"
    "- [ ] Write tests\n"
    "## Install\n"
    "Copyright 2023 teh authors; recieve what occured.\n"
    "<title>Old</title>\n"
    "color: red; width: 100px; background: #fff;\n"
    "name: old-service\n"
    "  image: nginx:latest\n"
    "List[str] Dict[str, int] Optional[str] = None\n"
    "TODO(alice): colour ERROR 2023\n"
    "trailing tabs\t\t\n"
    "\n"
    "no final newline here"
).encode()


def corpus_lines(path: str) -> list[str]:
    """The corpus's lines; one ending in a backslash goes on on the next (a\\ text)."""
    lines: list[str] = []
    pending = ""
    with open(path, encoding="utf-8") as handle:
        for raw in handle:
            line = raw.rstrip("\n")
            if not pending and (not line.strip() or line.startswith("#")):
                continue
            if line.endswith("\\") and not line.endswith("\\\\"):
                pending += line + "\n"
                continue
            lines.append(pending + line)
            pending = ""
    return lines


# What an r/R file of the corpus holds: a snippet to insert.
SNIPPET = b"// inserted by sed r\nconst added = true;\n"


def _samples(count: int) -> list[bytes]:
    # Later operands get the sample with its lines rotated, so files differ.
    rows = SAMPLE.split(b"\n")
    return [b"\n".join(rows[index * 7 :] + rows[: index * 7]) for index in range(count)]


def coverage(path: str) -> dict[str, Any]:
    lines = corpus_lines(path)
    simulated = 0
    wrong: list[str] = []
    declined: Counter[str] = Counter()
    by_design: Counter[str] = Counter()
    started = time.perf_counter()
    for line in lines:
        try:
            right = _is_right(line, parse_command_line(line))
        except SedDecline as exc:
            (by_design if exc.needs_shell else declined)[exc.reason] += 1
            continue
        simulated += 1
        if not right:
            wrong.append(line)
    return {
        "lines": len(lines),
        "determined": len(lines) - by_design.total(),
        "simulated": simulated,
        "wrong": wrong,
        "declined": declined,
        "by_design": by_design,
        "seconds": time.perf_counter() - started,
    }


def _is_right(line: str, invocation: Any) -> bool:
    """Run the line here and in GNU sed; SedDecline when it is not simulated."""
    script = invocation.script
    samples = _samples(len(invocation.paths))
    if not (script.reads or script.writes):
        ours = apply_files(script, samples)
        mine = [data if new is None else new for data, new in zip(samples, ours, strict=True)]
        return gnu_sed_in_place(gnu_args_for_line(line), samples) == mine
    reads: dict[str, bytes | None] = dict.fromkeys(script.reads, SNIPPET)
    run = apply_with_files(script, samples, reads)
    mine = [data if new is None else new for data, new in zip(samples, run.files, strict=True)]
    expected = gnu_sed_with_files(gnu_args_for_line(line), samples, reads, script.writes)
    return expected == (mine, run.writes)


def figures() -> list[dict[str, Any]]:
    """Coverage, one bench entry per corpus; the run time is the whole check with GNU runs."""
    entries = []
    for name, path in CORPORA.items():
        result = coverage(path)
        entries.append(
            {
                "name": f"sed coverage of {name}",
                "runs": [result["seconds"]],
                "baseline": "",
                "baseline_runs": [],
                "goals": [
                    Goal("share", "≥", 98, "%", label="of determined lines simulated"),
                    Goal("wrong", "≤", 0),
                ],
                "extra": {
                    "lines": result["lines"],
                    "needs the shell": result["lines"] - result["determined"],
                    "determined": result["determined"],
                    "simulated": result["simulated"],
                    "share": round(result["simulated"] / result["determined"], 4),
                    "share of all lines": round(result["simulated"] / result["lines"], 4),
                    "wrong": len(result["wrong"]),
                },
            }
        )
    return entries


def main() -> None:
    for name, path in CORPORA.items():
        result = coverage(path)
        share = result["simulated"] / result["determined"]
        raw = result["simulated"] / result["lines"]
        print(f"{name}")
        print(
            f"{'lines':>6} {'needs shell':>12} {'determined':>11} {'simulated':>10} "
            f"{'share':>7} {'of all':>7} {'wrong':>6}"
        )
        print(
            f"{result['lines']:>6} {result['lines'] - result['determined']:>12} "
            f"{result['determined']:>11} {result['simulated']:>10} {share:>7.1%} {raw:>7.1%} "
            f"{len(result['wrong']):>6}"
        )
        for line in result["wrong"]:
            print(f"WRONG {line}")
        print("declined:")
        for reason, count in result["declined"].most_common():
            print(f"  {count:>3}  {reason}")
        print("declined by design (needs the shell):")
        for reason, count in result["by_design"].most_common():
            print(f"  {count:>3}  {reason}")


if __name__ == "__main__":
    main()
