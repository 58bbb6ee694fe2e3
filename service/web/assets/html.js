// The one escaping template helper of the client: html`...` escapes every interpolated value
// unless it is itself html`...` (or raw(), for markup built elsewhere and already escaped).
// Arrays are joined, null/undefined/false draw nothing.  The result is a string (for innerHTML).

const SAFE = Symbol("safe html");

/** A fragment known to be markup: html`` answers these, and they are not escaped again. */
class Safe {
  constructor(text) {
    this[SAFE] = true;
    this.text = text;
  }
  toString() {
    return this.text;
  }
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

/** Markup trusted as it is (built by html`` or escaped already): never user or game text. */
export function raw(markup) {
  return new Safe(String(markup ?? ""));
}

function part(value) {
  if (value == null || value === false) return "";
  if (value instanceof Safe) return value.text;
  if (Array.isArray(value)) return value.map(part).join("");
  return esc(value);
}

/** The tagged template: html`<b>${name}</b>` with *name* escaped. */
export function html(strings, ...values) {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += part(values[i]) + strings[i + 1];
  return new Safe(out);
}
