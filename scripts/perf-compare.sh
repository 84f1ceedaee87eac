#!/usr/bin/env bash
# Issue 14's comparison harness: our server's HTTP actions/s on PostgreSQL against pgbench
# scripts of the same write on the same cluster, with the database's cost of each action.
#
#   scripts/perf-compare.sh                                   # target/release/racko, 3 rounds
#   scripts/perf-compare.sh /tmp/racko-after 5                # another binary, 5 rounds
#   flock /tmp/racko-build.lock scripts/perf-compare.sh       # no build during the runs
#
# Build first: cargo build --release --locked --bin racko --example load
#
# Starts a PostgreSQL 15 cluster of its own (initdb in a temp dir, fsync and synchronous_commit
# on as shipped, pg_stat_statements with track=all and track_utility, the unix socket in the
# temp dir, TCP on a free port of 127.0.0.1), and stops and deletes it on exit, failure or
# Ctrl-C included. Needs the PostgreSQL 15 server binaries (Debian's postgresql-15 package:
# initdb, pg_ctl, psql, pgbench in /usr/lib/postgresql/15/bin), curl and ss; nothing the
# repository installs. PostgreSQL refuses to run as root: as root, the cluster is run as the
# user `postgres` (runuser), which owns the temp dir.
#
# Each round, in this order:
# - HTTP, for each "GAMES:ACTIONS" of BENCH_RUNS: a fresh database, the server on it (a free
#   port, RACKO_AUTH_PER_MINUTE=0, wait for /readyz), and examples/load.rs with GAMES games of
#   ACTIONS actions each (a target no game reaches, so all GAMES play to the end). The load
#   tool sends actions chosen from the legal actions in its previous answer, and a GET only
#   when the move passes to the other seat (that player's app reading the game). Only the
#   action phase is measured (the load tool's --sync handshake): after the setup a CHECKPOINT,
#   pg_stat_statements_reset() and the WAL position; after the actions the counts. Then a GET
#   probe (about 1,000 GETs) measures what one GET costs, so that the statements of the GETs
#   the action phase made can be taken off ("stmts/act" is net of them; the raw figure and the
#   GETs per action are printed below the table). The database is dropped afterwards.
# - pgbench (-n -M prepared, TCP like the server, --log for percentiles), with as many clients
#   as the HTTP runs have games, each client on its own game, for the three write shapes of
#   one action in scripts/pgbench/ (old.sql: today's statements; minimal.sql: BEGIN, UPDATE,
#   one 2-row INSERT, COMMIT; one-statement.sql: the same in one CTE), on rows made once by
#   scripts/pgbench/setup.sql in a database migrated by `racko migrate`. The game state and the
#   event payload written are the median-sized ones of the first HTTP run (~3 KB, ~150 B).
#   A VACUUM of that database, a CHECKPOINT and pg_stat_statements_reset() before each run
#   (and before each HTTP window), the counts after.
#
# Per run: actions/s; latency p50/p99 (the POSTs; pgbench: each transaction); per action the
# top-level statements (= round trips, no pipelining here; for pgbench the commands of its
# script, see pgbench_run, as PostgreSQL 15 counts a prepared BEGIN or COMMIT only once per
# connection; the statements of every window are kept in the temp dir, see BENCH_KEEP),
# the nested ones (foreign-key
# checks, statements inside functions), the transactions that wrote (xids assigned; read-only
# ones do not count: pg_stat_database's xact_commit is flushed up to 10 s late, too late for a
# 10 s window) and the WAL bytes (pg_wal_lsn_diff of the whole cluster, full-page images after
# the checkpoint included). Server background work (sweeper, webhook poller) during the
# window counts too, as it would in production.
# At the end one table of medians over the rounds (actions/s with min-max), the per-round
# ratios HTTP actions/s / pgbench tx/s for each shape and concurrency (issue 14's target:
# HTTP / one-statement >= 0.6 at 50 games), and the load average before and after.
#
# Arguments: SERVER (default target/release/racko), ROUNDS (default 3).
# Environment:
#   BENCH_RUNS          HTTP runs per round, "GAMES:ACTIONS_PER_GAME" (default "50:150 1:3000")
#   BENCH_PGBENCH_SECS  length of each pgbench run (default 10)
#   BENCH_LOAD          the load tool (default target/release/examples/load)
#   BENCH_PG_BIN        PostgreSQL binaries (default /usr/lib/postgresql/15/bin)
#   BENCH_READY_SECS    how long the server may take to become ready (default 30)
#   BENCH_KEEP          1: keep the temp dir (cluster stopped, logs kept) for a look afterwards
#   BENCH_WALDUMP       1: print where each HTTP action window's WAL went (pg_waldump --stats,
#                       by resource manager, records and full-page images per action)
#   BENCH_KEYS          on: the load tool sends each action with an Idempotency-Key of its own
#                       (--keys on), so the server also stores each answer (default off)
set -euo pipefail

