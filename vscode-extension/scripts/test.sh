#!/usr/bin/env bash
# The extension's whole check, as CI runs it: install, lint, typecheck, unit tests, bundle,
# package the .vsix, then the real-VS-Code end-to-end test in code-server. Every phase runs
# even after an earlier failure (so one run shows everything that is wrong), except the e2e,
# which needs the .vsix. Exits non-zero if any phase failed.
set -uo pipefail
cd "$(dirname "$0")/.."

export npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false
failed=()
total_start=$SECONDS

phase() {
  local name=$1
  shift
  local start=$SECONDS
  echo "=== $name"
  if "$@"; then
    echo "=== $name: ok ($((SECONDS - start)) s)"
  else
    echo "=== $name: FAILED ($((SECONDS - start)) s)"
    failed+=("$name")
    return 1
  fi
}

e2e() {
  if ! command -v waymark-ls >/dev/null 2>&1; then
    echo "FAIL: waymark-ls is not on PATH; the end-to-end test needs the real server (pip install -e <repo root>)."
    return 1
  fi
  ./scripts/install-code-server.sh >/dev/null && npm run --silent test:e2e
}

phase "npm ci" npm ci --loglevel=error || { echo "cannot continue without dependencies"; exit 1; }
phase "lint" npm run --silent lint
phase "typecheck (tsc --strict)" npm run --silent typecheck
phase "unit tests" npm run --silent test:unit
phase "bundle (esbuild)" npm run --silent build
if phase "package .vsix" npm run --silent package; then
  ls -l dist/waymark.vsix | awk '{print "vsix size: " $5 " bytes"}'
  phase "e2e (code-server + chromium)" e2e
else
  failed+=("e2e (skipped: no .vsix)")
fi

echo "=== total: $((SECONDS - total_start)) s"
if ((${#failed[@]})); then
  printf 'FAILED: %s\n' "${failed[@]}"
  exit 1
fi
echo "all phases passed"
