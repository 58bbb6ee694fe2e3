// Plays a complete game of every title over the realtime socket against a running Yamen: each seat
// on its own socket (moves with include=legal_moves, legal moves asked over the socket when the turn
// passes), and a spectator's socket following the game, which must receive every event exactly once
// and then `end`.
//
//   node dist/play.js http://127.0.0.1:8000
//
// Prints one JSON line per finished game; exits non-zero on the first thing that is not as documented.
import { Realtime, type ServerMessage } from "./realtime.js";

const MAX_MOVES = 5000;

const base = process.argv[2] ?? process.env.YAMEN_URL;
if (!base) {
  console.error("usage: node dist/play.js <base url>");
  process.exit(2);
}

function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

/** A seeded generator in [0, 1): mulberry32 over the FNV-1a hash of the seed. */
function seeded(seed: string): () => number {
  let state = 2166136261;
  for (let i = 0; i < seed.length; i++) state = Math.imul(state ^ seed.charCodeAt(i), 16777619);
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Created {
  game_id: string;
  version: number;
  tokens: { seat: number; token: string }[];
}

async function json<T>(response: Response): Promise<T> {
  check(response.ok, `${response.url}: ${response.status} ${await response.clone().text()}`);
  return (await response.json()) as T;
}

async function play(kind: string, players: number): Promise<void> {
  const created = await json<Created>(
    await fetch(`${base}/v1/games`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ kind, options: { players }, take_seats: "all", seed: `ws-ts-${kind}` }),
    }),
  );
  const gameId = created.game_id;
  const spectator = await Realtime.open(base!);
  const seen: number[] = [];
  let ended: number | null = null;
  const end = new Promise<void>((resolve) => {
    void spectator.subscribe(gameId, (message: ServerMessage) => {
      if (message.type === "events") seen.push(...message.events.map((e) => e.seq));
      if (message.type === "end") {
        ended = message.version;
        resolve();
      }
    });
  });
  const seats = new Map<number, Realtime>();
  for (const { seat, token } of created.tokens) seats.set(seat, await Realtime.open(base!, token));
  const random = seeded(gameId);
  const first = await json<{ to_act: number[]; version: number }>(await fetch(`${base}/v1/games/${gameId}`));
  let toAct = first.to_act;
  let version = first.version;
  let legal: { seat: number; moves: { type: string }[] } | null = null;
  let moves = 0;
  while (toAct.length > 0) {
    const seat = toAct[Math.floor(random() * toAct.length)]!;
    const socket = seats.get(seat)!;
    if (legal === null || legal.seat !== seat) {
      const asked = await socket.legalMoves(gameId, seat, version);
      legal = { seat, moves: asked.moves };
    }
    check(legal.moves.length > 0, `seat ${seat} must act but has no legal move`);
    const command = legal.moves[Math.floor(random() * legal.moves.length)];
    const result = await socket.move(gameId, command, { expected_version: version, include: ["legal_moves"], seat });
    version = result.version;
    toAct = result.to_act ?? [];
    legal = result.legal_moves && result.legal_moves.moves.length > 0 ? { seat, moves: result.legal_moves.moves } : null;
    check(++moves < MAX_MOVES, `${kind}: the game does not end`);
  }
  await end;
  check(ended === version, `${kind}: end at ${ended}, last move at ${version}`);
  check(seen.length === version && seen.every((seq, i) => seq === i + 1), `${kind}: events not each once in order`);
  for (const socket of [...seats.values(), spectator]) socket.close();
  console.log(JSON.stringify({ kind, players, game_id: gameId, moves, version }));
}

const catalogue = await json<{ games: { kind: string; player_counts: number[] }[] }>(await fetch(`${base}/v1/catalogue`));
for (const title of catalogue.games) await play(title.kind, Math.min(...title.player_counts));
