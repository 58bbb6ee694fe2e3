// A game's page, for one seat (its token from localStorage) or for spectators: the board, the
// seat's holdings and legal moves, live updates (server-sent events, else polling), the event log,
// and after the end the outcome, the seed, the verification and a replay of every version.
//
// The table around the game (docs/frontends.md, "The table and bots"): who plays each seat (a
// person, a bot, or a bot since its holder resigned or left), the clocks counted down on the
// service's time (Server-Time-Ms), resigning, leaving, handing the seat to a bot and back,
// take-backs with their answers, and a rematch once the game is over.
//
// The root element carries the page's state for scripts and tests: data-version (the version on
// screen), data-status, data-to-act and data-busy ("1" while loading or submitting).

import {
  API,
  Problem,
  call,
  catalogue,
  clockText,
  commandDescriptions,
  components,
  esc,
  freshKey,
  heldSeats,
  pageUrl,
  saveToken,
  seatName,
  seatRoute,
  spectatorRoute,
  tokenFor,
} from "./api.js";
import * as generic from "./generic.js";

const LOG_LENGTH = 20;
const POLL_MS = 2000;
const DEBOUNCE_MS = 80;
const TICK_MS = 250;
const CONFIRM_MS = 4000;

const boardModules = new Map();

/** The title's board module (service/web/assets/boards/<kind>.js), imported once. */
function boardModule(kind) {
  if (!/^[a-z0-9_-]+$/.test(kind)) return Promise.reject(new Error(`no board module for kind ${kind}`));
  if (!boardModules.has(kind)) {
    boardModules.set(kind, import(new URL(`./boards/${kind}.js`, import.meta.url).href));
  }
  return boardModules.get(kind);
}

function problemHtml(error) {
  if (!(error instanceof Problem)) return `<p class="error">${esc(error.message || error)}</p>`;
  const parts = [`<strong class="problem-title">${esc(error.title)}</strong>`];
  if (error.detail) parts.push(`<span class="problem-detail">${esc(error.detail)}</span>`);
  if (error.code) parts.push(`code <code class="problem-code">${esc(error.code)}</code>`);
  if (error.rule) parts.push(`rule <code class="problem-rule">${esc(error.rule)}</code>`);
  return `<p class="error problem">${parts.join(" · ")}</p>`;
}

/** Draws with the title's module, or the generic drawing (and a note) when it is missing or throws. */
function draw(page, part, ctx) {
  const module = page.module;
  if (module && typeof module[part] === "function") {
    try {
      const drawn = module[part](ctx);
      if (typeof drawn !== "string") throw new Error(`${part} did not return a string`);
      return drawn;
    } catch (error) {
      page.notes.set(part, `boards/${ctx.kind}.js ${part} failed: ${error.message || error}`);
      console.error(error);
    }
  }
  return generic[part](ctx);
}

function moveLabel(page, command, ctx) {
  const module = page.module;
  if (module && typeof module.describeMove === "function") {
    try {
      const label = module.describeMove(command, ctx);
      if (typeof label === "string" && label) return label;
    } catch (error) {
      page.notes.set("describeMove", `boards/${ctx.kind}.js describeMove failed: ${error.message || error}`);
    }
  }
  return generic.describeMove(command);
}

