"""GNU BRE/ERE (as GNU sed 4.9 hands them to glibc) → Python ``re``, exactly, or a decline.

The text given here is the regex after sed's own delimiter handling and escape
normalisation (``script_scan.py``): an escaped delimiter is already the bare character and
``\\n``, ``\\t``, ... are already the characters themselves.

Exactness has two halves. Syntax: ``regex_parse.py`` reads every construct with GNU's rules
into a tiny AST. Semantics: ``regex_exact.py`` admits only patterns whose first Python match
is the POSIX leftmost-longest one. ``regex_emit.py`` writes the AST as Python source; here
``compile_regex`` puts them together with the facts the simulator needs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from waymark.engine.sed.decline import SedDecline
from waymark.engine.sed.regex_emit import emit
from waymark.engine.sed.regex_exact import (
    check_deterministic,
    flatten,
    fold,
    group_spans,
    is_rest_of_line,
    nullable,
)
from waymark.engine.sed.regex_parse import (
    Anchor,
    BackRef,
    Group,
    GroupRepeat,
    Item,
    Node,
    Parser,
    Repeat,
)


@dataclass(frozen=True)
class CompiledRegex:
    """A GNU regex proven translatable, with the facts the simulator needs."""

    source: str
    # Exact on ASCII text, and on any text unless full_sources is set.
    ascii_buffer_pattern: re.Pattern[str]
    ascii_space_pattern: re.Pattern[str]
    # The whole-buffer and pattern-space sources with glibc's full tables, when they differ.
    full_sources: tuple[str, str] | None
    groups: int
    nullable: bool
    group_nullable: tuple[bool, ...]
    # I flag: Python folds ASCII letters only, so non-ASCII text it examines is declined.
    locale_dependent: bool
    required_literal: str
    line_anchored: bool
    has_line_anchor: bool
    lone_anchor: str
    trailing_run: tuple[str, int] | None
    # Finds required_literal in text: exactly, or under the I flag with every case GNU may fold.
    literal_finder: re.Pattern[str] | None = None
    # A glibc class or word boundary: text with code points the tables cannot vouch for is
    # declined.
    uses_tables: bool = False
    # Why the match POSIX picks is unproven (set for addresses only, which just test for one).
    undetermined: str | None = None
    # The M flag: ^ and $ also match around a newline inside the pattern space, and . and
    # [^…] stop matching one. On a pattern space of one line that changes nothing, so the
    # pattern is the same, and a pattern space holding a newline is declined.
    multiline: bool = False

    @property
    def buffer_pattern(self) -> re.Pattern[str]:
        """The pattern for a whole buffer (``re.MULTILINE``), exact on any text."""
        if self.full_sources is None:
            return self.ascii_buffer_pattern
        return _compile_full(self.full_sources[0], self.ascii_buffer_pattern.flags)

    @property
    def space_pattern(self) -> re.Pattern[str]:
        """The pattern for one pattern space, exact on any text."""
        if self.full_sources is None:
            return self.ascii_space_pattern
        return _compile_full(self.full_sources[1], self.ascii_space_pattern.flags)

    def buffer_for(self, text: str) -> re.Pattern[str]:
        return self.ascii_buffer_pattern if text.isascii() else self.buffer_pattern

    def space_for(self, text: str) -> re.Pattern[str]:
        return self.ascii_space_pattern if text.isascii() else self.space_pattern


@lru_cache(maxsize=32)
def _compile_full(source: str, flags: int) -> re.Pattern[str]:
    return re.compile(source, flags)


def _group_nullability(nodes: tuple[Node, ...], count: int) -> tuple[bool, ...]:
    result = [False] * (count + 1)

    def visit(body: tuple[Node, ...]) -> None:
        for node in body:
            if isinstance(node, Group):
                result[node.index] = all(nullable(i) for i in flatten(node.body))
                visit(node.body)
            elif isinstance(node, GroupRepeat):
                # Repeated zero times, the group takes no part: \1 is empty.
                result[node.index] = node.low == 0

    visit(nodes)
    result[0] = all(nullable(i) for i in flatten(nodes))
    return tuple(result)


def _required_literal(items: list[Item]) -> str:
    best = run = ""
    for item in items:
        single = item.chars.single() if isinstance(item, Repeat) else None
        if isinstance(item, Repeat) and single is not None and item.low == item.high == 1:
            run += single
            best = max(best, run, key=len)
        elif not isinstance(item, Anchor):
            run = ""
    return best


def compile_regex(
    source: str, extended: bool, icase: bool = False, address: bool = False
) -> CompiledRegex:
    """Translate one GNU regex; raises SedDecline when the result could differ from GNU.

    With ``icase`` (the I flag) Python folds ASCII letters only, which is GNU's folding for
    ASCII text; the regex is marked locale-dependent so non-ASCII text it examines is declined.
    Classes and word boundaries use glibc's measured tables.
    """
    parser = Parser(source, extended, backrefs=address and not icase)
    nodes = parser.parse()
    items = flatten(nodes)
    if icase and any(isinstance(item, GroupRepeat) for item in items):
        raise SedDecline(f"regex {source!r}: a repeated group under the I flag is not simulated")
    # An address only asks whether a match exists, which any two correct engines agree on;
    # which match POSIX picks matters only when s reuses the regex (s//x/).
    undetermined = None
    try:
        check_deterministic(
            source, [fold(i) for i in items] if icase else items, group_spans(nodes)[0]
        )
    except SedDecline as decline:
        if not address:
            raise
        undetermined = decline.reason
    if any(isinstance(item, BackRef) for item in items):  # only parsed in addresses
        undetermined = f"regex {source!r}: back-references are simulated in addresses only"
    tables = any(isinstance(i, Repeat) and i.chars.locale for i in items) or any(
        isinstance(i, Anchor) and i.kind.startswith("word") for i in items
    )
    # A regex that opens with ".*" matches from the line start whenever it matches at all,
    # and its longest match leaves nothing for a second one: anchoring it is exact, and it
    # keeps Python from retrying every start of a long line (quadratic on minified files).
    leading_rest = bool(items) and is_rest_of_line(items[0])
    anchor = "^" if leading_rest else ""
    flags = re.ASCII | (re.IGNORECASE if icase else 0)
    # glibc's tables make classes of hundreds of ranges, slow to compile: ASCII text gets
    # patterns cut to ASCII, and the full ones are compiled only for text that needs them.
    full_sources = None
    if tables:
        full_sources = (
            anchor + emit(nodes, buffer=True, ascii_only=False),
            anchor + emit(nodes, buffer=False, ascii_only=False),
        )
    return CompiledRegex(
        source=source,
        ascii_buffer_pattern=re.compile(
            anchor + emit(nodes, buffer=True, ascii_only=True), re.MULTILINE | flags
        ),
        ascii_space_pattern=re.compile(anchor + emit(nodes, buffer=False, ascii_only=True), flags),
        full_sources=full_sources,
        groups=parser.groups,
        nullable=all(nullable(i) for i in items),
        group_nullable=_group_nullability(nodes, parser.groups),
        locale_dependent=icase,
        uses_tables=tables,
        undetermined=undetermined,
        required_literal=_required_literal(items),
        literal_finder=_literal_finder(_required_literal(items), icase),
        line_anchored=leading_rest
        or (bool(items) and items[0] in (Anchor("bol"), Anchor("start"))),
        has_line_anchor=any(
            isinstance(i, Anchor) and i.kind in ("bol", "eol", "start", "end") for i in items
        ),
        lone_anchor=_lone_anchor(items),
        trailing_run=None if icase else _trailing_run(items),
    )


# Non-ASCII characters whose glibc case mapping is an ASCII letter.
_FOLDS_TO_ASCII = {"k": "\u212a", "s": "\u017f", "i": "\u0130\u0131"}


def _literal_finder(literal: str, icase: bool) -> re.Pattern[str] | None:
    if not literal:
        return None
    if not icase:
        return re.compile(re.escape(literal))
    parts = []
    for char in literal:
        lower = char.lower()
        if char.isalpha():
            parts.append(
                "[" + re.escape(lower + char.upper() + _FOLDS_TO_ASCII.get(lower, "")) + "]"
            )
        else:
            parts.append(re.escape(char))
    return re.compile("".join(parts))


def _lone_anchor(items: list[Item]) -> str:
    """ "bol" for a regex that is just ``^``, "eol" for just ``$``, else ""."""
    if len(items) == 1 and isinstance(items[0], Anchor):
        return {"bol": "bol", "start": "bol", "eol": "eol", "end": "eol"}.get(items[0].kind, "")
    return ""


def _trailing_run(items: list[Item]) -> tuple[str, int] | None:
    """(chars, minimum) for ``[chars]\\{min,\\}$``: the match is the line's trailing run."""
    if len(items) != 2 or items[1] not in (Anchor("eol"), Anchor("end")):
        return None
    run = items[0]
    if not isinstance(run, Repeat) or run.high is not None or run.chars.locale:
        return None
    size = sum(high - low + 1 for low, high in run.chars.ranges)
    if size > 64:
        return None
    chars = "".join(chr(c) for low, high in run.chars.ranges for c in range(low, high + 1))
    return chars, run.low
