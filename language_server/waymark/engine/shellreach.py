"""What a shell command line can destroy, read from its parse before it runs.

For each simple command the words it deletes (``rm``, ``rmdir``, ``unlink``, ``shred``, the
sources of ``mv``, the start points of a ``find … -delete``) or overwrites (redirections,
``: > f``, the target of ``mv``/``cp``/``install``/``ln``, ``tee``, ``truncate``, ``dd of=``,
``sed -i``), and the git verbs that discard files (``git clean``, ``git reset --hard``,
``git checkout``/``restore``/``switch``/``stash``). Each carries the ``cd`` words in effect
before it (a subshell's stay inside it), so the caller resolves it where the shell would.
Words stay as written (``$VAR``, ``~``, globs): only the caller knows the environment. What
a program does on its own (``python -c``, ``make``) is not known here.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from waymark.engine.shellwords import _has_pattern, _parser, _unquote

if TYPE_CHECKING:
    from tree_sitter import Node

# "matching": some files under it go (``find … -delete``), not the folder as a whole;
# "append": written to, its bytes kept (``>> f``).
Kind = Literal["delete", "overwrite", "matching", "append"]

_DELETE = frozenset({"rm", "rmdir", "unlink", "shred", "srm"})
_COPY = frozenset({"cp", "install", "ln", "rsync"})
_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash"})
# git verbs that may discard a file's bytes, with the flags that make them do so (None: any).
_GIT_DISCARD: dict[str, frozenset[str] | None] = {
    "clean": None,
    "reset": frozenset({"--hard", "--merge", "--keep"}),
    "checkout": None,
    "restore": None,
    "switch": frozenset({"-f", "--force", "--discard-changes"}),
    "stash": None,
}
# Options whose value is the next word (never a path the command destroys).
_VALUE_OPTIONS = {
    "truncate": frozenset({"-s", "--size", "-r", "--reference"}),
    "find": frozenset(),
    "sed": frozenset({"-e", "--expression", "-f", "--file", "-l", "--line-length"}),
    "cp": frozenset({"-S", "--suffix", "-t", "--target-directory"}),
    "mv": frozenset({"-S", "--suffix", "-t", "--target-directory"}),
    "install": frozenset({"-t", "--target-directory", "-m", "--mode", "-o", "-g"}),
}
_REDIRECTS = frozenset({">", ">>", "&>", "&>>", ">|"})
_MAX_DEPTH = 4


@dataclass(frozen=True)
class Target:
    """A word naming what a command deletes (with all under it) or overwrites."""

    word: str
    kind: Kind
    pattern: bool
    # The ``cd`` words run before it, in order (each relative to the one before).
    cds: tuple[str, ...]


@dataclass(frozen=True)
class GitDiscard:
    """A git verb that may discard files; ``args`` after the verb, ``directory`` of ``-C``."""

    verb: str
    args: tuple[str, ...]
    directory: str | None
    cds: tuple[str, ...]


@dataclass
class Reach:
    targets: list[Target]
    git: list[GitDiscard]


def reach(command: str) -> Reach:
    """The targets and git discards of ``command``."""
    found = Reach([], [])
    _line(command, [], found, 0)
    return found


def _line(line: str, cds: list[str], found: Reach, depth: int) -> None:
    tree = _parser().parse(line.encode("utf-8", "surrogateescape"))
    _visit(tree.root_node, cds, found, depth)


def _visit(node: Node, cds: list[str], found: Reach, depth: int) -> None:
    # Recursion is bounded by the parse's depth; a subshell's ``cd`` stays inside it.
    if node.type in ("subshell", "command_substitution", "process_substitution"):
        inner = list(cds)
        for child in node.children:
            _visit(child, inner, found, depth)
        return
    if node.type == "command":
        _command(node, cds, found, depth)
    elif node.type == "file_redirect":
        _redirect(node, cds, found)
    for child in node.children:
        if node.type != "command" or child.type in ("file_redirect", "command_substitution"):
            _visit(child, cds, found, depth)


def _redirect(node: Node, cds: list[str], found: Reach) -> None:
    operators = {c.type for c in node.children}
    target = node.child_by_field_name("destination")
    if target is None or not operators & _REDIRECTS or target.type == "number":
        return
    word = _unquote(target)
    kind: Kind = "append" if operators & {">>", "&>>"} else "overwrite"
    if word is not None and word != "-":
        found.targets.append(Target(word, kind, _has_pattern(target), tuple(cds)))


def _command(node: Node, cds: list[str], found: Reach, depth: int) -> None:
    name_node = node.child_by_field_name("name")
    name = _unquote(name_node) if name_node is not None else None
    if name is None:
        return
    program = name.rsplit("/", 1)[-1]
    nodes = node.children_by_field_name("argument")
    words = [_unquote(a) for a in nodes]
    if program in ("cd", "pushd"):
        target = next((w for w in words if w is not None and not w.startswith("-")), "~")
        cds.append(target)
        return
    if program == "command" or program == "sudo" or program == "nohup" or program == "env":
        # The real command follows: parse its words again as a line of their own.
        rest = [w for w in words if w is not None and "=" not in w and not w.startswith("-")]
        if rest and depth < _MAX_DEPTH:
            _line(" ".join(_quote(w) for w in rest), cds, found, depth + 1)
        return
    if program in _SHELLS or program == "eval":
        if depth < _MAX_DEPTH:
            script = _script(program, words)
            if script is not None:
                _line(script, list(cds), found, depth + 1)
        return
    if program == "git":
        _git(words, cds, found)
        return
    operands = _operands(program, nodes, words)
    kinds = _kinds(program, words, operands)
    for (word, pattern), kind in zip(operands, kinds, strict=True):
        if kind is not None:
            found.targets.append(Target(word, kind, pattern, tuple(cds)))
    into = _target_directory(words)
    if into is not None and program in ("mv", *_COPY):
        found.targets.append(Target(into, "overwrite", False, tuple(cds)))
    if program == "dd":
        for value in words:
            if value is not None and value.startswith("of="):
                found.targets.append(Target(value[3:], "overwrite", False, tuple(cds)))


def _operands(program: str, nodes: list[Node], words: list[str | None]) -> list[tuple[str, bool]]:
    """The non-option words (``--`` ends the options), with whether each is a glob."""
    takes_value = _VALUE_OPTIONS.get(program, frozenset())
    out: list[tuple[str, bool]] = []
    options = True
    skip = False
    for node, word in zip(nodes, words, strict=True):
        if skip:
            skip = False
            continue
        if word is None:
            continue
        if options and word == "--":
            options = False
        elif options and word.startswith("-") and word != "-":
            skip = word in takes_value
        else:
            out.append((word, _has_pattern(node)))
    return out


def _kinds(
    program: str, words: list[str | None], operands: list[tuple[str, bool]]
) -> list[Kind | None]:
    count = len(operands)
    into = _target_directory(words) is not None
    out: list[Kind | None] = [None] * count
    if program in _DELETE:
        out = ["delete"] * count
    elif program in ("truncate", "tee"):
        out = ["overwrite"] * count
    elif program == "mv" and (into or count >= 2):
        # Every source goes; the last word is overwritten unless -t names the folder.
        out = ["delete"] * count
        if not into:
            out[-1] = "overwrite"
    elif program in _COPY and not into and count >= 2:
        out[-1] = "overwrite"
    elif program == "find" and _find_deletes(words):
        # The start points come before the first expression word.
        starts = 0
        for word in words:
            if word is None or word.startswith(("-", "(", "!")):
                break
            starts += 1
        out[: min(starts, count)] = ["matching"] * min(starts, count)
    elif program == "sed" and any(_sed_in_place(w) for w in words if w is not None):
        # Without -e or -f the first operand is the script.
        scripted = any(w in ("-e", "--expression", "-f", "--file") for w in words)
        out = [None if i == 0 and not scripted else "overwrite" for i in range(count)]
    return out


def _target_directory(words: list[str | None]) -> str | None:
    for flag, value in itertools.pairwise(words):
        if flag in ("-t", "--target-directory") and value is not None:
            return value
    return next(
        (w.partition("=")[2] for w in words if w and w.startswith("--target-directory=")), None
    )


def _find_deletes(words: list[str | None]) -> bool:
    if "-delete" in words:
        return True
    return any(
        flag in ("-exec", "-execdir", "-ok") and (value or "").rsplit("/", 1)[-1] in _DELETE
        for flag, value in itertools.pairwise(words)
    )


def _sed_in_place(word: str) -> bool:
    if word.startswith("--in-place"):
        return True
    return word.startswith("-") and not word.startswith("--") and "i" in word[1:2]


def _script(program: str, words: list[str | None]) -> str | None:
    if program == "eval":
        return " ".join(w for w in words if w is not None)
    for flag, script in itertools.pairwise(words):
        if flag is not None and flag.startswith("-") and not flag.startswith("--") and "c" in flag:
            return script
    return None


def _git(words: list[str | None], cds: list[str], found: Reach) -> None:
    directory = None
    index = 0
    while index < len(words) and (words[index] or "").startswith("-"):
        flag = words[index]
        if flag == "-C" and index + 1 < len(words):
            directory = words[index + 1]
            index += 1
        elif flag in ("-c", "--git-dir", "--work-tree", "--namespace"):
            index += 1
        index += 1
    if index >= len(words) or words[index] not in _GIT_DISCARD:
        return
    verb = str(words[index])
    args = tuple(w for w in words[index + 1 :] if w is not None)
    flags = _GIT_DISCARD[verb]
    if flags is not None and not flags & set(args):
        return
    if verb == "stash" and args[:1] not in ((), ("push",), ("save",)) and args[0][:1] != "-":
        return
    found.git.append(GitDiscard(verb, args, directory, tuple(cds)))
    if verb in ("checkout", "restore"):
        # Paths after ``--`` (or any operand) are overwritten from the index or a commit.
        for word in args:
            if not word.startswith("-"):
                found.targets.append(Target(word, "overwrite", False, tuple(cds)))


def _quote(word: str) -> str:
    return "'" + word.replace("'", "'\\''") + "'"
