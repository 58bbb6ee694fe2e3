// Unit tests of the Jiangnan board module (node --test tests/web/): the board and the holdings drawn
// from real fixtures, escaping of everything that comes from outside, move labels, and the highlight
// of what the latest moves touched.  No browser, no server.

import assert from "node:assert/strict";
import fs from "node:fs";
import { test } from "node:test";

import { describeMove, renderBoard, renderHoldings, touchedBy } from "../../service/web/assets/boards/jiangnan.js";
import { recentOf } from "./boards_support.js";

const NAMES = ["jiangnan-1p", "jiangnan-4p"];
const FIXTURES = Object.fromEntries(
  NAMES.map((name) => [name, JSON.parse(fs.readFileSync(new URL(`./fixtures/${name}.json`, import.meta.url), "utf8"))]),
);

const HOSTILE_TAG = "<img src=x onerror=alert(1)>";
const HOSTILE_QUOTES = `"quoted" & 'single'`;
const HOSTILE = `${HOSTILE_TAG}${HOSTILE_QUOTES}`;
const ESCAPED_TAG = "&lt;img src=x onerror=alert(1)&gt;";
const ESCAPED_QUOTES = "&quot;quoted&quot; &amp; &#39;single&#39;";

const RECENT_CLASS = /class="[^"]*\brecent\b/;

const clone = (x) => structuredClone(x);

/** The envelopes as ctx.recent holds them: {seq, seat, event}, hidden ones left out. */
const envelopes = (events) => events.filter((e) => e.event).map(({ seq, seat, event }) => ({ seq, seat, event }));

function ctxOf(f, extra = {}) {
  const doc = clone(f.doc);
  return {
    kind: "jiangnan",
    doc,
    view: doc.view,
    components: clone(f.components),
    seat: f.seat,
    players: doc.players,
    recent: recentOf(f.events, f.seat),
    ...extra,
  };
}

/** Throws unless every tag of *markup* is closed in order (self-closing `<x/>` counts as closed). */
function assertBalanced(markup) {
  const stack = [];
  for (const m of markup.matchAll(/<(\/?)([a-zA-Z][\w-]*)[^>]*?(\/?)>/g)) {
    const [, closing, name, selfClosing] = m;
    if (selfClosing) continue;
    if (!closing) stack.push(name);
    else assert.equal(stack.pop(), name, `</${name}> closes the wrong element at ${m.index}`);
  }
  assert.deepEqual(stack, [], "unclosed elements");
}

function assertClean(markup) {
  assert.equal(typeof markup, "string");
  assert.ok(markup.length > 0);
  for (const bad of ["undefined", "NaN", "[object Object]"]) assert.ok(!markup.includes(bad), `${bad} in the output`);
  assertBalanced(markup);
}

const count = (s, part) => s.split(part).length - 1;

// A string field made hostile, keys (ids) kept: every name, title, power and text of the game.
function hostileLeaves(x) {
  if (typeof x === "string") return x + HOSTILE;
  if (Array.isArray(x)) return x.map(hostileLeaves);
  if (x && typeof x === "object") return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, hostileLeaves(v)]));
  return x;
}

// Every optional part of the board on: exam, charm, talents, vassals, final scoring, outcome.
function withEverything(ctx) {
  const view = ctx.view;
  const board = view.board;
  board.config = { ...board.config, exam: true, artisans: true, charm: true, talents: "A", vassals: true };
  board.charm = "A";
  board.charm_column = ["B", "C"];
  board.talent_offer = ["A01", "A02"];
  view.player_boards.push(clone(view.player_boards[0]));
  board.vassals = { 0: view.player_boards.length - 1 };
  board.final = view.player_boards.map(() => ({ before: 3, drama: 2 }));
  Object.assign(view.player_boards[0], {
    talent: "A03",
    degree: 2,
    spirits_tiles: 2,
    assistants: ["B01", "B02"],
    income_used: ["B01"],
    bag: ["S01"],
    unpublished: ["A1", ...view.player_boards[0].unpublished],
  });
  ctx.doc.outcome = {
    summary: "Seat 0 wins",
    winners: [0],
    scores: [{ seat: 0, score: 12, rank: 1, breakdown: { drama: 3 } }],
    details: { bot: { difficulty: "easy", score: 9, breakdown: { vp: 9 } } },
  };
  return ctx;
}

