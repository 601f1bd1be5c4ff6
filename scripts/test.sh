#!/usr/bin/env bash
# Everything the tests need on a fresh Debian 12 machine, then every test layer:
# lint, types and import layers, unit + differential + e2e + Neovim (pytest), the VS Code extension
# (lint, types, unit tests, .vsix, real code-server in Chromium).
set -euo pipefail
cd "$(dirname "$0")/.."
# The tests must leave the work tree as they found it (the e2e's pictures go to
# vscode-extension/test-artifacts/; WAYMARK_UPDATE_DOCS_IMAGES=1 refreshes docs/images).
tree_before=$(git status --porcelain 2>/dev/null || true)
# pytest's temporary folders go with this run (by default pytest keeps three runs' in /tmp).
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# python3-venv: the project's .venv; python3-dev, libxxhash-dev (and build-essential's
# compiler): the compiled core, waymark.engine._core, and the walk's waymark.store._nofollow,
# whose tests fail without them; sed:
# differential tests; neovim: real-client tests; xxhash: bench floor; git: history bench;
# build-essential: code-server's native modules;
# binutils for both Linux architectures: the .vsix's native libraries are stripped.
case "$(uname -m)" in
  aarch64) cross_binutils=binutils-x86-64-linux-gnu ;;
  *) cross_binutils=binutils-aarch64-linux-gnu ;;
esac
$SUDO apt-get install -y -qq python3 python3-venv python3-dev libxxhash-dev sed neovim xxhash git \
  util-linux iproute2 build-essential binutils "$cross_binutils" >/dev/null
source scripts/setup.sh test
source scripts/node.sh
echo "== agent hosts (pinned, for tests/hosts)"; bash scripts/install-hosts.sh
echo "== ruff"; ruff check . && ruff format --check .
echo "== mypy"; mypy
echo "== import-linter (the layers)"; lint-imports
echo "== pytest"; pytest -q -p no:cacheprovider --basetemp="$scratch/pytest"
rm -rf "$scratch/pytest"
echo "== lowest allowed dependency versions"; bash scripts/lower-bounds.sh
echo "== vscode extension"; bash vscode-extension/scripts/test.sh
echo "== the work tree is as the tests found it"
tree_after=$(git status --porcelain 2>/dev/null || true)
if [ "$tree_after" != "$tree_before" ]; then
  echo "the tests changed the work tree:"
  diff <(echo "$tree_before") <(echo "$tree_after") || true
  exit 1
fi
# Kept for the next run (gitignored; `git clean -fdX` removes them all): the agent hosts,
# code-server, the wheels and Node.js caches, node_modules, .venv.
du -sh .hosts vscode-extension/.cache .cache vscode-extension/node_modules .venv 2>/dev/null || true
