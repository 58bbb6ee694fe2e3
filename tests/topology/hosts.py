"""A multi-host Yamen topology on one machine: every "host" is its own process group on its own
loopback address (Linux routes all of 127.0.0.0/8 to ``lo``, so 127.0.0.11, 127.0.0.12 ... can be
bound directly).

- **Postgres** under pg_auto_failover: a monitor and two data nodes (a primary and a synchronous
  standby), trust authentication, no SSL, database ``yamen``; run as the ``postgres`` account when
  the suite runs as root (as :class:`tests.processes.Postgres` does).  The monitor is tuned
  to fail a dead primary over in seconds (:data:`MONITOR_SETTINGS`).
- **Redis Cluster**: six ``redis-server`` (three masters, three replicas), node timeout 1 s.
- **Three ``yamen serve --workers 2`` replicas**, started after ``yamen migrate`` ran once on the
  primary (migrate, then roll out), each with the multi-host ``DATABASE_URL`` pg_autoctl gives,
  ``YAMEN_STANDBY_URL`` (the same hosts, ``target_session_attrs=standby``) and
  ``REDIS_CLUSTER_NODES``.
- **HAProxy** in front of the replicas, its configuration derived from the deployment's own
  ``deploy/haproxy/haproxy.cfg`` (:func:`haproxy_config` says what is changed and why).

Everything runs on free ports and lives in ``/tmp/yamen-topology-*`` (the logs stay after the
run); every process is started in its own session and stopped by its process group.  The
machine's own Postgres (5432) and Redis (6379) are never touched.  A missing binary fails the
suite (never a skip).
"""

from __future__ import annotations

import contextlib
import csv
import io
import os
import pathlib
import re
import shutil
import signal
import socket
import subprocess
import time
import urllib.parse
from dataclasses import dataclass, field

from tests.processes import (
    REPO,
    START_TIMEOUT,
    HarnessError,
    Process,
    RedisServer,
    RunDir,
    Service,
    as_account,
    binary,
    cmdline,
    free_port,
    kill_group_leftovers,
    pg_bin_dir,
    port_open,
    postgres_account,
    wait_until,
)

# --------------------------------------------------------------------------- the addresses

MONITOR_ADDRESS = "127.0.0.11"
PG_ADDRESSES = ("127.0.0.12", "127.0.0.13")
REDIS_ADDRESSES = tuple(f"127.0.0.{21 + i}" for i in range(6))
API_ADDRESSES = ("127.0.0.31", "127.0.0.32", "127.0.0.33")
PROXY_ADDRESS = "127.0.0.40"

DATABASE = "yamen"
API_WORKERS = 2
STANDBY_MAX_LAG_MS = 1000
"""``YAMEN_STANDBY_MAX_LAG_MS``: left unset on the replicas, so the service's default (1000)."""
REPLICA_HEADER = "X-Yamen-Replica"
"""Added by HAProxy to every answer a replica gave: the replica's name (which one served it)."""

MONITOR_SETTINGS = {
    # how often the monitor checks each node, and how quickly a check gives up
    "pgautofailover.health_check_period": "500",
    "pgautofailover.health_check_timeout": "1000",
    "pgautofailover.health_check_max_retries": "1",
    "pgautofailover.health_check_retry_delay": "200",
    # a node whose keeper has not reported for this long, and fails its health check, is down
    "pgautofailover.node_considered_unhealthy_timeout": "2000",
    # how long the monitor waits for a dead primary to report it has stopped before promoting
    "pgautofailover.primary_demote_timeout": "2000",
}
"""The monitor's failover timing (milliseconds); the defaults (5 s checks, 20 s unhealthy, 30 s
demote timeout) take about a minute to fail a dead primary over."""

PG_SETTINGS = {
    # pg_auto_failover sizes shared_buffers to a quarter of the machine's memory; three clusters
    # share this machine
    "shared_buffers": "'128MB'",
    "effective_cache_size": "'1GB'",
    "maintenance_work_mem": "'64MB'",
    "work_mem": "'4MB'",
    # 3 replicas x 2 workers x (pool + standby pool + job queue) and the monitor's connections
    "max_connections": "400",
    "fsync": "on",
    "synchronous_commit": "on",
}


# --------------------------------------------------------------------------- Postgres


