"""The words of a shell command line that could name a file, as the shell would see them.

Shell tracking reports paths a command names outside the workspace or ignored by git, so it
needs every word a command could read or write: arguments, redirection targets (``>f``,
``2>>f``, ``&>f``, ``>|f``, right next to ``;``, ``&&``, ``|`` or ``(``), words inside
``$(…)``, backticks, subshells, here-doc redirections and the scripts of ``sh -c``/``bash -c``
and ``eval``. The line is parsed with tree-sitter's bash grammar (loaded on first use: a few
milliseconds, only when a command is tracked); each word is then unquoted as POSIX words are.
What only the running shell knows (variables, ``~``, globs) is left to the caller, marked.
"""

from __future__ import annotations

import functools
import itertools
import shlex
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

# Node types that are one shell word (possibly built of quoted and unquoted parts).
_WORDS = frozenset(
    {
        "word",
        "string",
        "raw_string",
        "ansi_c_string",
        "translated_string",
        "concatenation",
        "number",
        "simple_expansion",
        "expansion",
    }
)
# Inside these the shell runs commands of their own, whose words count again.
_COMMANDS = frozenset({"command_substitution", "process_substitution"})
# Text, not words: a here-doc's body and delimiter, a comment.
_TEXT = frozenset({"heredoc_body", "heredoc_start", "heredoc_end", "comment"})
_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "busybox"})
_CD = frozenset({"cd", "pushd"})
# Bounds for a pathological line: words kept, and scripts of ``sh -c`` within scripts.
MAX_WORDS = 2000
_MAX_DEPTH = 4


@dataclass(frozen=True)
class NamedWord:
    """A word unquoted; ``pattern``: it holds an unquoted ``*``, ``?`` or ``[``."""

    text: str
    pattern: bool = False


@dataclass
class CommandWords:
    """The words of a line that could be paths, and the directories it ``cd``s into."""

    words: list[NamedWord] = field(default_factory=list)
    directories: list[str] = field(default_factory=list)


@functools.cache
def _parser() -> Parser:
    import tree_sitter
    import tree_sitter_bash

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


def command_words(command: str) -> CommandWords:
    """Every word of ``command`` that could name a file a command reads or writes."""
    found = CommandWords()
    _collect_line(command, found, 0)
    return found


def _collect_line(line: str, found: CommandWords, depth: int) -> None:
    tree = _parser().parse(line.encode("utf-8", "surrogateescape"))
    _collect(tree.root_node, found, depth)


def _collect(node: Node, found: CommandWords, depth: int) -> None:
    # An explicit stack: a deeply nested line must not exhaust Python's recursion limit.
    stack = [node]
    while stack and len(found.words) < MAX_WORDS:
        node = stack.pop()
        if node.type in _TEXT:
            stack.extend(_substitutions(node))
            continue
        if node.type in _WORDS:
            _word(node, found)
            stack.extend(_substitutions(node))
            continue
        if node.type == "file_redirect" and _duplicates_fd(node):
            continue
        if node.type == "command":
            _command(node, found, depth)
        stack.extend(reversed(node.children))


def _substitutions(node: Node) -> list[Node]:
    """The ``$(…)``/backtick/``<(…)`` nodes anywhere inside a word or a here-doc body."""
    out: list[Node] = []
    stack = list(node.children)
    while stack:
        child = stack.pop()
        if child.type in _COMMANDS:
            out.append(child)
        else:
            stack.extend(child.children)
    return out


def _duplicates_fd(node: Node) -> bool:
    """``2>&1``, ``>&-``: the target is a file descriptor, not a file."""
    target = node.child_by_field_name("destination")
    operators = {c.type for c in node.children}
    return (
        target is not None
        and bool(operators & {">&", "<&", ">&-", "<&-"})
        and (target.type == "number" or _text(target) == "-")
    )


def _command(node: Node, found: CommandWords, depth: int) -> None:
    """``cd DIR`` moves the base of later relative words; ``sh -c SCRIPT`` runs a line."""
    name_node = node.child_by_field_name("name")
    name = _unquote(name_node) if name_node is not None else None
    if name is None:
        return
    arguments = [_unquote(a) for a in node.children_by_field_name("argument")]
    program = name.rsplit("/", 1)[-1]
    if program in _CD:
        target = next((a for a in arguments if a is not None and not a.startswith("-")), None)
        if target is not None:
            found.directories.append(target)
    if depth >= _MAX_DEPTH:
        return
    if program == "eval":
        _collect_line(" ".join(a for a in arguments if a is not None), found, depth + 1)
        return
    if program in _SHELLS:
        for flag, script in itertools.pairwise(arguments):
            if flag is not None and script is not None and _runs_script(flag):
                _collect_line(script, found, depth + 1)
                return


def _runs_script(flag: str) -> bool:
    """``-c``, or a cluster of short options holding it (``-ec``, ``-lc``)."""
    return flag.startswith("-") and not flag.startswith("--") and "c" in flag[1:]


def _word(node: Node, found: CommandWords) -> None:
    text = _unquote(node)
    if text is None or not text or "://" in text:
        return
    if text.startswith("-"):
        # ``--output=FILE``: the value may be a path; a bare option is not.
        _, equals, value = text.partition("=")
        if not equals or not value:
            return
        text = value
    found.words.append(NamedWord(text, _has_pattern(node)))


def _has_pattern(node: Node) -> bool:
    parts = [node] if node.type == "word" else [c for c in node.children if c.type == "word"]
    return any(ch in _text(part) for part in parts for ch in "*?[")


def _unquote(node: Node) -> str | None:
    """The word as the shell passes it on, expansions left as written; None if unknowable."""
    raw = _text(node)
    if raw.startswith("$'"):
        return None
    try:
        words = shlex.split(raw)
    except ValueError:
        return None
    return words[0] if len(words) == 1 else None


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "surrogateescape")
