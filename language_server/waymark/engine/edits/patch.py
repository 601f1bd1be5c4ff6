"""Unified diffs (``diff -u``, ``git diff``) parsed with unidiff and applied to text files.

Pure: the caller loads each file and writes the results. A hunk applies only where its
context and removed lines match exactly: at the line its header states, or else at the one
nearest place that matches (the offset is reported). Nothing is fuzzy; a hunk that matches
nowhere, or at two places equally near, fails the whole patch.
"""

from __future__ import annotations

from dataclasses import dataclass

from unidiff.constants import LINE_TYPE_ADDED, LINE_TYPE_NO_NEWLINE, LINE_TYPE_REMOVED
from unidiff.errors import UnidiffParseError
from unidiff.patch import Hunk, PatchedFile, PatchSet

from waymark.engine.errors import PatchFailed
from waymark.engine.text import TextFile

DEV_NULL = "/dev/null"


@dataclass(frozen=True)
class FilePatch:
    """One file's part of a patch. ``source``/``target`` are None for a created/deleted file."""

    source: str | None
    target: str | None
    copy: bool
    old_mode: str | None
    new_mode: str | None
    hunks: tuple[Hunk, ...]

    @property
    def status(self) -> str:
        if self.source is None:
            return "created"
        if self.target is None:
            return "deleted"
        if self.source != self.target:
            return "copied" if self.copy else "renamed"
        return "modified"


class UnreadablePatch(Exception):
    """The text is not a unified diff (``problem`` says why), or holds no file diff
    (``problem`` None)."""

    def __init__(self, problem: str | None) -> None:
        super().__init__(problem or "no file diff")
        self.problem = problem


class StripTooLong(Exception):
    """Dropping ``strip`` leading components leaves nothing of the path ``name``."""

    def __init__(self, strip: int, name: str) -> None:
        super().__init__(f"strip {strip} removes the whole path {name!r}")
        self.strip = strip
        self.name = name


def _strip(name: str, strip: int) -> str:
    parts = name.split("/")
    if strip >= len(parts):
        raise StripTooLong(strip, name)
    return "/".join(parts[strip:])


def _auto_strip(files: list[PatchedFile]) -> int:
    # git's a/ b/ prefixes; a plain `diff -u old new` has none.
    sources = [f.source_file for f in files if f.source_file != DEV_NULL]
    targets = [f.target_file for f in files if f.target_file != DEV_NULL]
    prefixed = all(s.startswith("a/") for s in sources) and all(t.startswith("b/") for t in targets)
    return 1 if prefixed and (sources or targets) else 0


def parse_patch(text: str, strip: int | None = None) -> list[FilePatch]:
    """Every file of a patch; a text that is not one is :class:`UnreadablePatch`."""
    try:
        files = list(PatchSet(text))
    except UnidiffParseError as exc:
        raise UnreadablePatch(str(exc)) from exc
    if not files:
        raise UnreadablePatch(None)
    for f in files:
        # A patch saved with CRLF line ends keeps the \r in its header names.
        f.source_file = f.source_file.removesuffix("\r")
        f.target_file = f.target_file.removesuffix("\r")
    if strip is None:
        strip = _auto_strip(files)
    patches = []
    for f in files:
        name = f.target_file if f.target_file != DEV_NULL else f.source_file
        if f.is_binary_file:
            raise PatchFailed(
                f"The patch changes the binary file {name}; Waymark applies text hunks only, "
                "so apply it with git.",
                {"path": name, "reason": "binary"},
            )
        info = "".join(f.patch_info or [])
        source = None if f.source_file == DEV_NULL else _strip(f.source_file, strip)
        target = None if f.target_file == DEV_NULL else _strip(f.target_file, strip)
        patches.append(
            FilePatch(
                source=source,
                target=target,
                copy="\ncopy from " in "\n" + info,
                old_mode=f.source_mode,
                new_mode=f.target_mode,
                hunks=tuple(f),
            )
        )
    return patches


def _content(value: str) -> str:
    return value.removesuffix("\n").removesuffix("\r")


@dataclass(frozen=True)
class _Plan:
    source: list[str]
    steps: list[tuple[str, str]]  # (unidiff line type, text), in order
    target_ends_unterminated: bool


def _plan(hunk: Hunk) -> _Plan:
    source: list[str] = []
    steps: list[tuple[str, str]] = []
    unterminated = False
    last = ""
    for line in hunk:
        if line.line_type == LINE_TYPE_NO_NEWLINE:
            unterminated = unterminated or last != LINE_TYPE_REMOVED
            continue
        last = line.line_type
        text = _content(line.value)
        if line.line_type != LINE_TYPE_ADDED:
            source.append(text)
        steps.append((line.line_type, text))
    return _Plan(source, steps, unterminated)


def _header(hunk: Hunk) -> str:
    return (
        f"@@ -{hunk.source_start},{hunk.source_length} +{hunk.target_start},{hunk.target_length} @@"
    )


