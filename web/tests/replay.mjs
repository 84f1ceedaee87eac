// The replay page at every seq against `GET /v1/games/{id}/replay?seq=` for the same viewer:
// the page's text, step by step (the back button, then the scrubber), must be what the answer
// says, written as the page writes it (English: the test's browsers run in en-GB).
import assert from "node:assert/strict";

const WORDS = { joker: "Joker", card_swap: "Card swap", skip: "Skip", rack_swap: "Rack swap" };

/** Every seq from the last down to the first; returns how many were compared. */
export async function checkReplay(page, base, gameId) {
  await page.goto(`${base}/replay/${gameId}`);
  await page.locator("[data-testid=replay][data-seq]").waitFor({ timeout: 10_000 }).catch(async (err) => {
    throw new Error(`no replay: ${await page.locator("main").textContent()}`, { cause: err });
  });
  const last = Number(await page.locator("#scrub").getAttribute("max"));
  assert.ok(last > 0, "the replay has seqs");
  const answers = await page.evaluate(async ([id, last, words]) => {
    const name = (c) => !c ? "—" : c.kind === "number" ? String(c.value) : words[c.kind];
    const texts = {};
    for (let seq = 1; seq <= last; seq++) {
      const answer = await fetch(`/v1/games/${id}/replay?seq=${seq}`, {
        headers: { Authorization: `Bearer ${localStorage.getItem("racko.token")}` },
      });
      const r = await answer.json();
      const v = r.table;
      const racks = v.racks ?? (v.rack ? [v.rack] : []);
      texts[seq] = [`Step ${r.as_of_seq} / ${r.last_seq} · Round ${v.round}`,
        `Discard pile: ${name(v.discard[v.discard.length - 1])} · Stock: ${v.stock_size}`,
        ...racks.map((rack) => rack.map((s) => `${s.slot}:${name(s.card)}`).join(" "))].join("");
    }
    return texts;
  }, [gameId, last, WORDS]);
  const shown = () => page.getByTestId("replay").textContent();
  // the last seq first (where the page opens), then one step back at a time
  for (let seq = last; seq >= 1; seq--) {
    if (seq < last) await page.getByRole("button", { name: "Back", exact: true }).click();
    await page.locator(`[data-testid=replay][data-seq="${seq}"]`).waitFor({ timeout: 5000 });
    assert.equal(await shown(), answers[seq], `the replay at seq ${seq}`);
  }
  // and forward again, and a jump with the scrubber
  await page.getByRole("button", { name: "Forward", exact: true }).click();
  await page.locator('[data-testid=replay][data-seq="2"]').waitFor({ timeout: 5000 });
  const middle = Math.max(1, Math.floor(last / 2));
  await page.locator("#scrub").fill(String(middle));
  await page.locator(`[data-testid=replay][data-seq="${middle}"]`).waitFor({ timeout: 5000 });
  assert.equal(await shown(), answers[middle], `the replay at seq ${middle}, by the scrubber`);
  return last;
}
