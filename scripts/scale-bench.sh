#!/usr/bin/env bash
# Cost as the data grows: fills one fresh PostgreSQL database with a population (accounts,
# finished games with their whole logs, active and open games, every game played by computer
# players through the rules, so every log verifies) and another with a few games, starts a
# release server on each, and prints p50/p99 of an action, a game GET, the inbox, the lobby,
# an events page, a replay, an export, the admin audit queries and a sweeper pass on both,
# interleaved, with the ratios; and the bytes each stored game takes.
#
#   flock /tmp/racko-build.lock scripts/scale-bench.sh                  # 1,000,000 games
#   SCALE_FINISHED=100000 SCALE_ACTIVE=5000 SCALE_ACCOUNTS=20000 scripts/scale-bench.sh
#
# PG_URL (default the local server) names the PostgreSQL; SCALE_KEEP=1 keeps the populated
# database (racko_scale_full) for another run, which then skips the filling; SCALE_ROUNDS and
# SCALE_SAMPLES set the measurement's size.
set -euo pipefail
cd "$(dirname "$0")/.."
PG_URL=${PG_URL:-postgres://postgres@127.0.0.1:5432}
FINISHED=${SCALE_FINISHED:-1000000}
ACTIVE=${SCALE_ACTIVE:-50000}
ACCOUNTS=${SCALE_ACCOUNTS:-200000}
OPEN=${SCALE_OPEN:-1000}
THREADS=${SCALE_THREADS:-$(nproc)}
full=racko_scale_full
empty="racko_scale_empty_$$"
cargo build --release --locked --bin racko --example scale
bin=target/release/racko
scale=target/release/examples/scale
tmp=$(mktemp -d)
servers=()
cleanup() {
    for pid in "${servers[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    psql "$PG_URL/postgres" -qc "DROP DATABASE IF EXISTS $empty" || true
    [ "${SCALE_KEEP:-0}" = 1 ] || psql "$PG_URL/postgres" -qc "DROP DATABASE IF EXISTS $full" || true
    rm -rf "$tmp"
}
trap cleanup EXIT

admin() {
    printf 'scale admin password\n' | DATABASE_URL="$PG_URL/$1" "$bin" admin create \
        --username scale_admin --password-stdin >/dev/null
}

if [ "${SCALE_KEEP:-0}" = 1 ] && psql "$PG_URL/postgres" -Atc "SELECT 1 FROM pg_database WHERE datname = '$full'" | grep -q 1; then
    echo "reusing the populated database $full"
else
    psql "$PG_URL/postgres" -qc "DROP DATABASE IF EXISTS $full" -c "CREATE DATABASE $full"
    "$scale" populate --db "$PG_URL/$full" --accounts "$ACCOUNTS" --finished "$FINISHED" \
        --active "$ACTIVE" --open "$OPEN" --threads "$THREADS"
    psql "$PG_URL/$full" -qc "VACUUM ANALYZE"
    admin "$full"
fi
# A few games, but enough that every measured page is as full as on the populated database
# (30 open games: a whole lobby page).
psql "$PG_URL/postgres" -qc "CREATE DATABASE $empty"
"$scale" populate --db "$PG_URL/$empty" --accounts 100 --finished 100 --active 20 --open 30 --threads 1
psql "$PG_URL/$empty" -qc "VACUUM ANALYZE"
admin "$empty"

# Starts a release server on database $1; sets $url.
start() {
    local port
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    DATABASE_URL="$PG_URL/$1" RACKO_BIND=127.0.0.1:$port RACKO_AUTH_PER_MINUTE=0 RUST_LOG=warn \
        "$bin" serve >"$tmp/$1.log" 2>&1 &
    servers+=($!)
    for _ in $(seq 300); do
        curl -fs "http://127.0.0.1:$port/readyz" >/dev/null && break
        sleep 0.1
    done
    url="http://127.0.0.1:$port"
}
start "$empty"
empty_url=$url
start "$full"
full_url=$url
echo "$(nproc) CPUs, $(date -u +%FT%TZ), PostgreSQL: $(psql "$PG_URL/postgres" -Atc 'SHOW server_version')"
"$scale" measure --empty "$empty_url" --empty-db "$PG_URL/$empty" --full "$full_url" \
    --full-db "$PG_URL/$full" --rounds "${SCALE_ROUNDS:-3}" --samples "${SCALE_SAMPLES:-100}"
