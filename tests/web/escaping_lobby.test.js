// The lobby's markup escapes what the service and other players send (kinds, ids, titles, levels,
// refusals): node --test tests/web/, no browser.

import assert from "node:assert/strict";
import { test } from "node:test";

globalThis.location ??= new URL("http://127.0.0.1:8000/play/#/");

const { Problem } = await import("../../service/web/assets/api.js");
const { gameTableHtml, problemHtml, yourGameHtml } = await import("../../service/web/assets/lobby.js");

const HOSTILE = "<img src=x onerror=alert(1)>";
const ESCAPED = "&lt;img src=x onerror=alert(1)&gt;";

test("an open game's table escapes the take-backs and the bots' levels", () => {
  const markup = String(gameTableHtml({ options: { table: { takebacks: HOSTILE } }, bots: { 1: HOSTILE, 0: "easy" } }));
  assert.ok(!markup.includes("<img"), markup);
  assert.ok(markup.includes(`take-backs: ${ESCAPED}`), markup);
  assert.ok(markup.includes(`<span class="game-bots">Seat 0: bot (easy), Seat 1: bot (${ESCAPED})</span>`), markup);
  assert.ok(markup.startsWith('<br><small class="muted game-table"><span class="game-clock">clock: none</span> · '));
});

test("one of the guest's games escapes its title, kind and id once", () => {
  const game = { game_id: `g"${HOSTILE}`, kind: HOSTILE, status: "active", seats: [0, 1], to_act: [1] };
  const markup = String(yourGameHtml(game, `Tom & ${HOSTILE}`));
  assert.ok(!markup.includes("<img"), markup);
  assert.ok(markup.includes(`<strong class="your-title">Tom &amp; ${ESCAPED}</strong>`), markup);
  assert.ok(markup.includes(`data-game="g&quot;${ESCAPED}"`), markup);
  assert.ok(!markup.includes("&amp;lt;"), "escaped twice");
  const href = `#/game/${encodeURIComponent(game.game_id)}/seat/0`;
  assert.ok(markup.includes(`<a class="your-seat" data-seat="0" href="${href}">Seat 0</a>, `), markup);
  assert.ok(markup.includes('Seat 1</a> <span class="badge status-active your-turn">your turn</span>'), markup);
});

test("a refusal escapes its title, code and detail, and any error's message", () => {
  const markup = problemHtml(new Problem(409, { title: HOSTILE, detail: HOSTILE, code: HOSTILE }));
  assert.equal(typeof markup, "string");
  assert.equal(markup, `<p class="error"><strong>${ESCAPED}</strong> <code>${ESCAPED}</code> — ${ESCAPED}</p>`);
  assert.equal(problemHtml(new Error(HOSTILE)), `<p class="error">${ESCAPED}</p>`);
});
