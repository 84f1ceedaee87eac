// The start page: sign in, start or join a game, and the inbox (my turn first, by deadline)
// beside the finished games.
import { api, type GameSummary, type MyGames } from "../api";
import { button, h, show } from "../dom";
import { t } from "../i18n";
import { go } from "../nav";
import { token } from "../session";
import { follow } from "../stream";
import { accountBar, errorText, signInBlock } from "./account";
import { newGameForm } from "./create";

export { errorText, signInBlock };

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
  let filter: MyGames = "active";
  const tabs = (["active", "finished"] as const).map((f) =>
    button(t(f === "active" ? "inbox" : "finishedGames"), () => {
      filter = f;
      refresh();
    }, { "data-testid": `tab-${f}`, "aria-pressed": String(f === filter) }),
  );
  const el = h("section", { "aria-labelledby": "inboxh" }, h("h2", { id: "inboxh" }, t("myGames")), h("p", { class: "row" }, ...tabs), list);
  // One reading at a time, and one more when asked meanwhile (a tab pressed, a feed item):
  // an older answer never lands after a newer one, and the list shows the filter it was read
  // for. The stream replays the account's feed from its start, which would otherwise start a
  // reading per item.
  let reading = false;
  let again = false;
  const refresh = () => {
    tabs.forEach((tab, i) => tab.setAttribute("aria-pressed", String((i === 0 ? "active" : "finished") === filter)));
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    const asked = filter;
    // the open games wait for players: they belong with the running ones
    const lists = asked === "active" ? [api.myGames("active"), api.myGames("open")] : [api.myGames("finished")];
    Promise.all(lists)
      .then((pages) => {
        if (asked !== filter) return; // another tab was pressed meanwhile: read again below
        // my turn first, then by deadline, then the newest
        const games = pages.flatMap((p) => p.games).sort(
          (a, b) =>
            Number(b.my_turn) - Number(a.my_turn) ||
            (a.my_deadline ?? "~").localeCompare(b.my_deadline ?? "~") ||
            b.updated_at.localeCompare(a.updated_at),
        );
        list.dataset.filter = asked;
        list.replaceChildren(...(games.length ? games.map(summaryLine) : [h("li", {}, t("noGames"))]));
      })
      .catch(() => undefined)
      .finally(() => {
        reading = false;
        if (again || asked !== filter) {
          again = false;
          refresh();
        }
      });
  };
  return { el, refresh };
}

export function showHome(root: HTMLElement): () => void {
  let leave = () => undefined as void;
  const draw = () => {
    leave();
    leave = token() ? signedInHome(root, draw) : signedOutHome(root, draw);
  };
  draw();
  return () => leave();
}

function signedOutHome(root: HTMLElement, after: () => void): () => void {
  show(root, signInBlock(after));
  return () => undefined;
}

function signedInHome(root: HTMLElement, after: () => void): () => void {
  const note = h("p", { role: "alert", class: "note" });
  const box = inbox();
  // the feed wakes the inbox; a revoked session (signed out everywhere) shows the sign-in
  const listen = () => follow("/v1/me/stream", () => box.refresh(), (status) => status === "revoked" && after());
  const quiet = () => {
    stream.close();
    return () => (stream = listen());
  };
  show(root, accountBar(note, after, quiet), note, newGameForm(note), joinForm(note), box.el);
  box.refresh();
  let stream = listen();
  return () => stream.close();
}
