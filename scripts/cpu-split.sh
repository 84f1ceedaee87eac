#!/usr/bin/env bash
# Where the CPU of an action goes (issue 14): CPU seconds per 1,000 actions spent by the
# server, by PostgreSQL (every process of the cluster: backends, WAL writer, checkpointer,
# …) and by the load tool, over the action phase of one load run on PostgreSQL.
#
#   scripts/cpu-split.sh                                   # target/release/racko, 3 runs
#   scripts/cpu-split.sh /tmp/racko-after 5                # another binary, 5 runs
#   flock /tmp/racko-build.lock scripts/cpu-split.sh       # no build during the runs
#
# Build first: cargo build --release --locked --bin racko --example load
#
# Each run: a new database on RACKO_BENCH_PG_URL's server, the server on a free port with the
# sign-in limit off, the load tool's setup (guests, games, joins), then the action phase alone
# (the load tool's --sync handshake; its one probe GET per game comes after), with utime + stime of /proc/PID/stat read before and
# after it for the server, the load tool and every process named `postgres`. So the machine
# should run nothing else, and the PostgreSQL server should serve nothing else meanwhile.
# Prints each run and the medians (min-max), with the load average before and after.
#
# With BENCH_STORE=sqlite the server runs on a new SQLite file instead: its CPU is then all the
# store's, and the PostgreSQL column stays 0. The busy column is the CPUs in use by the three
# over the action phase (CPU seconds / seconds): below the machine's CPUs, something waits.
# The machine's own counters (/proc/stat) over the same span tell what the rest was: idle,
# waiting for the disk, interrupts (the loopback's packets are handled there), or taken by
# the host of this virtual machine.
#
# Environment:
#   BENCH_STORE         postgres (default) or sqlite
#   RACKO_BENCH_PG_URL  the PostgreSQL server (default
#                       postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable: without
#                       TLS, like the cluster of scripts/perf-compare.sh; Debian's cluster
#                       offers TLS, which costs both sides CPU on every statement)
#   BENCH_LOAD          the load tool                (default target/release/examples/load)
#   BENCH_LOAD_ARGS     its arguments, word-split    (default --games 50 --actions 300)
#   BENCH_READY_SECS    how long the server may take to become ready (default 30)
set -euo pipefail

