"""Which calls the bridge sends to the editor, reviews, and which params carry paths: one
record per command (``Command.bridge``, ``path_params``, ``cwd_param``), exported to the
extension and read by every part of the bridge."""

from __future__ import annotations

import attrs

from waymark.commands import export
from waymark.commands.registry import COMMANDS, TOOLS
from waymark.doors.bridge import wire

# The params that name a file or folder, whatever the command.
PATH_FIELDS = {"path", "file_path", "cwd"}


def test_every_change_a_model_can_make_goes_to_the_editor() -> None:
    # A new mutating tool that forgot its policy would write behind the editor's back.
    for name, command in TOOLS.items():
        if command.mutating:
            assert command.bridge in ("editor", "review"), name
    assert COMMANDS["waymark.applyPending"].bridge == "local"


def test_the_policy_is_the_one_the_bridge_follows() -> None:
    table = {c.id: c.bridge for c in COMMANDS.values() if c.bridge != "local"}
    assert table == {
        "waymark.read": "editor",
        "waymark.edit": "review",
        "waymark.replace": "review",
        "waymark.multiReplace": "review",
        "waymark.write": "review",
        "waymark.sed": "review",
        "waymark.patch": "review",
        "waymark.notebookEdit": "review",
        "waymark.rewind": "editor",
    }
    for command in COMMANDS.values():
        routed = wire.route(command.id)
        assert (routed.id if routed else None) == (
            command.id if command.bridge != "local" else None
        )
    assert wire.route("waymark.nope") is None and wire.route(["waymark.read"]) is None


def test_every_path_param_is_listed_and_exists() -> None:
    for command in COMMANDS.values():
        fields = {f.name for f in attrs.fields(command.params)}
        assert set(command.path_params) <= fields, command.id
        assert set(command.path_params) == fields & PATH_FIELDS, command.id
        assert command.cwd_param is None or command.cwd_param in command.path_params, command.id


def test_the_exported_spec_carries_the_policy() -> None:
    exported = {c["id"]: c for c in export.spec()["commands"]}
    for command in COMMANDS.values():
        spec = exported[command.id]
        assert spec["bridge"] == command.bridge
        assert spec["pathParams"] == list(command.path_params)
        assert spec["cwdParam"] == command.cwd_param
    assert '"bridge": "review"' in export.typescript()
