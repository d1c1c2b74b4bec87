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
command -v wrk >/dev/null || { echo "wrk is required (apt-get install wrk)" >&2; exit 2; }
KEY="sk_$(head -c 32 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=' | head -c 43)"
DIR=$(mktemp -d)
java -Xms1g -Xmx1g -XX:+UseZGC -jar "$JAR" --store "sqlite:$DIR/agentauth.db" --port "$PORT" \
  --bootstrap-api-key "$KEY" "$@" >"$DIR/server.log" 2>&1 &
PID=$!
trap 'kill $PID 2>/dev/null; wait $PID 2>/dev/null; rm -rf "$DIR"' EXIT
for _ in $(seq 1 150); do grep -q "listening on" "$DIR/server.log" && break; sleep 0.1; done
BASE="http://127.0.0.1:$PORT"
EXP=$(date -u -d '+300 days' +%Y-%m-%dT%H:%M:%SZ)
AUTH=$(curl -sf -X POST "$BASE/v1/authorizations" -H "Authorization: Bearer $KEY" \
  -d '{"user_id":"bench_user","agent_id":"bench_agent","scopes":[{"name":"email.send"}],"expires_at":"'"$EXP"'"}' |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["authorization_id"])')
export AGENTAUTH_API_KEY="$KEY" AGENTAUTH_AUTHORIZATION_ID="$AUTH" AGENTAUTH_DELAY_MS=0
wrk -t1 -c32 -d"${DUR}s" -s benchmarks/load/check.lua "$BASE" >/dev/null
wrk -t1 -c32 -d"${DUR}s" --latency -s benchmarks/load/check.lua "$BASE" | grep -E "Requests/sec|  50%|  99%"
