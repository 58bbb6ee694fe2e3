// Jiangnan: Life of Gentry — the board, the holdings and move labels for the reference web client.
// Plain browser ES module: renderBoard(ctx) -> SVG, renderHoldings(ctx) -> HTML, describeMove(command,
// ctx) -> text.  ctx = {kind, doc, view, components, seat, players, recent}.  All markup is built
// with the shared html`` template, which escapes every value it is given.  Every field of the view
// is guarded: a missing or odd field draws as empty, never throws.  What the latest moves
// (ctx.recent) touched is drawn with the CSS class `recent`.

import { html } from "../html.js";

// ---------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------

function arr(x) {
  return Array.isArray(x) ? x : [];
}

function obj(x) {
  return x && typeof x === "object" && !Array.isArray(x) ? x : {};
}

function num(x, fallback = 0) {
  return typeof x === "number" && Number.isFinite(x) ? x : fallback;
}

function str(x) {
  return x === null || x === undefined ? "" : String(x);
}

function cap(s) {
  const t = str(s).replace(/_/g, " ");
  return t ? t.charAt(0).toUpperCase() + t.slice(1) : "";
}

function clip(s, n) {
  const t = str(s);
  return t.length > n ? t.slice(0, Math.max(1, n - 1)) + "…" : t;
}

// Break text into at most `lines` lines of about `width` characters (the last one clipped).
function wrap(text, width, lines) {
  const words = str(text).split(/\s+/).filter(Boolean);
  const out = [];
  let line = "";
  for (const w of words) {
    if (!line) line = w;
    else if ((line + " " + w).length <= width) line += " " + w;
    else {
      out.push(line);
      line = w;
    }
  }
  if (line) out.push(line);
  if (out.length > lines) {
    const kept = out.slice(0, lines);
    kept[lines - 1] = clip(kept[lines - 1] + " " + out.slice(lines).join(" "), width);
    return kept;
  }
  return out.map((l) => clip(l, width + 2));
}

/** ` class="recent"` on an element the latest moves touched, nothing otherwise. */
function recentClass(on) {
  return on ? html` class="recent"` : "";
}

function text(x, y, content, opts = {}) {
  const size = opts.size || 12;
  const anchor = opts.anchor || "start";
  const fill = opts.fill || "#2b2118";
  const weight = opts.bold ? html` font-weight="bold"` : "";
  const style = opts.italic ? html` font-style="italic"` : "";
  return html`<text x="${x}" y="${y}" font-size="${size}" text-anchor="${anchor}" fill="${fill}"${weight}${style}${recentClass(opts.recent)}>${content}</text>`;
}

function rect(x, y, w, h, fill, opts = {}) {
  const stroke = opts.stroke || "none";
  const sw = opts.sw || 1;
  const r = opts.r === undefined ? 4 : opts.r;
  const dash = opts.dash ? html` stroke-dasharray="${opts.dash}"` : "";
  return html`<rect x="${x}" y="${y}" width="${Math.max(0, w)}" height="${Math.max(0, h)}" rx="${r}" fill="${fill}" stroke="${stroke}" stroke-width="${sw}"${dash}${recentClass(opts.recent)}/>`;
}

function tip(content) {
  return html`<title>${content}</title>`;
}

// ---------------------------------------------------------------------------------------------
// The latest moves: what ctx.recent touched, as keys the drawing code checks
// ---------------------------------------------------------------------------------------------

// One key per thing on the table a move can change; the drawing asks `touched(ctx, key)`.
const KEY = {
  coins: (seat) => `coins:${seat}`,
  vp: (seat) => `vp:${seat}`,
  spirit: (seat) => `spirit:${seat}`,
  idea: (seat, type) => `idea:${seat}:${type}`,
  spiritsTiles: (seat) => `spirits-tiles:${seat}`,
  actionTrack: (seat, tile) => `track:${seat}:${tile}`,
  usedTiles: (seat) => `used:${seat}`,
  draftedTiles: (seat) => `drafted:${seat}`,
  tilePiles: (seat) => `piles:${seat}`,
  scholar: (district, seat) => `scholar:${district}:${seat}`,
  portfolio: (id) => `portfolio:${id}`,
  unpublished: (seat) => `unpublished:${seat}`,
  displayTile: (district, index) => `display:${district}:${index}`,
  muse: (id) => `muse:${id}`,
  museServant: (id, seat) => `muse-servant:${id}:${seat}`,
  assistant: (seat, id) => `assistant:${seat}:${id}`,
  city: (id) => `city:${id}`,
  traveller: (id, seat) => `traveller:${id}:${seat}`,
  cities: (seat) => `cities:${seat}`,
  fairServant: (seat) => `fair:${seat}`,
  pointer: () => "pointer",
  boatServant: (boat, seat) => `boat:${boat}:${seat}`,
  trend: (trend) => `trend:${trend}`,
  income: (seat) => `income:${seat}`,
  talentAndDegree: (seat) => `talent:${seat}`,
  charm: () => "charm",
  finalScore: (seat) => `final:${seat}`,
};

/** Display Tiles: each new one enters the Display Track at the left, pushing the others right. */
const DISPLAY_TRACK_LENGTH = 3;

const IDEA_TYPES = ["drama", "novel", "painting"];

// Coins, VP, Spirit and Ideas.
function resourcesChanged(e, keys) {
  if (num(e.coins)) keys.add(KEY.coins(e.seat));
  if (num(e.vp)) keys.add(KEY.vp(e.seat));
  if (num(e.spirit)) keys.add(KEY.spirit(e.seat));
  for (const type of IDEA_TYPES) if (num(e[type])) keys.add(KEY.idea(e.seat, type));
}

function spiritConsumed(e, keys) {
  keys.add(KEY.spirit(e.seat));
}

function publicScored(e, keys) {
  arr(e.vp).forEach((vp, seat) => {
    if (num(vp)) keys.add(KEY.vp(seat));
  });
}

function spiritsTile(e, keys) {
  keys.add(KEY.spiritsTiles(e.seat));
}

// Action Tiles: the Action Track, the used / drafted / discarded piles and the draw bag.
function actionTileOnTrack(e, keys) {
  if (e.tile != null) keys.add(KEY.actionTrack(e.seat, e.tile));
}

function actionTileUsed(e, keys) {
  keys.add(KEY.usedTiles(e.seat));
  keys.add(KEY.tilePiles(e.seat));
}

function actionTileDiscarded(e, keys) {
  keys.add(KEY.tilePiles(e.seat));
}

function actionTileDrafted(e, keys) {
  keys.add(KEY.draftedTiles(e.seat));
  keys.add(KEY.tilePiles(e.seat));
}

// Scholars on a district's track (or in the Rest Area).
function scholarPlaced(e, keys) {
  keys.add(KEY.scholar(e.district, e.seat));
}

// Portfolios: face up in the Society, taken, published, discarded.
function portfolioMoved(e, keys) {
  keys.add(KEY.portfolio(e.portfolio));
}

function portfolioDiscarded(e, keys) {
  keys.add(KEY.unpublished(e.seat));
}

// Display Tiles on the Teahouse / Tavern Display Track: the newest are the leftmost.
function displayTileAdded(e, keys) {
  let index = 0;
  while (keys.has(KEY.displayTile(e.district, index))) index++;
  if (index < DISPLAY_TRACK_LENGTH) keys.add(KEY.displayTile(e.district, index));
}

// Muses in the Parlour and the Assistants hired from them.
function servantOnMuse(e, keys) {
  keys.add(KEY.museServant(e.muse, e.seat));
}

function museRevealed(e, keys) {
  keys.add(KEY.muse(e.muse));
}

function assistantHired(e, keys) {
  keys.add(KEY.assistant(e.seat, e.muse));
}

function assistantActivated(e, keys) {
  keys.add(KEY.assistant(e.seat, e.assistant));
  if (e.income !== false) keys.add(KEY.income(e.seat));
}

// Travel: the city visited and the Servant left there.
function travelled(e, keys) {
  keys.add(KEY.city(e.city));
  keys.add(KEY.traveller(e.city, e.seat));
  keys.add(KEY.cities(e.seat));
}

// Temple Fair: the Servant's space and the Special Action Pointer.
function fairMoved(e, keys) {
  keys.add(KEY.fairServant(e.seat));
}

function pointerRotated(_e, keys) {
  keys.add(KEY.pointer());
}

// Boats on the Long River.
function boatServantPlaced(e, keys) {
  keys.add(KEY.boatServant(e.boat, e.seat));
}

function boatServantMoved(e, keys) {
  keys.add(KEY.boatServant(e.from_boat, e.seat));
  keys.add(KEY.boatServant(e.to_boat, e.seat));
}

function trendChosen(e, keys) {
  keys.add(KEY.trend(e.trend));
}

// Personal Income taken from a Novel or from Servants on a Display Track.
function incomeTaken(e, keys) {
  keys.add(KEY.income(e.seat));
}

// Talents, Imperial Degrees, the Charming Scholar, the Final Scoring.
function talentOrDegree(e, keys) {
  keys.add(KEY.talentAndDegree(e.seat));
}

function charmReplaced(_e, keys) {
  keys.add(KEY.charm());
}

function finalScored(e, keys) {
  arr(e.breakdown).forEach((_, seat) => {
    keys.add(KEY.finalScore(seat));
  });
}

const TOUCHES = {
  "jiangnan.ResourcesChanged": resourcesChanged,
  "jiangnan.SpiritConsumed": spiritConsumed,
  "jiangnan.PublicScored": publicScored,
  "jiangnan.SpiritsTileTaken": spiritsTile,
  "jiangnan.SpiritsTileUsed": spiritsTile,
  "jiangnan.ActionTileDrawn": actionTileOnTrack,
  "jiangnan.ActionTileSwapped": actionTileOnTrack,
  "jiangnan.TileChosen": actionTileUsed,
  "jiangnan.BotTileDrawn": actionTileUsed,
  "jiangnan.TileDiscarded": actionTileDiscarded,
  "jiangnan.BagRefilled": actionTileDiscarded,
  "jiangnan.ActionTileDrafted": actionTileDrafted,
  "jiangnan.ScholarPlaced": scholarPlaced,
  "jiangnan.StartingPortfolioChosen": portfolioMoved,
  "jiangnan.PortfolioRevealed": portfolioMoved,
  "jiangnan.PortfolioTaken": portfolioMoved,
  "jiangnan.PortfolioPublished": portfolioMoved,
  "jiangnan.PortfolioDiscarded": portfolioDiscarded,
  "jiangnan.DisplayTileAdded": displayTileAdded,
  "jiangnan.ServantOnMuse": servantOnMuse,
  "jiangnan.MuseRevealed": museRevealed,
  "jiangnan.MuseHired": assistantHired,
  "jiangnan.BotMuseHired": assistantHired,
  "jiangnan.AssistantActivated": assistantActivated,
  "jiangnan.Travelled": travelled,
  "jiangnan.FairMoved": fairMoved,
  "jiangnan.PointerRotated": pointerRotated,
  "jiangnan.BoatServantPlaced": boatServantPlaced,
  "jiangnan.BoatServantMoved": boatServantMoved,
  "jiangnan.TrendChosen": trendChosen,
  "jiangnan.NovelIncomeActivated": incomeTaken,
  "jiangnan.ServantIncomeTaken": incomeTaken,
  "jiangnan.TalentChosen": talentOrDegree,
  "jiangnan.DegreeEarned": talentOrDegree,
  "jiangnan.CharmReplaced": charmReplaced,
  "jiangnan.FinalScored": finalScored,
};

/** The keys of everything the events of *recent* ({seq, seat, event}, oldest first) touched;
 * event types that change nothing drawn (or are unknown) add none. */
