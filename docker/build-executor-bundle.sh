#!/usr/bin/env bash
# Builds the self-contained executor bundle that every runtime image carries under /dockyard:
#
#   /dockyard/jre       a jlink-trimmed JRE (from a Temurin JDK when one is installed: built against
#                       glibc 2.17, it runs on any glibc-based base, which needs no Java of its own)
#   /dockyard/executor  the executor WAR, and the class path it lays itself out as to run itself
#                       (java -jar executor.war --extract): the embedded executor server, the default
#   /dockyard/wlp       the minified Open Liberty with the same WAR: the liberty executor server
#   /dockyard/bin       start-executor (either server: DOCKYARD_EXECUTOR_SERVER), train-cds (AOT cache
#                       or AppCDS of both at image build), setup-runtime, jvm.options
#
#   docker/build-executor-bundle.sh path/to/executor-server.zip OUT_DIR [path/to/executor.war]
#
# DOCKYARD_BUNDLE_JDK picks the JDK to jlink from. The JRE is cached (keyed by JDK release, module
# list and options) under DOCKYARD_CACHE (default /var/tmp/dockyard-cache): jlink costs ~20 s.
# Every file gets the same mtime, so the bundle's content alone decides the image cache and tags.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
zip=${1:?usage: build-executor-bundle.sh EXECUTOR_SERVER_ZIP OUT_DIR}
out=${2:?usage: build-executor-bundle.sh EXECUTOR_SERVER_ZIP OUT_DIR}
war=${3:-$(dirname "$zip")/executor.war}
[ -s "$war" ] || { echo "[executor-bundle] no executor WAR at $war" >&2; exit 1; }
cache=${DOCKYARD_CACHE:-/var/tmp/dockyard-cache}
log() { echo "[executor-bundle] $*" >&2; }

jdk=${DOCKYARD_BUNDLE_JDK:-}
if [ -z "$jdk" ]; then
  jdk=$(ls -d /usr/lib/jvm/temurin-*-jdk* 2>/dev/null | sort -V | tail -n 1 || true)
fi
if [ -z "$jdk" ]; then
  jdk=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")
fi
[ -x "$jdk/bin/jlink" ] || { log "no jlink in $jdk: set DOCKYARD_BUNDLE_JDK to a JDK (17 or later)"; exit 1; }

# What Open Liberty's kernel, restfulWS, jsonb and cdi load, and what its java9.options name
modules=java.base,java.compiler,java.desktop,java.instrument,java.logging,java.management,java.naming,java.net.http,java.prefs,java.rmi,java.scripting,java.security.jgss,java.security.sasl,java.sql,java.transaction.xa,java.xml,java.xml.crypto,jdk.attach,jdk.charsets,jdk.crypto.ec,jdk.jdi,jdk.localedata,jdk.management,jdk.management.agent,jdk.naming.dns,jdk.naming.rmi,jdk.unsupported,jdk.zipfs
# jcmd: the memory figures (NMT) of a diagnostic run; attaching stays disabled in jvm.options
modules=$modules,jdk.jcmd
# jdk.httpserver: the embedded executor server (the WAR running itself)
modules=$modules,jdk.httpserver
# zip-6: 51 MB smaller than zip-0 and boots as fast (measured: ~1.75 s to /ready either way),
# since the class archive serves nearly every class. jlink before 21 (a machine with only Debian's
# JDK 17) knows only the numbered levels: 2 is its zip.
compress=--compress=zip-6
if [ "$("$jdk/bin/jlink" --version 2>/dev/null | cut -d. -f1)" -lt 21 ] 2>/dev/null; then
  compress=--compress=2
fi
# --generate-cds-archive: the base archive the executor's dynamic AppCDS archive layers on (a JRE
# before 25; from 25 the AOT cache trained at image build holds the JDK's classes too)
options="--strip-debug --no-man-pages --no-header-files $compress --generate-cds-archive"
release=$("$jdk/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.vm.version = //p')
key=$(printf '%s\n' "$jdk" "$release" "$modules" "$options" | sha256sum | cut -c1-16)
jre_cache="$cache/jre-$key"
if [ ! -x "$jre_cache/bin/java" ]; then
  log "jlink from $jdk ($release)"
  mkdir -p "$cache"
  rm -rf "$jre_cache.tmp"
  # shellcheck disable=SC2086
  "$jdk/bin/jlink" --add-modules "$modules" $options --output "$jre_cache.tmp"
  mv "$jre_cache.tmp" "$jre_cache"
fi

rm -rf "$out"
mkdir -p "$out"
cp -a "$jre_cache" "$out/jre"
unzip -q "$zip" -d "$out"
find "$out/wlp/dev" -name '*-javadoc.zip' -delete
rm -rf "$out/wlp/usr/servers/executor/logs" "$out/wlp/usr/servers/executor/workarea"
# what Liberty's packaging writes anew on every build (a dated note, a random password for a default
# keystore the executor server never creates: it has no TLS feature) goes, so that an unchanged
# build is the same bundle byte for byte and the images' layers of it stay Docker cache hits
rm -f "$out"/wlp/lib/versions/package_*.txt
if [ -f "$out/wlp/usr/servers/executor/server.env" ]; then
  sed -i '/^keystore_password=/d' "$out/wlp/usr/servers/executor/server.env"
fi
# the WAR lays itself out with the bundle's own JRE: what runs it in the sandbox
mkdir -p "$out/executor"
cp "$war" "$out/executor/executor.war"
"$out/jre/bin/java" -jar "$out/executor/executor.war" --extract "$out/executor/lib" >/dev/null
cp -r "$here/sandbox/bin" "$out/bin"
chmod 755 "$out"/bin/*
# Readable by every user: a local backend node runs the bundle as its unprivileged sandbox user
# (in an image the sandbox user owns /dockyard/wlp anyway); Liberty's packaging leaves the server 750
chmod -R a+rX,go-w "$out"
find "$out" -exec touch -h -d '2020-01-01T00:00:00Z' {} +
log "bundle in $out: $(du -sh "$out" | cut -f1) (jre $(du -sh "$out/jre" | cut -f1), $release)"
