// The lobby: the catalogue with a create form per kind, the games with open seats, and the games of
// this browser's guest player (its seats on any device holding its player code).

import {
  call,
  catalogue,
  clockText,
  dropPlayerCode,
  guest,
  heldSeats,
  markCreated,
  Problem,
  pageUrl,
  playerCode,
  saveToken,
  seatName,
  seatRoute,
  spectatorRoute,
  tokenFor,
  usePlayerCode,
} from "./api.js";
import { html } from "./html.js";
import { quickPairHtml, wireQuickPair } from "./pairing.js";
import { fieldsOf, readFields, renderFields } from "./schemaform.js";

export async function showLobby(main) {
  main.innerHTML = html`
    <section id="lobby" class="lobby">
      <h1>Lobby</h1>
      <section id="quick-pair" class="quick-pair-section">
        <h2>Quick pair</h2>
        <p class="muted">Play whoever is looking for the same game now; bots fill in when nobody comes.</p>
        <div id="quick-pair-forms"><p class="muted">Loading…</p></div>
      </section>
      <div id="created" class="panel" hidden></div>
      <div class="columns">
        <div>
          <h2>New game</h2>
          <div id="catalogue"><p class="muted">Loading the catalogue…</p></div>
        </div>
        <div>
          <h2>Open games <button type="button" id="refresh-open" class="small">Refresh</button></h2>
          <div id="open-games"><p class="muted">Loading…</p></div>
          <h2>Your games <button type="button" id="refresh-yours" class="small">Refresh</button></h2>
          <div id="your-games"><p class="muted">Loading…</p></div>
          <h2>Your player code</h2>
          <div id="player-code" class="panel"></div>
        </div>
      </div>
    </section>`;
  main.querySelector("#refresh-open").addEventListener("click", () => showOpenGames(main));
  main.querySelector("#refresh-yours").addEventListener("click", () => showYourGames(main));
  showYourGames(main).then(() => showPlayerCode(main));
  showOpenGames(main);
  try {
    const { games } = await catalogue();
    const holder = main.querySelector("#catalogue");
    holder.innerHTML = "";
    for (const entry of games) holder.append(createCard(main, entry));
    const pairing = main.querySelector("#quick-pair-forms");
    pairing.innerHTML = quickPairHtml(games).text;
    wireQuickPair(pairing);
  } catch (error) {
    main.querySelector("#catalogue").innerHTML = problemHtml(error);
    main.querySelector("#quick-pair-forms").innerHTML = "";
  }
}

/** A refusal as markup (a string, for innerHTML and insertAdjacentHTML). */
function problemHtml(error) {
  if (!(error instanceof Problem)) return String(html`<p class="error">${error.message || error}</p>`);
  const code = error.code ? html` <code>${error.code}</code>` : "";
  return String(
    html`<p class="error"><strong>${error.title}</strong>${code}${error.detail ? html` — ${error.detail}` : ""}</p>`,
  );
}

/** The fragments with the text *separator* between them (Array.join for html`` fragments). */
function joinHtml(fragments, separator) {
  return fragments.map((fragment, index) => (index ? html`${separator}${fragment}` : fragment));
}

