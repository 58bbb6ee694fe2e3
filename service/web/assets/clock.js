// The clocks of a game page: the service's time as seen from this device (Server-Time-Ms on HTTP
// answers, `t` on the realtime socket's pings), each seat's clock as markup, and the running clocks
// counted down on the service's time.

import { html } from "./html.js";

/** How often the running clocks are redrawn. */
export const TICK_MS = 250;

/** A running clock under this many milliseconds shows as low. */
export const LOW_MS = 10_000;

/** The service's clock as this device sees it: an offset added to Date.now(). */
export class ServerClock {
  constructor(now = Date.now) {
    this.offset = 0;
    this.localNow = now;
  }

  /** Notes the service's time (Unix ms) heard at *heardAt* (this device's clock; default: just
   * now); nonsense is ignored. */
  note(serverMs, heardAt = this.localNow()) {
    const value = Number(serverMs);
    if (Number.isFinite(value) && value > 0) this.offset = value - heardAt;
  }

  /** Notes the Server-Time-Ms header of an HTTP answer (api.js call()'s onResponse), received at
   * *heardAt* (default: just now). */
  noteResponse(response, heardAt = this.localNow()) {
    const header = response && response.headers ? response.headers.get("Server-Time-Ms") : null;
    if (header) this.note(header, heardAt);
  }

  /** The service's clock now, in Unix milliseconds. */
  now() {
    return this.localNow() + this.offset;
  }
}

/** 83000 -> "1:23"; days and hours when long; never negative. */
export function formatDuration(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const days = Math.floor(total / 86400);
  const hours = Math.floor((total % 86400) / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  const two = (n) => String(n).padStart(2, "0");
  if (days) return `${days}d ${hours}h ${two(minutes)}m`;
  if (hours) return `${hours}:${two(minutes)}:${two(seconds)}`;
  return `${minutes}:${two(seconds)}`;
}

/** The text of a running clock with *leftMs* to go. */
export function countdownText(leftMs) {
  return leftMs > 0 ? formatDuration(leftMs) : "0:00 — time is up";
}

/** The clock of *seat* in the table's row (an html`` fragment; empty without a clock): running
 * (data-deadline, counted down by tickClocks), or stopped with the time left in a total-time game,
 * and the seat's timeouts so far. */
export function clockHtml(doc, seat) {
  const table = doc.table;
  if (!table || !table.clock) return html``;
  const clock = (table.clocks || []).find((c) => c.seat === seat);
  if (!clock) return html``;
  const timeouts = clock.timeouts
    ? html` <small class="timeouts">${clock.timeouts} timeout${clock.timeouts === 1 ? "" : "s"}</small>`
    : "";
  if (clock.deadline_ms != null && doc.status === "active") {
    return html`<span class="clock running" data-seat="${seat}" data-deadline="${clock.deadline_ms}">…</span>${timeouts}`;
  }
  if (table.clock.mode === "total" && clock.remaining_ms != null) {
    return html`<span class="clock stopped" data-seat="${seat}">${formatDuration(clock.remaining_ms)}</span>${timeouts}`;
  }
  return html`${timeouts}`;
}

/** Counts the running clocks under *root* down, on the service's time *now* (Unix ms). */
export function tickClocks(root, now) {
  if (!root) return;
  for (const element of root.querySelectorAll(".clock.running[data-deadline]")) {
    const left = Number(element.dataset.deadline) - now;
    element.textContent = countdownText(left);
    element.dataset.leftMs = String(Math.max(0, Math.round(left)));
    element.classList.toggle("low", left < LOW_MS);
  }
}

/** Ticks the clocks under *root* every TICK_MS until the answered stop function is called. */
export function startTicking(root, clock) {
  const timer = setInterval(() => tickClocks(root, clock.now()), TICK_MS);
  return () => clearInterval(timer);
}
