# Sourced by the project's scripts: installs Debian packages as root without tripping over another
# apt run. Our own scripts take turns on one lock (a test build may start several at once), and
# apt itself waits for the dpkg and list locks of anyone else's apt (unattended upgrades, a shell)
# rather than failing at once: `apt-get update` fails straight away on a held list lock, so it
# is tried again a bounded number of times.
#
#   . "$(dirname "$0")/lib/apt.sh"; apt_install PACKAGE...

apt_install() {
  local lock_dir=/var/lib/dockyard
  mkdir -p "$lock_dir"
  (
    flock -w 900 9 || { echo "[apt] another Dockyard script held the apt lock for 15 min" >&2; exit 1; }
    export DEBIAN_FRONTEND=noninteractive
    local opts=(-qq -o DPkg::Lock::Timeout=300)
    local try
    for try in 1 2 3 4 5 6; do
      if apt-get "${opts[@]}" update >/dev/null; then
        break
      fi
      [ "$try" = 6 ] && { echo "[apt] apt-get update failed 6 times" >&2; exit 1; }
      sleep 10
    done
    apt-get "${opts[@]}" install -y "$@" >/dev/null
  ) 9>"$lock_dir/apt.lock"
}
