// The bearer token lives in localStorage so that a reload or a second tab stays signed in and
// an asynchronous game can be picked up days later. The page's strict Content-Security-Policy
// (no inline script, scripts from this origin only) and rendering every user text as text are
// what keep other scripts from reading it; the token expires, and "sign out" forgets it.
const KEY = "racko.token";
const NAME = "racko.username";

export function token(): string | null {
  return localStorage.getItem(KEY);
}

export function username(): string | null {
  return localStorage.getItem(NAME);
}

export function remember(bearer: string, name: string): void {
  localStorage.setItem(KEY, bearer);
  localStorage.setItem(NAME, name);
}

export function forget(): void {
  localStorage.removeItem(KEY);
  localStorage.removeItem(NAME);
}
