// The single page: one route per deep link the server answers with this page.
import { showHome } from "./pages/home";
import { showTable } from "./pages/table";
import { showJoin } from "./pages/join";
import { showReplay } from "./pages/replay";
import { h, show } from "./dom";
import { lang, t } from "./i18n";

import { go } from "./nav";

let leave: (() => void) | undefined;

function route(): void {
  leave?.();
  leave = undefined;
  const root = document.getElementById("app");
  if (!root) return;
  const path = location.pathname;
  let m: RegExpMatchArray | null;
  if (path === "/") leave = showHome(root);
  else if ((m = path.match(/^\/games\/([^/]+)$/))) leave = showTable(root, decodeURIComponent(m[1] ?? ""));
  else if ((m = path.match(/^\/replay\/([^/]+)$/))) leave = showReplay(root, decodeURIComponent(m[1] ?? ""));
  else if ((m = path.match(/^\/join\/([^/]+)$/))) showJoin(root, decodeURIComponent(m[1] ?? ""));
  else show(root, h("p", {}, t("notFound")), h("a", { href: "/", "data-link": true }, t("home")));
}

document.documentElement.lang = lang;
document.addEventListener("click", (event) => {
  const link = (event.target as Element | null)?.closest?.("a[data-link]");
  if (link instanceof HTMLAnchorElement && !event.ctrlKey && !event.metaKey) {
    event.preventDefault();
    go(link.pathname);
  }
});
window.addEventListener("popstate", route);
route();
