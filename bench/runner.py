"""``python -m bench``: orchestration, medians, target ratios, the table and the JSON."""

from __future__ import annotations

import argparse
import concurrent.futures
import multiprocessing
import os
import pathlib
import shutil
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import msgspec

from . import dbceiling, loadgen
from . import domain as domain_bench
from . import params as params_bench
from .infra import create_db, describe_machine, drop_db, machine_busy_seconds
from .server import RATE_LIMIT_CHECKED, Server
from .stats import median
from .ws import peer_moves

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m bench", description="Yamen performance benchmark (see docs/performance.md)"
    )
    p.add_argument(
        "--quick", action="store_true", help="a few seconds, tiny counts (smoke test); targets not asserted"
    )
    p.add_argument("--kind", default="yangtze", help="game for the move/read benchmark (default yangtze)")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--games", type=int, default=512, help="games in flight during the move benchmark")
    p.add_argument("--connections", type=int, default=64)
    p.add_argument("--duration", type=float, default=5.0, help="seconds per measurement window")
    p.add_argument("--warmup", type=float, default=1.0, help="seconds before each window")
    p.add_argument("--repeat", type=int, default=5, help="runs per figure; the figure is their median")
    p.add_argument(
        "--servers",
        default="granian,uvicorn",
        help="ASGI servers to compare (granian, uvicorn; granian+snap8 runs granian with "
        "YAMEN_SNAPSHOT_EVERY=8; granian@../other-checkout serves another checkout's code); the first "
        "is also used for growth and whole games",
    )
    p.add_argument(
        "--workers",
        type=int,
        default=int(os.environ.get("YAMEN_BENCH_WORKERS", "2")),
        help="server worker processes (2 = the cores here: a second worker measured +13%% moves/s)",
    )
    p.add_argument(
        "--access-log",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="the per-request access log (on: the production default)",
    )
    p.add_argument(
        "--rate-limit",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="the rate limit (on: the production default), with a limit the one-address load generator "
        "never reaches, so every request pays for the check and its Redis counter",
    )
    p.add_argument(
        "--peer",
        action=argparse.BooleanOptionalAction,
        default=shutil.which("node") is not None,
        help="measure boardgame.io 0.50.2 in memory (../shared/peer/boardgameio) in the same sitting, "
        "with as many games in flight (on when node is installed)",
    )
    p.add_argument("--pool-size", type=int, default=16, help="Postgres pool per worker (YAMEN_POOL_SIZE)")
    p.add_argument(
        "--whole-games",
        type=int,
        default=8,
        help="games per title and player count in the whole-games figure (0 to skip it)",
    )
    p.add_argument(
        "--whole-connections", type=int, default=8, help="games played at once in the whole-games figure"
    )
    p.add_argument(
        "--growth-kind",
        default="jiangnan",
        help="game whose long histories are used for growth (the longest)",
    )
    p.add_argument("--growth-players", type=int, default=3)
    p.add_argument(
        "--pg-admin",
        default=os.environ.get("YAMEN_BENCH_PG", "postgresql://postgres@127.0.0.1:5432/postgres"),
    )
    p.add_argument("--redis-url", default=os.environ.get("YAMEN_BENCH_REDIS", "redis://127.0.0.1:6379/0"))
    p.add_argument("--output", default=str(ROOT / "bench-results" / "latest.json"))
    p.add_argument(
        "--docs-copy",
        default=str(ROOT / "docs" / "performance-latest.json"),
        help="also write the JSON here ('' to skip; never written by --quick)",
    )
    args = p.parse_args(argv)
    if args.quick:
        args.games, args.connections, args.duration, args.warmup, args.repeat = 8, 4, 0.5, 0.2, 1
        args.whole_games, args.whole_connections = 1, 1
        args.servers = args.servers.split(",")[0]
        args.workers = 1
        args.peer = False
        if args.output == str(ROOT / "bench-results" / "latest.json"):
            args.output = str(ROOT / "bench-results" / "quick.json")
        args.docs_copy = ""
    args.servers = [s.strip() for s in args.servers.split(",") if s.strip()]
    return args


# --- the run ------------------------------------------------------------------------------------
Log = Callable[[str], None]


