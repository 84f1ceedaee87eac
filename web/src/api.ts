// Typed calls to the Racko API. Every type comes from openapi/openapi.json (through
// openapi-typescript), so a change to the document that breaks the client fails `tsc`.
import type { components } from "./generated/api";
import { token, forget, refreshToken, remember } from "./session";

export type Schemas = components["schemas"];
export type GameView = Schemas["GameView"];
export type View = Schemas["View"];
export type Action = Schemas["Action"];
export type Card = Schemas["Card"];
export type GameSummary = Schemas["GameSummary"];
export type GamePage = Schemas["GamePage"];
export type AuthResponse = Schemas["AuthResponse"];
export type CreateGame = Schemas["CreateGame"];
export type Problem = Schemas["Problem"];
export type MyGames = Schemas["MyGames"];
export type RoundResult = Schemas["RoundResult"];

/** A problem+json answer (or a failed connection, code `unreachable`). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    detail: string,
  ) {
    super(detail);
  }
}

let renewing: Promise<boolean> | null = null;

/**
 * Spends the refresh token for a fresh access token (one request at a time: a refresh token
 * sent twice ends the session). False when the session is over.
 */
export function renew(): Promise<boolean> {
  const refresh = refreshToken();
  if (!refresh) return Promise.resolve(false);
  renewing ??= fetch("/v1/sessions/refresh", {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify({ refresh_token: refresh } satisfies Schemas["RefreshRequest"]),
  })
    .then(async (answer) => {
      if (!answer.ok) {
        if (answer.status === 401) forget();
        return false;
      }
      const auth = (await answer.json()) as AuthResponse;
      remember(auth.token, auth.account.username, auth.refresh_token);
      return true;
    })
    .catch(() => false)
    .finally(() => (renewing = null));
  return renewing;
}

// Calls under way, so that signing out everywhere can let them finish first: one still on its
// way when the tokens are revoked would be refused (and the browser logs that 401 as an error).
let pending = 0;
let settled: (() => void)[] = [];

/** Resolves once no call is under way. */
export function idle(): Promise<void> {
  return pending === 0 ? Promise.resolve() : new Promise((resolve) => settled.push(resolve));
}

function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  pending++;
  return send<T>(method, path, body).finally(() => {
    if (--pending > 0) return;
    const waiting = settled;
    settled = [];
    waiting.forEach((resolve) => resolve());
  });
}

async function send<T>(method: string, path: string, body?: unknown, retried = false): Promise<T> {
  const headers: Record<string, string> = { Accept: "application/json" };
  const bearer = token();
  if (bearer) headers.Authorization = `Bearer ${bearer}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let answer: Response;
  try {
    answer = await fetch(path, {
      method,
      headers,
      body: body === undefined ? null : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, "unreachable", "The server cannot be reached.");
  }
  const text = await answer.text();
  if (!answer.ok) {
    let problem: Partial<Problem> = {};
    try {
      problem = JSON.parse(text) as Problem;
    } catch {
      // not problem+json (a proxy's page): keep the status only
    }
    if (answer.status === 401) {
      if (!retried && !path.startsWith("/v1/guests") && path !== "/v1/sessions" && (await renew())) return send<T>(method, path, body, true);
      forget();
    }
    throw new ApiError(answer.status, String(problem.code ?? "http_" + answer.status), problem.detail ?? answer.statusText);
  }
  // 204 No Content (sign out everywhere) has no body
  return (text ? JSON.parse(text) : null) as T;
}

const game = (id: string, rest = "") => `/v1/games/${encodeURIComponent(id)}${rest}`;

export const api = {
  guest: () => call<AuthResponse>("POST", "/v1/guests", {}),
  register: (body: Schemas["Credentials"]) => call<AuthResponse>("POST", "/v1/accounts", body),
  signIn: (body: Schemas["Credentials"]) => call<AuthResponse>("POST", "/v1/sessions", body),
  signOutEverywhere: () => call<null>("DELETE", "/v1/accounts/me/tokens"),
  hint: (id: string) => call<Schemas["Hint"]>("GET", game(id, "/hint")),
  resign: (id: string, version: number) =>
    call<Schemas["ActionResult"]>("POST", game(id, "/resign"), { version } satisfies Schemas["ResignRequest"]),
  rematch: (id: string) => call<GameView>("POST", game(id, "/rematch")),
  exportRecord: (id: string) => call<Schemas["GameExport"]>("GET", game(id, "/export")),
  verify: (id: string) => call<Schemas["VerifyResult"]>("GET", game(id, "/verify")),
  replay: (id: string, seq?: number) =>
    call<Schemas["ReplayView"]>("GET", game(id, seq === undefined ? "/replay" : `/replay?seq=${seq}`)),
  me: () => call<Schemas["AccountView"]>("GET", "/v1/accounts/me"),
  myGames: (filter: MyGames) => call<GamePage>("GET", `/v1/me/games?filter=${filter}`),
  create: (body: CreateGame) => call<GameView>("POST", "/v1/games", body),
  join: (code: string) => call<GameView>("POST", "/v1/games/join", { invite_code: code } satisfies Schemas["JoinByCode"]),
  game: (id: string) => call<GameView>("GET", `/v1/games/${encodeURIComponent(id)}`),
  act: (id: string, action: Action, version: number) =>
    call<Schemas["ActionResult"]>("POST", `/v1/games/${encodeURIComponent(id)}/actions`, {
      action,
      version,
    } satisfies Schemas["ActionRequest"]),
};
