// A replay: the game after any seq, as the caller may see it (R8), with a scrubber.
import type { Schemas } from "../api";
import { ApiError } from "../api";
import { cardText } from "../cards";
import { button, h, show } from "../dom";
import { t } from "../i18n";
import { token } from "../session";
import { errorText } from "./home";

type Replay = Schemas["ReplayView"];

async function load(id: string, seq?: number): Promise<Replay> {
  const query = seq === undefined ? "" : `?seq=${seq}`;
  const headers: Record<string, string> = { Accept: "application/json" };
  const bearer = token();
  if (bearer) headers.Authorization = `Bearer ${bearer}`;
  const answer = await fetch(`/v1/games/${encodeURIComponent(id)}/replay${query}`, { headers });
  const body = (await answer.json()) as Replay & Partial<Schemas["Problem"]>;
  if (!answer.ok) throw new ApiError(answer.status, String(body.code), body.detail ?? "");
  return body;
}

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
