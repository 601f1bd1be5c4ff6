"""Why an ``old_string`` was not found, and the exact text to send instead.

Agents miss for a few recurring reasons: line-number or anchor prefixes pasted from a read
(``12\\t``, ``  12→``, ``12#a1b2c3|``), JSON double-escaping (``\\\\n`` for a line break),
spaces where the file indents with tabs, trailing whitespace, an edit already applied. Each is
detected and answered with text copied from the file, so the retry can be verbatim. Nothing
here applies anything: a near match is only ever reported, never used.

Cost stays bounded on big files: both searches compare windows of the probe's own line
count; whitespace-insensitive matching only where one probe token occurs verbatim, the
"closest lines" search only around the probe's rarer tokens (within a budget of hits), and
difflib only on the best few windows.
"""

from __future__ import annotations

import heapq
import re
from bisect import bisect_left
from collections import defaultdict
from difflib import SequenceMatcher
from itertools import accumulate
from typing import Any

from waymark.engine.edits.matching import LineIndex, find_spans
from waymark.engine.text import split_lines

_PREFIXES = (
    ("cat -n", "`12\\t`", re.compile(r" *\d+\t")),
    ("arrow", "`12→`", re.compile(r" *\d+→")),
    ("anchor", "`12#hash|`", re.compile(r" *\d+[#:][0-9a-fA-F]{4,16}\|")),
)
_TOKEN_RE = re.compile(r"\w+|[^\w\s]+")
MAX_CANDIDATES = 5
MAX_CLOSEST = 3
CLOSEST_SHORTLIST = 12
MIN_SIMILARITY = 0.5
MAX_TOKEN_HITS = 50_000
MAX_COMPARE_CHARS = 400
MIN_ALREADY_APPLIED_CHARS = 8

_DIFFERENCE_WORDS = {
    "indentation": "indentation",
    "tabs_vs_spaces": "tabs vs spaces in the indentation",
    "trailing_whitespace": "trailing whitespace",
    "inner_whitespace": "whitespace inside lines",
    "line_endings": "line endings",
    "final_newline": "the newline at the end (the file's last line has none)",
}


def strip_line_prefixes(text: str) -> tuple[str, str, str] | None:
    """``(style, label, text without prefixes)`` when every line carries the same prefix."""
    lines = text.split("\n")
    body = lines[:-1] if len(lines) > 1 and lines[-1] == "" else lines
    for style, label, pattern in _PREFIXES:
        found = [pattern.match(line) for line in body]
        if all(found):
            stripped = [line[m.end() :] for line, m in zip(body, found, strict=True) if m]
            return style, label, "\n".join(stripped + lines[len(body) :])
    return None


def _canon(line: str) -> str:
    return " ".join(line.split())


