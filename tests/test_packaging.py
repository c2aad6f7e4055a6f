"""pyproject.toml lists every envkit subpackage (the list is explicit; see the comment there)."""
import tomllib

from conftest import REPO


def test_every_subpackage_is_listed_in_pyproject():
    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {"envkit"} | {
        "envkit." + ".".join(p.parent.relative_to(REPO / "envkit").parts)
        for p in (REPO / "envkit").rglob("__init__.py") if p.parent != REPO / "envkit"
    }
    assert found - listed == set()
    # data folders shipped as packages (no __init__.py): the name map and the template matrix
    assert listed - found == {"envkit.data", "envkit._templates", "envkit._templates.pytorch"}
