#!/usr/bin/env bash
# The soak-and-chaos entry point: starts private control planes (instance "soak") on the images and
# build that are there, runs Soak against them (agents that loop like coding agents while faults are
# injected one after another), prints the table per fault and what failed, stops the servers and
# removes what their instance left.
#   docker/soak.sh [minutes=30] [agents=40] [fault-every-seconds=120]
#                                             the two-control-plane profile: two control planes on a
#                                             PostgreSQL cluster of the soak's own, behind a load
#                                             balancer on port 19380, and a second engine node
#   docker/soak.sh --smoke        75 s or more, 3 agents, every fault once, one control plane on its
#                                 embedded database (what the test run's SoakSmokeIT does)
# Exits 1 when anything failed. Needs a prior build: mvn -B install -DskipTests
# (docker/start-control-plane.sh does one).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
wlp="$root/src/control-plane/target/liberty/wlp"
[ -x "$wlp/bin/server" ] || { echo "no server build: run 'mvn -B install -DskipTests' first" >&2; exit 1; }
command -v jcmd >/dev/null || { echo "soak: jcmd (the JDK's) is needed to read the server's heap" >&2; exit 1; }
bash "$root/docker/ensure-engine.sh"
bash "$root/docker/build-base-image.sh"
bash "$root/docker/build-sandbox-image.sh" "$root/src/executor/target/executor-bundle"
# as the start script does: the default bridge's link-local refusal (and the servers' start's warm-up)
# runs it; without it, every open sandbox's provision tried and failed to install that rule
bash "$root/docker/build-egress-helper-image.sh"

export DOCKYARD_INSTANCE=soak
export DOCKYARD_POOLS_TEND_INTERVAL=1
export DOCKYARD_BOOTSTRAP_ADMIN_KEY="soak-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
work=""
planes=()
node2_host=unix:///var/run/dockyard-node2.sock
pg=""

# every log a server writes is kept (0: no limit), the harness's restarts' too: a failure is read in
# the log of the run it happened in, which Liberty's default would drop at the second restart
export DOCKYARD_LOG_MAX_FILES=0

# One control plane: Liberty's server script with its own output directory; the settings they
# share are exported, its own are given here (the harness gives the same to a restart).
start_plane() { # id port output-dir [instance-id]
  mkdir -p "$3"
  env WLP_OUTPUT_DIR="$3" HTTP_PORT="$2" DOCKYARD_PROXY_PORT=$(( $2 + 1000 )) ${4:+DOCKYARD_INSTANCE_ID="$4"} \
    "$wlp/bin/server" start dockyard >/dev/null
}
stop_planes() {
  local plane
  for plane in "${planes[@]}"; do
    WLP_OUTPUT_DIR="${plane##*:}" "$wlp/bin/server" stop dockyard >/dev/null 2>&1 || true
  done
}
# Started, not ready: readiness needs node2, whose forwarder the harness starts only once both run.
wait_started() { # port
  local i
  for i in $(seq 1 600); do
    # bash's own /dev/tcp: no curl on a bare machine
    timeout 10 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$0" && printf "GET /health/started HTTP/1.0\r\n\r\n" >&3 \
      && head -n 1 <&3 | grep -q " 200 "' "$1" 2>/dev/null && return 0
    sleep 0.5
  done
  echo "soak: the control plane on port $1 had not started within 5 min" >&2
  return 1
}

