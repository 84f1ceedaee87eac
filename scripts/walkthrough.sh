#!/usr/bin/env bash
# The walk-through (docs/development.md): two players, one game, Ben's first turn, Ann's inbox and the log.
#
#   scripts/walkthrough.sh                         # against http://localhost:8080
#   RACKO_URL=http://127.0.0.1:9000 scripts/walkthrough.sh
#
# Needs bash, curl and jq. The deal is random, so every move is picked from the legal actions
# the server lists in the player's view (`.table.legal_actions`), and sent with the version
# that view had. Any answer other than 2xx is printed in full (the problem+json body with its
# `code`) and ends the script with exit code 1.
set -euo pipefail

URL="${RACKO_URL:-http://localhost:8080}"
# Usernames are unique: a second run against the same server registers another Ann.
ANN_NAME="${ANN_NAME:-ann-$RANDOM$RANDOM}"
BODY="$(mktemp)"
trap 'rm -f "$BODY"' EXIT

# api METHOD PATH TOKEN [JSON [EXTRA-CURL-ARGS...]]: prints the response body; on a non-2xx
# answer prints the request, the status and the body to stderr and exits 1.
api() {
  local method="$1" path="$2" token="$3" data="${4:-}"
  shift 4 2>/dev/null || shift $#
  local args=(-sS -o "$BODY" -w '%{http_code}' -X "$method" "$URL$path")
  [ -n "$token" ] && args+=(-H "authorization: Bearer $token")
  [ -n "$data" ] && args+=(-H 'content-type: application/json' -d "$data")
  local status
  status="$(curl "${args[@]}" "$@")" || { echo "curl failed: $method $path" >&2; exit 1; }
  if [ "${status:0:1}" != 2 ]; then
    echo "$method $path -> HTTP $status" >&2
    jq . "$BODY" >&2 2>/dev/null || cat "$BODY" >&2
    exit 1
  fi
  cat "$BODY"
}

step() { printf '\n== %s\n' "$*"; }

step "Ann registers ($ANN_NAME); Ben comes as a guest"
ANN="$(api POST /v1/accounts "" "{\"username\":\"$ANN_NAME\",\"password\":\"correct horse\"}" | jq -r .token)"
BEN="$(api POST /v1/guests "" | jq -r .token)"
echo "tokens: ${ANN:0:12}... ${BEN:0:12}..."

step "Ann creates a two-player game (Bonus variant) and takes seat 0"
CREATED="$(api POST /v1/games "$ANN" '{"options":{"players":2,"bonus":true}}')"
GAME="$(jq -r .id <<<"$CREATED")"
CODE="$(jq -r .invite_code <<<"$CREATED")"
echo "game $GAME, invite code $CODE (a new game is unlisted: Ann passes the code to Ben)"

step "Ben joins with the code; the game is full, so round 1 is dealt at once"
api POST /v1/games/join "$BEN" "{\"invite_code\":\"$CODE\"}" | jq -c '{status, version}'

step "Ben's view: his rack, the discard pile, the stock, what he may do"
api GET "/v1/games/$GAME" "$BEN" | jq -c '{version, phase: .table.phase,
  rack: [.table.rack[] | "\(.slot):\(.card.value // .card.kind)"],
  discard_top: .table.discard[-1], stock: .table.stock_size,
  legal: [.table.legal_actions[].type] | unique}'

# pick VIEW: the action to send, from the view's legal actions. Draw when allowed; put a drawn
# number card into the legal slot whose label is nearest its value (a joker: the first legal
# slot); carry out a card swap or rack swap with the first legal choice; otherwise the first
# legal action that does not end the round.
pick() {
  jq -c '.table as $t | $t.legal_actions as $legal
    | ($legal | map(select(.type == "draw")) | first)
      // ($legal | map(select(.type == "place_drawn"))
          | if length > 0 and ($t.drawn.value != null)
            then min_by(.slot - $t.drawn.value | if . < 0 then -. else . end) else first end)
      // ($legal | map(select(.type != "call_racko")) | first)
      // ($legal | first)'
}

step "Ben plays his turn: each step picked from his legal actions"
steps=0
while :; do
  VIEW="$(api GET "/v1/games/$GAME" "$BEN")"
  # Done when the game no longer awaits Ben (a skip card can give him another turn: he plays on).
  if [ "$(jq '.my_seat as $me | .table.awaiting | index($me) != null' <<<"$VIEW")" != true ]; then
    break
  fi
  steps=$((steps + 1))
  if [ "$steps" -gt 12 ]; then
    echo "Ben is still awaited after 12 actions" >&2
    exit 1
  fi
  V="$(jq .version <<<"$VIEW")"
  ACTION="$(pick <<<"$VIEW")"
  if [ -z "$ACTION" ] || [ "$ACTION" = null ]; then
    echo "Ben is awaited but has no legal action:" >&2
    jq . <<<"$VIEW" >&2
    exit 1
  fi
  echo "version $V, Ben sends $ACTION"
  # The version he decided on goes with the action (If-Match works too); the Idempotency-Key
  # makes a retry of this very request safe.
  api POST "/v1/games/$GAME/actions" "$BEN" "{\"version\":$V,\"action\":$ACTION}" \
    -H "Idempotency-Key: walkthrough-$GAME-$V" \
    | jq -c '{version: .view.version, drawn: .view.table.drawn,
              events: [.events[].event | .type + (if .card then " " + (.card.value // .card.kind | tostring) else "" end)]}'
done

step "Ann's inbox: the games where it is her turn"
api GET "/v1/me/games?filter=my_turn" "$ANN" | jq -c '[.games[].id]'

step "The log as Ann may see it (Ben's hidden cards stay hidden)"
api GET "/v1/games/$GAME/events?after=0" "$ANN" | jq -c '[.events[].event.type]'