usage() {
    echo "usage: $0 [SERVER] [RUNS]" >&2
    exit 2
}
[[ $# -le 2 ]] || usage
SERVER=${1:-target/release/racko}
RUNS=${2:-3}
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || usage

PG_URL=${RACKO_BENCH_PG_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
LOAD=${BENCH_LOAD:-target/release/examples/load}
read -r -a LOAD_ARGS <<<"${BENCH_LOAD_ARGS:---games 50 --actions 300}"
READY_SECS=${BENCH_READY_SECS:-30}
STORE=${BENCH_STORE:-postgres}
TICKS=$(getconf CLK_TCK)

die() {
    echo "cpu-split: $*" >&2
    exit 1
}
[[ $STORE == postgres || $STORE == sqlite ]] || die "BENCH_STORE is postgres or sqlite"
for tool in "$SERVER" "$LOAD"; do
    [[ -x $tool ]] || die "$tool is not built (cargo build --release --locked --bin racko --example load)"
done
command -v psql >/dev/null || die "psql is needed"

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

free_port() {
    local port
    for _ in $(seq 50); do
        port=$((20000 + RANDOM % 12000))
        if ! ss -ltn "sport = :$port" | grep -q LISTEN; then
            echo "$port"
            return
        fi
    done
    die "no free port"
}

# The URL of database $1 on the server of $PG_URL.
pg_url_of() {
    local base=${PG_URL%%\?*} query=""
    [[ $PG_URL == *\?* ]] && query="?${PG_URL#*\?}"
    echo "${base%/*}/$1$query"
}

# CPU ticks (utime + stime) of process $1, 0 when it is gone.
ticks_of() {
    awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat" 2>/dev/null || echo 0
}

# CPU ticks of every process named postgres: "pid ticks" per line.
postgres_ticks() {
    local stat
    for stat in /proc/[0-9]*/stat; do
        awk '/^[0-9]+ \(postgres\) / { sub(/^[0-9]+ \(postgres\) /, ""); print FILENAME, $12 + $13 }' \
            "$stat" 2>/dev/null || true
    done | sed -E 's#^/proc/([0-9]+)/stat#\1#'
}

# Ticks spent by postgres processes between snapshots $1 and $2 (files of postgres_ticks):
# processes in both count their difference, those new in $2 all of theirs.
postgres_spent() {
    awk 'NR == FNR { before[$1] = $2; next } { total += $2 - ($1 in before ? before[$1] : 0) }
         END { print total + 0 }' "$1" "$2"
}

# The whole machine's CPU ticks so far, from /proc/stat: busy (user, nice, system), idle,
# waiting for the disk, in interrupts (hard and soft), and stolen by the host.
machine_ticks() {
    awk '/^cpu / { print $2 + $3 + $4, $5, $6, $7 + $8, $9 }' /proc/stat
}

wait_for() {
    local file=$1 waited=0
    until [[ -e $file ]]; do
        kill -0 "$LOAD_PID" 2>/dev/null || die "the load tool exited early: $(cat "$WORK/load.out")"
        ((waited < 6000)) || die "timed out waiting for $file"
        sleep 0.01
        waited=$((waited + 1))
    done
}

run_once() {
    local port url sync="$WORK/sync"
    port=$(free_port)
    url="http://127.0.0.1:$port"
    local database
    if [[ $STORE == sqlite ]]; then
        database="sqlite://$WORK/racko-$RANDOM.sqlite3"
    else
        DB_NAME="racko_cpu_$$_$RANDOM"
        psql -q "$PG_URL" -c "CREATE DATABASE $DB_NAME" >/dev/null
        database=$(pg_url_of "$DB_NAME")
    fi
    DATABASE_URL=$database RACKO_BIND="127.0.0.1:$port" RACKO_AUTH_PER_MINUTE=0 \
        "$SERVER" serve >"$WORK/server.log" 2>&1 &
    SERVER_PID=$!
    local waited=0
    until curl -fs -o /dev/null "$url/readyz"; do
        kill -0 "$SERVER_PID" 2>/dev/null || die "the server exited: $(tail -n 20 "$WORK/server.log")"
        ((waited < READY_SECS * 10)) || die "the server was not ready after ${READY_SECS}s"
        sleep 0.1
        waited=$((waited + 1))
    done

    rm -rf "$sync" && mkdir "$sync"
    # One probe GET per game, so that the tool waits after the actions for the last reading.
    "$LOAD" --url "$url" --sync "$sync" --probe-gets 1 "${LOAD_ARGS[@]}" >"$WORK/load.out" 2>&1 &
    LOAD_PID=$!
    wait_for "$sync/setup-done"
    local s0 l0 s1 l1 t0 t1 m0 m1
    postgres_ticks >"$WORK/pg0"
    m0=$(machine_ticks)
    s0=$(ticks_of "$SERVER_PID")
    l0=$(ticks_of "$LOAD_PID")
    t0=$(date +%s.%N)
    touch "$sync/start-actions"
    wait_for "$sync/actions-done"
    t1=$(date +%s.%N)
    m1=$(machine_ticks)
    s1=$(ticks_of "$SERVER_PID")
    l1=$(ticks_of "$LOAD_PID")
    postgres_ticks >"$WORK/pg1"
    touch "$sync/start-probe"
    wait "$LOAD_PID" || die "the load tool failed: $(cat "$WORK/load.out")"
    LOAD_PID=""

    local actions rate
    actions=$(grep -oE '^[0-9]+ actions' "$WORK/load.out" | grep -oE '^[0-9]+') ||
        die "no action count in: $(cat "$WORK/load.out")"
    rate=$(grep -oE '[0-9.]+ actions/s' "$WORK/load.out" | grep -oE '^[0-9.]+')
    # CPU seconds per 1,000 actions.
    awk -v s=$((s1 - s0)) -v l=$((l1 - l0)) -v p="$(postgres_spent "$WORK/pg0" "$WORK/pg1")" \
        -v n="$actions" -v t="$TICKS" -v r="$rate" -v w="$t0 $t1" -v m="$m0 $m1" \
        'BEGIN { k = 1000 / n / t; split(w, e, " "); wall = e[2] - e[1]; busy = (s + p + l) / t / wall
                 split(m, c, " "); for (i = 1; i <= 5; i++) spent[i] = (c[i + 5] - c[i]) / t / wall
                 printf "%.3f %.3f %.3f %.3f %s %.2f %.2f %.2f %.2f %.2f %.2f\n", s * k, p * k, l * k, (s + p + l) * k, r, busy,
                     spent[1], spent[2], spent[3], spent[4], spent[5] }' \
        >>"$WORK/runs"
    tail -n 1 "$WORK/runs" | awk '{ printf "  server %s s, PostgreSQL %s s, load tool %s s, all %s s per 1,000 actions; %s actions/s; %s CPUs busy; the machine: %s CPUs busy, %s idle, %s waiting for the disk, %s in interrupts, %s stolen\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11 }'

    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=""
    if [[ -n $DB_NAME ]]; then
        psql -q "$PG_URL" -c "DROP DATABASE IF EXISTS $DB_NAME WITH (FORCE)" >/dev/null
        DB_NAME=""
    fi
    if [[ $STORE == sqlite ]]; then
        rm -f "${database#sqlite://}"*
    fi
}

# "median (min-max)" of column $1 of the runs.
summary() {
    awk -v c="$1" '{ print $c }' "$WORK/runs" | sort -g | awk '
        { v[NR] = $1 }
        END {
            m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
            printf "%.3f (%.3f-%.3f)", m, v[1], v[NR]
        }'
}

loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

where=$PG_URL
[[ $STORE == sqlite ]] && where=SQLite
echo "server: $SERVER; load tool: $LOAD ${LOAD_ARGS[*]}; $RUNS runs on $where"
load_start=$(loadavg)
for ((run = 1; run <= RUNS; run++)); do
    echo "run $run/$RUNS"
    run_once
done
echo
echo "CPU seconds per 1,000 actions, median (min-max) of $RUNS runs:"
echo "  server      $(summary 1)"
echo "  PostgreSQL  $(summary 2)"
echo "  load tool   $(summary 3)"
echo "  all         $(summary 4)"
echo "  actions/s   $(summary 5)"
echo "  CPUs busy   $(summary 6)"
echo "  the machine's CPUs over the same spans:"
echo "    busy               $(summary 7)"
echo "    idle               $(summary 8)"
echo "    waiting for disk   $(summary 9)"
echo "    in interrupts      $(summary 10)"
echo "    stolen by the host $(summary 11)"
echo "load average (1, 5, 15 min) at start $load_start, at end $(loadavg)"
