// Creating a game: players, every variant option, turn time, who may find and watch it, and
// which seats the computer plays at which level. Bounds are the API document's (Options).
import { api, type Schemas } from "../api";
import { h } from "../dom";
import { t, type Key } from "../i18n";
import { go } from "../nav";
import { errorText } from "./account";

type Level = Schemas["Level"];
const LEVELS: Level[] = ["basic", "random", "strong"];
// Seconds (R10.1): 60 to 30 days; "" is no deadline.
const TURN_TIMES: [string, Key][] = [
  ["", "noDeadline"],
  ["60", "oneMinute"],
  ["300", "fiveMinutes"],
  ["3600", "oneHour"],
  ["86400", "oneDay"],
  ["259200", "threeDays"],
  ["604800", "oneWeek"],
];

function select(id: string, options: [string, string][], value: string): HTMLSelectElement {
  return h("select", { id }, ...options.map(([v, text]) => h("option", v === value ? { value: v, selected: true } : { value: v }, text)));
}

function field(id: string, label: Key, control: HTMLElement): HTMLElement {
  return h("p", {}, h("label", { for: id }, t(label)), " ", control);
}

function check(id: string, label: Key): [HTMLElement, HTMLInputElement] {
  const box = h("input", { id, type: "checkbox" });
  return [h("p", {}, box, " ", h("label", { for: id }, t(label))), box];
}

export function newGameForm(note: HTMLElement): HTMLElement {
  const players = select("players", [["2", "2"], ["3", "3"], ["4", "4"]], "2");
  const target = h("input", { id: "target", type: "number", min: 1, max: 1000000, value: 500, required: true });
  const turnTime = select("turn-time", TURN_TIMES.map(([v, k]) => [v, t(k)]), "259200");
  const timeouts = h("input", { id: "timeouts", type: "number", min: 1, max: 20, value: 3, required: true });
  const blitz = select("blitz", [["off", t("blitzOff")], ["every_round", t("blitzEvery")], ["dealers_choice", t("blitzChoice")]], "off");
  const [bonusRow, bonus] = check("bonus", "bonus");
  const [partnerRow, partner] = check("partner", "partner");
  const visibility = select("visibility", [["unlisted", t("unlisted")], ["public", t("public")], ["private", t("private")]], "unlisted");
  const spectators = select("spectators", [["nobody", t("watchNobody")], ["anyone", t("watchAnyone")]], "nobody");
  const seats = h("div", { "data-testid": "computer-seats" });
  const seatChoices: HTMLSelectElement[] = [];
  const drawSeats = () => {
    const n = Number(players.value);
    const before = seatChoices.map((s) => s.value);
    seatChoices.length = 0;
    seats.replaceChildren(
      ...Array.from({ length: n - 1 }, (_, i) => {
        const seat = i + 1;
        const choice = select(`seat-${seat}`, [["", t("person")], ...LEVELS.map((l): [string, string] => [l, `${t("computer")}: ${l}`])], before[i] ?? "");
        seatChoices.push(choice);
        return h("p", {}, h("label", { for: `seat-${seat}` }, `${t("seat")} ${seat}`), " ", choice);
      }),
    );
    partner.disabled = n !== 4;
    if (n !== 4) partner.checked = false;
  };
  players.addEventListener("change", drawSeats);
  drawSeats();

  const form = h(
    "form",
    { "aria-labelledby": "new", "data-testid": "new-game" },
    h("h2", { id: "new" }, t("newGame")),
    field("players", "players", players),
    field("target", "target", target),
    field("turn-time", "turnTime", turnTime),
    field("timeouts", "timeouts", timeouts),
    field("blitz", "blitz", blitz),
    bonusRow,
    partnerRow,
    field("visibility", "visibility", visibility),
    field("spectators", "spectators", spectators),
    h("fieldset", {}, h("legend", {}, t("seats")), seats),
    h("p", {}, h("button", { type: "submit", "data-testid": "create" }, t("create"))),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const computer = seatChoices.flatMap((s, i) => (s.value ? [{ seat: i + 1, level: s.value as Level }] : []));
    const body: Schemas["CreateGame"] = {
      options: {
        players: Number(players.value),
        target: Number(target.value),
        turn_time: turnTime.value ? Number(turnTime.value) : null,
        timeouts_to_resign: Number(timeouts.value),
        blitz: blitz.value as Schemas["BlitzMode"],
        bonus: bonus.checked,
        partner: partner.checked,
      },
      visibility: visibility.value as Schemas["Visibility"],
      spectators: spectators.value as Schemas["Spectators"],
      computer,
    };
    api
      .create(body)
      .then((game) => go(`/games/${game.id}`))
      .catch((err) => (note.textContent = errorText(err)));
  });
  return form;
}
