"""Crash safety of ``files.atomic_write``: SIGKILL a writer at random points, many times.

After every kill the target must be wholly the old or wholly the new content (by digest), and
``sweep_temp_files`` — what start-up runs — must leave no temp file behind. A control run with
a naive in-place writer shows the rig really does see torn files when they happen.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from helpers_crash import CrashRig

SIZE = 3 * 1024 * 1024
TRIALS = 240


# Flush-behind (the default) and fsync-before-returning: neither fsync is what a kill needs.
@pytest.mark.parametrize("durability", ["", "sync"])
def test_sigkilled_atomic_writes_are_never_torn_and_temps_are_swept(
    tmp_path: Path, durability: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WAYMARK_DURABILITY", durability)
    seed = random.randrange(2**32)
    rig = CrashRig(tmp_path, size=SIZE)
    try:
        tally = rig.run(TRIALS, seed=seed)
    finally:
        rig.close()
    summary = f"seed {seed}: {tally.as_dict()} {tally.failures[:5]}"
    assert tally.trials == TRIALS, summary
    assert tally.torn == 0, summary
    assert tally.leftover_after_sweep == 0, summary
    assert tally.failures == [], summary
    # The kills must have landed mid-write (a temp existed) and on both sides of a rename,
    # or the trials proved nothing.
    assert tally.temps_seen > 0, summary
    assert tally.old > 0 and tally.new > 0, summary


def test_the_rig_catches_torn_files_from_a_naive_writer(tmp_path: Path) -> None:
    rig = CrashRig(tmp_path, size=SIZE, mode="naive")
    try:
        tally = rig.run(20, seed=7)
    finally:
        rig.close()
    assert tally.trials == 20
    assert tally.torn > 0, tally.as_dict()
