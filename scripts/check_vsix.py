"""Check a built Linux .vsix as a user's machine gets it: it carries the licence, its native
libraries are stripped, and its bundled server, run by the system Python with an empty
environment, passes the launcher's check and answers `initialize`.

Usage: python3 scripts/check_vsix.py vscode-extension/dist/waymark-linux-x64.vsix
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = "/usr/bin/python3"
ENV = {"PATH": "/usr/bin:/bin"}


def initialize(launcher: Path, home: str) -> dict[str, object]:
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"processId": None, "rootUri": None, "capabilities": {}},
        }
    ).encode()
    server = subprocess.Popen(
        [PYTHON, "-I", str(launcher)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env={**ENV, "HOME": home},
    )
    assert server.stdin is not None and server.stdout is not None
    try:
        server.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        server.stdin.flush()
        length = 0
        while (header := server.stdout.readline()) not in (b"\r\n", b""):
            if header.lower().startswith(b"content-length:"):
                length = int(header.split(b":")[1])
        answer: dict[str, object] = json.loads(server.stdout.read(length))
    finally:
        server.kill()
        server.wait(timeout=10)
    return answer


def main() -> None:
    vsix = Path(sys.argv[1])
    with tempfile.TemporaryDirectory() as scratch:
        with zipfile.ZipFile(vsix) as archive:
            archive.extractall(scratch)
        extension = Path(scratch) / "extension"
        licence = (extension / "LICENSE.txt").read_text()
        assert licence == (ROOT / "LICENSE").read_text(), "the .vsix's LICENSE.txt is not ours"
        libraries = sorted((extension / "bundled" / "libs").rglob("*.so"))
        assert libraries, "no native library in the bundle"
        size = sum(p.stat().st_size for p in libraries)
        unstripped = [p.name for p in libraries if b".symtab" in p.read_bytes()]
        assert not unstripped, f"not stripped: {unstripped}"
        launcher = extension / "bundled" / "tool" / "launch.py"
        check = subprocess.run(
            [PYTHON, "-I", str(launcher), "--check"],
            env=ENV,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert check.stdout == "ok\n", f"launch.py --check: {check.stdout}{check.stderr}"
        answer = initialize(launcher, scratch)
        info = answer.get("result", {})["serverInfo"]  # type: ignore[index]
        assert info["name"] == "waymark-ls", answer
    print(
        f"{vsix.name}: LICENSE.txt, {len(libraries)} stripped libraries ({size} bytes), "
        f"server {info['version']} answered initialize"
    )


if __name__ == "__main__":
    main()