class PgNode(Process):
    """A pg_auto_failover node (the monitor, or a data node) with its own pgdata, pg_autoctl
    configuration and state (``XDG_*`` in the node's directory) and listen address."""

    def __init__(self, run: RunDir, name: str, address: str, *, monitor: PgNode | None = None) -> None:
        super().__init__(run, name, address, free_port(address))
        self.bin = pg_bin_dir()
        self.autoctl = binary("pg_autoctl", "/usr/bin/pg_autoctl")
        self.monitor = monitor
        self.user = postgres_account()
        self.dir = run.root / name
        self.dir.mkdir(mode=0o700)
        self.pgdata = self.dir / "pgdata"
        if self.user is not None:
            os.chown(self.dir, self.user.pw_uid, self.user.pw_gid)

    # --- running pg_autoctl as the Postgres account ----------------------------------------------
    @property
    def env(self) -> dict[str, str]:
        return {
            "PATH": f"{self.bin}:/usr/bin:/bin",
            "HOME": str(self.dir),
            "XDG_CONFIG_HOME": str(self.dir / "config"),
            "XDG_DATA_HOME": str(self.dir / "data"),
            "XDG_RUNTIME_DIR": str(self.dir / "run"),
            "PGHOST": self.address,
            "PGPORT": str(self.port),
            # initdb takes its encoding from the locale: UTF8 (under plain C it would be SQL_ASCII)
            "LC_ALL": "C.UTF-8",
            "LANG": "C.UTF-8",
        }

    def ctl(self, *args: str, timeout: float = 60.0, check: bool = True) -> str:
        """``pg_autoctl <args>`` as the node's account; its stdout."""
        done = subprocess.run(
            [self.autoctl, *args],
            env=self.env,
            cwd=self.dir,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            **as_account(self.user),  # type: ignore[arg-type]
        )
        if check and done.returncode != 0:
            raise HarnessError(
                f"pg_autoctl {' '.join(args)} failed ({done.returncode}):\n{done.stderr[-3000:]}"
            )
        return done.stdout

    @property
    def monitor_uri(self) -> str:
        monitor = self.monitor or self
        return f"postgres://autoctl_node@{monitor.address}:{monitor.port}/pg_auto_failover?sslmode=disable"

    def url(self, database: str = DATABASE) -> str:
        return f"postgresql://postgres@{self.address}:{self.port}/{database}"

    # --- creating ----------------------------------------------------------------------------------
    def create(self, nudge: PgNode | None = None) -> None:
        """``pg_autoctl create`` (without ``--run``: it initialises, registers and stops), then
        the listen address, the settings and (on the monitor) the failover timing.  *nudge*: the
        primary a new standby takes its base backup from — pg_basebackup waits for a spread
        checkpoint (minutes), so the primary is asked for an immediate one while it waits."""
        common = ["--pgdata", str(self.pgdata), "--pgport", str(self.port), "--hostname", self.address]
        common += [
            "--no-ssl",
            "--skip-pg-hba",
        ]  # initdb's rules trust 127.0.0.1, where every client comes from
        if self.monitor is None:
            args = ["create", "monitor", *common]
        else:
            args = ["create", "postgres", *common, "--pghost", self.address, "--listen", self.address]
            args += ["--name", self.name, "--dbname", DATABASE, "--monitor", self.monitor_uri]
        path = self.run.log(f"{self.name}-create.log")
        with open(path, "wb") as log:
            proc = subprocess.Popen(
                [self.autoctl, *args],
                env=self.env,
                cwd=self.dir,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                **as_account(self.user),  # type: ignore[arg-type]
            )
        deadline = time.monotonic() + 120
        try:
            while proc.poll() is None:
                if time.monotonic() > deadline:
                    raise HarnessError(f"pg_autoctl create {self.name} did not finish; see {path}")
                if nudge is not None:
                    with contextlib.suppress(Exception):
                        nudge.sql("CHECKPOINT")
                time.sleep(0.5)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            kill_group_leftovers(proc.pid)
        if proc.returncode != 0:
            raise HarnessError(f"pg_autoctl create {self.name} failed ({proc.returncode}); see {path}")
        if self.monitor is None:
            self.ctl(
                "config", "set", "--pgdata", str(self.pgdata), "postgresql.listen_addresses", self.address
            )
        settings = dict(PG_SETTINGS)
        if self.monitor is None:
            settings.update(MONITOR_SETTINGS)
        auto = self.pgdata / "postgresql.auto.conf"
        with open(auto, "a") as f:
            f.write("# the topology suite (tests/topology/hosts.py)\n")
            f.writelines(f"{k} = {v}\n" for k, v in settings.items())

    def start(self) -> None:
        """``pg_autoctl run``: the keeper (or the monitor's listener) and its Postgres, one
        process group."""
        if self.running:
            return
        args = [self.autoctl, "run", "--pgdata", str(self.pgdata)]
        self.spawn_process(args, env=self.env, cwd=str(self.dir), **as_account(self.user))

    def kill(self) -> None:
        """SIGKILL the whole group: pg_autoctl, its services and its Postgres (pg_autoctl starts
        the postmaster inside its own process group)."""
        super().kill()
        pid = self.postmaster_pid()
        if pid is not None and str(self.pgdata) in cmdline(pid):  # never expected; by PID, checked
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)

    def postmaster_pid(self) -> int | None:
        try:
            pid = int((self.pgdata / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None
        try:
            os.kill(pid, 0)
        except (ProcessLookupError, PermissionError):
            return None
        return pid

    # --- asking it -----------------------------------------------------------------------------------
    def sql(self, query: str, database: str | None = None, timeout: float = 2.0) -> list[tuple]:
        import psycopg

        db = database or ("pg_auto_failover" if self.monitor is None else DATABASE)
        with psycopg.connect(self.url(db), connect_timeout=max(1, int(timeout)), autocommit=True) as conn:
            cur = conn.execute(query)
            return cur.fetchall() if cur.description else []

    def accepts_writes(self) -> bool:
        try:
            rows = self.sql("SELECT pg_is_in_recovery(), current_setting('default_transaction_read_only')")
        except Exception:  # noqa: BLE001 - down, starting, refusing: not writable
            return False
        return rows[0] == (False, "off")

    def remove(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)


@dataclass
class NodeState:
    name: str
    host: str
    port: int
    reported: str
    assigned: str
    health: int


class PgFormation:
    """The monitor and two data nodes of pg_auto_failover's ``default`` formation."""

    def __init__(self, run: RunDir) -> None:
        self.run = run
        self.monitor = PgNode(run, "pg-monitor", MONITOR_ADDRESS)
        self.nodes = [PgNode(run, f"pg-{c}", a, monitor=self.monitor) for c, a in zip("ab", PG_ADDRESSES)]

    def hosts(self) -> list[PgNode]:
        return [self.monitor, *self.nodes]

    def create(self) -> None:
        self.monitor.create()
        self.monitor.start()
        wait_until("the monitor accepts connections", lambda: self.monitor.sql("SELECT 1"), START_TIMEOUT)
        applied = dict(
            self.monitor.sql("SELECT name, setting FROM pg_settings WHERE name ~ '^pgautofailover'")
        )
        wrong = {k: applied.get(k) for k, v in MONITOR_SETTINGS.items() if applied.get(k) != v}
        if wrong:
            raise HarnessError(f"the monitor's failover settings did not apply: {wrong}")
        first, second = self.nodes
        first.create()
        first.start()
        wait_until(
            "the first node is the primary", lambda: self.state(first).reported == "single", START_TIMEOUT
        )
        second.create(nudge=first)
        second.start()
        self.wait_full(START_TIMEOUT)

    # --- the monitor's view -----------------------------------------------------------------------
    def states(self) -> dict[str, NodeState]:
        rows = self.monitor.sql(
            "SELECT nodename, nodehost, nodeport, reportedstate::text, goalstate::text, health "
            "FROM pgautofailover.node WHERE formationid = 'default' ORDER BY nodeid"
        )
        return {r[0]: NodeState(*r) for r in rows}

    def state(self, node: PgNode) -> NodeState:
        return self.states()[node.name]

    def primary(self) -> PgNode | None:
        states = self.states()
        for node in self.nodes:
            s = states.get(node.name)
            if s and s.reported in ("primary", "wait_primary", "single") and s.assigned == s.reported:
                return node
        return None

    def standby(self) -> PgNode | None:
        states = self.states()
        for node in self.nodes:
            s = states.get(node.name)
            if s and s.reported == "secondary" and s.assigned == "secondary":
                return node
        return None

    def full(self) -> bool:
        """A primary with a synchronous standby, both settled and writable/streaming."""
        states = self.states()
        reported = sorted(states[n.name].reported for n in self.nodes if n.name in states)
        assigned = sorted(states[n.name].assigned for n in self.nodes if n.name in states)
        if reported != ["primary", "secondary"] or assigned != reported:
            return False
        primary = self.primary()
        return primary is not None and self.synchronous(primary)[0]

    def wait_full(self, timeout: float) -> float:
        """Until a primary has a synchronous standby; nudges checkpoints (a rebuilt standby's base
        backup waits for one)."""

        nudged = [0.0]

        def check() -> bool:
            if self.full():
                return True
            primary = self.primary()
            if primary is not None and time.monotonic() - nudged[0] > 2.0:
                nudged[0] = time.monotonic()
                with contextlib.suppress(Exception):
                    primary.sql("CHECKPOINT")
            return False

        return wait_until("a primary with a synchronous standby", check, timeout, every=0.25)

    def synchronous(self, primary: PgNode) -> tuple[bool, str, list[tuple]]:
        """(synchronous?, synchronous_standby_names, [(application_name, client, sync_state)])."""
        names = primary.sql("SHOW synchronous_standby_names")[0][0]
        rows = primary.sql("SELECT application_name, client_addr::text, sync_state FROM pg_stat_replication")
        sync = bool(names) and any(r[2] in ("sync", "quorum") for r in rows)
        return sync, names, rows

    def uri(self) -> str:
        """The multi-host URI of the formation (``pg_autoctl show uri``), read-write target, with the
        user (pg_autoctl leaves it out)."""
        out = self.monitor.ctl("show", "uri", "--formation", "default", "--monitor", self.monitor.monitor_uri)
        uri = out.strip().splitlines()[-1].strip()
        if "target_session_attrs=read-write" not in uri:
            raise HarnessError(f"pg_autoctl show uri gave no read-write target: {uri!r}")
        scheme, rest = uri.split("://", 1)
        return f"{scheme}://postgres@{rest}" if "@" not in rest.split("/", 1)[0] else uri

    def standby_uri(self) -> str:
        parts = urllib.parse.urlsplit(self.uri())
        query = dict(urllib.parse.parse_qsl(parts.query))
        query["target_session_attrs"] = "standby"
        return urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(query)))

    def formation_settings(self) -> str:
        return self.monitor.ctl(
            "get", "formation", "settings", "--formation", "default", "--monitor", self.monitor.monitor_uri
        ).strip()

    def wait_replayed(self, timeout: float = 30.0) -> float:
        """Until the standby has replayed everything the primary had written when this was called
        (so a spectator read served by the standby shows the end of the load)."""
        primary = self.primary()
        if primary is None:
            raise HarnessError("no primary to compare the standby with")
        target = primary.sql("SELECT pg_current_wal_lsn()::text")[0][0]

        def replayed() -> bool:
            standby = self.standby()
            if standby is None:
                return False
            rows = standby.sql(f"SELECT pg_last_wal_replay_lsn() >= '{target}'::pg_lsn")
            return bool(rows[0][0])

        return wait_until("the standby replays the primary's WAL", replayed, timeout)

    def server_version(self) -> str:
        primary = self.primary() or self.nodes[0]
        return primary.sql("SHOW server_version")[0][0]

    def stop(self) -> None:
        for node in [*self.nodes, self.monitor]:
            node.stop()

    def remove(self) -> None:
        for node in self.hosts():
            node.remove()


