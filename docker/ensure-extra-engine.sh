#!/usr/bin/env bash
# Ensures a second, independent Docker engine answers on this machine, as another backend node
# for migration tests and demos: its own socket, data root and bridge, so nothing is shared with
# the main engine but the kernel. Copies the given images from the main engine when they differ.
#
#   ensure-extra-engine.sh NAME [IMAGE...]
#
# Socket unix:///var/run/dockyard-NAME.sock; bridge dy-NAME on 10.213.N.0/24. The engine is left
# running (like the main one); stop it by the PID in /var/run/dockyard-NAME.pid.
# Idempotent; exits non-zero with a clear message where it cannot.
#
# Its configuration is its own, /var/lib/dockyard-NAME/daemon.json: before the engine starts it gets
# address pools for thousands of sandbox networks (lib/address-pools.sh: a /12 of 10.0.0.0/8 that no
# route, address or other engine's pool of this host uses; DOCKYARD_EXTRA_ENGINE_ADDRESS_POOL=<cidr>
# chooses, =none keeps Docker's). Without them its networks come from Docker's defaults, which the
# main engine draws from too, and not every engine version checks the host's routes before it takes
# a subnet: two engines on one kernel could put one subnet on two bridges.
#
# Egress policies (docs/user-guide.md: "Egress policy"): pass dockyard/egress-helper:latest among the IMAGEs. The
# engine runs in the host's network namespace with --iptables=false: the bridges of its sandbox
# networks are host interfaces, and the helper it runs (--network host) edits the host's tables,
# where the main engine made DOCKER-USER, so a sandbox's rules are installed and hold (every
# forwarded packet passes DOCKER-USER; packets for the host's own addresses pass INPUT). Without the
# main engine's iptables (no DOCKER-USER) the helper fails and so does a provision of a mode but
# open on this node. This engine adds no masquerade and no FORWARD accept of its own: its sandboxes
# reach the host's own addresses (and are reached through ports published on 127.0.0.1), while
# forwarded traffic falls to the host's FORWARD policy (DROP where the main engine set it).
set -euo pipefail

name=${1:?usage: ensure-extra-engine.sh NAME [IMAGE...]}
shift
log() { echo "[ensure-extra-engine $name] $*" >&2; }
. "$(dirname "$0")/lib/address-pools.sh"
close_inherited_fds() {
  local fd
  for fd in /proc/$BASHPID/fd/*; do
    fd=${fd##*/}
    if [ "$fd" -gt 2 ]; then eval "exec $fd>&-" 2>/dev/null || true; fi
  done
}

case "$name" in
  *[!a-z0-9]*|"") log "NAME must be lower-case letters and digits"; exit 2 ;;
esac
sock=/var/run/dockyard-$name.sock
host=unix://$sock
bridge=dy-$name
# a /24 per name, stable across runs, away from Docker's 172.17/16 default
octet=$(( $(printf '%s' "$name" | cksum | cut -d' ' -f1) % 200 + 20 ))

if ! docker -H "$host" info >/dev/null 2>&1; then
  if [ "$(id -u)" != 0 ]; then
    log "the engine does not answer and I am not root: cannot start it"
    exit 1
  fi
  command -v dockerd >/dev/null || { log "no dockerd: run ensure-engine.sh first"; exit 1; }
  if ! ip link show "$bridge" >/dev/null 2>&1; then
    ip link add "$bridge" type bridge
    ip addr add "10.213.$octet.1/24" dev "$bridge"
  fi
  ip link set "$bridge" up
  pidfile=/var/run/dockyard-$name.pid
  if [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
    log "dockerd (pid $(cat "$pidfile")) is starting already"
  else
    mkdir -p "/var/lib/dockyard-$name"
    # a configuration of its own, not the main engine's /etc/docker/daemon.json: runtimes such as
    # gVisor (ensure-gvisor.sh) are the main engine's; this node is one without
    [ -s "/var/lib/dockyard-$name/daemon.json" ] || echo '{}' >"/var/lib/dockyard-$name/daemon.json"
    # chosen once, kept in its configuration: away from the host's networks and the other engines' pools
    pool_ensure "/var/lib/dockyard-$name/daemon.json" DOCKYARD_EXTRA_ENGINE_ADDRESS_POOL \
      /etc/docker/daemon.json /var/lib/dockyard-*/daemon.json
    # live-restore, or this engine deletes the main engine's docker0: at start, an engine with
    # default-address-pools and without live-restore drops its stale default network and then the
    # interface named docker0 (moby 20.10 initNetworkController), whatever its own --bridge is; in
    # the host's namespace that is the main engine's bridge, and every container the main engine
    # starts afterwards fails ("could not find bridge docker0"). Its containers also outlive a stop.
    if ! grep -q '"live-restore"[[:space:]]*:[[:space:]]*true' "/var/lib/dockyard-$name/daemon.json"; then
      daemon_json_set "/var/lib/dockyard-$name/daemon.json" live-restore true \
        || { log "cannot add live-restore to /var/lib/dockyard-$name/daemon.json (needs jq or python3);"
             log "without it this engine's start deletes the host's docker0: add \"live-restore\": true"; exit 1; }
    fi
    log "starting dockerd on $sock (log: /var/lib/dockyard-$name/dockerd.log)"
    # no iptables of its own: the main engine owns the host's rules; sandboxes are reached through
    # the userland proxy on 127.0.0.1, which needs none
    # none of this shell's descriptors (a caller's flock) may stay open in the engine
    (close_inherited_fds
     exec setsid nohup dockerd --config-file "/var/lib/dockyard-$name/daemon.json" \
      --host "$host" --data-root "/var/lib/dockyard-$name/data" \
      --exec-root "/var/run/dockyard-$name" --pidfile "$pidfile" --bridge "$bridge" \
      --iptables=false --ip-masq=false >"/var/lib/dockyard-$name/dockerd.log" 2>&1 </dev/null) &
  fi
  for _ in $(seq 1 60); do
    docker -H "$host" info >/dev/null 2>&1 && break
    sleep 1
  done
  if ! docker -H "$host" info >/dev/null 2>&1; then
    log "dockerd did not answer within 60 s"
    tail -n 20 "/var/lib/dockyard-$name/dockerd.log" >&2 || true
    exit 1
  fi
fi
log "engine ready at $host"
pool_hint "/var/lib/dockyard-$name/daemon.json" \
  "Stop it (kill \$(cat /var/run/dockyard-$name.pid)) when no sandbox runs on it and run this script again."

for image in "$@"; do
  want=$(docker image inspect -f '{{.Id}}' "$image")
  have=$(docker -H "$host" image inspect -f '{{.Id}}' "$image" 2>/dev/null || true)
  if [ "$want" = "$have" ]; then
    log "$image is up to date"
  else
    start=$(date +%s)
    docker save "$image" | docker -H "$host" load -q >/dev/null
    log "$image copied in $(( $(date +%s) - start )) s"
    # the engine is this script's own: the image the copy replaced is garbage
    docker -H "$host" image prune -f >/dev/null
  fi
done