export function touchedBy(recent) {
  const keys = new Set();
  for (const item of arr(recent)) {
    const event = obj(obj(item).event);
    const touch = Object.hasOwn(TOUCHES, event.type) ? TOUCHES[event.type] : null;
    if (touch) touch(event, keys);
  }
  return keys;
}

const TOUCHED = Symbol("touched");

/** ctx with what its recent events touched, computed once per drawing. */
function withTouched(ctx) {
  const c = obj(ctx);
  return { ...c, [TOUCHED]: touchedBy(c.recent) };
}

function touched(ctx, key) {
  const keys = ctx && ctx[TOUCHED];
  return keys instanceof Set && keys.has(key);
}

// ---------------------------------------------------------------------------------------------
// Game vocabulary
// ---------------------------------------------------------------------------------------------

const PLAYER_COLOURS = ["#e4572e", "#2b9348", "#3a6fd8", "#8338ec"];
const PLAYER_LIGHT = ["#fbd9cf", "#cdebd6", "#d5e1fa", "#e5d5fb"];
const IDEA_COLOURS = { drama: "#b91c1c", novel: "#d4a20b", painting: "#1e5aa8" };
const IDEA_LIGHT = { drama: "#f6d4d4", novel: "#faefc6", painting: "#d2e2f6" };
const DISTRICT_COLOURS = {
  society: "#6b4f2a",
  teahouse: "#2f6f5e",
  travel: "#35648f",
  temple_fair: "#9c4a1a",
  tavern: "#7a2f45",
  parlour: "#7d4f94",
  rest: "#555555",
};
const DISTRICT_SHORT = {
  society: "Soc",
  teahouse: "Tea",
  travel: "Trv",
  temple_fair: "Fair",
  tavern: "Tav",
  parlour: "Par",
};
const DISTRICT_NAMES = {
  society: "Society",
  teahouse: "Teahouse",
  travel: "Travel",
  temple_fair: "Temple Fair",
  tavern: "Tavern",
  parlour: "Parlour",
  rest: "Rest Area",
};
const BONUS_STYLE = {
  coin: { fill: "#e0b526", letter: "C", ink: "#3b2a00", word: "Coin" },
  spirit: { fill: "#d14d8b", letter: "S", ink: "#ffffff", word: "Spirit" },
  vp: { fill: "#2f5d34", letter: "V", ink: "#ffffff", word: "VP" },
  drama: { fill: IDEA_COLOURS.drama, letter: "D", ink: "#ffffff", word: "Drama Idea" },
  novel: { fill: IDEA_COLOURS.novel, letter: "N", ink: "#2b2118", word: "Novel Idea" },
  painting: { fill: IDEA_COLOURS.painting, letter: "P", ink: "#ffffff", word: "Painting Idea" },
  portfolio: { fill: "#8a6a44", letter: "F", ink: "#ffffff", word: "Portfolio" },
  special: { fill: "#222222", letter: "★", ink: "#ffd54a", word: "Special Action" },
};
const TREND_STYLE = {
  drama: { fill: IDEA_COLOURS.drama, ink: "#ffffff" },
  novel: { fill: IDEA_COLOURS.novel, ink: "#2b2118" },
  painting: { fill: IDEA_COLOURS.painting, ink: "#ffffff" },
  gold: { fill: "#e0b526", ink: "#3b2a00" },
  assistant: { fill: "#7d4f94", ink: "#ffffff" },
  scenery: { fill: "#3f7f4c", ink: "#ffffff" },
};
const GOAL_LABELS = {
  drama: "Most Dramas",
  gold: "Most Gold",
  painting: "Most Paintings",
  novel: "Most Novels",
  assistant: "Most Assistants",
  scenery: "Most Scenery",
  spirit: "Highest Spirit",
  own_servants: "Own Servants on boat",
  most_type: "Most of one type",
  least_type: "Least published type",
  all_servants: "All Servants on boats",
  published: "Most published",
};
const PHASES = {
  start: "Setup",
  setup: "Setup",
  actions: "Action Phase",
  income: "Upkeep · Personal Income",
  boats: "Upkeep · Resolve Boats",
  trend: "Upkeep · Choose Trend",
  draft: "Upkeep · Draft Action Tiles",
  drafting: "Upkeep · Draft Action Tiles",
  events: "Upkeep · Events",
  board: "Upkeep · Update Board",
  spirits: "Upkeep · Consume Spirits",
  mandatory: "Upkeep · Mandatory Rest",
  end: "Game over",
};
const STEP_LABELS = {
  pick_start: "choose a starting Portfolio",
  pick_talent: "choose a Talent",
  turn: "take a turn (visit a district or rest)",
  mandatory_rest: "Mandatory Rest",
  discard: "discard an Action Tile",
  vassal: "send the vassal's Scholar",
  society: "Society: take Portfolios / Ideas",
  society_extra: "Society: take 1 more",
  exam_portfolios: "Imperial Exam: discard Portfolios",
  exam_ideas: "Imperial Exam: pay Ideas",
  publish_or_inspire: "publish or draw inspiration",
  muse: "Parlour: place a Servant on a Muse",
  travel: "Travel: choose a city",
  fair: "Temple Fair: move the Servant",
  pick_shop: "choose a Shop",
  idea: "take an Idea",
  publish: "publish a Portfolio",
  boat: "place a Servant on a boat",
  boat_move: "move a Servant between boats",
  exchange: "exchange Ideas",
  swap_tile: "swap an Action Tile",
  stack_draw: "draw Portfolios from the stack",
  take_portfolio: "take a face-up Portfolio",
  assistant_offer: "use an Assistant Power",
  income: "Personal Income",
  trend: "choose a Scoring Trend",
  draft: "draft an Action Tile",
};
const CITY_PATHS = ["A", "B", "C", "D"];

function comps(ctx) {
  return obj(ctx && ctx.components);
}

function viewOf(ctx) {
  const c = obj(ctx);
  const v = obj(c.view);
  if (Object.keys(v).length) return v;
  return obj(obj(c.doc).view);
}

function boardOf(view) {
  return obj(view.board);
}

function seatCount(view) {
  return Math.max(0, num(view.players, 0));
}

function playerColour(i) {
  return PLAYER_COLOURS[((num(i, 0) % 4) + 4) % 4];
}

function playerLight(i) {
  return PLAYER_LIGHT[((num(i, 0) % 4) + 4) % 4];
}

function seatName(ctx, seat) {
  const players = ctx && ctx.players;
  if (Array.isArray(players)) {
    const p = players[seat];
    if (p && typeof p === "object" && (p.name || p.display_name)) return str(p.name || p.display_name);
    if (typeof p === "string" && p) return p;
  }
  return `Seat ${seat}`;
}

// Who a colour (index into player_boards) belongs to: a seat, a 2-player vassal or the solo Bot.
function colourInfo(ctx, view, colour) {
  const board = boardOf(view);
  const seats = seatCount(view);
  const bot = board.bot;
  if (typeof bot === "number" && colour === bot) return { label: "Solo Bot", short: "Bot", seat: null, kind: "bot" };
  const vassals = obj(board.vassals);
  for (const [seat, vcol] of Object.entries(vassals)) {
    if (num(vcol, -1) === colour) {
      return {
        label: `Vassal of ${seatName(ctx, Number(seat))}`,
        short: `V${seat}`,
        seat: Number(seat),
        kind: "vassal",
      };
    }
  }
  if (colour < seats || !seats) {
    const you = ctx && ctx.seat === colour;
    return { label: seatName(ctx, colour) + (you ? " (you)" : ""), short: `S${colour}`, seat: colour, kind: "seat" };
  }
  return { label: `Colour ${colour}`, short: `C${colour}`, seat: null, kind: "other" };
}

function portfolio(ctx, id) {
  return obj(obj(comps(ctx).portfolios)[id]);
}

function portfolioTitle(ctx, id) {
  return str(obj(comps(ctx).portfolio_titles)[id]);
}

function museName(ctx, id) {
  return str(obj(comps(ctx).muse_names)[id]) || str(id);
}

// Talents A01..A20 are the characters whose Muse tiles are B01..B20.
function talentName(ctx, id) {
  const s = str(id);
  const n = s.replace(/^A/, "B");
  return str(obj(comps(ctx).muse_names)[n]) || s;
}

function cityInfo(ctx, id) {
  return obj(obj(comps(ctx).cities)[id]);
}

function shopName(ctx, id) {
  return str(obj(comps(ctx).shops)[id]) || str(id);
}

function actionTile(ctx, id) {
  return obj(obj(comps(ctx).action_tiles)[id]);
}

function bonusWords(tokens) {
  return arr(tokens)
    .map((t) => (BONUS_STYLE[t] ? BONUS_STYLE[t].word : cap(t)))
    .join(" + ");
}

function amountWords(map) {
  const parts = [];
  for (const [k, v] of Object.entries(obj(map))) {
    const style = BONUS_STYLE[k];
    parts.push(`${num(v)} ${style ? style.word : cap(k)}`);
  }
  return parts.join(", ");
}

function incomeWords(ctx, id) {
  const p = portfolio(ctx, id);
  const income = obj(p.income);
  if (!Object.keys(income).length) return "";
  if (p.type === "novel") return `${amountWords(income)} for 1 Novel Idea`;
  return amountWords(income);
}

function portfolioWords(ctx, id) {
  const p = portfolio(ctx, id);
  const title = portfolioTitle(ctx, id);
  const bits = [];
  if (p.type) bits.push(`${cap(p.type)}, cost ${num(p.cost)} ${cap(p.type)} Ideas`);
  return `${id}${title ? ` “${title}”` : ""}${bits.length ? ` (${bits.join("; ")})` : ""}`;
}

function goalKind(ctx, letter) {
  return str(obj(comps(ctx).goals)[letter]);
}

function goalText(ctx, letter) {
  const kind = goalKind(ctx, letter);
  const vp = arr(obj(comps(ctx).goal_vp)[letter]);
  const label = GOAL_LABELS[kind] || cap(kind) || "Goal";
  return `${letter}: ${label}${vp.length ? ` (${vp.join("/")} VP)` : ""}`;
}

// ---------------------------------------------------------------------------------------------
// Drawing pieces
// ---------------------------------------------------------------------------------------------

function bonusBadge(x, y, token, r = 8) {
  const s = BONUS_STYLE[token] || { fill: "#999999", letter: "?", ink: "#ffffff", word: str(token) };
  return html`<g>${tip(s.word)}<circle cx="${x}" cy="${y}" r="${r}" fill="${s.fill}" stroke="#00000055"/>${text(
    x,
    y + r * 0.42,
    s.letter,
    { size: r * 1.2, anchor: "middle", bold: true, fill: s.ink },
  )}</g>`;
}

function bonusRow(x, y, tokens, r = 8) {
  return html`${arr(tokens).map((t, i) => bonusBadge(x + i * (2 * r + 3), y, t, r))}`;
}

function pawn(x, y, colour, r = 7, label = "", recent = false) {
  const fill = colour >= 0 ? playerColour(colour) : "#bbbbbb";
  return html`<g>${label ? tip(label) : ""}<circle cx="${x}" cy="${y}" r="${r}" fill="${fill}" stroke="#1a1a1a" stroke-width="1.2"${recentClass(recent)}/></g>`;
}

function scholarPiece(x, y, colour, label, recent = false) {
  // A scholar: a little figure (head + robe) in the colour.
  const fill = playerColour(colour);
  const mark = recentClass(recent);
  return html`<g>${tip(label)}<circle cx="${x}" cy="${y - 6}" r="4.5" fill="${fill}" stroke="#1a1a1a"${mark}/><path d="M${x - 7},${y + 9} L${x},${y - 2} L${x + 7},${y + 9} Z" fill="${fill}" stroke="#1a1a1a"${mark}/></g>`;
}

