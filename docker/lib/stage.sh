#!/usr/bin/env bash
# Runs one stage of a test run's fresh-machine part (engine, browser, gVisor, images, second
# engine, PostgreSQL: it/pom.xml) and says how long it took, so a slow run says where it went:
#   [stage] ensure-engine.sh: 412 ms
set -uo pipefail
started=$(date +%s%N)
bash "$@"
rc=$?
elapsed=$(( ($(date +%s%N) - started) / 1000000 ))
echo "[stage] $(basename "$1")${2:+ ${*:2}}: ${elapsed} ms$([ "$rc" -ne 0 ] && echo ", failed (exit $rc)")" >&2
exit "$rc"
