"""Bytes ⇄ lines without losing a byte.

A file becomes a :class:`TextFile`: its encoding and BOM, and its lines, each with the
terminator it had (``"\\n"``, ``"\\r\\n"``, ``"\\r"``, or ``""`` for a last line without a
final newline). Lines are split only on those three terminators, as LSP defines a line —
never with ``str.splitlines``, which also splits on U+2028, form feeds and more, and would
make line numbers disagree with every editor.

The encoding is decided by :mod:`waymark.engine.encodings`. Bytes the encoding cannot decode
survive as lone surrogates (``surrogateescape``), so an unedited file encodes back to exactly
its original bytes.
"""

from __future__ import annotations

import operator
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import cast

from waymark.engine import core
from waymark.engine.encodings import (
    BOMS,
    Decision,
    decide_with_text,
    errors_for,
    not_valid_in,
    refuse_binary,
)
from waymark.engine.errors import UnrepresentableCharacter

EOLS = ("\n", "\r\n", "\r")
_UNKNOWN = object()
_LINE_RE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n|\Z)")
_BOM_OF = {encoding: bom for bom, encoding in BOMS}


def sniff_encoding(data: bytes) -> tuple[str, bool]:
    """``(encoding, has_bom)`` from a BOM alone (UTF-8 without one): the bytes as a tool
    that knows no declarations sees them. Raise :class:`BinaryFile` for binary content."""
    for bom, encoding in BOMS:
        if data.startswith(bom):
            if encoding == "utf-8":
                refuse_binary(data)
            return encoding, True
    refuse_binary(data)
    return "utf-8", False


def split_lines(text: str) -> tuple[list[str], list[str]]:
    """Split into (lines, terminators) on ``\\n``, ``\\r\\n`` and ``\\r`` only.

    ``"a\\nb"`` → ``(["a", "b"], ["\\n", ""])``; ``"a\\n"`` → ``(["a"], ["\\n"])``;
    ``""`` → ``([], [])``.
    """
    if core.native is not None and "\r" in text:
        return core.native.split_lines(text)
    if "\r" not in text:
        lines = text.split("\n")
        last = lines.pop()
        eols = ["\n"] * len(lines)
        if last:
            lines.append(last)
            eols.append("")
        return lines, eols
    lines = []
    eols = []
    for match in _LINE_RE.finditer(text):
        chunk = match.group()
        if not chunk:
            break
        if chunk.endswith("\r\n"):
            lines.append(chunk[:-2])
            eols.append("\r\n")
        elif chunk[-1] in "\r\n":
            lines.append(chunk[:-1])
            eols.append(chunk[-1])
        else:
            lines.append(chunk)
            eols.append("")
    return lines, eols


def dominant_eol(eols: Sequence[str]) -> str:
    """The most common terminator (first seen wins a tie); ``"\\n"`` when there is none."""
    # C-level counts beat a Python pass: this runs on every edit of every file. A strict
    # majority needs no other count (the usual file has one terminator throughout).
    lf = eols.count("\n")
    if 2 * lf > len(eols):
        return "\n"
    counts = {"\n": lf, "\r\n": eols.count("\r\n"), "\r": eols.count("\r")}
    best = max(counts.values())
    if best == 0:
        return "\n"
    tied = [eol for eol in EOLS if counts[eol] == best]
    return tied[0] if len(tied) == 1 else min(tied, key=eols.index)


def eol_name(eol: str) -> str:
    return {"\n": "lf", "\r\n": "crlf", "\r": "cr"}[eol]


