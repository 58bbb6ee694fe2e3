// The live updates of a game page, by the best way that works: the realtime socket (/v1/ws: the
// events as they are appended, and this seat's moves over it), else the server-sent event stream
// with moves by POST, else polling; the #live indicator says which (data-mode: socket, stream,
// polling, reconnecting, ended).  A socket that cannot open or closes (the server stopping: 1001)
// hands over to the stream at once and is tried again later, backing off, resuming with `after`.
// Both carry the service's narration (the socket's subscription and the stream ask for it).
//
// Its state is page.live (liveState()); what it needs of the page comes through page.hooks
// (game.js): receive(envelopes, narrated), refresh(), scheduleRefresh().

import { API, call, freshKey } from "./api.js";

/** realtime.js, imported when the socket is first opened (after the page is drawn: the first
 * load does not wait for it). */
let realtime = null;

export const POLL_MS = 2000;
/** Times the event stream is opened again after it failed, 3 s more apart each time. */
const STREAM_RETRIES = 5;
const STREAM_RETRY_MS = 3000;

/** The live updates' state on a page. */
export function liveState() {
  return {
    socket: null, // the Realtime while one is open or opening
    connecting: false, // realtime.js is being imported
    socketLive: false, // subscribed: the events come over the socket, and the moves go over it
    socketTries: 0, // failures since the socket last worked
    socketTimer: null,
    source: null, // the EventSource while one is open or opening
    opening: false, // a stream ticket is being asked for
    sseOpen: false,
    sseFailures: 0,
    reopenTimer: null,
    pollTimer: null,
    ended: false, // the service said the game is over: nothing more to follow
  };
}

/** Whether events reach the page as they happen (the socket, or the event stream). */
export function streaming(page) {
  const live = page.live;
  return Boolean(live && (live.socketLive || live.sseOpen));
}

/** What the #live indicator says for a transport. */
export function liveText(mode, why = "") {
  switch (mode) {
    case "socket":
      return "live · socket";
    case "stream":
      return "live";
    case "polling":
      return `polling every ${POLL_MS / 1000} s${why ? ` (${why})` : ""}`;
    case "reconnecting":
      return "reconnecting…";
    case "ended":
      return "the game has ended";
    default:
      return why;
  }
}

function setLive(page, mode, why = "") {
  const live = page.root && page.root.querySelector("#live");
  if (!live) return;
  live.textContent = `(${liveText(mode, why)})`;
  live.dataset.mode = mode;
}

function over(page) {
  return page.closed || page.live.ended || Boolean(page.doc && page.doc.status === "finished");
}

/** Starts following the game (after its first load): the socket where the browser has one. */
export function startLive(page) {
  managePolling(page);
  if (over(page)) return;
  if (typeof WebSocket === "function") openSocket(page);
  else openStream(page);
}

/** Stops following (the page is closing). */
export function stopLive(page) {
  const live = page.live;
  clearTimeout(live.socketTimer);
  clearTimeout(live.reopenTimer);
  clearInterval(live.pollTimer);
  live.pollTimer = null;
  closeStream(page);
  if (live.socket) live.socket.close(1000, "the page closed");
}

// --- the realtime socket -----------------------------------------------------------------------

async function openSocket(page) {
  const live = page.live;
  clearTimeout(live.socketTimer);
  live.socketTimer = null;
  if (over(page) || live.socket || live.connecting) return;
  live.connecting = true;
  try {
    realtime ??= await import("./realtime.js");
  } catch {
    live.connecting = false;
    openStream(page); // the module could not be had (offline): the stream, and no socket
    return;
  }
  live.connecting = false;
  if (over(page) || live.socket) return;
  const { Lost, Realtime, refusal, socketUrl } = realtime;
  const socket = new Realtime(socketUrl(API, location.href), {
    onMessage: (message) => socketMessage(page, socket, message),
    onClose: () => socketClosed(page, socket),
  });
  live.socket = socket;
  try {
    await socket.open(page.token || undefined); // a spectator says hello without a credential
    const answer = await socket.ask({
      type: "subscribe",
      game_id: page.gameId,
      after: page.lastSeq,
      include: ["narration"],
    });
    if (answer.type === "problem") throw refusal(answer.problem);
    if (answer.type !== "subscribed") throw new Lost(`expected subscribed, got ${answer.type}`);
  } catch {
    socket.close(); // refused or gone: the stream meanwhile (socketClosed), the socket again later
    return;
  }
  if (live.socket !== socket || over(page)) return;
  live.socketLive = true;
  live.socketTries = 0;
  closeStream(page); // the socket carries the events now
  clearTimeout(live.reopenTimer);
  setLive(page, "socket");
  managePolling(page);
  page.hooks.scheduleRefresh(); // anything that happened while connecting
}

function socketMessage(page, socket, message) {
  if (page.live.socket !== socket) return;
  if (message.game_id != null && message.game_id !== page.gameId) return;
  switch (message.type) {
    case "events": {
      page.hooks.receive(message.events || [], true);
      // This seat's own move (its answer brings the game), or a version on screen already: nothing to read.
      const seen = page.submitting || Boolean(page.doc && page.doc.version >= message.version);
      if (!seen) page.hooks.scheduleRefresh();
      break;
    }
    case "table": // a seat was claimed (claims are not events): the table, and the game once it starts
      page.hooks.scheduleRefresh();
      break;
    case "end":
      ended(page);
      socket.close(1000, "the game has ended");
      break;
    case "problem": // the subscription ended (the service lost its store): subscribe again later
      socket.close(1000, "the subscription ended");
      break;
    case "ping":
      page.clock.note(message.t);
      break;
    default:
      break;
  }
}

