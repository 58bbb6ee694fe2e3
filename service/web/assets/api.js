// The Yamen API as the client uses it: the base URL (?api=), JSON requests, problem+json errors,
// the seat tokens kept in localStorage, and the guest player this browser plays as.

const params = new URLSearchParams(location.search);

/** The API's origin: ?api=<url> (another origin: the API must allow it by CORS), else this one. */
export const API = (params.get("api") || "").replace(/\/+$/, "");

/** A refusal of the API: the problem+json document's fields (RFC 9457). */
export class Problem extends Error {
  constructor(status, body) {
    const title = (body && body.title) || `HTTP ${status}`;
    super(body && body.detail ? `${title}: ${body.detail}` : title);
    this.status = status;
    this.title = title;
    this.detail = (body && body.detail) || "";
    this.code = (body && body.code) || "";
    this.rule = (body && body.rule) || "";
    this.body = body;
  }
}

/** Calls the API; answers the decoded JSON (null for 204/304), or throws a Problem.  *onResponse*
 * (optional) sees the Response first: to read headers such as Server-Time-Ms. */
export async function call(
  path,
  { method = "GET", token = null, body, headers = {}, allow304 = false, onResponse = null } = {},
) {
  // no-store: the browser's cache would revalidate by the ETag (the version), and a join changes
  // the document but not the version; the client asks for 304s itself (If-None-Match) when it may.
  const init = { method, cache: "no-store", headers: { Accept: "application/json", ...headers } };
  if (token) init.headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(API + path, init);
  } catch (error) {
    throw new Problem(0, { title: "The service could not be reached", detail: String(error.message || error) });
  }
  if (onResponse) onResponse(response);
  if (response.status === 304 && allow304) return null;
  if (response.status === 204) return null;
  const text = await response.text();
  let decoded = null;
  if (text) {
    try {
      decoded = JSON.parse(text);
    } catch {
      decoded = { title: `HTTP ${response.status}`, detail: text.slice(0, 300) };
    }
  }
  if (!response.ok) throw new Problem(response.status, decoded);
  return decoded;
}

