// A replay: the game after any seq, as the caller may see it (R8), with a scrubber; and the
// game's record to download and verify (R9).
import { api } from "../api";
import { cardText } from "../cards";
import { button, h, show } from "../dom";
import { t } from "../i18n";
import { errorText } from "./account";
import { auditBlock } from "./audit";

const load = api.replay;

export function showReplay(root: HTMLElement, id: string): () => void {
  const note = h("p", { role: "alert", class: "note" });
  const scrub = h("input", { type: "range", min: 0, max: 0, value: 0, id: "scrub", "data-testid": "scrub" });
  const board = h("div", { "data-testid": "replay" });
  const step = (delta: number) => {
    scrub.value = String(Number(scrub.value) + delta);
    draw();
  };
  show(
    root,
    h("p", {}, h("a", { href: "/", "data-link": true }, t("home"))),
    h("h2", {}, t("replay")),
    note,
    h("p", { class: "row" }, button(t("back"), () => step(-1)), h("label", { for: "scrub" }, t("step")), scrub, button(t("forward"), () => step(1))),
    board,
    auditBlock(id, note),
  );
  let asked = 0;
  const draw = () => {
    const mine = ++asked;
    load(id, Number(scrub.value))
      .then((r) => {
        if (mine !== asked) return; // a later step was asked for meanwhile
        const v = r.table;
        const racks = v.racks ?? (v.rack ? [v.rack] : []);
        board.dataset.seq = String(r.seq);
        board.replaceChildren(
          h("p", {}, `${t("step")} ${r.as_of_seq} / ${r.last_seq} · ${t("round")} ${v.round}`),
          h("p", {}, `${t("discardTop")}: ${cardText(v.discard[v.discard.length - 1])} · ${t("stock")}: ${v.stock_size}`),
          ...racks.map((rack) => h("p", { class: "revealed", "data-testid": "replay-rack" }, rack.map((s) => `${s.slot}:${cardText(s.card)}`).join(" "))),
        );
      })
      .catch((err) => (note.textContent = errorText(err)));
  };
  load(id)
    .then((r) => {
      scrub.max = String(r.last_seq);
      scrub.value = String(r.last_seq);
      draw();
    })
    .catch((err) => (note.textContent = errorText(err)));
  scrub.addEventListener("change", draw);
  return () => undefined;
}
