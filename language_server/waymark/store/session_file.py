"""A session's read records shared by its processes through one file next to its history.

Several processes of a session (a CLI call after another, several ``waymark mcp`` of one
workspace) keep one file of records: each writes back only the records it changed, under the
file's lock and over what is there now, and takes from it the records of files it has not
seen. A long-lived process keeps its own record of a file it has already seen, so another
process's change to that file is a change it must read first.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path

from waymark.store.files import atomic_write
from waymark.store.locks import locked
from waymark.store.private import make_private_dir
from waymark.store.session import FileRecord, Session


@dataclass
class SessionFile:
    path: Path
    # Each record as this process last wrote it there or took it from there: a save writes
    # what changed since. A file nobody replaced since is not read again.
    _synced: dict[Path, FileRecord] = field(default_factory=dict)
    _seen: tuple[int, ...] | None = None

    def save(self, session: Session) -> None:
        """Hand the records ``session`` changed here to the next process of this session.

        Under the file's lock, over what is there now: the records other processes of the
        session wrote stay as they wrote them.
        """
        files = session.files
        changed = {path: _copy(r) for path, r in files.items() if self._synced.get(path) != r}
        if not changed:
            return
        # It lists absolute paths the session read: only its owner may see them.
        make_private_dir(self.path.parent)
        with locked(self.path):
            stored = self._stored(session.id)
            self._take(session, stored)
            stored.files.update(changed)
            atomic_write(self.path, stored.to_json().encode("utf-8"), mode=0o600)
            self._seen = self._signature()
        self._synced.update(changed)

    def reload(self, session: Session) -> None:
        """Take the records another process of this session saved, of files new to this one."""
        seen = self._signature()
        if seen is None or seen == self._seen:
            return
        self._take(session, self._stored(session.id))
        self._seen = seen

    def _stored(self, session_id: str) -> Session:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            text = "{}"
        return Session.from_json(session_id, text)

    def _take(self, session: Session, stored: Session) -> None:
        """Adopt the records of files this process has none of; its own ones stay.

        A file it has seen that another process changed since is an external change to it,
        as to any session: its agent reads the file again before replacing text in it.
        """
        files = session.files
        for path, record in stored.files.items():
            if path not in files:
                files[path] = _copy(record)
                self._synced[path] = _copy(record)

    def _signature(self) -> tuple[int, ...] | None:
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return None
        # A replace by another process makes a new inode; mtime and size cover the rest.
        return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _copy(record: FileRecord) -> FileRecord:
    return replace(record, writers=list(record.writers))
