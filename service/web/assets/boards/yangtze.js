// Yangtze (kind `yangtze`): the board as the viewing seat sees it.
//
// renderBoard(ctx) -> SVG string, renderHoldings(ctx) -> HTML string, describeMove(command, ctx) -> text,
// where ctx = {kind, doc, view, components, seat, players, recent}. The view is YangtzeView (domain/yangtze/view.py);
// the components are GET /v1/catalogue/yangtze/components. Token ids: goods 0..60, rulers 61..72,
// branches 73..92; every id is decoded through the component data. Nothing here may throw on a view of
// any player count: every field is read through a guard.

import { html } from "../html.js";

const PLAYER_COLOURS = ["#c62828", "#1565c0", "#2e7d32", "#e67e00"];
const PLAYER_COLOUR_NAMES = ["red", "blue", "green", "orange"];

const TILE_COLOURS = {
  red: "#d9342b",
  yellow: "#f2c12e",
  blue: "#2e6fd1",
  green: "#2f9e44",
  purple: "#8e44ad",
  pink: "#f7b6c8",
  lavender: "#c9b6e8",
  mint: "#b5e8cf",
  peach: "#fbcfa8",
  sky: "#b9dcf5",
  cream: "#f5ecc8",
};

const SYMBOL_GLYPHS = {
  sun: "\u2600",
  moon: "\u263E",
  cloud: "\u2601",
  mountain: "\u25B2",
  wave: "\u2248",
  leaf: "\u2766",
  flower: "\u273F",
  star: "\u2605",
  fan: "\u25D3",
  lantern: "\u25C8",
  bell: "\u266A",
};

const ORDER_SHORT = {
  branch_income: "Income",
  tax_money: "Tax: money",
  tax_goods: "Tax: goods",
  tax_branches: "Tax: branches",
  return_good: "Return a good",
  sell_bundle: "Sell a bundle",
  buy_back_liquidity: "Buy back liquidity",
  exchange_good: "Exchange a good",
  repeat_order: "Repeat an order",
};

// The same labels split for the narrow ruler spots (two lines of at most ~12 characters).
const ORDER_LINES = {
  branch_income: ["Income"],
  tax_money: ["Tax on", "money"],
  tax_goods: ["Tax on", "goods"],
  tax_branches: ["Tax on", "branches"],
  return_good: ["Return", "a good"],
  sell_bundle: ["Sell", "a bundle"],
  buy_back_liquidity: ["Buy back", "liquidity"],
  exchange_good: ["Exchange", "a good"],
  repeat_order: ["Repeat", "an order"],
};

const CARD_LABELS = {
  buy_two: "Buy two",
  sell_anytime: "Sell any time",
  free_good: "Free good",
};

const CARD_CHIPS = {
  buy_two: ["Buy", "two"],
  sell_anytime: ["Sell", "any time"],
  free_good: ["Free", "good"],
};

const BRANCH_FILL = { green: "#5a9e4b", brown: "#8d6e4a" };

// ---------------------------------------------------------------- small guards and helpers

function arr(x) {
  return Array.isArray(x) ? x : [];
}

function obj(x) {
  return x && typeof x === "object" && !Array.isArray(x) ? x : {};
}

function num(x, fallback = 0) {
  const n = Number(x);
  return x !== null && x !== "" && Number.isFinite(n) ? n : fallback;
}

function isNum(x) {
  return typeof x === "number" && Number.isFinite(x);
}

function wrapWords(text, max) {
  const lines = [];
  let line = "";
  for (const word of String(text).split(/\s+/)) {
    if (line && (line + " " + word).length > max) {
      lines.push(line);
      line = word;
    } else {
      line = line ? line + " " + word : word;
    }
  }
  if (line) lines.push(line);
  return lines;
}

function clip(text, max) {
  const t = String(text);
  return t.length > max ? t.slice(0, max - 1) + "\u2026" : t;
}

function cap(s) {
  const t = String(s === undefined || s === null ? "" : s);
  return t ? t.charAt(0).toUpperCase() + t.slice(1) : t;
}

function playerColour(seat) {
  return PLAYER_COLOURS[((num(seat) % 4) + 4) % 4];
}

function textColourOn(hex) {
  const m = /^#([0-9a-f]{6})$/i.exec(String(hex));
  if (!m) return "#222";
  const v = parseInt(m[1], 16);
  const r = (v >> 16) & 255;
  const g = (v >> 8) & 255;
  const b = v & 255;
  return 0.299 * r + 0.587 * g + 0.114 * b > 150 ? "#222" : "#fff";
}

function tileFill(colourName) {
  const key = String(colourName || "").toLowerCase();
  if (TILE_COLOURS[key]) return TILE_COLOURS[key];
  let h = 0;
  for (const ch of key) h = (h * 31 + ch.charCodeAt(0)) % 360;
  return `hsl(${h}, 55%, 60%)`;
}

// ---------------------------------------------------------------- component lookups

function lookups(ctx) {
  const c = obj(ctx && ctx.components);
  const goods = new Map();
  for (const g of arr(c.goods)) if (g && isNum(g.id)) goods.set(g.id, g);
  const rulers = new Map();
  for (const r of arr(c.rulers)) if (r && isNum(r.id)) rulers.set(r.id, r);
  const branches = new Map();
  for (const b of arr(c.branches)) if (b && isNum(b.id)) branches.set(b.id, b);
  return {
    c,
    goods,
    rulers,
    branches,
    reigns: arr(c.reigns),
    bundleValues: obj(c.bundle_values),
    liquidity: obj(c.liquidity_values),
    coinValue: num(c.coin_value, 50),
    trackMax: num(c.track_max, 60),
    liquidityFinal: num(c.liquidity_final_value, 30),
  };
}

function good(L, id) {
  const g = L.goods.get(id);
  if (g) return g;
  return { id, category: "", good: `good #${id}`, colour: "", symbol: "" };
}

function goodName(L, id) {
  const g = good(L, id);
  return g.colour ? `${g.good} (${g.colour})` : String(g.good);
}

function branch(L, id) {
  return L.branches.get(id) || { id, type: `branch #${id}`, colour: "", dots: 0 };
}

function branchName(L, id) {
  const b = branch(L, id);
  const dots = num(b.dots);
  return `${b.colour ? b.colour + " " : ""}${b.type}${dots ? ` (${dots} dot${dots === 1 ? "" : "s"})` : ""}`;
}

function ruler(L, id) {
  return L.rulers.get(id) || { id, order: "", text: `ruler #${id}`, branch_types: [], optional: false };
}

function rulerShort(L, id) {
  const r = ruler(L, id);
  let label = ORDER_SHORT[r.order] || String(r.text || r.order || `ruler #${id}`);
  const types = arr(r.branch_types);
  if (r.order === "branch_income" && types.length) label = `Income: ${types.join(", ")}`;
  return label + (r.optional ? " ?" : "");
}

function reignName(L, spot) {
  return L.reigns[spot] !== undefined ? String(L.reigns[spot]) : `Spot ${num(spot) + 1}`;
}

function cardLabel(L, card) {
  if (CARD_LABELS[card]) return CARD_LABELS[card];
  if (L.liquidity[card] !== undefined) return `Liquidity ${num(L.liquidity[card])}`;
  return String(card).replace(/_/g, " ");
}

// The value of a bundle (one category, all the same good or all the same colour), or null.
function bundleValue(L, goods) {
  const gs = arr(goods).map((id) => good(L, id));
  if (!gs.length) return null;
  const cat = gs[0].category;
  if (!gs.every((g) => g.category === cat)) return null;
  const table = obj(L.bundleValues[cat]);
  const n = gs.length;
  let best = null;
  if (gs.every((g) => g.good === gs[0].good)) best = arr(table.good)[n - 1];
  if (gs.every((g) => g.colour === gs[0].colour)) {
    const v = arr(table.colour)[n - 1];
    if (isNum(v) && (best === null || best === undefined || v > best)) best = v;
  }
  return isNum(best) ? best : null;
}