usage() {
    echo "usage: $0 [SERVER] [ROUNDS]" >&2
    exit 2
}
[[ $# -le 2 ]] || usage
SERVER=${1:-target/release/racko}
ROUNDS=${2:-3}
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || usage

read -r -a RUNS <<<"${BENCH_RUNS:-50:150 1:3000}"
PGBENCH_SECS=${BENCH_PGBENCH_SECS:-10}
LOAD=${BENCH_LOAD:-target/release/examples/load}
PG_BIN=${BENCH_PG_BIN:-/usr/lib/postgresql/15/bin}
KEYS=${BENCH_KEYS:-off}
READY_SECS=${BENCH_READY_SECS:-30}
SHAPES=(old minimal one-statement)
SQL_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/pgbench

die() {
    echo "perf-compare: $*" >&2
    exit 1
}
for bin in "$SERVER" "$LOAD" "$PG_BIN/initdb" "$PG_BIN/pg_ctl" "$PG_BIN/psql" "$PG_BIN/pgbench"; do
    [[ -x $bin ]] || die "$bin: not an executable file"
done
[[ $KEYS == on || $KEYS == off ]] || die "BENCH_KEYS: on or off"
for run in "${RUNS[@]}"; do
    [[ $run =~ ^[1-9][0-9]*:[1-9][0-9]*$ ]] || die "BENCH_RUNS: $run is not GAMES:ACTIONS"
done
[[ $PGBENCH_SECS =~ ^[1-9][0-9]*$ ]] || die "BENCH_PGBENCH_SECS: a number of seconds"
SERVER=$(realpath "$SERVER")
LOAD=$(realpath "$LOAD")

WORK=$(mktemp -d)
PGDATA_DIR="$WORK/data"
SERVER_PID=""
LOAD_PID=""
CLUSTER_UP=""

# As root, the cluster's commands run as postgres (initdb and postgres refuse root).
as_pg() {
    if ((EUID == 0)); then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

stop_process() {
    local pid=$1
    if [[ -n $pid ]]; then
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    fi
}
cleanup() {
    stop_process "$LOAD_PID"
    LOAD_PID=""
    stop_process "$SERVER_PID"
    SERVER_PID=""
    if [[ -n $CLUSTER_UP ]]; then
        as_pg "$PG_BIN/pg_ctl" -D "$PGDATA_DIR" -m immediate -w stop >/dev/null 2>&1 || true
        CLUSTER_UP=""
    fi
    if [[ ${BENCH_KEEP:-0} == 1 ]]; then
        echo "perf-compare: kept $WORK" >&2
    else
        rm -rf "$WORK"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A TCP port nobody listens on now.
free_port() {
    local port
    while :; do
        port=$((20000 + RANDOM % 40000))
        if ! ss -Htln "sport = :$port" | grep -q .; then
            echo "$port"
            return
        fi
    done
}

loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

# --- the cluster ---------------------------------------------------------------------------

PG_PORT=$(free_port)
if ((EUID == 0)); then
    chown postgres: "$WORK"
fi
as_pg "$PG_BIN/initdb" -D "$PGDATA_DIR" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 \
    >"$WORK/initdb.log" 2>&1 || { cat "$WORK/initdb.log" >&2; die "initdb failed"; }
cat >>"$PGDATA_DIR/postgresql.conf" <<EOF
# perf-compare.sh
listen_addresses = '127.0.0.1'
port = $PG_PORT
unix_socket_directories = '$WORK'
fsync = on
synchronous_commit = on
full_page_writes = on
shared_preload_libraries = 'pg_stat_statements'
pg_stat_statements.track = all
pg_stat_statements.track_utility = on
pg_stat_statements.track_planning = on
# No checkpoint inside a measured window: the script takes one before each.
max_wal_size = 8GB
checkpoint_timeout = 30min
EOF
as_pg "$PG_BIN/pg_ctl" -D "$PGDATA_DIR" -l "$WORK/postgres.log" -w -t 60 start >/dev/null ||
    { tail -n 20 "$WORK/postgres.log" >&2; die "the cluster did not start"; }
CLUSTER_UP=1

# psql on database $DB (default postgres), through the socket; -At output.
DB=postgres
q() { "$PG_BIN/psql" -X -q -At -v ON_ERROR_STOP=1 -h "$WORK" -p "$PG_PORT" -U postgres -d "$DB" "$@"; }
q -c "CREATE EXTENSION pg_stat_statements"
pg_url() { echo "postgres://postgres@127.0.0.1:$PG_PORT/$1"; }

# --- measuring a window ----------------------------------------------------------------------

# Starts a window: a checkpoint, the statement counts reset, the WAL position and next xid.
# First the pgbench database (once made) is vacuumed, so that autovacuum does not clean up
# after an earlier run inside this window (the WAL counted is the whole cluster's).
PGB_DB=pgbench_shapes
PGB_MADE=""
window_start() {
    if [[ -n $PGB_MADE ]]; then
        DB=$PGB_DB q -c "VACUUM ANALYZE"
    fi
    DB=postgres q -c "CHECKPOINT" -c "SELECT pg_stat_statements_reset()" >/dev/null
    WINDOW=$(DB=postgres q -F' ' \
        -c "SELECT pg_current_wal_lsn(), pg_snapshot_xmax(pg_current_snapshot())")
}
# Ends it for database $1: prints "WAL_BYTES XACTS TOPLEVEL NESTED" since window_start, and
# keeps the statements counted in $WORK/statements/$2.txt (calls, total and mean execution
# time in ms, plans and planning time in ms, top-level or not, query).
window_end() {
    local lsn xid
    read -r lsn xid <<<"$WINDOW"
    DB=postgres q -F' | ' -c "
        SELECT calls, round(total_exec_time::numeric, 1) AS total_ms,
               round((total_exec_time / calls)::numeric, 3) AS mean_ms,
               plans, round(total_plan_time::numeric, 1) AS plan_ms,
               CASE WHEN toplevel THEN 'top' ELSE 'nested' END,
               regexp_replace(query, '\s+', ' ', 'g')
        FROM pg_stat_statements
        WHERE dbid = (SELECT oid FROM pg_database WHERE datname = '$1')
        ORDER BY calls DESC, query" >"$WORK/statements/$2.txt"
    DB=postgres q -F' ' -c "
        SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '$lsn')::bigint,
               pg_snapshot_xmax(pg_current_snapshot())::text::bigint - $xid,
               coalesce(sum(calls) FILTER (WHERE toplevel), 0),
               coalesce(sum(calls) FILTER (WHERE NOT toplevel), 0)
        FROM pg_stat_statements
        WHERE dbid = (SELECT oid FROM pg_database WHERE datname = '$1')"
}

# Prints the WAL of the window just ended by kind (pg_waldump --stats=record), kept in
# $WORK/statements/waldump-$1.txt. The window began with a checkpoint, so its segments are kept.
waldump() {
    local lsn end
    read -r lsn _ <<<"$WINDOW"
    end=$(DB=postgres q -c "SELECT pg_current_wal_lsn()")
    "$PG_BIN/pg_waldump" -p "$PGDATA_DIR/pg_wal" -s "$lsn" -e "$end" --stats=record \
        >"$WORK/statements/waldump-$1.txt" 2>&1 || true
    sed 's/^/    wal: /' "$WORK/statements/waldump-$1.txt" >&2
}

# Appends value $3 to the series $1 of run $2 (e.g. rate http-50).
record() { echo "$3" >>"$WORK/res/$2.$1"; }
mkdir "$WORK/res" "$WORK/statements"

# per N D: N / D with 2 decimals (D > 0).
per() { awk -v n="$1" -v d="$2" 'BEGIN { printf "%.2f", (d > 0 ? n / d : 0) }'; }

# --- HTTP --------------------------------------------------------------------------------------

wait_for_file() {
    local file=$1 what=$2
    until [[ -e $file ]]; do
        kill -0 "$LOAD_PID" 2>/dev/null || { cat "$WORK/load.out" >&2; die "the load tool exited during $what"; }
        sleep 0.05
    done
}

STATE=""
PAYLOAD=""

# http_run GAMES ACTIONS ROUND
http_run() {
    local games=$1 actions=$2 round=$3 db port url probe sync waited=0
    db="http_${round}_$games"
    DB=postgres q -c "CREATE DATABASE $db"
    port=$(free_port)
    url="http://127.0.0.1:$port"
    DATABASE_URL=$(pg_url "$db") RACKO_BIND="127.0.0.1:$port" RACKO_AUTH_PER_MINUTE=0 \
        "$SERVER" serve >"$WORK/server.log" 2>&1 &
    SERVER_PID=$!
    until curl -fs -o /dev/null "$url/readyz"; do
        if ! kill -0 "$SERVER_PID" 2>/dev/null; then
            tail -n 20 "$WORK/server.log" >&2
            die "the server exited before becoming ready; its log is above"
        fi
        if ((waited >= READY_SECS * 10)); then
            tail -n 20 "$WORK/server.log" >&2
            die "server not ready on $url/readyz after ${READY_SECS}s; its log is above"
        fi
        sleep 0.1
        waited=$((waited + 1))
    done

    sync="$WORK/sync"
    rm -rf "$sync"
    mkdir "$sync"
    probe=$(((1000 + games - 1) / games))
    "$LOAD" --url "$url" --games "$games" --actions "$actions" --target 1000000 \
        --sync "$sync" --probe-gets "$probe" --keys "$KEYS" >"$WORK/load.out" 2>&1 &
    LOAD_PID=$!
    wait_for_file "$sync/setup-done" "setup"
    window_start
    touch "$sync/start-actions"
    wait_for_file "$sync/actions-done" "the actions"
    local act
    act=$(window_end "$db" "round$round-http-$games-actions")
    [[ ${BENCH_WALDUMP:-0} == 1 ]] && waldump "$round-http-$games"
    window_start
    touch "$sync/start-probe"
    wait "$LOAD_PID" || { cat "$WORK/load.out" >&2; die "the load tool failed"; }
    LOAD_PID=""
    local prb
    prb=$(window_end "$db" "round$round-http-$games-gets")

    # The game state and event payload for pgbench: the median-sized ones of the first run.
    if [[ -z $STATE ]]; then
        STATE=$(DB=$db q -c "SELECT state FROM games ORDER BY length(state)
                              OFFSET (SELECT count(*) / 2 FROM games) LIMIT 1")
        PAYLOAD=$(DB=$db q -c "SELECT payload FROM game_events ORDER BY length(payload)
                                OFFSET (SELECT count(*) / 2 FROM game_events) LIMIT 1")
    fi
    stop_process "$SERVER_PID"
    SERVER_PID=""
    DB=postgres q -c "DROP DATABASE $db WITH (FORCE)"

    local line n rate p50 p99 gets probe_line probe_n
    line=$(grep -E 'actions/s' "$WORK/load.out") || die "no actions/s in: $(cat "$WORK/load.out")"
    read -r n rate p50 p99 gets < <(sed -E \
        's/^([0-9]+) actions .*: ([0-9.]+) actions\/s \(POST latency p50 ([0-9.]+) ms, p99 ([0-9.]+) ms; ([0-9]+) GETs.*/\1 \2 \3 \4 \5/' \
        <<<"$line")
    probe_line=$(grep -E '^probe: ' "$WORK/load.out") || die "no probe line in: $(cat "$WORK/load.out")"
    probe_n=$(sed -E 's/^probe: ([0-9]+) GETs.*/\1/' <<<"$probe_line")

    local wal xacts top nested pwal pxacts ptop pnested
    read -r wal xacts top nested <<<"$act"
    read -r pwal pxacts ptop pnested <<<"$prb"
    local key="http-$games" top_net nested_net
    # What the action phase's GETs cost, at the probe's rate per GET, taken off.
    top_net=$(awk -v t="$top" -v g="$gets" -v pt="$ptop" -v pn="$probe_n" -v n="$n" \
        'BEGIN { printf "%.2f", (t - g * pt / pn) / n }')
    nested_net=$(awk -v t="$nested" -v g="$gets" -v pt="$pnested" -v pn="$probe_n" -v n="$n" \
        'BEGIN { printf "%.2f", (t - g * pt / pn) / n }')
    record rate "$key" "$rate"
    record p50 "$key" "$p50"
    record p99 "$key" "$p99"
    record top "$key" "$top_net"
    record nested "$key" "$nested_net"
    record xacts "$key" "$(per "$xacts" "$n")"
    record wal "$key" "$(per "$wal" "$n")"
    record top_raw "$key" "$(per "$top" "$n")"
    record gets "$key" "$(per "$gets" "$n")"
    record get_top "$key" "$(per "$ptop" "$probe_n")"
    record get_wal "$key" "$(per "$pwal" "$probe_n")"
    echo "  HTTP, $games games: $line"
    # A game long enough to pass 2,000 events: its action cost then against at the start.
    grep -E '^cost over a game' "$WORK/load.out" | sed 's/^/    /' || true
    echo "    action phase: $top top-level + $nested nested statements, $xacts writing" \
        "transactions, $wal WAL bytes; GET probe: $probe_n GETs, $ptop top-level + $pnested" \
        "nested statements, $pxacts writing transactions, $pwal WAL bytes"
}

# --- pgbench -----------------------------------------------------------------------------------

pgbench_setup() {
    local clients=0 run
    for run in "${RUNS[@]}"; do
        if ((${run%%:*} > clients)); then
            clients=${run%%:*}
        fi
    done
    DB=postgres q -c "CREATE DATABASE $PGB_DB"
    DATABASE_URL=$(pg_url "$PGB_DB") "$SERVER" migrate >"$WORK/migrate.log" 2>&1 ||
        { cat "$WORK/migrate.log" >&2; die "racko migrate failed"; }
    DB=$PGB_DB q -v games="$clients" -v state="$STATE" -f "$SQL_DIR/setup.sql" >/dev/null
    PGB_MADE=1
    echo "pgbench rows: $clients games; game state ${#STATE} bytes, event payload ${#PAYLOAD} bytes"
}

# pgbench_run SHAPE CLIENTS
pgbench_run() {
    local shape=$1 clients=$2 threads=$(($2 < 2 ? $2 : 2)) out="$WORK/pgbench.out"
    DB=$PGB_DB q -c "UPDATE games SET version = 0" >/dev/null
    rm -rf "$WORK/pgblog"
    mkdir "$WORK/pgblog"
    window_start
    "$PG_BIN/pgbench" -n -M prepared -r -h 127.0.0.1 -p "$PG_PORT" -U postgres \
        -c "$clients" -j "$threads" -T "$PGBENCH_SECS" -f "$SQL_DIR/$shape.sql" \
        -D "state=$STATE" -D "payload=$PAYLOAD" -D v=0 \
        --log --log-prefix="$WORK/pgblog/log" "$PGB_DB" >"$out" 2>&1 ||
        { cat "$out" >&2; die "pgbench $shape failed"; }
    local stats
    stats=$(window_end "$PGB_DB" "round$ROUND-$shape-$clients")
    local n tps failed
    n=$(sed -nE 's/^number of transactions actually processed: ([0-9]+).*/\1/p' "$out")
    tps=$(sed -nE 's/^tps = ([0-9.]+) .*/\1/p' "$out")
    failed=$(sed -nE 's/^number of failed transactions: ([0-9]+).*/\1/p' "$out")
    [[ -n $n && -n $tps ]] || { cat "$out" >&2; die "no tps from pgbench $shape"; }
    [[ ${failed:-0} == 0 ]] || { cat "$out" >&2; die "pgbench $shape: failed transactions"; }
    local p50 p99
    read -r p50 p99 < <(cat "$WORK"/pgblog/log* | awk '{ print $3 }' | sort -n | awk '
        { v[NR] = $1 }
        END { printf "%.1f %.1f\n", v[int((NR - 1) * 0.5) + 1] / 1000, v[int((NR - 1) * 0.99) + 1] / 1000 }')
    local wal xacts top nested key="$shape-$clients" commands
    read -r wal xacts top nested <<<"$stats"
    # Top-level statements: the SQL commands of the script (pgbench -r lists each), as every
    # transaction runs them all. pg_stat_statements of PostgreSQL 15 counts a prepared utility
    # statement (BEGIN, COMMIT) once per connection, so its own figure ($top) is short of them.
    commands=$(sed -n '/^statement latencies/,$p' "$out" | tail -n +2 |
        awk '$3 !~ /^\\/ { n++ } END { print n + 0 }')
    ((commands > 0)) || { cat "$out" >&2; die "no statements listed by pgbench -r"; }
    top=$((commands * n))
    record rate "$key" "$tps"
    record p50 "$key" "$p50"
    record p99 "$key" "$p99"
    record top "$key" "$(per "$top" "$n")"
    record nested "$key" "$(per "$nested" "$n")"
    record xacts "$key" "$(per "$xacts" "$n")"
    record wal "$key" "$(per "$wal" "$n")"
    printf '  pgbench %-13s %2s clients: %s tx in %ss, %.0f tx/s, p50 %s ms, p99 %s ms\n' \
        "$shape" "$clients" "$n" "$PGBENCH_SECS" "$tps" "$p50" "$p99"
}

# --- the rounds ----------------------------------------------------------------------------

# Prints "median (min-max)" of the numbers in file $1, with $2 decimals; or the median alone
# with a third argument.
summary() {
    sort -g "$1" | awk -v d="$2" -v alone="${3:-}" '
        { v[NR] = $1 }
        END {
            m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
            if (alone != "") printf "%." d "f", m
            else printf "%." d "f (%." d "f-%." d "f)", m, v[1], v[NR]
        }'
}

echo "server: $SERVER"
echo "load tool: $LOAD (Idempotency-Key: $KEYS); runs (games:actions per game): ${RUNS[*]}; pgbench ${PGBENCH_SECS}s per shape"
echo "cluster: PostgreSQL $(q -c 'SHOW server_version'), port $PG_PORT, fsync on, $ROUNDS rounds"
LOAD_START=$(loadavg)
for ((round = 1; round <= ROUNDS; round++)); do
    ROUND=$round
    echo "round $round/$ROUNDS"
    for run in "${RUNS[@]}"; do
        http_run "${run%%:*}" "${run#*:}" "$round"
    done
    if ((round == 1)); then
        pgbench_setup
    fi
    for run in "${RUNS[@]}"; do
        for shape in "${SHAPES[@]}"; do
            pgbench_run "$shape" "${run%%:*}"
        done
    done
done
LOAD_END=$(loadavg)

# Per-round ratios HTTP / each shape, at each concurrency.
for run in "${RUNS[@]}"; do
    c=${run%%:*}
    for shape in "${SHAPES[@]}"; do
        paste -d' ' "$WORK/res/http-$c.rate" "$WORK/res/$shape-$c.rate" |
            awk '{ printf "%.3f\n", $1 / $2 }' >"$WORK/res/ratio-$shape-$c"
    done
done

echo
echo "Medians over $ROUNDS rounds (actions/s: median (min-max)); per action: top-level statements"
echo "(round trips), nested statements, writing transactions, WAL bytes. HTTP statements are net"
echo "of the GETs the load tool made when the move changed seats (raw figures below)."
printf '%-22s %5s  %-22s %8s %8s %9s %7s %7s %7s\n' \
    "shape" "games" "actions/s" "p50 ms" "p99 ms" "stmts" "nested" "w.xacts" "WAL B"
for run in "${RUNS[@]}"; do
    c=${run%%:*}
    for key in "http-$c" "${SHAPES[@]/%/-$c}"; do
        name=${key%-*}
        [[ $name == http ]] && name="HTTP (racko serve)" || name="pgbench $name"
        printf '%-22s %5s  %-22s %8s %8s %9s %7s %7s %7s\n' "$name" "$c" \
            "$(summary "$WORK/res/$key.rate" 0)" \
            "$(summary "$WORK/res/$key.p50" 1 m)" "$(summary "$WORK/res/$key.p99" 1 m)" \
            "$(summary "$WORK/res/$key.top" 2 m)" "$(summary "$WORK/res/$key.nested" 2 m)" \
            "$(summary "$WORK/res/$key.xacts" 2 m)" "$(summary "$WORK/res/$key.wal" 0 m)"
    done
done
echo
for run in "${RUNS[@]}"; do
    c=${run%%:*}
    echo "HTTP at $c games: $(summary "$WORK/res/http-$c.gets" 2 m) GETs per action, each" \
        "$(summary "$WORK/res/http-$c.get_top" 2 m) top-level statements and" \
        "$(summary "$WORK/res/http-$c.get_wal" 0 m) WAL bytes; top-level statements per action" \
        "with those GETs: $(summary "$WORK/res/http-$c.top_raw" 2 m)"
done
echo
echo "Ratios HTTP actions/s / pgbench tx/s, per round: median (min-max)"
for run in "${RUNS[@]}"; do
    c=${run%%:*}
    line="  $c games: HTTP"
    for shape in one-statement minimal old; do
        line+=" / $shape $(summary "$WORK/res/ratio-$shape-$c" 3);"
    done
    echo "${line%;}"
done
c=${RUNS[0]%%:*}
echo "Issue 14 target: HTTP / one-statement at 50 games >= 0.6; here at $c games:" \
    "$(summary "$WORK/res/ratio-one-statement-$c" 3 m)"
echo "load average (1, 5, 15 min) at start $LOAD_START, at end $LOAD_END"