# After the servers stop: what their last deletions had not removed yet is removed by its labels
# (instance "soak": only this soak's sandboxes, volumes and networks, on each engine it used). The
# servers may be restarted ones (the soak kills and restarts them): stopped by their pid files.
reap() {
  local rc=$? host plane
  stop_planes
  if [ "$rc" -ne 0 ]; then
    # what the servers said is the first thing a failed run needs: kept, the rest removed
    kept="/tmp/dockyard-soak-logs-$(date -u +%Y%m%dT%H%M%SZ)"
    for plane in "${planes[@]}"; do
      [ -d "${plane##*:}/dockyard/logs" ] && mkdir -p "$kept" && { cp -r "${plane##*:}/dockyard/logs" "$kept/${plane%%:*}" || true; }
    done
    [ -d "$kept" ] && echo "soak: the servers' logs are kept in $kept" >&2
  fi
  for host in "" ${pg:+"$node2_host"}; do
    docker ${host:+-H "$host"} ps -aq --filter label=dev.dockyard.control-plane=soak | xargs -r docker ${host:+-H "$host"} rm -f -v >/dev/null 2>&1 || true
    docker ${host:+-H "$host"} volume ls -q --filter label=dev.dockyard.control-plane=soak | xargs -r docker ${host:+-H "$host"} volume rm >/dev/null 2>&1 || true
    docker ${host:+-H "$host"} network ls -q --filter label=dev.dockyard.control-plane=soak | xargs -r docker ${host:+-H "$host"} network rm >/dev/null 2>&1 || true
  done
  if [ -n "$pg" ]; then
    # the soak's own cluster: stopped by its script, else by the pid its postmaster wrote
    if ! bash "$root/docker/ensure-postgresql.sh" --stop 2>/dev/null && [ -f "$pg/data/postmaster.pid" ]; then
      kill "$(head -n 1 "$pg/data/postmaster.pid")" 2>/dev/null || true
      sleep 2
    fi
    rm -rf "$pg"
  fi
  [ -z "$work" ] || rm -rf "$work"
}
trap reap EXIT
work="$(mktemp -d /tmp/dockyard-soak.XXXXXX)"
classes="$work/classes"
# the harness and the forwarders it runs (JDK only, compiled without the test classpath)
javac -d "$classes" "$root/it/src/test/java/it/dev/dockyard/soak/Soak.java" \
  "$root/it/src/test/java/it/dev/dockyard/support/Forwarder.java"

if [ "${1:-}" = --smoke ]; then
  # one control plane on its embedded database, one engine: what the test run's SoakSmokeIT does
  export HTTP_PORT=19380 DOCKYARD_PROXY_PORT=20380
  planes=("soak:19380:$work/server")
  start_plane soak 19380 "$work/server"
  java -cp "$classes" it.dev.dockyard.soak.Soak "http://127.0.0.1:19380" "$DOCKYARD_BOOTSTRAP_ADMIN_KEY" soak "$wlp" \
    "$work/server" --smoke
  exit
fi

# The two-control-plane profile: a PostgreSQL cluster of the soak's own (stopped for 30 s as a
# fault: nobody else's database), a second engine node reached through a forwarder the harness runs
# (cut for 60 s as a fault), two control planes on both behind the harness's load balancer, which
# listens on 19380 (API) and 20380 (services) and forwards to 19381/19382 and 20381/20382.
# its own directory beside, not inside, $work: the cluster runs as the postgres user, who may not enter $work
pg="$(mktemp -d /tmp/dockyard-soak-pg.XXXXXX)"
export DOCKYARD_PG_DIR="$pg" DOCKYARD_PG_PORT=15442
jdbc=$(bash "$root/docker/ensure-postgresql.sh" dockyard_soak | tail -n 1)
export DOCKYARD_DB_KIND=postgresql DOCKYARD_DB_URL="$jdbc" DOCKYARD_DB_USER=dockyard
DOCKYARD_DB_PASSWORD="$(cat "$pg/password")"
export DOCKYARD_DB_PASSWORD
DOCKYARD_SECRETS_KEY="$(head -c 32 /dev/urandom | base64)"
export DOCKYARD_SECRETS_KEY
bash "$root/docker/ensure-extra-engine.sh" node2 dockyard/sandbox:latest dockyard/egress-helper:latest
export DOCKYARD_NODES=local,node2 DOCKYARD_NODE_NODE2_DOCKER_HOST=tcp://127.0.0.1:19390
# capacities on both, so that placement spreads the runtimes (the most free slots first)
export DOCKYARD_NODE_LOCAL_MAX_RUNTIMES=80 DOCKYARD_NODE_NODE2_MAX_RUNTIMES=80
# the runtimes' URLs name the load balancer's services port, not one control plane's
export DOCKYARD_PROXY_PUBLIC_URL=http://127.0.0.1:20380
planes=("soak-a:19381:$work/a" "soak-b:19382:$work/b")
# one after the other: the first migrates the schema and creates the bootstrap admin
start_plane soak-a 19381 "$work/a" soak-a
wait_started 19381
start_plane soak-b 19382 "$work/b" soak-b
wait_started 19382
java -Dsoak.planes="$(IFS=,; echo "${planes[*]}")" -Dsoak.node2="19390:$node2_host" -Dsoak.database=dockyard_soak \
  -cp "$classes" it.dev.dockyard.soak.Soak "http://127.0.0.1:19380" "$DOCKYARD_BOOTSTRAP_ADMIN_KEY" soak "$wlp" \
  "$work/a" "${1:-30}" "${2:-40}" ${3:+"$3"}