function seatLabel(ctx, seat) {
  const players = ctx && ctx.players;
  let name = "";
  if (Array.isArray(players)) {
    const p = players.find((x) => x && typeof x === "object" && x.seat === seat) || players[seat];
    if (typeof p === "string") name = p;
    else if (p && typeof p === "object") name = p.name || p.display_name || p.nickname || "";
  }
  const base = `Seat ${seat}`;
  return name ? `${base} · ${name}` : base;
}

function viewOf(ctx) {
  const c = obj(ctx);
  const doc = obj(c.doc);
  return obj(c.view || doc.view);
}

function viewerSeat(ctx, v) {
  const c = obj(ctx);
  if (isNum(c.seat)) return c.seat;
  if (isNum(v.seat)) return v.seat;
  return null;
}

function playerCount(v) {
  const n = num(v.players, 0);
  if (n > 0) return Math.min(n, 8);
  return Math.max(arr(v.track).length, arr(v.screen_counts).length, 0);
}

// ---------------------------------------------------------------- what the latest moves touched

// ctx.recent: the events since this seat's last own move, oldest first, each {seq, seat, event}. Each
// concern below answers the keys one event touched, named after the rulebook's parts of the board; the
// drawing code asks `hot.has(key)` and adds class="recent" to what it draws for that key. Unknown
// event types touch nothing.
//   river:<good>        a good on the river          house:<slot>        a trading house's price plaque
//   screen:<seat>       the count behind a screen    screen:<seat>:<good> a good behind a screen
//   box:<good>          a good put in the box        money:<seat>        a seat's money (track, coins)
//   liquidity:<seat>:<value>, used:<seat>:<value>   a liquidity card, unused or used
//   window:<seat>       the sell card's sale         branch:<token>      a branch token
//   removed:<token>     an unsold branch             bid:<seat>:<amount> a bid in the branch auction
//   ruler:<spot>        a ruler's spot               final               the final scoring

function eventType(event) {
  return String(event.type || "").replace(/^yangtze\./, "");
}

/** 2. Purchase One Good / refill: the goods pushed onto the river and the houses bought at. */
function riverTouched(type, e) {
  switch (type) {
    case "GameSetUp":
      return arr(e.river)
        .filter(isNum)
        .map((g) => `river:${g}`);
    case "GoodDrawn":
      return [`river:${e.good}`];
    case "GoodPurchased":
      return [`house:${e.slot}`];
    case "GoodExchanged":
      return [`river:${e.good}`, `house:${e.slot}`];
    default:
      return [];
  }
}

/** The money track and the 50-coins: every gain and payment of a seat. */
function moneyTouched(type, e) {
  switch (type) {
    case "GoodsSold":
    case "LiquidityCardPlayed":
    case "LiquidityBoughtBack":
    case "OrderExecuted":
      return [`money:${e.seat}`];
    case "GoodPurchased":
    case "BranchWon":
      return num(e.price) ? [`money:${e.seat}`] : [];
    default:
      return [];
  }
}

/** Behind the screen: goods bought, taken in an exchange, drawn at the start, sold or returned. */
function screenTouched(type, e) {
  switch (type) {
    case "GoodPurchased":
      return [`screen:${e.seat}`, `screen:${e.seat}:${e.good}`];
    case "GoodExchanged":
      return [`screen:${e.seat}`, `screen:${e.seat}:${e.taken}`];
    case "StartingGoodsDrawn":
    case "GoodsSold":
    case "GoodReturned":
      return [`screen:${e.seat}`];
    default:
      return [];
  }
}

/** The box: goods sold in a bundle or returned by a ruler's order. */
function boxTouched(type, e) {
  switch (type) {
    case "GoodsSold":
      return arr(e.goods)
        .filter(isNum)
        .map((g) => `box:${g}`);
    case "GoodReturned":
      return [`box:${e.good}`];
    default:
      return [];
  }
}

/** Special cards: liquidity redeemed or bought back, the sell card's sale opened. */
function specialCardsTouched(type, e) {
  switch (type) {
    case "LiquidityCardPlayed":
      return [`used:${e.seat}:${e.value}`];
    case "LiquidityBoughtBack":
      return [`liquidity:${e.seat}:${e.value}`];
    case "SellCardPlayed":
      return [`window:${e.seat}`];
    default:
      return [];
  }
}

/** Branches: drawn for auction, won (in front of the winner's screen) or put back unsold. */
function branchesTouched(type, e) {
  switch (type) {
    case "BranchDrawn":
    case "BranchWon":
      return [`branch:${e.token}`];
    case "BranchDiscarded":
      return [`removed:${e.token}`];
    default:
      return [];
  }
}

/** The branch auction: a seat's bid. */
function auctionTouched(type, e) {
  return type === "BidPlaced" ? [`bid:${e.seat}:${e.amount}`] : [];
}

/** Rulers of the Qing dynasty: a ruler drawn onto its spot, chosen for the repeat order, resolved. */
function rulersTouched(type, e) {
  switch (type) {
    case "RulerDrawn":
    case "RulerChosen":
    case "RulerResolved":
      return [`ruler:${e.spot}`];
    default:
      return [];
  }
}

/** End of Game and Final Scoring. */
function finalScoringTouched(type) {
  return type === "FinalScoring" ? ["final"] : [];
}

const CONCERNS = [
  riverTouched,
  moneyTouched,
  screenTouched,
  boxTouched,
  specialCardsTouched,
  branchesTouched,
  auctionTouched,
  rulersTouched,
  finalScoringTouched,
];

/** The keys of everything the recent events touched (an empty set without ctx.recent). */
export function touchedBy(recent) {
  const keys = new Set();
  for (const item of arr(recent)) {
    const event = obj(item && item.event);
    const type = eventType(event);
    if (!type) continue;
    for (const concern of CONCERNS) for (const key of concern(type, event)) keys.add(key);
  }
  return keys;
}

const RECENT = html` class="recent"`;

/** The class attribute of something the recent events touched (nothing otherwise). */
function mark(on) {
  return on ? RECENT : "";
}

// ---------------------------------------------------------------- SVG pieces

function svgText(x, y, text, attrs = "", hot = false) {
  return html`<text${mark(hot)} x="${x}" y="${y}" ${attrs}>${text}</text>`;
}

function goodTile(L, id, x, y, w, h, opts = {}) {
  const g = good(L, id);
  const fill = tileFill(g.colour);
  const fg = textColourOn(fill);
  const luxury = g.category === "luxury";
  const glyph = SYMBOL_GLYPHS[String(g.symbol || "").toLowerCase()] || String(g.symbol || "").slice(0, 1);
  const title = `${goodName(L, id)}${g.category ? ` — ${g.category}` : ""}${g.symbol ? `, symbol ${g.symbol}` : ""}`;
  const rect = html`<rect${mark(opts.hot)} x="${x}" y="${y}" width="${w}" height="${h}" rx="${luxury ? 3 : 9}" fill="${fill}" stroke="${luxury ? "#b8860b" : "#6b5b45"}" stroke-width="${luxury ? 3 : 1.5}"/>`;
  let inner;
  if (opts.small) {
    inner = [
      svgText(
        x + w / 2,
        y + h / 2 + 1,
        String(g.good).slice(0, w < 36 ? 4 : 5),
        html`text-anchor="middle" font-size="10" font-weight="600" fill="${fg}"`,
      ),
      svgText(x + w / 2, y + h - 3, glyph, html`text-anchor="middle" font-size="9" fill="${fg}"`),
    ];
  } else {
    const nameSize = String(g.good).length > 9 ? 11 : 13;
    inner = [
      svgText(
        x + w / 2,
        y + 18,
        cap(g.good),
        html`text-anchor="middle" font-size="${nameSize}" font-weight="700" fill="${fg}"`,
      ),
      svgText(x + w / 2, y + 33, g.colour, html`text-anchor="middle" font-size="11" fill="${fg}"`),
      svgText(x + 8, y + h - 7, glyph, html`font-size="14" fill="${fg}"`),
      svgText(
        x + w - 6,
        y + h - 7,
        luxury ? "luxury" : "daily",
        html`text-anchor="end" font-size="9" fill="${fg}" font-style="italic"`,
      ),
    ];
  }
  return html`<g><title>${title}</title>${rect}${inner}</g>`;
}

