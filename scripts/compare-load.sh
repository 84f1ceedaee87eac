#!/usr/bin/env bash
# Compare the HTTP throughput (actions/s of examples/load.rs) of two server binaries, A and B,
# on both stores.
#
#   scripts/compare-load.sh /tmp/racko-before /tmp/racko-after        # 5 rounds
#   scripts/compare-load.sh /tmp/racko-before /tmp/racko-after 9      # 9 rounds
#   flock /tmp/racko-build.lock scripts/compare-load.sh A B           # no build during the runs
#
# For each store and each round, A and B both run once, in the order A,B on odd rounds and B,A
# on even ones, so that a slow spell of a noisy machine hurts both alike. Each run: a fresh
# store (SQLite: a new temp file; PostgreSQL: a new database, dropped afterwards), the server on
# a free port with the sign-in limit off, wait for /readyz, the load tool, stop the server.
# At the end, per store: the median actions/s of A and of B (min-max), the median of the
# per-round ratios B/A (min-max), and the load average (/proc/loadavg) before and after.
#
# Environment:
#   RACKO_BENCH_PG_URL  PostgreSQL server to create the databases on
#                       (default: postgres://postgres@127.0.0.1:5432/postgres)
#   BENCH_STORES        stores to measure            (default: "sqlite postgres"); a pair
#                       such as "sqlite:postgres" runs A on the first and B on the second,
#                       to compare the stores (give the same binary as A and B)
#   BENCH_LOAD          the load tool                (default: target/release/examples/load)
#   BENCH_LOAD_A        the load tool for A, when an older A needs the load tool of its own
#                       tree (its API differed)     (default: BENCH_LOAD)
#   BENCH_LOAD_ARGS     its arguments, word-split    (default: --games 16 --actions 200)
#   BENCH_READY_SECS    how long a server may take to become ready (default: 30)
set -euo pipefail

