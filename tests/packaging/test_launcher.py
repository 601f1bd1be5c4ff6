"""The .vsix's launcher (vscode-extension/bundled/tool/launch.py): its ``--check`` answers "ok"
only when the bundled server really imports, and names what is missing otherwise."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAUNCHER = ROOT / "vscode-extension" / "bundled" / "tool" / "launch.py"
# Top-level modules of the bundled libraries (vscode-extension/bundled/requirements.txt).
LIBRARIES = ["pygls", "lsprotocol", "cattrs", "cattr", "attr", "attrs", "unidiff", "xxhash"]
LIBRARIES += ["typing_extensions"]

# -I as the extension runs it; -S as well, so this venv's own copies of the libraries cannot
# stand in for a missing bundled one.
PYTHON = [sys.executable, "-I", "-S"]

pytestmark = pytest.mark.timeout(120)


def _bundle(tmp_path: Path) -> Path:
    """A copy of the .vsix's ``bundled`` folder, libraries linked from this interpreter's."""
    bundled = tmp_path / "bundled"
    (bundled / "tool").mkdir(parents=True)
    shutil.copy(LAUNCHER, bundled / "tool" / "launch.py")
    libs = bundled / "libs"
    libs.mkdir()
    for name in LIBRARIES:
        spec = importlib.util.find_spec(name)
        assert spec is not None and spec.origin is not None, name
        origin = Path(spec.origin)
        source = origin.parent if origin.name == "__init__.py" else origin
        (libs / source.name).symlink_to(source)
    shutil.copytree(
        ROOT / "language_server" / "waymark",
        libs / "waymark",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    return bundled


def _check(bundled: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*PYTHON, str(bundled / "tool" / "launch.py"), "--check"],
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_complete_bundle_checks_ok(tmp_path: Path) -> None:
    checked = _check(_bundle(tmp_path))
    assert (checked.returncode, checked.stdout) == (0, "ok\n")


def test_a_bundle_missing_a_server_module_fails_the_check_with_the_import_error(
    tmp_path: Path,
) -> None:
    bundled = _bundle(tmp_path)
    (bundled / "libs" / "waymark" / "engine" / "anchors.py").unlink()
    checked = _check(bundled)
    assert checked.returncode == 1
    version = "{}.{}".format(*sys.version_info[:2])
    assert checked.stdout == (
        f"the bundled language server does not import with Python {version}: "
        "No module named 'waymark.engine.anchors'\n"
    )


def test_a_bundle_missing_a_library_fails_the_check(tmp_path: Path) -> None:
    bundled = _bundle(tmp_path)
    (bundled / "libs" / "lsprotocol").unlink()
    checked = _check(bundled)
    assert checked.returncode == 1
    assert checked.stdout.endswith("No module named 'lsprotocol'\n")


def test_the_launched_bundle_answers_initialize(tmp_path: Path) -> None:
    bundled = _bundle(tmp_path)
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"processId": None, "rootUri": None, "capabilities": {}},
        }
    ).encode()
    request = b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
    server = subprocess.Popen(
        [*PYTHON, str(bundled / "tool" / "launch.py")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path)},
    )
    try:
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write(request)
        server.stdin.flush()
        length = 0
        while (header := server.stdout.readline()) not in (b"\r\n", b""):
            if header.lower().startswith(b"content-length:"):
                length = int(header.split(b":")[1])
        answer = json.loads(server.stdout.read(length))
    finally:
        server.kill()
        server.wait(timeout=10)
    assert answer["id"] == 1
    assert answer["result"]["serverInfo"]["name"] == "waymark-ls"
