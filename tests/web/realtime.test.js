// Unit tests of the realtime socket's client (realtime.js) against a fake WebSocket: hello and
// welcome, answers matched by id, pings answered, refusals as api.js Problems, a socket that goes
// failing what waits on it, the backoff.

import assert from "node:assert/strict";
import { test } from "node:test";

// api.js reads the page's address when it loads (?api=): a page's, for node.
globalThis.location ??= new URL("http://127.0.0.1:8000/play/#/game/g_1/seat/0");

const { ANSWER_MS, backoff, Lost, Realtime, refusal, socketUrl } = await import("../../service/web/assets/realtime.js");
const { Problem } = await import("../../service/web/assets/api.js");

/** A WebSocket that records what the client sends; the test plays the server. */
class FakeSocket {
  static last = null;
  constructor(url) {
    this.url = url;
    this.readyState = 0;
    this.sent = [];
    this.listeners = new Map();
    this.closedWith = null;
    FakeSocket.last = this;
  }
  addEventListener(type, listener) {
    if (!this.listeners.has(type)) this.listeners.set(type, []);
    this.listeners.get(type).push(listener);
  }
  emit(type, event = {}) {
    for (const listener of this.listeners.get(type) || []) listener(event);
  }
  send(data) {
    this.sent.push(JSON.parse(data));
  }
  close(code, reason) {
    this.closedWith = { code, reason };
    this.readyState = 3;
  }
  // the server's side
  opened() {
    this.readyState = 1;
    this.emit("open");
  }
  say(message) {
    this.emit("message", { data: JSON.stringify(message) });
  }
  drop(code) {
    this.readyState = 3;
    this.emit("close", { code, reason: "" });
  }
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

async function welcomed(credential, options = {}) {
  const closes = [];
  const messages = [];
  const client = new Realtime("ws://x/v1/ws", {
    WebSocketImpl: FakeSocket,
    onMessage: (message) => messages.push(message),
    onClose: (code) => closes.push(code),
    ...options,
  });
  const opening = client.open(credential);
  const socket = FakeSocket.last;
  socket.opened();
  const hello = socket.sent[0];
  socket.say({ type: "welcome", id: hello.id, protocol: 1, limits: { heartbeat_seconds: 15 } });
  await opening;
  return { client, socket, hello, closes, messages };
}

test("the socket's address follows the API's (this origin, or another), ws or wss", () => {
  assert.equal(socketUrl("", "http://127.0.0.1:8000/play/#/game/g_1"), "ws://127.0.0.1:8000/v1/ws");
  assert.equal(socketUrl("", "https://yamen.example/play/?x=1#/"), "wss://yamen.example/v1/ws");
  assert.equal(socketUrl("http://127.0.0.1:9000", "http://127.0.0.1:8000/index.html"), "ws://127.0.0.1:9000/v1/ws");
});

test("hello carries the seat's token; a spectator says hello without one", async () => {
  const seat = await welcomed("ymn.0.secret");
  assert.deepEqual(seat.hello, { type: "hello", credential: "ymn.0.secret", id: seat.hello.id });
  seat.client.close();
  const spectator = await welcomed(undefined);
  assert.equal(spectator.hello.type, "hello");
  assert.ok(!("credential" in spectator.hello));
  spectator.client.close();
});

test("answers are matched to their requests by id; the rest goes to onMessage", async () => {
  const { client, socket, messages } = await welcomed("ymn.0.s");
  const first = client.ask({ type: "subscribe", game_id: "g_1", after: 4 });
  const second = client.ask({ type: "move", game_id: "g_1", command: { type: "x.Pass" } });
  const [subscribe, move] = socket.sent.slice(1);
  assert.deepEqual(subscribe, { type: "subscribe", game_id: "g_1", after: 4, id: subscribe.id });
  assert.notEqual(subscribe.id, move.id);
  socket.say({ type: "move_result", id: move.id, game_id: "g_1", result: { version: 6 } });
  socket.say({ type: "events", game_id: "g_1", version: 5, events: [{ seq: 5 }] });
  socket.say({ type: "subscribed", id: subscribe.id, game_id: "g_1", seat: 0, after: 4 });
  assert.equal((await second).result.version, 6);
  assert.equal((await first).type, "subscribed");
  assert.deepEqual(
    messages.map((m) => m.type),
    ["events"],
  );
  client.close();
});

test("a ping is answered with a pong carrying its t (and still reaches onMessage: the clock)", async () => {
  const { client, socket, messages } = await welcomed("ymn.0.s");
  socket.say({ type: "ping", t: 1700000000123 });
  assert.deepEqual(socket.sent.at(-1), { type: "pong", t: 1700000000123 });
  assert.equal(messages.at(-1).t, 1700000000123);
  client.close();
});

test("a refused hello rejects with the problem as an api.js Problem", async () => {
  const client = new Realtime("ws://x/v1/ws", { WebSocketImpl: FakeSocket });
  const opening = client.open("ymn.0.wrong");
  const socket = FakeSocket.last;
  socket.opened();
  socket.say({
    type: "problem",
    id: socket.sent[0].id,
    problem: { type: "about:blank", title: "Unauthorized", status: 401, code: "invalid_token" },
  });
  await assert.rejects(opening, (error) => error instanceof Problem && error.code === "invalid_token");
});

test("a socket that cannot open rejects, and says so once", async () => {
  const closes = [];
  const client = new Realtime("ws://x/v1/ws", { WebSocketImpl: FakeSocket, onClose: (code) => closes.push(code) });
  const opening = client.open("ymn.0.s");
  FakeSocket.last.emit("error");
  FakeSocket.last.drop(1006);
  await assert.rejects(opening, Lost);
  client.close();
  assert.deepEqual(closes, [1006]);
});

test("what waits on a socket that goes fails as Lost; the server stopping (1001) is reported", async () => {
  const { client, socket, closes } = await welcomed("ymn.0.s");
  const move = client.ask({ type: "move", game_id: "g_1", command: {} });
  socket.drop(1001);
  await assert.rejects(move, Lost);
  assert.deepEqual(closes, [1001]);
  assert.equal(client.ready, false);
  assert.throws(() => client.send({ type: "ping" }), Lost);
});

test("a request unanswered in time fails as Lost", async () => {
  const { client } = await welcomed("ymn.0.s");
  await assert.rejects(client.ask({ type: "get_legal_moves", game_id: "g_1" }, 5), Lost);
  client.close();
  assert.ok(ANSWER_MS >= 5000);
});

test("a move's refusal reads as HTTP's: status, code, rule", () => {
  const problem = refusal({
    type: "about:blank",
    title: "Precondition Failed",
    status: 412,
    code: "version_mismatch",
    current_version: 9,
  });
  assert.ok(problem instanceof Problem);
  assert.equal(problem.status, 412);
  assert.equal(problem.code, "version_mismatch");
  const rule = refusal({ title: "Unprocessable", status: 422, code: "rule_violation", rule: "Yangtze: 3.2" });
  assert.equal(rule.rule, "Yangtze: 3.2");
});

test("a closed client is closed once, with the code given", async () => {
  const { client, socket, closes } = await welcomed("ymn.0.s");
  client.close(1000, "bye");
  client.close(1000, "again");
  socket.drop(1000);
  await tick();
  assert.deepEqual(closes, [1000]);
  assert.deepEqual(socket.closedWith, { code: 1000, reason: "bye" });
});

test("the backoff doubles from 1 s to at most 30 s, with up to a fifth more", () => {
  const none = () => 0;
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6, 7, 20].map((attempt) => backoff(attempt, none)),
    [1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000],
  );
  assert.equal(
    backoff(1, () => 1),
    1200,
  );
});
