"""``yamen``: serve, migrate, openapi (and the audit commands as they arrive)."""

from __future__ import annotations

import argparse
import asyncio
import errno
import fcntl
import math
import os
import pathlib
import socket
import sys
import tempfile
import time

import msgspec

DEFAULT_SERVER = "granian"
"""The ASGI server that served the most moves per second in ``python -m bench`` (docs/performance.md)."""
HEADER_TIMEOUT_MS = 30_000
"""A client has this long to send a request's headers — and an idle keep-alive connection is
closed after it (the body has its own limit, see :mod:`service.http.limits`).  10 s closed the
read connection of a client busy retrying its move through a Postgres outage."""


class PortBusy(Exception):
    """Another process listens on the address ``yamen serve`` was asked to use."""


def claim_port(host: str, port: int) -> socket.socket:
    """Bind *host*:*port* without ``SO_REUSEPORT`` (the ASGI servers set it, so a second server would
    silently share the port and split the requests): refused when anything listens there.  The
    socket is held until the server has bound its own, then closed."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    probe = socket.socket(family, socket.SOCK_STREAM)
    # SO_REUSEADDR: connections of a server that just stopped linger in TIME_WAIT and must not
    # block a restart; a socket still listening there is refused all the same.
    probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        probe.bind((host, port))
    except OSError as exc:
        probe.close()
        if exc.errno in (errno.EADDRINUSE, errno.EACCES):
            raise PortBusy(f"{host}:{port} is already in use ({exc.strerror})") from None
        raise
    return probe


def lock_port(host: str, port: int) -> int:
    """An exclusive lock held for the life of this ``yamen serve``, so that two started at the same
    moment cannot both pass :func:`claim_port` before either binds."""
    path = pathlib.Path(tempfile.gettempdir()) / f"yamen-serve-{host.replace(':', '_')}-{port}.lock"
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise PortBusy(f"{host}:{port} is already in use by another yamen serve") from None
    return fd


def _serve(args: argparse.Namespace) -> int:
    try:
        lock_port(args.host, args.port)  # released when this process exits
        claim_port(args.host, args.port).close()  # free again, for the server to bind
    except PortBusy as exc:
        print(f"yamen serve: {exc}; is another server running? (--port chooses another)", file=sys.stderr)
        return 2
    stop = None
    if not os.environ.get("DATABASE_URL"):
        from .dev.embedded import start_embedded_postgres

        url, stop = start_embedded_postgres(pathlib.Path(args.data_dir))
        os.environ["DATABASE_URL"] = url
        print(f"yamen: no DATABASE_URL, using embedded Postgres in {args.data_dir}", file=sys.stderr)
    if not os.environ.get("REDIS_URL") and not os.environ.get("REDIS_CLUSTER_NODES"):
        print("yamen: no REDIS_URL, using the in-process snapshot cache", file=sys.stderr)
    base = f"http://{_url_host(args.host)}:{args.port}"
    print(
        f"yamen: listening on {base} ({args.workers} {args.server} worker(s)) — play at {base}/play, "
        f"API at {base}/v1/catalogue, OpenAPI at {base}/schema/openapi.json; Ctrl-C stops",
        file=sys.stderr,
        flush=True,
    )
    try:
        if args.server == "granian":
            from granian import Granian
            from granian.constants import Interfaces
            from granian.http import HTTP1Settings

            Granian(
                "service.http.app:create_app",
                factory=True,
                address=args.host,
                port=args.port,
                interface=Interfaces.ASGI,
                workers=args.workers,
                log_enabled=False,
                # A worker that dies is replaced; without this granian stops every worker.
                respawn_failed_workers=True,
                respawn_interval=0.5,
                http1_settings=HTTP1Settings(header_read_timeout=HEADER_TIMEOUT_MS),
            ).serve()
        else:
            import uvicorn

            uvicorn.run(
                "service.http.app:create_app",
                factory=True,
                host=args.host,
                port=args.port,
                workers=args.workers,
                access_log=False,
                timeout_keep_alive=HEADER_TIMEOUT_MS // 1000,
            )
    finally:
        if stop is not None:
            stop()
    return 0


EXIT_UNAVAILABLE = 2
"""``yamen migrate``: DATABASE_URL unset, or no session in time (with ``--check`` on any server,
without it on a primary)."""
EXIT_PENDING = 3
"""``yamen migrate --check``: migrations of this build are not applied yet."""
MIGRATE_POLL_SECONDS = 2.0
"""``yamen migrate --wait``: one try every this many seconds..."""
MIGRATE_REPORT_SECONDS = 15.0
"""...and a line on stderr every this many saying why it still waits."""


def _one_line(exc: BaseException) -> str:
    return " ".join(f"{type(exc).__name__}: {exc}".split())


async def _not_ready(url: str, *, primary: bool, connect_timeout: int) -> str | None:
    """None once *url* opens a session (on a primary if *primary*: not one in recovery); else why
    not yet.  Its own connection, so that an unreachable server fails the try at once (the store's
    pool would keep retrying for its open timeout)."""
    import psycopg
    from psycopg.conninfo import conninfo_to_dict

    options: dict[str, object] = {"autocommit": True}
    if "connect_timeout" not in conninfo_to_dict(url):
        options["connect_timeout"] = connect_timeout
    try:
        async with await psycopg.AsyncConnection.connect(url, **options) as conn:
            cur = await conn.execute("SELECT pg_is_in_recovery()")
            row = await cur.fetchone()
    except psycopg.Error as exc:  # not reachable, not accepting connections yet, no primary yet...
        return _one_line(exc)
    if primary and row and row[0]:
        return "connected to a standby (in recovery), not a primary"
    return None


async def _migrate_once(url: str, *, check: bool, connect_timeout: int) -> tuple[int, str | None, list[str]]:
    """One try of ``yamen migrate`` (``--check``): ``(exit status, why not done, versions)``, the
    versions applied now, or (``--check``) those pending."""
    import psycopg

    from .infra.store import EventStore, StoreUnavailable

    why = await _not_ready(url, primary=not check, connect_timeout=connect_timeout)
    if why is not None:
        return EXIT_UNAVAILABLE, why, []
    store = EventStore(url, min_size=1, max_size=1)
    try:
        await store.open()
        if check:
            pending = await store.pending_migrations()
            if pending:
                return EXIT_PENDING, f"not applied yet: {', '.join(pending)}", pending
            return 0, None, []
        return 0, None, await store.migrate()  # one transaction: a try cut short left nothing half-done
    except StoreUnavailable as exc:
        return EXIT_UNAVAILABLE, " ".join(str(exc).split()), []
    except psycopg.errors.ReadOnlySqlTransaction:  # demoted between the two connections
        return EXIT_UNAVAILABLE, "connected to a standby (read-only), not a primary", []
    finally:
        await store.close()


def _migrate(args: argparse.Namespace) -> int:
    name = "yamen migrate --check" if args.check else "yamen migrate"
    url = os.environ.get("DATABASE_URL")
    if not url:
        print(f"{name}: DATABASE_URL is not set", file=sys.stderr)
        return EXIT_UNAVAILABLE
    goal = "the migrations of this build" if args.check else "a primary"

    async def run() -> tuple[int, str | None, list[str]]:
        start = time.monotonic()
        deadline, report_at = start + args.wait, start
        while True:
            left = deadline - time.monotonic()
            timeout = max(2, min(5, math.ceil(left)))  # libpq's connect_timeout: 2 s at least
            code, why, versions = await _migrate_once(url, check=args.check, connect_timeout=timeout)
            now = time.monotonic()
            if code == 0 or now >= deadline:
                return code, why, versions
            if now >= report_at:
                print(
                    f"{name}: waiting for {goal}, {now - start:.0f} of {args.wait:g} s ({why})",
                    file=sys.stderr,
                    flush=True,
                )
                report_at = now + MIGRATE_REPORT_SECONDS
            await asyncio.sleep(min(MIGRATE_POLL_SECONDS, deadline - now))

    code, why, versions = asyncio.run(run())
    if args.check:
        if code != EXIT_UNAVAILABLE:
            print(f"pending: {', '.join(versions) if versions else 'nothing (up to date)'}")
    elif code == 0:
        print(f"applied: {', '.join(versions) if versions else 'nothing (up to date)'}")
    if code == EXIT_UNAVAILABLE:
        waited = f" (gave up after {args.wait:g} s)" if args.wait else ""
        print(f"{name}: {why}{waited}", file=sys.stderr)
    elif code == EXIT_PENDING and args.wait:
        print(f"{name}: still pending after {args.wait:g} s", file=sys.stderr)
    return code


def _seconds(text: str) -> float:
    value = float(text)
    if not 0 <= value < math.inf:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}")
    return value


def openapi_document() -> dict:
    from .http.app import create_app
    from .settings import Settings

    app = create_app(settings=Settings(None, None, "json", False, 1))
    return app.state.openapi_document(app)


def render_openapi() -> bytes:
    return msgspec.json.format(msgspec.json.encode(openapi_document()), indent=2) + b"\n"


def _openapi(args: argparse.Namespace) -> int:
    blob = render_openapi()
    if args.output == "-":
        sys.stdout.buffer.write(blob)
    else:
        pathlib.Path(args.output).write_bytes(blob)
        print(f"wrote {args.output}")
    return 0


def _games():
    from domain.registry import production_games

    return production_games()


def _verify(args: argparse.Namespace) -> int:
    from .record.format import RecordError, iter_file_lines, read_record
    from .record.verify import verify

    try:
        record = read_record(iter_file_lines(args.record))
        report = verify(record, _games())
    except (RecordError, OSError) as exc:
        print(f"yamen verify: {exc}", file=sys.stderr)
        return 2
    if args.json:
        sys.stdout.buffer.write(msgspec.json.encode(report) + b"\n")
    else:
        print(
            f"{record.header.kind} game {record.header.game_id}, {record.header.version} events, rules "
            f"{record.header.rules_version}"
        )
        for check in report.checks:
            where = f" at seq {check.first_bad_seq}" if check.first_bad_seq is not None else ""
            print(f"  {check.name:7} {check.status.upper()}{where}: {check.detail}")
        print("VERIFIED" if report.ok else "NOT VERIFIED")
    return 0 if report.ok else 1


def _replay(args: argparse.Namespace) -> int:
    from .record.format import RecordError, iter_file_lines, read_record
    from .record.narrate import narrate

    try:
        record = read_record(iter_file_lines(args.record))
        for line in narrate(record, _games()):
            print(line)
    except (RecordError, OSError) as exc:
        print(f"yamen replay: {exc}", file=sys.stderr)
        return 2
    return 0


def _components(args: argparse.Namespace) -> int:
    from domain.kernel import ComponentDataError

    games = _games()
    game = games.get(args.kind)
    if game is None:
        print(
            f"yamen components: no game kind {args.kind!r} (kinds: {', '.join(sorted(games))})",
            file=sys.stderr,
        )
        return 2
    data_file = game.component_file
    if data_file is None:
        print(f"yamen components: {args.kind} keeps its component data in code", file=sys.stderr)
        return 2
    if args.action == "schema":
        sys.stdout.buffer.write(
            msgspec.json.format(msgspec.json.encode(data_file.schema()), indent=2) + b"\n"
        )
        return 0
    try:
        if args.file is None:
            data_file.load()
            origin = f"{data_file.package}/{data_file.filename}"
        else:
            origin = args.file
            data_file.check(pathlib.Path(args.file).read_bytes(), origin=origin)
    except (ComponentDataError, OSError) as exc:
        print(f"yamen components: {exc}", file=sys.stderr)
        return 1
    print(f"{origin}: valid {args.kind} component data")
    return 0


SERVE_EPILOG = """\
environment:
  DATABASE_URL         Postgres URL (unset: an embedded Postgres in --data-dir)
  REDIS_URL            Redis URL for the snapshot cache and notices (unset: in-process cache)
  YAMEN_CORS_ORIGINS   origins whose pages may call the API, comma-separated; * (default) for any
  YAMEN_RATE_LIMIT     requests per caller, e.g. 1200/minute (default); off for none
  YAMEN_SNAPSHOT_EVERY write a game's cached snapshot every N versions (default 8)
  YAMEN_BATCH_APPENDS  0 for one append statement per command (no group commit; e.g. sharded Postgres)
  YAMEN_JOBS           0 to run no job worker in this process (bot turns then wait for a process that does)
  YAMEN_LOG_FORMAT     json, console or auto (default)
  YAMEN_AUTO_MIGRATE   0 to skip applying migrations at start-up (then run `yamen migrate`)
