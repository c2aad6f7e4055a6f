"""Check envkit's import graph and size limits.

Fails (exit 1) on:
- an import cycle between envkit modules (imports inside functions count; `if TYPE_CHECKING:` blocks
  do not, since they never run);
- an upward import against the layers contract in pyproject.toml's [tool.importlinter] (read from
  there, so the layer order has one source of truth);
- a module over 500 lines or a function over 60 lines, except the files listed in PENDING_SIZE, which
  are reported but do not fail yet.

Usage: python scripts/import_graph.py [--root DIR]
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 60

# Files still over a size limit: reported, not yet failing.  An entry whose file is within the limits
# fails (the list only shrinks).
PENDING_SIZE: frozenset[str] = frozenset()


def module_files(root: Path, package: str) -> dict[str, Path]:
    """Map each dotted module name under `package` to its file."""
    mods: dict[str, Path] = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        mods[".".join(parts)] = path
    return mods


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_nodes(node: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import under `node`, skipping the body (not the else) of `if TYPE_CHECKING:`."""
    found: list[ast.Import | ast.ImportFrom] = []
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and _is_type_checking(child.test):
            for sub in child.orelse:
                found.extend(_import_nodes_of(sub))
            continue
        found.extend(_import_nodes_of(child))
    return found


def _import_nodes_of(node: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    if isinstance(node, ast.Import | ast.ImportFrom):
        return [node]
    return _import_nodes(node)


def _resolve(name: str, mods: dict[str, Path]) -> str | None:
    """The longest known module that `name` names (an attribute import lands on its module)."""
    while name:
        if name in mods:
            return name
        name = name.rpartition(".")[0]
    return None


def imports_of(mod: str, path: Path, mods: dict[str, Path]) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    is_pkg = path.name == "__init__.py"
    targets: set[str] = set()
    for node in _import_nodes(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            if node.level:
                base = mod.split(".")
                base = base if is_pkg else base[:-1]
                base = base[: len(base) - (node.level - 1)]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            names = [f"{prefix}.{alias.name}" for alias in node.names]
        for name in names:
            target = _resolve(name, mods)
            if target is not None and target != mod:
                targets.add(target)
    return targets


def read_layers(pyproject: Path) -> list[list[str]]:
    """Layers of the first `layers` contract, top first; each layer is a list of module prefixes."""
    config = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    for contract in config["tool"]["importlinter"]["contracts"]:
        if contract["type"] == "layers":
            return [[m.strip() for m in layer.replace("|", ":").split(":")] for layer in contract["layers"]]
    raise SystemExit(f"{pyproject}: no layers contract under [tool.importlinter]")


def layer_of(mod: str, layers: list[list[str]]) -> int | None:
    for index, layer in enumerate(layers):
        for prefix in layer:
            if mod == prefix or mod.startswith(prefix + "."):
                return index
    return None


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def size_problems(root: Path, mods: dict[str, Path]) -> list[tuple[str, str]]:
    """(file, message) for each module or function over its limit."""
    problems: list[tuple[str, str]] = []
    for path in sorted(mods.values()):
        rel = path.relative_to(root).as_posix()
        text = path.read_text(encoding="utf-8")
        lines = len(text.splitlines())
        if lines > MAX_MODULE_LINES:
            problems.append((rel, f"{rel}: {lines} lines (limit {MAX_MODULE_LINES})"))
        for node in ast.walk(ast.parse(text, rel)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.end_lineno is not None:
                length = node.end_lineno - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    msg = f"{rel}:{node.lineno}: {node.name} is {length} lines (limit {MAX_FUNCTION_LINES})"
                    problems.append((rel, msg))
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    args = parser.parse_args(argv)
    root: Path = args.root
    mods = module_files(root, "envkit")
    graph = {mod: imports_of(mod, path, mods) for mod, path in mods.items()}
    layers = read_layers(root / "pyproject.toml")

    failures = 0
    circles = cycles(graph)
    for component in circles:
        print("cycle: " + " <-> ".join(component))
    upward = []
    for mod in sorted(graph):
        mine = layer_of(mod, layers)
        for target in sorted(graph[mod]):
            theirs = layer_of(target, layers)
            if mine is not None and theirs is not None and theirs < mine:
                upward.append(f"upward import: {mod} -> {target}")
    for line in upward:
        print(line)
    failures += len(circles) + len(upward)

    pending: list[str] = []
    over: set[str] = set()
    for rel, msg in size_problems(root, mods):
        over.add(rel)
        if rel in PENDING_SIZE:
            pending.append(msg)
        else:
            print("size: " + msg)
            failures += 1
    for rel in sorted(r for r in PENDING_SIZE - over if (root / r).exists()):
        print(f"size: {rel} is within the limits: take it off PENDING_SIZE")
        failures += 1
    for msg in pending:
        print("size (pending, not failing): " + msg)
    print(f"{len(circles)} cycles, {len(upward)} upward imports, {len(pending)} pending size items")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
