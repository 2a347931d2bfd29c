#!/bin/sh
# Install code-server 4.100.3 (the release that runs on Node 20) into DEST without the internet
# beyond the npm registry and apt: its postinstall would download ripgrep, so install with
# --ignore-scripts, link Debian's `rg`, rebuild the native modules against the system Node,
# and make the postinstall's links by hand. Also installs Chromium (Debian) and Playwright.
#
#   scripts/code-server.sh DEST        then  PRISM_CODE_SERVER=DEST/node_modules/code-server
set -eu
DEST="${1:?usage: scripts/code-server.sh DEST}"
cd "$(dirname "$0")/.."
ROOT="$PWD"
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
missing=""
for pair in rg:ripgrep chromium:chromium make:build-essential; do
    command -v "${pair%%:*}" >/dev/null 2>&1 || missing="$missing ${pair#*:}"
done
# Headers the native modules build against (kerberos, native-keymap, keytar, node-pty).
for pkg in libkrb5-dev libxkbfile-dev libsecret-1-dev libx11-dev; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing="$missing $pkg"
done
if [ -n "$missing" ]; then
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
"$ROOT/.venv/bin/python" -m pip install -q --disable-pip-version-check -e "$ROOT[vscode-e2e]"

mkdir -p "$DEST"
cd "$DEST"
export npm_config_unsafe_perm=true npm_config_yes=true
[ -f node_modules/code-server/package.json ] || npm install --ignore-scripts --no-audit --no-fund code-server@4.100.3
npm rebuild --nodedir=/usr argon2
cd node_modules/code-server/lib/vscode
[ -d node_modules ] || npm install --ignore-scripts --omit=dev --no-audit --no-fund
mkdir -p node_modules/@vscode/ripgrep/bin
ln -sf "$(command -v rg)" node_modules/@vscode/ripgrep/bin/rg
npm rebuild --nodedir=/usr
# What postinstall.sh would have linked.
ln -sfn node_modules node_modules.asar
(cd bin/remote-cli && ln -sf code-linux.sh code-server)
(cd bin/helpers && ln -sf browser-linux.sh browser.sh)
(cd extensions && npm install --ignore-scripts --no-audit --no-fund)
cd "$DEST/node_modules/code-server"
node out/node/entry.js --version