for (const name of NAMES) {
  const f = FIXTURES[name];

  test(`${name}: the board and the holdings draw as balanced markup`, () => {
    for (const ctx of [ctxOf(f), ctxOf(f, { seat: null }), withEverything(ctxOf(f))]) {
      const board = renderBoard(ctx);
      assertClean(board);
      assert.equal(count(board, "<svg"), 1);
      assert.equal(count(board, "</svg>"), 1);
      assert.ok(!board.includes("could not be drawn"));
      assert.ok(board.includes("Jiangnan: Life of Gentry"));
      const holdings = renderHoldings(ctx);
      assertClean(holdings);
      assert.ok(!holdings.includes("could not be drawn"));
      assert.ok(holdings.includes("<table"));
    }
  });

  test(`${name}: the seat's own holdings are shown, a spectator's are not`, () => {
    assert.match(renderHoldings(ctxOf(f)), /Your holdings/);
    assert.match(renderHoldings(ctxOf(f, { seat: null })), /Spectating: no private holdings/);
  });

  test(`${name}: everything from outside is escaped, once`, () => {
    // Names, titles, powers, shops, cities, charms, exams (components); seat names; the outcome.
    const ctx = withEverything(ctxOf(f));
    ctx.components = hostileLeaves(ctx.components);
    ctx.players = ctx.view.player_boards.map((_, i) => (i % 2 ? { name: HOSTILE } : HOSTILE));
    ctx.doc.outcome.summary = HOSTILE;
    ctx.doc.outcome.scores[0].breakdown = { [HOSTILE]: 3 };
    ctx.doc.outcome.details.bot.difficulty = HOSTILE;
    ctx.doc.version = HOSTILE;
    // Ids of the view itself (tiles, Portfolios, trends, the step) as a hostile server would send.
    const p = ctx.view.player_boards[0];
    p.track = [HOSTILE, ...p.track.slice(1)];
    p.unpublished = [HOSTILE, ...p.unpublished];
    p.cities = [HOSTILE];
    p.talent = HOSTILE;
    ctx.view.board.trend_track = [HOSTILE];
    ctx.view.board.final[0] = { [HOSTILE]: 2 };
    ctx.view.step = { kind: HOSTILE, seat: 0 };
    for (const markup of [renderBoard(ctx), renderHoldings(ctx)]) {
      assert.ok(!markup.includes("<img"), "a raw <img in the output");
      assert.ok(markup.includes(ESCAPED_TAG));
      assert.ok(markup.includes(ESCAPED_QUOTES));
      assert.ok(!markup.includes("&amp;lt;"), "escaped twice");
      assertBalanced(markup);
    }
  });

  test(`${name}: a whole hostile view draws escaped`, () => {
    const ctx = ctxOf(f);
    ctx.view = hostileLeaves(ctx.view);
    ctx.doc.view = ctx.view;
    for (const markup of [renderBoard(ctx), renderHoldings(ctx)]) {
      assert.ok(!markup.includes("<img"));
      assert.ok(markup.includes(ESCAPED_TAG));
      assertBalanced(markup);
    }
  });

  test(`${name}: every legal move has a label of its own`, () => {
    const moves = (f.legal && f.legal.moves) || [];
    assert.ok(moves.length > 0);
    const ctx = ctxOf(f);
    const labels = moves.map((move) => describeMove(move, ctx));
    for (const [i, label] of labels.entries()) {
      assert.equal(typeof label, "string");
      assert.ok(label.length > 0);
      assert.ok(!label.includes("jiangnan."), label);
      assert.ok(!/undefined|NaN|\[object Object\]/.test(label), label);
      // not the fallback "Type (field=value, …)" of a command the module does not know
      assert.ok(!/^[A-Za-z]+ \([a-z_]+=/.test(label), `fallback label for ${moves[i].type}: ${label}`);
    }
    assert.equal(new Set(labels).size, labels.length, "two legal moves share a label");
  });

  test(`${name}: with no recent events nothing is highlighted`, () => {
    for (const recent of [[], undefined]) {
      const ctx = ctxOf(f, { recent });
      assert.doesNotMatch(renderBoard(ctx), RECENT_CLASS);
      assert.doesNotMatch(renderHoldings(ctx), RECENT_CLASS);
    }
  });
}

test("jiangnan-4p: the moves since the seat's last one are highlighted on the board and in the holdings", () => {
  const f = FIXTURES["jiangnan-4p"];
  const ctx = ctxOf(f);
  // Seat 2 drafted; then Seat 0 drafted Action Tile 1-03.
  assert.deepEqual(
    ctx.recent.map((r) => r.event.type),
    ["jiangnan.StepEnded", "jiangnan.ActionTileDrafted", "jiangnan.StepBegan"],
  );
  const board = renderBoard(ctx);
  assert.match(board, RECENT_CLASS);
  assert.match(board, /<text [^>]*class="recent">Drafted: 1-10, 1-01, 1-03<\/text>/);
  assert.match(board, /<text [^>]*class="recent">Bag 2 · Used 3 · Drafted 3 · Discarded 3<\/text>/);
  const holdings = renderHoldings(ctx);
  assert.match(holdings, RECENT_CLASS);
  assert.equal(count(holdings, 'class="recent"'), 1, "only Seat 0's Track / bag cell");
});

test("jiangnan-1p: the Bot's turn is highlighted (its travels, Scholar and used tile)", () => {
  // In the solo game the Bot's turn follows seat 0's command, so by the feed's rule nothing is
  // recent to seat 0: take the Bot's last turn as the recent events.
  const f = FIXTURES["jiangnan-1p"];
  const all = envelopes(f.events);
  const start = all.findLastIndex((e) => e.event.type === "jiangnan.TurnBegan" && e.event.seat !== f.seat);
  const recent = all.slice(start);
  assert.ok(recent.some((r) => r.event.type === "jiangnan.Travelled"));
  const board = renderBoard(ctxOf(f, { recent }));
  for (const city of ["C1", "C2", "C3"]) {
    assert.match(board, new RegExp(`<title>${city} [^<]*</title><rect [^>]*class="recent"/>`), city);
  }
  assert.match(board, /<title>Solo Bot&#39;s Scholar<\/title><circle [^>]*class="recent"\/>/);
  assert.match(board, /<text [^>]*class="recent">Used: [^<]*S07/);
  assert.match(board, /<text [^>]*class="recent">Cities \(8\)/);
  // Seat 0's own coins did not change in the Bot's turn.
  assert.doesNotMatch(renderHoldings(ctxOf(f, { recent })), /<span class="recent">\d+ Coins/);
});

test("touchedBy: one key per thing a move changed; other and unknown events add none", () => {
  const keys = touchedBy([
    { seq: 1, seat: 0, event: { type: "jiangnan.ResourcesChanged", seat: 0, coins: 2, vp: 0, drama: 1 } },
    { seq: 2, seat: 0, event: { type: "jiangnan.ScholarPlaced", seat: 0, district: "teahouse" } },
    { seq: 3, seat: 0, event: { type: "jiangnan.PortfolioPublished", seat: 0, portfolio: "A7", where: "tavern" } },
    { seq: 4, seat: 0, event: { type: "jiangnan.DisplayTileAdded", seat: 0, district: "tavern", kind: "drama" } },
    { seq: 5, seat: 0, event: { type: "jiangnan.DisplayTileAdded", seat: -1, district: "tavern", kind: "novel" } },
    { seq: 6, seat: 0, event: { type: "jiangnan.BoatServantMoved", seat: 0, from_boat: 1, to_boat: 2 } },
    { seq: 7, seat: 0, event: { type: "jiangnan.StepBegan", step: { kind: "turn", seat: 0 } } },
    { seq: 8, seat: 0, event: { type: "jiangnan.SomethingNew", seat: 0 } },
    { seq: 9, seat: 0, event: null },
    { seq: 10, seat: 0 },
  ]);
  assert.deepEqual([...keys].sort(), [
    "boat:1:0",
    "boat:2:0",
    "coins:0",
    "display:tavern:0",
    "display:tavern:1",
    "idea:0:drama",
    "portfolio:A7",
    "scholar:teahouse:0",
  ]);
  assert.equal(touchedBy(undefined).size, 0);
  assert.equal(touchedBy([]).size, 0);
});

test("jiangnan-4p: synthetic moves light up the spaces, pieces, tiles and cards they changed", () => {
  const f = FIXTURES["jiangnan-4p"];
  const ev = (event) => ({ seq: 1, seat: event.seat, event });
  const recent = [
    ev({ type: "jiangnan.ResourcesChanged", seat: 2, coins: 1, spirit: -1, painting: 2 }),
    ev({ type: "jiangnan.ScholarPlaced", seat: 1, district: "teahouse" }),
    ev({ type: "jiangnan.ServantOnMuse", seat: 2, muse: "B04" }),
    ev({ type: "jiangnan.BoatServantPlaced", seat: 3, boat: 2 }),
    ev({ type: "jiangnan.PortfolioTaken", seat: 2, portfolio: "C3" }),
    ev({ type: "jiangnan.DisplayTileAdded", seat: -1, district: "teahouse", kind: "novel" }),
    ev({ type: "jiangnan.FairMoved", seat: 0, to: 0 }),
    ev({ type: "jiangnan.TrendChosen", seat: 1, trend: "scenery" }),
    ev({ type: "jiangnan.MuseRevealed", muse: "B16" }),
  ];
  const ctx = ctxOf(f, { recent });
  const board = renderBoard(ctx);
  const lit = (title, element) =>
    assert.match(board, new RegExp(`<title>${title}</title><${element} [^>]*class="recent"/>`), title);
  lit("Seat 1&#39;s Scholar", "circle");
  lit("Seat 2 \\(you\\)&#39;s Servant", "circle");
  lit("Seat 3: 1 Servant", "rect");
  lit("C3 [^<]*unpublished", "rect");
  lit("Novel Display Tile, no Servant", "rect");
  lit("Seat 0&#39;s Servant", "circle");
  lit("Scoring Trend: Scenery", "rect");
  lit("Muse B16 [^<]*", "rect");
  lit("\\d+ Painting Ideas", "rect");
  assert.match(board, /<text [^>]*class="recent">7<\/text>/, "Seat 2's Coins");
  // Only the first Novel Display Tile of the Teahouse is new.
  assert.equal(count(board, "<title>Novel Display Tile, no Servant</title><rect"), 2);
  const holdings = renderHoldings(ctx);
  assert.match(holdings, /<span class="recent">7 Coins<\/span>/);
  assert.match(holdings, /<span class="recent">Spirit 6\/6<\/span>/);
  assert.match(holdings, /<span class="recent">3 Painting<\/span>/);
  assert.match(holdings, /<li class="recent"><span class="swatch square"[^>]*><\/span> <b>C3<\/b>/);
  assert.doesNotMatch(holdings, /<span class="recent">\d+ Drama/);
});

test("a missing or broken context draws, never throws", () => {
  for (const ctx of [null, undefined, {}, { view: { board: null, player_boards: [null, 3] } }]) {
    assertClean(renderBoard(ctx));
    assertClean(renderHoldings(ctx));
  }
  assert.ok(describeMove(null, null).length > 0);
  assert.equal(describeMove({ type: "jiangnan.Unheard", x: 1 }, {}), "Unheard (x=1)");
});
