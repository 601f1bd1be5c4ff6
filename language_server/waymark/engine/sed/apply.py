"""Choose how to run a compiled script: the whole-buffer path for plain ``s`` scripts, the
whole-buffer program path for the programs ``fastpath.py`` takes, else GNU's cycle line by
line. Work whose output for a line depends on that line alone runs a piece of the file at a
time (``pieces.py``)."""

from __future__ import annotations

from functools import partial

from waymark.engine.sed.decline import SedDecline
from waymark.engine.sed.execute import run_file
from waymark.engine.sed.fastpath import run_fast
from waymark.engine.sed.fastprogram import FastProgram, fast_program
from waymark.engine.sed.heap import keep_heap
from waymark.engine.sed.pieces import by_pieces
from waymark.engine.sed.script import SedScript
from waymark.engine.sed.simulate import apply_buffer_script, decode


def apply_script(script: SedScript, data: bytes) -> bytes:
    """The bytes GNU ``sed -i`` leaves in a file that held ``data``; SedDecline if unprovable."""
    result = apply_files(script, [data])[0]
    assert result is not None
    return result


def apply_files(script: SedScript, files: list[bytes]) -> list[bytes | None]:
    """Each file's new bytes, in order; None for files GNU never opens because ``q``/``Q``
    stopped it in an earlier one."""
    if script.reads or script.writes:
        # The files they read and the bytes they write travel through apply_with_files.
        raise SedDecline("the script reads or writes other files; run it with apply_with_files")
    results: list[bytes | None] = []
    hold_chomped = True
    fast = fast_program(script)
    for data in files:
        keep_heap(len(data))
        if script.commands is not None:
            results.append(apply_buffer_script(script.commands, data))
            continue
        if fast is not None:
            # No hold space, no q: the file's bytes are all the fast path changes.
            new = _run_fast(fast, data)
            if new is not None:
                results.append(new)
                continue
        run = run_file(script, data, hold_chomped)
        hold_chomped = run.hold_chomped
        results.append(run.data)
        if run.quit:
            results.extend([None] * (len(files) - len(results)))
            break
    return results


def _run_fast(fast: FastProgram, data: bytes) -> bytes | None:
    if fast.line_local:
        return by_pieces(partial(_run_fast_piece, fast), data)
    return _run_fast_piece(fast, data, 0)


def _run_fast_piece(fast: FastProgram, data: bytes, offset: int) -> bytes | None:
    if fast.runs_on_bytes and data.isascii():
        return run_fast(fast, data)
    text = decode(data, offset)
    new_text = run_fast(fast, text)
    if new_text is None:
        return None
    return data if new_text == text else new_text.encode("utf-8")
