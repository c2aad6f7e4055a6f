"""The public Python API (`import envkit`): its static types (mypy --strict, `make lint`) say what
each argument is; at run time it answers what no type can say with TypeError (one path where a list
belongs, a model of the wrong kind, naming what it wanted and what it got) or an EnvkitError (a bad
value) — never a silent success."""

from __future__ import annotations

import pytest
from conftest import CORPUS, REPO

import envkit
from envkit.config import ConfigError

# --- Config ----------------------------------------------------------------------------------


def test_config_normal_use_normalizes_lists_and_channel_names():
    cfg = envkit.Config(
        select=["unpinned", "leaked-secret"],
        ignore=["fuzzy-pin"],
        severity={"unpinned": "error"},
        fail_on="warning",
        allowed_channels=["https://conda.anaconda.org/conda-forge/", "nodefaults"],
        pypi_names={"My-Tool": ["my_tool"]},
    )
    assert cfg.select == ("unpinned", "leaked-secret") and cfg.ignore == ("fuzzy-pin",)
    assert cfg.allowed_channels == ("conda-forge", "nodefaults")
    assert cfg.pypi_names == {"my-tool": ("my_tool",)}
    assert cfg.merged(ignore=("unpinned",)).is_selected("unpinned") is False
    assert envkit.Config() == envkit.Config(select=None, ignore=(), severity={})


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(fail_on="bogus"), "fail-on must be one of error, warning, info, not 'bogus'"),
        (dict(select=["no-such-rule"]), "unknown rule 'no-such-rule' in select"),
        (dict(ignore=("nope",)), "unknown rule 'nope' in ignore"),
        (dict(severity={"nope": "error"}), "unknown rule 'nope' in severity"),
        (
            dict(severity={"unpinned": "fatal"}),
            "severity of unpinned must be one of error, warning, info, not 'fatal'",
        ),
        (dict(select=()), "select is empty, so no rule would run"),
        (dict(allowed_channels=[" "]), "allowed-channels holds an empty channel name"),
    ],
)
def test_config_bad_values_are_config_errors(kwargs, message):
    with pytest.raises(ConfigError) as exc:
        envkit.Config(**kwargs)
    assert str(exc.value) == message
    assert isinstance(exc.value, envkit.EnvkitError)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (
            dict(select="unpinned"),
            "Config select must be a tuple or list of rule names, not str "
            "(one name goes in a tuple: ('unpinned',))",
        ),
        (dict(ignore=[1]), "Config ignore must hold rule names (str), not int"),
        (dict(fail_on=1), "Config fail_on must be a str or None, not int"),
        (dict(severity=["unpinned"]), "Config severity must be a dict of rule name -> severity, not list"),
        (
            dict(allowed_channels="conda-forge"),
            "Config allowed_channels must be a tuple or list of channel names, "
            "not str (one name goes in a tuple: ('conda-forge',))",
        ),
        (
            dict(pypi_names={"x": "y"}),
            "Config pypi_names['x'] must be a tuple or list of PyPI names, not str "
            "(one name goes in a tuple: ('y',))",
        ),
        (dict(source=3), "Config source must be a str or None, not int"),
    ],
)
def test_config_wrong_types_are_type_errors(kwargs, message):
    with pytest.raises(TypeError) as exc:
        envkit.Config(**kwargs)
    assert str(exc.value) == message


# --- formats -----------------------------------------------------------------------------------

CONDA_LOCK = CORPUS / "51_Cecca__repro-course-ci__conda-lock.yml"
EXPORT = "name: e\ndependencies:\n  - python=3.11.4=h0_0\n  - pkk=1!1.0=h1_0\n"


def test_write_text_normal_use():
    spec = envkit.read_text("name: x\ndependencies:\n  - numpy\n  - python=3.11\n", filename="x.yml")
    assert envkit.write_text(spec, "env") == "name: x\ndependencies:\n  - numpy\n  - python=3.11\n"
    assert envkit.write_text(spec, "env", header="made by a test") == (
        "# made by a test\nname: x\ndependencies:\n  - numpy\n  - python=3.11\n"
    )
    export = envkit.read_text(EXPORT, filename="e.yml")
    assert envkit.write_text(export, "conda-list-export", platform="linux-64") == (
        "# This file may be used to create an environment using:\n"
        "# $ conda create --name <env> --file <this file>\n"
        "# platform: linux-64\npython=3.11.4=h0_0\npkk=1!1.0=h1_0\n"
    )
    lock = envkit.read_file(CONDA_LOCK)
    text = envkit.write_text(lock, "env", platform="osx-arm64")
    assert (
        text.startswith("channels:\n  - conda-forge\ndependencies:\n")
        and "  - pip:\n    - pyattimo==0.6.0\n" in text
    )


