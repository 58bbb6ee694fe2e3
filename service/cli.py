"""``yamen``: serve, migrate, apps, ratings, openapi, and the audit commands."""

from __future__ import annotations

import argparse
import asyncio
import errno
import fcntl
import math
import os
import pathlib
import signal
import socket
import sys
import tempfile
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import msgspec

if TYPE_CHECKING:  # the games load only for the commands that need them
    from domain.kernel import Game

SERVERS = ("granian", "uvicorn")
DEFAULT_SERVER = "granian"
"""The ASGI server that served the most moves per second in ``python -m bench`` (docs/performance.md)."""
HEADER_TIMEOUT_MS = 30_000
"""A client has this long to send a request's headers — and an idle keep-alive connection is
closed after it (the body has its own limit, see :mod:`service.http.limits`).  10 s closed the
read connection of a client busy retrying its move through a Postgres outage."""
DRAIN_SECONDS = 5
"""Once told to stop (SIGINT, SIGTERM), ``yamen serve`` waits this long for the requests in progress
(``--drain-seconds``), then ends the workers that still have some.  Live streams and long polls end
at once (:mod:`service.http.shutdown`); a move takes milliseconds."""
DATABASE_CONNECT_SECONDS = 5
"""``yamen serve`` gives up on a DATABASE_URL that has not answered in this long."""


class CannotStart(Exception):
    """``yamen serve`` cannot start: the message says why, on one line, and what to do."""


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
    try:
        _check_configuration()
        if os.environ.get("DATABASE_URL"):
            _check_database(os.environ["DATABASE_URL"])
        else:
            os.environ["DATABASE_URL"], stop = _embedded_postgres(args.data_dir)
        _run_server(args)
    except CannotStart as exc:
        print(f"yamen serve: {exc}", file=sys.stderr)
        return 2
    finally:
        if stop is not None:
            stop()
    return 0


def _check_configuration() -> None:
    """Build the app the workers will build, so that a setting it refuses (``YAMEN_RATE_LIMIT=foo``)
    stops ``yamen serve`` here with one line, not every worker with a traceback (again and again, as
    each is replaced)."""
    from .http.app import create_app

    try:
        create_app()
    except ValueError as exc:
        raise CannotStart(f"a setting is not valid: {exc}") from None


def _check_database(url: str) -> None:
    """The Postgres at DATABASE_URL answers (a worker would otherwise retry it for ever, serving
    nothing)."""
    why = asyncio.run(_not_ready(url, primary=False, connect_timeout=DATABASE_CONNECT_SECONDS))
    if why is not None:
        raise CannotStart(
            f"the Postgres at DATABASE_URL does not answer ({why}); start it, fix DATABASE_URL, or "
            "unset it to use the embedded Postgres"
        )


def _embedded_postgres(data_dir: str | None) -> tuple[str, Callable[[], None]]:
    """The embedded Postgres started (or shared) in *data_dir*, or the default one; says where."""
    from .dev.embedded import EmbeddedPostgresError, default_data_dir, start_embedded_postgres

    where = pathlib.Path(data_dir).expanduser().resolve() if data_dir else default_data_dir()
    earlier = pathlib.Path.cwd() / ".yamen-data"
    if not data_dir and any(earlier.glob("pg[0-9]*/PG_VERSION")) and earlier.resolve() != where:
        # The default used to be ./.yamen-data: say where the games played before are.
        print(
            f"yamen: {earlier} holds the games of an earlier start (--data-dir {earlier} serves them)",
            file=sys.stderr,
        )
    try:
        url, stop = start_embedded_postgres(where)
    except EmbeddedPostgresError as exc:
        raise CannotStart(f"the embedded Postgres did not start: {exc}") from None
    print(
        f"yamen: no DATABASE_URL, using the embedded Postgres; its data is in {where} "
        "(--data-dir or YAMEN_DATA_DIR to keep it elsewhere)",
        file=sys.stderr,
    )
    return url, stop


