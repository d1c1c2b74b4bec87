#!/usr/bin/env bash
# Load benchmark of /v1/check on each store (issue "Durable storage"), in one run on this machine:
# memory, SQLite (group commit, synchronous=FULL) and PostgreSQL (fresh schema in the local server),
# each on a fresh server process. For each: saturation rate with wrk, p50/p99 latency, and the
# ratio to the memory store's rate.
# Usage: benchmarks/load/stores.sh [duration_seconds]
#   AUTHS (default 32): authorizations the checks are spread over, round-robin; AUTHS=1 puts every
#   check on one authorization (one row lock, so PostgreSQL commits them one at a time).
#   USERS (default one): "one" gives every authorization the user bench_user; "distinct" gives
#   each its own user, so that receipts_by_user takes a leaf per user as in a real workspace.
#   WARMUP (default 60 s: the JIT keeps compiling for a while on a small machine, and longer the
#   slower the store answers; after 20 s the compiler threads still took 31% of the JVM's CPU on
#   PostgreSQL, after 60 s 6%), CONNS (default 32), PG_URL (default jdbc:postgresql://127.0.0.1:5432/test?user=postgres),
#   ROUNDS (default 1): repeats memory, SQLite and PostgreSQL in turn and prints each round's ratios
#   and their medians; on a shared VM the machine's speed drifts from minute to minute, so one
#   round's ratio can be off by several points.
#   JAR (default reference-server/target/agentauth-server.jar): the server jar to run.
#   STORES (default "memory sqlite postgres"), LOG_DIR (keeps each server's log there as
#   server-<store>-<round>.log, and its GC log as gc-<store>-<round>.log), HEAP (default: half
#   the machine's memory, at most 12g), JAVA_OPTS (default -Xms$HEAP -Xmx$HEAP -XX:+UseZGC).
#   The memory store keeps every receipt on the heap, about 1.8 KB each: at 28,000 checks/s the
#   80 s of warm-up and measurement leave over 2 million of them. With a heap it fills, ZGC stalls
#   the request threads and the memory store's rate, the yardstick of every ratio, comes out far
#   too low (3 GiB did that on a faster machine on 2026-11-24, 1 GiB before). So every server
#   writes a GC log, and the results end with a warning for any run that stalled on a full heap.
# The "unsigned" column is the signing backlog when the load stops: a store that answers checks
# faster than its receipts get signed shows a growing number there.
# Needs: java 17, wrk, curl, python3, psql for the PostgreSQL row.
set -euo pipefail
cd "$(dirname "$0")/../.."
DUR="${1:-15}"
CONNS="${CONNS:-32}"
WARMUP="${WARMUP:-60}"
ROUNDS="${ROUNDS:-1}"
AUTHS="${AUTHS:-32}"
USERS="${USERS:-one}"
PORT="${PORT:-18182}"
STORES="${STORES:-memory sqlite postgres}"
PG_URL="${PG_URL:-jdbc:postgresql://127.0.0.1:5432/test?user=postgres}"
JAR="${JAR:-reference-server/target/agentauth-server.jar}"
if [ -z "${HEAP:-}" ]; then
  HEAP=$(awk '/^MemTotal:/ {m = int($2 / 1024 / 1024 / 2); print (m > 12 ? 12 : (m < 1 ? 1 : m)) "g"}' /proc/meminfo)
