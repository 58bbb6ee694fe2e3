// The realtime socket (GET /v1/ws; docs/realtime.md, asyncapi/asyncapi.yaml) as the browser uses
// it: one connection, `hello` with a credential (a seat token; none for a spectator), requests
// matched to their answers by `id`, the server's pings answered with `pong`, a connection gone
// silent closed, and a `problem` turned into the same Problem an HTTP call of api.js throws.
// Who follows which game, and what happens when the socket goes, is stream.js's.

import { Problem } from "./api.js";

/** The socket must be open and have said `welcome` within this, or it counts as refused. */
export const OPEN_MS = 5000;

/** A request unanswered for this long counts as lost (the connection is not to be trusted). */
export const ANSWER_MS = 15_000;

/** The heartbeat assumed until `welcome` says the server's (docs/realtime.md: 15 s). */
const HEARTBEAT_MS = 15_000;

const OPEN = 1; // WebSocket.OPEN

/** The socket's URL for the API at *api* ("": this page's origin), from the page at *here*. */
export function socketUrl(api, here) {
  const url = new URL(`${api}/v1/ws`, here);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  url.hash = "";
  return url.href;
}

/** How long to wait before the *attempt*-th reconnection (1, 2, …): 1 s, 2 s, 4 s … at most 30 s,
 * and up to a fifth more at random, so that the clients of a stopped server do not all come back
 * at once. */
export function backoff(attempt, random = Math.random) {
  const base = Math.min(30_000, 1000 * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (1 + 0.2 * random()));
}

/** A request whose answer will not come: the socket closed, or stayed silent.  The request may
 * or may not have been applied (a move is sent again with the same idempotency key). */
export class Lost extends Error {}

/** A `problem` message's problem as the Problem api.js's call() throws for the same refusal. */
export function refusal(problem) {
  const body = problem || {};
  return new Problem(typeof body.status === "number" ? body.status : 500, body);
}

/** One socket.  *onMessage(message)* gets what is no answer to a request (events, table, end, a
 * problem without id, ping); *onClose(code, reason)* is called once, when the socket has gone
 * (closed by either side, or failed to open). */
export class Realtime {
  constructor(
    url,
    { onMessage = () => {}, onClose = () => {}, WebSocketImpl = globalThis.WebSocket, now = Date.now } = {},
  ) {
    this.url = url;
    this.onMessage = onMessage;
    this.onClose = onClose;
    this.WebSocketImpl = WebSocketImpl;
    this.now = now;
    this.socket = null;
    this.next = 0;
    this.waiting = new Map(); // id -> {resolve, reject, timer}
    this.heard = 0;
    this.watchdog = null;
    this.gone = false;
  }

  /** Opens the socket and says hello; resolves with `welcome`, rejects (a Problem, or Lost) when
   * the socket cannot open, the credential is refused or nothing answers within OPEN_MS. */
  open(credential) {
    return new Promise((resolve, reject) => {
      let socket;
      try {
        socket = new this.WebSocketImpl(this.url);
      } catch (error) {
        this.closed(1006, String(error.message || error));
        reject(new Lost(`the socket could not be opened: ${error.message || error}`));
        return;
      }
      this.socket = socket;
      const timer = setTimeout(() => {
        reject(new Lost("the socket did not open in time"));
        this.close();
      }, OPEN_MS);
      socket.addEventListener("open", () => {
        this.heard = this.now();
        this.ask(credential ? { type: "hello", credential } : { type: "hello" }, OPEN_MS).then(
          (answer) => {
            clearTimeout(timer);
            if (answer.type === "welcome") {
              this.watch(Number(answer.limits && answer.limits.heartbeat_seconds) * 1000 || HEARTBEAT_MS);
              resolve(answer);
            } else {
              reject(
                answer.type === "problem" ? refusal(answer.problem) : new Lost(`expected welcome, got ${answer.type}`),
              );
              this.close();
            }
          },
          (error) => {
            clearTimeout(timer);
            reject(error);
          },
        );
      });
      socket.addEventListener("message", (message) => this.receive(message.data));
      socket.addEventListener("close", (closed) => {
        clearTimeout(timer);
        reject(new Lost(`the socket closed (${closed.code})`)); // no-op once welcomed
        this.closed(closed.code, closed.reason || "");
      });
      // An "error" is always followed by "close".
    });
  }

  /** Whether the socket is open (requests may be sent). */
  get ready() {
    return !this.gone && this.socket !== null && this.socket.readyState === OPEN;
  }

  /** Sends *message* with a fresh `id`; resolves with the answer that echoes it (which may be a
   * `problem`), rejects with Lost when the socket goes or nothing answers within *ms*. */
  ask(message, ms = ANSWER_MS) {
    const id = String(++this.next);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Lost(`no answer to ${message.type} within ${ms} ms`));
      }, ms);
      this.waiting.set(id, { resolve, reject, timer });
      try {
        this.send({ ...message, id });
      } catch (error) {
        clearTimeout(timer);
        this.waiting.delete(id);
        reject(error);
      }
    });
  }

  /** Sends one message (no answer awaited); throws Lost when the socket is not open. */
  send(message) {
    if (!this.ready) throw new Lost("the socket is not open");
    this.socket.send(JSON.stringify(message));
  }

  /** Closes the socket (the client's side): onClose is called at once, with *code*. */
  close(code = 1000, reason = "closed by the page") {
    const socket = this.socket;
    if (socket && socket.readyState <= OPEN) {
      try {
        socket.close(code, reason);
      } catch {
        // closing an already failing socket: it is gone either way
      }
    }
    this.closed(code, reason);
  }

  receive(data) {
    if (this.gone) return;
    this.heard = this.now();
    let message;
    try {
      message = JSON.parse(data);
    } catch {
      return; // not JSON: not the protocol's
    }
    if (!message || typeof message !== "object") return;
    if (message.type === "ping") {
      try {
        this.send({ type: "pong", t: message.t ?? null });
      } catch {
        // closing: nothing to answer
      }
    }
    const waiting = message.id != null ? this.waiting.get(String(message.id)) : null;
    if (waiting) {
      this.waiting.delete(String(message.id));
      clearTimeout(waiting.timer);
      waiting.resolve(message);
      return;
    }
    this.onMessage(message);
  }

  /** Closes a connection silent for more than two heartbeats and a half (the server pings every
   * heartbeat: a connection that hears nothing is dead, even if the browser has not noticed). */
  watch(heartbeatMs) {
    clearInterval(this.watchdog);
    this.watchdog = setInterval(() => {
      if (this.now() - this.heard > 2.5 * heartbeatMs) this.close(4009, "the server went silent");
    }, heartbeatMs);
  }

  closed(code, reason) {
    if (this.gone) return;
    this.gone = true;
    clearInterval(this.watchdog);
    for (const { reject, timer } of this.waiting.values()) {
      clearTimeout(timer);
      reject(new Lost(`the socket closed (${code}) before the answer`));
    }
    this.waiting.clear();
    this.onClose(code, reason);
  }
}