function ideaChip(x, y, type, count, w = 34, recent = false) {
  return html`<g>${tip(`${count} ${cap(type)} Ideas`)}${rect(x, y, w, 18, IDEA_LIGHT[type] || "#eeeeee", {
    stroke: IDEA_COLOURS[type] || "#888888",
    r: 3,
    recent,
  })}${bonusBadge(x + 9, y + 9, type, 6.5)}${text(x + w - 4, y + 13.5, count, {
    size: 12,
    anchor: "end",
    bold: true,
  })}</g>`;
}

function drawActionTile(ctx, x, y, id, opts = {}) {
  const w = opts.w || 58;
  const h = opts.h || 50;
  const t = actionTile(ctx, id);
  const districts = arr(t.districts);
  const bonus = arr(t.bonus);
  const advanced = str(id).includes("-A");
  const words = `Action Tile ${id}: ${districts.map((d) => DISTRICT_NAMES[d] || d).join(" / ")}; discard bonus ${bonusWords(bonus)}`;
  const out = [tip(words)];
  out.push(
    rect(x, y, w, h, opts.fill || "#fffaf0", {
      stroke: opts.stroke || "#8c7a5b",
      sw: opts.sw || 1,
      recent: opts.recent,
    }),
  );
  out.push(
    text(x + w / 2, y + 11, id, {
      size: 10,
      anchor: "middle",
      bold: true,
      fill: advanced ? "#b91c1c" : "#2b2118",
    }),
  );
  const dw = districts.length > 1 ? (w - 6) / 2 : w - 6;
  districts.forEach((d, i) => {
    const dx = x + 3 + i * dw;
    out.push(rect(dx + 0.5, y + 14, dw - 1, 14, DISTRICT_COLOURS[d] || "#777777", { r: 2 }));
    out.push(
      text(dx + dw / 2, y + 25, DISTRICT_SHORT[d] || clip(d, 4), {
        size: 9.5,
        anchor: "middle",
        fill: "#ffffff",
        bold: true,
      }),
    );
  });
  const r = 6;
  const bx = x + w / 2 - ((bonus.length - 1) * (2 * r + 3)) / 2;
  out.push(bonusRow(bx, y + h - 10, bonus, r));
  return html`<g>${out}</g>`;
}

function drawPortfolioCard(ctx, x, y, id, w, h) {
  const p = portfolio(ctx, id);
  const type = str(p.type);
  const title = portfolioTitle(ctx, id);
  const colour = IDEA_COLOURS[type] || "#777777";
  const light = IDEA_LIGHT[type] || "#f0f0f0";
  const income = incomeWords(ctx, id);
  const out = [
    tip(`${portfolioWords(ctx, id)}; payout ${amountWords(p.payout) || "none"}${income ? "; income " + income : ""}`),
  ];
  out.push(rect(x, y, w, h, light, { stroke: colour, sw: 1.5, recent: touched(ctx, KEY.portfolio(id)) }));
  out.push(rect(x, y, w, 16, colour, { r: 3 }));
  out.push(
    text(x + 4, y + 12, `${id} · ${cap(type) || "?"}`, {
      size: 10,
      bold: true,
      fill: type === "novel" ? "#2b2118" : "#ffffff",
    }),
  );
  const lines = wrap(title, Math.floor(w / 5.6), h > 90 ? 2 : 1);
  lines.forEach((l, i) => {
    out.push(text(x + 4, y + 28 + i * 11, l, { size: 9.5, italic: true }));
  });
  let ly = y + 28 + lines.length * 11 + 3;
  out.push(text(x + 4, ly, `Cost ${num(p.cost)}`, { size: 10, bold: true }));
  out.push(bonusBadge(x + 50, ly - 4, type, 6));
  ly += 15;
  const payout = Object.entries(obj(p.payout));
  out.push(text(x + 4, ly, "Pay", { size: 9.5 }));
  let px = x + 30;
  for (const [k, v] of payout) {
    out.push(text(px, ly, `${num(v)}`, { size: 10, bold: true }));
    out.push(bonusBadge(px + 12, ly - 4, k, 6));
    px += 28;
  }
  const incomes = Object.entries(obj(p.income));
  if (incomes.length && ly + 14 < y + h) {
    ly += 14;
    out.push(text(x + 4, ly, type === "novel" ? "Inc N→" : "Inc", { size: 9.5 }));
    px = x + (type === "novel" ? 40 : 30);
    for (const [k, v] of incomes) {
      out.push(text(px, ly, `${num(v)}`, { size: 10, bold: true }));
      out.push(bonusBadge(px + 12, ly - 4, k, 6));
      px += 28;
    }
  }
  return html`<g>${out}</g>`;
}

function drawPortfolioChip(ctx, x, y, id, opts = {}) {
  const p = portfolio(ctx, id);
  const type = str(p.type);
  const w = opts.w || 40;
  const colour = IDEA_COLOURS[type] || "#777777";
  const fill = opts.published ? colour : IDEA_LIGHT[type] || "#eeeeee";
  const ink = opts.published && type !== "novel" ? "#ffffff" : "#2b2118";
  return html`<g>${tip(portfolioWords(ctx, id) + (opts.published ? " — published" : " — unpublished"))}${rect(
    x,
    y,
    w,
    18,
    fill,
    { stroke: colour, sw: 1.4, r: 3, recent: touched(ctx, KEY.portfolio(id)) },
  )}${text(x + w / 2, y + 13, id, { size: 10.5, anchor: "middle", bold: true, fill: ink })}</g>`;
}

function trendChip(x, y, trend, w = 64, recent = false) {
  const s = TREND_STYLE[trend] || { fill: "#999999", ink: "#ffffff" };
  return html`<g>${tip(`Scoring Trend: ${cap(trend)}`)}${rect(x, y, w, 18, s.fill, {
    r: 9,
    stroke: "#00000033",
    recent,
  })}${text(x + w / 2, y + 13, cap(trend), { size: 10.5, anchor: "middle", bold: true, fill: s.ink })}</g>`;
}

function drawBoat(ctx, view, x, y, w, boatIndex, caption) {
  const board = boardOf(view);
  const boats = arr(board.boats);
  const out = [];
  // river water
  out.push(rect(x, y, w, 66, "#cfe3ee", { r: 6, stroke: "#9bbfd3" }));
  out.push(text(x + 6, y + 12, caption, { size: 10, fill: "#35607a", bold: true }));
  if (typeof boatIndex !== "number" || boatIndex < 0 || !boats[boatIndex]) {
    out.push(text(x + w / 2, y + 40, "no boat", { size: 11, anchor: "middle", fill: "#5d7f93", italic: true }));
    return html`${out}`;
  }
  const boat = obj(boats[boatIndex]);
  const bx = x + 8;
  const bw = w - 16;
  const hull = `M${bx},${y + 18} L${bx + bw},${y + 18} L${bx + bw - 16},${y + 62} L${bx + 16},${y + 62} Z`;
  out.push(html`<path d="${hull}" fill="#a5753f" stroke="#5b3a17" stroke-width="1.5"/>`);
  out.push(text(x + w - 8, y + 12, `Boat ${boatIndex}`, { size: 10, anchor: "end", fill: "#35607a" }));
  const trends = arr(boat.trends);
  const spaces = arr(boat.spaces);
  // label strip: trends [left, right] or a goal
  const lx = bx + 6;
  if (trends.length) {
    trends.forEach((t, i) => {
      out.push(trendChip(lx + i * 70, y + 21, t, 66));
    });
  } else if (boat.goal) {
    const gw = Math.max(120, bw - 12 - 4 * 32 - 30);
    out.push(
      html`<g>${tip("Scoring Goal " + goalText(ctx, boat.goal))}${rect(lx, y + 21, gw, 18, "#f5e6b8", {
        r: 9,
        stroke: "#8a6a1f",
      })}${text(lx + gw / 2, y + 34, clip("Goal " + goalText(ctx, boat.goal), Math.floor(gw / 5.6)), {
        size: 10,
        anchor: "middle",
        bold: true,
      })}</g>`,
    );
  }
  // 4 spaces, index 0 = the rightmost
  const sw = 28;
  for (let i = 0; i < spaces.length; i++) {
    const sp = arr(spaces[i]);
    const colour = num(sp[0], -1);
    const count = num(sp[1], 0);
    const sx = bx + bw - 22 - (i + 1) * (sw + 4);
    const sy = y + 41;
    if (colour >= 0 && count > 0) {
      const who = colourInfo(ctx, view, colour).label;
      const recent = touched(ctx, KEY.boatServant(boatIndex, colour));
      out.push(
        html`<g>${tip(`${who}: ${count} Servant${count === 1 ? "" : "s"}`)}${rect(
          sx,
          sy,
          sw,
          18,
          playerColour(colour),
          {
            r: 3,
            stroke: "#1a1a1a",
            recent,
          },
        )}${text(sx + sw / 2, sy + 13.5, `×${count}`, {
          size: 11,
          anchor: "middle",
          bold: true,
          fill: "#ffffff",
        })}</g>`,
      );
    } else {
      out.push(rect(sx, sy, sw, 18, "#c79a62", { r: 3, stroke: "#5b3a17", dash: "3,2" }));
    }
  }
  return html`${out}`;
}

// ---------------------------------------------------------------------------------------------
// The districts
// ---------------------------------------------------------------------------------------------

function districtBody(ctx, view, district, x, y, w, h) {
  switch (district) {
    case "society":
      return drawSociety(ctx, view, x, y, w, h);
    case "teahouse":
    case "tavern":
      return drawDisplayDistrict(ctx, view, district, x, y, w, h);
    case "travel":
      return drawTravel(ctx, view, x, y, w, h);
    case "temple_fair":
      return drawFair(ctx, view, x, y, w, h);
    case "parlour":
      return drawParlour(ctx, view, x, y, w, h);
    default:
      return text(x + 6, y + 20, cap(district), { size: 12 });
  }
}

function drawSociety(ctx, view, x, y, w, h) {
  const board = boardOf(view);
  const display = arr(board.portfolio_display).filter(Boolean);
  const offer = arr(board.portfolio_offer).filter(Boolean);
  const cfg = obj(board.config);
  const out = [];
  const showOffer = offer.length > 0;
  const tiles = showOffer ? offer : display;
  const perRow = 4;
  const rows = Math.max(1, Math.ceil(tiles.length / perRow));
  const cw = (w - 3 * 4) / 4;
  const ch = rows > 1 ? (h - 40) / rows - 4 : Math.min(128, h - 40);
  out.push(text(x, y + 11, showOffer ? "Starting Portfolios on offer" : "Portfolio display", { size: 11, bold: true }));
  tiles.forEach((id, i) => {
    const r = Math.floor(i / perRow);
    const c = i % perRow;
    out.push(drawPortfolioCard(ctx, x + c * (cw + 4), y + 16 + r * (ch + 4), id, cw, ch));
  });
  if (!tiles.length)
    out.push(text(x + w / 2, y + 70, "(no Portfolios on display)", { size: 11, anchor: "middle", italic: true }));
  const by = y + h - 6;
  out.push(rect(x, by - 14, 118, 18, "#e9dcc1", { r: 3, stroke: "#8c7a5b" }));
  out.push(
    text(x + 5, by - 1, `Stack: ${num(board.portfolio_stack_count)} (Age ${num(board.portfolio_age, 1)})`, {
      size: 10.5,
      bold: true,
    }),
  );
  if (cfg.exam) {
    const exams = obj(comps(ctx).exams);
    const parts = Object.values(exams).map(
      (e) => `${str(obj(e).name)} ${num(obj(e).portfolios)}F+${num(obj(e).ideas)}I`,
    );
    out.push(
      text(x + 124, by - 1, clip(`Imperial Exam: ${parts.join(", ") || "side B"}`, 44), {
        size: 10,
        fill: "#6b4f2a",
        italic: true,
      }),
    );
  }
  return html`${out}`;
}

