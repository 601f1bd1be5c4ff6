"""A declined sed line's reason is one sentence that says "not simulated" at most once (the
CLI prints it after ``not simulated:``, the model reads it after the same words)."""

from __future__ import annotations

import re

import pytest

from waymark.engine.sed import SedDecline
from waymark.engine.sed.invocation import _WRAPPERS, parse_command_line


@pytest.mark.parametrize("wrapper", sorted(_WRAPPERS))
def test_a_wrapped_sed_says_why_once(wrapper: str) -> None:
    line = "gsed -i s/a/b/ f" if wrapper == "gsed" else f"{wrapper} sed -i s/a/b/ f"
    with pytest.raises(SedDecline) as declined:
        parse_command_line(line)
    reason = str(declined.value)
    assert reason == _WRAPPERS[wrapper]
    assert len(re.findall(r"\bsimulated\b", reason)) <= 1, reason
