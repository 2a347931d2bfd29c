#!/bin/sh
# Install what Prism needs on Debian/Ubuntu, idempotently.
#
#   scripts/setup.sh          bubblewrap + git + patch, and Prism itself (pip, editable)
#   scripts/setup.sh --test   also the test tools: neovim, node/npm (for the VS Code extension), pytest plugins
#   scripts/setup.sh --docker also docker.io and debootstrap (the Docker backend's real-engine tests)
#
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

missing=""
need() { command -v "$1" >/dev/null 2>&1 || missing="$missing $2"; }
need bwrap bubblewrap
need git git
need patch patch
if [ "$want_test" = 1 ]; then
    need nvim neovim
    need node nodejs
    need npm npm
fi
if [ "$want_docker" = 1 ]; then
    need dockerd docker.io
    need debootstrap debootstrap
fi
if [ -n "$missing" ]; then
    echo "setup: installing$missing"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

PY="${PYTHON:-python3}"
if [ "$want_test" = 1 ]; then
    "$PY" -m pip install -q --disable-pip-version-check -e '.[test]'
else
    "$PY" -m pip install -q --disable-pip-version-check -e .
fi
echo "setup: ok ($("$PY" -c 'import prism_lsp; print("prism", prism_lsp.__version__)'), $(bwrap --version))"
