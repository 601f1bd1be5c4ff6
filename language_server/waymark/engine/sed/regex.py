"""GNU BRE/ERE (as GNU sed 4.9 hands them to glibc) → Python ``re``, exactly, or a decline.

The text given here is the regex after sed's own delimiter handling and escape
normalisation (``script.py``): an escaped delimiter is already the bare character and
``\\n``, ``\\t``, ... are already the characters themselves.

Exactness has two halves. Syntax: every construct is parsed with GNU's rules (BRE literal
``+ ? ( ) { } |``, context-dependent ``* ^ $``, bracket expressions where ``\\`` is literal
except sed's ``\\t``-style escapes, ...) into a tiny AST. Semantics: glibc returns the
POSIX leftmost-*longest* match, Python the leftmost *first* one in backtracking order. They
agree when the Python pattern is deterministic: reading left to right, the next character
alone decides every choice, and greedy loops always prefer consuming, so the first match
Python finds is the longest one and its groups are the only possible split. One exception is
allowed: a single ambiguous point (a loop whose body overlaps what follows, like ``.*`` in
``a.*b``, or literal alternatives where one is a prefix of another) provided everything after
it has a fixed width; Python tries that point's options longest first, so again the first
match found is the longest. Without groups, the part after it may also end in ``.*`` (every
match then ends at the line end). Anything outside that class is declined.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from waymark.engine.sed.charset import SPACE, WORD, CharSet, posix_class
from waymark.engine.sed.decline import SedDecline


@dataclass(frozen=True)
class Repeat:
    """One character from ``chars``, ``low`` to ``high`` times (``high`` None: unbounded)."""

    chars: CharSet
    low: int = 1
    high: int | None = 1


@dataclass(frozen=True)
class Alternatives:
    """Literal strings, any one of them."""

    options: tuple[str, ...]


@dataclass(frozen=True)
class Anchor:
    """A zero-width assertion: bol/eol (``^ $``), start/end (``\\` \\'``), word(_start|_end)."""

    kind: str


@dataclass(frozen=True)
class Group:
    index: int
    body: tuple[Node, ...]


@dataclass(frozen=True)
class BackRef:
    """``\\N``: what group N matched (only in regexes whose matches are not used)."""

    index: int


@dataclass(frozen=True)
class GroupRepeat:
    """``(text){low,high}``: a group of literal text, repeated; it captures the last copy, which
    is the text itself in POSIX and Python alike."""

    index: int
    text: str
    low: int
    high: int | None


Node = Repeat | Alternatives | Anchor | Group | BackRef | GroupRepeat
Item = Repeat | Alternatives | Anchor | BackRef | GroupRepeat

_MAX_REPEAT = 1000


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


class _Parser:
    def __init__(self, text: str, extended: bool, backrefs: bool = False) -> None:
        self.text = text
        self.extended = extended
        self.backrefs = backrefs
        self.pos = 0
        self.groups = 0
        self.closed = 0
        self.depth = 0

    def fail(self, reason: str) -> SedDecline:
        return SedDecline(f"regex {self.text!r}: {reason}")

    def parse(self) -> tuple[Node, ...]:
        body = self.alternation()
        if self.pos != len(self.text):
            raise self.fail("an unmatched ')' is not simulated")
        return body

    def at_group_close(self) -> bool:
        if self.extended:
            return self.text.startswith(")", self.pos) and self.depth > 0
        return self.text.startswith("\\)", self.pos)

    def at_bar(self) -> bool:
        return self.text.startswith("|" if self.extended else "\\|", self.pos)

    def alternation(self) -> tuple[Node, ...]:
        branches = [self.sequence()]
        while self.at_bar():
            self.pos += 1 if self.extended else 2
            branches.append(self.sequence())
        if len(branches) == 1:
            return branches[0]
        options: list[str] = []
        for branch in branches:
            literal = _literal_text(branch)
            if literal is None:
                raise self.fail(
                    "alternation is only simulated between plain literal strings, because "
                    "POSIX picks the longest alternative and Python the first"
                )
            if not literal:
                raise self.fail("an empty alternative is not simulated")
            if literal not in options:
                options.append(literal)
        return (Alternatives(tuple(options)),)

    def sequence(self) -> tuple[Node, ...]:
        nodes: list[Node] = []
        branch_start = self.pos
        quantified = False
        while self.pos < len(self.text) and not self.at_bar() and not self.at_group_close():
            at_start = self.pos == branch_start
            after_anchor = len(nodes) == 1 and nodes[0] == Anchor("bol")
            char = self.text[self.pos]
            if self.quantifier_ahead():
                if at_start or (after_anchor and not self.extended):
                    if self.extended:
                        raise self.fail(f"a leading {char!r} is an error in GNU ERE")
                    if char != "*":
                        raise self.fail(
                            f"a leading {self.text[self.pos : self.pos + 2]!r} is not simulated"
                        )
                    self.pos += 1
                    nodes.append(Repeat(CharSet.of("*")))
                    continue
                if after_anchor:
                    raise self.fail("a quantifier after '^' is not simulated")
                if quantified:
                    raise self.fail("a quantifier on another quantifier is not simulated")
                nodes[-1] = self.quantify(nodes[-1])
                quantified = True
                continue
            nodes.append(self.atom(at_start))
            quantified = False
        return tuple(nodes)

    def quantifier_ahead(self) -> bool:
        rest = self.text[self.pos :]
        if self.extended:
            return rest[:1] in ("*", "+", "?", "{")
        return rest[:1] == "*" or rest[:2] in ("\\+", "\\?", "\\{")

    def quantify(self, node: Node) -> Node:
        rest = self.text[self.pos :]
        if rest.startswith("*"):
            self.pos += 1
            low, high = 0, None
        elif rest[:1] in ("+", "?") or rest[:2] in ("\\+", "\\?"):
            op = rest[0] if self.extended else rest[1]
            self.pos += 1 if self.extended else 2
            low, high = (1, None) if op == "+" else (0, 1)
        else:
            low, high = self.interval()
        if isinstance(node, Group):
            text = _literal_text(node.body)
            if text is None or "\n" in text:
                raise self.fail(
                    "a quantifier on a group is simulated only for a group of literal text"
                )
            return GroupRepeat(node.index, text, low, high)
        if not isinstance(node, Repeat):
            raise self.fail("a quantifier on an anchor or \\N is not simulated")
        return Repeat(node.chars, low, high)

    def interval(self) -> tuple[int, int | None]:
        opener = "{" if self.extended else "\\{"
        closer = "}" if self.extended else "\\}"
        self.pos += len(opener)
        end = self.text.find(closer, self.pos)
        match = re.fullmatch(r"(\d*)(,(\d*))?", self.text[self.pos : end]) if end >= 0 else None
        if match is None or not (match.group(1) or match.group(2)):
            raise self.fail(f"an invalid interval after {opener!r} is an error in GNU sed")
        # GNU reads {,n} as {0,n}.
        low = int(match.group(1) or 0)
        high: int | None = low
        if match.group(2):
            high = int(match.group(3)) if match.group(3) else None
        if (high is not None and high < low) or max(low, high or 0) > _MAX_REPEAT:
            raise self.fail("an interval with a reversed or very large bound is not simulated")
        self.pos = end + len(closer)
        return low, high

    def atom(self, at_start: bool) -> Node:
        text = self.text
        char = text[self.pos]
        self.pos += 1
        if char == ".":
            return Repeat(CharSet.anything())
        if char == "[":
            return Repeat(self.bracket())
        if char == "^":
            if self.extended:
                return Anchor("bol")
            if at_start:
                return Anchor("bol")
            return Repeat(CharSet.of("^"))
        if char == "$":
            if self.extended:
                return Anchor("eol")
            rest = text[self.pos :]
            if not rest or rest.startswith("\\)") or rest.startswith("\\|"):
                return Anchor("eol")
            return Repeat(CharSet.of("$"))
        if self.extended and char == "(":
            return self.group(")")
        if self.extended and char in ")|":
            raise self.fail(f"an unmatched {char!r} is not simulated")
        if char != "\\":
            return Repeat(CharSet.of(char))
        if self.pos >= len(text):
            raise self.fail("a trailing backslash is an error in GNU sed")
        escaped = text[self.pos]
        self.pos += 1
        if not self.extended and escaped == "(":
            return self.group("\\)")
        return self.escape(escaped)

    def group(self, closer: str) -> Node:
        self.groups += 1
        index = self.groups
        self.depth += 1
        body = self.alternation()
        self.depth -= 1
        if not self.text.startswith(closer, self.pos):
            raise self.fail("an unmatched '(' is an error in GNU sed")
        self.pos += len(closer)
        if not body:
            raise self.fail("an empty group is not simulated")
        self.closed += 1
        return Group(index, body)

    def escape(self, escaped: str) -> Node:
        classes = {"w": WORD, "W": WORD.negate(), "s": SPACE, "S": SPACE.negate()}
        if escaped in classes:
            return Repeat(classes[escaped])
        anchors = {"b": "word", "<": "word_start", ">": "word_end", "`": "start", "'": "end"}
        if escaped in anchors:
            return Anchor(anchors[escaped])
        if escaped.isdigit() and self.backrefs and 0 < int(escaped) <= self.closed:
            return BackRef(int(escaped))
        if escaped.isdigit():
            raise self.fail(
                f"the back-reference \\{escaped} is not simulated (POSIX and Python "
                "backtracking differ on it)"
            )
        if escaped == "B":
            raise self.fail("\\B is not simulated (Python never matches it on an empty line)")
        if not escaped.isascii() or escaped.isalnum() or escaped == "\n":
            raise self.fail(f"the escape \\{escaped} has no portable meaning and is not simulated")
        if not self.extended and escaped in ")|}":
            raise self.fail(f"an unmatched \\{escaped} is an error in GNU sed")
        return Repeat(CharSet.of(escaped))

    def bracket(self) -> CharSet:
        text = self.text
        negated = text.startswith("^", self.pos)
        if negated:
            self.pos += 1
        members = CharSet(())
        first = True
        while True:
            if self.pos >= len(text):
                raise self.fail("an unterminated '[' is an error in GNU sed")
            char = text[self.pos]
            if char == "]" and not first:
                self.pos += 1
                break
            first = False
            if text.startswith("[:", self.pos):
                end = text.find(":]", self.pos + 2)
                name = text[self.pos + 2 : end] if end >= 0 else ""
                found = posix_class(name)
                if found is None:
                    raise self.fail(f"the character class [:{name}:] is not simulated")
                members = members.union(found)
                self.pos = end + 2
                continue
            if text.startswith("[=", self.pos) or text.startswith("[.", self.pos):
                raise self.fail("equivalence classes and collating symbols are not simulated")
            low = text[self.pos]
            self.pos += 1
            if text.startswith("-", self.pos) and not text.startswith("-]", self.pos):
                self.pos += 1
                if self.pos >= len(text):
                    raise self.fail("an unterminated '[' is an error in GNU sed")
                if text.startswith("[", self.pos):
                    raise self.fail("a range ending in a class or symbol is not simulated")
                high = text[self.pos]
                self.pos += 1
                if not (low.isascii() and high.isascii()) or "-" in (low, high):
                    raise self.fail("ranges are only simulated between ASCII characters")
                if ord(high) < ord(low):
                    raise self.fail("an invalid range end is an error in GNU sed")
                members = members.union(CharSet.span(low, high))
                continue
            members = members.union(CharSet.of(low))
        return members.negate() if negated else members


def _literal_text(nodes: tuple[Node, ...]) -> str | None:
    chars = []
    for node in nodes:
        single = node.chars.single() if isinstance(node, Repeat) else None
        if not isinstance(node, Repeat) or single is None or (node.low, node.high) != (1, 1):
            return None
        chars.append(single)
    return "".join(chars)


def _flatten(nodes: tuple[Node, ...]) -> list[Item]:
    items: list[Item] = []
    for node in nodes:
        if isinstance(node, Group):
            items.extend(_flatten(node.body))
        else:
            items.append(node)
    return items


def _group_spans(nodes: tuple[Node, ...], start: int = 0) -> tuple[list[tuple[int, int]], int]:
    """Each group's [first, end) item indices in the flattened sequence, and the item count."""
    spans: list[tuple[int, int]] = []
    index = start
    for node in nodes:
        if isinstance(node, Group):
            inner, end = _group_spans(node.body, index)
            spans.append((index, end))
            spans.extend(inner)
            index = end
        else:
            if isinstance(node, GroupRepeat):
                spans.append((index, index + 1))
            index += 1
    return spans, index


def _first(item: Item) -> CharSet:
    if isinstance(item, Repeat):
        return item.chars
    if isinstance(item, Alternatives):
        return CharSet.of(*(option[0] for option in item.options))
    if isinstance(item, BackRef):
        return CharSet.anything()
    if isinstance(item, GroupRepeat):
        return CharSet.of(item.text[0])
    return CharSet(())


def _nullable(item: Item) -> bool:
    if isinstance(item, Repeat | GroupRepeat):
        return item.low == 0
    return isinstance(item, Anchor | BackRef)


def _fixed_width(item: Item) -> bool:
    if isinstance(item, Repeat | GroupRepeat):
        return item.low == item.high
    if isinstance(item, Alternatives):
        return len({len(option) for option in item.options}) == 1
    return not isinstance(item, BackRef)


def _prefix_free(options: tuple[str, ...]) -> bool:
    return not any(a != b and b.startswith(a) for a in options for b in options)


def _is_rest_of_line(item: Item) -> bool:
    """``.*``, ``.+``, ``.\\{n,\\}``: can take everything up to the line end."""
    return isinstance(item, Repeat) and item.high is None and item.chars == CharSet.anything()


def _ends_with_rest_of_line(tail: list[Item]) -> bool:
    """Fixed-width items, then ``.*``-like, then only anchors: every match ends at the line end."""
    consuming = [i for i, item in enumerate(tail) if not isinstance(item, Anchor)]
    if not consuming:
        return False
    return (
        _is_rest_of_line(tail[consuming[-1]])
        and all(_fixed_width(item) for item in tail[: consuming[-1]])
        and all(
            isinstance(item, Anchor) and item.kind in ("eol", "end")
            for item in tail[consuming[-1] + 1 :]
        )
    )


def _check_deterministic(source: str, items: list[Item], spans: list[tuple[int, int]]) -> None:
    ambiguous_at: int | None = None
    for index, item in enumerate(items):
        if isinstance(item, Repeat | GroupRepeat):
            if item.low == item.high:
                continue
            follow = CharSet(())
            for later in items[index + 1 :]:
                follow = follow.union(_first(later))
                if not _nullable(later):
                    break
            # A repeated literal group can stop only where its text cannot go on.
            if not _first(item).intersects(follow):
                continue
        elif isinstance(item, Alternatives):
            if _prefix_free(item.options):
                continue
        else:
            continue
        if ambiguous_at is not None:
            raise SedDecline(
                f"regex {source!r}: two overlapping repetitions or alternatives can make "
                "POSIX leftmost-longest and Python matching disagree, so it is not simulated"
            )
        ambiguous_at = index
    if ambiguous_at is None:
        return
    tail = items[ambiguous_at + 1 :]
    if all(_fixed_width(i) for i in tail):
        return
    # "a.*b.*": all candidate matches end at the line end, so only the split between the two
    # repetitions varies, and nothing observes it unless a group starts or ends inside it.
    last = len(items) - 1
    while isinstance(items[last], Anchor):
        last -= 1
    splits = any(ambiguous_at < edge <= last for span in spans for edge in span)
    # A group edge after it is observed, but a repetition there is greedy in Python and the
    # longest subexpression in POSIX alike (\(.*\)=\(.*\) splits at the last '='); an
    # alternation is not (Python takes the first option that fits).
    greedy = isinstance(items[ambiguous_at], Repeat)
    if (greedy or not splits) and _ends_with_rest_of_line(tail):
        return
    raise SedDecline(
        f"regex {source!r}: a variable-width part after an overlapping repetition can make "
        "POSIX leftmost-longest and Python matching disagree, so it is not simulated"
    )


def _emit(nodes: tuple[Node, ...], buffer: bool, ascii_only: bool) -> str:
    parts: list[str] = []
    for node in nodes:
        if isinstance(node, Group):
            parts.append("(" + _emit(node.body, buffer, ascii_only) + ")")
        elif isinstance(node, BackRef):
            parts.append(f"(?:\\{node.index})")
        elif isinstance(node, GroupRepeat):
            parts.append("(" + re.escape(node.text) + ")" + _quantifier(node.low, node.high))
        elif isinstance(node, Alternatives):
            options = [o for o in node.options if not (buffer and "\n" in o)]
            options.sort(key=len, reverse=True)
            parts.append(
                "(?:" + "|".join(re.escape(o) for o in options) + ")" if options else "(?!)"
            )
        elif isinstance(node, Anchor):
            parts.append(_anchor(node.kind, buffer, ascii_only))
        else:
            parts.append(_repeat(node, buffer, ascii_only))
    return "".join(parts)


def _anchor(kind: str, buffer: bool, ascii_only: bool) -> str:
    if kind.startswith("word"):
        # Python's \b knows ASCII or Python's Unicode letters; glibc's word class is neither.
        word = WORD.to_python(exclude_newline=True, ascii_only=ascii_only)
        after, before = f"(?={word})", f"(?<={word})"
        not_after, not_before = f"(?!{word})", f"(?<!{word})"
        return {
            "word": f"(?:{before}{not_after}|{not_before}{after})",
            "word_start": not_before + after,
            "word_end": before + not_after,
        }[kind]
    return {
        "bol": "^",
        "start": "^",
        "eol": "$" if buffer else r"\Z",
        "end": "$" if buffer else r"\Z",
    }[kind]


def _repeat(node: Repeat, buffer: bool, ascii_only: bool) -> str:
    atom = node.chars.to_python(exclude_newline=buffer, ascii_only=ascii_only)
    if atom.startswith("(?!") and (node.low, node.high) != (1, 1):
        atom = "(?:" + atom + ")"
    return atom + _quantifier(node.low, node.high)


def _quantifier(low: int, high: int | None) -> str:
    if (low, high) == (1, 1):
        return ""
    if (low, high) == (0, None):
        return "*"
    if (low, high) == (1, None):
        return "+"
    if (low, high) == (0, 1):
        return "?"
    if high == low:
        return f"{{{low}}}"
    return f"{{{low},{'' if high is None else high}}}"


def _group_nullability(nodes: tuple[Node, ...], count: int) -> tuple[bool, ...]:
    result = [False] * (count + 1)

    def visit(body: tuple[Node, ...]) -> None:
        for node in body:
            if isinstance(node, Group):
                result[node.index] = all(_nullable(i) for i in _flatten(node.body))
                visit(node.body)
            elif isinstance(node, GroupRepeat):
                # Repeated zero times, the group takes no part: \1 is empty.
                result[node.index] = node.low == 0

    visit(nodes)
    result[0] = all(_nullable(i) for i in _flatten(nodes))
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


def _fold(item: Item) -> Item:
    """The item as the analysis must see it under the I flag: each ASCII letter with its pair."""
    if isinstance(item, Repeat):
        pairs = [
            (ord(chr(c).swapcase()),) * 2
            for low, high in item.chars.ranges
            for c in range(low, min(high, 0x7F) + 1)
            if chr(c).isalpha()
        ]
        folded = CharSet(item.chars.ranges, item.chars.locale).union(CharSet(tuple(pairs)))
        return Repeat(folded, item.low, item.high)
    if isinstance(item, Alternatives):
        return Alternatives(tuple(o.lower() for o in item.options))
    return item


def compile_regex(
    source: str, extended: bool, icase: bool = False, address: bool = False
) -> CompiledRegex:
    """Translate one GNU regex; raises SedDecline when the result could differ from GNU.

    With ``icase`` (the I flag) Python folds ASCII letters only, which is GNU's folding for
    ASCII text; the regex is marked locale-dependent so non-ASCII text it examines is declined.
    Classes and word boundaries use glibc's measured tables.
    """
    parser = _Parser(source, extended, backrefs=address and not icase)
    nodes = parser.parse()
    items = _flatten(nodes)
    if icase and any(isinstance(item, GroupRepeat) for item in items):
        raise SedDecline(f"regex {source!r}: a repeated group under the I flag is not simulated")
    # An address only asks whether a match exists, which any two correct engines agree on;
    # which match POSIX picks matters only when s reuses the regex (s//x/).
    undetermined = None
    try:
        _check_deterministic(
            source, [_fold(i) for i in items] if icase else items, _group_spans(nodes)[0]
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
    leading_rest = bool(items) and _is_rest_of_line(items[0])
    anchor = "^" if leading_rest else ""
    flags = re.ASCII | (re.IGNORECASE if icase else 0)
    # glibc's tables make classes of hundreds of ranges, slow to compile: ASCII text gets
    # patterns cut to ASCII, and the full ones are compiled only for text that needs them.
    full_sources = None
    if tables:
        full_sources = (
            anchor + _emit(nodes, buffer=True, ascii_only=False),
            anchor + _emit(nodes, buffer=False, ascii_only=False),
        )
    return CompiledRegex(
        source=source,
        ascii_buffer_pattern=re.compile(
            anchor + _emit(nodes, buffer=True, ascii_only=True), re.MULTILINE | flags
        ),
        ascii_space_pattern=re.compile(anchor + _emit(nodes, buffer=False, ascii_only=True), flags),
        full_sources=full_sources,
        groups=parser.groups,
        nullable=all(_nullable(i) for i in items),
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
