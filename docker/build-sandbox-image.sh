#!/usr/bin/env bash
# Builds the default runtime image from the offline base and the executor bundle that the
# executor module's build makes (docker/build-executor-bundle.sh).
#   docker/build-sandbox-image.sh [path/to/executor-bundle]
# Docker's layer cache makes a rebuild with an unchanged package a no-op.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
bundle="${1:-$root/src/executor/target/executor-bundle}"
TAG="${DOCKYARD_SANDBOX_IMAGE:-dockyard/sandbox:latest}"
BASE="${DOCKYARD_BASE_IMAGE:-dockyard/sandbox-base:bookworm}"
# an image variant: more Debian packages, e.g. "chromium fonts-liberation" for the browser plugin
EXTRA_PACKAGES="${DOCKYARD_SANDBOX_EXTRA_PACKAGES:-}"

log() { echo "[sandbox-image] $*" >&2; }
[ -x "$bundle/bin/start-executor" ] || { log "no executor bundle at $bundle: build it with 'mvn -pl src/executor -am package'"; exit 1; }
docker image inspect "$BASE" >/dev/null 2>&1 || { log "base image $BASE missing: run docker/build-base-image.sh"; exit 1; }

ctx="$(mktemp -d /var/tmp/dockyard-sandbox.XXXXXX)"
trap 'rm -rf "$ctx"' EXIT
cp -a "$bundle" "$ctx/dockyard"
cp "$here/sandbox/Dockerfile" "$ctx/Dockerfile"
touch -d '2020-01-01T00:00:00Z' "$ctx/Dockerfile"
previous=$(docker image inspect -f '{{.Id}}' "$TAG" 2>/dev/null || true)
log "building $TAG from $BASE"
start=$(date +%s)
if ! docker build --force-rm --build-arg BASE_IMAGE="$BASE" --build-arg EXTRA_PACKAGES="$EXTRA_PACKAGES" -t "$TAG" "$ctx" >"$ctx.log" 2>&1; then
  tail -n 40 "$ctx.log" >&2
  rm -f "$ctx.log"
  log "docker build failed"
  exit 1
fi
rm -f "$ctx.log"
log "built $TAG in $(( $(date +%s) - start )) s ($(docker image inspect -f '{{.Size}}' "$TAG") bytes)"
# the image this build replaced is untagged now: remove it unless a container still uses it
if [ -n "$previous" ] && [ "$previous" != "$(docker image inspect -f '{{.Id}}' "$TAG")" ]; then
  docker rmi "$previous" >/dev/null 2>&1 || true
fi
