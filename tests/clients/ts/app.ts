// A front end's day through a client generated from Yamen's OpenAPI document (openapi-typescript
// types, openapi-fetch calls), one client per credential as its security schemes say: the operator
// makes two apps; the first subscribes a webhook (a receiver in this process, which verifies every
// delivery with the `standardwebhooks` package), registers two users, signs an HS256 assertion for
// one (`jose`), creates a private game and seats them; they play it to the end with their own
// credentials, find it in /v1/me/games, recover a seat token; the other app cannot see the game;
// every delivery arrives signed and in order, and the delivery log shows them. Then two more of
// its players seek rated games (seeks, the matcher), and read their ratings and the leaderboard.
//
//   YAMEN_ADMIN_TOKEN=... node dist/app.js http://127.0.0.1:8000
//
// Prints one JSON line at the end; exits non-zero on the first thing that is not as documented.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { SignJWT } from "jose";
import createClient from "openapi-fetch";
import { Webhook } from "standardwebhooks";
import type { components, paths } from "./generated/schema.js";

type Schemas = components["schemas"];
type Command = Schemas["Command"];

const MAX_MOVES = 5000;

const base = process.argv[2] ?? process.env.YAMEN_URL;
const adminToken = process.env.YAMEN_ADMIN_TOKEN;
if (!base || !adminToken) {
  console.error("usage: YAMEN_ADMIN_TOKEN=... node dist/app.js <base url>");
  process.exit(2);
}

/** A client that sends one credential with every call (the document's bearer schemes). */
function as(credential: string) {
  return createClient<paths>({ baseUrl: base, headers: { Authorization: `Bearer ${credential}` } });
}

function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

function ok<T>(answer: { data?: T; error?: unknown; response: Response }, operation: string): T {
  if (answer.data === undefined) {
    throw new Error(`${operation}: ${answer.response.status} ${JSON.stringify(answer.error)}`);
  }
  return answer.data;
}

/** The n-th of some items, chosen by a counter (the game is seeded; the choice need not be random). */
function nth<T>(items: readonly T[], n: number): T {
  const item = items[n % items.length];
  if (item === undefined) throw new Error("nothing to choose from");
  return item;
}

interface Delivery {
  id: string;
  type: string;
  game_id: string;
  version: number;
}

/** The app's server: verifies each delivery with the endpoint's secret, keeps the verified ones. */
function receiver(): Promise<{ url: string; got: Delivery[]; refused: number; secret: { value: string }; close: () => void }> {
  const got: Delivery[] = [];
  const secret = { value: "" };
  const state = { got, refused: 0, secret };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) {
        if (typeof value === "string") headers[name] = value;
      }
      try {
        const payload = new Webhook(secret.value).verify(body, headers) as {
          type: string;
          data: { game_id: string; version: number };
        };
        got.push({
          id: headers["webhook-id"] ?? "",
          type: payload.type,
          game_id: payload.data.game_id,
          version: payload.data.version,
        });
        response.writeHead(204).end();
      } catch {
        state.refused += 1;
        response.writeHead(401).end();
      }
    });
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as AddressInfo).port;
      resolve({
        url: `http://127.0.0.1:${port}/hook`,
        got,
        get refused() {
          return state.refused;
        },
        secret,
        close: () => server.close(),
      });
    });
  });
}

/** Two players seek rated Yangtze games ten times (the matcher seats them together; one resigns),
 * then both are on the title's leaderboard, in order, and around each other. Returns their ratings. */