export function showGame(main, gameId, seat) {
  const token = seat == null ? null : tokenFor(gameId, seat);
  const page = {
    gameId,
    seat: token ? seat : null,
    token,
    doc: null,
    legal: null,
    module: null,
    components: null,
    descriptions: new Map(),
    notes: new Map(),
    log: [],
    lastSeq: 0,
    source: null,
    streaming: false,
    streamFailures: 0,
    pollTimer: null,
    reopenTimer: null,
    debounceTimer: null,
    refreshing: null,
    again: false,
    submitting: false,
    shown: null,
    endingShown: false,
    closed: false,
    offset: 0, // Server-Time-Ms - Date.now(): the service's clock as seen from this device
    botLevels: [],
    tableShown: null,
    confirming: null, // "resign" | "leave" while its button asks to be pressed again
    confirmTimer: null,
    tickTimer: null,
  };
  const base = `/v1/games/${encodeURIComponent(gameId)}`;
  page.base = base;

  main.innerHTML = `
    <section id="game" class="game" data-game-id="${esc(gameId)}" data-seat="${page.seat ?? ""}" data-busy="1">
      <header class="game-head">
        <h1 id="game-title">${esc(gameId)}</h1>
        <div id="status-line" class="status-line"></div>
        <div id="game-links" class="muted"></div>
      </header>
      <div id="token-note"></div>
      <div id="page-error"></div>
      <div id="notes"></div>
      <div class="game-grid">
        <div class="board-col">
          <div id="board" class="board"></div>
          <div id="holdings" class="panel holdings"></div>
        </div>
        <div class="side-col">
          <div id="table" class="panel table-panel"></div>
          <div id="moves" class="panel moves"></div>
          <div id="move-error" class="move-error"></div>
          <div class="panel"><h3>Events <small id="live" class="muted"></small></h3><ol id="log" class="log"></ol></div>
        </div>
      </div>
      <section id="ending" class="ending" hidden></section>
      <section id="replay" class="replay panel" hidden></section>
    </section>`;
  const root = main.querySelector("#game");
  page.root = root;
  if (seat != null && !token) {
    root.querySelector("#token-note").innerHTML = `<p class="error">This browser holds no token for ${esc(
      seatName(seat),
    )} of this game: you are watching as a spectator. Join an open seat from the <a href="#/">lobby</a>.</p>`;
  }
  root.querySelector("#moves").addEventListener("click", (clicked) => {
    const button = clicked.target.closest("button.move");
    if (button && !button.disabled) submit(page, Number(button.dataset.index));
  });
  root.querySelector("#table").addEventListener("click", (clicked) => {
    const button = clicked.target.closest("button[data-action]");
    if (button && !button.disabled) tableAction(page, button);
  });
  page.tickTimer = setInterval(() => tickClocks(page), TICK_MS);

  start(page);
  return () => stop(page);
}

async function start(page) {
  try {
    page.descriptions = await commandDescriptions();
  } catch {
    page.descriptions = new Map();
  }
  await loadEvents(page);
  await refresh(page);
  openStream(page);
}

function stop(page) {
  page.closed = true;
  if (page.source) page.source.close();
  clearInterval(page.pollTimer);
  clearTimeout(page.reopenTimer);
  clearTimeout(page.debounceTimer);
  clearTimeout(page.confirmTimer);
  clearInterval(page.tickTimer);
}

function setBusy(page) {
  page.root.dataset.busy = page.refreshing || page.submitting ? "1" : "0";
}

// --- loading -----------------------------------------------------------------------------------

function refresh(page) {
  if (page.closed) return Promise.resolve();
  if (page.refreshing) {
    page.again = true;
    return page.refreshing;
  }
  page.refreshing = (async () => {
    do {
      page.again = false;
      setBusy(page);
      try {
        await load(page);
        page.root.querySelector("#page-error").innerHTML = "";
      } catch (error) {
        page.root.querySelector("#page-error").innerHTML = problemHtml(error);
      }
    } while (page.again && !page.closed);
  })().finally(() => {
    page.refreshing = null;
    setBusy(page);
  });
  setBusy(page);
  return page.refreshing;
}

function scheduleRefresh(page) {
  clearTimeout(page.debounceTimer);
  page.debounceTimer = setTimeout(() => refresh(page), DEBOUNCE_MS);
}

async function load(page) {
  const doc = await call(page.base, { token: page.token, onResponse: (response) => noteServerTime(page, response) });
  if (!page.module && !page.moduleTried) {
    page.moduleTried = true;
    try {
      const entry = (await catalogue()).games.find((game) => game.kind === doc.kind);
      page.botLevels = (entry && entry.bot_levels) || [];
    } catch {
      page.botLevels = [];
    }
    try {
      page.module = await boardModule(doc.kind);
    } catch (error) {
      page.notes.set("module", `boards/${doc.kind}.js could not be loaded (${error.message || error}); generic board shown`);
    }
    try {
      page.components = await components(doc.kind);
    } catch (error) {
      page.notes.set("components", `the component data could not be loaded: ${error.message || error}`);
    }
  }
  let legal = null;
  if (page.token && doc.status === "active" && doc.to_act.includes(page.seat) && !botPlays(doc, page.seat)) {
    legal = await call(`${page.base}/legal-moves`, { token: page.token });
    if (legal.version !== doc.version) page.again = true; // a move landed in between: read again
  }
  if (!page.streaming) await loadEvents(page);
  page.doc = doc;
  page.legal = legal;
  render(page);
  if (doc.status === "finished" && !page.endingShown) {
    page.endingShown = true;
    await showEnding(page);
  }
  managePolling(page);
}

async function loadEvents(page) {
  try {
    const after = page.lastSeq;
    const history = await call(`${page.base}/events?after=${after}&limit=1000`, { token: page.token });
    addEvents(page, history.events);
    if (history.next_after != null) await loadEvents(page);
  } catch (error) {
    if (error instanceof Problem && error.status === 404) throw error;
  }
}

