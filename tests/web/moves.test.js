// Unit tests of the client's pure helpers (node --test tests/web/): move choices and labels, the
// escaping template, refusals in words, the board's zoom.  No browser, no server.

import assert from "node:assert/strict";
import { test } from "node:test";

import { nextZoom, readableZoom } from "../../service/web/assets/boardview.js";
import { esc, html, raw } from "../../service/web/assets/html.js";
import { canonical, choicesHtml, distinguish, groupMoves, STEPPER_MIN } from "../../service/web/assets/moves.js";
import { explain, problemHtml } from "../../service/web/assets/problems.js";

const bids = [5, 6, 7, 9, 12].map((amount) => ({ type: "yangtze.Bid", amount }));

test("amounts of one move become one stepper, in order of value", () => {
  const moves = [{ type: "yangtze.Pass" }, ...bids.slice().reverse()];
  const choices = groupMoves(moves);
  assert.equal(choices.length, 2);
  assert.deepEqual(choices[0], { kind: "one", index: 0 });
  assert.equal(choices[1].kind, "amount");
  assert.equal(choices[1].field, "amount");
  assert.deepEqual(
    choices[1].options.map((option) => option.value),
    [5, 6, 7, 9, 12],
  );
});

test("a few amounts stay buttons", () => {
  const moves = bids.slice(0, STEPPER_MIN - 1);
  assert.ok(groupMoves(moves).every((choice) => choice.kind === "one"));
});

test("moves differing in more than the amount are not merged", () => {
  const moves = [1, 2, 3, 4].map((die) => ({ type: "p.Dispatch", die, region: die % 2 ? "red" : "green" }));
  assert.ok(groupMoves(moves).every((choice) => choice.kind === "one"));
});

test("same-looking moves are told apart by what differs", () => {
  const moves = [
    { type: "p.Open", card: "lasa", from: 1 },
    { type: "p.Open", card: "lasa", from: 2 },
    { type: "p.Pass" },
  ];
  const labels = distinguish(["Open Lasa", "Open Lasa", "Pass"], moves);
  assert.deepEqual(labels, ["Open Lasa · from 1", "Open Lasa · from 2", "Pass"]);
  assert.equal(new Set(labels).size, 3);
});

test("identical labels of identical-looking commands get a number", () => {
  const moves = [{ type: "x.A" }, { type: "x.A" }];
  assert.deepEqual(distinguish(["A", "A"], moves), ["A (1)", "A (2)"]);
});

test("canonical JSON ignores key order, nested too", () => {
  assert.equal(canonical({ b: 1, a: { d: 2, c: [3] } }), canonical({ a: { c: [3], d: 2 }, b: 1 }));
});

test("choices escape what they show", () => {
  const markup = choicesHtml([{ type: "x.<b>" }], ["<img src=x>"], () => "a & b");
  assert.ok(!markup.includes("<img"));
  assert.ok(markup.includes("&lt;img src=x&gt;"));
  assert.ok(markup.includes("a &amp; b"));
  assert.ok(markup.includes('data-index="0"'));
});

test("the stepper's button plays the smallest amount first", () => {
  const markup = choicesHtml(
    bids,
    bids.map((bid) => `Bid ${bid.amount}`),
    () => "",
  );
  assert.ok(markup.includes('class="amount"'));
  assert.ok(markup.includes('data-options="0:5,1:6,2:7,3:9,4:12"'));
  assert.match(markup, /<span class="label">Bid 5<\/span>/);
});

test("html`` escapes by default and trusts only its own fragments", () => {
  const name = `"<script>"`;
  assert.equal(String(html`<b title="${name}">${name}</b>`), `<b title="${esc(name)}">${esc(name)}</b>`);
  assert.equal(String(html`<i>${html`<u>${"&"}</u>`}</i>`), "<i><u>&amp;</u></i>");
  assert.equal(String(html`${raw("<br>")}${null}${false}${[1, "<"]}`), "<br>1&lt;");
});

test("a stale move reads as the game having moved on", () => {
  const stale = explain({ status: 412, code: "version_mismatch", title: "Precondition Failed", detail: "x" });
  assert.equal(stale.stale, true);
  assert.match(stale.headline, /The game moved on/);
});

test("a rule's refusal names the rule", () => {
  const error = {
    status: 422,
    code: "not_now",
    title: "Unprocessable Content",
    detail: "that decision is not asked for now",
    rule: "Yangtze: 2. Purchase One Good",
  };
  const words = explain(error);
  assert.equal(words.headline, "Not allowed: That decision is not asked for now.");
  assert.equal(words.rule, "Yangtze: 2. Purchase One Good");
  const markup = problemHtml(error);
  assert.match(markup, /Rule: <span class="problem-rule">Yangtze: 2. Purchase One Good<\/span>/);
  assert.match(markup, /role="alert"/);
});

test("the readable zoom brings the smallest text to 12 px, within bounds", () => {
  assert.equal(readableZoom(12), 1);
  assert.equal(readableZoom(8), 1.5);
  assert.equal(readableZoom(1), 2.5);
  assert.equal(readableZoom(null), 1);
  assert.equal(nextZoom(1, "in", 0.5), 1.25);
  assert.equal(nextZoom("fit", "out", 0.5), 0.4);
  assert.equal(nextZoom(2, "fit", 0.5), "fit");
});
