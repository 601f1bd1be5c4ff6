"""``acp_tee.py LOG -- AGENT [ARG…]``: run an ACP agent, logging every line it receives
(``"<" + line``) and sends (``">" + line``) as it was, one JSON string per line in LOG, so a
test compares them with what the editor sent and got through ``waymark acp``."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from typing import IO

lock = threading.Lock()


def copy(source: IO[bytes], target: IO[bytes], log: IO[str], mark: str) -> None:
    for line in source:
        with lock:
            log.write(json.dumps(mark + line.decode("utf-8", "surrogateescape")) + "\n")
            log.flush()
        target.write(line)
        target.flush()
    target.close()


def main() -> int:
    log_path, argv = sys.argv[1], sys.argv[3:]
    agent = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert agent.stdin is not None and agent.stdout is not None
    with open(log_path, "a", encoding="utf-8") as log:
        threading.Thread(
            target=copy, args=(sys.stdin.buffer, agent.stdin, log, "<"), daemon=True
        ).start()
        copy(agent.stdout, sys.stdout.buffer, log, ">")
        return agent.wait()


if __name__ == "__main__":
    sys.exit(main())
