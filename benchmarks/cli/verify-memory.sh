#!/usr/bin/env bash
# The auditor CLI on a large NDJSON file: wall time, peak resident memory and exit status of
# `agentauth-verify verify --threads 2` on about SIZE_MB megabytes of receipts (default 180),
# with the JVM's default heap and with -Xmx64m, and with --chain and -Xmx64m (all the receipts
# then form one chain without its create receipt, the case where the chain check remembers the
# most: a few fields of every receipt); with BASE_JAR set, the same runs of that jar
# (an older build, for a before/after table), and a byte-for-byte comparison of the two reports.
# The file is COUNT (default 20000) distinct signed receipts from ReceiptBatch, repeated until it
# reaches SIZE_MB (receipt ids repeat; without --chain that changes nothing).
# Usage: [BASE_JAR=old/agentauth-verify.jar] benchmarks/cli/verify-memory.sh [size_mb] [count]
#   (needs: java 17; sdk-verifier/target/agentauth-verify.jar and
#   benchmarks/target/agentauth-benchmarks.jar, built by:
#   mvn -B -q -pl benchmarks -am package -DskipTests)
set -euo pipefail
cd "$(dirname "$0")/../.."
SIZE_MB="${1:-180}"
COUNT="${2:-20000}"
CLI="${CLI:-sdk-verifier/target/agentauth-verify.jar}"
BENCH="${BENCH:-benchmarks/target/agentauth-benchmarks.jar}"
for jar in "$CLI" "$BENCH" ${BASE_JAR:+"$BASE_JAR"}; do
  [ -f "$jar" ] || { echo "$jar is missing: mvn -B -q -pl benchmarks -am package -DskipTests" >&2; exit 2; }
done
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
java -cp "$BENCH" dev.agentauth.benchmarks.ReceiptBatch "$DIR/batch" "$COUNT"
cp "$DIR/batch/keys.json" "$DIR/keys.json"
: >"$DIR/receipts.ndjson"
while [ "$(stat -c %s "$DIR/receipts.ndjson")" -lt $(( SIZE_MB * 1000000 )) ]; do
  cat "$DIR/batch/receipts.ndjson" >>"$DIR/receipts.ndjson"
done
LINES=$(wc -l <"$DIR/receipts.ndjson")
echo "$LINES receipts, $(( $(stat -c %s "$DIR/receipts.ndjson") / 1000000 )) MB, $(nproc) processors, load: $(cut -d' ' -f1-3 /proc/loadavg)"

# run NAME JAR [JVM options...]: prints one row; the report goes to $DIR/NAME.out; $CHAIN may
# hold --chain
CHAIN=
run() {
  local name=$1 jar=$2; shift 2
  local start end status rss
  start=$(date +%s%N)
  if [ -x /usr/bin/time ]; then
    set +e
    /usr/bin/time -f "%M" -o "$DIR/$name.rss" java "$@" -jar "$jar" verify --keys "$DIR/keys.json" \
      $CHAIN --threads 2 "$DIR/receipts.ndjson" >"$DIR/$name.out" 2>"$DIR/$name.err"
    status=$?
    set -e
    rss=$(tail -n 1 "$DIR/$name.rss")
  else # peak from /proc: VmHWM, polled
    java "$@" -jar "$jar" verify --keys "$DIR/keys.json" $CHAIN --threads 2 "$DIR/receipts.ndjson" \
      >"$DIR/$name.out" 2>"$DIR/$name.err" &
    local pid=$! hwm
    rss=0
    while kill -0 "$pid" 2>/dev/null; do
      hwm=$(awk '/VmHWM/ { print $2 }' "/proc/$pid/status" 2>/dev/null || echo 0)
      [ "${hwm:-0}" -gt "$rss" ] && rss=$hwm
      sleep 0.2
    done
    set +e; wait "$pid"; status=$?; set -e
  fi
  end=$(date +%s%N)
  printf '| %s | %s | %.1f s | %d MB | %d | %s |\n' "$name" "${*:-default}${CHAIN:+ $CHAIN}" \
    "$(echo "($end - $start) / 1000000000" | bc -l)" $(( rss / 1024 )) "$status" \
    "$( (grep -m1 -E 'agentauth-verify:|Exception' "$DIR/$name.err" || tail -n 1 "$DIR/$name.out") | cut -c1-90)"
}
echo "| jar | JVM options | wall time | peak RSS | exit | last line (or first error line) |"
echo "|---|---|---|---|---|---|"
if [ -n "${BASE_JAR:-}" ]; then
  run before "$BASE_JAR"
  run before-64m "$BASE_JAR" -Xmx64m
fi
run after "$CLI"
run after-64m "$CLI" -Xmx64m
if [ -n "${BASE_JAR:-}" ] && [ -s "$DIR/before.out" ]; then
  if cmp -s "$DIR/before.out" "$DIR/after.out"; then
    echo "the reports of both jars are byte for byte the same"
  else
    echo "the reports of the two jars differ" >&2
    exit 1
  fi
fi
cmp -s "$DIR/after.out" "$DIR/after-64m.out" || { echo "the -Xmx64m report differs" >&2; exit 1; }
CHAIN=--chain
run after-chain-64m "$CLI" -Xmx64m
