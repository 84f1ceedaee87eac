// Server-Sent Events read through fetch: the API takes its bearer token in the
// Authorization header, which the browser's EventSource cannot send. Like EventSource, it
// keeps the last `id:` and reconnects with `Last-Event-ID`, so nothing is missed or repeated
// after a dropped connection or a server restart.
// When the session is over (signed out everywhere, here or on another device), the server
// sends `event: revoked` and ends the stream: the stream stops for good and says "revoked",
// rather than reconnecting with a dead token and collecting 401s.
import { renew } from "./api";
import { forget, token } from "./session";

export type Status = "live" | "reconnecting" | "revoked";

export interface Stream {
  close(): void;
}

export function follow(
  path: string,
  onEvent: (data: string, kind: string) => void,
  onStatus: (status: Status) => void,
  after = 0,
): Stream {
  let last = String(after);
  let closed = false;
  let controller = new AbortController();
  let wait = 500;

  async function once(): Promise<void> {
    const headers: Record<string, string> = { Accept: "text/event-stream", "Last-Event-ID": last };
    const bearer = token();
    if (bearer) headers.Authorization = `Bearer ${bearer}`;
    const answer = await fetch(path, { headers, signal: controller.signal });
    if (answer.status === 401 && !(await renew())) return revoked();
    if (!answer.ok || !answer.body) throw new Error(`stream answered ${answer.status}`);
    onStatus("live");
    wait = 500;
    const reader = answer.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      let end: number;
      while ((end = buffer.search(/\r?\n\r?\n/)) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, "");
        let data = "";
        let kind = "message";
        for (const line of frame.split(/\r?\n/)) {
          if (line.startsWith("id:")) last = line.slice(3).trim();
          else if (line.startsWith("event:")) kind = line.slice(6).trim();
          else if (line.startsWith("data:")) data += (data ? "\n" : "") + line.slice(5).replace(/^ /, "");
        }
        if (kind === "revoked") return revoked();
        if (data || kind !== "message") onEvent(data, kind);
      }
    }
  }

  function revoked(): void {
    closed = true;
    controller.abort();
    forget();
    onStatus("revoked");
  }

  async function run(): Promise<void> {
    while (!closed) {
      try {
        await once();
      } catch {
        // dropped, refused or aborted: try again below unless closed
      }
      if (closed) return;
      onStatus("reconnecting");
      await new Promise((resolve) => setTimeout(resolve, wait));
      wait = Math.min(wait * 2, 5000);
      controller = new AbortController();
    }
  }
  void run();

  return {
    close() {
      closed = true;
      controller.abort();
    },
  };
}