@pytest.mark.parametrize(
    "call, error, message",
    [
        (
            lambda s, lk: envkit.write_text("x", "env"),
            TypeError,
            "write_text() argument 'model' must be EnvSpec or Lock, not str",
        ),
        (
            lambda s, lk: envkit.write_text(s, 1),
            TypeError,
            "write_text() argument 'format' must be str, not int",
        ),
        (
            lambda s, lk: envkit.write_text(s, "yaml"),
            envkit.UsageError,
            "unknown format 'yaml'; choose one of: env, explicit, conda-lock, pixi, requirements, "
            "conda-list-json, "
            "conda-list-export, pylock, uv-lock, conda-requirements, pixi-manifest, pyproject",
        ),
        (
            lambda s, lk: envkit.write_text(s, "requirements", platform="linux-64"),
            TypeError,
            "write_text() got an unexpected keyword argument 'platform' for format 'requirements' (it takes: "
            "header, "
            "comments)",
        ),
        (
            lambda s, lk: envkit.write_text(s, "env", header=3),
            TypeError,
            "write_text() argument 'header' must be str or None, not int",
        ),
        (
            lambda s, lk: envkit.write_text(s, "env", comments={}),
            TypeError,
            "write_text() argument 'comments' must be CommentMap or None, not dict",
        ),
        (
            lambda s, lk: envkit.write_text(s, "env", platform="linux-64"),
            envkit.UsageError,
            "platform= picks a platform of a lock; an EnvSpec is written as env as it is",
        ),
        (
            lambda s, lk: envkit.write_text(lk, "conda-lock", platform="linux-64"),
            envkit.UsageError,
            "platform= does not apply to a Lock written as conda-lock: conda-lock.yml holds every platform "
            "of the lock",
        ),
        (
            lambda s, lk: envkit.write_text(s, "explicit"),
            envkit.UsageError,
            "only an exported environment (name=version=build) can be written as explicit",
        ),
    ],
)
def test_write_text_misuse(call, error, message):
    spec = envkit.read_text("name: x\ndependencies:\n  - numpy\n", filename="x.yml")
    with pytest.raises(error) as exc:
        call(spec, envkit.read_file(CONDA_LOCK))
    assert str(exc.value) == message


def test_write_text_an_export_as_conda_lock_with_its_platform():
    # the platform is the one the export is locked for (write_conda_lock itself takes none), and
    # conda-lock's need for URLs is reported
    export = envkit.read_text(EXPORT, filename="e.yml")
    with pytest.raises(envkit.ParseError, match="has no URL"):
        envkit.write_text(export, "conda-lock", platform="linux-64")


# --- the misuses QA found, one by one -------------------------------------------------------------

SPEC_TEXT = "name: m\nchannels:\n  - conda-forge\n  - defaults\ndependencies:\n  - python=3.11\n"


@pytest.fixture
def spec_file(tmp_path):
    path = tmp_path / "m.yml"
    path.write_text(SPEC_TEXT)
    return path


def test_check_lock_with_a_spec_as_the_lock_is_a_type_error_not_success(spec_file):
    spec = envkit.read_file(spec_file)
    with pytest.raises(TypeError) as exc:
        envkit.check_lock(spec, envkit.read_file(spec_file))
    assert str(exc.value) == (
        "check_lock() argument 'lock' must be Lock or a path, not EnvSpec "
        "(an EnvSpec is solved into a Lock by envkit.solve_spec)"
    )
    # the same file given as the lock's path: it is read, and is no lock
    with pytest.raises(envkit.ParseError) as exc:
        envkit.check_lock(spec, spec_file)
    assert (
        str(exc.value)
        == f"{spec_file}: not a lock file (it reads as an environment spec, which needs solving)"
    )
    with pytest.raises(
        TypeError,
        match=r"^check_lock\(\) argument 'spec' must be EnvSpec or a path, not Lock "
        r"\(a Lock is already solved\)$",
    ):
        envkit.check_lock(envkit.read_file(CONDA_LOCK), envkit.read_file(CONDA_LOCK))


