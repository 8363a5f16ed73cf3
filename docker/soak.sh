#!/usr/bin/env bash
# The soak-and-chaos entry point: starts a private control plane (port 19380, its own database under
# /tmp, instance "soak") on the images and build that are there, runs Soak against it (agents that
# loop like coding agents while faults are injected one after another), prints the table per fault
# and what failed, stops the server and removes what its instance left.
#   docker/soak.sh [minutes=30] [agents=40]
#   docker/soak.sh --smoke        75 s or more, 3 agents, every fault once (what the test run's SoakSmokeIT does)
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

export WLP_OUTPUT_DIR="$(mktemp -d /tmp/dockyard-soak.XXXXXX)"
export HTTP_PORT=19380 DOCKYARD_PROXY_PORT=20380
export DOCKYARD_INSTANCE=soak
export DOCKYARD_POOLS_TEND_INTERVAL=1
export DOCKYARD_BOOTSTRAP_ADMIN_KEY="soak-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
"$wlp/bin/server" start dockyard >/dev/null
# After the server stops: what its last deletions had not removed yet is removed by its labels
# (instance "soak": only this soak's sandboxes, volumes and networks). The server may be a restarted
# one (the soak kills and restarts it): stop by the pid file, which names the running one.
reap() {
  local rc=$?
  "$wlp/bin/server" stop dockyard >/dev/null || true
  if [ "$rc" -ne 0 ] && [ -d "$WLP_OUTPUT_DIR/dockyard/logs" ]; then
    # what the server said is the first thing a failed run needs: kept, the rest removed
    kept="/tmp/dockyard-soak-logs-$(date -u +%Y%m%dT%H%M%SZ)"
    cp -r "$WLP_OUTPUT_DIR/dockyard/logs" "$kept" && echo "soak: the server's logs are kept in $kept" >&2
  fi
  docker ps -aq --filter label=dev.dockyard.control-plane=soak | xargs -r docker rm -f -v >/dev/null 2>&1 || true
  docker volume ls -q --filter label=dev.dockyard.control-plane=soak | xargs -r docker volume rm >/dev/null 2>&1 || true
  docker network ls -q --filter label=dev.dockyard.control-plane=soak | xargs -r docker network rm >/dev/null 2>&1 || true
  rm -rf "$WLP_OUTPUT_DIR"
}
trap reap EXIT
case "${1:-}" in
  --smoke) args=(--smoke) ;;
  *) args=("${1:-30}" "${2:-40}") ;;
esac
java "$root/it/src/test/java/it/dev/dockyard/soak/Soak.java" "http://127.0.0.1:$HTTP_PORT" \
  "$DOCKYARD_BOOTSTRAP_ADMIN_KEY" soak "$wlp" "$WLP_OUTPUT_DIR" "${args[@]}"
