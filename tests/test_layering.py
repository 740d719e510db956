"""The arrows between folders run one way, as each package's docstring says.

Every package that is a room of the house (``sql``, ``models``, ``assets``, the concerns under
``pipelines/`` and the Dagster wiring in ``pipelines/`` itself) says in its ``__init__``
docstring, on a line ``May import: ...``, which other rooms and which Dagster packages its
modules may import. This test walks every import in the tree (the AST, so imports inside
functions count too) and fails on an import the importing room does not allow, on any import
of ``benchmarks`` or ``tests`` from product code, on modules that import each other (a cycle
of any length), and on an import of Dagster's private modules (``dagster._core``).
``docs/architecture.md`` lists the same rooms with the same rules, and every ``module.name``
it cites must exist.
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

from sql.paths import REPOSITORY_ROOT

PRODUCT = ("plumbline", "sql", "models", "assets", "pipelines")
DAGSTER = ("dagster", "dagster_pipes", "dagster_k8s", "dagster_dg_cli")
ARCHITECTURE = REPOSITORY_ROOT / "docs" / "architecture.md"
NAME = re.compile(r"\b(?:sql|models|assets|pipelines|dagster\w*)(?:\.\w+)*\b")


def module_name(path: Path) -> str:
    parts = path.relative_to(REPOSITORY_ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules(top: str) -> dict[str, Path]:
    return {module_name(p): p for p in sorted((REPOSITORY_ROOT / top).rglob("*.py"))}


PRODUCT_MODULES = {name: path for top in PRODUCT for name, path in modules(top).items()}


def imports(name: str, path: Path) -> set[str]:
    """Every module ``name`` imports, by absolute name (``from a import b`` counts as ``a.b``
    when ``a.b`` is a module of the tree, else as ``a``)."""
    found: set[str] = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            for alias in node.names:
                full = f"{base}.{alias.name}"
                found.add(full if full in PRODUCT_MODULES else base)
    return found


def rooms() -> dict[str, set[str]]:
    """Room (a package) -> what its docstring allows it to import."""
    allowed: dict[str, set[str]] = {}
    for name, path in PRODUCT_MODULES.items():
        if path.name != "__init__.py":
            continue
        doc = ast.get_docstring(ast.parse(path.read_text())) or ""
        match = re.search(r"^May import:(.*?)(?:\n\n|\Z)", doc, re.M | re.S)
        if match:
            said = match.group(1)
            allowed[name] = set() if said.strip().startswith("nothing") else set(NAME.findall(said))
    return allowed


ROOMS = rooms()


def room_of(module: str) -> str | None:
    candidates = [r for r in ROOMS if module == r or module.startswith(r + ".")]
    return max(candidates, key=len) if candidates else None


def within(module: str, allowed: set[str]) -> bool:
    return any(module == a or module.startswith(a + ".") for a in allowed)


def test_every_product_package_is_a_room_or_inside_one():
    unplaced = sorted(
        name
        for name, path in PRODUCT_MODULES.items()
        if path.name == "__init__.py"
        and name not in ROOMS
        and room_of(name) in (None, "pipelines")
        and name != "pipelines"
    )
    assert ROOMS.keys() >= {"sql", "models", "assets", "pipelines"}
    assert not unplaced, f"packages whose __init__ docstring has no 'May import:' line: {unplaced}"


@pytest.mark.parametrize("module", sorted(PRODUCT_MODULES))
def test_imports_follow_the_rooms_rules(module):
    room = room_of(module)
    assert room is not None, f"{module} is in no room"
    wrong = []
    for target in sorted(imports(module, PRODUCT_MODULES[module])):
        top = target.split(".")[0]
        if top in ("benchmarks", "tests"):
            wrong.append(f"{target} (product code never imports {top}/)")
        elif top in DAGSTER:
            if not within(target, ROOMS[room]):
                wrong.append(f"{target} ({room} may not import Dagster)")
        elif top in PRODUCT:
            target_room = room_of(target)
            if target_room != room and not within(target, ROOMS[room]):
                wrong.append(
                    f"{target} ({room} may import only {sorted(ROOMS[room]) or 'nothing'})"
                )
    assert not wrong, f"{module} imports " + "; ".join(wrong)


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle per strongly connected component of more than one module (Tarjan's
    algorithm), each as the path ``a -> b -> ... -> a``: modules that import each other
    through any number of others, not only in pairs."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(component)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(_cycle_through(graph, component) for component in components)


def _cycle_through(graph: dict[str, set[str]], component: set[str]) -> list[str]:
    """The shortest cycle from the component's first module back to it, by breadth first."""
    start = min(component)
    paths = {start: [start]}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for target in sorted(graph.get(node, set()) & component):
            if target == start:
                return [*paths[node], start]
            if target not in paths:
                paths[target] = [*paths[node], target]
                queue.append(target)
    raise AssertionError(f"no cycle through {start} in {sorted(component)}")


