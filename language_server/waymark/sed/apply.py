"""Choose how to run a compiled script: the whole-buffer path for plain ``s`` scripts, else
GNU's cycle line by line."""

from __future__ import annotations

from .execute import run_file
from .script import SedScript
from .simulate import apply_buffer_script


def apply_script(script: SedScript, data: bytes) -> bytes:
    """The bytes GNU ``sed -i`` leaves in a file that held ``data``; SedDecline if unprovable."""
    result = apply_files(script, [data])[0]
    assert result is not None
    return result


def apply_files(script: SedScript, files: list[bytes]) -> list[bytes | None]:
    """Each file's new bytes, in order; None for files GNU never opens because ``q``/``Q``
    stopped it in an earlier one."""
    results: list[bytes | None] = []
    hold_chomped = True
    for data in files:
        if script.commands is not None:
            results.append(apply_buffer_script(script.commands, data))
            continue
        run = run_file(script, data, hold_chomped)
        hold_chomped = run.hold_chomped
        results.append(run.data)
        if run.quit:
            results.extend([None] * (len(files) - len(results)))
            break
    return results
