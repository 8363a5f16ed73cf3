#!/usr/bin/env bash
# Ensures the Docker engine offers gVisor as the runtime "runsc" (docs/backends.md: "Sandbox confinement", gVisor): installs
# Debian's runsc package if missing, registers it in /etc/docker/daemon.json and makes running
# engines reload that file (SIGHUP: runtimes are reloadable, running containers are not touched).
# Run after ensure-engine.sh. Idempotent; exits non-zero with a clear message where it cannot.
#
# Platform: DOCKYARD_GVISOR_PLATFORM (default ptrace). ptrace works everywhere, nested VMs included;
# kvm is faster where /dev/kvm is real hardware virtualisation (not in a VM without nested VT-x).
# Network: DOCKYARD_GVISOR_NETWORK (default host). Debian bookworm's runsc (2022-12-19) refuses its
# own network stack (netstack) on kernels where /proc/sys/net/core/rmem_default exists outside the
# root network namespace (6.x: "cannot run with network enabled in root network namespace");
# "host" is gVisor's passthrough: the container's own network namespace, served by the host
# kernel's TCP/IP instead of netstack. Never the host's network namespace. Set "sandbox" with a
# newer runsc.
set -euo pipefail

log() { echo "[ensure-gvisor] $*" >&2; }
platform=${DOCKYARD_GVISOR_PLATFORM:-ptrace}
network=${DOCKYARD_GVISOR_NETWORK:-host}
config=/etc/docker/daemon.json

registered=$(docker info --format '{{json .Runtimes.runsc}}' 2>/dev/null || true)
if [[ "$registered" == *"--platform=$platform"* && "$registered" == *"--network=$network"* ]]; then
  log "the engine lists runsc already (platform $platform, network $network)"
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  log "the engine has no runsc runtime and I am not root: register gVisor yourself (docs/backends.md: gVisor)"
  exit 1
fi
if ! command -v runsc >/dev/null 2>&1; then
  if ! command -v apt-get >/dev/null 2>&1; then
    log "no runsc and no apt-get: install gVisor's runsc first"
    exit 1
  fi
  log "installing runsc"
  . "$(dirname "$0")/lib/apt.sh"
  apt_install runsc
fi
runsc_path=$(command -v runsc)
# a sandbox's /ready is the proof; this only says early, and clearly, when the platform cannot run here
if ! out=$(timeout 60 runsc --platform="$platform" --network=none do /bin/true 2>&1); then
  log "runsc --platform=$platform cannot run a process on this host: $out"
  log "try DOCKYARD_GVISOR_PLATFORM=ptrace (works in VMs) or kvm (needs hardware virtualisation)"
  exit 1
fi

mkdir -p "$(dirname "$config")"
entry="{\"path\": \"$runsc_path\", \"runtimeArgs\": [\"--platform=$platform\", \"--network=$network\"]}"
if [ ! -s "$config" ]; then
  printf '{\n  "runtimes": {\n    "runsc": %s\n  }\n}\n' "$entry" >"$config"
  log "wrote $config"
elif command -v jq >/dev/null 2>&1; then
  tmp=$(mktemp)
  jq --argjson e "$entry" '.runtimes.runsc = $e' "$config" >"$tmp" && mv "$tmp" "$config"
  log "added runsc to $config"
elif command -v python3 >/dev/null 2>&1; then
  python3 - "$config" "$entry" <<'EOF'
import json, sys
path, entry = sys.argv[1], json.loads(sys.argv[2])
with open(path) as f:
    config = json.load(f)
config.setdefault("runtimes", {})["runsc"] = entry
with open(path, "w") as f:
    json.dump(config, f, indent=2)
EOF
  log "added runsc to $config"
else
  log "$config exists and neither jq nor python3 is here to add runsc to it: add $entry under \"runtimes\""
  exit 1
fi

# the main engine reads the default daemon.json; the extra engines of ensure-extra-engine.sh read
# their own (no runsc), so their reload changes nothing. Every engine reloads; none is started here
pids=$(pidof dockerd || true)
if [ -z "$pids" ]; then
  log "no engine runs: the next one started reads $config"
  exit 0
fi
for pid in $pids; do
  kill -HUP "$pid"
done
for _ in $(seq 1 30); do
  registered=$(docker info --format '{{json .Runtimes.runsc}}' 2>/dev/null || true)
  if [[ "$registered" == *"--network=$network"* ]]; then
    log "runsc registered (platform $platform, network $network)"
    exit 0
  fi
  sleep 1
done
log "the engine did not list runsc after reloading $config; see its log"
exit 1