# --------------------------------------------------------------------------- Redis Cluster


class RedisNode(RedisServer):
    """A node of the Redis Cluster on its own address (:class:`tests.processes.RedisServer`)."""

    def __init__(self, run: RunDir, name: str, address: str) -> None:
        super().__init__(run, name, address, cluster=True)

    def cluster_info(self) -> dict[str, str]:
        text = str(self.command("CLUSTER", "INFO"))
        return dict(line.strip().split(":", 1) for line in text.splitlines() if ":" in line)


class RedisCluster:
    def __init__(self, run: RunDir) -> None:
        self.run = run
        self.cli = binary("redis-cli", "/usr/bin/redis-cli")
        self.nodes = [RedisNode(run, f"redis-{i + 1}", a) for i, a in enumerate(REDIS_ADDRESSES)]

    def create(self) -> None:
        for node in self.nodes:
            node.start()
        args = [self.cli, "--cluster", "create", *(n.where() for n in self.nodes)]
        args += ["--cluster-replicas", "1", "--cluster-yes"]
        done = subprocess.run(args, capture_output=True, text=True, timeout=60, check=False)
        self.run.log("redis-cluster-create.log").write_text(done.stdout + done.stderr)
        if done.returncode != 0:
            raise HarnessError(f"redis-cli --cluster create failed:\n{done.stdout[-2000:]}\n{done.stderr}")
        self.wait_ok(START_TIMEOUT)
        # "ok" comes before every replica has synced with its master: wait for the links too, or
        # the first test can find a replica still connecting (seen once in CI).
        wait_until("every Redis replica linked to its master", self.full, START_TIMEOUT, every=0.1)

    @property
    def seeds(self) -> str:
        """``REDIS_CLUSTER_NODES``: every node, host:port, comma-separated."""
        return ",".join(n.where() for n in self.nodes)

    def live(self) -> list[RedisNode]:
        return [n for n in self.nodes if n.running]

    def ok(self) -> bool:
        """Every live node says cluster_state:ok, and every slot range has a live master."""
        live = self.live()
        if not live or any(n.cluster_info().get("cluster_state") != "ok" for n in live):
            return False
        addresses = {n.where() for n in live}
        return all(master in addresses for _, _, master, _ in self.slots())

    def wait_ok(self, timeout: float) -> float:
        return wait_until("the Redis cluster is ok", self.ok, timeout, every=0.1)

    def slots(self) -> list[tuple[int, int, str, list[str]]]:
        """(first slot, last slot, master host:port, [replica host:port]) as a live node sees it."""
        reply = self.live()[0].command("CLUSTER", "SLOTS")
        assert isinstance(reply, list)
        out = []
        for first, last, master, *replicas in reply:
            out.append(
                (int(first), int(last), f"{master[0]}:{master[1]}", [f"{r[0]}:{r[1]}" for r in replicas])
            )
        return sorted(out)

    def keyslot(self, key: str) -> int:
        return int(self.live()[0].command("CLUSTER", "KEYSLOT", key))  # type: ignore[arg-type]

    def by_address(self, where: str) -> RedisNode:
        return next(n for n in self.nodes if n.where() == where)

    def master_of(self, slot: int) -> RedisNode:
        for first, last, master, _ in self.slots():
            if first <= slot <= last:
                return self.by_address(master)
        raise HarnessError(f"no master serves slot {slot}")

    def roles(self) -> dict[str, str]:
        """node name -> master/slave (``ROLE``), or down."""
        out = {}
        for n in self.nodes:
            try:
                role = n.command("ROLE")
                out[n.name] = str(role[0]) if isinstance(role, list) else "?"  # type: ignore[index]
            except Exception:  # noqa: BLE001
                out[n.name] = "down"
        return out

    def full(self) -> bool:
        """Six live nodes, three masters each with a replica whose link is up, cluster ok."""
        if len(self.live()) != len(self.nodes) or not self.ok():
            return False
        slots = self.slots()
        if len(slots) < 3 or any(not replicas for *_, replicas in slots):
            return False
        for n in self.nodes:
            info = n.info("replication")
            if info.get("role") == "slave" and info.get("master_link_status") != "up":
                return False
        return True

    def version(self) -> str:
        return self.nodes[0].info("server").get("redis_version", "?")

    def stop(self) -> None:
        for n in self.nodes:
            n.stop()

    def remove(self) -> None:
        for n in self.nodes:
            n.remove()


