// Unit tests of the Pingyao board module (node --test tests/web/): it draws every fixture (a real
// game part-way through, tests/web/fixtures/pingyao-*.json), escapes whatever it prints that comes
// from the game or its components, labels every legal move, and marks what the latest moves touched.

import assert from "node:assert/strict";
import fs from "node:fs";
import { test } from "node:test";

import { describeMove, renderBoard, renderHoldings, touchedBy } from "../../service/web/assets/boards/pingyao.js";
import { recentOf } from "./boards_support.js";

const FIXTURES = new URL("./fixtures/", import.meta.url);
const fixtures = fs
  .readdirSync(FIXTURES)
  .filter((name) => /^pingyao-.*\.json$/.test(name))
  .sort()
  .map((name) => ({ name, f: JSON.parse(fs.readFileSync(new URL(name, FIXTURES), "utf8")) }));

const HOSTILE = `<img src=x onerror=alert(1)> "quoted" & 'single'`;
const ESCAPED = "&lt;img src=x onerror=alert(1)&gt; &quot;quoted&quot; &amp; &#39;single&#39;";
const RECENT = ' class="recent"';

function ctxOf(f, { seat = f.seat, recent = recentOf(f.events, seat), doc = f.doc, components = f.components } = {}) {
  return { kind: "pingyao", doc, view: doc.view, components, seat, players: doc.players, recent };
}

function count(markup, pattern) {
  return (markup.match(pattern) || []).length;
}

function assertBalanced(markup, tags) {
  for (const tag of tags) {
    const open = count(markup, new RegExp(`<${tag}[\\s>]`, "g"));
    const close = count(markup, new RegExp(`</${tag}>`, "g"));
    assert.equal(open, close, `<${tag}> opened ${open} times, closed ${close} times`);
  }
}

function assertClean(markup) {
  for (const bad of ["undefined", "NaN", "[object Object]", "&amp;amp;", "&amp;lt;", "&amp;quot;"]) {
    assert.ok(!markup.includes(bad), `output contains ${bad}`);
  }
}

const SVG_TAGS = ["svg", "g", "text", "title"];
const HTML_TAGS = ["div", "h3", "p", "ul", "li", "table", "thead", "tbody", "tr", "td", "th", "strong", "em", "span"];

/** Every seat of the fixture's game, and a spectator. */
function seatsOf(f) {
  return [null, ...f.doc.view.boards.map((_, seat) => seat)];
}

test("fixtures are found", () => {
  assert.ok(fixtures.length >= 2, "tests/web/fixtures/pingyao-*.json");
});