function createCard(main, entry) {
  // The table's options (options.table) get a fieldset of their own below; the rest is generated.
  const allFields = fieldsOf(entry.options_schema);
  const hasTable = allFields.some((field) => field.name === "table");
  const fields = allFields.filter((field) => field.name !== "table");
  const card = document.createElement("article");
  card.className = "kind-card";
  card.dataset.kind = entry.kind;
  const counts = entry.player_counts.join(", ");
  const variants = Object.entries(entry.variants || {});
  const variantList = variants.length
    ? html`<details><summary>Variants and options</summary><dl>${variants.map(
        ([name, text]) => html`<dt>${name}</dt><dd>${text}</dd>`,
      )}</dl></details>`
    : "";
  const defaultPlayers = Math.min(...entry.player_counts.filter((n) => n >= 2), Math.max(...entry.player_counts));
  const levels = entry.bot_levels || [];
  const tableDefaults = tableDefaultsOf(entry.options_schema);
  const optionFields = renderFields(fields, { players: defaultPlayers, labels: entry.option_labels || {} });
  card.innerHTML = html`
    <h3>${entry.title} <small class="muted">${entry.kind} · ${entry.rules_version}</small></h3>
    <p>${entry.summary}</p>
    <p class="muted">Players: ${counts}${levels.length ? html` · bots: ${levels.join(", ")}` : ""}</p>
    ${variantList}
    <form class="create-form" data-kind="${entry.kind}">
      <fieldset class="options"><legend>Options</legend>${optionFields}</fieldset>
      <fieldset class="seats-choice"><legend>Seats</legend>
        <span class="presets">
          <label class="inline"><input type="radio" name="take" value="all" checked> all mine (hot seat)</label>
          <label class="inline"><input type="radio" name="take" value="none"> all open (friends join)</label>
          <label class="inline"><input type="radio" name="take" value="some"> as chosen:</label>
        </span>
        <span class="seat-choices"></span>
      </fieldset>
      ${hasTable ? tableFieldset(tableDefaults) : ""}
      <div class="field"><label>seed <input type="text" name="seed" placeholder="(secret random seed)"></label>
        <small class="help">Only for a reproducible test game; leave empty for a secret seed.</small></div>
      <button type="submit">Create ${entry.title} game</button>
      <div class="form-result"></div>
    </form>`;
  const form = card.querySelector("form");
  const playersControl = form.querySelector('[name="opt.players"]');
  const seatChoices = form.querySelector(".seat-choices");
  const seatControls = () => Array.from(form.querySelectorAll("select.seat-choice"));
  const drawSeatChoices = () => {
    const players = playerCount(form, fields, entry);
    const previous = seatControls().map((control) => control.value);
    const preset = form.querySelector('input[name="take"]:checked').value;
    seatChoices.innerHTML = html`${Array.from({ length: players }, (_, seat) => {
      const wanted = preset === "some" && previous[seat] ? previous[seat] : preset === "none" ? "open" : "me";
      const option = (value, label) =>
        html`<option value="${value}"${value === wanted ? html` selected` : ""}>${label}</option>`;
      return html`<label class="inline seat-pick">${seatName(seat)}
        <select class="seat-choice" name="seat.${seat}" data-seat="${seat}">
          ${option("me", "me (this browser)")}${option("open", "open (a friend joins)")}
          ${levels.map((level) => option(`bot:${level}`, `bot (${level})`))}
        </select></label>`;
    })}`;
    syncTable(form, players);
  };
  drawSeatChoices();
  if (playersControl) playersControl.addEventListener("change", drawSeatChoices);
  for (const preset of form.querySelectorAll('input[name="take"]')) {
    preset.addEventListener("change", () => {
      if (preset.value === "some") return;
      for (const control of seatControls()) control.value = preset.value === "all" ? "me" : "open";
      syncTable(form, playerCount(form, fields, entry));
    });
  }
  seatChoices.addEventListener("change", () => {
    form.querySelector('input[name="take"][value="some"]').checked = true;
    syncTable(form, playerCount(form, fields, entry));
  });
  const clockMode = form.querySelector('[name="table.clock"]');
  if (clockMode) clockMode.addEventListener("change", () => syncTable(form, playerCount(form, fields, entry)));
  form.addEventListener("submit", async (submitted) => {
    submitted.preventDefault();
    const result = form.querySelector(".form-result");
    const button = form.querySelector('button[type="submit"]');
    if (!form.reportValidity()) return;
    const options = readFields(form, fields);
    const table = hasTable ? readTable(form, tableDefaults) : null;
    if (table) options.table = table;
    const mine = [];
    const bots = {};
    for (const control of seatControls()) {
      const seat = Number(control.dataset.seat);
      if (control.value === "me") mine.push(seat);
      else if (control.value.startsWith("bot:")) bots[String(seat)] = control.value.slice(4);
    }
    const seats = seatControls().length;
    const takeSeats = mine.length === seats ? "all" : mine.length === 0 ? "none" : mine;
    const body = { kind: entry.kind, options, take_seats: takeSeats };
    if (Object.keys(bots).length) body.bots = bots;
    const seed = form.querySelector('input[name="seed"]').value.trim();
    if (seed) body.seed = seed;
    button.disabled = true;
    result.innerHTML = html`<p class="muted">Creating…</p>`;
    try {
      // As the guest: the seats taken are bound to it (its games, on any device with its code).
      const created = await call("/v1/games", { method: "POST", body, token: await guest() });
      for (const { seat, token } of created.tokens) saveToken(created.game_id, seat, token);
      markCreated(created.game_id);
      result.innerHTML = "";
      showCreated(main, created, entry, bots);
      showYourGames(main);
      showOpenGames(main);
    } catch (error) {
      result.innerHTML = problemHtml(error);
    } finally {
      button.disabled = false;
    }
  });
  return card;
}

