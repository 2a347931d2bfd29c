#!/bin/sh
# Build the local Python image the Docker sandbox tests use, without any registry.
#
#   scripts/docker-image.sh [TAG]        (default TAG: prism-python:local)
#
# A minimal Debian (bookworm) with python3 and pytest is debootstrapped from
# the Debian mirror apt is already configured with, packed into a tarball cached under
# $PRISM_DOCKER_CACHE (default /var/cache/prism-docker), then `docker import`ed.
# Idempotent: an existing image is kept; a cached tarball is re-imported without
# touching the network. Needs root (debootstrap), debootstrap and a running dockerd.
set -eu

TAG="${1:-prism-python:local}"
CACHE="${PRISM_DOCKER_CACHE:-/var/cache/prism-docker}"
SUITE="${PRISM_DEBIAN_SUITE:-bookworm}"
PACKAGES="python3,python3-pytest"
TARBALL="$CACHE/rootfs-$SUITE-$(echo "$PACKAGES" | tr ',' '-').tar"

log() { echo "docker-image: $*" >&2; }

if ! docker info >/dev/null 2>&1; then
    log "no reachable Docker engine (start dockerd first)"; exit 1
fi
if docker image inspect "$TAG" >/dev/null 2>&1; then
    log "$TAG already present"; exit 0
fi

mirror() {
    # The first Debian mirror apt is configured with (deb822 or one-line format).
    if [ -n "${PRISM_DEBIAN_MIRROR:-}" ]; then echo "$PRISM_DEBIAN_MIRROR"; return; fi
    found=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null \
        | awk '/^URIs:/ {print $2}' | grep -v -e security -e nodesource -e google | head -n1 || true)
    if [ -z "$found" ]; then
        found=$(grep -h '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null \
            | awk '{print $2}' | grep -i debian | grep -v security | head -n1 || true)
    fi
    echo "${found:-http://deb.debian.org/debian}"
}

if [ ! -s "$TARBALL" ]; then
    command -v debootstrap >/dev/null || { log "debootstrap is not installed (apt-get install debootstrap)"; exit 1; }
    mkdir -p "$CACHE"
    work=$(mktemp -d "$CACHE/build.XXXXXX")
    trap 'umount "$work/rootfs/proc" 2>/dev/null || true; rm -rf "$work"' EXIT
    url=$(mirror)
    log "debootstrap $SUITE from $url (a few minutes, once)"
    # --include resolves dependencies in debootstrap >= 1.0.1xx; minbase keeps it small.
    debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$work/rootfs" "$url" >"$work/debootstrap.log" 2>&1 || {
        tail -n 30 "$work/debootstrap.log" >&2; log "debootstrap failed"; exit 1; }
    chroot "$work/rootfs" python3 -c "import pytest" || { log "python3/pytest missing in the rootfs"; exit 1; }
    # Drop what a sandbox never needs: package lists, caches, docs.
    rm -rf "$work/rootfs/var/cache/apt/archives/"*.deb "$work/rootfs/var/lib/apt/lists/"* \
           "$work/rootfs/usr/share/doc" "$work/rootfs/usr/share/man" "$work/rootfs/usr/share/locale"
    tar -C "$work/rootfs" --numeric-owner -cf "$work/rootfs.tar" .
    mv "$work/rootfs.tar" "$TARBALL"
    log "cached $TARBALL"
fi

docker import --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV LANG=C.UTF-8' --change 'CMD ["/bin/sh"]' "$TARBALL" "$TAG" >/dev/null
log "imported $TAG"
