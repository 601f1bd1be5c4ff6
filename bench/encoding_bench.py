"""What deciding a file's encoding costs (issue 40): a 1 MB file that is not UTF-8, read.

Bytes that are not UTF-8 pay for charset-normalizer's detection (its import once per
process, then each decision); UTF-8 files never reach it. Each figure is the whole decode
(decision included) of 1 MB, next to the decode of the same text as UTF-8 in the same run.

    python bench/encoding_bench.py [RUNS]
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

from waymark.engine.text import TextFile

SIZE = 1 << 20
_TEXTS = {
    "windows-1252": "$café = 'crème brûlée'; // « spécialité » à 5 € — déjà vu\n",
    "gbk": "名字 = '张伟'  # 用户信息：北京市朝阳区建国路八十八号\n",
    "shift_jis": '名前 = "山田太郎" \' 東京都千代田区丸の内一丁目\n',
}


def make_file(encoding: str) -> tuple[bytes, bytes]:
    """About 1 MB of ``encoding`` bytes, and the same text as UTF-8."""
    line = _TEXTS[encoding]
    text = line * (SIZE // len(line.encode(encoding)))
    return text.encode(encoding), text.encode()


def _time(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _import_cost() -> float:
    """Seconds a fresh process spends importing the detector (measured in a child)."""
    code = (
        "import time; t = time.perf_counter(); import charset_normalizer; "
        "print(time.perf_counter() - t)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    return float(done.stdout)


def figures(runs: int = 9) -> list[dict[str, Any]]:
    imports = [_import_cost() for _ in range(5)]
    out = []
    for encoding in _TEXTS:
        legacy, utf8 = make_file(encoding)
        decided = TextFile.decode(legacy)
        assert decided.encoding == encoding, decided.encoding
        legacy_runs, utf8_runs = [], []
        for _ in range(runs):  # interleaved, so load on the machine hits both alike
            legacy_runs.append(_time(lambda data=legacy: TextFile.decode(data)))
            utf8_runs.append(_time(lambda data=utf8: TextFile.decode(data)))
        out.append(
            {
                "name": f"decode 1 MB of {encoding} (detection included)",
                "runs": legacy_runs,
                "baseline": "decode of the same text as UTF-8",
                "baseline_runs": utf8_runs,
                "goals": [],
                "extra": {
                    "bytes": len(legacy),
                    "detector_import_ms_p50": round(statistics.median(imports) * 1000, 1),
                },
            }
        )
    return out


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    print(f"{'figure':50s} {'median':>9s} {'utf-8':>9s} {'ratio':>7s}")
    for fig in figures(runs):
        mine = statistics.median(fig["runs"])
        base = statistics.median(fig["baseline_runs"])
        print(f"{fig['name']:50s} {mine * 1000:7.1f}ms {base * 1000:7.1f}ms {mine / base:6.1f}×")
    print(f"detector import (fresh process): {fig['extra']['detector_import_ms_p50']} ms")


if __name__ == "__main__":
    main()
