"""The public Python API (`import envkit`): every name in `envkit.__all__` checks its arguments and
answers misuse with TypeError (a wrong Python type, naming what it wanted and what it got) or an
EnvkitError (a bad value) — never AttributeError, never a silent success."""
from __future__ import annotations

import pytest

import envkit
from envkit.config import ConfigError


# --- Config ----------------------------------------------------------------------------------

def test_config_normal_use_normalizes_lists_and_channel_names():
    cfg = envkit.Config(select=["unpinned", "leaked-secret"], ignore=["fuzzy-pin"],
                        severity={"unpinned": "error"}, fail_on="warning",
                        allowed_channels=["https://conda.anaconda.org/conda-forge/", "nodefaults"],
                        pypi_names={"My-Tool": ["my_tool"]})
    assert cfg.select == ("unpinned", "leaked-secret") and cfg.ignore == ("fuzzy-pin",)
    assert cfg.allowed_channels == ("conda-forge", "nodefaults")
    assert cfg.pypi_names == {"my-tool": ("my_tool",)}
    assert cfg.merged(ignore=("unpinned",)).is_selected("unpinned") is False
    assert envkit.Config() == envkit.Config(select=None, ignore=(), severity={})


@pytest.mark.parametrize("kwargs, message", [
    (dict(fail_on="bogus"), "fail-on must be one of error, warning, info, not 'bogus'"),
    (dict(select=["no-such-rule"]), "unknown rule 'no-such-rule' in select"),
    (dict(ignore=("nope",)), "unknown rule 'nope' in ignore"),
    (dict(severity={"nope": "error"}), "unknown rule 'nope' in severity"),
    (dict(severity={"unpinned": "fatal"}), "severity of unpinned must be one of error, warning, info, not 'fatal'"),
    (dict(select=()), "select is empty, so no rule would run"),
    (dict(allowed_channels=[" "]), "allowed-channels holds an empty channel name"),
])
def test_config_bad_values_are_config_errors(kwargs, message):
    with pytest.raises(ConfigError) as exc:
        envkit.Config(**kwargs)
    assert str(exc.value) == message
    assert isinstance(exc.value, envkit.EnvkitError)


@pytest.mark.parametrize("kwargs, message", [
    (dict(select="unpinned"), "Config select must be a tuple or list of rule names, not str "
                              "(one name goes in a tuple: ('unpinned',))"),
    (dict(ignore=[1]), "Config ignore must hold rule names (str), not int"),
    (dict(fail_on=1), "Config fail_on must be a str or None, not int"),
    (dict(severity=["unpinned"]), "Config severity must be a dict of rule name -> severity, not list"),
    (dict(allowed_channels="conda-forge"), "Config allowed_channels must be a tuple or list of channel names, "
                                           "not str (one name goes in a tuple: ('conda-forge',))"),
    (dict(pypi_names={"x": "y"}), "Config pypi_names['x'] must be a tuple or list of PyPI names, not str "
                                  "(one name goes in a tuple: ('y',))"),
    (dict(source=3), "Config source must be a str or None, not int"),
])
def test_config_wrong_types_are_type_errors(kwargs, message):
    with pytest.raises(TypeError) as exc:
        envkit.Config(**kwargs)
    assert str(exc.value) == message


# --- formats -----------------------------------------------------------------------------------

from conftest import CORPUS, DATA  # noqa: E402

CONDA_LOCK = CORPUS / "51_Cecca__repro-course-ci__conda-lock.yml"
EXPORT = "name: e\ndependencies:\n  - python=3.11.4=h0_0\n  - pkk=1!1.0=h1_0\n"


def test_write_text_normal_use():
    spec = envkit.read_text("name: x\ndependencies:\n  - numpy\n  - python=3.11\n", filename="x.yml")
    assert envkit.write_text(spec, "env") == "name: x\ndependencies:\n  - numpy\n  - python=3.11\n"
    assert envkit.write_text(spec, "env", header="made by a test") == (
        "# made by a test\nname: x\ndependencies:\n  - numpy\n  - python=3.11\n")
    export = envkit.read_text(EXPORT, filename="e.yml")
    assert envkit.write_text(export, "conda-list-export", platform="linux-64") == (
        "# This file may be used to create an environment using:\n"
        "# $ conda create --name <env> --file <this file>\n"
        "# platform: linux-64\npython=3.11.4=h0_0\npkk=1!1.0=h1_0\n")
    lock = envkit.read_file(CONDA_LOCK)
    text = envkit.write_text(lock, "env", platform="osx-arm64")
    assert text.startswith("channels:\n  - conda-forge\ndependencies:\n") and "  - pip:\n    - pyattimo==0.6.0\n" in text


@pytest.mark.parametrize("call, error, message", [
    (lambda s, l: envkit.write_text("x", "env"), TypeError,
     "write_text() argument 'model' must be EnvSpec or Lock, not str"),
    (lambda s, l: envkit.write_text(s, 1), TypeError, "write_text() argument 'format' must be str, not int"),
    (lambda s, l: envkit.write_text(s, "yaml"), envkit.UsageError,
     "unknown format 'yaml'; choose one of: env, explicit, conda-lock, pixi, requirements, conda-list-json, "
     "conda-list-export"),
    (lambda s, l: envkit.write_text(s, "requirements", platform="linux-64"), TypeError,
     "write_text() got an unexpected keyword argument 'platform' for format 'requirements' (it takes: header, "
     "comments)"),
    (lambda s, l: envkit.write_text(s, "env", header=3), TypeError,
     "write_text() argument 'header' must be str or None, not int"),
    (lambda s, l: envkit.write_text(s, "env", comments={}), TypeError,
     "write_text() argument 'comments' must be CommentMap or None, not dict"),
    (lambda s, l: envkit.write_text(s, "env", platform="linux-64"), envkit.UsageError,
     "platform= picks a platform of a lock; an EnvSpec is written as env as it is"),
    (lambda s, l: envkit.write_text(l, "conda-lock", platform="linux-64"), envkit.UsageError,
     "platform= does not apply to a Lock written as conda-lock: conda-lock.yml holds every platform of the lock"),
    (lambda s, l: envkit.write_text(s, "explicit"), envkit.UsageError,
     "only an exported environment (name=version=build) can be written as explicit"),
])
def test_write_text_misuse(call, error, message):
    spec = envkit.read_text("name: x\ndependencies:\n  - numpy\n", filename="x.yml")
    with pytest.raises(error) as exc:
        call(spec, envkit.read_file(CONDA_LOCK))
    assert str(exc.value) == message


def test_write_text_an_export_as_conda_lock_with_its_platform():
    # the platform went on to write_conda_lock, which takes none (TypeError from inside envkit);
    # now it is the platform the export is locked for, and conda-lock's need for URLs is reported
    export = envkit.read_text(EXPORT, filename="e.yml")
    with pytest.raises(envkit.ParseError, match="has no URL"):
        envkit.write_text(export, "conda-lock", platform="linux-64")
