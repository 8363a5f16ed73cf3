#!/usr/bin/env bash
# Ensures a Docker engine answers. Reuses a running one (DOCKER_HOST or /var/run/docker.sock);
# otherwise, on Debian as root, installs docker.io if missing and starts dockerd in the background.
# An engine it starts gets address pools for thousands of sandbox networks in /etc/docker/daemon.json
# unless that file names some (lib/address-pools.sh; DOCKYARD_ENGINE_ADDRESS_POOL=<cidr> chooses,
# =none keeps Docker's ~30), its docker0 a /16 of its own (bip; DOCKYARD_ENGINE_BRIDGE), and no
# userland proxy when DOCKYARD_ENGINE_USERLAND_PROXY=off (lib/port-proxy.sh); a running engine's
# configuration is never changed, only hinted at.
# Idempotent; exits non-zero with a clear message where it cannot.
set -euo pipefail

log() { echo "[ensure-engine] $*" >&2; }
. "$(dirname "$0")/lib/address-pools.sh"
. "$(dirname "$0")/lib/port-proxy.sh"
config=/etc/docker/daemon.json
close_inherited_fds() {
  local fd
  for fd in /proc/$BASHPID/fd/*; do
    fd=${fd##*/}
    if [ "$fd" -gt 2 ]; then eval "exec $fd>&-" 2>/dev/null || true; fi
  done
}

if docker info >/dev/null 2>&1; then
  log "reusing running engine (${DOCKER_HOST:-unix:///var/run/docker.sock})"
  if [ -z "${DOCKER_HOST:-}" ]; then
    pool_hint "$config" "Add them there and restart the engine when no sandbox runs."
  fi
  exit 0
fi
if [ -n "${DOCKER_HOST:-}" ]; then
  log "DOCKER_HOST=$DOCKER_HOST is set but does not answer; refusing to start a local engine behind it"
  exit 1
fi
if [ "$(id -u)" != 0 ]; then
  log "no engine answers and I am not root: start Docker yourself or set DOCKER_HOST"
  exit 1
fi
if ! command -v dockerd >/dev/null 2>&1; then
  if ! command -v apt-get >/dev/null 2>&1; then
    log "no dockerd and no apt-get: install a Docker engine first"
    exit 1
  fi
  log "installing docker.io"
  . "$(dirname "$0")/lib/apt.sh"
  apt_install docker.io
fi

state_dir=/var/lib/dockyard
mkdir -p "$state_dir"
if [ -f "$state_dir/dockerd.pid" ] && kill -0 "$(cat "$state_dir/dockerd.pid")" 2>/dev/null; then
  log "dockerd (pid $(cat "$state_dir/dockerd.pid")) is starting already"
else
  # the engine is this script's own from here: its pools are chosen once and kept in its config
  pool_ensure "$config" DOCKYARD_ENGINE_ADDRESS_POOL /var/lib/dockyard-*/daemon.json
  bridge_ensure "$config"
  proxy_ensure "$config"
  log "starting dockerd in the background (log: $state_dir/dockerd.log)"
  # setsid: the engine must outlive the shell (and the CI step) that started it. It inherits none
  # of this shell's descriptors: a caller's lock (flock /tmp/dockyard-it.lock …) would otherwise
  # stay held by dockerd and containerd for as long as the engine runs
  (close_inherited_fds; exec setsid nohup dockerd >"$state_dir/dockerd.log" 2>&1 </dev/null) &
  echo $! >"$state_dir/dockerd.pid"
fi
for _ in $(seq 1 60); do
  if docker info >/dev/null 2>&1; then
    log "engine ready"
    exit 0
  fi
  sleep 1
done
log "dockerd did not answer within 60 s; see $state_dir/dockerd.log"
tail -n 20 "$state_dir/dockerd.log" >&2 || true
exit 1
