#!/usr/bin/env bash
# Fuzzes the running API against its own document with schemathesis, on each store: every
# answer must be no 5xx, a documented status, the documented content type and headers, and
# a body the document's schema admits. Exits non-zero on any failure.
#
#   scripts/fuzz-api.sh            both stores (PostgreSQL at RACKO_TEST_PG_URL)
#   RACKO_TEST_BACKENDS=sqlite scripts/fuzz-api.sh
#
# Streams (`/stream`) send an endless body, which a fuzzer waits for forever: they are left
# out here and tested by tests/api/sse.rs and tests/api/stream_*.rs. Long-polls run with
# `wait=0`. Signing out everywhere and deleting the account end the fuzzer's own token, so
# they run last, each with a token of its own. Needs python3 with venv and the debug binary
# (cargo test builds it). The full reports: target/fuzz-reports/<store>.out.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
venv=$root/target/fuzz-venv
racko=${CARGO_TARGET_DIR:-$root/target}/debug/racko
spec=$root/openapi/openapi.json
examples=${FUZZ_EXAMPLES:-25}
pg_url=${RACKO_TEST_PG_URL:-postgres://postgres@127.0.0.1:5432/postgres}
backends=${RACKO_TEST_BACKENDS:-postgres,sqlite}

log() { printf '\n== %s\n' "$*"; }
fail() { printf 'fuzz-api: %s\n' "$*" >&2; exit 1; }

[ -x "$racko" ] || fail "$racko is missing (cargo test builds it)"
req=$root/clients/fuzz-requirements.txt
req_hash=$(sha256sum "$req" | cut -d' ' -f1)
if [ "$(cat "$venv/.requirements-hash" 2>/dev/null)" != "$req_hash" ]; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$req"
  echo "$req_hash" >"$venv/.requirements-hash"
fi
st=$venv/bin/schemathesis
echo "$("$st" --version)"

work=$(mktemp -d)
reports=${CARGO_TARGET_DIR:-$root/target}/fuzz-reports
mkdir -p "$reports"
server_pid=
pg_db=
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  if [ -n "$pg_db" ]; then psql "$pg_url" -qc "DROP DATABASE IF EXISTS $pg_db WITH (FORCE)" >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

json() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }
post() { curl -sf -X POST "$base$1" -H 'content-type: application/json' ${3:+-H "authorization: Bearer $3"} -d "$2"; }

# One store: start a server on it, make the data the fuzzer needs, fuzz, stop.
fuzz() {
  local name=$1 url=$2
  log "$name"
  local port
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  base="http://127.0.0.1:$port"
  printf 'correct horse battery\n' | DATABASE_URL=$url "$racko" admin create --username fuzz-admin --password-stdin >/dev/null
  DATABASE_URL=$url RACKO_BIND=127.0.0.1:$port RACKO_AUTH_PER_MINUTE=0 RACKO_ENV=development \
    RACKO_LOG_FORMAT=text RUST_LOG=warn "$racko" serve >"$work/$name.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 100); do
    curl -sf "$base/readyz" >/dev/null 2>&1 && break
    kill -0 "$server_pid" 2>/dev/null || { cat "$work/$name.log" >&2; fail "the server did not start"; }
    sleep 0.2
  done
  local admin player game code hook
  admin=$(post /v1/sessions '{"username":"fuzz-admin","password":"correct horse battery"}' | json '["token"]')
  player=$(post /v1/accounts '{"username":"fuzz-player","password":"correct horse battery"}' | json '["token"]')
  # A game against the computer (the fuzzer's turn), and an open one to join by code.
  game=$(post /v1/games '{"options":{"players":2},"computer":[{"seat":1,"level":"random"}]}' "$admin" | json '["id"]')
  code=$(post /v1/games '{"options":{"players":3}}' "$player" | json '["invite_code"]')
  # A public address literal: accepted without a DNS lookup (deliveries to it just fail).
  hook=$(post /v1/me/webhooks '{"url":"https://1.1.1.1/racko-fuzz"}' "$admin" | json '["webhook"]["id"]')
  cat >"$work/schemathesis.toml" <<TOML
[[operations]]
include-path = "/v1/me/feed"
parameters = { wait = 0 }
[[operations]]
include-path = "/v1/games/{id}/events"
parameters = { wait = 0, id = "$game" }
[[operations]]
include-path = "/v1/games/{id}/chat"
parameters = { wait = 0, id = "$game" }
[[operations]]
include-path-regex = "^/v1/games/[{]id[}]"
parameters = { id = "$game" }
[[operations]]
include-path-regex = "^/v1/me/webhooks/[{]id[}]"
parameters = { id = "$hook" }
[[operations]]
include-path = "/v1/games/join"
parameters = { invite_code = "$code" }
[[operations]]
include-path = "/v1/admin/players/{player}/games"
parameters = { player = "fuzz-player" }
TOML
  local checks=not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance
  local status=0
  "$st" --config-file "$work/schemathesis.toml" run "$spec" --url "$base" \
    -H "Authorization: Bearer $admin" --checks "$checks" \
    --exclude-path-regex '/stream$' --exclude-operation-id delete_me --exclude-operation-id revoke_tokens \
    --max-examples "$examples" --request-timeout 20 --workers 1 --seed 1 \
    >"$reports/$name.out" 2>&1 || status=$?
  # The token enders, each with a guest token of its own.
  for op in revoke_tokens delete_me; do
    local guest
    guest=$(post /v1/guests '{}' | json '["token"]')
    "$st" run "$spec" --url "$base" -H "Authorization: Bearer $guest" --checks "$checks" \
      --include-operation-id "$op" --max-examples 5 --request-timeout 20 --workers 1 --seed 1 \
      >>"$reports/$name.out" 2>&1 || status=$?
  done
  # The summary of each run: its operations and test cases.
  grep -A1 -E '^(API Operations|Test cases):' "$reports/$name.out" | grep -E 'Tested|generated' || true
  kill "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
  server_pid=
  if [ "$status" -ne 0 ]; then
    head -c 20000 "$reports/$name.out"
    fail "$name: the API does not answer as its document says (above)"
  fi
}

case ",$backends," in *,sqlite,*) fuzz sqlite "sqlite://$work/racko.sqlite3" ;; esac
case ",$backends," in
  *,postgres,*)
    pg_db="racko_fuzz_$$"
    psql "$pg_url" -qc "CREATE DATABASE $pg_db" >/dev/null
    fuzz postgres "${pg_url%/*}/$pg_db"
    ;;
esac
log "fuzz-api: every answer as documented"