function unknownTile(x, y, w, h) {
  return html`<g><title>a good hidden behind the screen</title><rect x="${x}" y="${y}" width="${w}" height="${h}" rx="5" fill="#d8d2c4" stroke="#8a8170" stroke-dasharray="3 2"/>${svgText(
    x + w / 2,
    y + h / 2 + 5,
    "?",
    html`text-anchor="middle" font-size="14" font-weight="700" fill="#6d6453"`,
  )}</g>`;
}

function branchToken(L, id, x, y, size, hot = false) {
  const b = branch(L, id);
  const fill = BRANCH_FILL[b.colour] || "#999";
  const dots = Math.max(0, Math.min(num(b.dots), 8));
  const d = `M${x} ${y + size * 0.35} L${x + size / 2} ${y} L${x + size} ${y + size * 0.35} L${x + size} ${y + size} L${x} ${y + size} Z`;
  const circles = [];
  for (let i = 0; i < dots; i++) {
    const cx = x + 3 + (i % 4) * ((size - 6) / 3);
    const cy = y + size + 4 + Math.floor(i / 4) * 5;
    circles.push(html`<circle cx="${cx.toFixed(1)}" cy="${cy}" r="1.8" fill="#3d2f1f"/>`);
  }
  return html`<g><title>${`Branch: ${branchName(L, id)}`}</title><path${mark(hot)} d="${d}" fill="${fill}" stroke="#3d2f1f" stroke-width="1"/>${svgText(
    x + size / 2,
    y + size * 0.72,
    String(b.type || "?")
      .slice(0, 1)
      .toUpperCase(),
    html`text-anchor="middle" font-size="${Math.round(size * 0.42)}" font-weight="700" fill="#fff"`,
  )}${circles}</g>`;
}

function pagoda(x, y, w, price, hot = false) {
  // A trading house: roof, walls and a price plaque.
  const roof = `M${x - 6} ${y + 18} L${x + w / 2} ${y} L${x + w + 6} ${y + 18} Z`;
  return html`<path d="${roof}" fill="#7b2d26" stroke="#4a1a15"/><rect x="${x}" y="${y + 18}" width="${w}" height="26" fill="#efe2c4" stroke="#7a6a4f"/><rect x="${x + w / 2 - 7}" y="${y + 28}" width="14" height="16" fill="#7a6a4f"/><circle${mark(hot)} cx="${x + w / 2}" cy="${y + 58}" r="13" fill="#fff8e1" stroke="#b8860b" stroke-width="2"/>${svgText(
    x + w / 2,
    y + 63,
    String(price),
    html`text-anchor="middle" font-size="14" font-weight="700" fill="#5b3a00"`,
  )}`;
}

function seatDot(seat, cx, cy, r = 9, label = true, hot = false) {
  const fill = playerColour(seat);
  return html`<circle${mark(hot)} cx="${cx}" cy="${cy}" r="${r}" fill="${fill}" stroke="#fff" stroke-width="2"/>${
    label
      ? svgText(
          cx,
          cy + 4,
          String(seat),
          html`text-anchor="middle" font-size="${Math.round(r * 1.1)}" font-weight="700" fill="#fff"`,
        )
      : ""
  }`;
}

// ---------------------------------------------------------------- what is happening now

function statusLine(ctx, L, v) {
  const doc = obj(ctx && ctx.doc);
  const phase = String(v.phase || "");
  const active = v.active;
  if (phase === "over" || doc.status === "finished") {
    return `Game over${v.final_reason ? ` — ${v.final_reason}` : ""}`;
  }
  if (doc.status && doc.status !== "active") return `Game ${doc.status}`;
  let line = "";
  if (phase === "turn") {
    line =
      v.stage === "second"
        ? `${seatLabel(ctx, active)}: second purchase (buy-two card)`
        : `${seatLabel(ctx, active)}'s turn: sell bundles, then buy one good`;
  } else if (phase === "auction") {
    line = `Branch auction: ${isNum(v.auction_token) ? branchName(L, v.auction_token) : "a branch"}`;
  } else if (phase === "ruler") {
    const rulers = arr(v.rulers);
    const tok = isNum(v.ruler_current) ? v.ruler_current : rulers[rulers.length - 1];
    const spot = isNum(tok) ? rulers.lastIndexOf(tok) : -1;
    const who = spot >= 0 ? `${reignName(L, spot)}'s order` : "Ruler's order";
    line = isNum(tok) ? `${who}: ${rulerShort(L, tok)}` : "A ruler's order goes round";
    const queue = arr(v.ruler_queue);
    if (isNum(queue[0])) line += ` — now ${seatLabel(ctx, queue[0])}`;
  } else if (phase === "refill") {
    line = "Refilling the river";
  } else if (phase === "setup") {
    line = "Setting up";
  } else {
    line = phase ? `Phase: ${phase}` : "";
  }
  if (isNum(v.window)) line = `${seatLabel(ctx, v.window)} sells with the sell card · ${line}`;
  return line;
}

// ---------------------------------------------------------------- renderBoard

export function renderBoard(ctx) {
  try {
    return String(drawBoard(ctx || {}));
  } catch (err) {
    return String(
      html`<svg viewBox="0 0 1000 60" width="100%" xmlns="http://www.w3.org/2000/svg">${svgText(
        10,
        35,
        `Yangtze board could not be drawn: ${err && err.message ? err.message : err}`,
        html`font-size="14" fill="#a00"`,
      )}</svg>`,
    );
  }
}

function drawHeader(ctx, L, v, doc, me, toAct, W) {
  const parts = [];
  parts.push(html`<rect x="0" y="0" width="${W}" height="58" fill="#7b2d26"/>`);
  parts.push(svgText(16, 38, "YANGTZE", html`font-size="24" font-weight="800" fill="#f6e7b4" letter-spacing="2"`));
  const status = statusLine(ctx, L, v);
  const statusMax = toAct.length ? 78 - toAct.length * 3 : 88;
  parts.push(
    html`<g><title>${status}</title>${svgText(180, 25, clip(status, statusMax), html`font-size="15" font-weight="600" fill="#fff"`)}</g>`,
  );
  const sub = [];
  if (v.rules_version) sub.push(`rules ${v.rules_version}`);
  if (isNum(doc.version)) sub.push(`move ${doc.version}`);
  sub.push(me === null ? "spectator view" : `you are ${seatLabel(ctx, me)}`);
  if (num(v.idle) > 0) sub.push(`${num(v.idle)} idle turn${num(v.idle) === 1 ? "" : "s"} in a row`);
  parts.push(svgText(180, 46, sub.join(" · "), html`font-size="12" fill="#f3d9c9"`));
  if (toAct.length) {
    parts.push(
      svgText(W - 20 - toAct.length * 24, 35, "to act", html`text-anchor="end" font-size="12" fill="#f3d9c9"`),
    );
    toAct.forEach((s, i) => {
      parts.push(seatDot(s, W - 28 - (toAct.length - 1 - i) * 24, 30, 10));
    });
  }
  return parts;
}

