// Quick pairing: the guest seeks a game of a title (POST /v1/seeks), waits by long poll
// (GET /v1/seeks/{id}?wait=25) until the matcher seats it, and opens the game as its seat (the
// route re-issues the seat's token for the guest: POST /v1/games/{id}/seats/{n}/token).  Cancel is
// DELETE /v1/seeks/{id}.  See docs/matching.md.

import { call, guest, Problem, seatRoute } from "./api.js";
import { html } from "./html.js";
import { problemHtml } from "./problems.js";

const WAIT_SECONDS = 25;

/** The choices of when bots fill the table: seconds (null: people only). */
const BOT_CHOICES = [
  [30, "bots after 30 s"],
  [0, "bots now"],
  [120, "bots after 2 min"],
  [null, "people only"],
];

/** The quick-pair panel of the lobby: one row per title of the catalogue's *games*. */
export function quickPairHtml(games) {
  return html`<div class="quick-pair-list">
    ${games.map((entry) => {
      const counts = entry.player_counts.filter((n) => n >= 2);
      return html`<form class="quick-pair" data-kind="${entry.kind}">
        <strong class="qp-title">${entry.title}</strong>
        <label class="inline">players
          <select name="players">
            <option value="">any (${counts.join(", ")})</option>
            ${counts.map((n) => html`<option value="${n}">${n}</option>`)}
          </select></label>
        <label class="inline">
          <select name="bots_after">
            ${BOT_CHOICES.map(
              ([value, label], index) =>
                html`<option value="${value ?? ""}"${index === 0 ? html` selected` : ""}>${label}</option>`,
            )}
          </select></label>
        <label class="inline"><input type="checkbox" name="rated" checked> rated</label>
        <button type="submit">Quick pair</button>
        <a class="small-link" href="#/leaderboard/${encodeURIComponent(entry.kind)}">leaderboard</a>
      </form>`;
    })}
  </div>
  <div id="pairing" class="panel" hidden aria-live="polite"></div>`;
}

/** Wires the quick-pair forms in *holder* (the lobby's section). */
export function wireQuickPair(holder) {
  for (const form of holder.querySelectorAll("form.quick-pair")) {
    form.addEventListener("submit", (submitted) => {
      submitted.preventDefault();
      seek(holder, form);
    });
  }
}

function requestOf(form) {
  const body = { kind: form.dataset.kind, rated: form.querySelector('[name="rated"]').checked };
  const players = form.querySelector('[name="players"]').value;
  if (players) body.players = [Number(players)];
  const bots = form.querySelector('[name="bots_after"]').value;
  if (bots !== "") body.bots_after = Number(bots);
  return body;
}

let current = null; // the seek being waited for: {seekId, code, stopped}

async function seek(holder, form) {
  const panel = holder.querySelector("#pairing");
  const title = form.querySelector(".qp-title").textContent;
  const buttons = holder.querySelectorAll("form.quick-pair button");
  for (const button of buttons) button.disabled = true;
  panel.hidden = false;
  panel.innerHTML = html`<p class="muted">Seeking a ${title} game…</p>`.text;
  const code = await guest();
  let made;
  try {
    if (!code) throw new Problem(0, { title: "This service makes no guest players: quick pairing needs one" });
    made = await call("/v1/seeks", { method: "POST", body: requestOf(form), token: code });
  } catch (error) {
    for (const button of buttons) button.disabled = false;
    panel.innerHTML = problemHtml(error);
    return;
  }
  const mine = { seekId: made.seek_id, code, stopped: false };
  current = mine;
  const started = Date.now();
  drawWaiting(panel, title, made, started, () => cancel(holder, mine));
  const ticker = setInterval(() => {
    const waited = panel.querySelector(".waited");
    if (waited) waited.textContent = `${Math.round((Date.now() - started) / 1000)} s`;
  }, 1000);
  try {
    let state = made;
    while (state.status === "open" && !mine.stopped && document.body.contains(panel)) {
      state = await call(`/v1/seeks/${encodeURIComponent(mine.seekId)}?wait=${WAIT_SECONDS}`, { token: code });
    }
    if (mine.stopped || !document.body.contains(panel)) return;
    if (state.status === "matched" && state.game_id != null) {
      panel.dataset.game = state.game_id;
      panel.innerHTML = html`<p class="ok">Matched: ${title}, you are Seat ${state.seat}. Opening the game…</p>`.text;
      location.hash = seatRoute(state.game_id, state.seat);
      return;
    }
    panel.innerHTML =
      html`<p class="muted">The seek ended (${state.closed_reason || state.status}). Try again?</p>`.text;
  } catch (error) {
    if (!mine.stopped) panel.innerHTML = problemHtml(error);
  } finally {
    clearInterval(ticker);
    if (current === mine) current = null;
    for (const button of buttons) button.disabled = false;
  }
}

function drawWaiting(panel, title, made, started, onCancel) {
  const bots =
    made.bots_after == null
      ? "people only"
      : made.bots_after === 0
        ? "bots at once"
        : `bots after ${made.bots_after} s`;
  const counts = made.players.join(" or ");
  panel.dataset.seek = made.seek_id;
  panel.innerHTML = html`<div class="seeking">
      <p><strong>Looking for players:</strong> ${title}, ${counts} players, ${made.rated ? "rated" : "casual"}, ${bots}.</p>
      <p class="muted">Waited <span class="waited">${Math.round((Date.now() - started) / 1000)} s</span>.
        The game opens here as soon as it is formed.</p>
      <button type="button" class="cancel-seek">Cancel</button>
    </div>`.text;
  panel.querySelector(".cancel-seek").addEventListener("click", onCancel);
}

async function cancel(holder, mine) {
  const panel = holder.querySelector("#pairing");
  mine.stopped = true;
  try {
    await call(`/v1/seeks/${encodeURIComponent(mine.seekId)}`, { method: "DELETE", token: mine.code });
    panel.innerHTML = html`<p class="muted">Seek cancelled.</p>`.text;
  } catch (error) {
    if (error instanceof Problem && error.code === "seek_closed") {
      // Matched just before the cancel: the game is the player's (in "Your games").
      const state = await call(`/v1/seeks/${encodeURIComponent(mine.seekId)}`, { token: mine.code });
      if (state.status === "matched" && state.game_id != null) {
        location.hash = seatRoute(state.game_id, state.seat);
        return;
      }
    }
    panel.innerHTML = problemHtml(error);
  }
  for (const button of holder.querySelectorAll("form.quick-pair button")) button.disabled = false;
}