@dataclass(frozen=True)
class TextFile:
    """A decoded text file: lines with their own terminators, plus how to encode it back."""

    lines: tuple[str, ...]
    eols: tuple[str, ...]
    encoding: str = "utf-8"
    bom: bool = False
    # How the encoding was decided (engine/encodings.py): it travels with every edit.
    decision: Decision | None = field(default=None, compare=False)

    @classmethod
    def decode(
        cls, data: bytes, declared: str | None = None, *, known: TextFile | None = None
    ) -> TextFile:
        """Decode ``data`` in the encoding :func:`decide` finds (``declared``: the encoding
        declared for the file, if any). ``known``: these very bytes as decoded before in some
        encoding (an edit's new file, read back by the next edit): when they are decided in
        the same one, its lines are those of the text, and splitting it again is skipped."""
        # With the lines known, UTF-8 is recognised without making the text.
        decision, text = decide_with_text(data, declared, text_wanted=known is None)
        encoding, bom = decision.encoding, decision.bom
        if known is not None and (known.encoding, known.bom) == (encoding, bom):
            if known.decision == decision:
                # Decided alike, these bytes are that very file, and all it knows holds.
                return known
            return known._ends_to(cls(known.lines, known.eols, encoding, bom, decision))
        body = data[len(_BOM_OF[encoding]) :] if bom else data
        try:
            if text is None:
                text = body.decode(encoding, errors_for(encoding))
        except UnicodeDecodeError as exc:
            raise not_valid_in(body, decision, exc) from None
        lines, eols = split_lines(text)
        return cls(tuple(lines), tuple(eols), encoding, bom, decision)

    def decode_like(
        self, data: bytes, declared: str | None = None, planned: TextFile | None = None
    ) -> TextFile:
        """Bytes of this file after a change, decoded the way this file was: a detector must
        not change its mind mid-edit. Bytes that are not in its encoding (a backup a rewind
        would restore) are decided afresh (``declared`` as for the file), but a file decided
        by declaration, or undecided, stays so. ``planned``: the file these bytes were
        encoded from, whose text splits back into its own lines (an anchored edit's plan,
        engine/edits/line_ends.py): when they read back as its text, its lines are taken
        instead of splitting the text again."""
        bom = _BOM_OF[self.encoding] if self.bom else b""
        if data.startswith(bom):
            try:
                text = data[len(bom) :].decode(self.encoding)
            except UnicodeDecodeError:
                pass
            else:
                if planned is not None and planned.text == text:
                    return self.read_back(planned)
                return self.with_text(text)
        if self.decision is not None and self.decision.source in ("declared", "undecided"):
            return TextFile.decode(data, self.encoding)
        return TextFile.decode(data, declared)

    @classmethod
    def from_text(cls, text: str, *, encoding: str = "utf-8", bom: bool = False) -> TextFile:
        lines, eols = split_lines(text)
        return cls(tuple(lines), tuple(eols), encoding, bom)

    def read_back(self, planned: TextFile) -> TextFile:
        """``planned``, a change of this file, as :meth:`decode_like` reads its bytes when they
        decode to its text."""
        return planned._ends_to(
            TextFile(planned.lines, planned.eols, self.encoding, self.bom, self.decision)
        )

    @property
    def same_end(self) -> str | None:
        """The terminator every line has (``""``: one line, without any); None when they
        differ or there is no line. Counted once per file, or handed on by the file it was
        made from (each count is a pass over every line, and an edit asks several times)."""
        known: str | object | None = self.__dict__.get("_same_end", _UNKNOWN)
        if known is not _UNKNOWN:
            return cast("str | None", known)
        eols = self.eols
        end = eols[0] if eols and eols.count(eols[0]) == len(eols) else None
        object.__setattr__(self, "_same_end", end)
        return end

    @property
    def told_end(self) -> str | None:
        """:attr:`same_end` when it is known already (counted, or told by the file's maker),
        else None: for a check worth skipping only when the answer costs no count."""
        known = self.__dict__.get("_same_end")
        return known if isinstance(known, str) else None

    def knowing_ends(self, end: str | None) -> TextFile:
        """This file, told its :attr:`same_end` by a maker that knows it."""
        object.__setattr__(self, "_same_end", end)
        return self

    @property
    def line_starts(self) -> dict[int, int]:
        """Where some lines start in this file's bytes (as :meth:`encode` writes them), by
        line: those an anchored edit's splice wrote (engine/edits/spliced_bytes.py), or none."""
        return cast("dict[int, int]", self.__dict__.get("_line_starts", {}))

    def knowing_starts(self, starts: dict[int, int]) -> TextFile:
        """This file, told where these lines start in its bytes by the splice that wrote them."""
        object.__setattr__(self, "_line_starts", starts)
        return self

    def _ends_to(self, other: TextFile) -> TextFile:
        """``other``, with this file's lines and terminators, told what this file knows of
        them (where lines start too, when it is encoded alike: then its bytes are the same)."""
        end = self.__dict__.get("_same_end", _UNKNOWN)
        if end is not _UNKNOWN:
            other.knowing_ends(cast("str | None", end))
        starts = self.__dict__.get("_line_starts")
        if starts is not None and (other.encoding, other.bom) == (self.encoding, self.bom):
            other.knowing_starts(starts)
        return other

    @property
    def text(self) -> str:
        lines, eols = self.lines, self.eols
        # One terminator throughout (the usual file, perhaps but the last line): a join in C,
        # no string per line.
        end = self.same_end
        if end:
            return end.join(lines) + end
        if len(eols) > 1 and eols[0] and eols[-1] == "" and eols.count(eols[0]) == len(eols) - 1:
            return eols[0].join(lines)
        return "".join(map(operator.add, lines, eols))

    def lines_with_ends(self) -> list[str]:
        return list(map(operator.add, self.lines, self.eols))

    def encode(self) -> bytes:
        return self.encode_text(self.text)

    def encode_text(self, text: str) -> bytes:
        """Encode ``text`` the way this file is encoded (same codec, same BOM).

        A character the encoding cannot hold raises :class:`UnrepresentableCharacter`; a lone
        surrogate it cannot write stays a ``UnicodeEncodeError`` (bad input, not a choice of
        character).
        """
        try:
            body = text.encode(self.encoding, errors_for(self.encoding))
        except UnicodeEncodeError as exc:
            char = exc.object[exc.start]
            if "\ud800" <= char <= "\udfff":
                raise
            raise UnrepresentableCharacter(
                f"{_describe(char)} cannot be written in {self.encoding}, the encoding of "
                "this file; write it another way (an escape the file's language knows) "
                "or leave it out.",
                {"character": char, "codepoint": f"U+{ord(char):04X}", "encoding": self.encoding},
            ) from None
        return (_BOM_OF[self.encoding] + body) if self.bom else body

    def with_text(self, text: str) -> TextFile:
        lines, eols = split_lines(text)
        return TextFile(tuple(lines), tuple(eols), self.encoding, self.bom, self.decision)

    @property
    def eol(self) -> str:
        """The terminator new lines take."""
        return self.same_end or dominant_eol(self.eols)

    @property
    def final_newline(self) -> bool:
        return not self.eols or self.eols[-1] != ""

    @property
    def eol_style(self) -> str:
        """``lf``, ``crlf``, ``cr``, or ``mixed`` when several terminators occur."""
        kinds = set(self.eols) - {""}
        if len(kinds) > 1:
            return "mixed"
        return eol_name(kinds.pop() if kinds else "\n")

    def __len__(self) -> int:
        return len(self.lines)

    def splice(
        self, start: int, end: int, new_lines: Sequence[str], eol: str | None = None
    ) -> TextFile:
        """Replace lines ``[start, end)`` (0-based) with ``new_lines``.

        Bytes outside the splice stay identical. A replaced block keeps the terminator of its
        last line, so replacing one line changes only that line's bytes; other new lines take
        ``eol``, by default the file's dominant terminator. A file without a final newline
        keeps lacking one.
        """
        if not 0 <= start <= end <= len(self.lines):
            raise ValueError(f"bad splice [{start}, {end}) of {len(self.lines)} lines")
        eol = eol or self.eol
        lines = list(self.lines)
        eols = list(self.eols)
        new = list(new_lines)
        if end > start:
            new_eols = [eols[start + i] if start + i < end - 1 else eol for i in range(len(new))]
            if new:
                new_eols[-1] = eols[end - 1]
            elif end == len(lines) and eols[end - 1] == "" and start > 0 and lines[start - 1]:
                # Deleting the unterminated last line: the new last line loses its terminator
                # (unless it is empty: an empty line without one is no line at all).
                eols[start - 1] = ""
        else:
            new_eols = [eol] * len(new)
            if new and start == len(lines) and start > 0 and eols[-1] == "":
                # Appending after an unterminated last line: it gains one, the new end lacks one.
                eols[-1] = eol
                new_eols[-1] = ""
        lines[start:end] = new
        eols[start:end] = new_eols
        return TextFile(tuple(lines), tuple(eols), self.encoding, self.bom, self.decision)


def _describe(char: str) -> str:
    name = unicodedata.name(char, "")
    return f"'{char}' (U+{ord(char):04X}{' ' + name if name else ''})"


def convert_newlines(text: str, eol: str) -> str:
    """Give text written with ``\\n`` the file's terminator (text with ``\\r`` is kept as is)."""
    if eol == "\n" or "\r" in text:
        return text
    return text.replace("\n", eol)


# A turn label in a table row or a terminal line.
LABEL_MAX = 72


def one_line(text: str, limit: int = LABEL_MAX) -> str:
    """``text`` as a turn label fits a table row: its first non-blank line without control
    characters, `` …`` when more lines follow, at most ``limit`` characters."""
    lines = [
        "".join(c for c in line.replace("\t", " ") if unicodedata.category(c)[0] != "C").strip()
        for line in text.splitlines()
    ]
    kept = [line for line in lines if line]
    first = (kept[0] + " …") if len(kept) > 1 else "".join(kept)
    return first if len(first) <= limit else first[: limit - 1] + "…"
