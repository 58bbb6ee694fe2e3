"""The command line explains itself: every command and option has help text, and `yamen serve`
says where it listens.  ``yamen migrate --check`` and ``--wait``, on fresh databases of the test
Postgres, an unreachable port, and a standby of their own."""

from __future__ import annotations

import argparse
import asyncio
import os
import pathlib
import secrets
import socket
import subprocess
import sys
import threading
import time
from subprocess import PIPE

import psycopg
import pytest

from service.cli import build_parser
from tests.servers import PG_ADMIN, free_port, fresh_database, url_for

REPO = pathlib.Path(__file__).resolve().parents[2]


def _commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def test_every_command_and_option_has_help_text():
    parser = build_parser()
    commands = _commands(parser)
    assert {"serve", "migrate", "openapi", "verify", "replay", "components"} <= set(commands)
    missing = []
    for name, command in commands.items():
        for action in command._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            if not (action.help and action.help.strip()):
                missing.append(f"{name} {'/'.join(action.option_strings) or action.dest}")
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for choice in subparsers._choices_actions:
        if not (choice.help and choice.help.strip()):
            missing.append(f"command {choice.dest}")
    assert not missing, f"without help text: {missing}"


def test_serve_help_names_its_environment():
    text = _commands(build_parser())["serve"].format_help()
    for name in ("DATABASE_URL", "REDIS_URL", "YAMEN_CORS_ORIGINS", "YAMEN_RATE_LIMIT", "--port", "--host"):
        assert name in text
    for name in ("--data-dir", "YAMEN_DATA_DIR", "--drain-seconds", "YAMEN_DRAIN_SECONDS"):
        assert name in text


# --------------------------------------------------------------------------- yamen migrate --check / --wait

YAMEN = os.path.join(os.path.dirname(sys.executable), "yamen")


def _recorded(url: str) -> set[str]:
    with psycopg.connect(url) as conn:
        return {version for (version,) in conn.execute("SELECT version FROM schema_migrations")}


def _start(args: list[str], url: str) -> subprocess.Popen:
    """``yamen <args>`` in its own process on *url* (stopped by the test by its PID)."""
    env = {**os.environ, "DATABASE_URL": url}
    return subprocess.Popen([YAMEN, *args], env=env, stdout=PIPE, stderr=PIPE, text=True)


def test_migration_versions_are_the_files_and_the_job_queue():
    from service.infra.jobs import SCHEMA_VERSION
    from service.infra.store import EventStore

    shipped = sorted(p.name for p in (REPO / "service" / "migrations").glob("*.sql"))
    assert EventStore.migration_versions() == [name.removesuffix(".sql") for name in shipped] + [
        SCHEMA_VERSION
    ]


def test_check_lists_what_is_pending_and_applies_nothing(monkeypatch, capsys):
    from service import cli
    from service.infra.store import EventStore

    versions = EventStore.migration_versions()
    with fresh_database("yamen_cli_check_") as url:
        monkeypatch.setenv("DATABASE_URL", url)
        assert cli.main(["migrate", "--check"]) == cli.EXIT_PENDING == 3
        assert capsys.readouterr().out == f"pending: {', '.join(versions)}\n"
        with psycopg.connect(url) as conn:  # not even the bookkeeping table
            assert conn.execute("SELECT to_regclass('schema_migrations')").fetchone() == (None,)
        # --wait on a database that is there: it migrates at once.
        started = time.monotonic()
        assert cli.main(["migrate", "--wait", "30"]) == 0
        assert time.monotonic() - started < 10
        assert capsys.readouterr().out == f"applied: {', '.join(versions)}\n"
        assert _recorded(url) == set(versions)  # what --check expects is what migrate records
        assert cli.main(["migrate", "--check"]) == 0
        assert capsys.readouterr().out == "pending: nothing (up to date)\n"
        # A newer release migrated further: fine (expand, then contract). Only missing ones count.
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("INSERT INTO schema_migrations (version) VALUES ('999_from_a_newer_release')")
            conn.execute("DELETE FROM schema_migrations WHERE version = %s", (versions[-1],))
        assert cli.main(["migrate", "--check"]) == 3
        assert capsys.readouterr().out == f"pending: {versions[-1]}\n"
        assert cli.main(["migrate"]) == 0
        assert capsys.readouterr().out == f"applied: {versions[-1]}\n"
        assert cli.main(["migrate", "--check"]) == 0


def test_check_and_wait_give_up_on_an_unreachable_postgres(monkeypatch, capsys):
    from service import cli

    monkeypatch.setenv("DATABASE_URL", f"postgresql://postgres@127.0.0.1:{free_port()}/postgres")
    for args in (["migrate", "--check", "--wait", "1"], ["migrate", "--wait", "1"], ["migrate", "--check"]):
        started = time.monotonic()
        assert cli.main(args) == cli.EXIT_UNAVAILABLE == 2, args
        assert time.monotonic() - started < 6, args
        out, err = capsys.readouterr()
        assert out == "", args
        assert "Connection refused" in err, args
    monkeypatch.delenv("DATABASE_URL")
    assert cli.main(["migrate", "--check"]) == 2
    assert "DATABASE_URL is not set" in capsys.readouterr().err


