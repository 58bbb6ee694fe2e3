// Unit tests of the reference client's service worker (service/web/sw.js): a push becomes a
// notification, a click on it focuses or opens the game's page, and only finished games are kept
// for offline use.  The worker runs in a VM context with the parts of the ServiceWorker global it
// uses (registration, clients, caches, fetch) recorded; no browser, no push service.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import vm from "node:vm";

const SOURCE = readFileSync(new URL("../../service/web/sw.js", import.meta.url), "utf8");
const SCOPE = "https://yamen.example/play/";

/** A Cache Storage in memory: caches by name, each a Map of URL -> Response. */
function cacheStorage() {
  const stores = new Map();
  const open = async (name) => {
    if (!stores.has(name)) stores.set(name, new Map());
    const store = stores.get(name);
    const key = (request) => (typeof request === "string" ? request : request.url || String(request));
    return {
      add: async () => {},
      put: async (request, response) => store.set(key(request), response),
      match: async (request) => store.get(key(request)),
    };
  };
  const match = async (request) => {
    for (const store of stores.values()) {
      const found = store.get(typeof request === "string" ? request : request.url);
      if (found) return found;
    }
    return undefined;
  };
  return { stores, open, match, keys: async () => [...stores.keys()], delete: async (name) => stores.delete(name) };
}

/** The worker, loaded: its listeners by event type, and what it did. */
function worker({ windows = [], fetchAnswers = {} } = {}) {
  const listeners = new Map();
  const did = { notifications: [], opened: [], focused: [], navigated: [], fetched: [] };
  const clients = {
    matchAll: async () =>
      windows.map((url) => ({
        url,
        focus: async () => did.focused.push(url),
        navigate: async (to) => did.navigated.push([url, to]),
      })),
    openWindow: async (url) => did.opened.push(url),
    claim: async () => {},
  };
  const caches = cacheStorage();
  const self = {
    registration: {
      scope: SCOPE,
      showNotification: async (title, options) => did.notifications.push({ title, options }),
    },
    clients,
    skipWaiting: async () => {},
    addEventListener: (type, listener) => listeners.set(type, listener),
  };
  const fetch = async (request) => {
    did.fetched.push(request.url);
    const answer = fetchAnswers[request.url];
    if (!answer) throw new TypeError("offline");
    return answer();
  };
  vm.runInNewContext(SOURCE, { self, caches, fetch, URL, Request, Response, Promise, console });
  /** Dispatch an event; resolves once everything it handed to waitUntil/respondWith settled. */
  const dispatch = async (type, event) => {
    const waiting = [];
    listeners.get(type)({
      ...event,
      waitUntil: (promise) => waiting.push(promise),
      respondWith: (promise) => waiting.push(promise),
    });
    return Promise.all(waiting);
  };
  return { did, dispatch, caches, listeners };
}

const pushData = (value) => ({ json: () => JSON.parse(value), text: () => value });

test("a push is shown as a notification of its game, a newer one replacing the older", async () => {
  const { did, dispatch } = worker();
  const notice = { title: "Your turn", body: "Yangtze · round 2", url: "#/g/g_1/seat/2", tag: "g_1" };
  await dispatch("push", { data: pushData(JSON.stringify(notice)) });
  assert.equal(did.notifications.length, 1);
  const { title, options } = did.notifications[0];
  assert.equal(title, "Your turn");
  assert.equal(options.body, "Yangtze · round 2");
  assert.equal(options.tag, "g_1");
  assert.equal(options.renotify, true);
  assert.equal(options.data.url, "#/g/g_1/seat/2");
  assert.equal(options.icon, `${SCOPE}icons/icon-192.png`);
});

test("a push that is not JSON still notifies, with its text", async () => {
  const { did, dispatch } = worker();
  await dispatch("push", { data: pushData("plain words") });
  assert.deepEqual(
    did.notifications.map((n) => [n.title, n.options.body, n.options.tag]),
    [["Yamen", "plain words", undefined]],
  );
});

const clicked = (url) => {
  let closed = false;
  return {
    notification: {
      data: { url },
      close: () => {
        closed = true;
      },
      get closed() {
        return closed;
      },
    },
  };
};

test("a click focuses the window already on the game", async () => {
  const game = `${SCOPE}#/g/g_1/seat/2`;
  const { did, dispatch } = worker({ windows: [`${SCOPE}#/`, game] });
  const event = clicked("#/g/g_1/seat/2");
  await dispatch("notificationclick", event);
  assert.equal(event.notification.closed, true);
  assert.deepEqual(did.focused, [game]);
  assert.deepEqual(did.navigated, []);
  assert.deepEqual(did.opened, []);
});

test("a click takes a window of the client to the game, or opens one", async () => {
  const game = `${SCOPE}#/g/g_1/seat/2`;
  const elsewhere = worker({ windows: [`${SCOPE}#/`] });
  await elsewhere.dispatch("notificationclick", clicked("#/g/g_1/seat/2"));
  assert.deepEqual(elsewhere.did.navigated, [[`${SCOPE}#/`, game]]);
  const none = worker({ windows: ["https://other.example/"] });
  await none.dispatch("notificationclick", clicked("#/g/g_1/seat/2"));
  assert.deepEqual(none.did.opened, [game]);
});

test("a click never leaves the client's origin", async () => {
  const { did, dispatch } = worker({ windows: [`${SCOPE}#/`] });
  await dispatch("notificationclick", clicked("https://evil.example/phish"));
  assert.deepEqual([did.opened, did.navigated, did.focused], [[], [], []]);
});

const json = (body) => () => new Response(JSON.stringify(body), { headers: { "content-type": "application/json" } });

test("a finished game's reads are kept for offline use, a game under way's are not", async () => {
  const finished = "https://yamen.example/v1/games/g_done";
  const active = "https://yamen.example/v1/games/g_live";
  const { dispatch, caches } = worker({
    fetchAnswers: {
      [finished]: json({ status: "finished" }),
      [`${finished}/events?after=0`]: json({ events: [] }),
      [active]: json({ status: "active" }),
      [`${active}/events?after=0`]: json({ events: [] }),
    },
  });
  const get = (url) => ({ request: new Request(url) });
  for (const url of [finished, `${finished}/events?after=0`, active, `${active}/events?after=0`]) {
    await dispatch("fetch", get(url));
  }
  const kept = [...(caches.stores.get("yamen-finished-games-v1") || new Map()).keys()];
  assert.ok(kept.includes(finished) && kept.includes(`${finished}/events?after=0`), kept);
  assert.ok(!kept.some((url) => url.startsWith(active)), kept);
});
