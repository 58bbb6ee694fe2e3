// A game's page, for one seat (its token from localStorage) or for spectators: the board, the
// seat's holdings and legal moves, and the event log.  This module assembles the page, loads the
// game and draws it; the rest is in modules with one job each:
//
// - stream.js: the live updates (the realtime socket, else server-sent events, else polling) and
//   the channel this seat's moves go through (the socket, else POST);
// - clock.js: the service's time and the seats' clocks counted down on it;
// - table.js: the table around the game (who plays each seat, resigning, leaving, bots,
//   take-backs, the rematch);
// - replay.js: after the end, the outcome, the seed, the verification and the replay.
//
// The modules share the page object: its fields below, each module's own state (page.live,
// page.clock, page.table), and page.hooks, what this module offers them (no import cycle).
//
// The root element carries the page's state for scripts and tests: data-version (the version on
// screen), data-status, data-to-act and data-busy ("1" while loading or submitting).

import {
  call,
  catalogue,
  components,
  guest,
  heldSeats,
  Problem,
  pageUrl,
  saveToken,
  seatName,
  seatRoute,
  spectatorRoute,
  takeEarly,
  tokenFor,
} from "./api.js";
import { applyZoom, nextZoom } from "./boardview.js";
import { ServerClock, startTicking } from "./clock.js";
import { feedEntry, feedHtml, feedItems, recentEntries } from "./feed.js";
import * as generic from "./generic.js";
import { html, raw } from "./html.js";
import { choicesHtml } from "./moves.js";
import { explain, problemHtml } from "./problems.js";

// table.js and stream.js are asked for as this module loads, not before it runs: they arrive
// beside the game's first reads (a slow network pays no round trip more for them).  The first
// drawing waits for the table (`table` once it is here); the live updates start after it
// (page.stream once it is here).
let table = null;
const tableModule = import("./table.js").then((loaded) => {
  table = loaded;
  return loaded;
});
tableModule.catch(() => {}); // load() says it
const streamModule = import("./stream.js").catch(() => null);

/** Events the page keeps (the log shows them; the board highlights the recent ones). */
const LOG_LENGTH = 60;
const DEBOUNCE_MS = 80;

/** The generic drawing, part by part (when a title's board module is missing or fails). */
const GENERIC = {
  renderBoard: generic.renderBoard,
  renderHoldings: generic.renderHoldings,
};

const boardModules = new Map();

