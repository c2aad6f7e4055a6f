"""pyproject.toml lists every envkit subpackage (the list is explicit; see the comment there)."""

import subprocess
import sys

import pytest
import tomllib
from conftest import DATA, REPO


def test_every_subpackage_is_listed_in_pyproject():
    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {"envkit"} | {
        "envkit." + ".".join(p.parent.relative_to(REPO / "envkit").parts)
        for p in (REPO / "envkit").rglob("__init__.py")
        if p.parent != REPO / "envkit"
    }
    assert found - listed == set()
    # data folders shipped as packages (no __init__.py): the name map and the template matrix
    assert listed - found == {"envkit.data", "envkit._templates", "envkit._templates.pytorch"}


# --- the public Python API (envkit/__init__.py) -----------------------------------------------

API = [
    "read_file",
    "read_text",
    "write_text",
    "detect_format",
    "normalize",
    "normalize_text",
    "diff",
    "run_checks",
    "load_targets",
    "Config",
    "open_env",
    "lock_live",
    "solve_spec",
    "check_lock",
    "create_from_lock",
    "EnvSpec",
    "Lock",
    "LiveEnv",
    "EnvkitError",
    "ParseError",
]


def _run(code: str) -> str:
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=str(REPO))
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_public_api_is_listed_and_every_name_resolves():
    import envkit

    assert set(API) <= set(envkit.__all__)
    for name in envkit.__all__:
        assert getattr(envkit, name) is not None, name
        assert name in dir(envkit)
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        _ = envkit.nope


def test_importing_envkit_loads_nothing_heavy():
    out = _run(
        "import sys, envkit\n"
        "print(sorted(m for m in ('yaml', 'rattler', 'click', 'envkit.formats', 'envkit.envdiff', "
        "'envkit.formats.canonical') "
        "if m in sys.modules))"
    )
    assert out == "[]\n"


@pytest.mark.parametrize(
    "first",
    [
        "",
        "import envkit.envdiff, envkit.formats.canonical\n",
        "from envkit.envdiff import EnvDiff\nfrom envkit.formats.canonical import normalize_text\n",
    ],
)
def test_diff_and_normalize_are_callable_whatever_was_imported_first(first):
    # the cores live in envkit.envdiff / envkit.formats.canonical: importing them (as the CLI does) leaves
    # envkit.diff and envkit.normalize the plain functions
    out = _run(
        first + "import envkit\n"
        "a = envkit.read_file('examples/laptop-vs-server/laptop.yml')\n"
        "b = envkit.read_file('examples/laptop-vs-server/server.yml')\n"
        "d = envkit.diff(a, b)\n"
        "from envkit import diff, normalize\n"
        "print(type(d).__name__, diff(a, b) == d, envkit.EnvDiff is type(d))\n"
        "n = normalize(b)\n"
        "print(n.prefix, n == envkit.normalize_spec(b), normalize(n) == n)\n"
    )
    assert out == "EnvDiff True True\nNone True True\n"


def test_normalize_takes_a_spec_or_a_lock():
    import envkit

    lock = envkit.read_file(DATA / "corpus" / "51_Cecca__repro-course-ci__conda-lock.yml")
    assert envkit.normalize(lock) == envkit.normalize_lock(lock)
    assert envkit.write_text(envkit.normalize(lock), "conda-lock") == envkit.write_text(lock, "conda-lock")
    with pytest.raises(TypeError, match="takes an EnvSpec or a Lock, not str"):
        envkit.normalize("name: x\n")


def test_the_host_platform_is_one_answer():
    """envkit's one host platform (stdlib, in the standalone prefix_scan.py script) is py-rattler's answer."""
    import rattler

    from envkit.backends.prefix_scan import host_platform

    assert host_platform() == str(rattler.Subdir.current())


@pytest.mark.parametrize(
    ("system", "machine", "subdir"),
    [
        ("Linux", "x86_64", "linux-64"),
        ("Linux", "i386", "linux-32"),
        ("Linux", "aarch64", "linux-aarch64"),
        ("Linux", "ppc64le", "linux-ppc64le"),
        ("Darwin", "arm64", "osx-arm64"),
        ("Darwin", "aarch64", "osx-arm64"),
        ("Darwin", "x86_64", "osx-64"),
        ("Windows", "AMD64", "win-64"),
        ("Windows", "x86", "win-32"),
        ("Windows", "ARM64", "win-arm64"),
    ],
)
def test_a_machine_profile_names_its_platform_as_the_host_platform_does(system, machine, subdir):
    """A profile read from another machine's facts (`envkit machine ssh://...`) takes its platform
    from the same function as this host: a conda subdir py-rattler knows."""
    import rattler

    from envkit.backends.prefix_scan import host_platform
    from envkit.machine.detect import profile_from_facts

    profile = profile_from_facts({"system": {"system": system, "machine": machine}})
    assert (host_platform(system, machine), profile.platform) == (subdir, subdir)
    assert subdir in {str(p) for p in rattler.Subdir.all()}
