// After a game's end: the outcome (winners, ranks, scores and their breakdown), the revealed seed
// checked against the commitment published at the start, the service's verification, and a replay
// of every version (the board at that version and the event that made it, highlighted).
//
// What it needs of the page comes through page.hooks (game.js): drawBoard(box, state, recent).

import { call, seatName } from "./api.js";
import { html, raw } from "./html.js";
import { problemHtml } from "./problems.js";

/** The hex SHA-256 of *text*, or null where the browser cannot compute it (not a secure context). */
export async function sha256Hex(text) {
  if (!(globalThis.crypto && crypto.subtle)) return null;
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The outcome's score rows, best rank first. */
export function scoreRows(outcome) {
  return (outcome.scores || [])
    .slice()
    .sort((a, b) => a.rank - b.rank || a.seat - b.seat)
    .map((score) => {
      const breakdown = Object.entries(score.breakdown || {}).map(
        ([name, value], i) => html`${i ? " " : ""}<span class="part">${name}: ${value}</span>`,
      );
      return html`<tr data-seat="${score.seat}"><td>${score.rank}</td><td>${seatName(score.seat)}</td>
        <td class="num">${score.score}</td><td class="breakdown">${breakdown}</td></tr>`;
    });
}

/** What the seed check says: [class, text]. */
export function seedVerdict(digest, commitment) {
  if (digest === null) {
    return ["muted", "This browser cannot compute SHA-256 here (not a secure context); see the verification."];
  }
  return digest === commitment
    ? ["ok", "SHA-256 of the seed equals the commitment: the seed was fixed before the first move."]
    : ["error", `SHA-256 of the seed is ${digest}: it does NOT match the commitment.`];
}

/** The verification's panel content. */
export function verificationHtml(result) {
  const checks = result.checks.map(
    (check) => html`<li class="check check-${check.status}" data-name="${check.name}">
          <strong>${check.name}</strong>: <span class="check-status">${check.status}</span>
          <span class="muted">${check.detail || ""}${check.first_bad_seq != null ? ` (first bad event ${check.first_bad_seq})` : ""}</span></li>`,
  );
  return html`<h2>Verification <span class="badge ${result.ok ? "ok" : "bad"}">${
    result.ok ? "passed" : "failed"
  }</span></h2><ul class="checks">${checks}</ul>`;
}

/** Shows the ending (#ending) of the finished game on the page, then its replay (#replay). */
export async function showEnding(page) {
  const { doc } = page;
  const box = page.root.querySelector("#ending");
  box.hidden = false;
  const outcome = doc.outcome || {};
  const winners = (outcome.winners || []).map(seatName).join(", ") || "nobody";
  const details = outcome.details
    ? html`<details><summary>Details</summary><pre>${JSON.stringify(outcome.details, null, 2)}</pre></details>`
    : "";
  box.innerHTML = html`
    <div class="panel outcome" id="outcome">
      <h2>Outcome</h2>
      <p class="summary">${outcome.summary || ""}</p>
      <p>Winners: <strong class="winners">${winners}</strong></p>
      <table class="scores"><thead><tr><th>Rank</th><th>Seat</th><th>Score</th><th>Breakdown</th></tr></thead>
        <tbody>${scoreRows(outcome)}</tbody></table>
      ${details}
    </div>
    <div class="panel seed" id="seed">
      <h2>Seed</h2>
      <p>Revealed seed: <code class="hash">${doc.seed || "(not revealed)"}</code></p>
      <p>Commitment published at the start: <code class="hash">${doc.seed_commitment}</code></p>
      <p id="seed-check" class="muted">Checking SHA-256(seed)…</p>
    </div>
    <div class="panel verification" id="verification"><h2>Verification</h2><p class="muted">Verifying…</p></div>`;
  const seedCheck = box.querySelector("#seed-check");
  const digest = doc.seed ? await sha256Hex(doc.seed) : null;
  const [verdict, words] = seedVerdict(digest, doc.seed_commitment);
  if (digest !== null) seedCheck.className = verdict;
  seedCheck.textContent = words;
  const verification = box.querySelector("#verification");
  try {
    const result = await call(`${page.base}/verification`);
    verification.dataset.result = result.ok ? "passed" : "failed";
    verification.innerHTML = verificationHtml(result);
  } catch (error) {
    verification.dataset.result = "error";
    verification.innerHTML = html`<h2>Verification</h2>${raw(problemHtml(error))}`;
  }
  showReplay(page);
}

function showReplay(page) {
  const { doc } = page;
  const box = page.root.querySelector("#replay");
  box.hidden = false;
  box.innerHTML = html`
    <h2>Replay</h2>
    <div class="replay-controls">
      <button type="button" class="small" id="replay-prev">◀</button>
      <input type="range" id="replay-slider" min="1" max="${doc.version}" value="${doc.version}" step="1">
      <button type="button" class="small" id="replay-next">▶</button>
      <span>version <strong id="replay-version">${doc.version}</strong> / ${doc.version}</span>
    </div>
    <div id="replay-event" class="replay-event"></div>
    <div id="replay-board" class="board"></div>`;
  const slider = box.querySelector("#replay-slider");
  const replay = { wanted: doc.version, shown: null, loading: false };
  const go = (version) => {
    replay.wanted = Math.max(1, Math.min(doc.version, version));
    slider.value = String(replay.wanted);
    box.querySelector("#replay-version").textContent = String(replay.wanted);
    loadReplay(page, box, replay);
  };
  slider.addEventListener("input", () => go(Number(slider.value)));
  box.querySelector("#replay-prev").addEventListener("click", () => go(replay.wanted - 1));
  box.querySelector("#replay-next").addEventListener("click", () => go(replay.wanted + 1));
  go(doc.version);
}

/** The event that made a version, in the replay. */
export function replayEventHtml(envelope, version) {
  const event = envelope && envelope.event;
  if (!event) return html`<p class="muted">Event ${version} is hidden from you.</p>`;
  return html`<p>Event ${envelope.seq}: <strong class="replay-type">${event.type}</strong>${
    envelope.seat != null ? ` by ${seatName(envelope.seat)}` : ""
  }</p><details><summary>The event</summary><pre>${JSON.stringify(event, null, 2)}</pre></details>`;
}

async function loadReplay(page, box, replay) {
  if (replay.loading) return;
  replay.loading = true;
  box.dataset.busy = "1";
  try {
    while (replay.shown !== replay.wanted && !page.closed) {
      const version = replay.wanted;
      const [state, history] = await Promise.all([
        call(`${page.base}/states/${version}`, { token: page.token }),
        call(`${page.base}/events?after=${version - 1}&limit=1`, { token: page.token }),
      ]);
      const envelope = history.events[0];
      // The board at this version, what its event touched highlighted.
      const recent =
        envelope && envelope.event ? [{ seq: envelope.seq, seat: envelope.seat, event: envelope.event }] : [];
      page.hooks.drawBoard(box.querySelector("#replay-board"), state, recent);
      box.querySelector("#replay-event").innerHTML = replayEventHtml(envelope, version);
      replay.shown = version;
      box.dataset.version = String(version);
    }
  } catch (error) {
    box.querySelector("#replay-event").innerHTML = problemHtml(error);
    replay.shown = replay.wanted;
  } finally {
    replay.loading = false;
    box.dataset.busy = "0";
  }
}