def run(args: argparse.Namespace) -> dict[str, Any]:
    started = time.time()
    results: dict[str, Any] = {
        "config": {
            k: v for k, v in vars(args).items() if k not in ("pg_admin", "redis_url", "output", "docs_copy")
        },
        "machine": describe_machine(args.pg_admin, args.redis_url),
    }
    log = lambda msg: print(f"[{time.time() - started:6.1f}s] {msg}", file=sys.stderr, flush=True)  # noqa: E731

    _measure_in_process(args, results, log)
    name, url = create_db(args.pg_admin)
    results["database"] = name
    log(f"database {name}")
    load = LoadProcess()
    try:
        _measure_servers(args, url, load, results, log)
    finally:
        load.shutdown()
        drop_db(args.pg_admin, name, args.redis_url)
        log(f"dropped {name}")
    results["summary"] = summarize(results, args)
    results["elapsed_s"] = time.time() - started
    return results


def _measure_in_process(args: argparse.Namespace, results: dict[str, Any], log: Log) -> None:
    # Domain figures first, in this process, while nothing else is running (single core).
    log("domain: random games per second")
    results["domain"] = domain_bench.games_per_second(0.3 if args.quick else 2.0)
    log("domain: fold vs decode, snapshot sizes")
    results["fold"] = domain_bench.fold_vs_decode(3 if args.quick else 15)

    log("append parameters: psycopg list adaptation vs array literals")
    results["append_params"] = params_bench.adaptation_cost(args.pg_admin, 201 if args.quick else 2001)


class LoadProcess:
    """The load generator's own process (see :mod:`bench.loadgen`): every load phase runs there."""

    def __init__(self) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.pool = concurrent.futures.ProcessPoolExecutor(max_workers=1, mp_context=ctx)

    def call(self, fn, *a) -> Any:
        return self.pool.submit(fn, *a).result()

    def measured(self, srv: Server, fn, *a) -> dict[str, Any]:
        """Run one load phase; add the server's CPU use inside its measurement window (1.0 = one
        core busy), from /proc samples taken every 50 ms while the phase runs."""
        samples: list[tuple[float, float]] = []
        done = threading.Event()

        def sample() -> None:
            while not done.is_set():
                samples.append((time.time(), srv.cpu_seconds(), machine_busy_seconds()))
                done.wait(0.05)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        try:
            out = self.call(fn, *a)
        finally:
            done.set()
            sampler.join()
        window = (out.get("move") or out).get("window")
        inside = [s for s in samples if window and window[0] <= s[0] <= window[1]]
        if len(inside) >= 2:
            span = inside[-1][0] - inside[0][0]
            out["server_cpu"] = (inside[-1][1] - inside[0][1]) / span
            out["machine_cpu"] = (inside[-1][2] - inside[0][2]) / span
        else:
            out["server_cpu"] = out["machine_cpu"] = float("nan")
        return out

    def shutdown(self) -> None:
        self.pool.shutdown()


def _measure_servers(
    args: argparse.Namespace, url: str, load: LoadProcess, results: dict[str, Any], log: Log
) -> None:
    servers: dict[str, Any] = {}
    ceiling_runs: list[dict[str, Any]] = []
    peer_runs: list[dict[str, Any]] = []
    runs = {k: {"echo": [], "moves": [], "moves1": [], "get": [], "get304": []} for k in args.servers}
    started_servers: dict[str, Server] = {}
    try:
        # Every server runs at once (idle ones cost nothing) and the phases interleave, so a
        # drift in the machine's background load hits every server alike.
        _start_servers(args, url, started_servers, log)
        for r in range(args.repeat):
            _echo_phase(args, load, started_servers, runs, r, log)
            _moves_phases(args, load, started_servers, runs, r, log)
            _read_phases(args, load, started_servers, runs, r, log)
            ceiling_runs.append(_ceiling_phase(args, url, load, r, log))
            if args.peer:
                peer_runs.append(_peer_phase(args, r, log))
        results["whole_games"] = _whole_games_phase(args, load, started_servers, log)
        for server_kind, srv in started_servers.items():
            memory = srv.memory()
            growth = _growth_phase(args, load, srv, log) if server_kind == args.servers[0] else None
            servers[server_kind] = {"runs": runs[server_kind], "memory": memory, "growth": growth}
    finally:
        for srv in started_servers.values():
            srv.stop()
    results["servers"] = servers
    results["ceiling_runs"] = ceiling_runs
    results["peer_runs"] = peer_runs


