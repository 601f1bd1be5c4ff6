"""An update record made for every edit is the record the dataclass itself makes, field for
field, whatever it is given (issue 43: ``update_of`` sets its fields at once)."""

from __future__ import annotations

import dataclasses

import pytest

from waymark.store.history.snapshots import FileEntry, Snapshot, SnapshotRecord

SNAP = Snapshot("p1", "a label", "2026-11-27T22:00:00Z", 7)
ENTRY = FileEntry("b.py", "present", "f" * 32, 1.5, size=3)


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"writes": {"/w/a.py": "d" * 32}, "session": "s1", "was": {"/w/a.py": None}},
        {"files": {"/w/b.py": ENTRY}, "writes": {"/w/b.py": None}},
        {"unreached": {"/w/c": "too_large"}},
        {"dropped": True},
        {"session": None, "putback": {"/w/a.py": "e" * 32, "/w/b.py": None}},
    ],
)
def test_an_update_is_the_record_the_dataclass_makes(kwargs: dict[str, object]) -> None:
    files = kwargs.pop("files", None)
    writes = kwargs.pop("writes", None)
    made = SnapshotRecord.update_of(SNAP, files, writes, **kwargs)  # type: ignore[arg-type]
    expected = SnapshotRecord(
        SNAP.prompt_id,
        SNAP.label,
        SNAP.timestamp,
        SNAP.seq,
        True,
        files or {},  # type: ignore[arg-type]
        writes or {},  # type: ignore[arg-type]
        **kwargs,  # type: ignore[arg-type]
    )
    assert vars(made) == vars(expected)
    assert [f.name for f in dataclasses.fields(SnapshotRecord)] == list(vars(made))
    assert made == expected and repr(made) == repr(expected)
    assert made.to_json() == expected.to_json()
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.seq = 8  # type: ignore[misc]


def test_an_update_shares_no_dict_with_another() -> None:
    first, second = SnapshotRecord.update_of(SNAP), SnapshotRecord.update_of(SNAP)
    assert first.files is not second.files and first.was is not second.was
