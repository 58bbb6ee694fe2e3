// Unit tests of the narrated feed (feed.js): the service's lines shown, bots' bursts told in one
// line, the moves since this seat's last one marked recent.

import assert from "node:assert/strict";
import { test } from "node:test";

import { BURST_MIN, burstSummary, feedEntry, feedHtml, feedItems } from "../../service/web/assets/feed.js";

const told = (seq, seat, text) => ({ seq, seat, type: "x.Event", text });

test("an envelope's narration is its line; without one the fallback words it", () => {
  const narrated = feedEntry({ seq: 3, seat: 1, event: { type: "yangtze.BidPlaced" }, text: "Seat 1 bid 7" });
  assert.deepEqual(narrated, { seq: 3, seat: 1, type: "yangtze.BidPlaced", text: "Seat 1 bid 7" });
  const table = feedEntry({ seq: 4, seat: 0, event: { type: "table.TimedOut" } }, () => "ran out of time");
  assert.equal(table.text, "ran out of time");
  const hidden = feedEntry({ seq: 5, seat: 2, event: null, text: null });
  assert.equal(hidden.type, "(hidden from you)");
  assert.equal(hidden.text, null);
});

test("a bot's run of moves is one burst; a person's moves stay single", () => {
  const entries = [
    told(1, 0, "Seat 0 bid 5"),
    ...Array.from({ length: 12 }, (_, i) => told(2 + i, 2, `bot move ${i + 1}`)),
    told(14, 0, "Seat 0 passed"),
    told(15, 0, "Seat 0 passed again"),
    told(16, 0, "and again"),
  ];
  const items = feedItems(entries, { bots: new Set([2]), mine: 0 });
  assert.deepEqual(
    items.map((item) => item.kind),
    ["entry", "burst", "entry", "entry", "entry"],
  );
  const burst = items[1];
  assert.equal(burst.entries.length, 12);
  assert.equal(burstSummary(burst.seat, burst.entries), "Bot (Seat 2) made 12 moves: bot move 1; … bot move 12");
  assert.ok(BURST_MIN <= 12);
});

test("the moves after this seat's last one are recent; a spectator sees the last run so", () => {
  const entries = [told(1, 0, "a"), told(2, 1, "b"), told(3, 1, "c"), told(4, 0, "d"), told(5, 1, "e")];
  const mine = feedItems(entries, { mine: 1 });
  assert.deepEqual(
    mine.map((item) => item.recent),
    [false, false, false, false, false],
  );
  const zero = feedItems(entries, { mine: 0 });
  assert.deepEqual(
    zero.map((item) => item.recent),
    [false, false, false, false, true],
  );
  const watching = feedItems(entries, { mine: null });
  assert.deepEqual(
    watching.map((item) => item.recent),
    [false, false, false, false, true],
  );
});

test("the feed's markup escapes the lines and lists newest first", () => {
  const items = feedItems([told(1, 0, "<b>bold</b>"), told(2, 1, "second")]);
  const markup = feedHtml(items).text;
  assert.ok(markup.indexOf('data-seq="2"') < markup.indexOf('data-seq="1"'));
  assert.ok(markup.includes("&lt;b&gt;bold&lt;/b&gt;"));
  assert.ok(!markup.includes("<b>"));
});

test("a resignation or a take-back is never folded into a bot's burst", () => {
  const entries = [
    { seq: 1, seat: 0, type: "table.SeatReplaced", text: "Seat 0 resigned" },
    { seq: 2, seat: 0, type: "table.GameConceded", text: "Seat 0 conceded" },
    { seq: 3, seat: 0, type: "x.Event", text: "a" },
    { seq: 4, seat: 0, type: "x.Event", text: "b" },
    { seq: 5, seat: 0, type: "x.Event", text: "c" },
  ];
  const items = feedItems(entries, { bots: new Set([0]) });
  assert.deepEqual(
    items.map((item) => item.kind),
    ["entry", "entry", "burst"],
  );
});
