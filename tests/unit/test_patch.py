"""``waymark.patch`` in-process: exact bytes, all-or-nothing, git headers, encodings."""

from __future__ import annotations

import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from helpers_commands import Agent, put


@pytest.fixture
def agent(workspace: Path, tmp_path: Path) -> Agent:
    return Agent(workspace, tmp_path / "history")


def tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.parts
    }


def git_diff(old: dict[str, bytes], new: dict[str, bytes], tmp: Path) -> str:
    """The `git diff` (with renames) that turns the ``old`` tree into ``new``."""
    repo = tmp / "repo"
    repo.mkdir()

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-c", "core.autocrlf=false", *args],
            cwd=repo,
            check=True,
            capture_output=True,
            timeout=60,
        ).stdout.decode("utf-8")

    git("init", "-q")
    for name, data in old.items():
        put(repo, name, data)
    git("add", "-A")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "old", "--allow-empty")
    for p in repo.rglob("*"):
        if p.is_file() and ".git" not in p.parts:
            p.unlink()
    for name, data in new.items():
        put(repo, name, data)
    git("add", "-A")
    return git("diff", "--cached", "-M", "--binary")


async def test_a_git_diff_of_several_files_applies_byte_exactly(
    agent: Agent, tmp_path: Path
) -> None:
    old = {
        "src/app.py": b"import os\n\n\ndef main():\n    print('hi')\n",
        "README.md": b"# demo\n\nold text\n",
        "gone.txt": b"bye\n",
        "move/me.txt": b"".join(b"line %d\n" % i for i in range(30)),
    }
    new = {
        "src/app.py": b"import os\nimport sys\n\n\ndef main():\n    print('hello')\n",
        "README.md": b"# demo\n\nnew text\n",
        "docs/new.md": b"fresh\n",
        "moved/me.txt": old["move/me.txt"].replace(b"line 7\n", b"line seven\n"),
    }
    for name, data in old.items():
        put(agent.root, name, data)
    patch = git_diff(old, new, tmp_path)
    assert "rename from move/me.txt" in patch
    result = await agent("patch", patch=patch)
    assert result["ok"] is True, result
    assert tree(agent.root) == new
    assert sorted((f["path"], f["status"]) for f in result["patched"]) == [
        ("README.md", "modified"),
        ("docs/new.md", "created"),
        ("gone.txt", "deleted"),
        ("moved/me.txt", "renamed"),
        ("src/app.py", "modified"),
    ]
    assert result["diff"].count("+++ ") == 6  # the rename is a delete and a create
    turns = await agent("turns")
    assert turns["ok"] is True


async def test_a_mismatching_hunk_fails_the_whole_patch_and_writes_nothing(
    agent: Agent, tmp_path: Path
) -> None:
    old = {"a.txt": b"one\ntwo\nthree\n", "b.txt": b"alpha\nbeta\ngamma\n"}
    new = {"a.txt": b"one\nTWO\nthree\n", "b.txt": b"alpha\nBETA\ngamma\n"}
    patch = git_diff(old, new, tmp_path)
    put(agent.root, "a.txt", old["a.txt"])
    put(agent.root, "b.txt", b"alpha\nbeta\nGAMMA\n")
    result = await agent("patch", patch=patch)
    assert result["error"] == "patch_failed"
    assert result["details"] == {
        "path": "b.txt",
        "hunk": "@@ -1,3 +1,3 @@",
        "line": 3,
        "expected": "gamma",
        "actual": "GAMMA",
    }
    assert "b.txt" in result["message"] and "'GAMMA'" in result["message"]
    assert tree(agent.root) == {"a.txt": old["a.txt"], "b.txt": b"alpha\nbeta\nGAMMA\n"}


async def test_a_hunk_moved_down_applies_at_the_offset_and_says_so(agent: Agent) -> None:
    put(agent.root, "a.txt", b"new0\nnew1\nx\ny\nz\n")
    patch = "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n x\n-y\n+Y\n z\n"
    result = await agent("patch", patch=patch)
    assert result["ok"] is True, result
    assert (agent.root / "a.txt").read_bytes() == b"new0\nnew1\nx\nY\nz\n"
    assert result["patched"] == [{"path": "a.txt", "status": "modified", "offsets": [2]}]


