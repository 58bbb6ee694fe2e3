"""domain/ is pure: it imports only the standard library and msgspec, and nothing that does I/O,
reads a clock or draws global randomness."""

import ast
import pathlib
import sys

DOMAIN = pathlib.Path(__file__).resolve().parents[2] / "domain"
FORBIDDEN_STDLIB = {"random", "time", "datetime", "uuid", "logging", "asyncio", "socket", "os", "subprocess", "threading", "secrets"}


def test_domain_imports_only_stdlib_and_msgspec():
    offenders = []
    for path in DOMAIN.rglob("*.py"):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    continue
                names = [node.module or ""]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                allowed = top in ("msgspec", "domain") or (top in sys.stdlib_module_names and top not in FORBIDDEN_STDLIB)
                if not allowed:
                    offenders.append(f"{path.relative_to(DOMAIN.parent)}:{node.lineno} imports {name}")
    assert offenders == []
