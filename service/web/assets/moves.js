// The seat's legal moves as choices: an amount that only differs by a number becomes one stepper
// (not a button per amount), and moves whose labels read the same are told apart by what differs.
// Pure functions (no DOM): unit-tested with node --test (tests/web).

import { html } from "./html.js";

/** The smallest group of amounts shown as a stepper rather than as buttons. */
export const STEPPER_MIN = 4;

function isInteger(value) {
  return typeof value === "number" && Number.isInteger(value);
}

/** Splits *moves* (commands) into choices, in the order they come: {kind: "one", index} or
 * {kind: "amount", field, options: [{index, value}] sorted by value}.  A group is the moves of one
 * type that differ only in one integer field, at least STEPPER_MIN of them. */
export function groupMoves(moves) {
  const buckets = new Map();
  moves.forEach((command, index) => {
    for (const [field, value] of Object.entries(command)) {
      if (field === "type" || !isInteger(value)) continue;
      const rest = { ...command };
      delete rest[field];
      const key = `${field}|${canonical(rest)}`;
      if (!buckets.has(key)) buckets.set(key, { field, options: [] });
      buckets.get(key).options.push({ index, value });
    }
  });
  const groups = [...buckets.values()]
    .filter((group) => new Set(group.options.map((o) => o.value)).size >= STEPPER_MIN)
    .sort((a, b) => b.options.length - a.options.length);
  const taken = new Map(); // index -> its group
  for (const group of groups) {
    if (group.options.some((option) => taken.has(option.index))) continue;
    group.options.sort((a, b) => a.value - b.value);
    for (const option of group.options) taken.set(option.index, group);
  }
  const choices = [];
  const placed = new Set();
  moves.forEach((_, index) => {
    const group = taken.get(index);
    if (!group) {
      choices.push({ kind: "one", index });
    } else if (!placed.has(group)) {
      placed.add(group);
      choices.push({ kind: "amount", field: group.field, options: group.options });
    }
  });
  return choices;
}

/** A value as JSON with its objects' keys sorted: equal values, equal text. */
export function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`).join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}

/** "from_seat" -> "from seat". */
export function humanKey(key) {
  return String(key).replaceAll("_", " ");
}

function valueText(value) {
  if (value === true) return "yes";
  if (value === false) return "no";
  if (value == null) return "none";
  if (Array.isArray(value)) return value.map(valueText).join(", ");
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** *labels* (one per move) with the same-looking ones told apart: " · <field> <value>" for each
 * field in which those moves differ; then, if still alike, " (1)", " (2)"... */
export function distinguish(labels, moves) {
  const out = labels.slice();
  const byLabel = new Map();
  labels.forEach((label, index) => {
    if (!byLabel.has(label)) byLabel.set(label, []);
    byLabel.get(label).push(index);
  });
  for (const [label, indices] of byLabel) {
    if (indices.length < 2) continue;
    const fields = new Set();
    for (const index of indices) for (const key of Object.keys(moves[index])) fields.add(key);
    const differing = [...fields].filter(
      (key) => new Set(indices.map((index) => JSON.stringify(moves[index][key] ?? null))).size > 1,
    );
    indices.forEach((index, n) => {
      const parts = differing.map((key) => `${humanKey(key)} ${valueText(moves[index][key])}`);
      out[index] = parts.length ? `${label} · ${parts.join(", ")}` : `${label} (${n + 1})`;
    });
  }
  return out;
}

/** The choices as markup: a button per move (button.move, data-index), a stepper per amount. */
export function choicesHtml(moves, labels, descriptionOf) {
  const shown = distinguish(labels, moves);
  return groupMoves(moves)
    .map((choice, n) => {
      if (choice.kind === "one") {
        const command = moves[choice.index];
        return html`<li>${moveButton(choice.index, command, shown[choice.index], descriptionOf(command))}</li>`;
      }
      const first = choice.options[0];
      const command = moves[first.index];
      const values = choice.options.map((option) => `${option.index}:${option.value}`).join(",");
      const last = choice.options.length - 1;
      return html`<li class="amount" data-group="${n}" data-field="${choice.field}" data-options="${values}">
        <div class="stepper" role="group" aria-label="${humanKey(choice.field)}">
          <button type="button" class="step" data-step="-1" aria-label="less">−</button>
          <input type="range" class="amount-range" min="0" max="${last}" value="0" step="1"
            aria-label="${humanKey(choice.field)}">
          <output class="amount-value">${first.value}</output>
          <button type="button" class="step" data-step="1" aria-label="more">+</button>
        </div>
        <small class="muted amount-range-text">${humanKey(choice.field)} ${first.value}–${choice.options[last].value}</small>
        ${moveButton(first.index, command, labels[first.index], descriptionOf(command))}
      </li>`;
    })
    .join("");
}

function moveButton(index, command, label, description) {
  return html`<button type="button" class="move" data-index="${index}" data-type="${command.type}"
    title="${JSON.stringify(command)}"><span class="label">${label}</span>
    <small class="description">${description}</small></button>`;
}