def _lead(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _trail(line: str) -> str:
    return line[len(line.rstrip()) :]


def _span_text(index: LineIndex, first: int, count: int, with_last_eol: bool) -> str:
    last = first + count - 1
    parts = [index.lines[i] + index.eols[i] for i in range(first, last)]
    parts.append(index.lines[last] + (index.eols[last] if with_last_eol else ""))
    return "".join(parts)


class _Probe:
    """An ``old_string`` cut into lines; its first line may start, its last end, mid-line."""

    def __init__(self, text: str) -> None:
        self.lines, self.eols = split_lines(text)
        self.ends_with_eol = bool(self.eols) and self.eols[-1] != ""
        self.canon = [_canon(line) for line in self.lines]

    def partial_start(self, t: int) -> bool:
        return t == 0

    def partial_end(self, t: int) -> bool:
        return t == len(self.lines) - 1 and not self.ends_with_eol

    def line_matches(self, t: int, file_canon: str) -> bool:
        probe = self.canon[t]
        start, end = self.partial_start(t), self.partial_end(t)
        if start and end:
            return probe in file_canon
        if start:
            return file_canon.endswith(probe)
        if end:
            return file_canon.startswith(probe)
        return file_canon == probe


def _whitespace_candidates(index: LineIndex, probe: _Probe) -> tuple[list[dict[str, Any]], int]:
    k, n = len(probe.lines), len(index.lines)
    if not k or k > n or not any(probe.canon):
        return [], 0
    # Whitespace aside, a matching line holds the probe line's longest token verbatim: a
    # substring test finds the few lines worth canonicalising.
    seed = max(range(k), key=lambda t: len(probe.canon[t]))
    token = max(probe.canon[seed].split(), key=len)
    canon: dict[int, str] = {}

    def matches_at(a: int) -> bool:
        for t in range(k):
            if (a + t) not in canon:
                canon[a + t] = _canon(index.lines[a + t])
            if not probe.line_matches(t, canon[a + t]):
                return False
        return True

    starts = (i - seed for i, line in enumerate(index.lines) if token in line)
    found = [a for a in starts if 0 <= a <= n - k and matches_at(a)]
    candidates = [
        {
            "start_line": a + 1,
            "end_line": a + k,
            "file_text": _span_text(index, a, k, probe.ends_with_eol),
            "differences": _differences(index, a, probe),
        }
        for a in found[:MAX_CANDIDATES]
    ]
    return candidates, len(found)


def _differences(index: LineIndex, first: int, probe: _Probe) -> list[str]:
    found: set[str] = set()
    for t, (mine, eol) in enumerate(zip(probe.lines, probe.eols, strict=True)):
        theirs = index.lines[first + t]
        # A first line may start mid-line; compare its indentation only if it looks whole.
        whole = not probe.partial_start(t) or bool(_lead(mine)) or _canon(theirs) == probe.canon[t]
        if whole and _lead(mine) != _lead(theirs):
            tabs = ("\t" in _lead(mine)) != ("\t" in _lead(theirs))
            found.add("tabs_vs_spaces" if tabs else "indentation")
        if not probe.partial_end(t):
            if _trail(mine) != _trail(theirs):
                found.add("trailing_whitespace")
            their_eol = index.eols[first + t]
            if their_eol == "" and eol != "":
                found.add("final_newline")
            elif "\r" in "".join(probe.eols) and their_eol != eol:
                found.add("line_endings")
        if _canon(mine) == _canon(theirs) and mine.strip() != theirs.strip():
            found.add("inner_whitespace")
    if "tabs_vs_spaces" in found:
        found.discard("indentation")
    return sorted(found) or ["inner_whitespace"]


def _closest(text: str, index: LineIndex, probe: _Probe) -> list[dict[str, Any]]:
    k, n = len(probe.lines), len(index.lines)
    if not k or k > n:
        return []
    # Score lines by the probe's tokens, rarest first and within a budget of hits, so the
    # cost follows the probe, not the file; then difflib ranks the best few windows.
    tokens = sorted(
        (text.count(tok), tok) for tok in set(_TOKEN_RE.findall("\n".join(probe.lines)))
    )
    scores: dict[int, float] = defaultdict(float)
    budget = MAX_TOKEN_HITS
    for count, tok in tokens:
        if not count:
            continue
        budget -= count
        if budget < 0:
            break
        whole = (
            rf"(?<!\w){re.escape(tok)}(?!\w)"
            if tok[0].isalnum() or tok[0] == "_"
            else re.escape(tok)
        )
        lines = [index.line_of(m.start()) - 1 for m in re.finditer(whole, text)]
        for line in lines:
            scores[line] += 1 / len(lines)
    hits = sorted(scores)
    total = [0.0, *accumulate(scores[line] for line in hits)]

    def window_score(a: int) -> float:
        return total[bisect_left(hits, a + k)] - total[bisect_left(hits, a)]

    # The best sliding window over sparse hits can always start at a hit line.
    starts = {min(line, n - k) for line in hits}
    shortlist = heapq.nlargest(CLOSEST_SHORTLIST, sorted(starts), key=window_score)
    ranked = sorted(
        ((_similarity(index.lines[a : a + k], probe.lines), a) for a in shortlist),
        key=lambda pair: (-pair[0], pair[1]),
    )
    picked: list[dict[str, Any]] = []
    for similarity, a in ranked:
        if similarity < MIN_SIMILARITY or len(picked) == MAX_CLOSEST:
            break
        if any(abs(a - (p["start_line"] - 1)) < k for p in picked):
            continue
        picked.append(
            {
                "start_line": a + 1,
                "end_line": a + k,
                "similarity": round(similarity, 2),
                "file_text": _span_text(index, a, k, probe.ends_with_eol),
            }
        )
    return picked


def _similarity(window: list[str], probe: list[str]) -> float:
    """Length-weighted difflib ratio of the lines, paired in order (indentation ignored)."""
    matched = total = 0.0
    for theirs, mine in zip(window, probe, strict=True):
        a, b = theirs.strip()[:MAX_COMPARE_CHARS], mine.strip()[:MAX_COMPARE_CHARS]
        size = len(a) + len(b)
        if size:
            matched += SequenceMatcher(None, a, b, autojunk=False).ratio() * size
            total += size
    return matched / total if total else 1.0


def _lines_phrase(first: int, last: int) -> str:
    return f"line {first}" if first == last else f"lines {first}–{last}"


def explain_miss(text: str, old: str, new: str) -> tuple[str, dict[str, Any]]:
    """The message and details of an ``old_string_not_found`` error for ``old`` in ``text``."""
    details: dict[str, Any] = {}
    probe = old
    exactly = "exactly"
    prefixed = strip_line_prefixes(old)
    if prefixed:
        style, label, stripped = prefixed
        found = len(find_spans(text, stripped))
        info: dict[str, Any] = {"style": style, "stripped_old_string": stripped, "matches": found}
        new_prefixed = strip_line_prefixes(new)
        if new_prefixed and new_prefixed[0] == style:
            info["stripped_new_string"] = new_prefixed[2]
        details["line_prefixes"] = info
        if found:
            return (
                f"old_string was not found because its lines start with pasted {label} "
                f"line prefixes; without them it occurs {found} time(s), so retry with "
                "details.line_prefixes.stripped_old_string (and strip new_string the same way).",
                details,
            )
        probe = stripped
        exactly = f"exactly, even without its pasted {label} line prefixes"

    if "\\n" in probe and "\n" not in probe:
        unescaped = probe.replace("\\r\\n", "\n").replace("\\n", "\n").replace("\\t", "\t")
        found = len(find_spans(text, unescaped))
        if found:
            details["escaped_newlines"] = {"unescaped_old_string": unescaped, "matches": found}
            return (
                "old_string was not found because it has literal backslash-n sequences where "
                "the file has line breaks (double-escaped JSON?); send real newlines, as in "
                "details.escaped_newlines.unescaped_old_string.",
                details,
            )

    index = LineIndex(text)
    lines = _Probe(probe)
    candidates, total = _whitespace_candidates(index, lines)
    if candidates:
        best = candidates[0]
        details.update(best)
        if total > 1:
            details["candidates"] = candidates
            details["candidates_total"] = total
        where = _lines_phrase(best["start_line"], best["end_line"])
        others = f" (and {total - 1} other place(s), see details.candidates)" if total > 1 else ""
        what = " and ".join(_DIFFERENCE_WORDS[d] for d in best["differences"])
        return (
            f"old_string was not found {exactly}, but {where}{others} match it except for "
            f"{what}; retry with details.file_text verbatim as old_string (and new_string in "
            "the file's style), because Waymark never applies an inexact match.",
            details,
        )

    if len("".join(new.split())) >= MIN_ALREADY_APPLIED_CHARS:
        spans = find_spans(text, new)
        if spans:
            at = index.lines_of(spans[:10])
            details["new_string_found_at_lines"] = at
            return (
                f"old_string was not found {exactly}, but new_string already occurs at line "
                f"{at[0]}: "
                "the edit may already have been applied, so re-read the file before retrying.",
                details,
            )

    closest = _closest(text, index, lines)
    details["closest"] = closest
    if closest:
        best = closest[0]
        where = _lines_phrase(best["start_line"], best["end_line"])
        return (
            f"old_string was not found {exactly}; the most similar text is {where} (similarity "
            f"{best['similarity']}, see details.closest), so re-read it and retry with the "
            "file's exact text.",
            details,
        )
    return (
        f"old_string was not found {exactly} and nothing in the file resembles it; re-read "
        "the file and copy the text to replace exactly.",
        details,
    )
