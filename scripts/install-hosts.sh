#!/usr/bin/env bash
# The agent hosts the real-host tests drive, at pinned versions, into .hosts/ (gitignored).
# Pinned exactly: these hosts change weekly and their hook/MCP behaviour with them.
set -euo pipefail
cd "$(dirname "$0")/.."
PACKAGES=(
  "@anthropic-ai/claude-code@2.1.197"
  "@qwen-code/qwen-code@0.15.10"
  "@openai/codex@0.169.0"
)
mkdir -p .hosts
[ -f .hosts/package.json ] || echo '{"private": true}' > .hosts/package.json
npm install --prefix .hosts --no-save --no-audit --no-fund --loglevel=error "${PACKAGES[@]}"
for bin in claude qwen codex; do
  [ -x ".hosts/node_modules/.bin/$bin" ] || { echo "install-hosts: $bin missing" >&2; exit 1; }
done