// --- the table's options (options.table): clock, take-backs, zombies ---------------------------

/** The defaults of the TableOptions and Clock schemas (the service's), with fallbacks. */
function tableDefaultsOf(schema) {
  const defs = (schema && (schema.$defs || schema.definitions)) || {};
  const of = (name, property, fallback) => {
    const value = defs[name] && defs[name].properties && defs[name].properties[property];
    return value && value.default !== undefined ? value.default : fallback;
  };
  return {
    seconds: of("Clock", "seconds", 60),
    increment: of("Clock", "increment", 0),
    days: of("Clock", "days", 3),
    on_timeout: of("Clock", "on_timeout", "bot"),
    takebacks: of("TableOptions", "takebacks", "off"),
    zombie_after: of("TableOptions", "zombie_after", 3),
  };
}

function tableFieldset(defaults) {
  const number = (name, label, min, max, value, help) =>
    html`<div class="field table-${name}"><label>${label}
      <input type="number" name="table.${name}" min="${min}" max="${max}" step="1" value="${value}"></label>
      ${help ? html`<small class="help">${help}</small>` : ""}</div>`;
  const selected = (on) => (on ? html` selected` : "");
  return html`<fieldset class="options table-options"><legend>Table</legend>
    <div class="field"><label>clock
      <select name="table.clock">
        <option value="" selected>none</option>
        <option value="decision">seconds per decision</option>
        <option value="total">total seconds + increment (chess clock)</option>
        <option value="correspondence">days per decision (correspondence)</option>
      </select></label></div>
    ${number("seconds", "seconds", 1, 2592000, defaults.seconds, "per decision, or per seat for the game (total)")}
    ${number("increment", "increment (s)", 0, 3600, defaults.increment, "added after each of the seat's moves")}
    ${number("days", "days", 1, 30, defaults.days, "per decision")}
    <div class="field table-on_timeout"><label>on timeout
      <select name="table.on_timeout">
        <option value="bot"${selected(defaults.on_timeout === "bot")}>a bot decides for the seat</option>
        <option value="forfeit"${selected(defaults.on_timeout === "forfeit")}>the seat forfeits</option>
      </select></label></div>
    ${number("zombie_after", "zombie after", 0, 100, defaults.zombie_after, "timeouts before a bot takes the seat for good (0: never)")}
    <div class="field"><label>take-backs
      <select name="table.takebacks">
        <option value="off"${selected(defaults.takebacks === "off")}>off</option>
        <option value="consent"${selected(defaults.takebacks === "consent")}>with the others' consent</option>
        <option value="free"${selected(defaults.takebacks === "free")}>free (hot seat / solo)</option>
      </select></label>
      <small class="help">Free take-backs only when this browser plays every seat (no bots), or solo.</small></div>
  </fieldset>`;
}

/** Shows the clock's fields for its mode; offers free take-backs only for hot-seat or solo games. */
function syncTable(form, players) {
  const mode = form.querySelector('[name="table.clock"]');
  if (!mode) return;
  const show = (name, visible) => {
    const field = form.querySelector(`.table-${name}`);
    if (field) field.hidden = !visible;
  };
  show("seconds", mode.value === "decision" || mode.value === "total");
  show("increment", mode.value === "total");
  show("days", mode.value === "correspondence");
  show("on_timeout", mode.value !== "");
  show("zombie_after", mode.value !== "" && form.querySelector('[name="table.on_timeout"]').value === "bot");
  const choices = Array.from(form.querySelectorAll("select.seat-choice"), (control) => control.value);
  const hotSeat = players === 1 || choices.every((choice) => choice === "me");
  const takebacks = form.querySelector('[name="table.takebacks"]');
  const free = takebacks.querySelector('option[value="free"]');
  free.disabled = !hotSeat;
  if (!hotSeat && takebacks.value === "free") takebacks.value = "consent";
}

/** The table options the form holds (only what differs from the defaults), or null for none. */
function readTable(form, defaults) {
  const value = (name) => form.querySelector(`[name="table.${name}"]`).value;
  const number = (name) => Number(value(name));
  const table = {};
  const mode = value("clock");
  if (mode) {
    const clock = { mode };
    if (mode !== "correspondence") clock.seconds = number("seconds");
    if (mode === "total") clock.increment = number("increment");
    if (mode === "correspondence") clock.days = number("days");
    clock.on_timeout = value("on_timeout");
    table.clock = clock;
    if (clock.on_timeout === "bot" && number("zombie_after") !== defaults.zombie_after) {
      table.zombie_after = number("zombie_after");
    }
  }
  if (value("takebacks") !== "off") table.takebacks = value("takebacks");
  return Object.keys(table).length ? table : null;
}

