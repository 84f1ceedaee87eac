#!/usr/bin/env bash
# Checks the browser client (web/), as .ci/test runs it after the other scripts:
#   1. generates its API types from openapi/openapi.json and type-checks it (tsc --noEmit),
#      so a change to the document that breaks the client fails here;
#   2. rebuilds web/dist/ and fails on any difference from the committed files (the server
#      embeds them, so `cargo run` needs no Node.js);
#   3. plays through the pages in Debian's chromium (playwright-core, no browser download)
#      against a real server (web/tests/browser.mjs starts target/debug/racko serve on
#      embedded SQLite in a temp dir): one player against a computer seat, then two browser
#      contexts against each other, with the server restarted mid-game.
# Tools are pinned in web/package-lock.json and installed into web/node_modules (git-ignored).
# Screenshots (390 px and 1280 px) go to target/web-screenshots/.
# `--no-browser` stops after step 2 (a quick check of a client change; .ci/test runs all three).
# The browser run prints its figures as one JSON line: the table's time to interactive after
# a navigation (Performance API), each game's wall time and clicks, the seqs of the replays
# compared and the pages scanned by axe-core.
set -euo pipefail
browser=1
[ "${1:-}" = "--no-browser" ] && browser=0
cd "$(dirname "$0")/.."
root=$PWD
web=$root/web
racko=${CARGO_TARGET_DIR:-$root/target}/debug/racko
shots=$root/target/web-screenshots

log() { printf '\n== %s\n' "$*"; }
fail() { printf 'check-web: %s\n' "$*" >&2; exit 1; }

log "web tools"
command -v node >/dev/null || fail "node is missing"
command -v chromium >/dev/null || fail "chromium is missing (.ci/run installs it)"
lock_hash=$(sha256sum "$web/package-lock.json" | cut -d' ' -f1)
if [ "$(cat "$web/node_modules/.lock-hash" 2>/dev/null)" != "$lock_hash" ]; then
  (cd "$web" && npm ci --no-audit --no-fund --loglevel=error)
  echo "$lock_hash" >"$web/node_modules/.lock-hash"
fi
export PATH="$web/node_modules/.bin:$PATH"
echo "node $(node --version), tsc $(tsc --version), esbuild $(esbuild --version), $(chromium --version 2>/dev/null)"

log "types from the API document, then tsc --noEmit"
(cd "$web" && openapi-typescript "$root/openapi/openapi.json" --output src/generated/api.d.ts >/dev/null)
(cd "$web" && tsc --noEmit -p tsconfig.json) || fail "web/ does not type-check against openapi/openapi.json"

log "rebuild web/dist and compare with the committed files"
(cd "$web" && node build.mjs)
if ! git diff --quiet -- web/dist || [ -n "$(git ls-files --others --exclude-standard -- web/dist)" ]; then
  git status --short -- web/dist >&2
  fail "web/dist differs from its sources: run 'cd web && node build.mjs' and commit web/dist"
fi
size=$(cat "$web/dist/app.js" "$web/dist/app.css" | gzip -9 | wc -c)
echo "app.js + app.css: $size bytes gzipped"
[ "$size" -le 81920 ] || fail "the client's JS and CSS exceed 80 KB gzipped"

if [ "$browser" = 0 ]; then
  log "web: types and built files checked (browser tests skipped: --no-browser)"
  exit 0
fi
log "browser tests against a real server"
# The server embeds web/dist/: build it (a no-op after `cargo test`), so that the browser
# never runs against an older client than the one just checked.
cargo build --locked -q --bin racko || fail "cannot build the server"
[ -x "$racko" ] || fail "$racko is missing"
started=$(date +%s%N)
CHROMIUM="$(command -v chromium)" node "$web/tests/browser.mjs" "$racko" "$shots" ||
  fail "the browser tests failed"
echo "browser tests: $(( ($(date +%s%N) - started) / 1000000 )) ms wall time; screenshots in $shots"
log "web: all checks passed"