function addEvents(page, envelopes) {
  for (const envelope of envelopes) {
    if (envelope.seq <= page.lastSeq) continue;
    page.lastSeq = envelope.seq;
    const event = envelope.event;
    const type = event ? event.type : "(hidden from you)";
    page.log.push({
      seq: envelope.seq,
      seat: envelope.seat,
      type,
      text: event && type.startsWith("table.") ? narrateTable(event) : null,
    });
  }
  if (page.log.length > LOG_LENGTH) page.log.splice(0, page.log.length - LOG_LENGTH);
  renderLog(page);
}

// --- live updates ------------------------------------------------------------------------------

async function openStream(page) {
  if (page.closed || (page.doc && page.doc.status === "finished")) return;
  let url;
  try {
    if (page.token) {
      const ticket = await call(`${page.base}/events/tickets`, { method: "POST", token: page.token });
      url = API + ticket.stream + (ticket.stream.includes("?") ? "&" : "?") + `after=${page.lastSeq}`;
    } else {
      url = `${API}${page.base}/events/stream?after=${page.lastSeq}`;
    }
  } catch (error) {
    streamFailed(page, `no stream ticket (${error.message || error})`);
    return;
  }
  if (page.closed) return;
  const source = new EventSource(url);
  page.source = source;
  source.addEventListener("open", () => {
    page.streaming = true;
    page.streamFailures = 0;
    setLive(page, "live");
    managePolling(page);
    scheduleRefresh(page); // anything that happened while connecting
  });
  source.addEventListener("event", (message) => {
    try {
      addEvents(page, [JSON.parse(message.data)]);
    } catch {
      // a malformed message still means something happened
    }
    scheduleRefresh(page);
  });
  // A seat was claimed (claims are not events): the table, and the game once the last one starts it.
  source.addEventListener("seats", () => scheduleRefresh(page));
  source.addEventListener("end", () => {
    source.close();
    page.streaming = false;
    setLive(page, "the game has ended");
    scheduleRefresh(page);
  });
  source.addEventListener("error", () => {
    if (source.readyState === EventSource.CLOSED) {
      page.streaming = false;
      streamFailed(page, "the stream closed");
    } else {
      setLive(page, "reconnecting…");
    }
  });
}

function streamFailed(page, why) {
  if (page.closed) return;
  page.streaming = false;
  page.streamFailures += 1;
  setLive(page, `polling every ${POLL_MS / 1000} s (${why})`);
  managePolling(page);
  if (page.streamFailures <= 5 && !(page.doc && page.doc.status === "finished")) {
    clearTimeout(page.reopenTimer);
    page.reopenTimer = setTimeout(() => openStream(page), 3000 * page.streamFailures);
  }
}

/** Polls while there is no stream (the stream announces claims with `seats` messages). */
function managePolling(page) {
  const finished = page.doc && page.doc.status === "finished";
  const wanted = !page.closed && !finished && !page.streaming;
  if (wanted && !page.pollTimer) {
    page.pollTimer = setInterval(() => poll(page), POLL_MS);
  } else if (!wanted && page.pollTimer) {
    clearInterval(page.pollTimer);
    page.pollTimer = null;
  }
}

async function poll(page) {
  if (page.refreshing || page.submitting || !page.doc) return;
  try {
    // The ETag is the version, and a join changes the seats (and the status) but not the version:
    // while the game waits for players, ask for the whole document.
    const open = page.doc.status === "open";
    const headers = open ? {} : { "If-None-Match": `"${page.doc.version}"` };
    const changed = await call(page.base, { token: page.token, headers, allow304: true });
    const claimed = (doc) => doc.seats.map((seat) => `${seat.claimed}:${seat.bot || ""}`).join(",");
    if (
      changed &&
      (changed.version !== page.doc.version ||
        changed.status !== page.doc.status ||
        claimed(changed) !== claimed(page.doc))
    ) {
      refresh(page);
    }
  } catch {
    // the next poll tries again
  }
}

function setLive(page, text) {
  const live = page.root.querySelector("#live");
  if (live) live.textContent = `(${text})`;
}

// --- moves -------------------------------------------------------------------------------------