async def test_two_equally_near_matches_are_refused(agent: Agent) -> None:
    put(agent.root, "a.txt", b"k\nv\nq\nq\nk\nv\n")
    patch = "--- a.txt\n+++ a.txt\n@@ -3,2 +3,2 @@\n k\n-v\n+V\n"
    result = await agent("patch", patch=patch)
    assert result["error"] == "patch_failed"
    assert "several places" in result["message"]
    assert (agent.root / "a.txt").read_bytes() == b"k\nv\nq\nq\nk\nv\n"


async def test_crlf_file_with_an_lf_patch_stays_crlf(agent: Agent) -> None:
    put(agent.root, "w.txt", b"one\r\ntwo\r\nthree\r\n")
    patch = "--- a/w.txt\n+++ b/w.txt\n@@ -1,3 +1,4 @@\n one\n-two\n+TWO\n+2b\n three\n"
    result = await agent("patch", patch=patch)
    assert result["ok"] is True, result
    assert (agent.root / "w.txt").read_bytes() == b"one\r\nTWO\r\n2b\r\nthree\r\n"


async def test_bom_and_utf16_are_kept(agent: Agent) -> None:
    put(agent.root, "bom.txt", b"\xef\xbb\xbfa\nb\n")
    put(agent.root, "u16.txt", "\ufeffa\r\nb\r\n".encode("utf-16-le"))
    patch = (
        "--- a/bom.txt\n+++ b/bom.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+é\n"
        "--- a/u16.txt\n+++ b/u16.txt\n@@ -1,2 +1,2 @@\n-a\n+ä\n b\n"
    )
    result = await agent("patch", patch=patch)
    assert result["ok"] is True, result
    assert (agent.root / "bom.txt").read_bytes() == "\ufeffa\né\n".encode()
    assert (agent.root / "u16.txt").read_bytes() == "\ufeffä\r\nb\r\n".encode("utf-16-le")


async def test_no_newline_at_end_of_file_both_ways(agent: Agent, tmp_path: Path) -> None:
    old = {"a.txt": b"x\ny", "b.txt": b"x\ny\n"}
    new = {"a.txt": b"x\ny\nz\n", "b.txt": b"x\nY"}
    patch = git_diff(old, new, tmp_path)
    assert "\\ No newline at end of file" in patch
    for name, data in old.items():
        put(agent.root, name, data)
    result = await agent("patch", patch=patch)
    assert result["ok"] is True, result
    assert tree(agent.root) == new


async def test_preview_then_apply_is_one_proposal(agent: Agent) -> None:
    put(agent.root, "a.txt", b"a\nb\n")
    patch = (
        "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n"
        "--- /dev/null\n+++ b/c.txt\n@@ -0,0 +1 @@\n+c\n"
    )
    preview = await agent("patch", patch=patch, preview=True)
    assert preview["preview"] is True and preview["changed"] is True
    assert [f["action"] for f in preview["files"]] == ["updated", "created"]
    assert tree(agent.root) == {"a.txt": b"a\nb\n"}
    applied = await agent("applyPending", token=preview["token"])
    assert applied["ok"] is True, applied
    assert tree(agent.root) == {"a.txt": b"a\nB\n", "c.txt": b"c\n"}


async def test_refusals_write_nothing(agent: Agent) -> None:
    put(agent.root, "a.txt", b"a\n")
    put(agent.root, "img.png", b"\x89PNG")
    cases = {
        "not a diff": "invalid_params",
        "--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+a\n": "patch_failed",  # exists
        "--- a/a.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-b\n": "patch_failed",
        "--- a/missing.txt\n+++ b/missing.txt\n@@ -1 +1 @@\n-a\n+b\n": "file_not_found",
        "--- a/../out.txt\n+++ b/../out.txt\n@@ -1 +1 @@\n-a\n+b\n": "path_outside_workspace",
        "diff --git a/img.png b/img.png\nindex 1..2 100644\nBinary files a/img.png and "
        "b/img.png differ\n": "patch_failed",
    }
    for patch, code in cases.items():
        result = await agent("patch", patch=patch)
        assert result.get("error") == code, (patch, result)
    assert tree(agent.root) == {"a.txt": b"a\n", "img.png": b"\x89PNG"}


