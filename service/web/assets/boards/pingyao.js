// Pingyao: First Chinese Banks - the board of the reference web client.
// Plain ES module. renderBoard(ctx) -> SVG markup, renderHoldings(ctx) -> HTML,
// describeMove(command, ctx) -> a short label. ctx = {kind, doc, view, components, seat, players, recent}.
// Every value is read defensively: a view of any player count, mode or rules version draws.
// All markup is built with html`` (../html.js): every interpolated value is escaped unless it is
// itself an html`` fragment. What the latest moves (ctx.recent) touched carries the class `recent`.

import { html } from "../html.js";

const SEAT_COLORS = ["#1d4ed8", "#be185d", "#0f766e", "#b45309"];
const PUBLIC_DIE = "#f8fafc";
const REGION_FILL = { red: "#fde2e0", yellow: "#fdf3c4", green: "#dcf2dc" };
const REGION_INK = { red: "#b42318", yellow: "#a16207", green: "#15803d" };
const COLORS = ["red", "yellow", "green"];
const TIERS = [1, 2, 3];
const ACTIONS = ["bank_escort", "confucius_temple", "west_street", "money_house", "city_god_temple", "yamen"];
const ACTION_NAMES = {
  bank_escort: "Bank Escort",
  confucius_temple: "Confucius Temple",
  west_street: "West Street",
  money_house: "Money House",
  city_god_temple: "City God Temple",
  yamen: "Yamen",
};
// What each action space does, by die value 1-2 / 3-4 / 5-6 (the rulebook's Actions section).
const ACTION_HELP = {
  bank_escort: ["Open a branch (draw 4 tiles)", "tier ≤3 / ≤2 / 1 · 6/12/24 copper"],
  confucius_temple: ["Place a branch teller", "1-2 also move a silver · 5-6 pays 2"],
  west_street: ["Take an exchange card", "up to 3 / 2 / 1 months"],
  money_house: ["Lend 2 silver or take a deposit", "up to 3 / 2 / 1 months"],
  city_god_temple: ["Reputation", "1-2 pay 2: +2 · 3-4 +1 · 5-6 pay 1: +1"],
  yamen: ["Take a Yamen support tile", "pay 0 / 2 / 4 copper + its silver"],
};
const SKILL_TEXT = {
  starting: "starting branch",
  die_minus: "a die −1",
  die_plus: "a die +1",
  die_swap: "one die +1, one −1",
  recall_silver: "2 copper: silver to head office",
  reroll_discount: "rerolls cost 1 less",
  extra_card: "draw 1 more exchange card",
  entry_exchange: "on entry: an exchange, no fee",
  entry_rep1: "on entry: +1 reputation",
  entry_teller: "on entry: a free teller",
  income_green: "income per green branch",
  income_red: "income per red branch",
  income_yellow: "income per yellow branch",
  tricolor: "counts as every colour",
  income_rep: "income by reputation",
  income_exchange: "income by exchange track",
  entry_copper_exchange: "on entry: 2 copper + exchange",
  end_green: "end: points per green branch",
  end_red: "end: points per red branch",
  end_yellow: "end: points per yellow branch",
  end_rep: "end: points by reputation",
  end_tellers: "end: points per teller",
  end_exchange: "end: points by exchange track",
  end_macau: "end: points for 4 silver here",
  entry_rep2: "on entry: 2 copper for +2 reputation",
  entry_reset: "on entry: reassign all tellers",
  end_flat: "end: 3 points",
};
const PHASES = [
  ["setup", "Set-up"],
  ["draft", "Draft"],
  ["prep", "Preparation"],
  ["action", "Actions"],
  ["resolution", "Resolution"],
  ["end", "Game end"],
];
const PENDING_TEXT = {
  prep: "preparation (skills, copper → silver)",
  public_die: "place a public die",
  starting_region: "choose Taiyuan's region",
  round_reward: "take the round goal's reward?",
  reward_yamen: "choose the reward's Yamen tile",
  extra_action: "take back a die for an extra action",
  choose_branch: "choose a branch tile",
  entry_skill: "use the entry skill?",
  place_teller: "place a branch teller",
  move_silver: "move a silver to a branch?",
  choose_card: "keep one exchange card",
  place_exchange: "place the exchange",
  resolve_order: "choose which exchange resolves next",
  transfer: "emergency fund transfer",
};
const BONUS_TEXT = {
  rep2: "free teller (rep. 2)",
  rep8: "free teller (rep. 8)",
  rep13: "free teller (rep. 13)",
  tier3_teller: "free teller (Tier-3 Yamen tile)",
};

// --- small guards --------------------------------------------------------------------------------
function arr(x) {
  return Array.isArray(x) ? x : [];
}
function obj(x) {
  return x && typeof x === "object" && !Array.isArray(x) ? x : {};
}
function int(x, fallback = 0) {
  const n = Number(x);
  return Number.isFinite(n) ? Math.trunc(n) : fallback;
}
function str(x) {
  return typeof x === "string" ? x : x == null ? "" : String(x);
}
function seatColor(seat) {
  const s = int(seat, -1);
  return s >= 0 ? SEAT_COLORS[s % SEAT_COLORS.length] : "#64748b";
}
function viewOf(ctx) {
  const c = obj(ctx);
  return obj(c.view ?? obj(c.doc).view);
}
function compsOf(ctx) {
  return obj(obj(ctx).components);
}
function viewerSeat(ctx) {
  const s = obj(ctx).seat;
  return s === null || s === undefined || s === "" ? null : int(s, -1) >= 0 ? int(s) : null;
}
function playerCount(v, ctx) {
  const n = int(v.players, 0) || int(obj(obj(ctx).doc).players, 0) || arr(v.boards).length;
  return Math.max(0, Math.min(4, n || arr(v.boards).length));
}
function seatLabel(seat, ctx) {
  const s = int(seat, -1);
  if (s < 0) return "public";
  return s === viewerSeat(ctx) ? `Seat ${s} (you)` : `Seat ${s}`;
}

