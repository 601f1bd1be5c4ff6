#!/usr/bin/env bash
# The main job on a fresh machine: install Waymark and run the demo LSP session.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
waymark demo "$@"
