// A refused request in the game's words: what the player sees where they are looking (the move
// sheet), with the rule's name when the rules refused, and "the game moved on" for a stale move.

import { html } from "./html.js";

/** The parts of a refusal to show: {headline, detail, rule, code, stale}. *error* is an api.js
 * Problem (status, title, detail, code, rule) or any Error. */
export function explain(error) {
  const status = error && typeof error.status === "number" ? error.status : null;
  const code = (error && error.code) || "";
  const detail = (error && error.detail) || "";
  const rule = (error && error.rule) || "";
  if (status === null) {
    return { headline: String((error && error.message) || error), detail: "", rule: "", code: "", stale: false };
  }
  if (status === 0) {
    return { headline: "The service could not be reached — try again.", detail, rule: "", code, stale: false };
  }
  if (code === "version_mismatch" || code === "version_not_reached" || status === 412) {
    return { headline: "The game moved on — here is the new state.", detail: "", rule: "", code, stale: true };
  }
  if (rule) {
    return { headline: `Not allowed: ${sentence(detail || error.title)}`, detail: "", rule, code, stale: false };
  }
  const words = {
    game_over: "The game is over.",
    game_not_started: "The game has not started: it waits for every seat to be taken.",
    seat_taken: "Someone took this seat first.",
    seat_replaced: "A bot plays this seat now.",
    not_your_seat: "This is not your seat.",
    invalid_token: "This browser's key to the seat is no longer valid.",
    token_required: "Only the seat's player may do that.",
    game_not_found: "There is no such game.",
    too_much_contention: "Many moves at once — try again.",
  };
  const headline = words[code] || sentence(detail || error.title || `HTTP ${status}`);
  return { headline, detail: words[code] ? detail : "", rule: "", code, stale: false };
}

function sentence(text) {
  const trimmed = String(text || "").trim();
  if (!trimmed) return "";
  const first = trimmed[0].toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(first) ? first : `${first}.`;
}

/** The refusal as markup (a role="alert" box); the stable code stays available, small. */
export function problemHtml(error) {
  const { headline, detail, rule, code, stale } = explain(error);
  return html`<div class="error problem${stale ? " stale" : ""}" role="alert">
    <strong class="problem-title">${headline}</strong>
    ${detail ? html`<span class="problem-detail">${detail}</span>` : ""}
    ${rule ? html`<span class="problem-rule-line">Rule: <span class="problem-rule">${rule}</span></span>` : ""}
    ${code ? html`<small class="problem-code muted">${code}</small>` : ""}
  </div>`.toString();
}