def _start_servers(args: argparse.Namespace, url: str, started_servers: dict[str, Server], log: Log) -> None:
    """Start every server of ``--servers`` into *started_servers* (filled as they start, so that
    the caller stops those already started if a later one fails)."""
    for server_kind in args.servers:
        # "granian+snap8": granian with YAMEN_SNAPSHOT_EVERY=8; "granian@/path/to/checkout":
        # granian serving another checkout's service/ (an A/B of two versions in one run).
        served, _, checkout = server_kind.partition("@")
        asgi, _, variant = served.partition("+")
        srv = Server(
            asgi,
            args.workers,
            url,
            args.redis_url,
            args.pool_size,
            pathlib.Path(args.output).parent,
            label=server_kind,
        )
        if checkout:
            srv.cwd = pathlib.Path(checkout).resolve()
            if not (srv.cwd / "service" / "cli.py").exists():
                raise SystemExit(f"{checkout} is not a Yamen checkout")
        if variant.startswith("snap"):
            srv.env["YAMEN_SNAPSHOT_EVERY"] = variant.removeprefix("snap")
        elif variant:
            raise SystemExit(f"unknown server variant {variant!r} (known: +snapN)")
        if args.access_log:
            srv.env["YAMEN_ACCESS_LOG"] = "1"
        if args.rate_limit:
            srv.env["YAMEN_RATE_LIMIT"] = RATE_LIMIT_CHECKED
        log(f"{server_kind}: starting ({args.workers} worker(s)) on port {srv.port}")
        started_servers[server_kind] = srv.start()


Runs = dict[str, dict[str, list[dict[str, Any]]]]
"""Each server's measurements so far, by phase (echo, moves, moves1, get, get304), one per run."""


def _echo_phase(
    args: argparse.Namespace, load: LoadProcess, servers: dict[str, Server], runs: Runs, r: int, log: Log
) -> None:
    for server_kind, srv in servers.items():
        log(f"run {r + 1}/{args.repeat} {server_kind}: echo")
        runs[server_kind]["echo"].append(
            load.measured(
                srv,
                loadgen.echo,
                srv.host,
                srv.port,
                args.connections,
                args.warmup,
                args.duration,
            )
        )


def _moves_phases(
    args: argparse.Namespace, load: LoadProcess, servers: dict[str, Server], runs: Runs, r: int, log: Log
) -> None:
    # The two-request client, then the one-trip client (?include=legal_moves).
    for phase, one_trip in (("moves", False), ("moves1", True)):
        for server_kind, srv in servers.items():
            log(
                f"run {r + 1}/{args.repeat} {server_kind}: moves ({args.games} games, "
                f"{args.connections} connections{', one-trip client' if one_trip else ''})"
            )
            mv = load.measured(
                srv,
                loadgen.moves,
                srv.host,
                srv.port,
                args.kind,
                args.players,
                args.games,
                args.connections,
                args.warmup,
                args.duration,
                r + 1,
                one_trip,
            )
            games = mv.pop("games")
            if not one_trip:
                srv.games = games  # the reads below use the games just played
            runs[server_kind][phase].append(mv)
            if mv["errors"]:
                log(f"  move errors: {mv['errors']} {mv['first_errors']}")


def _read_phases(
    args: argparse.Namespace, load: LoadProcess, servers: dict[str, Server], runs: Runs, r: int, log: Log
) -> None:
    # Warm GETs of the games the two-request client just played, then the same with If-None-Match.
    for phase, conditional, label in (
        ("get", False, "warm GET view"),
        ("get304", True, "GET If-None-Match (304)"),
    ):
        for server_kind, srv in servers.items():
            log(f"run {r + 1}/{args.repeat} {server_kind}: {label}")
            runs[server_kind][phase].append(
                load.measured(
                    srv,
                    loadgen.reads,
                    srv.host,
                    srv.port,
                    srv.games,
                    args.connections,
                    args.warmup,
                    args.duration,
                    conditional,
                )
            )


