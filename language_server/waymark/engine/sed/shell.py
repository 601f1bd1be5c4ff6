"""POSIX shell word splitting for one simple command, declining anything the shell would expand.

Only what a shell passes to ``sed`` literally is accepted: single quotes, double quotes whose
content has no expansion, and backslash escapes. Operators, redirections, expansions, tilde
and brace expansion, ``[`` globs, comments and ANSI-C quoting all end in a SedDecline naming
them, because their result depends on the shell's state, not on the line. Unquoted ``*`` and
``?`` are marked instead: in a file operand they are pathname patterns the command handler
expands as the shell would.
"""

from __future__ import annotations

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
        return SedDecline("the line has a command substitution $(…), which is not simulated")
    return SedDecline(
        "the line has a shell variable or parameter expansion ($…), whose value is unknown"
    )


@dataclass(frozen=True)
class Word:
    """One shell word; ``globs``: the positions in ``text`` of unquoted ``*`` and ``?``."""

    text: str
    globs: tuple[int, ...] = ()


def glob_decline(word: Word) -> SedDecline:
    char = word.text[word.globs[0]]
    return SedDecline(f"an unquoted {char!r} is a glob the shell may expand; quote it")


def split_shell_words(line: str) -> list[Word]:
    """The words the shell would pass to the command; SedDecline for anything not literal but
    unquoted ``*`` and ``?``, which are marked for the caller to expand or decline."""
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
                "the line has a command substitution (backticks), which is not simulated"
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
        # Bash expands a tilde only at a word's start or after = or : (assignment-like words).
        if char == "~" and (not in_word or line[index - 1] in "=:'\""):
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
                "the line has a command substitution (backticks), which is not simulated"
            )
        if char == "$":
            follower = line[index + 1] if index + 1 < length else ""
            if follower and follower in _EXPANSION_START:
                raise _expansion(follower)
        current.append(char)
        index += 1
    raise SedDecline("the line has an unterminated double quote")
