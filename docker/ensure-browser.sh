#!/usr/bin/env bash
# Ensures this host has the browser the console tests drive (it/ ConsoleIT): Debian's chromium and
# chromium-driver, installed as root through apt when missing. Idempotent. Fails with a clear
# message where they cannot be installed, since the console tests cannot run without them.
set -uo pipefail

log() { echo "[ensure-browser] $*" >&2; }

if command -v chromium >/dev/null 2>&1 && [ -x /usr/bin/chromedriver ]; then
  log "chromium and chromedriver present ($(chromium --version 2>/dev/null | head -1))"
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  log "chromium/chromium-driver missing and not root: install them with 'sudo apt-get install chromium chromium-driver'"
  exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
  log "chromium/chromium-driver missing and no apt-get: install a chromium and its chromedriver at /usr/bin/chromedriver"
  exit 1
fi
log "installing chromium chromium-driver"
. "$(dirname "$0")/lib/apt.sh"
if ! apt_install chromium chromium-driver; then
  log "could not install chromium chromium-driver through apt"
  exit 1
fi
log "installed $(chromium --version 2>/dev/null | head -1)"
