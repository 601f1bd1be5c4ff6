"""Which encoding a file's bytes are in: a BOM, a declaration, valid UTF-8, then detection.

:func:`decide` is a pure function of the bytes and what was declared for the file (by
``.editorconfig``, ``.gitattributes``, the editor or the caller; the store finds those). The
detector, charset-normalizer, is imported only for bytes that are not UTF-8, so UTF-8 files
and the hook path never load it. Detection answers only when one supported encoding clearly
wins; otherwise the file keeps UTF-8 with its undecodable bytes escaped, and says so.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

from waymark.engine import core
from waymark.engine.errors import BinaryFile

# Checked in order: the UTF-32 LE BOM starts with the UTF-16 LE BOM.
BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)

# The legacy encodings Waymark reads and writes, by the name it reports (a Python codec name
# too). Every one is ASCII-compatible, so a line's terminators are the bytes they look like.
LEGACY: tuple[str, ...] = (
    "windows-1252",
    "iso-8859-1",
    "iso-8859-15",
    "gbk",
    "gb18030",
    "big5",
    "shift_jis",
    "cp932",
    "euc-jp",
    "euc-kr",
    "cp949",
    "koi8-r",
)
_UNICODE = ("utf-8", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be")
SUPPORTED = (*_UNICODE, *LEGACY)

# Spellings of .editorconfig (latin1, utf-8-bom, utf-16le), .gitattributes (iconv names) and
# VS Code's files.encoding (windows1252, shiftjis, utf8bom), compared without - and _.
_ALIASES = {
    "latin1": "iso-8859-1",
    "utf8bom": "utf-8",
    "utf16le": "utf-16-le",
    "utf16be": "utf-16-be",
    "utf32le": "utf-32-le",
    "utf32be": "utf-32-be",
    "sjis": "shift_jis",
    "windows31j": "cp932",
    "uhc": "cp949",
}


def _key(name: str) -> str:
    return name.strip().lower().replace("-", "").replace("_", "")


_BY_KEY = {_key(name): name for name in SUPPORTED} | _ALIASES


def canonical(name: str) -> str | None:
    """The supported encoding a declared name means (``latin1`` → ``iso-8859-1``), or None."""
    if _key(name) in _BY_KEY:
        return _BY_KEY[_key(name)]
    try:
        python = codecs.lookup(name.strip()).name
    except LookupError:
        return None
    for known in SUPPORTED:
        if codecs.lookup(known).name == python:
            return known
    return None


def canonical_bom(name: str) -> bool:
    """A declared name that asks new files for a BOM (EditorConfig's ``utf-8-bom``)."""
    return _key(name) == "utf8bom"


@dataclass(frozen=True)
class Decision:
    """How to decode a file: ``encoding`` and ``bom``; ``source`` says why (``bom``,
    ``declared``, ``utf-8``, ``detected``, or ``undecided``: not UTF-8 and no encoding could
    be decided, read as UTF-8 with the undecodable bytes escaped); ``note`` is a sentence for
    a person when something was not taken as given."""

    encoding: str
    bom: bool
    source: str
    note: str | None = None


_SNIFF_BYTES = 8192


def errors_for(encoding: str) -> str:
    # UTF-16/32 have no surrogateescape round trip, and a lone surrogate kept by surrogatepass
    # is no text (it cannot be hashed, printed or sent as JSON): such bytes are refused.
    return "strict" if encoding in _UNICODE[1:] else "surrogateescape"


def not_valid_in(body: bytes, decision: Decision, exc: UnicodeDecodeError) -> BinaryFile:
    """The refusal of a file whose ``body`` (after its BOM) is not valid in the UTF-16/32
    it has a BOM or a declaration for, naming the first bad byte and its line."""
    encoding = decision.encoding
    before = body[: exc.start].decode(encoding)
    line = before.count("\n") + before.count("\r") - before.count("\r\n") + 1
    offset = exc.start + (len(dict((n, b) for b, n in BOMS)[encoding]) if decision.bom else 0)
    details = {"reason": "undecodable", "encoding": encoding, "offset": offset, "line": line}
    where = f"at byte {offset} (line {line})"
    if decision.bom:
        return BinaryFile(
            f"The file has a {encoding} BOM but is not valid {encoding} {where}; "
            "Waymark will not guess, so edit it with another tool.",
            details,
        )
    return BinaryFile(
        f"The file is not valid {encoding}, the encoding declared for it, {where}",
        details,
        next_step="encoding",
    )


def refuse_binary(data: bytes) -> None:
    # Only UTF-16/32 explain NUL bytes; a UTF-8 BOM in front of them is still binary.
    if data.find(b"\x00", 0, _SNIFF_BYTES) >= 0:  # no copy of the first bytes
        raise BinaryFile(
            "The file looks binary (it has NUL bytes and no UTF-16/32 BOM); "
            "Waymark edits text files only, so use another tool for it.",
            {"reason": "nul_byte"},
        )


def round_trips(data: bytes, encoding: str) -> bool:
    """Decoding then encoding ``data`` gives it back exactly (a stray byte included)."""
    errors = errors_for(encoding)
    try:
        return data.decode(encoding, errors).encode(encoding, errors) == data
    except (UnicodeDecodeError, UnicodeEncodeError):
        return False


def valid_utf8(data: bytes) -> bool:
    """Whether ``data`` is valid UTF-8 (as ``data.decode("utf-8")`` judges), without making
    its text where the compiled core can tell."""
    if data.isascii():
        return True
    if core.native is not None:
        return core.native.utf8_valid(data)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def decide(data: bytes, declared: str | None = None) -> Decision:
    """The encoding of ``data``: a BOM; else ``declared`` (a name :func:`canonical` knows);
    else UTF-8 when the bytes are valid UTF-8; else what the detector clearly finds."""
    return decide_with_text(data, declared)[0]


def decide_with_text(
    data: bytes, declared: str | None = None, *, text_wanted: bool = True
) -> tuple[Decision, str | None]:
    """:func:`decide`, plus the text when deciding already decoded it (valid UTF-8): the
    common case then decodes once. ``text_wanted=False``: the text is never returned, and
    UTF-8 is recognised without decoding (:func:`valid_utf8`)."""
    for bom, name in BOMS:
        if data.startswith(bom):
            if name == "utf-8":
                refuse_binary(data)
            return Decision(name, True, "bom"), None
    note = None
    encoding = None if declared is None else canonical(declared)
    if encoding in _UNICODE[1:]:
        # Declared UTF-16/32 is taken as said: bytes not valid in it are refused by the
        # decode, naming where, rather than read as something the caller did not say.
        return Decision(encoding, False, "declared"), None
    refuse_binary(data)
    if declared is not None:
        if encoding is None:
            note = f"the declared encoding {declared!r} is not one Waymark supports"
        elif encoding == "utf-8" or round_trips(data, encoding):
            return Decision(encoding, False, "declared"), None
        elif encoding not in _UNICODE:
            note = f"the bytes do not round-trip as the declared {encoding}"
    if not text_wanted:
        if valid_utf8(data):
            return Decision("utf-8", False, "utf-8", note), None
    else:
        try:
            return Decision("utf-8", False, "utf-8", note), data.decode("utf-8")
        except UnicodeDecodeError:
            pass
    found = detect(data)
    if found is not None:
        return Decision(found, False, "detected", note), None
    return Decision("utf-8", False, "undecided", note), None


# Among supported encodings that decode the bytes to the same text, the narrower one: a
# character it cannot hold is refused rather than written in bytes the file's readers lack.
_NARROWER = {"gb18030": "gbk", "cp932": "shift_jis", "cp949": "euc-kr"}
_DETECTABLE = ("cp1252", "gb18030", "big5", "cp932", "euc_jp", "cp949", "koi8_r")
_NAMES = {
    "cp1252": "windows-1252",
    "gb18030": "gb18030",
    "big5": "big5",
    "cp932": "cp932",
    "euc_jp": "euc-jp",
    "cp949": "cp949",
    "koi8_r": "koi8-r",
}
# UTF-8 with some damage is not a single-byte file: in real Windows-1252 or KOI8-R text
# hardly a non-ASCII byte falls in a valid UTF-8 sequence (0 in the corpus), in a damaged
# UTF-8 file most do; multi-byte encodings reach 0.2 by chance, and their detection is sharp.
_SINGLE_BYTE = ("windows-1252", "koi8-r")
_MAX_UTF8_SHARE = 0.1
_UTF8_SEQUENCE = re.compile(
    rb"[\xc2-\xdf][\x80-\xbf]|\xe0[\xa0-\xbf][\x80-\xbf]|[\xe1-\xec\xee\xef][\x80-\xbf]{2}"
    rb"|\xed[\x80-\x9f][\x80-\xbf]|\xf0[\x90-\xbf][\x80-\xbf]{2}|[\xf1-\xf3][\x80-\xbf]{3}"
    rb"|\xf4[\x80-\x8f][\x80-\xbf]{2}"
)
_ASCII = bytes(range(128))


def _utf8_share(data: bytes) -> float:
    """The share of non-ASCII bytes that lie in well-formed UTF-8 sequences."""
    non_ascii = len(data.translate(None, _ASCII))
    valid = sum(map(len, _UTF8_SEQUENCE.findall(data)))
    return valid / non_ascii if non_ascii else 0.0


# A match is clear when its mess ratio is within the detector's own default threshold and
# the runner-up is measurably worse.
_MAX_CHAOS = 0.2
_CHAOS_MARGIN = 0.05
_COHERENCE_MARGIN = 0.1


def detect(data: bytes) -> str | None:
    """The supported encoding charset-normalizer clearly finds for ``data``, or None."""
    # Only bytes that are not UTF-8 reach here: UTF-8 files never pay for this import.
    from charset_normalizer import from_bytes

    matches = list(from_bytes(data, cp_isolation=list(_DETECTABLE)))
    if not matches or matches[0].chaos > _MAX_CHAOS:
        return None
    best = matches[0]
    if len(matches) > 1:
        second = matches[1]
        if (
            second.chaos - best.chaos < _CHAOS_MARGIN
            and best.coherence - second.coherence < _COHERENCE_MARGIN
            and str(second) != str(best)
        ):
            return None
    name = _NAMES.get(codecs.lookup(best.encoding).name.replace("-", "_"))
    if name is None or (name in _SINGLE_BYTE and _utf8_share(data) > _MAX_UTF8_SHARE):
        return None
    narrower = _NARROWER.get(name)
    if narrower is not None and round_trips(data, narrower):
        try:
            if data.decode(narrower) == data.decode(name):
                name = narrower
        except UnicodeDecodeError:
            pass
    return name if round_trips(data, name) else None
