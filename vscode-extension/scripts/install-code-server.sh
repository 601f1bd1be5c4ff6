#!/usr/bin/env bash
# Installs code-server 4.100.3 (VS Code 1.100.3) and Debian chromium for the real-VS-Code e2e.
# VS Code's own download site is unreachable here, so code-server comes from npm with its
# network-fetching postinstall skipped and its native modules rebuilt locally (recipe measured
# in shared/notes/real-clients.md). Idempotent: a completed install leaves a stamp file.
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
version="4.100.3"
prefix="${WAYMARK_CODE_SERVER_DIR:-$here/.cache/code-server-$version}"
stamp="$prefix/.installed"

need_apt=()
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
command -v rg >/dev/null 2>&1 || need_apt+=(ripgrep)
dpkg -s libkrb5-dev >/dev/null 2>&1 || need_apt+=(libkrb5-dev)
if ((${#need_apt[@]})); then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq chromium libkrb5-dev ripgrep >/dev/null
fi

if [[ -f "$stamp" ]]; then
  echo "$prefix/node_modules/.bin/code-server"
  exit 0
fi

rm -rf "$prefix"
mkdir -p "$prefix"
cd "$prefix"
export npm_config_unsafe_perm=true npm_config_yes=true npm_config_fund=false npm_config_audit=false
echo '{"name":"waymark-code-server","private":true}' >package.json
npm install --no-save --ignore-scripts --loglevel=error "code-server@$version" >&2
npm rebuild argon2 --loglevel=error >&2

vscode="$prefix/node_modules/code-server/lib/vscode"
(
  cd "$vscode"
  npm install --omit=dev --ignore-scripts --loglevel=error >&2
  mkdir -p node_modules/@vscode/ripgrep/bin
  cp "$(command -v rg)" node_modules/@vscode/ripgrep/bin/rg
  npm rebuild @parcel/watcher @vscode/spdlog kerberos native-watchdog node-pty @vscode/deviceid \
    --loglevel=error >&2
  ln -sfn node_modules node_modules.asar
  (cd bin/remote-cli && ln -sfn code-linux.sh code-server)
  (cd bin/helpers && ln -sfn browser-linux.sh browser.sh)
  (cd extensions && npm install --omit=dev --ignore-scripts --loglevel=error >&2)
)

touch "$stamp"
echo "$prefix/node_modules/.bin/code-server"
