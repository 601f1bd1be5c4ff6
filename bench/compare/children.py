"""What the CLI side-by-side scripts share: a tree's environment, and a child's CPU."""

import os
import subprocess


def env_of(tree: str, pure: bool) -> dict[str, str]:
    """The environment running ``tree``'s source, on the pure-Python path or the core."""
    return {**os.environ, "PYTHONPATH": tree, "WAYMARK_PURE_PYTHON": "1" if pure else ""}


def cpu(command: list[str], env: dict[str, str]) -> float:
    """CPU ms (user + sys) of ``command`` run to its end, which must succeed."""
    child = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    assert status == 0, command
    return (usage.ru_utime + usage.ru_stime) * 1000
