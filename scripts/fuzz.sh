#!/usr/bin/env bash
# Fuzz the HTTP API with schemathesis (PyPI, 4.x) against the served OpenAPI document.
#
#   scripts/fuzz.sh                  # build, serve on a temp SQLite file in test mode, fuzz
#   FUZZ_MAX_EXAMPLES=200 scripts/fuzz.sh
#   RACKO_BIN=target/release/racko scripts/fuzz.sh   # use a binary that is already built
#
# What it does: installs schemathesis into a venv if it is missing, builds the server (debug)
# unless RACKO_BIN is given, starts it on a free port with a fresh SQLite file (or the empty
# PostgreSQL database FUZZ_DATABASE_URL) and RACKO_TEST_MODE=1, creates an admin account
# (`racko admin create`, so the admin routes are fuzzed too) or registers a plain user, runs
# every check of schemathesis (server errors, status codes, content types, response headers and
# schemas, ...) in all phases (examples, coverage, fuzzing, stateful) with a fixed seed and
# --max-examples, stops the server, and exits non-zero when schemathesis found a failure or the
# server logged an error of its own (racko targets, panics).
#
# Environment:
#   FUZZ_VENV          venv to use/create        (default: target/fuzz-venv)
#   FUZZ_MAX_EXAMPLES  examples per operation    (default: 50)
#   FUZZ_SEED          hypothesis seed           (default: 1)
#   FUZZ_PHASES        schemathesis phases       (default: examples,coverage,fuzzing,stateful)
#   FUZZ_WORKERS       schemathesis workers      (default: 1; more can trip a hypothesis race)
#   FUZZ_AS            admin | user              (default: admin)
#   FUZZ_DATABASE_URL  postgres://... of an EMPTY database to fuzz PostgreSQL instead of SQLite
#   FUZZ_REPORT_DIR    JUnit + NDJSON reports    (default: target/fuzz-report)
#   FUZZ_EXTRA_ARGS    more schemathesis arguments, word-split
#   RACKO_BIN          server binary             (default: build with cargo, debug profile)
#   CARGO_TARGET_DIR   honoured when building
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

VENV=${FUZZ_VENV:-$ROOT/target/fuzz-venv}
MAX_EXAMPLES=${FUZZ_MAX_EXAMPLES:-50}
SEED=${FUZZ_SEED:-1}
PHASES=${FUZZ_PHASES:-examples,coverage,fuzzing,stateful}
WORKERS=${FUZZ_WORKERS:-1}
FUZZ_AS=${FUZZ_AS:-admin}
REPORT_DIR=${FUZZ_REPORT_DIR:-$ROOT/target/fuzz-report}
SCHEMATHESIS_SPEC=${FUZZ_SCHEMATHESIS_SPEC:-schemathesis>=4,<5}

log() { printf 'fuzz: %s\n' "$*" >&2; }

# --- schemathesis in a venv (never the system Python) ---
if [[ ! -x "$VENV/bin/schemathesis" ]]; then
    log "installing schemathesis into $VENV"
    python3 -m venv "$VENV"
    "$VENV/bin/python" -m pip install --quiet --upgrade pip
    "$VENV/bin/python" -m pip install --quiet "$SCHEMATHESIS_SPEC"
fi
log "$("$VENV/bin/schemathesis" --version)"

# --- the server binary ---
if [[ -z "${RACKO_BIN:-}" ]]; then
    log "building the server (cargo build)"
    cargo build --quiet --bin racko
    RACKO_BIN="${CARGO_TARGET_DIR:-$ROOT/target}/debug/racko"
fi
[[ -x "$RACKO_BIN" ]] || { log "no server binary at $RACKO_BIN"; exit 2; }

# --- a fresh store and a free port ---
WORK=$(mktemp -d "${TMPDIR:-/tmp}/racko-fuzz.XXXXXX")
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
BASE="http://127.0.0.1:$PORT"
SERVER_LOG="$WORK/server.log"
SERVER_PID=""

cleanup() {
    if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
        kill "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
    fi
    if [[ -z "${FUZZ_KEEP:-}" ]]; then rm -rf "$WORK"; else log "kept $WORK"; fi
}
trap cleanup EXIT

DB_URL=${FUZZ_DATABASE_URL:-sqlite://$WORK/racko.sqlite3}
USERNAME="fuzz$(date +%s)"
PASSWORD="correct horse battery"
if [[ "$FUZZ_AS" == admin ]]; then
    printf '%s\n' "$PASSWORD" |
        DATABASE_URL="$DB_URL" "$RACKO_BIN" admin create --username "$USERNAME" --password-stdin >&2
fi

log "serving on $BASE (${DB_URL%%://*} store, test mode, as $FUZZ_AS)"
env -u RACKO_ENV -u RACKO_JWT_SECRET \
    RACKO_TEST_MODE=1 \
    DATABASE_URL="$DB_URL" \
    RACKO_BIND="127.0.0.1:$PORT" \
    RACKO_LOG_FORMAT=json \
    RUST_LOG="${RUST_LOG:-info}" \
    "$RACKO_BIN" serve >"$SERVER_LOG" 2>&1 &
SERVER_PID=$!

for _ in $(seq 1 100); do
    if curl -fsS "$BASE/healthz" >/dev/null 2>&1; then break; fi
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then
        log "the server exited:"; cat "$SERVER_LOG" >&2; exit 2
    fi
    sleep 0.2
done
curl -fsS "$BASE/readyz" >/dev/null || { log "the server is not ready"; cat "$SERVER_LOG" >&2; exit 2; }

# --- the account's token ---
if [[ "$FUZZ_AS" == admin ]]; then ENDPOINT=/v1/sessions; else ENDPOINT=/v1/accounts; fi
TOKEN=$(curl -fsS "$BASE$ENDPOINT" -H 'content-type: application/json' \
    -d "{\"username\":\"$USERNAME\",\"password\":\"$PASSWORD\"}" |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["token"])')
[[ -n "$TOKEN" ]] || { log "registration gave no token"; exit 2; }

# --- schemathesis ---
mkdir -p "$REPORT_DIR"
log "schemathesis: phases=$PHASES max-examples=$MAX_EXAMPLES seed=$SEED"
set +e
# shellcheck disable=SC2086
"$VENV/bin/schemathesis" run "$BASE/openapi.json" \
    --header "Authorization: Bearer $TOKEN" \
    --checks all \
    --phases "$PHASES" \
    --max-examples "$MAX_EXAMPLES" \
    --seed "$SEED" \
    --workers "$WORKERS" \
    --request-timeout 30 \
    --suppress-health-check all \
    --report junit,ndjson \
    --report-dir "$REPORT_DIR" \
    --output-truncate true \
    ${FUZZ_EXTRA_ARGS:-}
ST_RC=$?
set -e

# --- the server's own view: internal errors and panics ---
# (actix_http's own ERROR lines about unparsable requests are the fuzzer's doing, not ours.)
SERVER_ERRORS='"level":"ERROR".*"target":"racko|panicked'
INTERNAL=$(grep -c -E "$SERVER_ERRORS" "$SERVER_LOG" || true)
if [[ "$INTERNAL" != 0 ]]; then
    log "the server logged $INTERNAL error line(s):"
    grep -E "$SERVER_ERRORS" "$SERVER_LOG" | head -20 >&2
fi

if [[ $ST_RC -ne 0 || "$INTERNAL" != 0 ]]; then
    log "FAILED (schemathesis exit $ST_RC, $INTERNAL server error line(s)); reports in $REPORT_DIR"
    exit 1
fi
log "passed; reports in $REPORT_DIR"
