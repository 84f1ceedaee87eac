// Round-end and game-end summaries: why the round ended, its scores and the racks, which are
// public once the round is over (R8.2).
import type { GameView, RoundResult } from "../api";
import { cardText } from "../cards";
import { h } from "../dom";
import { t } from "../i18n";

export function roundSummary(game: GameView, last: RoundResult): HTMLElement {
  const name = (seat: number) => game.players.find((p) => p.seat === seat)?.username ?? `${t("seat")} ${seat}`;
  const why =
    last.end.type === "stock_exhausted" ? t("stockExhausted") : `${t("racko")} ${name(last.end.seat)}`;
  const over = game.table.phase.type === "game_over";
  const winners = game.table.phase.type === "game_over" ? game.table.phase.winners.map(name).join(", ") : "";
  return h(
    "section",
    { class: "summary", "aria-labelledby": "sumh", "data-testid": over ? "game-over" : "round-over" },
    h("h2", { id: "sumh" }, over ? t("gameOver") : `${t("roundEnd")} (${t("round")} ${last.round})`),
    over ? h("p", { "data-testid": "winners" }, `${t("winners")}: `, h("strong", {}, winners)) : null,
    h("p", {}, why),
    h(
      "table",
      {},
      h(
        "tbody",
        {},
        ...game.players.map((p) =>
          h(
            "tr",
            {},
            h("th", { scope: "row" }, h("span", { class: "name" }, p.username)),
            h("td", {}, `+${last.scores[p.seat] ?? 0}`),
            h("td", { class: "revealed" }, (last.racks[p.seat] ?? []).map(cardText).join(" ")),
          ),
        ),
      ),
    ),
  );
}
