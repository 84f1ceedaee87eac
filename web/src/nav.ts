// Moves to another page of the client without a reload (main.ts routes on popstate).
export function go(path: string): void {
  history.pushState(null, "", path);
  window.dispatchEvent(new PopStateEvent("popstate"));
}

/** Draws the current page again (after signing in). */
export function redraw(): void {
  window.dispatchEvent(new PopStateEvent("popstate"));
}
