// A deep link /join/{code}: sign in as a guest when needed, join, and open the table.
import { api } from "../api";
import { h, show } from "../dom";
import { t } from "../i18n";
import { go, redraw } from "../nav";
import { token } from "../session";
import { errorText, signInBlock } from "./account";

export function showJoin(root: HTMLElement, code: string): void {
  if (!token()) {
    show(root, signInBlock(redraw));
    return;
  }
  const note = h("p", { role: "status" }, t("joining"));
  show(root, note);
  api
    .join(code)
    .then((game) => go(`/games/${game.id}`))
    .catch((err) => (note.textContent = errorText(err)));
}
