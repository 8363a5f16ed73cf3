#!/usr/bin/env bash
# Ensures this host can give sandboxes size-bounded workspaces (docs/user-guide.md:
# "Workspaces, disk limits, snapshots and forks"): loop devices, mkfs.ext4/debugfs (e2fsprogs), losetup/fsfreeze
# (util-linux) and the disk directory. Installs what is missing on Debian as root. Never fatal: the
# control plane then runs with unbounded workspaces and says so in its log; this says why here.
set -uo pipefail

log() { echo "[ensure-disk-tools] $*" >&2; }
dir="${DOCKYARD_WORKSPACES_DIR:-/var/lib/dockyard/workspaces}"

if [ "$(id -u)" != 0 ]; then
  log "not root: workspaces will NOT be size-bounded (loop devices need root)"
  exit 0
fi
missing=()
command -v mkfs.ext4 >/dev/null 2>&1 || missing+=(e2fsprogs)
command -v debugfs >/dev/null 2>&1 || missing+=(e2fsprogs)
command -v losetup >/dev/null 2>&1 || missing+=(mount)
command -v fsfreeze >/dev/null 2>&1 || missing+=(util-linux)
if [ ${#missing[@]} -gt 0 ]; then
  if command -v apt-get >/dev/null 2>&1; then
    log "installing ${missing[*]}"
    . "$(dirname "$0")/lib/apt.sh"
    apt_install "${missing[@]}" \
      || log "could not install ${missing[*]}: workspaces will NOT be size-bounded"
  else
    log "missing ${missing[*]} and no apt-get: workspaces will NOT be size-bounded"
  fi
fi
if [ ! -e /dev/loop-control ]; then
  modprobe loop 2>/dev/null || true
fi
if [ ! -e /dev/loop-control ]; then
  log "the kernel offers no loop devices (/dev/loop-control): workspaces will NOT be size-bounded"
  exit 0
fi
mkdir -p "$dir" && chmod 700 "$dir"
log "size-bounded workspaces available (ext4 disks on loop devices under $dir)"
