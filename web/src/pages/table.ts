// The table: my rack with its slot labels, the discard pile's top, the stock, the other racks
// face down, scores and round, and every legal action as a button (and a few keys). The page
// only ever shows what the API projected for the caller (R8).
import { api, ApiError, type Action, type GameView, type View } from "../api";
import { cardText } from "../cards";
import { h, show } from "../dom";
import { t } from "../i18n";
import { token } from "../session";
import { follow, type Status } from "../stream";
import { errorText, signInBlock } from "./account";
import { actionPanel, slotAction } from "./actions";
import { roundSummary } from "./summary";
import { tableTools, type Tools } from "./tools";
import { redraw } from "../nav";

export function showTable(root: HTMLElement, id: string): () => void {
  if (!token()) {
    show(root, signInBlock(redraw));
    return () => undefined;
  }
  let game: GameView | undefined;
  let busy = false;
  let again = false;
  const note = h("p", { role: "alert", class: "note" });
  const live = h("p", { role: "status", class: "live", "data-testid": "live" });
  const board = h("div", { class: "board", "data-testid": "board" });
  show(root, h("p", {}, h("a", { href: "/", "data-link": true }, t("home"))), live, note, board);

  // While an action is on its way the board says so (aria-busy), and further presses wait
  // for its answer rather than being sent with a version that is about to be stale.
  const act = (action: Action, resendIfStale = true) => {
    if (!game || busy) return;
    busy = true;
    board.setAttribute("aria-busy", "true");
    let resend: Action | undefined;
    api
      .act(id, action, game.version)
      .then((result) => {
        note.textContent = "";
        render(result.view);
      })
      .catch(async (err) => {
        if (!(err instanceof ApiError && err.code === "stale_version")) {
          note.textContent = errorText(err);
          refresh();
          return;
        }
        // The table moved on before the action arrived (Racko may be called at any moment,
        // R4.2, while another seat moves): read it, and send the action once more if it is
        // still open to this player; if not, the fresh table is the answer.
        note.textContent = "";
        const fresh = await api.game(id).catch(() => undefined);
        if (!fresh) return refresh();
        render(fresh);
        const wanted = JSON.stringify(action);
        if (resendIfStale && fresh.table.legal_actions.some((a) => JSON.stringify(a) === wanted)) resend = action;
      })
      .finally(() => {
        busy = false;
        board.removeAttribute("aria-busy");
        if (resend) act(resend, false);
      });
  };

  const render = (view: GameView) => {
    if (game && view.version < game.version) return;
    const first = !game;
    game = view;
    board.replaceChildren(...table(view, act, { note, changed: render }));
    board.dataset.version = String(view.version);
    // the browser test reads how soon the table was interactive
    if (first) performance.mark("racko-table");
  };

  // One reading at a time; events arriving meanwhile cause one more.
  let reading = false;
  const refresh = () => {
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    api
      .game(id)
      .then(render)
      .catch((err) => (note.textContent = errorText(err)))
      .finally(() => {
        reading = false;
        if (again) {
          again = false;
          refresh();
        }
      });
  };
  refresh();

  const onStatus = (status: Status) => {
    live.textContent = t(status);
    live.dataset.state = status;
    if (status === "live") refresh();
    // signed out everywhere (here or elsewhere): the page asks to sign in again
    if (status === "revoked") redraw();
  };
  const stream = follow(`/v1/games/${encodeURIComponent(id)}/stream`, refresh, onStatus);

  const keys = (event: KeyboardEvent) => {
    if (!game || event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement) return;
    const want = { d: "draw", x: "discard_drawn", r: "call_racko" }[event.key];
    const action = game.table.legal_actions.find((a) => a.type === want);
    if (action) act(action);
  };
  document.addEventListener("keydown", keys);
  const clock = setInterval(tick, 1000);
  return () => {
    clearInterval(clock);
    stream.close();
    document.removeEventListener("keydown", keys);
  };
}

function phaseText(game: GameView): string {
  const view = game.table;
  const awaited = game.players.filter((p) => p.awaiting).map((p) => p.username);
  if (view.phase.type === "game_over") return t("gameOver");
  if (game.status === "open") return `${t("open")}`;
  return awaited.length ? `${t("waitingFor")}: ${awaited.join(", ")}` : "";
}