function drawRiver(L, v, hot, y, W) {
  const parts = [];
  const river = arr(v.river);
  const prices = arr(v.prices).length ? arr(v.prices) : arr(L.c.prices);
  const slots = Math.max(river.length, prices.length, 0);
  parts.push(html`<rect x="0" y="${y}" width="${W}" height="206" fill="#efe6cf"/>`);
  parts.push(
    html`<path d="M0 ${y + 128} C 200 ${y + 112}, 400 ${y + 146}, 600 ${y + 126} S 900 ${y + 118}, ${W} ${y + 128} L ${W} ${y + 200} C 800 ${y + 206}, 600 ${y + 188}, 400 ${y + 202} S 100 ${y + 196}, 0 ${y + 200} Z" fill="#7fb3d5"/>`,
  );
  for (let k = 0; k < 3; k++) {
    const wy = y + 150 + k * 16;
    parts.push(html`<path d="M10 ${wy} q 20 -6 40 0 t 40 0" fill="none" stroke="#a9cfe6" stroke-width="2"/>`);
    parts.push(html`<path d="M${W - 90} ${wy} q 20 -6 40 0 t 40 0" fill="none" stroke="#a9cfe6" stroke-width="2"/>`);
  }
  // bag at the open end
  const bagX = 48;
  parts.push(
    html`<g><title>${`The bag: ${num(v.bag_count)} tokens (goods, rulers, branches)`}</title><path d="M${bagX - 26} ${y + 96} q -6 -44 26 -48 q 32 4 26 48 Z" fill="#b08a57" stroke="#5e4422" stroke-width="2"/><path d="M${bagX - 12} ${y + 50} l 12 -10 l 12 10" fill="none" stroke="#5e4422" stroke-width="3"/>${svgText(
      bagX,
      y + 80,
      String(num(v.bag_count)),
      html`text-anchor="middle" font-size="18" font-weight="800" fill="#fff"`,
    )}</g>`,
  );
  parts.push(svgText(bagX, y + 114, "bag", html`text-anchor="middle" font-size="12" font-weight="600" fill="#5e4422"`));
  parts.push(svgText(bagX, y + 20, "open end", html`text-anchor="middle" font-size="11" fill="#6d5a3c"`));
  // Shanghai at the mouth
  const shX = W - 42;
  parts.push(html`<rect x="${shX - 30}" y="${y + 36}" width="60" height="50" fill="#d9c7a3" stroke="#7a6a4f"/>`);
  parts.push(html`<path d="M${shX - 36} ${y + 38} L${shX} ${y + 14} L${shX + 36} ${y + 38} Z" fill="#7b2d26"/>`);
  parts.push(
    svgText(shX, y + 68, "Shanghai", html`text-anchor="middle" font-size="12" font-weight="700" fill="#4a1a15"`),
  );
  parts.push(svgText(shX, y + 112, "\u2192 sea", html`text-anchor="middle" font-size="11" fill="#2c5f80"`));

  const slotW = 92;
  const gap = slots > 0 ? Math.min(112, (W - 120 - 100) / Math.max(slots, 1)) : 112;
  const x0 = 110;
  for (let i = 0; i < slots; i++) {
    const x = x0 + i * gap;
    const cx = x + slotW / 2;
    parts.push(pagoda(x + 16, y + 8, slotW - 32, isNum(prices[i]) ? prices[i] : "?", hot.has(`house:${i}`)));
    const g = river[i];
    if (isNum(g)) {
      parts.push(goodTile(L, g, x, y + 124, slotW, 62, { hot: hot.has(`river:${g}`) }));
    } else {
      parts.push(
        html`<rect x="${x}" y="${y + 124}" width="${slotW}" height="62" rx="8" fill="none" stroke="#2c5f80" stroke-dasharray="5 4" stroke-width="1.5"/>`,
      );
      parts.push(
        svgText(cx, y + 160, "empty", html`text-anchor="middle" font-size="12" fill="#1f4a66" font-style="italic"`),
      );
    }
    parts.push(svgText(cx, y + 200, `house ${i}`, html`text-anchor="middle" font-size="10" fill="#1f4a66"`));
  }
  return parts;
}

function drawRulers(L, v, hot, y, W, rulerH) {
  const parts = [];
  const rulers = arr(v.rulers);
  const spots = Math.max(L.reigns.length, rulers.length, 12);
  parts.push(html`<rect x="0" y="${y}" width="${W}" height="${rulerH}" fill="#f7f1e3"/>`);
  parts.push(svgText(12, y + 17, "Rulers of the Qing dynasty", html`font-size="13" font-weight="700" fill="#4a1a15"`));
  const queue = arr(v.ruler_queue);
  if (queue.length && v.phase === "ruler") {
    parts.push(svgText(250, y + 17, "order still applies to:", html`font-size="12" fill="#4a1a15"`));
    queue.forEach((s, i) => {
      parts.push(seatDot(s, 390 + i * 22, y + 13, 8));
    });
  }
  const spotW = (W - 20) / spots;
  let currentSpot = -1;
  if (isNum(v.ruler_current) && v.phase === "ruler") currentSpot = rulers.lastIndexOf(v.ruler_current);
  for (let k = 0; k < spots; k++) {
    const x = 10 + k * spotW;
    const tok = rulers[k];
    const placed = isNum(tok);
    const current = k === currentSpot;
    const inner = [];
    inner.push(
      html`<rect${mark(hot.has(`ruler:${k}`))} x="${(x + 2).toFixed(1)}" y="${y + 24}" width="${(spotW - 4).toFixed(1)}" height="${rulerH - 30}" rx="6" fill="${placed ? "#fff8e1" : "#ece4d0"}" stroke="${current ? "#d4a017" : placed ? "#7b2d26" : "#c9bea5"}" stroke-width="${current ? 4 : 1.5}"${placed ? "" : html` stroke-dasharray="4 3"`}/>`,
    );
    if (current)
      inner.push(
        svgText(x + spotW - 6, y + 62, "now", html`text-anchor="end" font-size="9" font-weight="700" fill="#b8860b"`),
      );
    inner.push(
      svgText(
        x + spotW / 2,
        y + 40,
        reignName(L, k),
        html`text-anchor="middle" font-size="11" font-weight="700" fill="${placed ? "#4a1a15" : "#a39679"}"`,
      ),
    );
    if (placed) {
      const r = ruler(L, tok);
      inner.push(html`<circle cx="${(x + spotW / 2).toFixed(1)}" cy="${y + 56}" r="9" fill="#7b2d26"/>`);
      inner.push(
        svgText(
          x + spotW / 2,
          y + 60,
          r.optional ? "?" : "!",
          html`text-anchor="middle" font-size="12" font-weight="800" fill="#f6e7b4"`,
        ),
      );
      const types = arr(r.branch_types);
      let lines = ORDER_LINES[r.order] || wrapWords(String(r.text || r.order || ""), 12).slice(0, 2);
      if (types.length) lines = [lines[0], clip(types.join(", "), 13)];
      lines.forEach((line, i) => {
        inner.push(
          svgText(
            x + spotW / 2,
            y + 79 + i * 12,
            line,
            html`text-anchor="middle" font-size="10.5" font-weight="${i ? 500 : 700}" fill="#333"`,
          ),
        );
      });
    } else {
      inner.push(
        svgText(x + spotW / 2, y + 70, String(k + 1), html`text-anchor="middle" font-size="16" fill="#c9bea5"`),
      );
    }
    const title = `${reignName(L, k)}${placed ? `: ${ruler(L, tok).text}` : " — not yet drawn"}`;
    parts.push(html`<g><title>${title}</title>${inner}</g>`);
  }
  return parts;
}