function drawDisplayDistrict(ctx, view, district, x, y, w, h) {
  const board = boardOf(view);
  const track = arr(obj(board.display_tracks)[district]);
  const out = [text(x, y + 11, "Display Track", { size: 11, bold: true })];
  const tw = 104;
  track.forEach((tile, i) => {
    const t = arr(tile);
    const type = str(t[0]);
    const colour = num(t[1], -1);
    const tx = x + i * (tw + 12);
    const ty = y + 20;
    const recent = touched(ctx, KEY.displayTile(district, i));
    out.push(
      html`<g>${tip(`${cap(type)} Display Tile${colour >= 0 ? " with a Servant of " + colourInfo(ctx, view, colour).label : ", no Servant"}`)}`,
    );
    out.push(
      rect(tx, ty, tw, 86, IDEA_LIGHT[type] || "#eeeeee", { stroke: IDEA_COLOURS[type] || "#777", sw: 2, recent }),
    );
    out.push(bonusBadge(tx + 16, ty + 16, type, 10));
    out.push(text(tx + 32, ty + 21, cap(type), { size: 12, bold: true }));
    if (colour >= 0) {
      out.push(pawn(tx + tw / 2, ty + 56, colour, 13));
      out.push(text(tx + tw / 2, ty + 82, colourInfo(ctx, view, colour).short, { size: 9.5, anchor: "middle" }));
    } else {
      out.push(
        html`<circle cx="${tx + tw / 2}" cy="${ty + 56}" r="13" fill="none" stroke="#999" stroke-dasharray="3,2"/>`,
      );
    }
    out.push(html`</g>`);
  });
  if (!track.length) out.push(text(x + w / 2, y + 60, "(empty)", { size: 11, anchor: "middle", italic: true }));
  const income = district === "teahouse" ? "Servants here: Coins each Upkeep" : "Servants here: VP each Upkeep";
  out.push(text(x, y + 128, income, { size: 10.5, italic: true, fill: "#444" }));
  out.push(text(x, y + 144, "Visit: publish a Portfolio, or draw 1 Idea per Display Tile", { size: 10, fill: "#444" }));
  const supply = obj(board.display_supply);
  out.push(text(x, y + h - 8, "Display Tile supply:", { size: 10.5, bold: true }));
  let sx = x + 112;
  for (const type of IDEA_TYPES) {
    out.push(ideaChip(sx, y + h - 21, type, num(supply[type]), 38));
    sx += 44;
  }
  return html`${out}`;
}

function drawTravel(ctx, view, x, y, w, h) {
  const board = boardOf(view);
  const travelTiles = obj(board.travel_tiles);
  const cities = obj(comps(ctx).cities);
  const tilesData = obj(comps(ctx).travel_tiles);
  const boards = arr(view.player_boards);
  const out = [];
  const jx = x;
  const jw = 58;
  const rowH = Math.min(50, (h - 6) / 4);
  out.push(rect(jx, y + 4, jw, rowH * 4 - 6, "#e3d2b0", { stroke: "#6b4f2a", sw: 1.5 }));
  out.push(text(jx + jw / 2, y + rowH * 2 - 2, "Jinling", { size: 11.5, anchor: "middle", bold: true }));
  out.push(text(jx + jw / 2, y + rowH * 2 + 12, "(start)", { size: 9.5, anchor: "middle", italic: true }));
  const cw = 98;
  CITY_PATHS.forEach((path, r) => {
    const ids = Object.keys(cities)
      .filter((c) => c.charAt(0) === path)
      .sort();
    const cy = y + 4 + r * rowH;
    out.push(
      html`<line x1="${jx + jw}" y1="${cy + rowH / 2 - 3}" x2="${x + w}" y2="${cy + rowH / 2 - 3}" stroke="#b49a6a" stroke-width="2" stroke-dasharray="5,3"/>`,
    );
    ids.forEach((id, i) => {
      const c = obj(cities[id]);
      const cx = jx + jw + 8 + i * (cw + 6);
      const tile = str(travelTiles[id]);
      const bonus = arr(tilesData[tile]);
      const visitors = boards
        .map((b, colour) => (arr(obj(b).cities).includes(id) ? colour : -1))
        .filter((c2) => c2 >= 0);
      out.push(
        html`<g>${tip(`${id} ${str(c.name)}: Travel Cost ${num(c.cost)} Coin; scenery ${num(c.scenery)}; City Bonus ${tile ? tile + " " + bonusWords(bonus) : "taken"}`)}`,
      );
      out.push(
        rect(cx, cy, cw, rowH - 6, visitors.length ? "#f2e7cf" : "#fbf6ea", {
          stroke: "#8c7a5b",
          recent: touched(ctx, KEY.city(id)),
        }),
      );
      out.push(text(cx + 4, cy + 12, `${id} ${clip(str(c.name), 15)}`, { size: 9.5, bold: true }));
      out.push(text(cx + 4, cy + 27, `${num(c.cost)}`, { size: 10.5, bold: true }));
      out.push(bonusBadge(cx + 16, cy + 23, "coin", 5.5));
      if (bonus.length) out.push(bonusRow(cx + 34, cy + 23, bonus, 6));
      else out.push(text(cx + 30, cy + 27, "—", { size: 10 }));
      visitors.forEach((col, k) => {
        out.push(
          pawn(
            cx + cw - 8 - k * 11,
            cy + rowH - 14,
            col,
            5,
            colourInfo(ctx, view, col).label,
            touched(ctx, KEY.traveller(id, col)),
          ),
        );
      });
      out.push(html`</g>`);
    });
  });
  if (obj(board.config).artisans) {
    out.push(
      text(x + w - 2, y + h - 2, "Traveling Artisans: publish instead of paying", {
        size: 9.5,
        anchor: "end",
        italic: true,
        fill: "#35648f",
      }),
    );
  }
  return html`${out}`;
}

function drawFair(ctx, view, x, y, w, h) {
  const board = boardOf(view);
  const shops = arr(board.shops);
  const passing = arr(comps(ctx).passing_bonus);
  const pointed = arr(board.pointed_shops);
  const boards = arr(view.player_boards);
  const seats = seatCount(view);
  const cx = x + w / 2;
  const cy = y + h / 2 + 2;
  const rx = w / 2 - 56;
  const ry = h / 2 - 22;
  const n = Math.max(shops.length, 6);
  const out = [
    html`<ellipse cx="${cx}" cy="${cy}" rx="${rx}" ry="${ry}" fill="none" stroke="#c9a77a" stroke-width="3"/>`,
  ];
  const pos = (i, f = 1) => {
    const a = (i / n) * 2 * Math.PI - Math.PI / 2;
    return [cx + Math.cos(a) * rx * f, cy + Math.sin(a) * ry * f];
  };
  // passing bonus of path i (space i -> i+1 clockwise), drawn between the spaces
  for (let i = 0; i < n; i++) {
    const [px, py] = pos(i + 0.5, 1);
    const b = arr(passing[i]);
    if (b.length) out.push(bonusRow(px - ((b.length - 1) * 9) / 2, py, b, 7));
  }
  // the pointer
  const pointedIdx = pointed.map((s) => shops.indexOf(s)).filter((i) => i >= 0);
  const pointerMark = recentClass(touched(ctx, KEY.pointer()));
  out.push(html`<circle cx="${cx}" cy="${cy}" r="9" fill="#333"${pointerMark}/>`);
  for (const i of pointedIdx) {
    const [px, py] = pos(i, 0.62);
    out.push(
      html`<line x1="${cx}" y1="${cy}" x2="${px}" y2="${py}" stroke="#333" stroke-width="4" marker-end="url(#jn-arrow)"${pointerMark}/>`,
    );
  }
  out.push(
    text(cx, cy + 24, `Pointer ${str(obj(board.config).pointer) || "A"}`, {
      size: 9.5,
      anchor: "middle",
      italic: true,
    }),
  );
  for (let i = 0; i < shops.length; i++) {
    const id = str(shops[i]);
    const [sx, sy] = pos(i, 1);
    const hot = pointed.includes(id);
    const bw = 104;
    const bh = 34;
    out.push(
      html`<g>${tip(`Space ${i}: Shop ${id} ${shopName(ctx, id)}${hot ? " (the Special Action Pointer points here)" : ""}`)}`,
    );
    out.push(
      rect(sx - bw / 2, sy - bh / 2, bw, bh, hot ? "#ffe8a3" : "#f7ecd9", {
        stroke: hot ? "#b7791f" : "#9c4a1a",
        sw: hot ? 2.5 : 1.2,
      }),
    );
    out.push(text(sx - bw / 2 + 4, sy - 4, `${id} ${clip(shopName(ctx, id), 14)}`, { size: 9.5, bold: true }));
    // servants at this space
    let k = 0;
    for (let colour = 0; colour < boards.length; colour++) {
      const info = colourInfo(ctx, view, colour);
      if (info.kind !== "seat" || colour >= Math.max(seats, 1)) continue;
      if (num(obj(boards[colour]).fair, -1) !== i) continue;
      out.push(
        pawn(
          sx - bw / 2 + 10 + k * 15,
          sy + 9,
          colour,
          6,
          `${info.label}'s Servant`,
          touched(ctx, KEY.fairServant(colour)),
        ),
      );
      k++;
    }
    out.push(html`</g>`);
  }
  return html`${out}`;
}

function drawParlour(ctx, view, x, y, w, h) {
  const board = boardOf(view);
  const muses = arr(board.muses);
  const servants = obj(board.muse_servants);
  const bonusData = obj(comps(ctx).muse_bonus);
  const powers = obj(comps(ctx).assistant_powers);
  const cfg = obj(board.config);
  const out = [text(x, y + 11, "Muses on display", { size: 11, bold: true })];
  const cw = (w - 12) / 4;
  const ch = cfg.charm ? h - 62 : h - 40;
  for (let i = 0; i < Math.max(muses.length, 4); i++) {
    const id = muses[i];
    const mx = x + i * (cw + 4);
    const my = y + 16;
    if (!id) {
      out.push(rect(mx, my, cw, ch, "none", { stroke: "#aaa", dash: "4,3" }));
      out.push(text(mx + cw / 2, my + ch / 2, "empty", { size: 10, anchor: "middle", italic: true, fill: "#888" }));
      continue;
    }
    const power = str(powers[id]);
    out.push(
      html`<g>${tip(`Muse ${id} ${museName(ctx, id)}: bonus ${bonusWords(bonusData[id])}; Assistant Power: ${power}`)}`,
    );
    out.push(rect(mx, my, cw, ch, "#f3e8f6", { stroke: "#7d4f94", sw: 1.4, recent: touched(ctx, KEY.muse(id)) }));
    out.push(rect(mx, my, cw, 16, "#7d4f94", { r: 3 }));
    out.push(text(mx + 4, my + 12, id, { size: 10, bold: true, fill: "#ffffff" }));
    wrap(museName(ctx, id), Math.floor(cw / 6.2), 2).forEach((l, k) => {
      out.push(text(mx + 4, my + 29 + k * 12, l, { size: 10.5, bold: true }));
    });
    out.push(bonusRow(mx + 11, my + 60, bonusData[id], 7));
    wrap(power, Math.floor(cw / 5.1), Math.max(1, Math.floor((ch - 100) / 11))).forEach((l, k) => {
      out.push(text(mx + 3, my + 82 + k * 11, l, { size: 9, fill: "#4a3a55" }));
    });
    const placed = arr(servants[id]);
    placed.forEach((colour, k) => {
      const c = num(colour, -1);
      // the newest Servant of a colour is its last one on the Muse
      const newest = placed.lastIndexOf(colour) === k && touched(ctx, KEY.museServant(id, c));
      out.push(pawn(mx + 10 + k * 15, my + ch - 11, c, 6, colourInfo(ctx, view, c).label + "'s Servant", newest));
    });
    out.push(html`</g>`);
  }
  const by = y + h - 6;
  out.push(
    text(x, by - (cfg.charm ? 22 : 0), `Muse stack: ${num(board.muse_stack_count)}`, { size: 10.5, bold: true }),
  );
  if (cfg.charm) {
    const charm = board.charm;
    const charmText = charm ? str(obj(comps(ctx).charms)[charm]) : "";
    out.push(
      text(x, by, clip(charm ? `Charm ${charm}: ${charmText}` : "Charm: none in play", 64), {
        size: 10,
        italic: true,
        fill: "#7d4f94",
        recent: touched(ctx, KEY.charm()),
      }),
    );
  }
  return html`${out}`;
}

