// The lobby: the catalogue with a create form per kind, the games with open seats, and the seats
// this browser holds.

import {
  Problem,
  call,
  catalogue,
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
  const fields = fieldsOf(entry.options_schema);
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
  card.innerHTML = `
    <h3>${esc(entry.title)} <small class="muted">${esc(entry.kind)} · ${esc(entry.rules_version)}</small></h3>
    <p>${esc(entry.summary)}</p>
    <p class="muted">Players: ${esc(counts)}</p>
    ${variantList}
    <form class="create-form" data-kind="${esc(entry.kind)}">
      <fieldset class="options"><legend>Options</legend>${renderFields(fields, { players: defaultPlayers })}</fieldset>
      <fieldset class="seats-choice"><legend>Seats to take now</legend>
        <label><input type="radio" name="take" value="all" checked> all (hot seat: play every seat here)</label>
        <label><input type="radio" name="take" value="none"> none (every seat open to join)</label>
        <label><input type="radio" name="take" value="some"> these:</label>
        <span class="seat-boxes"></span>
      </fieldset>
      <div class="field"><label>seed <input type="text" name="seed" placeholder="(secret random seed)"></label>
        <small class="help">Only for a reproducible test game; leave empty for a secret seed.</small></div>
      <button type="submit">Create ${esc(entry.title)} game</button>
      <div class="form-result"></div>
    </form>`;
  const form = card.querySelector("form");
  const playersControl = form.querySelector('[name="opt.players"]');
  const seatBoxes = form.querySelector(".seat-boxes");
  const drawSeatBoxes = () => {
    const players = playerCount(form, fields, entry);
    seatBoxes.innerHTML = Array.from(
      { length: players },
      (_, seat) => `<label class="inline"><input type="checkbox" name="seat" value="${seat}"> ${seatName(seat)}</label>`,
    ).join("");
  };
  drawSeatBoxes();
  if (playersControl) playersControl.addEventListener("change", drawSeatBoxes);
  seatBoxes.addEventListener("change", () => {
    form.querySelector('input[name="take"][value="some"]').checked = true;
  });
  form.addEventListener("submit", async (submitted) => {
    submitted.preventDefault();
    const result = form.querySelector(".form-result");
    const button = form.querySelector('button[type="submit"]');
    if (!form.reportValidity()) return;
    const options = readFields(form, fields);
    const take = form.querySelector('input[name="take"]:checked').value;
    const takeSeats =
      take === "some" ? Array.from(form.querySelectorAll('input[name="seat"]:checked'), (box) => Number(box.value)) : take;
    const body = { kind: entry.kind, options, take_seats: takeSeats };
    const seed = form.querySelector('input[name="seed"]').value.trim();
    if (seed) body.seed = seed;
    button.disabled = true;
    result.innerHTML = `<p class="muted">Creating…</p>`;
    try {
      const created = await call("/v1/games", { method: "POST", body });
      for (const { seat, token } of created.tokens) saveToken(created.game_id, seat, token);
      result.innerHTML = "";
      showCreated(main, created, entry);
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

function playerCount(form, fields, entry) {
  const options = readFields(form, fields);
  if (options.players != null) return options.players;
  const players = fields.find((field) => field.name === "players");
  return (players && players.default) || Math.max(...entry.player_counts);
}

function seatLinks(gameId, players) {
  const rows = [];
  for (let seat = 0; seat < players; seat++) {
    const held = tokenFor(gameId, seat) !== null;
    const url = pageUrl(seatRoute(gameId, seat));
    rows.push(
      `<li data-seat="${seat}">${seatName(seat)}: ${
        held
          ? `<a class="seat-link" href="${esc(url)}">${esc(url)}</a>`
          : `<span class="muted">open</span> <button type="button" class="join small" data-game="${esc(gameId)}" data-seat="${seat}">Join as ${seatName(seat)}</button>`
      }</li>`,
    );
  }
  const spectator = pageUrl(spectatorRoute(gameId));
  rows.push(`<li>Spectators: <a class="spectator-link" href="${esc(spectator)}">${esc(spectator)}</a></li>`);
  return `<ul class="links">${rows.join("")}</ul>`;
}

function showCreated(main, created, entry) {
  const panel = main.querySelector("#created");
  panel.hidden = false;
  panel.dataset.gameId = created.game_id;
  panel.innerHTML = `
    <h2>Created: ${esc(entry.title)} <code class="game-id">${esc(created.game_id)}</code></h2>
    <p class="muted">Status ${esc(created.status)} · ${created.players} players · seed commitment
      <code class="hash">${esc(created.seed_commitment)}</code></p>
    <p>Tokens are kept in this browser; open a seat's link here (or share an open seat's game id).</p>
    ${seatLinks(created.game_id, created.players)}`;
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
          · ${game.players} players · <a href="${esc(spectatorRoute(game.game_id))}">watch</a><br>
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
