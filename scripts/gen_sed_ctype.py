"""Measure glibc's C.UTF-8 character classes and case maps through GNU sed; write ctype_data.py.

Usage: python scripts/gen_sed_ctype.py [OUTPUT]
(default OUTPUT: language_server/waymark/engine/sed/ctype_data.py)
Every Unicode scalar value goes through the real ``sed`` once per class and once per case
direction (the newline inside a two-line pattern space), so the tables are what GNU sed does,
not what Python's unicodedata says. Code points unassigned in this Python's Unicode version
are recorded too: a newer glibc may classify them, so the simulation declines text holding them.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import unicodedata

CLASSES = ("alpha", "upper", "lower", "alnum", "punct", "print", "graph", "cntrl", "space")
CLASSES += ("blank", "digit", "xdigit")
ENV = {"LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin"}
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
DEFAULT = os.path.join(ROOT, "language_server", "waymark", "engine", "sed", "ctype_data.py")


def scalars() -> list[int]:
    return [c for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF and c != 0x0A]


def sed(script: str, path: str) -> bytes:
    return subprocess.run(
        ["sed", *(["-n"] if script.endswith("=") else []), script, path],
        env=ENV,
        capture_output=True,
        check=True,
    ).stdout


def ranges(numbers: list[int]) -> list[tuple[int, int]]:
    out: list[list[int]] = []
    for n in sorted(numbers):
        if out and n == out[-1][1] + 1:
            out[-1][1] = n
        else:
            out.append([n, n])
    return [(low, high) for low, high in out]


def runs(mapping: dict[int, int]) -> list[tuple[int, int, int, int]]:
    """(first, count, delta, stride): ``first + k*stride`` maps to itself plus delta."""
    out: list[list[int]] = []
    for code in sorted(mapping):
        delta = mapping[code] - code
        if out:
            first, count, last_delta, stride = out[-1]
            last = first + (count - 1) * stride
            if delta == last_delta and (
                (count == 1 and code - last in (1, 2)) or code - last == stride
            ):
                out[-1][1] += 1
                out[-1][3] = code - last
                continue
        out.append([code, 1, delta, 1])
    return [(a, b, c, d) for a, b, c, d in out]


def _wrap(name: str, text: str) -> str:
    width = 90
    pieces = [text[i : i + width] for i in range(0, len(text), width)] or [""]
    body = "\n".join(f'    "{piece}"' for piece in pieces)
    return f"{name} = (\n{body}\n)\n"


def measure() -> tuple[dict[str, list[tuple[int, int]]], dict[int, int], dict[int, int]]:
    codes = scalars()
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "scalars")
        with open(path, "wb") as handle:
            handle.write("".join(chr(c) + "\n" for c in codes).encode("utf-8"))
        pair = os.path.join(folder, "pair")
        with open(pair, "wb") as handle:
            handle.write(b"a\nb\n")
        classes = {}
        for name in CLASSES:
            lines = sed(f"/^[[:{name}:]]$/=", path).split()
            members = [codes[int(line) - 1] for line in lines]
            # The newline is no line of its own: N puts one inside the pattern space.
            if sed(f"N;/^a[[:{name}:]]b$/=", pair).strip():
                members.append(0x0A)
            classes[name] = ranges(members)
        upper_lines = sed("s/.*/\\U&/", path).decode("utf-8").split("\n")
        lower_lines = sed("s/.*/\\L&/", path).decode("utf-8").split("\n")
    upper: dict[int, int] = {}
    lower: dict[int, int] = {}
    for code, up, low in zip(codes, upper_lines, lower_lines, strict=False):
        if len(up) != 1 or len(low) != 1:
            raise SystemExit(f"U+{code:04X} maps to several characters; the tables assume one")
        if ord(up) != code:
            upper[code] = ord(up)
        if ord(low) != code:
            lower[code] = ord(low)
    return classes, upper, lower


def render(
    classes: dict[str, list[tuple[int, int]]], upper: dict[int, int], lower: dict[int, int]
) -> str:
    unassigned = ranges([c for c in scalars() if unicodedata.category(chr(c)) == "Cn"])
    version = subprocess.run(["sed", "--version"], capture_output=True, text=True, check=True)
    libc = subprocess.run(["ldd", "--version"], capture_output=True, text=True, check=True)
    parts = [
        '"""glibc C.UTF-8 tables as GNU sed applies them; made by scripts/gen_sed_ctype.py.\n\n'
        f"Measured with {version.stdout.splitlines()[0]} on {libc.stdout.splitlines()[0]};\n"
        f"UNASSIGNED is Unicode {unicodedata.unidata_version}'s unassigned code points. Ranges\n"
        'are "low-high" in hex, comma-separated; maps are "first:count:delta:stride" runs.\n"""\n',
        "# fmt: off\n",
    ]
    # glibc's alnum is alpha plus digit: stored once, derived in ctype.py.
    if classes["alnum"] != ranges(
        [c for lo, hi in classes["alpha"] + classes["digit"] for c in range(lo, hi + 1)]
    ):
        raise SystemExit("[:alnum:] is not [:alpha:] + [:digit:] here; store it on its own")
    # And print is graph plus the blanks but tab.
    if classes["print"] != ranges(
        [c for lo, hi in classes["graph"] + classes["blank"] for c in range(lo, hi + 1) if c != 9]
    ):
        raise SystemExit("[:print:] is not [:graph:] + [:blank:] - tab here; store it on its own")
    for name in CLASSES:
        if name in ("alnum", "print"):
            continue
        text = ",".join(f"{lo:x}-{hi:x}" for lo, hi in classes[name])
        parts.append(_wrap(f"{name.upper()}_RANGES", text))
    parts.append(_wrap("UNASSIGNED_RANGES", ",".join(f"{lo:x}-{hi:x}" for lo, hi in unassigned)))
    for name, mapping in (("UPPER_RUNS", upper), ("LOWER_RUNS", lower)):
        text = ",".join(f"{a:x}:{b:x}:{c:x}:{d:x}" for a, b, c, d in runs(mapping))
        parts.append(_wrap(name, text))
    return "\n".join(parts)


def main() -> None:
    output = sys.argv[1] if len(sys.argv) > 1 else DEFAULT
    classes, upper, lower = measure()
    with open(output, "w", encoding="utf-8") as handle:
        handle.write(render(classes, upper, lower))


if __name__ == "__main__":
    main()