/** A key unique to one attempted move (Idempotency-Key). */
export function freshKey() {
  if (globalThis.crypto && typeof crypto.randomUUID === "function") return crypto.randomUUID();
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

// --- seat tokens -------------------------------------------------------------------------------
// One entry per game and seat; the API base is part of the key so two services never mix.

function tokenKey(gameId, seat) {
  return `yamen.token|${API}|${gameId}|${seat}`;
}

export function saveToken(gameId, seat, token) {
  localStorage.setItem(tokenKey(gameId, seat), token);
}

/** Remembers that this browser created *gameId*: only a game's creator fills its open seats with
 * bots (the service refuses anybody else: not_the_creator), so only its pages offer to. */
export function markCreated(gameId) {
  localStorage.setItem(`yamen.created|${API}|${gameId}`, "1");
}

export function createdHere(gameId) {
  return localStorage.getItem(`yamen.created|${API}|${gameId}`) === "1";
}

export function tokenFor(gameId, seat) {
  return localStorage.getItem(tokenKey(gameId, seat));
}

/** Every seat this browser holds a token for: [{gameId, seat}], newest games first is not known. */
export function heldSeats() {
  const held = [];
  for (let i = 0; i < localStorage.length; i++) {
    const parts = (localStorage.key(i) || "").split("|");
    if (parts.length === 4 && parts[0] === "yamen.token" && parts[1] === API) {
      held.push({ gameId: parts[2], seat: Number(parts[3]) });
    }
  }
  held.sort((a, b) => (a.gameId === b.gameId ? a.seat - b.seat : a.gameId < b.gameId ? -1 : 1));
  return held;
}

// --- the guest player --------------------------------------------------------------------------
// The client plays as a guest: a player no app vouches for (POST /v1/guests), its credential kept
// in localStorage.  The games it creates and the seats it claims are bound to it, so "your games"
// come from /v1/me/games on any device holding the credential (the "player code"), and a seat's
// token can be re-issued there (the old one stops working).

function guestKey() {
  return `yamen.guest|${API}`;
}

/** The guest's credential kept in this browser, or null. */
export function playerCode() {
  return localStorage.getItem(guestKey());
}

let guestMade = null;

/** The guest's credential: the one kept here, else a new guest's; null when the service makes no
 * guests (the client then plays with seat tokens alone). */
export function guest() {
  const kept = playerCode();
  if (kept) return Promise.resolve(kept);
  if (!guestMade) {
    guestMade = call("/v1/guests", { method: "POST" }).then(
      (made) => {
        localStorage.setItem(guestKey(), made.credential.credential);
        return made.credential.credential;
      },
      () => {
        guestMade = null;
        return null;
      },
    );
  }
  return guestMade;
}

/** Plays as the player whose code was copied from another device, once the service knows it. */
export async function usePlayerCode(code) {
  const trimmed = String(code || "").trim();
  await call("/v1/me", { token: trimmed }); // throws the Problem (401) for a code that is not one
  localStorage.setItem(guestKey(), trimmed);
}

/** Forgets a player code the service refuses (revoked, or another service's): the next guest() makes a new one. */
export function dropPlayerCode() {
  localStorage.removeItem(guestKey());
}

/** The token of *seat*: kept in this browser, else re-issued for the player holding the seat (its
 * code copied from another device); null when neither holds it. */
export async function recoverToken(gameId, seat) {
  const kept = tokenFor(gameId, seat);
  if (kept) return kept;
  const code = playerCode();
  if (!code) return null;
  try {
    const issued = await call(`/v1/games/${encodeURIComponent(gameId)}/seats/${seat}/token`, {
      method: "POST",
      token: code,
    });
    saveToken(gameId, seat, issued.token);
    return issued.token;
  } catch (error) {
    if (error instanceof Problem && [401, 403, 404].includes(error.status)) return null; // not this player's seat
    throw error;
  }
}

// --- links -------------------------------------------------------------------------------------

/** The page's own URL (keeping ?api=) with another route. */
export function pageUrl(route) {
  const url = new URL(location.href);
  url.hash = route;
  return url.toString();
}

export function seatRoute(gameId, seat) {
  return `#/game/${encodeURIComponent(gameId)}/seat/${seat}`;
}

export function spectatorRoute(gameId) {
  return `#/game/${encodeURIComponent(gameId)}`;
}

export function seatName(seat) {
  return `Seat ${seat}`;
}

/** A table's clock option in words: "30 s per decision (on timeout: bot)"; "" for none. */
export function clockText(clock) {
  if (!clock || !clock.mode) return "";
  const seconds = clock.seconds ?? 60;
  const what =
    clock.mode === "decision"
      ? `${seconds} s per decision`
      : clock.mode === "total"
        ? `${seconds} s per seat + ${clock.increment ?? 0} s per move`
        : `${clock.days ?? 3} days per decision`;
  return `${what} (on timeout: ${clock.on_timeout || "bot"})`;
}

// --- a page's first reads, started before its module has arrived ---------------------------------

const early = new Map();

/** Starts reading *path* (with *token*) now: app.js asks for a game page's first reads as the
 * route is known, so they travel beside the page's modules rather than after them (on a slow
 * network, a round trip or two sooner).  takeEarly() hands the read over, once. */
export function readEarly(path, token = null) {
  const key = `${token || ""} ${path}`;
  if (early.has(key)) return;
  const heard = { response: null, at: 0 };
  const answer = call(path, {
    token,
    onResponse: (received) => {
      heard.response = received;
      heard.at = Date.now(); // its Server-Time-Ms was the service's time then, not when it is taken
    },
  });
  answer.catch(() => {}); // taken over (and its refusal shown) by the page, or never needed
  early.set(key, { answer, heard });
}

/** The read readEarly() started for *path* and *token*, or null; each is handed over once. */
export function takeEarly(path, token = null) {
  const key = `${token || ""} ${path}`;
  const found = early.get(key) || null;
  early.delete(key);
  return found;
}

// --- shared, fetched once ----------------------------------------------------------------------

const once = new Map();

function cached(key, load) {
  if (!once.has(key)) {
    const promise = load();
    once.set(key, promise);
    promise.catch(() => once.delete(key));
  }
  return once.get(key);
}

export function catalogue() {
  return cached("catalogue", () => call("/v1/catalogue"));
}

export function components(kind) {
  return cached(`components:${kind}`, () => call(`/v1/catalogue/${encodeURIComponent(kind)}/components`));
}
