// Unit tests of the game page's pure parts: the clocks (clock.js), who plays each seat and the
// table's words (table.js), the ending and the replay's markup (replay.js), the live indicator
// (stream.js), the recent events a board highlights (feed.js's rule).  No browser, no server.

import assert from "node:assert/strict";
import { test } from "node:test";

// api.js reads the page's address when it loads (?api=): a page's, for node.
globalThis.location ??= new URL("http://127.0.0.1:8000/play/#/game/g_1/seat/0");

const { clockHtml, countdownText, formatDuration, ServerClock, tickClocks } = await import(
  "../../service/web/assets/clock.js"
);
const { botPlays, narrateTable, tableInfo, whoLabel, whoPlays } = await import("../../service/web/assets/table.js");
const { replayEventHtml, scoreRows, seedVerdict, verificationHtml } = await import(
  "../../service/web/assets/replay.js"
);
const { liveText, POLL_MS } = await import("../../service/web/assets/stream.js");
const { recentEntries, recentSince } = await import("../../service/web/assets/feed.js");
const { recentOf } = await import("../../service/web/assets/game.js");

const doc = (overrides = {}) => ({
  status: "active",
  version: 7,
  to_act: [0],
  seats: [
    { seat: 0, claimed: true, bot: null },
    { seat: 1, claimed: true, bot: "heuristic" },
    { seat: 2, claimed: false, bot: null },
    { seat: 3, claimed: true, bot: "random" },
  ],
  table: {
    clock: { mode: "decision", seconds: 30 },
    clocks: [
      { seat: 0, deadline_ms: 1_000_030_000, timeouts: 1 },
      { seat: 1, remaining_ms: 5000, timeouts: 0 },
    ],
    replaced: [{ seat: 3, reason: "resigned" }],
  },
  ...overrides,
});

test("durations read as clocks: minutes, hours, days; never negative", () => {
  assert.equal(formatDuration(83_000), "1:23");
  assert.equal(formatDuration(3_723_000), "1:02:03");
  assert.equal(formatDuration(2 * 86_400_000 + 3_600_000 + 60_000), "2d 1h 01m");
  assert.equal(formatDuration(-5), "0:00");
  assert.equal(countdownText(0), "0:00 — time is up");
  assert.equal(countdownText(1500), "0:02");
});

test("the service's clock: Server-Time-Ms and pings set the offset; nonsense is ignored", () => {
  let local = 1000;
  const clock = new ServerClock(() => local);
  clock.note(6000);
  assert.equal(clock.now(), 6000);
  local = 2000;
  assert.equal(clock.now(), 7000);
  clock.note("not a time");
  clock.note(null);
  assert.equal(clock.offset, 5000);
  clock.noteResponse({ headers: new Map([["Server-Time-Ms", "12000"]]) });
  assert.equal(clock.now(), 12000);
  // An answer read early (app.js, before the page's module arrived) counts from when it was heard.
  local = 5000;
  clock.noteResponse({ headers: new Map([["Server-Time-Ms", "20000"]]) }, 4000);
  assert.equal(clock.now(), 21000);
});

test("a running clock carries its deadline; a stopped one its time left in a total-time game", () => {
  const running = String(clockHtml(doc(), 0));
  assert.match(running, /class="clock running" data-seat="0" data-deadline="1000030000"/);
  assert.match(running, /1 timeout</);
  assert.equal(String(clockHtml(doc(), 1)), "");
  const total = doc({ table: { ...doc().table, clock: { mode: "total" } } });
  assert.match(String(clockHtml(total, 1)), /class="clock stopped" data-seat="1">0:05</);
  assert.equal(String(clockHtml(doc({ table: null }), 0)), "");
});

test("the clocks tick down on the service's time", () => {
  const element = {
    dataset: { deadline: "100000" },
    textContent: "",
    classList: {
      low: null,
      toggle(name, on) {
        this[name] = on;
      },
    },
  };
  const root = { querySelectorAll: () => [element] };
  tickClocks(root, 95_000);
  assert.equal(element.textContent, "0:05");
  assert.equal(element.dataset.leftMs, "5000");
  assert.equal(element.classList.low, true);
  tickClocks(root, 200_000);
  assert.equal(element.textContent, "0:00 — time is up");
  assert.equal(element.dataset.leftMs, "0");
});

test("who plays each seat: a person, a bot, a bot since the seat resigned, nobody yet", () => {
  const game = doc();
  assert.deepEqual(whoPlays(game, 0), { kind: "person" });
  assert.deepEqual(whoPlays(game, 1), { kind: "bot", level: "heuristic" });
  assert.deepEqual(whoPlays(game, 2), { kind: "open" });
  assert.deepEqual(whoPlays(game, 3), { kind: "replaced", level: "random", reason: "resigned" });
  assert.deepEqual(
    [0, 1, 2, 3].map((seat) => whoLabel(whoPlays(game, seat))),
    ["player", "bot (heuristic)", "open", "resigned (bot plays)"],
  );
  assert.equal(botPlays(game, 0), null);
  assert.equal(botPlays(game, 1), "a bot (heuristic)");
  assert.equal(botPlays(game, 3), "a bot (the seat resigned)");
  assert.equal(botPlays(game, null), null);
});

