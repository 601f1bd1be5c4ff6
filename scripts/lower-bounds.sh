#!/usr/bin/env bash
# The runtime dependencies at the lowest versions pyproject allows: a fresh venv with every
# `>=` bound installed exactly (a constraints file made from pyproject), then the MCP door,
# the commands, one LSP end-to-end file, shell tracking (tree-sitter), init (tomlkit) and the
# encoding decisions (charset-normalizer) against them. Run by scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=$(mktemp -d)/venv
trap 'rm -rf "$(dirname "$venv")"' EXIT
python3 -m venv "$venv"
"$venv/bin/python" - pyproject.toml >"$venv/lower.txt" <<'PY'
import re, sys, tomllib
for spec in tomllib.load(open(sys.argv[1], "rb"))["project"]["dependencies"]:
    name, low = re.fullmatch(r"([A-Za-z0-9_.-]+)>=([^,]+),<.*", spec).groups()
    print(f"{name}=={low}")
PY
echo "lower bounds: $(tr '\n' ' ' <"$venv/lower.txt")"
"$venv/bin/python" -m pip install -q --disable-pip-version-check -c "$venv/lower.txt" -e ".[test]"
"$venv/bin/python" -m pip freeze --exclude-editable | grep -iFf <(cut -d= -f1 "$venv/lower.txt") || true
# The venv on PATH as an install puts it there: init writes `waymark` when it finds it.
PATH="$venv/bin:$PATH" PYTHONPATH= "$venv/bin/python" -m pytest -q -p no:cacheprovider \
  tests/mcp/test_mcp_protocol.py tests/unit/test_commands.py tests/e2e/test_commands.py \
  tests/unit/shelltrack tests/init/test_init.py tests/unit/test_encodings.py
