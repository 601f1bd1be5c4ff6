"""The answer to flipping line 500 of a 1,000-line file with ``waymark.edit``, as main gave it
before the edit's diff, decode and re-read were made cheaper (92a25c4): the LSP door answers
exactly this; the CLI adds how it ran (``via``)."""

from __future__ import annotations

FLIPPED_ANSWER = {
    "anchoredDiff": [
        {
            "lines": [
                {
                    "hash": "c6c2e6",
                    "kind": "context",
                    "line": 498,
                    "quality": "high",
                    "text": "value_0498 = 498",
                },
                {
                    "hash": "60588e",
                    "kind": "context",
                    "line": 499,
                    "quality": "high",
                    "text": "value_0499 = 499",
                },
                {"kind": "removed", "old_line": 500, "text": "value_0500 = 500"},
                {
                    "hash": "4545eb",
                    "kind": "added",
                    "line": 500,
                    "quality": "high",
                    "text": "value_0500 = 501",
                },
                {
                    "hash": "e622cf",
                    "kind": "context",
                    "line": 501,
                    "quality": "high",
                    "text": "value_0501 = 501",
                },
                {
                    "hash": "61c54c",
                    "kind": "context",
                    "line": 502,
                    "quality": "high",
                    "text": "value_0502 = 502",
                },
            ],
            "new_lines": 5,
            "new_start": 498,
            "old_lines": 5,
            "old_start": 498,
        }
    ],
    "changed": True,
    "deletions": 1,
    "details": {
        "anchors_valid_through": 499,
        "auto_corrections": [],
        "baseline_continuity": "clean",
        "lines_after": 1000,
        "lines_before": 1000,
        "must_refresh_from_line": 500,
        "net_change": 0,
        "operations_applied": 1,
        "safety_status": "ok",
        "writer_type": "edit",
    },
    "diff": "--- a/big.py\n"
    "+++ b/big.py\n"
    "@@ -497,7 +497,7 @@\n"
    " value_0497 = 497\n"
    " value_0498 = 498\n"
    " value_0499 = 499\n"
    "-value_0500 = 500\n"
    "+value_0500 = 501\n"
    " value_0501 = 501\n"
    " value_0502 = 502\n"
    " value_0503 = 503\n",
    "insertions": 1,
    "ok": True,
    "path": "big.py",
    "writer_type": "edit",
}