@pytest.mark.parametrize(
    ("graph", "cycles"),
    [
        ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
        ({"a": {"b"}, "b": {"a"}}, [["a", "b", "a"]]),
        # The pairs-only search missed these: no two of the modules import each other.
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}}, [["a", "b", "c", "a"]]),
        ({"a": {"b"}, "b": {"c"}, "c": {"d"}, "d": {"b"}, "e": {"a"}}, [["b", "c", "d", "b"]]),
        (
            {"a": {"b"}, "b": {"a"}, "c": {"d"}, "d": {"e"}, "e": {"c"}},
            [["a", "b", "a"], ["c", "d", "e", "c"]],
        ),
    ],
)
def test_import_cycles_finds_cycles_of_any_length(graph, cycles):
    assert import_cycles(graph) == cycles


def test_no_modules_import_each_other_through_any_cycle():
    graph = {m: imports(m, p) & PRODUCT_MODULES.keys() - {m} for m, p in PRODUCT_MODULES.items()}
    cycles = import_cycles(graph)
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


def test_no_product_module_imports_dagster_internals():
    # dagster._core, dagster._utils...: no API promise, and they move between releases.
    private = sorted(
        f"{name} imports {target}"
        for name, path in PRODUCT_MODULES.items()
        for target in imports(name, path)
        if target.split(".")[0] in DAGSTER and any(p.startswith("_") for p in target.split("."))
    )
    assert not private, "; ".join(private)


def test_the_architecture_document_lists_every_room_with_its_rules():
    text = ARCHITECTURE.read_text()
    for room, allowed in sorted(ROOMS.items()):
        folder = room.replace(".", "/") + "/"
        rows = [line for line in text.splitlines() if line.startswith(f"| `{folder}`")]
        assert rows, f"docs/architecture.md has no row for {folder}"
        said = rows[0].rsplit("|", 2)[-2]
        documented = set() if said.strip().startswith("nothing") else set(NAME.findall(said))
        assert documented == allowed, (
            f"{folder}: the document says {documented}, the package {allowed}"
        )


def test_every_name_the_architecture_document_cites_exists():
    cited = set(
        re.findall(
            r"`((?:plumbline|sql|models|assets|pipelines)\.[\w.]+)`", ARCHITECTURE.read_text()
        )
    )
    assert len(cited) > 20
    missing = []
    for name in sorted(cited):
        parts = name.split(".")
        for split in range(len(parts), 0, -1):
            try:
                found = importlib.import_module(".".join(parts[:split]))
            except ModuleNotFoundError:
                continue
            for attribute in parts[split:]:
                found = getattr(found, attribute, None)
            if found is None:
                missing.append(name)
            break
        else:
            missing.append(name)
    assert not missing, f"docs/architecture.md cites names that do not exist: {missing}"


def test_in_models_only_the_training_process_speaks_dagster_pipes():
    # models/ may import dagster_pipes (its docstring) for one reason: models.train is the
    # process a Pipes client starts. The rest of models/ stays pure torch.
    speakers = sorted(
        name
        for name, path in PRODUCT_MODULES.items()
        if room_of(name) == "models"
        and any(target.split(".")[0] == "dagster_pipes" for target in imports(name, path))
    )
    assert speakers == ["models.train"]
