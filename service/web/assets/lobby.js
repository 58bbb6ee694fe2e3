// The lobby: the catalogue with a create form per kind, the games with open seats, and the seats
// this browser holds.

import {
  Problem,
  call,
  catalogue,
  clockText,
  esc,
  heldSeats,
  pageUrl,
  saveToken,
  seatName,
  seatRoute,
  spectatorRoute,
  tokenFor,
} from "./api.js";
import { fieldsOf, readFields, renderFields } from "./schemaform.js";

export async function showLobby(main) {
  main.innerHTML = `
    <section id="lobby" class="lobby">
      <h1>Lobby</h1>
      <div id="created" class="panel" hidden></div>
      <div class="columns">
        <div>
          <h2>New game</h2>
          <div id="catalogue"><p class="muted">Loading the catalogue…</p></div>
        </div>
        <div>
          <h2>Open games <button type="button" id="refresh-open" class="small">Refresh</button></h2>
          <div id="open-games"><p class="muted">Loading…</p></div>
          <h2>Your seats</h2>
          <div id="held-seats"></div>
        </div>
      </div>
    </section>`;
  main.querySelector("#refresh-open").addEventListener("click", () => showOpenGames(main));
  showHeldSeats(main);
  showOpenGames(main);
  try {
    const { games } = await catalogue();
    const holder = main.querySelector("#catalogue");
    holder.innerHTML = "";
    for (const entry of games) holder.append(createCard(main, entry));
  } catch (error) {
    main.querySelector("#catalogue").innerHTML = problemHtml(error);
  }
}

function problemHtml(error) {
  if (!(error instanceof Problem)) return `<p class="error">${esc(error.message || error)}</p>`;
  const code = error.code ? ` <code>${esc(error.code)}</code>` : "";
  return `<p class="error"><strong>${esc(error.title)}</strong>${code}${error.detail ? ` — ${esc(error.detail)}` : ""}</p>`;
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
    ? `<details><summary>Variants and options</summary><dl>${variants
        .map(([name, text]) => `<dt>${esc(name)}</dt><dd>${esc(text)}</dd>`)
        .join("")}</dl></details>`
    : "";
  const defaultPlayers = Math.min(...entry.player_counts.filter((n) => n >= 2), Math.max(...entry.player_counts));
  const levels = entry.bot_levels || [];
  const tableDefaults = tableDefaultsOf(entry.options_schema);
  card.innerHTML = `
    <h3>${esc(entry.title)} <small class="muted">${esc(entry.kind)} · ${esc(entry.rules_version)}</small></h3>
    <p>${esc(entry.summary)}</p>
    <p class="muted">Players: ${esc(counts)}${levels.length ? ` · bots: ${esc(levels.join(", "))}` : ""}</p>
    ${variantList}
    <form class="create-form" data-kind="${esc(entry.kind)}">
      <fieldset class="options"><legend>Options</legend>${renderFields(fields, { players: defaultPlayers })}</fieldset>
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
      <button type="submit">Create ${esc(entry.title)} game</button>
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
    seatChoices.innerHTML = Array.from({ length: players }, (_, seat) => {
      const wanted = preset === "some" && previous[seat] ? previous[seat] : preset === "none" ? "open" : "me";
      const option = (value, label) =>
        `<option value="${esc(value)}"${value === wanted ? " selected" : ""}>${esc(label)}</option>`;
      return `<label class="inline seat-pick">${seatName(seat)}
        <select class="seat-choice" name="seat.${seat}" data-seat="${seat}">
          ${option("me", "me (this browser)")}${option("open", "open (a friend joins)")}
          ${levels.map((level) => option(`bot:${level}`, `bot (${level})`)).join("")}
        </select></label>`;
    }).join("");
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
    result.innerHTML = `<p class="muted">Creating…</p>`;
    try {
      const created = await call("/v1/games", { method: "POST", body });
      for (const { seat, token } of created.tokens) saveToken(created.game_id, seat, token);
      result.innerHTML = "";
      showCreated(main, created, entry, bots);
      showHeldSeats(main);
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
    `<div class="field table-${name}"><label>${esc(label)}
      <input type="number" name="table.${name}" min="${min}" max="${max}" step="1" value="${esc(value)}"></label>
      ${help ? `<small class="help">${esc(help)}</small>` : ""}</div>`;
  return `<fieldset class="options table-options"><legend>Table</legend>
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
        <option value="bot"${defaults.on_timeout === "bot" ? " selected" : ""}>a bot decides for the seat</option>
        <option value="forfeit"${defaults.on_timeout === "forfeit" ? " selected" : ""}>the seat forfeits</option>
      </select></label></div>
    ${number("zombie_after", "zombie after", 0, 100, defaults.zombie_after, "timeouts before a bot takes the seat for good (0: never)")}
    <div class="field"><label>take-backs
      <select name="table.takebacks">
        <option value="off"${defaults.takebacks === "off" ? " selected" : ""}>off</option>
        <option value="consent"${defaults.takebacks === "consent" ? " selected" : ""}>with the others' consent</option>
        <option value="free"${defaults.takebacks === "free" ? " selected" : ""}>free (hot seat / solo)</option>
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
      `<li data-seat="${seat}">${seatName(seat)}: ${
        bot
          ? `<span class="bot-seat">bot (${esc(bot)})</span>`
          : held
          ? `<a class="seat-link" href="${esc(url)}">${esc(url)}</a>`
          : `<span class="muted">open</span> <button type="button" class="join small" data-game="${esc(gameId)}" data-seat="${seat}">Join as ${seatName(seat)}</button>`
      }</li>`,
    );
  }
  const spectator = pageUrl(spectatorRoute(gameId));
  rows.push(`<li>Spectators: <a class="spectator-link" href="${esc(spectator)}">${esc(spectator)}</a></li>`);
  return `<ul class="links">${rows.join("")}</ul>`;
}

