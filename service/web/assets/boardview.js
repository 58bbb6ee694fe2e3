// The board as a window the player zooms and pans: the board's SVG drawn at a size where its
// smallest text reads at MIN_TEXT_PX or more ("readable"), panned by touch or scroll inside its box
// (the page itself never scrolls sideways), or fitted to the box's width ("fit").

export const MIN_TEXT_PX = 12;
const MAX_ZOOM = 2.5;
const STEP = 1.25;

/** The smallest font size (in the SVG's own units) of the texts in *svg*; null when none. */
export function smallestText(svg) {
  let smallest = null;
  for (const text of svg.querySelectorAll("text")) {
    const size = Number.parseFloat(text.getAttribute("font-size") || "");
    if (Number.isFinite(size) && size > 0 && (smallest === null || size < smallest)) smallest = size;
  }
  return smallest;
}

/** The zoom at which *smallest* (SVG units) reads as MIN_TEXT_PX, between 1 and MAX_ZOOM. */
export function readableZoom(smallest) {
  if (!smallest) return 1;
  return Math.min(MAX_ZOOM, Math.max(1, MIN_TEXT_PX / smallest));
}

function viewWidth(svg) {
  const box = svg.viewBox && svg.viewBox.baseVal;
  if (box && box.width) return box.width;
  return Number.parseFloat(svg.getAttribute("width") || "") || null;
}

/** Sizes the board's SVGs in *box* for *zoom* ("readable", "fit" or a number); answers the zoom used. */
export function applyZoom(box, zoom) {
  let used = zoom;
  for (const svg of box.querySelectorAll(":scope > svg, :scope > * > svg")) {
    const width = viewWidth(svg);
    if (!width) continue;
    if (zoom === "fit") {
      svg.style.width = "100%";
      svg.style.maxWidth = "100%";
      continue;
    }
    const factor = zoom === "readable" ? readableZoom(smallestText(svg)) : Number(zoom);
    used = factor;
    svg.style.width = `${Math.round(width * factor)}px`;
    svg.style.maxWidth = "none";
  }
  box.dataset.zoom = String(used);
  return used;
}

/** The zoom after pressing *action* ("in", "out", "fit", "readable") at *current*. */
export function nextZoom(current, action, fitted) {
  if (action === "fit" || action === "readable") return action;
  const now = typeof current === "number" ? current : current === "fit" ? fitted : 1;
  const next = action === "in" ? now * STEP : now / STEP;
  return Math.min(MAX_ZOOM, Math.max(0.2, Number(next.toFixed(3))));
}