def test_diff_of_two_paths_reads_them(spec_file, tmp_path):
    same = envkit.diff(spec_file, str(spec_file))
    assert (same.changes, same.a.source, same.b.source) == ((), str(spec_file), str(spec_file))
    other = tmp_path / "n.yml"
    other.write_text(SPEC_TEXT.replace("python=3.11", "python=3.12"))
    d = envkit.diff(str(spec_file), str(other), label_a="old")
    assert [(c.name, c.kind) for c in d.changes] == [("python", "changed")]
    assert (d.a.source, d.b.source) == ("old", str(other))
    assert d == envkit.diff(
        envkit.read_file(spec_file), envkit.read_file(other), label_a="old", label_b=str(other)
    )


@pytest.mark.parametrize(
    "a, message",
    [
        (3, "diff() argument 'a' must be EnvSpec, Lock, LiveEnv or a path, not int"),
        (b"m.yml", "diff() argument 'a' must be EnvSpec, Lock, LiveEnv or a path, not bytes"),
        (["m.yml"], "diff() argument 'a' must be EnvSpec, Lock, LiveEnv or a path, not list"),
    ],
)
def test_diff_misuse(a, message, spec_file):
    with pytest.raises(TypeError) as exc:
        envkit.diff(a, spec_file)
    assert str(exc.value) == message
    with pytest.raises(envkit.EnvkitError, match="no such file"):
        envkit.diff(spec_file, spec_file.parent / "missing.yml")


def test_run_checks_takes_paths_or_targets(spec_file):
    by_path = envkit.run_checks([spec_file], envkit.Config(select=["mixed-channels"]))
    targets = envkit.load_targets([str(spec_file)])
    assert by_path == envkit.run_checks(targets, envkit.Config(select=["mixed-channels"]))
    assert [(f.rule, f.line) for f in by_path] == [("mixed-channels", 4)]
    assert envkit.run_checks([spec_file]) == envkit.run_checks(targets, envkit.Config())


@pytest.mark.parametrize(
    "targets, config, error, message",
    [
        (
            "m.yml",
            None,
            TypeError,
            "run_checks() argument 'targets' must be a list of Targets (load_targets) or of "
            "paths, not str (one goes in a list: ['m.yml'])",
        ),
        ([], None, envkit.UsageError, "run_checks(): nothing to check (no targets)"),
        (
            None,
            None,
            TypeError,
            "run_checks() argument 'targets' must be a list of Targets (load_targets) or of "
            "paths, not NoneType",
        ),
    ],
)
def test_run_checks_misuse(targets, config, error, message):
    with pytest.raises(error) as exc:
        envkit.run_checks(targets, config)
    assert str(exc.value) == message


def test_run_checks_does_not_mix_paths_and_targets(spec_file):
    [target] = envkit.load_targets([spec_file])
    with pytest.raises(TypeError, match=r"not a path among Targets \(give all paths or all Targets\)$"):
        envkit.run_checks([target, str(spec_file)])
    with pytest.raises(TypeError, match=r"one goes in a list: \[target\]\)$"):
        envkit.run_checks(target)


def test_load_targets(spec_file, tmp_path):
    [t] = envkit.load_targets([spec_file])  # a Path is fine
    assert (t.path, t.kind, t.model.name) == (str(spec_file), "spec", "m")
    with pytest.raises(TypeError) as exc:
        envkit.load_targets(str(spec_file))
    assert str(exc.value) == (
        f"load_targets() argument 'paths' must be a list of paths, not str "
        f"(one goes in a list: [{str(spec_file)!r}])"
    )
    with pytest.raises(TypeError) as live_err:
        envkit.load_targets([spec_file], live=t.model)
    assert str(live_err.value) == (
        "load_targets() argument 'live' must be LiveEnv, not EnvSpec "
        "(envkit.open_env reads a LiveEnv; a spec is locked by envkit.lock_spec)"
    )
    with pytest.raises(envkit.UsageError, match=r"^unknown format 'yml'"):
        envkit.load_targets([spec_file], format="yml")
    with pytest.raises(envkit.UsageError, match=r"^load_targets\(\): nothing to check"):
        envkit.load_targets([])