function table(game: GameView, act: (a: Action) => void, tools: Tools): HTMLElement[] {
  const view = game.table;
  const parts: HTMLElement[] = [];
  parts.push(
    h(
      "p",
      { class: "row status" },
      h("span", { "data-testid": "round" }, `${t("round")} ${view.round}`),
      h("span", { "data-testid": "phase" }, phaseText(game)),
    ),
  );
  if (game.invite_code && game.status === "open") {
    const link = `${location.origin}/join/${encodeURIComponent(game.invite_code)}`;
    parts.push(
      h(
        "p",
        { class: "invite" },
        `${t("invite")} `,
        h("code", { "data-testid": "invite-code" }, game.invite_code),
        ` ${t("inviteLink")} `,
        h("a", { href: link, "data-testid": "invite-link" }, link),
      ),
    );
  }
  parts.push(scores(game));
  if (view.phase.type !== "game_over" && view.phase.type !== "awaiting_round") {
    parts.push(piles(view));
    parts.push(myRack(view, act));
    parts.push(actionPanel(game, act));
    parts.push(...otherRacks(game));
  }
  if (view.last_round && (view.phase.type === "awaiting_round" || view.phase.type === "game_over")) {
    parts.push(roundSummary(game, view.last_round));
  } else if (view.phase.type === "game_over") {
    // ended before any round was scored (a resignation, R10.3)
    const winners = view.phase.winners.map((seat) => game.players.find((p) => p.seat === seat)?.username ?? String(seat));
    parts.push(h("section", { class: "summary", "data-testid": "game-over" }, h("h2", {}, t("gameOver")),
      h("p", { "data-testid": "winners" }, `${t("winners")}: `, h("strong", {}, winners.join(", ")))));
  }
  parts.push(tableTools(game, tools));
  return parts;
}

function scores(game: GameView): HTMLElement {
  const view = game.table;
  const rows = game.players.map((p) =>
    h(
      "tr",
      { class: p.awaiting ? "awaiting" : undefined },
      h(
        "th",
        { scope: "row" },
        h("span", { class: "name" }, p.username),
        p.seat === game.my_seat ? ` (${t("you")})` : "",
        p.computer ? ` (${t("computer")})` : "",
      ),
      h("td", { "data-testid": `total-${p.seat}` }, String(view.totals[p.seat] ?? 0)),
      h("td", p.deadline ? { "data-deadline": p.deadline } : {}, p.deadline ? deadline(p.deadline) : ""),
    ),
  );
  return h(
    "table",
    { class: "scores", "data-testid": "scores" },
    h("caption", {}, `${t("scores")} (${t("target")} ${game.options.target ?? 500})`),
    h("tbody", {}, ...rows),
  );
}

function deadline(at: string): string {
  const left = Math.max(0, Math.round((Date.parse(at) - Date.now()) / 1000));
  const two = (n: number) => String(n).padStart(2, "0");
  const [hours, minutes, seconds] = [Math.floor(left / 3600), Math.floor(left / 60) % 60, left % 60];
  return `${t("deadline")} ${hours ? `${hours}:${two(minutes)}` : minutes}:${two(seconds)}`;
}

/** Counts every shown deadline down, once a second. */
function tick(): void {
  for (const el of document.querySelectorAll<HTMLElement>("[data-deadline]")) {
    el.textContent = deadline(el.dataset.deadline ?? "");
  }
}

function piles(view: View): HTMLElement {
  const top = view.discard[view.discard.length - 1];
  return h(
    "div",
    { class: "piles" },
    h(
      "figure",
      {},
      h("figcaption", {}, t("discardTop")),
      h("span", { class: "card", "data-testid": "discard-top" }, cardText(top)),
    ),
    h(
      "figure",
      {},
      h("figcaption", {}, t("stock")),
      h("span", { class: "card back", "data-testid": "stock" }, `${view.stock_size} ${t("cards")}`),
    ),
    view.drawn
      ? h(
          "figure",
          {},
          h("figcaption", {}, t("drawn")),
          h("span", { class: "card drawn", "data-testid": "drawn" }, cardText(view.drawn)),
        )
      : null,
    view.blitz_card
      ? h("figure", {}, h("figcaption", {}, "Blitz"), h("span", { class: "card drawn" }, cardText(view.blitz_card)))
      : null,
  ) as HTMLElement;
}

function myRack(view: View, act: (a: Action) => void): HTMLElement {
  const slots = (view.rack ?? []).map((s) =>
    h(
      "li",
      { class: "slot", "data-slot": s.slot },
      h("span", { class: "label" }, String(s.slot)),
      h("span", { class: "card", "data-testid": `slot-${s.slot}` }, cardText(s.card)),
      ...slotAction(view, s.slot, act),
    ),
  );
  return h(
    "section",
    { "aria-labelledby": "rackh", class: "rack" },
    h("h2", { id: "rackh" }, t("myRack")),
    h("ol", { "data-testid": "my-rack" }, ...slots),
  );
}

function otherRacks(game: GameView): HTMLElement[] {
  const size = game.table.rack?.length ?? 12;
  return game.players
    .filter((p) => p.seat !== game.my_seat)
    .map((p) =>
      h(
        "section",
        { class: "rack other", "aria-label": `${p.username}: ${size} ${t("cards")}, ${t("faceDown")}` },
        h("h2", {}, h("span", { class: "name" }, p.username)),
        h("ol", { "aria-hidden": "true" }, ...Array.from({ length: size }, () => h("li", { class: "card back" }, ""))),
      ),
    );
}