def _ceiling_phase(args: argparse.Namespace, url: str, load: LoadProcess, r: int, log: Log) -> dict[str, Any]:
    # The database ceiling, servers idle, at the same concurrency and total pool size.
    log(f"run {r + 1}/{args.repeat} database ceiling: raw appends, {args.connections} concurrent")
    return load.call(
        dbceiling.insert_ceiling,
        url,
        args.connections,
        min(args.connections, args.workers * args.pool_size),
        args.games,
        args.warmup,
        args.duration,
    )


def _peer_phase(args: argparse.Namespace, r: int, log: Log) -> dict[str, Any]:
    """boardgame.io's in-memory server, driven by its own socket.io client with as many games in
    flight as the move phases had (:func:`bench.ws.peer_moves`); its node_modules are installed
    once into bench-results/peer."""
    log(f"run {r + 1}/{args.repeat} boardgame.io in memory ({args.games} matches)")
    work = pathlib.Path(args.output).parent / "peer"
    try:
        return peer_moves(args.games, args.warmup, args.duration, work)
    except Exception as exc:  # noqa: BLE001 - one figure failing must not hide the rest
        log(f"  boardgame.io failed: {exc}")
        return {"error": str(exc)}


def _whole_games_phase(
    args: argparse.Namespace, load: LoadProcess, servers: dict[str, Server], log: Log
) -> dict[str, Any]:
    whole: dict[str, Any] = {}
    if args.whole_games > 0:
        srv = servers[args.servers[0]]
        configs = [(kind, players) for kind in ("yangtze", "pingyao", "jiangnan") for players in (2, 3, 4)]
        for label, one_trip in (("two_request", False), ("one_trip", True)):
            log(f"{args.servers[0]}: whole games ({label}), {args.whole_games} per title and count")
            whole[label] = load.call(
                loadgen.whole_games,
                srv.host,
                srv.port,
                configs,
                args.whole_games,
                args.whole_connections,
                one_trip,
            )
    return whole


def _growth_phase(args: argparse.Namespace, load: LoadProcess, srv: Server, log: Log) -> dict[str, Any]:
    log(f"{srv.label}: growth ({args.growth_kind} {args.growth_players}p)")
    points = [10, 100] if args.quick else [10, 100, 1000]
    try:
        return load.call(
            loadgen.growth,
            srv.host,
            srv.port,
            args.growth_kind,
            args.growth_players,
            points,
            30 if args.quick else 300,
            "bench-growth",
        )
    except Exception as exc:  # noqa: BLE001 - one figure failing must not hide the rest
        log(f"  growth failed: {exc}")
        return {"error": str(exc)}


def _med(runs: list[dict[str, Any]], *path: str) -> float:
    vals = []
    for r in runs:
        v: Any = r
        for p in path:
            v = v[p]
        vals.append(v)
    return median(vals)


def summarize(results: dict[str, Any], args: argparse.Namespace) -> dict[str, Any]:
    per_server = {kind: _server_figures(s["runs"], s["memory"]) for kind, s in results["servers"].items()}
    primary = args.servers[0]
    per_server[primary]
    ceiling = _ceiling_figures(results["ceiling_runs"])
    growth = results["servers"][primary]["growth"] or {}
    growth = {k: v for k, v in growth.items() if k != "error"}
    fastest = max(per_server, key=lambda k: per_server[k]["moves_per_s"])
    peer_runs = [run for run in results.get("peer_runs", []) if run.get("moves_per_s")]
    peer = (
        {
            "moves_per_s": _med(peer_runs, "moves_per_s"),
            "server_cpu_ms_per_move": median(
                [10 * run["server_cpu_pct"] / run["moves_per_s"] for run in peer_runs]
            ),
            "runs": len(peer_runs),
            "matches": args.games,
        }
        if peer_runs
        else None
    )
    return {
        "primary_server": primary,
        "servers": per_server,
        "ceiling": ceiling,
        "growth": growth,
        "fastest_server": fastest,
        "cli_default_server": _cli_default(args.workers),
        "peer": peer,
        "targets": _targets(per_server, ceiling, growth, results["fold"], peer),
    }