// --- decoding ids --------------------------------------------------------------------------------
function tileOf(comps, id) {
  const t = obj(obj(comps.tiles)[str(id)]);
  const name = str(t.name) || str(id).split("#")[0];
  return {
    name,
    tier: int(t.tier, 0),
    skill: str(t.skill),
    effective: int(t.effective, 0),
    positions: int(t.positions, 0),
    promo: !!t.promo,
  };
}
function tileLabel(comps, id) {
  const t = tileOf(comps, id);
  const skill = SKILL_TEXT[t.skill] || t.skill.replace(/_/g, " ");
  const tier = t.tier ? `Tier ${t.tier} ` : "";
  return `${t.name} (${tier ? `${tier.trim()}: ` : ""}${skill || "branch"})`;
}
function regionLabel(region) {
  const r = str(region);
  if (r === "HO") return "head office";
  const m = /^(\d)(red|yellow|green)$/.exec(r);
  return m ? `Tier-${m[1]} ${m[2]}` : r || "—";
}
function actionLabel(action) {
  const a = str(action);
  return ACTION_NAMES[a] || a.replace(/_/g, " ") || "—";
}
function cardOf(comps, id) {
  const c = obj(obj(comps.exchange_cards)[str(id)]);
  return { deposit: str(c.deposit), withdraw: str(c.withdraw), fee: int(c.fee, 0), silver: int(c.silver, 1) };
}
function cardLabel(comps, id) {
  const c = cardOf(comps, id);
  if (!c.deposit) return str(id);
  return `${str(id)} ${c.deposit}→${c.withdraw}, fee ${c.fee}`;
}
function yamenText(comps, id) {
  const y = obj(obj(comps.yamen_tiles)[str(id)]);
  return str(y.text) || str(id).replace(/_/g, " ");
}
function yamenCost(comps, id) {
  return int(obj(obj(comps.yamen_tiles)[str(id)]).silver, 0);
}
function eventCard(comps, id) {
  return obj(obj(comps.event_cards)[str(id)]);
}
function dieText(v, id, ctx) {
  const d = obj(arr(v.dice)[int(id, -1)]);
  if (!("value" in d)) return `die ${int(id)}`;
  const kind = d.large ? "large die" : "die";
  const owner = int(d.owner, -1) < 0 ? "public " : int(d.owner) === viewerSeat(ctx) ? "your " : "";
  // Two alike dice (same owner, size and value) are told apart by their id.
  const live = (o) => !["storage", "pool", "done", "out"].includes(obj(o).where);
  const twin = arr(v.dice).some(
    (o, k) =>
      k !== int(id) && live(o) && obj(o).owner === d.owner && !!obj(o).large === !!d.large && obj(o).value === d.value,
  );
  return `${owner}${kind} ${int(d.value)}${twin ? ` (#${int(id)})` : ""}`;
}
function bandOf(value) {
  return Math.max(0, Math.min(2, Math.floor((int(value, 1) - 1) / 2)));
}

// --- what the latest moves touched -----------------------------------------------------------------
// ctx.recent: the events since this seat's last move, oldest first, as {seq, seat, event}. Each
// concern below names, for one event, the keys of what it changed on the board:
//   die:<id>, space:<action>, stack:<tier>, deck, discards, yamen:<tile>, goal,
//   copper:<seat>, head-office:<seat>, region:<seat>:<region>, reputation:<seat>, exchange:<seat>,
//   card:<seat>:<card>, cards:<seat> (every exchange card of the seat), lending:<seat>:<0-2>,
//   deposit:<seat>, notes:<seat> (Yamen tiles, ongoing rewards), held:<seat>:<tile>,
//   drawn-tiles:<seat>, drawn-cards:<seat>.
// Unknown event types touch nothing; the round's set-up (dice rolls, phases) is not a move.

function eventType(event) {
  return str(obj(event).type).replace(/^pingyao\./, "");
}

/** A piaohao (a place holding silver): the head office or a region of the player board. */
function piaohao(seat, where) {
  const w = str(where);
  if (!w) return [];
  return w === "HO" ? [`head-office:${seat}`] : [`region:${seat}:${w}`];
}

/** The teller dice: dispatched to an action space (bumping the die there), adjusted, rerolled,
 * discarded, returned without acting, taken back; the public dice placed in resting areas. */
function tellerDiceTouched(e, type) {
  switch (type) {
    case "DieDispatched":
      return [
        `die:${int(e.die)}`,
        `space:${str(e.action)}`,
        ...(int(e.bumped, -1) >= 0 ? [`die:${int(e.bumped)}`] : []),
      ];
    case "PublicDiePlaced":
    case "DieAdjusted":
    case "DieRerolled":
    case "DieDiscarded":
    case "DieDeclined":
    case "DieTakenBack":
      return [`die:${int(e.die)}`];
    default:
      return [];
  }
}

/** Copper coins: gained or paid by a move or a phase (only when the amount is not 0). */
function copperTouched(e, type) {
  const paid = {
    DieDispatched: e.copper,
    DieRerolled: e.cost,
    DieDiscarded: e.copper ?? 3,
    BranchTilesDrawn: e.cost,
    ReputationGained: e.cost,
    CopperGained: e.amount,
    TellerPlaced: e.cost,
    SilverRecalled: e.cost,
    CopperConverted: e.silver,
    ExchangePlaced: e.fee,
    YamenTileTaken: e.copper,
    IncomeCollected: e.copper,
    DepositInterestPaid: e.interest,
    EmergencyTransfer: e.copper,
  };
  return type in paid && int(paid[type]) ? [`copper:${int(e.seat)}`] : [];
}

/** Silver ingots moving between the head office, the branches (regions), the supply. */
function silverTouched(e, type) {
  const s = int(e.seat);
  switch (type) {
    case "SilverGained":
    case "CopperConverted":
    case "DepositAccepted":
      return [`head-office:${s}`];
    case "SilverRecalled":
      return [`head-office:${s}`, ...piaohao(s, e.region)];
    case "SilverMoved":
      return e.dest ? [...piaohao(s, e.source), ...piaohao(s, e.dest)] : [];
    case "EmergencyTransfer":
      return [...piaohao(s, e.source), ...piaohao(s, e.dest), ...piaohao(s, e.fee_source)];
    case "SilverLent":
    case "YamenTileTaken":
      return int(e.amount ?? e.silver) ? [`head-office:${s}`] : [];
    case "LoansReturned":
    case "DepositSilverReturned":
      return int(e.silver) ? [`head-office:${s}`] : [];
    default:
      return [];
  }
}

/** Bank Escort: branch tiles drawn from a tier's stack (the rest go back under it), the branch
 * opened on a region (its capital from the head office); solo set-up: Taiyuan's region. */
function branchTouched(e, type) {
  const s = int(e.seat);
  switch (type) {
    case "BranchTilesDrawn":
      return [`stack:${int(e.tier)}`, `drawn-tiles:${s}`];
    case "BranchTilesReturned":
      return [`stack:${int(e.tier)}`];
    case "BranchOpened":
      return [`region:${s}:${str(e.region)}`, ...(int(e.capital) ? [`head-office:${s}`] : [])];
    case "StartingBranchPlaced":
      return [`region:${s}:${str(e.region)}`];
    default:
      return [];
  }
}

/** Confucius Temple: a branch teller on a teller, management or waiting position (from the
 * supply or from waiting elsewhere); Tokyo recalls them all. */
function branchTellerTouched(e, type) {
  const s = int(e.seat);
  if (type === "TellerPlaced") {
    const regions = [str(e.target), str(e.source)].filter((t) => t.includes(":")).map((t) => t.split(":")[0]);
    return regions.map((r) => `region:${s}:${r}`);
  }
  if (type === "TellersRecalled") return TIERS.flatMap((t) => COLORS.map((c) => `region:${s}:${t}${c}`));
  return [];
}

/** The progress tracks: reputation (City God Temple and bonuses), exchange (each exchange placed). */
function progressTracksTouched(e, type) {
  if (type === "ReputationGained" && int(e.amount)) return [`reputation:${int(e.seat)}`];
  if (type === "ExchangePlaced" && e.advance !== false) return [`exchange:${int(e.seat)}`];
  return [];
}

/** West Street: exchange cards drawn from the deck (reshuffled from the discards), the card placed
 * on the exchange-time track (its silver into the deposit piaohao), cards advancing and maturing
 * (the silver leaves the withdrawal piaohao, the card goes to the discards). */
function exchangeTouched(e, type) {
  const s = int(e.seat);
  switch (type) {
    case "ExchangeCardsDrawn":
      return ["deck", `drawn-cards:${s}`];
    case "DeckReshuffled":
      return ["deck", "discards"];
    case "ExchangePlaced":
      return [`card:${s}:${str(e.card)}`, ...piaohao(s, e.deposit)];
    case "ExchangeDiscarded":
      return ["discards"];
    case "ExchangesAdvanced":
      return [`cards:${s}`];
    case "ExchangeOrderChosen":
      return [`card:${s}:${str(e.card)}`];
    case "ExchangeMatured":
      return ["discards", ...(e.paid === false ? [] : piaohao(s, e.withdraw))];
    default:
      return [];
  }
}

/** Money House: silver lent on the loan-time track (and returned), a deposit accepted (its marker
 * moving, its silver returned to the Deposit area). */
function moneyHouseTouched(e, type) {
  const s = int(e.seat);
  switch (type) {
    case "SilverLent":
      return [`lending:${s}:${Math.max(0, Math.min(2, int(e.months, 1) - 1))}`];
    case "LoansReturned":
      return [0, 1, 2].map((i) => `lending:${s}:${i}`);
    case "DepositAccepted":
    case "DepositInterestPaid":
    case "DepositSilverReturned":
      return [`deposit:${s}`];
    default:
      return [];
  }
}

/** Yamen: a support tile taken from the supply. */
function yamenTouched(e, type) {
  if (type !== "YamenTileTaken") return [];
  const s = int(e.seat);
  return [`yamen:${str(e.tile)}`, `notes:${s}`, `held:${s}:${str(e.tile)}`];
}

/** Solo event cards: the round goal met, its reward claimed (an ongoing one noted on the board). */
function roundGoalTouched(e, type) {
  if (type === "RoundGoalMet") return ["goal"];
  if (type === "RewardClaimed") return e.accept && e.ongoing ? ["goal", `notes:${int(e.seat)}`] : ["goal"];
  return [];
}

const CONCERNS = [
  tellerDiceTouched,
  copperTouched,
  silverTouched,
  branchTouched,
  branchTellerTouched,
  progressTracksTouched,
  exchangeTouched,
  moneyHouseTouched,
  yamenTouched,
  roundGoalTouched,
];

/** The keys of everything the events of *recent* touched (a Set; empty without recent moves). */
export function touchedBy(recent) {
  const keys = new Set();
  for (const entry of arr(recent)) {
    const e = obj(obj(entry).event);
    const type = eventType(e);
    if (!type) continue;
    for (const concern of CONCERNS) for (const key of concern(e, type)) keys.add(key);
  }
  return keys;
}

/** True when a key of *hot* starts with one of *prefixes* (e.g. every region of a seat). */
function touchedAny(hot, ...prefixes) {
  for (const key of hot) if (prefixes.some((p) => key.startsWith(p))) return true;
  return false;
}

/** The class attribute of a touched element (nothing otherwise, so an untouched drawing is unchanged). */
function mark(on) {
  return on ? html` class="recent"` : "";
}

// --- SVG primitives ------------------------------------------------------------------------------
function text(x, y, s, opts = {}) {
  const size = opts.size || 12;
  const anchor = opts.anchor || "start";
  const weight = opts.weight || "normal";
  const fill = opts.fill || "#1f2937";
  const extra = opts.italic ? html` font-style="italic"` : "";
  return html`<text${mark(opts.recent)} x="${x}" y="${y}" font-size="${size}" text-anchor="${anchor}" font-weight="${weight}" fill="${fill}"${extra}>${s}</text>`;
}
function rect(x, y, w, h, fill, opts = {}) {
  const stroke = opts.stroke || "none";
  const sw = opts.sw ?? 1;
  const rx = opts.rx ?? 4;
  const dash = opts.dash ? html` stroke-dasharray="${opts.dash}"` : "";
  const op = opts.opacity != null ? html` opacity="${opts.opacity}"` : "";
  return html`<rect${mark(opts.recent)} x="${x}" y="${y}" width="${Math.max(0, w)}" height="${Math.max(0, h)}" rx="${rx}" fill="${fill}" stroke="${stroke}" stroke-width="${sw}"${dash}${op}/>`;
}
function circle(x, y, r, fill, stroke = "none", sw = 1, recent = false) {
  return html`<circle${mark(recent)} cx="${x}" cy="${y}" r="${r}" fill="${fill}" stroke="${stroke}" stroke-width="${sw}"/>`;
}
// A teller die: the large four-sided die as a triangle, the six-sided dice as squares.
function drawDie(x, y, size, d, id, opts = {}) {
  const owner = int(d.owner, -1);
  const fill = owner < 0 ? PUBLIC_DIE : seatColor(owner);
  const ink = owner < 0 ? "#111827" : "#ffffff";
  const stroke = opts.highlight ? "#f59e0b" : owner < 0 ? "#334155" : "#0f172a";
  const sw = opts.highlight ? 3 : 1.2;
  const title = html`<title>${`die ${id}: ${owner < 0 ? "public" : `seat ${owner}`}, ${d.large ? "large four-sided" : "six-sided"}, shows ${int(d.value)}${d.rerolled ? ", rerolled" : ""}`}</title>`;
  const face = opts.blank ? "·" : int(d.value);
  let shape;
  if (d.large) {
    const h = size;
    shape = html`<polygon${mark(opts.recent)} points="${x + size / 2},${y} ${x + size},${y + h} ${x},${y + h}" fill="${fill}" stroke="${stroke}" stroke-width="${sw}" stroke-linejoin="round"/>${text(
      x + size / 2,
      y + h - size * 0.18,
      face,
      { size: Math.round(size * 0.48), anchor: "middle", weight: "bold", fill: ink },
    )}`;
  } else {
    shape = html`${rect(x, y, size, size, fill, { stroke, sw, rx: size * 0.18, recent: opts.recent })}${text(
      x + size / 2,
      y + size * 0.7,
      face,
      { size: Math.round(size * 0.56), anchor: "middle", weight: "bold", fill: ink },
    )}`;
  }
  const faded = opts.faded ? html` opacity="0.45"` : "";
  return html`<g${faded}>${title}${shape}${d.rerolled ? circle(x + size - 2, y + 2, 3, "#f59e0b") : ""}</g>`;
}
function silverIngots(x, y, n, maxShown = 6) {
  const out = [];
  const shown = Math.min(n, maxShown);
  for (let i = 0; i < shown; i++) {
    out.push(
      html`<path d="M${x + i * 9},${y + 6} l2,-6 h5 l2,6 z" fill="#cbd5e1" stroke="#475569" stroke-width="0.8"/>`,
    );
  }
  if (n > maxShown) out.push(text(x + shown * 9 + 2, y + 6, `+${n - maxShown}`, { size: 9, fill: "#475569" }));
  return html`${out}`;
}
function tellerMeeple(x, y, color, letter = "") {
  return html`${circle(x, y - 5, 3, color)}<path d="M${x - 4},${y + 4} q4,-9 8,0 z" fill="${color}"/>${
    letter ? text(x + 6, y + 4, letter, { size: 8, fill: color, weight: "bold" }) : ""
  }`;
}

// --- board parts ---------------------------------------------------------------------------------
function header(v, ctx, W) {
  const round = int(v.round, 0);
  const phase = str(v.phase);
  const n = playerCount(v, ctx);
  const doc = obj(obj(ctx).doc);
  const out = [rect(0, 0, W, 84, "#7f1d1d", { rx: 0 })];
  const mode = n === 1 ? "solo campaign" : `${n} players`;
  out.push(text(16, 28, "Pingyao", { size: 22, weight: "bold", fill: "#fef3c7" }));
  out.push(text(16, 48, `First Chinese Banks — ${mode}`, { size: 12, fill: "#fde68a" }));
  if (str(doc.status))
    out.push(text(16, 68, `game ${str(doc.status)} · version ${int(doc.version)}`, { size: 11, fill: "#fecaca" }));
  // round track 1..8
  out.push(text(250, 25, "Round", { size: 12, fill: "#fde68a", weight: "bold" }));
  for (let r = 1; r <= 8; r++) {
    const cx = 275 + r * 34;
    const on = r === round;
    out.push(circle(cx, 20, 13, on ? "#fbbf24" : r < round ? "#92400e" : "#991b1b", "#fde68a", on ? 2.5 : 1));
    out.push(text(cx, 25, r, { size: 13, anchor: "middle", weight: "bold", fill: on ? "#7f1d1d" : "#fde68a" }));
  }
  // phases
  let px = 250;
  for (const [key, label] of PHASES) {
    if (key === "draft" && n !== 2) continue;
    if (key === "setup" && phase !== "setup") continue;
    const on = key === phase;
    const w = label.length * 7 + 18;
    out.push(rect(px, 44, w, 22, on ? "#fbbf24" : "#991b1b", { stroke: "#fde68a", sw: on ? 2 : 0.6, rx: 11 }));
    out.push(
      text(px + w / 2, 59, label, {
        size: 12,
        anchor: "middle",
        weight: on ? "bold" : "normal",
        fill: on ? "#7f1d1d" : "#fde68a",
      }),
    );
    px += w + 6;
  }
  // starting player and to act
  const sp = int(v.start_player, -1);
  const x = 860;
  out.push(text(x, 24, "Starting player", { size: 11, fill: "#fde68a" }));
  if (sp >= 0 && sp < Math.max(n, 1)) {
    out.push(circle(x + 100, 20, 9, seatColor(sp), "#fff", 1.5));
    out.push(text(x + 114, 24, seatLabel(sp, ctx), { size: 12, weight: "bold", fill: "#fff" }));
  }
  const toAct = arr(v.to_act).length ? arr(v.to_act) : arr(doc.to_act);
  out.push(text(x, 48, "To act", { size: 11, fill: "#fde68a" }));
  if (toAct.length) {
    toAct.slice(0, 4).forEach((s, i) => {
      out.push(circle(x + 52 + i * 80, 44, 8, seatColor(s), "#fff", 1.5));
      out.push(text(x + 64 + i * 80, 48, seatLabel(s, ctx), { size: 11, weight: "bold", fill: "#fff" }));
    });
  } else {
    out.push(
      text(x + 52, 48, phase === "end" || str(doc.status) === "finished" ? "nobody — game over" : "—", {
        size: 11,
        fill: "#fff",
      }),
    );
  }
  const pending = v.pending && typeof v.pending === "object" ? v.pending : null;
  if (pending) {
    const what = PENDING_TEXT[str(pending.kind)] || str(pending.kind).replace(/_/g, " ");
    let detail = "";
    if (pending.region) detail += ` · ${regionLabel(pending.region)}`;
    if (int(pending.months)) detail += ` · up to ${int(pending.months)} month(s)`;
    if (int(pending.cost)) detail += ` · costs ${int(pending.cost)} copper`;
    if (pending.skill) detail += ` · ${SKILL_TEXT[str(pending.skill)] || str(pending.skill)}`;
    if (pending.card) {
      const ev = eventCard(compsOf(ctx), pending.card);
      detail += ev.name
        ? ` · event ${str(pending.card)} ${str(ev.name)}`
        : ` · card ${cardLabel(compsOf(ctx), pending.card)}`;
    }
    if (pending.dest) detail += ` · to ${regionLabel(pending.dest)}`;
    out.push(
      text(x, 72, `${seatLabel(pending.seat, ctx)}: ${what}${detail}`, {
        size: 11,
        fill: "#fef3c7",
        italic: true,
      }),
    );
  }
  return html`${out}`;
}

function actionSpaces(v, ctx, x0, y0, W, hot) {
  const comps = compsOf(ctx);
  const cap = obj(comps.resting_capacity);
  const dice = arr(v.dice);
  const n = playerCount(v, ctx);
  const round = int(v.round, 0);
  const early = n !== 1 && round >= 1 && round <= 2;
  const ev = eventCard(comps, v.event_card);
  const goal = n === 1 ? str(ev.goal_action) : "";
  const cols = 3;
  const gap = 10;
  const w = (W - gap * (cols - 1)) / cols;
  const h = 150;
  const out = [];
  const die = (x, y, size, d, id) => drawDie(x, y, size, d, id, { recent: hot.has(`die:${id}`) });
  ACTIONS.forEach((a, i) => {
    const x = x0 + (i % cols) * (w + gap);
    const y = y0 + Math.floor(i / cols) * (h + gap);
    const closed = early && (a === "confucius_temple" || a === "yamen");
    out.push(
      rect(x, y, w, h, "#fff7ed", { stroke: a === goal ? "#16a34a" : "#9a3412", sw: a === goal ? 3 : 1.2, rx: 8 }),
    );
    out.push(rect(x, y, w, 24, "#9a3412", { rx: 8 }));
    out.push(rect(x, y + 14, w, 10, "#9a3412", { rx: 0 }));
    out.push(text(x + 10, y + 17, ACTION_NAMES[a], { size: 14, weight: "bold", fill: "#fff7ed" }));
    const help = ACTION_HELP[a];
    out.push(text(x + 10, y + 40, help[0], { size: 11, fill: "#7c2d12", weight: "bold" }));
    out.push(text(x + 10, y + 54, help[1], { size: 10, fill: "#9a3412" }));
    // the action space: one die
    const sx = x + 12;
    const sy = y + 66;
    out.push(
      rect(sx, sy, 58, 58, "#fed7aa", {
        stroke: "#9a3412",
        sw: 1.5,
        dash: "4 3",
        rx: 6,
        recent: hot.has(`space:${a}`),
      }),
    );
    out.push(text(sx + 29, sy + 72, "space", { size: 9, anchor: "middle", fill: "#9a3412" }));
    const onSpace = dice.map((d, id) => [obj(d), id]).filter(([d]) => d.where === "space" && d.action === a);
    for (const [d, id] of onSpace.slice(0, 1)) out.push(die(sx + 9, sy + 9, 40, d, id));
    // resting area
    const c = int(cap[a], 3);
    const rx = x + 84;
    const resting = dice.map((d, id) => [obj(d), id]).filter(([d]) => d.where === "rest" && d.action === a);
    const publicRest = resting.filter(([d]) => int(d.owner, -1) < 0 && n === 2);
    const tellerRest = resting.filter(([d]) => !(int(d.owner, -1) < 0 && n === 2));
    out.push(text(rx, sy + 6, `resting · at most ${c}`, { size: 10, fill: "#9a3412" }));
    for (let k = 0; k < Math.max(c, tellerRest.length); k++) {
      const bx = rx + k * 40;
      if (bx + 34 > x + w) break;
      out.push(rect(bx, sy + 12, 34, 34, "#ffedd5", { stroke: "#c2410c", sw: 1, dash: "3 2", rx: 5 }));
      if (tellerRest[k]) out.push(die(bx + 4, sy + 16, 26, tellerRest[k][0], tellerRest[k][1]));
    }
    publicRest.forEach(([d, id], k) => {
      const bx = rx + k * 32;
      out.push(text(bx, sy + 62, "public:", { size: 9, fill: "#475569" }));
      out.push(die(bx + 36, sy + 48, 22, d, id));
    });
    if (closed) {
      out.push(rect(x + 2, y + 26, w - 4, h - 28, "#1f2937", { opacity: 0.55, rx: 6 }));
      out.push(
        text(x + w / 2, y + h / 2 + 18, "Closed in rounds 1–2", {
          size: 15,
          anchor: "middle",
          weight: "bold",
          fill: "#fff",
        }),
      );
    }
    if (a === goal) {
      const done = int(obj(v.round_actions)[a]);
      out.push(
        text(x + w - 10, y + 17, `goal ${done}/${int(ev.goal_count, 1)}`, {
          size: 11,
          anchor: "end",
          weight: "bold",
          fill: "#bbf7d0",
          recent: hot.has("goal"),
        }),
      );
    }
  });
  return html`${out}`;
}

function numberAreas(v, ctx, x, y, w, hot) {
  const dice = arr(v.dice);
  // Before the roll (set-up, the 2-player draft) the teller dice only wait in the number areas.
  const unrolled = ["setup", "draft"].includes(str(v.phase));
  const out = [rect(x, y, w, 128, "#fefce8", { stroke: "#a16207", rx: 8 })];
  out.push(
    text(
      x + 10,
      y + 17,
      dice.some((d) => obj(d).where === "hand") ? "Number areas" : "Number areas — highest acts first",
      { size: 12, weight: "bold", fill: "#713f12" },
    ),
  );
  const cw = (w - 20) / 6;
  const size = 18;
  const perRow = Math.max(1, Math.floor((cw - 8) / (size + 2)));
  for (let val = 6; val >= 1; val--) {
    const cx = x + 10 + (6 - val) * cw;
    out.push(rect(cx + 2, y + 24, cw - 4, 98, "#fef9c3", { stroke: "#ca8a04", sw: 0.8, rx: 5 }));
    out.push(text(cx + cw / 2, y + 38, val, { size: 13, anchor: "middle", weight: "bold", fill: "#854d0e" }));
    if (unrolled) continue;
    const here = dice
      .map((d, id) => [obj(d), id])
      .filter(([d]) => (d.where === "number" || d.where === "hand") && int(d.value) === val);
    const room = perRow * 4;
    here.slice(0, room).forEach(([d, id], k) => {
      const col = k % perRow;
      const row = Math.floor(k / perRow);
      out.push(
        drawDie(cx + 5 + col * (size + 2), y + 44 + row * (size + 2), size, d, id, {
          highlight: d.where === "hand",
          recent: hot.has(`die:${id}`),
        }),
      );
    });
    if (here.length > room) out.push(text(cx + cw - 6, y + 120, `+${here.length - room}`, { size: 10, anchor: "end" }));
  }
  const acting = dice.findIndex((d) => obj(d).where === "hand");
  if (acting >= 0) {
    const label = `${dieText(v, acting, ctx)} (${seatLabel(obj(dice[acting]).owner, ctx)}) must act now`;
    out.push(text(x + w - 10, y + 17, label, { size: 10, anchor: "end", weight: "bold", fill: "#c2410c" }));
  }
  if (unrolled) {
    out.push(
      text(x + w / 2, y + 80, "teller dice are rolled after the draft", {
        size: 11,
        anchor: "middle",
        italic: true,
        fill: "#854d0e",
      }),
    );
  }
  return html`${out}`;
}

function supplyPanel(v, ctx, x, y, w, hot) {
  const comps = compsOf(ctx);
  const stacks = obj(v.stack_counts);
  const cost = obj(comps.build_cost);
  const out = [rect(x, y, w, 226, "#f1f5f9", { stroke: "#475569", rx: 8 })];
  out.push(text(x + 10, y + 17, "Supply", { size: 12, weight: "bold", fill: "#0f172a" }));
  // tile stacks
  TIERS.forEach((t, i) => {
    const bx = x + 10 + i * 70;
    const count = int(stacks[String(t)]);
    const recent = hot.has(`stack:${t}`);
    for (let k = Math.min(3, count) - 1; k >= 0; k--) {
      out.push(
        rect(bx + k * 2, y + 26 - k * 2, 52, 40, "#e7d3b0", { stroke: "#78350f", sw: 0.8, recent: recent && !k }),
      );
    }
    if (!count) out.push(rect(bx, y + 26, 52, 40, "none", { stroke: "#94a3b8", dash: "3 2", recent }));
    out.push(text(bx + 26, y + 42, `Tier ${t}`, { size: 11, anchor: "middle", weight: "bold", fill: "#78350f" }));
    out.push(text(bx + 26, y + 58, `${count} tiles`, { size: 10, anchor: "middle", fill: "#78350f" }));
    if (cost[String(t)] != null)
      out.push(text(bx + 26, y + 78, `build ${int(cost[String(t)])}c`, { size: 9, anchor: "middle", fill: "#475569" }));
  });
  // exchange deck and discards
  const dx = x + 222;
  out.push(rect(dx, y + 24, 44, 44, "#dbeafe", { stroke: "#1e3a8a", recent: hot.has("deck") }));
  out.push(text(dx + 22, y + 44, int(v.deck_count), { size: 15, anchor: "middle", weight: "bold", fill: "#1e3a8a" }));
  out.push(text(dx + 22, y + 60, "deck", { size: 9, anchor: "middle", fill: "#1e3a8a" }));
  out.push(text(dx + 22, y + 80, "exchange", { size: 9, anchor: "middle", fill: "#475569" }));
  const discards = arr(v.discards);
  out.push(
    rect(dx + 54, y + 24, 44, 44, "#e2e8f0", {
      stroke: "#64748b",
      dash: discards.length ? "" : "3 2",
      recent: hot.has("discards"),
    }),
  );
  out.push(text(dx + 76, y + 44, discards.length, { size: 15, anchor: "middle", weight: "bold", fill: "#334155" }));
  out.push(text(dx + 76, y + 60, "discards", { size: 9, anchor: "middle", fill: "#334155" }));
  out.push(html`<title>${discards.map((c) => cardLabel(comps, c)).join("; ")}</title>`);
  // silver supply
  out.push(silverIngots(x + 10, y + 94, 1));
  out.push(text(x + 22, y + 100, `silver supply: ${int(v.supply_silver)}`, { size: 11, fill: "#334155" }));
  const drawnCount = int(v.drawn_count);
  const drawnCards = int(v.drawn_cards_count);
  let note = "";
  if (drawnCount) note += `${drawnCount} branch tile(s) drawn`;
  if (drawnCards) note += `${note ? " · " : ""}${drawnCards} exchange card(s) drawn`;
  if (note) out.push(text(x + 160, y + 100, note, { size: 11, fill: "#7c2d12", weight: "bold" }));
  // What was drawn, when this seat may see it (the drawer; everyone once the game is over).
  const seen = [
    ...arr(v.drawn_tiles).map((t) => tileOf(comps, t).name),
    ...arr(v.drawn_cards).map((c) => cardLabel(comps, c)),
  ];
  if (seen.length) {
    const line = `drawn: ${seen.join(" · ")}`;
    const room = Math.floor((w - 20) / 5.3);
    out.push(
      text(x + 10, y + 114, line.length > room ? `${line.slice(0, room - 1)}…` : line, {
        size: 10,
        fill: "#7c2d12",
      }),
    );
  }
  // yamen supply
  out.push(
    text(x + 10, y + 133, "Yamen support tiles (copies · silver)", { size: 11, weight: "bold", fill: "#0f172a" }),
  );
  const supply = Object.entries(obj(v.yamen_supply));
  supply.slice(0, 8).forEach(([id, count], i) => {
    const col = i % 2;
    const row = Math.floor(i / 2);
    const bx = x + 10 + col * ((w - 20) / 2);
    const by = y + 139 + row * 20.5;
    const cw = (w - 20) / 2 - 6;
    out.push(
      rect(bx, by, cw, 19, int(count) ? "#fef3c7" : "#e5e7eb", {
        stroke: "#92400e",
        sw: 0.6,
        rx: 3,
        recent: hot.has(`yamen:${id}`),
      }),
    );
    const label = yamenText(comps, id);
    const room = Math.max(10, Math.floor((cw - 40) / 4.7));
    const short = label.length > room ? `${label.slice(0, room - 1)}…` : label;
    out.push(
      html`<g><title>${`${label} — ${yamenCost(comps, id)} silver`}</title>${text(
        bx + 4,
        by + 13,
        `${int(count)}× ${short}`,
        {
          size: 9,
          fill: int(count) ? "#78350f" : "#9ca3af",
        },
      )}${text(bx + cw - 4, by + 13, `${yamenCost(comps, id)}s`, {
        size: 9,
        anchor: "end",
        weight: "bold",
        fill: "#475569",
      })}</g>`,
    );
  });
  if (!supply.length) out.push(text(x + 10, y + 144, "none left", { size: 10, fill: "#64748b" }));
  return html`${out}`;
}

function rewardText(ev) {
  const n = int(ev.amount);
  const kinds = {
    copper: `+${n} copper`,
    reputation: `+${n} reputation`,
    exchange: `an exchange of up to ${n} months`,
    teller: "a free branch teller",
    silver: `+${n} silver`,
    yamen: "a Yamen tile",
    extra_action: "an extra action",
    income: `+${n} copper every Income phase`,
    reroll_discount: `rerolls cost ${n} less`,
  };
  return `${kinds[str(ev.reward)] || str(ev.reward).replace(/_/g, " ")}${ev.ongoing ? " (ongoing)" : ""}`;
}

// Public dice off the board: the 2-player draft (and out of play), the solo reserve.
function publicDice(v, x, y, w, hot) {
  const dice = arr(v.dice)
    .map((d, id) => [obj(d), id])
    .filter(([d]) => int(d.owner, -1) < 0 && ["draft", "pool", "out", "storage"].includes(d.where));
  const out = [rect(x, y, w, 48, "#f8fafc", { stroke: "#475569", rx: 8 })];
  out.push(text(x + 10, y + 19, "Public dice", { size: 12, weight: "bold", fill: "#0f172a" }));
  out.push(
    text(x + 10, y + 36, str(v.phase) === "draft" ? "drafting now" : "off the board", {
      size: 10,
      fill: "#475569",
    }),
  );
  let dx = x + 100;
  for (const [where, label] of [
    ["draft", "to draft"],
    ["out", "out of play"],
    ["pool", "reserve"],
    ["storage", "in storage"],
  ]) {
    const group = dice.filter(([d]) => d.where === where);
    if (!group.length) continue;
    out.push(text(dx, y + 28, label, { size: 10, weight: "bold", fill: "#334155" }));
    dx += label.length * 6 + 8;
    for (const [d, id] of group) {
      const size = where === "draft" ? 32 : 24;
      out.push(drawDie(dx, y + 24 - size / 2, size, d, id, { faded: where !== "draft", recent: hot.has(`die:${id}`) }));
      dx += size + 6;
    }
    dx += 16;
  }
  if (!dice.length) out.push(text(dx, y + 28, "all placed", { size: 10, fill: "#475569" }));
  return html`${out}`;
}

function soloPanel(v, ctx, x, y, w, hot) {
  const comps = compsOf(ctx);
  const story = obj(obj(comps.storylines)[String(int(v.storyline))]);
  const ev = eventCard(comps, v.event_card);
  const out = [rect(x, y, w, 82, "#ecfdf5", { stroke: "#15803d", rx: 8 })];
  out.push(
    text(x + 10, y + 17, `Storyline ${int(v.storyline)}: ${str(story.name) || "—"}`, {
      size: 12,
      weight: "bold",
      fill: "#14532d",
    }),
  );
  const goals = (g) =>
    Object.entries(obj(g))
      .map(([k, n]) => `${k} ${int(n)}`)
      .join(", ");
  out.push(
    text(x + 10, y + 33, `Normal: ${goals(story.normal)} · Hard: ${goals(story.hard)}`, {
      size: 10,
      fill: "#166534",
    }),
  );
  if (v.event_card) {
    const reward = rewardText(ev);
    out.push(
      text(x + 10, y + 52, `Event ${str(v.event_card)} — ${str(ev.name) || "?"}`, {
        size: 12,
        weight: "bold",
        fill: "#14532d",
      }),
    );
    out.push(
      text(
        x + 10,
        y + 68,
        `Goal: ${actionLabel(ev.goal_action)} ×${int(ev.goal_count, 1)} → ${reward}${v.goal_met ? " · MET" : ""}`,
        {
          size: 10,
          fill: v.goal_met ? "#15803d" : "#166534",
          weight: v.goal_met ? "bold" : "normal",
          recent: hot.has("goal"),
        },
      ),
    );
  } else {
    out.push(text(x + 10, y + 56, "No event card this round", { size: 11, fill: "#166534" }));
  }
  out.push(
    text(x + w - 10, y + 17, `seen ${arr(v.events_seen).length}/8`, { size: 10, anchor: "end", fill: "#166534" }),
  );
  return html`${out}`;
}

// A progress track (reputation, exchange): one marker per seat, stacked two by two on a space.
function track(v, ctx, x, y, w, label, max, key, marks, hot) {
  const n = playerCount(v, ctx);
  const boards = arr(v.boards);
  const step = (w - 110) / (max + 1);
  const out = [text(x, y + 20, label, { size: 12, weight: "bold", fill: "#1f2937" })];
  for (let i = 0; i <= max; i++) {
    const cx = x + 110 + i * step;
    const bonus = marks[i];
    out.push(rect(cx, y, step - 3, 30, bonus ? "#fde68a" : "#f8fafc", { stroke: "#a16207", sw: 0.7, rx: 3 }));
    out.push(text(cx + 4, y + 11, i, { size: 9, fill: "#78350f" }));
    if (bonus) out.push(text(cx + step - 6, y + 11, bonus, { size: 8, anchor: "end", fill: "#92400e" }));
  }
  const at = {};
  for (let s = 0; s < Math.min(n, boards.length); s++) {
    const val = Math.max(0, Math.min(max, int(obj(boards[s])[key])));
    const k = at[val] || 0;
    at[val] = k + 1;
    const cx = x + 110 + val * step + 8 + (k % 2) * 12;
    const cy = y + 17 + Math.floor(k / 2) * 8;
    out.push(
      html`<g><title>${`${seatLabel(s, ctx)}: ${label} ${int(obj(boards[s])[key])}`}</title>${circle(
        cx,
        cy,
        5.5,
        seatColor(s),
        "#fff",
        1.2,
        hot.has(`${key}:${s}`),
      )}</g>`,
    );
  }
  return html`${out}`;
}

function playerBoard(v, ctx, s, x, y, w, hot) {
  const comps = compsOf(ctx);
  const p = obj(arr(v.boards)[s]);
  const regions = obj(p.regions);
  const color = seatColor(s);
  const me = s === viewerSeat(ctx);
  const acting = arr(v.to_act).includes(s);
  const h = 372;
  const out = [rect(x, y, w, h, "#fffbeb", { stroke: color, sw: me ? 3.5 : 1.5, rx: 8 })];
  out.push(rect(x, y, w, 26, color, { rx: 8 }));
  out.push(rect(x, y + 16, w, 10, color, { rx: 0 }));
  out.push(
    text(x + 10, y + 18, `${seatLabel(s, ctx)}${int(v.start_player, -1) === s ? " ★ start" : ""}`, {
      size: 13,
      weight: "bold",
      fill: "#fff",
    }),
  );
  if (acting)
    out.push(text(x + w - 10, y + 18, "to act", { size: 11, anchor: "end", weight: "bold", fill: "#fef08a" }));
  // resources line
  let ry = y + 44;
  const copper = hot.has(`copper:${s}`);
  out.push(circle(x + 16, ry - 4, 7, "#b45309", "#78350f", 1, copper));
  out.push(text(x + 16, ry - 1, "c", { size: 9, anchor: "middle", fill: "#fff", weight: "bold" }));
  out.push(text(x + 28, ry, `${int(p.copper)} copper`, { size: 12, weight: "bold", recent: copper }));
  out.push(
    text(x + 110, ry, `rep ${int(p.reputation)} · exch ${int(p.exchange)}`, {
      size: 11,
      fill: "#475569",
      recent: hot.has(`reputation:${s}`) || hot.has(`exchange:${s}`),
    }),
  );
  // teller dice of this seat
  const own = arr(v.dice)
    .map((d, id) => [obj(d), id])
    .filter(([d]) => int(d.owner, -2) === s);
  let dx = x + w - 8 - own.length * 22;
  const unrolled = ["setup", "draft"].includes(str(v.phase));
  for (const [d, id] of own) {
    const where = str(d.where);
    out.push(
      drawDie(dx, ry - 14, 18, d, id, {
        faded: where === "done" || where === "storage" || unrolled,
        highlight: where === "hand",
        blank: unrolled && where === "number",
        recent: hot.has(`die:${id}`),
      }),
    );
    dx += 22;
  }
  // head office
  ry += 10;
  out.push(rect(x + 8, ry, w - 16, 24, "#fde68a", { stroke: "#92400e", sw: 0.8, recent: hot.has(`head-office:${s}`) }));
  out.push(text(x + 14, ry + 16, "Head office", { size: 11, weight: "bold", fill: "#78350f" }));
  out.push(silverIngots(x + 90, ry + 9, int(p.head_office), 8));
  out.push(text(x + w - 14, ry + 16, `${int(p.head_office)} silver`, { size: 11, anchor: "end", fill: "#78350f" }));
  // nine regions
  const gy = ry + 30;
  const cw = (w - 16) / 3;
  const ch = 64;
  TIERS.forEach((t, ti) => {
    COLORS.forEach((c, ci) => {
      const key = `${t}${c}`;
      const r = obj(regions[key]);
      const cx = x + 8 + ci * cw;
      const cy = gy + ti * (ch + 4);
      out.push(
        rect(cx + 1, cy, cw - 2, ch, REGION_FILL[c], {
          stroke: REGION_INK[c],
          sw: 0.8,
          rx: 5,
          recent: hot.has(`region:${s}:${key}`),
        }),
      );
      out.push(text(cx + cw - 6, cy + 11, `T${t}`, { size: 8, anchor: "end", fill: REGION_INK[c] }));
      if (r.tile) {
        const tile = tileOf(comps, r.tile);
        const skill = SKILL_TEXT[tile.skill] || tile.skill;
        const maxChars = Math.max(8, Math.floor((cw - 14) / 4.6));
        out.push(
          html`<g><title>${tileLabel(comps, r.tile)}</title>${rect(cx + 4, cy + 3, cw - 8, 22, "#fffdf7", {
            stroke: "#78350f",
            sw: 0.8,
            rx: 3,
          })}${text(cx + 8, cy + 14, tile.name, { size: 11, weight: "bold", fill: "#3f1d0b" })}${text(
            cx + 8,
            cy + 23,
            skill.length > maxChars ? `${skill.slice(0, maxChars - 1)}…` : skill,
            { size: 7.5, fill: "#78350f" },
          )}</g>`,
        );
        out.push(silverIngots(cx + 5, cy + 35, int(r.silver), Math.max(2, Math.floor((cw - 30) / 9))));
        const eff = tile.effective + int(r.managers);
        out.push(text(cx + cw - 5, cy + 41, `${int(r.silver)}/${eff}`, { size: 9, anchor: "end", fill: "#334155" }));
        // teller positions and management positions
        let tx = cx + 9;
        for (let k = 0; k < Math.max(tile.positions, int(r.tellers)); k++) {
          if (k < int(r.tellers)) out.push(tellerMeeple(tx, cy + 55, color));
          else out.push(circle(tx, cy + 53, 5, "none", "#78350f", 0.8));
          tx += 14;
        }
        for (let k = 0; k < int(r.managers); k++) {
          out.push(tellerMeeple(tx + 4, cy + 55, color, "M"));
          tx += 20;
        }
      } else {
        out.push(text(cx + 8, cy + 14, `${c}`, { size: 9, fill: REGION_INK[c], italic: true }));
      }
      if (int(r.waiting)) {
        out.push(tellerMeeple(cx + cw - 14, cy + 55, color));
        out.push(text(cx + cw - 22, cy + 58, "idle", { size: 8, anchor: "end", fill: "#475569" }));
      }
    });
  });
  // money house: lending positions and deposit
  let my = gy + 3 * (ch + 4) + 6;
  const lending = arr(p.lending);
  out.push(text(x + 10, my + 12, "Lending", { size: 10, weight: "bold", fill: "#1f2937" }));
  [0, 1, 2].forEach((i) => {
    const bx = x + 58 + i * 31;
    out.push(
      rect(bx, my, 28, 18, "#e0f2fe", { stroke: "#0369a1", sw: 0.7, rx: 3, recent: hot.has(`lending:${s}:${i}`) }),
    );
    out.push(text(bx + 3, my + 12, i + 1, { size: 8, fill: "#0369a1" }));
    if (int(lending[i])) out.push(silverIngots(bx + 9, my + 11, int(lending[i]), 2));
  });
  const dax = x + w - 128;
  const deposit = hot.has(`deposit:${s}`);
  out.push(text(dax, my + 12, "Deposit", { size: 10, weight: "bold", fill: "#1f2937", recent: deposit }));
  out.push(silverIngots(dax + 44, my + 11, int(p.deposit_area), 3));
  if (int(p.deposit_marker)) {
    out.push(rect(dax + 76, my + 1, 44, 16, "#166534", { rx: 8, recent: deposit }));
    out.push(
      text(dax + 98, my + 12, `${int(p.deposit_marker)} mo`, {
        size: 9,
        anchor: "middle",
        weight: "bold",
        fill: "#fff",
      }),
    );
  }
  // exchange cards on the exchange-time track
  my += 24;
  const cards = arr(p.cards);
  out.push(text(x + 10, my + 12, `Exchanges ${cards.length}/3`, { size: 10, weight: "bold", fill: "#1f2937" }));
  const cardW = Math.min(90, (w - 104) / 3);
  const short = (r) =>
    str(r) === "HO"
      ? "HO"
      : str(r)
          .replace(/^(\d)(\w).*$/, "$1$2")
          .toUpperCase();
  cards.slice(0, 3).forEach((cd, i) => {
    const card = obj(cd);
    const info = cardOf(comps, card.card);
    const bx = x + 94 + i * (cardW + 3);
    const recent = hot.has(`cards:${s}`) || hot.has(`card:${s}:${str(card.card)}`);
    out.push(
      html`<g><title>${`exchange ${str(card.card)}: deposit at ${regionLabel(card.deposit)}, withdraw from ${regionLabel(card.withdraw)}, fee ${info.fee}, ${int(card.months)} month(s) left`}</title>${rect(
        bx,
        my,
        cardW,
        30,
        "#eff6ff",
        { stroke: "#1e40af", sw: 0.8, rx: 3, recent },
      )}${text(bx + 4, my + 11, `${str(card.card)} · ${int(card.months)} mo`, {
        size: 9,
        weight: "bold",
        fill: "#1e3a8a",
      })}${text(bx + 4, my + 24, `${short(card.deposit)}→${short(card.withdraw)} fee ${info.fee}`, {
        size: 9,
        fill: "#1e3a8a",
      })}</g>`,
    );
  });
  // yamen tiles, bonuses, ongoing
  my += 36;
  const yamen = arr(p.yamen);
  const notes = [];
  if (yamen.length) notes.push(`Yamen: ${yamen.map((t) => str(t).replace(/_/g, " ")).join(", ")}`);
  const used = arr(p.used_round);
  if (used.length) notes.push(`used: ${used.map((u) => str(u).replace(/_/g, " ")).join(", ")}`);
  const ongoing = arr(p.ongoing);
  if (ongoing.length) notes.push(`ongoing: ${ongoing.map(str).join(", ")}`);
  const line = notes.join(" · ") || "no Yamen tiles";
  const maxChars = Math.floor((w - 20) / 5.2);
  out.push(
    html`<g><title>${yamen.map((t) => yamenText(comps, t)).join("; ")}</title>${text(
      x + 10,
      my + 6,
      line.length > maxChars ? `${line.slice(0, maxChars - 1)}…` : line,
      { size: 9.5, fill: "#7c2d12", recent: hot.has(`notes:${s}`) },
    )}</g>`,
  );
  return html`${out}`;
}

function outcomeStrip(ctx, x, y, w) {
  const outcome = obj(obj(obj(ctx).doc).outcome);
  if (!Object.keys(outcome).length) return "";
  const scores = arr(outcome.scores);
  const out = [rect(x, y, w, 62, "#1f2937", { rx: 8 })];
  out.push(text(x + 12, y + 20, `Game over — ${str(outcome.summary)}`, { size: 13, weight: "bold", fill: "#fde68a" }));
  scores.slice(0, 4).forEach((sc, i) => {
    const s = obj(sc);
    const bx = x + 12 + i * ((w - 24) / Math.max(1, scores.length));
    const win = arr(outcome.winners).includes(int(s.seat, -1));
    out.push(circle(bx + 7, y + 40, 7, seatColor(s.seat), win ? "#fde68a" : "#fff", win ? 3 : 1));
    out.push(
      text(
        bx + 20,
        y + 44,
        `${seatLabel(s.seat, ctx)}: ${int(s.score)} pts · rank ${int(s.rank)}${win ? " · winner" : ""}`,
        { size: 12, fill: "#fff", weight: win ? "bold" : "normal" },
      ),
    );
  });
  return html`${out}`;
}

export function renderBoard(ctx) {
  try {
    return String(drawBoard(ctx));
  } catch (err) {
    return String(
      html`<svg viewBox="0 0 1200 60" width="100%" xmlns="http://www.w3.org/2000/svg">${text(10, 30, `Cannot draw this Pingyao view: ${err && err.message}`, { size: 14, fill: "#b91c1c" })}</svg>`,
    );
  }
}

function drawBoard(ctx) {
  const v = viewOf(ctx);
  const hot = touchedBy(obj(ctx).recent);
  const W = 1200;
  const n = playerCount(v, ctx);
  const body = [header(v, ctx, W)];
  const actionsW = 780;
  body.push(actionSpaces(v, ctx, 10, 96, actionsW, hot));
  const rx = 10 + actionsW + 10;
  const rw = W - rx - 10;
  body.push(numberAreas(v, ctx, rx, 96, rw, hot));
  body.push(supplyPanel(v, ctx, rx, 232, rw, hot));
  let y = 96 + 2 * 160;
  if (n === 1) {
    body.push(soloPanel(v, ctx, 10, y + 2, actionsW, hot));
    y += 90;
  }
  if (n <= 2 && arr(v.dice).some((d) => int(obj(d).owner, 0) < 0)) {
    body.push(publicDice(v, 10, y + 2, actionsW, hot));
    y += 56;
  }
  const rep = obj(obj(compsOf(ctx)).reputation_track);
  const repMax = int(rep.max, 15) || 15;
  const repMarks = {};
  for (const t of arr(rep.teller_bonus).length ? arr(rep.teller_bonus) : [2, 8, 13]) repMarks[int(t)] = "teller";
  repMarks[int(rep.extra_card, 6) || 6] = "+card";
  const ex = obj(obj(compsOf(ctx)).exchange_track);
  const exMax = int(ex.max, 12) || 12;
  const exMarks = {};
  for (const [space, fee] of Object.entries(obj(ex.fee_bonus))) exMarks[int(space)] = `fee+${int(fee)}`;
  for (const [space, pts] of Object.entries(obj(ex.end_points))) exMarks[int(space)] = `${int(pts)}pt`;
  const ty = Math.max(y + 4, 232 + 234);
  body.push(track(v, ctx, 10, ty, W - 20, "Reputation", repMax, "reputation", repMarks, hot));
  body.push(track(v, ctx, 10, ty + 36, W - 20, "Exchange", exMax, "exchange", exMarks, hot));
  const by = ty + 78;
  const count = Math.max(1, Math.min(4, arr(v.boards).length || n));
  const gap = 10;
  const bw = Math.min(590, (W - 20 - gap * (count - 1)) / count);
  for (let s = 0; s < count; s++) body.push(playerBoard(v, ctx, s, 10 + s * (bw + gap), by, bw, hot));
  let H = by + 372 + 10;
  const strip = outcomeStrip(ctx, 10, H, W - 20);
  if (strip) H += 72;
  body.push(strip);
  return html`<svg viewBox="0 0 ${W} ${H}" width="100%" xmlns="http://www.w3.org/2000/svg" font-family="system-ui, sans-serif" role="img" aria-label="Pingyao board">${rect(0, 0, W, H, "#fafaf9", { rx: 0 })}${body}</svg>`;
}

// --- holdings (HTML) -----------------------------------------------------------------------------
export function renderHoldings(ctx) {
  try {
    return String(drawHoldings(ctx));
  } catch (err) {
    return String(html`<p>Cannot show the holdings: ${err && err.message}</p>`);
  }
}

function ownHoldings(v, ctx, seat, hot) {
  const comps = compsOf(ctx);
  const out = [html`<h3 data-fg="${seatColor(seat)}">Your holdings (seat ${seat})</h3>`];
  const pending = v.pending && typeof v.pending === "object" ? v.pending : null;
  const drawnTiles = arr(v.drawn_tiles);
  const drawnCards = arr(v.drawn_cards);
  const mine = pending && int(pending.seat, -1) === seat;
  if (drawnTiles.length && mine) {
    const recent = hot.has(`drawn-tiles:${seat}`);
    out.push(
      html`<p><strong>Branch tiles drawn (${regionLabel(pending.region)}):</strong></p><ul>${drawnTiles.map(
        (t) => html`<li${mark(recent)}>${tileLabel(comps, t)}</li>`,
      )}</ul>`,
    );
  }
  if (drawnCards.length && mine) {
    const recent = hot.has(`drawn-cards:${seat}`);
    out.push(
      html`<p><strong>Exchange cards drawn:</strong></p><ul>${drawnCards.map(
        (c) => html`<li${mark(recent)}>${cardLabel(comps, c)}</li>`,
      )}</ul>`,
    );
  }
  const p = obj(arr(v.boards)[seat]);
  const cards = arr(p.cards);
  const resources = [`copper:${seat}`, `head-office:${seat}`, `reputation:${seat}`, `exchange:${seat}`];
  out.push(
    html`<p${mark(resources.some((k) => hot.has(k)))}>${int(p.copper)} copper · ${int(p.head_office)} silver in the head office · reputation ${int(p.reputation)} · exchange ${int(p.exchange)}</p>`,
  );
  if (cards.length) {
    const items = cards.map((cd) => {
      const c = obj(cd);
      const info = cardOf(comps, c.card);
      const recent = hot.has(`cards:${seat}`) || hot.has(`card:${seat}:${str(c.card)}`);
      return html`<li${mark(recent)}>${str(c.card)}: deposit at ${regionLabel(c.deposit)}, withdraw from ${regionLabel(c.withdraw)}, fee ${info.fee}, ${int(c.months)} month(s) left</li>`;
    });
    out.push(html`<p><strong>Exchanges in progress:</strong></p><ul>${items}</ul>`);
  }
  const yamen = arr(p.yamen);
  if (yamen.length) {
    const items = yamen.map((t) => html`<li${mark(hot.has(`held:${seat}:${str(t)}`))}>${yamenText(comps, t)}</li>`);
    out.push(html`<p><strong>Yamen tiles:</strong></p><ul>${items}</ul>`);
  }
  const bonuses = arr(p.bonuses);
  if (bonuses.length)
    out.push(html`<p>Bonuses taken: ${bonuses.map((b) => BONUS_TEXT[str(b)] || str(b)).join(", ")}</p>`);
  const used = arr(p.used_round);
  if (used.length)
    out.push(
      html`<p>Used this round: ${used.map((u) => SKILL_TEXT[str(u)] || str(u).replace(/_/g, " ")).join(", ")}</p>`,
    );
  const ongoing = arr(p.ongoing);
  if (ongoing.length) {
    const names = ongoing.map((e) => `${str(e)} ${str(eventCard(comps, e).name)}`.trim()).join(", ");
    out.push(html`<p${mark(hot.has(`notes:${seat}`))}>Ongoing event rewards: ${names}</p>`);
  }
  return html`${out}`;
}

function playerRow(v, ctx, s, scored, sc, hot) {
  const comps = compsOf(ctx);
  const p = obj(arr(v.boards)[s]);
  const regions = obj(p.regions);
  const branchList = Object.entries(regions).filter(([, r]) => obj(r).tile);
  const branches = branchList.map(
    ([k, r]) => `${tileOf(comps, obj(r).tile).name} (${regionLabel(k).replace("Tier-", "T")}, ${int(obj(r).silver)})`,
  );
  const onBranches = branchList.reduce((a, [, r]) => a + int(obj(r).silver), 0);
  const lent = arr(p.lending).reduce((a, b) => a + int(b), 0);
  const silver = [
    `head office ${int(p.head_office)}`,
    `branches ${onBranches}`,
    lent ? `lent ${lent}` : "",
    `deposit area ${int(p.deposit_area)}${int(p.deposit_marker) ? ` (deposit, ${int(p.deposit_marker)} mo left)` : ""}`,
  ].filter(Boolean);
  const extras = [
    ...arr(p.cards).map((c) => `${cardLabel(comps, obj(c).card)}, ${int(obj(c).months)} mo`),
    ...arr(p.yamen).map((t) => `Yamen: ${str(t).replace(/_/g, " ")}`),
  ];
  const cell = (content, recent = false) => html`<td${mark(recent)}>${content}</td>`;
  const silverMoved = touchedAny(hot, `head-office:${s}`, `region:${s}:`, `lending:${s}:`, `deposit:${s}`);
  return html`<tr${arr(v.to_act).includes(s) ? html` class="to-act"` : ""}><td class="nowrap"><span class="swatch" data-bg="${seatColor(s)}"></span>&nbsp;${seatLabel(s, ctx)}${int(v.start_player, -1) === s ? " ★" : ""}</td>${cell(int(p.copper), hot.has(`copper:${s}`))}${cell(
    silver.join(" · "),
    silverMoved,
  )}${cell(int(p.reputation), hot.has(`reputation:${s}`))}${cell(int(p.exchange), hot.has(`exchange:${s}`))}${cell(
    branches.join(", ") || "—",
    touchedAny(hot, `region:${s}:`),
  )}${cell(extras.join("; ") || "—", touchedAny(hot, `card:${s}:`, `cards:${s}`, `notes:${s}`))}${
    scored ? cell(sc ? `${int(sc.score)} (rank ${int(sc.rank)})` : "—") : ""
  }</tr>`;
}

function drawHoldings(ctx) {
  const v = viewOf(ctx);
  const hot = touchedBy(obj(ctx).recent);
  const seat = viewerSeat(ctx);
  const n = playerCount(v, ctx);
  const boards = arr(v.boards);
  const own = seat === null ? html`<p><em>Spectating: no private holdings.</em></p>` : ownHoldings(v, ctx, seat, hot);
  const outcome = obj(obj(obj(ctx).doc).outcome);
  const scores = {};
  for (const sc of arr(outcome.scores)) scores[int(obj(sc).seat, -1)] = obj(sc);
  const scored = Object.keys(scores).length > 0;
  const rows = [];
  for (let s = 0; s < Math.min(Math.max(n, boards.length), boards.length); s++)
    rows.push(playerRow(v, ctx, s, scored, scores[s], hot));
  const summary = str(outcome.summary) ? html`<p><strong>${str(outcome.summary)}</strong></p>` : "";
  return html`<div class="pingyao-holdings">${own}<h3>Players</h3><table class="pingyao-players compact-table"><thead><tr><th>Seat</th><th>Copper</th><th>Silver</th><th>Rep.</th><th>Exch.</th><th>Branches</th><th>Exchanges · Yamen</th>${
    scored ? html`<th>Score</th>` : ""
  }</tr></thead><tbody>${rows}</tbody></table>${summary}</div>`;
}

// --- move labels ---------------------------------------------------------------------------------
const ACTION_OF = {
  BankEscort: "bank_escort",
  ConfuciusTemple: "confucius_temple",
  WestStreet: "west_street",
  MoneyHouseLend: "money_house",
  MoneyHouseDeposit: "money_house",
  CityGodTemple: "city_god_temple",
  Yamen: "yamen",
};

// Action Phase, bumping: the die already on the space goes to the resting area; a lower value pays
// the difference (large die 1 less, never below 0), a higher one gains it (large die +1); with the
// Yamen "any value" tile a lower value gains the plain difference.
function bumpNote(v, cmd, action, ctx) {
  const dice = arr(v.dice);
  const d = obj(dice[int(cmd.die, -1)]);
  const k = dice.findIndex((o) => obj(o).where === "space" && obj(o).action === action);
  if (k < 0 || !("value" in d)) return "";
  const set = int(cmd.value);
  const mine = set || int(d.value);
  const theirs = int(obj(dice[k]).value);
  let delta;
  if (mine < theirs) delta = set ? theirs - mine : -Math.max(0, theirs - mine - (d.large ? 1 : 0));
  else delta = mine - theirs + (d.large ? 1 : 0);
  const money = delta > 0 ? `, gain ${delta} copper` : delta < 0 ? `, pay ${-delta} copper` : "";
  return ` — bumps ${dieText(v, k, ctx)}${money}`;
}

function withValue(cmd, label, v, ctx) {
  const type = str(cmd.type).replace(/^pingyao\./, "");
  const set = int(cmd.value) ? ` (set the die to ${int(cmd.value)})` : "";
  return `${label}${set}${ACTION_OF[type] ? bumpNote(v, cmd, ACTION_OF[type], ctx) : ""}`;
}

export function describeMove(command, ctx) {
  try {
    return moveLabel(obj(command), ctx);
  } catch {
    return fallback(obj(command));
  }
}

function fallback(cmd) {
  const type = str(cmd.type) || "move";
  const fields = Object.entries(cmd)
    .filter(([k]) => k !== "type")
    .map(([k, x]) => `${k}=${typeof x === "object" ? JSON.stringify(x) : x}`)
    .join(", ");
  return fields ? `${type} (${fields})` : type;
}

function moveLabel(cmd, ctx) {
  const v = viewOf(ctx);
  const comps = compsOf(ctx);
  const type = str(cmd.type).replace(/^pingyao\./, "");
  const die = () => dieText(v, cmd.die, ctx);
  const dieValue = () => {
    const d = obj(arr(v.dice)[int(cmd.die, -1)]);
    return int(cmd.value) || int(d.value, 1);
  };
  switch (type) {
    case "PlacePublicDie":
      return cmd.action
        ? `Put ${die()} in the ${actionLabel(cmd.action)} resting area`
        : `Put ${die()} out of play this round`;
    case "PlaceStartingBranch":
      return `Open Taiyuan on the Tier-1 ${str(cmd.color)} region`;
    case "ClaimReward":
      return cmd.accept ? "Take the round goal's reward" : "Decline the round goal's reward";
    case "TakeYamenTile":
      return `Take Yamen tile "${yamenText(comps, cmd.tile)}" for ${yamenCost(comps, cmd.tile)} silver`;
    case "TakeBackDie":
      return `Take back ${die()} for an extra action`;
    case "AdjustDie":
      return `${cmd.skill === "die_minus" ? "Lasa" : cmd.skill === "die_plus" ? "Changde" : str(cmd.skill)}: ${die()} ${cmd.skill === "die_minus" ? "−1" : "+1"}`;
    case "SwapDice":
      return `Jinzhou: ${dieText(v, cmd.up, ctx)} +1, ${dieText(v, cmd.down, ctx)} −1`;
    case "RecallSilver":
      return `Jiujiang: pay 2 copper to bring a silver from ${regionLabel(cmd.region)} to the head office`;
    case "ConvertCopper":
      return `Convert ${10 * int(cmd.silver)} copper into ${int(cmd.silver)} silver`;
    case "EndPreparation":
      return "End preparation";
    case "Reroll":
      return `Reroll ${die()}`;
    case "DiscardDie":
      return `Discard ${die()} for 3 copper`;
    case "Decline":
      return `Return ${die()} without acting`;
    case "BankEscort": {
      const cost = int(obj(comps.build_cost)[String(int(cmd.tier))]);
      return withValue(
        cmd,
        `Bank Escort with ${die()}: open a ${regionLabel(`${int(cmd.tier)}${str(cmd.color)}`)} branch (draw 4${cost ? `, ${cost} copper` : ""})`,
        v,
        ctx,
      );
    }
    case "ConfuciusTemple": {
      const band = bandOf(dieValue());
      const extra = band === 0 ? ", then may move a silver" : band === 2 ? ", pay 2 copper" : "";
      return withValue(cmd, `Confucius Temple with ${die()}: a branch teller${extra}`, v, ctx);
    }
    case "WestStreet":
      return withValue(
        cmd,
        `West Street with ${die()}: an exchange of up to ${[3, 2, 1][bandOf(dieValue())]} month(s)`,
        v,
        ctx,
      );
    case "MoneyHouseLend":
      return withValue(
        cmd,
        `Money House with ${die()}: lend ${int(cmd.amount)} silver for ${int(cmd.months)} month(s)`,
        v,
        ctx,
      );
    case "MoneyHouseDeposit":
      return withValue(cmd, `Money House with ${die()}: accept a deposit for ${int(cmd.months)} month(s)`, v, ctx);
    case "CityGodTemple":
      return withValue(
        cmd,
        `City God Temple with ${die()}${cmd.extra ? " (+1 more reputation for 1 copper)" : ""}`,
        v,
        ctx,
      );
    case "Yamen":
      return withValue(
        cmd,
        `Yamen with ${die()}: "${yamenText(comps, cmd.tile)}" for ${yamenCost(comps, cmd.tile)} silver + ${[0, 2, 4][bandOf(dieValue())]} copper`,
        v,
        ctx,
      );
    case "ChooseBranch": {
      const region = v.pending && typeof v.pending === "object" ? str(v.pending.region) : "";
      return `Open ${tileLabel(comps, cmd.tile)}${region ? ` in ${regionLabel(region)}` : ""}`;
    }
    case "PlaceTeller": {
      const target = str(cmd.target);
      if (!target) return "Lose the branch teller (no free position)";
      const [region, slot] = target.split(":");
      const p = obj(arr(v.boards)[int(obj(v.pending).seat, -1)]);
      const tile = obj(obj(p.regions)[region]).tile;
      const where = `${regionLabel(region)}${tile ? ` (${tileOf(comps, tile).name})` : ""}`;
      if (slot === "teller") return `Branch teller on ${where}'s teller position`;
      if (slot === "manager") return `Branch teller on ${where}'s management position`;
      if (slot === "wait") return `Branch teller waits on ${where}`;
      return `Branch teller on ${target}`;
    }
    case "MoveSilver":
      return cmd.region ? `Move a silver from the head office to ${regionLabel(cmd.region)}` : "Move no silver";
    case "ChooseExchangeCard":
      return `Keep exchange card ${cardLabel(comps, cmd.card)}`;
    case "PlaceExchange":
      return `Place the exchange for ${int(cmd.months)} month(s): deposit at ${regionLabel(cmd.deposit)}, withdraw from ${regionLabel(cmd.withdraw)}`;
    case "UseEntrySkill": {
      const skill = str(obj(v.pending).skill);
      const what = SKILL_TEXT[skill] ? ` (${SKILL_TEXT[skill]})` : "";
      return cmd.use ? `Use the entry skill${what}` : `Skip the entry skill${what}`;
    }
    case "ResolveExchange":
      return `Resolve exchange ${cardLabel(comps, cmd.card)} next`;
    case "TransferFunds":
      return `Emergency transfer: a silver from ${regionLabel(cmd.source)}${cmd.fee_source ? `, fee paid with a silver from ${regionLabel(cmd.fee_source)}` : ""}`;
    default:
      return fallback(cmd);
  }
}
