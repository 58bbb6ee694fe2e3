"""domain/ is pure: it imports only the standard library and msgspec, and nothing that does I/O,
reads a clock or draws global randomness."""

import ast
import pathlib
import sys

DOMAIN = pathlib.Path(__file__).resolve().parents[2] / "domain"
FORBIDDEN_STDLIB = {
    "random",
    "time",
    "datetime",
    "uuid",
    "logging",
    "asyncio",
    "socket",
    "os",
    "subprocess",
    "threading",
    "secrets",
}


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
                allowed = top in ("msgspec", "domain") or (
                    top in sys.stdlib_module_names and top not in FORBIDDEN_STDLIB
                )
                if not allowed:
                    offenders.append(f"{path.relative_to(DOMAIN.parent)}:{node.lineno} imports {name}")
    assert offenders == []


def _domain_modules() -> dict[str, ast.Module]:
    modules = {}
    for path in DOMAIN.rglob("*.py"):
        parts = path.relative_to(DOMAIN.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name] = ast.parse(path.read_text(), str(path))
    return modules


def _imported(name: str, tree: ast.Module, modules: dict[str, ast.Module], is_package: bool) -> set[str]:
    """The domain modules *name* imports, wherever the import statement sits (a function-local
    import hides a cycle; it does not break it)."""
    package = name if is_package else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        found |= {t for t in targets if t in modules and t != name}
    return found


def test_no_star_imports_and_no_import_cycles_in_the_domain():
    modules = _domain_modules()
    stars = [
        f"{name}:{node.lineno}"
        for name, tree in modules.items()
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names)
    ]
    assert stars == [], "star imports hide where a name comes from"
    packages = {
        p.parent.relative_to(DOMAIN.parent).as_posix().replace("/", ".") for p in DOMAIN.rglob("__init__.py")
    }
    graph = {name: _imported(name, tree, modules, name in packages) for name, tree in modules.items()}
    # A package's __init__ gathers its modules (the Game value); it is not part of a cycle among them.
    graph = {name: {t for t in targets if t not in packages} for name, targets in graph.items()}
    state: dict[str, int] = {}

    def visit(name: str, path: list[str]) -> None:
        state[name] = 1
        for target in sorted(graph[name]):
            if state.get(target) == 1:
                cycle = [*path[path.index(target) :], target] if target in path else [name, target]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if target not in state:
                visit(target, [*path, target])
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
