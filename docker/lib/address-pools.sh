# Address pools of the engines the project's scripts start (docs/user-guide.md: "Egress policy", address pools).
# Sourced by ensure-engine.sh and ensure-extra-engine.sh; needs `ip` (iproute2), and jq or python3
# to add a key to an existing daemon.json.
#
# Every sandbox of a mode but open has a bridge network of its own, taken from the engine's
# default-address-pools; Docker's default pools hold about 30 networks. An engine these scripts
# start gets one /12 of 10.0.0.0/8 cut into /24s (4096 networks), chosen once and kept in its
# daemon.json: the first candidate that overlaps no route (any table) and no address of the host,
# no pool another daemon.json of this host names, and not 10.213.0.0/16 (the bridges of
# ensure-extra-engine.sh). A network reached only through the default route cannot be seen here:
# name the pool yourself then (DOCKYARD_ENGINE_ADDRESS_POOL / DOCKYARD_EXTRA_ENGINE_ADDRESS_POOL).

# /24 networks: a sandbox network holds one container and its gateway
POOL_NETWORK_SIZE=24
# 10.208.0.0/12 holds 10.213.0.0/16 and is left out
POOL_CANDIDATES="10.144.0.0/12 10.160.0.0/12 10.176.0.0/12 10.192.0.0/12 10.224.0.0/12 10.240.0.0/12
10.128.0.0/12 10.112.0.0/12 10.96.0.0/12 10.80.0.0/12 10.64.0.0/12 10.48.0.0/12 10.32.0.0/12 10.16.0.0/12"
POOL_RESERVED="10.213.0.0/16"

