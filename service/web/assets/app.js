// The reference client's entry point: hash routes to the lobby or a game page.
//   #/                          the lobby
//   #/game/<id>                 a game, as a spectator
//   #/game/<id>/seat/<n>        a game, as seat n (its token kept in this browser)

import { API, esc } from "./api.js";
import { showGame } from "./game.js";
import { showLobby } from "./lobby.js";

const main = document.getElementById("main");
let leave = null;

function route() {
  if (leave) leave();
  leave = null;
  const hash = location.hash.replace(/^#/, "") || "/";
  const parts = hash.split("/").filter(Boolean).map(decodeURIComponent);
  window.scrollTo(0, 0);
  if (parts[0] === "game" && parts[1]) {
    const seat = parts[2] === "seat" && /^\d+$/.test(parts[3] || "") ? Number(parts[3]) : null;
    document.title = `Yamen · ${parts[1]}${seat == null ? "" : ` · Seat ${seat}`}`;
    leave = showGame(main, parts[1], seat);
  } else if (parts.length === 0) {
    document.title = "Yamen · Lobby";
    showLobby(main);
  } else {
    main.innerHTML = `<p class="error">No such page: ${esc(hash)}. <a href="#/">Lobby</a></p>`;
  }
}

document.getElementById("api-base").textContent = API ? `API: ${API}` : "";
window.addEventListener("hashchange", route);
route();
