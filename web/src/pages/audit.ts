// A game's record (R9): its export as a file, and the server's verification of it: the deck
// of every round re-derived from its revealed seed, every action replayed through the rules.
import { api } from "../api";
import { button, h } from "../dom";
import { t } from "../i18n";
import { errorText } from "./account";

function download(id: string, note: HTMLElement): void {
  api
    .exportRecord(id)
    .then((record) => {
      const file = new Blob([JSON.stringify(record, null, 2)], { type: "application/json" });
      const link = h("a", { href: URL.createObjectURL(file), download: `racko-${id}.json` });
      link.click();
      // the click has taken its copy of the file
      setTimeout(() => URL.revokeObjectURL(link.href), 1000);
    })
    .catch((err) => (note.textContent = errorText(err)));
}

function verify(id: string, shown: HTMLElement, note: HTMLElement): void {
  api
    .verify(id)
    .then((result) => {
      shown.dataset.verified = String(result.verified);
      const report = result.report;
      shown.replaceChildren(
        h("strong", {}, result.verified ? `✔ ${t("verified")}` : `✘ ${t("notVerified")}`),
        report
          ? h(
              "ul",
              {},
              ...(
                [
                  ["rounds", report.rounds],
                  ["actions", report.actions],
                  ["decks", report.decks],
                  ["commitments", report.commitments],
                  ["events", report.events],
                  ["timeouts", report.timeouts],
                ] as const
              ).map(([what, n]) => h("li", {}, `${what}: ${n}`)),
            )
          : h("p", {}, result.discrepancy ?? ""),
      );
    })
    .catch((err) => (note.textContent = errorText(err)));
}

export function auditBlock(id: string, note: HTMLElement): HTMLElement {
  const shown = h("div", { "data-testid": "verification", role: "status" });
  return h(
    "section",
    { "aria-labelledby": "audith" },
    h("h2", { id: "audith" }, t("verify")),
    h(
      "p",
      { class: "row" },
      button(t("download"), () => download(id, note), { "data-testid": "download" }),
      button(t("verify"), () => verify(id, shown, note), { "data-testid": "verify" }),
    ),
    shown,
  );
}