// Which of the placed Scholars (colours, in order) the latest moves put there: each colour's last.
function newestScholar(ctx, district, placed, i) {
  const colour = placed[i];
  return placed.lastIndexOf(colour) === i && touched(ctx, KEY.scholar(district, num(colour, 0)));
}

function drawScholarTrack(ctx, view, district, x, y, w) {
  const tracks = obj(boardOf(view).scholar_tracks);
  const placed = arr(tracks[district]);
  const spaces = 4;
  const out = [text(x, y + 13, "Scholars", { size: 10, fill: "#ffffffcc" })];
  for (let i = 0; i < Math.max(spaces, placed.length); i++) {
    // index 0 = the rightmost space (placed first)
    const sx = x + w - 16 - i * 24;
    out.push(html`<circle cx="${sx}" cy="${y + 9}" r="10" fill="#ffffff22" stroke="#ffffff88"/>`);
    if (i < placed.length)
      out.push(
        scholarPiece(
          sx,
          y + 9,
          num(placed[i], 0),
          colourInfo(ctx, view, num(placed[i], 0)).label + "'s Scholar",
          newestScholar(ctx, district, placed, i),
        ),
      );
  }
  return html`${out}`;
}

function drawDistrict(ctx, view, district, x, y, w, h) {
  const board = boardOf(view);
  const colour = DISTRICT_COLOURS[district] || "#555";
  const costs = { parlour: 1, tavern: 1 };
  const boardNo = Object.entries(obj(comps(ctx).boards)).find(([, ds]) => arr(ds).includes(district));
  const cfg = obj(board.config);
  const sideB =
    (district === "society" && cfg.exam) ||
    (district === "travel" && cfg.artisans) ||
    (district === "parlour" && cfg.charm);
  const out = [rect(x, y, w, h, "#fbf4e4", { stroke: colour, sw: 2, r: 6 })];
  out.push(rect(x, y, w, 30, colour, { r: 6 }));
  out.push(text(x + 8, y + 20, DISTRICT_NAMES[district] || cap(district), { size: 15, bold: true, fill: "#ffffff" }));
  const sub = [];
  if (boardNo) sub.push(`board ${boardNo[0]}${sideB ? "B" : "A"}`);
  if (costs[district]) sub.push(`cost ${costs[district]} Coin`);
  out.push(
    text(x + 8 + (DISTRICT_NAMES[district] || district).length * 9 + 6, y + 19, sub.join(" · "), {
      size: 10,
      fill: "#ffffffcc",
    }),
  );
  out.push(drawScholarTrack(ctx, view, district, x + w - 140, y + 6, 136));
  out.push(districtBody(ctx, view, district, x + 8, y + 36, w - 16, h - 42));
  return html`${out}`;
}

// ---------------------------------------------------------------------------------------------
// Header, upkeep board and player boards
// ---------------------------------------------------------------------------------------------

function orderChips(ctx, view, x, y, order, label) {
  const out = [text(x, y + 13, label, { size: 11.5, bold: true })];
  let cx = x + label.length * 6.6 + 6;
  arr(order).forEach((colour, i) => {
    const c = num(colour, 0);
    const info = colourInfo(ctx, view, c);
    out.push(
      html`<g>${tip(`${i + 1}. ${info.label}`)}${rect(cx, y, 34, 18, playerColour(c), { r: 9, stroke: "#1a1a1a" })}${text(
        cx + 17,
        y + 13,
        info.short,
        { size: 10.5, anchor: "middle", bold: true, fill: "#ffffff" },
      )}</g>`,
    );
    cx += 38;
  });
  if (!arr(order).length) out.push(text(cx, y + 13, "—", { size: 11 }));
  return html`${out}`;
}

function configSummary(board) {
  const cfg = obj(board.config);
  const bits = [];
  if (cfg.exam) bits.push("Imperial Exam");
  if (cfg.artisans) bits.push("Traveling Artisans");
  if (cfg.charm) bits.push("Charming Scholar");
  if (cfg.talents && cfg.talents !== "none") bits.push(`Talents: ${cfg.talents}`);
  if (cfg.advanced_tiles) bits.push("Advanced tiles");
  if (cfg.mixed_ages) bits.push("Mixed Ages");
  if (cfg.pointer) bits.push(`Pointer ${cfg.pointer}`);
  if (cfg.upkeep) bits.push(`Upkeep ${cfg.upkeep}`);
  if (cfg.overlay) bits.push(`Overlay ${cfg.overlay}`);
  if (cfg.vassals) bits.push(cfg.variant ? "Vassals (advanced variant)" : "Vassals");
  if (typeof board.bot === "number") bits.push(`Solo Bot: ${cap(cfg.difficulty || "easy")}`);
  return bits.join(" · ");
}

function drawHeader(ctx, view, W) {
  const board = boardOf(view);
  const doc = obj(ctx && ctx.doc);
  const round = num(view.round, 0);
  const phase = str(view.phase);
  const out = [rect(0, 0, W, 64, "#3b2a1e", { r: 0 })];
  out.push(text(14, 26, "Jiangnan: Life of Gentry", { size: 20, bold: true, fill: "#f5e6c8" }));
  out.push(
    text(270, 26, `Round ${round || "—"} of 6 · ${PHASES[phase] || cap(phase) || "—"}`, {
      size: 16,
      fill: "#f5e6c8",
      bold: true,
    }),
  );
  out.push(
    text(14, 50, clip(`${seatCount(view)} player${seatCount(view) === 1 ? "" : "s"} · ${configSummary(board)}`, 120), {
      size: 12,
      fill: "#e0cfae",
    }),
  );
  const status = str(doc.status);
  const step = view.step && typeof view.step === "object" ? view.step : null;
  let waiting = "";
  if (view.finished || status === "finished") waiting = "Game over";
  else if (step) {
    const info = colourInfo(ctx, view, num(step.seat, 0));
    const what = STEP_LABELS[str(step.kind)] || cap(step.kind);
    waiting = `${info.label} to ${what}`;
  } else if (arr(view.to_act).length) {
    waiting =
      "To act: " +
      arr(view.to_act)
        .map((s) => colourInfo(ctx, view, num(s, 0)).label)
        .join(", ");
  }
  if (waiting) {
    const you = step && ctx && ctx.seat !== null && ctx.seat !== undefined && num(step.seat, -1) === ctx.seat;
    out.push(rect(W - 430, 10, 418, 26, you ? "#ffd54a" : "#f5e6c8", { r: 13 }));
    out.push(text(W - 221, 28, clip(waiting, 62), { size: 12.5, anchor: "middle", bold: true, fill: "#2b2118" }));
  }
  if (doc.version !== undefined)
    out.push(text(W - 14, 54, `version ${str(doc.version)}`, { size: 10.5, anchor: "end", fill: "#bca883" }));
  return html`${out}`;
}

function drawUpkeep(ctx, view, x, y, W) {
  const board = boardOf(view);
  const cfg = obj(board.config);
  const out = [];
  const tiles = arr(board.upkeep_tiles);
  const perRow = 10;
  const tileRows = Math.max(1, Math.ceil(tiles.length / perRow));
  const h = Math.max(200, 56 + tileRows * 54 + 78);
  // Upkeep board
  const uw = 640;
  out.push(rect(x, y, uw, h, "#f1ead8", { stroke: "#6b4f2a", sw: 2, r: 6 }));
  out.push(rect(x, y, uw, 26, "#6b4f2a", { r: 6 }));
  out.push(
    text(x + 8, y + 18, `Upkeep board (side ${str(cfg.upkeep) || "A"})`, {
      size: 14,
      bold: true,
      fill: "#ffffff",
    }),
  );
  out.push(orderChips(ctx, view, x + 250, y + 4, arr(board.draft_queue), "Draft order:"));
  out.push(text(x + 8, y + 44, `Action Tiles to draft (${tiles.length})`, { size: 11, bold: true }));
  tiles.forEach((id, i) => {
    out.push(drawActionTile(ctx, x + 8 + (i % perRow) * 62, y + 50 + Math.floor(i / perRow) * 54, id));
  });
  if (!tiles.length) out.push(text(x + 8, y + 66, "(none)", { size: 11, italic: true }));
  out.push(
    drawBoat(ctx, view, x + 8, y + h - 72, 300, num(board.upkeep_boat, -1), "Boat at the Upkeep board (resolving)"),
  );
  // Rest area
  const rest = arr(obj(board.scholar_tracks).rest);
  out.push(rect(x + 316, y + h - 72, uw - 324, 66, "#e8e2d2", { stroke: "#888", r: 6 }));
  out.push(text(x + 322, y + h - 58, `Rest Area (${rest.length})`, { size: 11, bold: true }));
  rest.forEach((colour, i) => {
    out.push(
      scholarPiece(
        x + uw - 22 - (i % 13) * 23,
        y + h - 34 + Math.floor(i / 13) * 22,
        num(colour, 0),
        colourInfo(ctx, view, num(colour, 0)).label + "'s Scholar (resting)",
        newestScholar(ctx, "rest", rest, i),
      ),
    );
  });
  // Right column: trends, goals, supplies
  const rx = x + uw + 12;
  const rw = W - rx - 12;
  out.push(rect(rx, y, rw, h, "#f6f1e4", { stroke: "#8c7a5b", r: 6 }));
  let ly = y + 18;
  out.push(text(rx + 8, ly, "Scoring Trends chosen", { size: 11.5, bold: true }));
  const trends = arr(board.trend_track);
  trends.forEach((t, i) => {
    // the trend just chosen is the last of its kind on the track
    const recent = trends.lastIndexOf(t) === i && touched(ctx, KEY.trend(t));
    out.push(trendChip(rx + 8 + (i % 6) * 84, ly + 6 + Math.floor(i / 6) * 22, t, 80, recent));
  });
  if (!trends.length) out.push(text(rx + 160, ly, "none yet", { size: 11, italic: true }));
  ly += 30 + Math.max(0, Math.ceil(trends.length / 6) - 1) * 22;
  out.push(text(rx + 8, ly + 10, "Goal column", { size: 11.5, bold: true }));
  const goals = arr(board.goal_column);
  goals.forEach((g, i) => {
    const gx = rx + 92 + (i % 5) * 86;
    const gy = ly - 3 + Math.floor(i / 5) * 22;
    out.push(
      html`<g>${tip("Scoring Goal " + goalText(ctx, g))}${rect(gx, gy, 82, 18, "#f5e6b8", {
        r: 9,
        stroke: "#8a6a1f",
      })}${text(gx + 41, gy + 13, clip(`${g} ${GOAL_LABELS[goalKind(ctx, g)] || ""}`, 15), {
        size: 9.5,
        anchor: "middle",
        bold: true,
      })}</g>`,
    );
  });
  if (!goals.length) out.push(text(rx + 92, ly + 10, "empty", { size: 11, italic: true }));
  ly += 30 + Math.max(0, Math.ceil(goals.length / 5) - 1) * 22;
  out.push(text(rx + 8, ly + 6, `Spirits Tiles in supply: ${num(board.spirits_supply)}`, { size: 11.5 }));
  out.push(text(rx + 220, ly + 6, `Muse stack: ${num(board.muse_stack_count)}`, { size: 11.5 }));
  ly += 22;
  const shops = arr(board.pointed_shops);
  out.push(
    text(rx + 8, ly + 4, clip(`Pointed Shops: ${shops.map((s) => `${s} ${shopName(ctx, s)}`).join(", ") || "—"}`, 70), {
      size: 11.5,
      recent: touched(ctx, KEY.pointer()),
    }),
  );
  ly += 22;
  if (cfg.charm) {
    const col = arr(board.charm_column);
    out.push(
      text(
        rx + 8,
        ly + 4,
        clip(`Charm in play: ${board.charm || "—"} · next: ${col.slice().reverse().join(", ") || "none"}`, 70),
        { size: 11.5 },
      ),
    );
    ly += 22;
  }
  const final = arr(board.final);
  if (final.length && ly < y + h - 10) {
    out.push(text(rx + 8, ly + 4, "Final Scoring: see the player boards", { size: 11.5, bold: true, fill: "#8a1c1c" }));
  }
  return { svg: html`${out}`, h };
}

