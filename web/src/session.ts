// The bearer token lives in localStorage so that a reload or a second tab stays signed in and
// an asynchronous game can be picked up days later. The page's strict Content-Security-Policy
// (no inline script, scripts from this origin only) and rendering every user text as text are
// what keep other scripts from reading it; the token expires, and "sign out" forgets it.
const KEY = "racko.token";
const NAME = "racko.username";
const REFRESH = "racko.refresh";

export function token(): string | null {
  return localStorage.getItem(KEY);
}

export function username(): string | null {
  return localStorage.getItem(NAME);
}

/** The refresh token: spent to get a fresh access token when the short-lived one expires. */
export function refreshToken(): string | null {
  return localStorage.getItem(REFRESH);
}

export function remember(bearer: string, name: string, refresh: string): void {
  localStorage.setItem(KEY, bearer);
  localStorage.setItem(NAME, name);
  localStorage.setItem(REFRESH, refresh);
}

export function forget(): void {
  localStorage.removeItem(KEY);
  localStorage.removeItem(NAME);
  localStorage.removeItem(REFRESH);
}