function playerCount(form, fields, entry) {
  const options = readFields(form, fields);
  if (options.players != null) return options.players;
  const players = fields.find((field) => field.name === "players");
  return (players && players.default) || Math.max(...entry.player_counts);
}

function seatLinks(gameId, players, bots = {}) {
  const rows = [];
  for (let seat = 0; seat < players; seat++) {
    const held = tokenFor(gameId, seat) !== null;
    const url = pageUrl(seatRoute(gameId, seat));
    const bot = bots[String(seat)];
    rows.push(
      html`<li data-seat="${seat}">${seatName(seat)}: ${
        bot
          ? html`<span class="bot-seat">bot (${bot})</span>`
          : held
            ? html`<a class="seat-link" href="${url}">${url}</a>`
            : html`<span class="muted">open</span> <button type="button" class="join small" data-game="${gameId}" data-seat="${seat}">Join as ${seatName(seat)}</button>`
      }</li>`,
    );
  }
  const spectator = pageUrl(spectatorRoute(gameId));
  rows.push(html`<li>Spectators: <a class="spectator-link" href="${spectator}">${spectator}</a></li>`);
  return html`<ul class="links">${rows}</ul>`;
}

function showCreated(main, created, entry, bots = {}) {
  const panel = main.querySelector("#created");
  panel.hidden = false;
  panel.dataset.gameId = created.game_id;
  panel.innerHTML = html`
    <h2>Created: ${entry.title} <code class="game-id">${created.game_id}</code></h2>
    <p class="muted">Status ${created.status} · ${created.players} players · seed commitment
      <code class="hash">${created.seed_commitment}</code></p>
    <p>Tokens are kept in this browser; open a seat's link here (or share an open seat's game id).</p>
    ${seatLinks(created.game_id, created.players, bots)}`;
  wireJoins(panel);
  // The feedback where the player is: the form is far below the panel on a phone.
  panel.tabIndex = -1;
  panel.scrollIntoView({ block: "start", behavior: "smooth" });
  panel.focus({ preventScroll: true });
}

async function showOpenGames(main) {
  const holder = main.querySelector("#open-games");
  if (!holder) return;
  try {
    const { games } = await call("/v1/games?status=open&limit=50");
    if (!games.length) {
      holder.innerHTML = html`<p class="muted">No game is waiting for players.</p>`;
      return;
    }
    holder.innerHTML = html`<ul class="open-list">${games.map(
      (game) => html`<li class="open-game" data-game="${game.game_id}" data-kind="${game.kind}">
          <strong>${game.kind}</strong> <code class="game-id">${game.game_id}</code>
          · ${game.players} players · <a href="${spectatorRoute(game.game_id)}">watch</a>
          ${gameTableHtml(game)}<br>
          ${joinHtml(
            game.open_seats.map(
              (seat) =>
                html`<button type="button" class="join small" data-game="${game.game_id}" data-seat="${seat}">Join as ${seatName(seat)}</button>`,
            ),
            " ",
          )}
        </li>`,
    )}</ul>`;
    wireJoins(holder);
  } catch (error) {
    holder.innerHTML = problemHtml(error);
  }
}

/** An open game's table in the list: its clock, take-backs and the seats bots play. */
export function gameTableHtml(game) {
  const table = (game.options && game.options.table) || {};
  const parts = [];
  const clock = clockText(table.clock);
  parts.push(html`<span class="game-clock">clock: ${clock || "none"}</span>`);
  if (table.takebacks && table.takebacks !== "off") parts.push(html`take-backs: ${table.takebacks}`);
  const bots = Object.entries(game.bots || {}).sort(([a], [b]) => Number(a) - Number(b));
  if (bots.length) {
    parts.push(
      html`<span class="game-bots">${joinHtml(
        bots.map(([seat, level]) => html`${seatName(Number(seat))}: bot (${level})`),
        ", ",
      )}</span>`,
    );
  }
  return html`<br><small class="muted game-table">${joinHtml(parts, " · ")}</small>`;
}

/** The guest's games (GET /v1/me/games), the ones where it is to act marked; without a guest (a
 * service that makes none), the seats whose tokens this browser keeps. */
