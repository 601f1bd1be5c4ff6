#!/usr/bin/env bash
# Everything the tests need on a fresh Debian 12 machine, then every test layer:
# lint, types and import layers, unit + differential + e2e + Neovim (pytest), the VS Code extension
# (lint, types, unit tests, .vsix, real code-server in Chromium).
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# python3-venv: the project's .venv; sed: differential tests; neovim: real-client tests; xxhash:
# bench floor; git: history bench; build-essential: code-server's native modules;
# binutils for both Linux architectures: the .vsix's native libraries are stripped.
case "$(uname -m)" in
  aarch64) cross_binutils=binutils-x86-64-linux-gnu ;;
  *) cross_binutils=binutils-aarch64-linux-gnu ;;
esac
$SUDO apt-get install -y -qq python3 python3-venv sed neovim xxhash git util-linux iproute2 \
  build-essential binutils "$cross_binutils" >/dev/null
source scripts/setup.sh test
source scripts/node.sh
echo "== agent hosts (pinned, for tests/hosts)"; bash scripts/install-hosts.sh
echo "== ruff"; ruff check . && ruff format --check .
echo "== mypy"; mypy
echo "== import-linter (the layers)"; lint-imports
echo "== pytest"; pytest -q -p no:cacheprovider
echo "== lowest allowed dependency versions"; bash scripts/lower-bounds.sh
echo "== vscode extension"; bash vscode-extension/scripts/test.sh
