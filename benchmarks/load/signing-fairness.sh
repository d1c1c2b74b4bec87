#!/usr/bin/env bash
# Issue 25, items 3 and 4: a bystander workspace's signatures while another workspace floods the
# signer. For each jar, on SQLite: the attacker sends twenty-scope checks with a 16 KiB context on
# CONNS connections (wrk) for DUR seconds; after 3 s the bystander sends eight ?wait=true checks one
# after another (curl). Prints, per jar: the attacker's statuses, each bystander wait's time and
# whether its receipt came back signed, and the server's signing metrics at the end of the flood.
# Usage: JARS="/tmp/before.jar reference-server/target/agentauth-server.jar" \
#        benchmarks/load/signing-fairness.sh [duration_seconds]
# Needs: java 17, wrk, curl, python3.
set -u
cd "$(dirname "$0")/../.."
DUR="${1:-10}"
CONNS="${CONNS:-24}"
W=/tmp/signing-fairness; rm -rf $W; mkdir -p $W
KEY="sk_$(head -c 32 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=' | head -c 43)"
ADMIN=bench-admin-token
PORT=18293; BASE=http://127.0.0.1:$PORT
EXP=$(date -u -d '+300 days' +%Y-%m-%dT%H:%M:%SZ)
command -v wrk >/dev/null || { echo "wrk is required (apt-get install wrk)" >&2; exit 2; }
json() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }
for J in ${JARS:?set JARS to one or more server jars}; do
  rm -rf $W/data; mkdir -p $W/data
  AGENTAUTH_ADMIN_TOKEN=$ADMIN java -Xmx768m -jar "$J" --store sqlite:$W/data/agentauth.db \
    --port $PORT --bootstrap-workspace ws_attacker --bootstrap-api-key "$KEY" > $W/log 2>&1 & PID=$!
  for _ in $(seq 1 300); do grep -q "listening on" $W/log && break; sleep 0.1; done
  curl -sf -o /dev/null -X POST $BASE/admin/v1/workspaces -H "Authorization: Bearer $ADMIN" \
    -d '{"workspace_id":"ws_victim","plan":"pro"}'
  VKEY=$(curl -sf -X POST $BASE/admin/v1/workspaces/ws_victim/api-keys -H "Authorization: Bearer $ADMIN" | json '["api_key"]')
  VAUTH=$(curl -sf -X POST $BASE/v1/authorizations -H "Authorization: Bearer $VKEY" \
    -d '{"user_id":"u1","agent_id":"a1","scopes":[{"name":"crm.read"}],"expires_at":"'$EXP'"}' | json '["authorization_id"]')
  SCOPES=$(python3 -c 'print(",".join("{\"name\":\"s%d\"}" % i for i in range(20)))')
  NAMES=$(python3 -c 'print(",".join("\"s%d\"" % i for i in range(20)))')
  AAUTH=$(curl -sf -X POST $BASE/v1/authorizations -H "Authorization: Bearer $KEY" \
    -d '{"user_id":"u1","agent_id":"a1","scopes":['"$SCOPES"'],"expires_at":"'$EXP'"}' | json '["authorization_id"]')
  python3 -c "import sys; print('{\"authorization_id\":\"$AAUTH\",\"scopes\":[$NAMES],\"context\":{\"pad\":\"' + 'x' * (16 * 1024 - 64) + '\"}}')" > $W/body.json
  echo "# $J: $CONNS connections of twenty-scope checks with 16 KiB contexts for ${DUR}s"
  AGENTAUTH_API_KEY=$KEY AGENTAUTH_BODY_FILE=$W/body.json \
    wrk -t2 -c"$CONNS" -d"${DUR}s" --latency -s benchmarks/load/heavy-check.lua $BASE > $W/wrk.txt 2>&1 &
  WRK=$!
  sleep 3
  signed=0
  for i in 1 2 3 4 5 6 7 8; do
    curl -s -o $W/wait.json -w '%{http_code} %{time_total}' -X POST "$BASE/v1/check?wait=true" \
      -H "Authorization: Bearer $VKEY" -d '{"authorization_id":"'$VAUTH'","scopes":["crm.read"]}' > $W/wait.status
    s=$(python3 -c "import json; r=json.load(open('$W/wait.json'))['results']['crm.read']['receipt']; print('signed' if 'signature' in r else 'pending')" 2>/dev/null || echo error)
    [ "$s" = signed ] && signed=$((signed + 1))
    echo "bystander wait=true $i: $(cat $W/wait.status) s, $s"
  done
  curl -s $BASE/metrics | grep -E '^agentauth_signing_(backlog|oldest_pending_seconds|lag_seconds\{quantile)' || true
  wait $WRK
  grep -E "attacker statuses|Requests/sec|99%" $W/wrk.txt
  echo "bystander waits signed: $signed of 8"
  kill $PID; wait $PID 2>/dev/null
done
