// The fallback drawing of any game, used when a title's board module is missing or fails: the
// players around a table (whose turn it is, their scores once known) and the view as JSON.

import { seatName } from "./api.js";
import { html } from "./html.js";

/** The board's markup, as a string (the board modules' contract). */
export function renderBoard(ctx) {
  const { doc, seat } = ctx;
  const count = doc.players || 1;
  const size = 320;
  const centre = size / 2;
  const radius = count === 1 ? 0 : 110;
  const scores = new Map(((doc.outcome && doc.outcome.scores) || []).map((score) => [score.seat, score.score]));
  const seats = Array.from({ length: count }, (_, index) => {
    const angle = (2 * Math.PI * index) / count - Math.PI / 2;
    const x = centre + radius * Math.cos(angle);
    const y = centre + radius * Math.sin(angle);
    const acting = doc.to_act.includes(index);
    const classes = ["seat", acting ? "acting" : "", index === seat ? "mine" : ""].join(" ").trim();
    const score = scores.has(index) ? html`<text x="${x}" y="${y + 22}" class="score">${scores.get(index)}</text>` : "";
    return html`<g class="${classes}"><circle cx="${x}" cy="${y}" r="34"></circle>
      <text x="${x}" y="${y + 4}">${seatName(index)}</text>${score}</g>`;
  });
  return String(html`<svg class="generic-board" viewBox="0 0 ${size} ${size}" role="img" aria-label="${doc.title}: players">
    <rect x="8" y="8" width="${size - 16}" height="${size - 16}" rx="24" class="table"></rect>
    <text x="${centre}" y="${centre + 4}" class="caption">${doc.title} · v${doc.version}</text>
    ${seats}</svg>
    <details class="view-json"><summary>The view as JSON</summary><pre>${JSON.stringify(ctx.view, null, 2)}</pre></details>`);
}

/** The holdings' markup, as a string (the board modules' contract). */
export function renderHoldings(ctx) {
  const who = ctx.seat == null ? "You are watching (public information only)." : `You are ${seatName(ctx.seat)}.`;
  return String(html`<p>${who}</p><p class="muted">The holdings are in the view above (JSON).</p>`);
}

export function describeMove(command) {
  const type = String(command.type || "?");
  const name = type.includes(".") ? type.slice(type.indexOf(".") + 1) : type;
  const args = Object.entries(command)
    .filter(([key]) => key !== "type")
    .map(([key, value]) => {
      if (value === true) return key;
      if (value === false || value == null) return null;
      return `${key}=${typeof value === "object" ? JSON.stringify(value) : value}`;
    })
    .filter(Boolean);
  return args.length ? `${name} (${args.join(", ")})` : name;
}
