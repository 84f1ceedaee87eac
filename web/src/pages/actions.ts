// Every action of `legal_actions` as a control: slot actions next to their slot, the rest in
// a panel. Nothing here decides what is legal; the server's list is all there is.
import type { Action, GameView, View } from "../api";
import { button, h } from "../dom";
import { t } from "../i18n";

export function slotAction(view: View, slot: number, act: (a: Action) => void): HTMLElement[] {
  return view.legal_actions
    .filter((a) => (a.type === "take_discard" || a.type === "place_drawn" || a.type === "place_blitz_card") && a.slot === slot)
    .map((a) => {
      const label = a.type === "take_discard" ? t("takeHere") : a.type === "place_drawn" ? t("placeHere") : t("blitzHere");
      return button(label, () => act(a), { "data-testid": `${a.type}-${slot}`, "aria-label": `${label}: ${t("slot")} ${slot}` });
    });
}

/** An action in words (the event choices' list, a hint). */
export function describe(game: GameView, a: Action): string {
  const name = (seat: number) => game.players.find((p) => p.seat === seat)?.username ?? `${t("seat")} ${seat}`;
  switch (a.type) {
    case "swap_card":
      return `${t("swapCard")}: ${t("slot")} ${a.my_slot} ↔ ${name(a.with)} ${t("slot")} ${a.their_slot}`;
    case "swap_racks":
      return `${t("swapRacks")} ${name(a.with)}`;
    case "draw":
      return t("draw");
    case "discard_drawn":
      return t("discardDrawn");
    case "call_racko":
      return t("callRacko");
    case "choose_deal":
      return a.blitz ? t("blitzDeal") : t("normalDeal");
    case "take_discard":
      return `${t("takeHere")}: ${t("slot")} ${a.slot}`;
    case "place_drawn":
      return `${t("placeHere")}: ${t("slot")} ${a.slot}`;
    case "place_blitz_card":
      return `${t("blitzHere")}: ${t("slot")} ${a.slot}`;
  }
}

export function actionPanel(game: GameView, act: (a: Action) => void): HTMLElement {
  const actions = game.table.legal_actions;
  const controls: HTMLElement[] = [];
  for (const a of actions) {
    if (a.type === "draw") controls.push(button(t("draw"), () => act(a), { "data-testid": "draw", "aria-keyshortcuts": "d" }));
    if (a.type === "discard_drawn")
      controls.push(button(t("discardDrawn"), () => act(a), { "data-testid": "discard_drawn", "aria-keyshortcuts": "x" }));
    if (a.type === "call_racko")
      controls.push(button(t("callRacko"), () => act(a), { "data-testid": "call_racko", class: "racko", "aria-keyshortcuts": "r" }));
    if (a.type === "choose_deal")
      controls.push(button(a.blitz ? t("blitzDeal") : t("normalDeal"), () => act(a), { "data-testid": `choose_deal-${a.blitz}` }));
  }
  // Event cards offer many choices: one list and one button.
  const choices = actions.filter((a) => a.type === "swap_card" || a.type === "swap_racks");
  if (choices.length) {
    const select = h("select", { id: "event-choice", "data-testid": "event-choice" }, ...choices.map((a, i) => h("option", { value: i }, describe(game, a))));
    controls.push(
      h("label", { for: "event-choice" }, t("swapCard")),
      select,
      button(t("doIt"), () => {
        const chosen = choices[Number(select.value)];
        if (chosen) act(chosen);
      }, { "data-testid": "event-do" }),
    );
  }
  return h("div", { class: "actions row", "data-testid": "actions" }, ...controls, actions.length ? h("p", { class: "hint" }, t("keys")) : null);
}