function socketClosed(page, socket) {
  const live = page.live;
  if (live.socket !== socket) return;
  live.socket = null;
  live.socketLive = false;
  if (over(page)) return;
  live.socketTries += 1;
  // The events by the stream (and the moves by POST) until the socket is back.
  if (live.sseOpen) {
    setLive(page, "stream");
  } else {
    setLive(page, "reconnecting");
    openStream(page);
  }
  managePolling(page);
  clearTimeout(live.socketTimer);
  live.socketTimer = setTimeout(() => openSocket(page), realtime.backoff(live.socketTries));
}

// --- the event stream (server-sent events) ------------------------------------------------------

async function openStream(page) {
  const live = page.live;
  if (over(page) || live.source || live.opening || live.socketLive) return;
  let url;
  live.opening = true;
  try {
    if (page.token) {
      const ticket = await call(`${page.base}/events/tickets`, { method: "POST", token: page.token });
      url = `${API}${ticket.stream}${ticket.stream.includes("?") ? "&" : "?"}after=${page.lastSeq}&include=narration`;
    } else {
      url = `${API}${page.base}/events/stream?after=${page.lastSeq}&include=narration`;
    }
  } catch (error) {
    live.opening = false;
    streamFailed(page, `no stream ticket (${error.message || error})`);
    return;
  }
  live.opening = false;
  if (over(page) || live.socketLive || live.source) return;
  const source = new EventSource(url);
  live.source = source;
  source.addEventListener("open", () => {
    if (live.source !== source) return;
    live.sseOpen = true;
    live.sseFailures = 0;
    setLive(page, "stream");
    managePolling(page);
    page.hooks.scheduleRefresh(); // anything that happened while connecting
  });
  source.addEventListener("event", (message) => {
    if (live.source !== source) return;
    let seen = false;
    try {
      const envelope = JSON.parse(message.data);
      page.hooks.receive([envelope], true);
      // This seat's own move (its answer brings the game), or a version on screen already: nothing to read.
      seen = page.submitting || Boolean(page.doc && page.doc.version >= envelope.seq);
    } catch {
      // a malformed message still means something happened
    }
    if (!seen) page.hooks.scheduleRefresh();
  });
  // A seat was claimed (claims are not events): the table, and the game once the last one starts it.
  source.addEventListener("seats", () => page.hooks.scheduleRefresh());
  source.addEventListener("end", () => {
    if (live.source !== source) return;
    closeStream(page);
    ended(page);
  });
  source.addEventListener("error", () => {
    if (live.source !== source) return;
    if (source.readyState === EventSource.CLOSED) {
      closeStream(page);
      streamFailed(page, "the stream closed");
    } else {
      setLive(page, "reconnecting");
    }
  });
}

function closeStream(page) {
  const live = page.live;
  if (live.source) live.source.close();
  live.source = null;
  live.sseOpen = false;
}

function streamFailed(page, why) {
  const live = page.live;
  if (over(page)) return;
  live.sseFailures += 1;
  managePolling(page);
  if (live.socketLive) return; // the socket has taken over meanwhile
  setLive(page, "polling", why);
  if (live.sseFailures <= STREAM_RETRIES) {
    clearTimeout(live.reopenTimer);
    live.reopenTimer = setTimeout(() => openStream(page), STREAM_RETRY_MS * live.sseFailures);
  }
}

/** The service said the game has ended and sent every event: read it once more, follow no more. */
function ended(page) {
  page.live.ended = true;
  clearTimeout(page.live.socketTimer);
  clearTimeout(page.live.reopenTimer);
  setLive(page, "ended");
  page.hooks.scheduleRefresh();
}

// --- polling -----------------------------------------------------------------------------------

/** Polls while nothing streams (the socket's `table` and the stream's `seats` say when seats are
 * claimed); called after every load. */
export function managePolling(page) {
  const live = page.live;
  const wanted = !page.closed && !(page.doc && page.doc.status === "finished") && !streaming(page);
  if (wanted && !live.pollTimer) {
    live.pollTimer = setInterval(() => poll(page), POLL_MS);
  } else if (!wanted && live.pollTimer) {
    clearInterval(live.pollTimer);
    live.pollTimer = null;
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
      page.hooks.refresh();
    }
  } catch {
    // the next poll tries again
  }
}

// --- this seat's moves ---------------------------------------------------------------------------

/** Sends a command of this seat: over the socket when it is live, else POST …/moves.  *version*:
 * the version it was chosen at (If-Match, `expected_version`); *include*: what the answer brings
 * besides the events (`legal_moves`, `document`).  Answers the MoveResult (the same body either
 * way), or throws the refusal as a Problem.  A move the socket did not answer (it went, or stayed
 * silent) is sent by POST with the same idempotency key: it is applied once either way. */
export async function sendMove(page, command, { version = null, include = [] } = {}) {
  const key = freshKey();
  const live = page.live;
  const socket = live && live.socketLive ? live.socket : null;
  if (socket) {
    const { Lost, refusal } = realtime;
    const message = { type: "move", game_id: page.gameId, command, idempotency_key: key, include };
    if (version != null) message.expected_version = version;
    let answer = null;
    try {
      answer = await socket.ask(message);
    } catch (error) {
      if (!(error instanceof Lost)) throw error;
    }
    if (answer && answer.type === "move_result") return answer.result;
    if (answer && answer.type === "problem") throw refusal(answer.problem);
    socket.close(1000, "a move went unanswered"); // not to be trusted: the stream meanwhile
  }
  const headers = { "Idempotency-Key": key };
  if (version != null) headers["If-Match"] = `"${version}"`;
  return call(`${page.base}/moves${include.length ? `?include=${include.join(",")}` : ""}`, {
    method: "POST",
    token: page.token,
    body: command,
    headers,
    onResponse: (response) => page.clock.noteResponse(response),
  });
}
