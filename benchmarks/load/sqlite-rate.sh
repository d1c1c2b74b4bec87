#!/usr/bin/env bash
# Check rate of one server build on SQLite (the default store), single-scope checks, in one run:
# a fresh server on a fresh database, wrk -t1 -c32 for DUR seconds of warm-up then DUR measured.
# Used for the A/B of fair turns (--checks-in-flight) in benchmarks/README.md.
# Usage: [JAR=path/to/agentauth-server.jar] [DUR=15] benchmarks/load/sqlite-rate.sh [server args...]
#   e.g. benchmarks/load/sqlite-rate.sh --checks-in-flight 4
#   (needs: java 17, wrk, curl, python3)
set -euo pipefail
cd "$(dirname "$0")/../.."
JAR="${JAR:-reference-server/target/agentauth-server.jar}"
DUR="${DUR:-15}"
PORT="${PORT:-18190}"
. benchmarks/load/sqlite-server.sh
wrk -t1 -c32 -d"${DUR}s" -s benchmarks/load/check.lua "$BASE" >/dev/null
wrk -t1 -c32 -d"${DUR}s" --latency -s benchmarks/load/check.lua "$BASE" | grep -E "Requests/sec|  50%|  99%"