async function submit(page, index) {
  if (page.submitting || !page.legal) return;
  const command = page.legal.moves[index];
  const version = page.legal.version;
  page.submitting = true;
  setBusy(page);
  for (const button of page.root.querySelectorAll("button.move")) button.disabled = true;
  const errorBox = page.root.querySelector("#move-error");
  try {
    const result = await call(`${page.base}/moves`, {
      method: "POST",
      token: page.token,
      body: command,
      headers: { "If-Match": `"${version}"`, "Idempotency-Key": freshKey() },
    });
    errorBox.innerHTML = "";
    if (!page.streaming) addEvents(page, result.events);
  } catch (error) {
    errorBox.innerHTML = problemHtml(error);
  } finally {
    page.submitting = false;
  }
  page.shown = null; // redraw the moves (enabled again), even if the version did not change
  await refresh(page);
}

// --- drawing -----------------------------------------------------------------------------------

function contextOf(page, doc) {
  return {
    kind: doc.kind,
    doc,
    view: doc.view,
    components: page.components,
    seat: page.seat,
    players: doc.players,
  };
}

function render(page) {
  const { doc, legal, root } = page;
  const ctx = contextOf(page, doc);
  root.querySelector("#game-title").textContent = doc.title;
  const toAct = doc.to_act.length
    ? doc.to_act.map((s) => `${seatName(s)}${s === page.seat ? " (you)" : ""}`).join(", ")
    : "nobody";
  const role = page.seat == null ? "spectator" : `you are ${seatName(page.seat)}`;
  const open = doc.seats.filter((s) => !s.claimed).map((s) => seatName(s.seat));
  root.querySelector("#status-line").innerHTML = `
    <span class="badge status-${esc(doc.status)}" id="game-status">${esc(doc.status)}</span>
    <span>version <strong id="game-version">${doc.version}</strong></span>
    <span>to act: <strong id="to-act">${esc(toAct)}</strong></span>
    <span class="muted">${esc(role)} · ${doc.players} players · ${esc(doc.rules_version)} · <code>${esc(doc.game_id)}</code></span>
    ${open.length ? `<span class="waiting">waiting for ${esc(open.join(", "))}</span>` : ""}`;
  const held = heldSeats().filter((h) => h.gameId === doc.game_id && h.seat !== page.seat);
  const links = [`<a href="#/">lobby</a>`];
  if (page.seat != null) links.push(`<a href="${esc(spectatorRoute(doc.game_id))}">spectate</a>`);
  for (const h of held) {
    const turn = doc.to_act.includes(h.seat) ? " (to act)" : "";
    links.push(`<a class="held-seat" href="${esc(seatRoute(doc.game_id, h.seat))}">${seatName(h.seat)}${turn}</a>`);
  }
  root.querySelector("#game-links").innerHTML =
    `${links.join(" · ")} · share: <code class="share">${esc(pageUrl(spectatorRoute(doc.game_id)))}</code>`;

  const claimed = doc.seats.filter((s) => s.claimed).length;
  const mine = page.seat == null ? "-" : botPlays(doc, page.seat) || "person";
  const shown = `${doc.version}|${doc.status}|${claimed}|${legal ? legal.version : "-"}|${mine}`;
  if (page.shown !== shown) {
    page.shown = shown;
    root.querySelector("#board").innerHTML = draw(page, "renderBoard", ctx);
    root.querySelector("#holdings").innerHTML = `<h3>Holdings</h3>${draw(page, "renderHoldings", ctx)}`;
    renderMoves(page, ctx);
  }
  renderTable(page);
  renderNotes(page);
  root.dataset.status = doc.status;
  root.dataset.toAct = doc.to_act.join(",");
  root.dataset.version = String(doc.version);
}

function renderMoves(page, ctx) {
  const { doc, legal } = page;
  const box = page.root.querySelector("#moves");
  if (doc.status === "finished") {
    box.innerHTML = `<h3>Moves</h3><p class="muted">The game is over.</p>`;
  } else if (page.seat == null) {
    box.innerHTML = `<h3>Moves</h3><p class="muted">Spectators watch; seats move.</p>`;
  } else if (doc.status === "open") {
    box.innerHTML = `<h3>Moves</h3><p class="muted">The game starts when every seat is taken.</p>`;
  } else if (botPlays(doc, page.seat)) {
    box.innerHTML = `<h3>Moves</h3><p class="muted bot-playing">Your seat is played by ${esc(botPlays(doc, page.seat))}.</p>`;
  } else if (!legal) {
    const who = doc.to_act.map(seatName).join(", ") || "nobody";
    box.innerHTML = `<h3>Moves</h3><p class="muted">Waiting for ${esc(who)}.</p>`;
  } else {
    const buttons = legal.moves
      .map((command, index) => {
        const description = page.descriptions.get(command.type) || command.type;
        return `<li><button type="button" class="move" data-index="${index}" data-type="${esc(command.type)}"
          title="${esc(JSON.stringify(command))}"><span class="label">${esc(moveLabel(page, command, ctx))}</span>
          <small class="description">${esc(description)}</small></button></li>`;
      })
      .join("");
    box.innerHTML = `<h3>Your moves <small class="muted">${legal.moves.length} legal at version ${legal.version}</small></h3>
      <ul class="move-list" data-version="${legal.version}">${buttons}</ul>`;
  }
}