function drawTalentOffer(ctx, view, x, y, W) {
  const offer = arr(boardOf(view).talent_offer);
  const powers = obj(comps(ctx).talent_powers);
  if (!offer.length) return { svg: "", h: 0 };
  const out = [rect(x, y, W - 2 * x, 92, "#f3ecdf", { stroke: "#8c7a5b", r: 6 })];
  const drafting = str(obj(view.step).kind) === "pick_talent";
  const heading = drafting ? "Talents on offer (drafted in reverse turn order)" : "Talents not drafted";
  out.push(text(x + 8, y + 18, heading, { size: 12.5, bold: true }));
  const cw = Math.min(180, (W - 2 * x - 16) / Math.max(offer.length, 1) - 6);
  offer.forEach((id, i) => {
    const tx = x + 8 + i * (cw + 6);
    const power = str(powers[id]) || "No Talent Power";
    out.push(html`<g>${tip(`Talent ${id} ${talentName(ctx, id)}: ${power}`)}`);
    out.push(rect(tx, y + 26, cw, 60, "#fffaf0", { stroke: "#6b4f2a" }));
    out.push(
      text(tx + 4, y + 40, `${id} ${clip(talentName(ctx, id), Math.floor(cw / 6.5) - 4)}`, {
        size: 10.5,
        bold: true,
      }),
    );
    wrap(power, Math.floor(cw / 5), 3).forEach((l, k) => {
      out.push(text(tx + 4, y + 54 + k * 10.5, l, { size: 8.6, fill: "#4a3a2a" }));
    });
    out.push(html`</g>`);
  });
  return { svg: html`${out}`, h: 100 };
}

function spiritTrack(x, y, level, recent = false) {
  const out = [text(x, y + 11, "Spirit", { size: 10.5, bold: true })];
  for (let i = 0; i <= 6; i++) {
    const on = i === level;
    out.push(
      rect(x + 38 + i * 16, y, 14, 15, on ? BONUS_STYLE.spirit.fill : "#f4e3ec", {
        r: 3,
        stroke: "#b04b7a",
        recent: on && recent,
      }),
    );
    out.push(
      text(x + 45 + i * 16, y + 11.5, i, {
        size: 9.5,
        anchor: "middle",
        fill: on ? "#ffffff" : "#8a5a70",
        bold: on,
      }),
    );
  }
  return html`${out}`;
}

function drawPlayerBoard(ctx, view, colour, x, y, W) {
  const boards = arr(view.player_boards);
  const p = obj(boards[colour]);
  const info = colourInfo(ctx, view, colour);
  const board = boardOf(view);
  const order = arr(view.order);
  const toAct = arr(view.to_act).includes(colour);
  const w = W - 2 * x;
  if (info.kind === "vassal") {
    const h = 40;
    const out = [rect(x, y, w, h, playerLight(colour), { stroke: playerColour(colour), sw: 2, r: 6, dash: "6,3" })];
    out.push(rect(x, y, 10, h, playerColour(colour), { r: 3 }));
    out.push(text(x + 18, y + 25, info.label, { size: 13, bold: true }));
    out.push(
      text(
        x + 200,
        y + 25,
        `Scholars left ${num(p.scholars)} · Servants left ${num(p.servants)}${num(p.proxies) ? ` (+${num(p.proxies)} replacements in play)` : ""} · its pieces count for ${seatName(ctx, info.seat)}`,
        { size: 11.5 },
      ),
    );
    return { svg: html`${out}`, h };
  }
  const h = 132;
  const out = [
    rect(x, y, w, h, playerLight(colour), {
      stroke: toAct ? "#d4a20b" : playerColour(colour),
      sw: toAct ? 3.5 : 2,
      r: 6,
    }),
  ];
  out.push(rect(x, y, 10, h, playerColour(colour), { r: 3 }));
  // Identity and resources
  const pos = order.indexOf(colour);
  out.push(text(x + 18, y + 20, info.label, { size: 14, bold: true }));
  const tags = [];
  if (pos >= 0) tags.push(`turn ${pos + 1}`);
  if (toAct) tags.push("to act");
  if (p.talent) tags.push(`Talent ${p.talent} ${talentName(ctx, p.talent)}`);
  if (num(p.degree)) tags.push(num(p.degree) === 2 ? "Gongshi" : "Juren");
  out.push(
    text(x + 18, y + 35, clip(tags.join(" · "), 40), {
      size: 10.5,
      fill: "#4a3a2a",
      recent: touched(ctx, KEY.talentAndDegree(colour)),
    }),
  );
  out.push(bonusBadge(x + 26, y + 52, "coin", 8));
  out.push(text(x + 38, y + 57, `${num(p.coins)}`, { size: 14, bold: true, recent: touched(ctx, KEY.coins(colour)) }));
  out.push(bonusBadge(x + 84, y + 52, "vp", 8));
  out.push(text(x + 96, y + 57, `${num(p.vp)} VP`, { size: 14, bold: true, recent: touched(ctx, KEY.vp(colour)) }));
  out.push(spiritTrack(x + 18, y + 68, num(p.spirit), touched(ctx, KEY.spirit(colour))));
  const ideas = obj(p.ideas);
  IDEA_TYPES.forEach((t, i) => {
    out.push(ideaChip(x + 18 + i * 42, y + 90, t, num(ideas[t]), 38, touched(ctx, KEY.idea(colour, t))));
  });
  const extras = [`Scholars ${num(p.scholars)}`, `Servants ${num(p.servants)}`];
  if (num(p.spirits_tiles)) extras.push(`Spirits T. ${num(p.spirits_tiles)}`);
  out.push(text(x + 18, y + 124, extras.join(" · "), { size: 10.5, recent: touched(ctx, KEY.spiritsTiles(colour)) }));
  // Action track (index 0 = the rightmost space) and the tile piles
  const ax = x + 200;
  out.push(text(ax, y + 16, "Action Track (rightmost discards)", { size: 10.5, bold: true }));
  const track = arr(p.track);
  for (let i = 0; i < 4; i++) {
    const tx = ax + (3 - i) * 62;
    if (i < track.length)
      out.push(drawActionTile(ctx, tx, y + 22, track[i], { recent: touched(ctx, KEY.actionTrack(colour, track[i])) }));
    else out.push(rect(tx, y + 22, 58, 50, "none", { stroke: "#aaa", dash: "4,3" }));
  }
  const pile = (label, list) => `${label} ${arr(list).length}`;
  const bagCount = p.bag_count !== undefined ? num(p.bag_count) : arr(p.bag).length;
  out.push(
    text(
      ax,
      y + 88,
      `Bag ${bagCount} · ${pile("Used", p.used)} · ${pile("Drafted", p.drafted)} · ${pile("Discarded", p.discarded)}`,
      { size: 10.5, recent: touched(ctx, KEY.tilePiles(colour)) },
    ),
  );
  const used = arr(p.used);
  if (used.length)
    out.push(
      text(ax, y + 104, clip(`Used: ${used.join(", ")}`, 44), {
        size: 10,
        fill: "#4a3a2a",
        recent: touched(ctx, KEY.usedTiles(colour)),
      }),
    );
  const drafted = arr(p.drafted);
  if (drafted.length)
    out.push(
      text(ax, y + 118, clip(`Drafted: ${drafted.join(", ")}`, 44), {
        size: 10,
        fill: "#4a3a2a",
        recent: touched(ctx, KEY.draftedTiles(colour)),
      }),
    );
  // Portfolios
  const px = x + 470;
  const unpublished = arr(p.unpublished);
  const published = arr(p.published);
  out.push(
    text(px, y + 16, `Unpublished (${unpublished.length})`, {
      size: 10.5,
      bold: true,
      recent: touched(ctx, KEY.unpublished(colour)),
    }),
  );
  unpublished.slice(0, 14).forEach((id, i) => {
    out.push(drawPortfolioChip(ctx, px + (i % 7) * 44, y + 22 + Math.floor(i / 7) * 21, id));
  });
  out.push(text(px, y + 78, `Published (${published.length})`, { size: 10.5, bold: true }));
  published.slice(0, 14).forEach((id, i) => {
    out.push(drawPortfolioChip(ctx, px + (i % 7) * 44, y + 84 + Math.floor(i / 7) * 21, id, { published: true }));
  });
  // Assistants, cities, fair, final scoring
  const qx = x + 790;
  const assistants = arr(p.assistants);
  out.push(text(qx, y + 16, `Assistants (${assistants.length})`, { size: 10.5, bold: true }));
  assistants.slice(0, 6).forEach((id, i) => {
    const used2 = arr(p.income_used).includes(id);
    out.push(
      html`<g>${tip(`${id} ${museName(ctx, id)}: ${str(obj(comps(ctx).assistant_powers)[id])}${used2 ? " (used this round)" : ""}`)}${rect(
        qx + (i % 3) * 124,
        y + 22 + Math.floor(i / 3) * 21,
        120,
        18,
        used2 ? "#ddd1e3" : "#f3e8f6",
        { stroke: "#7d4f94", r: 3, recent: touched(ctx, KEY.assistant(colour, id)) },
      )}${text(qx + 4 + (i % 3) * 124, y + 35 + Math.floor(i / 3) * 21, clip(`${id} ${museName(ctx, id)}`, 19), {
        size: 10,
      })}</g>`,
    );
  });
  const cities = arr(p.cities);
  out.push(
    text(
      qx,
      y + 78,
      clip(`Cities (${cities.length}): ${cities.map((c) => str(cityInfo(ctx, c).name) || c).join(", ") || "—"}`, 62),
      { size: 10.5, recent: touched(ctx, KEY.cities(colour)) },
    ),
  );
  if (info.kind === "seat") {
    const space = num(p.fair, -1);
    const shop = arr(board.shops)[space];
    out.push(
      text(
        qx,
        y + 94,
        clip(`Temple Fair Servant: space ${space}${shop ? ` (${shop} ${shopName(ctx, shop)})` : ""}`, 62),
        {
          size: 10.5,
          recent: touched(ctx, KEY.fairServant(colour)),
        },
      ),
    );
  }
  const incomeUsed = arr(p.income_used);
  if (incomeUsed.length)
    out.push(
      text(qx, y + 110, clip(`Income taken: ${incomeUsed.join(", ")}`, 62), {
        size: 10,
        fill: "#4a3a2a",
        recent: touched(ctx, KEY.income(colour)),
      }),
    );
  const final = obj(arr(board.final)[colour]);
  if (Object.keys(final).length) {
    const total = Object.values(final).reduce((a, b) => a + num(b), 0);
    const parts = Object.entries(final)
      .filter(([k, v]) => k !== "before" && num(v))
      .map(([k, v]) => `${k} ${num(v)}`);
    const before = final.before !== undefined ? `${num(final.before)} + ` : "";
    out.push(
      html`<g>${tip(
        Object.entries(final)
          .map(([k, v]) => `${k} ${num(v)}`)
          .join(", "),
      )}${text(qx, y + 126, clip(`Final ${total} VP = ${before}${parts.join(", ") || "0"}`, 64), {
        size: 10.5,
        bold: true,
        fill: "#8a1c1c",
        recent: touched(ctx, KEY.finalScore(colour)),
      })}</g>`,
    );
  }
  return { svg: html`${out}`, h };
}

