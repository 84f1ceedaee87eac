#!/usr/bin/env bash
# Server memory (RSS) around a burst of sign-ups (issue 13.4). Each argon2id hash takes a
# 19 MiB block; the server should give that memory back once the burst is over.
#
#   scripts/bench-signup-memory.sh [SIGNUPS] [ROUNDS]
#   BENCH_BIN_B=/tmp/racko-before scripts/bench-signup-memory.sh 200 3   # against another binary
#
# Runs ROUNDS (default 3) servers of BENCH_BIN (A, as shipped), and with BENCH_BIN_B as many of
# that binary (B), interleaved. Each server gets SIGNUPS (default 200) sign-ups, 8 at a time, on
# its own embedded store. Prints, per run, RSS idle before, peak (VmHWM) and RSS 10 s after the
# burst, in MiB; then medians and ranges, and the load average. Needs curl; builds the release
# binary first, unless BENCH_BIN names a built one (memory does not depend on the profile;
# e.g. BENCH_BIN=target/debug/racko).
set -euo pipefail
cd "$(dirname "$0")/.."
SIGNUPS="${1:-200}"
ROUNDS="${2:-3}"
if [ -z "${BENCH_BIN:-}" ]; then
  cargo build --release --locked -q
  BENCH_BIN="target/release/racko"
fi
BIN="$(realpath "$BENCH_BIN")"
BIN_B="${BENCH_BIN_B:+$(realpath "$BENCH_BIN_B")}"

kib() { awk -v k="$1" '$1 == k":" { print $2 }' "/proc/$2/status"; }

run_one() { # $1 = label, $2 = the binary
  local dir port pid before peak after
  dir="$(mktemp -d)"
  port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
  # env execs the server: $! is the server's own pid. Its store lives in $dir.
  env -C "$dir" RACKO_BIND="127.0.0.1:$port" RACKO_AUTH_PER_MINUTE=0 RACKO_WORKERS=2 \
    RUST_LOG=warn "$2" serve >/dev/null 2>&1 &
  pid=$!
  for _ in $(seq 100); do curl -fsS -o /dev/null "http://127.0.0.1:$port/readyz" 2>/dev/null && break; sleep 0.1; done
  for _ in 1 2 3; do curl -fsS -o /dev/null "http://127.0.0.1:$port/readyz"; done
  before="$(kib VmRSS "$pid")"
  seq "$SIGNUPS" | xargs -P 8 -I{} curl -fsS -o /dev/null -H 'content-type: application/json' \
    -d "{\"username\":\"bench-{}\",\"password\":\"correct horse battery\"}" \
    "http://127.0.0.1:$port/v1/accounts"
  peak="$(kib VmHWM "$pid")"
  sleep 10
  after="$(kib VmRSS "$pid")"
  kill "$pid"; wait 2>/dev/null || true
  rm -rf "$dir"
  printf '%s %d %d %d\n' "$1" $((before / 1024)) $((peak / 1024)) $((after / 1024))
}

results="$(mktemp)"
for round in $(seq "$ROUNDS"); do
  run_one A "$BIN" | tee -a "$results"
  if [ -n "$BIN_B" ]; then run_one B "$BIN_B" | tee -a "$results"; fi
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$results" "$SIGNUPS" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
for label, name in (("A", "as shipped"), ("B", "BENCH_BIN_B")):
    runs = [list(map(int, r[1:])) for r in rows if r[0] == label]
    if not runs:
        continue
    cols = list(zip(*runs))
    def f(i): return f"{statistics.median(cols[i]):.0f} ({min(cols[i])}-{max(cols[i])})"
    print(f"{label} {name}: {sys.argv[2]} sign-ups; RSS MiB idle before {f(0)}, peak {f(1)}, 10 s after {f(2)}")
a = statistics.median([int(r[3]) for r in rows if r[0] == "A"])
b = [int(r[3]) for r in rows if r[0] == "B"]
if b:
    print(f"RSS after the burst, A/B: {a / statistics.median(b):.2f}")
PY
rm -f "$results"
