#!/usr/bin/env bash
# The benchmark entry point: starts a private control plane (port 19280, its own database under
# /tmp) on the images and build that are there, runs Bench and prints its table, stops the server.
#   docker/bench.sh [provisions=5] [echoes=100] [pool=100]   (pool 0: no warm-pool rows)
#   docker/bench.sh density [n=300]   n idle READY sandboxes at once: memory of each, host memory per
#     sandbox, then an echo to each one after another
#   docker/bench.sh throughput [seconds=30] [connections=10]   echo actions as fast as they go to 10
#     READY runtimes, each client on a kept-alive connection: actions/s, latency, CPU per action
#   docker/bench.sh claims [n=40]   n warm claims (and an echo each) one after another from a full pool:
#     wall time, and the CPU per claim of the claimed sandbox, the control plane, the engine and refills
#   docker/bench.sh executor [echoes=100] [nmt]   the executor alone (no control plane): boot,
#     memory after boot and after a working session, echo, 1 MB write+read; "nmt" adds the JVM's
#     own figures (heap, metaspace, code cache, thread stacks) from a sandbox run with NMT
# Needs a prior build: mvn -B install -DskipTests (docker/start-control-plane.sh does one).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
if [ "${1:-}" = executor ]; then
  bash "$root/docker/ensure-engine.sh"
  bash "$root/docker/build-base-image.sh"
  bash "$root/docker/build-sandbox-image.sh" "$root/src/executor/target/executor-bundle"
  exec java "$root/it/src/test/java/it/dev/dockyard/bench/Bench.java" executor \
    "${DOCKYARD_SANDBOX_IMAGE:-dockyard/sandbox:latest}" "${2:-100}" "${3:-}"
fi
wlp="$root/src/control-plane/target/liberty/wlp"
[ -x "$wlp/bin/server" ] || { echo "no server build: run 'mvn -B install -DskipTests' first" >&2; exit 1; }
bash "$root/docker/ensure-engine.sh"
bash "$root/docker/build-base-image.sh"
bash "$root/docker/build-sandbox-image.sh" "$root/src/executor/target/executor-bundle"
# as the start script does: without it each open sandbox's provision tried to install the default
# bridge's link-local refusal and failed (no helper image), which is not what a user's server does
bash "$root/docker/build-egress-helper-image.sh"

export WLP_OUTPUT_DIR="$(mktemp -d /tmp/dockyard-bench.XXXXXX)"
export HTTP_PORT=19280 DOCKYARD_PROXY_PORT=20280
export DOCKYARD_INSTANCE=bench
# the bench's bursts run a hundred runtimes at once under the admin key
export DOCKYARD_QUOTA_MAX_RUNTIMES=400 DOCKYARD_QUOTA_MAX_CPUS=400 DOCKYARD_QUOTA_MAX_MEMORY_MB=1000000
export DOCKYARD_POOLS_TEND_INTERVAL=1
export DOCKYARD_BOOTSTRAP_ADMIN_KEY="bench-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
"$wlp/bin/server" start dockyard >/dev/null
# After the server stops: what its last deletions and pool drains had not removed yet is removed
# by its labels (instance "bench": only this bench's sandboxes, volumes and networks)
reap() {
  "$wlp/bin/server" stop dockyard >/dev/null
  docker ps -aq --filter label=dev.dockyard.control-plane=bench | xargs -r docker rm -f -v >/dev/null 2>&1 || true
  docker volume ls -q --filter label=dev.dockyard.control-plane=bench | xargs -r docker volume rm >/dev/null 2>&1 || true
  docker network ls -q --filter label=dev.dockyard.control-plane=bench | xargs -r docker network rm >/dev/null 2>&1 || true
  rm -rf "$WLP_OUTPUT_DIR"
}
trap reap EXIT
# the throughput phase's load is wrk (a client in C); without it Bench falls back to the JDK's client
if [ "${1:-}" = throughput ] && ! command -v wrk >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "[bench] installing wrk (the throughput phase's client)" >&2
    . "$root/docker/lib/apt.sh"
    apt_install wrk || echo "[bench] could not install wrk: the JDK's HttpClient is the load instead" >&2
  else
    echo "[bench] no wrk (apt-get install wrk): the JDK's HttpClient is the load instead" >&2
  fi
fi
# the phases' own defaults (in Bench) apply to what is not given
case "${1:-}" in
  density|throughput|claims) args=("$@") ;;
  *) args=("${1:-5}" "${2:-100}" "${3:-100}") ;;
esac
java "$root/it/src/test/java/it/dev/dockyard/bench/Bench.java" "http://127.0.0.1:$HTTP_PORT/api/v1" \
  "$DOCKYARD_BOOTSTRAP_ADMIN_KEY" "${args[@]}"
