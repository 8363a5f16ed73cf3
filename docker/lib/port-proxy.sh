# How the main engine publishes sandbox ports (docs/operations.md: "The engine's port proxy").
# Sourced by ensure-engine.sh after address-pools.sh (daemon_json_set).
#
# With its default userland proxy, Docker runs one docker-proxy process per published port: three
# per sandbox (the executor's port and two service ports), 3.3 MiB each, ~10 MiB of host memory a
# sandbox (a pool of 100 held 300 of them, 989 MiB). Without it the kernel's NAT carries the same
# ports: no process per port (measured 2026-12-03: starts and echo throughput unchanged, 193 MiB
# less for 20 sandboxes).
# The engine then lets its bridges route 127.0.0.0/8 to the host (route_localnet); the control
# plane's input chain of the default bridge drops a sandbox's packets to the loopback
# (EgressRules), and the chains of sandboxes with networks of their own refuse them already.

# Before an engine ensure-engine.sh starts: "userland-proxy": false in its daemon.json, unless the
# file sets the key already (a choice kept either way), the engine manages no iptables (it then
# needs the proxy), or DOCKYARD_ENGINE_USERLAND_PROXY=on. Logs through `log`; never fails the start.
proxy_ensure() {
  local config=$1
  if [ -s "$config" ] && grep -q '"userland-proxy"' "$config"; then
    log "port proxy: $config sets userland-proxy already; kept"
    return 0
  fi
  if [ "${DOCKYARD_ENGINE_USERLAND_PROXY:-off}" = on ]; then
    log "port proxy: Docker's userland proxy kept (DOCKYARD_ENGINE_USERLAND_PROXY=on): a process per published port"
    return 0
  fi
  if [ -s "$config" ] && grep -Eq '"iptables"[[:space:]]*:[[:space:]]*false' "$config"; then
    log "port proxy: the engine manages no iptables ($config): its userland proxy publishes the ports"
    return 0
  fi
  if daemon_json_set "$config" userland-proxy false; then
    log "port proxy: userland-proxy false written to $config (published ports by the kernel's NAT)"
  else
    log "port proxy: could not add \"userland-proxy\": false to $config (needs jq or python3); Docker's proxy kept"
  fi
}

# For an engine that runs already: says what its userland proxy costs, when it runs one.
proxy_hint() {
  local config=$1
  if command -v pgrep >/dev/null 2>&1 && pgrep -x docker-proxy >/dev/null 2>&1 \
      && ! { [ -s "$config" ] && grep -q '"userland-proxy"' "$config"; }; then
    log "hint: the engine runs Docker's userland proxy, a process per published port (~10 MiB of host memory a"
    log "  sandbox): \"userland-proxy\": false in $config, then restart the engine when no sandbox runs"
  fi
}
