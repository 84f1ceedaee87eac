// Playing through the pages: read the table from the DOM, press what the page offers, wait
// for the table's answer. And R8 against the full record once the game is over.
import assert from "node:assert/strict";

// Where a digit may stand on a page: slot labels, cards (checked against the record below),
// the round, scores, deadlines, the target in the caption, the invite, usernames, the
// round's summary (public once it ends, R8.2), a hint and the event card's choices (slots).
// A digit anywhere else is a card the page should not show.
const DIGITS_MAY_BE = [".label", ".card", "[data-testid=round]", "[data-testid^=total-]", "[data-deadline]",
  "caption", "[data-testid=invite-code]", "[data-testid=invite-link]", ".summary", ".name",
  "[data-testid=phase]", "[data-testid=hint]", "option", "h1"].join(", ");

export async function tableState(page) {
  return page.evaluate((allowed) => {
    const text = (id) => document.querySelector(`[data-testid="${id}"]`)?.textContent ?? null;
    const rack = {};
    for (const el of document.querySelectorAll('[data-testid^="slot-"]')) rack[el.dataset.testid.slice(5)] = el.textContent;
    // Other racks are face down: nothing but the owner's name may be written there (R8).
    const others = [...document.querySelectorAll(".rack.other ol")].map((ol) => ol.textContent).join("");
    const board = document.querySelector("[data-testid=board]");
    const buttons = [...document.querySelectorAll("[data-testid=board] button[data-testid]")]
      .filter((b) => !b.closest(".tools")).map((b) => b.dataset.testid);
    // Every face-up card on the page, outside the round's summary.
    const cards = [...document.querySelectorAll(".card:not(.back)")]
      .filter((el) => !el.closest(".summary")).map((el) => `${el.dataset.testid ?? "?"}=${el.textContent}`);
    const strays = [];
    const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      if (/[0-9]/.test(n.data) && !n.parentElement?.closest(allowed)) strays.push(`${n.parentElement?.outerHTML.slice(0, 120)}`);
    }
    return {
      cards, strays, inRound: !!document.querySelector("[data-testid=my-rack], [data-testid=discard-top]"),
      version: board?.dataset.version ?? "", busy: board?.hasAttribute("aria-busy") ?? false,
      over: !!document.querySelector("[data-testid=game-over]"),
      discard: text("discard-top"), drawn: text("drawn"), stock: text("stock"), rack, buttons, others,
    };
  }, DIGITS_MAY_BE);
}

// The two-player deck has numbers 1..50 (R1.4): slot i (0-based) wants band i of the values.
const band = (value) => Math.min(11, Math.floor(((value - 1) * 12) / 50));
const slotFor = (value) => (band(value) + 1) * 5;
const fits = (rack, slot) => {
  const v = Number(rack[slot]);
  return !Number.isNaN(v) && slotFor(v) === slot;
};

/** The button a simple player presses now, or null when the page offers none. */
function choose(s) {
  if (s.busy || s.over) return null;
  const has = (id) => s.buttons.includes(id);
  for (const id of ["call_racko", "choose_deal-false", "event-do"]) if (has(id)) return id;
  const blitz = s.buttons.filter((b) => b.startsWith("place_blitz_card-"));
  if (blitz.length) return blitz[0];
  const discard = Number(s.discard);
  if (!Number.isNaN(discard) && has(`take_discard-${slotFor(discard)}`) && !fits(s.rack, slotFor(discard)))
    return `take_discard-${slotFor(discard)}`;
  if (has("draw")) return "draw";
  const drawn = Number(s.drawn);
  if (!Number.isNaN(drawn) && has(`place_drawn-${slotFor(drawn)}`) && !fits(s.rack, slotFor(drawn)))
    return `place_drawn-${slotFor(drawn)}`;
  if (has("discard_drawn")) return "discard_drawn";
  const place = s.buttons.find((b) => b.startsWith("place_drawn-") && !fits(s.rack, Number(b.split("-")[1])));
  return place ?? s.buttons[0] ?? null;
}

const MAX_CLICKS = 1500;
// What each page showed at each step, kept for the comparison with the full record (R8).
const seen = new Map();
function record(page, state) {
  assert.deepEqual(state.strays, [], "a digit where no card may be shown");
  assert.equal(state.others, "", "another rack shows a card");
  if (!state.inRound) return;
  if (!seen.has(page)) seen.set(page, []);
  seen.get(page).push(state);
}

