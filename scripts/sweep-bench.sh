#!/usr/bin/env bash
# The sweeper's cost (issue 11): 100,000 stored games, 1,000 of them running out of time at
# once, three rounds; prints the time to handle them and the action endpoint's actions/s with
# and without a sweep running, as medians with ranges, and the load average.
#
#   flock /tmp/racko-build.lock scripts/sweep-bench.sh                 # defaults
#   scripts/sweep-bench.sh --games 20000 --overdue 500 --rounds 3      # smaller
#
# Creates a fresh database on the PostgreSQL at PG_URL (default the local one), starts the
# release server there in test mode (the bench moves its clock through the settings table),
# runs examples/sweep_bench, then stops the server and drops the database.
set -euo pipefail
cd "$(dirname "$0")/.."
PG_URL=${PG_URL:-postgres://postgres@127.0.0.1:5432}
db="racko_sweep_bench_$$"
cargo build --release --locked --bin racko --example sweep_bench
psql "$PG_URL/postgres" -qc "CREATE DATABASE $db"
tmp=$(mktemp -d)
cleanup() {
    kill "$server" 2>/dev/null || true
    wait 2>/dev/null || true
    psql "$PG_URL/postgres" -qc "DROP DATABASE IF EXISTS $db" || true
    rm -rf "$tmp"
}
trap cleanup EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
export DATABASE_URL="$PG_URL/$db"
RACKO_BIND=127.0.0.1:$port RACKO_AUTH_PER_MINUTE=0 RACKO_TEST_MODE=1 RUST_LOG=warn \
    target/release/racko serve >"$tmp/server.log" 2>&1 &
server=$!
for _ in $(seq 100); do
    curl -fs "http://127.0.0.1:$port/readyz" >/dev/null && break
    sleep 0.1
done
echo "server: pid $server, $(nproc) CPUs, PostgreSQL database $db"
target/release/examples/sweep_bench --url "http://127.0.0.1:$port" --db "$DATABASE_URL" "$@"
