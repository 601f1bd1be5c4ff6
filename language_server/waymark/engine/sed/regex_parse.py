"""GNU BRE/ERE syntax read into a tiny AST: the syntax half of ``regex.py``'s exactness.

Every construct is parsed as glibc reads it for GNU sed 4.9: BRE literal ``+ ? ( ) { } |``,
context-dependent ``* ^ $``, bracket expressions where ``\\`` is literal except sed's
``\\t``-style escapes (already characters here), ... Anything else is declined.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

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


class Parser:
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