async function rated(app: ReturnType<typeof as>): Promise<number[]> {
  const registered = [];
  for (const name of ["ts-ladder-a", "ts-ladder-b"]) {
    registered.push(
      ok(
        await app.POST("/v1/players", { body: { external_id: name, display_name: name, credential: true } }),
        "registerPlayer",
      ),
    );
  }
  const players = registered.map((p) => {
    check(p.credential, "a credential was asked for");
    return as(p.credential.credential);
  });
  let first: string | undefined;
  for (let round = 0; round < 10; round++) {
    const seeks = [];
    for (const player of players) {
      seeks.push(
        ok(await player.POST("/v1/seeks", { body: { kind: "yangtze", players: [2], rated: true } }), "createSeek"),
      );
    }
    const matched = [];
    for (const [n, player] of players.entries()) {
      const seek_id = seeks[n]?.seek_id ?? "";
      matched.push(
        ok(
          await player.GET("/v1/seeks/{seek_id}", { params: { path: { seek_id }, query: { wait: 30 } } }),
          "getSeek",
        ),
      );
    }
    const game_id = matched[0]?.game_id;
    check(
      game_id && matched.every((m) => m.status === "matched" && m.game_id === game_id),
      `the seekers are seated together: ${JSON.stringify(matched)}`,
    );
    first ??= game_id;
    const loser = nth(players, round);
    ok(
      await loser.POST("/v1/games/{game_id}/moves", {
        params: { path: { game_id } },
        body: { type: "table.Resign" } as Command,
      }),
      "submitMove",
    );
  }
  check(first, "a game was formed");
  const deadline = Date.now() + 60_000;
  for (;;) {
    const mine = ok(await nth(players, 0).GET("/v1/me/ratings"), "getMyRatings");
    if (mine.history.length === 10) break;
    check(Date.now() < deadline, "the ratings were not applied within 60 s");
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const game = ok(await app.GET("/v1/games/{game_id}", { params: { path: { game_id: first } } }), "getGame");
  check(game.ratings?.rated && game.ratings.seats?.length === 2, `a rated game's changes: ${JSON.stringify(game.ratings)}`);
  const ids = new Set(registered.map((p) => p.player_id));
  const board = ok(
    await app.GET("/v1/leaderboards/{kind}", { params: { path: { kind: "yangtze" }, query: { limit: 100 } } }),
    "getLeaderboard",
  );
  const ours = board.entries.filter((e) => ids.has(e.player_id));
  check(ours.length === 2 && (ours[0]?.rank ?? 0) < (ours[1]?.rank ?? 0), `the leaderboard: ${JSON.stringify(board)}`);
  const around = ok(
    await app.GET("/v1/leaderboards/{kind}/around/{player_id}", {
      params: { path: { kind: "yangtze", player_id: registered[0]?.player_id ?? "" } },
    }),
    "getLeaderboardAround",
  );
  check(around.entries.filter((e) => ids.has(e.player_id)).length === 2, "both are around each other");
  return ours.map((e) => e.rating);
}

async function main(): Promise<void> {
  const admin = as(adminToken as string);
  const made = ok(await admin.POST("/v1/admin/apps", { body: { name: "TS Tea House" } }), "adminCreateApp");
  const appId = made.app.app_id;
  const app = as(made.key.key);
  const other = as(
    ok(await admin.POST("/v1/admin/apps", { body: { name: "TS Other House" } }), "adminCreateApp").key.key,
  );

  const hook = await receiver();
  try {
    const endpoint = ok(
      await app.POST("/v1/webhooks", {
        body: { url: hook.url, event_types: ["game.created", "game.turn", "game.finished"] },
      }),
      "subscribeWebhook",
    );
    hook.secret.value = endpoint.secret;

    const first = ok(
      await app.POST("/v1/players", { body: { external_id: "ts-user-1", credential: true } }),
      "registerPlayer",
    );
    const second = ok(
      await app.POST("/v1/players", { body: { external_id: "ts-user-2", display_name: "Li" } }),
      "registerPlayer",
    );
    const credential = first.credential?.credential;
    check(credential, "a credential was asked for");
    const signing = ok(
      await admin.POST("/v1/admin/apps/{app_id}/signing-keys", {
        params: { path: { app_id: appId } },
        body: { alg: "HS256" },
      }),
      "adminAddSigningKey",
    );
    check(signing.secret, "an HS256 key's secret is shown once");
    const assertion = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256", kid: signing.kid })
      .setIssuer(appId)
      .setSubject("ts-user-2")
      .setAudience("yamen")
      .setIssuedAt()
      .setExpirationTime("15m")
      .sign(new TextEncoder().encode(signing.secret));
    const seats = new Map([
      [0, as(credential)],
      [1, as(assertion)],
    ]);
    const me = ok(await (seats.get(1) ?? app).GET("/v1/me"), "getMe");
    check(me.player_id === second.player_id && me.app_id === appId, `the assertion is user 2: ${JSON.stringify(me)}`);

    const created = ok(
      await app.POST("/v1/games", {
        body: { kind: "yangtze", options: { players: 2 }, seed: "ts-apps-day", take_seats: "none", visibility: "private" },
      }),
      "createGame",
    );
    const game_id = created.game_id;
    for (const [seat, player] of [
      [0, first],
      [1, second],
    ] as const) {
      ok(
        await app.POST("/v1/games/{game_id}/seats/{seat}", {
          params: { path: { game_id, seat } },
          body: { player_id: player.player_id },
        }),
        "joinSeat",
      );
    }
    const hidden = await other.GET("/v1/games/{game_id}", { params: { path: { game_id } } });
    check(hidden.response.status === 404, `another app sees the private game: ${hidden.response.status}`);

    let game: Schemas["GameDocument"] | undefined;
    let sawToAct = false;
    for (let moves = 0; ; moves++) {
      check(moves < MAX_MOVES, `the app's game did not end within ${MAX_MOVES} moves`);
      game = ok(await app.GET("/v1/games/{game_id}", { params: { path: { game_id } } }), "getGame");
      if (game.status === "finished") break;
      const seat = nth(game.to_act, moves);
      const player = seats.get(seat);
      check(player, `seat ${seat} is one of the app's players`);
      if (!sawToAct) {
        const mine = ok(await player.GET("/v1/me/games", { params: { query: { to_act: true } } }), "listMyGames");
        check(
          mine.games.length === 1 && mine.games[0]?.game_id === game_id && mine.games[0].to_act.includes(seat),
          `the player to act finds the game: ${JSON.stringify(mine)}`,
        );
        sawToAct = true;
      }
      const answer = await player.GET("/v1/games/{game_id}/legal-moves", { params: { path: { game_id } } });
      const legal = ok(answer, "getLegalMoves");
      check(legal.seat === seat, `the credential acts as seat ${seat}`);
      const move: Command = nth(legal.moves, moves * 7919);
      ok(
        await player.POST("/v1/games/{game_id}/moves", {
          params: {
            path: { game_id },
            header: { "If-Match": answer.response.headers.get("ETag") ?? "", "Idempotency-Key": `${game_id}-${moves}` },
          },
          body: move,
        }),
        "submitMove",
      );
    }
    for (const player of seats.values()) {
      const finished = ok(
        await player.GET("/v1/me/games", { params: { query: { status: "finished" } } }),
        "listMyGames",
      );
      check(finished.games.some((g) => g.game_id === game_id), "the finished game is among the player's");
    }
    const reissued = ok(
      await (seats.get(0) ?? app).POST("/v1/games/{game_id}/seats/{seat}/token", {
        params: { path: { game_id, seat: 0 } },
      }),
      "reissueSeatToken",
    );
    const viewed = ok(
      await as(reissued.token).GET("/v1/games/{game_id}", { params: { path: { game_id } } }),
      "getGame",
    );
    check(viewed.viewer === 0, "the re-issued token is seat 0's");

    const deadline = Date.now() + 60_000;
    const ofGame = () => hook.got.filter((d) => d.game_id === game_id);
    while (!ofGame().some((d) => d.type === "game.finished") && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const got = ofGame();
    check(hook.refused === 0, `${hook.refused} deliveries failed their signature`);
    check(got[0]?.type === "game.created" && got.at(-1)?.type === "game.finished", `deliveries: ${JSON.stringify(got)}`);
    const versions = got.map((d) => d.version);
    check(versions.join() === [...versions].sort((a, b) => a - b).join(), `in order: ${versions}`);
    const log = ok(
      await app.GET("/v1/webhooks/{endpoint_id}/deliveries", {
        params: { path: { endpoint_id: endpoint.endpoint_id }, query: { game_id, limit: 100 } },
      }),
      "listWebhookDeliveries",
    );
    const succeeded = new Set(log.deliveries.filter((d) => d.status === "succeeded").map((d) => d.delivery_id));
    check(
      got.every((d) => succeeded.has(d.id)),
      "every delivery received is logged as succeeded",
    );
    const ladder = await rated(app);
    console.log(
      JSON.stringify({ app: appId, game_id, version: game?.version, deliveries: got.length, ladder, verified: true }),
    );
  } finally {
    hook.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.stack : error);
  process.exit(1);
});