async def test_strip_and_cwd(agent: Agent) -> None:
    put(agent.root, "pkg/x/a.txt", b"a\n")
    patch = "--- old/x/a.txt\n+++ new/x/a.txt\n@@ -1 +1 @@\n-a\n+A\n"
    result = await agent("patch", patch=patch, strip=1, cwd="pkg")
    assert result["ok"] is True, result
    assert (agent.root / "pkg/x/a.txt").read_bytes() == b"A\n"
    assert (await agent("patch", patch=patch, strip=-1))["error"] == "invalid_params"


# -- replay of real upstream releases -------------------------------------------------------

# Consecutive sdists from PyPI: changed, added and removed files (toml drops common.py).
RELEASES = [
    ("six", "1.16.0", "1.17.0", {"modified"}),
    ("idna", "3.6", "3.7", {"modified", "created"}),
    ("toml", "0.10.1", "0.10.2", {"modified", "created", "deleted"}),
]
CACHE = Path(__file__).resolve().parents[1] / ".cache" / "sdists"  # gitignored


PIP_DOWNLOAD = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:"]


def sdist(name: str, version: str) -> Path:
    """The release's sdist, fetched once with pip into the cache; unreachable -> fail."""
    found = sorted(CACHE.glob(f"{name}-{version}.tar.gz"))
    if found:
        return found[0]
    CACHE.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(
        [*PIP_DOWNLOAD, f"{name}=={version}", "-d", str(CACHE)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    found = sorted(CACHE.glob(f"{name}-{version}.tar.gz"))
    if proc.returncode != 0 or not found:
        pytest.fail(f"cannot download the sdist {name}=={version} from PyPI: {proc.stderr[-800:]}")
    return found[0]


def text_tree(archive: Path) -> dict[str, bytes]:
    """The sdist's UTF-8 text files, without the top-level directory (binaries set aside)."""
    files: dict[str, bytes] = {}
    with tarfile.open(archive) as tar:
        for member in tar.getmembers():
            handle = tar.extractfile(member) if member.isfile() else None
            if handle is None:
                continue
            data = handle.read()
            try:
                data.decode("utf-8")
            except UnicodeDecodeError:
                continue
            if b"\0" not in data:
                files[member.name.split("/", 1)[1]] = data
    return files


@pytest.mark.parametrize(("name", "old", "new", "statuses"), RELEASES)
async def test_upstream_release_replays_byte_exactly(
    name: str, old: str, new: str, statuses: set[str], workspace: Path, tmp_path: Path
) -> None:
    before, after = text_tree(sdist(name, old)), text_tree(sdist(name, new))
    patch = git_diff(before, after, tmp_path)
    for path, data in before.items():
        put(workspace, path, data)
    agent = Agent(workspace, tmp_path / "history")
    result = await agent("patch", patch=patch)
    assert result["ok"] is True, result
    assert tree(workspace) == after
    assert {f["status"] for f in result["patched"]} == statuses

    # The same patch with one context line altered: refused, nothing written.
    for path, data in before.items():
        put(workspace, path, data)
    for path in set(after) - set(before):
        (workspace / path).unlink()
    lines = patch.splitlines(keepends=True)
    in_hunk = False
    for i, line in enumerate(lines):
        in_hunk = in_hunk or line.startswith("@@")
        if in_hunk and line.startswith(" ") and line.strip():
            lines[i] = " " + line[1:].rstrip("\n") + " altered\n"
            break
    refused = await agent("patch", patch="".join(lines))
    assert refused["error"] == "patch_failed", refused
    assert tree(workspace) == before