def test_a_malformed_database_url_is_one_line_not_a_traceback(monkeypatch, capsys):
    """Both used to end in psycopg's ProgrammingError traceback: the URL was parsed outside the
    ``try`` that turns a failed connection into a reason."""
    from service import cli

    monkeypatch.setenv("DATABASE_URL", "garbage")
    started = time.monotonic()
    # --wait does not make a malformed URL right: refused at once, not after 30 s of retries
    assert cli.main(["migrate", "--check", "--wait", "30"]) == cli.EXIT_UNAVAILABLE
    assert time.monotonic() - started < 5
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        "yamen migrate --check: DATABASE_URL is not a Postgres URL: "
        'missing "=" after "garbage" in connection info string\n'
    )
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    served = subprocess.run(
        [YAMEN, "serve", "--port", str(free_port())], env=env, capture_output=True, text=True, timeout=60
    )
    assert served.returncode == 2, served.stderr
    assert served.stdout == "" and served.stderr.count("\n") == 1, served.stderr
    says = "yamen serve: the Postgres at DATABASE_URL does not answer (ProgrammingError: missing"
    assert served.stderr.startswith(says), served.stderr


def test_the_database_urls_own_connect_timeout_wins():
    """A Postgres that takes the connection and never answers: the URL's connect_timeout bounds
    the wait, and without one the caller's does."""
    from service.cli import _not_ready

    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()  # the kernel completes the handshake; nobody ever answers the startup
        plain = f"postgresql://postgres@127.0.0.1:{silent.getsockname()[1]}/postgres"
        for url, connect_timeout in ((f"{plain}?connect_timeout=2", 60), (plain, 2)):
            started = time.monotonic()
            why = asyncio.run(_not_ready(url, primary=False, connect_timeout=connect_timeout))
            assert why == "ConnectionTimeout: connection timeout expired", url
            assert 1.5 < time.monotonic() - started < 10, url


def test_wait_migrates_once_the_database_is_there(monkeypatch, capsys):
    """What the migrate Job does while Postgres comes up: not yet, not yet, then migrate."""
    from service import cli
    from service.infra.store import EventStore

    name = f"yamen_cli_later_{secrets.token_hex(4)}"

    def create() -> None:
        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')

    later = threading.Timer(3.0, create)
    monkeypatch.setenv("DATABASE_URL", url_for(name))
    try:
        later.start()
        started = time.monotonic()
        assert cli.main(["migrate", "--wait", "60"]) == 0
        assert 3 <= time.monotonic() - started < 30
        out, err = capsys.readouterr()
        assert out == f"applied: {', '.join(EventStore.migration_versions())}\n"
        assert err.count("yamen migrate: waiting for a primary") == 1  # one line per 15 s
        assert "does not exist" in err  # it says why
    finally:
        later.join()
        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_check_wait_holds_until_the_migrations_are_applied(monkeypatch):
    """What an API pod's init container does: wait for the migrate Job of its release."""
    from service import cli

    with fresh_database("yamen_cli_hold_") as url:
        waiting = _start(["migrate", "--check", "--wait", "60"], url)
        try:
            time.sleep(3)
            assert waiting.poll() is None  # still waiting: nothing is migrated
            monkeypatch.setenv("DATABASE_URL", url)
            assert cli.main(["migrate"]) == 0
            out, err = waiting.communicate(timeout=20)
        finally:
            if waiting.poll() is None:
                waiting.kill()
                waiting.wait()
        assert waiting.returncode == 0, err
        assert out == "pending: nothing (up to date)\n"
        assert "waiting for the migrations of this build" in err and "not applied yet: 001_init" in err


def test_check_times_out_while_migrations_are_pending(monkeypatch, capsys):
    from service import cli

    with fresh_database("yamen_cli_late_") as url:
        monkeypatch.setenv("DATABASE_URL", url)
        started = time.monotonic()
        assert cli.main(["migrate", "--check", "--wait", "1"]) == 3
        assert time.monotonic() - started < 6
        out, err = capsys.readouterr()
        assert out.startswith("pending: 001_init")
        assert "still pending after 1 s" in err


@pytest.fixture(scope="module")
def pair():
    """A primary and its streaming standby of their own (tests/infra/test_standby.py)."""
    from tests.infra.test_standby import running_pair

    with running_pair("yamen-cli-standby-") as the:
        yield the


def test_migrate_waits_for_a_primary_not_a_standby(pair, monkeypatch, capsys):
    """A session in recovery is not yet; promoted, the same server is migrated."""
    from service import cli
    from service.infra.store import EventStore

    versions = EventStore.migration_versions()
    standby = pair.url(pair.standby_port)
    deadline = time.monotonic() + 20
    while True:  # the database created on the primary is replayed on the standby
        try:
            psycopg.connect(standby).close()
            break
        except psycopg.OperationalError:
            assert time.monotonic() < deadline, "the standby never showed the database"
            time.sleep(0.2)
    monkeypatch.setenv("DATABASE_URL", standby)
    assert cli.main(["migrate", "--check"]) == 3  # --check reads a standby as well
    assert capsys.readouterr().out == f"pending: {', '.join(versions)}\n"
    assert cli.main(["migrate", "--wait", "1"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "connected to a standby" in err
    waiting = _start(["migrate", "--wait", "60"], standby)
    try:
        time.sleep(3)
        assert waiting.poll() is None
        pair.run(str(pair.bin / "pg_ctl"), "-D", str(pair.root / "standby"), "-w", "promote")
        out, err = waiting.communicate(timeout=30)
    finally:
        if waiting.poll() is None:
            waiting.kill()
            waiting.wait()
    assert waiting.returncode == 0, err
    assert out == f"applied: {', '.join(versions)}\n"
    assert "waiting for a primary" in err and "connected to a standby" in err
    assert _recorded(standby) == set(versions)
