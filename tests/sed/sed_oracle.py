"""Run the real GNU sed on bytes: the oracle of the differential tests and benches."""

from __future__ import annotations

import os
import subprocess
import tempfile

from waymark.engine.sed import SedDecline, apply_script, parse_command_line
from waymark.engine.sed.shell import split_shell_words

GNU_SED = "/usr/bin/sed"
ENV = {"LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin"}


def gnu_sed_in_place(args: list[str], inputs: list[bytes]) -> list[bytes] | None:
    """``sed -i ARGS FILE…`` on one temp file per input; None when sed rejects the script."""
    with tempfile.TemporaryDirectory(prefix="waymark-sed-") as folder:
        paths = []
        for number, data in enumerate(inputs):
            path = os.path.join(folder, f"in{number}")
            with open(path, "wb") as handle:
                handle.write(data)
            paths.append(path)
        # A script can loop forever in GNU (t back over a change that always recurs); the
        # simulation declines those, so a GNU run this long means the simulation answered one.
        try:
            done = subprocess.run(
                [GNU_SED, *args, *paths], env=ENV, capture_output=True, check=False, timeout=30
            )
        except subprocess.TimeoutExpired:
            raise AssertionError(f"GNU sed {args!r} ran over 30 s on {inputs!r}") from None
        if done.returncode != 0:
            return None
        results = []
        for path in paths:
            with open(path, "rb") as handle:
                results.append(handle.read())
        return results


def gnu_args_for_line(line: str) -> list[str]:
    """The argv GNU sed should get for an accepted line: BSD's ``-i ''`` dropped, files removed."""
    try:
        files = len(parse_command_line(line).paths)
    except SedDecline:
        files = 1
    # File operands (globs included) are replaced by the caller's temp files.
    words = [word.text for word in split_shell_words(line)][1:-files]
    args: list[str] = []
    skip_empty = False
    for word in words:
        if skip_empty and word == "":
            skip_empty = False
            continue
        skip_empty = word == "-i"
        args.append(word)
    return args


def simulate(line: str, data: bytes) -> bytes | str:
    """Our answer: the new bytes, or the decline reason."""
    try:
        return apply_script(parse_command_line(line).script, data)
    except SedDecline as exc:
        return exc.reason


def gnu_sed_with_files(
    args: list[str], inputs: list[bytes], reads: dict[str, bytes | None], writes: tuple[str, ...]
) -> tuple[list[bytes], dict[str, bytes]] | None:
    """``sed -i ARGS in0 in1 …`` run in a temp folder holding the ``r`` files of ``reads``
    (None: absent); every operand's bytes and every ``w`` file's, or None when sed fails."""
    with tempfile.TemporaryDirectory(prefix="waymark-sed-") as folder:
        names = [f"in{number}" for number in range(len(inputs))]
        for name, data in [*zip(names, inputs, strict=True), *reads.items()]:
            if data is not None:
                with open(os.path.join(folder, name), "wb") as handle:
                    handle.write(data)
        done = subprocess.run(
            [GNU_SED, *args, *names], cwd=folder, env=ENV, capture_output=True, timeout=30
        )
        if done.returncode != 0:
            return None
        results = []
        for name in [*names, *writes]:
            with open(os.path.join(folder, name), "rb") as handle:
                results.append(handle.read())
        return results[: len(names)], dict(zip(writes, results[len(names) :], strict=True))
