// The leaderboard page of a title (#/leaderboard/<kind>): the top players, paged
// (GET /v1/leaderboards/{kind}?cursor=), the guest's rank and neighbours once it is rated
// (GET /v1/leaderboards/{kind}/around/{player_id}), and its rating history
// (GET /v1/me/ratings?kind=).  See docs/ratings.md.

import { call, catalogue, playerCode } from "./api.js";
import { html } from "./html.js";
import { problemHtml } from "./problems.js";

const PAGE = 25;

export async function showLeaderboard(main, kind) {
  main.innerHTML = html`<section id="leaderboard" class="leaderboard" data-kind="${kind}">
      <p><a href="#/">← Lobby</a></p>
      <h1>Leaderboard <span class="lb-title"></span></h1>
      <nav class="lb-kinds"></nav>
      <h2>You</h2>
      <div id="lb-me" class="panel"><p class="muted">Loading…</p></div>
      <h2>Top players</h2>
      <div id="lb-top"><p class="muted">Loading…</p></div>
      <h2>Your rating history</h2>
      <div id="lb-history"><p class="muted">Loading…</p></div>
    </section>`.text;
  try {
    const { games } = await catalogue();
    const entry = games.find((game) => game.kind === kind);
    main.querySelector(".lb-title").textContent = entry ? `· ${entry.title}` : `· ${kind}`;
    main.querySelector(".lb-kinds").innerHTML = html`${games.map(
      (game) =>
        html`<a class="lb-kind${game.kind === kind ? " current" : ""}" href="#/leaderboard/${encodeURIComponent(game.kind)}">${game.title}</a> `,
    )}`.text;
  } catch {
    // the links to the other titles are a convenience
  }
  showTop(main, kind, null);
  showMine(main, kind);
}

function rowsHtml(entries, me) {
  return html`${entries.map(
    (entry) => html`<tr class="lb-row${entry.player_id === me ? " me" : ""}" data-player="${entry.player_id}">
      <td class="num">${entry.rank}</td>
      <td>${entry.display_name || entry.player_id}${entry.player_id === me ? html` <span class="badge">you</span>` : ""}</td>
      <td class="num">${entry.rating}</td>
      <td class="num">${entry.games}</td>
    </tr>`,
  )}`;
}

function tableHtml(entries, me, className) {
  return html`<table class="scores ${className}">
    <thead><tr><th class="num">#</th><th>Player</th><th class="num">Rating</th><th class="num">Games</th></tr></thead>
    <tbody>${rowsHtml(entries, me)}</tbody>
  </table>`;
}

let myId = null;

async function showTop(main, kind, cursor) {
  const holder = main.querySelector("#lb-top");
  if (!holder) return;
  try {
    const query = `limit=${PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const board = await call(`/v1/leaderboards/${encodeURIComponent(kind)}?${query}`);
    if (!cursor) {
      holder.innerHTML = board.entries.length
        ? html`${tableHtml([], myId, "lb-top")}
            <p class="muted">Ranked after ${board.established_games} rated games.</p>`.text
        : html`<p class="muted">Nobody is ranked yet: ranked after ${board.established_games} rated games.</p>`.text;
    }
    const body = holder.querySelector("table tbody");
    if (body) body.insertAdjacentHTML("beforeend", rowsHtml(board.entries, myId).text);
    holder.querySelector("button.lb-more")?.remove();
    if (board.next_cursor) {
      holder.insertAdjacentHTML("beforeend", html`<button type="button" class="lb-more">More</button>`.text);
      holder
        .querySelector("button.lb-more")
        .addEventListener("click", () => showTop(main, kind, board.next_cursor), { once: true });
    }
  } catch (error) {
    holder.innerHTML = problemHtml(error);
  }
}

async function showMine(main, kind) {
  const me = main.querySelector("#lb-me");
  const history = main.querySelector("#lb-history");
  const code = playerCode();
  if (!code) {
    me.innerHTML = html`<p class="muted">Play a rated game (Quick pair in the lobby) to be ranked.</p>`.text;
    history.innerHTML = html`<p class="muted">None yet.</p>`.text;
    return;
  }
  let mine;
  try {
    mine = await call(`/v1/me/ratings?kind=${encodeURIComponent(kind)}&limit=50`, { token: code });
  } catch (error) {
    me.innerHTML = problemHtml(error);
    history.innerHTML = "";
    return;
  }
  myId = mine.player_id;
  for (const row of main.querySelectorAll(`#lb-top tr[data-player="${CSS.escape(myId)}"]`)) row.classList.add("me");
  const rating = mine.ratings.find((entry) => entry.kind === kind);
  history.innerHTML = mine.history.length
    ? html`<table class="scores lb-history">
        <thead><tr><th>Game</th><th class="num">Rank</th><th class="num">Before</th><th class="num">After</th><th class="num">Change</th></tr></thead>
        <tbody>${mine.history.map(
          (change) => html`<tr>
            <td><a href="#/game/${encodeURIComponent(change.game_id)}">${change.game_id}</a></td>
            <td class="num">${change.rank}</td>
            <td class="num">${change.rating_before}</td>
            <td class="num">${change.rating_after}</td>
            <td class="num">${change.delta > 0 ? `+${change.delta}` : change.delta}</td>
          </tr>`,
        )}</tbody></table>`.text
    : html`<p class="muted">No rated game finished yet.</p>`.text;
  if (!rating) {
    me.innerHTML =
      html`<p class="muted">Not rated in this title yet: finish a rated game (Quick pair in the lobby).</p>`.text;
    return;
  }
  const provisional = rating.provisional
    ? html` <span class="badge">provisional: ${rating.games} of ${mine.established_games} games</span>`
    : "";
  me.innerHTML =
    html`<p>Your rating: <strong class="my-rating">${rating.rating}</strong> after ${rating.games} games${provisional}</p>
    <div class="lb-around"><p class="muted">Loading your neighbours…</p></div>`.text;
  const around = me.querySelector(".lb-around");
  try {
    const board = await call(
      `/v1/leaderboards/${encodeURIComponent(kind)}/around/${encodeURIComponent(myId)}?neighbours=3`,
    );
    around.innerHTML = board.entries.length
      ? tableHtml(board.entries, myId, "lb-around-table").text
      : html`<p class="muted">Not on the leaderboard yet.</p>`.text;
  } catch (error) {
    // 404: rated, but not ranked (still provisional)
    around.innerHTML =
      error.status === 404
        ? html`<p class="muted">Ranked once your rating is established.</p>`.text
        : problemHtml(error);
  }
}