def _run_server(args: argparse.Namespace) -> None:
    if not os.environ.get("REDIS_URL") and not os.environ.get("REDIS_CLUSTER_NODES"):
        print("yamen: no REDIS_URL, using the in-process snapshot cache", file=sys.stderr)
    base = f"http://{_url_host(args.host)}:{args.port}"
    print(
        f"yamen: listening on {base} ({args.workers} {args.server} worker(s)) — play at {base}/play, "
        f"API at {base}/v1/catalogue, OpenAPI at {base}/schema/openapi.json; Ctrl-C stops",
        file=sys.stderr,
        flush=True,
    )
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
            # Stopping, granian waits for a worker's open requests with no limit of its own.
            workers_kill_timeout=args.drain_seconds,
            http1_settings=HTTP1Settings(header_read_timeout=HEADER_TIMEOUT_MS),
        ).serve()
    else:
        import uvicorn

        # Having stopped on SIGTERM, uvicorn raises it again, which would end this process at once
        # (status -15, the embedded Postgres left running); as for Ctrl-C, uvicorn.run returns.
        signal.signal(signal.SIGTERM, signal.default_int_handler)
        uvicorn.run(
            "service.http.app:create_app",
            factory=True,
            host=args.host,
            port=args.port,
            workers=args.workers,
            access_log=False,
            timeout_keep_alive=HEADER_TIMEOUT_MS // 1000,
            timeout_graceful_shutdown=args.drain_seconds,
        )


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


def _malformed_url(url: str) -> str | None:
    """Why libpq cannot even parse *url*, or None."""
    import psycopg
    from psycopg.conninfo import conninfo_to_dict

    try:
        conninfo_to_dict(url)
    except psycopg.ProgrammingError as exc:
        return " ".join(str(exc).split())
    return None


async def _not_ready(url: str, *, primary: bool, connect_timeout: int) -> str | None:
    """None once *url* opens a session (on a primary if *primary*: not one in recovery); else why
    not yet.  Its own connection, so that an unreachable server fails the try at once (the store's
    pool would keep retrying for its open timeout)."""
    import psycopg
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    try:
        # Parsed inside the try: a malformed DATABASE_URL is a reason, not a traceback.  The
        # URL's own connect_timeout wins; *connect_timeout* only fills in a missing one.
        if "connect_timeout" not in conninfo_to_dict(url):
            url = make_conninfo(url, connect_timeout=connect_timeout)
        async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
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
    malformed = _malformed_url(url)
    if malformed is not None:  # no wait makes it right: refused at once, not after --wait seconds
        print(f"{name}: DATABASE_URL is not a Postgres URL: {malformed}", file=sys.stderr)
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


EXIT_REFUSED = 1
"""``yamen apps``: the request was refused (no such app or key, a value out of range)."""


def _count(text: str) -> int:
    if not (text.isascii() and text.isdecimal()):
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of 0 or more")
    return int(text)


def _apps(args: argparse.Namespace) -> int:
    """``yamen apps …``: apps, their API keys and signing keys, in the Postgres at DATABASE_URL.
    A change that must reach the running workers at once (a revocation, a rotation, new limits)
    is announced on the notice board of REDIS_URL (or REDIS_CLUSTER_NODES) too."""
    from .application.errors import ApplicationError
    from .infra.store import StoreError

    name = "yamen apps " + args.apps_command.replace("_", " ")
    url = os.environ.get("DATABASE_URL")
    if not url:
        print(f"{name}: DATABASE_URL is not set", file=sys.stderr)
        return EXIT_UNAVAILABLE
    malformed = _malformed_url(url)
    if malformed is not None:
        print(f"{name}: DATABASE_URL is not a Postgres URL: {malformed}", file=sys.stderr)
        return EXIT_UNAVAILABLE
    try:
        answer = asyncio.run(_apps_run(args, url))
    except (ApplicationError, msgspec.ValidationError) as exc:
        print(f"{name}: {getattr(exc, 'detail', None) or exc}", file=sys.stderr)
        return EXIT_REFUSED
    except OSError as exc:  # --public-key names a file that cannot be read
        print(f"{name}: {exc.filename}: {exc.strerror}", file=sys.stderr)
        return EXIT_REFUSED
    except StoreError as exc:
        print(f"{name}: {' '.join(str(exc).split())}", file=sys.stderr)
        return EXIT_UNAVAILABLE
    except _NotMigrated:
        print(f"{name}: the database has no apps table yet: run `yamen migrate` first", file=sys.stderr)
        return EXIT_UNAVAILABLE
    if args.json:
        print(msgspec.json.encode(answer).decode())
    else:
        for line in _apps_lines(answer):
            print(line)
    return 0