function drawMoneyTrack(ctx, L, v, hot, n, y, W, trackH) {
  const parts = [];
  const trackMax = L.trackMax > 0 ? L.trackMax : 60;
  const tx0 = 40;
  const tx1 = W - 40;
  parts.push(html`<rect x="0" y="${y}" width="${W}" height="${trackH}" fill="#fbf7ee"/>`);
  parts.push(
    svgText(
      12,
      y + 16,
      `Money track (0–${trackMax}; above ${trackMax}, ${L.coinValue} turns into a coin)`,
      html`font-size="13" font-weight="700" fill="#4a1a15"`,
    ),
  );
  const ty = y + 52;
  parts.push(
    html`<line x1="${tx0}" y1="${ty}" x2="${tx1}" y2="${ty}" stroke="#7a6a4f" stroke-width="4" stroke-linecap="round"/>`,
  );
  for (let m = 0; m <= trackMax; m++) {
    const x = tx0 + ((tx1 - tx0) * m) / trackMax;
    const major = m % 10 === 0;
    if (m % 5 === 0 || major) {
      parts.push(
        html`<line x1="${x.toFixed(1)}" y1="${ty - (major ? 8 : 5)}" x2="${x.toFixed(1)}" y2="${ty + (major ? 8 : 5)}" stroke="#7a6a4f" stroke-width="${major ? 2 : 1}"/>`,
      );
      if (major) parts.push(svgText(x, ty + 22, String(m), html`text-anchor="middle" font-size="11" fill="#5b4a2f"`));
    }
  }
  const byValue = new Map();
  for (let s = 0; s < n; s++) {
    const t = Math.max(0, Math.min(trackMax, num(arr(v.track)[s])));
    const list = byValue.get(t) || [];
    list.push(s);
    byValue.set(t, list);
  }
  for (const [t, seats] of byValue) {
    const x = tx0 + ((tx1 - tx0) * t) / trackMax;
    seats.forEach((s, i) => {
      const cx = x + (i - (seats.length - 1) / 2) * 15;
      const coins = num(arr(v.coins)[s]);
      const title = `${seatLabel(ctx, s)}: ${t} on the track${coins ? ` + ${coins} coin${coins === 1 ? "" : "s"} of ${L.coinValue}` : ""}`;
      parts.push(
        html`<g><title>${title}</title>${seatDot(s, cx.toFixed(1), ty - 16, 9, true, hot.has(`money:${s}`))}<line x1="${cx.toFixed(1)}" y1="${ty - 7}" x2="${x.toFixed(1)}" y2="${ty - 2}" stroke="${playerColour(s)}" stroke-width="2"/></g>`,
      );
    });
  }
  return parts;
}

function drawAuction(ctx, L, v, hot, y, infoH) {
  const parts = [];
  parts.push(
    html`<rect x="10" y="${y + 6}" width="600" height="${infoH - 12}" rx="8" fill="#fff8e1" stroke="#b8860b" stroke-width="2"/>`,
  );
  parts.push(branchToken(L, v.auction_token, 22, y + 14, 34, hot.has(`branch:${v.auction_token}`)));
  parts.push(
    svgText(
      70,
      y + 27,
      `Auction: ${branchName(L, v.auction_token)}`,
      html`font-size="14" font-weight="700" fill="#4a1a15"`,
    ),
  );
  const bidder = isNum(v.high_bidder);
  const high = bidder ? `high bid ${num(v.high_bid)} by ${seatLabel(ctx, v.high_bidder)}` : "no bid yet";
  parts.push(
    svgText(
      70,
      y + 46,
      high,
      html`font-size="13" fill="#333"`,
      bidder && hot.has(`bid:${v.high_bidder}:${v.high_bid}`),
    ),
  );
  if (bidder) parts.push(seatDot(v.high_bidder, 330, y + 42, 8));
  parts.push(svgText(70, y + 63, "still bidding:", html`font-size="12" fill="#333"`));
  arr(v.auction_in).forEach((s, i) => {
    parts.push(seatDot(s, 176 + i * 24, y + 59, 8));
    if (s === v.auction_turn)
      parts.push(
        html`<circle cx="${176 + i * 24}" cy="${y + 59}" r="11" fill="none" stroke="#d4a017" stroke-width="2.5"/>`,
      );
  });
  if (isNum(v.auction_turn))
    parts.push(
      svgText(
        360,
        y + 63,
        `${seatLabel(ctx, v.auction_turn)} to bid or pass`,
        html`font-size="12" font-style="italic" fill="#333"`,
      ),
    );
  return parts;
}

function drawSale(ctx, v, hot, y, infoH) {
  return [
    html`<rect${mark(hot.has(`window:${v.window}`))} x="10" y="${y + 6}" width="600" height="${infoH - 12}" rx="8" fill="#fff8e1" stroke="${playerColour(v.window)}" stroke-width="2"/>`,
    seatDot(v.window, 34, y + 37, 12),
    svgText(
      56,
      y + 42,
      `${seatLabel(ctx, v.window)} plays the sell card: selling bundles out of turn`,
      html`font-size="14" font-weight="600" fill="#333"`,
    ),
  ];
}

function drawBundleValues(L, y) {
  // No auction: the players' aid, the bundle values by size, from the component data.
  const parts = [
    svgText(
      16,
      y + 20,
      "Bundle values by size (same good / same colour or symbol)",
      html`font-size="12" font-weight="700" fill="#4a3b22"`,
    ),
  ];
  let ly = y + 40;
  for (const [cat, table] of Object.entries(L.bundleValues).slice(0, 2)) {
    const t = obj(table);
    const fmt = (list) =>
      arr(list)
        .map((val, i) => `${i + 1}:${num(val)}`)
        .join("  ");
    parts.push(svgText(16, ly, cap(cat), html`font-size="12" font-weight="700" fill="#4a3b22"`));
    parts.push(svgText(76, ly, `good  ${fmt(t.good)}`, html`font-size="12" fill="#4a3b22"`));
    parts.push(svgText(330, ly, `colour  ${fmt(t.colour)}`, html`font-size="12" fill="#4a3b22"`));
    ly += 18;
  }
  return parts;
}

function drawBox(L, v, hot, y, infoH) {
  const parts = [];
  const box = arr(v.box);
  const removed = arr(v.removed_branches);
  parts.push(
    html`<rect x="625" y="${y + 6}" width="365" height="${infoH - 12}" rx="8" fill="#ece4d0" stroke="#c9bea5"/>`,
  );
  parts.push(
    svgText(
      637,
      y + 26,
      `Box (sold or returned): ${box.length} good${box.length === 1 ? "" : "s"}`,
      html`font-size="12" font-weight="600" fill="#4a3b22"`,
    ),
  );
  const boxShow = box.slice(-10);
  if (boxShow.length) parts.push(svgText(637, y + 52, "latest:", html`font-size="10" fill="#4a3b22"`));
  boxShow.forEach((g, i) => {
    parts.push(goodTile(L, g, 675 + i * 31, y + 34, 29, 28, { small: true, hot: hot.has(`box:${g}`) }));
  });
  if (removed.length) {
    parts.push(
      svgText(
        980,
        y + 26,
        `${removed.length} branch${removed.length === 1 ? "" : "es"} unsold`,
        html`text-anchor="end" font-size="11" fill="#4a3b22"`,
        removed.some((t) => hot.has(`removed:${t}`)),
      ),
    );
  }
  return parts;
}

