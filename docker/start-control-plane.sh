#!/usr/bin/env bash
# From a fresh Debian machine with JDK 17 and Maven to a running control plane, in one command:
# Docker engine, base and sandbox images, the build, then the server in the foreground on
# http://127.0.0.1:9080 with the embedded Derby database under ~/.dockyard.
#
#   DOCKYARD_BOOTSTRAP_ADMIN_KEY  the admin API key; if unset, one is generated once and kept in
#                                 ~/.dockyard/admin-key (mode 600)
#   HTTP_PORT, HTTP_HOST          where the API listens (default 9080 on 127.0.0.1)
#   DOCKYARD_PROXY_PORT           where runtimes' service URLs are served (default 9081, same host)
#   DOCKYARD_HOME                 where the server keeps its database and logs (default ~/.dockyard)
#   DOCKYARD_BROWSER_IMAGE=skip   do not build the browser plugin's image variant (the first runtime asking for the browser then builds it)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
home="${DOCKYARD_HOME:-$HOME/.dockyard}"

bash "$root/docker/ensure-engine.sh"
bash "$root/docker/ensure-disk-tools.sh"
bash "$root/docker/build-base-image.sh"
echo "[start] building (mvn install -DskipTests)" >&2
mvn -B -q -ntp -f "$root/pom.xml" install -DskipTests
bash "$root/docker/build-sandbox-image.sh" "$root/src/executor/target/executor-bundle"
# the browser plugin's image variant (the default image plus Debian's chromium), which a runtime
# asking for the browser gets: built here so that such a runtime starts without a build of its own.
# The first build downloads chromium (minutes); later ones reuse that layer. DOCKYARD_BROWSER_IMAGE=skip
# leaves it out (the first runtime asking for the browser then builds the same packages on the
# default image, waiting BUILDING_RUNTIME for it).
if [ "${DOCKYARD_BROWSER_IMAGE:-build}" != skip ]; then
  DOCKYARD_SANDBOX_IMAGE=dockyard/sandbox-browser:latest DOCKYARD_SANDBOX_EXTRA_PACKAGES="chromium fonts-liberation" \
    bash "$root/docker/build-sandbox-image.sh" "$root/src/executor/target/executor-bundle"
fi
# installs the packet-filter rules of sandboxes' egress policies (sandbox.network)
bash "$root/docker/build-egress-helper-image.sh"

mkdir -p "$home"
if [ -z "${DOCKYARD_BOOTSTRAP_ADMIN_KEY:-}" ]; then
  if [ ! -s "$home/admin-key" ]; then
    (umask 077; head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$home/admin-key")
    echo "[start] generated an admin API key in $home/admin-key" >&2
  fi
  DOCKYARD_BOOTSTRAP_ADMIN_KEY="$(cat "$home/admin-key")"
fi
export DOCKYARD_BOOTSTRAP_ADMIN_KEY
export WLP_OUTPUT_DIR="$home/server"
export DOCKYARD_IMAGES_BUNDLE="${DOCKYARD_IMAGES_BUNDLE:-$root/src/executor/target/executor-bundle}"
echo "[start] control plane on http://${HTTP_HOST:-127.0.0.1}:${HTTP_PORT:-9080}/api/v1, runtimes' service URLs on port ${DOCKYARD_PROXY_PORT:-9081} (admin key: $home/admin-key or your DOCKYARD_BOOTSTRAP_ADMIN_KEY)" >&2
exec "$root/src/control-plane/target/liberty/wlp/bin/server" run dockyard
