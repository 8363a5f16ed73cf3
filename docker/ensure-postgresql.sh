#!/usr/bin/env bash
# Ensures a PostgreSQL server of Debian's (15) answers on 127.0.0.1 for Dockyard's production
# database kind (dockyard.db.kind=postgresql) and the high-availability tests: installs the
# package when missing, runs its own cluster (not the package's systemd one) from its own data
# directory, and creates a user and a database.
#
#   ensure-postgresql.sh [DATABASE]          (default: dockyard)
#   ensure-postgresql.sh --stop              stops the server this script started, by its PID
#
# Environment: DOCKYARD_PG_PORT (15432), DOCKYARD_PG_DIR (/var/lib/dockyard-postgresql),
# DOCKYARD_PG_USER (dockyard). The user's password is generated once into
# $DOCKYARD_PG_DIR/password (mode 600, never printed); give it to the control plane as the
# setting dockyard.db.password (a file named so in its secrets directory, or DOCKYARD_DB_PASSWORD).
# Prints the JDBC URL on stdout. Idempotent; exits non-zero with a clear message where it cannot.
set -euo pipefail

port=${DOCKYARD_PG_PORT:-15432}
dir=${DOCKYARD_PG_DIR:-/var/lib/dockyard-postgresql}
user=${DOCKYARD_PG_USER:-dockyard}
log() { echo "[ensure-postgresql] $*" >&2; }

find_bin() {
  local b
  for b in /usr/lib/postgresql/*/bin; do
    [ -x "$b/pg_ctl" ] && { echo "$b"; return 0; }
  done
  return 1
}

as_postgres() {
  # initdb and the server refuse to run as root
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

if [ "${1:-}" = "--stop" ]; then
  pidfile=$dir/data/postmaster.pid
  if [ -f "$pidfile" ] && kill -0 "$(head -n1 "$pidfile")" 2>/dev/null; then
    bin=$(find_bin)
    as_postgres "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >&2
  else
    log "not running"
  fi
  exit 0
fi

database=${1:-dockyard}
case "$database" in
  *[!a-z0-9_]*|"") log "DATABASE must be lower-case letters, digits and _"; exit 2 ;;
esac

if ! bin=$(find_bin); then
  if [ "$(id -u)" != 0 ]; then
    log "PostgreSQL is not installed and I am not root: apt-get install postgresql"
    exit 1
  fi
  log "installing Debian's postgresql"
  . "$(dirname "$0")/lib/apt.sh"
  apt_install postgresql >&2
  bin=$(find_bin) || { log "postgresql installed but no pg_ctl found"; exit 1; }
fi

if [ "$(id -u)" = 0 ]; then
  mkdir -p "$dir"
  chown postgres:postgres "$dir"
  chmod 700 "$dir"
fi

if [ ! -f "$dir/data/PG_VERSION" ]; then
  log "creating a cluster in $dir/data"
  as_postgres "$bin/initdb" -D "$dir/data" -U postgres --auth-local=trust --auth-host=scram-sha-256 \
    -E UTF8 --locale=C.UTF-8 >/dev/null
fi

if ! as_postgres "$bin/pg_isready" -q -h 127.0.0.1 -p "$port"; then
  log "starting PostgreSQL on 127.0.0.1:$port (log: $dir/server.log)"
  # only the loopback address; the socket in the data directory, not /var/run/postgresql
  as_postgres "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $port -c unix_socket_directories=$dir/data -c max_connections=200" start >&2 \
    || { log "the server did not start"; tail -n 20 "$dir/server.log" >&2 || true; exit 1; }
fi

psql_admin() {
  as_postgres "$bin/../bin/psql" -h "$dir/data" -p "$port" -U postgres -v ON_ERROR_STOP=1 -qAt "$@"
}

if [ ! -s "$dir/password" ]; then
  (umask 077; head -c 24 /dev/urandom | base64 | tr -d '/+=\n' > "$dir/password")
fi
password=$(cat "$dir/password")
if [ "$(psql_admin -d postgres -c "SELECT 1 FROM pg_roles WHERE rolname = '$user'")" != 1 ]; then
  log "creating user $user"
  psql_admin -d postgres -c "CREATE ROLE \"$user\" LOGIN" >/dev/null
fi
# the password through standard input, never on a command line
printf "ALTER ROLE \"%s\" PASSWORD '%s';\n" "$user" "$password" | psql_admin -d postgres >/dev/null
if [ "$(psql_admin -d postgres -c "SELECT 1 FROM pg_database WHERE datname = '$database'")" != 1 ]; then
  log "creating database $database"
  psql_admin -d postgres -c "CREATE DATABASE \"$database\" OWNER \"$user\"" >/dev/null
fi
log "ready: database $database, user $user, password in $dir/password, server pid $(head -n1 "$dir/data/postmaster.pid")"
echo "jdbc:postgresql://127.0.0.1:$port/$database"