function drawFinalScoring(ctx, v, doc, hot, fy, W, totals) {
  const parts = [];
  const breakdown = arr(v.final_breakdown);
  const keys = [];
  for (const b of breakdown) for (const k of Object.keys(obj(b))) if (!keys.includes(k)) keys.push(k);
  const rowsH = 30 + 22 * (totals.length + 1);
  parts.push(html`<rect x="0" y="${fy}" width="${W}" height="${rowsH + 10}" fill="#fff8e1"/>`);
  parts.push(
    svgText(12, fy + 20, "Final scoring", html`font-size="14" font-weight="800" fill="#4a1a15"`, hot.has("final")),
  );
  const colW = Math.min(130, (W - 220) / Math.max(keys.length + 1, 1));
  keys.forEach((k, i) => {
    parts.push(
      svgText(
        200 + i * colW + colW / 2,
        fy + 42,
        k,
        html`text-anchor="middle" font-size="11" font-weight="700" fill="#4a1a15"`,
      ),
    );
  });
  parts.push(
    svgText(
      200 + keys.length * colW + colW / 2,
      fy + 42,
      "total",
      html`text-anchor="middle" font-size="12" font-weight="800" fill="#4a1a15"`,
    ),
  );
  const best = Math.max(...totals.map((t) => num(t)));
  const winners = arr(obj(obj(doc.outcome)).winners);
  totals.forEach((t, s) => {
    const ry = fy + 64 + s * 22;
    const win = winners.length ? winners.includes(s) : num(t) === best;
    if (win) parts.push(html`<rect x="8" y="${ry - 15}" width="${W - 16}" height="20" fill="#f6e7b4"/>`);
    parts.push(seatDot(s, 24, ry - 5, 8));
    parts.push(
      svgText(
        40,
        ry,
        `${seatLabel(ctx, s)}${win ? "  \u2605 winner" : ""}`,
        html`font-size="12" font-weight="${win ? 800 : 500}" fill="#222"`,
      ),
    );
    keys.forEach((k, i) => {
      parts.push(
        svgText(
          200 + i * colW + colW / 2,
          ry,
          String(num(obj(breakdown[s])[k])),
          html`text-anchor="middle" font-size="12" fill="#222"`,
        ),
      );
    });
    parts.push(
      svgText(
        200 + keys.length * colW + colW / 2,
        ry,
        String(num(t)),
        html`text-anchor="middle" font-size="13" font-weight="800" fill="#222"`,
      ),
    );
  });
  return { parts, height: rowsH + 10 };
}

function drawBoard(ctx) {
  const L = lookups(ctx);
  const v = viewOf(ctx);
  const doc = obj(ctx.doc);
  const me = viewerSeat(ctx, v);
  const n = playerCount(v);
  const toAct = arr(v.to_act).length ? arr(v.to_act) : arr(doc.to_act);
  const hot = touchedBy(ctx.recent);
  const W = 1000;
  const parts = [];
  let y = 0;

  // Header -----------------------------------------------------------------------------------
  parts.push(drawHeader(ctx, L, v, doc, me, toAct, W));
  y = 58;

  // River --------------------------------------------------------------------------------------
  parts.push(drawRiver(L, v, hot, y, W));
  y += 206;

  // Rulers -------------------------------------------------------------------------------------
  const rulerH = 108;
  parts.push(drawRulers(L, v, hot, y, W, rulerH));
  y += rulerH;

  // Money track --------------------------------------------------------------------------------
  const trackH = 78;
  parts.push(drawMoneyTrack(ctx, L, v, hot, n, y, W, trackH));
  y += trackH;

  // Auction / sale / box row --------------------------------------------------------------------
  const infoH = 74;
  parts.push(html`<rect x="0" y="${y}" width="${W}" height="${infoH}" fill="#f3ecdb"/>`);
  if (isNum(v.auction_token)) parts.push(drawAuction(ctx, L, v, hot, y, infoH));
  else if (isNum(v.window)) parts.push(drawSale(ctx, v, hot, y, infoH));
  else parts.push(drawBundleValues(L, y));
  parts.push(drawBox(L, v, hot, y, infoH));
  y += infoH;

  // Players ------------------------------------------------------------------------------------
  const cols = n <= 1 ? 1 : 2;
  const pw = (W - 10 * (cols + 1)) / cols;
  const ph = 212;
  const rows = Math.ceil(n / cols);
  parts.push(html`<rect x="0" y="${y}" width="${W}" height="${rows * (ph + 10) + 10}" fill="#e8dfca"/>`);
  const seen = { ctx, L, v, me, toAct, hot };
  for (let s = 0; s < n; s++) {
    const px = 10 + (s % cols) * (pw + 10);
    const py = y + 10 + Math.floor(s / cols) * (ph + 10);
    parts.push(drawPlayer(seen, s, px, py, pw, ph));
  }
  y += rows * (ph + 10) + 10;

  // Final scoring ------------------------------------------------------------------------------
  const totals = arr(v.final_totals);
  if (v.phase === "over" && totals.length) {
    const final = drawFinalScoring(ctx, v, doc, hot, y, W, totals);
    parts.push(final.parts);
    y += final.height;
  }

  return html`<svg viewBox="0 0 ${W} ${y}" width="100%" xmlns="http://www.w3.org/2000/svg" font-family="system-ui, -apple-system, 'Segoe UI', 'DejaVu Sans', sans-serif" role="img" aria-label="Yangtze board">${parts}</svg>`;
}

function specialCardChips(L, v, hot, s) {
  // unused upright, used liquidity dashed and faded
  const chips = [];
  for (const c of arr(arr(v.cards)[s])) {
    const liquidity = L.liquidity[c] !== undefined;
    const lines =
      CARD_CHIPS[c] ||
      (liquidity ? ["Liq.", String(num(L.liquidity[c]))] : wrapWords(String(c).replace(/_/g, " "), 7).slice(0, 2));
    const touched = liquidity && hot.has(`liquidity:${s}:${num(L.liquidity[c])}`);
    chips.push({ lines, title: cardLabel(L, c), used: false, touched });
  }
  for (const u of arr(arr(v.liquidity_used)[s])) {
    chips.push({
      lines: ["Liq.", String(num(u))],
      title: `Liquidity ${num(u)} (used; can be bought back)`,
      used: true,
      touched: hot.has(`used:${s}:${num(u)}`),
    });
  }
  return chips;
}

