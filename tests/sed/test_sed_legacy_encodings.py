"""``sed -i`` on legacy-encoded files (fixtures/encodings): the simulation gives GNU sed's
bytes in the agent's shell locale (C.UTF-8), or declines with a reason, never other bytes.

GNU sed knows nothing of a file's declared or detected encoding: it reads bytes in the
locale. Waymark decodes such a file to show and edit it, but simulates sed on its bytes, and
declines a file that is not valid UTF-8 (the real sed then runs, and shell tracking backs the
file up).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from sed_oracle import gnu_args_for_line, gnu_sed_in_place, simulate

from helpers_encodings import MAKE

LINES = (
    "sed -i 's/=/:/' F",
    "sed -i 's/ = / := /g' F",
    "sed -i '2d' F",
    "sed -i '$a\\appended' F",
    "sed -i '1i\\# header' F",
    "sed -i 's/^/> /' F",
    "sed -i 's/.*/X/' F",
    "sed -i 's/[a-z]*/<&>/' F",
    "sed -i 'y/abc/xyz/' F",
    "sed -i 's/\\(.\\)\\(.\\)/\\2\\1/' F",
    "sed -i -E 's/(print|echo)/say/' F",
    "sed -i 's/crème/cream/' F",
    "sed -i 's/张伟/李娜/' F",
    "sed -i '/^$/d' F",
    "sed -i 's/\\r$//' F",
)


@pytest.mark.parametrize("line", LINES)
@pytest.mark.parametrize("name", sorted(MAKE.FILES))
def test_simulated_sed_on_a_legacy_file_is_gnu_sed_or_declined(name: str, line: str) -> None:
    data = MAKE.FILES[name][0]
    ours = simulate(line, data)
    if isinstance(ours, str):
        assert ours, "a decline names its reason"
        return
    gnu = gnu_sed_in_place(gnu_args_for_line(line), [data])
    assert gnu is not None, line
    assert ours == gnu[0], (name, line)


def test_a_file_that_is_not_utf8_is_declined_naming_the_first_bad_byte() -> None:
    # GNU sed matches around invalid bytes in ways the simulation does not model: every line
    # is declined on such a file, so the differential above is vacuous for them by design.
    for name, (data, _) in MAKE.FILES.items():
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            for line in LINES:
                assert simulate(line, data) == (
                    f"the file is not valid UTF-8 (byte {exc.start}); GNU sed's matching around "
                    "invalid bytes is not simulated"
                ), (name, line)
        else:
            assert all(not isinstance(simulate(line, data), str) for line in LINES[:6]), name


def test_waymark_sed_through_the_cli_declines_and_writes_nothing(tmp_path: Path) -> None:
    MAKE.install(tmp_path)
    line = "sed -i 's/ = / := /' windows-1252.php"
    done = subprocess.run(
        [sys.executable, "-m", "waymark", "sed", line],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.stdout == (
        "not simulated: the file is not valid UTF-8 (byte 21); GNU sed's matching around "
        "invalid bytes is not simulated\n"
    )
    assert (tmp_path / "windows-1252.php").read_bytes() == MAKE.FILES["windows-1252.php"][0]