class _NotMigrated(Exception):
    """Migration 003 has not been applied to DATABASE_URL."""


async def _apps_run(args: argparse.Namespace, url: str) -> Any:
    import psycopg

    from .application.apps import AddSigningKey, AppDefaults, Apps, CreateApp, UpdateApp
    from .http.app import snapshot_cache
    from .infra.accounts import Accounts
    from .infra.store import EventStore
    from .settings import Settings

    settings = Settings.from_env()
    store = EventStore(url, min_size=1, max_size=1)
    cache = snapshot_cache(settings) if settings.redis_url or settings.redis_cluster_nodes else None
    apps = Apps(
        Accounts(store),
        defaults=AppDefaults(
            requests_per_minute=settings.app_requests_per_minute,
            games_per_day=settings.app_games_per_day,
            concurrent_games=settings.app_concurrent_games,
        ),
        announce=cache.announce_revoked if cache is not None else None,
    )
    await store.open(wait=DATABASE_CONNECT_SECONDS)
    try:
        match args.apps_command:
            case "create":
                fields = {
                    "name": args.name,
                    "requests_per_minute": args.requests_per_minute,
                    "games_per_day": args.games_per_day,
                    "concurrent_games": args.concurrent_games,
                    "default_visibility": args.visibility or "public",
                }
                return await apps.create(msgspec.convert(fields, CreateApp))
            case "list":
                return await apps.list()
            case "show":
                return await apps.get(args.app)
            case "update":
                changes = {
                    "name": args.name,
                    "requests_per_minute": args.requests_per_minute,
                    "games_per_day": args.games_per_day,
                    "concurrent_games": args.concurrent_games,
                    "default_visibility": args.visibility,
                    "disabled": args.disabled,
                }
                return await apps.update(args.app, msgspec.convert(changes, UpdateApp))
            case "keys_create":
                return await apps.create_key(args.app)
            case "keys_rotate":
                return await apps.rotate_key(args.app, args.key_id, args.overlap)
            case "keys_revoke":
                return await apps.revoke_key(args.app, args.key_id)
            case "signing_key_create":
                public_key = pathlib.Path(args.public_key).read_text() if args.public_key else None
                return await apps.add_signing_key(
                    args.app, AddSigningKey(alg=args.alg, public_key=public_key)
                )
            case "signing_key_revoke":
                return await apps.revoke_signing_key(args.app, args.kid)
        raise AssertionError(args.apps_command)
    except psycopg.errors.UndefinedTable as exc:
        raise _NotMigrated() from exc
    finally:
        await store.close()
        if cache is not None:
            await cache.close()


