#!/usr/bin/env bash
# Benchmark of push notifications: the p99 time from a `your_turn` commit to its arrival at
# an FCM receiver with 1,000 registered devices, and the action endpoint's throughput with
# pushes against without (interleaved rounds). Prints both figures.
#
#   flock /tmp/racko-build.lock scripts/push-bench.sh            # SQLite
#   DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench scripts/push-bench.sh
#
# Builds the release server and examples/push_bench, starts the bench (its receiver writes a
# service account key file whose token_uri points at it), then `racko serve` on a free port
# pushing to that receiver (SQLite: a temp file unless DATABASE_URL is set), and stops both.
# Extra arguments go to the bench (--devices, --games, --rounds, --actions).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked --bin racko --example push_bench
bin=${CARGO_TARGET_DIR:-target}/release
tmp=$(mktemp -d)
trap 'kill "$server" "$bench" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$tmp"' EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
port=$(free_port)
receiver=$(free_port)
export DATABASE_URL=${DATABASE_URL:-sqlite://$tmp/bench.sqlite3}
"$bin/examples/push_bench" --url "http://127.0.0.1:$port" --receiver "127.0.0.1:$receiver" \
    --account-file "$tmp/account.json" "$@" &
bench=$!
for _ in $(seq 100); do [ -s "$tmp/account.json" ] && break; sleep 0.1; done
RACKO_BIND=127.0.0.1:$port RACKO_AUTH_PER_MINUTE=0 RUST_LOG=warn \
    RACKO_FCM_SERVICE_ACCOUNT_FILE=$tmp/account.json RACKO_FCM_URL=http://127.0.0.1:$receiver \
    "$bin/racko" serve >"$tmp/server.log" 2>&1 &
server=$!
echo "server: pid $server, $(nproc) CPUs, store ${DATABASE_URL%%:*}, load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
wait "$bench"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
