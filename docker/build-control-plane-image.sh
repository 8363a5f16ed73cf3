#!/usr/bin/env bash
# Builds the control plane's own image, dockyard/control-plane:<version>, without any registry: the
# offline base (docker/build-base-image.sh), Debian's JRE, and the control plane's Liberty server
# packaged minified (only the features server.xml names) from the module's build.
#   docker/build-control-plane-image.sh [path/to/wlp]   (default src/control-plane/target/liberty/wlp)
# DOCKYARD_CONTROL_PLANE_IMAGE overrides the tag. Docker's layer cache keeps the base and JRE
# layers; only the server layer is rebuilt when the server changed.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
wlp="${1:-$root/src/control-plane/target/liberty/wlp}"
BASE="${DOCKYARD_BASE_IMAGE:-dockyard/sandbox-base:bookworm}"
log() { echo "[control-plane-image] $*" >&2; }

[ -f "$wlp/usr/servers/dockyard/apps/dockyard.war" ] \
  || { log "no control-plane server at $wlp: build it with 'mvn -pl src/control-plane -am package'"; exit 1; }
docker image inspect "$BASE" >/dev/null 2>&1 || { log "base image $BASE missing: run docker/build-base-image.sh"; exit 1; }
version=$(unzip -p "$wlp/usr/servers/dockyard/apps/dockyard.war" META-INF/maven/dev.dockyard/dockyard/pom.properties \
  | sed -n 's/^version=//p' | tr -d '\r')
TAG="${DOCKYARD_CONTROL_PLANE_IMAGE:-dockyard/control-plane:${version:?no version in dockyard.war}}"

ctx="$(mktemp -d /var/tmp/dockyard-control-plane.XXXXXX)"
trap 'rm -rf "$ctx" "$ctx.log"' EXIT
start=$(date +%s)
# minify: Liberty starts the server's kernel briefly to learn which features it needs; its output goes
# to a private directory, never into the build's server
WLP_OUTPUT_DIR="$ctx/output" "$wlp/bin/server" package dockyard --include=minify --archive="$ctx/server.zip" \
  >"$ctx.log" 2>&1 || { tail -n 30 "$ctx.log" >&2; log "server package failed"; exit 1; }
unzip -q "$ctx/server.zip" -d "$ctx"
rm -rf "$ctx/server.zip" "$ctx/output" "$ctx/wlp/usr/servers/dockyard/logs" "$ctx/wlp/usr/servers/dockyard/workarea"
find "$ctx/wlp/dev" -name '*-javadoc.zip' -delete 2>/dev/null || true
cp "$here/control-plane/Dockerfile" "$ctx/Dockerfile"
# the package keeps the server's modes (some 640): the server's user must read all of it, write none
chmod -R a+rX,go-w "$ctx"
# same mtime everywhere: the content alone decides Docker's cache
find "$ctx" -exec touch -h -d '2020-01-01T00:00:00Z' {} +
packaged=$(( $(date +%s) - start ))

previous=$(docker image inspect -f '{{.Id}}' "$TAG" 2>/dev/null || true)
log "building $TAG from $BASE"
if ! docker build --force-rm --build-arg BASE_IMAGE="$BASE" -t "$TAG" "$ctx" >"$ctx.log" 2>&1; then
  tail -n 40 "$ctx.log" >&2
  log "docker build failed"
  exit 1
fi
log "built $TAG in $(( $(date +%s) - start )) s (server package ${packaged} s; $(docker image inspect -f '{{.Size}}' "$TAG") bytes)"
# the image this build replaced is untagged now: remove it unless a container still uses it
if [ -n "$previous" ] && [ "$previous" != "$(docker image inspect -f '{{.Id}}' "$TAG")" ]; then
  docker rmi "$previous" >/dev/null 2>&1 || true
fi
echo "$TAG"
