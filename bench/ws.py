"""``python -m bench.ws``: moves over the realtime socket against the HTTP one-trip client, with the
production defaults (access log on, rate limit on), and boardgame.io's in-memory server in the same
sitting (``--peer``).

One ``yamen serve`` (granian, ``--workers``) with ``YAMEN_ACCESS_LOG=1`` and a rate limit every
request is counted against (set high enough that the load generator, one address, is never
refused: the cost of counting is paid, the refusals are not).  Phases, ``--repeat`` times, in
alternating order so that drift in the machine's load hits each alike:

- **echo**: ``POST /bench/echo`` (the framework's ceiling), the unit of server CPU;
- **http**: the one-trip client of ``bench/loadgen.py`` (``POST …/moves?include=legal_moves``, a
  ``GET …/legal-moves`` only when the turn passes to another seat);
- **ws**: the same client over one socket per connection: ``move`` with ``include=legal_moves``,
  ``get_legal_moves`` when the turn passes, over :mod:`bench.wsclient` (a minimal client, as
  :mod:`bench.http` is for HTTP: the load generator shares the cores it measures; ``--client
  websockets`` takes the ``websockets`` library's instead).

Each connection plays its games in turn, one request in flight at a time, over the same number of
connections and games as the HTTP client.  Server CPU is read from ``/proc`` inside each window, and
so is that of every Postgres and Redis process on the machine (the durable path's servers; run the
sitting on a machine that is otherwise quiet), beside boardgame.io's server CPU per move as its
``load.js`` reads it.
Prints the figures and the three ratios of issue 29: socket moves/s ÷ HTTP one-trip moves/s (≥ 2),
server CPU per socket move ÷ per echo (≤ 1.5), socket p99 ÷ p50 (≤ 5); with ``--peer``, socket
moves/s ÷ boardgame.io in memory (≥ 3) at the same number of games in flight.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import json
import multiprocessing
import os
import pathlib
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any

import msgspec

from . import loadgen, wsclient
from .infra import create_db, describe_machine, drop_db
from .measure import Window, run_loop
from .server import RATE_LIMIT_CHECKED, Server
from .stats import median

ROOT = pathlib.Path(__file__).resolve().parent.parent
PEER = ROOT.parent / "shared" / "peer" / "boardgameio"
_enc = msgspec.json.Encoder()
_dec = msgspec.json.Decoder()


# --- the socket client (runs in its own process) -------------------------------------------------
def ws_moves(
    host: str,
    port: int,
    kind: str,
    players: int,
    games: int,
    connections: int,
    warmup: float,
    duration: float,
    keyed: bool = False,
    client: str = "minimal",
) -> dict[str, Any]:
    """*games* games over *connections* sockets for one window; the ``move`` latencies and count.
    *keyed*: every move carries an idempotency key, as the web client's do.  *client*: the
    load generator's WebSocket client, ``minimal`` (:mod:`bench.wsclient`) or ``websockets``."""

    async def main() -> dict[str, Any]:
        # The games are created over HTTP, as the HTTP client's are (creation is not measured).
        http = await loadgen._connections(host, port, 1)
        per = [games // connections + (1 if i < games % connections else 0) for i in range(connections)]
        slots = [await loadgen._create_many(http[0], kind, players, n) for n in per]
        w = Window(warmup, duration)
        errors: list[str] = []
        finished = 0

        async def worker(i: int, mine: list[loadgen.Slot]) -> None:
            nonlocal finished
            rng = random.Random(1000 + i)
            creator = (await loadgen._connections(host, port, 1))[0]  # a finished game's replacement
            async with await _open_socket(client, host, port) as socket:
                asked = 0

                async def ask(message: dict[str, Any]) -> dict[str, Any]:
                    nonlocal asked
                    asked += 1
                    message["id"] = str(asked)
                    await socket.send(_enc.encode(message))
                    while True:
                        answer = _dec.decode(await socket.recv())
                        if answer.get("id") == message["id"]:
                            return answer
                        if answer["type"] == "ping":
                            await socket.send(b'{"type":"pong"}')

                async def hello(slot: loadgen.Slot) -> None:
                    for auth in slot.auth:
                        token = auth.decode().split("Bearer ", 1)[1].strip()
                        assert (await ask({"type": "hello", "credential": token}))["type"] == "welcome"

                for slot in mine:
                    await hello(slot)
                while w.running() and mine:
                    for k, slot in enumerate(mine):
                        if not w.running():
                            break
                        try:
                            done = await _one_move(ask, slot, rng, w, keyed)
                        except RuntimeError as exc:
                            errors.append(str(exc))
                            done = True
                        if done:
                            finished += 1
                            mine[k] = await loadgen._create(creator, kind, players)
                            await hello(mine[k])
            await creator.close()

        w.arm()
        await asyncio.gather(*(worker(i, s) for i, s in enumerate(slots)))
        await http[0].close()
        return {
            "move": w.result("move"),
            "legal_moves": w.result("legal_moves"),
            "finished": finished,
            "errors": len(errors),
            "first_errors": errors[:3],
        }

    return run_loop(main())


async def _open_socket(client: str, host: str, port: int) -> Any:
    """A socket to ``/v1/ws`` with ``send(bytes)`` and ``recv()``, over the chosen client."""
    if client == "minimal":
        return await wsclient.connect(host, port, "/v1/ws")
    from websockets.asyncio.client import connect

    socket = await connect(f"ws://{host}:{port}/v1/ws", max_size=None, compression=None, ping_interval=None)
    send = socket.send

    async def send_text(data: bytes) -> None:
        await send(data.decode())  # a str goes as a text frame

    socket.send = send_text  # type: ignore[method-assign]
    return socket


async def _one_move(ask: Any, slot: loadgen.Slot, rng: random.Random, w: Window, keyed: bool = False) -> bool:
    """One move in *slot*'s game, as :func:`bench.loadgen._one_move`'s one-trip client makes it."""
    moves = slot.legal
    if moves is None:
        for _ in range(slot.players):
            t0 = time.perf_counter()
            answer = await ask({"type": "get_legal_moves", "game_id": slot.game_id, "seat": slot.seat})
            w.record("legal_moves", t0, time.perf_counter())
            if answer["type"] != "legal_moves":
                raise RuntimeError(f"legal moves: {answer}")
            moves = answer["result"]["moves"]
            if moves:
                break
            slot.seat = (slot.seat + 1) % slot.players
        else:
            return True
    command = moves[rng.randrange(len(moves))]
    message = {
        "type": "move",
        "game_id": slot.game_id,
        "seat": slot.seat,
        "command": command,
        "include": ["legal_moves"],
    }
    if keyed:
        message["idempotency_key"] = f"{rng.getrandbits(64):016x}"
    t0 = time.perf_counter()
    answer = await ask(message)
    t1 = time.perf_counter()
    if answer["type"] != "move_result":
        raise RuntimeError(f"move: {answer}")
    w.record("move", t0, t1)
    result = answer["result"]
    mover, to_act = slot.seat, result.get("to_act") or []
    slot.legal = None
    if to_act:
        slot.seat = to_act[0]
        if slot.seat == mover and result.get("legal_moves", {}).get("moves"):
            slot.legal = result["legal_moves"]["moves"]
    return bool(result["status"] == "finished")


def http_moves(
    host: str,
    port: int,
    kind: str,
    players: int,
    games: int,
    connections: int,
    warmup: float,
    duration: float,
) -> dict[str, Any]:
    out = loadgen.moves(host, port, kind, players, games, connections, warmup, duration, one_trip=True)
    out.pop("games", None)
    return out


# --- the peer ------------------------------------------------------------------------------------
def peer_moves(matches: int, warmup: float, duration: float, work: pathlib.Path) -> dict[str, Any]:
    """boardgame.io 0.50.2's in-memory server (``../shared/peer/boardgameio``) with *matches* in
    flight, driven by its own client over socket.io: its ``load.js`` line."""
    if not (work / "node_modules").exists():
        shutil.copytree(PEER, work, dirs_exist_ok=True)
        subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund"], cwd=work, check=True, capture_output=True
        )
    log = open(work / "server.log", "wb")  # noqa: SIM115 - closed below
    server = subprocess.Popen(
        ["node", "server.js", "memory"],
        cwd=work,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        for _ in range(80):
            if b"READY" in (work / "server.log").read_bytes():
                break
            time.sleep(0.25)
        out = work / "moves.jsonl"
        out.unlink(missing_ok=True)
        subprocess.run(
            [
                *("node", "load.js", "--conc", str(matches), "--dur", str(duration), "--warm", str(warmup)),
                *("--label", "peer", "--server-pid", str(server.pid), "--out", str(out)),
            ],
            cwd=work,
            check=True,
            capture_output=True,
            timeout=duration + warmup + 60,
        )
        line: dict[str, Any] = json.loads(out.read_text().strip().splitlines()[-1])
        return line
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(10)
        log.close()


# --- the sitting -----------------------------------------------------------------------------------
def _parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.ws", description=__doc__.split("\n\n")[0])
    p.add_argument("--kind", default="yangtze")
    p.add_argument("--players", type=int, default=4)
    p.add_argument(
        "--games", type=int, default=64, help="games in flight (default: boardgame.io's 64 matches)"
    )
    p.add_argument("--connections", type=int, default=64)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--duration", type=float, default=5.0)
    p.add_argument("--warmup", type=float, default=1.0)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--peer", action="store_true", help="measure boardgame.io in memory in the same sitting")
    p.add_argument(
        "--keyed", action="store_true", help="socket moves carry idempotency keys (as the web client's)"
    )
    p.add_argument(
        "--client",
        choices=("minimal", "websockets"),
        default="minimal",
        help="the load generator's WebSocket client: bench/wsclient.py (default) or the websockets library",
    )
    p.add_argument("--quick", action="store_true", help="a smoke run: 1 s windows, once")
    p.add_argument(
        "--pg-admin",
        default=os.environ.get("YAMEN_BENCH_PG", "postgresql://postgres@127.0.0.1:5432/postgres"),
    )
    p.add_argument("--redis-url", default=os.environ.get("YAMEN_BENCH_REDIS", "redis://127.0.0.1:6379/0"))
    p.add_argument("--json", help="write the results here too")
    args = p.parse_args(argv)
    if args.quick:
        args.duration, args.warmup, args.repeat = 1.0, 0.3, 1
    return args


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    started = time.time()

    def log(msg: str) -> None:
        print(f"[{time.time() - started:6.1f}s] {msg}", file=sys.stderr, flush=True)

    name, url = create_db(args.pg_admin)
    pool = concurrent.futures.ProcessPoolExecutor(
        max_workers=1, mp_context=multiprocessing.get_context("spawn")
    )
    srv = Server("granian", args.workers, url, args.redis_url, 16, ROOT / "bench-results", label="ws")
    # The production defaults: the access log written, every request counted by the rate limit.
    srv.env["YAMEN_ACCESS_LOG"] = "1"
    srv.env["YAMEN_RATE_LIMIT"] = RATE_LIMIT_CHECKED
    runs: dict[str, list[dict[str, Any]]] = {"echo": [], "http": [], "ws": [], "peer": []}
    try:
        srv.start()
        shape = (args.kind, args.players, args.games, args.connections, args.warmup, args.duration)
        phases = {
            "echo": lambda: loadgen.echo(srv.host, srv.port, args.connections, args.warmup, args.duration),
            "http": lambda: pool.submit(http_moves, srv.host, srv.port, *shape).result(),
            "ws": lambda: pool.submit(ws_moves, srv.host, srv.port, *shape, args.keyed, args.client).result(),
        }
        for r in range(args.repeat):
            order = ["echo", "http", "ws"] if r % 2 == 0 else ["ws", "http", "echo"]
            for phase in order:
                log(f"run {r + 1}/{args.repeat}: {phase}")
                runs[phase].append(_measured(srv, phases[phase]))
        srv.stop()
        if args.peer:
            with tempfile.TemporaryDirectory(prefix="bgio-") as work:
                for r in range(args.repeat):
                    log(f"run {r + 1}/{args.repeat}: boardgame.io in memory, {args.games} matches")
                    runs["peer"].append(
                        peer_moves(args.games, args.warmup, args.duration, pathlib.Path(work))
                    )
    finally:
        srv.stop()
        pool.shutdown()
        drop_db(args.pg_admin, name, args.redis_url)
    results = {"machine": describe_machine(args.pg_admin, args.redis_url), "config": vars(args), "runs": runs}
    results["figures"] = figures = _figures(runs)
    print(render(figures, results["machine"], args))
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(results, indent=2, default=str))
    return 0


