#!/usr/bin/env bash
# Checks openapi/openapi.json with standard tools, as a client developer would use them:
#   1. validates it (Redocly CLI, every recommended rule an error; openapi-spec-validator);
#   2. generates TypeScript types (openapi-typescript) and type-checks clients/typescript/usage.ts;
#   3. generates a Python client (openapi-python-client) and plays a complete two-player game
#      through it against a real server (target/debug/racko serve, embedded SQLite).
# Any warning of any tool fails the check. Tools are pinned and installed into git-ignored
# folders: clients/node_modules (clients/package-lock.json) and target/clients-venv
# (clients/requirements.txt). Needs node, npm and python3; .ci/test calls it after cargo test.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
clients=$root/clients
venv=$root/target/clients-venv
generated=$clients/generated
spec=$root/openapi/openapi.json
racko=${CARGO_TARGET_DIR:-$root/target}/debug/racko

log() { printf '\n== %s\n' "$*"; }
fail() { printf 'check-clients: %s\n' "$*" >&2; exit 1; }

# Runs a tool, shows its output, and fails when the output holds a warning or an error.
# (Some tools only print warnings and still exit 0.)
strict() {
  local out status=0
  out=$("$@" 2>&1) || status=$?
  printf '%s\n' "$out" | grep -v '^\s*$' | grep -v '[║╔╚]' || true
  [ "$status" -eq 0 ] || fail "$1 failed (exit $status)"
  if printf '%s\n' "$out" | grep -v 'Deprecation warning: Node.js' | grep -Eiq 'warn|error|⚠'; then
    fail "$* reported a warning or an error"
  fi
}

log "client tools"
command -v node >/dev/null || fail "node is missing"
command -v npm >/dev/null || fail "npm is missing"
command -v python3 >/dev/null || fail "python3 is missing"
lock_hash=$(sha256sum "$clients/package-lock.json" | cut -d' ' -f1)
if [ "$(cat "$clients/node_modules/.lock-hash" 2>/dev/null)" != "$lock_hash" ]; then
  (cd "$clients" && npm ci --no-audit --no-fund --loglevel=error)
  echo "$lock_hash" >"$clients/node_modules/.lock-hash"
fi
req_hash=$(sha256sum "$clients/requirements.txt" | cut -d' ' -f1)
if [ "$(cat "$venv/.requirements-hash" 2>/dev/null)" != "$req_hash" ]; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$clients/requirements.txt"
  echo "$req_hash" >"$venv/.requirements-hash"
fi
export PATH="$clients/node_modules/.bin:$venv/bin:$PATH"
# no telemetry, no update checks
export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true
echo "node $(node --version), npm $(npm --version), $(python3 --version)"
echo "redocly $(redocly --version 2>/dev/null | tail -n 1)"
echo "openapi-typescript $(node -p 'require("openapi-typescript/package.json").version' 2>/dev/null ||
  (cd "$clients" && node -p 'require("openapi-typescript/package.json").version'))"
echo "tsc $(tsc --version)"
echo "$(openapi-python-client --version)"
echo "openapi-spec-validator $("$venv/bin/pip" show openapi-spec-validator | sed -n 's/^Version: //p')"

log "validate the document"
(cd "$clients" && strict redocly lint --config redocly.yaml --format=stylish "$spec")
strict openapi-spec-validator "$spec"

log "TypeScript: openapi-typescript, then tsc --noEmit"
rm -rf "$generated"
mkdir -p "$generated"
(cd "$clients" && strict openapi-typescript "$spec" --output "$generated/racko.d.ts")
(cd "$clients" && tsc --noEmit -p tsconfig.json) || fail "clients/typescript/usage.ts does not type-check"
echo "clients/typescript/usage.ts type-checks"

log "Python: openapi-python-client"
strict openapi-python-client generate --path "$spec" --meta none \
  --output-path "$generated/racko_client" --overwrite

log "Python: a complete game through the generated client"
[ -x "$racko" ] || fail "$racko is missing (cargo test builds it)"
work=$(mktemp -d)
server_pid=
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
DATABASE_URL="sqlite://$work/racko.sqlite3" RACKO_BIND="127.0.0.1:$port" RACKO_AUTH_PER_MINUTE=0 \
  RACKO_ENV=development RACKO_LOG_FORMAT=text RUST_LOG=warn \
  "$racko" serve >"$work/server.log" 2>&1 &
server_pid=$!
base="http://127.0.0.1:$port"
for _ in $(seq 1 100); do
  python3 -c "import urllib.request, sys; urllib.request.urlopen(sys.argv[1], timeout=1)" "$base/readyz" \
    >/dev/null 2>&1 && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log" >&2; fail "the server did not start"; }
  sleep 0.2
done
if ! python3 "$clients/python/play_game.py" "$base" "$generated"; then
  tail -n 40 "$work/server.log" >&2
  fail "the game through the generated Python client failed"
fi
log "clients: all checks passed"
