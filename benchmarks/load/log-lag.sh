#!/usr/bin/env bash
# Receipt log lag at the saturation rate on SQLite (issue 31; target: log lag p99 <= 1 s).
# A fresh server on a fresh database; wrk -t1 -c32 sends single-scope checks as fast as the server
# answers them for DUR seconds. Right after the load stops (the lag summary covers the last 30 to
# 40 s) it prints: the check rate, agentauth_log_lag_seconds p50/p99/max from /metrics (per
# integrated batch: from when the integrator learned of a workspace's new signatures to their commit
# in the log), the newest checkpoint's size against the receipts made, the signing backlog, and how
# long after the load the checkpoint covered every receipt.
# Usage: [JAR=path/to/agentauth-server.jar] [DUR=45] benchmarks/load/log-lag.sh [server args...]
#   (needs: java 17, wrk, curl, python3)
set -euo pipefail
cd "$(dirname "$0")/../.."
JAR="${JAR:-reference-server/target/agentauth-server.jar}"
DUR="${DUR:-45}"
PORT="${PORT:-18191}"
. benchmarks/load/sqlite-server.sh

OUT=$(wrk -t1 -c32 -d"${DUR}s" -s benchmarks/load/check.lua "$BASE")
END=$(date +%s.%N)
METRICS=$(curl -sf "$BASE/metrics")
NOTE=$(curl -sf "$BASE/v1/workspaces/ws_local/log/checkpoint" || true)

# Receipts made: the answered checks (each one receipt) plus the authorization's; a lower bound,
# since wrk does not count the up to 32 checks in flight when it stops.
REQUESTS=$(awk '/requests in/{print $1}' <<<"$OUT")
NON2XX=$(awk '/Non-2xx/{print $NF}' <<<"$OUT")
MADE=$((REQUESTS - ${NON2XX:-0} + 1))
RATE=$(awk '/Requests\/sec/{print $2}' <<<"$OUT")
metric() { awk -v m="$1" '$1==m{printf "%.3f", $2}' <<<"$METRICS"; }
SIZE=$(sed -n 2p <<<"$NOTE")

echo "checks:            $((REQUESTS - ${NON2XX:-0})) answered 200 in ${DUR}s ($RATE/s), ${NON2XX:-0} not 2xx"
echo "log lag (s):       p50 $(metric 'agentauth_log_lag_seconds{quantile="0.5"}')" \
  "p99 $(metric 'agentauth_log_lag_seconds{quantile="0.99"}')" \
  "max $(metric agentauth_log_lag_seconds_max)"
echo "log integrated:    $(metric agentauth_log_integrated_total | cut -d. -f1) receipts"
echo "signing backlog:   $(metric agentauth_signing_backlog) at the end of the load"
echo "checkpoint:        size ${SIZE:-none} of at least $MADE receipts made, at the end of the load"

# How long until a checkpoint covers every receipt wrk counted.
for _ in $(seq 1 600); do
  SIZE=$(curl -sf "$BASE/v1/workspaces/ws_local/log/checkpoint" | sed -n 2p || true)
  [ "${SIZE:-0}" -ge "$MADE" ] && break
  sleep 0.1
done
CAUGHT=$(date +%s.%N)
echo "caught up:         checkpoint size ${SIZE:-none} after $(awk -v a="$END" -v b="$CAUGHT" 'BEGIN{printf "%.1f", b-a}') s"