function drawOutcome(ctx, x, y, W) {
  const doc = obj(ctx && ctx.doc);
  const outcome = doc.outcome && typeof doc.outcome === "object" ? doc.outcome : null;
  if (!outcome) return { svg: "", h: 0 };
  const winners = arr(outcome.winners).map((s) => seatName(ctx, num(s, 0)));
  const summary = str(outcome.summary) || (winners.length ? `Winner: ${winners.join(", ")}` : "Game over");
  return {
    svg: html`${rect(x, y, W - 2 * x, 34, "#3b2a1e", { r: 6 })}${text(x + 12, y + 22, clip(summary, 150), {
      size: 14,
      bold: true,
      fill: "#ffd54a",
    })}`,
    h: 42,
  };
}

// ---------------------------------------------------------------------------------------------
// Public entry points
// ---------------------------------------------------------------------------------------------

export function renderBoard(ctx) {
  try {
    return String(renderBoardInner(withTouched(ctx)));
  } catch (err) {
    return String(
      html`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 800 60" width="100%"><text x="10" y="35" font-size="14">Jiangnan board could not be drawn: ${err && err.message}</text></svg>`,
    );
  }
}

function renderBoardInner(ctx) {
  const view = viewOf(ctx);
  const board = boardOf(view);
  const W = 1200;
  let y = 0;
  const body = [drawHeader(ctx, view, W)];
  y = 72;
  const outcome = drawOutcome(ctx, 12, y, W);
  body.push(outcome.svg);
  y += outcome.h;
  const talents = drawTalentOffer(ctx, view, 12, y, W);
  body.push(talents.svg);
  y += talents.h;
  // Districts: the Long River in two rows of three; the boat below each district
  let districts = arr(board.districts).map(str);
  if (!districts.length) districts = arr(comps(ctx).districts).map(str);
  const river = arr(board.river);
  const dw = (W - 24 - 2 * 12) / 3;
  const dh = 272;
  const rowH = dh + 80;
  body.push(
    text(
      12,
      y + 12,
      "The districts (left to right, top row first) and the Long River: boats slide right, then onto the Upkeep board",
      { size: 11.5, italic: true, fill: "#6b5a44" },
    ),
  );
  y += 18;
  districts.forEach((d, i) => {
    const r = Math.floor(i / 3);
    const c = i % 3;
    const dx = 12 + c * (dw + 12);
    const dy = y + r * rowH;
    body.push(drawDistrict(ctx, view, d, dx, dy, dw, dh));
    const boatIdx = river.length > i ? num(river[i], -1) : -1;
    body.push(drawBoat(ctx, view, dx, dy + dh + 6, dw, boatIdx, `River ${i + 1} · below ${DISTRICT_NAMES[d] || d}`));
  });
  y += Math.ceil(Math.max(districts.length, 1) / 3) * rowH + 4;
  const upkeep = drawUpkeep(ctx, view, 12, y, W);
  body.push(upkeep.svg);
  y += upkeep.h + 12;
  body.push(text(12, y + 12, "Player boards", { size: 13, bold: true }));
  y += 20;
  arr(view.player_boards).forEach((_, colour) => {
    const pb = drawPlayerBoard(ctx, view, colour, 12, y, W);
    body.push(pb.svg);
    y += pb.h + 8;
  });
  const H = Math.ceil(y + 8);
  const defs = html`<defs><marker id="jn-arrow" viewBox="0 0 10 10" refX="6" refY="5" markerWidth="4" markerHeight="4" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#333"/></marker></defs>`;
  return html`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="100%" font-family="'Noto Serif', Georgia, serif" role="img" aria-label="Jiangnan board">${defs}${rect(
    0,
    0,
    W,
    H,
    "#efe5cf",
    { r: 0 },
  )}${body}</svg>`;
}

/** <span class="recent"> around what the latest moves touched, the content alone otherwise. */
function mark(on, content) {
  return on ? html`<span class="recent">${content}</span>` : content;
}

function htmlTile(ctx, id, recent = false) {
  const t = actionTile(ctx, id);
  const ds = arr(t.districts)
    .map((d) => DISTRICT_NAMES[d] || d)
    .join(" / ");
  return html`<span class="jn-tile${recent ? " recent" : ""}" title="${`discard bonus: ${bonusWords(t.bonus)}`}"><b>${id}</b> ${ds} <small>(${bonusWords(t.bonus) || "no bonus"})</small></span>`;
}

function htmlPortfolio(ctx, id, published) {
  const p = portfolio(ctx, id);
  const colour = IDEA_COLOURS[p.type] || "#777";
  const income = incomeWords(ctx, id);
  return html`<li${recentClass(touched(ctx, KEY.portfolio(id)))}><span class="swatch square" data-bg="${colour}"></span> <b>${id}</b> <i>${portfolioTitle(ctx, id)}</i> — ${cap(p.type)}, Age ${num(p.age, 1)}${published ? "" : html`, cost ${num(p.cost)} ${cap(p.type)} Ideas`}; payout ${amountWords(p.payout) || "none"}${income ? html`; income ${income}` : ""}</li>`;
}

export function renderHoldings(ctx) {
  try {
    return String(renderHoldingsInner(withTouched(ctx)));
  } catch (err) {
    return String(html`<p>Jiangnan holdings could not be drawn: ${err && err.message}</p>`);
  }
}

// The seat's own holdings: resources, Talent, Action Tiles, Portfolios, Assistants.
function ownHoldings(ctx, seat, p) {
  const ideas = obj(p.ideas);
  const hot = (key) => touched(ctx, key);
  const out = [html`<section><h3>Your holdings — ${seatName(ctx, seat)}</h3>`];
  const idea = (type, word) => mark(hot(KEY.idea(seat, type)), html`${num(ideas[type])} ${word}`);
  out.push(
    html`<p>${mark(hot(KEY.coins(seat)), html`${num(p.coins)} Coins`)} · ${mark(hot(KEY.vp(seat)), html`${num(p.vp)} VP`)} · ${mark(
      hot(KEY.spirit(seat)),
      html`Spirit ${num(p.spirit)}/6`,
    )} · Ideas: ${idea("drama", "Drama")}, ${idea("novel", "Novel")}, ${idea("painting", "Painting")}`,
  );
  if (num(p.spirits_tiles))
    out.push(
      html` · ${mark(
        hot(KEY.spiritsTiles(seat)),
        html`${num(p.spirits_tiles)} Spirits Tile${num(p.spirits_tiles) === 1 ? "" : "s"} (+3 Spirit each)`,
      )}`,
    );
  out.push(html`</p>`);
  if (p.talent) {
    const power = str(obj(comps(ctx).talent_powers)[p.talent]) || "no Talent Power";
    out.push(
      html`<p${recentClass(hot(KEY.talentAndDegree(seat)))}>Talent <b>${p.talent} ${talentName(ctx, p.talent)}</b>: ${power}</p>`,
    );
  }
  if (num(p.degree))
    out.push(
      html`<p${recentClass(hot(KEY.talentAndDegree(seat)))}>Imperial Degree: <b>${num(p.degree) === 2 ? "Gongshi" : "Juren"}</b></p>`,
    );
  const track = arr(p.track);
  const tiles = track.map((t, i) => html`${i ? " · " : ""}${htmlTile(ctx, t, hot(KEY.actionTrack(seat, t)))}`);
  out.push(html`<p>Action Track (rightmost first): ${track.length ? tiles : "empty"}</p>`);
  if (Array.isArray(p.bag)) {
    const bag = p.bag.map((t, i) => html`${i ? " · " : ""}${htmlTile(ctx, t)}`);
    out.push(html`<p>Draw bag (hidden from the others, ${p.bag.length}): ${p.bag.length ? bag : "empty"}</p>`);
  }
  const unpublished = arr(p.unpublished);
  out.push(
    html`<p${recentClass(hot(KEY.unpublished(seat)))}>Unpublished Portfolios (${unpublished.length}):</p><ul>${
      unpublished.length ? unpublished.map((id) => htmlPortfolio(ctx, id, false)) : html`<li>none</li>`
    }</ul>`,
  );
  const published = arr(p.published);
  if (published.length)
    out.push(
      html`<p>Published (${published.length}):</p><ul>${published.map((id) => htmlPortfolio(ctx, id, true))}</ul>`,
    );
  const assistants = arr(p.assistants);
  if (assistants.length) {
    const powers = obj(comps(ctx).assistant_powers);
    out.push(
      html`<p>Assistants:</p><ul>${assistants.map(
        (id) =>
          html`<li${recentClass(hot(KEY.assistant(seat, id)))}><b>${id} ${museName(ctx, id)}</b>: ${str(powers[id])}${
            arr(p.income_used).includes(id) ? html` <i>(used this round)</i>` : ""
          }</li>`,
      )}</ul>`,
    );
  }
  out.push(html`</section>`);
  return html`${out}`;
}

// One row of the public summary: every colour's Coins, VP, Spirit, Ideas, pieces and cards.
function summaryRow(ctx, view, order, b, colour) {
  const p = obj(b);
  const info = colourInfo(ctx, view, colour);
  const ideas = obj(p.ideas);
  const cell = (on, content) => html`<td${recentClass(on)}>${content}</td>`;
  const hot = (key) => touched(ctx, key);
  const swatch = html`<span class="swatch ringed" data-bg="${playerColour(colour)}"></span>`;
  const pos = order.indexOf(colour);
  if (info.kind === "vassal") {
    return html`<tr><td>${swatch} ${info.label}</td><td></td><td colspan="4"></td><td>${num(p.scholars)}</td><td>${num(p.servants)}</td><td colspan="5"></td></tr>`;
  }
  const bagCount = p.bag_count !== undefined ? num(p.bag_count) : arr(p.bag).length;
  const ideasHot = IDEA_TYPES.some((t) => hot(KEY.idea(colour, t)));
  const trackHot = hot(KEY.tilePiles(colour)) || arr(p.track).some((t) => hot(KEY.actionTrack(colour, t)));
  const portfoliosHot =
    hot(KEY.unpublished(colour)) || [...arr(p.unpublished), ...arr(p.published)].some((id) => hot(KEY.portfolio(id)));
  const assistantsHot = arr(p.assistants).some((id) => hot(KEY.assistant(colour, id)));
  return html`<tr><td>${swatch} ${info.label}</td><td>${pos >= 0 ? pos + 1 : ""}</td>${cell(
    hot(KEY.coins(colour)),
    num(p.coins),
  )}${cell(hot(KEY.vp(colour)), num(p.vp))}${cell(hot(KEY.spirit(colour)), num(p.spirit))}${cell(
    ideasHot,
    html`${num(ideas.drama)}/${num(ideas.novel)}/${num(ideas.painting)}`,
  )}<td>${num(p.scholars)}</td><td>${num(p.servants)}</td>${cell(
    trackHot,
    html`${arr(p.track).length} / ${bagCount}`,
  )}${cell(
    portfoliosHot,
    html`${arr(p.unpublished).length} unpublished · published: ${arr(p.published).join(", ") || "none"}`,
  )}${cell(
    assistantsHot,
    arr(p.assistants)
      .map((a) => museName(ctx, a))
      .join(", "),
  )}${cell(hot(KEY.cities(colour)), arr(p.cities).length)}${cell(
    hot(KEY.talentAndDegree(colour)),
    html`${p.talent ? `${p.talent} ${talentName(ctx, p.talent)}` : ""}${num(p.degree) ? (num(p.degree) === 2 ? " · Gongshi" : " · Juren") : ""}`,
  )}</tr>`;
}