function drawPlayer(seen, s, x, y, w, h) {
  const { ctx, L, v, me, toAct, hot } = seen;
  const colour = playerColour(s);
  const parts = [];
  const mine = s === me;
  const acting = toAct.includes(s);
  parts.push(
    html`<rect x="${x}" y="${y}" width="${w}" height="${h}" rx="8" fill="#fffdf7" stroke="${colour}" stroke-width="${mine ? 4 : 2}"/>`,
  );
  parts.push(html`<path d="M${x} ${y + 8} a8 8 0 0 1 8 -8 h${w - 16} a8 8 0 0 1 8 8 v20 h${-w} Z" fill="${colour}"/>`);
  const tags = [];
  if (mine) tags.push("you");
  if (v.active === s && v.phase !== "over") tags.push("turn");
  const title = `${seatLabel(ctx, s)}${tags.length ? ` (${tags.join(", ")})` : ""}`;
  parts.push(svgText(x + 10, y + 20, clip(title, 44), html`font-size="14" font-weight="700" fill="#fff"`));
  if (acting)
    parts.push(
      svgText(
        x + w - 10,
        y + 20,
        "\u25B6 to act",
        html`text-anchor="end" font-size="13" font-weight="700" fill="#fff"`,
      ),
    );

  // special cards, right-aligned on the money row
  const chips = specialCardChips(L, v, hot, s);
  const cw = 42;
  const shown = chips.slice(0, Math.max(0, Math.floor((w / 2 + 40) / (cw + 3))));
  const cardsX = x + w - 10 - shown.length * (cw + 3) + 3;
  shown.forEach((c, i) => {
    const kx = cardsX + i * (cw + 3);
    const fg = c.used ? "#999" : "#5b3a00";
    parts.push(
      html`<g><title>${c.title}</title><rect${mark(c.touched)} x="${kx}" y="${y + 33}" width="${cw}" height="30" rx="4" fill="${c.used ? "#eee" : "#fdf1c7"}" stroke="${c.used ? "#aaa" : "#b8860b"}"${c.used ? html` stroke-dasharray="3 2"` : ""}/>${svgText(
        kx + cw / 2,
        y + 46,
        c.lines[0] || "",
        html`text-anchor="middle" font-size="10" font-weight="700" fill="${fg}"`,
      )}${c.lines[1] ? svgText(kx + cw / 2, y + 58, c.lines[1], html`text-anchor="middle" font-size="9.5" fill="${fg}"`) : ""}</g>`,
    );
  });
  if (!chips.length)
    parts.push(
      svgText(x + w - 10, y + 52, "no special cards left", html`text-anchor="end" font-size="11" fill="#888"`),
    );

  const track = num(arr(v.track)[s]);
  const coins = num(arr(v.coins)[s]);
  const moneyText = coins
    ? `Money ${track} + ${coins}\u00D7${L.coinValue} = ${track + coins * L.coinValue}`
    : `Money ${track}`;
  parts.push(
    svgText(x + 10, y + 53, moneyText, html`font-size="13" font-weight="700" fill="#333"`, hot.has(`money:${s}`)),
  );
  const coinX = x + 22 + moneyText.length * 8.2;
  for (let c = 0; c < coins && coinX + c * 15 + 8 < cardsX - 4; c++) {
    parts.push(html`<circle cx="${coinX + c * 15}" cy="${y + 48}" r="6.5" fill="#e0b640" stroke="#8a6d12"/>`);
  }

  // behind the screen: the goods this viewer knows, then one "?" per unseen good
  const count = num(arr(v.screen_counts)[s]);
  const known = arr(arr(v.known_goods)[s]).filter(isNum);
  const hidden = Math.max(0, count - known.length);
  const label =
    mine || v.phase === "over"
      ? `Behind the screen: ${count}`
      : `Behind the screen: ${count} (${known.length} seen bought)`;
  parts.push(svgText(x + 10, y + 80, label, html`font-size="12" fill="#444"`, hot.has(`screen:${s}`)));
  const tw = 40;
  const th = 30;
  const perRow = Math.max(1, Math.floor((w - 20) / (tw + 4)));
  const tiles = known.map((g) => ({ g })).concat(Array.from({ length: Math.min(hidden, 40) }, () => ({ g: null })));
  const maxTiles = perRow * 2;
  const overflow = tiles.length > maxTiles ? tiles.length - maxTiles + 1 : 0;
  tiles.slice(0, overflow ? maxTiles - 1 : maxTiles).forEach((t, i) => {
    const tx = x + 10 + (i % perRow) * (tw + 4);
    const ty = y + 86 + Math.floor(i / perRow) * (th + 4);
    parts.push(
      t.g === null
        ? unknownTile(tx, ty, tw, th)
        : goodTile(L, t.g, tx, ty, tw, th, { small: true, hot: hot.has(`screen:${s}:${t.g}`) }),
    );
  });
  if (overflow) {
    const i = maxTiles - 1;
    parts.push(
      svgText(
        x + 10 + (i % perRow) * (tw + 4) + tw / 2,
        y + 86 + (th + 4) + 20,
        `+${overflow}`,
        html`text-anchor="middle" font-size="13" font-weight="700" fill="#444"`,
      ),
    );
  }

  // branches in front of the screen, grouped by type
  const branches = arr(arr(v.branches)[s]).filter(isNum);
  const byType = new Map();
  for (const b of branches) {
    const t = branch(L, b).type;
    byType.set(t, (byType.get(t) || []).concat([b]));
  }
  const by = y + 170;
  parts.push(
    svgText(
      x + 10,
      by,
      `Branches in front of the screen: ${branches.length}${byType.size ? ` (${byType.size} type${byType.size === 1 ? "" : "s"})` : ""}`,
      html`font-size="12" fill="#444"`,
    ),
  );
  let bx = x + 10;
  for (const [type, list] of byType) {
    if (bx > x + w - 40) break;
    for (const b of list) {
      parts.push(branchToken(L, b, bx, by + 6, 20, hot.has(`branch:${b}`)));
      bx += 23;
    }
    const name = clip(type, 10);
    parts.push(svgText(bx, by + 22, name, html`font-size="10.5" fill="#555"`));
    bx += 12 + name.length * 6;
  }
  return parts;
}

// ---------------------------------------------------------------- renderHoldings

export function renderHoldings(ctx) {
  try {
    return String(drawHoldings(ctx || {}));
  } catch (err) {
    return String(html`<p class="error">Holdings could not be drawn: ${err && err.message ? err.message : err}</p>`);
  }
}

function chip(L, g, hot = false) {
  const info = good(L, g);
  const fill = tileFill(info.colour);
  const border = info.category === "luxury" ? "#b8860b" : "#6b5b45";
  const title = goodName(L, g) + (info.category ? ` — ${info.category}` : "");
  const cls = `chip${info.category === "luxury" ? " luxury" : ""}${hot ? " recent" : ""}`;
  return html`<span title="${title}" class="${cls}" data-bg="${fill}" data-fg="${textColourOn(fill)}" data-border="${border}">${goodName(L, g)}</span>`;
}

function seatSwatch(s) {
  return html`<span class="swatch" data-bg="${playerColour(s)}" title="${PLAYER_COLOUR_NAMES[((num(s) % 4) + 4) % 4]}"></span>`;
}

/** Text the recent events touched, marked; other text as it is. */
function touched(text, on) {
  return on ? html`<span class="recent">${text}</span>` : text;
}

/** Items joined by *separator*, each item text or markup. */
function joined(items, separator = ", ") {
  return items.map((item, i) => (i ? html`${separator}${item}` : item));
}

// Bundles a hand could sell now: each group of the same good or same colour (of 2+), with its value.
function groupsOf(L, goods) {
  const groups = new Map();
  for (const g of goods) {
    const info = good(L, g);
    for (const [kind, key] of [
      ["good", info.good],
      ["colour", info.colour],
    ]) {
      const k = `${info.category}|${kind}|${key}`;
      groups.set(k, groups.get(k) || { kind, key, goods: [] });
      groups.get(k).goods.push(g);
    }
  }
  return [...groups.values()]
    .filter((x) => x.goods.length > 1)
    .map((x) => ({ ...x, value: bundleValue(L, x.goods) }))
    .filter((x) => x.value !== null)
    .sort((a, b) => b.value - a.value);
}

/** The special cards of a seat, named, each marked when the recent events touched it. */
function cardNames(L, hot, s, cards) {
  return joined(
    cards.map((c) =>
      touched(cardLabel(L, c), L.liquidity[c] !== undefined && hot.has(`liquidity:${s}:${num(L.liquidity[c])}`)),
    ),
  );
}

function usedNames(hot, s, used) {
  return joined(used.map((u) => touched(num(u), hot.has(`used:${s}:${num(u)}`))));
}

function drawPrivate(L, v, hot, me) {
  const mine = arr(arr(v.known_goods)[me]).filter(isNum);
  const body = [];
  if (mine.length) {
    const sorted = [...mine].sort((a, b) => a - b);
    body.push(html`<div>${sorted.map((g) => chip(L, g, hot.has(`screen:${me}:${g}`)))}</div>`);
    const groups = groupsOf(L, sorted);
    if (groups.length) {
      body.push(
        html`<p class="tight">Bundles you could sell:</p><ul class="flush">${groups
          .slice(0, 8)
          .map((gr) => html`<li>${gr.goods.length} × same ${gr.kind} (${gr.key}): ${gr.value}</li>`)}</ul>`,
      );
    } else {
      body.push(
        html`<p class="tight">No bundle of two or more yet; a single good sells for ${bundleValue(L, [sorted[0]]) ?? "?"}.</p>`,
      );
    }
  } else {
    body.push(html`<p>No goods behind your screen.</p>`);
  }
  const cards = arr(arr(v.cards)[me]);
  const used = arr(arr(v.liquidity_used)[me]);
  const heading = html`${seatSwatch(me)}${touched(`Behind your screen (${mine.length})`, hot.has(`screen:${me}`))}`;
  return html`<section class="holdings-private"><h3>${heading}</h3>${body}<p><strong>Your special cards:</strong> ${cards.length ? cardNames(L, hot, me, cards) : "none left"}${
    used.length ? html` · <strong>used liquidity</strong> (can be bought back): ${usedNames(hot, me, used)}` : ""
  }</p><p class="small muted">Each unused liquidity card is worth ${L.liquidityFinal} at the end.</p></section>`;
}

