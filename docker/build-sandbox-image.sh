#!/usr/bin/env bash
# Builds the sandbox image from the executor's minified Liberty package.
#   docker/build-sandbox-image.sh [path/to/executor-server.zip]
# Docker's layer cache makes a rebuild with an unchanged package a no-op.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
zip="${1:-$root/src/executor/target/executor-server.zip}"
TAG="${DOCKYARD_SANDBOX_IMAGE:-dockyard/sandbox:latest}"
BASE="${DOCKYARD_BASE_IMAGE:-dockyard/sandbox-base:bookworm}"

log() { echo "[sandbox-image] $*" >&2; }
[ -f "$zip" ] || { log "no executor package at $zip: build it with 'mvn -pl src/executor -am package'"; exit 1; }
docker image inspect "$BASE" >/dev/null 2>&1 || { log "base image $BASE missing: run docker/build-base-image.sh"; exit 1; }

ctx="$(mktemp -d /var/tmp/dockyard-sandbox.XXXXXX)"
trap 'rm -rf "$ctx"' EXIT
unzip -q "$zip" -d "$ctx"
# javadoc zips are build-time only
find "$ctx/wlp/dev" -name '*-javadoc.zip' -delete
cp -r "$here/sandbox/bin" "$ctx/bin"
cp "$here/sandbox/Dockerfile" "$ctx/Dockerfile"
# the same mtime for every file keeps docker's cache key stable across unpacks
find "$ctx" -exec touch -h -d '2020-01-01T00:00:00Z' {} +
log "building $TAG from $BASE"
start=$(date +%s)
if ! docker build --force-rm --build-arg BASE_IMAGE="$BASE" -t "$TAG" "$ctx" >"$ctx.log" 2>&1; then
  tail -n 40 "$ctx.log" >&2
  rm -f "$ctx.log"
  log "docker build failed"
  exit 1
fi
rm -f "$ctx.log"
log "built $TAG in $(( $(date +%s) - start )) s ($(docker image inspect -f '{{.Size}}' "$TAG") bytes)"
