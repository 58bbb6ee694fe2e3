// The table around a game (docs/frontends.md, "The table and bots"): who plays each seat (a person,
// a bot, or a bot since its holder resigned or left), the clocks, and what a seat may do at the
// table — resign, leave (each asks to be pressed twice), hand the seat to a bot and take it back,
// ask for a take-back and answer one, fill an open seat with a bot, and the rematch once it is over.
//
// Its state is page.table ({shown, confirming, confirmTimer}); it reads page.botLevels (the title's
// bot levels), and what else it needs of the page comes through page.hooks (game.js): refresh,
// setBusy, and send (a command, over the socket or by POST, its events taken in).

import {
  call,
  clockText,
  createdHere,
  heldSeats,
  playerCode,
  saveToken,
  seatName,
  seatRoute,
  tokenFor,
} from "./api.js";
import { clockHtml, tickClocks } from "./clock.js";
import { html } from "./html.js";
import { problemHtml } from "./problems.js";

/** How long Resign and Leave wait for the second press. */
export const CONFIRM_MS = 4000;

const REASONS = {
  resigned: "resigned",
  left: "left",
  timeouts: "timed out too often",
  timeout: "forfeited on time",
};

/** The table's state on a page. */
export function tableState() {
  return { shown: null, confirming: null, confirmTimer: null };
}

function replacement(doc, seat) {
  return ((doc.table && doc.table.replaced) || []).find((r) => r.seat === seat) || null;
}

/** Who plays *seat*: {kind: "open"|"person"|"bot"|"replaced", level, reason}. */
export function whoPlays(doc, seat) {
  const info = doc.seats.find((s) => s.seat === seat) || { claimed: false, bot: null };
  const replaced = replacement(doc, seat);
  if (replaced) return { kind: "replaced", level: info.bot, reason: replaced.reason };
  if (info.bot) return { kind: "bot", level: info.bot };
  return { kind: info.claimed ? "person" : "open" };
}

/** "a bot (heuristic)" when a bot plays *seat* (handed over, or since it resigned or left); else null. */
export function botPlays(doc, seat) {
  if (seat == null) return null;
  const who = whoPlays(doc, seat);
  if (who.kind === "bot") return `a bot (${who.level})`;
  if (who.kind === "replaced") return `a bot (the seat ${REASONS[who.reason] || who.reason})`;
  return null;
}

/** Who plays a seat, in the seat's row: "player", "bot (random)", "resigned (bot plays)", "open". */
export function whoLabel(who) {
  if (who.kind === "bot") return `bot (${who.level})`;
  if (who.kind === "replaced") return `${REASONS[who.reason] || who.reason} (bot plays)`;
  if (who.kind === "open") return "open";
  return "player";
}

/** A table event in words, for the log (the service's `yamen replay` says the same). */
export function narrateTable(event) {
  const seat = event.seat;
  switch (event.type) {
    case "table.Arranged": {
      const options = event.options || {};
      const parts = [];
      if (options.clock) parts.push(`clock ${clockText(options.clock)}`);
      if (options.takebacks && options.takebacks !== "off") parts.push(`take-backs ${options.takebacks}`);
      return `Table: ${parts.join("; ") || "no clock"}`;
    }
    case "table.ClockPunched":
      return seat < 0 ? "The clocks start" : `${seatName(seat)}'s clock stops`;
    case "table.TimedOut":
      return `${seatName(seat)} ran out of time`;
    case "table.SeatReplaced": {
      const why =
        {
          resigned: "resigned",
          left: "left the table",
          timeouts: "ran out of time too often",
          timeout: "forfeited on time",
        }[event.reason] || event.reason;
      return `${seatName(seat)} ${why}: a bot plays the seat from now on`;
    }
    case "table.GameConceded":
      return `${seatName(seat)} conceded: the game ends`;
    case "table.Checkpoint":
      return `${seatName(seat)} acts${event.undoable ? "" : " (cannot be taken back)"}`;
    case "table.TakebackRequested":
      return `${seatName(seat)} asks to take back its last move`;
    case "table.TakebackConsented":
      return `${seatName(seat)} agrees to the take-back`;
    case "table.TakebackDeclined":
      return `${seatName(seat)} declines the take-back`;
    case "table.TakenBack":
      return `${seatName(seat)}'s last move is taken back`;
    default:
      return event.type;
  }
}

