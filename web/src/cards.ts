// How cards and slots read on the page.
import type { Card } from "./api";
import { t } from "./i18n";

export function cardText(card: Card | null | undefined): string {
  if (!card) return "—";
  switch (card.kind) {
    case "number":
      return String(card.value);
    case "joker":
      return t("joker");
    case "card_swap":
      return t("cardSwap");
    case "skip":
      return t("skip");
    case "rack_swap":
      return t("rackSwap");
  }
}
