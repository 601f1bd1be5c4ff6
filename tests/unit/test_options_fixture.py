"""The server takes what the VS Code extension sends, and the spec states the server's rules.

tests/fixtures/initialization-options.json maps settings to the exact initializationOptions
the extension sends (vscode-extension/test/unit/settings.unit.test.ts checks that side).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from waymark.commands.context import OPTION_RULES, Options, load_options
from waymark.commands.export import option_specs

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "initialization-options.json"
CASES = json.loads(FIXTURE.read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_server_takes_the_extensions_options(case: dict[str, Any]) -> None:
    sent = case["initializationOptions"]
    options, warnings = load_options(sent)
    assert warnings == []
    expected = {**dataclasses.asdict(Options()), **sent}
    assert dataclasses.asdict(options) == expected


@pytest.mark.parametrize("name", [n for n, o in option_specs().items() if "enum" in o])
def test_allowed_values_are_load_options_rules(name: str) -> None:
    for value in option_specs()[name]["enum"]:
        assert load_options({name: value})[1] == []
    assert load_options({name: "not-" + "-".join(option_specs()[name]["enum"])})[1] != []


@pytest.mark.parametrize("name", [n for n, o in option_specs().items() if "minimum" in o])
def test_minimums_are_load_options_rules(name: str) -> None:
    minimum = option_specs()[name]["minimum"]
    assert load_options({name: minimum})[1] == []
    options, warnings = load_options({name: minimum - 1})
    assert warnings != []
    assert getattr(options, name) == option_specs()[name]["default"]


def test_every_rule_names_an_option() -> None:
    assert set(OPTION_RULES) <= {f.name for f in dataclasses.fields(Options)}