/** Plays until every page shows the game's end, or `limit` clicks; returns the clicks. */
export async function playSome(pages, limit = MAX_CLICKS + 1, watchers = []) {
  let clicks = 0;
  let idleSince = Date.now();
  for (;;) {
    const states = await Promise.all(pages.map(tableState));
    states.forEach((s, i) => record(pages[i], s));
    for (const w of watchers) record(w, await tableState(w));
    if (states.every((s) => s.over) || clicks >= limit) return clicks;
    const seat = states.findIndex((s) => choose(s));
    if (seat < 0) {
      // a computer's move, or an answer on its way: the next page update shows it
      if (Date.now() - idleSince > 30_000) throw new Error(`no page offers a move for 30 s: ${JSON.stringify(states)}`);
      await Promise.race(pages.map((p, i) => p.waitForFunction(([v, busy]) => {
        const b = document.querySelector("[data-testid=board]");
        return !!b && (busy ? !b.hasAttribute("aria-busy") : b.dataset.version !== v);
      }, [states[i].version, states[i].busy], { timeout: 1000, polling: "raf" }).catch(() => undefined)));
      continue;
    }
    idleSince = Date.now();
    const page = pages[seat];
    const id = choose(states[seat]);
    // Use the keyboard for the keyed actions, the mouse for the rest.
    const key = { draw: "d", discard_drawn: "x", call_racko: "r" }[id];
    // The table may have moved on meanwhile (a computer's move, an off-turn Racko call that
    // is no longer open): then the button is gone, and the loop reads the page again.
    const control = page.getByTestId(id);
    const pressed = await (key ? control.press(key, { timeout: 2000 }) : control.click({ timeout: 2000 }))
      .then(() => true, () => false);
    if (!pressed) continue;
    // The action's answer is in when the board shows a new version and is no longer busy.
    await page.waitForFunction((v) => {
      const b = document.querySelector("[data-testid=board]");
      return b && b.dataset.version !== v && !b.hasAttribute("aria-busy");
    }, states[seat].version, { timeout: 15_000 }).catch(async (err) => {
      const note = await page.locator(".note").textContent();
      throw new Error(`${id} changed nothing (page says: ${note}; saw ${JSON.stringify(states[seat])})`, { cause: err });
    });
    if (++clicks > MAX_CLICKS) throw new Error(`no end after ${MAX_CLICKS} clicks`);
  }
}

/**
 * R8 against the full record, once the game is over: every face-up card a page showed during
 * the round is, at one seq of the record, that viewer's own rack slot, the discard pile's top
 * or its drawn card, and its stock the stock's size; a spectator's only the discard's top. The
 * full record: the replay at every seq after the end, which shows everything.
 */
export async function compareWithRecord(page, gameId, seat) {
  const full = await page.evaluate(async (id) => {
    const get = async (seq) => (await (await fetch(`/v1/games/${id}/replay${seq ? `?seq=${seq}` : ""}`, {
      headers: { Authorization: `Bearer ${localStorage.getItem("racko.token")}` } })).json());
    const last = (await get()).last_seq;
    const name = (c) => !c ? "—" : c.kind === "number" ? String(c.value) : c.kind;
    const states = [];
    for (let seq = 1; seq <= last; seq++) {
      const v = (await get(seq)).table;
      states.push({ racks: (v.racks ?? []).map((r) => Object.fromEntries(r.map((s) => [s.slot, name(s.card)]))),
        top: name(v.discard[v.discard.length - 1]), drawn: v.drawn ? name(v.drawn) : null, stock: v.stock_size });
    }
    return states;
  }, gameId);
  // Before the deal there is no rack; from it on, the record shows every seat's.
  const dealt = full.filter((f) => f.racks.length > 0);
  assert.ok(dealt.length > 0 && dealt.every((f) => f.racks.length === dealt[0].racks.length), "the full record shows every rack after the end");
  const shots = seen.get(page) ?? [];
  assert.ok(shots.length > 0, "the page was seen during the round");
  const number = (text) => (/^[0-9]+$/.test(text) ? text : null);
  for (const shot of shots) {
    const fitsSeq = (f) => Number(shot.stock?.match(/^[0-9]+/)?.[0]) === f.stock && shot.cards.every((c) => {
      const [where, text] = c.split("=");
      if (where === "discard-top") return number(text) === null || text === f.top;
      if (where === "drawn") return number(text) === null || text === f.drawn;
      if (where.startsWith("slot-") && seat !== null) return number(text) === null || f.racks[seat][where.slice(5)] === text;
      return false;
    });
    assert.ok(dealt.some(fitsSeq), `a page showed a card that was not its own to see: ${shot.cards.join(" ")} (${shot.stock})`);
  }
  return shots.length;
}
