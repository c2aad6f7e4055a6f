"""Layer rules beside the import-linter contracts (pyproject.toml, run by `make lint`), checked on
the source with the standard library: every module has a layer, no module imports envkit.cli,
subprocesses start only in envkit._proc, and envkit.config does not import the checks it configures."""

import ast
import re
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from conftest import REPO

PACKAGE = REPO / "envkit"

# programs that run somewhere else (the target environment, a remote host over ssh) with the
# standard library alone, so they cannot use envkit._proc
# (the smoke probe is a folder the runner copies whole)
REMOTE_PROGRAMS = {"smoke/probe/host.py", "smoke/probe/distributed.py", "machine/probe.py"}


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{a.name}" for a in node.names)
    return names


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path.relative_to(PACKAGE).as_posix(), path


def test_nothing_imports_the_cli():
    importers = {
        rel
        for rel, path in _modules()
        if rel not in ("cli.py", "__main__.py") and "envkit.cli" in _imports(path)
    }
    assert importers == set()


def test_subprocesses_start_only_in_proc():
    users = {rel for rel, path in _modules() if {"subprocess", "os.system"} & _imports(path)}
    assert users == {"_proc.py"} | REMOTE_PROGRAMS


def test_config_takes_rule_names_from_the_registry_alone():
    # the names a config may select live with their rules; config asks the registry, never a rule
    checks = {
        n for n in _imports(PACKAGE / "config.py") if n.startswith("envkit.checks.") and n.count(".") == 2
    }
    assert checks == {"envkit.checks.registry", "envkit.checks.core"}


def test_rule_modules_do_not_register_themselves():
    # the registry imports the rule modules; none of them imports the registry or the engine back
    for rel, path in _modules():
        if rel.startswith("checks/rules_") or rel in ("checks/core.py", "checks/fix.py"):
            assert not {"envkit.checks.registry", "envkit.checks.engine"} & _imports(path), rel


def test_every_module_has_one_layer():
    # a module left out of the layers contract would be free to import anything
    contracts = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["tool"]["importlinter"]
    layers = next(c for c in contracts["contracts"] if c["type"] == "layers")["layers"]
    named = [n.removeprefix("envkit.") for layer in layers for n in re.split(r"\s*[:|]\s*", layer)]
    tops = {p.stem for p in PACKAGE.glob("*.py")} | {p.parent.name for p in PACKAGE.glob("*/__init__.py")}
    assert sorted(named) == sorted(tops - {"__init__", "__main__"})