def test_solve_spec_misuse_fails_before_any_solve(spec_file):
    spec = envkit.read_file(spec_file)
    with pytest.raises(TypeError) as exc:
        envkit.solve_spec(spec, "linux-64")
    assert str(exc.value) == (
        "solve_spec() argument 'platforms' must be a list of platform names, not str "
        "(one goes in a list: ['linux-64'])"
    )
    with pytest.raises(
        TypeError, match=r"^solve_spec\(\) argument 'spec' must be EnvSpec or a path, not Lock"
    ):
        envkit.solve_spec(envkit.read_file(CONDA_LOCK), ["linux-64"])
    with pytest.raises(
        TypeError,
        match=r"^solve_spec\(\) argument 'virtual_packages' must be a list of "
        r"VirtualPackage or str, not str \(one goes in a list: \['__cuda=12'\]\)$",
    ):
        envkit.solve_spec(spec, ["linux-64"], virtual_packages="__cuda=12")
    with pytest.raises(envkit.UsageError, match="expected \\[PLATFORM:\\]__name=version"):
        envkit.solve_spec(spec, ["linux-64"], virtual_packages=["cuda"])
    with pytest.raises(envkit.UsageError, match=r"^unknown platform 'linux64'$"):
        envkit.solve_spec(spec, ["linux64"])
    with pytest.raises(envkit.UsageError, match=r"^solve_spec\(\): solve_timeout must be a positive number"):
        envkit.solve_spec(spec, ["linux-64"], solve_timeout=0)


def test_lock_live_misuse(spec_file):
    with pytest.raises(TypeError) as exc:
        envkit.lock_live(envkit.read_file(spec_file))
    assert (
        str(exc.value) == "lock_live() argument 'env' must be LiveEnv, not EnvSpec "
        "(envkit.open_env reads a LiveEnv; a spec is locked by envkit.lock_spec)"
    )
    with pytest.raises(TypeError, match=r"not str \(read it first: envkit.open_env\(prefix=...\)\)$"):
        envkit.lock_live("/opt/env")


def test_create_from_lock_misuse(spec_file, tmp_path):
    spec = envkit.read_file(spec_file)
    with pytest.raises(TypeError) as exc:
        envkit.create_from_lock(spec, tmp_path / "env")
    assert str(exc.value) == (
        "create_from_lock() argument 'lock' must be Lock or a path, not EnvSpec "
        "(an EnvSpec is solved into a Lock by envkit.solve_spec)"
    )
    with pytest.raises(envkit.ParseError, match="not a lock file"):
        envkit.create_from_lock(spec_file, tmp_path / "env")
    with pytest.raises(envkit.UsageError, match=r"has no packages for win-32 \(locked: linux-64, osx-64"):
        envkit.create_from_lock(CONDA_LOCK, tmp_path / "env", platform="win-32")
    assert not (tmp_path / "env").exists()


def test_open_env_misuse(tmp_path):
    with pytest.raises(envkit.UsageError, match="^unknown backend 'conda-cli'"):
        envkit.open_env(prefix=tmp_path, backend="conda-cli")
    with pytest.raises(envkit.EnvkitError, match="not a conda environment|no conda-meta"):
        envkit.open_env(prefix=tmp_path)


def test_check_lock_with_no_platform_to_check_is_an_error(spec_file):
    from envkit.model import Lock

    with pytest.raises(envkit.UsageError, match="^the lock names no platform, so nothing would be checked$"):
        envkit.check_lock(spec_file, Lock(kind="explicit", platforms=(), packages=()))


# --- formats and normalize: normal use and misuse -------------------------------------------------


def test_read_detect_and_normalize_normal_use(spec_file):
    text = spec_file.read_text()
    assert envkit.detect_format(text) == "env"
    assert envkit.detect_format("", spec_file) == "env"  # a Path as the file name
    spec = envkit.read_text(text, filename=spec_file)
    assert spec == envkit.read_file(spec_file) == envkit.read_file(str(spec_file), format="env")
    assert spec.source == str(spec_file)
    assert envkit.normalize(spec) == envkit.normalize_spec(spec)
    lock = envkit.read_file(CONDA_LOCK)
    assert envkit.normalize(lock) == envkit.normalize_lock(lock)
    assert (
        envkit.normalize_text("dependencies:\n  - b\n  - a\n", filename=spec_file)
        == "dependencies:\n  - a\n  - b\n"
    )
    assert envkit.normalize_text("b\na\n", format="requirements") == "a\nb\n"