test("table events in words", () => {
  assert.equal(narrateTable({ type: "table.ClockPunched", seat: 0 }), "Seat 0's clock stops");
  assert.equal(narrateTable({ type: "table.ClockPunched", seat: -1 }), "The clocks start");
  assert.equal(
    narrateTable({ type: "table.Checkpoint", seat: 1, undoable: false }),
    "Seat 1 acts (cannot be taken back)",
  );
  assert.equal(
    narrateTable({ type: "table.SeatReplaced", seat: 2, reason: "left" }),
    "Seat 2 left the table: a bot plays the seat from now on",
  );
  assert.equal(narrateTable({ type: "table.Unknown", seat: 0 }), "table.Unknown");
  assert.deepEqual(tableInfo({ takebacks: "consent" }), ["take-backs: consent"]);
  assert.deepEqual(tableInfo(null), []);
});

test("the ending's markup escapes what the game says", () => {
  const rows = scoreRows({
    scores: [
      { seat: 1, rank: 2, score: 3, breakdown: { "<b>": "x&y" } },
      { seat: 0, rank: 1, score: 9, breakdown: { ships: 4, goods: 5 } },
    ],
  }).map(String);
  assert.match(rows[0], /^<tr data-seat="0">/);
  assert.match(rows[0], /<span class="part">ships: 4<\/span> <span class="part">goods: 5<\/span>/);
  assert.ok(rows[1].includes("&lt;b&gt;: x&amp;y") && !rows[1].includes("<b>"));
  const checks = String(
    verificationHtml({
      ok: false,
      checks: [{ name: "replay", status: "failed", detail: "<i>bad</i>", first_bad_seq: 4 }],
    }),
  );
  assert.match(checks, /badge bad">failed/);
  assert.match(checks, /&lt;i&gt;bad&lt;\/i&gt; \(first bad event 4\)/);
  assert.deepEqual(seedVerdict("ab", "ab")[0], "ok");
  assert.deepEqual(seedVerdict("ab", "cd")[0], "error");
  assert.deepEqual(seedVerdict(null, "cd")[0], "muted");
});

test("the replay names the event of the version, or says it is hidden", () => {
  const shown = String(replayEventHtml({ seq: 4, seat: 1, event: { type: "yangtze.Bid", amount: 5 } }, 4));
  assert.match(shown, /Event 4: <strong class="replay-type">yangtze.Bid<\/strong> by Seat 1/);
  assert.match(String(replayEventHtml({ seq: 4, seat: 1, event: null }, 4)), /Event 4 is hidden from you/);
});

test("the live indicator says how the page follows the game", () => {
  assert.equal(liveText("socket"), "live · socket");
  assert.equal(liveText("stream"), "live");
  assert.equal(liveText("polling", "the stream closed"), `polling every ${POLL_MS / 1000} s (the stream closed)`);
  assert.equal(liveText("ended"), "the game has ended");
});

test("recent: a seat's are the events after its last one; a spectator's the last seat's run", () => {
  const envelopes = [
    { seq: 1, seat: 0, event: { type: "a" } },
    { seq: 2, seat: 1, event: { type: "b" } },
    { seq: 3, seat: 1, event: null },
    { seq: 4, seat: 0, event: { type: "c" } },
    { seq: 5, seat: 1, event: { type: "d" } },
    { seq: 6, seat: 1, event: { type: "e" } },
  ];
  assert.equal(recentSince(envelopes, 0), 4);
  assert.deepEqual(
    recentEntries(envelopes, 0).map((e) => e.seq),
    [5, 6],
  );
  assert.deepEqual(recentEntries(envelopes, 1), []); // its move was the last
  assert.deepEqual(
    recentEntries(envelopes, null).map((e) => e.seq),
    [5, 6],
  );
  assert.deepEqual(recentEntries(envelopes, 2), []); // no event of its own among them: nothing
  assert.deepEqual(recentEntries([], null), []);
});

test("a board's recent events: {seq, seat, event}, oldest first, hidden ones left out", () => {
  const envelopes = [
    { seq: 1, seat: 0, event: { type: "x.A" }, text: "a", recorded_at: "t" },
    { seq: 2, seat: 1, event: { type: "x.B", die: 3 }, text: "b", recorded_at: "t" },
    { seq: 3, seat: 1, event: null, text: null, recorded_at: "t" },
    { seq: 4, seat: null, event: { type: "table.ClockPunched", seat: 1 }, text: null, recorded_at: "t" },
  ];
  assert.deepEqual(recentOf(envelopes, 0), [
    { seq: 2, seat: 1, event: { type: "x.B", die: 3 } },
    { seq: 4, seat: null, event: { type: "table.ClockPunched", seat: 1 } },
  ]);
  assert.deepEqual(recentOf(envelopes, 1), [{ seq: 4, seat: null, event: { type: "table.ClockPunched", seat: 1 } }]);
  assert.deepEqual(recentOf(envelopes, null), [{ seq: 4, seat: null, event: { type: "table.ClockPunched", seat: 1 } }]);
  assert.deepEqual(recentOf([], 0), []);
});

test("a seat that acted last sees what its own last move did", () => {
  const envelopes = [
    { seq: 1, seat: 1, event: { type: "x.A" } },
    { seq: 2, seat: 0, event: { type: "x.B" } },
    { seq: 3, seat: 0, event: { type: "x.C" } },
  ];
  assert.deepEqual(recentOf(envelopes, 0), []); // no move of this page's yet: nothing to show
  assert.deepEqual(
    recentOf(envelopes, 0, 1).map((e) => e.seq),
    [2, 3],
  );
  // Others moved since: those, not the seat's own.
  assert.deepEqual(
    recentOf([...envelopes, { seq: 4, seat: 1, event: { type: "x.D" } }], 0, 1).map((e) => e.seq),
    [4],
  );
  assert.deepEqual(recentOf(envelopes, null, 1), [
    { seq: 2, seat: 0, event: { type: "x.B" } },
    { seq: 3, seat: 0, event: { type: "x.C" } },
  ]);
});