def _server_figures(runs: dict[str, list[dict[str, Any]]], memory: dict[str, Any]) -> dict[str, Any]:
    """One server's medians over its runs."""
    return {
        "echo_rps": _med(runs["echo"], "rps"),
        "echo_p50_ms": _med(runs["echo"], "p50_ms"),
        "echo_p99_ms": _med(runs["echo"], "p99_ms"),
        "moves_per_s": _med(runs["moves"], "move", "rps"),
        "move_p50_ms": _med(runs["moves"], "move", "p50_ms"),
        "move_p99_ms": _med(runs["moves"], "move", "p99_ms"),
        "legal_rps": _med(runs["moves"], "legal", "rps"),
        "legal_p50_ms": _med(runs["moves"], "legal", "p50_ms"),
        "legal_p99_ms": _med(runs["moves"], "legal", "p99_ms"),
        "games_finished": _med(runs["moves"], "finished"),
        "moves1_per_s": _med(runs["moves1"], "move", "rps"),
        "move1_p50_ms": _med(runs["moves1"], "move", "p50_ms"),
        "move1_p99_ms": _med(runs["moves1"], "move", "p99_ms"),
        "moves1_legal_rps": _med(runs["moves1"], "legal", "rps"),
        "moves1_without_get": _med(runs["moves1"], "moves_without_get"),
        "moves1_count": _med(runs["moves1"], "move", "count"),
        "move_errors": sum(r["errors"] for r in runs["moves"]),
        "get_rps": _med(runs["get"], "rps"),
        "get_p50_ms": _med(runs["get"], "p50_ms"),
        "get_p99_ms": _med(runs["get"], "p99_ms"),
        "get304_rps": _med(runs["get304"], "rps"),
        "get304_p50_ms": _med(runs["get304"], "p50_ms"),
        "get304_p99_ms": _med(runs["get304"], "p99_ms"),
        "read_errors": sum(r["errors"] for r in runs["get"] + runs["get304"]),
        "memory": memory,
        "server_cpu": {k: _med(runs[k], "server_cpu") for k in ("echo", "moves", "moves1", "get", "get304")},
        "machine_cpu": {
            k: _med(runs[k], "machine_cpu") for k in ("echo", "moves", "moves1", "get", "get304")
        },
        "client_cpu": {
            "echo": _med(runs["echo"], "client_cpu"),
            "moves": _med(runs["moves"], "move", "client_cpu"),
            "get": _med(runs["get"], "client_cpu"),
            "get304": _med(runs["get304"], "client_cpu"),
        },
    }


def _ceiling_figures(ceiling_runs: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "appends_per_s": _med(ceiling_runs, "rps"),
        "p50_ms": _med(ceiling_runs, "p50_ms"),
        "p99_ms": _med(ceiling_runs, "p99_ms"),
        "events_per_command": _med(ceiling_runs, "events_per_command"),
        "pool_size": ceiling_runs[0]["pool_size"] if ceiling_runs else None,
    }


