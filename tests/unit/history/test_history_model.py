"""The pure history model: replay equals the live state, and so does a compacted journal."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from waymark.store.history.model import Model, delta
from waymark.store.history.snapshots import FileEntry, SnapshotRecord, parse_record, record_json

KEYS = ["/ws/a", "/ws/b", "/ws/c", "/ws/d"]
DIGESTS = [f"{n:032x}" for n in range(4)]

entry = st.builds(
    lambda state, d: FileEntry(
        "x", state, None if state == "absent" else d, 1.0, None, None if state != "present" else 3
    ),
    st.sampled_from(["present", "absent", "failed"]),
    st.sampled_from(DIGESTS),
)
op = st.one_of(
    st.tuples(st.just("snap"), st.dictionaries(st.sampled_from(KEYS), entry, max_size=4)),
    st.tuples(st.just("track"), st.sampled_from(KEYS), entry),
    st.tuples(
        st.just("write"),
        st.sampled_from(KEYS),
        st.none() | st.sampled_from(DIGESTS),
        st.sampled_from([None, "one", "two"]),
    ),
    st.tuples(st.just("drop_oldest")),
    st.tuples(st.just("forget"), st.integers(0, 5)),
    st.tuples(st.just("redo"), st.integers(0, 5)),
    st.tuples(st.just("next"), st.dictionaries(st.sampled_from(KEYS), entry, max_size=2)),
)


def records_of(ops: list[tuple[Any, ...]]) -> list[SnapshotRecord]:
    """Drive a live model the way the store does; return the journal it would write."""
    live = Model()
    journal: list[SnapshotRecord] = []
    names = 0

    def commit(record: SnapshotRecord) -> None:
        journal.append(record)
        live.apply(record)

    for item in ops:
        latest = live.latest()
        if item[0] == "snap" or (item[0] == "redo" and not live.snaps):
            names += 1
            files = item[1] if item[0] == "snap" else {}
            commit(SnapshotRecord(f"t{names}", None, "ts", live.seq, False, dict(files), {}))
        elif item[0] == "redo":
            # A snapshot under an existing promptId replaces that turn.
            prompt = live.ordered()[item[1] % len(live.snaps)].prompt_id
            commit(SnapshotRecord(prompt, None, "ts", live.seq, False, {}, {}))
        elif latest is None:
            continue
        elif item[0] == "next":
            # A turn that lists only what changed since the previous one, as the store writes.
            names += 1
            files = {**latest.files, **item[1]}
            changed = delta(latest.files, files)
            commit(
                SnapshotRecord(
                    f"t{names}", None, "ts", live.seq, False, changed, {}, inherit=latest.prompt_id
                )
            )
        elif item[0] == "track":
            head = (latest.prompt_id, latest.label, latest.timestamp, latest.seq, True)
            commit(SnapshotRecord(*head, {item[1]: item[2]}, {}))
        elif item[0] == "write":
            head = (latest.prompt_id, latest.label, latest.timestamp, latest.seq, True)
            commit(SnapshotRecord(*head, {}, {item[1]: item[2]}, session=item[3]))
        elif item[0] == "forget":
            orphans = live.orphans()
            if orphans:
                key = orphans[item[1] % len(orphans)]
                commit(SnapshotRecord("base", None, "", 0, True, {}, {}, base=True, forget=(key,)))
        elif item[0] == "drop_oldest":
            oldest = live.oldest()
            assert oldest is not None
            commit(live.drop_record(oldest))
    return journal


def state(model: Model) -> dict[str, Any]:
    return {
        "snaps": {
            p: (s.seq, s.label, dict(s.files), sorted(s.edited)) for p, s in model.snaps.items()
        },
        "first": {k: e for k, (_, e) in model.first.items()},
        "writes": {k: (w.digest, w.session) for k, w in model.writes.items()},
        "refs": {d: n > 0 for d, n in model.refs.items()},
        "blob_bytes": model.blob_bytes(),
        "seq": model.seq,
    }


def replay(records: list[SnapshotRecord]) -> Model:
    model = Model()
    for record in records:
        # Through the JSON form, as a resume reads it.
        for parsed in parse_record(record_json([record])):
            model.apply(parsed)
    return model


@settings(max_examples=300, deadline=None)
@given(st.lists(op, max_size=30))
def test_replay_and_compaction_equal_the_live_model(ops: list[tuple[Any, ...]]) -> None:
    journal = records_of(ops)
    live = replay(journal)
    compacted = replay(live.live_records())
    assert state(compacted) == state(live)
    # Compacting twice changes nothing; the records are a fixed point.
    assert state(replay(compacted.live_records())) == state(live)


@settings(max_examples=300, deadline=None)
@given(st.lists(op, max_size=30))
def test_freed_blobs_are_exactly_those_nothing_references(ops: list[tuple[Any, ...]]) -> None:
    model = Model()
    ever: set[str] = set()
    freed: set[str] = set()
    for record in records_of(ops):
        for parsed in parse_record(record_json([record])):
            freed -= {e.digest for e in parsed.files.values() if e.state == "present"}
            ever |= {e.digest or "" for e in parsed.files.values() if e.state == "present"}
            freed |= set(model.apply(parsed))
    assert freed == ever - set(model.refs)
    assert not freed & set(model.refs)