function cell(content, on, cls = "") {
  const classes = [cls, on ? "recent" : ""].filter(Boolean).join(" ");
  return classes ? html`<td class="${classes}">${content}</td>` : html`<td>${content}</td>`;
}

function playerRow(ctx, L, v, hot, me, toAct, s) {
  const track = num(arr(v.track)[s]);
  const coins = num(arr(v.coins)[s]);
  const count = num(arr(v.screen_counts)[s]);
  const known = arr(arr(v.known_goods)[s]).filter(isNum);
  const branches = arr(arr(v.branches)[s]).filter(isNum);
  const types = new Map();
  for (const b of branches) {
    const t = branch(L, b).type;
    types.set(t, (types.get(t) || 0) + 1);
  }
  const cards = arr(arr(v.cards)[s]);
  const used = arr(arr(v.liquidity_used)[s]);
  const marks = [];
  if (s === me) marks.push("you");
  if (toAct.includes(s)) marks.push("to act");
  const moneyCell = coins ? `${track} + ${coins}×${L.coinValue} = ${track + coins * L.coinValue}` : `${track}`;
  const goodsCell = html`${count}${
    known.length ? html`: ${joined(known.map((g) => touched(goodName(L, g), hot.has(`screen:${s}:${g}`))))}` : ""
  }${count > known.length && s !== me && v.phase !== "over" ? ` (+${count - known.length} unseen)` : ""}`;
  const branchesCell = html`${branches.length}${types.size ? html`: ${[...types].map(([t, c], i) => html`${i ? ", " : ""}${t} ×${c}`)}` : ""}`;
  return html`<tr>${cell(
    html`${seatSwatch(s)}${seatLabel(ctx, s)}${marks.length ? html` <em>(${marks.join(", ")})</em>` : ""}`,
    false,
    "nowrap",
  )}${cell(moneyCell, hot.has(`money:${s}`))}${cell(goodsCell, hot.has(`screen:${s}`))}${cell(
    branchesCell,
    branches.some((b) => hot.has(`branch:${b}`)),
  )}${cell(cards.length ? cardNames(L, hot, s, cards) : "—", false)}${cell(
    used.length ? usedNames(hot, s, used) : "—",
    false,
  )}</tr>`;
}

function drawFinalList(ctx, L, v, hot, totals) {
  const breakdown = arr(v.final_breakdown);
  const bundles = arr(v.final_bundles);
  const items = totals.map((t, s) => {
    const parts = Object.entries(obj(breakdown[s])).map(([k, val]) => `${k} ${num(val)}`);
    const sold = arr(bundles[s])
      .map((b) => arr(b).filter(isNum))
      .filter((b) => b.length)
      .map((b) => `${b.map((g) => goodName(L, g)).join(" + ")} = ${bundleValue(L, b) ?? "?"}`);
    return html`<li>${seatSwatch(s)}<strong>${seatLabel(ctx, s)}: ${num(t)}</strong>${
      parts.length ? ` — ${parts.join(", ")}` : ""
    }${sold.length ? html`<br><small>final bundles: ${sold.join("; ")}</small>` : ""}</li>`;
  });
  return html`<h3${mark(hot.has("final"))}>Final scoring</h3><ul>${items}</ul>`;
}

function drawHoldings(ctx) {
  const L = lookups(ctx);
  const v = viewOf(ctx);
  const me = viewerSeat(ctx, v);
  const n = playerCount(v);
  const hot = touchedBy(ctx.recent);
  const out = [];
  if (me !== null && me < n) out.push(drawPrivate(L, v, hot, me));

  const head = ["Seat", "Money", "Goods behind screen", "Branches", "Special cards", "Used liquidity"];
  const toAct = arr(v.to_act);
  const rows = [];
  for (let s = 0; s < n; s++) rows.push(playerRow(ctx, L, v, hot, me, toAct, s));
  const totals = arr(v.final_totals);
  out.push(
    html`<section class="holdings-public"><h3>Players</h3><table class="compact-table wide"><thead><tr>${head.map(
      (h) => html`<th>${h}</th>`,
    )}</tr></thead><tbody>${rows}</tbody></table>${totals.length ? drawFinalList(ctx, L, v, hot, totals) : ""}</section>`,
  );
  return html`${out}`;
}

// ---------------------------------------------------------------- describeMove

export function describeMove(command, ctx) {
  try {
    return describe(obj(command), ctx || {});
  } catch {
    return fallback(obj(command));
  }
}

function fallback(cmd) {
  const type = String(cmd.type || "move").replace(/^yangtze\./, "");
  const fields = Object.entries(cmd)
    .filter(([k]) => k !== "type")
    .map(([k, val]) => `${k}=${typeof val === "object" ? JSON.stringify(val) : val}`);
  return fields.length ? `${type} (${fields.join(", ")})` : type;
}

function describe(cmd, ctx) {
  const L = lookups(ctx);
  const v = viewOf(ctx);
  const type = String(cmd.type || "").replace(/^yangtze\./, "");
  const prices = arr(v.prices).length ? arr(v.prices) : arr(L.c.prices);
  const river = arr(v.river);
  switch (type) {
    case "SellBundle": {
      const goods = arr(cmd.goods).filter(isNum);
      const value = bundleValue(L, goods);
      return `Sell ${goods.map((g) => goodName(L, g)).join(" + ") || "nothing"}${value !== null ? ` for ${value}` : ""}`;
    }
    case "DoneSelling":
      return "Done selling (close the sell-card sale)";
    case "PurchaseGood": {
      const slot = num(cmd.slot, -1);
      const g = river[slot];
      const what = isNum(g) ? goodName(L, g) : "the good";
      const price = isNum(prices[slot]) ? prices[slot] : "?";
      let text = cmd.free
        ? `Take ${what} from house ${slot} free (free-good card)`
        : `Buy ${what} at house ${slot} for ${price}`;
      if (cmd.buy_two) text += ", playing the buy-two card";
      return text;
    }
    case "EndTurn":
      return v.stage === "second" ? "End the turn (skip the second purchase)" : "End the turn without buying";
    case "Bid": {
      const token = isNum(v.auction_token) ? ` for the ${branchName(L, v.auction_token)} branch` : "";
      return `Bid ${num(cmd.amount)}${token}`;
    }
    case "Pass":
      return "Pass (leave the auction)";
    case "ReturnGood":
      return `Put ${goodName(L, num(cmd.good))} back in the box`;
    case "ExchangeGood": {
      const slot = num(cmd.slot, -1);
      const taken = river[slot];
      return `Exchange ${goodName(L, num(cmd.good))} for ${isNum(taken) ? goodName(L, taken) : "the good"} at house ${slot}`;
    }
    case "BuyBackLiquidity":
      return `Buy back the liquidity ${num(cmd.value)} card for ${num(cmd.value)}`;
    case "ChooseRuler": {
      const spot = num(cmd.spot, -1);
      const tok = arr(v.rulers)[spot];
      return `Execute ${reignName(L, spot)}'s order${isNum(tok) ? `: ${ruler(L, tok).text}` : ""}`;
    }
    case "DeclineOrder":
      return "Decline the order";
    case "PlayLiquidity":
      return `Redeem the liquidity card: +${num(cmd.value)} money`;
    case "PlaySellCard":
      return "Play the sell card: sell bundles now";
    default:
      return fallback(cmd);
  }
}