# --------------------------------------------------------------------------- the API replicas


class Replica(Service):
    """``yamen serve --workers 2`` on its own address (:class:`tests.processes.Service`), with the
    topology's environment."""

    def __init__(self, run: RunDir, name: str, address: str, env: dict[str, str]) -> None:
        super().__init__(run, name, env, workers=API_WORKERS, address=address)


# --------------------------------------------------------------------------- HAProxy

DEPLOY_HAPROXY = REPO / "deploy" / "haproxy" / "haproxy.cfg"


def haproxy_config(
    template: str,
    *,
    bind: str,
    stats_bind: str,
    socket_path: pathlib.Path,
    servers: list[tuple[str, str]],
) -> tuple[str, str]:
    """The deployment's HAProxy configuration, made to run here; (config, backend name).

    What changes, and nothing else: the runtime socket is a Unix socket in the run dir; the
    ``resolvers`` section and the servers' DNS options go (the replicas are addresses, not names);
    the frontends bind the proxy's loopback address; the backend's servers are the replicas; every
    answer a replica gave names it in ``X-Yamen-Replica`` (which replica served a read); and only
    abnormal requests are logged (errors, retries, redispatches, 5xx), not every one."""
    # (comments right above a section, the section's header, its body)
    sections: list[tuple[list[str], str, list[str]]] = []
    pending: list[str] = []  # comment and blank lines not yet known to belong to a section's body
    for line in template.splitlines():
        if line and not line[0].isspace() and not line.startswith("#"):
            sections.append(([c for c in pending if c.strip()], line.strip(), []))
            pending = []
        elif not line.strip() or line.lstrip().startswith("#"):
            pending.append(line)
        elif sections:
            sections[-1][2].extend([*pending, line])
            pending = []
    backend = None
    for _, head, _ in sections:
        if head.startswith("backend "):
            backend = backend or head.split()[1]
    main_frontend = None
    for _, head, body in sections:
        if head.startswith("frontend ") and any(b.split()[:1] == ["default_backend"] for b in body):
            main_frontend = head
            backend = next(b.split()[1] for b in body if b.split()[:1] == ["default_backend"])
            break
    if backend is None or main_frontend is None:
        raise HarnessError("deploy/haproxy/haproxy.cfg has no frontend with a default_backend")
    out: list[str] = [f"# derived from {DEPLOY_HAPROXY.relative_to(REPO)} by tests/topology/hosts.py"]
    for comments, head, body in sections:
        kind = head.split()[0]
        if kind == "resolvers":
            continue
        lines = [*comments, head]
        for line in body:
            words = line.split()
            if not words or words[0].startswith("#"):
                lines.append(line)
                continue
            if kind == "global" and words[:2] == ["stats", "socket"]:
                lines.append(f"    stats socket {socket_path} mode 600 level admin")
            elif kind == "frontend" and words[0] == "bind":
                lines.append(f"    bind {bind if head == main_frontend else stats_bind}")
            elif kind == "backend" and words[0] == "server":
                continue  # replaced below
            elif kind == "backend" and words[0] == "default-server":
                kept: list[str] = []
                skip = 0
                for w in words:
                    if skip:
                        skip -= 1
                    elif w in ("resolvers", "init-addr", "resolve-prefer", "resolve-net"):
                        skip = 1
                    else:
                        kept.append(w)
                lines.append("    " + " ".join(kept))
            else:
                lines.append(line)
        while lines and not lines[-1].strip():
            lines.pop()
        if kind == "defaults":
            lines += ["    # topology suite: log only abnormal requests", "    option dontlog-normal"]
        if head == f"backend {backend}":
            lines += [
                "    # topology suite: name the replica that answered; the replicas' addresses",
                f"    http-response set-header {REPLICA_HEADER} %s",
                *(f"    server {name} {where}" for name, where in servers),
            ]
        out += [*lines, ""]
    return "\n".join(out), backend