function outcomeHoldings(ctx, outcome) {
  const out = [html`<section><h3>Result</h3><p>${str(outcome.summary)}</p><ul>`];
  arr(outcome.scores).forEach((s) => {
    const sc = obj(s);
    const parts = Object.entries(obj(sc.breakdown)).map(([k, v]) => `${k} ${num(v)}`);
    out.push(
      html`<li>${seatName(ctx, num(sc.seat, 0))}: <b>${num(sc.score)} VP</b> (rank ${num(sc.rank)}) — ${parts.join(", ")}</li>`,
    );
  });
  const bot = obj(obj(outcome.details).bot);
  if (Object.keys(bot).length) {
    const parts = Object.entries(obj(bot.breakdown)).map(([k, v]) => `${k} ${num(v)}`);
    out.push(html`<li>Solo Bot (${cap(bot.difficulty)}): <b>${num(bot.score)} VP</b> — ${parts.join(", ")}</li>`);
  }
  out.push(html`</ul></section>`);
  return html`${out}`;
}

function renderHoldingsInner(ctx) {
  const view = viewOf(ctx);
  const boards = arr(view.player_boards);
  const seat = typeof ctx.seat === "number" ? ctx.seat : null;
  const out = [html`<div class="jn-holdings">`];
  if (seat !== null && boards[seat]) out.push(ownHoldings(ctx, seat, obj(boards[seat])));
  else out.push(html`<p><i>Spectating: no private holdings.</i></p>`);
  // Every colour's public summary
  out.push(
    html`<section><h3>Players</h3><table class="jn-summary"><thead><tr><th>Player</th><th>Turn</th><th>Coins</th><th>VP</th><th>Spirit</th><th>Ideas D/N/P</th><th>Scholars</th><th>Servants</th><th>Track / bag</th><th>Portfolios (unpub./pub.)</th><th>Assistants</th><th>Cities</th><th>Talent</th></tr></thead><tbody>`,
  );
  const order = arr(view.order);
  boards.forEach((b, colour) => {
    out.push(summaryRow(ctx, view, order, b, colour));
  });
  out.push(html`</tbody></table></section>`);
  const doc = obj(ctx.doc);
  const outcome = doc.outcome && typeof doc.outcome === "object" ? doc.outcome : null;
  if (outcome) out.push(outcomeHoldings(ctx, outcome));
  out.push(html`</div>`);
  return html`${out}`;
}

// ---------------------------------------------------------------------------------------------
// Move labels
// ---------------------------------------------------------------------------------------------

function myBoard(ctx, view) {
  const step = obj(view.step);
  const seat = typeof ctx.seat === "number" ? ctx.seat : num(step.seat, 0);
  return { seat, p: obj(arr(view.player_boards)[seat]) };
}

function boatWords(ctx, view, index) {
  const board = boardOf(view);
  const boat = obj(arr(board.boats)[index]);
  const river = arr(board.river);
  const at = river.indexOf(index);
  const where = at >= 0 ? ` below ${DISTRICT_NAMES[arr(board.districts)[at]] || "river " + (at + 1)}` : "";
  const what = arr(boat.trends).length
    ? arr(boat.trends).map(cap).join("/")
    : boat.goal
      ? `Goal ${goalText(ctx, boat.goal)}`
      : "";
  return `boat ${index}${where}${what ? ` (${what})` : ""}`;
}

function ideaList(list) {
  return arr(list)
    .map((i) => cap(i))
    .join(" + ");
}

export function describeMove(command, ctx) {
  try {
    return describeMoveInner(obj(command), ctx || {});
  } catch {
    return fallbackLabel(obj(command));
  }
}

function fallbackLabel(c) {
  const type = str(c.type).replace(/^jiangnan\./, "");
  const fields = Object.entries(c)
    .filter(([k]) => k !== "type")
    .map(([k, v]) => `${k}=${typeof v === "object" ? JSON.stringify(v) : v}`);
  return fields.length ? `${type} (${fields.join(", ")})` : type || "move";
}

// "A6 “Spring in Jiangnan” (Painting 4)": id, title, type and cost in Ideas.
function pfShort(ctx, id) {
  const p = portfolio(ctx, id);
  const title = portfolioTitle(ctx, id);
  return `${id}${title ? ` “${clip(title, 32)}”` : ""}${p.type ? ` (${cap(p.type)} ${num(p.cost)})` : ""}`;
}

function describeMoveInner(c, ctx) {
  const view = viewOf(ctx);
  const board = boardOf(view);
  const type = str(c.type).replace(/^jiangnan\./, "");
  const { p } = myBoard(ctx, view);
  const track = arr(p.track);
  switch (type) {
    case "ChooseStartingPortfolio":
      return `Keep starting Portfolio ${pfShort(ctx, c.portfolio)}`;
    case "VisitDistrict": {
      const tile = track[num(c.slot, -1)];
      return `Visit ${DISTRICT_NAMES[c.district] || cap(c.district)} with Action Tile ${tile || "slot " + num(c.slot)}`;
    }
    case "Rest": {
      const tile = track[num(c.slot, -1)];
      return `Rest, using Action Tile ${tile || "slot " + num(c.slot)}`;
    }
    case "UseSpiritsTile":
      return "Use a Spirits Tile (+3 Spirit)";
    case "RefreshPortfolios":
      return "Refresh the Society Portfolios";
    case "TakePortfolios":
      return `Take Portfolios ${arr(c.portfolios)
        .map((id) => pfShort(ctx, id))
        .join(" and ")}`;
    case "TakePortfolioAndIdea":
      return `Take Portfolio ${pfShort(ctx, c.portfolio)} and a ${cap(c.idea)} Idea`;
    case "TakeIdeas":
      return `Take Ideas: ${ideaList(c.ideas)}`;
    case "TakePortfolio":
      return `Take Portfolio ${pfShort(ctx, c.portfolio)}`;
    case "TakeIdea":
      return `Take a ${cap(c.idea)} Idea`;
    case "Publish": {
      const pf = portfolio(ctx, c.portfolio);
      return `Publish ${pfShort(ctx, c.portfolio)}: pay ${num(pf.cost)} ${cap(pf.type)} Ideas, gain ${amountWords(pf.payout) || "nothing"}`;
    }
    case "DrawInspiration":
      return "Draw inspiration: 1 Idea per Display Tile";
    case "PlaceServant": {
      const bonus = obj(comps(ctx).muse_bonus)[c.muse];
      return `Place a Servant on Muse ${c.muse} ${museName(ctx, c.muse)} (bonus ${bonusWords(bonus)})`;
    }
    case "TravelTo": {
      const city = cityInfo(ctx, c.city);
      const tile = str(obj(board.travel_tiles)[c.city]);
      const bonus = arr(obj(comps(ctx).travel_tiles)[tile]);
      return `Travel to ${city.name || c.city} (${c.city}) for ${num(city.cost)} Coin${num(city.cost) === 1 ? "" : "s"}${bonus.length ? `, City Bonus ${bonusWords(bonus)}` : ""}`;
    }
    case "MoveServant": {
      const shops = arr(board.shops);
      const n = shops.length || 6;
      const from = num(p.fair, 0);
      const to = (((from + (c.clockwise ? 1 : -1) * num(c.distance)) % n) + n) % n;
      const shop = shops[to];
      return `Temple Fair: move ${num(c.distance)} space${num(c.distance) === 1 ? "" : "s"} ${c.clockwise ? "clockwise" : "anticlockwise"}${shop ? ` to ${shop} ${shopName(ctx, shop)}` : ""}`;
    }
    case "PlaceOnBoat":
      return `Place a Servant on ${boatWords(ctx, view, num(c.boat))}`;
    case "MoveBoatServant":
      return `Move a Servant from ${boatWords(ctx, view, num(c.from_boat))} to ${boatWords(ctx, view, num(c.to_boat))}`;
    case "ExchangeIdeas":
      return `Exchange ${ideaList(c.give)} for ${ideaList(c.take)}`;
    case "SwapActionTile":
      return num(c.slot) < 0
        ? `Move Action Tile ${c.tile} onto the Action Track`
        : `Swap Action Tile ${c.tile} with ${track[num(c.slot)] || "slot " + num(c.slot)} on the Action Track`;
    case "ActivateNovel":
      return `Activate Novel ${pfShort(ctx, c.portfolio)}: ${incomeWords(ctx, c.portfolio) || "income"}`;
    case "ActivateAssistant":
      return `Activate Assistant ${c.assistant} ${museName(ctx, c.assistant)}: ${clip(str(obj(comps(ctx).assistant_powers)[c.assistant]), 70)}`;
    case "TakeServantIncome":
      return `Take the ${c.district === "teahouse" ? "Coins" : "VP"} for your Servants in the ${DISTRICT_NAMES[c.district] || cap(c.district)}`;
    case "EndIncome":
      return "End Personal Income";
    case "ChooseTrend":
      return `Choose the ${cap(c.trend)} Scoring Trend`;
    case "DraftTile": {
      const t = actionTile(ctx, c.tile);
      return `Draft Action Tile ${c.tile} (${arr(t.districts)
        .map((d) => DISTRICT_NAMES[d] || d)
        .join(" / ")}; bonus ${bonusWords(t.bonus)})`;
    }
    case "Pass": {
      const step = obj(view.step);
      const what = STEP_LABELS[str(step.kind)];
      return what ? `Pass (decline: ${what})` : "Pass";
    }
    case "ChooseTalent": {
      const power = str(obj(comps(ctx).talent_powers)[c.talent]);
      return `Take Talent ${c.talent} ${talentName(ctx, c.talent)}${power ? `: ${clip(power, 70)}` : ""}`;
    }
    case "TakeExam": {
      const exam = obj(obj(comps(ctx).exams)[String(num(p.degree) + 1)]);
      return exam.name
        ? `Take the Imperial Exam for ${exam.name} (${num(exam.portfolios)} Portfolios + ${num(exam.ideas)} Ideas)`
        : "Take the Imperial Exam";
    }
    case "DiscardPortfolio":
      return `Discard Portfolio ${pfShort(ctx, c.portfolio)} for the exam`;
    case "PayIdea":
      return `Pay a ${cap(c.idea)} Idea for the exam`;
    case "PublishToTravel":
      return `Publish ${pfShort(ctx, c.portfolio)} to pay for the travel`;
    case "PublishIn":
      return `Publish ${pfShort(ctx, c.portfolio)} in the ${DISTRICT_NAMES[c.district] || cap(c.district)}`;
    case "DrawPortfolio":
      return "Draw the top Portfolio of the Society stack";
    case "ChooseShop":
      return `Activate Shop ${c.shop} ${shopName(ctx, c.shop)}`;
    case "SendVassal":
      return `Send the vassal's Scholar to ${DISTRICT_NAMES[c.district] || cap(c.district)}`;
    case "DiscardTile": {
      const tile = track[num(c.slot, -1)];
      return `Discard Action Tile ${tile || "slot " + num(c.slot)}`;
    }
    default:
      return fallbackLabel(c);
  }
}