function renderNotes(page) {
  const box = page.root.querySelector("#notes");
  if (!page.notes.size) return;
  box.innerHTML = Array.from(page.notes.values(), (note) => `<p class="note">${esc(note)}</p>`).join("");
}

function renderLog(page) {
  const list = page.root && page.root.querySelector("#log");
  if (!list) return;
  list.innerHTML = page.log
    .slice()
    .reverse()
    .map(
      (entry) =>
        `<li data-seq="${entry.seq}"${entry.text ? ` class="table-event"` : ""}><span class="seq">${entry.seq}</span> ${
          entry.text
            ? `<span class="narration" title="${esc(entry.type)}">${esc(entry.text)}</span>`
            : `<span class="type">${esc(entry.type)}</span>`
        }${
          entry.seat != null ? ` <span class="muted">${seatName(entry.seat)}</span>` : ""
        }</li>`,
    )
    .join("");
}

// --- the table: seats, clocks, resigning, leaving, bots, take-backs, rematch ------------------

const REASONS = {
  resigned: "resigned",
  left: "left",
  timeouts: "timed out too often",
  timeout: "forfeited on time",
};

function noteServerTime(page, response) {
  const serverTime = Number(response.headers.get("Server-Time-Ms"));
  if (Number.isFinite(serverTime) && serverTime > 0) page.offset = serverTime - Date.now();
}

/** The service's clock now, in Unix milliseconds (this device's clock corrected by the offset). */
function serverNow(page) {
  return Date.now() + page.offset;
}

function replacement(doc, seat) {
  return ((doc.table && doc.table.replaced) || []).find((r) => r.seat === seat) || null;
}

/** Who plays *seat*: {kind: "open"|"person"|"bot"|"replaced", level, reason}. */
function whoPlays(doc, seat) {
  const info = doc.seats.find((s) => s.seat === seat) || { claimed: false, bot: null };
  const replaced = replacement(doc, seat);
  if (replaced) return { kind: "replaced", level: info.bot, reason: replaced.reason };
  if (info.bot) return { kind: "bot", level: info.bot };
  return { kind: info.claimed ? "person" : "open" };
}

/** "a bot (heuristic)" when a bot plays *seat* (handed over, or since it resigned or left); else null. */
function botPlays(doc, seat) {
  if (seat == null) return null;
  const who = whoPlays(doc, seat);
  if (who.kind === "bot") return `a bot (${who.level})`;
  if (who.kind === "replaced") return `a bot (the seat ${REASONS[who.reason] || who.reason})`;
  return null;
}

function whoLabel(who) {
  if (who.kind === "bot") return `bot (${who.level})`;
  if (who.kind === "replaced") return `${REASONS[who.reason] || who.reason} (bot plays)`;
  if (who.kind === "open") return "open";
  return "player";
}