# a.b.c.d -> integer
pool_ip_int() {
  local a b c d
  IFS=. read -r a b c d <<<"$1"
  # base 10 whatever the digits: bash reads "010" as octal and "08" as an error
  echo $(( (10#$a << 24) | (10#$b << 16) | (10#$c << 8) | 10#$d ))
}

# whether $1 is a.b.c.d/prefix with octets 0-255 written without leading zeros and a prefix from
# $2 to $3 (what dockerd accepts; a value it refuses would keep the engine from starting)
pool_valid_cidr() {
  local octet='(0|[1-9][0-9]{0,2})'
  [[ $1 =~ ^$octet\.$octet\.$octet\.$octet/([1-9][0-9]?)$ ]] || return 1
  local i
  for i in 1 2 3 4; do
    (( BASH_REMATCH[i] <= 255 )) || return 1
  done
  (( BASH_REMATCH[5] >= $2 && BASH_REMATCH[5] <= $3 ))
}

# whether two IPv4 CIDRs (a bare address is a /32) share an address
pool_overlaps() {
  local a=${1%/*} la=32 b=${2%/*} lb=32
  [[ $1 == */* ]] && la=$((10#${1#*/}))
  [[ $2 == */* ]] && lb=$((10#${2#*/}))
  local sa sb ea eb
  sa=$(( $(pool_ip_int "$a") & ((0xFFFFFFFF << (32 - la)) & 0xFFFFFFFF) ))
  sb=$(( $(pool_ip_int "$b") & ((0xFFFFFFFF << (32 - lb)) & 0xFFFFFFFF) ))
  ea=$(( sa + (1 << (32 - la)) - 1 ))
  eb=$(( sb + (1 << (32 - lb)) - 1 ))
  (( sa <= eb && sb <= ea ))
}

# the bases of the default-address-pools a daemon.json names (none: nothing)
pool_bases_in() {
  [ -s "$1" ] || return 0
  grep -o '"base"[[:space:]]*:[[:space:]]*"[0-9./]*"' "$1" | grep -o '[0-9][0-9./]*' || true
}

# whether a daemon.json sets default-address-pools
pool_configured() {
  [ -s "$1" ] && grep -q '"default-address-pools"' "$1"
}

# what the host uses: every route's destination (all tables, the default route left out) and
# every address with its prefix
pool_host_networks() {
  ip -4 route show table all | awk '
    $1 ~ /^(unicast|local|broadcast|multicast|anycast|blackhole|unreachable|prohibit|throw|nat)$/ { print $2; next }
    $1 != "default" { print $1 }'
  ip -4 -o addr show | awk '{ print $4 }'
}

# prints the first free candidate, given the daemon.json files of the other engines; fails when none is free
pool_choose() {
  local taken candidate used
  taken="$POOL_RESERVED $(pool_host_networks | tr '\n' ' ')"
  for config in "$@"; do
    taken="$taken $(pool_bases_in "$config" | tr '\n' ' ')"
  done
  for candidate in $POOL_CANDIDATES; do
    used=false
    for network in $taken; do
      [[ $network =~ ^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+(/[0-9]+)?$ ]] || continue
      if pool_overlaps "$candidate" "$network"; then used=true; break; fi
    done
    if [ "$used" = false ]; then
      echo "$candidate"
      return 0
    fi
  done
  return 1
}

# sets one top-level key of a daemon.json to a JSON value, keeping every other key. Fails (the
# file untouched) when it cannot merge (needs jq or python3 unless the file is empty).
daemon_json_set() {
  local config=$1 key=$2 value=$3
  mkdir -p "$(dirname "$config")"
  if [ ! -s "$config" ] || [ "$(tr -d ' \t\n' <"$config")" = "{}" ]; then
    printf '{\n  "%s": %s\n}\n' "$key" "$value" >"$config"
  elif command -v jq >/dev/null 2>&1; then
    local tmp
    tmp=$(mktemp "$config.XXXXXX")
    if jq --arg k "$key" --argjson v "$value" '.[$k] = $v' "$config" >"$tmp"; then
      chmod --reference="$config" "$tmp" 2>/dev/null || true
      mv "$tmp" "$config"
    else
      rm -f "$tmp"
      return 1
    fi
  elif command -v python3 >/dev/null 2>&1; then
    python3 - "$config" "$key" "$value" <<'EOF2'
import json, os, sys
path, key, value = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
with open(path) as f:
    config = json.load(f)
config[key] = value
tmp = path + ".dockyard-tmp"
with open(tmp, "w") as f:
    json.dump(config, f, indent=2)
    f.write("\n")
os.replace(tmp, path)
EOF2
  else
    return 1
  fi
}

# adds default-address-pools [{base, size}] to a daemon.json, keeping every other key; never
# replaces pools it has. Fails (the file untouched) when it cannot merge.
pool_write() {
  local config=$1 base=$2
  if pool_configured "$config"; then
    return 0
  fi
  daemon_json_set "$config" default-address-pools "[{\"base\": \"$base\", \"size\": $POOL_NETWORK_SIZE}]"
}

# Before an engine this script starts: gives its daemon.json a pool unless it has one. $1 the
# daemon.json, $2 the variable naming an explicit pool (a CIDR, or "none" for Docker's defaults),
# then the daemon.json files of the other engines. Logs through `log`; never fails the start.
pool_ensure() {
  local config=$1 override_name=$2
  shift 2
  local override=${!override_name:-} base
  if pool_configured "$config"; then
    log "address pools: $config sets default-address-pools already ($(pool_bases_in "$config" | tr '\n' ' '))"
    return 0
  fi
  if [ "$override" = none ]; then
    log "address pools: Docker's defaults ($override_name=none): about 30 sandbox networks of a mode but open"
    return 0
  fi
  if [ -n "$override" ]; then
    if ! pool_valid_cidr "$override" 1 "$POOL_NETWORK_SIZE"; then
      log "address pools: $override_name=$override is not an IPv4 CIDR of /$POOL_NETWORK_SIZE or wider; Docker's defaults kept"
      return 0
    fi
    base=$override
  elif ! command -v ip >/dev/null 2>&1; then
    log "address pools: no 'ip' to see the host's routes; Docker's defaults kept (set $override_name)"
    return 0
  elif ! base=$(pool_choose "$@"); then
    log "address pools: every candidate /12 of 10.0.0.0/8 overlaps this host's networks; Docker's defaults"
    log "kept: set $override_name to a free CIDR (docs/user-guide.md: Egress policy)"
    return 0
  fi
  if pool_write "$config" "$base"; then
    log "address pools: $base in /$POOL_NETWORK_SIZE networks written to $config"
  else
    log "address pools: could not add default-address-pools to $config (needs jq or python3): add"
    log "  \"default-address-pools\": [{\"base\": \"$base\", \"size\": $POOL_NETWORK_SIZE}]"
  fi
}

# The main engine's default bridge (docker0), where pool members and `open` sandboxes live. With
# default-address-pools set and no "bip", the engine gives docker0 the pool's first /24: 253
# addresses, so no more than ~250 such sandboxes per node (a density run stopped there). A /16
# outside every candidate pool (10.208.0.0/12 is left out of them) holds 65,534.
BRIDGE_DEFAULT_BIP="10.214.0.1/16"

# Before the main engine starts: gives its daemon.json a "bip" when it sets pools and no bip.
# DOCKYARD_ENGINE_BRIDGE=<gateway>/<prefix> chooses it, =none leaves the engine's choice. Logs
# through `log`; never fails the start.
bridge_ensure() {
  local config=$1 choice=${DOCKYARD_ENGINE_BRIDGE:-} bip network
  if [ -s "$config" ] && grep -q '"bip"' "$config"; then
    return 0
  fi
  if [ "$choice" = none ] || ! pool_configured "$config"; then
    # without pools of ours the engine's default bridge is 172.17.0.0/16 already
    return 0
  fi
  bip=${choice:-$BRIDGE_DEFAULT_BIP}
  if ! pool_valid_cidr "$bip" 8 22; then
    log "default bridge: DOCKYARD_ENGINE_BRIDGE=$bip is not <gateway>/<prefix> with a prefix of /8 to /22; left as the engine chooses"
    return 0
  fi
  for network in $(pool_bases_in "$config"); do
    if pool_overlaps "$bip" "$network"; then
      log "default bridge: $bip overlaps the engine's own pool $network; left as the engine chooses"
      return 0
    fi
  done
  if command -v ip >/dev/null 2>&1; then
    # docker0's own address of an earlier start does not count: the bip replaces it
    for network in $(pool_host_networks_except docker0); do
      [[ $network =~ ^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+(/[0-9]+)?$ ]] || continue
      if pool_overlaps "$bip" "$network"; then
        log "default bridge: $bip overlaps $network of this host; left as the engine chooses (a /24 of its pool:"
        log "  about 250 pool members and open sandboxes). Set DOCKYARD_ENGINE_BRIDGE to a free <gateway>/<prefix>"
        return 0
      fi
    done
  fi
  if daemon_json_set "$config" bip "\"$bip\""; then
    log "default bridge: bip $bip written to $config (room for the node's pool members and open sandboxes)"
  else
    log "default bridge: could not add \"bip\": \"$bip\" to $config (needs jq or python3); docker0 gets a /24"
  fi
}

# pool_host_networks without the routes and addresses of one interface
pool_host_networks_except() {
  ip -4 route show table all | awk -v dev="$1" '
    { for (i = 1; i < NF; i++) if ($i == "dev" && $(i + 1) == dev) next }
    $1 ~ /^(unicast|local|broadcast|multicast|anycast|blackhole|unreachable|prohibit|throw|nat)$/ { print $2; next }
    $1 != "default" { print $1 }'
  ip -4 -o addr show | awk -v dev="$1" '$2 != dev { print $4 }'
}

# For an engine that runs already: says how to get more networks when its daemon.json has no pools.
pool_hint() {
  local config=$1 restart=$2
  if ! pool_configured "$config"; then
    log "hint: $config sets no default-address-pools: Docker's defaults hold about 30 networks, so about"
    log "  30 concurrent sandboxes of a mode but open (docs/user-guide.md: Egress policy). $restart"
  fi
}
