#!/usr/bin/env bash
# The main job on a fresh machine: install Waymark and run the demo LSP session.
set -euo pipefail
source "$(dirname "$0")/setup.sh"
waymark demo "$@"
