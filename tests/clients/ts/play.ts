// Plays a complete game of every title against a running Yamen, through a client generated from
// its OpenAPI document (openapi-typescript types, openapi-fetch calls): each turn a seeded-random
// legal move of a seat that is to act, sent back with If-Match; then the history, time travel,
// record, verification, stream and import of the finished games.
//
//   node dist/play.js http://127.0.0.1:8000      (or YAMEN_URL=... node dist/play.js)
//
// Prints one JSON line per finished game; exits non-zero on the first thing that is not as documented.
import createClient from "openapi-fetch";
import type { components, paths } from "./generated/schema.js";

type Schemas = components["schemas"];
type Command = Schemas["Command"];
/** A title's kind: what the create request (a union by kind) discriminates on. */
type Kind = Schemas["CreateGame"]["kind"];

const MAX_MOVES = 5000; // no random game takes a tenth of this; more means the game does not end

const base = process.argv[2] ?? process.env.YAMEN_URL;
if (!base) {
  console.error("usage: node dist/play.js <base url>   (or set YAMEN_URL)");
  process.exit(2);
}
const api = createClient<paths>({ baseUrl: base });

/** A seeded generator in [0, 1): mulberry32 over the FNV-1a hash of the seed. */
function seeded(seed: string): () => number {
  let state = 2166136261;
  for (let i = 0; i < seed.length; i++) {
    state = Math.imul(state ^ seed.charCodeAt(i), 16777619);
  }
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T>(items: readonly T[], random: () => number): T {
  const item = items[Math.floor(random() * items.length)];
  if (item === undefined) throw new Error("nothing to choose from");
  return item;
}

function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

/** The answer's body, or an error naming the operation, the status and the problem. */
function ok<T>(answer: { data?: T; error?: unknown; response: Response }, operation: string): T {
  if (answer.data === undefined) {
    throw new Error(`${operation}: ${answer.response.status} ${JSON.stringify(answer.error)}`);
  }
  return answer.data;
}

async function create(kind: Kind, players: number, seed: string): Promise<[string, Map<number, string>]> {
  // Seats left open and claimed one by one (joinSeat) when there are two or more. The request is a
  // union by kind, each title's options typed; one literal for whichever kind needs the assertion.
  const body = { kind, options: { players }, seed, take_seats: players > 1 ? "none" : "all" };
  const created = ok(
    await api.POST("/v1/games", { body: body as Schemas["CreateGame"] }),
    "createGame",
  );
  const tokens = new Map<number, string>(created.tokens.map((t) => [t.seat, t.token]));
  for (let seat = 0; seat < players; seat++) {
    if (!tokens.has(seat)) {
      const joined = ok(
        await api.POST("/v1/games/{game_id}/seats/{seat}", {
          params: { path: { game_id: created.game_id, seat } },
        }),
        "joinSeat",
      );
      tokens.set(seat, joined.token);
    }
  }
  return [created.game_id, tokens];
}

async function play(
  kind: Kind,
  players: number,
  seed: string,
): Promise<[Schemas["GameDocument"], Map<number, string>]> {
  const random = seeded(seed);
  const [game_id, tokens] = await create(kind, players, seed);
  for (let moves = 0; ; moves++) {
    check(moves < MAX_MOVES, `${kind} with ${players} players did not end within ${MAX_MOVES} moves`);
    const game = ok(await api.GET("/v1/games/{game_id}", { params: { path: { game_id } } }), "getGame");
    check(game.view.kind === kind, `the view of a ${kind} game is a ${game.view.kind} view`);
    if (game.status === "finished") {
      check(game.outcome, "a finished game has an outcome");
      return [game, tokens];
    }
    const seat = pick(game.to_act, random);
    const Authorization = `Bearer ${tokens.get(seat)}`;
    const answer = await api.GET("/v1/games/{game_id}/legal-moves", {
      params: { path: { game_id }, header: { Authorization } },
    });
    const legal = ok(answer, "getLegalMoves");
    const etag = answer.response.headers.get("ETag");
    check(etag === `"${legal.version}"` && legal.seat === seat, `legal moves at ${etag} for seat ${legal.seat}`);
    const move: Command = pick(legal.moves, random);
    check(move.type.startsWith(`${kind}.`), `a ${kind} seat may send ${move.type}`);
    const result = ok(
      await api.POST("/v1/games/{game_id}/moves", {
        params: {
          path: { game_id },
          header: { Authorization, "If-Match": etag, "Idempotency-Key": `${game_id}-${moves}` },
        },
        body: move,
      }),
      "submitMove",
    );
    check(result.version > legal.version && result.events.length > 0, "a move appends events");
  }
}

async function audit(game: Schemas["GameDocument"], token: string): Promise<void> {
  const game_id = game.game_id;
  const events: Schemas["EventEnvelope"][] = [];
  for (let after: number | null = 0; after !== null; ) {
    const page: Schemas["History"] = ok(
      await api.GET("/v1/games/{game_id}/events", { params: { path: { game_id }, query: { after, limit: 100 } } }),
      "listEvents",
    );
    events.push(...page.events);
    after = page.next_after;
  }
  check(
    events.map((e) => e.seq).join() === Array.from({ length: game.version }, (_, i) => i + 1).join(),
    "the history is every event in order",
  );
  check(
    events.every((e) => e.event !== null && e.event.type.startsWith(`${game.kind}.`)),
    "a finished game's history hides nothing and holds only its own events",
  );

  const half = Math.floor(game.version / 2);
  const middle = ok(
    await api.GET("/v1/games/{game_id}/states/{version}", {
      params: { path: { game_id, version: half }, query: { reveal: true } },
    }),
    "getStateAt",
  );
  check(middle.version === half, `time travel to ${half} gave ${middle.version}`);

  const record = await recordOf(game_id);
  check(record.trimEnd().split("\n").length === game.version + 2, "a record is a header, its events, a footer");

  const verification = ok(
    await api.GET("/v1/games/{game_id}/verification", { params: { path: { game_id } } }),
    "getVerification",
  );
  const names = verification.checks.map((c) => c.name);
  check(
    verification.ok && ["chain", "fold", "replay"].every((n) => names.includes(n)),
    `verification: ${JSON.stringify(verification)}`,
  );
  check(
    verification.checks.every((c) => c.status === "passed"),
    `verification: ${JSON.stringify(verification)}`,
  );

  const ticket = ok(
    await api.POST("/v1/games/{game_id}/events/tickets", {
      params: { path: { game_id }, header: { Authorization: `Bearer ${token}` } },
    }),
    "createStreamTicket",
  );
  const stream = ok(
    await api.GET("/v1/games/{game_id}/events/stream", {
      params: { path: { game_id }, query: { ticket: ticket.ticket } },
      parseAs: "text",
    }),
    "streamEvents",
  );
  check(
    stream.split("event: event").length - 1 === game.version && stream.includes("event: end"),
    "the stream of a finished game sends every event, then its end",
  );

  const listed = ok(
    await api.GET("/v1/games", { params: { query: { kind: game.kind, status: "finished", limit: 100 } } }),
    "listGames",
  );
  check(
    listed.games.some((g) => g.game_id === game_id),
    "the finished game is listed",
  );
}

async function recordOf(game_id: string): Promise<string> {
  return ok(
    await api.GET("/v1/games/{game_id}/record", { params: { path: { game_id } }, parseAs: "text" }),
    "getRecord",
  );
}

async function reimport(game_id: string): Promise<void> {
  const record = await recordOf(game_id);
  const imported = ok(
    await api.POST("/v1/games/import", {
      body: record,
      bodySerializer: (body: string) => body,
      headers: { "Content-Type": "application/octet-stream" },
    }),
    "importRecord",
  );
  check(
    imported.imported_from === game_id && imported.game_id !== game_id && imported.verification.ok,
    `import: ${JSON.stringify(imported)}`,
  );
}

async function main(): Promise<void> {
  check(ok(await api.GET("/healthz"), "healthz").status === "ok", "healthz");
  check(ok(await api.GET("/readyz"), "readyz").postgres === "ok", "readyz");
  const catalogue = ok(await api.GET("/v1/catalogue"), "getCatalogue");
  const kinds = catalogue.games.map((entry) => entry.kind);
  check(["yangtze", "pingyao", "jiangnan"].every((k) => kinds.includes(k)), `catalogue: ${kinds}`);
  const finished: string[] = [];
  for (const entry of catalogue.games) {
    const components = ok(
      await api.GET("/v1/catalogue/{kind}/components", { params: { path: { kind: entry.kind } } }),
      "getComponents",
    );
    check(Object.keys(components).length > 0, `${entry.kind} has components`);
    const counts = entry.player_counts;
    const chosen = [...new Set([Math.min(...counts), 2, Math.max(...counts)])].filter((n) => counts.includes(n));
    for (const players of chosen.sort((a, b) => a - b)) {
      const started = Date.now();
      const seed = `${entry.kind}-${players}`;
      const [game, tokens] = await play(entry.kind as Kind, players, seed);
      check(game.seats.length === players, "every seat is listed");
      await audit(game, tokens.get(0) ?? "");
      finished.push(game.game_id);
      console.log(
        JSON.stringify({
          kind: entry.kind,
          players,
          game_id: game.game_id,
          version: game.version,
          verified: true,
          ms: Date.now() - started,
        }),
      );
    }
  }
  const first = finished[0];
  check(first !== undefined, "no game was played");
  await reimport(first);
  console.log(JSON.stringify({ imported: first }));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.stack : error);
  process.exit(1);
});
