// Browser tests of the client against a real server (scripts/check-web.sh runs them):
//   node tests/browser.mjs RACKO_BINARY SCREENSHOT_DIR
// It starts `racko serve` on embedded SQLite in a temp dir (and restarts it mid-game once).
// Debian's chromium, driven by playwright-core (no browser download). Players act only
// through the pages: they read the DOM and click the buttons the page offers.
import { chromium } from "playwright-core";
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import assert from "node:assert/strict";

const [racko, shots] = process.argv.slice(2);
const AXE = readFileSync(new URL("../node_modules/axe-core/axe.min.js", import.meta.url), "utf8");
mkdirSync(shots, { recursive: true });
const work = mkdtempSync(`${tmpdir()}/racko-web-`);
const port = await new Promise((resolve) => {
  const s = createServer().listen(0, "127.0.0.1", () => { const p = s.address().port; s.close(() => resolve(p)); });
});
const base = `http://127.0.0.1:${port}`;
let server;

async function startServer() {
  const log = openSync(`${work}/server.log`, "a");
  server = spawn(racko, ["serve"], {
    stdio: ["ignore", log, log],
    env: { ...process.env, DATABASE_URL: `sqlite://${work}/racko.sqlite3`, RACKO_BIND: `127.0.0.1:${port}`,
      RACKO_AUTH_PER_MINUTE: "0", RACKO_ENV: "development", RACKO_LOG_FORMAT: "text", RUST_LOG: "warn" },
  });
  for (let i = 0; i < 150; i++) {
    if (server.exitCode !== null) throw new Error(`the server exited: ${readFileSync(`${work}/server.log`, "utf8")}`);
    try { if ((await fetch(`${base}/readyz`)).ok) return; } catch { /* not yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("the server did not start");
}

async function stopServer() {
  const exited = new Promise((r) => server.once("exit", r));
  server.kill("SIGTERM");
  await exited;
}
await startServer();
const HOSTILE = "<img src=x onerror=alert(1)>";
const MAX_STEPS = 1500;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync"],
});

const problems = [];
const signedOut = new Set();
// While the server is down on purpose, the browser's failed requests are expected.
let restarting = false;
async function newPage(viewport = { width: 1280, height: 900 }) {
  const context = await browser.newContext({ viewport, locale: "en-GB" });
  const page = await context.newPage();
  page.on("console", (m) => {
    if (m.type() !== "error" || restarting) return;
    // Once signed out everywhere, a request already on its way with the old token is refused,
    // as it should be; the browser logs that 401 as an error.
    if (signedOut.has(page) && m.text().includes("status of 401")) return;
    problems.push(`console: ${m.text()} ${m.location().url ?? ""}`);
  });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("dialog", (d) => { problems.push(`dialog: ${d.message()}`); void d.dismiss(); });
  return page;
}

async function signIn(page) {
  await page.goto(base + "/");
  await page.getByTestId("guest").click();
  await page.getByTestId("me").waitFor();
}

// The two-player deck has numbers 1..50 (R1.4): slot i (0-based) wants band i of the values.
const band = (value) => Math.min(11, Math.floor(((value - 1) * 12) / 50));
const slotFor = (value) => (band(value) + 1) * 5;

async function tableState(page) {
  return page.evaluate(() => {
    const text = (id) => document.querySelector(`[data-testid="${id}"]`)?.textContent ?? null;
    const rack = {};
    for (const el of document.querySelectorAll('[data-testid^="slot-"]')) rack[el.dataset.testid.slice(5)] = el.textContent;
    // Other racks are face down: nothing but the owner's name may be written there (R8).
    const others = [...document.querySelectorAll(".rack.other ol")].map((ol) => ol.textContent).join("");
    const buttons = [...document.querySelectorAll("[data-testid=board] button[data-testid]")]
      .filter((b) => !b.closest(".tools")).map((b) => b.dataset.testid);
    // Every face-up card on the table, outside the round's summary (public once it ends, R8.2).
    const cards = [...document.querySelectorAll("[data-testid=board] .card:not(.back)")]
      .filter((el) => !el.closest(".summary")).map((el) => `${el.dataset.testid ?? "?"}=${el.textContent}`);
    return {
      cards, inRound: !!document.querySelector("[data-testid=my-rack], [data-testid=discard-top]"),
      version: document.querySelector("[data-testid=board]")?.dataset.version ?? "",
      over: !!document.querySelector("[data-testid=game-over]"),
      discard: text("discard-top"), drawn: text("drawn"), rack, buttons, others,
    };
  });
}

const fits = (rack, slot) => {
  const v = Number(rack[slot]);
  return !Number.isNaN(v) && slotFor(v) === slot;
};

/** The button a simple player presses now, or null when the page offers none. */
function choose(s) {
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

const playToEnd = (pages, watchers) => playSome(pages, MAX_STEPS + 1, watchers);

// What each page showed at each step, kept for the comparison with the full record (R8).
const seen = new Map();
function record(page, state) {
  if (!state.inRound) return;
  if (!seen.has(page)) seen.set(page, []);
  seen.get(page).push(state);
}

/** Plays until every page shows the game's end or `limit` clicks; returns the clicks. */
async function playSome(pages, limit, watchers = []) {
  let steps = 0;
  for (;;) {
    const states = await Promise.all(pages.map(tableState));
    for (const s of states) assert.equal(s.others, "", "another rack shows a card");
    states.forEach((s, i) => record(pages[i], s));
    for (const w of watchers) record(w, await tableState(w));
    if (states.every((s) => s.over) || steps >= limit) return steps;
    const seat = states.findIndex((s) => !s.over && choose(s));
    if (seat < 0) {
      await pages[0].waitForTimeout(50);
      continue;
    }
    const page = pages[seat];
    const id = choose(states[seat]);
    // Use the keyboard for the keyed actions, the mouse for the rest.
    const key = { draw: "d", discard_drawn: "x", call_racko: "r" }[id];
    // The table may have moved on meanwhile (a computer's move, an off-turn Racko call that
    // is no longer open): then the button is gone, and the loop reads the page again.
    const pressed = await (key ? page.getByTestId(id).press(key, { timeout: 2000 }) : page.getByTestId(id).click({ timeout: 2000 }))
      .then(() => true, () => false);
    if (!pressed) continue;
    await page.waitForFunction((v) => document.querySelector("[data-testid=board]")?.dataset.version !== v,
      states[seat].version, { timeout: 10000 }).catch(async (err) => {
      const note = await page.locator(".note").textContent();
      if (await page.evaluate((v) => document.querySelector("[data-testid=board]")?.dataset.version !== v, states[seat].version)) return;
      throw new Error(`${id} changed nothing (page says: ${note}; saw ${JSON.stringify(states[seat])})`, { cause: err });
    });
    if (++steps > MAX_STEPS) throw new Error(`no end after ${MAX_STEPS} clicks`);
  }
}

/**
 * R8 against the full record, once the game is over: every face-up card a page showed during
 * the round is, at some seq of the record, that viewer's own rack slot, the discard pile's top
 * or its drawn card; a spectator's only the discard's top (or an event card carried out in
 * the open). The full record: the replay at every seq after the end, which shows everything.
 */
async function compareWithRecord(page, gameId, seat) {
  const full = await page.evaluate(async (id) => {
    const get = async (seq) => (await (await fetch(`/v1/games/${id}/replay${seq ? `?seq=${seq}` : ""}`, {
      headers: { Authorization: `Bearer ${localStorage.getItem("racko.token")}` } })).json());
    const last = (await get()).last_seq;
    const name = (c) => !c ? "—" : c.kind === "number" ? String(c.value) : c.kind;
    const states = [];
    for (let seq = 1; seq <= last; seq++) {
      const v = (await get(seq)).table;
      states.push({ racks: (v.racks ?? []).map((r) => Object.fromEntries(r.map((s) => [s.slot, name(s.card)]))),
        top: name(v.discard[v.discard.length - 1]), drawn: v.drawn ? name(v.drawn) : null });
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
    const fits = dealt.some((f) => shot.cards.every((c) => {
      const [where, text] = c.split("=");
      if (where === "discard-top") return number(text) === null || text === f.top;
      if (where === "drawn") return number(text) === null || text === f.drawn;
      if (where.startsWith("slot-") && seat !== null) return number(text) === null || f.racks[seat][where.slice(5)] === text;
      return false;
    }));
    assert.ok(fits, `a page showed a card that was not its own to see: ${shot.cards.join(" ")}`);
  }
  return shots.length;
}

/** axe-core in the page (through the debugger, which the CSP does not govern): no serious or critical violation. */
const scanned = [];
async function scan(page, name) {
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const result = await window.axe.run(document, { resultTypes: ["violations"] });
    return result.violations.filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  });
  assert.deepEqual(violations, [], `accessibility of ${name}`);
  scanned.push(name);
}

async function shoot(page, name) {
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: `${shots}/${name}-${width}.png`, fullPage: true });
  }
}

const timings = {};
try {

// 1. One player against a computer seat, with the computer's name made hostile on the way in
// (the API refuses such usernames, so the test rewrites its answers to check the rendering).
{
  const started = Date.now();
  const page = await newPage();
  await page.route(/\/v1\/games\/[0-9a-f-]+$/, async (route) => {
    const answer = await route.fetch();
    const body = await answer.json();
    for (const p of body.players ?? []) if (p.computer) p.username = HOSTILE;
    await route.fulfill({ response: answer, json: body });
  });
  await page.goto(base + "/");
  await scan(page, "sign-in");
  await signIn(page);
  await scan(page, "home");
  await page.fill("#target", "100");
  await page.selectOption("#seat-1", "basic");
  await page.getByTestId("create").click();
  await page.waitForURL(/\/games\//);
  await page.getByTestId("my-rack").waitFor();
  const labels = await page.$$eval('[data-testid^="slot-"]', (els) => els.map((e) => e.dataset.testid.slice(5)).join(","));
  assert.equal(labels, "5,10,15,20,25,30,35,40,45,50,55,60");
  await page.getByText(HOSTILE).first().waitFor();
  assert.equal(await page.locator("img").count(), 0, "a username became markup");
  // A fresh load of the deep link: how soon after navigation the table is drawn.
  await page.reload();
  await page.getByTestId("my-rack").waitFor();
  const tti = await page.evaluate(() => {
    const mark = performance.getEntriesByName("racko-table")[0];
    return mark ? Math.round(mark.startTime) : null;
  });
  timings.tableInteractiveMs = tti;
  await scan(page, "table");
  await shoot(page, "table");
  const clicks = await playToEnd([page]);
  await page.getByTestId("winners").waitFor();
  await scan(page, "game over");
  await shoot(page, "game-over");
  timings.soloGame = { clicks, seconds: (Date.now() - started) / 1000 };
  // The replay at a few seqs shows what the API answers this viewer for that seq.
  const gameId = new URL(page.url()).pathname.split("/")[2];
  await page.goto(`${base}/replay/${gameId}`);
  await page.locator("[data-testid=replay][data-seq]").waitFor({ timeout: 5000 }).catch(async (err) => {
    throw new Error(`no replay: ${await page.locator("main").textContent()}`, { cause: err });
  });
  const last = Number(await page.locator("#scrub").getAttribute("max"));
  for (const seq of [1, Math.floor(last / 2), last]) {
    await page.locator("#scrub").fill(String(seq));
    await page.locator(`[data-testid=replay][data-seq="${seq}"]`).waitFor();
    const expected = await page.evaluate(async ([id, seq]) => {
      const answer = await fetch(`/v1/games/${id}/replay?seq=${seq}`, {
        headers: { Authorization: `Bearer ${localStorage.getItem("racko.token")}` },
      });
      const v = (await answer.json()).table;
      const name = (c) => !c ? "—" : c.kind === "number" ? String(c.value) : null;
      return (v.racks ?? (v.rack ? [v.rack] : [])).map((r) => r.map((s) => `${s.slot}:${name(s.card)}`).join(" "));
    }, [gameId, seq]);
    const shown = await page.getByTestId("replay-rack").allTextContents();
    assert.equal(shown.length, expected.length, `racks at seq ${seq}`);
    shown.forEach((text, i) => {
      // event cards and jokers are words on the page; numbers and slots must agree exactly
      const want = expected[i].split(" ");
      text.split(" ").forEach((cell, j) => { if (!want[j].endsWith(":null")) assert.equal(cell, want[j], `seq ${seq}`); });
    });
  }
  await scan(page, "replay");
  await page.context().close();
}

// 2. Two people, two browser contexts, and a third watching: invite by link, play to the end.
{
  const started = Date.now();
  const [ann, ben, cy] = [await newPage(), await newPage({ width: 390, height: 844 }), await newPage()];
  await signIn(ann);
  await ann.fill("#target", "1");
  await ann.selectOption("#spectators", "anyone");
  await ann.getByTestId("create").click();
  const link = await ann.getByTestId("invite-link").textContent();
  const gameId = new URL(ann.url()).pathname.split("/")[2];
  await signIn(ben);
  await ben.goto(link);
  await ben.waitForURL(/\/games\//);
  await ben.getByTestId("my-rack").waitFor();
  await ann.getByTestId("my-rack").waitFor(); // the stream told ann's page that ben joined
  await signIn(cy);
  await cy.goto(`${base}/games/${gameId}`);
  await cy.getByTestId("watching").waitFor();
  await cy.getByTestId("discard-top").waitFor();
  await scan(cy, "spectator");
  // A hint for whoever is to move.
  const hinted = (await ann.getByTestId("ask-hint").count()) ? ann : ben;
  await hinted.getByTestId("ask-hint").click();
  await hinted.getByTestId("hint").filter({ hasText: /./ }).waitFor();
  // A few moves, then the server restarts; the pages pick up without a reload.
  const pages = [ann, ben, cy];
  let clicks = await playSome([ann, ben], 4, [cy]);
  const navigations = await Promise.all(pages.map((p) => p.evaluate(() => performance.getEntriesByType("navigation").length + ":" + performance.timeOrigin)));
  restarting = true;
  await stopServer();
  for (const page of pages) await page.locator("[data-testid=live][data-state=reconnecting]").waitFor();
  await startServer();
  for (const page of pages) await page.locator("[data-testid=live][data-state=live]").waitFor({ timeout: 15000 });
  restarting = false;
  clicks += await playToEnd([ann, ben], [cy]);
  const after = await Promise.all(pages.map((p) => p.evaluate(() => performance.getEntriesByType("navigation").length + ":" + performance.timeOrigin)));
  assert.deepEqual(after, navigations, "a page reloaded");
  for (const page of pages) await page.getByTestId("winners").waitFor();
  timings.twoPlayerGame = { clicks, seconds: (Date.now() - started) / 1000 };
  timings.comparedWithRecord = {
    ann: await compareWithRecord(ann, gameId, 0),
    ben: await compareWithRecord(ben, gameId, 1),
    spectator: await compareWithRecord(cy, gameId, null),
  };
  // The record: verified by the server, and downloaded as a file.
  await ann.getByTestId("replay-link").click();
  await ann.getByTestId("verify").click();
  await ann.locator("[data-testid=verification][data-verified=true]").waitFor();
  const [download] = await Promise.all([ann.waitForEvent("download"), ann.getByTestId("download").click()]);
  const exported = JSON.parse(readFileSync(await download.path(), "utf8"));
  assert.equal(exported.format, "racko-game-export");
  assert.equal(exported.complete, true);
  // A rematch: ben asks and finds it open among his running games; ann finds the old one
  // among her finished games.
  await ben.getByTestId("rematch").click();
  await ben.waitForURL((url) => !url.pathname.endsWith(gameId));
  await ben.getByTestId("invite-code").waitFor();
  await ben.goto(base + "/");
  await ben.getByTestId("inbox").getByText("waiting for players").first().waitFor();
  await ann.goto(base + "/");
  await ann.getByTestId("tab-finished").click();
  await ann.locator("[data-testid=inbox][data-filter=finished]").getByText("finished").first().waitFor();
  await scan(ann, "home, finished games");
  // Signed out everywhere: the page asks to sign in again, and the old token is refused.
  const old = await ann.evaluate(() => localStorage.getItem("racko.token"));
  signedOut.add(ann);
  await ann.getByTestId("sign-out-everywhere").click();
  await ann.getByTestId("guest").waitFor();
  const refused = (await fetch(`${base}/v1/accounts/me`, { headers: { Authorization: `Bearer ${old}` } })).status;
  assert.equal(refused, 401);
  for (const page of pages) await page.context().close();
}

// 3. A registered account: register, sign out, sign in with the password, start a game
// against the computer and resign it.
{
  const page = await newPage({ width: 390, height: 844 });
  const name = `dee-${Date.now() % 100000}`;
  await page.goto(base + "/");
  await page.fill("#username", name);
  await page.fill("#password", "correct horse battery");
  await page.getByTestId("register").click();
  await page.getByTestId("me").filter({ hasText: name }).waitFor();
  await page.getByTestId("sign-out").click();
  await page.fill("#username", name);
  await page.fill("#password", "correct horse battery");
  await page.getByTestId("sign-in").click();
  await page.getByTestId("me").filter({ hasText: name }).waitFor();
  await page.selectOption("#turn-time", "60");
  await page.selectOption("#players", "3");
  await page.selectOption("#seat-1", "random");
  await page.selectOption("#seat-2", "strong");
  await page.getByTestId("create").click();
  await page.getByTestId("my-rack").waitFor();
  assert.equal(await page.locator(".rack.other").count(), 2, "two other racks at a table of three");
  // With two players, resigning ends the game at once (R10.3).
  await page.goto(base + "/");
  await page.selectOption("#turn-time", "60");
  await page.selectOption("#seat-1", "strong");
  await page.getByTestId("create").click();
  await page.getByTestId("my-rack").waitFor();
  await page.locator("[data-deadline]").first().waitFor();
  await page.getByTestId("resign").click();
  await page.getByTestId("resign-yes").click();
  await page.getByTestId("game-over").waitFor();
  await page.context().close();
}

} catch (err) {
  console.error(readFileSync(`${work}/server.log`, "utf8").slice(-4000));
  throw err;
} finally {
  await browser.close();
  await stopServer().catch(() => undefined);
  rmSync(work, { recursive: true, force: true });
}
assert.deepEqual(problems, [], "console errors, page errors or dialogs");
console.log(JSON.stringify({ ...timings, axeScanned: scanned }));
