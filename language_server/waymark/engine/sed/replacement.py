"""The right-hand side of ``s``: GNU escapes, group references and case conversion.

Without case conversion the replacement becomes a Python ``re`` template, so whole-buffer
substitution runs in C. Case conversion (``\\U \\L \\E \\u \\l``) is applied in Python with
glibc's C.UTF-8 ``towupper``/``towlower`` maps, measured through GNU sed (``ctype.py``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from waymark.engine.sed.ctype import case_map, has_unassigned
from waymark.engine.sed.decline import SedDecline

_CASE_OPS = "ULEul"


@dataclass(frozen=True)
class Literal:
    text: str


@dataclass(frozen=True)
class Ref:
    """Group ``index`` of the match; 0 is the whole match (``&`` or ``\\0``)."""

    index: int


@dataclass(frozen=True)
class Case:
    """One of ``U L E u l``."""

    op: str


Piece = Literal | Ref | Case


def _convert_case(text: str, upper: bool) -> str:
    if text.isascii():
        return text.upper() if upper else text.lower()
    if has_unassigned(text):
        raise SedDecline(
            "case conversion of a code point unassigned in Unicode 14 is not simulated (a newer "
            "glibc may map it)"
        )
    # glibc maps one code point to one (Python's str.upper turns ß into SS).
    return text.translate(case_map(upper))


@dataclass(frozen=True)
class Replacement:
    pieces: tuple[Piece, ...]

    @property
    def max_ref(self) -> int:
        return max((p.index for p in self.pieces if isinstance(p, Ref)), default=0)

    @property
    def has_case(self) -> bool:
        return any(isinstance(p, Case) for p in self.pieces)

    @property
    def may_insert_newline(self) -> bool:
        return any(isinstance(p, Literal) and "\n" in p.text for p in self.pieces)

    @property
    def is_empty(self) -> bool:
        return not self.pieces

    @property
    def literal(self) -> str | None:
        """The replacement text when it has no references and no case conversion."""
        if all(isinstance(p, Literal) for p in self.pieces):
            return "".join(p.text for p in self.pieces if isinstance(p, Literal))
        return None

    def template(self, shift: int = 0) -> str:
        """A Python ``re`` template (no case conversion); group k becomes group k + ``shift``."""
        out = []
        for piece in self.pieces:
            if isinstance(piece, Literal):
                out.append(piece.text.replace("\\", "\\\\"))
            elif isinstance(piece, Ref):
                out.append(f"\\g<{piece.index + shift}>")
        return "".join(out)

    def expand(self, match: re.Match[str], shift: int = 0) -> str:
        """The replacement text for one match, with GNU case conversion."""
        if not self.has_case:
            # Match.expand would re-parse a template on every call.
            return "".join(
                piece.text if isinstance(piece, Literal) else match.group(piece.index + shift) or ""
                for piece in self.pieces
                if not isinstance(piece, Case)
            )
        out: list[str] = []
        mode = ""
        once = ""
        for piece in self.pieces:
            if isinstance(piece, Case):
                if piece.op in "ul":
                    once = piece.op
                else:
                    mode = "" if piece.op == "E" else piece.op
                continue
            if isinstance(piece, Literal):
                text = piece.text
            else:
                text = match.group(piece.index + shift) or ""
            if not text:
                continue
            if (once or mode) and "\x00" in text:
                if once:
                    raise SedDecline("\\u or \\l on text with a NUL character is not simulated")
                # GNU converts a piece only up to its first NUL (C string functions).
                head, nul, tail = text.partition("\x00")
                out.append(_convert_case(head, mode == "U") + nul + tail)
                continue
            if once:
                out.append(_convert_case(text[0], once == "u"))
                text = text[1:]
                once = ""
            out.append(_convert_case(text, mode == "U") if mode else text)
        return "".join(out)


def parse_replacement(text: str, groups: int, group_nullable: tuple[bool, ...]) -> Replacement:
    """Parse sed's replacement text (after delimiter handling and escape normalisation)."""
    pieces: list[Piece] = []
    literal: list[str] = []

    def flush() -> None:
        if literal:
            pieces.append(Literal("".join(literal)))
            literal.clear()

    index = 0
    while index < len(text):
        char = text[index]
        index += 1
        if char == "&":
            flush()
            pieces.append(Ref(0))
            continue
        if char != "\\":
            literal.append(char)
            continue
        if index >= len(text):
            raise SedDecline("a trailing backslash in the replacement is not simulated")
        escaped = text[index]
        index += 1
        if escaped.isdigit():
            number = int(escaped)
            if number > groups:
                raise SedDecline(
                    f"the replacement refers to \\{number} but the regex has {groups} "
                    "group(s): GNU sed rejects it"
                )
            flush()
            pieces.append(Ref(number))
        elif escaped in _CASE_OPS:
            flush()
            pieces.append(Case(escaped))
        else:
            # GNU drops the backslash of any other escape (``\&``, ``\\``, ``\q``).
            literal.append(escaped)
    flush()
    _check_one_shot_case(pieces, group_nullable)
    return Replacement(tuple(pieces))


def _check_one_shot_case(pieces: list[Piece], group_nullable: tuple[bool, ...]) -> None:
    """``\\u``/``\\l`` must act on text that is surely there; GNU carries them otherwise."""
    for position, piece in enumerate(pieces):
        if not (isinstance(piece, Case) and piece.op in "ul"):
            continue
        following = pieces[position + 1] if position + 1 < len(pieces) else None
        if isinstance(following, Literal):
            continue
        if isinstance(following, Ref) and not group_nullable[following.index]:
            continue
        raise SedDecline(
            f"\\{piece.op} is only simulated right before literal text or a group that "
            "cannot be empty"
        )
