"""What a command line can destroy, read from its parse (engine/shellreach.py): the words it
deletes or overwrites, the ``cd`` words before each, and the git verbs that discard files."""

from __future__ import annotations

import pytest

from waymark.engine.shellreach import reach


def targets(command: str) -> list[tuple[str, str, tuple[str, ...]]]:
    return [(t.word, t.kind, t.cds) for t in reach(command).targets]


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("rm .env.local", [(".env.local", "delete", ())]),
        ("rm -rf -- build -x", [("build", "delete", ()), ("-x", "delete", ())]),
        (": > .env.local", [(".env.local", "overwrite", ())]),
        ("echo a 2>&1 >> log", [("log", "append", ())]),
        ("echo a &> log", [("log", "overwrite", ())]),
        ("mv notes.txt .env.local", [("notes.txt", "delete", ()), (".env.local", "overwrite", ())]),
        (
            "mv -t ../out a b",
            [("a", "delete", ()), ("b", "delete", ()), ("../out", "overwrite", ())],
        ),
        ("cp -r src ../backup", [("../backup", "overwrite", ())]),
        ("find . -name '*.log' -delete", [(".", "matching", ())]),
        ("find build -name x -exec rm {} +", [("build", "matching", ())]),
        ("find . -name '*.log'", []),
        ("sed -i 's/a/b/' f g", [("f", "overwrite", ()), ("g", "overwrite", ())]),
        ("sed -i -e s/a/b/ f", [("f", "overwrite", ())]),
        ("truncate -s 0 big.log", [("big.log", "overwrite", ())]),
        ("dd if=/dev/zero of=disk.img bs=1M", [("disk.img", "overwrite", ())]),
        ("sudo rm -rf /", [("/", "delete", ())]),
        ("bash -c 'rm -f ~/x'", [("~/x", "delete", ())]),
        ("cd sub && rm -rf ../x", [("../x", "delete", ("sub",))]),
        ("(cd a; rm b); rm c", [("b", "delete", ("a",)), ("c", "delete", ())]),
        ("cat a > /dev/null; ls ~", [("/dev/null", "overwrite", ())]),
        ("python3 -c \"import os; os.remove('x')\"", []),
    ],
)
def test_targets(command: str, expected: list[tuple[str, str, tuple[str, ...]]]) -> None:
    assert targets(command) == expected


def test_glob_words_are_marked() -> None:
    (target,) = reach("rm -r build/*.o").targets
    assert (target.word, target.pattern) == ("build/*.o", True)


@pytest.mark.parametrize(
    ("command", "verb", "directory"),
    [
        ("git clean -fdx", "clean", None),
        ("git -C ../other reset --hard HEAD", "reset", "../other"),
        ("git checkout -- .", "checkout", None),
        ("git stash -u && git stash drop", "stash", None),
    ],
)
def test_git_discards(command: str, verb: str, directory: str | None) -> None:
    (discard,) = reach(command).git
    assert (discard.verb, discard.directory) == (verb, directory)


@pytest.mark.parametrize("command", ["git status", "git reset HEAD~1", "git stash list"])
def test_git_verbs_that_keep_files(command: str) -> None:
    assert reach(command).git == []