usage() {
    echo "usage: $0 SERVER_A SERVER_B [ROUNDS]" >&2
    exit 2
}
[[ $# -ge 2 && $# -le 3 ]] || usage
A=$1
B=$2
ROUNDS=${3:-5}
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || usage

PG_URL=${RACKO_BENCH_PG_URL:-postgres://postgres@127.0.0.1:5432/postgres}
STORES=${BENCH_STORES:-sqlite postgres}
LOAD=${BENCH_LOAD:-target/release/examples/load}
LOAD_A=${BENCH_LOAD_A:-$LOAD}
read -r -a LOAD_ARGS <<<"${BENCH_LOAD_ARGS:---games 16 --actions 200}"
READY_SECS=${BENCH_READY_SECS:-30}

die() {
    echo "compare-load: $*" >&2
    exit 1
}
for bin in "$A" "$B" "$LOAD" "$LOAD_A"; do
    [[ -x $bin ]] || die "$bin: not an executable file"
done

WORK=$(mktemp -d)
SERVER_PID=""
DB_NAME=""

stop_server() {
    if [[ -n $SERVER_PID ]]; then
        kill "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
        SERVER_PID=""
    fi
}
drop_db() {
    if [[ -n $DB_NAME ]]; then
        psql -q "$PG_URL" -c "DROP DATABASE IF EXISTS $DB_NAME WITH (FORCE)" >/dev/null || true
        DB_NAME=""
    fi
}
cleanup() {
    stop_server
    drop_db
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A TCP port nobody listens on now (the server binds it a moment later), below the
# ephemeral range (32768-60999) where the load tool's own connections could hold it.
free_port() {
    local port
    while :; do
        port=$((20000 + RANDOM % 12000))
        if ! ss -Htln "sport = :$port" | grep -q .; then
            echo "$port"
            return
        fi
    done
}

# The URL of database $1 on the PostgreSQL server of $PG_URL (its path replaced).
pg_url_of() {
    local base=${PG_URL%%\?*} query=""
    [[ $PG_URL == *\?* ]] && query="?${PG_URL#*\?}"
    echo "${base%/*}/$1$query"
}

# run_once SERVER STORE SIDE: one measurement of side A or B; sets RATE to the actions/s. (Not called in a
# subshell, so that the EXIT trap knows the server and database to clean up.)
run_once() {
    local server=$1 store=$2 side=$3 port url log out
    port=$(free_port)
    url="http://127.0.0.1:$port"
    log="$WORK/server.log"
    local database
    if [[ $store == sqlite ]]; then
        database="sqlite://$WORK/racko-$RANDOM.sqlite3"
    else
        DB_NAME="racko_bench_$$_$RANDOM"
        psql -q "$PG_URL" -c "CREATE DATABASE $DB_NAME" >/dev/null
        database=$(pg_url_of "$DB_NAME")
    fi

    DATABASE_URL=$database RACKO_BIND="127.0.0.1:$port" RACKO_AUTH_PER_MINUTE=0 \
        "$server" serve >"$log" 2>&1 &
    SERVER_PID=$!

    local waited=0
    until curl -fs -o /dev/null "$url/readyz"; do
        if ! kill -0 "$SERVER_PID" 2>/dev/null; then
            tail -n 20 "$log" >&2
            die "$server ($store) exited before becoming ready; its log is above"
        fi
        if ((waited >= READY_SECS * 10)); then
            tail -n 20 "$log" >&2
            die "$server ($store) not ready on $url/readyz after ${READY_SECS}s; its log is above"
        fi
        sleep 0.1
        waited=$((waited + 1))
    done

    local load=$LOAD
    [[ $side == A ]] && load=$LOAD_A
    out=$("$load" --url "$url" "${LOAD_ARGS[@]}") || die "load tool failed against $server ($store)"
    RATE=$(grep -oE '[0-9.]+ actions/s' <<<"$out" | grep -oE '^[0-9.]+') ||
        die "no actions/s in the load tool's output: $out"
    echo "  $side: $out"

    stop_server
    if [[ $store == sqlite ]]; then
        rm -f "${database#sqlite://}"*
    else
        drop_db
    fi
    rm -f "$log"
}

# Prints "median (min-max)" of the numbers on stdin, with $1 decimals.
summary() {
    sort -g | awk -v d="$1" '
        { v[NR] = $1 }
        END {
            m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
            printf "%." d "f (%." d "f-%." d "f)", m, v[1], v[NR]
        }'
}

loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

echo "A: $A"
echo "B: $B"
echo "load tool: $LOAD ${LOAD_ARGS[*]}; $ROUNDS rounds, A,B then B,A alternately"
REPORT=""
for store in $STORES; do
    store_a=${store%%:*}
    store_b=${store##*:}
    for one in "$store_a" "$store_b"; do
        [[ $one == sqlite || $one == postgres ]] || die "unknown store $one (sqlite, postgres)"
    done
    load_start=$(loadavg)
    rm -f "$WORK/a" "$WORK/b" "$WORK/ratio"
    for ((round = 1; round <= ROUNDS; round++)); do
        echo "$store, round $round/$ROUNDS"
        if ((round % 2)); then
            run_once "$A" "$store_a" A; a=$RATE
            run_once "$B" "$store_b" B; b=$RATE
        else
            run_once "$B" "$store_b" B; b=$RATE
            run_once "$A" "$store_a" A; a=$RATE
        fi
        echo "$a" >>"$WORK/a"
        echo "$b" >>"$WORK/b"
        awk -v a="$a" -v b="$b" 'BEGIN { print b / a }' >>"$WORK/ratio"
    done
    load_end=$(loadavg)
    REPORT+="$store:
  A   actions/s median $(summary 0 <"$WORK/a")
  B   actions/s median $(summary 0 <"$WORK/b")
  B/A per round median $(summary 3 <"$WORK/ratio")
  load average (1, 5, 15 min) at start $load_start, at end $load_end
"
done
echo
printf '%s' "$REPORT"
