# Sourced by the SQLite load scripts (sqlite-rate.sh, log-lag.sh, cpu-per-check.sh): starts JAR on
# a fresh SQLite database in a temporary directory on PORT with the server arguments given ("$@"),
# stops it and removes the directory on exit, creates one single-scope authorization, and exports
# what check.lua reads. Sets PID, DIR, BASE, KEY and AUTH.
command -v wrk >/dev/null || { echo "wrk is required (apt-get install wrk)" >&2; exit 2; }
KEY="sk_$(head -c 32 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=' | head -c 43)"
DIR=$(mktemp -d)
java -Xms1g -Xmx1g -XX:+UseZGC -jar "$JAR" --store "sqlite:$DIR/agentauth.db" --port "$PORT" \
  --bootstrap-api-key "$KEY" "$@" >"$DIR/server.log" 2>&1 &
PID=$!
trap 'kill $PID 2>/dev/null; wait $PID 2>/dev/null; rm -rf "$DIR"' EXIT
for _ in $(seq 1 300); do grep -q "listening on" "$DIR/server.log" && break; sleep 0.1; done
BASE="http://127.0.0.1:$PORT"
EXP=$(date -u -d '+300 days' +%Y-%m-%dT%H:%M:%SZ)
AUTH=$(curl -sf -X POST "$BASE/v1/authorizations" -H "Authorization: Bearer $KEY" \
  -d '{"user_id":"bench_user","agent_id":"bench_agent","scopes":[{"name":"email.send"}],"expires_at":"'"$EXP"'"}' |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["authorization_id"])')
export AGENTAUTH_API_KEY="$KEY" AGENTAUTH_AUTHORIZATION_ID="$AUTH" AGENTAUTH_DELAY_MS=0
