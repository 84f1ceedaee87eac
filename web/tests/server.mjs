// The server under test: `racko serve` on embedded SQLite in a temp dir, on a free port.
// Ready means /readyz answers 200 (the store is open and migrated); stopped means the process
// has exited (SIGTERM: streams end at once, requests in flight finish).
import { spawn } from "node:child_process";
import { mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";

const freePort = () => new Promise((resolve) => {
  const s = createServer().listen(0, "127.0.0.1", () => { const p = s.address().port; s.close(() => resolve(p)); });
});

export async function testServer(racko) {
  const work = mkdtempSync(`${tmpdir()}/racko-web-`);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  let child = null;
  const logText = () => readFileSync(`${work}/server.log`, "utf8");

  async function start() {
    const log = openSync(`${work}/server.log`, "a");
    child = spawn(racko, ["serve"], {
      stdio: ["ignore", log, log],
      env: { ...process.env, DATABASE_URL: `sqlite://${work}/racko.sqlite3`, RACKO_BIND: `127.0.0.1:${port}`,
        RACKO_AUTH_PER_MINUTE: "0", RACKO_ENV: "development", RACKO_LOG_FORMAT: "text", RUST_LOG: "warn" },
    });
    // A loaded machine may take a while to open and migrate the store: wait on /readyz, with
    // a generous bound, and give up at once if the process has died.
    const until = Date.now() + 60_000;
    while (Date.now() < until) {
      if (child.exitCode !== null) throw new Error(`the server exited: ${logText()}`);
      try { if ((await fetch(`${base}/readyz`)).ok) return; } catch { /* not listening yet */ }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`the server was not ready within 60 s: ${logText()}`);
  }

  async function stop() {
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    await exited;
  }

  async function close() {
    await stop().catch(() => undefined);
    rmSync(work, { recursive: true, force: true });
  }

  return { base, start, stop, close, log: () => logText().slice(-4000) };
}