fi
KEY="sk_$(head -c 32 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=' | head -c 43)"
BASE="http://127.0.0.1:$PORT"
EXP=$(date -u -d '+300 days' +%Y-%m-%dT%H:%M:%SZ)
command -v wrk >/dev/null || { echo "wrk is required (apt-get install wrk)" >&2; exit 2; }
[ -f "$JAR" ] || mvn -B -q -pl reference-server -am package -DskipTests
WORK=$(mktemp -d)
PID=
SCHEMA=
cleanup() {
  [ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
  [ -n "$SCHEMA" ] && psql -q -h 127.0.0.1 -U postgres -d test -c "DROP SCHEMA IF EXISTS $SCHEMA CASCADE" >/dev/null 2>&1
  rm -rf "$WORK"
}
trap cleanup EXIT

start_server() { # $1 = store spec
  : >"$WORK/log"
  head -c 32 /dev/urandom | base64 >"$WORK/master.key"
  : >"$WORK/gc.log"
  java ${JAVA_OPTS:--Xms$HEAP -Xmx$HEAP -XX:+UseZGC} -Xlog:gc:file="$WORK/gc.log" \
    -jar "$JAR" --store "$1" --master-key-file "$WORK/master.key" \
    --port "$PORT" --bootstrap-api-key "$KEY" >"$WORK/log" 2>&1 &
  PID=$!
  for _ in $(seq 1 300); do grep -q "listening on" "$WORK/log" && break; sleep 0.1; done
  grep -q "listening on" "$WORK/log" || { cat "$WORK/log" >&2; exit 1; }
  IDS=""
  for i in $(seq 1 "$AUTHS"); do
    U=bench_user
    [ "$USERS" = "distinct" ] && U="bench_user_$i"
    A=$(curl -sf -X POST "$BASE/v1/authorizations" -H "Authorization: Bearer $KEY" \
      -d '{"user_id":"'"$U"'","agent_id":"bench_agent","scopes":[{"name":"email.send"}],"expires_at":"'"$EXP"'"}' |
      python3 -c 'import json,sys; print(json.load(sys.stdin)["authorization_id"])')
    IDS="${IDS:+$IDS,}$A"
  done
  export AGENTAUTH_API_KEY="$KEY" AGENTAUTH_AUTHORIZATION_ID="${IDS%%,*}" AGENTAUTH_AUTHORIZATION_IDS="$IDS"
}
stop_server() { # $1 = store name, for LOG_DIR
  kill "$PID" 2>/dev/null || true
  wait "$PID" 2>/dev/null || true
  PID=
  if [ -n "${LOG_DIR:-}" ]; then
    mkdir -p "$LOG_DIR" && cp "$WORK/log" "$LOG_DIR/server-$1-$round.log" && cp "$WORK/gc.log" "$LOG_DIR/gc-$1-$round.log"
  fi
  # ZGC logs every request or signer thread it made wait for memory.
  awk -v what="round $round, $1" '/Allocation Stall/ {n++; ms = $NF + 0; t += ms; if (ms > m) m = ms}
    END {if (n) printf "%s: %d allocation stalls (%.0f ms in all, the longest %.1f ms)\n", what, n, t, m}' \
    "$WORK/gc.log" >>"$WORK/stalls"
}

declare -A RATE P50 P99 BACKLOG
ROWS="$WORK/rows"
: >"$ROWS"
: >"$WORK/stalls"
for round in $(seq 1 "$ROUNDS"); do
  for store in $STORES; do
    case "$store" in
      memory) spec=memory ;;
      sqlite) rm -rf "$WORK/data"; spec="sqlite:$WORK/data/agentauth.db" ;;
      postgres)
        SCHEMA="agentauth_bench_$$"
        psql -q -h 127.0.0.1 -U postgres -d test -c "DROP SCHEMA IF EXISTS $SCHEMA CASCADE; CREATE SCHEMA $SCHEMA" >/dev/null
        spec="postgres:$PG_URL&currentSchema=$SCHEMA" ;;
      *) echo "unknown store $store" >&2; exit 2 ;;
    esac
    start_server "$spec"
    echo "# round $round/$ROUNDS, $store: warm-up (${WARMUP}s)"
    wrk -t1 -c"$CONNS" -d"${WARMUP}s" -s benchmarks/load/check.lua "$BASE" >/dev/null
    echo "# round $round/$ROUNDS, $store: /v1/check saturation (${DUR}s, $CONNS connections, $AUTHS authorizations)"
    # (Not tee /dev/stderr: when stderr is a file, tee reopens and truncates it.)
    OUT=$(wrk -t1 -c"$CONNS" -d"${DUR}s" --latency -s benchmarks/load/check.lua "$BASE")
    echo "$OUT" >&2
    RATE[$store]=$(echo "$OUT" | grep -Eo 'Requests/sec: *[0-9.]+' | awk '{print $2}')
    P50[$store]=$(echo "$OUT" | awk '$1=="50%"{print $2}')
    P99[$store]=$(echo "$OUT" | awk '$1=="99%"{print $2}')
    # Receipts answered but not yet signed when the load stops: the signers' lag behind the checks.
    BACKLOG[$store]=$(curl -sf "$BASE/metrics" | awk '$1=="agentauth_signing_backlog"{printf "%.0f", $2}')
    stop_server "$store"
  done
  for store in $STORES; do
    pct=$(python3 -c "m='${RATE[memory]:-}'; print('%.1f' % (100*float('${RATE[$store]}')/float(m)) if m else '-')")
    printf '%-6s %-9s %10.0f %9s %9s %12s %9s\n' "$round" "$store" "${RATE[$store]}" "${P50[$store]}" "${P99[$store]}" "$pct" "${BACKLOG[$store]:--}" >>"$ROWS"
  done
done

echo
echo "== results ($AUTHS authorizations, $CONNS connections, ${WARMUP}s warm-up, ${DUR}s each, $ROUNDS round(s))"
printf '%-6s %-9s %10s %9s %9s %12s %9s\n' round store "checks/s" p50 p99 "% of memory" "unsigned"
cat "$ROWS"
if [ "$ROUNDS" -gt 1 ]; then
  echo
  echo "== median over the rounds (each round's ratio is to the memory store of the same round)"
  python3 - "$ROWS" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1]) if line.strip()]
for store in dict.fromkeys(r[1] for r in rows):
    mine = [r for r in rows if r[1] == store]
    rates = [float(r[2]) for r in mine]
    pcts = [float(r[5]) for r in mine if r[5] != "-"]
    line = "%-9s %10.0f checks/s" % (store, statistics.median(rates))
    if pcts:
        line += "   %5.1f%% of memory (rounds: %s)" % (statistics.median(pcts), ", ".join("%.1f" % p for p in pcts))
    print(line)
PY
fi
if [ -s "$WORK/stalls" ]; then
  echo
  echo "== WARNING: the heap filled up in these runs, so threads waited for memory and their rates"
  echo "   are understated; a few short stalls barely matter, many long ones do (raise HEAP):"
  cat "$WORK/stalls"
fi
