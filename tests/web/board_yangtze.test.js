// Unit tests of the Yangtze board module (service/web/assets/boards/yangtze.js), drawn from the fixtures
// tests/web/fixtures/yangtze-*.json (what the web client holds for one seat of a real game): the
// drawing is well-formed, escapes what comes from outside, labels every legal move, and marks what the
// latest moves touched (class="recent").

import assert from "node:assert/strict";
import fs from "node:fs";
import { test } from "node:test";

import { describeMove, renderBoard, renderHoldings, touchedBy } from "../../service/web/assets/boards/yangtze.js";
import { recentOf } from "./boards_support.js";

const NAMES = ["yangtze-2p", "yangtze-4p"];
const FIXTURES = NAMES.map((name) => [
  name,
  JSON.parse(fs.readFileSync(new URL(`./fixtures/${name}.json`, import.meta.url), "utf8")),
]);

const HOSTILE = `<img src=x onerror=alert(1)> "quoted" & 'single'`;
const ESCAPED = "&lt;img src=x onerror=alert(1)&gt; &quot;quoted&quot; &amp; &#39;single&#39;";
const RECENT = /class="[^"]*\brecent\b[^"]*"/;

function contextOf(f, seat = f.seat) {
  return {
    kind: "yangtze",
    doc: f.doc,
    view: f.doc.view,
    components: f.components,
    seat,
    players: f.doc.players,
    recent: recentOf(f.events, seat),
  };
}

function count(text, needle) {
  return text.split(needle).length - 1;
}

function assertWellFormed(markup, what) {
  assert.equal(typeof markup, "string", what);
  assert.ok(markup.length > 0, what);
  for (const bad of ["undefined", "NaN", "[object Object]"]) assert.ok(!markup.includes(bad), `${what}: ${bad}`);
  for (const tag of ["svg", "g", "text", "title", "section", "table", "tr", "td", "span", "ul", "li", "p", "h3"]) {
    const opened = count(markup, `<${tag}>`) + count(markup, `<${tag} `);
    assert.equal(opened, count(markup, `</${tag}>`), `${what}: <${tag}> balanced`);
  }
}

for (const [name, f] of FIXTURES) {
  for (const [who, seat] of [
    ["seat", f.seat],
    ["spectator", null],
  ]) {
    test(`${name} (${who}): board and holdings are well-formed markup`, () => {
      const ctx = contextOf(f, seat);
      const board = renderBoard(ctx);
      assertWellFormed(board, "board");
      assert.ok(board.startsWith("<svg"));
      assert.equal(count(board, "<svg"), 1);
      assert.ok(!board.includes("could not be drawn"));
      const holdings = renderHoldings(ctx);
      assertWellFormed(holdings, "holdings");
      assert.ok(!holdings.includes("could not be drawn"));
      assert.ok(holdings.includes("<table"));
    });
  }

  test(`${name}: every legal move has a label`, () => {
    const moves = f.legal ? f.legal.moves : [];
    assert.ok(moves.length > 0);
    const ctx = contextOf(f);
    for (const move of moves) {
      const label = describeMove(move, ctx);
      assert.equal(typeof label, "string");
      assert.ok(label.trim().length > 0, JSON.stringify(move));
      assert.ok(!/undefined|NaN|\[object Object\]/.test(label), label);
    }
  });

  test(`${name}: the latest moves are marked, and nothing without them`, () => {
    for (const seat of [f.seat, null]) {
      const ctx = contextOf(f, seat);
      if (!ctx.recent.length) continue;
      const marked = renderBoard(ctx) + renderHoldings(ctx);
      assert.ok(touchedBy(ctx.recent).size > 0);
      assert.match(marked, RECENT);
      const plain = renderBoard({ ...ctx, recent: [] }) + renderHoldings({ ...ctx, recent: [] });
      assert.doesNotMatch(plain, RECENT);
      const none = renderBoard({ ...ctx, recent: undefined }) + renderHoldings({ ...ctx, recent: undefined });
      assert.equal(none, plain);
    }
  });

  test(`${name}: a spectator sees the last seat's run marked`, () => {
    const ctx = contextOf(f, null);
    assert.ok(ctx.recent.length > 0);
    assert.match(renderBoard(ctx) + renderHoldings(ctx), RECENT);
  });
}

test("4p fixture: the auction's new branch, the bidders' money and their redeemed liquidity are marked", () => {
  const f = FIXTURES[1][1];
  const ctx = contextOf(f);
  const keys = touchedBy(ctx.recent);
  for (const key of ["branch:86", "branch:82", "money:0", "money:2", "used:0:10", "used:2:10"]) {
    assert.ok(keys.has(key), key);
  }
  const board = renderBoard(ctx);
  // the branch token up for auction, in the auction panel
  assert.match(board, /<path class="recent" d="M22 /);
  const holdings = renderHoldings(ctx);
  assert.match(holdings, /<td class="recent">20 \+ 1×50 = 70<\/td>/);
});

// ---------------------------------------------------------------- escaping

/** The fixture with *text* in every string the module prints that comes from outside it. */
function hostile(f, text) {
  const components = structuredClone(f.components);
  for (const g of components.goods) Object.assign(g, { good: text, colour: text, symbol: text, category: text });
  for (const b of components.branches) Object.assign(b, { type: text, colour: text });
  for (const r of components.rulers) Object.assign(r, { text, order: text, branch_types: [text] });
  components.reigns = components.reigns.map(() => text);
  components.bundle_values = { [text]: { good: [3, 10], colour: [3, 10] } };
  const view = structuredClone(f.doc.view);
  const n = view.players;
  Object.assign(view, {
    phase: "over",
    rules_version: text,
    final_reason: text,
    rulers: [61, 62, 63],
    ruler_current: 62,
    removed_branches: [74],
    box: [0, 1, 2],
    cards: view.cards.map((cards) => [...cards, text]),
    branches: view.branches.map((branches, s) => [...branches, 75 + s]),
    known_goods: view.known_goods.map((goods, s) => [...goods, 30 + s, 40 + s]),
    screen_counts: view.screen_counts.map((c) => c + 3),
    final_totals: Array.from({ length: n }, (_, s) => 100 + s),
    final_breakdown: Array.from({ length: n }, () => ({ [text]: 7 })),
    final_bundles: Array.from({ length: n }, (_, s) => [[30 + s, 40 + s]]),
  });
  const doc = { ...f.doc, view, status: text };
  const players = Array.from({ length: n }, (_, s) => (s % 2 ? text : { seat: s, name: text }));
  return { kind: "yangtze", doc, view, components, seat: f.seat, players, recent: recentOf(f.events, f.seat) };
}

for (const [name, f] of FIXTURES) {
  test(`${name}: text from outside is escaped in the board and the holdings`, () => {
    const ctx = hostile(f, HOSTILE);
    for (const [what, markup] of [
      ["board", renderBoard(ctx)],
      ["holdings", renderHoldings(ctx)],
      ["auction board", renderBoard({ ...ctx, view: { ...ctx.view, phase: "auction", auction_token: 80 } })],
      ["ruler board", renderBoard({ ...ctx, view: { ...ctx.view, phase: "ruler", window: 0 } })],
      ["sale board", renderBoard({ ...ctx, view: { ...ctx.view, phase: "turn", window: 0, auction_token: null } })],
    ]) {
      assert.ok(!markup.includes("could not be drawn"), what);
      assert.ok(!markup.includes("<img"), `${what}: raw <img`);
      assert.ok(!markup.includes('"quoted"'), `${what}: raw quotes`);
      assert.ok(markup.includes("&lt;img src=x"), `${what}: escaped`);
      assertWellFormed(markup, what);
    }
    const holdings = renderHoldings(ctx);
    assert.ok(holdings.includes(ESCAPED));
    assert.ok(!holdings.includes("&amp;lt;"), "escaped twice");
    assert.ok(!renderBoard(ctx).includes("&amp;lt;"), "escaped twice");
  });
}

test("the fallback drawing escapes the error too", () => {
  const explosive = {
    get view() {
      throw new Error(HOSTILE);
    },
  };
  const board = renderBoard(explosive);
  const holdings = renderHoldings(explosive);
  for (const markup of [board, holdings]) {
    assert.equal(typeof markup, "string");
    assert.ok(markup.includes("could not be drawn"));
    assert.ok(!markup.includes("<img"));
    assert.ok(markup.includes("&lt;img"));
  }
  assert.equal(count(board, "<svg"), count(board, "</svg>"));
});

// ---------------------------------------------------------------- what each event touches

const SYNTHETIC = [
  [{ type: "yangtze.GoodDrawn", good: 7 }, ["river:7"]],
  [
    { type: "yangtze.GoodPurchased", seat: 1, slot: 3, good: 9, price: 8 },
    ["house:3", "screen:1", "screen:1:9", "money:1"],
  ],
  [{ type: "yangtze.GoodPurchased", seat: 1, slot: 3, good: 9, price: 0, free: true }, ["house:3", "screen:1:9"]],
  [
    { type: "yangtze.GoodsSold", seat: 0, goods: [4, 5], value: 10, via: "turn" },
    ["box:4", "box:5", "money:0", "screen:0"],
  ],
  [{ type: "yangtze.GoodReturned", seat: 2, good: 11 }, ["box:11", "screen:2"]],
  [{ type: "yangtze.GoodExchanged", seat: 2, good: 11, slot: 5, taken: 12 }, ["river:11", "house:5", "screen:2:12"]],
  [{ type: "yangtze.LiquidityCardPlayed", seat: 3, value: 15 }, ["used:3:15", "money:3"]],
  [{ type: "yangtze.LiquidityBoughtBack", seat: 3, value: 15 }, ["liquidity:3:15", "money:3"]],
  [{ type: "yangtze.SellCardPlayed", seat: 1 }, ["window:1"]],
  [{ type: "yangtze.BranchDrawn", token: 80 }, ["branch:80"]],
  [{ type: "yangtze.BranchWon", seat: 0, token: 80, price: 12 }, ["branch:80", "money:0"]],
  [{ type: "yangtze.BranchDiscarded", token: 80 }, ["removed:80"]],
  [{ type: "yangtze.BidPlaced", seat: 2, amount: 14 }, ["bid:2:14"]],
  [{ type: "yangtze.RulerDrawn", token: 65, spot: 4 }, ["ruler:4"]],
  [{ type: "yangtze.RulerChosen", seat: 0, spot: 2 }, ["ruler:2"]],
  [{ type: "yangtze.OrderExecuted", seat: 1, order: "tax_money", amount: -5 }, ["money:1"]],
  [{ type: "yangtze.FinalScoring", reason: "x", bundles: [], breakdown: [], totals: [] }, ["final"]],
];

test("each event type touches what it changed; unknown and hidden events touch nothing", () => {
  for (const [event, keys] of SYNTHETIC) {
    const touched = touchedBy([{ seq: 1, seat: 0, event }]);
    for (const key of keys) assert.ok(touched.has(key), `${event.type}: ${key}`);
  }
  assert.equal(touchedBy([{ seq: 1, seat: 0, event: { type: "yangtze.Unheard", seat: 0 } }]).size, 0);
  assert.equal(touchedBy([{ seq: 1, seat: 0, event: { type: "yangtze.TurnEnded", seat: 0, next: 1 } }]).size, 0);
  assert.equal(touchedBy([{ seq: 1, seat: 0, event: null }, null, {}]).size, 0);
  assert.equal(touchedBy(undefined).size, 0);
});

test("synthetic moves are marked where they landed on the board", () => {
  const f = FIXTURES[0][1];
  const view = f.doc.view;
  const riverGood = view.river[0];
  const boxGood = view.box[view.box.length - 1];
  const mine = view.known_goods[f.seat][0];
  const recent = [
    { seq: 100, seat: 0, event: { type: "yangtze.GoodDrawn", good: riverGood } },
    { seq: 101, seat: 0, event: { type: "yangtze.GoodsSold", seat: 0, goods: [boxGood], value: 3, via: "turn" } },
    {
      seq: 102,
      seat: 0,
      event: { type: "yangtze.GoodPurchased", seat: f.seat, slot: 2, good: mine, price: 9 },
    },
    { seq: 103, seat: 0, event: { type: "yangtze.RulerDrawn", token: 61, spot: 0 } },
  ];
  const ctx = { ...contextOf(f), view: { ...view, rulers: [61] }, recent };
  const board = renderBoard(ctx);
  // the river tile, the box tile, the good behind the buyer's screen, the ruler spot, the house's plaque
  assert.ok(count(board, 'class="recent"') >= 6, board.match(/<\w+ class="recent"[^>]*>/g));
  assert.match(board, /<circle class="recent" cx="[\d.]+" cy="\d+" r="13"/);
  const holdings = renderHoldings(ctx);
  assert.match(holdings, /class="chip[^"]* recent"/);
});