/** 83000 -> "1:23"; days and hours when long; never negative. */
function formatDuration(ms) {
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

function clockHtml(doc, seat) {
  const table = doc.table;
  if (!table || !table.clock) return "";
  const clock = (table.clocks || []).find((c) => c.seat === seat);
  if (!clock) return "";
  const timeouts = clock.timeouts ? ` <small class="timeouts">${clock.timeouts} timeout${clock.timeouts === 1 ? "" : "s"}</small>` : "";
  if (clock.deadline_ms != null && doc.status === "active") {
    return `<span class="clock running" data-seat="${seat}" data-deadline="${clock.deadline_ms}">…</span>${timeouts}`;
  }
  if (table.clock.mode === "total" && clock.remaining_ms != null) {
    return `<span class="clock stopped" data-seat="${seat}">${formatDuration(clock.remaining_ms)}</span>${timeouts}`;
  }
  return timeouts;
}

/** Counts the running clocks down (every TICK_MS), on the service's time. */
function tickClocks(page) {
  if (!page.root) return;
  const now = serverNow(page);
  for (const element of page.root.querySelectorAll(".clock.running[data-deadline]")) {
    const left = Number(element.dataset.deadline) - now;
    element.textContent = left > 0 ? formatDuration(left) : "0:00 — time is up";
    element.dataset.leftMs = String(Math.max(0, Math.round(left)));
    element.classList.toggle("low", left < 10_000);
  }
}

function renderTable(page) {
  const { doc } = page;
  const table = doc.table;
  const me = page.seat;
  const mine = me == null ? null : whoPlays(doc, me);
  const key = JSON.stringify([doc.version, doc.status, doc.seats, doc.to_act, table, page.confirming, page.botLevels]);
  if (page.tableShown === key) return;
  page.tableShown = key;
  const box = page.root.querySelector("#table");
  const levelOptions = page.botLevels.map((level) => `<option value="${esc(level)}">${esc(level)}</option>`).join("");

  const rows = doc.seats
    .map(({ seat }) => {
      const who = whoPlays(doc, seat);
      const acting = doc.status === "active" && doc.to_act.includes(seat);
      const fill =
        doc.status === "open" && who.kind === "open" && page.botLevels.length
          ? ` <select class="bot-level small" data-seat="${seat}" aria-label="bot level for ${seatName(seat)}">${levelOptions}</select>
             <button type="button" class="small" data-action="fill-bot" data-seat="${seat}">Fill with a bot</button>`
          : "";
      return `<li class="seat-row${acting ? " acting" : ""}${seat === me ? " mine" : ""}" data-seat="${seat}" data-who="${who.kind}">
        <strong>${seatName(seat)}</strong>${seat === me ? " (you)" : ""}
        <span class="who">${esc(whoLabel(who))}</span>${acting ? ` <span class="to-act-mark">to act</span>` : ""}
        ${clockHtml(doc, seat)}${fill}</li>`;
    })
    .join("");

  const info = [];
  if (table && table.clock) info.push(`clock: ${clockText(table.clock)}`);
  if (table && table.clock && table.clock.on_timeout === "bot" && table.zombie_after) {
    info.push(`a bot takes a seat for good after ${table.zombie_after} timeouts`);
  }
  if (table && table.takebacks && table.takebacks !== "off") info.push(`take-backs: ${table.takebacks}`);

  const actions = [];
  let ask = "";
  const active = doc.status === "active";
  if (me != null && active && mine.kind !== "replaced") {
    const requested = table ? table.takeback_requested_by : null;
    if (table && table.takebacks && table.takebacks !== "off" && mine.kind === "person") {
      const why = table.can_take_back ? "Ask to undo your last move" : "Only your last move, while nobody has moved since and it revealed nothing";
      actions.push(`<button type="button" data-action="takeback" id="take-back" title="${esc(why)}"${
        table.can_take_back ? "" : " disabled"}>Take back</button>`);
      if (requested != null && requested !== me && !(table.takeback_consents || []).includes(me)) {
        ask = `<p class="takeback-ask" id="takeback-ask">${seatName(requested)} asks to take back its last move.
          <button type="button" class="small" data-action="accept-takeback">Accept</button>
          <button type="button" class="small" data-action="decline-takeback">Decline</button></p>`;
      } else if (requested != null) {
        ask = `<p class="takeback-ask muted">${requested === me ? "You ask" : `${seatName(requested)} asks`} to take back a move; waiting for the others.</p>`;
      }
    }
    const confirm = (action, label, again) =>
      page.confirming === action
        ? `<button type="button" class="danger confirm" data-action="${action}" id="${action}">${again}</button>`
        : `<button type="button" data-action="${action}" id="${action}">${label}</button>`;
    actions.push(confirm("resign", "Resign", "Really resign?"));
    actions.push(confirm("leave", "Leave", "Really leave?"));
    if (mine.kind === "bot") {
      actions.push(`<button type="button" data-action="take-seat" id="take-seat">Play my seat again</button>`);
    } else if (mine.kind === "person" && page.botLevels.length) {
      actions.push(`<span class="hand-over"><button type="button" data-action="hand-to-bot" id="hand-to-bot">Let a bot play my seat</button>
        <select class="bot-level small" id="hand-level" aria-label="bot level">${levelOptions}</select></span>`);
    }
  }
  if (me != null && doc.status === "finished") {
    actions.push(`<button type="button" data-action="rematch" id="rematch">Rematch</button>`);
  }
  const conceded = table && table.conceded_by != null ? `<p class="conceded">${seatName(table.conceded_by)} conceded.</p>` : "";
  box.innerHTML = `<h3>Table</h3>
    <ul class="seat-rows">${rows}</ul>
    ${info.length ? `<p class="table-info muted">${esc(info.join(" · "))}</p>` : ""}
    ${conceded}${ask}
    ${actions.length ? `<div class="table-actions">${actions.join(" ")}</div>` : ""}`;
  tickClocks(page);
}

async function tableAction(page, button) {
  const action = button.dataset.action;
  if (action === "resign" || action === "leave") {
    if (page.confirming !== action) {
      page.confirming = action; // irreversible: the button asks to be pressed again
      clearTimeout(page.confirmTimer);
      page.confirmTimer = setTimeout(() => {
        page.confirming = null;
        if (page.doc) renderTable(page);
      }, CONFIRM_MS);
      renderTable(page);
      return;
    }
    page.confirming = null;
    clearTimeout(page.confirmTimer);
    await tableRequest(page, () => sendTableCommand(page, { type: action === "resign" ? "table.Resign" : "table.Leave" }));
  } else if (action === "takeback") {
    await tableRequest(page, () => sendTableCommand(page, { type: "table.RequestTakeback" }));
  } else if (action === "accept-takeback" || action === "decline-takeback") {
    const accept = action === "accept-takeback";
    await tableRequest(page, () => sendTableCommand(page, { type: "table.AnswerTakeback", accept }));
  } else if (action === "hand-to-bot") {
    const level = page.root.querySelector("#hand-level").value;
    await tableRequest(page, () =>
      call(`${page.base}/seats/${page.seat}/bot`, { method: "PUT", token: page.token, body: { level } }),
    );
  } else if (action === "take-seat") {
    await tableRequest(page, () => call(`${page.base}/seats/${page.seat}/bot`, { method: "DELETE", token: page.token }));
  } else if (action === "fill-bot") {
    const seat = Number(button.dataset.seat);
    const level = page.root.querySelector(`select.bot-level[data-seat="${seat}"]`).value;
    await tableRequest(page, () => call(`${page.base}/seats/${seat}/bot`, { method: "PUT", body: { level } }));
  } else if (action === "rematch") {
    await rematch(page);
  }
}

function sendTableCommand(page, command) {
  return call(`${page.base}/moves`, {
    method: "POST",
    token: page.token,
    body: command,
    headers: { "Idempotency-Key": freshKey() },
  }).then((result) => {
    if (!page.streaming && result && result.events) addEvents(page, result.events);
    return result;
  });
}

/** Runs one table request with the page busy; a refusal shows like a refused move. */
async function tableRequest(page, request) {
  if (page.submitting) return;
  page.submitting = true;
  setBusy(page);
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
  page.tableShown = null;
  await refresh(page);
}

/** The rematch: every token this browser holds for this game holds the same seat in the new one. */
async function rematch(page) {
  if (page.submitting) return;
  page.submitting = true;
  setBusy(page);
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
    setBusy(page);
  }
}

