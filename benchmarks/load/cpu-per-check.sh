#!/usr/bin/env bash
# Server CPU time per check, by thread group, on SQLite (the default store): a fresh server on a
# fresh database; wrk -t1 -c32 sends single-scope checks for DUR seconds of warm-up, then DUR more
# while each server thread's user+system time is read from /proc before and after. Prints the checks
# answered, the server's CPU seconds and microseconds per check, in all and per thread group (names
# without their number). CPU per check moves far less with other load on the machine than a rate
# does, so it compares builds on a busy or noisy machine. Linux only.
# Usage: [JAR=path/to/agentauth-server.jar] [DUR=20] benchmarks/load/cpu-per-check.sh [server args...]
#   (needs: java 17, wrk, curl, python3)
set -euo pipefail
cd "$(dirname "$0")/../.."
JAR="${JAR:-reference-server/target/agentauth-server.jar}"
DUR="${DUR:-20}"
PORT="${PORT:-18192}"
. benchmarks/load/sqlite-server.sh
wrk -t1 -c32 -d"${DUR}s" -s benchmarks/load/check.lua "$BASE" >/dev/null
# One line per thread: "<name>\t<utime+stime in clock ticks>" (the name may hold spaces).
ticks() {
  for t in /proc/$PID/task/*; do
    local stat rest
    stat=$(cat "$t/stat" 2>/dev/null) || continue
    rest=${stat##*) }
    printf '%s\t%s\n' "$(cat "$t/comm")" "$(awk '{print $12 + $13}' <<<"$rest")"
  done
}
ticks >"$DIR/before"
CHECKS=$(wrk -t1 -c32 -d"${DUR}s" -s benchmarks/load/check.lua "$BASE" |
  awk '/requests in/ {print $1}')
ticks >"$DIR/after"
python3 - "$DIR/before" "$DIR/after" "$CHECKS" "$(getconf CLK_TCK)" <<'PY'
import collections, re, sys
def groups(path):
    out = collections.Counter()
    for line in open(path):
        name, ticks = line.rstrip("\n").rsplit("\t", 1)
        out[re.sub(r"[-#]?\d+$", "", name)] += int(ticks)
    return out
before, after = groups(sys.argv[1]), groups(sys.argv[2])
checks, hz = int(sys.argv[3]), int(sys.argv[4])
used = {g: after[g] - before.get(g, 0) for g in after if after[g] > before.get(g, 0)}
total = sum(used.values())
print(f"checks {checks}; server CPU {total / hz:.1f} s;"
      f" {total * 1e6 / hz / checks:.0f} us per check")
for g, t in sorted(used.items(), key=lambda x: -x[1])[:12]:
    print(f"  {t * 1e6 / hz / checks:7.0f} us per check  {g}")
PY
