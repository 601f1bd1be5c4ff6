"""A file's encoding as commands see it: what was declared for it, and text encoded into it.

The decision itself is the engine's (``engine/encodings.py``); the project's declarations
are read by the store (``store/declared_encoding.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from waymark.engine.encodings import SUPPORTED, canonical
from waymark.engine.errors import InvalidParams, UnrepresentableCharacter
from waymark.store.declared_encoding import declared_encoding

if TYPE_CHECKING:
    from waymark.commands.context import CommandContext
    from waymark.engine.text import TextFile
    from waymark.store.workspace import ResolvedPath


def declared_for(
    ctx: CommandContext, resolved: ResolvedPath, explicit: str | None, dir_fd: int | None = None
) -> str | None:
    """The encoding declared for a file: the caller's, the project's (.editorconfig,
    .gitattributes), else the editor's ``files.encoding``; ``dir_fd``: the file's directory,
    when the caller holds it open."""
    if explicit is not None:
        if canonical(explicit) is None:
            raise InvalidParams(
                f"`encoding` {explicit!r} is not one Waymark reads; use one of "
                f"{', '.join(SUPPORTED)}, or leave it out to let Waymark decide.",
                {"field": "encoding", "supported": list(SUPPORTED)},
            )
        return explicit
    project = declared_encoding(resolved.real, resolved.folder, dir_fd)
    if project is not None:
        return project
    editor = ctx.options.filesEncoding
    # An editor set to UTF-8 (VS Code's default) declares nothing about a file that is not.
    return None if editor is None or canonical(editor) == "utf-8" else editor


def encode_as(like: TextFile, text: str, field: str) -> bytes:
    """Encode text given by a caller; text the file's encoding cannot hold is bad input."""
    return encoded_input(lambda: like.encode_text(text), like.encoding, field)


def encoded_input(encode: Callable[[], bytes], encoding: str, field: str) -> bytes:
    """``encode()``, text from the caller's ``field`` that ``encoding`` cannot hold refused."""
    try:
        return encode()
    except UnicodeEncodeError as exc:
        raise InvalidParams(
            f"The parameter `{field}` holds text that cannot be saved as {encoding} "
            f"(e.g. a lone surrogate at offset {exc.start}); send valid Unicode.",
            {"field": field, "offset": exc.start},
        ) from exc


def buffer_bytes(disk: TextFile, text: str) -> bytes:
    """An open buffer's text as bytes of the file, encoded the way the file on disk is."""
    try:
        return disk.encode_text(text)
    except UnrepresentableCharacter:
        # The editor decoded the file another way (U+FFFD where it could not): the buffer is
        # text this encoding cannot hold, taken as UTF-8 as before, so it still reads (and,
        # differing from the disk, is edited through the editor, never under it on disk).
        return text.encode("utf-8", "surrogateescape")
