// The Yamen API as the client uses it: the base URL (?api=), JSON requests, problem+json errors,
// and the seat tokens kept in localStorage.

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

/** HTML-escapes a value for text or attribute positions. */
export function esc(value) {
  return String(value ?? "")
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
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

/** Each command type's description from the OpenAPI document's components, by its `type` tag. */
export function commandDescriptions() {
  return cached("descriptions", async () => {
    const described = new Map();
    let document;
    try {
      document = await call("/schema/openapi.json");
    } catch {
      return described; // the labels fall back to the command's type
    }
    const schemas = (document.components && document.components.schemas) || {};
    for (const schema of Object.values(schemas)) {
      const tag = schema && schema.properties && schema.properties.type && schema.properties.type.const;
      if (typeof tag === "string" && schema.description && !described.has(tag)) {
        described.set(tag, schema.description);
      }
    }
    return described;
  });
}
