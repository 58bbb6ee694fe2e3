// The create form's fields, the generic board and the game page's feed and ending escape what the
// service and the titles send (option names, labels, patterns, game titles, narration, checks):
// node --test tests/web/, no browser.

import assert from "node:assert/strict";
import { test } from "node:test";

// api.js reads the page's address when it loads (?api=): a page's, for node.
globalThis.location ??= new URL("http://127.0.0.1:8000/play/#/game/g_1/seat/0");

const { fieldsOf, renderFields } = await import("../../service/web/assets/schemaform.js");
const generic = await import("../../service/web/assets/generic.js");
const { feedHtml, feedItems } = await import("../../service/web/assets/feed.js");
const { replayEventHtml, verificationHtml } = await import("../../service/web/assets/replay.js");

const HOSTILE = "<img src=x onerror=alert(1)>";
const ESCAPED = "&lt;img src=x onerror=alert(1)&gt;";

const clean = (markup) => {
  assert.ok(!markup.includes("<img"), markup);
  assert.ok(!markup.includes("&amp;lt;"), `escaped twice: ${markup}`);
};

test("the create form's fields escape the schema's and the catalogue's words once", () => {
  const schema = {
    type: "object",
    properties: {
      mode: { enum: ["a", HOSTILE], default: HOSTILE, description: HOSTILE },
      note: { anyOf: [{ type: "string", pattern: `"${HOSTILE}` }, { type: "null" }], default: HOSTILE },
      [`x"${HOSTILE}`]: { type: "integer", minimum: 0, maximum: 100, default: 3 },
    },
  };
  const fields = fieldsOf(schema);
  const markup = String(renderFields(fields, { labels: { mode: { label: HOSTILE } } }));
  clean(markup);
  assert.ok(markup.includes(`<small class="help">${ESCAPED}</small>`), markup);
  assert.ok(markup.includes(`<option value="1" selected>${ESCAPED}</option>`), markup);
  assert.ok(markup.includes(`pattern="&quot;${ESCAPED}" value="${ESCAPED}" placeholder="(default)"`), markup);
  assert.ok(markup.includes(`name="opt.x&quot;${ESCAPED}" data-field="2"`), markup);
  assert.ok(markup.includes('<input type="number" step="1" min="0" max="100" value="3" id="opt-'), markup);
  assert.match(markup, /<label for="opt-[a-z0-9]+-mode">&lt;img/);
});

test("the generic board and holdings escape the game's title and its view", () => {
  const doc = { players: 2, to_act: [0], title: HOSTILE, version: 4 };
  const board = generic.renderBoard({ doc, seat: 1, view: { note: HOSTILE } });
  assert.equal(typeof board, "string");
  clean(board);
  assert.ok(board.includes(`aria-label="${ESCAPED}: players"`), board);
  assert.ok(board.includes(`class="caption">${ESCAPED} · v4</text>`), board);
  assert.ok(board.includes('<g class="seat acting">'), board);
  assert.match(board, /<g class="seat +mine">/);
  const holdings = generic.renderHoldings({ seat: null });
  assert.equal(typeof holdings, "string");
  assert.ok(holdings.startsWith("<p>You are watching (public information only).</p>"), holdings);
});

test("the feed, the verification and the replay's event escape the service's words", () => {
  const feed = String(feedHtml(feedItems([{ seq: 1, seat: 0, type: HOSTILE, text: HOSTILE }])));
  clean(feed);
  assert.ok(feed.includes(`<span class="narration" title="${ESCAPED}">${ESCAPED}</span>`), feed);
  const checks = String(
    verificationHtml({ ok: false, checks: [{ name: HOSTILE, status: "failed", detail: HOSTILE, first_bad_seq: 2 }] }),
  );
  clean(checks);
  assert.ok(checks.includes(`${ESCAPED} (first bad event 2)</span>`), checks);
  const replay = String(replayEventHtml({ seq: 3, seat: 1, event: { type: HOSTILE } }, 3));
  clean(replay);
  assert.ok(replay.includes(`<strong class="replay-type">${ESCAPED}</strong> by Seat 1`), replay);
});
