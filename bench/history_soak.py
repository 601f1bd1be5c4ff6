"""A long random session checked against an in-memory model of file history.

10,000 agent edits (creates, rewrites, deletes) over 40 files, with user edits behind the
agent's back, turn boundaries, rewinds (code / conversation / both, some forced), undos of
rewinds, and resumes from the journal, under eviction (``max_snapshots`` 25). After every
rewind the workspace must equal the model byte for byte and every per-file outcome must be
the model's. "Data lost" counts bytes a rewind replaced that its undo snapshot does not hold.

    python bench/history_soak.py [--edits N] [--seed S]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "language_server"))
sys.path.insert(0, str(ROOT))  # for bench.goals when run as a script
from bench.goals import Goal  # noqa: E402

from waymark.commands.changes import FileChange, load_path  # noqa: E402
from waymark.commands.commit import write_changes  # noqa: E402
from waymark.commands.context import CommandContext  # noqa: E402
from waymark.commands.history import rewind_json  # noqa: E402
from waymark.store.files import digest  # noqa: E402
from waymark.store.history import History, history_workspace  # noqa: E402
from waymark.store.history.blobs import BlobCorrupt, BlobMissing  # noqa: E402
from waymark.store.session import Session  # noqa: E402

NAMES = [f"f{n:02d}.txt" if n % 3 else f"sub{n % 4}/f{n:02d}.txt" for n in range(40)]
MAX_SNAPSHOTS = 25
# The budget is on (the default), and the journal compacts many times over a run.
MAX_BYTES = 1 << 30

Content = bytes | None


def _stored(history: History, data: bytes) -> bool:
    """Whether the history holds ``data`` intact (packed or loose) to undo the rewind with."""
    with history.lock:
        try:
            return history.blobs.get(digest(data)) == data
        except (BlobMissing, BlobCorrupt, OSError):
            return False


def _open(root: Path, ws: Path) -> History:
    return History.open(
        root,
        history_workspace(root, [ws]),
        session="soak",
        max_snapshots=MAX_SNAPSHOTS,
        max_bytes=MAX_BYTES,
    )


@dataclass
class Model:
    """What history should know: turn starts, first backups, the agent's last writes."""

    disk: dict[str, Content]
    first: dict[str, Content] = field(default_factory=dict)
    turns: list[tuple[str, dict[str, Content]]] = field(default_factory=list)
    agent: dict[str, Content] = field(default_factory=dict)

    def snapshot(self, prompt: str) -> None:
        self.turns.append((prompt, {n: self.disk[n] for n in self.first}))
        while len(self.turns) > MAX_SNAPSHOTS:
            self.turns.pop(0)

    def track(self, name: str) -> None:
        current = self.turns[-1][1]
        if name not in current:
            current[name] = self.disk[name]
        self.first.setdefault(name, self.disk[name])

    def expected_outcomes(self, prompt: str, force: bool) -> dict[str, Any]:
        start = dict(self.turns)[prompt]
        out: dict[str, Any] = {"restored": [], "deleted": [], "unchanged": [], "conflicts": []}
        for name in sorted(self.first):
            target = start.get(name, self.first[name])
            current = self.disk[name]
            if current == target:
                out["unchanged"].append(name)
            elif not force and current != self.agent.get(name, self.first[name]):
                out["conflicts"].append(name)
            else:
                out["deleted" if target is None else "restored"].append(name)
                self.disk[name] = target
                self.agent[name] = target
        return out


