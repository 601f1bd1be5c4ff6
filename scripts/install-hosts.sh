#!/usr/bin/env bash
# The agent hosts the real-host tests drive, into .hosts/ (gitignored), as
# scripts/hosts/package-lock.json pins them: the hosts and everything they pull in. These hosts
# change weekly and their hook/MCP behaviour with them; an unpinned dependency tree also broke
# fresh installs when the registry moved under it. (`npm install` with the lock, not `npm ci`:
# npm ci refuses this lock for the other platforms' optional packages it leaves out.)
# To move a host: change its version in scripts/hosts/package.json, then
#   (cd scripts/hosts && npm install --package-lock-only)
set -euo pipefail
cd "$(dirname "$0")/.."
BINS=(claude qwen codex gemini copilot opencode cline codex-acp)
mkdir -p .hosts
installed() {
  cmp -s scripts/hosts/package-lock.json .hosts/.installed-lock.json || return 1
  for bin in "${BINS[@]}"; do [ -x ".hosts/node_modules/.bin/$bin" ] || return 1; done
}
if ! installed; then
  rm -f .hosts/.installed-lock.json
  cp scripts/hosts/package.json scripts/hosts/package-lock.json .hosts/
  npm install --prefix .hosts --no-audit --no-fund --loglevel=error
  cp scripts/hosts/package-lock.json .hosts/.installed-lock.json
fi
for bin in "${BINS[@]}"; do
  [ -x ".hosts/node_modules/.bin/$bin" ] || { echo "install-hosts: $bin missing" >&2; exit 1; }
done
