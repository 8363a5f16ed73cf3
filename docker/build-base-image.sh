#!/usr/bin/env bash
# Builds the sandbox base image without any registry: debootstrap a minbase bookworm rootfs with
# the JRE and tools the executor needs, then `docker import` it. Skips when the tag exists.
set -euo pipefail

TAG="${DOCKYARD_BASE_IMAGE:-dockyard/sandbox-base:bookworm}"
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
PACKAGES="openjdk-17-jre-headless,bash,tini,procps,git,python3,ca-certificates"

log() { echo "[base-image] $*" >&2; }

if docker image inspect "$TAG" >/dev/null 2>&1; then
  log "$TAG exists; skipping"
  exit 0
fi
if ! command -v debootstrap >/dev/null 2>&1; then
  log "installing debootstrap"
  . "$(dirname "$0")/lib/apt.sh"
  apt_install debootstrap
fi

rootfs="$(mktemp -d /var/tmp/dockyard-rootfs.XXXXXX)"
trap 'rm -rf "$rootfs"' EXIT
log "debootstrap minbase bookworm into $rootfs"
debootstrap --variant=minbase --include="$PACKAGES" bookworm "$rootfs" "$MIRROR" >"$rootfs.log" 2>&1 \
  || { tail -n 30 "$rootfs.log" >&2; log "debootstrap failed"; exit 1; }
rm -f "$rootfs.log"
# Keep the image small: no apt lists, caches or docs are needed at run time
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* \
       "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/locale/*
log "importing as $TAG"
tar -C "$rootfs" -c . | docker import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV LANG=C.UTF-8' \
  --change 'CMD ["/bin/bash"]' \
  - "$TAG" >/dev/null
log "built $TAG ($(docker image inspect -f '{{.Size}}' "$TAG") bytes)"
