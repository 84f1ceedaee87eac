#!/usr/bin/env bash
# Decision time of every computer level: p50/p99/max over every decision of N self-play
# games per level (2 players, the variants cycled), one thread, release build.
#   scripts/bench-bots.sh [GAMES]      (default 10000)
# Run it on an idle machine: the figures are wall-clock times of single calls.
set -euo pipefail
cd "$(dirname "$0")/.."
games="${1:-10000}"
cargo run --release --locked -q -p racko-bots --example arena -- --bench "$games"
