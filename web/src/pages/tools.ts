// Beside the table: a hint, resigning (asked twice), and once the game is over a rematch and
// the way to its replay, export and verification.
import { api, type Action, type GameView } from "../api";
import { button, h } from "../dom";
import { t } from "../i18n";
import { go } from "../nav";
import { errorText } from "./account";
import { describe } from "./actions";

export interface Tools {
  /** The game's view after a change made here. */
  changed: (view: GameView) => void;
  note: HTMLElement;
}

function hintButton(game: GameView, tools: Tools): HTMLElement[] {
  const shown = h("span", { "data-testid": "hint", role: "status" });
  const ask = button(
    t("hint"),
    () => {
      api
        .hint(game.id)
        .then((hint) => (shown.textContent = `${t("hintIs")}: ${describe(game, hint.action as Action)}`))
        .catch((err) => (tools.note.textContent = errorText(err)));
    },
    { "data-testid": "ask-hint" },
  );
  return [ask, shown];
}

function resignButton(game: GameView, tools: Tools): HTMLElement {
  const box = h("span", { class: "row" });
  const ask = () =>
    box.replaceChildren(
      button(t("resign"), confirm, { "data-testid": "resign" }),
    );
  const confirm = () =>
    box.replaceChildren(
      h("span", { role: "alert" }, t("resignSure")),
      button(
        t("yes"),
        () => {
          api
            .resign(game.id, game.version)
            .then((result) => tools.changed(result.view))
            .catch((err) => (tools.note.textContent = errorText(err)));
        },
        { "data-testid": "resign-yes" },
      ),
      button(t("no"), ask, { "data-testid": "resign-no" }),
    );
  ask();
  return box;
}

function afterTheGame(game: GameView, tools: Tools): HTMLElement[] {
  const parts: HTMLElement[] = [];
  if (game.rematch) {
    parts.push(h("a", { href: `/games/${game.rematch}`, "data-link": true, "data-testid": "open-rematch" }, t("openRematch")));
  }
  if (game.my_seat !== null && game.my_seat !== undefined) {
    parts.push(
      button(
        t("rematch"),
        () => {
          api
            .rematch(game.id)
            .then((next) => go(`/games/${next.id}`))
            .catch((err) => (tools.note.textContent = errorText(err)));
        },
        { "data-testid": "rematch" },
      ),
    );
  }
  parts.push(h("a", { href: `/replay/${game.id}`, "data-link": true, "data-testid": "replay-link" }, t("replayLink")));
  return parts;
}

export function tableTools(game: GameView, tools: Tools): HTMLElement {
  const seated = game.my_seat !== null && game.my_seat !== undefined;
  const over = game.table.phase.type === "game_over" || game.status === "finished" || game.status === "cancelled";
  const parts: HTMLElement[] = [];
  if (!seated) parts.push(h("p", { "data-testid": "watching" }, t("watching")));
  if (over) parts.push(...afterTheGame(game, tools));
  else if (seated && game.status === "active") {
    if (game.table.legal_actions.length) parts.push(...hintButton(game, tools));
    parts.push(resignButton(game, tools));
  }
  return h("div", { class: "tools row", "data-testid": "tools" }, ...parts);
}
