// The reference client's service worker (scope /play/): the app shell offline, finished games and
// their replays offline, and Web Push "your turn" / "game finished" notifications.
//
// - The app shell (this folder's files) is precached at install and fetched network-first: online,
//   a deploy shows at once; offline, the cached copy answers.
// - The API's reads of a *finished* game (its document, events, states, record, verification) and
//   the catalogue are kept as they are fetched, network-first: a finished game never changes, so
//   the copy is as good as the network's, and the game and its replay open offline.  A game is
//   known finished when its document says so; reads of games under way are never kept.
// - A push (service/application/push.py) carries {title, body, url, tag}: it is shown as a
//   notification, and a click focuses a window of the client (or opens one) on the game.

const SHELL = "yamen-shell-v1";
const GAMES = "yamen-finished-games-v1";
const FINISHED_MARK = "/__yamen/finished/";
const SHELL_FILES = [
  "./",
  "index.html",
  "manifest.webmanifest",
  "icons/icon-192.png",
  "icons/icon-512.png",
  "assets/app.css",
  "assets/app.js",
  "assets/api.js",
  "assets/html.js",
  "assets/pwa.js",
];

const scope = new URL(self.registration.scope);

self.addEventListener("install", (event) => {
  // One file missing (renamed by a newer client) must not stop the rest being kept.
  event.waitUntil(
    caches
      .open(SHELL)
      .then((cache) => Promise.allSettled(SHELL_FILES.map((file) => cache.add(new URL(file, scope)))))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name !== SHELL && name !== GAMES && name.startsWith("yamen-")) await caches.delete(name);
      }
      await self.clients.claim();
    })(),
  );
});

/** The game a same-origin API path reads: [game id, the rest of the path], or null. */
function gameRead(url) {
  const match = /^\/v1\/games\/([A-Za-z0-9_-]+)(\/.*)?$/.exec(url.pathname);
  if (!match || match[1] === "import") return null;
  return [match[1], match[2] || ""];
}

async function networkFirst(request, keep) {
  try {
    const response = await fetch(request);
    if (response.ok && (await keep(response.clone()))) {
      const cache = await caches.open(request.url.startsWith(scope.href) ? SHELL : GAMES);
      await cache.put(request, response.clone());
    }
    return response;
  } catch (error) {
    const cached = await caches.match(request, { ignoreVary: true });
    if (cached) return cached;
    throw error;
  }
}

async function finishedGame(gameId) {
  const cache = await caches.open(GAMES);
  return Boolean(await cache.match(new URL(FINISHED_MARK + gameId, scope.origin)));
}

async function markFinished(gameId) {
  const cache = await caches.open(GAMES);
  await cache.put(new URL(FINISHED_MARK + gameId, scope.origin), new Response("finished"));
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== scope.origin) return; // another origin's API (?api=): the browser's business
  if ((request.headers.get("accept") || "").includes("text/event-stream")) return; // live feeds
  if (url.href.startsWith(scope.href)) {
    // The app shell: navigations (any #/route) answer with the page itself when offline.
    const keyed = request.mode === "navigate" ? new Request(new URL("./", scope)) : request;
    event.respondWith(
      networkFirst(request, async () => true).catch(async () => {
        const cached = await caches.match(keyed, { ignoreVary: true, ignoreSearch: request.mode === "navigate" });
        return cached || Response.error();
      }),
    );
    return;
  }
  if (url.pathname === "/v1/catalogue" || url.pathname.startsWith("/v1/catalogue/")) {
    event.respondWith(networkFirst(request, async () => true));
    return;
  }
  const read = gameRead(url);
  if (read === null || read[1].endsWith("/stream")) return;
  const [gameId, rest] = read;
  event.respondWith(
    networkFirst(request, async (response) => {
      if (rest === "") {
        const type = response.headers.get("content-type") || "";
        if (!type.includes("json")) return false;
        const doc = await response.json();
        if (doc && doc.status === "finished") {
          await markFinished(gameId);
          return true;
        }
        return false;
      }
      return finishedGame(gameId);
    }),
  );
});

self.addEventListener("push", (event) => {
  let notice = {};
  try {
    notice = event.data ? event.data.json() : {};
  } catch {
    notice = { body: event.data ? event.data.text() : "" };
  }
  const title = typeof notice.title === "string" && notice.title ? notice.title : "Yamen";
  const options = {
    body: typeof notice.body === "string" ? notice.body : "",
    icon: new URL("icons/icon-192.png", scope).href,
    data: { url: typeof notice.url === "string" ? notice.url : "./" },
  };
  if (typeof notice.tag === "string" && notice.tag) {
    options.tag = notice.tag;
    options.renotify = true; // a newer notice of the same game replaces the old one, and is heard
  }
  event.waitUntil(self.registration.showNotification(title, options));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const target = new URL((event.notification.data && event.notification.data.url) || "./", scope);
  if (target.origin !== scope.origin) return;
  event.waitUntil(
    (async () => {
      const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
      for (const client of windows) {
        if (client.url === target.href && "focus" in client) return client.focus();
      }
      for (const client of windows) {
        if (client.url.startsWith(scope.href) && "navigate" in client) {
          await client.focus();
          return client.navigate(target.href);
        }
      }
      return self.clients.openWindow(target.href);
    })(),
  );
});
