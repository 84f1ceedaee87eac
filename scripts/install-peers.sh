#!/usr/bin/env bash
# Installs the protocol peers the push tests start (tests/api/push.rs): web-push-testing, a
# localhost Web Push service, pinned in tests/peers/package-lock.json. Needs node and npm.
# The tests call it when tests/peers/node_modules is missing; .ci/run calls it before them.
set -euo pipefail
cd "$(dirname "$0")/../tests/peers"
exec 9>/tmp/racko-push-peers.lock
flock 9
if [ ! -f node_modules/web-push-testing/src/bin/server.js ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