for (const { name, f } of fixtures) {
  test(`${name}: the board and the holdings draw as balanced markup for every seat`, () => {
    for (const seat of seatsOf(f)) {
      const ctx = ctxOf(f, { seat });
      const board = renderBoard(ctx);
      assert.equal(typeof board, "string");
      assert.ok(board.startsWith("<svg") && board.endsWith("</svg>"));
      assert.ok(!board.includes("Cannot draw"), board.slice(0, 300));
      assertBalanced(board, SVG_TAGS);
      assertClean(board);
      const holdings = renderHoldings(ctx);
      assert.equal(typeof holdings, "string");
      assert.ok(holdings.length > 0 && !holdings.includes("Cannot show"), holdings.slice(0, 300));
      assertBalanced(holdings, HTML_TAGS);
      assertClean(holdings);
      assert.equal(seat === null, holdings.includes("Spectating"));
    }
  });

  test(`${name}: every legal move has a label of its own`, () => {
    const moves = (f.legal && f.legal.moves) || [];
    assert.ok(moves.length > 0, "the fixture's seat is to act");
    const ctx = ctxOf(f);
    for (const move of moves) {
      const label = describeMove(move, ctx);
      assert.equal(typeof label, "string");
      assert.ok(label.trim().length > 0, JSON.stringify(move));
      assert.ok(!label.startsWith("pingyao."), `no label for ${JSON.stringify(move)}: ${label}`);
      assertClean(label);
    }
  });

  test(`${name}: what came from the game and its components is escaped, once`, () => {
    const { doc, components } = poisoned(f);
    for (const seat of seatsOf(f)) {
      const ctx = ctxOf(f, { seat, doc, components });
      for (const [what, markup] of [
        ["board", renderBoard(ctx)],
        ["holdings", renderHoldings(ctx)],
      ]) {
        assert.ok(!markup.includes("<img"), `${what} lets <img through`);
        assert.ok(!markup.includes('"quoted"') && !markup.includes("'single'"), `${what} lets quotes through`);
        assert.ok(markup.includes(ESCAPED), `${what} does not show the escaped text`);
        assertClean(markup);
      }
    }
    const board = renderBoard(ctxOf(f, { doc, components }));
    assert.ok(!board.includes("Cannot draw"), "the poisoned view still draws");
    assertBalanced(board, SVG_TAGS);
  });

  test(`${name}: the latest moves are marked, and only they`, () => {
    // The seat to act made the fixture's last move itself: nothing came after it.
    assert.deepEqual(recentOf(f.events, f.seat), []);
    const plain = renderBoard(ctxOf(f, { recent: [] }));
    const plainHoldings = renderHoldings(ctxOf(f, { recent: [] }));
    assert.ok(!plain.includes("recent") && !plainHoldings.includes("recent"));
    assert.equal(renderBoard(ctxOf(f, { recent: undefined })), plain);
    assert.equal(renderHoldings(ctxOf(f, { recent: undefined })), plainHoldings);
    // A spectator's: the last seat's run.
    const recent = recentOf(f.events, null);
    assert.ok(recent.length > 0);
    const ctx = ctxOf(f, { recent });
    const board = renderBoard(ctx);
    const holdings = renderHoldings(ctx);
    assert.ok(count(board, /class="recent"/g) > 0, "the board marks nothing");
    assert.ok(count(holdings, /class="recent"/g) > 0, "the holdings mark nothing");
    // Marking adds a class and changes nothing else of the drawing.
    assert.equal(board.replaceAll(RECENT, ""), plain);
    assert.equal(holdings.replaceAll(RECENT, ""), plainHoldings);
    assertBalanced(board, SVG_TAGS);
  });
}

/** The fixture with a hostile string in every text the module prints from the game or its data. */
function poisoned(f) {
  const doc = structuredClone(f.doc);
  const components = structuredClone(f.components);
  for (const tile of Object.values(components.tiles)) {
    tile.name = HOSTILE;
    tile.skill = HOSTILE;
  }
  for (const card of Object.values(components.exchange_cards)) card.deposit = HOSTILE;
  for (const tile of Object.values(components.yamen_tiles)) tile.text = HOSTILE;
  for (const card of Object.values(components.event_cards)) {
    card.name = HOSTILE;
    card.reward = HOSTILE;
    card.goal_action = HOSTILE;
  }
  for (const story of Object.values(components.storylines)) {
    story.name = HOSTILE;
    story.normal = { [HOSTILE]: 1 };
  }
  const v = doc.view;
  doc.status = HOSTILE;
  doc.outcome = { summary: HOSTILE, scores: v.boards.map((_, seat) => ({ seat, score: 1, rank: 1 })), winners: [0] };
  v.discards = [...v.discards, HOSTILE];
  v.yamen_supply = { ...v.yamen_supply, [HOSTILE]: 1 };
  v.drawn_tiles = [HOSTILE];
  v.drawn_cards = [HOSTILE, "X01"];
  v.pending = { kind: HOSTILE, seat: f.seat, region: HOSTILE, skill: HOSTILE, card: HOSTILE, dest: HOSTILE };
  if (v.event_card) v.event_card = HOSTILE;
  v.events_seen = [...(v.events_seen || []), HOSTILE];
  v.phase = HOSTILE;
  for (const board of v.boards) {
    board.yamen = [...board.yamen, HOSTILE];
    board.ongoing = [...board.ongoing, HOSTILE];
    board.bonuses = [...board.bonuses, HOSTILE];
    board.used_round = [...board.used_round, HOSTILE];
    board.cards = [
      { card: HOSTILE, months: 1, deposit: HOSTILE, withdraw: "HO" },
      { card: "X01", months: 2 },
    ];
    board.regions["2red"].tile = HOSTILE;
  }
  return { doc, components };
}

