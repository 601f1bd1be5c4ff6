"""Coverage: the share of a corpus of realistic agent ``sed -i`` lines that is simulated.

Usage: PYTHONPATH=language_server python bench/sed_coverage.py
Every simulated line is also run by GNU sed on a copy of a realistic sample file; a wrong
output is any byte difference. Goal: >= 90% simulated, 0 wrong.
"""

from __future__ import annotations

import os
import sys
import time
from collections import Counter
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "sed"))

from sed_oracle import gnu_args_for_line, gnu_sed_in_place

from waymark.sed import SedDecline, apply_script, parse_command_line

CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "sed_corpus.txt")

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


def corpus_lines() -> list[str]:
    with open(CORPUS, encoding="utf-8") as handle:
        return [line.rstrip("\n") for line in handle if line.strip() and not line.startswith("#")]


def coverage() -> dict[str, Any]:
    lines = corpus_lines()
    simulated = 0
    wrong: list[str] = []
    declined: Counter[str] = Counter()
    started = time.perf_counter()
    for line in lines:
        try:
            ours = apply_script(parse_command_line(line).script, SAMPLE)
        except SedDecline as exc:
            declined[exc.reason] += 1
            continue
        simulated += 1
        expected = gnu_sed_in_place(gnu_args_for_line(line), [SAMPLE])
        if expected is None or expected[0] != ours:
            wrong.append(line)
    return {
        "lines": len(lines),
        "simulated": simulated,
        "wrong": wrong,
        "declined": declined,
        "seconds": time.perf_counter() - started,
    }


def figures() -> list[dict[str, Any]]:
    """Coverage as one bench entry; the run time is the whole check including GNU runs."""
    result = coverage()
    return [
        {
            "name": "sed coverage of realistic agent lines",
            "runs": [result["seconds"]],
            "baseline": "",
            "baseline_runs": [],
            "goal": ">= 90% simulated, 0 wrong",
            "extra": {
                "lines": result["lines"],
                "simulated": result["simulated"],
                "share": round(result["simulated"] / result["lines"], 4),
                "wrong": len(result["wrong"]),
            },
        }
    ]


def main() -> None:
    result = coverage()
    share = result["simulated"] / result["lines"]
    print(f"{'lines':>6} {'simulated':>10} {'share':>7} {'wrong':>6}")
    print(f"{result['lines']:>6} {result['simulated']:>10} {share:>7.1%} {len(result['wrong']):>6}")
    for line in result["wrong"]:
        print(f"WRONG {line}")
    print("declined:")
    for reason, count in result["declined"].most_common():
        print(f"  {count:>3}  {reason}")


if __name__ == "__main__":
    main()