/** A table event in words, for the log (the service's `yamen replay` says the same). */
function narrateTable(event) {
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
      const why = {
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

// --- after the end -----------------------------------------------------------------------------

async function sha256Hex(text) {
  if (!(globalThis.crypto && crypto.subtle)) return null;
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

async function showEnding(page) {
  const { doc } = page;
  const box = page.root.querySelector("#ending");
  box.hidden = false;
  const outcome = doc.outcome || {};
  const winners = (outcome.winners || []).map(seatName).join(", ") || "nobody";
  const rows = (outcome.scores || [])
    .slice()
    .sort((a, b) => a.rank - b.rank || a.seat - b.seat)
    .map((score) => {
      const breakdown = Object.entries(score.breakdown || {})
        .map(([name, value]) => `<span class="part">${esc(name)}: ${esc(value)}</span>`)
        .join(" ");
      return `<tr data-seat="${score.seat}"><td>${score.rank}</td><td>${seatName(score.seat)}</td>
        <td class="num">${esc(score.score)}</td><td class="breakdown">${breakdown}</td></tr>`;
    })
    .join("");
  const details = outcome.details
    ? `<details><summary>Details</summary><pre>${esc(JSON.stringify(outcome.details, null, 2))}</pre></details>`
    : "";
  box.innerHTML = `
    <div class="panel outcome" id="outcome">
      <h2>Outcome</h2>
      <p class="summary">${esc(outcome.summary || "")}</p>
      <p>Winners: <strong class="winners">${esc(winners)}</strong></p>
      <table class="scores"><thead><tr><th>Rank</th><th>Seat</th><th>Score</th><th>Breakdown</th></tr></thead>
        <tbody>${rows}</tbody></table>
      ${details}
    </div>
    <div class="panel seed" id="seed">
      <h2>Seed</h2>
      <p>Revealed seed: <code class="hash">${esc(doc.seed || "(not revealed)")}</code></p>
      <p>Commitment published at the start: <code class="hash">${esc(doc.seed_commitment)}</code></p>
      <p id="seed-check" class="muted">Checking SHA-256(seed)…</p>
    </div>
    <div class="panel verification" id="verification"><h2>Verification</h2><p class="muted">Verifying…</p></div>`;
  const seedCheck = box.querySelector("#seed-check");
  const digest = doc.seed ? await sha256Hex(doc.seed) : null;
  if (digest === null) {
    seedCheck.textContent = "This browser cannot compute SHA-256 here (not a secure context); see the verification.";
  } else {
    const match = digest === doc.seed_commitment;
    seedCheck.className = match ? "ok" : "error";
    seedCheck.textContent = match
      ? "SHA-256 of the seed equals the commitment: the seed was fixed before the first move."
      : `SHA-256 of the seed is ${digest}: it does NOT match the commitment.`;
  }
  const verification = box.querySelector("#verification");
  try {
    const result = await call(`${page.base}/verification`);
    verification.dataset.result = result.ok ? "passed" : "failed";
    verification.innerHTML = `<h2>Verification <span class="badge ${result.ok ? "ok" : "bad"}">${
      result.ok ? "passed" : "failed"
    }</span></h2><ul class="checks">${result.checks
      .map(
        (check) => `<li class="check check-${esc(check.status)}" data-name="${esc(check.name)}">
          <strong>${esc(check.name)}</strong>: <span class="check-status">${esc(check.status)}</span>
          <span class="muted">${esc(check.detail || "")}${check.first_bad_seq != null ? ` (first bad event ${check.first_bad_seq})` : ""}</span></li>`,
      )
      .join("")}</ul>`;
  } catch (error) {
    verification.dataset.result = "error";
    verification.innerHTML = `<h2>Verification</h2>${problemHtml(error)}`;
  }
  showReplay(page);
}

function showReplay(page) {
  const { doc } = page;
  const box = page.root.querySelector("#replay");
  box.hidden = false;
  box.innerHTML = `
    <h2>Replay</h2>
    <div class="replay-controls">
      <button type="button" class="small" id="replay-prev">◀</button>
      <input type="range" id="replay-slider" min="1" max="${doc.version}" value="${doc.version}" step="1">
      <button type="button" class="small" id="replay-next">▶</button>
      <span>version <strong id="replay-version">${doc.version}</strong> / ${doc.version}</span>
    </div>
    <div id="replay-event" class="replay-event"></div>
    <div id="replay-board" class="board"></div>`;
  const slider = box.querySelector("#replay-slider");
  const replay = { wanted: doc.version, loading: false };
  const go = (version) => {
    replay.wanted = Math.max(1, Math.min(doc.version, version));
    slider.value = String(replay.wanted);
    box.querySelector("#replay-version").textContent = String(replay.wanted);
    loadReplay(page, box, replay);
  };
  slider.addEventListener("input", () => go(Number(slider.value)));
  box.querySelector("#replay-prev").addEventListener("click", () => go(replay.wanted - 1));
  box.querySelector("#replay-next").addEventListener("click", () => go(replay.wanted + 1));
  go(doc.version);
}

async function loadReplay(page, box, replay) {
  if (replay.loading) return;
  replay.loading = true;
  box.dataset.busy = "1";
  try {
    while (replay.shown !== replay.wanted && !page.closed) {
      const version = replay.wanted;
      const [state, history] = await Promise.all([
        call(`${page.base}/states/${version}`, { token: page.token }),
        call(`${page.base}/events?after=${version - 1}&limit=1`, { token: page.token }),
      ]);
      const ctx = contextOf(page, state);
      box.querySelector("#replay-board").innerHTML = draw(page, "renderBoard", ctx);
      const envelope = history.events[0];
      const event = envelope && envelope.event;
      box.querySelector("#replay-event").innerHTML = event
        ? `<p>Event ${envelope.seq}: <strong class="replay-type">${esc(event.type)}</strong>${
            envelope.seat != null ? ` by ${seatName(envelope.seat)}` : ""
          }</p><details><summary>The event</summary><pre>${esc(JSON.stringify(event, null, 2))}</pre></details>`
        : `<p class="muted">Event ${version} is hidden from you.</p>`;
      replay.shown = version;
      box.dataset.version = String(version);
    }
  } catch (error) {
    box.querySelector("#replay-event").innerHTML = problemHtml(error);
    replay.shown = replay.wanted;
  } finally {
    replay.loading = false;
    box.dataset.busy = "0";
  }
}
