#!/usr/bin/env bash
# Benchmarks of turn notifications (issue 10): stream latency p50/p99 at 50 games, server RSS
# per idle stream with 5,000 streams, action throughput with 1,000 streams open vs none.
#
#   flock /tmp/racko-build.lock scripts/notify-bench.sh            # SQLite
#   DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench scripts/notify-bench.sh
#
# Builds the release server and examples/notify_bench, raises the open-file limit (5,000
# streams need 5,000 sockets on each side), starts `racko serve` on a free port (SQLite: a
# temp file unless DATABASE_URL is set), runs the bench with the server's pid, stops it.
# Extra arguments go to the bench (--games, --idle, --watchers, --rounds, --actions).
set -euo pipefail
cd "$(dirname "$0")/.."
ulimit -n 20000 2>/dev/null || ulimit -n "$(ulimit -Hn)"
cargo build --release --locked --bin racko --example notify_bench
tmp=$(mktemp -d)
trap 'kill "$server" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$tmp"' EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
export DATABASE_URL=${DATABASE_URL:-sqlite://$tmp/bench.sqlite3}
# The idle streams are one account's, from one address: lift the per-account and per-address
# stream limits (16 and 64 by default) above --idle.
RACKO_BIND=127.0.0.1:$port RACKO_AUTH_PER_MINUTE=0 RUST_LOG=warn \
    RACKO_STREAMS_PER_ACCOUNT=10000 RACKO_STREAMS_PER_ADDRESS=10000 \
    target/release/racko serve >"$tmp/server.log" 2>&1 &
server=$!
for _ in $(seq 100); do
    curl -fs "http://127.0.0.1:$port/readyz" >/dev/null && break
    sleep 0.1
done
echo "server: pid $server, $(nproc) CPUs, store ${DATABASE_URL%%:*}, ulimit -n $(ulimit -n)"
target/release/examples/notify_bench --url "http://127.0.0.1:$port" --pid "$server" "$@"
