#!/bin/sh
# Install what Prism needs on Debian/Ubuntu, idempotently, into a virtual environment `.venv`.
#
#   scripts/setup.sh          bubblewrap + git + patch, and Prism itself (editable, in .venv)
#   scripts/setup.sh --test   also the test tools: neovim, node/npm (for the VS Code extension), pytest plugins,
#                             Ray (`prism score --engine ray`), and chromium (renders `prism score --html` in tests)
#   scripts/setup.sh --docker also docker.io and debootstrap (the Docker backend's real-engine tests)
#
# A venv, because Debian's and Ubuntu's own Python refuse `pip install` outside one (PEP 668).
# Only missing packages are installed; apt runs through sudo when not root.
set -eu
cd "$(dirname "$0")/.."

want_test=0
want_docker=0
for arg in "$@"; do
    case "$arg" in
        --test) want_test=1 ;;
        --docker) want_docker=1 ;;
        *) echo "setup: unknown option $arg" >&2; exit 2 ;;
    esac
done

SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
PY="${PYTHON:-python3}"

missing=""
need() { command -v "$1" >/dev/null 2>&1 || missing="$missing $2"; }
need bwrap bubblewrap
need git git
need patch patch
if [ "$want_test" = 1 ]; then
    need nvim neovim
    need node nodejs
    need npm npm
    need chromium chromium
fi
if [ "$want_docker" = 1 ]; then
    need dockerd docker.io
    need debootstrap debootstrap
fi
# Debian splits venv support out of python3.
[ -d .venv ] || "$PY" -c 'import ensurepip' >/dev/null 2>&1 || missing="$missing python3-venv"
if [ -n "$missing" ]; then
    echo "setup: installing$missing"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

[ -x .venv/bin/python ] || "$PY" -m venv .venv
VPY=.venv/bin/python
"$VPY" -m pip install -q --disable-pip-version-check --upgrade pip >/dev/null
if [ "$want_test" = 1 ]; then
    "$VPY" -m pip install -q --disable-pip-version-check -e '.[test,ray]'
else
    # Every command and editor button works after set-up: panel build (libcst), witnesses (Hypothesis), MCP.
    "$VPY" -m pip install -q --disable-pip-version-check -e '.[panel,witness,mcp]'
fi
echo "setup: ok ($("$VPY" -c 'import prism_lsp, sys; print("prism", prism_lsp.__version__, "on Python", sys.version.split()[0])'), $(bwrap --version)) in .venv"