@pytest.mark.parametrize(
    "call, error, message",
    [
        (
            lambda: envkit.read_text("a\n", format="txt"),
            envkit.UsageError,
            "unknown format 'txt'; choose one of: env, explicit, conda-lock, pixi, requirements, "
            "conda-list-json, "
            "conda-list-export, pylock, uv-lock, conda-requirements, pixi-manifest, pyproject",
        ),
        (lambda: envkit.normalize("name: x\n"), TypeError, "normalize() takes an EnvSpec or a Lock, not str"),
        (
            lambda: envkit.normalize_text("", format="pixi"),
            envkit.UsageError,
            "envkit reads pixi.lock but does not rewrite it (pixi owns that file)",
        ),
    ],
)
def test_formats_and_normalize_misuse(call, error, message):
    with pytest.raises(error) as exc:
        call()
    assert str(exc.value) == message


# --- every public function, generically -----------------------------------------------------------

FUNCTIONS = [
    "detect_format",
    "read_text",
    "read_file",
    "write_text",
    "normalize",
    "normalize_spec",
    "normalize_lock",
    "normalize_text",
    "diff",
    "load_targets",
    "run_checks",
    "check",
    "open_env",
    "lock_live",
    "solve_spec",
    "lock_spec",
    "check_lock",
    "create_from_lock",
    "convert_model",
    "pytorch_template",
]


def test_the_function_list_is_every_public_function():
    import inspect

    public = {
        n for n in envkit.__all__ if callable(getattr(envkit, n)) and not inspect.isclass(getattr(envkit, n))
    }
    assert public == set(FUNCTIONS)


#: the functions whose first parameter takes a model (or a path to one): what the value is, is
#: decided at run time, so a value of no expected kind is a TypeError naming the function (the
#: others' argument types are the type checker's to enforce)
MODEL_FIRST = [n for n in FUNCTIONS if n not in ("detect_format", "read_text", "read_file", "normalize_text")]
MODEL_FIRST = [n for n in MODEL_FIRST if n not in ("load_targets", "run_checks", "check", "open_env")]
# normalize_spec and normalize_lock take one model each: the wrong one is the type checker's to catch
MODEL_FIRST = [n for n in MODEL_FIRST if n not in ("normalize_spec", "normalize_lock")]


@pytest.mark.parametrize("name", MODEL_FIRST)
def test_a_wrong_first_argument_is_a_type_error_naming_the_function(name):
    # an object of no expected type, as first argument and (with a valid first one) as every other
    with pytest.raises(TypeError, match=rf"^{name}\(\)"):
        second = {"diff": [object()], "check_lock": [object()], "convert_model": ["env"]}
        getattr(envkit, name)(object(), *second.get(name, []))


#: public function -> the module of its one implementation (what the command of that name calls)
HOMES = {
    "detect_format": "envkit.formats",
    "read_text": "envkit.formats",
    "read_file": "envkit.formats",
    "write_text": "envkit.formats",
    "normalize": "envkit.formats.canonical",
    "normalize_spec": "envkit.formats.canonical",
    "normalize_lock": "envkit.formats.canonical",
    "normalize_text": "envkit.formats.canonical",
    "diff": "envkit.ops.diff",
    "load_targets": "envkit.ops.check",
    "run_checks": "envkit.ops.check",
    "check": "envkit.ops.check",
    "open_env": "envkit.backends",
    "lock_live": "envkit.ops.lock",
    "solve_spec": "envkit.ops.lock",
    "lock_spec": "envkit.ops.lock",
    "check_lock": "envkit.ops.lock",
    "create_from_lock": "envkit.ops.create",
    "convert_model": "envkit.ops.convert",
    "pytorch_template": "envkit.ops.template",
}


@pytest.mark.parametrize("name", FUNCTIONS)
def test_each_public_function_is_the_operation_itself(name):
    # no facade beside the operation: the function `import envkit` gives is the implementation
    import importlib

    assert getattr(envkit, name) is getattr(importlib.import_module(HOMES[name]), name)


# --- solve, create, open, lock, check: the whole round, offline -------------------------------------