def haproxy_features(config: str) -> dict[str, bool]:
    """The promises the topology relies on, each found in the configuration (or not)."""
    retry_on = re.search(r"^\s*retry-on\s+(.*)$", config, re.M)
    words = set(retry_on.group(1).split()) if retry_on else set()
    error_503 = re.search(r"^\s*http-error\s+status\s+503\b(.*)$", config, re.M)
    return {
        "option httpchk GET /readyz": bool(
            re.search(r"^\s*option\s+httpchk\s+GET\s+/readyz\b", config, re.M)
        ),
        "option redispatch": bool(re.search(r"^\s*option\s+redispatch\b", config, re.M)),
        "retries": bool(re.search(r"^\s*retries\s+[1-9]", config, re.M)),
        "retry-on conn-failure empty-response response-timeout": {
            "conn-failure",
            "empty-response",
            "response-timeout",
        }
        <= words,
        "503 as application/problem+json with Retry-After": bool(
            error_503
            and "application/problem+json" in error_503.group(1)
            and "Retry-After" in error_503.group(1)
        ),
        "runtime socket (level admin)": bool(
            re.search(r"^\s*stats\s+socket\s+\S+.*level\s+admin", config, re.M)
        ),
    }


class HAProxy(Process):
    program = "haproxy"

    def __init__(self, run: RunDir, replicas: list[Replica]) -> None:
        super().__init__(run, "haproxy", PROXY_ADDRESS, free_port(PROXY_ADDRESS))
        self.binary = binary("haproxy", "/usr/sbin/haproxy")
        self.stats_port = free_port(PROXY_ADDRESS)
        self.dir = run.root / "haproxy"
        self.dir.mkdir()
        self.socket = self.dir / "admin.sock"
        self.config_path = self.dir / "haproxy.cfg"
        if not DEPLOY_HAPROXY.is_file():
            raise HarnessError(
                f"{DEPLOY_HAPROXY} is missing: the topology runs the deployment's HAProxy config"
            )
        self.config, self.backend = haproxy_config(
            DEPLOY_HAPROXY.read_text(),
            bind=f"{self.address}:{self.port}",
            stats_bind=f"{self.address}:{self.stats_port}",
            socket_path=self.socket,
            servers=[(r.name, r.where()) for r in replicas],
        )
        self.config_path.write_text(self.config)
        check = subprocess.run(
            [self.binary, "-c", "-f", str(self.config_path)], capture_output=True, text=True, check=False
        )
        if check.returncode != 0:
            raise HarnessError(f"haproxy -c rejects {self.config_path}:\n{check.stdout}\n{check.stderr}")

    @property
    def base(self) -> str:
        return f"http://{self.address}:{self.port}"

    def start(self) -> None:
        if self.running:
            return
        self.spawn_process([self.binary, "-db", "-f", str(self.config_path)], cwd=str(self.dir))
        self.wait_ready("listen", lambda: port_open(self.address, self.port), every=0.02)

    def command(self, line: str) -> str:
        """One command on the runtime socket."""
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(2)
            s.connect(str(self.socket))
            s.sendall(line.encode() + b"\n")
            chunks = []
            while chunk := s.recv(65536):
                chunks.append(chunk)
        return b"".join(chunks).decode()

    def stats(self) -> list[dict[str, str]]:
        text = self.command("show stat").lstrip("# ")
        return list(csv.DictReader(io.StringIO(text)))

    def servers(self) -> dict[str, str]:
        """server name -> status (UP, DOWN, MAINT, UP 1/2 ...)."""
        return {
            row["svname"]: row["status"]
            for row in self.stats()
            if row["pxname"] == self.backend and row["svname"] not in ("FRONTEND", "BACKEND")
        }

    def backend_counters(self) -> dict[str, int]:
        """The backend's retries, redispatches and 5xx answers so far."""
        for row in self.stats():
            if row["pxname"] == self.backend and row["svname"] == "BACKEND":
                return {k: int(row.get(k) or 0) for k in ("wretr", "wredis", "hrsp_5xx", "econ", "eresp")}
        return {}

    def set_state(self, server: str, state: str) -> None:
        """``ready``, ``drain`` or ``maint``."""
        reply = self.command(f"set server {self.backend}/{server} state {state}").strip()
        if reply:
            raise HarnessError(f"haproxy: set server {server} state {state}: {reply}")

    def up(self) -> list[str]:
        return sorted(name for name, status in self.servers().items() if status == "UP")


