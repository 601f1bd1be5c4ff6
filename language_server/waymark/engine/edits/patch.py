"""Unified diffs (``diff -u``, ``git diff``) parsed with unidiff and applied to text files.

Pure: the caller loads each file and writes the results. A hunk applies only where its
context and removed lines match exactly: at the line its header states, or else at the one
nearest place that matches (the offset is reported). Nothing is fuzzy; a hunk that matches
nowhere, or at two places equally near, fails the whole patch. File names git quotes
(``"b/caf\\303\\251.txt"``) are unquoted as git does.
"""

from __future__ import annotations

from dataclasses import dataclass

from unidiff.constants import (
    LINE_TYPE_ADDED,
    LINE_TYPE_NO_NEWLINE,
    LINE_TYPE_REMOVED,
    RE_HUNK_HEADER,
)
from unidiff.errors import UnidiffParseError
from unidiff.patch import Hunk, PatchSet

from waymark.engine.edits.line_ends import check_rereads, kept_apart
from waymark.engine.edits.safety import Change
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


# git's C-style escapes in a quoted name (quote_c_style); octal escapes are bytes.
_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}
_OCTAL = frozenset("01234567")


def unquote_name(name: str) -> str:
    """A file name as git writes it in a patch: C-quoted when it holds a special character
    (``"tab\\there.txt"``, ``"caf\\303\\251.txt"``), else as it is. The bytes a quoted name
    spells are decoded as UTF-8, with surrogate escapes for bytes that are not (as
    ``os.fsdecode`` does). A name that is not one well-formed quoted string is taken
    literally, as git and GNU patch do."""
    if len(name) < 2 or name[0] != '"' or name[-1] != '"':
        return name
    out = bytearray()
    i, end = 1, len(name) - 1
    while i < end:
        c = name[i]
        escaped = name[i + 1] if i + 1 < end else ""
        if c == '"':
            return name
        if c != "\\":
            try:
                out += c.encode("utf-8", "surrogateescape")
            except UnicodeEncodeError:
                return name
            i += 1
        elif escaped in _ESCAPES:
            out.append(_ESCAPES[escaped])
            i += 2
        elif i + 3 < end and escaped in "0123" and set(name[i + 2 : i + 4]) <= _OCTAL:
            out.append(int(name[i + 1 : i + 4], 8))
            i += 4
        else:
            return name
    return out.decode("utf-8", "surrogateescape")


def _auto_strip(names: list[tuple[str, str]]) -> int:
    # git's a/ b/ prefixes, on every name of the patch; a plain `diff -u old new` has none.
    sources = [s for s, _ in names if s != DEV_NULL]
    targets = [t for _, t in names if t != DEV_NULL]
    prefixed = all(s.startswith("a/") for s in sources) and all(t.startswith("b/") for t in targets)
    return 1 if prefixed and (sources or targets) else 0


def _git_names(info: str) -> dict[str, str]:
    """The names of ``rename from``/``to`` and ``copy from``/``to`` lines, unquoted; git
    writes them without the a/ b/ prefixes."""
    names = {}
    for line in info.split("\n"):
        line = line.removesuffix("\r")
        for key in ("rename from ", "rename to ", "copy from ", "copy to "):
            if line.startswith(key):
                names[key.split()[1]] = unquote_name(line[len(key) :])
    return names


def _check_hunk_headers(text: str) -> None:
    # unidiff takes a line it cannot read as a hunk header (a negative start, @@@) for
    # commentary, and the hunk's lines with it: the file would silently be left alone.
    in_files = False
    for number, line in enumerate(text.split("\n"), 1):
        if line.startswith(("--- ", "diff --git ")):
            in_files = True
        elif in_files and line.startswith("@@") and not RE_HUNK_HEADER.match(line):
            shown = line.removesuffix("\r")
            raise UnreadablePatch(
                f"line {number} {shown!r} is not a hunk header like @@ -12,3 +12,4 @@"
            )


