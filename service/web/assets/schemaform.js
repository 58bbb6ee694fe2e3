// A create form generated from a kind's options_schema (JSON Schema, as msgspec writes it):
// integers with bounds -> a select (short ranges) or a number input, enums -> a select, booleans ->
// a checkbox, other strings -> a text input (with the schema's pattern).  A nullable option gets a
// "(default)" choice; only values that differ from the schema's default are sent.

import { html } from "./html.js";

/** The options object's schema, its $ref resolved against $defs. */
export function optionsObject(schema) {
  let resolved = schema || {};
  const seen = new Set();
  while (resolved.$ref && !seen.has(resolved.$ref)) {
    seen.add(resolved.$ref);
    const name = resolved.$ref.split("/").pop();
    resolved = (schema.$defs || schema.definitions || {})[name] || {};
  }
  return resolved;
}

/** One property's control: {kind: "select"|"number"|"checkbox"|"text", ...}. */
export function fieldFor(name, property) {
  const nullable = Array.isArray(property.anyOf) && property.anyOf.some((part) => part.type === "null");
  const base = nullable ? property.anyOf.find((part) => part.type !== "null") || {} : property;
  const field = {
    name,
    description: property.description || base.description || "",
    nullable,
    default: property.default === undefined ? null : property.default,
  };
  if (Array.isArray(base.enum)) {
    return { ...field, kind: "select", choices: base.enum.map((value) => ({ value, label: String(value) })) };
  }
  if (base.type === "boolean") {
    if (!nullable) return { ...field, kind: "checkbox" };
    return {
      ...field,
      kind: "select",
      choices: [
        { value: true, label: "yes" },
        { value: false, label: "no" },
      ],
    };
  }
  if (base.type === "integer" || base.type === "number") {
    const min = base.minimum;
    const max = base.maximum;
    if (base.type === "integer" && Number.isInteger(min) && Number.isInteger(max) && max - min <= 20) {
      const choices = [];
      for (let value = min; value <= max; value++) choices.push({ value, label: String(value) });
      return { ...field, kind: "select", choices };
    }
    return { ...field, kind: "number", min, max, step: base.type === "integer" ? 1 : "any" };
  }
  return { ...field, kind: "text", pattern: base.pattern || "" };
}

export function fieldsOf(schema) {
  const object = optionsObject(schema);
  return Object.entries(object.properties || {}).map(([name, property]) => fieldFor(name, property));
}

/** The fields' markup (an html`` fragment); each control is named `opt.<name>` and carries its
 * field's index.  *labels*: the catalogue's option_labels (key -> {label, description}). */
export function renderFields(fields, { players, labels = {} } = {}) {
  return html`${fields.map((field, index) => {
    const id = `opt-${Math.random().toString(36).slice(2)}-${field.name}`;
    // The catalogue's label and description (option_labels), else the schema's key and text.
    const named = labels[field.name] || {};
    const description = named.description || field.description;
    const help = description ? html`<small class="help">${description}</small>` : "";
    const common = html`id="${id}" name="opt.${field.name}" data-field="${index}"`;
    let control;
    if (field.kind === "select") {
      const wanted = field.name === "players" && players != null ? players : field.default;
      const unset = field.nullable ? html`<option value="">(default)</option>` : "";
      const choices = field.choices.map(
        (choice, i) =>
          html`<option value="${i}"${choice.value === wanted ? html` selected` : ""}>${choice.label}</option>`,
      );
      control = html`<select ${common}>${unset}${choices}</select>`;
    } else if (field.kind === "checkbox") {
      control = html`<input type="checkbox" ${common}${field.default ? html` checked` : ""}>`;
    } else if (field.kind === "number") {
      const min = field.min != null ? html` min="${field.min}"` : "";
      const max = field.max != null ? html` max="${field.max}"` : "";
      const value = field.default != null ? html` value="${field.default}"` : "";
      control = html`<input type="number" step="${field.step}"${min}${max}${value} ${common}>`;
    } else {
      const pattern = field.pattern ? html` pattern="${field.pattern}"` : "";
      const value = field.default != null ? html` value="${field.default}"` : "";
      control = html`<input type="text"${pattern}${value} placeholder="${field.nullable ? "(default)" : ""}" ${common}>`;
    }
    return html`<div class="field field-${field.kind}"><label for="${id}">${named.label || field.name}</label>${control}${help}</div>`;
  })}`;
}

/** The options object the form holds: only values that differ from the schema's defaults. */
export function readFields(form, fields) {
  const options = {};
  for (const control of form.querySelectorAll("[data-field]")) {
    const field = fields[Number(control.dataset.field)];
    let value;
    if (field.kind === "checkbox") value = control.checked;
    else if (field.kind === "select") {
      if (control.value === "") continue;
      value = field.choices[Number(control.value)].value;
    } else if (field.kind === "number") {
      if (control.value === "") continue;
      value = Number(control.value);
    } else {
      if (control.value === "") continue;
      value = control.value;
    }
    if (value !== field.default) options[field.name] = value;
  }
  return options;
}
