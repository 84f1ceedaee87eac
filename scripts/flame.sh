#!/usr/bin/env bash
# Where the server's CPU goes during the action phase of a load run: a flame graph (SVG) and
# the functions with the most samples of their own, from `perf record` of the server process.
#
#   scripts/flame.sh                              # SQLite, target/release/racko, docs/flame-sqlite.svg
#   scripts/flame.sh postgres /tmp/flame-pg.svg   # PostgreSQL (RACKO_BENCH_PG_URL's server)
#   flock /tmp/racko-build.lock scripts/flame.sh  # no build during the run
#
# Build first: cargo build --release --locked --bin racko --example load. The release binary
# has no debug info: perf unwinds through its frame tables (`--call-graph dwarf`), so
# inlined functions are counted in their callers. The flame graph is drawn by inferno,
# installed under target/tools on first use (cargo install, from crates.io).
#
# Environment:
#   RACKO_BENCH_PG_URL  the PostgreSQL server     (default postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable)
#   BENCH_SERVER        the server binary          (default target/release/racko)
#   BENCH_LOAD          the load tool              (default target/release/examples/load)
#   BENCH_LOAD_ARGS     its arguments, word-split  (default --games 50 --actions 300)
#   BENCH_PERF_HZ       samples per second         (default 999)
#   BENCH_FOLDED        also keep the folded stacks there (inferno-collapse-perf's output)
#   BENCH_PROFILE       server (default), or database: every process named `postgres` on
#                       this machine instead (PostgreSQL's backends, WAL writer, …), whose
#                       frame tables perf unwinds the same way (postgres store only)
set -euo pipefail

STORE=${1:-sqlite}
OUT=${2:-docs/flame-$STORE.svg}
[[ $STORE == sqlite || $STORE == postgres ]] || {
    echo "usage: $0 [sqlite|postgres] [OUT.svg]" >&2
    exit 2
}
PG_URL=${RACKO_BENCH_PG_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
SERVER=${BENCH_SERVER:-target/release/racko}
LOAD=${BENCH_LOAD:-target/release/examples/load}
read -r -a LOAD_ARGS <<<"${BENCH_LOAD_ARGS:---games 50 --actions 300}"
HZ=${BENCH_PERF_HZ:-999}
PROFILE=${BENCH_PROFILE:-server}
[[ $PROFILE == server || ($PROFILE == database && $STORE == postgres) ]] || {
    echo "flame: BENCH_PROFILE is server, or database with the postgres store" >&2
    exit 2
}
TOOLS=target/tools

die() {
    echo "flame: $*" >&2
    exit 1
}
for tool in "$SERVER" "$LOAD"; do
    [[ -x $tool ]] || die "$tool is not built (cargo build --release --locked --bin racko --example load)"
done
command -v perf >/dev/null || die "perf is needed (Debian: linux-perf)"
if [[ ! -x $TOOLS/bin/inferno-flamegraph ]]; then
    cargo install --locked --quiet inferno --version 0.12.8 --root "$TOOLS" || die "cannot install inferno"
fi

WORK=$(mktemp -d)
SERVER_PID=""
LOAD_PID=""
DB_NAME=""
cleanup() {
    [[ -n $LOAD_PID ]] && kill "$LOAD_PID" 2>/dev/null || true
    [[ -n $SERVER_PID ]] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null || true
    [[ -n $DB_NAME ]] && psql -q "$PG_URL" -c "DROP DATABASE IF EXISTS $DB_NAME WITH (FORCE)" >/dev/null 2>&1 || true
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

port=$((20000 + RANDOM % 12000))
url="http://127.0.0.1:$port"
if [[ $STORE == sqlite ]]; then
    database="sqlite://$WORK/racko.sqlite3"
else
    DB_NAME="racko_flame_$$_$RANDOM"
    psql -q "$PG_URL" -c "CREATE DATABASE $DB_NAME" >/dev/null
    base=${PG_URL%%\?*} query=""
    [[ $PG_URL == *\?* ]] && query="?${PG_URL#*\?}"
    database="${base%/*}/$DB_NAME$query"
fi
DATABASE_URL=$database RACKO_BIND="127.0.0.1:$port" RACKO_AUTH_PER_MINUTE=0 \
    "$SERVER" serve >"$WORK/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 300); do
    curl -fs -o /dev/null "$url/readyz" && break
    kill -0 "$SERVER_PID" 2>/dev/null || die "the server exited: $(tail -n 20 "$WORK/server.log")"
    sleep 0.1
done

sync_dir="$WORK/sync"
mkdir "$sync_dir"
"$LOAD" --url "$url" --sync "$sync_dir" --probe-gets 1 "${LOAD_ARGS[@]}" >"$WORK/load.out" 2>&1 &
LOAD_PID=$!
until [[ -e $sync_dir/setup-done ]]; do
    kill -0 "$LOAD_PID" 2>/dev/null || die "the load tool exited early: $(cat "$WORK/load.out")"
    sleep 0.01
done
if [[ $PROFILE == database ]]; then
    profiled=$(pgrep -d, -x postgres) || die "no process named postgres"
else
    profiled=$SERVER_PID
fi
perf record -q -F "$HZ" --call-graph dwarf,32768 -p "$profiled" -o "$WORK/perf.data" 2>"$WORK/perf.log" &
PERF_PID=$!
sleep 0.5
touch "$sync_dir/start-actions"
until [[ -e $sync_dir/actions-done ]]; do
    kill -0 "$LOAD_PID" 2>/dev/null || die "the load tool exited early: $(cat "$WORK/load.out")"
    sleep 0.01
done
kill -INT "$PERF_PID"
wait "$PERF_PID" || true
touch "$sync_dir/start-probe"
wait "$LOAD_PID" || die "the load tool failed: $(cat "$WORK/load.out")"
LOAD_PID=""
grep -E 'actions/s' "$WORK/load.out" || true

perf script -i "$WORK/perf.data" 2>/dev/null | "$TOOLS/bin/inferno-collapse-perf" >"$WORK/folded"
"$TOOLS/bin/inferno-flamegraph" --minwidth 1 --title "$PROFILE ($STORE): ${LOAD_ARGS[*]}" \
    <"$WORK/folded" >"$OUT"
echo "flame graph: $OUT"
[[ -n ${BENCH_FOLDED:-} ]] && cp "$WORK/folded" "$BENCH_FOLDED"
echo "functions with the most samples of their own (percent of the $PROFILE's samples):"
perf report -i "$WORK/perf.data" --no-children --sort symbol --stdio 2>/dev/null |
    grep -E '^ +[0-9.]+%' | sed -E 's/[[:space:]-]+$//' | head -n 25
