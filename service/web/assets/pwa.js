// Installable app and Web Push: registers the service worker (../sw.js, scope /play/), and
// enablePush() subscribes this browser to "your turn" and "game finished" (docs/frontends.md,
// "Push and install").  A "Notify me" button appears in the page's header when the service sends
// pushes (GET /v1/push/key answers) and this browser plays as a guest player.

const params = new URLSearchParams(location.search);
const API = (params.get("api") || "").replace(/\/+$/, "");

/** The service worker's registration, once registered (null where there is none). */
export const registration =
  "serviceWorker" in navigator
    ? navigator.serviceWorker
        .register(new URL("../sw.js", import.meta.url), { scope: new URL("../", import.meta.url).pathname })
        .catch((error) => {
          console.warn("service worker not registered", error);
          return null;
        })
    : Promise.resolve(null);

function keyBytes(base64url) {
  const text = atob(
    base64url
      .replace(/-/g, "+")
      .replace(/_/g, "/")
      .padEnd(Math.ceil(base64url.length / 4) * 4, "="),
  );
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

async function json(response) {
  const text = await response.text();
  const body = text ? JSON.parse(text) : null;
  if (!response.ok) {
    const error = new Error((body && (body.detail || body.title)) || `HTTP ${response.status}`);
    error.status = response.status;
    error.code = body && body.code;
    throw error;
  }
  return body;
}

/** Whether this browser can take pushes at all. */
export function pushSupported() {
  return "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
}

/** The service's VAPID public key, or null when it sends no pushes (404 push_off). */
export async function pushKey({ api = API } = {}) {
  const response = await fetch(`${api}/v1/push/key`, { headers: { Accept: "application/json" } });
  if (response.status === 404) return null;
  return (await json(response)).public_key;
}

/**
 * Subscribe this browser: asks for permission (call it from a click), subscribes with the
 * service's VAPID key and sends the subscription.  *authorization* is a player credential
 * (`ymp_…`: the player hears of all its seats) or a seat token (`ymn.…`, with *gameId*: that seat).
 * Answers the service's subscription document.
 */
export async function enablePush({ api = API, authorization, gameId = null }) {
  if (!pushSupported()) throw new Error("this browser cannot receive push notifications");
  const key = await pushKey({ api });
  if (!key) throw new Error("this service sends no push notifications");
  if ((await Notification.requestPermission()) !== "granted") throw new Error("notifications are not allowed");
  const ready = (await registration) && (await navigator.serviceWorker.ready);
  if (!ready) throw new Error("the service worker is not running");
  let subscription = await ready.pushManager.getSubscription();
  const wanted = keyBytes(key);
  const current = subscription && subscription.options && subscription.options.applicationServerKey;
  if (subscription && current && !sameBytes(new Uint8Array(current), wanted)) {
    await subscription.unsubscribe(); // subscribed for another key: the service rotated it
    subscription = null;
  }
  if (!subscription) {
    subscription = await ready.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: wanted });
  }
  const body = subscription.toJSON();
  if (gameId) body.game_id = gameId;
  const response = await fetch(`${api}/v1/push/subscriptions`, {
    method: "POST",
    headers: {
      Accept: "application/json",
      "Content-Type": "application/json",
      Authorization: `Bearer ${authorization}`,
    },
    body: JSON.stringify(body),
  });
  return json(response);
}

/** Stop pushes to this browser (its subscription at the service, *subscriptionId*, and the browser's). */
export async function disablePush({ api = API, authorization, subscriptionId }) {
  const ready = (await registration) && (await navigator.serviceWorker.ready);
  const subscription = ready && (await ready.pushManager.getSubscription());
  if (subscription) await subscription.unsubscribe();
  if (subscriptionId) {
    await fetch(`${api}/v1/push/subscriptions/${encodeURIComponent(subscriptionId)}`, {
      method: "DELETE",
      headers: { Authorization: `Bearer ${authorization}` },
    });
  }
}

function sameBytes(a, b) {
  return a.length === b.length && a.every((value, i) => value === b[i]);
}

/** The guest player's credential the client keeps (api.js: `yamen.guest|<api>`), or null. */
function guestCredential() {
  try {
    return localStorage.getItem(`yamen.guest|${API}`);
  } catch {
    return null;
  }
}

async function offerPush() {
  if (!pushSupported() || Notification.permission === "denied") return;
  const header = document.querySelector("header.top");
  if (!header || header.querySelector(".push-toggle")) return;
  let key;
  try {
    key = await pushKey();
  } catch {
    return;
  }
  if (!key) return;
  const button = document.createElement("button");
  button.type = "button";
  button.className = "push-toggle";
  button.textContent = Notification.permission === "granted" ? "Notifications on" : "Notify me";
  button.title = "Get a notification when it is your turn and when a game ends";
  button.addEventListener("click", async () => {
    const authorization = guestCredential();
    if (!authorization) {
      button.textContent = "Play a game first";
      return;
    }
    button.disabled = true;
    try {
      await enablePush({ authorization });
      button.textContent = "Notifications on";
    } catch (error) {
      button.textContent = "Notify me";
      button.title = String(error.message || error);
    } finally {
      button.disabled = false;
    }
  });
  header.append(button);
  // Already allowed: keep the service's copy of this browser's subscription current.
  const authorization = guestCredential();
  if (Notification.permission === "granted" && authorization) enablePush({ authorization }).catch(() => {});
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", offerPush);
else offerPush();