"""


MIGRATE_EPILOG = """\
exit status:
  0  migrated (--check: nothing pending; a schema newer than this build's is fine)
  1  a migration failed (its error is printed; this run applied nothing)
  2  DATABASE_URL unset, or Postgres not reached in time (without --check: no primary)
  3  --check: migrations of this build are not applied yet
"""


def _url_host(host: str) -> str:
    """A host as it goes in a URL a person can open (an IPv6 address in brackets)."""
    if host in ("0.0.0.0", "::", ""):
        return "127.0.0.1" if host != "::" else "[::1]"
    return f"[{host}]" if ":" in host else host


def build_parser() -> argparse.ArgumentParser:
    """The command line: every command and option with its help text."""
    parser = argparse.ArgumentParser(
        prog="yamen",
        description="Yamen judges every move of Pingyao, Jiangnan and Yangtze and keeps the record.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    serve = sub.add_parser(
        "serve",
        help="run the HTTP service (and the web client at /play)",
        description="Run the HTTP service; it prints the address it listens on.",
        epilog=SERVE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    serve.add_argument(
        "--host",
        default=os.environ.get("YAMEN_HOST", "127.0.0.1"),
        help="address to listen on (default: %(default)s; 0.0.0.0 for every interface; env YAMEN_HOST)",
    )
    serve.add_argument(
        "--port",
        type=int,
        default=int(os.environ.get("YAMEN_PORT", "8000")),
        help="TCP port to listen on (default: %(default)s; env YAMEN_PORT)",
    )
    serve.add_argument(
        "--workers",
        type=int,
        default=int(os.environ.get("YAMEN_WORKERS", "1")),
        help="worker processes; a crashed one is replaced (default: %(default)s; env YAMEN_WORKERS)",
    )
    serve.add_argument(
        "--server",
        choices=["granian", "uvicorn"],
        default=os.environ.get("YAMEN_SERVER", DEFAULT_SERVER),
        help="the ASGI server to run under (default: %(default)s; env YAMEN_SERVER)",
    )
    serve.add_argument(
        "--data-dir",
        default=os.environ.get("YAMEN_DATA_DIR", ".yamen-data"),
        help="where the embedded Postgres keeps its data when DATABASE_URL is unset "
        "(default: %(default)s; env YAMEN_DATA_DIR)",
    )
    serve.set_defaults(func=_serve)

    migrate = sub.add_parser(
        "migrate",
        help="apply database migrations to DATABASE_URL (or --check which are pending)",
        description="Apply the schema migrations not yet applied to the Postgres at DATABASE_URL, on a\n"
        "primary (a session in recovery is a standby's); with --check, list them instead.",
        epilog=MIGRATE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    migrate.add_argument(
        "--check",
        action="store_true",
        help="apply nothing: print the migrations of this build not applied yet (any server will do, "
        "a standby too); exit 0 when none is, 3 when some are",
    )
    migrate.add_argument(
        "--wait",
        type=_seconds,
        default=0,
        metavar="SECONDS",
        help="keep trying for up to SECONDS, every 2 s, with a line on stderr every 15 s: until a "
        "primary accepts a session, then migrate; with --check, until nothing is pending "
        "(default: %(default)s, one try)",
    )
    migrate.set_defaults(func=_migrate)

    openapi = sub.add_parser(
        "openapi",
        help="write the OpenAPI document",
        description="Write the OpenAPI 3.1 document of the API (what /schema/openapi.json serves).",
    )
    openapi.add_argument(
        "--output", "-o", default="openapi/openapi.json", help="file to write (default: %(default)s)"
    )
    openapi.set_defaults(func=_openapi)

    verify = sub.add_parser("verify", help="check a game record offline (chain, fold, replay, seed)")
    verify.add_argument("record", help="an NDJSON record from GET /v1/games/{id}/record")
    verify.add_argument("--json", action="store_true", help="print the report as JSON")
    verify.set_defaults(func=_verify)

    replay = sub.add_parser("replay", help="narrate a game record step by step")
    replay.add_argument("record", help="an NDJSON record from GET /v1/games/{id}/record")
    replay.set_defaults(func=_replay)

    components = sub.add_parser(
        "components", help="check a game's component data file (tiles, cards, tracks) or print its schema"
    )
    components.add_argument(
        "action", choices=["check", "schema"], help="check a file, or print its JSON Schema"
    )
    components.add_argument("kind", help="a game kind: jiangnan, pingyao, yangtze")
    components.add_argument(
        "file", nargs="?", help="the file to check (default: the one the game ships with)"
    )
    components.set_defaults(func=_components)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    raise SystemExit(main())
