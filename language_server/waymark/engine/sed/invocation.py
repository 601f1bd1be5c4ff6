"""Recognise ``sed -i … SCRIPT FILE`` among shell words, with GNU getopt_long's rules.

Accepted: ``-i``/``--in-place`` with or without a backup suffix (and BSD's ``-i ''``, read as
"no backup"), ``-E``/``-r``/``--regexp-extended``, ``-e``/``--expression`` (repeatable),
``-n``, ``-s`` (implied by ``-i``), ``--`` and unambiguous long-option prefixes. Options must
come before the operands: GNU permutes them only when POSIXLY_CORRECT is unset, which the line
can't show.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from waymark.engine.sed.decline import SedDecline
from waymark.engine.sed.script import SedScript
from waymark.engine.sed.script_parse import parse_script
from waymark.engine.sed.shell import HomeOf, Word, glob_decline, split_shell_words

SED_PROGRAMS = ("sed", "/usr/bin/sed", "/bin/sed")
_WRAPPERS = {
    "sudo": "sudo runs sed as another user",
    "doas": "doas runs sed as another user",
    "env": "env changes sed's environment",
    "xargs": "xargs chooses the files at run time",
    "command": "'command sed' is not simulated; call sed directly",
    "exec": "exec replaces the shell",
    "time": "time wraps the command",
    "nohup": "nohup wraps the command",
    "busybox": "busybox sed is not GNU sed",
    "gsed": "only the program named sed is simulated, not gsed",
}
_LONG_OPTIONS = (
    "binary",
    "debug",
    "expression",
    "file",
    "follow-symlinks",
    "help",
    "in-place",
    "line-length",
    "null-data",
    "zero-terminated",
    "posix",
    "quiet",
    "regexp-extended",
    "sandbox",
    "separate",
    "silent",
    "unbuffered",
    "version",
)
_OPTION_DECLINES = {
    "z": "-z (NUL-separated lines) is not simulated",
    "null-data": "--null-data (NUL-separated lines) is not simulated",
    "zero-terminated": "--zero-terminated (NUL-separated lines) is not simulated",
    "u": "-u (unbuffered) is not simulated",
    "unbuffered": "--unbuffered is not simulated",
    "f": "-f (script from a file) is not simulated",
    "file": "--file (script from a file) is not simulated",
    "posix": "--posix changes the regex syntax and is not simulated",
    "follow-symlinks": "--follow-symlinks is not simulated",
    "debug": "--debug prints a program dump and is not simulated",
    "binary": "--binary is not simulated",
    "b": "-b (binary) is not simulated",
    "l": "-l (line length) is not simulated",
    "line-length": "--line-length is not simulated",
    "help": "--help does not edit a file",
    "version": "--version does not edit a file",
}


@dataclass(frozen=True)
class SedInvocation:
    """A recognised ``sed -i`` line: its file operands, the compiled script, and the backup
    suffix ("" for none)."""

    paths: tuple[str, ...]
    script: SedScript
    extended: bool
    # Per path: the pattern the shell expands it by, for an operand with unquoted * or ?.
    globs: tuple[PathGlob | None, ...]
    backup_suffix: str = ""

    def backup_name(self, path: str) -> str | None:
        """The name GNU renames the operand ``path`` to before writing it (None: no backup).

        Each ``*`` in the suffix is the operand as written, directories included; a suffix
        without one follows the operand. ``*`` alone, like no suffix, makes no backup.
        """
        suffix = self.backup_suffix
        if suffix in ("", "*"):
            return None
        return suffix.replace("*", path) if "*" in suffix else path + suffix


# Commands through which one file's run can change another's: the order of files matters.
_ORDER_DEPENDENT = frozenset("qQhHgGx")


@dataclass(frozen=True)
class GlobPart:
    """One ``/``-separated component of a glob operand, as written (``text``)."""

    text: str
    # The Python regex a name must fully match; None for a literal component.
    pattern: str | None
    # Whether it has a ``?``: one character in a UTF-8 shell but one byte in C.
    one_char: bool


# A file operand with unquoted ``*``/``?``, matched by the shell one directory level at a time.
PathGlob = tuple[GlobPart, ...]


def _path_glob(word: Word) -> PathGlob:
    parts: list[GlobPart] = []
    start = 0
    for text in word.text.split("/"):
        positions = {p - start for p in word.globs if start <= p < start + len(text)}
        start += len(text) + 1
        if not positions:
            parts.append(GlobPart(text, None, False))
            continue
        if any(text[p : p + 2] == "**" and p + 1 in positions for p in positions):
            raise SedDecline("'**' is recursive in zsh and plain '*' in bash; name the files")
        pattern = "".join(
            ("[^/]*" if char == "*" else "[^/]") if offset in positions else re.escape(char)
            for offset, char in enumerate(text)
        )
        parts.append(GlobPart(text, pattern, any(text[p] == "?" for p in positions)))
    return tuple(parts)


def _long_option(name: str) -> str:
    if name in _LONG_OPTIONS:
        return name
    candidates = [option for option in _LONG_OPTIONS if option.startswith(name)]
    if len(candidates) == 1:
        return candidates[0]
    if candidates:
        raise SedDecline(f"the option --{name} is ambiguous ({', '.join(candidates)})")
    raise SedDecline(f"unknown option --{name}: GNU sed rejects it")


def _extended_after(expressions: list[str]) -> bool:
    if expressions:
        raise SedDecline(
            "-E after -e is not simulated: GNU compiles each -e with the options seen so far, "
            "so the earlier scripts stay basic regexes; put -E first"
        )
    return True


def _backup_suffix(suffix: str) -> str:
    if "/" in suffix and "*" not in suffix:
        raise SedDecline(
            f"the backup suffix {suffix!r} has a '/' but no '*': GNU sed appends it to the "
            "file's name and fails to rename the file; write a '*' where the name goes "
            "(-i'bak/*')"
        )
    return suffix


def parse_command_line(line: str, home_of: HomeOf | None = None) -> SedInvocation:
    """Recognise a ``sed -i`` shell line and compile its script; SedDecline otherwise.

    ``home_of`` looks up the home directories an unquoted leading ``~`` expands to; without
    it such a word is declined.
    """
    shell_words = split_shell_words(line, home_of)
    words = [word.text for word in shell_words]
    if not words:
        raise SedDecline("the line is empty")
    program = words[0]
    if re.match(r"[A-Za-z_][A-Za-z0-9_]*=", program):
        raise SedDecline(f"an environment assignment prefix ({program}) is not simulated")
    if program not in SED_PROGRAMS:
        base = program.rsplit("/", 1)[-1]
        reason = _WRAPPERS.get(base)
        if reason:
            raise SedDecline(reason)
        raise SedDecline(f"the command is {program!r}, not sed")
    in_place = quiet = False
    extended = False
    suffix = ""
    expressions: list[str] = []
    operand_words: list[Word] = []
    index = 1
    while index < len(words):
        word = words[index]
        index += 1
        if operand_words or word == "-" or not word.startswith("-"):
            if word.startswith("-") and word != "-" and operand_words:
                raise SedDecline(
                    f"the option {word} after an operand is not simulated (GNU's reading of "
                    "it depends on POSIXLY_CORRECT)"
                )
            operand_words.append(shell_words[index - 1])
            continue
        if word == "--":
            operand_words.extend(shell_words[index:])
            break
        if word.startswith("--"):
            name, has_value, value = word[2:].partition("=")
            option = _long_option(name)
            if option == "in-place":
                suffix = _backup_suffix(value) if has_value else ""
                in_place = True
            elif option == "regexp-extended":
                extended = _extended_after(expressions)
            elif option == "expression":
                if not has_value:
                    if index >= len(words):
                        raise SedDecline("--expression needs a script: GNU sed rejects it")
                    value = words[index]
                    index += 1
                expressions.append(value)
            elif option in ("quiet", "silent"):
                quiet = True
            elif option in ("sandbox", "separate"):
                pass
            else:
                raise SedDecline(_OPTION_DECLINES[option])
            continue
        cluster = word[1:]
        position = 0
        while position < len(cluster):
            flag = cluster[position]
            position += 1
            if flag == "i":
                suffix = _backup_suffix(cluster[position:])
                in_place = True
                if position == len(cluster) and index < len(words) and words[index] == "":
                    # BSD/macOS spelling of "no backup": sed -i '' … (GNU reads '' as the script).
                    index += 1
                break
            if flag in "Er":
                extended = _extended_after(expressions)
            elif flag == "n":
                quiet = True
            elif flag == "s":
                pass
            elif flag == "e":
                value = cluster[position:]
                if not value:
                    if index >= len(words):
                        raise SedDecline("-e needs a script: GNU sed rejects it")
                    value = words[index]
                    index += 1
                expressions.append(value)
                break
            elif flag in _OPTION_DECLINES:
                raise SedDecline(_OPTION_DECLINES[flag])
            else:
                raise SedDecline(f"unknown option -{flag}: GNU sed rejects it")
    if not in_place:
        raise SedDecline(
            "without -i sed prints to stdout and changes no file, so it is not simulated"
        )
    if not expressions:
        if not operand_words:
            raise SedDecline("the line has no sed script")
        expressions.append(operand_words.pop(0).text)
    operands = [word.text for word in operand_words]
    if not operands:
        raise SedDecline("the line names no file to edit")
    for path in operands:
        if path in ("", "-"):
            raise SedDecline("a file operand is empty or '-' (standard input)")
    for shell_word in shell_words:
        if shell_word.globs and not any(shell_word is operand for operand in operand_words):
            raise glob_decline(shell_word)
    script = parse_script(expressions, extended, quiet)
    globs = tuple(_path_glob(w) if w.globs else None for w in operand_words)
    order_dependent = script.writes or any(c.name in _ORDER_DEPENDENT for c in script.program)
    if any(globs) and order_dependent:
        raise SedDecline(
            "a glob's files come in the shell's sort order, which this script depends on "
            "(q/Q, the hold space or a w file); name the files"
        )
    return SedInvocation(tuple(operands), script, extended, globs, suffix)