def _mismatch(path: str, hunk: Hunk, plan: _Plan, lines: tuple[str, ...], at: int) -> PatchFailed:
    header = _header(hunk)
    for k, expected in enumerate(plan.source):
        actual = lines[at + k] if 0 <= at + k < len(lines) else None
        if actual != expected:
            where = f"line {at + k + 1}"
            found = "the end of the file" if actual is None else repr(actual)
            return PatchFailed(
                f"The patch does not apply to {path}: hunk {header} expects {expected!r} at "
                f"{where} but the file has {found} there, and its lines match nowhere else; "
                "read the file and make the patch against its current text.",
                {
                    "path": path,
                    "hunk": header,
                    "line": at + k + 1,
                    "expected": expected,
                    "actual": actual,
                },
            )
    raise AssertionError("a hunk that matches where it says is not a mismatch")


def _ambiguous(path: str, hunk: Hunk, places: list[int]) -> PatchFailed:
    header = _header(hunk)
    lines = [p + 1 for p in places]
    return PatchFailed(
        f"The patch does not apply to {path}: hunk {header} matches at several places equally "
        f"near its stated line (lines {lines[0]} and {lines[1]}); add context lines to the "
        "patch or fix its line numbers.",
        {"path": path, "hunk": header, "reason": "ambiguous", "lines": lines},
    )


def _locate(lines: tuple[str, ...], plan: _Plan, stated: int, floor: int) -> list[int]:
    """Where the hunk's source lines match nearest to ``stated`` (from ``floor`` on): one
    place, two at the same distance (ambiguous), or none."""
    n = len(plan.source)
    if n == 0:
        return [stated] if floor <= stated <= len(lines) else []
    first = plan.source[0]
    last = len(lines) - n

    def fits(i: int) -> bool:
        return lines[i] == first and list(lines[i : i + n]) == plan.source

    # Outward from the stated line: a hunk that applies where it says costs its own length.
    for distance in range(max(stated - floor, last - stated) + 1):
        found = [
            i for i in (stated - distance, stated + distance) if floor <= i <= last and fits(i)
        ]
        if found:
            return sorted(set(found))
    return []


@dataclass(frozen=True)
class Patched:
    text_file: TextFile
    offsets: list[int]
    """Per hunk, how many lines from its stated place it applied (0: exactly there)."""


def apply_file_patch(path: str, before: TextFile, patch: FilePatch) -> Patched:
    """Apply every hunk of ``patch`` to ``before``, or raise :class:`PatchFailed`."""
    lines = before.lines
    eol = before.eol if before.lines else _patch_eol(patch)
    out_lines: list[str] = []
    out_eols: list[str] = []
    cursor = 0
    offsets: list[int] = []
    touches_end = False
    unterminated = False
    stated_end = 0
    for hunk in patch.hunks:
        if hunk.source_start < stated_end:
            raise PatchFailed(
                f"The patch's hunks for {path} overlap or are out of order at {_header(hunk)}; "
                "send the hunks of a file in line order, as diff makes them.",
                {"path": path, "hunk": _header(hunk), "reason": "order"},
            )
        stated_end = hunk.source_start + hunk.source_length
        plan = _plan(hunk)
        stated = hunk.source_start - 1 if plan.source else hunk.source_start
        stated = max(stated, 0)
        found = _locate(lines, plan, stated, cursor)
        if not found:
            raise _mismatch(path, hunk, plan, lines, stated)
        if len(found) > 1 and abs(found[0] - stated) == abs(found[1] - stated):
            raise _ambiguous(path, hunk, found[:2])
        at = found[0]
        offsets.append(at - stated)
        out_lines += lines[cursor:at]
        out_eols += before.eols[cursor:at]
        k = at
        for kind, text in plan.steps:
            if kind == LINE_TYPE_ADDED:
                out_lines.append(text)
                out_eols.append(eol)
                continue
            if kind != LINE_TYPE_REMOVED:  # context keeps the file's own line and terminator
                out_lines.append(lines[k])
                out_eols.append(before.eols[k])
            k += 1
        cursor = at + len(plan.source)
        touches_end = cursor == len(lines)
        unterminated = plan.target_ends_unterminated
    out_lines += lines[cursor:]
    out_eols += before.eols[cursor:]
    if out_eols:
        if touches_end:
            out_eols[-1] = "" if unterminated else (out_eols[-1] or eol)
        out_eols[:-1] = [e or eol for e in out_eols[:-1]]
    after = TextFile(tuple(out_lines), tuple(out_eols), before.encoding, before.bom)
    return Patched(after, offsets)


def _patch_eol(patch: FilePatch) -> str:
    for hunk in patch.hunks:
        for line in hunk:
            if line.line_type != LINE_TYPE_NO_NEWLINE:
                return "\r\n" if line.value.endswith("\r\n") else "\n"
    return "\n"