// --- the events, one by one -----------------------------------------------------------------------

const four = fixtures.find(({ name }) => name === "pingyao-4p.json")?.f ?? fixtures[0].f;
const ev = (type, fields) => [{ seq: 1, seat: fields.seat ?? 0, event: { type: `pingyao.${type}`, ...fields } }];

/** The marked elements of a drawing, as their opening tags. */
function marked(markup) {
  return markup.match(/<[a-z]+ class="recent"[^>]*>/g) || [];
}

test("a dispatched die marks the die, the action space and the die it bumped", () => {
  const dice = four.doc.view.dice;
  const id = dice.findIndex((d) => d.where === "space");
  const action = dice[id].action;
  const recent = ev("DieDispatched", { seat: dice[id].owner, die: id, action, value: 3, bumped: -1, copper: 0 });
  assert.deepEqual([...touchedBy(recent)], [`die:${id}`, `space:${action}`]);
  const tags = marked(renderBoard(ctxOf(four, { recent })));
  assert.ok(
    tags.some((t) => t.includes('stroke-dasharray="4 3"')),
    "the action space",
  );
  assert.ok(tags.some((t) => t.includes(`fill="${["#1d4ed8", "#be185d", "#0f766e", "#b45309"][dice[id].owner]}"`)));
  const bumped = touchedBy(ev("DieDispatched", { seat: 0, die: 1, action: "yamen", value: 5, bumped: 4, copper: 2 }));
  assert.deepEqual([...bumped].sort(), ["copper:0", "die:1", "die:4", "space:yamen"]);
});

test("a branch opened marks its region and the head office that paid its capital", () => {
  const recent = ev("BranchOpened", { seat: 1, region: "1yellow", tile: "Datong", capital: 1 });
  const tags = marked(renderBoard(ctxOf(four, { recent })));
  assert.equal(tags.filter((t) => t.includes('fill="#fdf3c4"')).length, 1, "the yellow Tier-1 region");
  assert.equal(tags.filter((t) => t.includes('fill="#fde68a" stroke="#92400e"')).length, 1, "the head office");
  const holdings = renderHoldings(ctxOf(four, { recent }));
  assert.ok(holdings.includes('<td class="recent">Jinzhou'), "the branches cell");
});

test("branch tellers, silver moves and emergency transfers mark the regions they touch", () => {
  const teller = touchedBy(ev("TellerPlaced", { seat: 2, target: "3red:manager", source: "1green:wait", cost: 0 }));
  assert.deepEqual([...teller], ["region:2:3red", "region:2:1green"]);
  assert.deepEqual([...touchedBy(ev("TellerPlaced", { seat: 2, target: "", source: "supply" }))], []);
  const moved = touchedBy(ev("SilverMoved", { seat: 0, source: "HO", dest: "2green" }));
  assert.deepEqual([...moved], ["head-office:0", "region:0:2green"]);
  assert.deepEqual([...touchedBy(ev("SilverMoved", { seat: 0, source: "HO", dest: "" }))], []);
  const transfer = touchedBy(
    ev("EmergencyTransfer", { seat: 3, source: "1red", dest: "HO", copper: 0, fee_source: "2red" }),
  );
  assert.deepEqual([...transfer], ["region:3:1red", "head-office:3", "region:3:2red"]);
  assert.equal(touchedBy(ev("TellersRecalled", { seat: 1, count: 3 })).size, 9);
});

