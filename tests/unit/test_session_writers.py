"""A session's record of a file keeps its last writer, however long the session runs.

The language server and the session file shared by CLI and hook processes hold one record
per file; each write used to append its writer to it, so a long session grew by one entry
per write, in memory and in the file every one-shot process reads and saves again.
"""

from __future__ import annotations

import json
from pathlib import Path

from waymark.store.session import Session


def test_a_thousand_writes_leave_one_writer_and_the_same_continuity(tmp_path: Path) -> None:
    session = Session(id="s")
    path = tmp_path / "a.py"
    for n in range(1000):
        session.note_write(path, f"d{n}", "edit")
    assert session.files[path].writers == ["edit"]
    assert session.continuity(path) == "clean"
    session.note_write(path, "x", "sed")
    assert session.continuity(path) == "mixed"
    session.observe(path, "changed by someone")
    assert session.files[path].writers == ["external"]
    session.note_rewind(path, "r")
    assert (session.files[path].writers, session.continuity(path)) == (["rewind"], "mixed")
    assert len(session.to_json()) < 200


def test_a_session_file_of_an_earlier_version_keeps_its_last_writer(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    for writers, continuity in ((["edit"] * 500 + ["sed"], "mixed"), (["sed", "edit"], "clean")):
        raw = json.dumps({str(path): {"read_digest": "d", "known_digest": "d", "writers": writers}})
        session = Session.from_json("s", raw)
        assert session.files[path].writers == writers[-1:]
        assert session.continuity(path) == continuity