/** The table's information line: the clock, when bots take timed-out seats, the take-backs. */
export function tableInfo(table) {
  const info = [];
  if (table && table.clock) info.push(`clock: ${clockText(table.clock)}`);
  if (table && table.clock && table.clock.on_timeout === "bot" && table.zombie_after) {
    info.push(`a bot takes a seat for good after ${table.zombie_after} timeouts`);
  }
  if (table && table.takebacks && table.takebacks !== "off") info.push(`take-backs: ${table.takebacks}`);
  return info;
}

function levelOptions(levels) {
  return levels.map((level) => html`<option value="${level}">${level}</option>`);
}

function seatRow(doc, seat, me, levels) {
  const who = whoPlays(doc, seat);
  const acting = doc.status === "active" && doc.to_act.includes(seat);
  const fill =
    doc.status === "open" && who.kind === "open" && levels.length && createdHere(doc.game_id)
      ? html` <select class="bot-level small" data-seat="${seat}" aria-label="bot level for ${seatName(seat)}">${levelOptions(levels)}</select>
             <button type="button" class="small" data-action="fill-bot" data-seat="${seat}">Fill with a bot</button>`
      : "";
  return html`<li class="seat-row${acting ? " acting" : ""}${seat === me ? " mine" : ""}" data-seat="${seat}" data-who="${who.kind}">
        <strong>${seatName(seat)}</strong>${seat === me ? " (you)" : ""}
        <span class="who">${whoLabel(who)}</span>${acting ? html` <span class="to-act-mark">to act</span>` : ""}
        ${clockHtml(doc, seat)}${fill}</li>`;
}

/** The take-back question to this seat, or where a take-back stands. */
function takebackAsk(table, me) {
  const requested = table ? table.takeback_requested_by : null;
  if (requested == null) return "";
  if (requested !== me && !(table.takeback_consents || []).includes(me)) {
    return html`<p class="takeback-ask" id="takeback-ask">${seatName(requested)} asks to take back its last move.
          <button type="button" class="small" data-action="accept-takeback">Accept</button>
          <button type="button" class="small" data-action="decline-takeback">Decline</button></p>`;
  }
  return html`<p class="takeback-ask muted">${requested === me ? "You ask" : `${seatName(requested)} asks`} to take back a move; waiting for the others.</p>`;
}

/** What this seat may do at the table now (buttons), and a take-back question to answer. */
function seatActions(page, mine) {
  const { doc } = page;
  const { botLevels } = page;
  const { confirming } = page.table;
  const table = doc.table;
  const me = page.seat;
  const actions = [];
  let ask = "";
  if (me != null && doc.status === "active" && mine.kind !== "replaced") {
    if (table && table.takebacks && table.takebacks !== "off" && mine.kind === "person") {
      const why = table.can_take_back
        ? "Ask to undo your last move"
        : "Only your last move, while nobody has moved since and it revealed nothing";
      actions.push(
        html`<button type="button" data-action="takeback" id="take-back" title="${why}"${
          table.can_take_back ? "" : html` disabled`
        }>Take back</button>`,
      );
      ask = takebackAsk(table, me);
    }
    const confirm = (action, label, again) =>
      confirming === action
        ? html`<button type="button" class="danger confirm" data-action="${action}" id="${action}">${again}</button>`
        : html`<button type="button" data-action="${action}" id="${action}">${label}</button>`;
    actions.push(confirm("resign", "Resign", "Really resign?"));
    actions.push(confirm("leave", "Leave", "Really leave?"));
    if (mine.kind === "bot") {
      actions.push(html`<button type="button" data-action="take-seat" id="take-seat">Play my seat again</button>`);
    } else if (mine.kind === "person" && botLevels.length) {
      actions.push(html`<span class="hand-over"><button type="button" data-action="hand-to-bot" id="hand-to-bot">Let a bot play my seat</button>
        <select class="bot-level small" id="hand-level" aria-label="bot level">${levelOptions(botLevels)}</select></span>`);
    }
  }
  if (me != null && doc.status === "finished") {
    actions.push(html`<button type="button" data-action="rematch" id="rematch">Rematch</button>`);
  }
  return { actions, ask };
}

