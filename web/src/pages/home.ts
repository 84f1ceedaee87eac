// The start page: sign in as a guest, start or join a game, and the inbox (my turn first).
import { api, ApiError, type GameSummary, type Schemas } from "../api";
import { button, h, show } from "../dom";
import { t } from "../i18n";
import { go } from "../nav";
import { forget, remember, token, username } from "../session";
import { follow } from "../stream";

export function errorText(err: unknown): string {
  return err instanceof ApiError ? `${err.message} (${err.code})` : String(err);
}

export function signInBlock(after: () => void): HTMLElement {
  const note = h("p", { role: "alert" });
  return h(
    "section",
    { "aria-labelledby": "signin" },
    h("h2", { id: "signin" }, t("title")),
    button(t("guest"), () => {
      api
        .guest()
        .then((auth) => {
          remember(auth.token, auth.account.username, auth.refresh_token);
          after();
        })
        .catch((err) => (note.textContent = errorText(err)));
    }, { "data-testid": "guest" }),
    note,
  );
}

function newGameForm(note: HTMLElement): HTMLElement {
  const level = h(
    "select",
    { id: "level" },
    ...(["basic", "random", "strong"] as Schemas["Level"][]).map((l) => h("option", { value: l }, l)),
  );
  const target = h("input", { id: "target", type: "number", min: 1, max: 1000, value: 500 });
  const create = (computer: boolean) => {
    const body: Schemas["CreateGame"] = {
      options: { players: 2, target: Number(target.value) || 500 },
      computer: computer ? [{ seat: 1, level: level.value as Schemas["Level"] }] : [],
    };
    api
      .create(body)
      .then((game) => go(`/games/${game.id}`))
      .catch((err) => (note.textContent = errorText(err)));
  };
  return h(
    "section",
    { "aria-labelledby": "new" },
    h("h2", { id: "new" }, t("newGame")),
    h("p", {}, h("label", { for: "target" }, t("target")), " ", target),
    h("p", {}, h("label", { for: "level" }, t("level")), " ", level),
    h(
      "p",
      { class: "row" },
      button(t("vsComputer"), () => create(true), { "data-testid": "vs-computer" }),
      button(t("forTwo"), () => create(false), { "data-testid": "for-two" }),
    ),
  );
}

function joinForm(note: HTMLElement): HTMLElement {
  const code = h("input", { id: "code", autocomplete: "off", spellcheck: "false" });
  const form = h(
    "form",
    { "aria-labelledby": "joinh" },
    h("h2", { id: "joinh" }, t("joinByCode")),
    h("label", { for: "code" }, t("code")),
    " ",
    code,
    " ",
    h("button", { type: "submit", "data-testid": "join" }, t("join")),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    api
      .join(code.value.trim())
      .then((game) => go(`/games/${game.id}`))
      .catch((err) => (note.textContent = errorText(err)));
  });
  return form;
}

function summaryLine(game: GameSummary): HTMLElement {
  const names = game.players.map((p) => p.username).join(" · ");
  const state = game.my_turn ? t("yourTurn") : t(game.status);
  return h(
    "li",
    { class: game.my_turn ? "mine" : undefined },
    h("a", { href: `/games/${game.id}`, "data-link": true }, names || game.id.slice(0, 8)),
    " — ",
    h("span", { class: "state" }, state),
  );
}

function inbox(): { el: HTMLElement; refresh: () => void } {
  const list = h("ul", { "data-testid": "inbox" });
  const el = h("section", { "aria-labelledby": "inboxh" }, h("h2", { id: "inboxh" }, t("inbox")), list);
  const refresh = () => {
    api
      .myGames("all")
      .then((page) => {
        // my turn first, then by deadline, then the newest
        const games = [...page.games].sort(
          (a, b) =>
            Number(b.my_turn) - Number(a.my_turn) ||
            (a.my_deadline ?? "~").localeCompare(b.my_deadline ?? "~") ||
            b.updated_at.localeCompare(a.updated_at),
        );
        list.replaceChildren(...(games.length ? games.map(summaryLine) : [h("li", {}, t("noGames"))]));
      })
      .catch(() => undefined);
  };
  return { el, refresh };
}

export function showHome(root: HTMLElement): () => void {
  if (!token()) {
    show(root, signInBlock(() => showHome(root)));
    return () => undefined;
  }
  const note = h("p", { role: "alert", class: "note" });
  const box = inbox();
  show(
    root,
    h(
      "header",
      { class: "row" },
      h("span", {}, `${t("signedInAs")} `, h("strong", { "data-testid": "me" }, username() ?? "")),
      button(t("signOut"), () => {
        forget();
        showHome(root);
      }),
    ),
    note,
    newGameForm(note),
    joinForm(note),
    box.el,
  );
  box.refresh();
  const stream = follow("/v1/me/stream", () => box.refresh(), () => undefined);
  return () => stream.close();
}