def _targets(
    per_server: dict[str, dict[str, Any]],
    ceiling: dict[str, Any],
    growth: dict[str, Any],
    fold: list[dict[str, Any]],
    peer: dict[str, Any] | None,
) -> list[dict[str, Any]]:
    def target(name: str, value: float, limit: float, higher_is_better: bool) -> dict[str, Any]:
        ok = value >= limit if higher_is_better else value <= limit
        return {"target": name, "value": value, "limit": limit, "met": bool(ok)}

    targets = []
    for kind, f in per_server.items():
        targets += [
            target(f"{kind}: moves/s ÷ echo req/s ≥ 0.30", f["moves_per_s"] / f["echo_rps"], 0.30, True),
            target(
                f"{kind}: moves/s ÷ raw append ceiling ≥ 0.35",
                f["moves_per_s"] / ceiling["appends_per_s"],
                0.35,
                True,
            ),
            target(f"{kind}: warm GET req/s ÷ echo req/s ≥ 0.60", f["get_rps"] / f["echo_rps"], 0.60, True),
            target(f"{kind}: move p99 ÷ p50 ≤ 5", f["move_p99_ms"] / f["move_p50_ms"], 5.0, False),
            target(f"{kind}: warm GET p99 ÷ p50 ≤ 5", f["get_p99_ms"] / f["get_p50_ms"], 5.0, False),
            target(
                f"{kind}: one-trip moves/s ÷ echo req/s ≥ 0.30", f["moves1_per_s"] / f["echo_rps"], 0.30, True
            ),
            target(
                f"{kind}: server CPU per one-trip move ÷ per echo ≤ 3",
                (f["server_cpu"]["moves1"] / f["moves1_per_s"]) / (f["server_cpu"]["echo"] / f["echo_rps"])
                if f["moves1_per_s"] and f["echo_rps"]
                else float("nan"),
                3.0,
                False,
            ),
            target(f"{kind}: one-trip move p99 ÷ p50 ≤ 5", f["move1_p99_ms"] / f["move1_p50_ms"], 5.0, False),
        ]
        if peer is not None:  # measured in this sitting, or no such row
            targets.append(
                target(
                    f"{kind}: one-trip moves/s ÷ boardgame.io in memory (this sitting) ≥ 1.5",
                    f["moves1_per_s"] / peer["moves_per_s"],
                    1.5,
                    True,
                )
            )
    if "10" in growth and "1000" in growth:
        targets.append(
            target(
                "read p50 at 1,000 events ÷ at 10 ≤ 1.25",
                growth["1000"]["p50_ms"] / growth["10"]["p50_ms"],
                1.25,
                False,
            )
        )
    for f in fold:
        if "error" in f:
            continue
        targets.append(
            target(
                f"fold ÷ decode ≤ 3 ({f['kind']} {f['players']}p, {f['events']} events)",
                f["ratio"],
                3.0,
                False,
            )
        )
    return targets


def _cli_default(workers: int) -> str:
    from service.cli import DEFAULT_SERVER

    return DEFAULT_SERVER


# --- output -------------------------------------------------------------------------------------
def render(results: dict[str, Any]) -> str:
    s = results["summary"]
    m = results["machine"]
    cfg = results["config"]
    lines = [
        f"Yamen benchmark — {m['cpu']}, {m['cores']} cores, {m['memory_mib']} MiB, Python {m['python']}, "
        f"Postgres {m['postgres']} (fsync {m['postgres_fsync']}, synchronous_commit "
        f"{m['postgres_synchronous_commit']}), Redis {m['redis']}",
        f"{cfg['kind']} {cfg['players']}p; {cfg['games']} games in flight over {cfg['connections']} "
        "connections; "
        f"{cfg['workers']} worker(s); access log {'on' if cfg.get('access_log') else 'off'}; "
        f"rate limit {'on' if cfg.get('rate_limit') else 'off'}; "
        f"median of {cfg['repeat']} × {cfg['duration']:g}s windows; "
        "load generator = 1 separate Python process sharing the same cores",
        "",
        *_servers_table(s["servers"]),
        *_peer_line(s.get("peer")),
        *_whole_games_table(results.get("whole_games") or {}, s, cfg),
        *_append_params_line(results.get("append_params")),
        *_ceiling_line(s["ceiling"], cfg),
        *_growth_table(s["growth"], cfg),
        *_fold_table(results["fold"]),
        *_domain_table(results["domain"]),
        *_targets_table(s["targets"]),
        "",
        f"Fastest server by moves/s: {s['fastest_server']} (yamen serve default at {cfg['workers']} "
        f"worker(s): {s['cli_default_server']})",
    ]
    return "\n".join(lines)


