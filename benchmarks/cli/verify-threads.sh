#!/usr/bin/env bash
# The auditor CLI end to end: `agentauth-verify verify` of COUNT signed receipts (NDJSON, one
# file) with --threads 1 and --threads 2, each run REPEAT times, reporting the best wall time of
# each and the speed-up. Includes JVM start-up and JIT warm-up, as an auditor sees them; use a
# large COUNT (default 20000) so verification dominates.
# Usage: benchmarks/cli/verify-threads.sh [count] [repeat]   (needs: java 17; the two jars below,
# built by: mvn -B -q -pl benchmarks -am package -DskipTests)
set -euo pipefail
cd "$(dirname "$0")/../.."
COUNT="${1:-20000}"
REPEAT="${2:-3}"
CLI=sdk-verifier/target/agentauth-verify.jar
BENCH=benchmarks/target/agentauth-benchmarks.jar
for jar in "$CLI" "$BENCH"; do
  [ -f "$jar" ] || { echo "$jar is missing: mvn -B -q -pl benchmarks -am package -DskipTests" >&2; exit 2; }
done
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
java -cp "$BENCH" dev.agentauth.benchmarks.ReceiptBatch "$DIR" "$COUNT"
echo "$COUNT receipts, $(nproc) processors, load: $(cut -d' ' -f1-3 /proc/loadavg)"
best() { # threads -> best wall time in ms over REPEAT runs
  local threads=$1 best=
  for _ in $(seq 1 "$REPEAT"); do
    local start end ms
    start=$(date +%s%N)
    java -jar "$CLI" verify --keys "$DIR/keys.json" --threads "$threads" "$DIR/receipts.ndjson" >"$DIR/out.$threads"
    end=$(date +%s%N)
    ms=$(( (end - start) / 1000000 ))
    if [ -z "$best" ] || [ "$ms" -lt "$best" ]; then best=$ms; fi
  done
  echo "$best"
}
T1=$(best 1)
T2=$(best 2)
cmp -s "$DIR/out.1" "$DIR/out.2" || { echo "the reports of --threads 1 and 2 differ" >&2; exit 1; }
tail -n 1 "$DIR/out.1"
echo "--threads 1: ${T1} ms ($(( COUNT * 1000 / T1 )) receipts/s)"
echo "--threads 2: ${T2} ms ($(( COUNT * 1000 / T2 )) receipts/s)"
awk -v a="$T1" -v b="$T2" 'BEGIN { printf "speed-up: %.2fx (target 1.8x on two idle cores)\n", a / b }'