function showCreated(main, created, entry, bots = {}) {
  const panel = main.querySelector("#created");
  panel.hidden = false;
  panel.dataset.gameId = created.game_id;
  panel.innerHTML = `
    <h2>Created: ${esc(entry.title)} <code class="game-id">${esc(created.game_id)}</code></h2>
    <p class="muted">Status ${esc(created.status)} · ${created.players} players · seed commitment
      <code class="hash">${esc(created.seed_commitment)}</code></p>
    <p>Tokens are kept in this browser; open a seat's link here (or share an open seat's game id).</p>
    ${seatLinks(created.game_id, created.players, bots)}`;
  wireJoins(main, panel);
}

async function showOpenGames(main) {
  const holder = main.querySelector("#open-games");
  if (!holder) return;
  try {
    const { games } = await call("/v1/games?status=open&limit=50");
    if (!games.length) {
      holder.innerHTML = `<p class="muted">No game is waiting for players.</p>`;
      return;
    }
    holder.innerHTML = `<ul class="open-list">${games
      .map(
        (game) => `<li class="open-game" data-game="${esc(game.game_id)}" data-kind="${esc(game.kind)}">
          <strong>${esc(game.kind)}</strong> <code class="game-id">${esc(game.game_id)}</code>
          · ${game.players} players · <a href="${esc(spectatorRoute(game.game_id))}">watch</a>
          ${gameTableHtml(game)}<br>
          ${game.open_seats
            .map(
              (seat) =>
                `<button type="button" class="join small" data-game="${esc(game.game_id)}" data-seat="${seat}">Join as ${seatName(seat)}</button>`,
            )
            .join(" ")}
        </li>`,
      )
      .join("")}</ul>`;
    wireJoins(main, holder);
  } catch (error) {
    holder.innerHTML = problemHtml(error);
  }
}

/** An open game's table in the list: its clock, take-backs and the seats bots play. */
function gameTableHtml(game) {
  const table = (game.options && game.options.table) || {};
  const parts = [];
  const clock = clockText(table.clock);
  parts.push(`<span class="game-clock">clock: ${esc(clock || "none")}</span>`);
  if (table.takebacks && table.takebacks !== "off") parts.push(`take-backs: ${esc(table.takebacks)}`);
  const bots = Object.entries(game.bots || {}).sort(([a], [b]) => Number(a) - Number(b));
  if (bots.length) {
    parts.push(
      `<span class="game-bots">${bots.map(([seat, level]) => `${seatName(Number(seat))}: bot (${esc(level)})`).join(", ")}</span>`,
    );
  }
  return `<br><small class="muted game-table">${parts.join(" · ")}</small>`;
}

function showHeldSeats(main) {
  const holder = main.querySelector("#held-seats");
  if (!holder) return;
  const held = heldSeats();
  holder.innerHTML = held.length
    ? `<ul>${held
        .map(
          ({ gameId, seat }) =>
            `<li><a href="${esc(seatRoute(gameId, seat))}">${esc(gameId)} · ${seatName(seat)}</a></li>`,
        )
        .join("")}</ul>`
    : `<p class="muted">None yet.</p>`;
}

function wireJoins(main, holder) {
  for (const button of holder.querySelectorAll("button.join")) {
    button.addEventListener("click", async () => {
      const gameId = button.dataset.game;
      const seat = Number(button.dataset.seat);
      button.disabled = true;
      try {
        const joined = await call(`/v1/games/${encodeURIComponent(gameId)}/seats/${seat}`, { method: "POST" });
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
