"""POSIX shell word splitting for one simple command, declining anything the shell would expand.

Only what a shell passes to ``sed`` literally is accepted: single quotes, double quotes whose
content has no expansion, and backslash escapes. Operators, redirections, expansions, brace
expansion, ``[`` globs, comments and ANSI-C quoting all end in a SedDecline naming them,
because their result depends on the shell's state, not on the line. Unquoted ``*`` and ``?``
are marked instead: in a file operand they are pathname patterns the command handler expands
as the shell would. A word's unquoted leading ``~`` or ``~user`` is expanded as bash does,
with the home directories the caller looks up; a quoted ``~`` stays a literal name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from waymark.engine.sed.decline import SedDecline

_BLANKS = " \t"
_OPERATORS = {
    ";": "a command list (;)",
    "&": "a background job or && list (&)",
    "|": "a pipe or || list (|)",
    "<": "a redirection (<)",
    ">": "a redirection (>)",
    "(": "a subshell or grouping (()",
    ")": "a subshell or grouping ())",
    "\n": "several lines",
}
_NAME_START = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_"
# After "$" these start a parameter, arithmetic or command expansion.
_EXPANSION_START = _NAME_START + "0123456789{(@*#?$!-"


def _expansion(char: str) -> SedDecline:
    if char == "(":
        return SedDecline(
            "the line has a command substitution $(…), which is not simulated", needs_shell=True
        )
    return SedDecline(
        "the line has a shell variable or parameter expansion ($…), whose value is unknown",
        needs_shell=True,
    )


# A login name's home directory ("" for the shell's own user), or None when there is no such
# user (bash then leaves the word as written).
HomeOf = Callable[[str], str | None]
# A tilde-prefix runs to the first unquoted "/" or the word's end; a quote in it (or an
# expansion, which bash does later) keeps the "~" literal.
_TILDE_LITERAL_AT = "'\"\\$`"
_TILDE_END = _BLANKS + "/" + "".join(_OPERATORS) + _TILDE_LITERAL_AT
_LOGIN_CHARS = frozenset(_NAME_START + "0123456789.-")


@dataclass(frozen=True)
class Word:
    """One shell word; ``globs``: the positions in ``text`` of unquoted ``*`` and ``?``."""

    text: str
    globs: tuple[int, ...] = ()


def glob_decline(word: Word) -> SedDecline:
    char = word.text[word.globs[0]]
    return SedDecline(f"an unquoted {char!r} is a glob the shell may expand; quote it")


def split_shell_words(line: str, home_of: HomeOf | None = None) -> list[Word]:
    """The words the shell would pass to the command; SedDecline for anything not literal but
    unquoted ``*`` and ``?``, which are marked for the caller to expand or decline, and a
    leading ``~``, expanded with ``home_of`` (declined without it)."""
    words: list[Word] = []
    current: list[str] = []
    globs: list[int] = []
    in_word = False
    index = 0
    length = len(line)
    while index < length:
        char = line[index]
        if char in _BLANKS:
            if in_word:
                words.append(Word("".join(current), tuple(globs)))
                current, globs, in_word = [], [], False
            index += 1
            continue
        if char == "\\":
            if index + 1 < length and line[index + 1] == "\n":
                index += 2
                continue
            if index + 1 >= length:
                raise SedDecline("the line ends with a lone backslash")
            current.append(line[index + 1])
            in_word = True
            index += 2
            continue
        if char == "'":
            end = line.find("'", index + 1)
            if end < 0:
                raise SedDecline("the line has an unterminated single quote")
            current.append(line[index + 1 : end])
            in_word = True
            index = end + 1
            continue
        if char == '"':
            index = _double_quoted(line, index + 1, current)
            in_word = True
            continue
        if char in _OPERATORS:
            raise SedDecline(f"the line is not one simple command: it has {_OPERATORS[char]}")
        if char == "`":
            raise SedDecline(
                "the line has a command substitution (backticks), which is not simulated",
                needs_shell=True,
            )
        if char == "$":
            follower = line[index + 1] if index + 1 < length else ""
            if follower == "'":
                raise SedDecline("ANSI-C quoting $'…' is not simulated")
            if follower == '"':
                raise SedDecline('locale quoting $"…" is not simulated')
            if follower and follower in _EXPANSION_START:
                raise _expansion(follower)
        if char == "[":
            raise SedDecline("an unquoted '[' is a glob the shell may expand; quote it")
        if char in "*?":
            globs.append(len("".join(current)))
        if char == "~" and not in_word:
            index = _tilde(line, index, current, home_of)
            in_word = True
            continue
        # Bash also expands a tilde after = or : in assignment-like words.
        if char == "~" and line[index - 1] in "=:'\"":
            raise SedDecline("an unquoted '~' may be tilde-expanded by the shell")
        if char == "{":
            raise SedDecline("an unquoted '{' may be brace-expanded by the shell")
        if char == "#" and not in_word:
            raise SedDecline("the line has a shell comment (#)")
        current.append(char)
        in_word = True
        index += 1
    if in_word:
        words.append(Word("".join(current), tuple(globs)))
    return words


def _tilde(line: str, index: int, current: list[str], home_of: HomeOf | None) -> int:
    """Bash's tilde expansion of the word starting with the unquoted ``~`` at ``index``:
    append what it becomes to ``current``; return the index past the tilde-prefix."""
    end = index + 1
    while end < len(line) and line[end] not in _TILDE_END:
        end += 1
    if end < len(line) and line[end] in _TILDE_LITERAL_AT:
        current.append("~")
        return index + 1
    user = line[index + 1 : end]
    if user in ("+", "-") or user.lstrip("+-").isdigit():
        raise SedDecline(
            f"'~{user}' names the shell's current, previous or stacked directory, which is "
            "not simulated; write the path out"
        )
    if not set(user) <= _LOGIN_CHARS:
        raise SedDecline(f"the tilde expansion of '~{user}' is not simulated; quote the '~'")
    if home_of is None:
        raise SedDecline("an unquoted '~' may be tilde-expanded by the shell")
    home = home_of(user)
    current.append("~" + user if home is None else home)
    return end


def _double_quoted(line: str, index: int, current: list[str]) -> int:
    """Append the content of a double-quoted string starting at ``index``; return past its end."""
    length = len(line)
    while index < length:
        char = line[index]
        if char == '"':
            return index + 1
        if char == "\\" and index + 1 < length:
            follower = line[index + 1]
            if follower == "\n":
                index += 2
                continue
            if follower in '$`"\\':
                current.append(follower)
                index += 2
                continue
            current.append(char)
            index += 1
            continue
        if char == "`":
            raise SedDecline(
                "the line has a command substitution (backticks), which is not simulated",
                needs_shell=True,
            )
        if char == "$":
            follower = line[index + 1] if index + 1 < length else ""
            if follower and follower in _EXPANSION_START:
                raise _expansion(follower)
        current.append(char)
        index += 1
    raise SedDecline("the line has an unterminated double quote")