/** Draws the table panel (#table) when what it shows changed, then its clocks. */
export function renderTable(page) {
  const { doc } = page;
  const state = page.table;
  const table = doc.table;
  const me = page.seat;
  const mine = me == null ? null : whoPlays(doc, me);
  const key = JSON.stringify([doc.version, doc.status, doc.seats, doc.to_act, table, state.confirming, page.botLevels]);
  if (state.shown === key) return;
  state.shown = key;
  const rows = doc.seats.map(({ seat }) => seatRow(doc, seat, me, page.botLevels));
  const info = tableInfo(table);
  const { actions, ask } = seatActions(page, mine);
  const conceded =
    table && table.conceded_by != null ? html`<p class="conceded">${seatName(table.conceded_by)} conceded.</p>` : "";
  page.root.querySelector("#table").innerHTML = html`<h3>Table</h3>
    <ul class="seat-rows">${rows}</ul>
    ${info.length ? html`<p class="table-info muted">${info.join(" · ")}</p>` : ""}
    ${conceded}${ask}
    ${actions.length ? html`<div class="table-actions">${actions.map((action, i) => html`${i ? " " : ""}${action}`)}</div>` : ""}`;
  tickClocks(page.root, page.clock.now());
}

/** The page's answer to a click on one of the table's buttons (data-action). */
export async function tableAction(page, button) {
  const action = button.dataset.action;
  const state = page.table;
  const { base, token, seat } = page;
  if (action === "resign" || action === "leave") {
    if (state.confirming !== action) {
      state.confirming = action; // irreversible: the button asks to be pressed again
      clearTimeout(state.confirmTimer);
      state.confirmTimer = setTimeout(() => {
        state.confirming = null;
        if (page.doc) renderTable(page);
      }, CONFIRM_MS);
      renderTable(page);
      return;
    }
    state.confirming = null;
    clearTimeout(state.confirmTimer);
    await tableRequest(page, () => page.hooks.send({ type: action === "resign" ? "table.Resign" : "table.Leave" }));
  } else if (action === "takeback") {
    await tableRequest(page, () => page.hooks.send({ type: "table.RequestTakeback" }));
  } else if (action === "accept-takeback" || action === "decline-takeback") {
    const accept = action === "accept-takeback";
    await tableRequest(page, () => page.hooks.send({ type: "table.AnswerTakeback", accept }));
  } else if (action === "hand-to-bot") {
    const level = page.root.querySelector("#hand-level").value;
    await tableRequest(page, () => call(`${base}/seats/${seat}/bot`, { method: "PUT", token, body: { level } }));
  } else if (action === "take-seat") {
    await tableRequest(page, () => call(`${base}/seats/${seat}/bot`, { method: "DELETE", token }));
  } else if (action === "fill-bot") {
    const filled = Number(button.dataset.seat);
    const level = page.root.querySelector(`select.bot-level[data-seat="${filled}"]`).value;
    // As the creator: the seat's token this page holds (bound to the creator's guest), else its code.
    const creator = token || playerCode();
    await tableRequest(page, () =>
      call(`${base}/seats/${filled}/bot`, { method: "PUT", token: creator, body: { level } }),
    );
  } else if (action === "rematch") {
    await rematch(page);
  }
}

/** Stops the table's timer (the page is closing). */
export function stopTable(page) {
  clearTimeout(page.table.confirmTimer);
}

/** Runs one table request with the page busy; a refusal shows like a refused move. */
async function tableRequest(page, request) {
  if (page.submitting) return;
  page.submitting = true;
  page.hooks.setBusy();
  for (const button of page.root.querySelectorAll("#table button")) button.disabled = true;
  const errorBox = page.root.querySelector("#move-error");
  try {
    await request();
    errorBox.innerHTML = "";
  } catch (error) {
    errorBox.innerHTML = problemHtml(error);
  } finally {
    page.submitting = false;
  }
  page.shown = null;
  page.table.shown = null;
  await page.hooks.refresh();
}

/** The rematch: every token this browser holds for this game holds the same seat in the new one. */
async function rematch(page) {
  if (page.submitting) return;
  page.submitting = true;
  page.hooks.setBusy();
  const errorBox = page.root.querySelector("#move-error");
  try {
    const created = await call(`${page.base}/rematch`, { method: "POST", token: page.token });
    for (const { gameId, seat } of heldSeats()) {
      if (gameId !== page.gameId) continue;
      const token = tokenFor(gameId, seat);
      if (token) saveToken(created.game_id, seat, token);
    }
    errorBox.innerHTML = "";
    page.submitting = false;
    location.hash = seatRoute(created.game_id, page.seat);
  } catch (error) {
    errorBox.innerHTML = problemHtml(error);
    page.submitting = false;
    page.hooks.setBusy();
  }
}