def _servers_table(servers: dict[str, dict[str, Any]]) -> list[str]:
    lines = []
    add = lines.append
    add("| figure | " + " | ".join(servers) + " |")
    add("|---|" + "---|" * len(servers))

    def row(label: str, fmt) -> None:
        add(f"| {label} | " + " | ".join(fmt(f) for f in servers.values()) + " |")

    row(
        "echo req/s (framework ceiling)",
        lambda f: f"{f['echo_rps']:,.0f}  (p50 {f['echo_p50_ms']:.2f} / p99 {f['echo_p99_ms']:.2f} ms)",
    )
    row(
        "moves/s (POST, durably committed)",
        lambda f: f"{f['moves_per_s']:,.0f}  (p50 {f['move_p50_ms']:.2f} / p99 {f['move_p99_ms']:.2f} ms)",
    )
    row(
        "moves/s, one-trip client (POST ?include=legal_moves)",
        lambda f: (
            f"{f['moves1_per_s']:,.0f}  (p50 {f['move1_p50_ms']:.2f} / p99 {f['move1_p99_ms']:.2f} ms; "
            f"{f['moves1_without_get'] / max(f['moves1_count'], 1):.0%} without a GET)"
        ),
    )
    row(
        "legal-moves GET/s during the moves",
        lambda f: f"{f['legal_rps']:,.0f}  (p50 {f['legal_p50_ms']:.2f} / p99 {f['legal_p99_ms']:.2f} ms)",
    )
    row(
        "warm GET view req/s",
        lambda f: f"{f['get_rps']:,.0f}  (p50 {f['get_p50_ms']:.2f} / p99 {f['get_p99_ms']:.2f} ms)",
    )
    row(
        "GET If-None-Match (304) req/s",
        lambda f: f"{f['get304_rps']:,.0f}  (p50 {f['get304_p50_ms']:.2f} / p99 {f['get304_p99_ms']:.2f} ms)",
    )
    row(
        "server CPU per request, ms (echo · move+its legal GET · one-trip move · GET · 304)",
        lambda f: " · ".join(
            f"{1000 * f['server_cpu'][k] / f[r]:.2f}" if f[r] else "-"
            for k, r in (
                ("echo", "echo_rps"),
                ("moves", "moves_per_s"),
                ("moves1", "moves1_per_s"),
                ("get", "get_rps"),
                ("get304", "get304_rps"),
            )
        ),
    )
    row(
        "peak RSS per worker / all processes (MiB)",
        lambda f: f"{f['memory']['max_worker_hwm_mib']:.0f} / {f['memory']['total_hwm_mib']:.0f}",
    )
    row(
        "CPU, cores busy: server / load generator (echo · moves · GET · 304)",
        lambda f: " · ".join(
            f"{f['server_cpu'][k]:.2f}/{f['client_cpu'][k]:.2f}" for k in ("echo", "moves", "get", "get304")
        ),
    )
    row(
        f"whole machine, cores busy of {os.cpu_count()} (echo · moves · GET · 304)",
        lambda f: " · ".join(f"{f['machine_cpu'][k]:.2f}" for k in ("echo", "moves", "get", "get304")),
    )
    row("errors (moves / reads)", lambda f: f"{f['move_errors']} / {f['read_errors']}")
    return lines


def _peer_line(peer: dict[str, Any] | None) -> list[str]:
    if peer is None:
        return ["", "boardgame.io in memory: not measured in this sitting (--peer needs node and npm)."]
    return [
        "",
        f"boardgame.io 0.50.2 in memory, this sitting, {peer['matches']} matches in flight over socket.io "
        f"(median of {peer['runs']}): {peer['moves_per_s']:,.0f} moves/s, "
        f"{peer['server_cpu_ms_per_move']:.3f} ms server CPU per move (it stores nothing).",
    ]


def _whole_games_table(whole: dict[str, Any], s: dict[str, Any], cfg: dict[str, Any]) -> list[str]:
    if not whole:
        return []
    lines = [
        "",
        f"Whole games on {s['primary_server']} ({cfg['whole_games']} per title and count, "
        f"{cfg['whole_connections']} at a time; creation, every move and its reads, the end):",
        "| game | moves/game | games/s two-request · one-trip | moves/s two-request · one-trip |",
        "|---|---|---|---|",
    ]
    two, one = whole.get("two_request", {}), whole.get("one_trip", {})
    for label, g in two.items():
        o = one.get(label, {})
        lines.append(
            f"| {label} | {g['moves_per_game']:,.0f} | {g['games_per_s']:.2f} · "
            f"{o.get('games_per_s', 0):.2f} | {g['moves_per_s']:,.0f} · {o.get('moves_per_s', 0):,.0f} |"
        )
    return lines


def _append_params_line(ap: dict[str, Any] | None) -> list[str]:
    if not ap:
        return []
    return [
        "",
        f"Batched append parameters ({ap['rows']} rows, client CPU): psycopg adapting lists "
        f"{ap['lists_us_per_row']:.1f} µs/row, one array literal per column "
        f"{ap['literals_us_per_row']:.1f} µs/row ({ap['ratio']:.1f}× less; the store sends literals)",
    ]


