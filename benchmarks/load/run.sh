#!/usr/bin/env bash
# Load benchmark of the reference server's /v1/check on the memory store (issue "Reference server").
# Measures, in one run, on this machine, with wrk as the load generator:
#   1. /healthz saturation rate (the server's HTTP ceiling with this generator)
#   2. /v1/check saturation rate (single-scope checks) and its ratio to /healthz
#   3. /v1/check latency (p50/p99) when paced at 5,000/s (half the 10,000/s target; PACED_RATE)
#   4. pending->signed lag (p50/p99) reported by the server's own metrics
# Usage: [JAR=path/to/agentauth-server.jar] benchmarks/load/run.sh [duration_seconds]
#   (needs: java 17, wrk, curl, python3; JAR compares another build, default this checkout's)
set -euo pipefail
cd "$(dirname "$0")/../.."
DUR="${1:-15}"
CONNS="${CONNS:-32}"
PORT="${PORT:-18181}"
JAR="${JAR:-reference-server/target/agentauth-server.jar}"
KEY="sk_$(head -c 32 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=' | head -c 43)"
command -v wrk >/dev/null || { echo "wrk is required (apt-get install wrk)" >&2; exit 2; }
[ -f "$JAR" ] || mvn -B -q -pl reference-server -am package -DskipTests
LOG=$(mktemp)
PID=
start_server() {
  [ -n "$PID" ] && { kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; }
  : >"$LOG"
  java ${JAVA_OPTS:--Xms1g -Xmx1g -XX:+UseZGC} -jar "$JAR" --store memory --port "$PORT" --bootstrap-api-key "$KEY" >"$LOG" 2>&1 &
  PID=$!
  for _ in $(seq 1 100); do grep -q "listening on" "$LOG" && break; sleep 0.1; done
  AUTH=$(curl -sf -X POST "$BASE/v1/authorizations" -H "Authorization: Bearer $KEY" \
    -d '{"user_id":"bench_user","agent_id":"bench_agent","scopes":[{"name":"email.send"}],"expires_at":"'"$EXP"'"}' |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["authorization_id"])')
  export AGENTAUTH_API_KEY="$KEY" AGENTAUTH_AUTHORIZATION_ID="$AUTH"
}
trap '[ -n "$PID" ] && kill $PID 2>/dev/null; wait 2>/dev/null; rm -f "$LOG"' EXIT
BASE="http://127.0.0.1:$PORT"
EXP=$(date -u -d '+300 days' +%Y-%m-%dT%H:%M:%SZ)
start_server

rate() { grep -Eo 'Requests/sec: *[0-9.]+' | awk '{print $2}'; }
echo "# warm-up"
AGENTAUTH_DELAY_MS=0 wrk -t1 -c"$CONNS" -d5s -s benchmarks/load/check.lua "$BASE" >/dev/null
wrk -t1 -c"$CONNS" -d3s "$BASE/healthz" >/dev/null

echo "# /healthz saturation (${DUR}s, $CONNS connections)"
H=$(wrk -t1 -c"$CONNS" -d"${DUR}s" "$BASE/healthz" | tee /dev/stderr | rate)
echo "# /v1/check saturation (${DUR}s, $CONNS connections)"
C=$(AGENTAUTH_DELAY_MS=0 wrk -t1 -c"$CONNS" -d"${DUR}s" -s benchmarks/load/check.lua "$BASE" | tee /dev/stderr | rate)

# Pace at half the issue's 10,000/s target (PACED_RATE, default 5000) on a fresh server, so the
# signing-lag percentiles (which the server keeps over a 30-40 s window) see only paced traffic:
# every connection waits DELAY ms after each response, and the connection count is chosen so the
# total comes near the target.
HALF="${PACED_RATE:-5000}"
DELAY=5
PACED_CONNS=$(python3 -c "print(max(1, round($HALF * ($DELAY + 1.3) / 1000)))")
start_server
echo "# warm-up at the paced rate"
AGENTAUTH_DELAY_MS=$DELAY wrk -t1 -c"$PACED_CONNS" -d5s -s benchmarks/load/check.lua "$BASE" >/dev/null
echo "# /v1/check paced (${HALF}/s target: $PACED_CONNS connections, ${DELAY} ms between requests)"
P=$(AGENTAUTH_DELAY_MS=$DELAY wrk -t1 -c"$PACED_CONNS" -d"${DUR}s" --latency -s benchmarks/load/check.lua "$BASE" | tee /dev/stderr)
METRICS=$(curl -sf "$BASE/metrics" | grep -E '^agentauth_signing_lag_seconds\{quantile' || true)

echo
echo "== results"
printf 'healthz rate      %10.0f req/s\n' "$H"
printf 'check rate        %10.0f req/s\n' "$C"
python3 -c "print('check/healthz     %10.1f %%' % (100*$C/$H))"
echo "$P" | grep -E 'Requests/sec' | awk '{printf "paced check rate  %10.0f req/s\n", $2}'
echo "$P" | grep -E '^ +(50|99)%' | awk '{printf "paced check p%s    %10s\n", $1, $2}'
echo "$METRICS" | sed -E 's/agentauth_signing_lag_seconds\{quantile="([0-9.]+)"\} (.*)/signing lag q\1 \2 s/'