def _apps_lines(answer: Any) -> list[str]:
    """What ``yamen apps`` prints for *answer*, a line per fact (``--json`` prints it whole)."""
    from .application.apps import AppCreated, AppInfo, AppList, KeyInfo, NewKey, NewSigningKey, SigningKeyInfo

    match answer:
        case AppCreated(app=app, key=key):
            return [
                f"app_id: {app.app_id}",
                f"key: {key.key}",
                "(the key is shown once: keep it now; only its hash is stored)",
            ]
        case AppList(apps=apps):
            return [_app_line(app) for app in apps] or ["no apps"]
        case AppInfo() as app:
            lines = [_app_line(app)]
            lines += [f"key {k.key_id}: {k.status} (created {k.created_at}{_until(k)})" for k in app.keys]
            lines += [
                f"signing key {s.kid}: {s.alg}{' revoked' if s.revoked_at else ''}" for s in app.signing_keys
            ]
            return lines
        case NewKey(key_id=key_id, key=key, replaces=replaces):
            lines = [f"key_id: {key_id}", f"key: {key}", "(shown once: keep it now)"]
            if replaces is not None:
                lines.append(f"the old key {replaces.key_id} works until {replaces.expires_at}")
            return lines
        case KeyInfo() as info:
            return [f"key {info.key_id}: {info.status}{_until(info)}"]
        case NewSigningKey(kid=kid, alg=alg, secret=secret):
            lines = [f"kid: {kid}", f"alg: {alg}"]
            if secret is not None:
                lines += [f"secret: {secret}", "(shown once: the app signs its assertions with it)"]
            return lines
        case SigningKeyInfo() as signing:
            return [f"signing key {signing.kid}: {'revoked' if signing.revoked_at else 'active'}"]
    raise AssertionError(type(answer).__name__)


def _app_line(app: Any) -> str:
    limits = app.limits
    disabled = f", disabled since {app.disabled_at}" if app.disabled_at else ""
    return (
        f"{app.app_id}  {app.name!r}: {limits.requests_per_minute} requests/minute, "
        f"{limits.games_per_day} games/day, {limits.concurrent_games} concurrent games, "
        f"{app.default_visibility} by default{disabled}"
    )


def _until(key: Any) -> str:
    if key.revoked_at:
        return f", revoked {key.revoked_at}"
    return f", until {key.expires_at}" if key.expires_at else ""


def _seconds(text: str) -> float:
    value = float(text)
    if not 0 <= value < math.inf:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}")
    return value


def _server(text: str) -> str:
    if text not in SERVERS:
        raise argparse.ArgumentTypeError(
            f"not an ASGI server yamen runs under ({', '.join(SERVERS)}): {text!r}"
        )
    return text


def _whole_seconds(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"not a whole number of seconds (1 or more): {text!r}")
    return int(text)


def _default_data_dir() -> pathlib.Path:
    from .dev.embedded import default_data_dir

    return default_data_dir()


def openapi_document() -> dict[str, Any]:
    from .http.app import create_app
    from .settings import Settings

    app = create_app(settings=Settings(None, None, "json", False, 1))
    document: dict[str, Any] = app.state.openapi_document(app)
    return document


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


