// A small TypeScript client of Yamen's realtime socket (/v1/ws; docs/realtime.md, asyncapi/asyncapi.yaml):
// one connection, requests matched to their answers by `id`, subscriptions delivered to handlers,
// pings answered. Built on `ws` (Node 20 has no WebSocket of its own; a browser's has the same API).
import WebSocket from "ws";

export interface Problem {
  type: string;
  title: string;
  status: number;
  code: string;
  detail?: string;
  rule?: string;
  current_version?: number;
  limit?: number;
}

export interface EventEnvelope {
  seq: number;
  seat: number | null;
  recorded_at: string;
  event: { type: string; [field: string]: unknown } | null;
}

export interface MoveResult {
  version: number;
  status: string;
  events: EventEnvelope[];
  to_act?: number[] | null;
  legal_moves?: LegalMoves | null;
}

export interface LegalMoves {
  version: number;
  seat: number | null;
  moves: { type: string; [field: string]: unknown }[];
}

export type ServerMessage =
  | { type: "welcome"; id: string | null; protocol: number; limits: Record<string, number> }
  | { type: "subscribed"; id: string | null; game_id: string; seat: number | null; after: number }
  | { type: "unsubscribed"; id: string | null; game_id: string }
  | { type: "events"; game_id: string; version: number; status: string; to_act: number[] | null; events: EventEnvelope[] }
  | { type: "table"; game_id: string; status: string; seats: { seat: number; claimed: boolean; bot?: string | null }[] }
  | { type: "end"; game_id: string; version: number; status: string }
  | { type: "move_result"; id: string | null; game_id: string; result: MoveResult }
  | { type: "legal_moves"; id: string | null; game_id: string; result: LegalMoves }
  | { type: "problem"; id?: string | null; game_id?: string | null; problem: Problem }
  | { type: "ping"; t?: number | null }
  | { type: "pong"; t?: number | null };

/** A refusal, as HTTP's problem+json says it. */
export class Refused extends Error {
  constructor(readonly problem: Problem) {
    super(`${problem.status} ${problem.code}: ${problem.detail ?? ""}`);
  }
}

type Feed = (message: ServerMessage) => void;

export class Realtime {
  private next = 0;
  private waiting = new Map<string, (message: ServerMessage) => void>();
  private feeds = new Map<string, Feed>();
  closed: Promise<{ code: number; reason: string }>;

  private constructor(private socket: WebSocket) {
    this.closed = new Promise((resolve) => socket.on("close", (code, reason) => resolve({ code, reason: reason.toString() })));
    socket.on("message", (data) => this.receive(JSON.parse(data.toString()) as ServerMessage));
  }

  /** Open the socket and say hello (with a seat token, player credential, assertion or app key). */
  static async open(base: string, credential?: string): Promise<Realtime> {
    const socket = new WebSocket(base.replace(/^http/, "ws") + "/v1/ws");
    await new Promise<void>((resolve, reject) => {
      socket.once("open", () => resolve());
      socket.once("error", reject);
    });
    const client = new Realtime(socket);
    await client.hello(credential);
    return client;
  }

  /** Add a credential (another game's seat token, say). */
  async hello(credential?: string): Promise<void> {
    const answer = await this.ask(credential ? { type: "hello", credential } : { type: "hello" });
    if (answer.type !== "welcome") throw new Error(`expected welcome, got ${answer.type}`);
  }

  /** Follow a game from `after`; *feed* gets its events, table and end messages. */
  async subscribe(gameId: string, feed: Feed, options: { after?: number; as?: "seat" | "spectator"; seat?: number } = {}) {
    this.feeds.set(gameId, feed);
    const answer = await this.ask({ type: "subscribe", game_id: gameId, ...options });
    if (answer.type !== "subscribed") throw new Error(`expected subscribed, got ${answer.type}`);
    return answer;
  }

  /** `POST /v1/games/{gameId}/moves` over the socket: the move's result, or `Refused`. */
  async move(
    gameId: string,
    command: unknown,
    options: { expected_version?: number; idempotency_key?: string; include?: ("legal_moves" | "document")[]; seat?: number } = {},
  ): Promise<MoveResult> {
    const answer = await this.ask({ type: "move", game_id: gameId, command, ...options });
    if (answer.type === "move_result") return answer.result;
    throw this.refusal(answer);
  }

  /** `GET /v1/games/{gameId}/legal-moves` over the socket. */
  async legalMoves(gameId: string, seat?: number, minVersion?: number): Promise<LegalMoves> {
    const answer = await this.ask({ type: "get_legal_moves", game_id: gameId, seat, min_version: minVersion });
    if (answer.type === "legal_moves") return answer.result;
    throw this.refusal(answer);
  }

  close(): void {
    this.socket.close(1000);
  }

  private refusal(answer: ServerMessage): Error {
    return answer.type === "problem" ? new Refused(answer.problem) : new Error(`unexpected ${answer.type}`);
  }

  private ask(message: Record<string, unknown>): Promise<ServerMessage> {
    const id = String(++this.next);
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.socket.send(JSON.stringify({ ...message, id }));
    });
  }

  private receive(message: ServerMessage): void {
    if (message.type === "ping") {
      this.socket.send(JSON.stringify({ type: "pong", t: message.t ?? null }));
      return;
    }
    const id = "id" in message ? message.id : null;
    if (id) {
      const resolve = this.waiting.get(id);
      if (resolve) {
        this.waiting.delete(id);
        resolve(message);
        return;
      }
    }
    if ("game_id" in message && message.game_id) this.feeds.get(message.game_id)?.(message);
  }
}
