#!/usr/bin/env bash
# Builds the egress helper image: the sandbox base plus iptables. The control plane runs it as a
# short-lived container in the engine host's network namespace (NET_ADMIN, NET_RAW, nothing else)
# to install and remove the packet-filter rules of sandboxes' egress policies (docs/user-guide.md:
# "Egress policy"). Every Docker node that runs sandboxes of a mode other than open needs it; for a remote
# node run this with DOCKER_HOST pointing at it. Skips when the tag exists; idempotent.
set -euo pipefail

TAG="${DOCKYARD_EGRESS_HELPER_IMAGE:-dockyard/egress-helper:latest}"
BASE="${DOCKYARD_BASE_IMAGE:-dockyard/sandbox-base:bookworm}"
root="$(cd "$(dirname "$0")/.." && pwd)"

log() { echo "[egress-helper-image] $*" >&2; }

if docker image inspect "$TAG" >/dev/null 2>&1; then
  log "$TAG exists; skipping"
  exit 0
fi
if ! docker image inspect "$BASE" >/dev/null 2>&1; then
  bash "$root/docker/build-base-image.sh"
fi
log "building $TAG from $BASE (apt: iptables)"
docker build -q -t "$TAG" --build-arg "BASE_IMAGE=$BASE" - >/dev/null <<'DOCKERFILE'
ARG BASE_IMAGE
FROM ${BASE_IMAGE}
RUN export DEBIAN_FRONTEND=noninteractive && apt-get update -q \
 && apt-get install -y -q --no-install-recommends iptables \
 && rm -rf /var/lib/apt/lists/*
LABEL dev.dockyard.egress-helper-image="true"
ENTRYPOINT ["sh", "-c"]
DOCKERFILE
log "built $TAG"