def _games() -> dict[str, Game]:
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
  REDIS_URL            Redis URL for the snapshot cache and notices (unset: in-process cache);
                       rediss://…?ssl_ca_certs=/ca.pem for TLS (redis-py's ssl_* parameters)
  REDIS_CLUSTER_NODES  host:port,… of a Redis Cluster, instead of REDIS_URL
  REDIS_CLUSTER_TLS    1 (or ssl_* parameters, e.g. ssl_ca_certs=/ca.pem) for TLS to the cluster
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
        default=os.environ.get(
            "YAMEN_PORT", "8000"
        ),  # a string: argparse parses it (a bad one: a usage error)
        help="TCP port to listen on (default: %(default)s; env YAMEN_PORT)",
    )
    serve.add_argument(
        "--workers",
        type=int,
        default=os.environ.get("YAMEN_WORKERS", "1"),
        help="worker processes; a crashed one is replaced (default: %(default)s; env YAMEN_WORKERS)",
    )
    serve.add_argument(
        "--server",
        choices=SERVERS,
        type=_server,  # argparse checks a default against the choices only through the type
        default=os.environ.get("YAMEN_SERVER", DEFAULT_SERVER),
        help="the ASGI server to run under (default: %(default)s; env YAMEN_SERVER)",
    )
    serve.add_argument(
        "--data-dir",
        default=os.environ.get("YAMEN_DATA_DIR") or None,
        help="where the embedded Postgres keeps its data when DATABASE_URL is unset (default: "
        f"{_default_data_dir()}, the same from any directory: the user's data directory, for root the "
        "system's; env YAMEN_DATA_DIR)",
    )
    serve.add_argument(
        "--drain-seconds",
        type=_whole_seconds,
        default=os.environ.get("YAMEN_DRAIN_SECONDS", str(DRAIN_SECONDS)),
        help="once told to stop (Ctrl-C, SIGTERM), end live streams and long polls at once and wait "
        "this long for other requests in progress before ending the workers (default: %(default)s; "
        "env YAMEN_DRAIN_SECONDS)",
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

    _apps_parser(sub)
    _ratings_parser(sub)

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

    _vapid_parser(sub)

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


def _apps_parser(sub: Any) -> None:
    apps = sub.add_parser(
        "apps",
        help="apps (integrators): create them, list them, and manage their API keys and signing keys",
        description="Apps and their keys, in the Postgres at DATABASE_URL (run `yamen migrate` first). "
        "Revocations, rotations and new limits reach the running workers at once through REDIS_URL's "
        "notice board. Secrets (an API key, an HS256 secret) are printed once.",
    )
    verbs = apps.add_subparsers(
        dest="apps_command", required=True, metavar="COMMAND", help="what to do with apps or their keys"
    )

    def verb(parent: Any, name: str, command: str, text: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = parent.add_parser(name, help=text, description=text)
        parser.add_argument("--json", action="store_true", help="print the answer as JSON")
        parser.set_defaults(func=_apps, apps_command=command)
        return parser

    def limits(parser: argparse.ArgumentParser, defaults: str) -> None:
        parser.add_argument(
            "--requests-per-minute", type=_count, metavar="N", help=f"requests a minute{defaults}"
        )
        parser.add_argument(
            "--games-per-day", type=_count, metavar="N", help=f"games created per UTC day{defaults}"
        )
        parser.add_argument(
            "--concurrent-games", type=_count, metavar="N", help=f"games not finished at once{defaults}"
        )
        parser.add_argument(
            "--visibility",
            choices=["public", "app", "private"],
            help="the visibility of a game the app creates without saying one" + (defaults and " (public)"),
        )

    create = verb(
        verbs, "create", "create", "create an app; prints its id and its first API key (shown once)"
    )
    create.add_argument("name", help="the app's name, for people")
    limits(create, " (default: YAMEN_APP_* settings)")
    verb(verbs, "list", "list", "list every app with its limits")
    show = verb(verbs, "show", "show", "show an app, its keys (never their secrets) and signing keys")
    show.add_argument("app", help="the app's id (app_…)")
    update = verb(verbs, "update", "update", "change an app's limits or default visibility, or disable it")
    update.add_argument("app", help="the app's id (app_…)")
    update.add_argument("--name", help="a new name")
    limits(update, "")
    state = update.add_mutually_exclusive_group()
    state.add_argument(
        "--disable", dest="disabled", action="store_const", const=True, help="refuse every key of the app"
    )
    state.add_argument("--enable", dest="disabled", action="store_const", const=False, help="undo --disable")

    keys = verbs.add_parser("keys", help="an app's API keys: create, rotate, revoke")
    key_verbs = keys.add_subparsers(
        dest="keys_command", required=True, metavar="COMMAND", help="create, rotate or revoke a key"
    )
    key_create = verb(key_verbs, "create", "keys_create", "another API key for the app (shown once)")
    key_create.add_argument("app", help="the app's id (app_…)")
    rotate = verb(
        key_verbs,
        "rotate",
        "keys_rotate",
        "a new key (shown once) replacing KEY_ID, which works on for --overlap",
    )
    rotate.add_argument("app", help="the app's id (app_…)")
    rotate.add_argument("key_id", help="the key's id: the 12 hex characters after ymk_")
    rotate.add_argument(
        "--overlap",
        type=_count,
        default=24 * 3600,
        metavar="SECONDS",
        help="how long the old key keeps working (default: %(default)s, a day)",
    )
    revoke = verb(key_verbs, "revoke", "keys_revoke", "revoke a key: refused at once, on every worker")
    revoke.add_argument("app", help="the app's id (app_…)")
    revoke.add_argument("key_id", help="the key's id: the 12 hex characters after ymk_")

    signing = verbs.add_parser("signing-key", help="keys the app's server signs player assertions with")
    signing_verbs = signing.add_subparsers(
        dest="signing_command", required=True, metavar="COMMAND", help="create or revoke a signing key"
    )
    add = verb(
        signing_verbs,
        "create",
        "signing_key_create",
        "HS256: a secret made here (shown once); EdDSA: register the app's Ed25519 public key",
    )
    add.add_argument("app", help="the app's id (app_…)")
    add.add_argument("--alg", choices=["HS256", "EdDSA"], required=True)
    add.add_argument("--public-key", metavar="FILE", help="EdDSA: the app's public key, a PEM file")
    drop = verb(
        signing_verbs, "revoke", "signing_key_revoke", "revoke a signing key: its assertions are refused"
    )
    drop.add_argument("app", help="the app's id (app_…)")
    drop.add_argument("kid", help="the signing key's kid (sk_…)")


EXIT_DIFFERENT = 1
"""``yamen ratings rebuild --check``: the live tables differ from the rebuilt ones."""


def _ratings_parser(sub: Any) -> None:
    ratings = sub.add_parser(
        "ratings",
        help="ratings and leaderboards: rebuild them from the event log, rate an imported game",
        description="Ratings and leaderboards (docs/ratings.md), in the Postgres at DATABASE_URL.",
    )
    verbs = ratings.add_subparsers(
        dest="ratings_command", required=True, metavar="COMMAND", help="what to do with the ratings"
    )
    rebuild = verbs.add_parser(
        "rebuild",
        help="recompute every rating from the rated games' records, in the recorded order",
        description="Fold every rated game's recorded events to its outcome, in the recorded "
        "application order, and write the ratings and their history in place of the live tables "
        "(one transaction); with --check, compare instead and exit 1 on any difference.",
    )
    rebuild.add_argument("--check", action="store_true", help="compare with the live tables; write nothing")
    rebuild.add_argument("--json", action="store_true", help="print the report as JSON")
    rebuild.set_defaults(func=_ratings, ratings_command="rebuild")
    rate = verbs.add_parser(
        "rate-import",
        help="rate an imported finished game (never rated otherwise): bind its seats and apply it",
        description="An imported game is never rated unless an operator says so: bind each seat to a "
        "player (--player SEAT=PLAYER_ID) or a bot anchor (--bot SEAT=LEVEL), and apply its rating.",
    )
    rate.add_argument("game", help="the imported game's id here")
    rate.add_argument("--player", action="append", default=[], metavar="SEAT=PLAYER_ID")
    rate.add_argument("--bot", action="append", default=[], metavar="SEAT=LEVEL")
    rate.add_argument("--json", action="store_true", help="print the change as JSON")
    rate.set_defaults(func=_ratings, ratings_command="rate-import")


def _seat_pairs(values: list[str]) -> dict[int, str]:
    pairs = {}
    for value in values:
        seat, _, name = value.partition("=")
        if not (seat.isascii() and seat.isdecimal() and name):
            raise argparse.ArgumentTypeError(f"{value!r} is not SEAT=NAME")
        pairs[int(seat)] = name
    return pairs


def _ratings(args: argparse.Namespace) -> int:
    """``yamen ratings …``: exit 0 when done (``--check``: identical), 1 on a difference or a
    refusal, 2 when Postgres cannot be reached."""
    from .application.errors import ApplicationError
    from .infra.store import StoreError

    name = f"yamen ratings {args.ratings_command}"
    url = os.environ.get("DATABASE_URL")
    if not url or _malformed_url(url) is not None:
        print(f"{name}: DATABASE_URL is not set to a Postgres URL", file=sys.stderr)
        return EXIT_UNAVAILABLE
    try:
        answer = asyncio.run(_ratings_run(args, url, _games()))
    except (ApplicationError, argparse.ArgumentTypeError) as exc:
        print(f"{name}: {getattr(exc, 'detail', None) or exc}", file=sys.stderr)
        return EXIT_REFUSED
    except StoreError as exc:
        print(f"{name}: {' '.join(str(exc).split())}", file=sys.stderr)
        return EXIT_UNAVAILABLE
    if args.json:
        print(msgspec.json.encode(answer).decode())
    elif args.ratings_command == "rebuild":
        verb = "checked" if args.check else ("rebuilt" if answer.written else "not written")
        print(f"{verb}: {answer.games} rated games, {answer.ratings} ratings, {answer.changes} changes")
        for line in answer.differences:
            print(line)
        if args.check and not answer.differences:
            print("the live tables equal the rebuilt ones")
        if not args.check and not answer.written:
            print("a game was rated while rebuilding: nothing written, run it again", file=sys.stderr)
    else:
        print(msgspec.json.encode(answer).decode())
    if args.ratings_command == "rebuild" and (answer.differences or not (args.check or answer.written)):
        return EXIT_DIFFERENT
    return 0


async def _ratings_run(args: argparse.Namespace, url: str, games: dict[str, Game]) -> Any:
    from .application.ratings import Ratings
    from .application.states import States
    from .application.titles import Titles
    from .infra.cache import MemorySnapshotCache
    from .infra.players_store import PlayerStore
    from .infra.ratings_store import RatingsStore
    from .infra.store import EventStore

    store = EventStore(url, min_size=1, max_size=2)
    await store.open(wait=DATABASE_CONNECT_SECONDS)
    try:
        titles = Titles(games)
        states = States(titles, store, MemorySnapshotCache())
        ratings = Ratings(titles, states, RatingsStore(store), PlayerStore(store))
        if args.ratings_command == "rebuild":
            return await ratings.rebuild(check=args.check)
        return await ratings.rate_import(args.game, _seat_pairs(args.player), _seat_pairs(args.bot))
    finally:
        await store.close()


def _vapid_parser(sub: Any) -> None:
    vapid = sub.add_parser(
        "vapid",
        help="Web Push keys: generate a VAPID key pair",
        description="The VAPID key pair Web Push is signed with (docs/frontends.md, deploy/README.md).",
    )
    verbs = vapid.add_subparsers(
        dest="vapid_command", required=True, metavar="COMMAND", help="what to do with the keys"
    )
    generate = verbs.add_parser(
        "generate",
        help="print a new key pair: YAMEN_VAPID_PRIVATE_KEY=… and the public key",
        description="Print a new P-256 key pair: the private key as YAMEN_VAPID_PRIVATE_KEY "
        "(base64url of the raw key: keep it secret) and the public key browsers subscribe with "
        "(GET /v1/push/key serves it).",
    )
    generate.set_defaults(func=_vapid_generate)


def _vapid_generate(args: argparse.Namespace) -> int:
    from .application.push import generate_key_pair

    private, public = generate_key_pair()
    print(f"YAMEN_VAPID_PRIVATE_KEY={private}")
    print(f"# public key (applicationServerKey; GET /v1/push/key serves it): {public}")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    code: int = args.func(args)
    return code


if __name__ == "__main__":
    raise SystemExit(main())