test("West Street: the deck, the exchange card placed, the exchange track, the deposit piaohao", () => {
  const doc = structuredClone(four.doc);
  doc.view.boards[2].cards = [{ card: "X05", months: 2, deposit: "1yellow", withdraw: "HO" }];
  const recent = [
    ...ev("ExchangeCardsDrawn", { seat: 2, count: 1 }),
    ...ev("ExchangePlaced", {
      seat: 2,
      card: "X05",
      months: 2,
      deposit: "1yellow",
      withdraw: "HO",
      fee: 2,
      advance: true,
    }),
  ];
  const tags = marked(renderBoard(ctxOf(four, { doc, recent })));
  assert.ok(
    tags.some((t) => t.includes('fill="#dbeafe"')),
    "the exchange deck",
  );
  assert.ok(
    tags.some((t) => t.includes('fill="#eff6ff"')),
    "the exchange card",
  );
  assert.ok(
    tags.some((t) => t.includes('fill="#fdf3c4"')),
    "the deposit region",
  );
  assert.ok(
    tags.some((t) => t.startsWith("<circle") && t.includes('r="5.5" fill="#0f766e"')),
    "the exchange track",
  );
  const matured = touchedBy(ev("ExchangeMatured", { seat: 2, card: "X05", withdraw: "HO", paid: true }));
  assert.deepEqual([...matured], ["discards", "head-office:2"]);
});

test("Money House, Yamen and City God Temple mark their tracks, tiles and coins", () => {
  const lent = touchedBy(ev("SilverLent", { seat: 1, months: 3, amount: 2 }));
  assert.deepEqual([...lent].sort(), ["head-office:1", "lending:1:2"]);
  const deposit = touchedBy(ev("DepositAccepted", { seat: 1, months: 2 }));
  assert.deepEqual([...deposit].sort(), ["deposit:1", "head-office:1"]);
  const recent = ev("YamenTileTaken", { seat: 1, tile: "any_value", copper: 2, silver: 1 });
  assert.deepEqual([...touchedBy(recent)].sort(), [
    "copper:1",
    "head-office:1",
    "held:1:any_value",
    "notes:1",
    "yamen:any_value",
  ]);
  const tags = marked(renderBoard(ctxOf(four, { recent })));
  assert.ok(
    tags.some((t) => t.includes('stroke="#92400e" stroke-width="0.6"')),
    "the Yamen supply tile",
  );
  const reputation = ev("ReputationGained", { seat: 3, amount: 1, cost: 0 });
  assert.deepEqual([...touchedBy(reputation)], ["reputation:3"]);
  const board = renderBoard(ctxOf(four, { recent: reputation }));
  const [marker, line] = marked(board);
  assert.equal(marked(board).length, 2, "the track's marker and the board's reputation line");
  assert.ok(marker.startsWith("<circle") && marker.includes('r="5.5" fill="#b45309"'), "seat 3's reputation marker");
  assert.ok(line.startsWith("<text"));
});

test("unknown, hidden and other titles' events mark nothing and break nothing", () => {
  const recent = [
    { seq: 1, seat: 0, event: { type: "pingyao.SomethingNew", seat: 0, die: 1 } },
    { seq: 2, seat: 0, event: { type: "yangtze.Bid", amount: 5 } },
    { seq: 3, seat: 0, event: null },
    { seq: 4, seat: 0 },
    null,
    { seq: 5, seat: 0, event: { type: "pingyao.DiceRolled", values: [1, 2, 3] } },
    { seq: 6, seat: 0, event: { type: "pingyao.CopperGained", seat: 0, amount: 0 } },
  ];
  assert.equal(touchedBy(recent).size, 0);
  assert.equal(touchedBy(undefined).size, 0);
  const board = renderBoard(ctxOf(four, { recent }));
  assert.ok(!board.includes("recent"));
});

test("describeMove answers plain text (the page escapes it once)", () => {
  const ctx = ctxOf(four);
  const label = describeMove({ type: "pingyao.PlaceStartingBranch", color: HOSTILE }, ctx);
  assert.ok(label.includes(HOSTILE), label);
  assert.ok(describeMove({ type: "pingyao.Unheard", x: 1 }, ctx).length > 0);
  assert.ok(describeMove(null, ctx).length > 0);
});

test("a view that cannot be drawn says so, escaped", () => {
  const components = {
    get tiles() {
      throw new Error(HOSTILE);
    },
  };
  const board = renderBoard(ctxOf(four, { components }));
  assert.ok(board.includes("Cannot draw") && board.includes(ESCAPED) && !board.includes("<img"));
  const holdings = renderHoldings(ctxOf(four, { components }));
  assert.ok(holdings.includes("Cannot show") && holdings.includes(ESCAPED) && !holdings.includes("<img"));
});