@pytest.mark.slow
def test_solve_create_open_lock_check_round(tmp_path):
    from support.condafactory import ChannelBuilder, Pkg

    chan = (
        ChannelBuilder(tmp_path / "chan")
        .add(
            Pkg(name="zlib", version="1.3.1", build="h0_0"),
            Pkg(name="tool", version="1.0", build="h0_0", depends=["zlib >=1.3"]),
            Pkg(name="tool", version="2.0", build="h0_0", depends=["zlib >=1.3"]),
        )
        .index()
    )
    spec_path = tmp_path / "environment.yml"
    spec_path.write_text(f"name: t\nchannels:\n  - {chan.url}\ndependencies:\n  - tool<2\n")

    lock = envkit.solve_spec(spec_path, ["linux-64"], virtual_packages=["__glibc=2.17"])
    assert [(p.name, p.version) for p in lock.packages] == [("tool", "1.0"), ("zlib", "1.3.1")]
    assert envkit.check_lock(spec_path, lock).problems == ()
    newer = tmp_path / "newer.yml"
    newer.write_text(spec_path.read_text().replace("tool<2", "tool>=2"))
    assert [(p.kind, p.name) for p in envkit.check_lock(newer, lock).problems if p.kind != "stale"] == [
        ("unsatisfied", "tool")
    ]

    lock_path = tmp_path / "conda-lock.yml"
    lock_path.write_text(envkit.write_text(lock, "conda-lock"))
    result = envkit.create_from_lock(lock_path, tmp_path / "env", platform="linux-64")
    assert (result.conda, result.pip, result.platform) == (2, 0, "linux-64")

    live = envkit.open_env(prefix=tmp_path / "env")
    assert sorted(p.name for p in live.packages) == ["tool", "zlib"]
    live_lock = envkit.lock_live(live)
    relocked = live_lock.lock
    assert (live_lock.warnings, live_lock.env_spec.name) == ((), "env")
    assert [(p.name, p.version, p.build) for p in relocked.packages] == [
        (p.name, p.version, p.build) for p in lock.packages
    ]
    assert envkit.diff(lock_path, live).changes == ()
    # the live lock satisfies the spec; its content hash is the live environment's, not the spec's
    verdict = envkit.check_lock(spec_path, relocked, platforms=["linux-64"])
    assert [(p.kind, p.platform) for p in verdict.problems] == [("stale", "linux-64")]
    assert (verdict.ok, verdict.stale_platforms) == (False, ("linux-64",))


def test_the_misuse_examples_in_docs_api_md_are_true(monkeypatch):
    lines = (REPO / "docs" / "api.md").read_text().splitlines()
    pairs = [(ln[4:], lines[i + 1]) for i, ln in enumerate(lines) if ln.startswith(">>> ")]
    assert len(pairs) == 10
    monkeypatch.chdir(REPO / "examples" / "ci-repo")
    spec = envkit.read_file("environment.yml")
    for code, shown in pairs:
        with pytest.raises(Exception) as exc:
            eval(code, {"envkit": envkit, "spec": spec})
        assert f"{type(exc.value).__name__}: {exc.value}" == shown


# --- errors: the fix as a keyword, never a command-line flag ------------------------------------------


@pytest.mark.parametrize(
    "call, message, hint",
    [
        (
            lambda tmp: envkit.open_env(name="a", prefix=tmp),
            "an environment is named by a name or a prefix, not both",
            "pass only name=NAME or prefix=PREFIX",
        ),
        (
            lambda tmp: envkit.pytorch_template(cuda="12.6", cpu=True),
            "a CUDA version, CPU only and detection exclude each other",
            "pass one of cuda=VERSION, cpu=True or detect=True",
        ),
        (
            lambda tmp: envkit.pytorch_template(machine="host", detect=True),
            "a machine profile picks the CUDA variant itself",
            "leave out cuda=VERSION, cpu=True and detect=True",
        ),
        (
            lambda tmp: envkit.solve_spec(tmp / "m.yml", ["linux-64"], solve_timeout=0),
            "solve_spec(): solve_timeout must be a positive number of seconds, not 0",
            "pass solve_timeout=SECONDS",
        ),
        (
            lambda tmp: envkit.load_targets([]),
            "load_targets(): nothing to check (no paths, no lock, no live environment)",
            "pass paths=[PATH]",
        ),
    ],
)
def test_library_errors_name_the_keyword_to_change(call, message, hint, tmp_path, spec_file):
    with pytest.raises(envkit.UsageError) as exc:
        call(tmp_path)
    assert (exc.value.message, exc.value.hint) == (message, hint)
    assert "--" not in str(exc.value) and " -p " not in str(exc.value)