def _ceiling_line(c: dict[str, Any], cfg: dict[str, Any]) -> list[str]:
    return [
        "",
        f"Database ceiling (raw psycopg appends, {cfg['connections']} concurrent, pool {c['pool_size']}, "
        f"{c['events_per_command']:.2f} event rows per command): {c['appends_per_s']:,.0f}/s "
        f"(p50 {c['p50_ms']:.2f} / p99 {c['p99_ms']:.2f} ms)",
    ]


def _growth_table(growth: dict[str, Any], cfg: dict[str, Any]) -> list[str]:
    if not growth:
        return []
    lines = [
        "",
        f"Read latency by history length ({cfg['growth_kind']} {cfg['growth_players']}p, one "
        "connection, warm):",
        "| events (asked / actual) | p50 ms | p99 ms | body bytes |",
        "|---|---|---|---|",
    ]
    for k, g in growth.items():
        lines.append(f"| {k} / {g['version']} | {g['p50_ms']:.2f} | {g['p99_ms']:.2f} | {g['bytes']:,} |")
    return lines


def _fold_table(fold: list[dict[str, Any]]) -> list[str]:
    lines = [
        "",
        "Fold vs decode (in-process) and snapshot sizes:",
        "| game | events | decode ms | fold ms | fold ÷ decode | floors ÷ decode: dispatch · "
        "+1 Struct write · +1 list write | snapshot mid / final bytes |",
        "|---|---|---|---|---|---|---|",
    ]
    for f in fold:
        if "error" in f:
            lines.append(f"| {f['kind']} {f['players']}p | failed: {f['error'][:80]} | | | | | |")
            continue
        floors = (
            f"{f['dispatch_floor']:.2f} · {f['struct_write_floor']:.2f} · {f['slot_write_floor']:.2f}"
            if "dispatch_floor" in f
            else "—"
        )
        lines.append(
            f"| {f['kind']} {f['players']}p | {f['events']} | {f['decode_ms']:.2f} | {f['fold_ms']:.2f} | "
            f"{f['ratio']:.2f} | {floors} | "
            f"{f['snapshot_mid_bytes']:,} / {f['snapshot_final_bytes']:,} |"
        )
    return lines


def _domain_table(domain: list[dict[str, Any]]) -> list[str]:
    lines = [
        "",
        "Domain, complete random games per second (one core, in-process):",
        "| game | players | games/s | events/game |",
        "|---|---|---|---|",
    ]
    for d in domain:
        if "error" in d:
            lines.append(f"| {d['kind']} | {d['players']} | failed: {d['error'][:80]} | |")
            continue
        lines.append(
            f"| {d['kind']} | {d['players']} | {d['games_per_s']:,.1f} | {d['events_per_game']:,.0f} |"
        )
    return lines


def _targets_table(targets: list[dict[str, Any]]) -> list[str]:
    lines = ["", "Targets (ratios measured in this run):", "| target | value | met |", "|---|---|---|"]
    for t in targets:
        lines.append(f"| {t['target']} | {t['value']:,.2f} | {'yes' if t['met'] else 'NO'} |")
    return lines


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    results = run(args)
    table = render(results)
    results["table"] = table
    print(table)
    blob = msgspec.json.format(msgspec.json.encode(results), indent=2) + b"\n"
    out = pathlib.Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(blob)
    print(f"\nwrote {out}", file=sys.stderr)
    if args.docs_copy:
        pathlib.Path(args.docs_copy).write_bytes(blob)
        print(f"wrote {args.docs_copy}", file=sys.stderr)
        for page in (ROOT / "docs" / "performance.md", ROOT / "README.md"):
            _update_docs(page, table)
    return 0


def _update_docs(path: pathlib.Path, table: str) -> None:
    """Replace the table between the LATEST markers of a page (docs/performance.md, README.md), if any."""
    begin, end = "<!-- BEGIN LATEST -->", "<!-- END LATEST -->"
    try:
        text = path.read_text()
    except OSError:
        return
    if begin not in text or end not in text:
        return
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    path.write_text(
        f"{head}{begin}\nRun {stamp} (`python -m bench`; JSON: "
        f"docs/performance-latest.json)\n\n{table}\n{end}{tail}"
    )
    print(f"updated {path}", file=sys.stderr)
