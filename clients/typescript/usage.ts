// Type-checked (never run) by scripts/check-clients.sh against the types that openapi-typescript
// generates from openapi/openapi.json into clients/generated/racko.d.ts. It builds the requests
// a client typically sends and reads the answers; `@ts-expect-error` lines must stay errors.
import type { components, operations, paths } from "../generated/racko";

type Schemas = components["schemas"];
type JsonBody<T> = T extends { content: { "application/json": infer B } } ? B : never;

// Creating a game: every option has a server default, so any subset will do.
export const create: Schemas["CreateGame"] = { options: { players: 2, bonus: true } };
export const createBody: JsonBody<paths["/v1/games"]["post"]["requestBody"]> = create;
export const createNothing: Schemas["CreateGame"] = {};

// Actions: one named type per variant, told apart by `type`.
export const draw: Schemas["Action"] = { type: "draw" };
export const drawNamed: Schemas["DrawAction"] = { type: "draw" };
export const take: Schemas["TakeDiscardAction"] = { type: "take_discard", slot: 25 };
export const request: Schemas["ActionRequest"] = { action: draw, version: 3 };
// @ts-expect-error a take needs its slot
export const takeWithoutSlot: Schemas["Action"] = { type: "take_discard" };
// @ts-expect-error there is no such action
export const startRound: Schemas["Action"] = { type: "start_round" };

// Sessions: a refresh spends its refresh token and answers the next pair of tokens.
export const refreshBody: JsonBody<paths["/v1/sessions/refresh"]["post"]["requestBody"]> = {
  refresh_token: "rt1_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
};
export function keepForNextRefresh(answer: Schemas["AuthResponse"]): [string, string] {
  return [answer.session_id, answer.refresh_token];
}
export function thisDevice(list: Schemas["SessionList"]): string | null | undefined {
  return list.sessions.find((session) => session.current)?.user_agent;
}
// @ts-expect-error a refresh needs its token
export const refreshWithout: Schemas["RefreshRequest"] = {};

// A guest needs no body at all.
type GuestBody = operations["create_guest"]["requestBody"];
export const noGuestBody: GuestBody = undefined;

export function describeAction(action: Schemas["Action"]): string {
  switch (action.type) {
    case "take_discard":
    case "place_drawn":
    case "place_blitz_card":
      return `${action.type} into slot ${action.slot}`;
    case "swap_card":
      return `swap my ${action.my_slot} with seat ${action.with}'s ${action.their_slot}`;
    case "swap_racks":
      return `swap racks with seat ${action.with}`;
    case "choose_deal":
      return action.blitz ? "deal Blitz" : "deal normally";
    case "draw":
    case "discard_drawn":
    case "call_racko":
      return action.type;
  }
}

export function cardText(card: Schemas["Card"]): string {
  switch (card.kind) {
    case "number":
      return String(card.value);
    case "joker":
      return "J";
    case "card_swap":
    case "skip":
    case "rack_swap":
      return card.kind;
  }
}

export function phaseText(phase: Schemas["Phase"]): string {
  switch (phase.type) {
    case "turn":
      return `seat ${phase.seat} (${phase.stage})`;
    case "game_over":
      return `won by ${phase.winners.join(", ")}`;
    case "choosing_deal":
      return `seat ${phase.dealer} chooses the deal`;
    case "awaiting_round":
    case "blitz_deal":
      return phase.type;
  }
}

// Errors: `code` is the enum of the server's codes.
export function retryable(problem: Schemas["Problem"]): boolean {
  const code: Schemas["Code"] = problem.code;
  switch (code) {
    case "stale_version":
    case "rate_limited":
    case "unavailable":
      return true;
    default:
      return false;
  }
}

type GameAnswer = JsonBody<operations["get_game"]["responses"][200]>;
export function myLegalActions(game: GameAnswer): Schemas["Action"][] {
  return game.table.legal_actions;
}

export function logLine(event: Schemas["LogEvent"]): string {
  switch (event.type) {
    case "game_created":
      return `created by ${event.created_by}`;
    case "drew":
      return `seat ${event.seat} drew`;
    default:
      return event.type;
  }
}