/** The title's board module (service/web/assets/boards/<kind>.js), imported once. */
function boardModule(kind) {
  if (!/^[a-z0-9_-]+$/.test(kind)) return Promise.reject(new Error(`no board module for kind ${kind}`));
  if (!boardModules.has(kind)) {
    boardModules.set(kind, import(new URL(`./boards/${kind}.js`, import.meta.url).href));
  }
  return boardModules.get(kind);
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
  return GENERIC[part](ctx);
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

function pageMarkup(page) {
  return html`
    <section id="game" class="game" data-game-id="${page.gameId}" data-seat="${page.seat ?? ""}" data-busy="1">
      <header class="game-head">
        <h1 id="game-title">${page.gameId}</h1>
        <div id="status-line" class="status-line"></div>
        <div id="game-links" class="muted"></div>
        <button type="button" id="notify" class="notify" hidden>Notify me on my turn</button>
      </header>
      <div id="token-note"></div>
      <div id="page-error"></div>
      <div id="notes"></div>
      <div class="game-grid">
        <div class="board-col">
          <div class="board-tools" id="board-tools" role="toolbar" aria-label="board zoom">
            <button type="button" data-zoom="out" aria-label="zoom out">−</button>
            <button type="button" data-zoom="in" aria-label="zoom in">+</button>
            <button type="button" data-zoom="fit">Fit</button>
            <button type="button" data-zoom="readable">Readable</button>
          </div>
          <div id="board" class="board board-view" tabindex="0" aria-label="the board (scroll or drag to pan)"></div>
          <div id="holdings" class="panel holdings"></div>
        </div>
        <div class="side-col">
          <div id="table" class="panel table-panel"></div>
          <div id="sheet" class="sheet">
            <button type="button" id="sheet-toggle" class="sheet-toggle" aria-expanded="true">Moves</button>
            <div id="move-error" class="move-error" aria-live="assertive"></div>
            <div id="moves" class="panel moves"></div>
          </div>
          <div class="panel"><h3>Events <small id="live" class="muted"></small></h3><ol id="log" class="log"></ol></div>
        </div>
      </div>
      <section id="ending" class="ending" hidden></section>
      <section id="replay" class="replay panel" hidden></section>
    </section>`;
}

export function showGame(main, gameId, seat) {
  const token = seat == null ? null : tokenFor(gameId, seat);
  const page = {
    gameId,
    base: `/v1/games/${encodeURIComponent(gameId)}`,
    routeSeat: seat, // the seat the link names (held or not)
    seat: token ? seat : null,
    token,
    root: null,
    doc: null,
    legal: null,
    module: null,
    moduleTried: false,
    components: null,
    descriptions: new Map(),
    botLevels: [], // the title's bot levels (the catalogue's)
    notes: new Map(),
    events: [], // the last LOG_LENGTH event envelopes, oldest first
    lastSeq: 0, // the newest event held
    movedFrom: null, // the version this page's last move was made at (the board's recent moves)
    // The service's lines for events that came without (in a move's answer):
    // `seq`, the last event read with its line; `running`, the reading under way.
    narration: { seq: 0, running: null, again: false, timer: null },
    refreshing: null,
    again: false,
    debounceTimer: null,
    submitting: false,
    shown: null,
    endingShown: false,
    closed: false,
    zoom: "readable", // the board's zoom: "readable" (its smallest text at 12 px), "fit" or a factor
    moveLabels: [],
    clock: new ServerClock(),
    table: null, // table.js's state, once it is here
    stream: null, // stream.js, once here
    live: null, // its state
    stopTicking: null,
  };
  page.hooks = {
    refresh: () => refresh(page),
    scheduleRefresh: () => scheduleRefresh(page),
    setBusy: () => setBusy(page),
    receive: (envelopes, narrated) => receive(page, envelopes, narrated),
    send: (command) => sendTableCommand(page, command),
    drawBoard: (box, doc, recent) => drawBoard(page, box, doc, recent),
  };

  main.innerHTML = pageMarkup(page);
  const root = main.querySelector("#game");
  page.root = root;
  if (seat != null && !token) {
    root.querySelector("#token-note").innerHTML =
      html`<p class="error">Neither this browser nor your player code holds ${seatName(
        seat,
      )} of this game: you are watching as a spectator. Join an open seat from the <a href="#/">lobby</a>, or use the
      player code of the device that holds the seat (lobby, "Your player code").</p>`;
  }
  root.querySelector("#moves").addEventListener("click", (clicked) => {
    const step = clicked.target.closest("button.step");
    if (step) {
      const range = step.closest("li.amount").querySelector(".amount-range");
      range.value = String(Number(range.value) + Number(step.dataset.step));
      pickAmount(page, step.closest("li.amount"));
      return;
    }
    const button = clicked.target.closest("button.move");
    if (button && !button.disabled) submit(page, Number(button.dataset.index));
  });
  root.querySelector("#moves").addEventListener("input", (changed) => {
    const amount = changed.target.closest("li.amount");
    if (amount) pickAmount(page, amount);
  });
  root.querySelector("#board-tools").addEventListener("click", (clicked) => {
    const button = clicked.target.closest("button[data-zoom]");
    if (!button) return;
    const box = root.querySelector("#board");
    const svg = box.querySelector("svg");
    const fitted = svg && svg.viewBox.baseVal.width ? box.clientWidth / svg.viewBox.baseVal.width : 1;
    page.zoom = nextZoom(Number(box.dataset.zoom) || page.zoom, button.dataset.zoom, fitted);
    applyZoom(box, page.zoom);
  });
  root.querySelector("#token-note").addEventListener("click", (clicked) => {
    const button = clicked.target.closest("button#take-open-seat");
    if (button && !button.disabled) takeOpenSeat(page, button);
  });
  root.querySelector("#sheet-toggle").addEventListener("click", () => {
    const sheet = root.querySelector("#sheet");
    const collapsed = sheet.classList.toggle("collapsed");
    root.querySelector("#sheet-toggle").setAttribute("aria-expanded", String(!collapsed));
  });
  root.querySelector("#table").addEventListener("click", (clicked) => {
    const button = clicked.target.closest("button[data-action]");
    if (button && !button.disabled && table) table.tableAction(page, button);
  });
  page.stopTicking = startTicking(root, page.clock);

  start(page);
  return () => stop(page);
}

/** The colours a board asks for (data-bg, data-fg, data-border), set through the DOM: the page's
 * Content-Security-Policy allows no style attributes in markup, and these colours are the game's. */
function paint(root) {
  for (const element of root.querySelectorAll("[data-bg], [data-fg], [data-border]")) {
    if (element.dataset.bg) element.style.background = element.dataset.bg;
    if (element.dataset.fg) element.style.color = element.dataset.fg;
    if (element.dataset.border) element.style.borderColor = element.dataset.border;
  }
}

async function start(page) {
  await refresh(page); // a game id the service does not know: refresh shows the not-found page
  const stream = await streamModule;
  if (page.closed || !page.doc || !stream) return;
  page.live = stream.liveState();
  page.stream = stream;
  stream.startLive(page);
}

/** A game id the service does not know: a page that says so, instead of an empty board. */
function notFound(page, error) {
  stop(page);
  const id = page.gameId;
  page.root.dataset.busy = "0";
  page.root.dataset.status = "unknown";
  page.root.innerHTML = html`<div class="panel not-found" id="not-found" role="alert">
    <h1>No game “${id}” here</h1>
    <p>${error.code === "game_not_found" ? "The service knows no game with this id." : explain(error).headline}
      Check the link (game ids look like <code>g_0123456789abcdef0123</code>), or go back to the
      <a href="#/">lobby</a> to create or join a game.</p></div>`;
}

function stop(page) {
  page.closed = true;
  if (page.stream) page.stream.stopLive(page);
  if (table && page.table) table.stopTable(page);
  clearTimeout(page.debounceTimer);
  clearTimeout(page.narration.timer);
  if (page.stopTicking) page.stopTicking();
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
        if (error instanceof Problem && error.status === 404 && !page.doc) {
          notFound(page, error);
          break;
        }
        const box = page.root.querySelector("#page-error");
        if (box) box.innerHTML = problemHtml(error);
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

/** What the page needs once per game, known from its kind: the catalogue's entry (what each move
 * does, the bot levels), the board module and the component data, fetched side by side. */
async function loadKind(page, kind) {
  page.moduleTried = true;
  const entry = catalogue()
    .then(({ games }) => {
      const found = games.find((game) => game.kind === kind);
      page.botLevels = (found && found.bot_levels) || [];
      page.descriptions = new Map(Object.entries((found && found.moves) || {}));
    })
    .catch(() => {
      page.botLevels = [];
    });
  const module = boardModule(kind).then(
    (loaded) => {
      page.module = loaded;
    },
    (error) => {
      page.notes.set(
        "module",
        `boards/${kind}.js could not be loaded (${error.message || error}); generic board shown`,
      );
    },
  );
  const parts = components(kind).then(
    (loaded) => {
      page.components = loaded;
    },
    (error) => {
      page.notes.set("components", `the component data could not be loaded: ${error.message || error}`);
    },
  );
  await Promise.all([entry, module, parts]);
}

async function load(page) {
  // The document and the events side by side (a slow network pays its latency once, not twice):
  // the events when nothing streams them, or their narration when a move's answer brought them bare.
  const streaming = Boolean(page.stream && page.stream.streaming(page));
  const events = !streaming || page.narration.seq < page.lastSeq ? narrate(page) : null;
  events?.catch(() => {}); // awaited below; a 404 shows through the document's
  const early = takeEarly(page.base, page.token); // asked for by app.js as the route was known
  const earlyLegal = takeEarly(`${page.base}/legal-moves`, page.token);
  const doc = early
    ? await early.answer
    : await call(page.base, { token: page.token, onResponse: (response) => page.clock.noteResponse(response) });
  if (early && early.heard.response) page.clock.noteResponse(early.heard.response, early.heard.at);
  const once = !page.module && !page.moduleTried ? loadKind(page, doc.kind) : null;
  await tableModule;
  page.table ??= table.tableState();
  let legal = null;
  if (page.token && doc.status === "active" && doc.to_act.includes(page.seat) && !botPlays(doc, page.seat)) {
    legal = earlyLegal ? earlyLegal.answer : call(`${page.base}/legal-moves`, { token: page.token });
  }
  [legal] = await Promise.all([legal, once, events]);
  if (legal && legal.version !== doc.version) page.again = true; // a move landed in between: read again
  page.doc = doc;
  page.legal = legal;
  render(page);
  if (doc.status === "finished" && !page.endingShown) {
    page.endingShown = true;
    await showEnding(page);
  }
  if (page.stream) page.stream.managePolling(page);
}

/** Reads the events after the last narrated one, with the service's narration (one request at a
 * time: a call while one runs makes it read once more if something is still unnarrated). */
function narrate(page) {
  const narration = page.narration;
  if (narration.running) {
    narration.again = true;
    return narration.running;
  }
  narration.running = (async () => {
    do {
      narration.again = false;
      await loadEvents(page);
    } while (narration.again && narration.seq < page.lastSeq && !page.closed);
  })().finally(() => {
    narration.running = null;
  });
  return narration.running;
}

/** Narration soon for events that came without it (in a move's answer: the live feed brings the
 * same events narrated, usually first, and then nothing is read). */
function scheduleNarration(page) {
  clearTimeout(page.narration.timer);
  page.narration.timer = setTimeout(() => {
    if (!page.closed && page.narration.seq < page.lastSeq) narrate(page).catch(() => {});
  }, DEBOUNCE_MS);
}

async function loadEvents(page) {
  try {
    // Events older than the kept ones need no narration.
    const after = Math.max(page.narration.seq, page.lastSeq - LOG_LENGTH);
    const history = await call(`${page.base}/events?after=${after}&limit=1000&include=narration`, {
      token: page.token,
    });
    receive(page, history.events, true);
    if (history.next_after != null) await loadEvents(page);
  } catch (error) {
    if (error instanceof Problem && error.status === 404) throw error;
  }
}

/** Takes event envelopes in (from the history, a stream, the socket or a move's answer): each
 * once and in order, the last LOG_LENGTH kept.  *narrated*: they carry the service's narration
 * (`text`), which a copy held already without it takes on. */
function receive(page, envelopes, narrated) {
  for (const envelope of envelopes) {
    if (envelope.seq > page.lastSeq) {
      page.lastSeq = envelope.seq;
      page.events.push({ seq: envelope.seq, seat: envelope.seat, event: envelope.event, text: envelope.text });
    } else if (narrated && envelope.text) {
      const held = page.events.find((kept) => kept.seq === envelope.seq);
      if (held) held.text = envelope.text;
    }
    if (narrated && envelope.seq > page.narration.seq) page.narration.seq = envelope.seq;
  }
  if (page.events.length > LOG_LENGTH) page.events.splice(0, page.events.length - LOG_LENGTH);
  renderLog(page);
  if (!narrated && page.narration.seq < page.lastSeq && !(page.live && page.live.sseOpen)) scheduleNarration(page);
}

/** The ending and the replay (replay.js, imported once the game is over). */
async function showEnding(page) {
  try {
    const replay = await import("./replay.js");
    if (!page.closed) await replay.showEnding(page);
  } catch (error) {
    const box = page.root.querySelector("#ending");
    box.hidden = false;
    box.innerHTML = problemHtml(error);
  }
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
    // The one-trip move: the answer carries the game as this seat sees it and its next moves.
    const result = await sendMove(page, command, { version, include: ["legal_moves", "document"] });
    page.movedFrom = version;
    errorBox.innerHTML = "";
    receive(page, result.events || [], false);
    if (result.document && !page.refreshing) {
      page.submitting = false;
      page.shown = null;
      adopt(page, result.document, result.legal_moves);
      return;
    }
  } catch (error) {
    errorBox.innerHTML = problemHtml(error);
    errorBox.scrollIntoView({ block: "nearest" });
  } finally {
    page.submitting = false;
    setBusy(page);
  }
  page.shown = null; // redraw the moves (enabled again), even if the version did not change
  await refresh(page);
}

/** Sends a command of this seat (stream.js: over the socket, else POST). */
async function sendMove(page, command, options) {
  const stream = page.stream || (await streamModule);
  if (!stream) throw new Error("the page could not load stream.js");
  return stream.sendMove(page, command, options);
}

/** A table command (resign, leave, take-backs) through the moves' channel; its events taken in. */
async function sendTableCommand(page, command) {
  const result = await sendMove(page, command);
  if (result && result.events) receive(page, result.events, false);
  return result;
}

/** Shows the game the one-trip move answered with (no GET); a newer version seen meanwhile wins. */
function adopt(page, doc, legal) {
  if (page.doc && doc.version < page.doc.version) {
    refresh(page);
    return;
  }
  const mine =
    legal && legal.moves && legal.moves.length && doc.to_act.includes(page.seat) && !botPlays(doc, page.seat);
  page.doc = doc;
  page.legal = mine ? legal : null;
  render(page);
  setBusy(page);
  if (page.lastSeq > doc.version) scheduleRefresh(page); // others moved meanwhile
  if (doc.status === "finished" && !page.endingShown) {
    page.endingShown = true;
    showEnding(page);
  }
  if (page.stream) page.stream.managePolling(page);
}

// --- drawing -----------------------------------------------------------------------------------

/** What a board module draws from (its contract: boards/*.js).  *recent*: the events since this
 * seat's last one (a spectator: the last seat's run), or else since this page's last move,
 * oldest first, as {seq, seat, event}; the board marks what they touched. */
function contextOf(page, doc, recent = recentOf(page.events, page.seat, page.movedFrom)) {
  return {
    kind: doc.kind,
    doc,
    view: doc.view,
    components: page.components,
    seat: page.seat,
    players: doc.players,
    recent,
  };
}

/** The recent events among *envelopes* for *seat* (null: a spectator), by the rule of the log's
 * highlight (feed.js), oldest first, as {seq, seat, event}; those hidden from the seat left out.
 * When nothing came after the seat's last event — it acted last: a turn of several steps, or a
 * solo game, where the game's own replies are the seat's events too — the events after
 * *movedFrom* (the version this page last moved at): what its own move did. */
export function recentOf(envelopes, seat, movedFrom = null) {
  let recent = recentEntries(envelopes, seat);
  if (!recent.length && seat != null && movedFrom != null) {
    recent = envelopes.filter((envelope) => envelope.seq > movedFrom);
  }
  return recent
    .filter((envelope) => envelope.event != null)
    .map(({ seq, seat: by, event }) => ({ seq, seat: by, event }));
}

/** Draws a board (the replay's) for *doc* into *box*, *recent* highlighted. */
function drawBoard(page, box, doc, recent) {
  box.innerHTML = draw(page, "renderBoard", contextOf(page, doc, recent));
  paint(box);
}

function statusHtml(page, doc) {
  const toAct = doc.to_act.length
    ? doc.to_act.map((s) => `${seatName(s)}${s === page.seat ? " (you)" : ""}`).join(", ")
    : "nobody";
  const role = page.seat == null ? "spectator" : `you are ${seatName(page.seat)}`;
  const open = doc.seats.filter((s) => !s.claimed).map((s) => seatName(s.seat));
  return html`
    <span class="badge status-${doc.status}" id="game-status">${doc.status}</span>
    <span>version <strong id="game-version">${doc.version}</strong></span>
    <span>to act: <strong id="to-act">${toAct}</strong></span>
    <span class="muted">${role} · ${doc.players} players · ${doc.rules_version} · <code>${doc.game_id}</code></span>
    ${open.length ? html`<span class="waiting">waiting for ${open.join(", ")}</span>` : ""}`;
}

function linksHtml(page, doc) {
  const held = heldSeats().filter((h) => h.gameId === doc.game_id && h.seat !== page.seat);
  const links = [html`<a href="#/">lobby</a>`];
  if (page.seat != null) links.push(html`<a href="${spectatorRoute(doc.game_id)}">spectate</a>`);
  for (const h of held) {
    const turn = doc.to_act.includes(h.seat) ? " (to act)" : "";
    links.push(html`<a class="held-seat" href="${seatRoute(doc.game_id, h.seat)}">${seatName(h.seat)}${turn}</a>`);
  }
  return html`${links.map((link, i) => html`${i ? " · " : ""}${link}`)}<span class="share-part"> · share: <code class="share">${pageUrl(
    spectatorRoute(doc.game_id),
  )}</code></span>`;
}

function render(page) {
  const { doc, legal, root } = page;
  root.querySelector("#game-title").textContent = doc.title;
  root.querySelector("#status-line").innerHTML = statusHtml(page, doc);
  root.querySelector("#game-links").innerHTML = linksHtml(page, doc);

  const claimed = doc.seats.filter((s) => s.claimed).length;
  const mine = page.seat == null ? "-" : botPlays(doc, page.seat) || "person";
  // The version decides a redraw (the recent events change with it).
  const shown = `${doc.version}|${doc.status}|${claimed}|${legal ? legal.version : "-"}|${mine}`;
  if (page.shown !== shown) {
    page.shown = shown;
    const ctx = contextOf(page, doc);
    renderLog(page); // who plays which seat may have changed: bots' bursts
    const board = root.querySelector("#board");
    const { scrollLeft, scrollTop } = board;
    board.innerHTML = draw(page, "renderBoard", ctx);
    applyZoom(board, page.zoom);
    board.scrollLeft = scrollLeft; // the player's pan survives a redraw
    board.scrollTop = scrollTop;
    root.querySelector("#holdings").innerHTML = html`<h3>Holdings</h3>${raw(draw(page, "renderHoldings", ctx))}`;
    paint(board);
    paint(root.querySelector("#holdings"));
    renderMoves(page, ctx);
  }
  table.renderTable(page);
  renderSeatOffer(page);
  renderNotes(page);
  root.dataset.status = doc.status;
  root.dataset.toAct = doc.to_act.join(",");
  root.dataset.version = String(doc.version);
}

function renderMoves(page, ctx) {
  const { doc, legal } = page;
  const box = page.root.querySelector("#moves");
  if (doc.status === "finished") {
    box.innerHTML = html`<h3>Moves</h3><p class="muted">The game is over.</p>`;
  } else if (page.seat == null) {
    box.innerHTML = html`<h3>Moves</h3><p class="muted">Spectators watch; seats move.</p>`;
  } else if (doc.status === "open") {
    box.innerHTML = html`<h3>Moves</h3><p class="muted">The game starts when every seat is taken.</p>`;
  } else if (botPlays(doc, page.seat)) {
    box.innerHTML = html`<h3>Moves</h3><p class="muted bot-playing">Your seat is played by ${botPlays(doc, page.seat)}.</p>`;
  } else if (!legal) {
    const who = doc.to_act.map(seatName).join(", ") || "nobody";
    box.innerHTML = html`<h3>Moves</h3><p class="muted">Waiting for ${who}.</p>`;
  } else {
    page.moveLabels = legal.moves.map((command) => moveLabel(page, command, ctx));
    const buttons = choicesHtml(
      legal.moves,
      page.moveLabels,
      (command) => page.descriptions.get(command.type) || command.type,
    );
    const sheet = page.root.querySelector("#sheet");
    if (sheet) sheet.scrollTop = 0; // a new decision: its first choices in view
    box.innerHTML = html`<h3>Your moves <small class="muted">${legal.moves.length} legal at version ${legal.version}</small></h3>
      <ul class="move-list" data-version="${legal.version}">${raw(buttons)}</ul>`;
  }
}

/** The stepper of an amount moved: its button now plays the amount chosen. */
function pickAmount(page, item) {
  const options = item.dataset.options.split(",").map((pair) => pair.split(":").map(Number));
  const range = item.querySelector(".amount-range");
  const at = Math.max(0, Math.min(options.length - 1, Number(range.value)));
  range.value = String(at);
  const [index, value] = options[at];
  item.querySelector(".amount-value").textContent = String(value);
  const button = item.querySelector("button.move");
  button.dataset.index = String(index);
  button.title = JSON.stringify(page.legal.moves[index]);
  button.querySelector(".label").textContent = page.moveLabels[index];
}

/** A seat link opened by a friend while the seat is still open: a button takes it. */
function renderSeatOffer(page) {
  const { doc } = page;
  const wanted = page.routeSeat;
  if (page.seat != null || wanted == null) return;
  const info = doc.seats.find((s) => s.seat === wanted);
  const box = page.root.querySelector("#token-note");
  const offer = box.querySelector("#seat-offer");
  const open = doc.status === "open" && info && !info.claimed;
  if (!open) {
    if (offer) offer.remove();
    return;
  }
  if (offer) return;
  box.insertAdjacentHTML(
    "afterbegin",
    html`<p class="seat-offer panel" id="seat-offer">${seatName(wanted)} is open.
      <button type="button" id="take-open-seat" data-seat="${wanted}">Take ${seatName(wanted)}</button></p>`.toString(),
  );
}

async function takeOpenSeat(page, button) {
  button.disabled = true;
  try {
    const joined = await call(`${page.base}/seats/${page.routeSeat}`, { method: "POST", token: await guest() });
    saveToken(joined.game_id, joined.seat, joined.token);
    window.dispatchEvent(new HashChangeEvent("hashchange")); // the same route, now holding the seat
  } catch (error) {
    button.disabled = false;
    button.insertAdjacentHTML("afterend", problemHtml(error));
  }
}

function renderNotes(page) {
  const box = page.root.querySelector("#notes");
  if (!page.notes.size) return;
  box.innerHTML = html`${Array.from(page.notes.values(), (note) => html`<p class="note">${note}</p>`)}`;
}

/** Who plays *seat* when it is a bot, in words (table.js); null for a person, or before the
 * table is here (nothing is drawn before). */
function botPlays(doc, seat) {
  return table ? table.botPlays(doc, seat) : null;
}

/** The log's entry of an event: the service's narration, else the table's words for table events. */
function entryOf(envelope) {
  return feedEntry(envelope, (event) => (event.type.startsWith("table.") && table ? table.narrateTable(event) : null));
}

function renderLog(page) {
  const list = page.root && page.root.querySelector("#log");
  if (!list) return;
  const doc = page.doc;
  const bots = new Set(doc ? doc.seats.map((info) => info.seat).filter((seat) => botPlays(doc, seat)) : []);
  // Bursts stay open as the player opened them while the feed redraws.
  const open = new Set(Array.from(list.querySelectorAll("li.burst details[open]"), (d) => d.parentElement.dataset.seq));
  list.innerHTML = feedHtml(feedItems(page.events.map(entryOf), { bots, mine: page.seat }), seatName).text;
  for (const item of list.querySelectorAll("li.burst")) {
    if (open.has(item.dataset.seq)) item.querySelector("details").open = true;
  }
}