@dataclass
class Soak:
    edits: int
    seed: int
    cases: int = 0
    failures: list[str] = field(default_factory=list)
    data_lost: int = 0
    resumes: int = 0
    conflicts_seen: int = 0
    compactions: int = 0

    def run(self) -> None:
        rng = random.Random(self.seed)
        with tempfile.TemporaryDirectory(prefix="waymark-history-soak-") as tmp:
            ws = Path(tmp) / "ws"
            root = Path(tmp) / "history"
            ws.mkdir()
            history = History.open(
                root,
                history_workspace(root, [ws]),
                session="soak",
                max_snapshots=MAX_SNAPSHOTS,
                max_bytes=MAX_BYTES,
            )
            model = Model({name: None for name in NAMES})
            history.make_snapshot("t0")
            model.snapshot("t0")
            turn = 0
            done = 0
            while done < self.edits:
                roll = rng.random()
                if roll < 0.80:
                    self._agent_edit(rng, ws, history, model)
                    done += 1
                elif roll < 0.83:
                    self._user_edit(rng, ws, model)
                elif roll < 0.93:
                    turn += 1
                    history.make_snapshot(f"t{turn}")
                    model.snapshot(f"t{turn}")
                elif roll < 0.995:
                    self._rewind(rng, ws, root, history, model)
                else:
                    self.compactions += history.compactions
                    history.close()
                    history = History.open(
                        root,
                        history_workspace(root, [ws]),
                        session="soak",
                        max_snapshots=MAX_SNAPSHOTS,
                        max_bytes=MAX_BYTES,
                    )
                    self.resumes += 1
                    if history.warnings:
                        self.failures.append(f"resume warnings: {history.warnings}")
            self.compactions += history.compactions
            history.close()

    def _agent_edit(self, rng: random.Random, ws: Path, history: History, model: Model) -> None:
        name = rng.choice(NAMES)
        data: Content = None
        if model.disk[name] is None or rng.random() > 0.1:
            data = f"{name} v{rng.randrange(8)}\n".encode() * rng.randrange(1, 4)
        if data == model.disk[name]:
            return  # the pipeline writes nothing and tracks nothing for a no-op
        model.track(name)
        # The commit path every mutating command takes: lock, re-read, back up, write, record.
        ctx = CommandContext(workspace=history.workspace, session=Session(), history=history)
        warnings: list[str] = []
        write_changes(
            ctx, [FileChange(load_path(ctx, name, must_exist=False), data)], "write", warnings
        )
        if warnings:
            self.failures.append(f"track_edit warned: {warnings}")
        model.disk[name] = data
        model.agent[name] = data

    def _user_edit(self, rng: random.Random, ws: Path, model: Model) -> None:
        name = rng.choice(NAMES)
        data = f"user {rng.randrange(1000)}\n".encode()
        (ws / name).parent.mkdir(parents=True, exist_ok=True)
        (ws / name).write_bytes(data)
        model.disk[name] = data

    def _rewind(
        self, rng: random.Random, ws: Path, root: Path, history: History, model: Model
    ) -> None:
        prompt = rng.choice(model.turns)[0]
        force = rng.random() < 0.2
        option = rng.choices(["code", "conversation", "both"], [8, 1, 1])[0]
        before = dict(model.disk)
        result = rewind_json(history, history.rewind(prompt, option=option, force=force))
        self.cases += 1
        undo_state = {n: before[n] for n in model.first}
        if option == "conversation":
            expected: dict[str, Any] = {"restored": [], "deleted": [], "conflicts": []}
        else:
            expected = model.expected_outcomes(prompt, force)
        got_conflicts = [c["path"] for c in result["conflicts"]]
        self.conflicts_seen += len(got_conflicts)
        for key in ("restored", "deleted"):
            if result[key] != expected[key]:
                self.failures.append(f"{prompt} {option} {key}: {result[key]} != {expected[key]}")
        if got_conflicts != expected["conflicts"] or result["failed"]:
            self.failures.append(f"{prompt}: conflicts {got_conflicts} failed {result['failed']}")
        if option != "code":
            index = [p for p, _ in model.turns].index(prompt)
            del model.turns[index + 1 :]
        model.turns.append((result["undoPromptId"], undo_state))
        while len(model.turns) > MAX_SNAPSHOTS:
            model.turns.pop(0)
        self._check_tree(ws, model, prompt)
        for name in result["restored"] + result["deleted"]:
            old = before[name]
            if old is not None and not _stored(history, old):
                self.data_lost += 1
        ids = [t.prompt_id for t in history.turns()]
        if ids != [p for p, _ in model.turns]:
            self.failures.append(f"turns {ids} != {[p for p, _ in model.turns]}")

    def _check_tree(self, ws: Path, model: Model, prompt: str) -> None:
        for name in NAMES:
            path = ws / name
            actual = path.read_bytes() if path.is_file() else None
            if actual != model.disk[name]:
                self.failures.append(f"after rewind to {prompt}: {name} differs")


def figures(edits: int = 10_000, seed: int | None = None) -> list[dict[str, Any]]:
    seed = random.randrange(2**32) if seed is None else seed
    soak = Soak(edits, seed)
    start = time.perf_counter()
    soak.run()
    seconds = time.perf_counter() - start
    return [
        {
            "name": f"history soak: {edits:,} edits, random rewinds vs a model",
            "value": len(soak.failures) + soak.data_lost,
            "unit": "failures + data lost",
            "goals": [Goal("value", "≤", 0)],
            "met": not soak.failures and soak.data_lost == 0,
            "runs": [seconds],
            "extra": {
                "seed": seed,
                "cases": soak.cases,
                "failures": len(soak.failures),
                "data_lost": soak.data_lost,
                "conflicts_checked": soak.conflicts_seen,
                "resumes": soak.resumes,
                "compactions": soak.compactions,
                "seconds": round(seconds, 1),
                "first_failures": soak.failures[:10],
            },
        }
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=10_000)
    parser.add_argument("--seed", type=int)
    args = parser.parse_args()
    [figure] = figures(args.edits, args.seed)
    extra = figure["extra"]
    print(f"{figure['name']}")
    print(
        f"cases {extra['cases']}  failures {extra['failures']}  data lost {extra['data_lost']}  "
        f"conflicts checked {extra['conflicts_checked']}  resumes {extra['resumes']}  "
        f"compactions {extra['compactions']}  "
        f"seed {extra['seed']}  {extra['seconds']} s"
    )
    for failure in extra["first_failures"]:
        print("  " + failure)
    sys.exit(0 if figure["met"] else 1)


if __name__ == "__main__":
    main()