def parse_patch(text: str, strip: int | None = None) -> list[FilePatch]:
    """Every file of a patch; a text that is not one is :class:`UnreadablePatch`."""
    try:
        files = list(PatchSet(text))
    except UnidiffParseError as exc:
        raise UnreadablePatch(str(exc)) from exc
    if not files:
        raise UnreadablePatch(None)
    _check_hunk_headers(text)
    # A patch saved with CRLF line ends keeps the \r in its header names.
    names = [
        (
            unquote_name(f.source_file.removesuffix("\r")),
            unquote_name(f.target_file.removesuffix("\r")),
        )
        for f in files
    ]
    if strip is None:
        strip = _auto_strip(names)
    patches = []
    for f, (source_name, target_name) in zip(files, names, strict=True):
        name = target_name if target_name != DEV_NULL else source_name
        if f.is_binary_file:
            raise PatchFailed(
                f"The patch changes the binary file {name}; Waymark applies text hunks only, "
                "so apply it with git.",
                {"path": name, "reason": "binary"},
            )
        info = "".join(f.patch_info or [])
        source = None if source_name == DEV_NULL else _strip(source_name, strip)
        target = None if target_name == DEV_NULL else _strip(target_name, strip)
        # A rename's or copy's own lines name both sides unambiguously (a diff --git line with
        # unquoted spaces does not); like git, they lose one component less than a/ b/ names.
        renamed = _git_names(info)
        if source is not None and "from" in renamed:
            source = _strip(renamed["from"], max(strip - 1, 0))
        if target is not None and "to" in renamed:
            target = _strip(renamed["to"], max(strip - 1, 0))
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
    if not plan.source:
        # A hunk that only adds lines applies at its stated line or nowhere.
        why = (
            f"the file has only {len(lines)} lines"
            if at > len(lines)
            else "an earlier hunk of the patch already changed the lines there"
        )
        return PatchFailed(
            f"The patch does not apply to {path}: hunk {header} adds lines after line {at} but "
            f"{why}; read the file and make the patch against its current text.",
            {"path": path, "hunk": header, "line": at, "lines": len(lines)},
        )
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
    if last < floor:
        return []
    # Search from the place in reach nearest the stated line: a header may state any line
    # (10**20), and the nearest match to it is the nearest to this place too.
    start = min(max(stated, floor), last)

    def fits(i: int) -> bool:
        return lines[i] == first and list(lines[i : i + n]) == plan.source

    # Outward from the stated line: a hunk that applies where it says costs its own length.
    for distance in range(max(start - floor, last - start) + 1):
        found = [i for i in (start - distance, start + distance) if floor <= i <= last and fits(i)]
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
    changes: list[Change] = []
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
                _grow(changes, k, len(out_lines), 0, 1)
                out_lines.append(text)
                out_eols.append(eol)
                continue
            if kind == LINE_TYPE_REMOVED:
                _grow(changes, k, len(out_lines), 1, 0)
            else:  # context keeps the file's own line and terminator
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
    for i, fixed in kept_apart(out_lines, out_eols, changes, eol).items():
        out_eols[i] = fixed
    check_rereads(out_lines, out_eols, changes)
    after = TextFile(tuple(out_lines), tuple(out_eols), before.encoding, before.bom)
    return Patched(after, offsets)


def _grow(changes: list[Change], old: int, new: int, removed: int, added: int) -> None:
    """Count one removed or added line into the change it touches, or start one."""
    if changes and changes[-1].old_end == old and changes[-1].new_end == new:
        last = changes.pop()
        changes.append(Change(last.old_start, old + removed, last.new_start, new + added))
    else:
        changes.append(Change(old, old + removed, new, new + added))


def _patch_eol(patch: FilePatch) -> str:
    for hunk in patch.hunks:
        for line in hunk:
            if line.line_type != LINE_TYPE_NO_NEWLINE:
                return "\r\n" if line.value.endswith("\r\n") else "\n"
    return "\n"
