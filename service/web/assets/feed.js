// The narrated feed of a game page: each event in the game's words (the service narrates it, as the
// caller sees it: GET …/events?include=narration and the stream with it), the moves since this
// seat's last one highlighted, and a bot's burst of moves told in one line that opens to the list.

import { html } from "./html.js";

/** Consecutive events of one bot seat from this many on are told as one burst. */
export const BURST_MIN = 3;

/** Table events that always stand alone, never folded into a burst: what a person did or what
 * happened to a seat (a resignation, a concession, a timeout, a take-back, the table's setup). */
const ALONE = new Set([
  "table.Arranged",
  "table.SeatReplaced",
  "table.GameConceded",
  "table.TimedOut",
  "table.TakebackRequested",
  "table.TakebackConsented",
  "table.TakebackDeclined",
  "table.TakenBack",
]);

const foldable = (entry, bots) => entry.seat != null && bots.has(entry.seat) && !ALONE.has(entry.type);

/** A feed entry from an event envelope; *fallback(event)* words an event the service did not narrate. */
export function feedEntry(envelope, fallback = () => null) {
  const event = envelope.event;
  const type = event ? event.type : "(hidden from you)";
  const text = typeof envelope.text === "string" && envelope.text ? envelope.text : event ? fallback(event) : null;
  return { seq: envelope.seq, seat: envelope.seat, type, text };
}

/** Where the recent part of *entries* (anything with `seq` and `seat`, oldest first) starts: the
 * seq of *mine*'s last entry (a spectator, *mine* null: just before the last seat's run).  -1 when
 * nothing is recent (the seat has no entry among them). */
export function recentSince(entries, mine = null) {
  let since = -1;
  if (mine != null) {
    for (const entry of entries) if (entry.seat === mine) since = entry.seq;
  } else if (entries.length) {
    let index = entries.length - 1;
    const last = entries[index].seat;
    while (index > 0 && entries[index - 1].seat === last) index--;
    since = entries[index].seq - 1;
  }
  return since;
}

/** The recent entries (see recentSince), oldest first: what happened since this seat last acted. */
export function recentEntries(entries, mine = null) {
  const since = recentSince(entries, mine);
  return since < 0 ? [] : entries.filter((entry) => entry.seq > since);
}

/** The feed's items, oldest first: single entries, and bursts (a bot seat's run of BURST_MIN or
 * more).  *bots*: the seats bots play; *mine*: this page's seat (null for a spectator).  An item is
 * `recent` when it came after this seat's last event (a spectator: the last seat's run). */
export function feedItems(entries, { bots = new Set(), mine = null } = {}) {
  const since = recentSince(entries, mine);
  const items = [];
  let index = 0;
  while (index < entries.length) {
    const entry = entries[index];
    let end = index + 1;
    if (foldable(entry, bots)) {
      while (end < entries.length && entries[end].seat === entry.seat && foldable(entries[end], bots)) end++;
    }
    if (end - index >= BURST_MIN) {
      const run = entries.slice(index, end);
      items.push({
        kind: "burst",
        seat: entry.seat,
        entries: run,
        recent: since >= 0 && run[run.length - 1].seq > since,
      });
      index = end;
    } else {
      items.push({ kind: "entry", entry, recent: entry.seq > since && since >= 0 });
      index += 1;
    }
  }
  return items;
}

/** The burst's one line: "Bot (Seat 2) made 12 moves: first …; last". */
export function burstSummary(seat, run, seatName = (n) => `Seat ${n}`) {
  const told = run.filter((entry) => entry.text).map((entry) => entry.text);
  const words =
    told.length > 2 ? `${told[0]}; … ${told[told.length - 1]}` : told.length ? told.join("; ") : "(hidden from you)";
  return `Bot (${seatName(seat)}) made ${run.length} moves: ${words}`;
}

function entryHtml(entry, recent, seatName) {
  return html`<li data-seq="${entry.seq}" class="${entry.text ? "narrated" : ""}${recent ? " recent" : ""}">
    <span class="seq">${entry.seq}</span>
    ${
      entry.text
        ? html`<span class="narration" title="${entry.type}">${entry.text}</span>`
        : html`<span class="type">${entry.type}</span>`
    }${entry.seat != null && !entry.text ? html` <span class="muted">${seatName(entry.seat)}</span>` : ""}</li>`;
}

/** The feed as markup, newest first (what the page shows). */
export function feedHtml(items, seatName = (n) => `Seat ${n}`) {
  return html`${items
    .slice()
    .reverse()
    .map((item) =>
      item.kind === "burst"
        ? html`<li class="burst${item.recent ? " recent" : ""}" data-seq="${item.entries[item.entries.length - 1].seq}">
            <details><summary><span class="burst-summary">${burstSummary(item.seat, item.entries, seatName)}</span></summary>
              <ol class="burst-moves">${item.entries
                .slice()
                .reverse()
                .map((entry) => entryHtml(entry, false, seatName))}</ol>
            </details></li>`
        : entryHtml(item.entry, item.recent, seatName),
    )}`;
}
