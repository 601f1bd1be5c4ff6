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

host_vsix="dist/waymark-linux-$([ "$(uname -m)" = aarch64 ] && echo arm64 || echo x64).vsix"

# The acceptance check of the bundle: the unpacked .vsix runs on a plain system python3, with
# nothing of ours on the path (no venv, no site-packages, empty environment).
bundled_imports() {
  local dir rc
  dir=$(mktemp -d)
  /usr/bin/python3 -m zipfile -e "$host_vsix" "$dir"
  env -i PATH=/usr/bin:/bin /usr/bin/python3 -I -c '
import importlib, sys
libs = sys.argv[1] + "/extension/bundled/libs"
sys.path.insert(0, libs)
names = ["waymark.doors.lsp.server", "waymark.doors.cli", "pygls.lsp.server", "lsprotocol.types", "cattrs", "attrs", "unidiff", "xxhash", "typing_extensions"]
foreign = [n for n in names if not importlib.import_module(n).__file__.startswith(libs)]
assert not foreign, f"imported from outside the bundle: {foreign}"
print(f"bundled server and {len(names) - 2} libraries import with system Python {sys.version.split()[0]}")
' "$dir" && env -i PATH=/usr/bin:/bin /usr/bin/python3 -I "$dir/extension/bundled/tool/launch.py" --check
  rc=$?
  rm -rf "$dir"
  return $rc
}

e2e() {
  ./scripts/install-code-server.sh >/dev/null && npm run --silent test:e2e
}

# The README's VS Code install block, run as written in a fresh copy of the repository, with
# `code` being code-server (same CLI) on a throw-away profile.
readme_vscode_install() {
  local dir code_server block rc
  dir=$(mktemp -d)
  code_server=$(./scripts/install-code-server.sh) || return 1
  mkdir -p "$dir/waymark" "$dir/bin"
  (cd .. && git ls-files -z -co --exclude-standard | grep -zv '^vscode-extension/node_modules$' |
    tar --null -T - -cf -) | tar -xf - -C "$dir/waymark"
  printf '#!/bin/sh\nXDG_CONFIG_HOME="%s/config" exec "%s" --extensions-dir "%s/ext" --user-data-dir "%s/data" "$@"\n' \
    "$dir" "$code_server" "$dir" "$dir" >"$dir/bin/code"
  chmod +x "$dir/bin/code"
  block=$(python3 -c 'import re, sys
print(re.search(r"<!-- install-test: vscode -->\n```sh\n(.*?)```", open(sys.argv[1]).read(), re.S)[1])' ../README.md)
  (cd "$dir/waymark" && PATH="$dir/bin:$PATH" bash -euo pipefail -c "$block") &&
    ls "$dir/ext" | grep -q '^waymark\.waymark-' && echo "README: the extension installed into code-server"
  rc=$?
  rm -rf "$dir"
  return $rc
}

phase "npm ci" npm ci --loglevel=error || { echo "cannot continue without dependencies"; exit 1; }
phase "lint" npm run --silent lint
phase "typecheck (tsc --strict)" npm run --silent typecheck
phase "unit tests" npm run --silent test:unit
phase "bundle (esbuild)" npm run --silent build
if phase "package .vsix (every platform)" npm run --silent package; then
  phase "bundled server on the system python3" bundled_imports
  phase ".vsix: licence, stripped libraries, server answers initialize" python3 ../scripts/check_vsix.py "$host_vsix"
  phase "e2e (code-server + chromium)" e2e
  phase "e2e: editor bridge (code-server + waymark mcp)" npm run --silent test:e2e:bridge
  phase "README: VS Code install commands" readme_vscode_install
else
  failed+=("e2e (skipped: no .vsix)")
fi

echo "=== total: $((SECONDS - total_start)) s"
if ((${#failed[@]})); then
  printf 'FAILED: %s\n' "${failed[@]}"
  exit 1
fi
echo "all phases passed"
