// The reference client's entry point: hash routes to the lobby or a game page.
//   #/                          the lobby
//   #/game/<id>                 a game, as a spectator
//   #/game/<id>/seat/<n>        a game, as seat n (its token kept in this browser, or re-issued for
//                               the guest player holding the seat: its code was copied from elsewhere)
//   #/leaderboard/<kind>        a title's leaderboard (and the guest's place and rating history)

import { API, catalogue, playerCode, readEarly, recoverToken, tokenFor } from "./api.js";
import { html } from "./html.js";

// Each page's module is loaded when its route is first shown (a game page does not download the
// lobby); the modules a page imports are asked for at once beside it (modulepreload), so a slow
// network pays one round trip for them rather than one per level of imports.
const PAGES = {
  game: {
    load: () => import("./game.js"),
    uses: ["game.js", "boardview.js", "clock.js", "feed.js", "generic.js", "moves.js", "problems.js", "html.js"],
  },
  lobby: {
    load: () => import("./lobby.js"),
    uses: ["lobby.js", "pairing.js", "schemaform.js", "html.js", "problems.js"],
  },
  leaderboard: { load: () => import("./leaderboard.js"), uses: ["leaderboard.js", "html.js", "problems.js"] },
};
const preloaded = new Set();

function page(name) {
  for (const file of PAGES[name].uses) {
    if (preloaded.has(file)) continue;
    preloaded.add(file);
    const link = document.createElement("link");
    link.rel = "modulepreload";
    link.href = new URL(file, import.meta.url).href;
    document.head.append(link);
  }
  return PAGES[name].load();
}

const main = document.getElementById("main");
let leave = null;
let shown = 0; // the routing's count: a module that arrives after the route changed shows nothing

function show(name, open) {
  const mine = ++shown;
  page(name).then(
    (module) => {
      if (mine === shown) leave = open(module) || null;
    },
    (error) => {
      if (mine === shown)
        main.innerHTML = html`<p class="error">This page could not be loaded: ${error.message || error}</p>`;
    },
  );
}

function route() {
  if (leave) leave();
  leave = null;
  shown++;
  const hash = location.hash.replace(/^#/, "") || "/";
  const parts = hash.split("/").filter(Boolean).map(decodeURIComponent);
  window.scrollTo(0, 0);
  if (parts[0] === "game" && parts[1]) {
    const seat = parts[2] === "seat" && /^\d+$/.test(parts[3] || "") ? Number(parts[3]) : null;
    document.title = `Yamen · ${parts[1]}${seat == null ? "" : ` · Seat ${seat}`}`;
    if (seat != null && !tokenFor(parts[1], seat) && playerCode()) {
      main.innerHTML = html`<p class="muted">Looking for your seat…</p>`;
      const asked = location.hash;
      page("game"); // fetched while the token is recovered
      recoverToken(parts[1], seat)
        .catch(() => null) // the game page says what it can (a spectator without the token)
        .then(() => {
          if (location.hash === asked) show("game", ({ showGame }) => showGame(main, parts[1], seat));
        });
      return;
    }
    // The page's first reads start now, beside its modules (game.js takes them over).
    const base = `/v1/games/${encodeURIComponent(parts[1])}`;
    const token = seat == null ? null : tokenFor(parts[1], seat);
    readEarly(base, token);
    if (token) readEarly(`${base}/legal-moves`, token);
    catalogue().catch(() => {});
    show("game", ({ showGame }) => showGame(main, parts[1], seat));
  } else if (parts[0] === "leaderboard" && parts[1]) {
    document.title = `Yamen · Leaderboard · ${parts[1]}`;
    show("leaderboard", ({ showLeaderboard }) => {
      showLeaderboard(main, parts[1]);
    });
  } else if (parts.length === 0) {
    document.title = "Yamen · Lobby";
    show("lobby", ({ showLobby }) => {
      showLobby(main);
    });
  } else {
    main.innerHTML = html`<p class="error">No such page: ${hash}. <a href="#/">Lobby</a></p>`;
  }
}

document.getElementById("api-base").textContent = API ? `API: ${API}` : "";
window.addEventListener("hashchange", route);
route();
