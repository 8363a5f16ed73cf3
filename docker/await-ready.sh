#!/usr/bin/env bash
# Waits until http://127.0.0.1:PORT/PATH answers 200, at most SECONDS: `server start` returns once
# Liberty is up, which on a loaded machine can be before the application is (Liberty stops waiting
# for an application after 30 s and starts anyway). Plain bash (/dev/tcp): no curl on a fresh machine.
set -uo pipefail
port="${1:?port}"
path="${2:-/health/ready}"
seconds="${3:-300}"
log() { echo "[await-ready] $*"; }
deadline=$((SECONDS + seconds))
while [ "$SECONDS" -lt "$deadline" ]; do
  if { exec 3<>"/dev/tcp/127.0.0.1/$port"; } 2>/dev/null; then
    printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' "$path" >&3
    status=$(timeout 10 head -n 1 <&3 | tr -d '\r')
    exec 3>&- 3<&-
    case "$status" in
      *" 200"*) log "127.0.0.1:$port$path answers 200 after ${SECONDS}s"; exit 0 ;;
    esac
  fi
  sleep 1
done
log "127.0.0.1:$port$path did not answer 200 within ${seconds}s"
exit 1
