#!/usr/bin/env bash
# The agent hosts the real-host tests drive, at pinned versions, into .hosts/ (gitignored).
# Pinned exactly: these hosts change weekly and their hook/MCP behaviour with them.
set -euo pipefail
cd "$(dirname "$0")/.."
PACKAGES=(
  "@anthropic-ai/claude-code@2.1.332"
  "@qwen-code/qwen-code@0.24.4"
  "@openai/codex@0.169.0"
  "@google/gemini-cli@0.61.0"
  "@github/copilot@1.0.102"
  "opencode-ai@1.18.33"
  "cline@3.0.65"
  "@zed-industries/codex-acp@0.16.0"
)
BINS=(claude qwen codex gemini copilot opencode cline codex-acp)
mkdir -p .hosts
[ -f .hosts/package.json ] || echo '{"private": true}' > .hosts/package.json
npm install --prefix .hosts --no-save --no-audit --no-fund --loglevel=error "${PACKAGES[@]}"
for bin in "${BINS[@]}"; do
  [ -x ".hosts/node_modules/.bin/$bin" ] || { echo "install-hosts: $bin missing" >&2; exit 1; }
done
