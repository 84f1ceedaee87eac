// Signing in (as a guest, with a new account or with a password) and signing out, on this
// device or everywhere.
import { api, ApiError, idle, type AuthResponse } from "../api";
import { button, h } from "../dom";
import { t } from "../i18n";
import { forget, remember, username } from "../session";

export function errorText(err: unknown): string {
  return err instanceof ApiError ? `${err.message} (${err.code})` : String(err);
}

function signedIn(auth: AuthResponse, after: () => void): void {
  remember(auth.token, auth.account.username, auth.refresh_token);
  after();
}

/** Username and password, sent to register or to sign in. */
function credentialsForm(note: HTMLElement, after: () => void): HTMLElement {
  const name = h("input", {
    id: "username",
    autocomplete: "username",
    required: true,
    minlength: 3,
    maxlength: 32,
    pattern: "[A-Za-z0-9_\\-]{3,32}",
    spellcheck: "false",
  });
  const password = h("input", { id: "password", type: "password", autocomplete: "current-password", required: true, minlength: 8, maxlength: 128 });
  const form = h(
    "form",
    { "aria-labelledby": "credh", class: "stack" },
    h("h3", { id: "credh" }, t("withPassword")),
    h("p", {}, h("label", { for: "username" }, t("username")), " ", name),
    h("p", {}, h("label", { for: "password" }, t("password")), " ", password),
    h(
      "p",
      { class: "row" },
      h("button", { type: "submit", value: "signin", "data-testid": "sign-in" }, t("signIn")),
      h("button", { type: "submit", value: "register", "data-testid": "register" }, t("register")),
    ),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const body = { username: name.value.trim(), password: password.value };
    const register = (event.submitter as HTMLButtonElement | null)?.value === "register";
    (register ? api.register(body) : api.signIn(body))
      .then((auth) => signedIn(auth, after))
      .catch((err) => (note.textContent = errorText(err)));
  });
  return form;
}

export function signInBlock(after: () => void): HTMLElement {
  const note = h("p", { role: "alert", class: "note" });
  return h(
    "section",
    { "aria-labelledby": "signin" },
    h("h2", { id: "signin" }, t("title")),
    button(
      t("guest"),
      () => {
        api
          .guest()
          .then((auth) => signedIn(auth, after))
          .catch((err) => (note.textContent = errorText(err)));
      },
      { "data-testid": "guest" },
    ),
    credentialsForm(note, after),
    note,
  );
}

/**
 * Who is signed in, and the two ways out. Before signing out everywhere, `quiet` stops the
 * page's streams (it returns what starts them again) and the calls under way finish, so that
 * nothing is sent with a token the server has just revoked.
 */
export function accountBar(note: HTMLElement, after: () => void, quiet: () => () => void = () => () => undefined): HTMLElement {
  return h(
    "header",
    { class: "row" },
    h("span", {}, `${t("signedInAs")} `, h("strong", { "data-testid": "me", class: "name" }, username() ?? "")),
    button(
      t("signOut"),
      () => {
        forget();
        after();
      },
      { "data-testid": "sign-out" },
    ),
    button(
      t("signOutEverywhere"),
      () => {
        const resume = quiet();
        idle()
          .then(() => api.signOutEverywhere())
          .then(() => {
            forget();
            after();
          })
          .catch((err) => {
            resume();
            note.textContent = errorText(err);
          });
      },
      { "data-testid": "sign-out-everywhere" },
    ),
  );
}