def store_cpu_seconds() -> float:
    """User + system CPU seconds used so far by every Postgres and Redis process on the machine
    (the durable path's servers: a socket move's append, its snapshot and its notice)."""
    total = 0.0
    tick = os.sysconf("SC_CLK_TCK")
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            head, _, rest = pathlib.Path(f"/proc/{pid}/stat").read_text().rpartition(")")
        except OSError:
            continue
        if head.rsplit("(", 1)[-1] not in ("postgres", "redis-server"):
            continue
        fields = rest.split()
        total += (int(fields[11]) + int(fields[12])) / tick
    return total


def _measured(srv: Server, phase: Any) -> dict[str, Any]:
    """One phase, with the server's CPU (cores busy) inside its measurement window, and that of
    Postgres and Redis."""
    samples: list[tuple[float, float, float]] = []
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            samples.append((time.time(), srv.cpu_seconds(), store_cpu_seconds()))
            done.wait(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        out: dict[str, Any] = phase()
    finally:
        done.set()
        sampler.join()
    window = (out.get("move") or out)["window"]
    inside = [s for s in samples if window[0] <= s[0] <= window[1]]
    span = inside[-1][0] - inside[0][0] if len(inside) >= 2 else 0
    out["server_cpu"] = (inside[-1][1] - inside[0][1]) / span if span else float("nan")
    out["store_cpu"] = (inside[-1][2] - inside[0][2]) / span if span else float("nan")
    return out


def _figures(runs: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    def med(phase: str, *path: str) -> float:
        values = []
        for run in runs[phase]:
            node: Any = run
            for key in path:
                node = node[key]
            values.append(node)
        return median(values)

    f: dict[str, Any] = {
        "echo_rps": med("echo", "rps"),
        "echo_cpu_ms": median([1000 * r["server_cpu"] / r["rps"] for r in runs["echo"] if r["rps"]]),
        "http_moves": med("http", "move", "rps"),
        "http_cpu_ms": median(
            [1000 * r["server_cpu"] / r["move"]["rps"] for r in runs["http"] if r["move"]["rps"]]
        ),
        "http_p50": med("http", "move", "p50_ms"),
        "http_p99": med("http", "move", "p99_ms"),
        "ws_moves": med("ws", "move", "rps"),
        "ws_cpu_ms": median(
            [1000 * r["server_cpu"] / r["move"]["rps"] for r in runs["ws"] if r["move"]["rps"]]
        ),
        "ws_store_cpu_ms": median(
            [1000 * r["store_cpu"] / r["move"]["rps"] for r in runs["ws"] if r["move"]["rps"]]
        ),
        "ws_client_cpu_ms": median(
            [1000 * r["move"]["client_cpu"] / r["move"]["rps"] for r in runs["ws"] if r["move"]["rps"]]
        ),
        "ws_legal_per_move": median(
            [r["legal_moves"]["rps"] / r["move"]["rps"] for r in runs["ws"] if r["move"]["rps"]]
        ),
        "ws_p50": med("ws", "move", "p50_ms"),
        "ws_p99": med("ws", "move", "p99_ms"),
        "errors": sum(r.get("errors", 0) for phase in ("http", "ws") for r in runs[phase]),
    }
    if runs["peer"]:
        f["peer_moves"] = median([r.get("moves_per_s", float("nan")) for r in runs["peer"]])
        # load.js reads the server's CPU from /proc (percent of one core over the window).
        f["peer_cpu_ms"] = median(
            [10 * r["server_cpu_pct"] / r["moves_per_s"] for r in runs["peer"] if r.get("moves_per_s")]
        )
    return f


def render(f: dict[str, Any], machine: dict[str, Any], args: argparse.Namespace) -> str:
    lines = [
        f"Realtime socket vs HTTP — {machine['cpu']}, {machine['cores']} cores; {args.kind} {args.players}p, "
        f"{args.games} games in flight over {args.connections} connections, {args.workers} granian workers, "
        f"access log on, rate limit on; medians of {args.repeat} × {args.duration:g} s",
        "",
        "| figure | value |",
        "|---|---|",
        f"| echo req/s (HTTP, framework ceiling) | {f['echo_rps']:,.0f} |",
        f"| HTTP one-trip moves/s (p50 / p99 ms) | {f['http_moves']:,.0f} "
        f"({f['http_p50']:.2f} / {f['http_p99']:.2f}) |",
        f"| socket moves/s (p50 / p99 ms) | {f['ws_moves']:,.0f} ({f['ws_p50']:.2f} / {f['ws_p99']:.2f}) |",
        "| socket `get_legal_moves` per move (the turn passed to another seat) | "
        f"{f['ws_legal_per_move']:.2f} |",
        f"| server CPU ms per echo · HTTP one-trip move · socket move | {f['echo_cpu_ms']:.3f} · "
        f"{f['http_cpu_ms']:.3f} · {f['ws_cpu_ms']:.3f} |",
    ]
    lines.append(
        f"| CPU ms per socket move: server · Postgres and Redis · both | {f['ws_cpu_ms']:.3f} · "
        f"{f['ws_store_cpu_ms']:.3f} · {f['ws_cpu_ms'] + f['ws_store_cpu_ms']:.3f} |"
    )
    lines.append(
        f"| load generator CPU ms per socket move ({args.client} client; it shares the cores) | "
        f"{f['ws_client_cpu_ms']:.3f} |"
    )
    if "peer_moves" in f:
        lines.append(
            f"| boardgame.io 0.50.2 in memory, moves/s ({args.games} matches) | {f['peer_moves']:,.0f} |"
        )
        lines.append(f"| boardgame.io server CPU ms per move (it stores nothing) | {f['peer_cpu_ms']:.3f} |")
    lines += ["", "| target | value | met |", "|---|---|---|"]

    def target(label: str, value: float, limit: float, higher: bool) -> None:
        met = value >= limit if higher else value <= limit
        lines.append(f"| {label} | {value:.2f} | {'yes' if met else 'NO'} |")

    target("socket moves/s ÷ HTTP one-trip moves/s ≥ 2", f["ws_moves"] / f["http_moves"], 2.0, True)
    target("server CPU per socket move ÷ per echo ≤ 1.5", f["ws_cpu_ms"] / f["echo_cpu_ms"], 1.5, False)
    target("socket move p99 ÷ p50 ≤ 5", f["ws_p99"] / f["ws_p50"], 5.0, False)
    if "peer_moves" in f:
        target("socket moves/s ÷ boardgame.io in memory ≥ 3", f["ws_moves"] / f["peer_moves"], 3.0, True)
    if f["errors"]:
        lines.append(f"\n{f['errors']} moves failed (see the JSON)")
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
