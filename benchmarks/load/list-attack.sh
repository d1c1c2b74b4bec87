#!/usr/bin/env bash
# Issue 14, item 6: how long a receipt list takes whose filter matches nothing, on 500,000
# receipts of one workspace (1,000 users, inserted with SQL, all signed), SQLite and PostgreSQL.
# For each jar: start it once to migrate, insert the rows, restart, time five GETs of
# /v1/receipts?user_id=nobody and ?scope=nobody with curl (seconds), and print the last page's
# row count and has_more.
# Usage: JARS="/tmp/before.jar /tmp/after.jar" benchmarks/load/list-attack.sh
#   SKIP_SQLITE=1 measures PostgreSQL only (127.0.0.1:5432, database test, user postgres).
# Needs: java 17, curl, python3, sqlite3, psql.
set -u
W=/tmp/lists-attack; rm -rf $W; mkdir -p $W
head -c 32 /dev/urandom | base64 > $W/master.key
KEY="sk_$(head -c 32 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=' | head -c 43)"
PORT=18292; BASE=http://127.0.0.1:$PORT
start() { java -Xmx1g -XX:+UseZGC -jar "$1" --store "$2" --master-key-file $W/master.key --port $PORT --bootstrap-api-key "$KEY" > $W/log 2>&1 & PID=$!
  for _ in $(seq 1 300); do grep -q "listening on" $W/log && break; sleep 0.1; done; }
stop() { kill $PID; wait $PID 2>/dev/null; }
times() { for q in "user_id=nobody" "scope=nobody"; do
  echo -n "$1 $q:"; for i in 1 2 3 4 5; do echo -n " $(curl -s -o /dev/null -w '%{time_total}' -H "Authorization: Bearer $KEY" "$BASE/v1/receipts?$q")"; done; echo
  echo -n "   status/has_more: "; curl -s -H "Authorization: Bearer $KEY" "$BASE/v1/receipts?$q" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(len(d.get("receipts",[])), d.get("has_more"), d.get("code"))'
done; }
for J in ${JARS:?set JARS to one or more server jars}; do
  v=$(basename "$J" .jar | tr -c "a-z0-9\n" "_")

  if [ -z "${SKIP_SQLITE:-}" ]; then
  DB=$W/$v.db
  start $J sqlite:$DB; stop
  WS=$(sqlite3 $DB "SELECT workspace_id FROM api_keys LIMIT 1")
  sqlite3 $DB "WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM g WHERE n < 500000) INSERT INTO receipts (workspace_id, receipt_id, authorization_id, user_id, resource, session_id, scope, event, decision, issued_at, payload_json, signature) SELECT '$WS', '01J' || printf('%023d', n), 'auth_' || (n % 1000), 'user_' || (n % 1000), 'mailbox:' || (n % 100), NULL, 'email.send', NULL, 'allow', 1700000000000 + n, '{\"pad\":\"' || hex(randomblob(300)) || '\"}', '{\"alg\":\"Ed25519\",\"key_id\":\"k\",\"value\":\"v\"}' FROM g"
  start $J sqlite:$DB; times "$v sqlite"; stop
  fi
  # PostgreSQL
  S=lists_attack_$v
  psql -q -o /dev/null -h 127.0.0.1 -U postgres -d test -c "DROP SCHEMA IF EXISTS $S CASCADE; CREATE SCHEMA $S" >/dev/null
  URL="jdbc:postgresql://127.0.0.1:5432/test?user=postgres&currentSchema=$S"
  start $J "postgres:$URL"; stop
  WS=$(psql -At -h 127.0.0.1 -U postgres -d test -c "SELECT workspace_id FROM $S.api_keys LIMIT 1")
  psql -q -o /dev/null -h 127.0.0.1 -U postgres -d test -c "INSERT INTO $S.receipts (workspace_id, receipt_id, authorization_id, user_id, resource, session_id, scope, event, decision, issued_at, payload_json, signed_json) SELECT '$WS', '01J' || lpad(n::text, 23, '0'), 'auth_' || (n % 1000), 'user_' || (n % 1000), 'mailbox:' || (n % 100), NULL, 'email.send', NULL, 'allow', 1700000000000 + n, '{\"pad\":\"' || md5(n::text) || repeat('x', 560) || '\"}', '{}' FROM generate_series(1, 500000) n" >/dev/null
  psql -q -o /dev/null -h 127.0.0.1 -U postgres -d test -c "VACUUM ANALYZE $S.receipts" >/dev/null
  start $J "postgres:$URL"; times "$v postgres"; stop
  psql -q -o /dev/null -h 127.0.0.1 -U postgres -d test -c "DROP SCHEMA IF EXISTS $S CASCADE" >/dev/null
done
rm -rf $W
