# How the main engine publishes sandbox ports (docs/user-guide.md: "The engine's port proxy").
# Sourced by ensure-engine.sh after address-pools.sh (daemon_json_set).
#
# Docker's default userland proxy runs one docker-proxy process per published port (one to three
# a sandbox). Measured 2026-12-03 with and without it: 0.7 MiB of private memory a process (60 of
# them 41.6 MiB), starts and echo throughput unchanged, 300 idle sandboxes' echo p99 44.4 ms either
# way. Without it the kernel's NAT carries the ports, and the engine lets its bridges route
# 127.0.0.0/8 to the host (route_localnet) on every bridge, a user's extra networks included. That
# wider path is not worth 0.7 MiB a port by default: the proxy stays unless the admin asks
# (DOCKYARD_ENGINE_USERLAND_PROXY=off). Either way the default bridge's input chain drops what a
# sandbox addresses to the host's loopback (EgressRules), for engines configured so by hand.

# Before an engine ensure-engine.sh starts: with DOCKYARD_ENGINE_USERLAND_PROXY=off, "userland-proxy":
# false in its daemon.json, unless the file sets the key already (a choice kept either way) or the
# engine manages no iptables (it then needs the proxy). Logs through `log`; never fails the start.
proxy_ensure() {
  local config=$1
  case "${DOCKYARD_ENGINE_USERLAND_PROXY:-on}" in
    off) ;;
    on) return 0 ;;
    *)
      log "port proxy: DOCKYARD_ENGINE_USERLAND_PROXY=$DOCKYARD_ENGINE_USERLAND_PROXY is neither on nor off; Docker's proxy kept"
      return 0 ;;
  esac
  if [ -s "$config" ] && grep -q '"userland-proxy"' "$config"; then
    log "port proxy: $config sets userland-proxy already; kept"
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