# --------------------------------------------------------------------------- the whole topology


@dataclass
class Topology:
    run: RunDir
    pg: PgFormation
    redis: RedisCluster
    replicas: list[Replica] = field(default_factory=list)
    proxy: HAProxy | None = None
    database_url: str = ""
    standby_url: str = ""

    @classmethod
    def create(cls) -> Topology:
        run = RunDir("yamen-topology-")
        return cls(run, PgFormation(run), RedisCluster(run))

    def up(self) -> None:
        """Postgres (monitor, primary, synchronous standby), the Redis cluster, ``yamen migrate``
        once on the primary, the three replicas, HAProxy."""
        self.pg.create()
        self.redis.create()
        self.database_url = self.pg.uri()
        self.standby_url = self.pg.standby_uri()
        env = {
            "DATABASE_URL": self.database_url,
            "YAMEN_STANDBY_URL": self.standby_url,
            "REDIS_CLUSTER_NODES": self.redis.seeds,
            # every request reaches the replicas from HAProxy's one address: a per-address limit
            # would throttle the whole load as if it were one client
            "YAMEN_RATE_LIMIT": "off",
        }
        self.replicas = [Replica(self.run, f"api-{i + 1}", a, env) for i, a in enumerate(API_ADDRESSES)]
        self.replicas[0].migrate()  # migrate, then roll out
        for replica in self.replicas:
            replica.spawn()
        for replica in self.replicas:
            replica.wait_serving(START_TIMEOUT)
        self.proxy = HAProxy(self.run, self.replicas)
        self.proxy.start()
        wait_until("haproxy sees every replica UP", lambda: len(self.proxy.up()) == 3, START_TIMEOUT)  # type: ignore[union-attr]

    def full(self) -> bool:
        """Primary with a synchronous standby, six Redis nodes (three masters with a replica each),
        every replica UP in HAProxy."""
        return (
            self.pg.full()
            and self.redis.full()
            and self.proxy is not None
            and len(self.proxy.up()) == len(self.replicas)
        )

    def heal(self, timeout: float = 120.0) -> list[str]:
        """Start whatever is down (an earlier test that failed must not cascade into the next) and
        wait for full strength; the names of the hosts started."""
        started = []
        for host in [*self.pg.hosts(), *self.redis.nodes]:
            if not host.running:
                host.start()
                started.append(host.name)
        for replica in self.replicas:
            if not replica.running:
                replica.spawn()
                replica.wait_serving(START_TIMEOUT)
                started.append(replica.name)
        if self.proxy is not None:
            if not self.proxy.running:
                self.proxy.start()
                started.append(self.proxy.name)
            for replica in self.replicas:
                self.proxy.set_state(replica.name, "ready")
        self.pg.wait_full(timeout)
        wait_until("the topology at full strength", self.full, timeout, every=0.25)
        return started

    def replica(self, name: str) -> Replica:
        return next(r for r in self.replicas if r.name == name)

    def describe(self) -> str:
        """What runs where."""
        lines = ["host                 address:port          role"]
        states = {}
        with contextlib.suppress(Exception):
            states = self.pg.states()
        for node in self.pg.hosts():
            role = "pg_auto_failover monitor"
            if node.name in states:
                s = states[node.name]
                role = f"Postgres {s.reported} (assigned {s.assigned})"
            lines.append(f"{node.name:<20} {node.where():<21} {role}, pgid {node.pgid}")
        roles = self.redis.roles()
        for node in self.redis.nodes:
            lines.append(
                f"{node.name:<20} {node.where():<21} Redis cluster {roles.get(node.name)}, pgid {node.pgid}"
            )
        statuses = self.proxy.servers() if self.proxy else {}
        for r in self.replicas:
            lines.append(
                f"{r.name:<20} {r.where():<21} yamen serve --workers {r.workers} "
                f"(HAProxy: {statuses.get(r.name, '?')}), pgid {r.proc.pid if r.proc else None}"
            )
        if self.proxy:
            lines.append(
                f"{'haproxy':<20} {self.proxy.where():<21} HAProxy {self.proxy.backend} "
                f"(stats {self.proxy.address}:{self.proxy.stats_port}, socket {self.proxy.socket}), "
                f"pgid {self.proxy.pgid}"
            )
        lines.append(f"DATABASE_URL={self.database_url}")
        lines.append(f"YAMEN_STANDBY_URL={self.standby_url}")
        lines.append(f"REDIS_CLUSTER_NODES={self.redis.seeds}")
        lines.append(f"logs: {self.run.logs}")
        return "\n".join(lines)

    def hosts(self) -> list[Process]:
        return [*self.pg.hosts(), *self.redis.nodes, *self.replicas, *([self.proxy] if self.proxy else [])]

    def down(self) -> None:
        """Stop everything (each by its process group), replicas first; remove the data dirs."""
        errors = []
        for stop in (
            *(r.stop for r in self.replicas),
            *([self.proxy.stop] if self.proxy else []),
            self.redis.stop,
            self.pg.stop,
        ):
            try:
                stop()
            except Exception as exc:  # noqa: BLE001 - stop the rest, report at the end
                errors.append(f"{stop}: {exc}")
        self.redis.remove()
        self.pg.remove()
        if errors:
            raise HarnessError("teardown: " + "; ".join(errors))