async function showYourGames(main) {
  const holder = main.querySelector("#your-games");
  if (!holder) return;
  let code = await guest();
  if (!code) {
    holder.innerHTML = heldSeatsHtml();
    return;
  }
  let games;
  try {
    ({ games } = await call("/v1/me/games?limit=50", { token: code }));
  } catch (error) {
    if (!(error instanceof Problem && error.status === 401)) {
      holder.innerHTML = problemHtml(error);
      return;
    }
    dropPlayerCode(); // refused (another database, a revoked code): play as a new guest
    code = await guest();
    games = code ? (await call("/v1/me/games?limit=50", { token: code })).games : [];
  }
  const titles = new Map();
  try {
    for (const entry of (await catalogue()).games) titles.set(entry.kind, entry.title);
  } catch {
    // the kinds stand in for the titles
  }
  holder.innerHTML = games.length
    ? html`<ul class="your-list">${games.map((game) => yourGameHtml(game, titles.get(game.kind)))}</ul>`
    : html`<p class="muted">None yet: create a game or join one.</p>`;
}

/** One of the guest's games: its title, status, and whether the guest is to act there. */
export function yourGameHtml(game, title) {
  const seats = joinHtml(
    game.seats.map((seat) => {
      const turn = game.to_act.includes(seat)
        ? html` <span class="badge status-active your-turn">your turn</span>`
        : "";
      return html`<a class="your-seat" data-seat="${seat}" href="${seatRoute(game.game_id, seat)}">${seatName(seat)}</a>${turn}`;
    }),
    ", ",
  );
  const turn =
    game.status === "finished"
      ? ""
      : game.to_act.length
        ? "your turn"
        : game.status === "open"
          ? "waiting for players"
          : "others to act";
  return html`<li class="your-game" data-game="${game.game_id}" data-kind="${game.kind}" data-to-act="${game.to_act.length ? 1 : 0}">
    <strong class="your-title">${title || game.kind}</strong> <code class="game-id">${game.game_id}</code>
    <span class="badge status-${game.status}">${STATUS[game.status] || game.status}</span>
    <span class="your-turn-state">${turn}</span> · ${seats}</li>`;
}

const STATUS = { open: "waiting for players", active: "in play", finished: "finished" };

function heldSeatsHtml() {
  const held = heldSeats();
  return held.length
    ? html`<ul>${held.map(
        ({ gameId, seat }) => html`<li><a href="${seatRoute(gameId, seat)}">${gameId} · ${seatName(seat)}</a></li>`,
      )}</ul>`
    : html`<p class="muted">None yet.</p>`;
}

/** The guest's player code, to copy to another device, and a field to use one copied from there. */
function showPlayerCode(main) {
  const holder = main.querySelector("#player-code");
  if (!holder) return;
  const code = playerCode();
  holder.innerHTML = html`
    <p class="muted">Your games follow this code. To play your seats in another browser or on another device,
      use it there; keep it to yourself: it is the key to your seats.</p>
    ${code ? html`<details><summary>Show your player code</summary><code class="code hash">${code}</code></details>` : ""}
    <form class="use-code">
      <label>Use a player code <input type="text" name="code" autocomplete="off" spellcheck="false" placeholder="ymp_…"></label>
      <button type="submit" class="small">Use</button>
    </form>
    <div class="code-result"></div>`;
  const form = holder.querySelector("form.use-code");
  form.addEventListener("submit", async (submitted) => {
    submitted.preventDefault();
    const result = holder.querySelector(".code-result");
    try {
      await usePlayerCode(form.querySelector('input[name="code"]').value);
      await showYourGames(main);
      showPlayerCode(main);
      holder.querySelector(".code-result").innerHTML = html`<p class="ok">Now playing as that player.</p>`;
    } catch (error) {
      result.innerHTML = problemHtml(error);
    }
  });
}

function wireJoins(holder) {
  for (const button of holder.querySelectorAll("button.join")) {
    button.addEventListener("click", async () => {
      const gameId = button.dataset.game;
      const seat = Number(button.dataset.seat);
      button.disabled = true;
      try {
        const joined = await call(`/v1/games/${encodeURIComponent(gameId)}/seats/${seat}`, {
          method: "POST",
          token: await guest(), // the seat is bound to the guest
        });
        saveToken(joined.game_id, joined.seat, joined.token);
        location.hash = seatRoute(joined.game_id, joined.seat);
      } catch (error) {
        button.disabled = false;
        button.insertAdjacentHTML("afterend", problemHtml(error));
      }
    });
  }
}

export { problemHtml };
